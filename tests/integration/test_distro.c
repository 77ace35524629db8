/* SPDX-License-Identifier: MIT */
/* test_distro.c - the packaging helpers as a packager gets them from `make install`: rpm's file
 * attribute (dlnote.attr, with `rpmbuild -bb` of sample specs) and the debhelper addon
 * (`dh $@ --with dlnote`, with `dpkg-buildpackage -b` of a sample source package).  The
 * dependencies are read back from the built packages and compared exactly.
 *
 * The install is staged: `make install PREFIX=$W/stage/usr`, which keeps rpm's and Perl's
 * directories under the prefix too, so that the attribute names the staged dlnote-inject exactly
 * as it names /usr/bin/dlnote-inject after `make install PREFIX=/usr`.  rpm is pointed at the staged
 * attribute with _fileattrsdir (where rpm lists attributes) and --load (the macro path rpm reads
 * /usr/lib/rpm/fileattrs/\*.attr from); no other attribute is active, so every dependency in
 * the packages comes from the notes.  The system's fileattrs directory is taken out of rpm's
 * macro path (rpm_isolated in harness.h), so that an attribute installed there by any version
 * of dlnote-inject plays no part.  debhelper finds the staged dh_dlnote through PATH and the
 * sequence module through PERL5LIB. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* 64-bit: the four kinds of entries; 32-bit: what the -libs subpackage ships. */
#define N_TOOL "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"}," \
	"{\"soname\":[\"liblz4.so.1\",\"liblz4.so.0\"],\"feature\":\"lz4\",\"priority\":\"recommended\"}," \
	"{\"soname\":[\"libbz2.so.1\"],\"feature\":\"bzip2\",\"priority\":\"suggested\"}," \
	"{\"soname\":[\"libnofeature.so.2\"]}]"
#define N_LIBS "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"recommended\"}," \
	"{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"recommended\"}]"

/* A shared library with notes, built by the compiler and given its notes by the tool. */
static void noted_library(const char *cc, const char *out, const char *json)
{
	need(cc);
	put_file("notes.json", json);
	free(sh("echo 'int f(void) { return 1; }' > lib.c && %s -shared -fPIC -o %s lib.c && '%s' -m notes.json %s", cc, out, tool(),
		out));
}

/* ---- rpm ---- */

static const char spec_head[] =
	"Name: tool\nVersion: 1\nRelease: 1\nSummary: t\nLicense: MIT\n%description\nt\n"
	"%package libs\nSummary: l\n%description libs\nl\n";
static const char spec_tail[] =
	"%install\nmkdir -p %{buildroot}/usr/lib64 %{buildroot}/usr/lib\n"
	"cp %{_sourcedir}/libtool.so.1 %{_sourcedir}/start.o %{buildroot}/usr/lib64/\n"
	"cp %{_sourcedir}/libx.so.1 %{buildroot}/usr/lib/\n"
	"%files\n/usr/lib64/libtool.so.1\n/usr/lib64/start.o\n%files libs\n/usr/lib/libx.so.1\n";

/* Build the spec (its middle part given) with the staged attribute only, loaded `loads` times
 * (an installed copy and a vendored one are both loaded). */
static void rpmbuild_loads(const char *middle, int loads)
{
	struct cmd c;
	char spec[4096];

	need("rpmbuild");
	snprintf(spec, sizeof spec, "%s%s%s", spec_head, middle, spec_tail);
	put_file("t.spec", spec);
	c = run("rm -rf top && rpmbuild -bb --quiet %s --define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/src\" "
		"$(yes -- '--load stage/usr/lib/rpm/fileattrs/dlnote.attr' | head -n %d) "
		"--define 'debug_package %%{nil}' t.spec 2> build.log", rpm_isolated(0, "stage/usr/lib/rpm/fileattrs/dlnote.attr"), loads - 1);
	cr_assert_eq(c.status, 0, "rpmbuild failed:\n%s\n%s", c.out, get_file("build.log", NULL));
	cmd_free(&c);
}

static void rpmbuild(const char *middle)
{
	rpmbuild_loads(middle, 1);
}

/* In the sanitized pass rpmbuild would run the sanitized tool's --rpm-generate modes, which
 * a_soname_at_two_priorities_is_one_dependency_at_the_strongest, rpm_generate_usage_errors and
 * packaging::* run there directly. */
#define RPM_RUNS_THE_TOOL()                                                                      \
	if (sanitized_pass_leaves("rpm runs the generator modes that other tests run directly")) \
		return

static void rpm_sources(void)
{
	stage_install();
	free(sh("mkdir -p src"));
	noted_library("gcc", "src/libtool.so.1", N_TOOL);
	noted_library("i686-linux-gnu-gcc", "src/libx.so.1", N_LIBS);
	/* An object's notes are for the programs linked from it, not for the package shipping it. */
	put_file("object.json", "[{\"soname\":[\"libobject.so.1\"],\"priority\":\"required\"}]");
	free(sh("echo 'int start;' > start.c && gcc -c -o src/start.o start.c && '%s' -m object.json src/start.o", tool()));
}

