/* SPDX-License-Identifier: MIT */
/* scan.c - find note areas (sections, PT_NOTE segments) and the dlopen notes in them. */
#include "note.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int push_area(struct scan *sc, const struct scan_area *a)
{
	struct scan_area *v = xgrow(sc->areas, &sc->areas_cap, sc->nareas, sizeof *v);

	if (!v)
		return -1;
	sc->areas = v;
	sc->areas[sc->nareas++] = *a;
	return 0;
}

static int push_item(struct scan *sc, const struct scan_item *it)
{
	struct scan_item *v = xgrow(sc->items, &sc->items_cap, sc->nitems, sizeof *v);

	if (!v)
		return -1;
	sc->items = v;
	sc->items[sc->nitems++] = *it;
	return 0;
}

/* Read an area and record each of its notes. */
static int walk_area(const struct elf *ef, struct scan *sc, struct scan_area *a, const char *what,
		     struct err *e)
{
	struct note_iter it;
	struct note n;
	struct scan_item item;
	unsigned char *data;
	int r;

	if (a->size > SCAN_MAX_AREA)
		return err_set(e, "%s is %llu bytes, more than any real note area (limit %u)", what,
			       (unsigned long long)a->size, SCAN_MAX_AREA);
	data = malloc(a->size ? a->size : 1);
	if (!data)
		return err_oom(e);
	if (elf_read(ef, a->off, a->size, data, e)) {
		free(data);
		return err_prefix(e, "%s: ", what);
	}
	note_iter_init(&it, data, a->size, a->align, ef->big);
	while ((r = note_next(&it, &n, e)) == 1) {
		item.off = a->off + n.off;
		item.size = n.size;
		item.desc_off = a->off + (uint64_t)(n.desc - data);
		item.descsz = n.descsz;
		item.dlopen = note_is_dlopen(&n);
		item.build_id = n.type == 3 && n.namesz == 4 && memcmp(n.name, "GNU", 4) == 0;
		item.misaligned = item.dlopen && a->align > 8;
		a->ndlopen += (size_t)item.dlopen;
		a->nmisaligned += (size_t)item.misaligned;
		if (push_item(sc, &item)) {
			r = err_oom(e);
			break;
		}
		a->n++;
	}
	free(data);
	return r < 0 ? err_prefix(e, "%s: ", what) : 0;
}

