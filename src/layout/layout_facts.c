/* SPDX-License-Identifier: MIT */
/* layout_facts.c - what every planner of a linked file asks: its patches through the context
 * (lay_patch, lay_zero) and the facts about the input (overlaps, our own segments, the first
 * PT_LOAD). */
#include <stdlib.h>

#include "layout_int.h"

/* ---- patches through the context ---- */

int lay_patch(struct lay *lay, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	return plan_patch(lay->pl, off, len, data, src, lay->e);
}

/* Zero input bytes that stay in the output (those past `keep` are dropped anyway). */
int lay_zero(struct lay *lay, uint64_t off, uint64_t len)
{
	if (off >= lay->keep)
		return 0;
	if (off + len > lay->keep)
		len = lay->keep - off;
	return lay_patch(lay, off, len, NULL, PATCH_ZERO);
}

/* ---- facts about the input ---- */

int lay_overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

int lay_in_own(const struct lay *lay, uint64_t off)
{
	size_t i;

	for (i = 0; lay->nown && i < lay->ef->phnum; i++)
		if (lay->isown[i] && off >= lay->ef->ph[i].offset &&
		    off < lay->ef->ph[i].offset + lay->ef->ph[i].filesz)
			return 1;
	return 0;
}

const struct elf_phdr *lay_first_load(const struct lay *lay)
{
	size_t i;

	for (i = 0; i < lay->ef->phnum; i++)
		if (lay->ef->ph[i].type == PT_LOAD_ && !(lay->isown && lay->isown[i]))
			return &lay->ef->ph[i];
	return NULL;
}

int lay_pair_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}
