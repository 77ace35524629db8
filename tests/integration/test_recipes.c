/* SPDX-License-Identifier: MIT */
/* test_recipes.c - the packaging recipes of docs/packaging.md ("Recipes"), taken from the page
 * byte for byte, build real packages: a Debian package with dpkg-buildpackage and an rpm with
 * rpmbuild, of a program that dlopen()s libz.so.1.  The distributions' steps run after the
 * injection as they do there: dh_dwz and dh_strip, and find-debuginfo (with Fedora's automatic
 * debuginfo package).  Checked: the dependency the package gets, the note in the shipped file,
 * the shipped program, the debug file, and that the lint fails the build when the tests
 * dlopen() a library the manifest does not declare (liblzma.so.5).
 *
 * The tool and the helpers come from `make install` into stage/usr (harness.h): dlnote-inject
 * and dh_dlnote through PATH, the debhelper sequence through PERL5LIB, rpm's attribute through
 * rpm_isolated().  The recipes' build dependencies (dh-sequence-dlnote, dlnote-rpm-generators)
 * are those files; dpkg-buildpackage -d and rpmbuild --nodeps do not look for them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "libtool_sample.h"

/* The block after "<!-- recipe: NAME -->" in docs/packaging.md, into FILE. */
static void recipe(const char *name, const char *file)
{
	char mark[128], *text;

	snprintf(mark, sizeof mark, "recipe: %s", name);
	text = doc_block("docs/packaging.md", mark);
	put_file(file, text);
	free(text);
}

/* The project in DIR; `also` names libraries its tests dlopen() too, in a function of the
 * library; `ctor` one its constructor dlopen()s (part of the library the package ships). */
static void sample(const char *dir, const char *also, const char *ctor)
{
	char path[256], mk[1024];

	free(sh("mkdir -p %s", dir));
	snprintf(path, sizeof path, "%s/app.c", dir);
	put_file(path, app_c);
	snprintf(path, sizeof path, "%s/libapp.c", dir);
	put_file(path, libapp_c);
	snprintf(path, sizeof path, "%s/Makefile", dir);
	snprintf(mk, sizeof mk, "ALSO = %s\nCTOR = %s\n%s", also, ctor, app_makefile);
	put_file(path, mk);
}

/* The shipped program and library, extracted into ROOT: their notes by the tool, and the
 * program runs. */
static void expect_shipped(const char *root)
{
	char *got;

	got = sh("'%s' --list --json %s/usr/bin/app $(find %s/usr/lib* -name 'libapp.so.1.0.4')", tool(), root, root);
	cr_expect_str_eq(got, "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"description\":\"Compressed input\","
			      "\"priority\":\"required\"}]", "the shipped files' notes: %s", got);
	free(got);
	got = sh("LD_LIBRARY_PATH=$(dirname $(find %s/usr/lib* -name 'libapp.so.1.0.4')) %s/usr/bin/app libz.so.1", root, root);
	cr_expect_str_eq(got, "libz.so.1: loaded");
	free(got);
}

/* A recipe's build C passed, and its log shows the lint passing on the file the tests ran. */
static void expect_built(struct cmd *c, const char *what)
{
	cr_assert_eq(c->status, 0, "%s of the recipe failed:\n%s", what, c->out);
	cr_expect(strstr(c->out, "/usr/bin/app: ok (1 dlopen entry; no dlopen() by it in the recording)\n") &&
			  strstr(c->out, "/libapp.so.1.0.4: ok (1 dlopen entry; recorded: 1 library dlopen()ed, none undeclared)\n"),
		  "no lint of the shipped files in the build log:\n%s", c->out);
}

/* The recipe built by BUILD, whose tests also dlopen() liblzma.so.5 from a function of the
 * library, while the library's constructor dlopen()s libzstd.so.1, neither of which the manifest
 * declares: the lint names both in the shipped library (which rpm's find-debuginfo gave another
 * build-id than the one that ran) and the build fails.  Declared, the same build passes. */
