/* SPDX-License-Identifier: MIT */
/* test_manifest_build.c - entries built and written (src/note/manifest.c): entries from
 * command-line values (--soname, --feature, --description, --priority), validated like manifest
 * strings and equal to the same entry read from a manifest; serialization as compact canonical
 * JSON, which parses back to the same entries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/base.h"
#include "note/note.h"
#include "manifest_fixtures.h"

/* ---------------------------------------------------------------- entries from command-line values */

Test(manifest, entry_from_spec_orders_keys_soname_feature_description_priority)
{
	struct entry_spec s = { .feature = "foo", .description = "Enables foo", .priority = "suggested",
				.sonames = (const char **)FOO_SONAMES, .nsonames = 2 };
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 1);
	cr_assert_eq(es.v[0].n, 4);
	assert_member(&es.v[0], 0, "soname", "[\"libfoo.so.1\",\"libfoo.so.0\"]");
	assert_member(&es.v[0], 1, "feature", "\"foo\"");
	assert_member(&es.v[0], 2, "description", "\"Enables foo\"");
	assert_member(&es.v[0], 3, "priority", "\"suggested\"");
	manifest_free(&es);
}

Test(manifest, entry_from_spec_omits_what_was_not_given)
{
	const char *so[] = { "liba.so.1" };
	struct entry_spec s = { .sonames = so, .nsonames = 1 };
	struct entries es = { 0 };
	struct err e = { 0 };
	struct buf tmp = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.v[0].n, 1);
	assert_member(&es.v[0], 0, "soname", "[\"liba.so.1\"]");
	cr_assert_str_eq(entry_priority(&es.v[0], &tmp), "recommended");
	buf_free(&tmp);
	manifest_free(&es);
}

Test(manifest, entry_from_spec_escapes_values_canonically)
{
	const char *so[] = { "lib\"q\".so" };
	struct entry_spec s = { .feature = "a\"b\\c/d", .description = "caf\xc3\xa9", .sonames = so, .nsonames = 1 };
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
	assert_member(&es.v[0], 0, "soname", "[\"lib\\\"q\\\".so\"]");
	assert_member(&es.v[0], 1, "feature", "\"a\\\"b\\\\c/d\"");
	assert_member(&es.v[0], 2, "description", "\"caf\xc3\xa9\"");
	manifest_free(&es);
}

static void spec_err(const struct entry_spec *s, const char *msg)
{
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(s, &es, &e), -1, "accepted; expected: %s", msg);
	cr_assert_str_eq(e.msg, msg);
	cr_assert_eq(e.usage, 1);
	cr_assert_eq(es.n, 0, "no partial entry is left behind");
	manifest_free(&es);
}

Test(manifest, entry_from_spec_requires_a_soname)
{
	struct entry_spec s = { 0 };

	spec_err(&s, "entry has no soname (it is mandatory)");
	s.feature = "foo";
	spec_err(&s, "entry for feature foo has no soname (it is mandatory)");
}

Test(manifest, entry_from_spec_validates_sonames_like_manifest_strings)
{
	const char *empty[] = { "liba.so.1", "" };
	const char *tab[] = { "lib\ta.so" };
	const char *bad[] = { "lib\xc0\x80.so" };
	const char *c1[] = { "lib\xc2\x9f" };
	struct entry_spec s = { .sonames = empty, .nsonames = 2 };

	spec_err(&s, "soname: empty soname");
	s.sonames = tab, s.nsonames = 1;
	spec_err(&s, "soname: control character");
	s.sonames = bad;
	spec_err(&s, "soname: invalid UTF-8");
	s.sonames = c1;
	spec_err(&s, "soname: control character");
}

Test(manifest, entry_from_spec_validates_feature_and_description)
{
	const char *so[] = { "liba.so.1" };
	struct entry_spec s = { .sonames = so, .nsonames = 1 };

	s.feature = "a\nb";
	spec_err(&s, "feature: control character");
	s.feature = "\xed\xa0\x80";
	spec_err(&s, "feature: invalid UTF-8");
	s.feature = "ok";
	s.description = "del\x7f";
	spec_err(&s, "description: control character");
	s.description = "trunc\xe2\x82";
	spec_err(&s, "description: invalid UTF-8");
}

