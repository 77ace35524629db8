/* SPDX-License-Identifier: MIT */
/* test_versions.c - issue 38's matrix, built as distributions build packages: one source
 * package, built once with dpkg-buildpackage and once with rpmbuild, whose program dlapp
 * dlopen()s liblzma5, libcap2, libsystemd0, zlib1g and libzstd1 (symbols files, version nodes,
 * a shlibs file only), libvhelper.so.1 that another binary package of the same source ships,
 * liblz4-1 or liblzma5 (alternatives) and libcrypt1 (no symbol looked up); beside it the twin,
 * which links the same symbols (versions_fixture.h).  Its tests run under the recorder.  The
 * dependencies of dlapp's notes must be, string for string, what dpkg-shlibdeps and elfdeps
 * give the twin; for libcrypt1, the version of its shlibs line; in a udeb, the udeb lines.
 *
 * With nocheck there is no trace: the dependency step runs again in the built tree without it
 * (dh_dlnotedeps; the generator on the kept buildroot) and must give the same, from the files
 * alone.  One build per format for the whole matrix keeps the suite cheap. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "versions_fixture.h"

static const char makefile[] =
	"PREFIX ?= /usr\nLIBDIR ?= $(PREFIX)/lib\nMULTIARCH := $(shell $(CC) -print-multiarch)\n"
	"all: dlapp twin\n"
	"libvhelper.so.1.0: vhelper.c vhelper.map\n"
	"\t$(CC) $(CFLAGS) $(LDFLAGS) -shared -fPIC -o $@ -Wl,-soname,libvhelper.so.1 "
	"-Wl,--version-script=vhelper.map vhelper.c\n"
	"dlapp: dlapp.c\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ dlapp.c\n"
	"twin: twin.c libvhelper.so.1.0\n"
	"\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ twin.c " TWIN_LIBS(
		"$(MULTIARCH)") " libvhelper.so.1.0\n"
				"check: dlapp libvhelper.so.1.0\n\tln -sf libvhelper.so.1.0 "
				"libvhelper.so.1\n\tLD_LIBRARY_PATH=. ./dlapp\n"
				"install: all\n"
				"\tinstall -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(LIBDIR)\n"
				"\tinstall -m 755 dlapp twin $(DESTDIR)$(PREFIX)/bin/\n"
				"\tinstall -m 755 libvhelper.so.1.0 $(DESTDIR)$(LIBDIR)/\n"
				"\tln -sf libvhelper.so.1.0 $(DESTDIR)$(LIBDIR)/libvhelper.so.1\n"
				".PHONY: all check install\n";

static void sources(const char *dir)
{
	char path[256];
	static const struct {
		const char *name, *text;
	} files[] = {
		{"dlapp.c", dlapp_c},         {"twin.c", twin_c},     {"vhelper.c", vhelper_c},
		{"vhelper.map", vhelper_map}, {"Makefile", makefile},
	};

	make_dirs(dir);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
		put_file(path, files[i].text);
	}
}

/* The dependencies a twin's dependency field lists, libc6 left out, with liblz4-1's and
 * liblzma5's made into dlapp's alternative and libcrypt1's shlibs one added: what dlapp's
 * notes must give.  Sorted and joined as --format=deb joins them. */
static char *expected_from_twin(const char *twin_field, const char *type)
{
	char *crypt = shlibs_dependency("libcrypt1", "libcrypt.so.1", type), *got;

	got = sh("printf '%%s\\n' '%s' | tr ',' '\\n' | sed 's/^ *//' | grep -v '^libc6' | "
		 "awk -v crypt='%s' '/^liblz4-1/ { lz4 = $0; next } /^liblzma5/ { xz = $0 } { "
		 "print } "
		 "END { print lz4 \" | \" xz; print crypt }' | LC_ALL=C sort | "
		 "awk '{ printf \"%%s%%s\", (NR > 1 ? \", \" : \"\"), $0 }'",
		 twin_field, crypt);
	free(crypt);
	return got;
}

/* One field of a substvars file (the value after "NAME=" or "NAME?="). */
static char *substvar(const char *file, const char *name)
{
	return sh("sed -n 's/^%s?\\{0,1\\}=//p' %s | tail -n 1", name, file);
}

/* ---- Debian ---- */

