/* SPDX-License-Identifier: MIT */
/* test_package_rpm.c - the project's rpm packages, built as a packager builds them: `make dist`,
 * then `rpmbuild -ta` of the tarball, which finds packaging/rpm/dlnote.spec inside it.  Checks
 * the packages (names, architectures, version, license, what the subpackages require, every
 * file of each with its mode), that the spec's %check ran the unit tests and the fuzz replay,
 * and that what the packages hold works once extracted: the tool on a program it edits, the
 * rtld-audit module it finds relative to itself, and the rpm file attribute.
 *
 * rpmbuild runs with --nodeps: the spec's BuildRequires carry Fedora's names (gcc, make,
 * perl-podlators, libcriterion-devel), which no package in Debian's rpm database provides; the
 * tools themselves are installed by tests/setup.sh.  docs/release.md, section "rpm".  About a
 * minute, nearly all of it rpmbuild. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "packaged_tool.h"

/* Every file of each package, as `rpm -qp` gives mode and name, in any order: @V@ is the
 * version, @P@ the build machine's $LIB (the audit module's directory), @PUP@ the line of its
 * parent directory when $LIB has two levels (Debian's lib/MULTIARCH), @ID@ the build ID of the
 * packaged tool (rpm's /usr/lib/.build-id link), @DOCS@ one line per docs/NAME.md of the tarball.
 * Man pages are compared without the .gz that some rpm configurations add. */
static const char *const main_files[] = {
	"-rwxr-xr-x /usr/bin/dlnote-inject",
	"drwxr-xr-x /usr/lib/.build-id",
	"drwxr-xr-x /usr/lib/.build-id/@ID2@",
	"lrwxrwxrwx /usr/lib/.build-id/@ID2@/@IDREST@",
	"drwxr-xr-x /usr/lib/dlnote",
	"@PUP@",
	"drwxr-xr-x /usr/lib/dlnote/@P@",
	"-rw-r--r-- /usr/lib/dlnote/@P@/dlnote-audit.so",
	"-rw-r--r-- /usr/share/bash-completion/completions/dlnote-inject",
	"drwxr-xr-x /usr/share/doc/dlnote-inject-@V@",
	"-rw-r--r-- /usr/share/doc/dlnote-inject-@V@/NEWS",
	"-rw-r--r-- /usr/share/doc/dlnote-inject-@V@/README.md",
	"@DOCS@",
	"drwxr-xr-x /usr/share/licenses/dlnote-inject-@V@",
	"-rw-r--r-- /usr/share/licenses/dlnote-inject-@V@/LICENSE",
	"-rw-r--r-- /usr/share/man/man1/dlnote-inject.1",
	NULL,
};

static const char *const generators_files[] = {
	"-rw-r--r-- /usr/lib/rpm/fileattrs/dlnote.attr",
	NULL,
};

static const char *const devel_files[] = {
	"-rw-r--r-- /usr/share/aclocal/dlnote.m4",
	"drwxr-xr-x /usr/share/cmake/dlnote",
	"-rw-r--r-- /usr/share/cmake/dlnote/dlnoteCheck.cmake",
	"-rw-r--r-- /usr/share/cmake/dlnote/dlnoteConfig.cmake",
	"-rw-r--r-- /usr/share/cmake/dlnote/dlnoteConfigVersion.cmake",
	"-rw-r--r-- /usr/share/cmake/dlnote/dlnoteFunctions.cmake",
	"drwxr-xr-x /usr/share/dlnote",
	"-rwxr-xr-x /usr/share/dlnote/dlnote-note.py",
	"-rw-r--r-- /usr/share/dlnote/dlnote-template.c",
	"-rw-r--r-- /usr/share/dlnote/dlnote.mk",
	"-rw-r--r-- /usr/share/pkgconfig/dlnote.pc",
	NULL,
};

struct vars {
	const char *version, *platform, *pup, *id2, *idrest, *docs;
};

