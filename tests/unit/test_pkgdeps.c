/* SPDX-License-Identifier: MIT */
/* test_pkgdeps.c - the packaging outputs against exact expected text: the rpm generator in
 * both of rpm's protocols and the %dlopen_notes_features overrides.
 *
 * The multifile text is written here from rpm's documentation (rpm-dependency-generators(7),
 * "Protocols"): "dependency strings, one per line, with the original filename, prepended with
 * ; (semicolon), printed on its own line before the dependencies for that file". */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "deps/deps.h"
#include "report/report.h"

#include "helpers.h"

static void entries(const char *json, struct entries *es)
{
	struct err e = { 0 };

	memset(es, 0, sizeof *es);
	cr_assert_eq(manifest_parse(json, strlen(json), es, &e), 0, "manifest: %s", e.msg);
}

static void overrides(const char *text, struct rpm_overrides *o)
{
	struct err e = { 0 };

	cr_assert_eq(pkgdeps_overrides_parse(text, o, &e), 0, "overrides: %s", e.msg);
}

/* Run the generator on each (path, suffix, manifest) in turn into one stream, as rpm reads it;
 * `versions` are the symbol versions the file looks up: "SONAME VERSION" lines. */
struct gen_file { const char *path, *suffix, *json, *versions; };

static char *generate(const struct gen_file *files, size_t n, const struct rpm_generator *g)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	for (size_t i = 0; i < n; i++) {
		struct listing one = { 0 };
		struct entries es;
		char soname[64], version[64];
		entries(files[i].json, &es);
		cr_assert_eq(report_listing_add(&one, &es, files[i].path, files[i].suffix, NULL), 0);
		for (const char *v = files[i].versions; v && sscanf(v, "%63s %63s", soname, version) == 2;
		     v = strchr(v, '\n') ? strchr(v, '\n') + 1 : NULL)
			cr_assert_eq(symbols_add(&one.syms, soname, "f", version, "/lib", 0, 0), 0);
		for (size_t k = 0; k < one.es.n; k++)
			one.from[k].sym_n = one.syms.n;
		cr_assert_eq(pkgdeps_rpm_generate(&one, g, out), 0);
		report_listing_free(&one);
		manifest_free(&es);
	}
	fclose(out);
	return text;
}

static const struct gen_file three[] = {
	{ "/b/usr/bin/tool", "()(64bit)",
	  "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"},"
	  "{\"soname\":[\"liblz4.so.1\",\"liblz4.so.0\"],\"feature\":\"lz4\"},"
	  "{\"soname\":[\"libbz2.so.1\"],\"feature\":\"bzip2\",\"priority\":\"suggested\"}]", NULL },
	{ "/b/usr/lib/libquiet.so.1", "()(64bit)", "[]", NULL },
	{ "/b/usr/lib/i386/libx.so.1", "",
	  "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"},"
	  "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd2\",\"priority\":\"required\"},"
	  "{\"soname\":[\"libnofeature.so.3\"],\"priority\":\"required\"}]", NULL },
};

Test(pkgdeps, multifile_names_each_file_with_a_semicolon_line_before_its_dependencies)
{
	struct rpm_generator g = { .kind = RANK_REQUIRED, .package = "tool", .multifile = 1 };
	char *got = generate(three, 3, &g);

	T_STR_EQ(got,
		 ";/b/usr/bin/tool\n"
		 "libzstd.so.1()(64bit)\n"
		 ";/b/usr/lib/i386/libx.so.1\n"
		 "libzstd.so.1\n"
		 "libnofeature.so.3\n",
		 "requires, multifile");
	free(got);
	g.kind = RANK_RECOMMENDED;
	got = generate(three, 3, &g);
	T_STR_EQ(got, ";/b/usr/bin/tool\n(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))\n", "recommends, multifile");
	free(got);
}

Test(pkgdeps, singlefile_prints_only_dependencies)
{
	struct rpm_generator g = { .kind = RANK_SUGGESTED, .package = "tool" };
	char *got = generate(three, 3, &g);

	T_STR_EQ(got, "libbz2.so.1()(64bit)\n", "suggests, singlefile");
	free(got);
	g.kind = RANK_REQUIRED;
	got = generate(three, 1, &g);
	T_STR_EQ(got, "libzstd.so.1()(64bit)\n", "requires, singlefile, one file as rpm 4.18 passes it");
	free(got);
}

