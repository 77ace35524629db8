/* layout.c - plan where the note goes, for relocatable objects and for linked files.
 *
 * Order of decisions (shared/REFERENCE.md §4):
 *   1. which existing sections and segments hold dlopen notes (they are ours to rewrite);
 *   2. where the note goes: where the old one was if it fits, else our own segment at the end of
 *      the file (grown), else a new PT_LOAD;
 *   3. where the program headers go: where they are if the new table fits (free slots), else
 *      into that segment, placed so that old kernels and qemu-user still find them;
 *   4. what follows the last input byte we keep: segment, section-name table, section headers.
 * Nothing allocated moves.  The plan is a list of byte patches over a prefix of the input. */
#include "layout.h"

#include <stdlib.h>
#include <string.h>

enum where { NOTE_NONE, NOTE_INPLACE, NOTE_SEGMENT, NOTE_TAIL };

struct lay {
	const struct elf *ef;
	const struct scan *sc;
	struct plan *pl;
	struct err *e;
	const unsigned char *note;
	uint64_t notesz;
	int linked;

	/* sections: the new table, the dlopen sections (D) and the one receiving the note */
	struct elf_shdr *sh;
	size_t shnum;
	unsigned char *isd;
	size_t target;             /* 0: none */
	int new_section, move_shstr;
	uint32_t name_off;

	/* program headers: the new table */
	struct elf_phdr *ph;
	size_t phnum;
	long own;                  /* input index of our own PT_LOAD, or -1 */
	int pht_in_seg, seg;       /* the PHT lives in the segment; a segment is laid out */
	long seg_ph, note_ph;      /* their indices in the new table, or -1 */

	enum where where;
	uint64_t note_off, note_vaddr;
	uint64_t keep, seg_off, seg_vaddr, seg_size, seg_align, shstr_off, shoff;
};

/* ---- patches ---- */

static int add_patch(struct lay *L, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	struct plan *pl = L->pl;
	struct patch *p;

	if (len == 0)
		return 0;
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 16;
		p = xrealloc(pl->p, cap, sizeof *p);
		if (!p)
			return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
		pl->p = p;
		pl->cap = cap;
	}
	p = &pl->p[pl->n];
	memset(p, 0, sizeof *p);
	p->off = off;
	p->len = len;
	p->src = src;
	if (data) {
		p->data = malloc(len);
		if (!p->data)
			return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
		memcpy(p->data, data, len);
	}
	pl->n++;
	return 0;
}

/* Zero input bytes that stay in the output (those past `keep` are dropped anyway). */
static int zero_range(struct lay *L, uint64_t off, uint64_t len)
{
	if (off >= L->keep)
		return 0;
	if (off + len > L->keep)
		len = L->keep - off;
	return add_patch(L, off, len, NULL, PATCH_ZERO);
}

void layout_free(struct plan *pl)
{
	size_t i;

	for (i = 0; i < pl->n; i++)
		free(pl->p[i].data);
	free(pl->p);
	buf_free(&pl->log);
	memset(pl, 0, sizeof *pl);
}

/* ---- facts about the input ---- */

static const struct elf_phdr *load_covering(const struct elf *ef, uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		if (ph->type == PT_LOAD_ && ph->offset <= off && off + len <= ph->offset + ph->filesz)
			return ph;
	}
	return NULL;
}

static int overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return alen && blen && a < b + blen && b < a + alen;
}

static uint64_t pht_bytes(const struct elf *ef, size_t n)
{
	return (uint64_t)n * elf_phent_size(ef);
}

/* Our own segment: the highest PT_LOAD, read-only, last in the file, holding nothing but the
 * program headers and dlopen notes.  It is recognized by its content, with no marker. */
static long find_own(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct elf_phdr *best = NULL;
	uint64_t pos, end;
	size_t i;
	long idx = -1;
	int progress = 1;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		if (ph->type != PT_LOAD_)
			continue;
		if (!best || ph->vaddr > best->vaddr)
			best = ph, idx = (long)i;
	}
	if (!best || (best->flags & PF_W_) || best->filesz != best->memsz || best->filesz == 0)
		return -1;
	for (i = 0; i < ef->phnum; i++)
		if (ef->ph[i].type == PT_LOAD_ && ef->ph[i].offset + ef->ph[i].filesz > best->offset && (long)i != idx)
			return -1;
	/* Everything in it must be the PHT or dlopen notes, with at most 7 bytes of padding. */
	pos = best->offset;
	end = best->offset + best->filesz;
	while (progress && pos < end) {
		progress = 0;
		if (ef->phoff <= pos + 7 && ef->phoff + pht_bytes(ef, ef->phnum) > pos && ef->phoff >= best->offset) {
			pos = ef->phoff + pht_bytes(ef, ef->phnum);
			progress = 1;
		}
		for (i = 0; i < L->sc->nitems; i++) {
			const struct scan_item *it = &L->sc->items[i];
			if (it->dlopen && it->off >= best->offset && it->off <= pos + 7 && it->off + it->size > pos) {
				pos = it->off + it->size;
				progress = 1;
			}
		}
	}
	if (pos + 8 <= end)
		return -1;
	for (i = 1; i < ef->shnum; i++)
		if (!L->isd[i] && ef->sh[i].type != SHT_NOBITS_ && overlaps(ef->sh[i].offset, ef->sh[i].size, best->offset, best->filesz))
			return -1;
	return idx;
}

