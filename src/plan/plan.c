/* SPDX-License-Identifier: MIT */
/* plan.c - the plan every planner writes and every writer applies: byte patches over the
 * input, the size to keep and to write, and the log -v prints (edit.h). */
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>

#include "plan.h"

int plan_patch(struct plan *pl, uint64_t off, uint64_t len, const void *data, uint64_t src,
	       struct err *e)
{
	struct patch *p;

	if (len == 0)
		return 0;
	p = xgrow(pl->p, &pl->cap, pl->n, sizeof *p);
	if (!p)
		return err_oom(e);
	pl->p = p;
	p = &pl->p[pl->n];
	memset(p, 0, sizeof *p);
	p->off = off;
	p->len = len;
	p->src = src;
	if (data) {
		p->data = malloc(len);
		if (!p->data)
			return err_oom(e);
		memcpy(p->data, data, len);
	}
	pl->n++;
	return 0;
}

int plan_patch_own(struct plan *pl, uint64_t off, uint64_t len, unsigned char *data, struct err *e)
{
	struct patch *p;

	if (len == 0) {
		free(data);
		return 0;
	}
	p = xgrow(pl->p, &pl->cap, pl->n, sizeof *p);
	if (!p) {
		free(data);
		return err_oom(e);
	}
	pl->p = p;
	pl->p[pl->n++] = (struct patch){.off = off, .len = len, .data = data};
	return 0;
}

int plan_patch_xform(struct plan *pl, uint64_t off, uint64_t len, uint64_t src,
		     patch_xform_fn xform, const void *ctx, size_t ctxlen, struct err *e)
{
	if (len == 0)
		return 0;
	if (plan_patch(pl, off, ctxlen, ctx, src, e))
		return -1;
	pl->p[pl->n - 1].len = len;
	pl->p[pl->n - 1].xform = xform;
	return 0;
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

void plan_free(struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		free(pl->p[i].data);
	free(pl->p);
	buf_free(&pl->log);
	memset(pl, 0, sizeof *pl);
}
