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

/* The sample project: the program dlopen()s each name it is given; `make check` runs it. */
static const char app_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n\n"
	"int main(int argc, char **argv)\n{\n"
	"\tfor (int i = 1; i < argc; i++) {\n"
	"\t\tvoid *h = dlopen(argv[i], RTLD_NOW);\n"
	"\t\tprintf(\"%s: %s\\n\", argv[i], h ? \"loaded\" : \"missing\");\n"
	"\t\tif (!h)\n\t\t\treturn 1;\n\t}\n\treturn 0;\n}\n";
static const char app_makefile[] =
	"PREFIX ?= /usr\n"
	"app: app.c\n\t$(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o app app.c\n"
	"check: app\n\t./app libz.so.1 $(ALSO)\n"
	"install: app\n\tinstall -D -m 755 app $(DESTDIR)$(PREFIX)/bin/app\n"
	".PHONY: check install\n";

/* The block after "<!-- recipe: NAME -->" in docs/packaging.md, into FILE. */
static void recipe(const char *name, const char *file)
{
	char *text = sh("awk -v m='<!-- recipe: %s -->' '$0 == m { on = 1; next } "
			"on == 1 && /^```/ { on = 2; next } on == 2 && /^```/ { exit } on == 2 { print }' '%s/docs/packaging.md'",
			name, srcdir());
	size_t n = strlen(text);
	char *with_newline = malloc(n + 2);

	cr_assert(n > 0, "docs/packaging.md has no recipe %s", name);
	memcpy(with_newline, text, n);
	strcpy(with_newline + n, "\n");
	put_file(file, with_newline);
	free(with_newline);
	free(text);
}

/* The project in DIR; `also` names libraries its tests dlopen() too. */
static void sample(const char *dir, const char *also)
{
	char path[256], mk[1024];

	free(sh("mkdir -p %s", dir));
	snprintf(path, sizeof path, "%s/app.c", dir);
	put_file(path, app_c);
	snprintf(path, sizeof path, "%s/Makefile", dir);
	snprintf(mk, sizeof mk, "ALSO = %s\n%s", also, app_makefile);
	put_file(path, mk);
}

/* The shipped program, extracted into ROOT: its notes by the tool, and it runs. */
static void expect_shipped(const char *root)
{
	char *got;

	got = sh("'%s' --list --json %s/usr/bin/app", tool(), root);
	cr_expect_str_eq(got, "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"description\":\"Compressed input\","
			      "\"priority\":\"required\"}]", "the shipped program's notes: %s", got);
	free(got);
	got = sh("%s/usr/bin/app libz.so.1", root);
	cr_expect_str_eq(got, "libz.so.1: loaded");
	free(got);
}

/* A recipe's build C passed, and its log shows the lint passing on the file the tests ran. */
static void expect_built(struct cmd *c, const char *what)
{
	cr_assert_eq(c->status, 0, "%s of the recipe failed:\n%s", what, c->out);
	cr_expect(strstr(c->out, "app: ok (1 dlopen entry)\n"), "no lint in the build log:\n%s", c->out);
}

/* The recipe built by BUILD, whose tests also dlopen() liblzma.so.5, which the manifest does not
 * declare: the lint names it and the build fails. */
static void expect_lint_fails(struct cmd (*build)(const char *also))
{
	struct cmd c;

	stage_install();
	c = build("liblzma.so.5");
	cr_expect_neq(c.status, 0, "the build passed although the tests dlopen() liblzma.so.5:\n%s", c.out);
	cr_expect(strstr(c.out, "app: undeclared: liblzma.so.5: dlopen()ed during the recording\n"),
		  "the lint does not name liblzma.so.5:\n%s", c.out);
	cmd_free(&c);
}

/* check-all's sanitized pass: the package builds are the plain pass's.  Here the sanitized
 * tool does what the recipes make it do, on the same program: inject the manifest (the same
 * bytes as the plain build, harness.h), record the tests, lint; and the lint names an
 * undeclared dlopen(). */
