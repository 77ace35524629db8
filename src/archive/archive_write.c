/* SPDX-License-Identifier: MIT */
/* archive_write.c - writing an edited archive by streaming: the write buffer, the edited
 * members, the index moved to the new offsets. */
#include "archive.h"
#include "archive_int.h"
#include "../base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../edit/edit.h"

/* Writing streams the archive through buffers: the input is read IO_CAP bytes at a time (a
 * member that fits is parsed and planned from there: the ELF model reads a memory window).
 * Edited members become vectors into that read buffer and into a gather buffer (headers, new
 * bytes), written with one pwritev before the read buffer is read again; other output gathers
 * in a write buffer.  Unchanged members and larger ones are copied by the kernel.  A few
 * system calls per buffer instead of some twenty per member; the buffers bound the memory. */

/* The edited members gathered for one vectored write (write_vectored), written. */
static int io_flush_pending(struct archive_io *io, struct err *e)
{
	int r = io->npend ? io_writev_at(io->fd_out, io->pend_at, io->pend, io->npend, e) : 0;

	io->npend = 0, io->pend_len = 0, io->gat_len = 0;
	return r;
}

static int io_init(struct archive *ar, struct archive_io *io, int out, struct err *e)
{
	memset(io, 0, sizeof *io);
	io->fd_out = out;
	/* The read buffer's pages are present from the start: filling fresh pages costs a fault
	 * each (64 for 256 KiB), several times the copy of the page in a virtual machine.  It is
	 * no larger than the archive, whose every read window it holds. */
	io->in_cap = ar->size < IO_CAP ? (size_t)ar->size : IO_CAP;
	io->in = alloc_present(io->in_cap);
	io->out = out >= 0 ? malloc(IO_CAP) : NULL;
	io->pend = out >= 0 ? xcalloc(PEND_CAP, sizeof *io->pend) : NULL;
	io->gat = out >= 0 ? malloc(GAT_CAP) : NULL;
	io->before_refill = out >= 0 ? io_flush_pending : NULL;
	ar->io = io;
	if (!io->in || (out >= 0 && (!io->out || !io->pend || !io->gat)))
		return err_oom(e);
	return 0;
}

static void io_free(struct archive *ar, struct archive_io *io)
{
	free_present(io->in, io->in_cap);
	free(io->out);
	free(io->pend);
	free(io->gat);
	ar->io = NULL;
}

static int io_flush(struct archive_io *io, struct err *e)
{
	if (io_flush_pending(io, e))
		return -1;
	if (io->out_len && io_write_at(io->fd_out, io->out_off, io->out, io->out_len, e))
		return -1;
	io->out_off += io->out_len, io->out_len = 0;
	return 0;
}

/* Room for len bytes at output offset pos in the write buffer (len <= IO_CAP), or NULL. */
static unsigned char *io_reserve(struct archive_io *io, uint64_t pos, size_t len, struct err *e)
{
	unsigned char *p;

	if (io->npend && io_flush_pending(io, e))
		return NULL;
	if (io->out_off + io->out_len != pos || io->out_len + len > IO_CAP) {
		if (io_flush(io, e))
			return NULL;
		io->out_off = pos;
	}
	p = io->out + io->out_len;
	io->out_len += len;
	return p;
}

static int io_put(struct archive_io *io, uint64_t pos, const void *data, size_t len, struct err *e)
{
	unsigned char *p;

	if (len > IO_CAP)
		return io_flush(io, e) ? -1 : io_write_at(io->fd_out, pos, data, len, e);
	if (!(p = io_reserve(io, pos, len, e)))
		return -1;
	memcpy(p, data, len);
	return 0;
}

/* A member that fits in the read buffer is read there once; m->mem points at its bytes, after
 * its BSD name (the writers copy the name from there).  A larger one is read through the file,
 * but for its start when the buffer holds it (m->head): its ELF header is read from there. */
static int read_small(const struct archive *ar, struct archive_member *m, struct err *e)
{
	const struct archive_io *io = ar->io;
	const unsigned char *p;

	m->mem = m->head = NULL;
	m->head_len = 0;
	if (ar->thin || m->kind != AR_MEMBER)
		return 0;
	if (m->name_len + m->size > IO_CAP) {
		if (archive_io_holds(io, m->data, 1)) {
			m->head = io->in + (m->data - io->in_off);
			m->head_len = io->in_off + io->in_len - m->data;
		}
		return 0;
	}
	p = archive_io_window(ar, m->data - m->name_len, (size_t)(m->name_len + m->size), e);
	m->mem = p ? p + m->name_len : NULL;
	return p ? 0 : -1;
}

