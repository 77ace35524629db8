/* SPDX-License-Identifier: MIT */
/* plan.h - the plan: what a planner decided and a writer applies, printable (-v) before
 * anything is written.  It takes byte patches from the planners (layout*.c for linked files,
 * objplan.c and objedit*.c for objects); it gives output.c and archive_write.c the bytes to
 * write.  It never reads the input: a patch names input bytes, a writer copies them.
 *
 * The output is always: the input's bytes [0, keep), then the patches applied in order (later
 * patches overlay earlier ones), then the file cut or extended to out_size (gaps stay sparse).
 * Allocated content never moves; only headers, the note itself and what follows the last byte
 * we keep change (docs/layout.md). */
#ifndef DLNOTE_PLAN_H
#define DLNOTE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"

#define PATCH_ZERO UINT64_MAX

/* A patch may copy input bytes through a transform: then data is the transform's context (owned
 * by the patch), and the bytes from src are handed to xform in pieces of at most PATCH_CHUNK
 * bytes, each starting at a multiple of PATCH_CHUNK from the patch's start (a multiple of every
 * symbol and index entry size: 4, 16, 24), so that a table is rewritten while it is streamed. */
typedef void (*patch_xform_fn)(const void *ctx, unsigned char *buf, uint64_t len);
#define PATCH_CHUNK 65520u

struct patch {
	uint64_t off, len;
	unsigned char
		*data; /* bytes to write, or NULL: copy from input at src (PATCH_ZERO: zeros) */
	uint64_t src;
	patch_xform_fn xform; /* set: copy from src through xform, data is its context */
};

struct plan {
	int unchanged; /* the file already holds exactly this: write nothing */
	uint64_t keep, out_size;
	struct patch *p;
	size_t n, cap;
	const char *strategy; /* one of the names documented in the man page */
	struct buf log;       /* what -v prints, one line per decision */
	int quiet;            /* set by the caller before planning: no log is kept */
};

void plan_free(struct plan *pl);
/* An empty plan, as quiet as it was (planners start with it). */
void plan_reset(struct plan *pl);
/* A line of the plan's log (unless the plan is quiet). */
void plan_log(struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a patch to the plan (data is copied; NULL: copy from input at src, or PATCH_ZERO). */
int plan_patch(struct plan *pl, uint64_t off, uint64_t len, const void *data, uint64_t src,
	       struct err *e);
/* The same for new bytes the plan takes over (malloc'd; freed with the plan, or now on failure). */
int plan_patch_own(struct plan *pl, uint64_t off, uint64_t len, unsigned char *data, struct err *e);
/* Append a patch copying input bytes [src, src+len) through xform (ctx is copied, ctxlen bytes). */
int plan_patch_xform(struct plan *pl, uint64_t off, uint64_t len, uint64_t src,
		     patch_xform_fn xform, const void *ctx, size_t ctxlen, struct err *e);

#endif