static int in_own(const struct lay *L, uint64_t off)
{
	const struct elf_phdr *o = L->own >= 0 ? &L->ef->ph[L->own] : NULL;

	return o && off >= o->offset && off < o->offset + o->filesz;
}

/* ---- step 1: the dlopen sections ---- */

static int find_dlopen_sections(struct lay *L)
{
	const struct scan *sc = L->sc;
	size_t i;

	L->isd = xcalloc(L->ef->shnum ? L->ef->shnum : 1, 1);
	if (!L->isd)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	for (i = 0; i < sc->nareas; i++) {
		const struct scan_area *a = &sc->areas[i];
		char name[64];
		if (a->kind != AREA_SECTION || (!a->named && !a->ndlopen))
			continue;
		if (a->n != a->ndlopen) {
			elf_section_name(L->ef, a->index, name, sizeof name);
			return err_set(L->e, EXIT_BAD_INPUT,
				       "section [%zu] %s mixes dlopen notes with other notes; rewriting it is not supported", a->index, name);
		}
		L->isd[a->index] = 1;
		if (!L->target)
			L->target = a->index;
	}
	/* The note goes into the first section named .note.dlopen, else the first D. */
	for (i = 0; i < sc->nareas; i++)
		if (sc->areas[i].kind == AREA_SECTION && sc->areas[i].named && L->isd[sc->areas[i].index]) {
			L->target = sc->areas[i].index;
			break;
		}
	return 0;
}

/* ---- already done? ---- */

/* The file already holds exactly this note, the way we would write it: one dlopen note, alone in
 * a correct .note.dlopen section and (linked files) alone in its own 4-aligned PT_NOTE inside a
 * read-only PT_LOAD.  Then nothing is written (idempotence). */
static int already_done(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct scan_item **v;
	const struct elf_phdr *ld;
	size_t n = scan_dlopen_notes(L->sc, &v), i, sec = 0, segs = 0;
	uint64_t off, vaddr = 0;
	unsigned char *cur = NULL;
	struct err ignore;
	int ok = 0;

	if (!v)
		return 0;
	if (L->notesz == 0) {
		free(v);
		return n == 0;
	}
	if (n != 1 || v[0]->size != L->notesz)
		goto out;
	off = v[0]->off;
	cur = malloc(L->notesz);
	if (!cur || elf_read(ef, off, L->notesz, cur, &ignore) || memcmp(cur, L->note, L->notesz))
		goto out;
	for (i = 1; i < ef->shnum; i++) {
		if (!L->isd[i] || ef->sh[i].size == 0)
			continue;
		if (sec || ef->sh[i].offset != off || ef->sh[i].size != L->notesz || i != L->target)
			goto out;
		sec = i;
	}
	if (ef->shnum) {
		const struct elf_shdr *sh = &ef->sh[sec];
		if (!sec || sh->type != SHT_NOTE_ || sh->addralign != 4 || !(sh->flags & SHF_ALLOC_) || (sh->flags & SHF_WRITE_))
			goto out;
	}
	if (L->linked) {
		/* Exactly one PT_NOTE touches the note, and it covers it exactly. */
		for (i = 0; i < ef->phnum; i++) {
			const struct elf_phdr *p = &ef->ph[i];
			if (p->type != PT_NOTE_ || !overlaps(p->offset, p->filesz, off, L->notesz))
				continue;
			if (p->offset != off || p->filesz != L->notesz || p->align != 4)
				goto out;
			vaddr = p->vaddr;
			segs++;
		}
		ld = load_covering(ef, off, L->notesz);
		if (segs != 1 || !ld || (ld->flags & PF_W_) || vaddr - ld->vaddr != off - ld->offset)
			goto out;
		if (sec && ef->sh[sec].addr != vaddr)
			goto out;
	}
	ok = 1;
out:
	free(cur);
	free(v);
	return ok;
}

/* ---- step 2: where the note goes ---- */

/* Candidate places for an in-place rewrite: the old dlopen sections, or (no section headers)
 * the runs of dlopen notes found through PT_NOTE. */