static int sanitized_pass_runs_the_tool_steps(void)
{
	char *got;
	struct cmd c;

	if (!plain_tool())
		return 0;
	sample("app", "");
	recipe("debian/app.dlopen.json", "app.dlopen.json");
	free(sh("make -s -C app app"));
	free(tool_edit("app/app", "--manifest app.dlopen.json"));
	free(sh("'%s' --record=dlopen.trace -- make -s -C app check ALSO=liblzma.so.5", tool()));
	c = run("'%s' --check --recorded=dlopen.trace app/app", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "app/app: undeclared: liblzma.so.5: dlopen()ed during the recording\n"), "%s", c.out);
	cmd_free(&c);
	got = sh("'%s' --record=declared.trace -- make -s -C app check && '%s' --check --recorded=declared.trace app/app", tool(),
		 tool());
	cr_expect(strstr(got, "app/app: ok (1 dlopen entry)"), "%s", got);
	free(got);
	return 1;
}

/* ---- Debian ---- */

static struct cmd deb_build(const char *also)
{
	sample("deb", also);
	free(sh("mkdir -p deb/debian/source"));
	recipe("debian/control", "deb/debian/control");
	recipe("debian/rules", "deb/debian/rules");
	recipe("debian/app.dlopen.json", "deb/debian/app.dlopen.json");
	free(sh("chmod +x deb/debian/rules"));
	put_file("deb/debian/changelog", "app (1.0) unstable; urgency=medium\n\n  * Test.\n\n"
		 " -- App Maintainers <app@example.org>  Fri, 04 Dec 2026 12:00:00 +0000\n");
	put_file("deb/debian/source/format", "3.0 (native)\n");
	return run("cd deb && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH=\"$PWD/../stage/usr/bin:$PATH\" "
		   "PERL5LIB=\"$PWD/../stage/usr/share/perl5\" dpkg-buildpackage -b -uc -us -d 2>&1");
}

Test(recipes, debian_recipe_builds_the_package_with_its_dependency, .timeout = 300)
{
	struct cmd c;
	char *got;

	if (sanitized_pass_runs_the_tool_steps())
		return;
	need("dpkg-buildpackage");
	need("dh");
	stage_install();
	c = deb_build("");
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
	if (sanitized_pass_runs_the_tool_steps())
		return;
	need("dpkg-buildpackage");
	expect_lint_fails(deb_build);
}

/* ---- rpm ---- */

static struct cmd rpm_build(const char *also)
{
	sample("app-1.0", also);
	free(sh("mkdir -p sources && tar -czf sources/app-1.0.tar.gz app-1.0"));
	recipe("app.spec", "app.spec");
	recipe("debian/app.dlopen.json", "sources/app.dlopen.json");
	/* As Fedora's redhat-rpm-config does (Debian's rpm does not): a debuginfo package for
	 * every spec, so that find-debuginfo runs on the shipped, injected program. */
	put_file("fedora.macros", "%_enable_debug_packages 1\n"
		 "%install %{?_enable_debug_packages:%{?buildsubdir:%{debug_package}}}\\\n%%install\\\n%{nil}\n");
	return run("PATH=\"$PWD/stage/usr/bin:$PATH\" rpmbuild -bb --nodeps %s --load fedora.macros --define \"_topdir $PWD/top\" "
		   "--define \"_sourcedir $PWD/sources\" app.spec 2>&1",
		   rpm_isolated(1, "stage/usr/lib/rpm/fileattrs/dlnote.attr"));
}

Test(recipes, rpm_recipe_builds_the_package_with_its_dependency, .timeout = 300)
{
	struct cmd c;
	char *got;

	if (sanitized_pass_runs_the_tool_steps())
		return;
	need("rpmbuild");
	need("rpm2cpio");
	need("cpio");
	stage_install();
	c = rpm_build("");
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
	if (sanitized_pass_runs_the_tool_steps())
		return;
	need("rpmbuild");
	expect_lint_fails(rpm_build);
}