static int item_cmp(const void *x, const void *y)
{
	const struct scan_item *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* The section areas' indices sorted by file offset, so that a segment finds its sections in
 * O(log n) and the scan stays O(n log n) in sections. */
static int by_off(const void *x, const void *y, void *ctx)
{
	const struct scan *sc = ctx;
	const struct scan_area *a = &sc->areas[*(const size_t *)x],
			       *b = &sc->areas[*(const size_t *)y];

	return a->off < b->off                           ? -1
	       : a->off > b->off                         ? 1
	       : *(const size_t *)x < *(const size_t *)y ? -1
							 : 1;
}

static size_t *sections_by_offset(const struct scan *sc, size_t nsect)
{
	size_t *v = xcalloc(nsect + 1, sizeof *v);

	for (size_t i = 0; v && i < nsect; i++)
		v[i] = i;
	if (v && nsect > 1)
		qsort_r(v, nsect, sizeof *v, by_off, (void *)sc);
	return v;
}

/* When section headers describe every byte of a PT_NOTE, take its notes from those sections:
 * they know each note's own alignment, which a walk of a mixed-alignment segment (mold merges
 * 4- and 8-aligned notes) would get wrong.  `order`: the sections sorted by offset. */
static int segment_from_sections(struct scan *sc, struct scan_area *seg, const size_t *order,
				 size_t nsect, struct err *e)
{
	uint64_t pos = seg->off, end = seg->off + seg->size;
	size_t i, k, lo = 0, hi = nsect, first;
	int any = 0;

	while (lo < hi) { /* the first section at or after the segment's start */
		size_t mid = lo + (hi - lo) / 2;
		if (sc->areas[order[mid]].off < seg->off)
			lo = mid + 1;
		else
			hi = mid;
	}
	first = lo;
	/* Covered: contiguous sections from start to end, with at most 7 bytes of padding between.
	 * In offset order one pass finds them.  A segment no section lies in is walked by itself
	 * (a damaged one then fails). */
	for (i = first; i < nsect && sc->areas[order[i]].off < end; i++) {
		const struct scan_area *s = &sc->areas[order[i]];
		if (s->size && s->off + s->size <= end && s->off <= pos + 7 &&
		    s->off + s->size > pos) {
			pos = s->off + s->size;
			any = 1;
		}
	}
	if (!any || pos + 8 <= end)
		return 0;
	for (i = first; i < nsect && sc->areas[order[i]].off < end; i++) {
		const struct scan_area *s = &sc->areas[order[i]];
		if (s->off + s->size > end)
			continue;
		for (k = 0; k < s->n; k++) {
			struct scan_item copy = sc->items[s->first + k];
			if (push_item(sc, &copy))
				return err_oom(e);
			seg->n++;
			seg->ndlopen += (size_t)copy.dlopen;
			seg->nmisaligned += (size_t)copy.misaligned;
		}
	}
	qsort(sc->items + seg->first, seg->n, sizeof *sc->items, item_cmp);
	return 1;
}

int scan_file(const struct elf *ef, struct scan *sc, struct err *e)
{
	char name[64], what[96];
	struct scan_area a;
	size_t i, nsect, *order = NULL;
	int r;

	memset(sc, 0, sizeof *sc);
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		memset(&a, 0, sizeof a);
		a.named = elf_section_named(ef, i, SECTION_NAME);
		if ((sh->type != SHT_NOTE_ && !a.named) || sh->type == SHT_NOBITS_ ||
		    sh->type == SHT_NULL_)
			continue;
		a.kind = AREA_SECTION;
		a.index = i;
		a.off = sh->offset;
		a.size = sh->size;
		a.align = sh->addralign;
		a.first = sc->nitems;
		elf_section_name(ef, i, name, sizeof name);
		snprintf(what, sizeof what, "section [%zu] %s", i, name);
		if (walk_area(ef, sc, &a, what, e) || push_area(sc, &a))
			goto fail;
	}
	nsect = sc->nareas;
	if (nsect && !(order = sections_by_offset(sc, nsect)))
		goto fail;
	/* Program headers mean nothing in a relocatable object (gABI): its notes are its sections.
	 */
	for (i = 0; ef->type != ET_REL_ && i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		if (ph->type != PT_NOTE_)
			continue;
		memset(&a, 0, sizeof a);
		a.kind = AREA_SEGMENT;
		a.index = i;
		a.off = ph->offset;
		a.size = ph->filesz;
		a.align = ph->align;
		a.first = sc->nitems;
		r = nsect ? segment_from_sections(sc, &a, order, nsect, e) : 0;
		snprintf(what, sizeof what, "program header %zu (PT_NOTE)", i);
		if (r < 0 || (r == 0 && walk_area(ef, sc, &a, what, e)) || push_area(sc, &a))
			goto fail;
	}
	free(order);
	return 0;
fail:
	if (e->msg[0] == '\0')
		err_oom(e);
	free(order);
	scan_free(sc);
	return -1;
}

void scan_free(struct scan *sc)
{
	free(sc->areas);
	free(sc->items);
	memset(sc, 0, sizeof *sc);
}

static int ptr_cmp(const void *x, const void *y)
{
	const struct scan_item *a = *(const struct scan_item *const *)x,
			       *b = *(const struct scan_item *const *)y;

	return a->off < b->off ? -1 : a->off > b->off;
}

