/* SPDX-License-Identifier: MIT */
/* test_report.c - listing formats against exact expected text. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

#include "helpers.h"

static void entries(const char *json, struct entries *es)
{
	struct err e = { 0 };

	memset(es, 0, sizeof *es);
	cr_assert_eq(manifest_parse(json, strlen(json), es, &e), 0, "manifest: %s", e.msg);
}

/* One line per file, the path first so that a tool can tell which file declared what; a path
 * that is not valid UTF-8 shows each such byte C-style (\xNN), as every line for people does,
 * then JSON-escaped. */
Test(report, jsonl_is_one_object_per_file)
{
	struct entries es;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	entries("[{\"soname\":[\"libz.so.1\"],\"x-extra\":1,\"priority\":\"suggested\"}]", &es);
	report_jsonl(&es, "usr/lib/libq\xff.so", 1, 183, out);
	manifest_free(&es);
	memset(&es, 0, sizeof es);
	report_jsonl(&es, "bin/\"quoted\"", 0, 3, out);
	fclose(out);
	T_STR_EQ(text,
		 "{\"path\":\"usr/lib/libq\\\\xff.so\",\"class\":\"ELF64\",\"machine\":183,"
		 "\"entries\":[{\"soname\":[\"libz.so.1\"],\"x-extra\":1,\"priority\":\"suggested\"}]}\n"
		 "{\"path\":\"bin/\\\"quoted\\\"\",\"class\":\"ELF32\",\"machine\":3,\"entries\":[]}\n",
		 "jsonl");
	free(text);
}

/* --expect, one file (issue 43, item 4): the declared entries it lacks, by soname array, in one
 * line naming three and how many more; an entry declared twice counts once; priorities and
 * features are the union's business. */
Test(report, lint_file_names_what_one_file_lacks)
{
	struct entries declared, have;
	char *text = NULL;
	size_t len = 0, lacks;
	FILE *out = open_memstream(&text, &len);

	entries("[{\"soname\":[\"a.so.1\"],\"feature\":\"a\"},{\"soname\":[\"b.so.1\"]},"
		"{\"soname\":[\"c.so.1\"]},{\"soname\":[\"d.so.1\"]},{\"soname\":[\"e.so.1\"]},"
		"{\"soname\":[\"a.so.1\"],\"feature\":\"a\",\"priority\":\"required\"}]",
		&declared);
	entries("[{\"soname\":[\"c.so.1\"],\"priority\":\"suggested\"}]", &have);
	lacks = report_lint_file(&declared, "M.json", &have, "usr/lib/x.so", out);
	cr_expect_eq(lacks, 4);
	manifest_free(&have);
	memset(&have, 0, sizeof have);
	cr_expect_eq(report_lint_file(&declared, "M.json", &have, "bin/y", out), 5);
	entries("[{\"soname\":[\"e.so.1\"]},{\"soname\":[\"d.so.1\"]},{\"soname\":[\"c.so.1\"]},"
		"{\"soname\":[\"b.so.1\"]},{\"soname\":[\"a.so.1\"]}]",
		&have);
	cr_expect_eq(report_lint_file(&declared, "M.json", &have, "bin/z", out), 0);
	fclose(out);
	T_STR_EQ(text,
		 "M.json: missing: usr/lib/x.so lacks 4 of the 5 declared entries: a.so.1 (feature a), "
		 "b.so.1, d.so.1 and 1 more\n"
		 "M.json: missing: bin/y lacks every declared entry (5): a.so.1 (feature a), b.so.1, "
		 "c.so.1 and 2 more\n",
		 "lint_file");
	free(text);
	manifest_free(&have);
	manifest_free(&declared);
}
