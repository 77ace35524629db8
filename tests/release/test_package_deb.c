/* SPDX-License-Identifier: MIT */
/* test_package_deb.c - the project's own Debian packages (debian/; docs/release.md, "Debian"):
 * dpkg-buildpackage -b in the unpacked release tarball builds dlnote-inject and dh-dlnote
 * with exactly the files and fields expected, the packaged tool, audit module and debhelper
 * addon work where they were extracted, and lintian says nothing but the overridden tags.
 * Nothing is installed: the packages are only extracted into the work directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "packaged_tool.h"

/* The package build gets a clean environment, as a build daemon gives it: not the calling
 * make's variables (make exports those of its command line, so `make check-packaging
 * SANITIZE=1 CC=clang` would reach the Makefile in the package), nor a caller's
 * DEB_BUILD_OPTIONS, LD_AUDIT or DLNOTE_AUDIT_MODULE. */
#define CLEAN_ENV "env -i PATH=\"$PATH\" HOME=\"$HOME\" ${TMPDIR:+TMPDIR=\"$TMPDIR\"} "

/* Files (not directories) of each package: path, mode, owner.  @P@ is each audit module's $LIB;
 * a line starting "amd64:" is there only on amd64. */
static const char *const files_dlnote_inject[] = {
	"usr/bin/dlnote-inject -rwxr-xr-x root/root",
	"usr/lib/cmake/dlnote/dlnoteCheck.cmake -rw-r--r-- root/root",
	"usr/lib/cmake/dlnote/dlnoteConfig.cmake -rw-r--r-- root/root",
	"usr/lib/cmake/dlnote/dlnoteConfigVersion.cmake -rw-r--r-- root/root",
	"usr/lib/cmake/dlnote/dlnoteFunctions.cmake -rw-r--r-- root/root",
	"usr/lib/dlnote/@P@/dlnote-audit.so -rw-r--r-- root/root",
	"amd64:usr/lib/dlnote/lib32/dlnote-audit.so lrwxrwxrwx root/root",
	"usr/lib/rpm/fileattrs/dlnote.attr -rw-r--r-- root/root",
	"usr/share/aclocal/dlnote.m4 -rw-r--r-- root/root",
	"usr/share/bash-completion/completions/dlnote-inject -rw-r--r-- root/root",
	"usr/share/dlnote/dlnote-note.py -rwxr-xr-x root/root",
	"usr/share/dlnote/dlnote-template.c -rw-r--r-- root/root",
	"usr/share/dlnote/dlnote.mk -rw-r--r-- root/root",
	"usr/share/doc/dlnote-inject/changelog.gz -rw-r--r-- root/root",
	"usr/share/doc/dlnote-inject/copyright -rw-r--r-- root/root",
	"usr/share/lintian/overrides/dlnote-inject -rw-r--r-- root/root",
	"usr/share/man/man1/dlnote-inject.1.gz -rw-r--r-- root/root",
	"usr/share/pkgconfig/dlnote.pc -rw-r--r-- root/root",
	NULL,
};

static const char *const files_dh_dlnote[] = {
	"usr/bin/dh_dlnote -rwxr-xr-x root/root",
	"usr/bin/dh_dlnotedeps -rwxr-xr-x root/root",
	"usr/share/doc/dh-dlnote/changelog.gz -rw-r--r-- root/root",
	"usr/share/doc/dh-dlnote/copyright -rw-r--r-- root/root",
	"usr/share/man/man1/dh_dlnote.1.gz -rw-r--r-- root/root",
	"usr/share/man/man1/dh_dlnotedeps.1.gz -rw-r--r-- root/root",
	"usr/share/perl5/Debian/Debhelper/Sequence/dlnote.pm -rw-r--r-- root/root",
	NULL,
};

/* The tags debian/dlnote-inject.lintian-overrides and debian/source/lintian-overrides silence,
 * each with its reason there: package, tag, file. */
static const char *const lintian_overridden[] = {
	"dlnote-inject: python3-script-but-no-python3-dep [usr/share/dlnote/dlnote-note.py]",
	"dlnote source: source-is-missing [tests/fixtures/v1-bfd-pie.in]",
	"dlnote source: source-is-missing [tests/fixtures/v1-bfd-pie]",
	"dlnote source: source-is-missing [tests/fixtures/v1-lld-pie.in]",
	"dlnote source: source-is-missing [tests/fixtures/v1-lld-pie]",
	NULL,
};

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* LIST (NULL-terminated) with @P@ replaced by each of the n platforms, sorted as LC_ALL=C
 * sort sorts, one per line. */