size_t scan_dlopen_notes(const struct scan *sc, const struct scan_item ***out)
{
	const struct scan_item **v = xcalloc(sc->nitems, sizeof *v);
	size_t i, n = 0, k = 0;

	*out = v;
	if (!v)
		return 0;
	for (i = 0; i < sc->nitems; i++)
		if (sc->items[i].dlopen)
			v[n++] = &sc->items[i];
	qsort(v, n, sizeof *v, ptr_cmp);
	for (i = 0; i < n; i++)
		if (k == 0 || v[k - 1]->off != v[i]->off)
			v[k++] = v[i];
	return k;
}

int scan_decode_item(const struct elf *ef, const struct scan_item *it, struct entries *out,
		     struct err *e)
{
	struct note n;
	unsigned char *desc = malloc(it->descsz ? it->descsz : 1);
	int r;

	if (!desc)
		return err_oom(e);
	memset(&n, 0, sizeof n);
	n.desc = desc;
	n.descsz = it->descsz;
	r = elf_read(ef, it->desc_off, it->descsz, desc, e);
	if (r == 0)
		r = note_decode(&n, out, e);
	free(desc);
	return r ? err_prefix(e, "dlopen note at offset 0x%llx: ", (unsigned long long)it->off) : 0;
}

/* The section holding a note is one every reader of sections finds and loads as the spec says. */
static int section_as_specified(const struct elf *ef, const struct scan_area *a)
{
	const struct elf_shdr *sh = &ef->sh[a->index];

	return a->named && a->n == a->ndlopen && sh->type == SHT_NOTE_ && sh->addralign == 4 &&
	       (sh->flags & SHF_ALLOC_) && !(sh->flags & SHF_WRITE_);
}

int scan_notes_in_place(const struct elf *ef, const struct scan *sc)
{
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(sc, &v), i;
	int linked = ef->type == ET_EXEC_ || ef->type == ET_DYN_, ok = v != NULL;

	for (i = 0; i < n && ok; i++) {
		const struct scan_area *s = scan_area_of(sc, AREA_SECTION, v[i]->off, v[i]->size),
				       *p = scan_area_of(sc, AREA_SEGMENT, v[i]->off, v[i]->size);
		if (ef->shnum && (!s || !section_as_specified(ef, s)))
			ok = 0;
		else if (linked && (!p || p->align != 4 || !elf_load_covering(ef, p->off, p->size)))
			ok = 0;
		else if (!linked && !ef->shnum)
			ok = 0;
	}
	free(v);
	return ok;
}

void scan_build_id(const struct elf *ef, const struct scan *sc, char hex[2 * 64 + 1])
{
	static const char digits[] = "0123456789abcdef";
	unsigned char id[64];
	struct err e = {0};

	hex[0] = '\0';
	for (size_t i = 0; i < sc->nitems; i++) {
		const struct scan_item *it = &sc->items[i];
		if (!it->build_id || !it->descsz || it->descsz > sizeof id ||
		    elf_read(ef, it->desc_off, it->descsz, id, &e))
			continue;
		for (uint32_t k = 0; k < it->descsz; k++) {
			hex[2 * k] = digits[id[k] >> 4];
			hex[2 * k + 1] = digits[id[k] & 15];
		}
		hex[2 * it->descsz] = '\0';
		return;
	}
}

/* The one sentence of scan_misaligned(): where, then why and the way out.  Brief: the same
 * words for every file of one cause (an archive's members: one line for all, their sections'
 * places under -v), no section index, offset or count. */
static void misaligned_where(const struct elf *ef, const struct scan *sc, int brief,
			     struct buf *why)
{
	size_t i, nsect = 0, nnotes = 0, said = 0;
	const struct scan_area *first = NULL;
	uint64_t align = 0;