static void expect_lint_fails(struct cmd (*build)(const char *also, const char *ctor, const char *manifest))
{
	struct cmd c;

	stage_install();
	c = build("liblzma.so.5", "libzstd.so.1", NULL);
	cr_expect_neq(c.status, 0, "the build passed although the tests dlopen() liblzma.so.5:\n%s", c.out);
	cr_expect(strstr(c.out, "/libapp.so.1.0.4: undeclared: libzstd.so.1: dlopen()ed during the recording\n") &&
			  strstr(c.out, "/libapp.so.1.0.4: undeclared: liblzma.so.5: dlopen()ed during the recording\n"),
		  "the lint does not name libzstd.so.1 and liblzma.so.5 in the shipped library:\n%s", c.out);
	cmd_free(&c);
	c = build("liblzma.so.5", "libzstd.so.1",
		  "[{\"soname\": [\"libz.so.1\"], \"feature\": \"zlib\", \"description\": \"Compressed input\", \"priority\": \"required\"},"
		  "{\"soname\": [\"liblzma.so.5\"], \"feature\": \"xz\", \"priority\": \"suggested\"},"
		  "{\"soname\": [\"libzstd.so.1\"], \"feature\": \"zstd\", \"priority\": \"suggested\"}]\n");
	cr_expect_eq(c.status, 0, "declared, the build still fails:\n%s", c.out);
	cr_expect(strstr(c.out, "/libapp.so.1.0.4: ok (3 dlopen entries; recorded: 3 libraries dlopen()ed, none undeclared)\n"),
		  "%s", c.out);
	cmd_free(&c);
}

/* check-all's sanitized pass: the package builds are the plain pass's.  Here the sanitized
 * tool does what the recipes make it do, on the same program: inject the manifest (the same
 * bytes as the plain build, harness.h), record the tests, lint; and the lint names an
 * undeclared dlopen().  Those steps are the same for every recipe, so they run in the first
 * test only (`first`); the others return at once. */
static int sanitized_pass_runs_the_tool_steps(int first)
{
	char *got;
	struct cmd c;

	if (!plain_tool())
		return 0;
	if (!first) {
		fprintf(stderr, "%s::%s: the sanitized tool's steps ran in recipes::debian_recipe_builds_the_package_with_its_dependency\n",
			criterion_current_test->category, criterion_current_test->name);
		return 1;
	}
	sample("app", "", "");
	recipe("debian/app.dlopen.json", "app.dlopen.json");
	free(sh("make -s -C app app && make -s -C app install DESTDIR=$PWD/root >/dev/null 2>&1"));
	free(tool_edit("root/usr/lib/libapp.so.1.0.4", "--manifest app.dlopen.json"));
	free(sh("'%s' --record=dlopen.trace -- make -s -C app check ALSO=liblzma.so.5 || true", tool()));
	c = run("'%s' --check --recorded=dlopen.trace --expect app.dlopen.json root/usr/lib/libapp.so.1.0.4", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "libapp.so.1.0.4: undeclared: liblzma.so.5: dlopen()ed during the recording\n"), "%s", c.out);
	cmd_free(&c);
	got = sh("'%s' --record=declared.trace -- make -s -C app check && "
		 "'%s' --check --recorded=declared.trace --expect app.dlopen.json root/usr/lib/libapp.so.1.0.4", tool(), tool());
	cr_expect(strstr(got, "libapp.so.1.0.4: ok (1 dlopen entry; recorded: 1 library dlopen()ed, none undeclared)"), "%s", got);
	free(got);
	return 1;
}

/* ---- Debian ---- */

/* The rest of the source package in deb/ (changelog, format), built with the staged tool and
 * addon. */
static struct cmd deb_package(void)
{
	free(sh("chmod +x deb/debian/rules"));
	put_file("deb/debian/changelog", "app (1.0) unstable; urgency=medium\n\n  * Test.\n\n"
		 " -- App Maintainers <app@example.org>  Fri, 04 Dec 2026 12:00:00 +0000\n");
	put_file("deb/debian/source/format", "3.0 (native)\n");
	return deb_buildpackage("deb");
}

/* The Debian recipe; MANIFEST replaces the page's debian/app.dlopen.json when not NULL. */
static struct cmd deb_build(const char *also, const char *ctor, const char *manifest)
{
	free(sh("rm -rf deb && mkdir -p deb/debian/source"));
	sample("deb", also, ctor);
	recipe("debian/control", "deb/debian/control");
	recipe("debian/rules", "deb/debian/rules");
	if (manifest)
		put_file("deb/debian/app.dlopen.json", manifest);
	else
		recipe("debian/app.dlopen.json", "deb/debian/app.dlopen.json");
	return deb_package();
}