static void rewind_ar(struct archive *ar)
{
	ar->pos = 8, ar->nth = 0, ar->index = AR_NO_INDEX;
	ar->names_off = ar->names_size = 0;
}

int archive_changes(struct archive *ar, archive_plan_fn plan, void *ctx, char *label,
		    size_t labelsz, struct err *e)
{
	struct archive_member m;
	struct archive_io io;
	struct plan pl;
	int r = io_init(ar, &io, -1, e);

	rewind_ar(ar);
	while (r == 0 && (r = archive_next(ar, &m, e)) != 0) {
		archive_label(&m, label, labelsz);
		if (r < 0 || (m.kind == AR_INDEX && archive_check_index(ar, &m, e)) ||
		    read_small(ar, &m, e)) {
			r = -1;
			break;
		}
		if (m.kind != AR_MEMBER) {
			r = 0;
			continue;
		}
		pl.quiet = 1; /* a question, not the edit: nothing printed */
		r = plan(ctx, ar, &m, &pl, e);
		if (r > 0) {
			r = !pl.unchanged;
			plan_free(&pl);
		}
		if (r)
			break;
	}
	io_free(ar, &io);
	return r;
}

static int pad(struct archive_io *io, uint64_t *pos, struct err *e)
{
	if ((*pos & 1) && io_put(io, (*pos)++, "\n", 1, e))
		return -1;
	return 0;
}

/* True when the plan can be applied to the member's bytes where they are, in the read buffer:
 * no patch copies input bytes that an earlier patch of the kept prefix has changed. */
static int patchable_in_place(const struct plan *pl)
{
	for (size_t i = 0; i < pl->n; i++) {
		const struct patch *p = &pl->p[i];
		if (p->xform)
			return 0; /* a transformed copy: output_apply_mem does those */
		if (p->data || p->src == PATCH_ZERO)
			continue;
		for (size_t j = 0; j <= i; j++) {
			const struct patch *q = &pl->p[j];
			uint64_t lo = q->off > p->src ? q->off : p->src, hi = q->off + q->len;
			hi = hi < p->src + p->len ? hi : p->src + p->len;
			hi = hi < pl->keep ? hi : pl->keep;
			if (lo < hi)
				return 0;
		}
	}
	return 1;
}

/* A small member edited in the read buffer: the kept prefix is patched there and written from
 * there, with the header before it and the new tail after it gathered in the write buffer (one
 * pwritev, no copy of the prefix).  Returns 1 when done, 0 when the plan does not allow it. */
static int write_gathered(struct archive *ar, const struct archive_member *m, const struct plan *pl,
			  const char *h, uint64_t pos, struct err *e)
{
	struct archive_io *io = ar->io;
	unsigned char *body = io->in + (m->mem - io->in), *head, *tail;
	uint64_t tlen = pl->out_size - pl->keep, odd = (m->name_len + pl->out_size) & 1;
	struct iovec iov[3];

	if (pl->keep > m->size || !patchable_in_place(pl))
		return 0;
	if (!(head = io_reserve(io, pos, (size_t)(ARCHIVE_HDR + m->name_len), e)))
		return -1;
	if (io->out_len + tlen + 1 > IO_CAP)
		return io->out_len -= (size_t)(ARCHIVE_HDR + m->name_len), 0;
	memcpy(head, h, ARCHIVE_HDR);
	memcpy(head + ARCHIVE_HDR, m->mem - m->name_len, (size_t)m->name_len);
	tail = io->out + io->out_len;
	memset(tail, 0, (size_t)tlen);
	tail[tlen] = '\n';
	for (size_t i = 0; i < pl->n; i++) {
		const struct patch *p = &pl->p[i];
		for (uint64_t k = 0; k < p->len;) { /* the part before keep, then the part after */
			uint64_t at = p->off + k,
				 n = at < pl->keep ? (p->off + p->len < pl->keep ? p->len - k
										 : pl->keep - at)
						   : p->len - k;
			unsigned char *dst = at < pl->keep ? body + at : tail + (at - pl->keep);
			if (!range_ok(at, n, pl->out_size) ||
			    (!p->data && p->src != PATCH_ZERO && !range_ok(p->src + k, n, m->size)))
				return err_set(e, "a patch runs past the member");
			if (p->data)
				memmove(dst, p->data + k, (size_t)n);
			else if (p->src == PATCH_ZERO)
				memset(dst, 0, (size_t)n);
			else
				memmove(dst, body + p->src + k, (size_t)n);
			k += n;
		}
	}
	iov[0] = (struct iovec){io->out, io->out_len};
	iov[1] = (struct iovec){body, (size_t)pl->keep};
	iov[2] = (struct iovec){tail, (size_t)(tlen + odd)};
	if (io_writev_at(io->fd_out, io->out_off, iov, 3, e))
		return -1;
	io->out_off = pos + ARCHIVE_HDR + m->name_len + pl->out_size + odd, io->out_len = 0;
	io->in_valid = m->data + m->size; /* the member's input bytes are changed */
	return 1;
}

