/* SPDX-License-Identifier: MIT */
/* test_release.c - what a release and a packager rely on: make install and make uninstall, the
 * reproducible make dist and the tarball it writes, and the one version shown everywhere
 * (docs/release.md).  Nothing is written into the source tree: the tests copy it (its tracked
 * files, with their uncommitted changes, and its git directory; or, in an unpacked tarball, its
 * files), and make install and uninstall run in it only when its build is up to date, which
 * writes under DESTDIR alone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* Whether the source tree is a git checkout (else an unpacked release tarball). */
static int in_git(void)
{
	struct cmd c = run("git -C '%s' rev-parse --is-inside-work-tree", srcdir());
	int yes = c.status == 0;

	cmd_free(&c);
	return yes;
}

/* A copy of the source tree at DIR in the work directory: a clone, then the working tree's
 * tracked files over it; outside git, every file but the builds' outputs. */
static void copy_tree(const char *dir)
{
	if (in_git())
		free(sh("git clone -q --no-hardlinks '%s' %s && git -C '%s' ls-files -z | "
			"tar -C '%s' --null -T - -cf - | tar -C %s -xf -", srcdir(), dir, srcdir(), srcdir(), dir));
	else
		free(sh("mkdir %s && tar -C '%s' --exclude=./build --exclude='./build-*' --exclude='*.tar.gz' -cf - . | "
			"tar -C %s -xf -", dir, srcdir(), dir));
}

static char *version(void)
{
	return sh("cat '%s/VERSION'", srcdir());
}

/* What `make install` writes with PREFIX=/usr (rpm's and Perl's system directories); the
 * audit modules are this machine's and one per cross compiler of the Makefile's AUDIT_CROSS
 * (tests/setup.sh installs them all), lib32/ a symbolic link to the i386 one.  With another prefix all of it goes under that prefix. */
#define INSTALLED_USR \
	"usr/bin/dh_dlnote\n" \
	"usr/bin/dh_dlnotedeps\n" \
	"usr/bin/dlnote-inject\n" \
	"usr/lib/cmake/dlnote/dlnoteCheck.cmake\n" \
	"usr/lib/cmake/dlnote/dlnoteConfig.cmake\n" \
	"usr/lib/cmake/dlnote/dlnoteConfigVersion.cmake\n" \
	"usr/lib/cmake/dlnote/dlnoteFunctions.cmake\n" \
	"usr/lib/dlnote/lib/aarch64-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/arm-linux-gnueabi/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/arm-linux-gnueabihf/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/i386-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/mips-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/mips64el-linux-gnuabi64/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/powerpc64-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/powerpc64le-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/riscv64-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/s390x-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib/x86_64-linux-gnu/dlnote-audit.so\n" \
	"usr/lib/dlnote/lib32/dlnote-audit.so\n" \
	"usr/lib/pkgconfig/dlnote.pc\n" \
	"usr/lib/rpm/fileattrs/dlnote.attr\n" \
	"usr/share/aclocal/dlnote.m4\n" \
	"usr/share/bash-completion/completions/dlnote-inject\n" \
	"usr/share/dlnote/dlnote-note.py\n" \
	"usr/share/dlnote/dlnote-template.c\n" \
	"usr/share/dlnote/dlnote.mk\n" \
	"usr/share/man/man1/dh_dlnote.1\n" \
	"usr/share/man/man1/dh_dlnotedeps.1\n" \
	"usr/share/man/man1/dlnote-inject.1\n" \
	"usr/share/perl5/Debian/Debhelper/Sequence/dlnote.pm"

static const char *const cross_compilers[] = {
	"i686-linux-gnu-gcc", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc", "arm-linux-gnueabi-gcc",
	"powerpc64le-linux-gnu-gcc", "powerpc64-linux-gnu-gcc", "s390x-linux-gnu-gcc", "riscv64-linux-gnu-gcc",
	"mips64el-linux-gnuabi64-gcc", "mips-linux-gnu-gcc", NULL,
};

