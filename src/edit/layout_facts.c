/* SPDX-License-Identifier: MIT */
/* layout_facts.c - what every planner of a linked file asks: its patches through the context
 * (lay_patch, lay_zero) and the facts about the input (overlaps, our own segments, the first
 * PT_LOAD). */
#include <stdlib.h>

#include "layout_int.h"

/* ---- patches through the context ---- */

int lay_patch(struct lay *L, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	return plan_patch(L->pl, off, len, data, src, L->e);
}

/* Zero input bytes that stay in the output (those past `keep` are dropped anyway). */
int lay_zero(struct lay *L, uint64_t off, uint64_t len)
{
	if (off >= L->keep)
		return 0;
	if (off + len > L->keep)
		len = L->keep - off;
	return lay_patch(L, off, len, NULL, PATCH_ZERO);
}

/* ---- facts about the input ---- */

int lay_overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

int lay_in_own(const struct lay *L, uint64_t off)
{
	size_t i;

	for (i = 0; L->nown && i < L->ef->phnum; i++)
		if (L->isown[i] && off >= L->ef->ph[i].offset &&
		    off < L->ef->ph[i].offset + L->ef->ph[i].filesz)
			return 1;
	return 0;
}

const struct elf_phdr *lay_first_load(const struct lay *L)
{
	size_t i;

	for (i = 0; i < L->ef->phnum; i++)
		if (L->ef->ph[i].type == PT_LOAD_ && !(L->isown && L->isown[i]))
			return &L->ef->ph[i];
	return NULL;
}

int lay_pair_cmp(const void *x, const void *y)
{
	const uint64_t *a = x, *b = y;

	return a[0] < b[0] ? -1 : a[0] > b[0];
}
