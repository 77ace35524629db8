/* SPDX-License-Identifier: MIT */
/* test_symbols.c - which symbols a file looks up from the libraries its notes name
 * (--list --format=symbols), found from the file alone, and the rpm lines they version: a
 * program that dlopen()s real Debian libraries against its twin, which links the same symbols
 * (versions_fixture.h).  The twin's undefined symbols as dpkg reads them (Dpkg::Shlibs::Objdump)
 * and the lines rpm's elfdeps gives it are the expected results.  Then where the libraries are
 * looked for (--build-root first, never outside it; only the file's class and machine), and a
 * damaged library. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "versions_fixture.h"

#define MULTIARCH "x86_64-linux-gnu"
#define TREE_LIB "tree/usr/lib/" MULTIARCH

/* dlapp with its notes, libvhelper.so.1 in tree/ (a package tree), the twin linked with it. */
static void build_dlapp(void)
{
	char *ma = sh("gcc -print-multiarch");

	cr_assert_str_eq(ma, MULTIARCH, "these tests expect an %s machine", MULTIARCH);
	free(ma);
	make_dirs(TREE_LIB);
	put_file("dlapp.c", dlapp_c);
	put_file("twin.c", twin_c);
	put_file("vhelper.c", vhelper_c);
	put_file("vhelper.map", vhelper_map);
	put_file("dlapp.json", N_DLAPP);
	free(sh("gcc -shared -fPIC -o " TREE_LIB
		"/libvhelper.so.1.0 -Wl,-soname,libvhelper.so.1 -Wl,--version-script=vhelper.map "
		"vhelper.c && ln -s libvhelper.so.1.0 " TREE_LIB
		"/libvhelper.so.1 && gcc -O2 -o dlapp dlapp.c && "
		"gcc -O2 -o twin twin.c " TWIN_LIBS(
			MULTIARCH) " " TREE_LIB "/libvhelper.so.1 && '%s' -m dlapp.json dlapp",
		tool()));
	free(sh("LD_LIBRARY_PATH=" TREE_LIB " ./dlapp | grep -x 'dlapp: ok'"));
}

/* The twin's undefined symbols from the libraries (not libc's, not the toolchain's weak ones),
 * "NAME VERSION" (Base: none), sorted. */
static char *twin_symbols(void)
{
	return sh("perl -MDpkg::Shlibs::Objdump -e '$o = "
		  "Dpkg::Shlibs::Objdump::Object->new($ARGV[0]); "
		  "print \"$_->{name} \" . ($_->{version} || \"Base\") . \"\\n\" for "
		  "$o->get_undefined_dynamic_symbols' twin | "
		  "grep -v -e ' GLIBC_' -e '^_' | LC_ALL=C sort");
}

