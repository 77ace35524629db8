/* SPDX-License-Identifier: MIT */
/* test_strmap.c - the walk's string map (src/closure/strmap.c): keys are byte strings of a
 * given length (a copy is kept), values are replaced by a second put, the table grows to stay
 * at most half full, and every key of a large map is found with its own value. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure/closure_int.h"

#include "helpers.h"

/* The value of key, asserting that it is there. */
static size_t get_ok(const struct strmap *m, const char *key, size_t len)
{
	int found = -1;
	size_t v = strmap_get(m, key, len, &found);

	cr_assert_eq(found, 1, "key [%.*s] (%zu bytes) not found", (int)len, key, len);
	return v;
}

static void get_missing(const struct strmap *m, const char *key, size_t len)
{
	int found = -1;
	size_t v = strmap_get(m, key, len, &found);

	cr_assert_eq(found, 0, "key [%.*s] (%zu bytes) found", (int)len, key, len);
	cr_assert_eq(v, 0, "a missing key's value is 0");
}

Test(strmap, an_empty_map_finds_nothing)
{
	struct strmap m = {0};

	get_missing(&m, "a", 1);
	get_missing(&m, "", 0);
	cr_assert_eq(m.n, 0);
	strmap_free(&m);
}

Test(strmap, put_then_get_and_a_second_put_replaces_the_value)
{
	struct strmap m = {0};

	cr_assert_eq(strmap_put(&m, "/usr/lib/libz.so.1", 18, 7), 0);
	cr_assert_eq(strmap_put(&m, "/usr/lib/libc.so.6", 18, 0), 0);
	cr_assert_eq(get_ok(&m, "/usr/lib/libz.so.1", 18), 7);
	cr_assert_eq(get_ok(&m, "/usr/lib/libc.so.6", 18), 0, "0 is a value like another");
	cr_assert_eq(m.n, 2);
	cr_assert_eq(strmap_put(&m, "/usr/lib/libz.so.1", 18, 42), 0);
	cr_assert_eq(get_ok(&m, "/usr/lib/libz.so.1", 18), 42);
	cr_assert_eq(m.n, 2, "a key put again is not a new key");
	strmap_free(&m);
}

Test(strmap, a_key_is_its_length_of_bytes_not_a_c_string)
{
	struct strmap m = {0};
	const char both[] = "ab\0cd";

	cr_assert_eq(strmap_put(&m, "abcdef", 3, 1), 0); /* "abc" */
	cr_assert_eq(strmap_put(&m, "ab", 2, 2), 0);
	cr_assert_eq(strmap_put(&m, "", 0, 3), 0);
	cr_assert_eq(strmap_put(&m, both, 5, 4), 0);
	cr_assert_eq(get_ok(&m, "abc", 3), 1);
	cr_assert_eq(get_ok(&m, "abcxyz", 3), 1, "only the first len bytes count");
	cr_assert_eq(get_ok(&m, "ab", 2), 2);
	cr_assert_eq(get_ok(&m, "", 0), 3, "the empty key");
	cr_assert_eq(get_ok(&m, "ab\0cd", 5), 4, "a NUL byte inside a key");
	get_missing(&m, "abcd", 4);
	get_missing(&m, "a", 1);
	get_missing(&m, "ab\0ce", 5);
	cr_assert_eq(m.n, 4);
	strmap_free(&m);
}

Test(strmap, keys_that_are_prefixes_of_each_other_are_distinct)
{
	enum { N = 2000 };
	struct strmap m = {0};
	char *text = malloc(N);

	/* Every prefix of one text: a probe that compared bytes without lengths would take one for
	 * another wherever they meet in the table. */
	cr_assert(text);
	for (size_t i = 0; i < N; i++)
		text[i] = (char)('a' + i % 26);
	for (size_t len = N; len > 0; len--) /* the longer ones first */
		cr_assert_eq(strmap_put(&m, text, len, len), 0);
	cr_assert_eq(m.n, N);
	for (size_t len = 1; len <= N; len++)
		cr_assert_eq(get_ok(&m, text, len), len, "the prefix of %zu bytes", len);
	free(text);
	strmap_free(&m);
}

