/* SPDX-License-Identifier: MIT */
/* test_repair.c - files written by the versions before 2026-12-05, which moved the program
 * header table into a segment of theirs, covered by a .dlnote.phdrs section
 * (tests/fixtures/v1-NAME, written by that version from v1-NAME.in beside it, a program built
 * with -g that dlopen()s libz).  objcopy then eu-strip zeroes such a table.  The next run gives
 * today's layout, so that packages built earlier can be rebuilt: the table back after the ELF
 * header, .dlnote.phdrs gone, the entries asked for, every layout rule of readers.py validate
 * against the input the old version edited, the chains that broke keep the program running,
 * and --remove gives that input back. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct fixture {
	char name[32];
	char linker[16];
};

static struct fixture fixtures[] = {
	{ "v1-bfd-pie", "gcc" },         /* the table and note in the page padding */
	{ "v1-lld-pie", "ld.lld" },      /* after the end of the file, behind a sparse gap */
};

ParameterizedTestParameters(repair, older_layouts_get_todays_on_the_next_run)
{
	return cr_make_param_array(struct fixture, fixtures, sizeof fixtures / sizeof fixtures[0]);
}

#define TWO "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"recommended\"}," \
	"{\"soname\":[\"libbz2.so.1.0\"],\"feature\":\"bzip2\",\"priority\":\"suggested\"}]"

ParameterizedTest(struct fixture *f, repair, older_layouts_get_todays_on_the_next_run, .timeout = 60)
{
	static const char *chains[] = { "objcopy c && eu-strip c", "eu-strip c && objcopy c", "strip c && eu-strip c",
					"debugedit -i c; objcopy c && eu-strip --remove-comment -f c.debug c" };
	char *v;
	size_t k;

	need("eu-strip");
	need("debugedit");
	free(sh("cp '%s/tests/fixtures/%s' old && cp '%s/tests/fixtures/%s.in' in && cp old new", srcdir(), f->name, srcdir(),
		f->name));
	/* The fixture has the old layout, and the old layout's failure. */
	v = sh("readelf -SW old | grep -c ' .dlnote.phdrs '; cp old c && objcopy c && eu-strip c && ./c; echo \"exit $?\"");
	cr_expect(strncmp(v, "1\n", 2) == 0 && !strstr(v, "zlib loaded"), "%s is not the old layout: %s", f->name, v);
	free(v);
	put_file("two.json", TWO);
	v = sh("'%s' -v -m two.json new 2>&1", tool());
	cr_expect(strstr(v, "program headers: back at offset 0x40, after the ELF header"), "%s: %s", f->name, v);
	cr_expect(strstr(v, ".dlnote.phdrs: removed"), "%s: %s", f->name, v);
	free(v);
	expect_entries("new", TWO, 1);
	v = readers("validate in new");
	cr_expect_str_eq(v, "OK", "%s: %s", f->name, v);
	free(v);
	v = sh("./new");
	cr_expect_str_eq(v, "zlib loaded", "%s prints %s", f->name, v);
	free(v);
	for (k = 0; k < sizeof chains / sizeof chains[0]; k++) {
		/* as the input the old version edited does (debugedit cannot read clang's DWARF 5) */
		char *twin = sh("rm -f c c.debug && cp in c && (%s) 2>&1 | sed 's/c: //'; ./c; echo \"exit $?\"", chains[k]);
		v = sh("rm -f c c.debug && cp new c && (%s) 2>&1 | sed 's/c: //'; ./c; echo \"exit $?\"", chains[k]);
		cr_expect_str_eq(v, twin, "%s after %s: %s", f->name, chains[k], v);
		cr_expect(strstr(v, "zlib loaded\nexit 0"), "%s after %s: %s", f->name, chains[k], v);
		free(twin);
		free(v);
	}
	free(sh("'%s' --remove new", tool()));
	cr_expect(same_files("in", "new"), "%s: --remove does not give the input back", f->name);
}