/* `rpm -qp --KIND` of a built package, rpm's own rpmlib() lines left out.  rpm stores each
 * kind sorted by name. */
static void expect_deps(const char *package, const char *kind, const char *want)
{
	char *got = sh("rpm -qp --%s top/RPMS/x86_64/%s-1-1.x86_64.rpm | grep -v '^rpmlib(' || true", kind, package);

	cr_expect_str_eq(got, want, "%s %s:\n%s\ninstead of\n%s", package, kind, got, want);
	free(got);
}

Test(distro, rpm_attribute_gives_requires_recommends_suggests_from_the_notes)
{
	RPM_RUNS_THE_TOOL();
	rpm_sources();
	rpmbuild("");
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)");
	expect_deps("tool", "recommends", "(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))\nlibnofeature.so.2()(64bit)");
	expect_deps("tool", "suggests", "libbz2.so.1()(64bit)");
	expect_deps("tool-libs", "requires", "");
	expect_deps("tool-libs", "recommends", "liblz4.so.1\nlibzstd.so.1");
	expect_deps("tool-libs", "suggests", "");
}

/* package-notes' %dlopen_notes_features: globs, '#' comments, several words a line, `ignored`,
 * the first match wins, and an override for `tool` does not touch `tool-libs`. */
Test(distro, rpm_overrides_apply_to_the_subpackage_being_generated)
{
	RPM_RUNS_THE_TOOL();
	rpm_sources();
	rpmbuild("%define dlopen_notes_features %{expand:\n"
		 "tool-*:zstd:required\n"
		 "# lz4 only matters a little to the main package\n"
		 "tool:lz4:suggested   tool:bz*:ignored\n"
		 "*::required\n"
		 "*:lz4:required\n"
		 "}\n");
	expect_deps("tool", "requires", "libnofeature.so.2()(64bit)\nlibzstd.so.1()(64bit)");
	expect_deps("tool", "recommends", "");
	expect_deps("tool", "suggests", "(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))");
	expect_deps("tool-libs", "requires", "liblz4.so.1\nlibzstd.so.1");
	expect_deps("tool-libs", "recommends", "");
}

/* rpm appends %__NAME_KIND_opts to the generator's command line: one kind filtered by feature. */
Test(distro, rpm_extra_options_per_kind)
{
	RPM_RUNS_THE_TOOL();
	rpm_sources();
	rpmbuild("%global __dlnote_recommends_opts --only-feature=lz4\n");
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)");
	expect_deps("tool", "recommends", "(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))");
	expect_deps("tool", "suggests", "libbz2.so.1()(64bit)");
	expect_deps("tool-libs", "recommends", "liblz4.so.1");
}

Test(distro, rpm_opt_out_by_undefining_the_generator)
{
	RPM_RUNS_THE_TOOL();
	rpm_sources();
	rpmbuild("%undefine _dlnote_generator\n");
	expect_deps("tool", "requires", "");
	expect_deps("tool", "recommends", "");
	expect_deps("tool", "suggests", "");
	expect_deps("tool-libs", "recommends", "");
}

/* t.spec built with _fileattrsdir naming DIR and DIR/dlnote.attr loaded, the tool named after
 * the --load (docs/packaging.md). */
static void rpmbuild_fileattrsdir(const char *dir)
{
	struct cmd c = run("rm -rf top && rpmbuild -bb --quiet %s --define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/src\" "
			   "--define \"_fileattrsdir $PWD/%s\" --load %s/dlnote.attr "
			   "--define \"dlnote_inject $PWD/stage/usr/bin/dlnote-inject\" --define 'debug_package %%{nil}' t.spec",
			   rpm_isolated(1, NULL), dir, dir);

	cr_expect_eq(c.status, 0, "%s", c.err);
	cmd_free(&c);
}

/* The tool outside the prefix the attribute names (issue 33, item 3): the attribute installed
 * as for /usr, the tool moved elsewhere.  rpm 4.18 goes on when a generator cannot run; the
 * attribute says so, and the package Requires dlnote-inject(missing), which nothing provides.
 * With %dlnote_inject set to the tool, the dependencies are there.  And an attribute whose
 * macros are not loaded (only _fileattrsdir) gives nothing, which the docs say. */
