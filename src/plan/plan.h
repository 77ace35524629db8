/* SPDX-License-Identifier: MIT */
/* plan.h - the interface of src/plan/: the plan of patches that a planner (src/layout/,
 * src/objedit/) makes and a writer applies (plan.c), and the writers (output.c).  It never
 * reads an ELF file's structure: a patch names input bytes, a writer copies them. */
#ifndef DLNOTE_PLAN_H
#define DLNOTE_PLAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "../base/base.h"
#include "../elf/elf.h"
#include "../note/note.h"

/* plan.c: the plan: what a planner decided and a writer applies, printable (-v) before
 * anything is written.  It takes byte patches from the planners (layout*.c for linked files,
 * objplan.c and objedit*.c for objects); it gives output.c and archive_write.c the bytes to
 * write.  It never reads the input: a patch names input bytes, a writer copies them.
 *
 * The output is always: the input's bytes [0, keep), then the patches applied in order (later
 * patches overlay earlier ones), then the file cut or extended to out_size (gaps stay sparse).
 * Allocated content never moves; only headers, the note itself and what follows the last byte
 * we keep change (docs/layout.md). */

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

/* output.c: writing a plan's result safely.
 *
 * The result is built in a temporary file in the destination's directory (unnamed with
 * O_TMPFILE where the filesystem has it), then renamed over the destination: a reader sees the
 * old file or the new one, never a mix, and a failure leaves the destination untouched and no
 * temporary behind.  Unchanged bytes are copied by the kernel (copy_file_range). */

struct output_opts {
	int fsync; /* flush data and directory before and after the rename */
};

/* Write the result of `pl` applied to the input `infd` (whose status is `st`) to `dest`.
 * `in_place`: dest is the input itself: owner, group, mode and extended attributes are kept,
 * a symlink is followed, and a file with several hard links is updated through its inode. */
int output_write(int infd, const struct stat *st, const struct plan *pl, const char *dest,
		 int in_place, const struct output_opts *o, struct err *e);

/* The same for any writer: `fill` writes the whole result into the empty temporary `out`. */
typedef int (*output_fill_fn)(void *ctx, int in, int out, struct err *e);
int output_replace(int infd, const struct stat *st, const char *dest, int in_place,
		   const struct output_opts *o, output_fill_fn fill, void *ctx, struct err *e);

/* Write the result to `out`, which need not be seekable (-o -: standard output). */
int output_stream(int infd, const struct plan *pl, int out, struct err *e);
/* The same for any writer. */
int output_stream_fill(int infd, output_fill_fn fill, void *ctx, int out, struct err *e);

/* Write the plan's result into an empty file `out` (the fuzzers use memory files). */
int output_apply(int in, int out, const struct plan *pl, struct err *e);

/* Write the plan's result for the object at in@in_base to out@out_base, as an archive member:
 * the file is neither cut nor extended (ranges the plan leaves as holes are not written, so
 * `out` must read zeros there: a fresh file written in order does). */
int output_apply_at(int in, uint64_t in_base, int out, uint64_t out_base, const struct plan *pl,
		    struct err *e);

/* The same in memory, for small objects: `in` holds the input's in_size bytes, `out` has room
 * for pl->out_size bytes (the plan's holes become zeros). */
int output_apply_mem(const unsigned char *in, uint64_t in_size, const struct plan *pl,
		     unsigned char *out, struct err *e);

/* Write len bytes at out@off, retrying short writes (a call writes at most 1 GiB). */

/* Copy len bytes from in@src to out@dst, in the kernel when possible. */
int output_copy(int in, uint64_t src, int out, uint64_t dst, uint64_t len, struct err *e);

#endif
