/* test_distro.c - the packaging helpers as a packager gets them from `make install`: rpm's file
 * attribute (dlnote.attr, with `rpmbuild -bb` of sample specs) and the debhelper addon
 * (`dh $@ --with dlnote`, with `dpkg-buildpackage -b` of a sample source package).  The
 * dependencies are read back from the built packages and compared exactly.
 *
 * The install is staged: `make install PREFIX=$W/stage/usr` with rpm's and Perl's directories
 * under the stage too, so that the attribute names the staged dlnote-inject exactly as it names
 * /usr/bin/dlnote-inject after `make install PREFIX=/usr`.  rpm is pointed at the staged
 * attribute with _fileattrsdir (where rpm lists attributes) and --load (the macro path rpm reads
 * /usr/lib/rpm/fileattrs/\*.attr from); no other attribute is active, so every dependency in
 * the packages comes from the notes.  debhelper finds the staged dh_dlnote through PATH and the
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

static void stage_install(void)
{
	need("make");
	free(sh("make -s -C '%s' install BIN='%s' PREFIX=\"$PWD/stage/usr\" RPMFILEATTRSDIR=\"$PWD/stage/usr/lib/rpm/fileattrs\" "
		"PERL_VENDORLIB=\"$PWD/stage/perl5\" >/dev/null",
		srcdir(), tool()));
}

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
	"cp %{_sourcedir}/libtool.so.1 %{buildroot}/usr/lib64/\ncp %{_sourcedir}/libx.so.1 %{buildroot}/usr/lib/\n"
	"%files\n/usr/lib64/libtool.so.1\n%files libs\n/usr/lib/libx.so.1\n";

/* Build the spec (its middle part given) with the staged attribute only. */
static void rpmbuild(const char *middle)
{
	struct cmd c;
	char spec[4096];

	need("rpmbuild");
	snprintf(spec, sizeof spec, "%s%s%s", spec_head, middle, spec_tail);
	put_file("t.spec", spec);
	c = run("rm -rf top && rpmbuild -bb --quiet --define \"_topdir $PWD/top\" --define \"_sourcedir $PWD/src\" "
		"--define \"_fileattrsdir $PWD/stage/usr/lib/rpm/fileattrs\" --load \"$PWD/stage/usr/lib/rpm/fileattrs/dlnote.attr\" "
		"--define 'debug_package %%{nil}' t.spec");
	cr_assert_eq(c.status, 0, "rpmbuild failed:\n%s\n%s", c.out, c.err);
	cmd_free(&c);
}

static void rpm_sources(void)
{
	stage_install();
	free(sh("mkdir -p src"));
	noted_library("gcc", "src/libtool.so.1", N_TOOL);
	noted_library("i686-linux-gnu-gcc", "src/libx.so.1", N_LIBS);
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
	rpm_sources();
	rpmbuild("%global __dlnote_recommends_opts --only-feature=lz4\n");
	expect_deps("tool", "requires", "libzstd.so.1()(64bit)");
	expect_deps("tool", "recommends", "(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))");
	expect_deps("tool", "suggests", "libbz2.so.1()(64bit)");
	expect_deps("tool-libs", "recommends", "liblz4.so.1");
}

Test(distro, rpm_opt_out_by_undefining_the_generator)
{
	rpm_sources();
	rpmbuild("%undefine _dlnote_generator\n");
	expect_deps("tool", "requires", "");
	expect_deps("tool", "recommends", "");
	expect_deps("tool", "suggests", "");
	expect_deps("tool-libs", "recommends", "");
}