Test(symbols, the_names_in_read_only_data_are_the_twins_linked_symbols)
{
	char *got, *want, *missed;

	build_dlapp();
	/* What the program names, as dpkg-shlibdeps reads a linked file's (NAME@Base when
	 * unversioned); the twin also links lzma_version_string, whose name dlapp builds at run
	 * time: the heuristic misses it, as docs/packaging.md says. */
	got = sh("'%s' --list --format=symbols --build-root=tree dlapp | awk '$2 != \"-\" { print "
		 "$2, ($3 == \"-\" ? \"Base\" : $3) }' | "
		 "LC_ALL=C sort",
		 tool());
	want = twin_symbols();
	missed = strstr(want, "lzma_version_string XZ_5.0\n");
	cr_assert(missed, "the twin links lzma_version_string: %s", want);
	memmove(missed, missed + strlen("lzma_version_string XZ_5.0\n"),
		strlen(missed) - strlen("lzma_version_string XZ_5.0\n") + 1);
	cr_expect_str_eq(
		got, want,
		"the symbols dlapp names:\n%s\nthe twin links (but lzma_version_string):\n%s", got,
		want);
	free(got);
	free(want);
	/* Each line says where the library is: the package tree first, then the system; a
	 * library none of whose symbols is named has a line of its own. */
	got = sh("'%s' --list --format=symbols --build-root=tree dlapp | awk '{ print $1, $4, $5 "
		 "}' | uniq",
		 tool());
	cr_expect_str_eq(got,
			 "libcap.so.2 data /lib/" MULTIARCH "/libcap.so.2\n"
			 "libcrypt.so.1 - /lib/" MULTIARCH "/libcrypt.so.1\n"
			 "liblz4.so.1 data /lib/" MULTIARCH "/liblz4.so.1\n"
			 "liblzma.so.5 data /lib/" MULTIARCH "/liblzma.so.5\n"
			 "libsystemd.so.0 data /lib/" MULTIARCH "/libsystemd.so.0\n"
			 "libvhelper.so.1 data " TREE_LIB "/libvhelper.so.1\n"
			 "libz.so.1 data /lib/" MULTIARCH "/libz.so.1\n"
			 "libzstd.so.1 data /lib/" MULTIARCH "/libzstd.so.1",
			 "%s", got);
	free(got);
	/* Without the tree, libvhelper.so.1 is nowhere. */
	got = sh("'%s' --list --format=symbols dlapp | grep vhelper", tool());
	cr_expect_str_eq(got, "libvhelper.so.1 - - - -");
	free(got);
}

/* rpm: the lines of the single-soname entries are those elfdeps gives the twin, string for
 * string; the alternative keeps each soname's own as a rich dependency; libcrypt.so.1, none of
 * whose symbols is looked up, has its soname alone, as a file linked without using it would. */
Test(symbols, rpm_lines_are_the_elfdeps_lines_of_the_twin)
{
	char *got, *want, *rich, alt[512];

	need("/usr/lib/rpm/elfdeps");
	build_dlapp();
	got = sh("'%s' --list --format=rpm --build-root=tree dlapp | sed -n 's/^Requires: //p' | "
		 "grep -v -e '^(' -e '^libcrypt' | "
		 "LC_ALL=C sort",
		 tool());
	want = sh("/usr/lib/rpm/elfdeps -R twin | grep -v -e '^libc\\.so' -e '^rtld(' -e '^liblz4' "
		  "| LC_ALL=C sort");
	cr_expect_str_eq(got, want, "--format=rpm:\n%s\nelfdeps of the twin:\n%s", got, want);
	free(want);
	free(got);
	/* The generator prints the same, without the tag. */
	got = sh("echo dlapp | '%s' --rpm-generate=requires --build-root=tree | grep -v -e '^(' -e "
		 "'^libcrypt' | LC_ALL=C sort",
		 tool());
	want = sh("/usr/lib/rpm/elfdeps -R twin | grep -v -e '^libc\\.so' -e '^rtld(' -e '^liblz4' "
		  "| LC_ALL=C sort");
	cr_expect_str_eq(got, want, "--rpm-generate:\n%s\nelfdeps of the twin:\n%s", got, want);
	free(want);
	free(got);
	rich = twin_rpm_rich("twin");
	cr_assert(strstr(rich, " or (liblzma.so.5()(64bit) and "), "elfdeps: %s", rich);
	snprintf(alt, sizeof alt, "%s\nlibcrypt.so.1()(64bit)", rich);
	free(rich);
	got = sh("'%s' --list --format=rpm --build-root=tree dlapp | sed -n 's/^Requires: //p' | "
		 "grep -e '^(' -e '^libcrypt'",
		 tool());
	cr_expect_str_eq(got, alt);
	free(got);
}

/* The trees of a build are someone else's input: a link in one never leads out of it (an
 * absolute one, one through ".."), and a library of another class or machine does not count;
 * the system's is found instead.  A link inside the tree is followed. */