static int place_in_place(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct elf_phdr *ld;
	size_t i;

	if (ef->shnum) {
		for (i = 1; i < ef->shnum; i++) {
			if (!L->isd[i] || ef->sh[i].size < L->notesz || (i != L->target && L->target && ef->sh[L->target].size >= L->notesz))
				continue;
			ld = L->linked ? load_covering(ef, ef->sh[i].offset, L->notesz) : NULL;
			if (L->linked && (!ld || (ld->flags & PF_W_)))
				continue;
			L->target = i;
			L->note_off = ef->sh[i].offset;
			L->note_vaddr = ld ? ld->vaddr + (L->note_off - ld->offset) : 0;
			return 1;
		}
		return 0;
	}
	for (i = 0; i < L->sc->nareas; i++) {
		const struct scan_area *a = &L->sc->areas[i];
		if (a->kind != AREA_SEGMENT || a->n == 0 || a->n != a->ndlopen || a->size < L->notesz)
			continue;
		ld = load_covering(ef, a->off, L->notesz);
		if (!ld || (ld->flags & PF_W_))
			continue;
		L->note_off = a->off;
		L->note_vaddr = ld->vaddr + (a->off - ld->offset);
		return 1;
	}
	return 0;
}

/* ---- step 3: the new program header table ---- */

static int push_ph(struct lay *L, const struct elf_phdr *ph)
{
	struct elf_phdr *v = xrealloc(L->ph, L->phnum + 1, sizeof *v);

	if (!v)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	L->ph = v;
	L->ph[L->phnum++] = *ph;
	return 0;
}

static int insert_ph(struct lay *L, size_t at, const struct elf_phdr *ph)
{
	if (push_ph(L, ph))
		return -1;
	memmove(&L->ph[at + 1], &L->ph[at], (L->phnum - 1 - at) * sizeof *L->ph);
	L->ph[at] = *ph;
	if (L->seg_ph >= (long)at)
		L->seg_ph++;
	if (L->note_ph >= (long)at)
		L->note_ph++;
	return 0;
}

static size_t after_last(const struct lay *L, uint32_t type)
{
	size_t i, at = 0;
	int found = 0;

	for (i = 0; i < L->phnum; i++)
		if (L->ph[i].type == type)
			at = i + 1, found = 1;
	return found ? at : L->phnum;
}

/* A PT_NOTE that mixes dlopen notes with others keeps only the runs of other notes: the dlopen
 * note gets its own PT_NOTE (OpenBSD ld.so, mold's 8-aligned merge; REFERENCE §2-3). */
static int split_note_segment(struct lay *L, const struct elf_phdr *ph, const struct scan_area *a)
{
	const struct scan_item *it = L->sc->items + a->first;
	struct elf_phdr run;
	size_t i = 0, k;

	while (i < a->n) {
		if (it[i].dlopen) {
			i++;
			continue;
		}
		for (k = i; k + 1 < a->n && !it[k + 1].dlopen; k++)
			;
		run = *ph;
		run.offset = it[i].off;
		run.vaddr = ph->vaddr + (it[i].off - ph->offset);
		run.paddr = ph->paddr + (it[i].off - ph->offset);
		run.filesz = run.memsz = it[k].off + it[k].size - it[i].off;
		if (push_ph(L, &run))
			return -1;
		i = k + 1;
	}
	return 0;
}

static int build_phdrs(struct lay *L, int rebuild_own)
{
	const struct elf *ef = L->ef;
	size_t i;

	free(L->ph);
	L->ph = NULL;
	L->phnum = 0;
	L->seg_ph = L->note_ph = -1;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		const struct scan_area *a = NULL;
		size_t k;
		if (ph->type == PT_NULL_ || (rebuild_own && (long)i == L->own))
			continue;                       /* free slots, and the segment we rebuild */
		if (ph->type == PT_NOTE_) {
			for (k = 0; k < L->sc->nareas; k++)
				if (L->sc->areas[k].kind == AREA_SEGMENT && L->sc->areas[k].index == i)
					a = &L->sc->areas[k];
			if (a && a->ndlopen) {
				if (split_note_segment(L, ph, a))
					return -1;
				continue;
			}
		}
		if (push_ph(L, ph))
			return -1;
	}
	if (L->seg) {
		struct elf_phdr load = { .type = PT_LOAD_, .flags = PF_R_ };
		if (insert_ph(L, after_last(L, PT_LOAD_), &load))
			return -1;
		L->seg_ph = (long)after_last(L, PT_LOAD_) - 1;
	}
	if (L->notesz) {
		struct elf_phdr pn = { .type = PT_NOTE_, .flags = PF_R_, .align = 4 };
		size_t at = after_last(L, PT_NOTE_);
		if (at == L->phnum)
			at = after_last(L, PT_LOAD_);
		if (insert_ph(L, at, &pn))
			return -1;
		L->note_ph = (long)at;
	}
	return 0;
}

/* How many entries fit where the PHT is: its own slots, plus zeroed bytes right after it that
 * no section or segment uses (slots freed by an earlier --remove).  Only with section headers,
 * which are what tells us the bytes are unused. */