Test(recipes, debian_recipe_builds_the_package_with_its_dependency, .timeout = 300)
{
	struct cmd c;
	char *got;

	if (sanitized_pass_runs_the_tool_steps(1))
		return;
	need("dpkg-buildpackage");
	need("dh");
	stage_install();
	c = deb_build("", "", NULL);
	expect_built(&c, "dpkg-buildpackage");
	cr_expect(strstr(c.out, "dh_dlnote"), "dh_dlnote did not run:\n%s", c.out);
	cmd_free(&c);
	got = sh("dpkg-deb -f app_1.0_*.deb Depends | tr ',' '\\n' | sed 's/^ *//; s/ .*//' | LC_ALL=C sort | tr '\\n' ' '");
	cr_expect_str_eq(got, "libc6 zlib1g ", "Depends: %s", got);
	free(got);
	free(sh("dpkg-deb -x app_1.0_*.deb root"));
	expect_shipped("root");
}

Test(recipes, debian_recipe_fails_on_an_undeclared_dlopen, .timeout = 300)
{
	if (sanitized_pass_runs_the_tool_steps(0))
		return;
	need("dpkg-buildpackage");
	expect_lint_fails(deb_build);
}

/* The Debian recipe as real source packages use it (issue 33, item 8): compatibility level 9
 * (no hook targets), two binary packages with a manifest each (the library's package declares
 * liblzma.so.5 too), files installed into debian/tmp and split by dh_install.  Each package's
 * files get its own manifest's entries, and its fields their dependencies. */
Test(recipes, debian_recipe_compat_9_one_manifest_per_package, .timeout = 300)
{
	struct cmd c;
	char *got;

	if (sanitized_pass_runs_the_tool_steps(0))
		return;
	need("dpkg-buildpackage");
	stage_install();
	sample("deb", "", "");
	free(sh("mkdir -p deb/debian/source && echo 9 > deb/debian/compat"));
	recipe("debian/rules", "deb/debian/rules");
	recipe("debian/app.dlopen.json", "deb/debian/app.dlopen.json");
	put_file("deb/debian/control",
		 "Source: app\nSection: utils\nPriority: optional\nMaintainer: App Maintainers <app@example.org>\n"
		 "Build-Depends: debhelper (>= 9), dh-sequence-dlnote\nStandards-Version: 4.6.2\n\n"
		 "Package: app\nArchitecture: any\nDepends: ${shlibs:Depends}, ${misc:Depends}, ${dlopen:Depends}\n"
		 "Description: the program\n It loads libz.so.1 through libapp1.\n\n"
		 "Package: libapp1\nArchitecture: any\nDepends: ${shlibs:Depends}, ${misc:Depends}, ${dlopen:Depends}\n"
		 "Suggests: ${dlopen:Suggests}\nDescription: the library\n It dlopen()s.\n");
	put_file("deb/debian/libapp1.dlopen.json",
		 "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"required\"},"
		 "{\"soname\":[\"liblzma.so.5\"],\"feature\":\"xz\",\"priority\":\"suggested\"}]\n");
	put_file("deb/debian/app.install", "usr/bin\n");
	put_file("deb/debian/libapp1.install", "usr/lib\n");
	c = deb_package();
	cr_assert_eq(c.status, 0, "dpkg-buildpackage failed:\n%s", c.out);
	cr_expect(strstr(c.out, "debian/libapp1/usr/lib/libapp.so.1.0.4: ok (2 dlopen entries; recorded: 1 library dlopen()ed, "
				"none undeclared; declared, not dlopen()ed during the recording: liblzma.so.5)\n") &&
			  strstr(c.out, "debian/app/usr/bin/app: ok (1 dlopen entry; no dlopen() by it in the recording)\n"),
		  "no lint of each package's files:\n%s", c.out);
	cr_expect(!strstr(c.out, "is only supported in compat"), "%s", c.out);
	cmd_free(&c);
	free(sh("dpkg-deb -x app_1.0_*.deb root && dpkg-deb -x libapp1_1.0_*.deb root"));
	got = sh("'%s' --list --format=sonames root/usr/bin/app && echo -- && '%s' --list --format=sonames root/usr/lib/libapp.so.1.0.4",
		 tool(), tool());
	cr_expect_str_eq(got, "libz.so.1 required\n--\nliblzma.so.5 suggested\nlibz.so.1 required", "%s", got);
	free(got);
	/* libapp names no symbol of liblzma: the version of its shlibs line. */
	{
		char *xz = shlibs_dependency("liblzma5", "liblzma.so.5", "deb");
		got = sh("dpkg-deb -f libapp1_1.0_*.deb Suggests");
		cr_expect_str_eq(got, xz, "libapp1's Suggests: %s", got);
		free(got);
		free(xz);
	}
	got = sh("LD_LIBRARY_PATH=root/usr/lib root/usr/bin/app libz.so.1");
	cr_expect_str_eq(got, "libz.so.1: loaded");
	free(got);
}