static char *expected_list(const char *const *list, const char *const *platforms, int n, int amd64)
{
	char *lines[256], *out;
	size_t count = 0, len = 0;

	for (; *list; list++) {
		const char *at = strstr(*list, "@P@");
		if (strncmp(*list, "amd64:", 6) == 0) {
			cr_assert_lt(count, sizeof lines / sizeof lines[0]);
			if (amd64) {
				lines[count++] = strdup(*list + 6);
				len += strlen(*list + 6) + 1;
			}
			continue;
		}
		for (int i = 0; i < (at ? n : 1); i++) {
			char line[512];
			if (at)
				snprintf(line, sizeof line, "%.*s%s%s", (int)(at - *list), *list, platforms[i], at + 3);
			else
				snprintf(line, sizeof line, "%s", *list);
			cr_assert_lt(count, sizeof lines / sizeof lines[0]);
			lines[count++] = strdup(line);
			len += strlen(line) + 1;
		}
	}
	qsort(lines, count, sizeof lines[0], by_name);
	out = calloc(1, len + 1);
	for (size_t i = 0; i < count; i++) {
		strcat(out, lines[i]);
		if (i + 1 < count)
			strcat(out, "\n");
		free(lines[i]);
	}
	return out;
}

/* The files of a .deb as dpkg-deb -c lists them: "path mode owner", sorted by path. */
static char *deb_files(const char *deb)
{
	return sh("dpkg-deb -c %s | awk '$1 !~ /^d/ { n = $6; sub(/^\\.\\//, \"\", n); print n, $1, $2 }' | LC_ALL=C sort",
		  deb);
}

static void expect_fields(const char *deb, const char *want)
{
	char *got = sh("dpkg-deb -f %s Package Source Version Architecture Multi-Arch Provides", deb);

	cr_expect_str_eq(got, want, "%s has the fields\n%s\ninstead of\n%s", deb, got, want);
	free(got);
}

