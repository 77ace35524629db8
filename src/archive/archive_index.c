/* SPDX-License-Identifier: MIT */
/* archive_index.c - an archive's symbol index (GNU "/" and "/SYM64/", BSD "__.SYMDEF"): its
 * geometry, its members, its names, and its offsets rewritten for an edited copy. */
#include "archive.h"
#include "archive_int.h"
#include "../base/base.h"

#include <stdlib.h>
#include <string.h>

/* GNU indexes are big-endian; BSD ones (as llvm-ar writes them) little-endian. */
static uint64_t get_word(const unsigned char *p, int w, int big)
{
	uint64_t v = 0;
	for (int i = 0; i < w; i++)
		v |= (uint64_t)p[big ? w - 1 - i : i] << (8 * i);
	return v;
}

static void put_word(unsigned char *p, int w, int big, uint64_t v)
{
	for (int i = 0; i < w; i++)
		p[big ? w - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static int remap_find(const struct remap *map, uint64_t old, uint64_t *new)
{
	size_t lo = 0, hi = map->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (map->v[mid].old == old) {
			*new = map->v[mid].new;
			return 0;
		}
		if (map->v[mid].old < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Walk the index's member offsets in pieces.  With a map: rewrite them into the copy of the
 * index at out@out_data (out < 0: only see whether they fit); wide: a GNU "/" index written as
 * "/SYM64/", 8-byte offsets after the 8-byte count.  Returns 1 when the new offsets of a "/"
 * index do not fit in 32 bits. */
int archive_index_walk(const struct archive *ar, const struct archive_member *m,
		       const struct remap *map, int out, uint64_t out_data, int wide, struct err *e)
{
	enum archive_index k = archive_index_kind(m->name);
	int w = k == AR_GNU64 || k == AR_BSD64 ? 8 : 4, big = k == AR_GNU32 || k == AR_GNU64;
	/* GNU: count, then one offset per symbol.  BSD: the size in bytes of the (string, offset)
	 * pairs, the pairs, then the string table's size and the strings. */
	uint64_t stride = big ? (uint64_t)w : 2u * (uint64_t)w, at_off = big ? 0 : (uint64_t)w;
	uint64_t ostride = wide ? 8 : stride; /* in the output */
	unsigned char word[8], chunk[4096], wchunk[8192];
	uint64_t count, tab, i, n, j, off, new, last_old = 0, last_new = 0;

	if (m->size < (uint64_t)w || io_read_at(ar->fd, m->data, word, (size_t)w, e))
		return e->msg[0] ? -1 : err_set(e, "symbol index smaller than its count field");
	count = get_word(word, w, big);
	if (!big && count % stride)
		return err_set(e, "BSD symbol index size %llu is not a multiple of %llu",
			       (unsigned long long)count, (unsigned long long)stride);
	if (!big)
		count /= stride;
	if (count > (m->size - (uint64_t)w) / stride)
		return err_set(e, "symbol index of %llu entries does not fit in its %llu bytes",
			       (unsigned long long)count, (unsigned long long)m->size);
	tab = (uint64_t)w + count * stride;
	if (!big &&
	    (tab + (uint64_t)w > m->size || io_read_at(ar->fd, m->data + tab, word, (size_t)w, e) ||
	     get_word(word, w, 0) > m->size - tab - (uint64_t)w))
		return e->msg[0] ? -1
				 : err_set(e, "BSD symbol index string table runs past the index");
	for (i = 0; i < count; i += n) {
		n = count - i < sizeof chunk / stride ? count - i : sizeof chunk / stride;
		if (io_read_at(ar->fd, m->data + (uint64_t)w + i * stride, chunk,
			       (size_t)(n * stride), e))
			return -1;
		for (j = 0; j < n; j++) {
			unsigned char *p = chunk + j * stride + at_off;
			off = get_word(p, w, big);
			if (off < 8 || off >= ar->size)
				return err_set(
					e,
					"symbol %llu points to offset 0x%llx, outside the archive",
					(unsigned long long)(i + j), (unsigned long long)off);
			if (!map)
				continue;
			/* a member's symbols are listed together: its offset repeats */
			if (off == last_old)
				new = last_new;
			else if (remap_find(map, off, &new))
				return err_set(e,
					       "symbol %llu points to offset 0x%llx, which is not "
					       "a member",
					       (unsigned long long)(i + j),
					       (unsigned long long)off);
			/* GNU ar (bfd) writes "/SYM64/" exactly when an offset does not fit; a BSD
			 * "__.SYMDEF_64" is not written. */
			last_old = off, last_new = new;
			if (w == 4 && !wide && new > ar->offset32_max)
				return big ? 1
					   : err_set(e, "the edited archive is larger than 4 GiB "
							"and its BSD "
							"index would need 64-bit offsets "
							"(__.SYMDEF_64), which this version does "
							"not write");
			if (wide)
				put_word(wchunk + j * 8, 8, 1, new);
			else
				put_word(p, w, big, new);
		}
		if (map && out >= 0 &&
		    io_write_at(out, out_data + (wide ? 8u : (uint64_t)w) + i * ostride,
				wide ? wchunk : chunk, (size_t)(n * ostride), e))
			return -1;
	}
	return 0;
}

/* The "/SYM64/" copy of a GNU "/" index: an 8-byte count and 8-byte offsets, the same names,
 * padded with zeros to a multiple of 8 bytes as GNU ar pads it.  *count and *names (the
 * offset of the names in the input) say what to copy. */
int archive_index_wide_size(const struct archive *ar, const struct archive_member *m,
			    uint64_t *size, uint64_t *count, uint64_t *names, struct err *e)
{
	unsigned char word[4];

	if (m->size < 4 || io_read_at(ar->fd, m->data, word, 4, e))
		return e->msg[0] ? -1 : err_set(e, "symbol index smaller than its count field");
	*count = get_word(word, 4, 1);
	if (*count > (m->size - 4) / 4)
		return err_set(e, "symbol index of %llu entries does not fit in its %llu bytes",
			       (unsigned long long)*count, (unsigned long long)m->size);
	*names = m->data + 4 + 4 * *count;
	*size = 8 + 8 * *count + (m->data + m->size - *names);
	*size += -*size & 7;
	return 0;
}

int archive_check_index(const struct archive *ar, const struct archive_member *m, struct err *e)
{
	return archive_index_walk(ar, m, NULL, -1, 0, 0, e);
}

/* Geometry of an index member: word width, byte order, entry stride, where the offset is in an
 * entry, the entry count, and where the names start (GNU) or the string table (BSD). */
struct index_geo {
	int w, big;
	uint64_t stride, at_off, count, names;
};

/* Only the count is checked against the index's size here: archive_index_members checks every
 * entry once (archive_check_index), and the names are read within the index. */
static int index_geometry(const struct archive *ar, const struct archive_member *m,
			  struct index_geo *g, struct err *e)
{
	enum archive_index k = archive_index_kind(m->name);
	unsigned char word[8];

	g->w = k == AR_GNU64 || k == AR_BSD64 ? 8 : 4;
	g->big = k == AR_GNU32 || k == AR_GNU64;
	g->stride = g->big ? (uint64_t)g->w : 2u * (uint64_t)g->w;
	g->at_off = g->big ? 0 : (uint64_t)g->w;
	if (m->size < (uint64_t)g->w || io_read_at(ar->fd, m->data, word, (size_t)g->w, e))
		return e->msg[0] ? -1 : err_set(e, "symbol index smaller than its count field");
	g->count = get_word(word, g->w, g->big) / (g->big ? 1 : g->stride);
	if (g->count > (m->size - (uint64_t)g->w) / g->stride)
		return err_set(e, "symbol index of %llu entries does not fit in its %llu bytes",
			       (unsigned long long)g->count, (unsigned long long)m->size);
	g->names = (uint64_t)g->w + g->count * g->stride + (g->big ? 0 : (uint64_t)g->w);
	return 0;
}

static int count_cmp(const void *a, const void *b)
{
	const struct archive_index_count *x = a, *y = b;

	return x->off < y->off       ? -1
	       : x->off > y->off     ? 1
	       : x->first < y->first ? -1
				     : x->first > y->first;
}

int archive_index_members(const struct archive *ar, const struct archive_member *m,
			  struct archive_index_count **out, size_t *nout, struct err *e)
{
	struct archive_index_count *v = NULL;
	unsigned char chunk[4096];
	struct index_geo g;
	size_t n = 0, cap = 0, k;
	uint64_t i, j, got;

	*out = NULL, *nout = 0;
	if (archive_check_index(ar, m, e) || index_geometry(ar, m, &g, e))
		return -1;
	for (i = 0; i < g.count; i += got) {
		got = g.count - i < sizeof chunk / g.stride ? g.count - i : sizeof chunk / g.stride;
		if (io_read_at(ar->fd, m->data + (uint64_t)g.w + i * g.stride, chunk,
			       (size_t)(got * g.stride), e))
			goto fail;
		for (j = 0; j < got; j++) {
			uint64_t off = get_word(chunk + j * g.stride + g.at_off, g.w, g.big);
			if (n &&
			    v[n - 1].off == off) { /* a member's symbols are usually together */
				v[n - 1].nsyms++;
				continue;
			}
			struct archive_index_count *nv = xgrow(v, &cap, n, sizeof *v);
			if (!nv) {
				err_oom(e);
				goto fail;
			}
			v = nv;
			v[n++] = (struct archive_index_count){off, 1, i + j};
		}
	}
	/* By offset, runs of one member merged (its first symbol kept). */
	if (n > 1)
		qsort(v, n, sizeof *v, count_cmp);
	for (i = k = 0; i < n; i++) {
		if (k && v[k - 1].off == v[i].off) {
			v[k - 1].nsyms += v[i].nsyms;
			if (v[i].first < v[k - 1].first)
				v[k - 1].first = v[i].first;
		} else {
			v[k++] = v[i];
		}
	}
	*out = v, *nout = k;
	return 0;
fail:
	free(v);
	return -1;
}

int archive_index_name(const struct archive *ar, const struct archive_member *m, uint64_t nth,
		       char *buf, size_t bufsz, struct err *e)
{
	unsigned char chunk[4096];
	struct index_geo g;
	uint64_t at, end = m->size, seen = 0;
	size_t len = 0;

	if (index_geometry(ar, m, &g, e))
		return -1;
	if (nth >= g.count || bufsz == 0)
		return err_set(e, "symbol %llu is not in the index", (unsigned long long)nth);
	if (g.big) {
		at = g.names;
	} else { /* BSD: the entry's string offset, into the table after its size */
		if (io_read_at(ar->fd, m->data + (uint64_t)g.w + nth * g.stride, chunk, (size_t)g.w,
			       e))
			return -1;
		at = g.names + get_word(chunk, g.w, 0);
		seen = nth;
	}
	while (at < end) {
		size_t piece = end - at < sizeof chunk ? (size_t)(end - at) : sizeof chunk;
		if (io_read_at(ar->fd, m->data + at, chunk, piece, e))
			return -1;
		for (size_t i = 0; i < piece; i++) {
			if (chunk[i] == '\0') {
				if (seen++ == nth) {
					buf[len] = '\0';
					return 0;
				}
				len = 0;
			} else if (seen == nth && len + 1 < bufsz) {
				buf[len++] = (char)chunk[i];
			}
		}
		at += piece;
	}
	return err_set(e, "symbol %llu has no name in the index", (unsigned long long)nth);
}
