/* SPDX-License-Identifier: MIT */
/* test_sbom.c - the CycloneDX document of a listing (src/report/sbom.c, docs/sbom.md): one
 * component per distinct file whether it declares something or not, one per distinct
 * declaration of a soname (one per alternative, shared by the files that declare it alike,
 * `#2`, `#3` for other declarations in the order of their text), scope, description and
 * properties from the entry, and each file's dependsOn once each, in the order of the refs.
 * The expected text is written here from docs/sbom.md. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"

#include "helpers.h"

struct sbom_file {
	const char *path, *json; /* a FILE and its notes' entries */
};

/* The document for the files in turn, as --list --format=cyclonedx gathers them. */
static char *sbom(const struct sbom_file *files, size_t n)
{
	struct report_opts r = {.format = FORMAT_CYCLONEDX};
	struct listing l = {0};
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	cr_assert(out);
	for (size_t i = 0; i < n; i++) {
		struct entries es = {0};
		struct err e = {0};
		cr_assert_eq(manifest_parse(files[i].json, strlen(files[i].json), &es, &e), 0,
			     "%s: %s", files[i].path, e.msg);
		cr_assert_eq(report_listing_add(&l, &es, files[i].path, "", &r), 0);
		manifest_free(&es);
	}
	cr_assert_eq(sbom_cyclonedx(&l, out), 0);
	cr_assert_eq(fclose(out), 0);
	report_listing_free(&l);
	return text;
}

/* The expected document, written from docs/sbom.md piece by piece. */
static void head(struct buf *b)
{
	buf_puts(b, "{\n  \"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"version\":1,\n"
		    "  \"metadata\":{\"tools\":{\"components\":[{\"type\":\"application\","
		    "\"name\":\"dlnote-inject\",\"version\":\"" VERSION "\"}]}},\n"
		    "  \"components\":[");
}

/* A file component whose ref and name are `json_ref` and `json_path` as written in JSON. */
static void file_component_ref(struct buf *b, const char *json_ref, const char *json_path,
			       int first)
{
	buf_printf(b, "%s\n    {\"type\":\"file\",\"bom-ref\":\"file:%s\",\"name\":\"%s\"}",
		   first ? "" : ",", json_ref, json_path);
}

/* A file component of a plain name: its ref is its path. */
static void file_component(struct buf *b, const char *json_path, int first)
{
	file_component_ref(b, json_path, json_path, first);
}

/* What a library component says of its entry (NULL: the entry has no such member). */
struct lib {
	const char *ref, *name, *priority, *feature, *description, *alternatives, *preference;
};

static void property(struct buf *b, const char *name, const char *value, int *first)
{
	if (!value)
		return;
	buf_printf(b, "%s{\"name\":\"dlnote:%s\",\"value\":\"%s\"}", *first ? "" : ",", name,
		   value);
	*first = 0;
}

static void library_component(struct buf *b, const struct lib *l)
{
	int first = 1;

	buf_printf(
		b,
		",\n    {\"type\":\"library\",\"bom-ref\":\"%s\",\"name\":\"%s\",\"scope\":\"%s\"",
		l->ref, l->name, strcmp(l->priority, "required") == 0 ? "required" : "optional");
	if (l->description)
		buf_printf(b, ",\"description\":\"%s\"", l->description);
	buf_puts(b, ",\"properties\":[");
	property(b, "priority", l->priority, &first);
	property(b, "feature", l->feature, &first);
	property(b, "description", l->description, &first);
	property(b, "alternatives", l->alternatives, &first);
	property(b, "preference", l->preference, &first);
	buf_puts(b, "]}");
}

static void dependencies(struct buf *b)
{
	buf_puts(b, "\n  ],\n  \"dependencies\":[");
}

/* A file's dependencies: `refs` as written in the array ("\"dlopen:...\",..."). */
static void depends(struct buf *b, const char *json_path, const char *refs, int first)
{
	buf_printf(b, "%s\n    {\"ref\":\"file:%s\",\"dependsOn\":[%s]}", first ? "" : ",",
		   json_path, refs);
}

static void tail(struct buf *b)
{
	buf_puts(b, "\n  ]\n}\n");
}

static const char ZLIB_REQUIRED[] =
	"[{\"soname\":[\"libz.so.1\",\"libz.so.0\"],\"feature\":\"zlib\","
	"\"description\":\"Compression\",\"priority\":\"required\"}]";