Test(package_deb, dpkg_buildpackage_of_the_release_tarball, .timeout = 1800)
{
	const char *platforms[2];
	int nplatforms = 0;
	char *v, *arch, *got, *want, *tree, *deb_tool, *deb_dh, *deb_dbg;
	struct cmd c;

	need("git");
	need("make");
	need("gcc");
	need("dpkg-buildpackage");
	need("dpkg-checkbuilddeps");
	need("dpkg-deb");
	need("dpkg-source");
	need("dh");
	need("readelf");
	need("cmake");
	need("pkg-config");
	need("lintian");
	v = sh("cat '%s/VERSION'", srcdir());
	arch = sh("dpkg --print-architecture");
	/* The audit modules: this machine's $LIB (Debian: lib/MULTIARCH), and on amd64 also i386's
	 * (debian/control build-depends on its cross compiler there), lib32 a link to it. */
	if (strcmp(arch, "amd64") == 0) {
		need("i686-linux-gnu-gcc");
		platforms[nplatforms++] = "lib/x86_64-linux-gnu";
		platforms[nplatforms++] = "lib/i386-linux-gnu";
	} else {
		platforms[nplatforms++] = sh("echo lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)");
	}

	/* The release tarball (make dist: the files git tracks, debian/ among them), unpacked. */
	free(sh(CLEAN_ENV "make -s --no-print-directory -C '%s' dist DIST_OUT=\"$PWD/dlnote-%s.tar.gz\" >/dev/null && "
		"tar -xzf dlnote-%s.tar.gz && test -x dlnote-%s/debian/rules",
		srcdir(), v, v, v));
	tree = sh("echo \"$PWD/dlnote-%s\"", v);

	c = run("cd '%s' && " CLEAN_ENV "dpkg-buildpackage -b -uc -us >../build.log 2>&1", tree);
	if (c.status != 0) {
		char *tail = sh("tail -60 build.log");
		cr_assert_fail("dpkg-buildpackage -b -uc -us failed (%d):\n%s", c.status, tail);
	}
	cmd_free(&c);
	got = sh("grep -c '^\\[====\\] Synthesis: .*Failing: 0 | Crashing: 0' build.log; grep -c 'inputs replayed' build.log");
	cr_expect_str_eq(got, "1\n4", "the unit tests and the four fuzz replays did not all run and pass in dh_auto_test");
	free(got);

	/* Exactly these packages, named with VERSION. */
	if (asprintf(&deb_tool, "dlnote-inject_%s_%s.deb", v, arch) < 0 || asprintf(&deb_dh, "dh-dlnote_%s_all.deb", v) < 0 ||
	    asprintf(&deb_dbg, "dlnote-inject-dbgsym_%s_%s.deb", v, arch) < 0)
		cr_assert_fail("asprintf");
	got = sh("ls *.deb | LC_ALL=C sort");
	want = sh("printf '%%s\\n' %s %s %s | LC_ALL=C sort", deb_dh, deb_tool, deb_dbg);
	cr_assert_str_eq(got, want, "dpkg-buildpackage wrote\n%s\ninstead of\n%s", got, want);
	free(got);
	free(want);

	/* Every file in its package, none missing, none extra. */
	got = deb_files(deb_tool);
	want = expected_list(files_dlnote_inject, platforms, nplatforms, strcmp(arch, "amd64") == 0);
	cr_expect_str_eq(got, want, "%s holds\n%s\ninstead of\n%s", deb_tool, got, want);
	free(got);
	free(want);
	got = deb_files(deb_dh);
	want = expected_list(files_dh_dlnote, NULL, 0, 0);
	cr_expect_str_eq(got, want, "%s holds\n%s\ninstead of\n%s", deb_dh, got, want);
	free(got);
	free(want);

	/* The control fields; the version is VERSION's. */
	if (asprintf(&want, "Package: dlnote-inject\nSource: dlnote\nVersion: %s\nArchitecture: %s\nMulti-Arch: foreign", v,
		     arch) < 0)
		cr_assert_fail("asprintf");
	expect_fields(deb_tool, want);
	free(want);
	if (asprintf(&want,
		     "Package: dh-dlnote\nSource: dlnote\nVersion: %s\nArchitecture: all\nMulti-Arch: foreign\n"
		     "Provides: dh-sequence-dlnote",
		     v) < 0)
		cr_assert_fail("asprintf");
	expect_fields(deb_dh, want);
	free(want);
	got = sh("dpkg-deb -f %s Depends", deb_dh);
	if (asprintf(&want, "dlnote-inject (>= %s)", v) < 0)
		cr_assert_fail("asprintf");
	cr_expect(strstr(got, want), "dh-dlnote depends on '%s', not on %s", got, want);
	cr_expect(strstr(got, "debhelper"), "dh-dlnote depends on '%s', not on debhelper", got);
	/* dh_dlnotedeps reads symbols files with dpkg's Dpkg::Shlibs::SymbolFile */
	cr_expect(strstr(got, "libdpkg-perl"), "dh-dlnote depends on '%s', not on libdpkg-perl", got);
	free(got);
	free(want);
	got = sh("dpkg-deb -f %s Depends", deb_tool);
	cr_expect(strstr(got, "libc6"), "dlnote-inject depends on '%s', not on libc6 (dh_shlibdeps)", got);
	free(got);

	/* Extracted (never installed): the tool works there. */
	free(sh("mkdir root && dpkg-deb -x %s root && dpkg-deb -x %s root && dpkg-deb -x %s root", deb_tool, deb_dh, deb_dbg));
	expect_packaged_tool_works("root", v);

	/* The dbgsym package has the debug file of each ELF file of the package, by build ID. */
	got = sh("find root/usr/lib/debug -name '*.debug' | sed 's|^root/||' | LC_ALL=C sort");
	want = sh("for f in $(find root/usr/bin root/usr/lib/dlnote -type f); do "
		  "readelf -n $f | sed -n 's|^ *Build ID: \\(..\\)\\(.*\\)|usr/lib/debug/.build-id/\\1/\\2.debug|p'; done | LC_ALL=C sort");
	cr_expect_str_eq(got, want, "the dbgsym package holds\n%s\ninstead of\n%s", got, want);
	free(got);
	free(want);

	/* The packaged build-system helpers name the packaged tool: dlnote.pc by its installed
	 * path, the CMake package relative to itself (here, where it was extracted). */
	got = sh("PKG_CONFIG_PATH=root/usr/share/pkgconfig PKG_CONFIG_LIBDIR=/nonexistent "
		 "pkg-config --modversion --variable=dlnote_inject dlnote");
	if (asprintf(&want, "%s\n/usr/bin/dlnote-inject", v) < 0)
		cr_assert_fail("asprintf");
	cr_expect_str_eq(got, want, "the packaged dlnote.pc says\n%s", got);
	free(got);
	free(want);
	put_file("CMakeLists.txt", "cmake_minimum_required(VERSION 3.25)\nproject(f NONE)\nfind_package(dlnote REQUIRED)\n"
				   "message(STATUS \"dlnote ${dlnote_VERSION} ${dlnote_INJECT_EXECUTABLE}\")\n");
	got = sh(CLEAN_ENV "cmake -S . -B cmake-build -DCMAKE_PREFIX_PATH=\"$PWD/root/usr\" "
		 "-DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF | sed -n 's/^-- dlnote //p'");
	want = sh("echo \"%s $PWD/root/usr/bin/dlnote-inject\"", v);
	cr_expect_str_eq(got, want, "find_package(dlnote) of the packaged CMake package gives '%s'", got);
	free(got);
	free(want);

	/* dh-dlnote: dh --with dlnote runs dh_dlnote right before dh_dwz and dh_dlnotedeps right
	 * before dh_gencontrol, and they turn a note of the staged dlnote-inject into its
	 * dlopen:Depends (with the packaged tool): libz.so.1, none of whose symbols the program
	 * names, so the version of zlib1g's shlibs line. */
/* (export: an assignment before `cd` would not reach the commands after it.) */
#define ADDON_ENV "export PATH=\"$PWD/root/usr/bin:$PATH\" PERL5LIB=\"$PWD/root/usr/share/perl5\"; "
	got = sh(ADDON_ENV "cd '%s' && dh binary --with dlnote --no-act | grep -A1 -E '^ *dh_dlnote(deps)?$' | sed 's/^ *//'", tree);
	/* (this package's debian/rules overrides dh_dwz: dh names the override) */
	cr_expect_str_eq(got, "dh_dlnote\ndebian/rules override_dh_dwz\n--\ndh_dlnotedeps\ndh_gencontrol",
			 "dh binary --with dlnote runs\n%s", got);
	free(got);
	got = sh(ADDON_ENV "cd '%s' && dh binary --no-act | grep -c dh_dlnote || true", tree);
	cr_expect_str_eq(got, "0", "dh runs dh_dlnote without --with dlnote");
	free(got);
	free(sh("root/usr/bin/dlnote-inject --feature zlib --soname libz.so.1 --priority required "
		"'%s/debian/dlnote-inject/usr/bin/dlnote-inject'",
		tree));
	got = sh("root/usr/bin/dlnote-inject --list --format=symbols '%s/debian/dlnote-inject/usr/bin/dlnote-inject' | cut -d' ' -f1-4", tree);
	cr_expect_str_eq(got, "libz.so.1 - - -", "the program names a symbol of libz.so.1: %s", got);
	free(got);
	want = sh("dpkg-query --control-show zlib1g shlibs | awk '$1 == \"libz\" && $2 == \"1\" { $1 = $2 = \"\"; sub(/^ +/, \"\"); print; exit }'");
	cr_assert(strstr(want, "zlib1g (>= "), "zlib1g's shlibs line: %s", want);
	got = sh(ADDON_ENV "cd '%s' && dh_dlnote -pdlnote-inject && dh_dlnotedeps -pdlnote-inject && "
		 "grep '^dlopen:' debian/dlnote-inject.substvars", tree);
	{
		char expect[512];
		snprintf(expect, sizeof expect, "dlopen:Depends?=%s\ndlopen:Recommends?=\ndlopen:Suggests?=", want);
		cr_expect_str_eq(got, expect);
	}
	free(got);
	free(want);

	/* DEB_BUILD_OPTIONS=nocheck: no tests (dh lists the build's steps again without its stamp). */
	got = sh("cd '%s' && rm -f debian/debhelper-build-stamp && " CLEAN_ENV "dh build --no-act | grep -c auto_test; "
		 CLEAN_ENV "DEB_BUILD_OPTIONS=nocheck dh build --no-act | grep -c auto_test || true",
		 tree);
	cr_expect_str_eq(got, "1\n0", "dh build runs the tests (1) and, with DEB_BUILD_OPTIONS=nocheck, does not (0): %s", got);
	free(got);

	/* lintian, on the binary packages and on the source package (made by dpkg-source from
	 * a fresh copy of the tarball, for the checks of debian/ itself): nothing but the
	 * overridden tags, shown with their comments (and, as root, its warning about root).
	 * --fail-on none: with --show-overrides, lintian 2.116 exits 2 for an overridden error
	 * too; 1 is still its own failure. */
	free(sh("mkdir src && tar -C src -xzf dlnote-%s.tar.gz && " CLEAN_ENV "dpkg-source -b src/dlnote-%s >/dev/null", v, v));
	got = sh("lintian --show-overrides --fail-on none dlnote_%s_%s.changes dlnote_%s.dsc >lintian.txt 2>&1; echo $?", v,
		 arch, v);
	want = sh("cat lintian.txt");
	cr_expect_str_eq(got, "0", "lintian failed (%s):\n%s", got, want);
	free(got);
	got = sh("grep -v -e '^O: ' -e '^N: ' -e '^running with root privileges is not recommended!$' lintian.txt || true");
	cr_expect_str_eq(got, "", "lintian says:\n%s", want);
	free(got);
	free(want);
	got = sh("sed -n 's/^O: \\([^:]*\\): \\([^ ]*\\).* \\(\\[[^]]*\\]\\)$/\\1: \\2 \\3/p' lintian.txt | LC_ALL=C sort");
	want = expected_list(lintian_overridden, NULL, 0, 0);
	cr_expect_str_eq(got, want, "lintian's overridden tags are\n%s\nnot\n%s", got, want);
	free(got);
	free(want);

	free(deb_tool);
	free(deb_dh);
	free(deb_dbg);
	free(tree);
	free(arch);
	free(v);
}