/* The page's rules file of classic dh_* calls, without dh (issue 43, item 8): the page said
 * that dh_dlnote writes the substitution variables, and a rules file that called only it got
 * empty fields.  Here the library's entries add a suggested liblzma.so.5 (as elfutils' libdw1
 * suggests libdebuginfod1): the substvars file holds each field as dh_dlnotedeps writes it
 * (optional, `?=`), and the package's control fields have them. */
Test(recipes, debian_recipe_with_classic_dh_calls_writes_the_substvars, .timeout = 300)
{
	char *got, *z, *xz, want[1024];
	struct cmd c;

	if (sanitized_pass_runs_the_tool_steps(0))
		return;
	need("dpkg-buildpackage");
	stage_install();
	free(sh("rm -rf deb && mkdir -p deb/debian/source && echo 13 > deb/debian/compat"));
	sample("deb", "", "");
	recipe("debian/control", "deb/debian/control");
	free(sh("sed -i 's/debhelper-compat (= 13), dh-sequence-dlnote/debhelper, dh-dlnote/' deb/debian/control"));
	recipe("debian/rules, classic dh_* calls", "deb/debian/rules");
	put_file("deb/debian/app.dlopen.json",
		 "[{\"soname\": [\"libz.so.1\"], \"feature\": \"zlib\", \"description\": \"Compressed input\", \"priority\": \"required\"},"
		 "{\"soname\": [\"liblzma.so.5\"], \"feature\": \"xz\", \"priority\": \"suggested\"}]\n");
	c = deb_package();
	cr_assert_eq(c.status, 0, "dpkg-buildpackage failed:\n%s", c.out);
	cr_expect(strstr(c.out, "dh_dlnotedeps") && !strstr(c.out, "dh $@"), "%s", c.out);
	cr_expect(strstr(c.out, "/usr/bin/app: ok (2 dlopen entries; no dlopen() by it in the recording)\n"), "%s", c.out);
	cr_expect(!strstr(c.out, "used, but is not defined"), "a substitution variable not written:\n%s", c.out);
	cmd_free(&c);
	z = shlibs_dependency("zlib1g", "libz.so.1", "deb");
	xz = shlibs_dependency("liblzma5", "liblzma.so.5", "deb");
	got = sh("grep '^dlopen:' deb/debian/app.substvars | LC_ALL=C sort");
	snprintf(want, sizeof want, "dlopen:Depends?=%s\ndlopen:Recommends?=\ndlopen:Suggests?=%s", z, xz);
	cr_expect_str_eq(got, want, "debian/app.substvars: %s", got);
	free(got);
	got = sh("dpkg-deb -f app_1.0_*.deb Suggests");
	cr_expect_str_eq(got, xz, "Suggests: %s", got);
	free(got);
	got = sh("dpkg-deb -f app_1.0_*.deb Depends");
	cr_expect(strstr(got, z), "Depends: %s (no %s)", got, z);
	free(got);
	free(z);
	free(xz);
}

/* ---- rpm ---- */

/* The sources of the rpm recipes in sources/, the sample's tarball among them; MANIFEST replaces
 * the page's app.dlopen.json when not NULL. */
static void rpm_sources(const char *also, const char *ctor, const char *manifest)
{
	free(sh("rm -rf app-1.0 top"));
	sample("app-1.0", also, ctor);
	free(sh("mkdir -p sources && tar -czf sources/app-1.0.tar.gz app-1.0"));
	if (manifest)
		put_file("sources/app.dlopen.json", manifest);
	else
		recipe("debian/app.dlopen.json", "sources/app.dlopen.json");
}

/* rpmbuild -bb of the page's recipe SPEC, with the staged tool and attribute. */
static struct cmd rpmbuild_recipe(const char *spec)
{
	recipe(spec, spec);
	/* As Fedora's redhat-rpm-config does (Debian's rpm does not): a debuginfo package for
	 * every spec, so that find-debuginfo runs on the shipped, injected program. */
	put_file("fedora.macros", "%_enable_debug_packages 1\n"
		 "%install %{?_enable_debug_packages:%{?buildsubdir:%{debug_package}}}\\\n%%install\\\n%{nil}\n");
	return run("PATH=\"$PWD/stage/usr/bin:$PATH\" rpmbuild -bb --nodeps %s --load fedora.macros --define \"_topdir $PWD/top\" "
		   "--define \"_sourcedir $PWD/sources\" %s 2>&1",
		   rpm_isolated(1, "stage/usr/lib/rpm/fileattrs/dlnote.attr"), spec);
}

