/* SPDX-License-Identifier: MIT */
/* test_symbols.c - the records of the symbols files look up (src/deps/symbols.c): the
 * --format=symbols lines (each once, sorted, "-" for what is not known, a soname's line without
 * a symbol only when no file names one of its symbols) and the version nodes an rpm line takes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps/deps.h"

#include "helpers.h"

static char *listed(const struct symbols *s)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert_eq(symbols_list(s, out), 0);
	fclose(out);
	return text;
}

Test(symbols, lines_are_sorted_distinct_and_a_soname_without_symbols_shows_where_it_is)
{
	struct symbols s = {0};
	char *got;

	/* Two files: file 0 names inflate twice (data) and looked it up (recorded); file 1 names
	 * none of libz's symbols; libfoo is nowhere. */
	cr_assert_eq(symbols_add(&s, "libz.so.1", "inflate", "ZLIB_1.2.0", "/lib/libz.so.1", 0, 0),
		     0);
	cr_assert_eq(symbols_add(&s, "libz.so.1", "inflate", "ZLIB_1.2.0", "/lib/libz.so.1", 0, 1),
		     0);
	cr_assert_eq(symbols_add(&s, "libz.so.1", NULL, "", "/lib/libz.so.1", 1, 0), 0);
	cr_assert_eq(symbols_add(&s, "libz.so.1", "inflate", "ZLIB_1.2.0", "/lib/libz.so.1", 1, 0),
		     0);
	cr_assert_eq(symbols_add(&s, "libfoo.so.3", NULL, "", NULL, 1, 0), 0);
	cr_assert_eq(symbols_add(&s, "libcap.so.2", NULL, "", "/lib/libcap.so.2", 1, 0), 0);
	cr_assert_eq(symbols_add(&s, "libcap.so.2", NULL, "", "/lib/libcap.so.2", 0, 0), 0);
	got = listed(&s);
	T_STR_EQ(got,
		 "libcap.so.2 - - - /lib/libcap.so.2\n"
		 "libfoo.so.3 - - - -\n"
		 "libz.so.1 inflate ZLIB_1.2.0 data /lib/libz.so.1\n"
		 "libz.so.1 inflate ZLIB_1.2.0 recorded /lib/libz.so.1\n",
		 "--format=symbols");
	free(got);
	symbols_free(&s);
	got = listed(&s);
	T_STR_EQ(got, "", "no records");
	free(got);
}

Test(symbols, versions_of_a_soname_are_distinct_sorted_and_of_its_records_only)
{
	struct symbols s = {0};
	struct buf out = {0};
	size_t n;

	symbols_add(&s, "liblzma.so.5", "a", "XZ_5.4", "/l", 0, 0);
	symbols_add(&s, "liblzma.so.5", "b", "XZ_5.0", "/l", 0, 0);
	symbols_add(&s, "liblzma.so.5", "c", "XZ_5.4", "/l", 0, 1);
	symbols_add(&s, "liblzma.so.5", "d", "", "/l", 0, 0);
	symbols_add(&s, "libz.so.1", "e", "ZLIB_1.2.2", "/z", 0, 0);
	symbols_add(&s, "liblzma.so.5", "f", "XZ_5.2", "/l", 1, 0);
	n = symbols_versions(&s, 0, 5, "liblzma.so.5", &out);
	cr_assert_eq(n, 2);
	cr_assert_eq(out.len, sizeof "XZ_5.0" + sizeof "XZ_5.4");
	cr_assert(memcmp(out.p, "XZ_5.0\0XZ_5.4", out.len) == 0);
	cr_assert_eq(symbols_versions(&s, 0, 5, "libcap.so.2", &out), 0);
	cr_assert_eq(out.len, 0);
	buf_free(&out);
	symbols_free(&s);
}
