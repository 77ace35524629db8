/* SPDX-License-Identifier: MIT */
/* test_layout_remove.c - the section-index renumbering that --remove streams symbol tables
 * through (src/edit/layout_remove.c): st_shndx is rewritten in place, in both byte orders and
 * both classes, whatever the chunking; special indexes stay. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "layout/layout_int.h"

/* Sections 0..5: section 2 is removed, 3..5 move down by one. */
static struct lay_symmap *map_without_2(uint32_t es, uint32_t at, uint32_t big)
{
	struct lay_symmap *m = malloc(sizeof *m + 6 * sizeof m->map[0]);
	static const uint32_t to[6] = { 0, 1, SHN_ABS_, 2, 3, 4 };

	m->es = es, m->at = at, m->big = big, m->n = 6;
	memcpy(m->map, to, sizeof to);
	return m;
}

static void put16(unsigned char *p, uint32_t v, int big)
{
	p[big ? 0 : 1] = (unsigned char)(v >> 8);
	p[big ? 1 : 0] = (unsigned char)v;
}

static uint32_t get16(const unsigned char *p, int big)
{
	return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

static void check_class(uint32_t es, uint32_t at, int big)
{
	static const uint32_t in[] = { 0, 1, 2, 3, 5, 0xfff1, 0xfff2, 0xffff, 6, 4 };
	static const uint32_t want[] = { 0, 1, 0xfff1, 2, 4, 0xfff1, 0xfff2, 0xffff, 6, 3 };
	size_t n = sizeof in / sizeof in[0], i, k;
	unsigned char *buf = calloc(n, es), *orig = calloc(n, es);
	struct lay_symmap *m = map_without_2(es, at, (uint32_t)big);

	for (i = 0; i < n; i++) {
		memset(buf + i * es, 0xa0 + (int)i, es);     /* every other byte must stay */
		put16(buf + i * es + at, in[i], big);
	}
	memcpy(orig, buf, n * es);
	/* Two calls, split on an entry boundary, as the writer's chunks are. */
	lay_symbols_renumbered(m, buf, 3 * es);
	lay_symbols_renumbered(m, buf + 3 * es, (n - 3) * es);
	for (i = 0; i < n; i++) {
		cr_expect_eq(get16(buf + i * es + at, big), want[i], "entry %zu (shndx %u): %u, want %u", i, in[i],
			     get16(buf + i * es + at, big), want[i]);
		for (k = 0; k < es; k++)
			if (k != at && k != at + 1)
				cr_expect_eq(buf[i * es + k], orig[i * es + k], "entry %zu byte %zu changed", i, k);
	}
	free(buf);
	free(orig);
	free(m);
}

Test(layout_remove, renumbers_st_shndx_elf64_little_endian)
{
	check_class(24, 6, 0);
}

Test(layout_remove, renumbers_st_shndx_elf32_big_endian)
{
	check_class(16, 14, 1);
}