/* Where make install and uninstall run: in the source tree itself when its build is up to date
 * (make check builds it first), so that nothing is compiled again and nothing written into the
 * tree; else in a copy of it ("tree", made when missing), built in the work directory. */
static const char *install_from(void)
{
	static char from[4300];   /* decided at the first call (a test is a process of its own) */
	char tree[4200];
	struct cmd c;

	if (from[0])
		return from;
	c = run("make -s -q -C '%s' all", srcdir());
	if (c.status == 0) {
		snprintf(from, sizeof from, "-C '%s'", srcdir());
	} else {
		if (access(workdir_path(tree, sizeof tree, "tree"), F_OK) != 0)
			copy_tree("tree");
		snprintf(from, sizeof from, "-C tree BUILD=\"$PWD/build\"");
	}
	cmd_free(&c);
	return from;
}

static void install_uninstall(const char *prefix, const char *want)
{
	char *got;

	need("make");
	for (const char *const *cc = cross_compilers; *cc; cc++)
		need(*cc);
	free(sh("mkdir -p root/%s/bin && echo keep > root/%s/bin/someone-elses", prefix, prefix));
	free(sh("make -s %s install PREFIX=/%s DESTDIR=\"$PWD/root\" >/dev/null", install_from(), prefix));
	got = sh("cd root && find . ! -type d | sed 's|^\\./||' | grep -v /someone-elses | LC_ALL=C sort");
	cr_expect_str_eq(got, want, "make install PREFIX=/%s wrote\n%s\ninstead of\n%s", prefix, got, want);
	free(got);
	/* The same PREFIX and DESTDIR: every file goes, the directories that are dlnote's own too,
	 * and what was there before stays. */
	free(sh("make -s %s uninstall PREFIX=/%s DESTDIR=\"$PWD/root\"", install_from(), prefix));
	got = sh("cd root && find . ! -type d | sed 's|^\\./||' | grep -v /someone-elses | LC_ALL=C sort");
	cr_expect_str_eq(got, "", "make uninstall PREFIX=/%s left\n%s", prefix, got);
	free(got);
	got = sh("cd root && find . -type d -name '*dlnote*' | LC_ALL=C sort");
	cr_expect_str_eq(got, "", "make uninstall PREFIX=/%s left dlnote's directories\n%s", prefix, got);
	free(got);
	got = sh("cat root/%s/bin/someone-elses 2>&1", prefix);
	cr_expect_str_eq(got, "keep");
	free(got);
	free(sh("rm -rf root"));
}

Test(release, make_uninstall_removes_what_make_install_wrote)
{
	char *local;

	install_uninstall("usr", INSTALLED_USR);
	/* Another prefix keeps rpm's and Perl's directories in it. */
	local = sh("printf '%%s\\n' '" INSTALLED_USR "' | sed 's|^usr/|usr/local/|'");
	install_uninstall("usr/local", local);
	free(local);
}

/* The tarball's names, sorted, one per line. */
static char *tarball_names(const char *tarball)
{
	return sh("tar -tzf %s | LC_ALL=C sort", tarball);
}