Test(distro, rpm_attribute_with_the_tool_elsewhere)
{
	struct cmd c;

	RPM_RUNS_THE_TOOL();
	rpm_sources();
	free(sh("mkdir -p elsewhere/bin moved && mv stage/usr/bin/dlnote-inject elsewhere/bin/ && "
		"cp stage/usr/lib/rpm/fileattrs/dlnote.attr moved/"));
	/* not found: the build goes on, says why once, and the package cannot be installed */
	rpmbuild("");
	{
		char *log = sh("cat build.log");
		cr_expect(strstr(log, "error: dlnote.attr: ") && strstr(log, "/stage/usr/bin/dlnote-inject is not an executable file: "
									   "set the macro dlnote_inject"),
			  "no error naming the generator:\n%s", log);
		free(log);
	}
	expect_deps("tool", "requires", "dlnote-inject(missing)");
	expect_deps("tool", "recommends", "");
	/* set: the dependencies from the notes */
	rpmbuild("%global dlnote_inject %{getenv:PWD}/elsewhere/bin/dlnote-inject\n");
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)");
	expect_deps("tool", "suggests", "libbz2.so.1()(64bit)");
	/* the attribute named by _fileattrsdir alone, its macros not loaded: nothing at all */
	c = run("mv elsewhere/bin/dlnote-inject stage/usr/bin/ && rm -rf top && rpmbuild -bb --quiet %s "
		"--define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/src\" --define \"_fileattrsdir $PWD/moved\" "
		"--define 'debug_package %%{nil}' t.spec", rpm_isolated(0, NULL));
	cr_expect_eq(c.status, 0, "%s", c.err);
	cmd_free(&c);
	expect_deps("tool", "requires", "");
	/* _fileattrsdir naming a directory that holds ours alone: rpm's own generators are off
	 * (no Provides from elf.attr); one with links to the system's set and ours, ours loaded
	 * for its macros (docs/packaging.md): both sets of dependencies.  The spec without the
	 * %global above: the tool is named on the command line, after --load. */
	{
		char spec[4096];
		snprintf(spec, sizeof spec, "%s%s", spec_head, spec_tail);
		put_file("t.spec", spec);
	}
	rpmbuild_fileattrsdir("moved");
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)");
	expect_deps("tool", "provides", "tool = 1-1\ntool(x86-64) = 1-1");
	free(sh("mkdir set && ln -s $(rpm --eval '%%{_fileattrsdir}')/*.attr set/ && rm -f set/dlnote.attr && "
		"ln -s $PWD/moved/dlnote.attr set/"));
	rpmbuild_fileattrsdir("set");
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)\nrtld(GNU_HASH)");
	expect_deps("tool", "provides", "libtool.so.1()(64bit)\ntool = 1-1\ntool(x86-64) = 1-1");
	/* rpm applies --define and --load in order: a --define before the --load is replaced by the
	 * attribute's default, after it (or %global in the spec) it holds (docs/packaging.md) */
	{
		char *got = sh("rpm %s --define 'dlnote_inject /opt/first' --load moved/dlnote.attr --eval '%%{dlnote_inject}' | "
			       "sed \"s|$PWD|W|\" && rpm %s --load moved/dlnote.attr --define 'dlnote_inject /opt/after' "
			       "--eval '%%{dlnote_inject}'", rpm_isolated(1, NULL), rpm_isolated(1, NULL));
		cr_expect_str_eq(got, "W/stage/usr/bin/dlnote-inject\n/opt/after");
		free(got);
	}
}

/* The recipes' %install starts with %{dlnote_attribute_check} (docs/packaging.md): a build
 * whose rpm would not run the attribute stops there, where it went on and gave packages
 * without their dependencies (found by a newcomer who set only dlnote_inject).  Loaded from a
 * directory that is not _fileattrsdir: the attribute's message; not loaded at all: the shell
 * stops on the macro's name; loaded and named in _fileattrsdir: the build goes on. */
Test(distro, rpm_recipe_check_stops_a_build_whose_attribute_rpm_would_not_run)
{
	static const char *const cases[] = {
		"--load stage/usr/lib/rpm/fileattrs/dlnote.attr",
		"",
		"--define \"_fileattrsdir $PWD/stage/usr/lib/rpm/fileattrs\" --load stage/usr/lib/rpm/fileattrs/dlnote.attr",
	};
	char spec[4096];

	RPM_RUNS_THE_TOOL();
	rpm_sources();
	snprintf(spec, sizeof spec, "%s%%install\n%%{dlnote_attribute_check}\n%s", spec_head, spec_tail + strlen("%install\n"));
	put_file("check.spec", spec);
	for (size_t i = 0; i < 3; i++) {
		struct cmd c = run("rm -rf top && rpmbuild -bb --quiet %s --define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/src\" "
				   "%s --define \"dlnote_inject $PWD/stage/usr/bin/dlnote-inject\" --define 'debug_package %%{nil}' "
				   "check.spec", rpm_isolated(1, NULL), cases[i]);
		if (i == 2) {
			cr_expect_eq(c.status, 0, "%s", c.err);
		} else {
			cr_expect_neq(c.status, 0, "case %zu built", i);
			cr_expect(i ? strstr(c.err, "dlnote_attribute_check}: not found") != NULL
				    : strstr(c.err, "error: dlnote.attr is loaded but not in %{_fileattrsdir} (") &&
					      strstr(c.err, "): rpm will not run it, and the packages would get no dependencies"),
				  "case %zu: %s", i, c.err);
		}
		cmd_free(&c);
	}
}

/* The attribute loaded twice (installed and vendored): the dependencies once, and
 * `%undefine _dlnote_generator` still turns them all off. */
Test(distro, rpm_attribute_loaded_twice_gives_each_dependency_once_and_opts_out)
{
	RPM_RUNS_THE_TOOL();
	rpm_sources();
	rpmbuild_loads("", 2);
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)");
	expect_deps("tool-libs", "recommends", "liblz4.so.1\nlibzstd.so.1");
	rpmbuild_loads("%undefine _dlnote_generator\n", 2);
	expect_deps("tool", "requires", "");
	expect_deps("tool", "recommends", "");
	expect_deps("tool", "suggests", "");
	expect_deps("tool-libs", "recommends", "");
}

