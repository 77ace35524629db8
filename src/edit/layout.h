/* SPDX-License-Identifier: MIT */
/* layout.h - the layout planner: decides where the new note goes and which header bytes change,
 * as a plan that can be printed (-v) before anything is written.
 *
 * The output is always: the input's bytes [0, keep), then the patches applied in order (later
 * patches overlay earlier ones), then the file cut or extended to out_size (gaps stay sparse).
 * Allocated content never moves; only headers, the note itself and what follows the last byte
 * we keep change (shared/REFERENCE.md §4). */
#ifndef DLNOTE_LAYOUT_H
#define DLNOTE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../elf/elf.h"
#include "../note/scan.h"
#include "../base/util.h"

#define PATCH_ZERO UINT64_MAX

/* A patch may copy input bytes through a transform: then data is the transform's context (owned
 * by the patch), and the bytes from src are handed to xform in pieces of at most PATCH_CHUNK
 * bytes, each starting at a multiple of PATCH_CHUNK from the patch's start (a multiple of every
 * symbol and index entry size: 4, 16, 24), so that a table is rewritten while it is streamed. */
typedef void (*patch_xform_fn)(const void *ctx, unsigned char *buf, uint64_t len);
#define PATCH_CHUNK 65520u

struct patch {
	uint64_t off, len;
	unsigned char *data;       /* bytes to write, or NULL: copy from input at src (PATCH_ZERO: zeros) */
	uint64_t src;
	patch_xform_fn xform;      /* set: copy from src through xform, data is its context */
};

struct plan {
	int unchanged;             /* the file already holds exactly this: write nothing */
	uint64_t keep, out_size;
	struct patch *p;
	size_t n, cap;
	const char *strategy;      /* one of the names documented in the man page */
	struct buf log;            /* what -v prints, one line per decision */
	int quiet;                 /* set by the caller before planning: no log is kept */
};

/* `note` holds the encoded note (empty: remove every dlopen note). */
int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note, struct plan *pl, struct err *e);
void layout_free(struct plan *pl);
/* An empty plan, as quiet as it was (planners start with it). */
void plan_reset(struct plan *pl);
/* A line of the plan's log (unless the plan is quiet). */
void plan_log(struct plan *pl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append a patch to the plan (data is copied; NULL: copy from input at src, or PATCH_ZERO). */
int layout_patch(struct plan *pl, uint64_t off, uint64_t len, const void *data, uint64_t src, struct err *e);
/* The same for new bytes the plan takes over (malloc'd; freed with the plan, or now on failure). */
int layout_patch_own(struct plan *pl, uint64_t off, uint64_t len, unsigned char *data, struct err *e);
/* Append a patch copying input bytes [src, src+len) through xform (ctx is copied, ctxlen bytes). */
int layout_patch_xform(struct plan *pl, uint64_t off, uint64_t len, uint64_t src, patch_xform_fn xform, const void *ctx,
		       size_t ctxlen, struct err *e);

/* layout_rel.c: a relocatable object.  `want` are the entries the object must carry; with
 * keep_all (merge) every dlopen section stays and only missing entries are added, else dlopen
 * sections that are not exactly one wanted entry in a COMDAT group of its own are removed.
 * layout_plan() on an object is layout_plan_rel() with the note's entries and keep_all 0. */
struct entries;
struct objedit_group;
/* What planning an object derives from the wanted entries alone, kept from one object to the
 * next when they all get the same entries (the members of an archive): which entries repeat an
 * earlier one, and each entry's note and signature, in one byte order.  Zeroed to start;
 * layout_memo_free() at the end.  It is valid for one `want`, which must not change. */
struct layout_memo {
	const struct entries *want;
	int big, ready;
	unsigned char *dup;
	struct objedit_group *g;
	size_t n;
	struct buf whole;          /* the note of all the entries (the caller's) */
	int whole_ready;
};
void layout_memo_free(struct layout_memo *m);
/* memo: NULL, or kept across calls with the same `want` (see above). */
int layout_plan_rel(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all, struct plan *pl,
		    struct layout_memo *memo, struct err *e);
int layout_plan_rel_note(const struct elf *ef, const struct scan *sc, const struct buf *note, struct plan *pl, struct err *e);

#endif