Test(symbols, a_build_root_is_searched_first_and_never_left)
{
	char *got;

	need("i686-linux-gnu-gcc");
	build_dlapp();
	make_dirs("evil/usr/lib/" MULTIARCH);
	make_dirs("evil/lib/" MULTIARCH);
	free(sh("ln -s /lib/" MULTIARCH "/libz.so.1 evil/usr/lib/" MULTIARCH "/libz.so.1 && "
		"ln -s ../../../../../../../lib/" MULTIARCH "/libcap.so.2 evil/usr/lib/" MULTIARCH
		"/libcap.so.2 && "
		"echo 'int sd_device_get_devname(void) { return 0; }' > sd.c && "
		"i686-linux-gnu-gcc -shared -fPIC -o evil/lib/" MULTIARCH
		"/libsystemd.so.0 sd.c && "
		"cp " TREE_LIB "/libvhelper.so.1.0 evil/usr/lib/" MULTIARCH "/ && "
		"ln -s ../../usr/lib/" MULTIARCH "/libvhelper.so.1.0 evil/lib/" MULTIARCH
		"/libvhelper.so.1"));
	got = sh("'%s' --list --format=symbols --build-root=evil dlapp | awk '{ print $1, $5 }' | "
		 "uniq | "
		 "grep -e libz -e libcap -e libsystemd -e vhelper",
		 tool());
	cr_expect_str_eq(got,
			 "libcap.so.2 /lib/" MULTIARCH "/libcap.so.2\n"
			 "libsystemd.so.0 /lib/" MULTIARCH "/libsystemd.so.0\n"
			 "libvhelper.so.1 evil/lib/" MULTIARCH "/libvhelper.so.1\n"
			 "libz.so.1 /lib/" MULTIARCH "/libz.so.1\n"
			 "libzstd.so.1 /lib/" MULTIARCH "/libzstd.so.1",
			 "%s", got);
	free(got);
}

/* A library whose hash table does not fit in it: the listing fails, naming it and why. */
Test(symbols, a_damaged_library_is_an_error_that_names_it)
{
	struct cmd c;
	char *off;

	build_dlapp();
	/* .gnu.hash's first word, nbuckets, made huge. */
	off = sh("echo $((0x$(readelf -SW " TREE_LIB
		 "/libvhelper.so.1.0 | sed -n 's/.*] \\.gnu\\.hash  *GNU_HASH  *[0-9a-f]*  "
		 "*\\([0-9a-f]*\\) .*/\\1/p')))");
	free(sh("printf '\\377\\377\\377\\177' | dd of=" TREE_LIB
		"/libvhelper.so.1.0 bs=1 seek=%s conv=notrunc status=none",
		off));
	free(off);
	c = run("'%s' --list --format=symbols --build-root=tree dlapp", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "");
	cr_expect_str_eq(c.err,
			 "dlnote-inject: dlapp: " TREE_LIB
			 "/libvhelper.so.1: .gnu.hash: a table of 2147483647 buckets "
			 "and 1 bloom words does not fit\n",
			 "%s", c.err);
	cmd_free(&c);
}

/* ---- recorded lookups (--recorded: the audit module's "symbol" lines, glibc >= 2.35) ---- */

/* rt builds the name it looks up in libz at run time, which its data does not hold, and asks
 * libc for memcpy at its old version with dlvsym(); helper, a program of the build tree, looks a
 * symbol up without dlopen()ing anything. */
static const char rt_c[] =
	"#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <stdio.h>\n\n"
	"int main(void)\n{\n"
	"\tvoid *z = dlopen(\"libz.so.1\", RTLD_NOW), *c = dlopen(\"libc.so.6\", RTLD_NOW);\n"
	"\tchar name[32];\n"
	"\tsnprintf(name, sizeof name, \"%s%s\", \"infl\", \"ateGetHeader\");\n"
	"\treturn !z || !c || !dlsym(z, name) || !dlvsym(c, \"memcpy\", \"GLIBC_2.2.5\");\n}\n";
static const char helper_c[] =
	"#include <dlfcn.h>\nint main(void) { return dlsym(RTLD_DEFAULT, \"puts\") == 0; }\n";
static const char rt_twin_c[] =
	"void inflateGetHeader(void);\nvoid (*volatile keep)(void) = inflateGetHeader;\n"
	"int main(void) { return keep == 0; }\n";