Test(release, make_dist_is_reproducible_and_holds_the_tracked_files)
{
	char *v = version(), *names, *want, *meta;

	copy_tree("a");
	copy_tree("b");
	/* Another checkout time, other modes from another umask: the same bytes (outside git the
	 * date is NEWS's, which keeps its own). */
	free(sh("find b -path b/.git -prune -o -type f ! -path b/NEWS -exec touch -d '2001-01-01 00:00' {} + && chmod -R g+w,o-r b"));
	free(sh("make -s -C a dist DIST_OUT=\"$PWD/a.tar.gz\" >/dev/null && "
		"make -s -C b dist DIST_OUT=\"$PWD/b.tar.gz\" >/dev/null && sleep 1 && "
		"make -s -C a dist DIST_OUT=\"$PWD/a2.tar.gz\" >/dev/null"));
	cr_expect(same_files("a.tar.gz", "b.tar.gz"), "make dist in two checkouts wrote other bytes");
	cr_expect(same_files("a.tar.gz", "a2.tar.gz"), "make dist twice wrote other bytes");
	names = tarball_names("a.tar.gz");
	if (in_git())
		want = sh("git -C a ls-files | sed 's|^|dlnote-%s/|' | LC_ALL=C sort", v);
	else
		want = sh("cd a && find . -type f | sed 's|^\\./|dlnote-%s/|' | LC_ALL=C sort", v);
	cr_expect_str_eq(names, want, "the tarball holds\n%s\ninstead of the tracked files\n%s", names, want);
	/* Files only, 0644 or 0755, owned by 0:0, dated as the last commit. */
	meta = sh("tar -tvzf a.tar.gz | awk '{print $1}' | sort -u | tr '\\n' ' '");
	cr_expect_str_eq(meta, "-rw-r--r-- -rwxr-xr-x ", "modes in the tarball: %s", meta);
	free(meta);
	meta = sh("tar -tvzf a.tar.gz --full-time | awk '{print $2, $4 \"T\" $5}' | sort -u");
	free(want);
	/* The last commit's date; outside git, NEWS's. */
	if (in_git())
		want = sh("echo \"0/0 $(TZ=UTC0 git -C a log -1 --date=format-local:%%Y-%%m-%%dT%%H:%%M:%%S --format=%%cd)\"");
	else
		want = sh("echo \"0/0 $(TZ=UTC0 date -d @$(stat -c %%Y a/NEWS) +%%Y-%%m-%%dT%%H:%%M:%%S)\"");
	cr_expect_str_eq(meta, want, "owners and dates in the tarball: %s, not %s", meta, want);
	free(meta);
	free(names);
	free(want);
	free(v);
}

/* The top level of the source tree holds what the layout table of docs/testing.md names (its
 * first column), and the table names nothing that is not there: test fixtures and stray outputs
 * belong elsewhere. */
Test(release, the_top_level_holds_what_the_layout_names)
{
	const char *doc = "docs/testing.md";
	char *named = sh("sed -n '/^## The repository$/,/^## /p' '%s/%s' | grep '^| `' | cut -d'|' -f2 | "
			 "grep -o '`[^`]*`' | tr -d '`' | cut -d/ -f1 | LC_ALL=C sort -u", srcdir(), doc);
	char *top;

	if (in_git())
		top = sh("git -C '%s' ls-files | cut -d/ -f1 | LC_ALL=C sort -u", srcdir());
	else /* an unpacked tarball: what the builds write is not the source */
		top = sh("cd '%s' && ls -A | grep -vE '^(build|build-.*|.*\\.tar\\.gz)$' | LC_ALL=C sort", srcdir());
	cr_expect_str_eq(top, named, "the top level holds\n%s\nwhile %s's layout table names\n%s", top, doc, named);
	free(top);
	free(named);
}

/* The demo prints each command as a shell reads it back (issue 40, item 6): a reader can copy
 * it.  Every printed command, read by sh, gives the arguments the demo ran it with; the one with
 * a description of two words is checked word for word. */
Test(release, the_demo_prints_commands_a_shell_reads_back)
{
	char *got, want[4200];

	free(sh("DLNOTE='%s' '%s/demo.sh' > demo.out 2>&1 && sed -n 's/^\\$ //p' demo.out | grep -- --description > cmd",
		tool(), srcdir()));
	got = sh("sh -c 'eval \"set -- $(cat cmd)\"; for a; do printf \"[%%s]\" \"$a\"; done'");
	snprintf(want, sizeof want, "[%s][--merge][--feature][kmod][--soname][libkmod.so.2][--description][Load modules]"
		 "[--priority][suggested][app2]", tool());
	cr_expect_str_eq(got, want);
	free(got);
}

/* The tarball unpacked, outside git: it builds, the tool it builds has the version, and make
 * dist in it gives the same bytes (make check-packaging runs the whole make check there). */