/* rpm 4.18 has no %{rpmversion}; rpm >= 4.19 has it as a built-in.  Defining it here stands in
 * for a newer rpm: from 4.20 on the attribute asks for the multifile protocol and tells the
 * generator so.  The command rpm would run is then run on two files. */
Test(distro, rpm_attribute_uses_the_multifile_protocol_from_rpm_4_20)
{
	char *got;

	RPM_RUNS_THE_TOOL();
	rpm_sources();
	got = sh("for v in '' 4.19.1 4.20.0 6.0.0; do rpm %s --load stage/usr/lib/rpm/fileattrs/dlnote.attr "
		 "${v:+--define \"rpmversion $v\"} --eval '%%{__dlnote_protocol}'; done | tr '\\n' ' '", rpm_isolated(0, NULL));
	cr_expect_str_eq(got, "singlefile singlefile multifile multifile ");
	free(got);
	got = sh("cmd=$(rpm %s --load stage/usr/lib/rpm/fileattrs/dlnote.attr --define 'rpmversion 4.20.0' --define 'name tool' "
		 "--eval '%%{__dlnote_recommends}') && printf '%%s\\n' \"$PWD/src/libtool.so.1\" \"$PWD/src/libx.so.1\" | "
		 "eval \"$cmd\" | sed \"s|$PWD|W|\"", rpm_isolated(0, NULL));
	cr_expect_str_eq(got, ";W/src/libtool.so.1\n(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))\nlibnofeature.so.2()(64bit)\n"
			 ";W/src/libx.so.1\nlibzstd.so.1\nliblz4.so.1");
	free(got);
}

static void expect_usage(const char *args, const char *message)
{
	struct cmd c = run("'%s' %s < /dev/null", tool(), args);

	cr_expect_eq(c.status, 2, "`%s` exits %d, not 2 (stderr: %s)", args, c.status, c.err);
	cr_expect(strstr(c.err, message), "`%s` says \"%s\", which lacks \"%s\"", args, c.err, message);
	cmd_free(&c);
}

/* A soname a file gives at two priorities (two features that need it) is one dependency, at the
 * strongest: each kind's generator and --format=rpm agree, in both protocols, and so do the
 * deb substvars (issue 32, item 5). */
Test(distro, a_soname_at_two_priorities_is_one_dependency_at_the_strongest)
{
	static const char *const kinds[] = { "requires", "recommends", "suggests" };
	char *got, *listed;

	noted_library("gcc", "lib2.so",
		      "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"recommended\"},"
		      "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd-dict\",\"priority\":\"suggested\"},"
		      "{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\",\"priority\":\"suggested\"}]");
	listed = sh("'%s' --list --format=rpm lib2.so", tool());
	cr_expect_str_eq(listed, "Recommends: libzstd.so.1()(64bit)\nSuggests: libfoo.so.1()(64bit)", "%s", listed);
	for (int multi = 0; multi < 2; multi++) {
		char all[256] = "";
		for (size_t k = 0; k < 3; k++) {
			got = sh("echo lib2.so | '%s' --rpm-generate=%s --rpm-protocol=%s | grep -v '^;' | sed 's/^/%s: /'",
				 tool(), kinds[k], multi ? "multifile" : "singlefile",
				 k == 0 ? "Requires" : k == 1 ? "Recommends" : "Suggests");
			if (got[0])
				strcat(strcat(all, all[0] ? "\n" : ""), got);
			free(got);
		}
		cr_expect_str_eq(all, listed, "%s: the generators print\n%s\nwhere --format=rpm prints\n%s",
				 multi ? "multifile" : "singlefile", all, listed);
	}
	free(listed);
	put_file("map", "libzstd1:amd64: /usr/lib/x86_64-linux-gnu/libzstd.so.1\n"
			"libfoo1:amd64: /usr/lib/x86_64-linux-gnu/libfoo.so.1\n");
	got = sh("'%s' --list --format=deb --deb-map=map lib2.so", tool());
	cr_expect_str_eq(got, "dlopen:Depends=\ndlopen:Recommends=libzstd1\ndlopen:Suggests=libfoo1", "%s", got);
	free(got);
}

Test(distro, rpm_generate_usage_errors)
{
	expect_usage("--rpm-generate=provides", "--rpm-generate: 'provides' is not requires, recommends or suggests");
	expect_usage("--rpm-generate=requires --rpm-generate=suggests", "--rpm-generate: one kind of dependency per run");
	expect_usage("--rpm-package=app --list x", "--rpm-package is only for --rpm-generate");
	expect_usage("--rpm-features=a:b:required --list x", "--rpm-features is only for --rpm-generate");
	expect_usage("--rpm-generate=requires --rpm-protocol=both", "--rpm-protocol: 'both' is not singlefile or multifile");
	expect_usage("--rpm-generate=requires --rpm-features='app:zstd'", "--rpm-features: 'app:zstd' is not SUBPACKAGE:FEATURE:LEVEL");
	expect_usage("--rpm-generate=requires --format=rpm x", "--format cannot be combined with --rpm-generate");
	expect_usage("--rpm-generate=requires --deb-map=-", "--rpm-generate reads the file names on standard input: --deb-map - cannot");
}