Test(sbom, each_file_and_each_distinct_declaration_of_a_soname_is_one_component)
{
	static const struct sbom_file f[] = {
		{"/usr/bin/a", ZLIB_REQUIRED},
		{"/usr/lib/libb.so",
		 "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"suggested\"}]"},
		{"/usr/bin/quiet", "[]"},
		{"/usr/bin/c", ZLIB_REQUIRED},
	};
	static const struct lib libs[] = {
		{"dlopen:libz.so.0", "libz.so.0", "required", "zlib", "Compression",
		 "libz.so.1 libz.so.0", "2"},
		{"dlopen:libz.so.1", "libz.so.1", "required", "zlib", "Compression",
		 "libz.so.1 libz.so.0", "1"},
		{"dlopen:libz.so.1#2", "libz.so.1", "suggested", "zlib", NULL, "libz.so.1", "1"},
	};
	const char *both = "\"dlopen:libz.so.0\",\"dlopen:libz.so.1\"";
	char *doc = sbom(f, 4);
	struct buf want = {0};

	head(&want);
	for (int i = 0; i < 4; i++)
		file_component(&want, f[i].path, i == 0);
	for (int i = 0; i < 3; i++)
		library_component(&want, &libs[i]);
	dependencies(&want);
	depends(&want, "/usr/bin/a", both, 1);
	depends(&want, "/usr/lib/libb.so", "\"dlopen:libz.so.1#2\"", 0);
	depends(&want, "/usr/bin/quiet", "", 0);
	depends(&want, "/usr/bin/c", both, 0);
	tail(&want);
	T_STR_EQ(doc, want.p, "the document");
	buf_free(&want);
	free(doc);
}

Test(sbom, a_file_named_twice_is_one_component_and_depends_on_each_library_once)
{
	static const struct sbom_file f[] = {
		{"/usr/bin/a", "[{\"soname\":[\"libx.so.1\"],\"feature\":\"x\"}]"},
		{"/usr/bin/b", "[]"},
		{"/usr/bin/a", "[{\"soname\":[\"libx.so.1\"],\"feature\":\"x\"},"
			       "{\"soname\":[\"liby.so.1\"],\"feature\":\"y\"}]"},
	};
	static const struct lib libs[] = {
		{"dlopen:libx.so.1", "libx.so.1", "recommended", "x", NULL, "libx.so.1", "1"},
		{"dlopen:liby.so.1", "liby.so.1", "recommended", "y", NULL, "liby.so.1", "1"},
	};
	char *doc = sbom(f, 3);
	struct buf want = {0};

	head(&want);
	file_component(&want, "/usr/bin/a", 1);
	file_component(&want, "/usr/bin/b", 0);
	library_component(&want, &libs[0]);
	library_component(&want, &libs[1]);
	dependencies(&want);
	depends(&want, "/usr/bin/a", "\"dlopen:libx.so.1\",\"dlopen:liby.so.1\"", 1);
	depends(&want, "/usr/bin/b", "", 0);
	tail(&want);
	T_STR_EQ(doc, want.p, "the document");
	buf_free(&want);
	free(doc);
}

/* doc has the library component l, and `path` depends on `refs`, each exactly. */
static void has_library(const char *doc, const struct lib *l)
{
	struct buf want = {0};

	library_component(&want, l);
	cr_assert(strstr(doc, want.p), "no component%s\nin:\n%s", want.p, doc);
	buf_free(&want);
}

static void has_depends(const char *doc, const char *path, const char *refs)
{
	struct buf want = {0};

	depends(&want, path, refs, 1);
	cr_assert(strstr(doc, want.p), "no dependencies%s\nin:\n%s", want.p, doc);
	buf_free(&want);
}

