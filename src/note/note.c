/* SPDX-License-Identifier: MIT */
/* note.c - note bytes <-> entries. */
#include "note.h"

#include <string.h>

static void put32(unsigned char *p, uint32_t v, int big)
{
	int i;

	for (i = 0; i < 4; i++)
		p[big ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p, int big)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v |= (uint32_t)p[big ? 3 - i : i] << (8 * i);
	return v;
}

int note_encode(const struct entries *es, int big, struct buf *out, struct err *e)
{
	struct buf payload = {0};
	unsigned char hdr[16];
	uint64_t descsz;

	if (es->n == 0)
		return 0;
	manifest_serialize(es, &payload);
	buf_putc(&payload, '\0');
	descsz = payload.len;
	if (payload.oom || descsz > MANIFEST_MAX_BYTES) {
		int oom = payload.oom;
		buf_free(&payload);
		return oom ? err_oom(e)
			   : err_set(e, "the entries make a note larger than %u bytes",
				     MANIFEST_MAX_BYTES);
	}
	put32(hdr, 4, big);
	put32(hdr + 4, (uint32_t)descsz, big);
	put32(hdr + 8, NOTE_DLOPEN_TYPE, big);
	memcpy(hdr + 12, NOTE_DLOPEN_OWNER, 4);
	buf_put(out, hdr, sizeof hdr);
	buf_put(out, payload.p, payload.len);
	buf_zero(out, (size_t)(align_up(descsz, 4) - descsz));
	buf_free(&payload);
	return out->oom ? err_oom(e) : 0;
}

void note_iter_init(struct note_iter *it, const void *area, uint64_t len, uint64_t align, int big)
{
	it->p = area;
	it->len = len;
	it->off = 0;
	it->align = align == 8 ? 8 : 4; /* gABI: 4; 8 is used by NT_GNU_PROPERTY_TYPE_0 areas */
	/* A C++ macro's note variable that the compiler aligned to 32 (GCC on x86-64 aligns
	 * objects of 32 bytes or more so) starts each note at a multiple of 32 and fills the gap
	 * with zeros: gABI readers stop there, the scan steps over it to name the notes. */
	it->gap = align > 8 && align <= 4096 && !(align & (align - 1)) ? align : 0;
	it->big = big;
}

int note_next(struct note_iter *it, struct note *n, struct err *e)
{
	uint64_t left, name_end, desc_end;

	if (it->gap)
		for (uint64_t stop = align_up(it->off, it->gap);
		     it->off < stop && it->off + 4 <= it->len && !get32(it->p + it->off, 0);)
			it->off += 4;
	if (it->off >= it->len)
		return 0;
	left = it->len - it->off;
	if (left < 12) {
		/* Trailing alignment padding is not a note. */
		for (; it->off < it->len; it->off++)
			if (it->p[it->off])
				return err_set(e, "truncated note header at offset 0x%llx",
					       (unsigned long long)it->off);
		return 0;
	}
	n->off = it->off;
	n->namesz = get32(it->p + it->off, it->big);
	n->descsz = get32(it->p + it->off + 4, it->big);
	n->type = get32(it->p + it->off + 8, it->big);
	/* The descriptor starts at the next aligned offset after the name (gABI; GNU property notes
	 * use 8), which for 4-byte alignment is the same as padding the name to 4. */
	name_end = align_up(12 + (uint64_t)n->namesz, it->align);
	if (name_end > left)
		return err_set(e, "note at offset 0x%llx: name size %u runs past the note area",
			       (unsigned long long)it->off, n->namesz);
	desc_end = name_end + (uint64_t)n->descsz;
	if (desc_end > left)
		return err_set(e,
			       "note at offset 0x%llx: descriptor size %u runs past the note area",
			       (unsigned long long)it->off, n->descsz);
	n->name = it->p + it->off + 12;
	n->desc = it->p + it->off + name_end;
	desc_end = align_up(desc_end, it->align);
	n->size = desc_end < left ? desc_end : left;
	it->off += n->size;
	return 1;
}

int note_is_dlopen(const struct note *n)
{
	return n->type == NOTE_DLOPEN_TYPE && n->namesz == 4 &&
	       memcmp(n->name, NOTE_DLOPEN_OWNER, 4) == 0;
}

int note_decode(const struct note *n, struct entries *out, struct err *e)
{
	const unsigned char *nul = memchr(n->desc, 0, n->descsz);
	uint64_t i, len;

	if (!nul)
		return err_set(e, "payload is not NUL-terminated");
	len = (uint64_t)(nul - n->desc);
	for (i = len; i < n->descsz; i++)
		if (n->desc[i])
			return err_set(e, "payload has bytes after its terminating NUL");
	if (len > MANIFEST_MAX_BYTES)
		return err_set(e, "payload larger than %u bytes", MANIFEST_MAX_BYTES);
	return manifest_parse((const char *)n->desc, (size_t)len, out, e);
}