	for (i = 0; i < sc->nareas; i++) {
		const struct scan_area *a = &sc->areas[i];
		if (!a->nmisaligned || (a->kind == AREA_SEGMENT && nsect))
			continue;
		if (a->kind == AREA_SECTION)
			nsect++;
		else if (first && first->kind == AREA_SEGMENT)
			continue; /* the sections' walk says it, or the first segment */
		first = first ? first : a;
		nnotes += a->nmisaligned;
		align = a->align > align ? a->align : align;
	}
	if (!first)
		return;
	if (brief) {
		buf_printf(why, "%s %s aligned to %llu, %s dlopen notes padded with zeros to that",
			   first->kind == AREA_SECTION ? SECTION_NAME : "PT_NOTE",
			   first->kind == AREA_SECTION ? "sections" : "program headers",
			   (unsigned long long)align, "their");
		return;
	}
	if (nsect > 1) {
		buf_printf(why, "%zu %s sections (", nsect, SECTION_NAME);
		for (i = 0; i < sc->nareas && said < 4; i++)
			if (sc->areas[i].kind == AREA_SECTION && sc->areas[i].nmisaligned)
				buf_printf(why, "%s[%zu]", said++ ? ", " : "", sc->areas[i].index);
		buf_printf(why, "%s) are aligned to %llu", nsect > 4 ? ", ..." : "",
			   (unsigned long long)align);
	} else if (first->kind == AREA_SECTION) {
		char name[64];
		elf_section_name(ef, first->index, name, sizeof name);
		buf_printf(why, "section [%zu] %s at offset 0x%llx is aligned to %llu",
			   first->index, name, (unsigned long long)first->off,
			   (unsigned long long)align);
	} else {
		buf_printf(why, "PT_NOTE program header %zu at offset 0x%llx is aligned to %llu",
			   first->index, (unsigned long long)first->off, (unsigned long long)align);
	}
	buf_printf(why, ", %s %zu dlopen note%s padded with zeros to that",
		   nsect > 1 ? "their" : "its", nnotes, nnotes == 1 ? "" : "s");
}

/* How many dlopen notes of the file are misaligned. */
static size_t misaligned_count(const struct scan *sc)
{
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(sc, &v), i, k = 0;

	for (i = 0; v && i < n; i++)
		k += (size_t)v[i]->misaligned;
	free(v);
	return k;
}

size_t scan_misaligned_where(const struct elf *ef, const struct scan *sc, struct buf *where)
{
	size_t n = misaligned_count(sc);

	if (n)
		misaligned_where(ef, sc, 0, where);
	return n;
}

/* scan_misaligned()'s sentence: where, then why and the way out. */
static void misaligned_sentence(const struct elf *ef, const struct scan *sc, int brief,
				struct buf *why)
{
	misaligned_where(ef, sc, brief, why);
	/* What a C++ compiler makes of a macro's note variable (openal-soft's OAL_ELF_NOTE_DLOPEN
	 * with GCC on x86-64: docs/layout.md, "Notes aligned beyond 8"). */
	buf_puts(why, ", as a compiler aligns a note variable written by a macro (openal-soft's "
		      "with GCC): readelf and dlopen-notes.py cannot read them; turn the code's "
		      "notes off, or let the tool rewrite them: dlnote-inject --merge -m MANIFEST "
		      "(an empty [] keeps just theirs), or --remove");
}

size_t scan_misaligned(const struct elf *ef, const struct scan *sc, int brief, struct buf *why)
{
	size_t n = misaligned_count(sc);

	if (n)
		misaligned_sentence(ef, sc, brief, why);
	return n;
}

/* Decode every distinct dlopen note into `out`.  Without `lost`, misaligned notes fail the file
 * with scan_misaligned()'s cause.  With it (--merge's salvage), a misaligned note that does not
 * decode is left out whole, none of its entries kept, its error line appended to `lost` and
 * counted in *nlost. */
static int decode_notes(const struct elf *ef, const struct scan *sc, struct entries *out,
			struct buf *lost, size_t *nlost, struct err *e)
{
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(sc, &v), i, misaligned = 0;
	int r = v ? 0 : err_oom(e);