static size_t pht_capacity(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t es = elf_phent_size(ef), end = ef->phoff + pht_bytes(ef, ef->phnum), limit;
	const struct elf_phdr *ld = load_covering(ef, ef->phoff, pht_bytes(ef, ef->phnum));
	unsigned char buf[16 * 56];
	struct err ignore;
	size_t i, room;

	if (!ef->shnum || !ld)
		return ef->phnum;
	limit = ld->offset + ld->filesz;
	if (limit > end + sizeof buf)
		limit = end + sizeof buf;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || s->size == 0)
			continue;
		if (s->offset < end && s->offset + s->size > end)
			return ef->phnum;
		if (s->offset >= end && s->offset < limit)
			limit = s->offset;
	}
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_LOAD_ || p->type == PT_PHDR_ || p->type == PT_NULL_ || p->filesz == 0)
			continue;
		if (p->offset < end && p->offset + p->filesz > end)
			return ef->phnum;
		if (p->offset >= end && p->offset < limit)
			limit = p->offset;
	}
	room = (size_t)((limit - end) / es);
	if (room == 0 || elf_read(ef, end, room * es, buf, &ignore))
		return ef->phnum;
	for (i = 0; i < room * es; i++)
		if (buf[i])
			return ef->phnum + i / es;
	return ef->phnum + room;
}

/* ---- step 4: the tail ---- */

/* The end of everything we keep in place.  Bytes after it that are ours (old section headers,
 * an old copy of the name table, our old segment) are dropped; anything unknown is kept. */
static uint64_t compute_keep(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t keep = elf_ehdr_size(ef), owned_end;
	size_t i;

	if (ef->phnum && !in_own(L, ef->phoff) && ef->phoff + pht_bytes(ef, ef->phnum) > keep)
		keep = ef->phoff + pht_bytes(ef, ef->phnum);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || p->type == PT_PHDR_ || (long)i == L->own)
			continue;
		if (in_own(L, p->offset))
			continue;
		if (p->offset + p->filesz > keep)
			keep = p->offset + p->filesz;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || s->size == 0 || in_own(L, s->offset))
			continue;
		if (L->isd[i] && !(i == L->target && L->where == NOTE_INPLACE))
			continue;
		if (i == ef->shstrndx && L->move_shstr)
			continue;
		if (s->offset + s->size > keep)
			keep = s->offset + s->size;
	}
	if (ef->shnum && L->shoff == ef->shoff && keep < ef->shoff + ef->shnum * elf_shent_size(ef))
		keep = ef->shoff + ef->shnum * elf_shent_size(ef);
	/* What lies between keep and the end must be ours or padding, else it is kept. */
	owned_end = keep;
	for (;;) {
		uint64_t next = owned_end;
		if (ef->shnum && ef->shoff >= owned_end && ef->shoff < owned_end + 64)
			next = ef->shoff + ef->shnum * elf_shent_size(ef);
		if (L->move_shstr && ef->sh[ef->shstrndx].offset >= owned_end && ef->sh[ef->shstrndx].offset < owned_end + 64)
			next = ef->sh[ef->shstrndx].offset + ef->sh[ef->shstrndx].size;
		/* Before our segment lies our own sparse gap (see place_segment), of any size. */
		if (L->own >= 0 && ef->ph[L->own].offset >= owned_end)
			next = ef->ph[L->own].offset + ef->ph[L->own].filesz;
		for (i = 1; i < ef->shnum; i++)
			if (L->isd[i] && ef->sh[i].offset >= owned_end && ef->sh[i].offset < owned_end + 64 && ef->sh[i].offset + ef->sh[i].size > next)
				next = ef->sh[i].offset + ef->sh[i].size;
		if (next <= owned_end)
			break;
		owned_end = next;
	}
	if (owned_end < ef->size) {
		/* Only zero padding may follow. */
		unsigned char pad[64];
		struct err ignore;
		uint64_t k, n = ef->size - owned_end;
		if (n > sizeof pad || elf_read(ef, owned_end, n, pad, &ignore))
			return ef->size;
		for (k = 0; k < n; k++)
			if (pad[k])
				return ef->size;
	}
	return keep;
}

/* Place the segment: above every PT_LOAD in memory, after `keep` in the file, with
 * p_offset = p_vaddr (mod p_align).  When it carries the PHT, p_vaddr - p_offset equals the
 * first PT_LOAD's, so that kernels before 2022 and qemu-user, which compute AT_PHDR as
 * first-load bias + e_phoff, find it (REFERENCE §4).  The file gap this may need stays sparse. */