/* ---- debhelper ---- */

static const char deb_control[] =
	"Source: dlsample\nSection: misc\nPriority: optional\nMaintainer: Test <test@example.org>\n"
	"Build-Depends: debhelper-compat (= 13)\nStandards-Version: 4.6.2\n\n"
	"Package: app\nArchitecture: any\nDepends: ${dlopen:Depends}\nRecommends: ${dlopen:Recommends}\n"
	"Suggests: ${dlopen:Suggests}\nDescription: a program with dlopen notes\n test\n\n"
	"Package: app-tools\nArchitecture: any\nDepends: ${dlopen:Depends}\nRecommends: ${dlopen:Recommends}\n"
	"Suggests: ${dlopen:Suggests}\nDescription: a library with dlopen notes\n test\n\n"
	"Package: app-extra\nArchitecture: any\nDescription: left out with -N\n test\n\n"
	"Package: app-data\nArchitecture: all\nDepends: ${dlopen:Depends}\nDescription: resolved for the build architecture\n test\n\n"
	"Package: app-udeb\nPackage-Type: udeb\nSection: debian-installer\nArchitecture: any\n"
	"Description: the installer's copy, whose control names no dlopen variable\n test\n";

/* dh_strip, dh_dwz and dh_shlibdeps are skipped: they only cost time here, and shlibs:Depends
 * would put a libc6 version into the fields compared. */
static const char deb_rules[] =
	"#!/usr/bin/make -f\n%:\n\tdh $@ --with dlnote\n\n"
	"override_dh_dlnote:\n\tdh_dlnote -Napp-extra -Xexcluded\n\n"
	"override_dh_strip override_dh_dwz override_dh_shlibdeps:\n";

/* app: a feature each for zstd (required), lz4 or zlib (alternatives), no feature for
 * libgcc_s.so.1 (which the cross libraries of every architecture also ship), and a soname no
 * package ships.  excluded (-X) and the detached debug file must not count, nor app-extra
 * (-N).  app-data is Architecture: all: its sonames resolve for the build architecture. */
#define N_APP "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"}," \
	"{\"soname\":[\"liblz4.so.1\",\"libz.so.1\"],\"feature\":\"lz4\",\"priority\":\"recommended\"}," \
	"{\"soname\":[\"libgcc_s.so.1\"],\"priority\":\"suggested\"}," \
	"{\"soname\":[\"libnobody.so.9\"],\"feature\":\"nobody\",\"priority\":\"required\"}]"
#define N_TOOLS "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"priority\":\"required\"}," \
	"{\"soname\":[\"libsystemd.so.0\"],\"feature\":\"journal\",\"priority\":\"suggested\"}]"
#define N_DATA "[{\"soname\":[\"libgcc_s.so.1\"],\"feature\":\"unwind\",\"priority\":\"required\"}]"
#define N_CRYPT "[{\"soname\":[\"libcrypt.so.1\"],\"feature\":\"crypt\",\"priority\":\"required\"}]"

static void deb_source(void)
{
	free(sh("mkdir -p src/debian/source src/files && echo 'int main(void) { return 0; }' > main.c && "
		"gcc -o src/files/app main.c && gcc -o src/files/excluded main.c"));
	noted_library("gcc", "src/files/libtools.so.1", N_TOOLS);
	noted_library("gcc", "src/files/libextra.so.1", N_CRYPT);
	noted_library("gcc", "src/files/libdata.so.1", N_DATA);
	put_file("app.json", N_APP);
	put_file("crypt.json", N_CRYPT);
	free(sh("'%s' -m app.json src/files/app && '%s' -m crypt.json src/files/excluded && "
		"cp src/files/excluded src/files/detached.debug", tool(), tool()));
	put_file("src/debian/control", deb_control);
	put_file("src/debian/rules", deb_rules);
	put_file("src/debian/changelog", "dlsample (1) unstable; urgency=medium\n\n  * Test.\n\n"
		 " -- Test <test@example.org>  Thu, 03 Dec 2026 12:00:00 +0000\n");
	put_file("src/debian/source/format", "3.0 (native)\n");
	put_file("src/debian/app.install", "files/app usr/bin\nfiles/excluded usr/bin\n");
	put_file("src/debian/app-tools.install", "files/libtools.so.1 usr/lib/${DEB_HOST_MULTIARCH}\n"
		 "files/detached.debug usr/lib/debug/.build-id/ab\n");
	put_file("src/debian/app-extra.install", "files/libextra.so.1 usr/lib\n");
	put_file("src/debian/app-data.install", "files/libdata.so.1 usr/share/app\n");
	put_file("src/debian/app-udeb.install", "files/libtools.so.1 usr/lib\n");
	free(sh("chmod +x src/debian/rules"));
}