	for (i = 0; i < n && r == 0; i++)
		misaligned += (size_t)v[i]->misaligned;
	if (r == 0 && misaligned && !lost) {
		struct buf why = {0};
		misaligned_sentence(ef, sc, 0, &why);
		r = why.oom ? err_oom(e) : err_set(e, "%.*s", (int)why.len, why.p);
		buf_free(&why);
	}
	for (i = 0; i < n && r == 0; i++) {
		size_t before = out->n;
		if (!lost || !v[i]->misaligned) {
			r = scan_decode_item(ef, v[i], out, e);
			continue;
		}
		e->msg[0] = '\0';
		if (scan_decode_item(ef, v[i], out, e) == 0)
			continue;
		if (e->msg[0] == '\0' || strcmp(e->msg, OOM_MESSAGE) == 0) {
			r = err_oom(e);
			break;
		}
		manifest_truncate(out, before); /* the entries parsed before the fault */
		buf_printf(lost, "%s\n", e->msg);
		++*nlost;
	}
	free(v);
	return r ? r : lost && lost->oom ? err_oom(e) : 0;
}

int scan_entries(const struct elf *ef, const struct scan *sc, struct entries *out, struct err *e)
{
	return decode_notes(ef, sc, out, NULL, NULL, e);
}

int scan_entries_salvage(const struct elf *ef, const struct scan *sc, struct entries *out,
			 struct buf *lost, size_t *nlost, struct err *e)
{
	*nlost = 0;
	return decode_notes(ef, sc, out, lost, nlost, e);
}

const struct scan_area *scan_area_of(const struct scan *sc, int kind, uint64_t off, uint64_t size)
{
	size_t i;

	for (i = 0; i < sc->nareas; i++) {
		const struct scan_area *a = &sc->areas[i];
		if (a->kind == kind && a->off <= off && off + size <= a->off + a->size)
			return a;
	}
	return NULL;
}

static void check_sections(const struct elf *ef, const struct scan *sc, struct buf *r,
			   size_t *errors)
{
	size_t i;

	for (i = 0; i < sc->nareas; i++) {
		const struct scan_area *a = &sc->areas[i];
		const struct elf_shdr *sh;
		if (a->kind != AREA_SECTION || (!a->named && !a->ndlopen))
			continue;
		sh = &ef->sh[a->index];
		if (!a->named) {
			buf_printf(r,
				   "warning: section [%zu] holds dlopen notes but is not named %s: "
				   "readers that look the section up by name (dlopen-notes.py, "
				   "dracut) will not see them\n",
				   a->index, SECTION_NAME);
			continue;
		}
		if (a->n == 0)
			continue; /* an empty .note.dlopen (left by --remove) is harmless */
		if (sh->type != SHT_NOTE_)
			buf_printf(r, "error: section [%zu] %s has type %u, not SHT_NOTE\n",
				   a->index, SECTION_NAME, sh->type),
				++*errors;
		if (!(sh->flags & SHF_ALLOC_))
			buf_printf(r,
				   "error: section [%zu] %s is not allocated (SHF_ALLOC), as the "
				   "spec requires\n",
				   a->index, SECTION_NAME),
				++*errors;
		if (sh->flags & SHF_WRITE_)
			buf_printf(r,
				   "error: section [%zu] %s is writable; the spec requires "
				   "read-only\n",
				   a->index, SECTION_NAME),
				++*errors;
		if (sh->addralign != 4 && !a->nmisaligned) /* else scan_misaligned() says it */
			buf_printf(
				r,
				"error: section [%zu] %s has alignment %llu; the spec requires 4\n",
				a->index, SECTION_NAME, (unsigned long long)sh->addralign),
				++*errors;
		if (a->n != a->ndlopen)
			buf_printf(r,
				   "warning: section [%zu] %s also holds notes that are not dlopen "
				   "notes\n",
				   a->index, SECTION_NAME);
	}
}