/* A small member whose plan is a sequence of pieces in output order (copies of its bytes, new
 * bytes, zeros), as objedit's plans are: its vectors join those of the members before it,
 * pointing at the read buffer (its kept bytes) and at the gather buffer (its header and new
 * bytes), and are written with one pwritev before the read buffer is read again.  No byte of a
 * member is copied in user space, and a buffer of members costs one system call.  Returns 1
 * when done, 0 when the plan is not such a sequence or needs too many vectors. */
static int write_vectored(struct archive *ar, const struct archive_member *m, const struct plan *pl,
			  const char *h, uint64_t pos, struct err *e)
{
	static const unsigned char zeros[4096];
	struct archive_io *io = ar->io;
	uint64_t at = pl->keep, odd = (m->name_len + pl->out_size) & 1,
		 need = ARCHIVE_HDR + m->name_len;
	size_t nv = 4, i; /* header, name, kept bytes, padding */

	if (pl->keep > m->size)
		return 0;
	for (i = 0; i < pl->n; i++) { /* ascending, disjoint, past what is kept */
		const struct patch *p = &pl->p[i];
		if (p->xform || p->off < at || !range_ok(p->off, p->len, pl->out_size) ||
		    (!p->data && p->src != PATCH_ZERO && !range_ok(p->src, p->len, m->size)) ||
		    (!p->data && p->src == PATCH_ZERO && p->len > sizeof zeros))
			return 0;
		nv += 1 +
		      (p->off > at ? (size_t)((p->off - at + sizeof zeros - 1) / sizeof zeros) : 0);
		need += p->data ? p->len : 0;
		at = p->off + p->len;
	}
	nv += (size_t)((pl->out_size - at + sizeof zeros - 1) / sizeof zeros);
	if (nv > PEND_CAP || need > GAT_CAP)
		return 0;
	if ((io->out_len || io->npend + (int)nv > PEND_CAP || io->gat_len + need > GAT_CAP ||
	     (io->npend && io->pend_at + io->pend_len != pos)) &&
	    io_flush(io, e))
		return -1;
	if (!io->npend)
		io->pend_at = pos;
#define PUT(base, len)                                                                             \
	(io->pend[io->npend++] = (struct iovec){(void *)(base), (size_t)(len)},                    \
	 io->pend_len += (len))
#define GATHER(src, len)                                                                           \
	(memcpy(io->gat + io->gat_len, (src), (size_t)(len)), PUT(io->gat + io->gat_len, (len)),   \
	 io->gat_len += (size_t)(len))
	GATHER(h, ARCHIVE_HDR);
	if (m->name_len)
		GATHER(m->mem - m->name_len, m->name_len);
	if (pl->keep)
		PUT(m->mem, pl->keep);
	at = pl->keep;
	for (i = 0; i <= pl->n; i++) {
		const struct patch *p = i < pl->n ? &pl->p[i] : NULL;
		uint64_t to = p ? p->off : pl->out_size;
		while (at < to) { /* a gap: zeros */
			uint64_t z = to - at < sizeof zeros ? to - at : sizeof zeros;
			PUT(zeros, z);
			at += z;
		}
		if (!p)
			break;
		if (p->len && p->data)
			GATHER(p->data, p->len);
		else if (p->len)
			PUT(p->src == PATCH_ZERO ? zeros : m->mem + p->src, p->len);
		at = p->off + p->len;
	}
	if (odd)
		PUT("\n", 1);
#undef GATHER
#undef PUT
	io->out_off = pos + ARCHIVE_HDR + m->name_len + pl->out_size + odd;
	return 1;
}

/* The header's size field: decimal, left-aligned, padded with spaces (the caller checked that
 * it fits in ten digits).  snprintf's "%-10llu" without its cost, once per member. */
static void put_size_field(char *f, uint64_t v)
{
	char d[W_SIZE];
	int n = 0;

	memset(f, ' ', W_SIZE);
	do
		d[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < W_SIZE);
	for (int i = 0; i < n; i++)
		f[i] = d[n - 1 - i];
}

/* An edited member: its header with only the size changed, its BSD name, the plan's bytes,
 * the padding. */