/* S with every @NAME@ of VARS replaced. */
static char *expand(const char *s, const struct vars *v)
{
	const struct {
		const char *key, *val;
	} subst[] = {
		{"@V@", v->version}, {"@PUP@", v->pup}, {"@P@", v->platform}, {"@ID2@", v->id2}, {"@IDREST@", v->idrest}, {"@DOCS@", v->docs},
	};
	size_t cap = strlen(s) + 1, len = 0;
	char *out = malloc(cap);

	while (*s) {
		size_t i, n = 1;
		const char *put = s;

		for (i = 0; i < sizeof subst / sizeof subst[0]; i++)
			if (strncmp(s, subst[i].key, strlen(subst[i].key)) == 0) {
				put = subst[i].val;
				n = strlen(put);
				s += strlen(subst[i].key) - 1;
				break;
			}
		if (len + n + 1 > cap)
			out = realloc(out, cap = 2 * (len + n + 1));
		memcpy(out + len, put, n);
		len += n;
		s++;
	}
	out[len] = '\0';
	return out;
}

/* The lines of LIST, expanded, one per line, sorted by name (LC_ALL=C sort -k2). */
static char *expected_lines(const char *const *list, const struct vars *v)
{
	char *text = NULL, *sorted;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	for (; *list; list++) {
		char *line = expand(*list, v);
		if (*line)
			fprintf(f, "%s\n", line);
		free(line);
	}
	fclose(f);
	put_file("expected.txt", text);
	sorted = sh("LC_ALL=C sort -k2 expected.txt");
	free(text);
	return sorted;
}

/* The packaged files of one binary rpm: mode and name, man pages without .gz, sorted by name. */
static char *packaged_lines(const char *rpm)
{
	return sh("rpm -qp --qf '[%%{filemodes:perms} %%{filenames}\\n]' '%s' | "
		  "sed 's|^\\(.* /usr/share/man/.*\\)\\.gz$|\\1|' | LC_ALL=C sort -k2", rpm);
}

/* The path of the binary rpm named NAME under top/RPMS. */
static char *rpm_named(const char *name)
{
	char *path = sh("for f in top/RPMS/*/*.rpm; do [ \"$(rpm -qp --qf '%%{name}' \"$f\")\" != '%s' ] || echo \"$f\"; done",
			name);
	cr_assert(*path && !strchr(path, '\n'), "one rpm named %s expected under top/RPMS, found: '%s'", name, path);
	return path;
}

/* What rpmbuild printed between "Executing(%check)" and the next stage. */
static char *check_section(const char *log)
{
	const char *from = strstr(log, "Executing(%check)"), *to;

	cr_assert(from, "the build log has no %%check stage: the spec's %%check did not run");
	to = strstr(from, "Processing files:");
	cr_assert(to, "the build log stops in %%check");
	return strndup(from, (size_t)(to - from));
}