static uint64_t first_dlopen_of(const struct scan *sc, const struct scan_area *seg)
{
	for (size_t k = seg->first; k < seg->first + seg->n; k++)
		if (sc->items[k].dlopen)
			return sc->items[k].off;
	return UINT64_MAX;
}

/* Readers that walk PT_NOTE segments (systemd-analyze, ld.so) need the notes there. */
static void check_segments(const struct elf *ef, const struct scan *sc, const struct scan_item *it,
			   struct buf *r)
{
	const struct scan_area *seg = scan_area_of(sc, AREA_SEGMENT, it->off, it->size);

	if (it->misaligned)
		return; /* scan_misaligned() names the cause */
	if (!seg) {
		buf_printf(r,
			   "warning: dlopen note at offset 0x%llx is in no PT_NOTE segment: "
			   "readers of program headers (systemd-analyze) will not see it\n",
			   (unsigned long long)it->off);
		return;
	}
	if (seg->align != 4)
		buf_printf(r,
			   "warning: dlopen note at offset 0x%llx is in a PT_NOTE aligned to %llu: "
			   "readers walking it with that padding can misparse it\n",
			   (unsigned long long)it->off, (unsigned long long)seg->align);
	/* A linker puts every note of a linked file in one PT_NOTE: that is no problem of the
	 * file but on OpenBSD, whose ld.so skips a PT_NOTE over 1024 bytes (docs/background.md
	 * §2).  Said once per segment, of the segment's first dlopen note. */
	if (seg->n != seg->ndlopen && seg->size > 1024 && elf_is_openbsd(ef) &&
	    first_dlopen_of(sc, seg) == it->off)
		buf_printf(r,
			   "warning: program header %zu, a PT_NOTE of %llu bytes, holds dlopen "
			   "notes with other notes: OpenBSD ld.so skips PT_NOTE segments over 1024 "
			   "bytes; give the notes their own (dlnote-inject --merge)\n",
			   seg->index, (unsigned long long)seg->size);
	if (!elf_load_covering(ef, seg->off, seg->size))
		buf_printf(r,
			   "warning: PT_NOTE program header %zu lies in no PT_LOAD: it is not in "
			   "memory at run time\n",
			   seg->index);
}

size_t scan_check(const struct elf *ef, const struct scan *sc, int brief, struct buf *r)
{
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(sc, &v), i, errors = 0;
	struct entries es = {0};
	struct err e;
	struct buf why = {0};

	if (scan_misaligned(ef, sc, brief, &why))
		buf_printf(r, "error: %.*s\n", (int)why.len, why.p), errors++;
	buf_free(&why);
	check_sections(ef, sc, r, &errors);
	for (i = 0; i < n; i++) {
		e.msg[0] = '\0';
		if (scan_decode_item(ef, v[i], &es, &e))
			buf_printf(r, "error: %s\n", e.msg), errors++;
		if (ef->phnum && (ef->type == ET_EXEC_ || ef->type == ET_DYN_))
			check_segments(ef, sc, v[i], r);
	}
	manifest_free(&es);
	free(v);
	return errors;
}

int scan_dlopen_sections(const struct elf *ef, const struct scan *sc, unsigned char *isd,
			 struct err *e)
{
	size_t i;

	for (i = 0; i < sc->nareas; i++) {
		const struct scan_area *a = &sc->areas[i];
		char name[64];
		if (a->kind != AREA_SECTION || (!a->named && !a->ndlopen))
			continue;
		if (a->n != a->ndlopen) {
			elf_section_name(ef, a->index, name, sizeof name);
			return err_set(e,
				       "section [%zu] %s mixes dlopen notes with other notes; "
				       "rewriting it is not supported",
				       a->index, name);
		}
		isd[a->index] = 1;
	}
	return 0;
}