static int write_edited(struct archive *ar, const struct archive_member *m, const struct plan *pl,
			uint64_t *pos, struct err *e)
{
	struct archive_io *io = ar->io;
	char h[ARCHIVE_HDR];
	uint64_t size = m->name_len + pl->out_size;
	unsigned char *p;
	int r;

	if (size > 9999999999ull)
		return err_set(e, "the edited member is too large for the header's size field");
	memcpy(h, m->raw, sizeof h);
	put_size_field(h + F_SIZE, size);
	if (m->mem && ((r = write_vectored(ar, m, pl, h, *pos, e)) != 0 ||
		       (r = write_gathered(ar, m, pl, h, *pos, e)) != 0)) {
		*pos += ARCHIVE_HDR + size + (size & 1);
		return r < 0 ? -1 : 0;
	}
	if (m->mem && ARCHIVE_HDR + size <= IO_CAP) {
		/* The name is in the read buffer just before the data. */
		if (!(p = io_reserve(io, *pos, (size_t)(ARCHIVE_HDR + size), e)))
			return -1;
		memcpy(p, h, ARCHIVE_HDR);
		memcpy(p + ARCHIVE_HDR, m->mem - m->name_len, (size_t)m->name_len);
		if (output_apply_mem(m->mem, m->size, pl, p + ARCHIVE_HDR + m->name_len, e))
			return -1;
	} else if (io_put(io, *pos, h, sizeof h, e) || io_flush(io, e) ||
		   output_copy(ar->fd, m->hdr + ARCHIVE_HDR, io->fd_out, *pos + ARCHIVE_HDR,
			       m->name_len, e) ||
		   output_apply_at(ar->fd, m->data, io->fd_out, *pos + ARCHIVE_HDR + m->name_len,
				   pl, e)) {
		return -1;
	}
	*pos += ARCHIVE_HDR + size;
	return pad(io, pos, e);
}

static int remap_add(struct remap *map, uint64_t old, uint64_t new, struct err *e)
{
	if (map->n == map->cap) {
		size_t cap = map->cap ? 2 * map->cap : 64;
		struct remap_pair *v = xrealloc(map->v, cap, sizeof *v);
		if (!v)
			return err_oom(e);
		map->v = v, map->cap = cap;
	}
	map->v[map->n].old = old, map->v[map->n++].new = new;
	return 0;
}

/* One member into the output at *pos; with `dry` only where the member after it would start
 * (the layout pass: planned, nothing written). */
static int write_member(struct archive *ar, const struct archive_member *m, uint64_t *pos,
			archive_plan_fn plan, void *ctx, int dry, struct err *e)
{
	struct plan pl = {.quiet = dry}; /* planning only: its log is printed when written */
	uint64_t len = m->data + m->size - m->hdr;
	int r = m->kind == AR_MEMBER ? plan(ctx, ar, m, &pl, e) : 0;

	if (r < 0)
		return -1;
	if (r > 0 && dry) {
		len = ARCHIVE_HDR + m->name_len + pl.out_size;
		plan_free(&pl);
	} else if (r > 0) {
		r = write_edited(ar, m, &pl, pos, e);
		plan_free(&pl);
		return r;
	}
	if (dry) {
		*pos += len + (len & 1);
		return 0;
	}
	if (io_flush(ar->io, e) || output_copy(ar->fd, m->hdr, ar->io->fd_out, *pos, len, e))
		return -1;
	*pos += len;
	return pad(ar->io, pos, e);
}

/* A GNU "/" index widened to "/SYM64/": its header now (the name and the size changed, the
 * date, owner and mode kept), its bytes once the members are placed (write_wide_index). */
static int write_wide_header(struct archive *ar, const struct archive_member *m, uint64_t *pos,
			     struct err *e)
{
	char h[ARCHIVE_HDR];
	uint64_t size, count, names;

	if (archive_index_wide_size(ar, m, &size, &count, &names, e))
		return -1;
	if (size > 9999999999ull)
		return err_set(e,
			       "the 64-bit symbol index is too large for the header's size field");
	memcpy(h, m->raw, sizeof h);
	memcpy(h + F_NAME, "/SYM64/         ", 16);
	put_size_field(h + F_SIZE, size);
	if (io_put(ar->io, *pos, h, sizeof h, e))
		return -1;
	*pos += ARCHIVE_HDR + size;
	return 0;
}