static const char deb_control[] =
	"Source: dlapp\nSection: utils\nPriority: optional\nMaintainer: T <t@example.org>\n"
	"Build-Depends: debhelper-compat (= 13), dh-sequence-dlnote\nStandards-Version: "
	"4.6.2\nRules-Requires-Root: no\n\n"
	"Package: dlapp\nArchitecture: any\nDepends: ${shlibs:Depends}, ${misc:Depends}, "
	"${dlopen:Depends}\n"
	"Description: dlopen()s libraries, beside a twin linked with them\n test\n\n"
	"Package: libvhelper1\nSection: libs\nArchitecture: any\nDepends: ${shlibs:Depends}, "
	"${misc:Depends}\n"
	"Description: the helper another package of the source dlopen()s\n test\n\n"
	"Package: dlapp-udeb\nPackage-Type: udeb\nSection: debian-installer\nArchitecture: any\n"
	"Depends: ${shlibs:Depends}, ${dlopen:Depends}\nDescription: the installer's copy\n test\n";

/* The recipe's rules (docs/packaging.md), with the library directory for make install. */
static const char deb_rules[] =
	"#!/usr/bin/make -f\nexport LIBDIR = /usr/lib/$(DEB_HOST_MULTIARCH)\n%:\n\tdh $@\n\n"
	"override_dh_auto_test:\nifeq (,$(filter nocheck,$(DEB_BUILD_OPTIONS)))\n"
	"\tdlnote-inject --record=debian/dlopen.trace -- dh_auto_test\nendif\n";

/* dlapp's dependencies in PACKAGE's substvars against dpkg-shlibdeps of its twin (-tudeb for
 * the udeb), in the built tree. */
static void expect_deb_deps(const char *package, const char *type, const char *when)
{
	char *twin = sh("cd deb && dpkg-shlibdeps %s -O debian/%s/usr/bin/twin 2>/dev/null | sed "
			"-n 's/^shlibs:Depends=//p'",
			strcmp(type, "udeb") == 0 ? "-tudeb" : "", package);
	char *want = expected_from_twin(twin, type), file[128], *got;

	snprintf(file, sizeof file, "deb/debian/%s.substvars", package);
	got = substvar(file, "dlopen:Depends");
	cr_expect_str_eq(got, want,
			 "%s, %s: dlopen:Depends\n  %s\nthe twin's (dpkg-shlibdeps%s)\n  %s",
			 package, when, got, strcmp(type, "udeb") == 0 ? " -tudeb" : "", twin);
	free(got);
	free(want);
	free(twin);
}

