/* SPDX-License-Identifier: MIT */
/* layout_patch.c - the plan's byte patches, and the facts about the input that every planner
 * asks (overlaps, our own segment). */
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

#include "layout_int.h"

/* ---- patches ---- */

int layout_patch(struct plan *pl, uint64_t off, uint64_t len, const void *data, uint64_t src, struct err *e)
{
	struct patch *p;

	if (len == 0)
		return 0;
	p = xgrow(pl->p, &pl->cap, pl->n, sizeof *p);
	if (!p)
		return err_set(e, EXIT_BAD_INPUT, "out of memory");
	pl->p = p;
	p = &pl->p[pl->n];
	memset(p, 0, sizeof *p);
	p->off = off;
	p->len = len;
	p->src = src;
	if (data) {
		p->data = malloc(len);
		if (!p->data)
			return err_set(e, EXIT_BAD_INPUT, "out of memory");
		memcpy(p->data, data, len);
	}
	pl->n++;
	return 0;
}

int layout_patch_own(struct plan *pl, uint64_t off, uint64_t len, unsigned char *data, struct err *e)
{
	struct patch *p;

	if (len == 0) {
		free(data);
		return 0;
	}
	p = xgrow(pl->p, &pl->cap, pl->n, sizeof *p);
	if (!p) {
		free(data);
		return err_set(e, EXIT_BAD_INPUT, "out of memory");
	}
	pl->p = p;
	pl->p[pl->n++] = (struct patch){ .off = off, .len = len, .data = data };
	return 0;
}

int layout_patch_xform(struct plan *pl, uint64_t off, uint64_t len, uint64_t src, patch_xform_fn xform, const void *ctx,
		       size_t ctxlen, struct err *e)
{
	if (len == 0)
		return 0;
	if (layout_patch(pl, off, ctxlen, ctx, src, e))
		return -1;
	pl->p[pl->n - 1].len = len;
	pl->p[pl->n - 1].xform = xform;
	return 0;
}

int lay_patch(struct lay *L, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	return layout_patch(L->pl, off, len, data, src, L->e);
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

void plan_reset(struct plan *pl)
{
	int quiet = pl->quiet;

	memset(pl, 0, sizeof *pl);
	pl->quiet = quiet;
}

void plan_log(struct plan *pl, const char *fmt, ...)
{
	va_list ap;

	if (pl->quiet)
		return;
	va_start(ap, fmt);
	buf_vprintf(&pl->log, fmt, ap);
	va_end(ap);
}

void layout_free(struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		free(pl->p[i].data);
	free(pl->p);
	buf_free(&pl->log);
	memset(pl, 0, sizeof *pl);
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
		if (L->isown[i] && off >= L->ef->ph[i].offset && off < L->ef->ph[i].offset + L->ef->ph[i].filesz)
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
