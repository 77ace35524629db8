/* SPDX-License-Identifier: MIT */
/* test_identity.c - entries of the same dependency (src/note/identity.c): the same feature and
 * sonames, whatever else differs; a merge that folds equal entries, replaces or refuses the
 * others in place; one entry at several priorities kept by a merge, folded to the strongest
 * for consumers, counted for --check; which entries a list does not name. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "base/base.h"
#include "note/note.h"
#include "manifest_fixtures.h"

#define A_REC "{\"soname\":[\"a.so.1\"],\"feature\":\"a\",\"priority\":\"recommended\"}"
#define A_SUG "{\"soname\":[\"a.so.1\"],\"feature\":\"a\",\"priority\":\"suggested\"}"
#define A_OTHER "{\"soname\":[\"a.so.1\"],\"feature\":\"other\"}"
#define A_TWO "{\"soname\":[\"a.so.1\",\"a.so.0\"],\"feature\":\"a\"}"
#define B "{\"soname\":[\"b.so.2\"],\"feature\":\"b\"}"

Test(identity, merge_replaces_in_place_and_hands_back_the_old_entry)
{
	struct entries dst = parse_lit("[" A_REC "," B "]"), src = parse_lit("[" B "," A_SUG "," A_OTHER "," A_TWO "]");
	struct entries old = { 0 };
	size_t x = 99, y = 99;
	char *s;

	cr_assert_eq(manifest_merge_identity(&dst, &src, 1, &old, &x, &y), 0);
	s = serialize(&dst);
	/* a: same feature and sonames, replaced where it was; another feature or other sonames: a
	 * dependency of its own, appended */
	cr_expect_str_eq(s, "[" A_SUG "," B "," A_OTHER "," A_TWO "]");
	free(s);
	s = serialize(&old);
	cr_expect_str_eq(s, "[" A_REC "]");
	free(s);
	cr_expect_eq(x, 99, "no clash reported when replacing");
	manifest_free(&dst);
	manifest_free(&old);
	manifest_free(&src);
}

Test(identity, merge_without_replace_stops_at_the_first_contradiction)
{
	struct entries dst = parse_lit("[" B "]"), src = parse_lit("[" A_REC "," B "," A_SUG "]");
	size_t x = 99, y = 99;
	char *s;

	/* the contradiction is inside src: its first entry was appended, its third contradicts it */
	cr_assert_eq(manifest_merge_identity(&dst, &src, 0, NULL, &x, &y), 1);
	cr_expect_eq(x, 1, "the dst entry it contradicts: %zu", x);
	cr_expect_eq(y, 2, "the src entry: %zu", y);
	s = serialize(&dst);
	cr_expect_str_eq(s, "[" B "," A_REC "]", "equal entries fold: %s", s);
	free(s);
	manifest_free(&dst);
	manifest_free(&src);
}

#define A_REQ "{\"soname\":[\"a.so.1\"],\"feature\":\"a\",\"priority\":\"required\"}"
#define A_NONE "{\"soname\":[\"a.so.1\"],\"feature\":\"a\"}"

/* systemd 262: a program declares a feature at its own priority, its shared code at a lower
 * one.  A merge keeps them as they are when the new entry is one of them. */
Test(identity, merge_keeps_one_entry_at_several_priorities)
{
	struct entries dst = parse_lit("[" A_REQ "," B "," A_SUG "]"), src = parse_lit("[" A_SUG "," B "]");
	struct entries old = { 0 };
	size_t x = 99, y = 99;
	char *s;

	cr_assert_eq(manifest_merge_identity(&dst, &src, 1, &old, &x, &y), 0);
	s = serialize(&dst);
	cr_expect_str_eq(s, "[" A_REQ "," B "," A_SUG "]");
	free(s);
	cr_expect_eq(old.n, 0);
	cr_expect_eq(manifest_merge_identity(&dst, &src, 0, NULL, &x, &y), 0, "no clash either");
	manifest_free(&dst);
	manifest_free(&old);
	manifest_free(&src);
}

/* A new entry of that identity that is none of them takes the first one's place; every old one
 * is handed back, so the result declares it once, as the manifest says. */
Test(identity, merge_replaces_every_priority_of_an_entry_the_manifest_changes)
{
	struct entries dst = parse_lit("[" A_REQ "," B "," A_SUG "]"), src = parse_lit("[" A_REC "]");
	struct entries old = { 0 };
	size_t x = 99, y = 99;
	char *s;

	cr_assert_eq(manifest_merge_identity(&dst, &src, 1, &old, &x, &y), 0);
	s = serialize(&dst);
	cr_expect_str_eq(s, "[" A_REC "," B "]");
	free(s);
	s = serialize(&old);
	cr_expect_str_eq(s, "[" A_REQ "," A_SUG "]");
	free(s);
	manifest_free(&dst);
	manifest_free(&old);
	manifest_free(&src);
}

Test(identity, fold_keeps_each_entry_once_at_its_strongest_priority)
{
	struct entries es = parse_lit("[" A_SUG "," B "," A_REQ "," A_REC "," A_OTHER "," B "]");
	struct entries rec = parse_lit("[" A_SUG "," A_NONE "]");
	char *s;

	cr_assert_eq(manifest_fold_strongest(&es), 0);
	s = serialize(&es);
	/* in the first one's place; the strongest's keys */
	cr_expect_str_eq(s, "[" A_REQ "," B "," A_OTHER "]");
	free(s);
	cr_assert_eq(manifest_fold_strongest(&rec), 0);
	s = serialize(&rec);
	cr_expect_str_eq(s, "[" A_NONE "]", "no priority is recommended, above suggested");
	free(s);
	manifest_free(&es);
	manifest_free(&rec);
}

Test(identity, repeats_are_counted_and_told_from_a_manifest_s)
{
	struct entries es = parse_lit("[" B "," A_REQ "," A_OTHER "," A_SUG "," B "]"), added = parse_lit("[" B "]");
	size_t count[5], first[5];
	unsigned char in[5];

	cr_assert_eq(manifest_repeats(&es, &added, count, in, first), 0);
	cr_expect(count[0] == 2 && count[1] == 2 && count[2] == 1 && count[3] == 0 && count[4] == 0,
		  "counts %zu %zu %zu %zu %zu", count[0], count[1], count[2], count[3], count[4]);
	cr_expect(in[0] == 1 && in[1] == 0 && in[2] == 0, "in the manifest %d %d %d", in[0], in[1], in[2]);
	cr_expect(first[3] == 1 && first[4] == 0 && first[2] == 2, "first %zu %zu %zu", first[3], first[4], first[2]);
	manifest_free(&es);
	manifest_free(&added);
}

Test(identity, unnamed)
{
	struct entries es = parse_lit("[" B "," A_REC "," A_OTHER "," A_SUG "]");
	struct entries names = parse_lit("[" A_SUG "]");
	unsigned char un[4] = { 9, 9, 9, 9 };

	cr_assert_eq(manifest_unnamed(&es, &names, un), 0);
	cr_expect(un[0] == 1 && un[1] == 0 && un[2] == 1 && un[3] == 0, "unnamed %d %d %d %d", un[0], un[1], un[2], un[3]);
	manifest_free(&es);
	manifest_free(&names);
}
