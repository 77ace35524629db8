/* SPDX-License-Identifier: MIT */
/* test_manifest_merge.c - entries compared and merged (src/note/manifest.c): equality by members and
 * values whatever their order, --merge adding only the entries not already present, merging
 * everything, and copies independent of their source. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/base.h"
#include "note/note.h"
#include "manifest_fixtures.h"

/* ---------------------------------------------------------------- equality and merging */

Test(manifest, entries_are_equal_only_with_the_same_members_and_values)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"a\"]},{\"soname\":[\"a\"],\"feature\":\"f\"},"
				      "{\"soname\":[\"b\"]},{\"soname\":[\"a\",\"b\"]}]");

	cr_assert(manifest_entry_equal(&es.v[0], &es.v[1]));
	cr_assert_not(manifest_entry_equal(&es.v[0], &es.v[2]));
	cr_assert_not(manifest_entry_equal(&es.v[0], &es.v[3]));
	cr_assert_not(manifest_entry_equal(&es.v[0], &es.v[4]));
	manifest_free(&es);
}

Test(manifest, merge_appends_only_entries_not_already_present)
{
	struct entries dst = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"],\"feature\":\"fb\"}]");
	struct entries src = parse_lit("[{\"soname\":[\"b\"],\"feature\":\"fb\"},{\"soname\":[\"c\"]},{\"soname\":[\"a\"]},"
				       "{\"soname\":[\"b\"],\"feature\":\"other\"}]");
	char *s;

	cr_assert_eq(manifest_merge(&dst, &src), 0);
	s = serialize(&dst);
	cr_assert_str_eq(s, "[{\"soname\":[\"a\"]},{\"soname\":[\"b\"],\"feature\":\"fb\"},{\"soname\":[\"c\"]},"
			    "{\"soname\":[\"b\"],\"feature\":\"other\"}]");
	cr_assert_eq(src.n, 4, "the source is left alone");
	free(s);
	manifest_free(&dst);
	manifest_free(&src);
}

Test(manifest, merge_collapses_an_entry_repeated_in_the_added_entries)
{
	struct entries dst = { 0 };
	struct entries src = parse_lit("[{\"soname\":[\"c\"]},{\"soname\":[\"c\"]}]");

	cr_assert_eq(manifest_merge(&dst, &src), 0);
	cr_assert_eq(dst.n, 1);
	manifest_free(&dst);
	manifest_free(&src);
}

/* JSON objects are unordered (RFC 8259 §4), and producers differ in key order: systemd's
 * ELF_NOTE_DLOPEN macro writes feature, description, priority, soname (seeds/002) while
 * manifest_entry_from_spec writes soname first.  --merge of the same entry must not add it twice. */
Test(manifest, merge_treats_entries_differing_only_in_key_order_as_the_same)
{
	struct entry_spec s = { .feature = "foo", .description = "Enables foo", .priority = "recommended",
				.sonames = (const char **)FOO_SONAMES, .nsonames = 2 };
	struct entries dst = parse_lit("[{\"feature\":\"foo\",\"description\":\"Enables foo\",\"priority\":\"recommended\","
				       "\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"]}]");
	struct entries src = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_entry_from_spec(&s, &src, &e), 0, "%s", e.msg);
	cr_assert_eq(manifest_merge(&dst, &src), 0);
	cr_assert_eq(dst.n, 1, "the entry already in the file was added a second time (keys in another order)");
	manifest_free(&dst);
	manifest_free(&src);
}

Test(manifest, merge_all_keeps_every_entry_including_repeats)
{
	struct entries dst = parse_lit("[{\"soname\":[\"a\"]}]");
	struct entries src = parse_lit("[{\"soname\":[\"a\"]},{\"soname\":[\"b\"]},{\"soname\":[\"b\"]}]");
	char *s;

	cr_assert_eq(manifest_merge_all(&dst, &src), 0);
	s = serialize(&dst);
	cr_assert_str_eq(s, "[{\"soname\":[\"a\"]},{\"soname\":[\"a\"]},{\"soname\":[\"b\"]},{\"soname\":[\"b\"]}]");
	free(s);
	manifest_free(&dst);
	manifest_free(&src);
}

Test(manifest, append_copy_is_independent_of_its_source)
{
	struct entries src = parse_lit("[{\"soname\":[\"a\"],\"feature\":\"f\"}]");
	struct entries dst = { 0 };

	cr_assert_eq(manifest_append_copy(&dst, &src.v[0]), 0);
	manifest_free(&src);
	cr_assert_eq(dst.n, 1);
	assert_member(&dst.v[0], 0, "soname", "[\"a\"]");
	assert_member(&dst.v[0], 1, "feature", "\"f\"");
	manifest_free(&dst);
}