static void expect_control(const char *deb, const char *want)
{
	char *got = sh("dpkg-deb -f %s Depends Recommends Suggests", deb);

	cr_expect_str_eq(got, want, "%s:\n%s\ninstead of\n%s", deb, got, want);
	free(got);
}

Test(distro, dh_with_dlnote_writes_the_substvars_of_each_package)
{
	struct cmd c;
	char *got;

	/* dh_dlnote runs --list --format=deb and -m, which packaging::* and the rest run directly */
	if (sanitized_pass_leaves("dpkg-buildpackage runs the modes that other tests run directly"))
		return;
	need("dpkg-buildpackage");
	need("dh");
	/* The sonames of this test must resolve on the machine (tests/setup.sh installs them). */
	got = sh("dpkg-query --search '*/libgcc_s.so.1' | grep -c -e '-cross:' || true");
	cr_assert(atoi(got) >= 1, "a cross libgcc-s1 (libgcc-s1-arm64-cross) must be installed: libgcc_s.so.1 is then "
		  "shipped for several architectures");
	free(got);
	stage_install();
	deb_source();
	/* The staged dh_dlnote and dlnote-inject through PATH, the sequence module through PERL5LIB. */
	c = run("cd src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH=\"$PWD/../stage/usr/bin:$PATH\" "
		"PERL5LIB=\"$PWD/../stage/usr/share/perl5\" dpkg-buildpackage -b -us -uc");
	cr_assert_eq(c.status, 0, "dpkg-buildpackage failed:\n%s\n%s", c.out, c.err);
	cr_expect(strstr(c.out, "dh_dlnote -Napp-extra -Xexcluded"), "dh_dlnote did not run:\n%s", c.out);
	cr_expect(strstr(c.out, "dh_dlnotedeps\n"), "dh_dlnotedeps did not run:\n%s", c.out);
	cr_expect(strstr(c.err, "dlnote-inject: debian/.debhelper/generated/app/dlnote.map: no package for libnobody.so.9 "
			 "(required, in debian/app/usr/bin/app): left out of dlopen:Depends\n"),
		  "no warning for the soname nobody ships:\n%s", c.err);
	/* A package whose control names no dlopen variable (the udeb) gets no warning: the
	 * variables are optional ("?="). */
	cr_expect(!strstr(c.err, "unused, but is defined"), "dpkg-gencontrol warns of unused variables:\n%s", c.err);
	/* dh_dlnote prints its own lines only: not dpkg-query's "no path found" for that soname. */
	cr_expect(!strstr(c.err, "dpkg-query"), "dpkg-query's own lines are printed:\n%s", c.err);
	cmd_free(&c);
	/* The programs name none of the libraries' symbols: the versions of their shlibs lines. */
	{
		char *zstd = shlibs_dependency("libzstd1", "libzstd.so.1", "deb"),
		     *lz4 = shlibs_dependency("liblz4-1", "liblz4.so.1", "deb"),
		     *z = shlibs_dependency("zlib1g", "libz.so.1", "deb"),
		     *gcc = shlibs_dependency("libgcc-s1", "libgcc_s.so.1", "deb"),
		     *sd = shlibs_dependency("libsystemd0", "libsystemd.so.0", "deb");
		char want[1024];
		snprintf(want, sizeof want, "Depends: %s\nRecommends: %s | %s\nSuggests: %s", zstd, lz4, z, gcc);
		expect_control("app_1_*.deb", want);
		snprintf(want, sizeof want, "Depends: %s\nSuggests: %s", z, sd);
		expect_control("app-tools_1_*.deb", want);
		snprintf(want, sizeof want, "Depends: %s", gcc);
		expect_control("app-data_1_all.deb", want);
		free(zstd), free(lz4), free(z), free(gcc), free(sd);
	}
	expect_control("app-extra_1_*.deb", "");
	expect_control("app-udeb_1_*.udeb", "");
	got = sh("grep -c dlopen src/debian/app-extra.substvars || true");
	cr_expect_str_eq(got, "0", "-N app-extra: its substvars were written");
	free(got);
}

/* What a packager gets with `make install PREFIX=/usr`: the attribute where rpm reads them,
 * naming the installed tool; dh_dlnote, its man page and the sequence module where dh and man
 * look. */
Test(distro, make_install_puts_the_helpers_where_rpm_and_debhelper_look)
{
	char *got;

	free(sh("make -s -C '%s' install BIN='%s' DESTDIR=\"$PWD/root\" PREFIX=/usr >/dev/null", srcdir(), tool()));
	got = sh("cd root && find . -name 'dlnote.attr' -o -name 'dh_dlnote*' -o -name dlnote.pm | sort");
	cr_expect_str_eq(got, "./usr/bin/dh_dlnote\n./usr/bin/dh_dlnotedeps\n./usr/lib/rpm/fileattrs/dlnote.attr\n"
			 "./usr/share/man/man1/dh_dlnote.1\n./usr/share/man/man1/dh_dlnotedeps.1\n"
			 "./usr/share/perl5/Debian/Debhelper/Sequence/dlnote.pm");
	free(got);
	got = sh("grep '^%%dlnote_inject' root/usr/lib/rpm/fileattrs/dlnote.attr");
	cr_expect_str_eq(got, "%dlnote_inject\t/usr/bin/dlnote-inject");
	free(got);
	got = sh("MANWIDTH=80 man -l root/usr/share/man/man1/dh_dlnote.1 2>&1 | head -4 | tail -1");
	cr_expect_str_eq(got, "       dh_dlnote - dlopen notes into the ELF files of each package, checked");
	free(got);
}