Test(release, the_tarball_builds_and_makes_itself_again)
{
	char *v = version(), *got, *want;

	copy_tree("a");
	free(sh("make -s -C a dist DIST_OUT=\"$PWD/dlnote-%s.tar.gz\" >/dev/null && tar -xzf dlnote-%s.tar.gz", v, v));
	free(sh("cd dlnote-%s && make -s -j2 >../build.log 2>&1 || { tail -40 ../build.log; exit 1; }", v));
	got = sh("dlnote-%s/build/dlnote-inject --version", v);
	want = sh("echo 'dlnote-inject %s'", v);
	cr_expect_str_eq(got, want);
	free(got);
	free(want);
	free(sh("make -s -C dlnote-%s dist DIST_OUT=\"$PWD/again.tar.gz\" >/dev/null && mv dlnote-%s.tar.gz first.tar.gz", v, v));
	cr_expect(same_files("again.tar.gz", "first.tar.gz"), "make dist in the unpacked tarball wrote other bytes than the tarball");
	free(v);
}

/* Every place that shows the version shows the file VERSION's. */
Test(release, one_version_everywhere)
{
	char *v = version(), *got;
	struct {
		const char *where, *cmd;
	} places[] = {
		{"dlnote-inject --version", "root/usr/bin/dlnote-inject --version | sed 's/^dlnote-inject //'"},
		{"the man page", "sed -n 's/^\\.TH .*\"dlnote-inject \\([^\"]*\\)\".*/\\1/p' root/usr/share/man/man1/dlnote-inject.1"},
		{"dh_dlnote's man page", "sed -n 's/^\\.TH .*\"dlnote-inject \\([^\"]*\\)\".*/\\1/p' root/usr/share/man/man1/dh_dlnote.1"},
		{"dh_dlnote", "sed -n \"s/^our \\$VERSION = '\\([^']*\\)'.*/\\1/p\" root/usr/bin/dh_dlnote"},
		{"dh_dlnotedeps's man page", "sed -n 's/^\\.TH .*\"dlnote-inject \\([^\"]*\\)\".*/\\1/p' root/usr/share/man/man1/dh_dlnotedeps.1"},
		{"dh_dlnotedeps", "sed -n \"s/^our \\$VERSION = '\\([^']*\\)'.*/\\1/p\" root/usr/bin/dh_dlnotedeps"},
		{"dlnote.pc", "PKG_CONFIG_PATH=root/usr/lib/pkgconfig pkg-config --modversion dlnote"},
		{"the CMake package",
		 "mkdir -p find && printf 'cmake_minimum_required(VERSION 3.25)\\nproject(f NONE)\\nfind_package(dlnote REQUIRED)\\n"
		 "message(STATUS \"v=${dlnote_VERSION}\")\\n' > find/CMakeLists.txt && "
		 "cmake -S find -B find/b -DCMAKE_PREFIX_PATH=\"$PWD/root/usr\" -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF | sed -n 's/^-- v=//p'"},
		{"CMakeLists.txt's project()",
		 "cmake -S tree -B cm >/dev/null && sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' cm/CMakeCache.txt"},
		{"meson.build's project()", "meson setup tree ms >/dev/null && meson introspect --projectinfo ms | "
		 "/usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[\"version\"])'"},
		{"debian/changelog", "cd tree && dpkg-parsechangelog -S Version | sed 's/-[^-]*$//'"},
		{"the rpm spec", "rpmspec -q --srpm --qf '%{version}\\n' tree/packaging/rpm/dlnote.spec 2>/dev/null"},
		{"NEWS", "sed -n '1s/^dlnote \\([^ ]*\\) .*/\\1/p' tree/NEWS"},
	};

	need("cmake");
	need("meson");
	need("pkg-config");
	need("dpkg-parsechangelog");
	need("rpmspec");
	copy_tree("tree");
	free(sh("make -s %s install PREFIX=/usr DESTDIR=\"$PWD/root\" >/dev/null", install_from()));
	for (size_t i = 0; i < sizeof places / sizeof places[0]; i++) {
		got = sh("%s", places[i].cmd);
		cr_expect_str_eq(got, v, "%s shows version '%s', not VERSION's '%s'", places[i].where, got, v);
		free(got);
	}
	free(v);
}