static int place_segment(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct elf_phdr *first = NULL;
	uint64_t vend = 0, align = elf_max_page(ef), bias, vmin, off, vaddr, limit;
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_LOAD_ || (long)i == L->own)
			continue;
		if (!first)
			first = p;
		if (p->vaddr + p->memsz > vend)
			vend = p->vaddr + p->memsz;
		if (p->align > align)
			align = p->align;
	}
	if (!first)
		return err_set(L->e, EXIT_BAD_INPUT, "no PT_LOAD segment: cannot place the note in memory");
	if (align & (align - 1))
		return err_set(L->e, EXIT_BAD_INPUT, "PT_LOAD alignment %llu is not a power of two", (unsigned long long)align);
	bias = first->vaddr - first->offset;
	vmin = align_up(vend, align);
	limit = ef->is64 ? UINT64_MAX : UINT32_MAX;
	if (L->own >= 0 && ef->ph[L->own].offset >= L->keep &&
	    (!L->pht_in_seg || ef->ph[L->own].vaddr - ef->ph[L->own].offset == bias)) {
		/* Grow our own segment where it is. */
		off = ef->ph[L->own].offset;
		vaddr = ef->ph[L->own].vaddr;
		align = ef->ph[L->own].align;
	} else if (L->pht_in_seg) {
		if (bias % align)
			return err_set(L->e, EXIT_BAD_INPUT, "first PT_LOAD bias 0x%llx is not aligned to 0x%llx: cannot place the program headers",
				       (unsigned long long)bias, (unsigned long long)align);
		off = align_up(L->keep, 8);
		if (vmin - bias > off && vmin > bias)
			off = vmin - bias;
		vaddr = off + bias;
	} else {
		off = align_up(L->keep, 4);
		vaddr = vmin + off % align;
	}
	if (vaddr < vend || vaddr > limit || L->seg_size > limit - vaddr)
		return err_set(L->e, EXIT_BAD_INPUT, "no room in the address space for a new segment above 0x%llx", (unsigned long long)vend);
	L->seg_off = off;
	L->seg_vaddr = vaddr;
	L->seg_align = align;
	(void)first;
	return 0;
}

/* ---- sections ---- */

/* Reuse ".note.dlopen" if the name table already has it (as a whole string); else the table is
 * copied to the tail with the name appended. */
static int find_name(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct elf_shdr *st = &ef->sh[ef->shstrndx];
	static const char want[] = SECTION_NAME;          /* with its NUL */
	unsigned char chunk[4096];
	uint64_t base = 0, n, k;
	struct err ignore;

	if (ef->shstrndx == 0 || st->type != SHT_STRTAB_)
		return err_set(L->e, EXIT_BAD_INPUT, "no section name table (e_shstrndx): cannot name a new section");
	/* Chunks overlap by sizeof want, so a match across a boundary is seen whole once. */
	while (base < st->size) {
		n = st->size - base < sizeof chunk ? st->size - base : sizeof chunk;
		if (elf_read(ef, st->offset + base, n, chunk, &ignore))
			break;
		for (k = 0; k + sizeof want <= n; k++)
			if (memcmp(chunk + k, want, sizeof want) == 0 && (base + k == 0 || (k > 0 && chunk[k - 1] == 0))) {
				L->name_off = (uint32_t)(base + k);
				return 0;
			}
		if (base + n >= st->size)
			break;
		base += n - sizeof want;
	}
	if (st->size + sizeof want > UINT32_MAX)
		return err_set(L->e, EXIT_BAD_INPUT, "section name table too large");
	L->name_off = (uint32_t)st->size;
	L->move_shstr = 1;
	return 0;
}

static int setup_sections(struct lay *L)
{
	const struct elf *ef = L->ef;

	if (!ef->shnum)
		return 0;
	L->new_section = L->notesz && !L->target;
	L->shnum = ef->shnum + (size_t)L->new_section;
	L->sh = xcalloc(L->shnum, sizeof *L->sh);
	if (!L->sh)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	memcpy(L->sh, ef->sh, ef->shnum * sizeof *L->sh);
	if (L->new_section) {
		if (find_name(L))
			return -1;
		L->target = ef->shnum;
		L->sh[L->target].name = L->name_off;
	}
	return 0;
}

static void finish_sections(struct lay *L)
{
	size_t i;

	for (i = 1; i < L->ef->shnum; i++)
		if (L->isd[i] && i != L->target)
			L->sh[i].size = 0;             /* emptied: no notes, nothing to fix up */
	if (!L->sh || !L->target)
		return;
	if (!L->notesz) {
		L->sh[L->target].size = 0;
		return;
	}
	L->sh[L->target].type = SHT_NOTE_;
	L->sh[L->target].flags = (L->sh[L->target].flags & ~(uint64_t)(SHF_WRITE_ | SHF_EXECINSTR_)) | SHF_ALLOC_;
	L->sh[L->target].addr = L->linked ? L->note_vaddr : 0;
	L->sh[L->target].offset = L->note_off;
	L->sh[L->target].size = L->notesz;
	L->sh[L->target].addralign = 4;
	L->sh[L->target].entsize = 0;
	if (L->move_shstr)
		L->sh[L->ef->shstrndx].offset = L->shstr_off, L->sh[L->ef->shstrndx].size += sizeof SECTION_NAME;
}