Test(versions, debian_dependencies_are_what_dpkg_shlibdeps_gives_the_twin, .timeout = 300)
{
	struct cmd c;
	char *got;

	if (sanitized_pass_leaves("dpkg-buildpackage runs the modes that symbols::* run directly"))
		return;
	need("dpkg-buildpackage");
	need("dh");
	stage_install();
	sources("deb");
	make_dirs("deb/debian/source");
	put_file("deb/debian/control", deb_control);
	put_file("deb/debian/rules", deb_rules);
	put_file("deb/debian/changelog",
		 "dlapp (1.0) unstable; urgency=medium\n\n  * Test.\n\n"
		 " -- T <t@example.org>  Sat, 05 Dec 2026 12:00:00 +0000\n");
	put_file("deb/debian/source/format", "3.0 (native)\n");
	put_file("deb/debian/dlapp.install", "usr/bin/dlapp\nusr/bin/twin\n");
	put_file("deb/debian/dlapp-udeb.install", "usr/bin/dlapp\nusr/bin/twin\n");
	put_file("deb/debian/libvhelper1.install", "usr/lib/*/libvhelper.so.*\n");
	/* dh_makeshlibs writes the sibling's symbols file from this template (its symbols older
	 * than the package: the version comes from the file, not the package's version). */
	put_file("deb/debian/libvhelper1.symbols",
		 "libvhelper.so.1 libvhelper1 #MINVER#\n"
		 " VHELPER_1.0@VHELPER_1.0 0.9\n vhelper_run@VHELPER_1.0 0.9\n");
	put_file("deb/debian/dlapp.dlopen.json", N_DLAPP);
	put_file("deb/debian/dlapp-udeb.dlopen.json", N_DLAPP);
	free(sh("chmod +x deb/debian/rules"));
	c = deb_buildpackage("deb");
	cr_assert_eq(c.status, 0, "dpkg-buildpackage failed:\n%s", c.out);
	/* The tests ran under the recorder and the lint read the shipped files; the sibling's
	 * library is no warning. */
	cr_expect(strstr(c.out, "debian/dlapp/usr/bin/dlapp: ok (8 dlopen entries; recorded: 8 "
				"libraries dlopen()ed, none undeclared)") &&
			  strstr(c.out, "dlapp: ok\n"),
		  "no recorded test run and lint:\n%s", c.out);
	cr_expect(!strstr(c.out, "no package for"), "a warning:\n%s", c.out);
	cmd_free(&c);
	got = sh("grep -c vhelper_run deb/debian/libvhelper1/DEBIAN/symbols");
	cr_expect_str_eq(got, "1", "dh_makeshlibs wrote no symbols file for libvhelper1");
	free(got);
	/* dh_dlnotedeps reads the symbols the tests looked up from the trace dh_dlnote linted. */
	got = sh("cat deb/debian/.debhelper/generated/dlapp/dlnote.recorded");
	cr_expect_str_eq(got, "debian/dlopen.trace");
	free(got);
	got = sh("cd deb && '%s' --list --format=symbols --recorded=debian/dlopen.trace "
		 "debian/dlapp/usr/bin/dlapp | "
		 "grep -c ' recorded '",
		 tool());
	cr_expect_str_eq(got, "9", "the recorded lookups of dlapp");
	free(got);
	expect_deb_deps("dlapp", "deb", "tests recorded");
	expect_deb_deps("dlapp-udeb", "udeb", "tests recorded");
	/* The control file: dpkg-gencontrol drops the alternative, which liblzma5's own
	 * dependency implies; every other dependency of the notes is there. */
	got = sh("dpkg-deb -f dlapp_1.0_*.deb Depends | tr ',' '\\n' | grep -c -e libvhelper1 -e "
		 "libcrypt1 -e libzstd1");
	cr_expect_str_eq(got, "3", "dlapp's Depends lacks one of libvhelper1, libcrypt1, libzstd1");
	free(got);
	/* nocheck: no trace; the step that writes the dependencies gives the same. */
	free(sh("cd deb && rm debian/dlopen.trace && " STAGED_DH
		"dh_dlnotedeps -pdlapp -pdlapp-udeb"));
	expect_deb_deps("dlapp", "deb", "nocheck");
	expect_deb_deps("dlapp-udeb", "udeb", "nocheck");
}

/* ---- rpm ---- */

static const char spec[] =
	"Name: dlapp\nVersion: 1.0\nRelease: 1\nSummary: dlopen()s libraries\nLicense: "
	"MIT\nSource0: dlapp-1.0.tar.gz\n"
	"Source1: dlapp.dlopen.json\n\n%description\nA program and its twin.\n\n"
	"%package -n libvhelper\nSummary: the helper\n%description -n libvhelper\nThe helper.\n\n"
	"%prep\n%autosetup\n\n%build\n%make_build LIBDIR=%{_libdir}\n\n"
	"%install\n%make_install LIBDIR=%{_libdir}\n"
	"%{dlnote_inject} --manifest %{SOURCE1} %{buildroot}%{_bindir}/dlapp\n\n"
	"%check\n%{dlnote_inject} --record=dlopen.trace -- make check\n"
	"%{dlnote_inject} --check --expect %{SOURCE1} --recorded=dlopen.trace "
	"%{buildroot}%{_bindir}/dlapp\n\n"
	"%files\n%{_bindir}/dlapp\n%{_bindir}/twin\n\n%files -n "
	"libvhelper\n%{_libdir}/libvhelper.so.*\n";

/* Only the staged attribute is active: every Requires of the package comes from dlapp's
 * notes (the twin has none). */