static size_t count(const char *doc, const char *what)
{
	size_t n = 0;

	for (const char *p = doc; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

Test(sbom, other_declarations_of_a_soname_are_numbered_in_the_order_of_their_text)
{
	/* Their text: soname, priority, feature, description, alternatives; "recommended" <
	 * "required" < "suggested", and no description before one. */
	static const struct sbom_file f[] = {
		{"/a",
		 "[{\"soname\":[\"libq.so.1\"],\"feature\":\"q\",\"priority\":\"suggested\"}]"},
		{"/b",
		 "[{\"soname\":[\"libq.so.1\"],\"feature\":\"q\",\"priority\":\"required\"}]"},
		{"/c", "[{\"soname\":[\"libq.so.1\"],\"feature\":\"q\"}]"},
		{"/d", "[{\"soname\":[\"libq.so.1\"],\"feature\":\"q\",\"description\":\"Q\"}]"},
		{"/e",
		 "[{\"soname\":[\"libq.so.1\"],\"feature\":\"q\",\"priority\":\"required\"}]"},
	};
	static const struct lib libs[] = {
		{"dlopen:libq.so.1", "libq.so.1", "recommended", "q", NULL, "libq.so.1", "1"},
		{"dlopen:libq.so.1#2", "libq.so.1", "recommended", "q", "Q", "libq.so.1", "1"},
		{"dlopen:libq.so.1#3", "libq.so.1", "required", "q", NULL, "libq.so.1", "1"},
		{"dlopen:libq.so.1#4", "libq.so.1", "suggested", "q", NULL, "libq.so.1", "1"},
	};
	char *doc = sbom(f, 5);

	cr_assert_eq(count(doc, "{\"type\":\"library\""), 4, "four declarations:\n%s", doc);
	for (int i = 0; i < 4; i++)
		has_library(doc, &libs[i]);
	has_depends(doc, "/a", "\"dlopen:libq.so.1#4\"");
	has_depends(doc, "/b", "\"dlopen:libq.so.1#3\"");
	has_depends(doc, "/c", "\"dlopen:libq.so.1\"");
	has_depends(doc, "/d", "\"dlopen:libq.so.1#2\"");
	has_depends(doc, "/e", "\"dlopen:libq.so.1#3\"");
	free(doc);
}

Test(sbom, no_files_give_a_document_with_empty_lists)
{
	char *doc = sbom(NULL, 0);
	struct buf want = {0};

	head(&want);
	dependencies(&want);
	tail(&want);
	T_STR_EQ(doc, want.p, "the document");
	buf_free(&want);
	free(doc);
}

Test(sbom, file_names_are_escaped_as_jsonl_names_them_and_refs_percent_encoded)
{
	static const struct sbom_file f[] = {{"/usr/lib/a\nb\xff\"c%", "[]"}};
	/* the name: buf_put_text's C-style escapes (\n, \xff), then JSON's (the backslashes, the
	 * quote); the ref: bytes outside printable ASCII and '%' percent-encoded, then JSON's */
	const char *json = "/usr/lib/a\\\\nb\\\\xff\\\"c%";
	const char *ref = "/usr/lib/a%0Ab%FF\\\"c%25";
	char *doc = sbom(f, 1);
	struct buf want = {0};

	head(&want);
	file_component_ref(&want, ref, json, 1);
	dependencies(&want);
	depends(&want, ref, "", 1);
	tail(&want);
	T_STR_EQ(doc, want.p, "the document");
	buf_free(&want);
	free(doc);
}

/* The bom-ref values of doc, each followed by '|'. */
static const char *refs(const char *doc)
{
	static char s[4096];
	const char *p = doc;

	s[0] = 0;
	while ((p = strstr(p, "\"bom-ref\":\"")) != NULL) {
		const char *end = p += 11;
		while (*end && !(*end == '"' && end[-1] != '\\'))
			end++;
		cr_assert(strlen(s) + (size_t)(end - p) + 2 < sizeof s);
		strncat(s, p, (size_t)(end - p));
		strcat(s, "|");
		p = end;
	}
	return s;
}

Test(sbom, two_files_whose_escaped_names_look_alike_have_distinct_refs)
{
	/* A newline, and a backslash followed by n: both are written a\nb by the C-style
	 * escape.  A bom-ref names one component of the document (CycloneDX: unique). */
	static const struct sbom_file f[] = {
		{"/usr/lib/a\nb", "[{\"soname\":[\"libx.so.1\"]}]"},
		{"/usr/lib/a\\nb", "[]"},
	};
	char *doc = sbom(f, 2);
	const char *r = refs(doc);
	const char *second = strchr(r, '|') + 1;

	cr_assert(strncmp(r, second, (size_t)(strchr(second, '|') - second)) != 0,
		  "the two files have one ref: %s\n%s", r, doc);
	free(doc);
}
