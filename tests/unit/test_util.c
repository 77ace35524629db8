/* SPDX-License-Identifier: MIT */
/* test_util.c - the helpers every stage shares (src/base/util.c): terminal-safe text, geometric
 * growth, grouping equal strings. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

static void shown(const char *in, size_t len, const char *want)
{
	struct buf b = { 0 };

	buf_put_text(&b, in, len);
	buf_put(&b, "", 0);
	cr_assert_str_eq(b.p, want, "%zu bytes shown as '%s', want '%s'", len, b.p, want);
	buf_free(&b);
}

/* C-style: \n \t \r; octal for the other C0 controls and DEL (ESC is \033); \xNN for each byte
 * of a C1 control (U+0080-U+009F: 8-bit CSI is U+009B) and of invalid UTF-8; valid printable
 * UTF-8 as it is. */
Test(util, text_escapes_what_a_terminal_would_act_on)
{
	shown("plain name.so.1", 15, "plain name.so.1");
	shown("a\nb\tc\rd", 7, "a\\nb\\tc\\rd");
	shown("\033[31mred", 8, "\\033[31mred");
	shown("x\177y", 3, "x\\177y");
	shown("\001\037", 2, "\\001\\037");
	shown("nul\0x", 5, "nul\\000x");
	shown("\xc2\x9b" "2J", 4, "\\xc2\\x9b2J");
	shown("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	shown("\xff\xfe", 2, "\\xff\\xfe");
	shown("\xc0\xaf", 2, "\\xc0\\xaf");                 /* overlong '/' */
	shown("\xed\xa0\x80", 3, "\\xed\\xa0\\x80");       /* a surrogate */
	shown("\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80"); /* above U+10FFFF */
	shown("\xe2\x82", 2, "\\xe2\\x82");                 /* truncated */
	shown("back\\slash", 10, "back\\slash");
}

Test(util, print_text_escapes_the_line_and_keeps_its_newline)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	print_text(f, "dlnote-inject: %s: %s\n", "a\nb\033c", "reason");
	print_text(f, "no newline %d", 7);
	fclose(f);
	cr_assert_str_eq(text, "dlnote-inject: a\\nb\\033c: reason\nno newline 7");
	free(text);
}

/* xcalloc is malloc and memset (calloc bypasses glibc's thread cache): it still zeroes what
 * a freed block of the same size left, and refuses a size whose product overflows. */
Test(util, xcalloc_zeroes_reused_memory_and_refuses_overflow)
{
	unsigned char *p = malloc(200), *q;
	size_t i;

	cr_assert(p);
	memset(p, 0xa5, 200);
	free(p);
	q = xcalloc(25, 8);                /* most likely the same block, from the thread cache */
	cr_assert(q);
	for (i = 0; i < 200; i++)
		cr_assert_eq(q[i], 0, "byte %zu is 0x%02x", i, q[i]);
	free(q);
	cr_assert_null(xcalloc(SIZE_MAX / 2 + 1, 2));
	cr_assert_null(xcalloc(2, SIZE_MAX / 2 + 1));
	q = xcalloc(0, 8);                 /* an empty array is a valid pointer */
	cr_assert(q);
	free(q);
}

/* alloc_present: every byte writable and readable back, an empty buffer valid; the read buffer
 * of archive writes. */
Test(util, alloc_present_gives_a_usable_buffer)
{
	size_t sizes[] = { 0, 1, 4095, 4096, 4097, 256u << 10 }, i, k;

	for (i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		unsigned char *p = alloc_present(sizes[i]);
		cr_assert(p, "%zu bytes", sizes[i]);
		for (k = 0; k < sizes[i]; k++)
			p[k] = (unsigned char)(k * 7);
		for (k = 0; k < sizes[i]; k++)
			cr_assert_eq(p[k], (unsigned char)(k * 7));
		free_present(p, sizes[i]);
	}
	free_present(NULL, 0);
}

Test(util, xgrow_doubles_and_keeps_the_contents)
{
	size_t cap = 0, reallocs = 0, n;
	int *v = NULL, *w;

	for (n = 0; n < 100000; n++) {
		size_t old = cap;
		w = xgrow(v, &cap, n, sizeof *v);
		cr_assert(w, "out of memory at %zu", n);
		reallocs += cap != old;
		v = w;
		v[n] = (int)n;
		cr_assert(cap > n);
	}
	for (n = 0; n < 100000; n++)
		cr_assert_eq(v[n], (int)n);
	cr_assert(reallocs <= 15, "%zu reallocations for 100,000 elements", reallocs);
	free(v);
}

Test(util, keys_group_equal_strings_earliest_first)
{
	struct key v[] = { { "b", 1, 0 }, { "a", 1, 1 }, { "b", 1, 2 }, { "ab", 2, 3 }, { "a", 1, 4 }, { "", 0, 5 } };
	const struct key *k;

	keys_sort(v, 6);
	cr_assert_eq(v[0].pos, 5);
	cr_assert(v[1].pos == 1 && v[2].pos == 4 && v[3].pos == 3 && v[4].pos == 0 && v[5].pos == 2);
	cr_assert(key_same(&v[1], &v[2]) && !key_same(&v[2], &v[3]));
	k = keys_find(v, 6, "b", 1);
	cr_assert(k && k->pos == 0, "the first 'b' is the earliest");
	k = keys_find(v, 6, "a", 1);
	cr_assert(k && k->pos == 1);
	cr_assert_null(keys_find(v, 6, "c", 1));
	cr_assert_null(keys_find(v, 6, "abc", 3));
	cr_assert_null(keys_find(NULL, 0, "a", 1));
}

/* keyed_sort: by key, then by value, whether the array takes the insertion path (a few dozen,
 * mostly in order, as a file's sections) or qsort (more); checked against a plain sort. */
static int keyed_ref(const void *a, const void *b)
{
	const struct keyed *x = a, *y = b;

	return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->val < y->val ? -1 : x->val > y->val);
}

Test(util, keyed_sort_orders_by_key_then_value)
{
	for (size_t n = 0; n <= 200; n += (n < 70 ? 1 : 43)) {
		struct keyed v[200], w[200];
		unsigned seed = (unsigned)n * 2654435761u;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			/* mostly ascending, some far out of place, many ties */
			v[i] = (struct keyed){ i % 7 == 3 ? UINT64_MAX - (seed >> 28) : (uint64_t)(i / 3), n - i };
			w[i] = v[i];
		}
		keyed_sort(v, n);
		qsort(w, n, sizeof *w, keyed_ref);
		for (size_t i = 0; i < n; i++)
			cr_assert(v[i].key == w[i].key && v[i].val == w[i].val, "n=%zu, at %zu: %llu/%zu, want %llu/%zu", n, i,
				  (unsigned long long)v[i].key, v[i].val, (unsigned long long)w[i].key, w[i].val);
	}
}