/* make dist refuses a tree whose packaging names another version than VERSION. */
Test(release, make_dist_refuses_a_version_mismatch)
{
	struct cmd c;
	char *ls;

	copy_tree("tree");
	free(sh("echo 9.9.9 > tree/VERSION"));
	c = run("make -s -C tree dist DIST_OUT=\"$PWD/x.tar.gz\"");
	cr_expect_neq(c.status, 0, "make dist accepted VERSION 9.9.9 with the old debian/changelog");
	cr_expect(strstr(c.err, "debian/changelog's newest entry is"), "make dist says: %s", c.err);
	ls = sh("ls");
	cr_expect(!strstr(ls, "x.tar.gz"), "make dist left a tarball behind: %s", ls);
	free(ls);
	cmd_free(&c);
}

/* The layer check (make layers, in make check) on a tree of two layers, low and high, built
 * here: it passes a clean tree and names each breach of a broken one (an upward call or
 * include, another folder's header that is not its interface, a circle). */
Test(release, the_layer_check_names_upward_calls_includes_and_circles)
{
	struct cmd c;
	char *out;

	need("nm");
	need("tsort");
	free(sh("mkdir -p src/low src/high build/low build/high && "
		"printf 'int low_a(void);\\nint low_b(void);\\n' > src/low/low.h && "
		"printf '#include \"low.h\"\\nint low_a(void) { return 1; }\\n' > src/low/a.c && "
		"printf '#include \"low.h\"\\nint low_b(void) { return low_a(); }\\n' > src/low/b.c && "
		"printf '#include \"../low/low.h\"\\nint high_c(void) { return low_b(); }\\n' > src/high/c.c && "
		"for f in low/a low/b high/c; do cc -c -o build/$f.o src/$f.c || exit 1; done"));
	out = sh("sh '%s/tests/tools/check-layers.sh' build low high", srcdir());
	cr_assert_str_eq(out, "");
	free(out);
	/* low/a.c now calls up into high/ (a circle too: c -> b -> a -> c) and includes its
	 * private header. */
	free(sh("printf 'int high_c(void);\\n' > src/high/high_int.h && "
		"printf '#include \"low.h\"\\n#include \"../high/high_int.h\"\\nint low_a(void) { return high_c(); }\\n' "
		"> src/low/a.c && cc -c -Isrc -o build/low/a.o src/low/a.c"));
	c = run("sh '%s/tests/tools/check-layers.sh' build low high", srcdir());
	cr_assert_eq(c.status, 1);
	cr_assert_str_eq(c.out, "upward call: low/a.c calls high_c of high/c.c\n"
				"upward include: low/a.c includes \"high/high_int.h\"\n"
				"circle of calls: high/c.c low/b.c low/a.c\n");
	cmd_free(&c);
	/* Within one layer: the private header is fine, a circle is not; from the layer above,
	 * low's private header is not. */
	free(sh("printf '#include \"low.h\"\\nint low_a(void) { return low_b(); }\\n' > src/low/a.c && "
		"printf '#include \"low.h\"\\nint low_b(void) { return low_a(); }\\n' > src/low/b.c && "
		"printf 'extern int low_x;\\n' > src/low/low_int.h && "
		"printf '#include \"high_int.h\"\\n#include \"../low/low_int.h\"\\nint high_c(void) { return 0; }\\n' > src/high/c.c && "
		"for f in low/a low/b high/c; do cc -c -o build/$f.o src/$f.c || exit 1; done"));
	c = run("sh '%s/tests/tools/check-layers.sh' build low high", srcdir());
	cr_assert_eq(c.status, 1);
	cr_assert_str_eq(c.out, "private header: high/c.c includes \"low/low_int.h\" (other folders "
				"include only \"low/low.h\")\n"
				"circle of calls: low/a.c low/b.c\n");
	cmd_free(&c);
}