/* Symbols defined in a rewritten dlopen section must stay inside it (eu-elflint checks this):
 * those that no longer fit are moved to its start with size 0.  Symbol tables are streamed. */
static int fix_symbols(struct lay *L)
{
	const struct elf *ef = L->ef;
	size_t es = elf_sym_size(ef), t, i, k, nsym;
	unsigned char chunk[256 * 24], xs[256 * 4], out[24];
	uint64_t idx;
	struct elf_sym s;

	for (t = 1; t < ef->shnum; t++) {
		const struct elf_shdr *st = &ef->sh[t], *xt = NULL;
		if (st->type != SHT_SYMTAB_ && st->type != SHT_DYNSYM_)
			continue;
		if (st->entsize != es)
			continue;
		for (k = 1; k < ef->shnum; k++)
			if (ef->sh[k].type == SHT_SYMTAB_SHNDX_ && ef->sh[k].link == t)
				xt = &ef->sh[k];
		nsym = (size_t)(st->size / es);
		for (i = 0; i < nsym; i += 256) {
			size_t n = nsym - i < 256 ? nsym - i : 256;
			if (elf_read(ef, st->offset + i * es, n * es, chunk, L->e))
				return -1;
			if (xt && (xt->size < (i + n) * 4 || elf_read(ef, xt->offset + i * 4, n * 4, xs, L->e)))
				xt = NULL;
			for (k = 0; k < n; k++) {
				const struct elf_shdr *d;
				uint64_t start;
				elf_decode_sym(ef, chunk + k * es, &s);
				idx = s.shndx == SHN_XINDEX_ && xt ? elf_get(ef, xs + k * 4, 4) : s.shndx;
				if (idx == 0 || idx >= ef->shnum || !L->isd[idx] || (s.shndx >= SHN_LORESERVE_ && s.shndx != SHN_XINDEX_))
					continue;
				d = &L->sh[idx];
				start = L->linked ? d->addr : 0;
				if ((s.info & 0xf) == STT_SECTION_ ? s.value == start :
				    (s.value >= start && s.value - start <= d->size && s.size <= d->size - (s.value - start)))
					continue;
				if (st->type == SHT_DYNSYM_)
					return err_set(L->e, EXIT_BAD_INPUT, "dynamic symbol %zu points into the dlopen note, which would move", i + k);
				s.value = start;
				s.size = 0;
				elf_encode_sym(ef, &s, out);
				if (add_patch(L, st->offset + (i + k) * es, es, out, 0))
					return -1;
			}
		}
	}
	return 0;
}

/* ---- emitting ---- */

static int emit_headers(struct lay *L)
{
	const struct elf *ef = L->ef;
	struct elf model = *ef;
	unsigned char eh[64], ent[64];
	size_t i, phes = elf_phent_size(ef), shes = elf_shent_size(ef);
	unsigned char *pht;
	uint16_t e_phnum, e_shnum, e_shstrndx;

	/* Program headers: whole table (it is small). */
	if (L->linked) {
		pht = xcalloc(L->phnum, phes);
		if (!pht)
			return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
		for (i = 0; i < L->phnum; i++)
			elf_encode_phdr(ef, &L->ph[i], pht + i * phes);
		if (!L->pht_in_seg && L->phnum < ef->phnum && zero_range(L, ef->phoff, pht_bytes(ef, ef->phnum)))
			return free(pht), -1;
		if (add_patch(L, model.phoff = L->pht_in_seg ? L->seg_off : ef->phoff, L->phnum * phes, pht, 0)) {
			free(pht);
			return -1;
		}
		free(pht);
		model.phnum = L->phnum;
	}
	/* Section headers: copy the old table if it moves, then write the entries that changed. */
	if (ef->shnum) {
		if (L->shoff != ef->shoff && add_patch(L, L->shoff, ef->shnum * shes, NULL, ef->shoff))
			return -1;
		if (L->shnum >= SHN_LORESERVE_)
			L->sh[0].size = L->shnum;
		else if (ef->sh[0].size == ef->shnum && ef->shnum >= SHN_LORESERVE_)
			L->sh[0].size = 0;
		if (model.phnum >= PN_XNUM_)
			L->sh[0].info = (uint32_t)model.phnum;
		for (i = 0; i < L->shnum; i++) {
			if (i < ef->shnum && memcmp(&L->sh[i], &ef->sh[i], sizeof *L->sh) == 0)
				continue;
			elf_encode_shdr(ef, &L->sh[i], ent);
			if (add_patch(L, L->shoff + i * shes, shes, ent, 0))
				return -1;
		}
		model.shoff = L->shoff;
		model.shnum = L->shnum;
	} else if (model.phnum >= PN_XNUM_) {
		return err_set(L->e, EXIT_BAD_INPUT, "too many program headers for a file without section headers");
	}
	e_phnum = model.phnum >= PN_XNUM_ ? PN_XNUM_ : (uint16_t)model.phnum;
	e_shnum = model.shnum >= SHN_LORESERVE_ ? 0 : (uint16_t)model.shnum;
	e_shstrndx = ef->shstrndx >= SHN_LORESERVE_ ? SHN_XINDEX_ : (uint16_t)ef->shstrndx;
	elf_encode_ehdr(&model, eh, e_phnum, e_shnum, e_shstrndx);
	return add_patch(L, 0, elf_ehdr_size(ef), eh, 0);
}

