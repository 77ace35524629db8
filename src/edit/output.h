/* SPDX-License-Identifier: MIT */
/* output.h - writing a plan's result safely.
 *
 * The result is built in a temporary file in the destination's directory (unnamed with
 * O_TMPFILE where the filesystem has it), then renamed over the destination: a reader sees the
 * old file or the new one, never a mix, and a failure leaves the destination untouched and no
 * temporary behind.  Unchanged bytes are copied by the kernel (copy_file_range). */
#ifndef DLNOTE_OUTPUT_H
#define DLNOTE_OUTPUT_H

#include <stdint.h>
#include <sys/stat.h>

#include "plan.h"
#include "../base/base.h"

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