Test(pkgdeps, overrides_first_match_wins_with_globs_for_subpackage_and_feature)
{
	struct rpm_generator g = { .kind = RANK_REQUIRED, .package = "tool-libs" };
	char *got;

	/* lz4 becomes required in tool-* ; bz* in every package too; the zstd line for "tool" only
	 * must not apply to tool-libs. */
	overrides("  # a comment line\n"
		  "tool:zstd:ignored\n"
		  "tool-*:lz4:required   *:bz*:required\n"
		  "*:lz4:suggested\n", &g.over);
	got = generate(three, 1, &g);
	T_STR_EQ(got, "libzstd.so.1()(64bit)\n(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))\nlibbz2.so.1()(64bit)\n",
		 "tool-libs requires");
	free(got);
	g.package = "tool";
	got = generate(three, 1, &g);
	T_STR_EQ(got, "libbz2.so.1()(64bit)\n", "tool requires: zstd ignored, lz4 suggested (first match for tool)");
	free(got);
	g.kind = RANK_SUGGESTED;
	got = generate(three, 1, &g);
	T_STR_EQ(got, "(liblz4.so.1()(64bit) or liblz4.so.0()(64bit))\n", "tool suggests");
	free(got);
	pkgdeps_overrides_free(&g.over);
}

Test(pkgdeps, an_entry_without_feature_is_matched_by_an_empty_feature_or_a_star)
{
	struct rpm_generator g = { .kind = RANK_REQUIRED, .package = "x" };
	char *got;

	overrides("x::ignored", &g.over);
	got = generate(three + 2, 1, &g);
	T_STR_EQ(got, "libzstd.so.1\n", "the feature-less entry is ignored, zstd stays");
	free(got);
	pkgdeps_overrides_free(&g.over);
	overrides("x:*:ignored", &g.over);
	got = generate(three + 2, 1, &g);
	T_STR_EQ(got, "", "'*' matches every entry, with or without a feature");
	free(got);
	pkgdeps_overrides_free(&g.over);
}

Test(pkgdeps, override_errors_name_the_declaration)
{
	static const char *const bad[][2] = {
		{ "a:b", "'a:b' is not SUBPACKAGE:FEATURE:LEVEL" },
		{ "ok:x:required a:b:c:required", "'a:b:c:required': the level is not required, recommended, suggested or ignored" },
		{ "a:b:Required", "'a:b:Required': the level is not required, recommended, suggested or ignored" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rpm_overrides o = { 0 };
		struct err e = { 0 };
		cr_assert_eq(pkgdeps_overrides_parse(bad[i][0], &o, &e), -1, "%s", bad[i][0]);
		T_STR_EQ(e.msg, bad[i][1], "%s", bad[i][0]);
		cr_assert_eq(e.usage, 1);
		pkgdeps_overrides_free(&o);
	}
}

/* elfdeps gives a file linked with versioned symbols SONAME(VERSION)(64bit), (64bit) left out for
 * 32-bit files; the generator gives each version node of the symbols looked up after the
 * soname, each once, sorted, and an alternative keeps its own in a rich dependency. */
Test(pkgdeps, version_nodes_follow_their_soname_as_elfdeps_writes_them)
{
	static const struct gen_file files[] = {
		{ "/b/tool", "()(64bit)",
		  "[{\"soname\":[\"liblzma.so.5\"],\"priority\":\"required\"},"
		  "{\"soname\":[\"liblz4.so.1\",\"liblzma.so.5\"],\"priority\":\"required\"},"
		  "{\"soname\":[\"libz.so.1\"],\"priority\":\"required\"}]",
		  "liblzma.so.5 XZ_5.4\nliblzma.so.5 XZ_5.0\nliblzma.so.5 XZ_5.4\nlibother.so.1 O_1\n" },
		{ "/b/tool32", "", "[{\"soname\":[\"libz.so.1\"],\"priority\":\"required\"}]", "libz.so.1 ZLIB_1.2.2\n" },
	};
	struct rpm_generator g = { .kind = RANK_REQUIRED, .package = "tool", .multifile = 1 };
	char *got = generate(files, 2, &g);

	T_STR_EQ(got,
		 ";/b/tool\n"
		 "liblzma.so.5()(64bit)\nliblzma.so.5(XZ_5.0)(64bit)\nliblzma.so.5(XZ_5.4)(64bit)\n"
		 "(liblz4.so.1()(64bit) or (liblzma.so.5()(64bit) and liblzma.so.5(XZ_5.0)(64bit) and "
		 "liblzma.so.5(XZ_5.4)(64bit)))\n"
		 "libz.so.1()(64bit)\n"
		 ";/b/tool32\n"
		 "libz.so.1\nlibz.so.1(ZLIB_1.2.2)\n",
		 "requires with version nodes");
	free(got);
}

Test(pkgdeps, kinds_are_rpms_lowercase_tag_names)
{
	cr_assert_eq(pkgdeps_kind_parse("requires"), RANK_REQUIRED);
	cr_assert_eq(pkgdeps_kind_parse("recommends"), RANK_RECOMMENDED);
	cr_assert_eq(pkgdeps_kind_parse("suggests"), RANK_SUGGESTED);
	cr_assert_eq(pkgdeps_kind_parse("Requires"), -1);
}