static int emit(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(L->sc, &v), i;
	int r = 0;

	if (!v)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	/* Old notes and emptied sections become zeros; then the new bytes are laid over. */
	for (i = 0; i < n && r == 0; i++)
		r = zero_range(L, v[i]->off, v[i]->size);
	free(v);
	for (i = 1; i < ef->shnum && r == 0; i++)
		if (L->isd[i] && ef->sh[i].type != SHT_NOBITS_)
			r = zero_range(L, ef->sh[i].offset, ef->sh[i].size);
	if (r == 0 && L->notesz)
		r = add_patch(L, L->note_off, L->notesz, L->note, 0);
	if (r == 0 && L->move_shstr) {
		const struct elf_shdr *st = &ef->sh[ef->shstrndx];
		r = add_patch(L, L->shstr_off, st->size, NULL, st->offset);
		if (r == 0)
			r = add_patch(L, L->shstr_off + st->size, sizeof SECTION_NAME, SECTION_NAME, 0);
	}
	if (r == 0 && ef->shnum)
		r = fix_symbols(L);
	return r ? r : emit_headers(L);
}

/* ---- the planners ---- */

static void log_note(struct lay *L)
{
	struct buf *b = &L->pl->log;

	if (!L->notesz) {
		buf_printf(b, "note: removed\n");
		return;
	}
	buf_printf(b, "note: %llu bytes at offset 0x%llx", (unsigned long long)L->notesz, (unsigned long long)L->note_off);
	if (L->linked)
		buf_printf(b, ", address 0x%llx", (unsigned long long)L->note_vaddr);
	buf_printf(b, " (%s)\n", L->where == NOTE_INPLACE ? "in place" : "appended");
}

static int plan_rel(struct lay *L)
{
	if (!L->notesz)
		L->where = NOTE_NONE;
	else if (L->target && place_in_place(L))
		L->where = NOTE_INPLACE;
	else
		L->where = NOTE_TAIL;
	L->pl->strategy = L->where == NOTE_NONE ? "removed" : L->where == NOTE_INPLACE ? "in place" :
			  L->new_section ? "new section" : "section moved to the end";
	return 0;
}

static int plan_linked(struct lay *L)
{
	const struct elf *ef = L->ef;
	int pht_in_own = L->own >= 0 && in_own(L, ef->phoff), rebuild;
	size_t cap;

	if (!L->notesz)
		L->where = NOTE_NONE;
	else if (place_in_place(L))
		L->where = NOTE_INPLACE;
	else
		L->where = NOTE_SEGMENT;
	/* Our own segment is rebuilt unless the note is rewritten in place inside it. */
	rebuild = L->own >= 0 && !(L->where == NOTE_INPLACE && in_own(L, L->note_off));
	L->pht_in_seg = rebuild && pht_in_own;
	for (;;) {
		L->seg = L->where == NOTE_SEGMENT || L->pht_in_seg;
		if (build_phdrs(L, rebuild))
			return -1;
		if (L->pht_in_seg)
			break;
		cap = pht_in_own ? ef->phnum : pht_capacity(L);
		if (L->phnum <= cap)
			break;
		/* No free slot: the table moves into the segment (ours, regrown, or a new one). */
		L->pht_in_seg = 1;
		if (L->own >= 0 && !rebuild) {
			rebuild = 1;
			L->where = NOTE_SEGMENT;
		}
	}
	if (!rebuild)
		L->own = -1;              /* kept as it is: an ordinary segment from here on */
	L->pl->strategy = L->where == NOTE_NONE ? "removed" :
			  L->where == NOTE_INPLACE ? (L->pht_in_seg ? "in place, PHT moved" : "in place") :
			  L->own >= 0 ? "own segment grown" :
			  L->pht_in_seg ? "PHT moved" : "new PT_LOAD with the PHT in a free slot";
	return 0;
}

