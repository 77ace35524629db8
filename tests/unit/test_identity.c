/* SPDX-License-Identifier: MIT */
/* test_identity.c - entries of the same dependency (src/note/identity.c): the same feature and
 * sonames, whatever else differs; a merge that folds equal entries, replaces or refuses the
 * others in place; the first repeat of a list; which entries a list does not name. */
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

Test(identity, first_repeat_and_unnamed)
{
	struct entries es = parse_lit("[" B "," A_REC "," A_OTHER "," A_SUG "]"), none = parse_lit("[" A_TWO "]");
	struct entries names = parse_lit("[" A_SUG "]");
	unsigned char un[4] = { 9, 9, 9, 9 };
	size_t a = 99, b = 99;

	cr_assert_eq(manifest_first_repeat(&es, &a, &b), 1);
	cr_expect(a == 1 && b == 3, "first repeat %zu, %zu", a, b);
	cr_expect_eq(manifest_first_repeat(&none, &a, &b), 0);
	cr_assert_eq(manifest_unnamed(&es, &names, un), 0);
	cr_expect(un[0] == 1 && un[1] == 0 && un[2] == 1 && un[3] == 0, "unnamed %d %d %d %d", un[0], un[1], un[2], un[3]);
	manifest_free(&es);
	manifest_free(&none);
	manifest_free(&names);
}