/* ---- the debug pipelines: notes injected at install time, into unstripped files ---- */

/* A program built with -g, its notes added where the packaging docs say (%install,
 * override_dh_auto_install), then taken apart by the distribution: rpm's find-debuginfo
 * (debugedit, objcopy --merge-notes, eu-strip -f, dwz) or dh_dwz and dh_strip.  Each case is
 * built twice, without and with the notes (the twin), and must give the same result. */
static const char hello_c[] =
	"#include <stdio.h>\n#include <dlfcn.h>\n"
	"int main(void) { void *h = dlopen(\"libz.so.1\", RTLD_NOW); printf(\"zlib %s\\n\", h ? \"loaded\" : \"missing\"); "
	"return 0; }\n";
#define N_HELLO "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"description\":\"compression\",\"priority\":\"recommended\"}]"

/* The lines a build printed that name a tool of the pipelines, with the build's directory
 * replaced, so that the twin's and the injected build's can be compared. */
static char *pipeline_lines(const char *dir, const char *log)
{
	return sh("grep -E '(objcopy|strip|eu-strip|dwz|debugedit|find-debuginfo|warning|error)[:]' %s/%s | "
		  "grep -v '^+ ' | sed 's|%s|DIR|g; s|/tmp/[^ ]*|TMP|g' || true",
		  dir, log, dir);
}

/* The twin's build and the injected one printed the same lines of the pipelines' tools. */
static void expect_same_lines(const char *log)
{
	char *twin = pipeline_lines("twin", log), *inj = pipeline_lines("inj", log);

	cr_expect_str_eq(inj, twin, "the injected build printed\n%s\ninstead of\n%s", inj, twin);
	free(twin);
	free(inj);
}

/* The program a package ships runs, its notes are read by the tool and the PT_NOTE walker, and
 * the debug file of the debug package has the program's build-id. */
static void expect_shipped(const char *root, const char *prog, const char *debugdir, int notes)
{
	char path[512], *v, *id;

	snprintf(path, sizeof path, "%s/%s", root, prog);
	v = sh("%s", path);
	cr_expect_str_eq(v, "zlib loaded", "%s prints %s", path, v);
	free(v);
	v = entries_by("tool", path);
	cr_expect_str_eq(v, notes ? N_HELLO : "[]", "%s: the tool reads %s", path, v);
	free(v);
	v = entries_by("segments", path);
	cr_expect_str_eq(v, notes ? N_HELLO : "[]", "%s: the PT_NOTE walker reads %s", path, v);
	free(v);
	id = sh("readelf -n %s | awk '/Build ID/ { print $3 }'", path);
	cr_assert(strlen(id) > 2, "%s has no build-id", path);
	v = sh("readelf -n %s/%s/.build-id/%.2s/%s.debug | awk '/Build ID/ { print $3 }'", root, debugdir, id, id + 2);
	cr_expect_str_eq(v, id, "the debug file of %s has build-id %s", id, v);
	free(v);
	/* gdb finds main's source line through it */
	v = sh("gdb -batch -nx -iex 'set debug-file-directory %s/%s' -ex 'info line main' %s 2>&1 | grep -c 'hello.c' || true",
	       root, debugdir, path);
	cr_expect_str_eq(v, "1", "gdb does not find main's line through the debug file of %s", path);
	free(v);
	free(id);
}

/* check-all's sanitized pass: the package builds are the plain pass's; here the sanitized
 * tool must write the same bytes into the same -g program (harness.h, tool_edit). */
static int sanitized_pass_only_compares(void)
{
	if (!plain_tool())
		return 0;
	put_file("hello.c", hello_c);
	put_file("hello.json", N_HELLO);
	free(sh("gcc -g -O1 -o hello hello.c"));
	free(tool_edit("hello", "-m hello.json"));
	return 1;
}

static void rpm_hello(const char *dir, int inject)
{
	struct cmd c;

	free(sh("mkdir -p %s/src && cp hello.c hello.json %s/src/", dir, dir));
	/* The system's attributes (debuginfo, ELF dependencies) but an installed dlnote.attr. */
	c = run("cd %s && rpmbuild -bb %s --define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/src\" "
		"--define \"_builddir $PWD/build\" %s%s%s ../hello.spec > out.txt 2> err.txt",
		dir, rpm_isolated(1, NULL), inject ? "--define 'inject " : "", inject ? tool() : "", inject ? "'" : "");
	cr_assert_eq(c.status, 0, "%s: rpmbuild failed:\n%s", dir, get_file("err.txt", NULL));
	cmd_free(&c);
	free(sh("cd %s && mkdir root && cd root && for p in ../top/RPMS/*/*.rpm; do rpm2cpio $p | cpio -idm --quiet; done",
		dir));
}

