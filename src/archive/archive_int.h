/* SPDX-License-Identifier: MIT */
/* archive_int.h - private to src/archive/: what archive.c (reading), archive_index.c (the
 * symbol index) and archive_write.c (writing) share. */
#ifndef DLNOTE_ARCHIVE_INT_H
#define DLNOTE_ARCHIVE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sys/uio.h>

#include "archive.h"
#include "../base/base.h"

/* Header fields: name[16] date[12] uid[6] gid[6] mode[8] size[10] fmag[2]. */
enum { F_NAME = 0, F_SIZE = 48, W_SIZE = 10, F_FMAG = 58 };

/* The kind of index a member of that name is (archive.c), for archive_index.c. */
enum archive_index archive_index_kind(const char *name);

/* The two buffers of a write (see archive_write.c); members up to IO_CAP are edited there. */
#define IO_CAP (256u << 10)
/* Gathered edits (archive_write.c): vectors per write (Linux's IOV_MAX), bytes of headers and
 * new bytes. */
#define PEND_CAP 1024
#define GAT_CAP (64u << 10)

struct archive_io {
	unsigned char *in, *out;
	uint64_t in_off, out_off; /* archive offset of in[0]; output offset of out[0] */
	uint64_t in_valid;        /* in[] holds the archive's bytes from here on */
	size_t in_len, out_len;
	size_t in_cap; /* in[]'s size: IO_CAP, or the archive's when smaller */
	int fd_out;
	/* Edited members waiting to be written with one pwritev: vectors pointing into in[] and
	 * at their new bytes in gat[]; written before in[] is read again (before_refill). */
	struct iovec *pend;
	int npend;
	uint64_t pend_at, pend_len;
	unsigned char *gat;
	size_t gat_len;
	int (*before_refill)(struct archive_io *io, struct err *e);
};

/* Old member header offset -> new one, in member order. */
struct remap {
	struct remap_pair {
		uint64_t old, new;
	} * v;
	size_t n, cap;
};

/* True when the read buffer holds the archive's unchanged bytes [off, off+len). */
static inline int archive_io_holds(const struct archive_io *io, uint64_t off, uint64_t len)
{
	return off >= io->in_off && off >= io->in_valid && off + len <= io->in_off + io->in_len;
}

/* [off, off+len) of the archive in the read buffer (len <= its size), or NULL with e set. */
const unsigned char *archive_io_window(const struct archive *ar, uint64_t off, size_t len,
				       struct err *e);

/* Walk the index's member offsets in pieces.  With a map: rewrite them into the copy of the
 * index at out@out_data (out < 0: only see whether they fit); wide: a GNU "/" index written as
 * "/SYM64/", 8-byte offsets after the 8-byte count.  Returns 1 when the new offsets of a "/"
 * index do not fit in 32 bits (ar->offset32_max), -1 with e set on failure. */
int archive_index_walk(const struct archive *ar, const struct archive_member *m,
		       const struct remap *map, int out, uint64_t out_data, int wide,
		       struct err *e);
/* The size of the "/SYM64/" copy of a GNU "/" index, its symbol count, and where its names
 * start in the archive. */
int archive_index_wide_size(const struct archive *ar, const struct archive_member *m,
			    uint64_t *size, uint64_t *count, uint64_t *names, struct err *e);

#endif