#define N_RT                                                                                       \
	"[{\"soname\":[\"libz.so.1\"],\"priority\":\"required\"},{\"soname\":[\"libc.so.6\"],"     \
	"\"priority\":\"required\"}]"

Test(symbols, recorded_lookups_version_what_the_data_does_not_name)
{
	struct cmd c;
	char *got, *want;

	need("/usr/lib/rpm/elfdeps");
	put_file("rt.c", rt_c);
	put_file("helper.c", helper_c);
	put_file("twin.c", rt_twin_c);
	put_file("rt.json", N_RT);
	free(sh("gcc -O2 -o rt rt.c && gcc -O2 -o helper helper.c && gcc -o twin twin.c "
		"/lib/" MULTIARCH "/libz.so.1 && "
		"'%s' -m rt.json rt && '%s' --record=t.trace -- sh -c './rt && ./helper'",
		tool(), tool()));
	/* From the file alone: no symbol of libz (its name is built at run time); libc's memcpy at
	 * its default version. */
	got = sh("'%s' --list --format=symbols rt | grep -e '^libz' -e ' memcpy '", tool());
	cr_expect_str_eq(got, "libc.so.6 memcpy GLIBC_2.14 data /lib/" MULTIARCH
			      "/libc.so.6\nlibz.so.1 - - - /lib/" MULTIARCH "/libz.so.1");
	free(got);
	/* Recorded: the symbol and the version it resolved at; dlvsym()'s old memcpy too. */
	got = sh("'%s' --list --format=symbols --recorded=t.trace rt | grep -e '^libz' -e ' memcpy "
		 "'",
		 tool());
	cr_expect_str_eq(got,
			 "libc.so.6 memcpy GLIBC_2.14 data /lib/" MULTIARCH "/libc.so.6\n"
			 "libc.so.6 memcpy GLIBC_2.2.5 recorded /lib/" MULTIARCH "/libc.so.6\n"
			 "libz.so.1 inflateGetHeader ZLIB_1.2.2 recorded /lib/" MULTIARCH
			 "/libz.so.1",
			 "%s", got);
	free(got);
	/* rpm, recorded: libz's lines are what elfdeps gives the twin linked with the symbol. */
	got = sh("'%s' --list --format=rpm --recorded=t.trace rt | sed -n 's/^Requires: //p' | "
		 "grep '^libz'",
		 tool());
	want = sh("/usr/lib/rpm/elfdeps -R twin | grep '^libz' | LC_ALL=C sort");
	cr_expect_str_eq(got, want);
	free(got);
	free(want);
	got = sh("'%s' --list --format=rpm rt | sed -n 's/^Requires: //p' | grep '^libz'", tool());
	cr_expect_str_eq(got, "libz.so.1()(64bit)", "from the file alone");
	free(got);
	/* The lint: what it says of a trace with lookups; helper only looked a symbol up, so it is
	 * no dlopen() caller the lint missed. */
	c = run("'%s' --check --recorded=t.trace rt", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect(strstr(c.out, "rt: ok (2 dlopen entries; recorded: 2 libraries dlopen()ed, none "
				"undeclared)"),
		  "%s", c.out);
	cr_expect(!strstr(c.err, "helper") && !strstr(c.out, "helper"), "%s%s", c.out, c.err);
	cmd_free(&c);
	/* An older trace, without "symbol" lines: the lint and the listing as before. */
	free(sh("grep -v '\"event\":\"symbol\"' t.trace > old.trace"));
	c = run("'%s' --check --recorded=old.trace rt", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect(strstr(c.out, "rt: ok (2 dlopen entries; recorded: 2 libraries dlopen()ed, none "
				"undeclared)"),
		  "%s", c.out);
	cmd_free(&c);
	got = sh("'%s' --list --format=symbols --recorded=old.trace rt | grep -c recorded || true",
		 tool());
	cr_expect_str_eq(got, "0");
	free(got);
}