/* The rpm recipe; MANIFEST replaces the page's app.dlopen.json when not NULL. */
static struct cmd rpm_build(const char *also, const char *ctor, const char *manifest)
{
	rpm_sources(also, ctor, manifest);
	return rpmbuild_recipe("app.spec");
}

/* The dependencies of KIND (requires, suggests) of the built package NAME from the notes:
 * rpm's own rpmlib() and linked libc lines left out. */
static void expect_rpm_deps(const char *name, const char *kind, const char *want)
{
	char *got = sh("rpm -qp --%s top/RPMS/*/%s-1.0-1.*.rpm | grep -v '^rpmlib(\\|^libc.so\\|^rtld(' || true", kind, name);

	cr_expect_str_eq(got, want, "%s %s: '%s'", name, kind, got);
	free(got);
}

Test(recipes, rpm_recipe_builds_the_package_with_its_dependency, .timeout = 300)
{
	struct cmd c;
	char *got;

	if (sanitized_pass_runs_the_tool_steps(0))
		return;
	need("rpmbuild");
	need("rpm2cpio");
	need("cpio");
	stage_install();
	c = rpm_build("", "", NULL);
	expect_built(&c, "rpmbuild");
	cr_expect(strstr(c.out, "/usr/bin/find-debuginfo "), "find-debuginfo did not run:\n%s", c.out);
	cmd_free(&c);
	/* find-debuginfo split the injected program's debug information off. */
	got = sh("rpm -qlp top/RPMS/*/app-debuginfo-1.0-1.*.rpm | grep -c '^/usr/lib/debug/usr/bin/app-.*\\.debug$'");
	cr_expect_str_eq(got, "1", "the debuginfo package has no debug file for app");
	free(got);
	got = sh("rpm -qp --requires top/RPMS/*/app-1.0-1.*.rpm | grep -v '^rpmlib(' | grep libz || true");
	cr_expect_str_eq(got, "libz.so.1()(64bit)", "the package's Requires on libz: '%s'", got);
	free(got);
	free(sh("mkdir root && cd root && rpm2cpio ../top/RPMS/*/app-1.0-1.*.rpm | cpio -idm --quiet"));
	expect_shipped("root");
}

Test(recipes, rpm_recipe_fails_on_an_undeclared_dlopen, .timeout = 300)
{
	if (sanitized_pass_runs_the_tool_steps(0))
		return;
	need("rpmbuild");
	expect_lint_fails(rpm_build);
}

/* Several binary packages, each with its own manifest (docs/packaging.md, "Several binary
 * packages"): each package's files get their own entries and are checked against them, the
 * recorded lint reads them all at once, and each package gets its own dependencies. */
Test(recipes, rpm_recipe_several_packages_each_with_its_manifest, .timeout = 300)
{
	struct cmd c;

	if (sanitized_pass_runs_the_tool_steps(0))
		return;
	need("rpmbuild");
	stage_install();
	rpm_sources("", "", NULL);
	recipe("libapp.dlopen.json", "sources/libapp.dlopen.json");
	c = rpmbuild_recipe("app-libs.spec");
	cr_assert_eq(c.status, 0, "rpmbuild of app-libs.spec failed:\n%s", c.out);
	cr_expect(strstr(c.out, "/usr/bin/app: ok (1 dlopen entry; no dlopen() by it in the recording)\n") &&
			  strstr(c.out, "/libapp.so.1.0.4: ok (2 dlopen entries; recorded: 1 library dlopen()ed, none undeclared; "
					"declared, not dlopen()ed during the recording: liblzma.so.5)\n"),
		  "no lint of each package's files:\n%s", c.out);
	cmd_free(&c);
	expect_rpm_deps("app", "requires", "libapp.so.1()(64bit)\nlibz.so.1()(64bit)");
	expect_rpm_deps("libapp1", "requires", "libz.so.1()(64bit)");
	expect_rpm_deps("libapp1", "suggests", "liblzma.so.5()(64bit)");
}