/* Lay out the segment content ([PHT][note]) and fill in the headers that describe it. */
static int finish_linked(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t pht_sz = L->pht_in_seg ? pht_bytes(ef, L->phnum) : 0, note_rel = align_up(pht_sz, 4);
	struct elf_phdr *p;
	size_t i;

	L->seg_size = (L->where == NOTE_SEGMENT ? note_rel + L->notesz : pht_sz);
	if (L->seg) {
		if (place_segment(L))
			return -1;
		p = &L->ph[L->seg_ph];
		p->offset = L->seg_off;
		p->vaddr = p->paddr = L->seg_vaddr;
		p->filesz = p->memsz = L->seg_size;
		p->align = L->seg_align;
		if (L->where == NOTE_SEGMENT) {
			L->note_off = L->seg_off + note_rel;
			L->note_vaddr = L->seg_vaddr + note_rel;
		}
	}
	if (L->note_ph >= 0) {
		p = &L->ph[L->note_ph];
		p->offset = L->note_off;
		p->vaddr = p->paddr = L->note_vaddr;
		p->filesz = p->memsz = L->notesz;
	}
	for (i = 0; i < L->phnum; i++) {
		p = &L->ph[i];
		if (p->type != PT_PHDR_)
			continue;
		if (L->pht_in_seg) {
			p->offset = L->seg_off;
			p->vaddr = p->paddr = L->seg_vaddr;
		}
		p->filesz = p->memsz = pht_bytes(ef, L->phnum);
	}
	return 0;
}

static int layout_tail(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t end;
	int tail = L->seg || L->where == NOTE_TAIL || L->move_shstr || L->new_section;

	L->shoff = ef->shoff;
	if (tail)
		L->shoff = UINT64_MAX;         /* moves: excluded from what we keep */
	L->keep = tail ? compute_keep(L) : ef->size;
	if (L->linked && finish_linked(L))
		return -1;
	end = L->keep;
	if (L->seg)
		end = L->seg_off + L->seg_size;
	if (L->where == NOTE_TAIL) {
		L->note_off = align_up(end, 4);
		end = L->note_off + L->notesz;
	}
	if (L->move_shstr) {
		L->shstr_off = end;
		end += ef->sh[ef->shstrndx].size + sizeof SECTION_NAME;
	}
	if (tail && ef->shnum) {
		L->shoff = align_up(end, ef->is64 ? 8 : 4);
		end = L->shoff + L->shnum * elf_shent_size(ef);
	} else {
		L->shoff = ef->shoff;
	}
	L->pl->keep = L->keep;
	L->pl->out_size = end > L->keep ? end : L->keep;
	return 0;
}

int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note, struct plan *pl, struct err *e)
{
	struct lay L;
	int r = -1;

	memset(pl, 0, sizeof *pl);
	memset(&L, 0, sizeof L);
	L.ef = ef, L.sc = sc, L.pl = pl, L.e = e;
	L.note = (const unsigned char *)note->p;
	L.notesz = note->len;
	L.own = -1;
	L.seg_ph = L.note_ph = -1;
	if (ef->type != ET_REL_ && ef->type != ET_EXEC_ && ef->type != ET_DYN_)
		return err_set(e, EXIT_BAD_INPUT, "cannot edit a %s", elf_type_name(ef));
	L.linked = ef->type != ET_REL_;
	if (L.linked && !ef->phnum)
		return err_set(e, EXIT_BAD_INPUT, "linked file without program headers");
	if (!L.linked && !ef->shnum)
		return err_set(e, EXIT_BAD_INPUT, "relocatable object without section headers");
	if (find_dlopen_sections(&L))
		goto out;
	if (already_done(&L)) {
		pl->unchanged = 1;
		pl->strategy = "unchanged";
		buf_printf(&pl->log, "note: already present as requested; nothing to write\n");
		r = 0;
		goto out;
	}
	if (L.linked)
		L.own = find_own(&L);
	if (setup_sections(&L) || (L.linked ? plan_linked(&L) : plan_rel(&L)) || layout_tail(&L))
		goto out;
	finish_sections(&L);
	r = emit(&L);
	if (r == 0) {
		log_note(&L);
		if (L.seg)
			buf_printf(&pl->log, "segment: PT_LOAD at offset 0x%llx, address 0x%llx, %llu bytes, align 0x%llx%s\n",
				   (unsigned long long)L.seg_off, (unsigned long long)L.seg_vaddr, (unsigned long long)L.seg_size,
				   (unsigned long long)L.seg_align, L.own >= 0 ? " (our own segment, reused)" : "");
		if (L.linked)
			buf_printf(&pl->log, "program headers: %zu entries %s\n", L.phnum,
				   L.pht_in_seg ? "in the segment" : "where they were");
		if (ef->shnum)
			buf_printf(&pl->log, "section headers: %zu entries at offset 0x%llx\n", L.shnum, (unsigned long long)L.shoff);
		buf_printf(&pl->log, "output: %llu bytes (input %llu)\n", (unsigned long long)pl->out_size, (unsigned long long)ef->size);
	}
out:
	free(L.isd);
	free(L.sh);
	free(L.ph);
	if (r)
		layout_free(pl);
	return r;
}