Test(manifest, entry_from_spec_accepts_only_the_three_priorities)
{
	const char *so[] = { "liba.so.1" };
	struct entry_spec s = { .sonames = so, .nsonames = 1 };
	static const char *const good[] = { "required", "recommended", "suggested" };
	struct entries es = { 0 };
	struct err e = { 0 };
	char want[32];
	size_t i;

	s.priority = "urgent";
	spec_err(&s, "priority: must be required, recommended or suggested, not 'urgent'");
	s.priority = "Required";
	spec_err(&s, "priority: must be required, recommended or suggested, not 'Required'");
	s.priority = "";
	spec_err(&s, "priority: must be required, recommended or suggested, not ''");
	for (i = 0; i < 3; i++) {
		s.priority = good[i];
		cr_assert_eq(manifest_entry_from_spec(&s, &es, &e), 0, "%s", e.msg);
		snprintf(want, sizeof want, "\"%s\"", good[i]);
		assert_member(&es.v[i], 1, "priority", want);
	}
	manifest_free(&es);
}

Test(manifest, entry_from_spec_equals_the_same_entry_read_from_a_manifest)
{
	struct entry_spec s = { .feature = "foo", .description = "Enables foo", .priority = "required",
				.sonames = (const char **)FOO_SONAMES, .nsonames = 2 };
	struct entries a = { 0 }, b;
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &a, &e), 0, "%s", e.msg);
	b = parse_lit("[{ \"soname\": [\"libfoo.so.1\", \"libfoo.so.0\"], \"feature\": \"foo\",\n"
		      "   \"description\": \"Enables foo\", \"priority\": \"required\" }]");
	cr_assert(manifest_entry_equal(&a.v[0], &b.v[0]));
	manifest_free(&a);
	manifest_free(&b);
}

/* ---------------------------------------------------------------- serialization */

Test(manifest, serialize_writes_compact_canonical_json_in_member_order)
{
	struct entries es = parse_lit("[ { \"x-first\" : { \"b\" : [ 1 , 2.50 , true ] , \"a\" : null } ,\n"
				      "    \"soname\" : [ \"liba.so.1\" , \"li\\/b\\\\\\\"a.so.0\" ] ,\n"
				      "    \"feature\" : \"caf\xc3\xa9\" } ,\n"
				      "  {\"soname\":[\"libb.so\"], \"priority\":\"suggested\"} ]");
	char *s = serialize(&es);

	cr_assert_str_eq(s, "[{\"x-first\":{\"b\":[1,2.50,true],\"a\":null},\"soname\":[\"liba.so.1\",\"li/b\\\\\\\"a.so.0\"],"
			    "\"feature\":\"caf\xc3\xa9\"},{\"soname\":[\"libb.so\"],\"priority\":\"suggested\"}]");
	free(s);
	manifest_free(&es);
}

Test(manifest, serialize_of_no_entries_is_an_empty_array)
{
	struct entries es = { 0 };
	char *s = serialize(&es);

	cr_assert_str_eq(s, "[]");
	free(s);
}

Test(manifest, serialize_entry_writes_one_object)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"],\"x\":{}}]");
	struct buf b = { 0 };

	manifest_serialize_entry(&es.v[1], &b);
	cr_assert_str_eq(b.p, "{\"soname\":[\"b\"],\"x\":{}}");
	buf_free(&b);
	manifest_free(&es);
}

Test(manifest, parse_of_serialize_gives_back_the_same_entries)
{
	const char *so[] = { "lib\"x\\y.so.1", "libx.so.0" };
	struct entry_spec s = { .feature = "f/\"g\"", .description = "d \xe2\x82\xac", .priority = "recommended",
				.sonames = so, .nsonames = 2 };
	struct entries x = parse_lit("[{\"x\":{\"k\":[[],{},\"\\/\",-0.5e-7]},\"soname\":[\"a\"]},{\"soname\":[\"b\",\"c\"],\"feature\":\"\"}]");
	struct entries y = { 0 };
	struct err e = { 0 };
	char *s1, *s2;
	size_t i;

	cr_assert_eq(manifest_entry_from_spec(&s, &x, &e), 0, "%s", e.msg);
	s1 = serialize(&x);
	cr_assert_eq(manifest_parse(s1, strlen(s1), &y, &e), 0, "serialized form [%s] refused: %s", s1, e.msg);
	cr_assert_eq(y.n, x.n);
	for (i = 0; i < x.n; i++)
		cr_assert(manifest_entry_equal(&x.v[i], &y.v[i]), "entry %zu differs after the round trip", i);
	s2 = serialize(&y);
	T_STR_EQ(s2, s1, "serialization is a fixed point");
	free(s1);
	free(s2);
	manifest_free(&x);
	manifest_free(&y);
}