Test(versions, rpm_dependencies_are_what_elfdeps_gives_the_twin, .timeout = 300)
{
	struct cmd c;
	char *got, *want, *twin, *alt, *root;

	if (sanitized_pass_leaves("rpmbuild runs the generator modes that symbols::* run directly"))
		return;
	need("rpmbuild");
	need("/usr/lib/rpm/elfdeps");
	stage_install();
	sources("dlapp-1.0");
	make_dirs("sources");
	free(sh("tar -czf sources/dlapp-1.0.tar.gz dlapp-1.0"));
	put_file("sources/dlapp.dlopen.json", N_DLAPP);
	put_file("dlapp.spec", spec);
	c = run("PATH=\"$PWD/stage/usr/bin:$PATH\" rpmbuild -bb --nodeps --noclean %s --define "
		"\"_topdir $PWD/top\" "
		"--define \"_sourcedir $PWD/sources\" --define 'debug_package %%{nil}' dlapp.spec "
		"2>&1",
		rpm_isolated(0, "stage/usr/lib/rpm/fileattrs/dlnote.attr"));
	cr_assert_eq(c.status, 0, "rpmbuild failed:\n%s", c.out);
	cr_expect(strstr(c.out, "/usr/bin/dlapp: ok (8 dlopen entries; recorded: 8 libraries "
				"dlopen()ed, none undeclared)") &&
			  strstr(c.out, "dlapp: ok\n"),
		  "no recorded test run and lint:\n%s", c.out);
	cmd_free(&c);
	root = sh("ls -d $PWD/top/BUILDROOT/dlapp-1.0-1.*");
	/* The generators ran with the trace %check wrote (the attribute's arguments, evaluated as
	 * in this build). */
	got = sh("rpm --load stage/usr/lib/rpm/fileattrs/dlnote.attr --define 'buildsubdir "
		 "dlapp-1.0' "
		 "--define \"_builddir $PWD/top/BUILD\" --define 'buildroot /r' --eval "
		 "'%%{_dlnote_args}' | "
		 "grep -o \"\\-\\-recorded='[^']*'\"");
	want = sh("echo \"--recorded='$PWD/top/BUILD/dlapp-1.0/dlopen.trace'\"");
	cr_expect_str_eq(got, want);
	free(got);
	free(want);
	/* elfdeps of the twin, but libc's lines, liblz4's (an alternative) and libcrypt's (not
	 * linked): each of dlapp's single sonames with its version nodes. */
	twin = sh("/usr/lib/rpm/elfdeps -R %s/usr/bin/twin | grep -v -e '^libc\\.so' -e '^rtld(' "
		  "-e '^liblz4' | LC_ALL=C sort",
		  root);
	{
		char path[600];
		snprintf(path, sizeof path, "%s/usr/bin/twin", root);
		alt = twin_rpm_rich(path);
	}
	want = sh("printf '%%s\\n%%s\\nlibcrypt.so.1()(64bit)\\n' '%s' '%s' | LC_ALL=C sort", twin,
		  alt);
	got = sh("rpm -qp --requires top/RPMS/*/dlapp-1.0-1.*.rpm | grep -v '^rpmlib(' | LC_ALL=C "
		 "sort");
	cr_expect_str_eq(got, want,
			 "dlapp's Requires, tests recorded:\n%s\nfrom elfdeps of the twin:\n%s",
			 got, want);
	free(got);
	/* nocheck: the generator again on the kept buildroot, without the trace. */
	got = sh("echo %s/usr/bin/dlapp | '%s' --rpm-generate=requires --rpm-package=dlapp "
		 "--build-root=%s | LC_ALL=C sort",
		 root, tool(), root);
	cr_expect_str_eq(got, want, "the generator, nocheck:\n%s\nfrom elfdeps of the twin:\n%s",
			 got, want);
	free(got);
	free(want);
	free(alt);
	free(twin);
	free(root);
}

/* dh_dlnotedeps reads a shlibs line as dpkg-shlibdeps splits a soname: libbar.so.1 is "libbar
 * 1", libfoo-1.2.so "libfoo 1.2" (the second form gave no version: found by review), a udeb
 * line for a udeb.  The script's functions, loaded with require (it stops before running). */
Test(versions, shlibs_lines_of_both_soname_forms)
{
	char *got;

	put_file("shlibs", "libfoo 1.2 libfoo1.2 (>= 1.2-3)\nudeb: libfoo 1.2 libfoo1.2-udeb (>= 1.2-3)\n"
		 "libbar 1 libbar1 (>= 2)\n");
	got = sh("perl -w -e 'require \"%s/packaging/debhelper/dh_dlnotedeps\"; print join(\"|\", "
		 "map { main::shlibs_dependency(@$_) // \"none\" } [\"libfoo-1.2.so\", \"shlibs\", \"deb\"], "
		 "[\"libfoo-1.2.so\", \"shlibs\", \"udeb\"], [\"libbar.so.1\", \"shlibs\", \"deb\"], "
		 "[\"libnone.so.3\", \"shlibs\", \"deb\"])' 2>&1",
		 srcdir());
	cr_expect_str_eq(got, "libfoo1.2 (>= 1.2-3)|libfoo1.2-udeb (>= 1.2-3)|libbar1 (>= 2)|none");
	free(got);
}