Test(strmap, keys_with_any_byte_but_nul_are_distinct)
{
	struct strmap m = {0};
	char key[4] = {'k', 0, 'k', 0};

	/* "k?k" for every byte ? from 1 to 255: control characters, '|', '\n', bytes >= 0x80 */
	for (int c = 1; c < 256; c++) {
		key[1] = (char)c;
		cr_assert_eq(strmap_put(&m, key, 3, (size_t)c), 0);
	}
	cr_assert_eq(m.n, 255);
	for (int c = 1; c < 256; c++) {
		key[1] = (char)c;
		cr_assert_eq(get_ok(&m, key, 3), (size_t)c, "byte 0x%02x", c);
	}
	get_missing(&m, "kk", 2);
	strmap_free(&m);
}

Test(strmap, the_map_keeps_its_own_copy_of_each_key)
{
	struct strmap m = {0};
	char key[] = "FLAVOUR|/usr/lib|libz.so.1";

	cr_assert_eq(strmap_put(&m, key, strlen(key), 5), 0);
	memset(key, 'x', strlen(key));
	get_missing(&m, key, strlen(key));
	cr_assert_eq(get_ok(&m, "FLAVOUR|/usr/lib|libz.so.1", 26), 5);
	strmap_free(&m);
}

Test(strmap, the_table_grows_before_it_is_more_than_half_full)
{
	struct strmap m = {0};
	char key[16];

	cr_assert_eq(strmap_put(&m, "k0", 2, 0), 0);
	cr_assert_eq(m.cap, 64, "the first table");
	for (size_t i = 1; i < 32; i++) {
		int n = snprintf(key, sizeof key, "k%zu", i);
		cr_assert_eq(strmap_put(&m, key, (size_t)n, i), 0);
	}
	cr_assert_eq(m.n, 32);
	cr_assert_eq(m.cap, 64, "32 keys in 64 slots: half full");
	cr_assert_eq(strmap_put(&m, "k32", 3, 32), 0);
	cr_assert_eq(m.cap, 128, "the 33rd key doubles the table");
	cr_assert_eq(strmap_put(&m, "k0", 2, 100), 0);
	cr_assert_eq(m.cap, 128);
	for (size_t i = 0; i <= 32; i++) {
		int n = snprintf(key, sizeof key, "k%zu", i);
		cr_assert_eq(get_ok(&m, key, (size_t)n), i ? i : 100, "%s after the growth", key);
	}
	strmap_free(&m);
}

Test(strmap, a_hundred_thousand_keys_each_keep_their_value)
{
	enum { N = 100000 };
	struct strmap m = {0};
	char key[64];
	size_t used = 0;

	for (size_t i = 0; i < N; i++) {
		int n = snprintf(key, sizeof key, "x86_64|/usr/lib/x86_64-linux-gnu|lib%zu.so.1",
				 i);
		cr_assert_eq(strmap_put(&m, key, (size_t)n, i * 3 + 1), 0);
	}
	cr_assert_eq(m.n, N);
	cr_assert_eq(m.cap, 262144, "the smallest power of two at least twice the keys");
	for (size_t i = 0; i < N; i++) {
		int n = snprintf(key, sizeof key, "x86_64|/usr/lib/x86_64-linux-gnu|lib%zu.so.1",
				 i);
		cr_assert_eq(get_ok(&m, key, (size_t)n), i * 3 + 1, "%s", key);
		n = snprintf(key, sizeof key, "x86_64|/usr/lib/x86_64-linux-gnu|lib%zu.so.2", i);
		get_missing(&m, key, (size_t)n);
	}
	for (size_t i = 0; i < m.cap; i++)
		used += m.v[i].key != NULL;
	cr_assert_eq(used, N, "one slot per key");
	strmap_free(&m);
}

Test(strmap, free_empties_the_map_and_it_can_be_used_again)
{
	struct strmap m = {0};

	cr_assert_eq(strmap_put(&m, "a", 1, 1), 0);
	strmap_free(&m);
	cr_assert_eq(m.n, 0);
	cr_assert_eq(m.cap, 0);
	cr_assert_null(m.v);
	get_missing(&m, "a", 1);
	cr_assert_eq(strmap_put(&m, "a", 1, 2), 0);
	cr_assert_eq(get_ok(&m, "a", 1), 2);
	strmap_free(&m);
	strmap_free(&m);
}
