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