/* The 8-byte count, the offsets, the names copied by the kernel, the zero padding. */
static int write_wide_index(struct archive *ar, const struct archive_member *m,
			    const struct remap *map, uint64_t at, struct err *e)
{
	static const unsigned char zero[8];
	int out = ar->io->fd_out;
	uint64_t size, count, names, data = at + ARCHIVE_HDR, nlen;
	unsigned char word[8];

	if (archive_index_wide_size(ar, m, &size, &count, &names, e))
		return -1;
	for (int i = 0; i < 8; i++)
		word[i] = (unsigned char)(count >> (56 - 8 * i));
	nlen = m->data + m->size - names;
	if (io_write_at(out, data, word, 8, e) || archive_index_walk(ar, m, map, out, data, 1, e) ||
	    output_copy(ar->fd, names, out, data + 8 + 8 * count, nlen, e) ||
	    io_write_at(out, data + 8 + 8 * count + nlen, zero,
			(size_t)(size - 8 - 8 * count - nlen), e))
		return -1;
	return 0;
}

/* One pass over the members, in order: written into `out`, the index "/SYM64/" when `wide`;
 * or with out < 0 only placed (every member planned, nothing written), to learn whether a "/"
 * index needs 64 bits.  0, -1 with e set, or 1: the "/" index does not fit (nothing is
 * complete in `out`). */
static int write_pass(struct archive *ar, int out, int wide, struct remap *map,
		      archive_plan_fn plan, void *ctx, char *label, size_t labelsz, struct err *e)
{
	struct archive_member m, idx = {0};
	struct archive_io io;
	uint64_t pos = 8, idx_out = 0;
	int r;

	rewind_ar(ar);
	map->n = 0;
	r = io_init(ar, &io, out, e);
	if (r == 0 && out >= 0)
		r = io_put(&io, 0, ARCHIVE_MAGIC, 8, e);
	/* Members keep their order; the index keeps its size (same symbols) unless it is widened,
	 * so only the offsets of members after an edited one (or after the index) move. */
	while (r == 0 && (r = archive_next(ar, &m, e)) != 0) {
		archive_label(&m, label, labelsz);
		if (r < 0)
			break;
		if (m.kind == AR_INDEX)
			idx = m, idx_out = pos;
		if (out < 0 && m.kind == AR_INDEX && ar->index != AR_GNU32) {
			r = 0; /* only a "/" index is ever widened */
			break;
		}
		if (remap_add(map, m.hdr, pos, e))
			r = -1;
		else if (m.kind == AR_INDEX && wide)
			r = write_wide_header(ar, &m, &pos, e);
		else
			r = (out >= 0 && read_small(ar, &m, e)) ||
					    write_member(ar, &m, &pos, plan, ctx, out < 0, e)
				    ? -1
				    : 0;
	}
	if (r == 0 && out >= 0)
		r = io_flush(&io, e);
	if (r == 0 && idx.hdr && (out >= 0 || ar->index == AR_GNU32)) {
		archive_label(&idx, label, labelsz);
		r = wide ? write_wide_index(ar, &idx, map, idx_out, e)
			 : archive_index_walk(ar, &idx, map, out, idx_out + (idx.data - idx.hdr), 0,
					      e);
	}
	if (r == 0 && out >= 0) {
		label[0] = '\0';
		if (ftruncate(out, (off_t)pos))
			r = err_set(e, "cannot set the output size: %s", strerror(errno));
	}
	io_free(ar, &io);
	return r;
}

int archive_write(struct archive *ar, int out, archive_plan_fn plan, void *ctx, char *label,
		  size_t labelsz, struct err *e)
{
	struct remap map = {0};
	int r = 0, wide = 0;

	label[0] = '\0';
	if (ar->thin)
		return err_set(
			e, "thin archive: its members are other files; edit those files instead "
			   "(writing thin archives is not supported)");
	/* A "/" index widened to "/SYM64/" grows, which moves every member: the kind is decided
	 * before writing, by placing every member of a large archive once (their plans, read
	 * through the file, not their bytes), so that the archive is written once. */
	if (ar->size >= ar->plan_first)
		wide = r = write_pass(ar, -1, 0, &map, plan, ctx, label, labelsz, e);
	if (r >= 0)
		r = write_pass(ar, out, wide, &map, plan, ctx, label, labelsz, e);
	/* A smaller archive that an edit took past 4 GiB: written again, with "/SYM64/". */
	if (r == 1 && !wide)
		r = ftruncate(out, 0)
			    ? err_set(e, "cannot empty the output: %s", strerror(errno))
			    : write_pass(ar, out, wide = 1, &map, plan, ctx, label, labelsz, e);
	ar->widened = r == 0 && wide == 1;
	free(map.v);
	return r;
}