/* rpmbuild -bb with debuginfo packages, as Fedora builds: find-debuginfo runs on the file
 * the %install section injected. */
Test(distro, rpmbuild_with_debuginfo_keeps_an_injected_program, .timeout = 240)
{
	if (sanitized_pass_only_compares())
		return;
	need("rpmbuild");
	need("find-debuginfo");
	need("gdb");
	put_file("hello.c", hello_c);
	put_file("hello.json", N_HELLO);
	put_file("hello.spec", "Name: hello\nVersion: 1\nRelease: 1\nSummary: t\nLicense: MIT\n%description\nt\n"
		 "%debug_package\n%build\ngcc -g -O1 -o hello %{_sourcedir}/hello.c\n"
		 "%install\nmkdir -p %{buildroot}/usr/bin\ncp hello %{buildroot}/usr/bin/\n"
		 "%{?inject:%{inject} -m %{_sourcedir}/hello.json %{buildroot}/usr/bin/hello}\n"
		 "%files\n/usr/bin/hello\n");
	rpm_hello("twin", 0);
	rpm_hello("inj", 1);
	expect_same_lines("err.txt");
	expect_shipped("twin/root", "usr/bin/hello", "usr/lib/debug", 0);
	expect_shipped("inj/root", "usr/bin/hello", "usr/lib/debug", 1);
}

static void deb_hello(const char *dir, int inject)
{
	struct cmd c;

	free(sh("mkdir -p %s/src/debian/source && cp hello.c hello.json %s/src/", dir, dir));
	put_file("control", "Source: hello\nSection: misc\nPriority: optional\nMaintainer: Test <test@example.org>\n"
		 "Build-Depends: debhelper-compat (= 13)\nStandards-Version: 4.6.2\n\n"
		 "Package: hello\nArchitecture: any\nDepends: ${shlibs:Depends}, ${misc:Depends}\n"
		 "Recommends: ${dlopen:Recommends}\nDescription: a program with dlopen notes\n test\n");
	/* No override of dh_dwz or dh_strip: they run as on any package. */
	put_file("rules", "#!/usr/bin/make -f\n%:\n\tdh $@ --with dlnote\n\n"
		 "override_dh_auto_build:\n\tgcc -g -O1 -o hello hello.c\n\n"
		 "override_dh_auto_install:\n\tinstall -D -m 755 hello debian/hello/usr/bin/hello\n"
		 "\t$(if $(INJECT),$(INJECT) -m hello.json debian/hello/usr/bin/hello)\n");
	free(sh("cp control rules %s/src/debian/ && chmod +x %s/src/debian/rules && echo '3.0 (native)' > %s/src/debian/source/format",
		dir, dir, dir));
	put_file("changelog", "hello (1) unstable; urgency=medium\n\n  * Test.\n\n"
		 " -- Test <test@example.org>  Thu, 03 Dec 2026 12:00:00 +0000\n");
	free(sh("cp changelog %s/src/debian/", dir));
	c = run("cd %s/src && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH=\"$PWD/../../stage/usr/bin:$PATH\" "
		"PERL5LIB=\"$PWD/../../stage/usr/share/perl5\" INJECT=%s dpkg-buildpackage -b -us -uc > ../out.txt 2> ../err.txt",
		dir, inject ? tool() : "");
	cr_assert_eq(c.status, 0, "%s: dpkg-buildpackage failed:\n%s", dir, get_file("err.txt", NULL));
	cmd_free(&c);
	free(sh("cd %s && mkdir root && for p in *.deb; do dpkg-deb -x $p root; done", dir));
}

/* dpkg-buildpackage with dh_dwz and dh_strip as they are: the build succeeds, the .deb's
 * program runs, the -dbgsym package holds its debug file, and Recommends comes from the notes. */
Test(distro, dh_dwz_and_dh_strip_keep_an_injected_program, .timeout = 240)
{
	char *v;

	if (sanitized_pass_only_compares())
		return;
	need("dpkg-buildpackage");
	need("dwz");
	need("gdb");
	stage_install();
	put_file("hello.c", hello_c);
	put_file("hello.json", N_HELLO);
	deb_hello("twin", 0);
	deb_hello("inj", 1);
	expect_same_lines("out.txt");
	expect_same_lines("err.txt");
	v = sh("ls inj/*.deb | sed 's|.*/||; s|_.*||' | sort | tr '\\n' ' '");
	cr_expect_str_eq(v, "hello hello-dbgsym ", "packages built: %s", v);
	free(v);
	expect_shipped("twin/root", "usr/bin/hello", "usr/lib/debug", 0);
	expect_shipped("inj/root", "usr/bin/hello", "usr/lib/debug", 1);
	/* hello names no symbol of libz: the version of zlib1g's shlibs line. */
	{
		char *z = shlibs_dependency("zlib1g", "libz.so.1", "deb");
		v = sh("dpkg-deb -f inj/hello_1_*.deb Recommends");
		cr_expect_str_eq(v, z, "Recommends: %s", v);
		free(v);
		free(z);
	}
}