Test(package_rpm, rpmbuild_ta_of_the_release_tarball)
{
	static const char *const regress_targets[] = {"manifest", "note", "elf", "archive"};
	struct vars vars;
	struct cmd c;
	char *v, *arch, *platform, *pup, *docs, *id, *log, *chk, *got, *want, *mainrpm, *genrpm, *develrpm, *release;
	const char *synth;
	int tested = -1, passing = -1;

	need("git");
	need("make");
	need("gcc");
	need("rpmbuild");
	need("rpm");
	need("rpm2cpio");
	need("cpio");
	need("readelf");
	v = sh("cat '%s/VERSION'", srcdir());

	/* The release tarball, named as the spec's Source0, and the packages built from it.
	 * BXFI_MAP tells a Criterion runner that it is one of this runner's test workers: the
	 * unit tests that %check runs would abort on it. */
	free(sh("make -s -C '%s' dist DIST_OUT=\"$PWD/dlnote-%s.tar.gz\" >/dev/null", srcdir(), v));
	/* An installed dlnote.attr (any version names its generators so) must not run an installed
	 * tool here.  rpm_isolated() cannot serve: the spec installs into %{_fileattrsdir}. */
	c = run("rpmbuild -ta --nodeps --define '__dlnote_requires %%{nil}' --define '__dlnote_recommends %%{nil}' "
		"--define '__dlnote_suggests %%{nil}' --define \"_topdir $PWD/top\" dlnote-%s.tar.gz > build.log 2>&1", v);
	if (c.status != 0) {
		char *tail = sh("tail -60 build.log");
		cr_assert_fail("rpmbuild -ta failed (%d); the end of its log:\n%s", c.status, tail);
	}
	cmd_free(&c);

	/* The spec's %check ran the unit tests and the fuzz replay, and they passed. */
	log = get_file("build.log", NULL);
	chk = check_section(log);
	synth = strstr(chk, "Synthesis: Tested: ");
	cr_expect(synth && sscanf(synth, "Synthesis: Tested: %d | Passing: %d |", &tested, &passing) == 2 &&
			  tested > 0 && passing == tested && strstr(synth, "| Failing: 0 | Crashing: 0"),
		  "%%check: the unit tests did not all run and pass:\n%s", chk);
	for (size_t i = 0; i < sizeof regress_targets / sizeof regress_targets[0]; i++) {
		char line[64];
		snprintf(line, sizeof line, "build/regress-%s: ", regress_targets[i]);
		cr_expect(strstr(chk, line) && strstr(strstr(chk, line), " inputs replayed"),
			  "%%check: no fuzz replay of %s:\n%s", regress_targets[i], chk);
	}
	free(chk);
	free(log);

	/* The packages: names, architectures, version, license. */
	arch = sh("rpm --eval '%%{_arch}'");
	got = sh("for f in top/RPMS/*/*.rpm; do rpm -qp --qf '%%{name} %%{arch} %%{version} %%{license}\\n' \"$f\"; done | "
		 "LC_ALL=C sort");
	want = sh("printf '%%s\\n' 'dlnote-devel noarch %s MIT' 'dlnote-inject %s %s MIT' 'dlnote-rpm-generators noarch %s MIT'",
		  v, arch, v, v);
	cr_expect_str_eq(got, want, "the binary rpms (name arch version license):\n%s\nexpected:\n%s", got, want);
	free(got);
	free(want);
	got = sh("rpm -qp --qf '%%{name} %%{version} %%{license}' top/SRPMS/*.src.rpm");
	want = sh("echo 'dlnote %s MIT'", v);
	cr_expect_str_eq(got, want, "the source rpm is %s, expected %s", got, want);
	free(got);
	free(want);

	mainrpm = rpm_named("dlnote-inject");
	genrpm = rpm_named("dlnote-rpm-generators");
	develrpm = rpm_named("dlnote-devel");

	/* The other packages need the tool, at the same version and release; the tool needs
	 * neither them nor Perl (the debhelper addon stays out of the rpm packages). */
	release = sh("rpm -qp --qf '%%{version}-%%{release}' '%s'", mainrpm);
	for (int i = 0; i < 2; i++) {
		const char *sub = i ? develrpm : genrpm;
		got = sh("rpm -qp --requires '%s' | grep '^dlnote' || true", sub);
		want = sh("echo 'dlnote-inject = %s'", release);
		cr_expect_str_eq(got, want, "%s requires '%s' of its own packages, expected '%s'", sub, got, want);
		free(got);
		free(want);
	}
	got = sh("rpm -qp --requires '%s' | grep -E '^(dlnote|perl)' || true", mainrpm);
	cr_expect_str_eq(got, "", "dlnote-inject requires %s", got);
	free(got);
	/* The note maker's interpreter, from its #! line. */
	got = sh("rpm -qp --requires '%s' | grep -x /usr/bin/python3 || true", develrpm);
	cr_expect_str_eq(got, "/usr/bin/python3", "dlnote-devel does not require /usr/bin/python3");
	free(got);

	/* Every file, in the right package.  Extracted together they are the installed tree. */
	free(sh("mkdir x && cd x && for f in ../top/RPMS/*/*.rpm; do rpm2cpio \"$f\" | cpio -idm --quiet || exit 1; done"));
	/* The $LIB this machine's loader expands (the Makefile asks it the same way). */
	platform = sh("LD_LIBRARY_PATH='/nonexistent/$LIB/@' LD_DEBUG=libs /bin/true 2>&1 | "
		      "sed -n 's|.*search path=/nonexistent/\\([^@]*\\)/@.*|\\1|p' | head -n 1");
	cr_assert(*platform, "the loader did not tell its $LIB");
	pup = sh("case '%s' in */*) echo 'drwxr-xr-x /usr/lib/dlnote/%s' | sed 's|/[^/]*$||';; esac", platform, platform);
	id = sh("readelf -n x/usr/bin/dlnote-inject | sed -n 's/^ *Build ID: *//p'");
	cr_assert(strlen(id) > 2, "the packaged tool has no build ID");
	docs = sh("tar -tzf dlnote-%s.tar.gz | sed -n 's|^dlnote-%s/docs/\\([^/]*\\.md\\)$|-rw-r--r-- "
		  "/usr/share/doc/dlnote-inject-%s/\\1|p'", v, v, v);
	cr_assert(*docs, "the tarball has no docs/*.md");
	vars = (struct vars){.version = v, .platform = platform, .pup = pup, .id2 = strndup(id, 2), .idrest = id + 2, .docs = docs};
	{
		const struct {
			const char *rpm;
			const char *const *files;
		} pkgs[] = {{mainrpm, main_files}, {genrpm, generators_files}, {develrpm, devel_files}};
		for (size_t i = 0; i < sizeof pkgs / sizeof pkgs[0]; i++) {
			got = packaged_lines(pkgs[i].rpm);
			want = expected_lines(pkgs[i].files, &vars);
			cr_expect_str_eq(got, want, "%s holds:\n%s\n\nexpected:\n%s", pkgs[i].rpm, got, want);
			free(got);
			free(want);
		}
	}
	got = sh("readlink x/usr/lib/.build-id/%s/%s", vars.id2, vars.idrest);
	cr_expect_str_eq(got, "../../../../usr/bin/dlnote-inject", "the build-id link points to %s", got);
	free(got);

	expect_packaged_tool_works("x", v);

	/* The packaged file attribute names the packaged tool, and its generator, run with the
	 * extracted tool in its place (the macro set after the --load, as docs/packaging.md says;
	 * the attribute checks that the tool is there), gives the program's Requires. */
	got = sh("rpm %s --load x/usr/lib/rpm/fileattrs/dlnote.attr --eval '%%{dlnote_inject}'", rpm_isolated(0, NULL));
	cr_expect_str_eq(got, "/usr/bin/dlnote-inject", "the packaged attribute names '%s'", got);
	free(got);
	got = sh("rpm %s --load x/usr/lib/rpm/fileattrs/dlnote.attr --define \"dlnote_inject $PWD/x/usr/bin/dlnote-inject\" "
		 "--define 'name hello' --eval '%%{__dlnote_requires}'", rpm_isolated(0, NULL));
	want = sh("echo \"$PWD/x/usr/bin/dlnote-inject \"");
	cr_assert(strncmp(got, want, strlen(want)) == 0, "%%{__dlnote_requires} is '%s'", got);
	free(want);
	want = sh("echo \"$PWD/hello\" | %s", got);
	cr_expect_str_eq(want, "libz.so.1()(64bit)", "the packaged generator gives Requires '%s'", want);
	free(got);
	free(want);

	free(release);
	free(mainrpm);
	free(genrpm);
	free(develrpm);
	free((char *)vars.id2);
	free(id);
	free(docs);
	free(platform);
	free(pup);
	free(arch);
	free(v);
}
