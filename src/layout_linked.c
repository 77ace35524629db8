/* layout_linked.c - segments and program headers of linked files (ET_EXEC, ET_DYN).
 *
 * The note needs its own PT_NOTE inside a non-writable PT_LOAD, so a file without a free
 * program header slot gets a new PT_LOAD that also carries the program header table (PHT).
 * Three consumers constrain where that segment goes (shared/REFERENCE.md §4; binutils 2.40
 * bfd/elf.c, elfutils 0.188 libelf/elf32_updatefile.c and src/strip.c, qemu 7.2 elfload.c):
 *
 *  - Pre-2022 kernels and qemu-user compute AT_PHDR as (p_vaddr - p_offset of the first
 *    PT_LOAD) + e_phoff, so p_vaddr - p_offset of our segment equals that bias.
 *  - bfd (strip, objcopy) lays the segment holding the PHT out again: the PHT at bfd's running
 *    file offset (the end of the previous PT_LOAD's content), then the sections at their
 *    addresses; a section overlapping the PHT is moved ("lma adjusted").  So our segment
 *    starts with a copy of the PHT (A) that no section covers, where bfd writes its own, and
 *    its address is congruent to that running offset, so that addresses survive.
 *  - libelf (eu-strip) zero-fills file gaps between sections, so the live PHT (B, e_phoff) is
 *    covered by a section of its own, PHDR_SECTION_NAME.
 *
 * Segment 0 is [A][pad][B][note]; when that does not fit where bfd keeps it, the note gets a
 * segment of its own.  A segment goes in the page padding right after a non-writable PT_LOAD
 * with room there (bfd then reproduces the layout exactly, qemu included), else after the end
 * of the file (bfd then keeps the addresses: kernels from 5.18 run it, qemu-user does not).
 * In the padding it shares that segment's last page, so it takes its permissions: after an
 * R+X segment (non-x86 layouts) it is R+X and the PHT's section is marked SHF_EXECINSTR, as
 * eu-elflint requires an executable segment to hold an executable section. */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* Largest sparse gap we create before our segment (REFERENCE §4: the congruent trick). */
#define MAX_SPARSE_GAP (64ull << 30)

static uint64_t phdr_bytes(const struct elf *ef, size_t n)
{
	return (uint64_t)n * elf_phent_size(ef);
}

static uint64_t word(const struct elf *ef)
{
	return ef->is64 ? 8 : 4;
}

static const struct scan_area *segment_area(const struct lay *L, size_t index);

/* ---- our own segments ---- */

/* Moves *pos past [off, off + size) when that range starts in the segment (at or after
 * start) no more than 7 bytes after *pos. */
static int advance(uint64_t *pos, uint64_t start, uint64_t off, uint64_t size)
{
	if (size && off >= start && off <= *pos + 7 && off + size > *pos) {
		*pos = off + size;
		return 1;
	}
	return 0;
}

/* Everything in it is ours: the PHT and the copy before it, the section covering the PHT and
 * dlopen notes, with at most 7 bytes of padding between them.  No marker is needed. */
static int own_content(struct lay *L, const struct elf_phdr *p)
{
	const struct elf *ef = L->ef;
	uint64_t old = phdr_bytes(ef, ef->phnum), pos = p->offset, end = p->offset + p->filesz;
	uint64_t b = align_up(p->offset + old, word(ef));
	size_t i, phsec = 0;
	int progress, found = 0;
	char name[32];

	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || L->isd[i] || !lay_overlaps(s->offset, s->size, p->offset, p->filesz))
			continue;
		elf_section_name(ef, i, name, sizeof name);
		/* Ours covers the live table, or B where GNU strip left it (e_phoff then is A). */
		if (strcmp(name, PHDR_SECTION_NAME) || (s->offset != ef->phoff && s->offset != b))
			return 0;
		phsec = i;
	}
	/* Nor may another segment reach into it, but for the PHT's and the dlopen notes'. */
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *q = &ef->ph[i];
		const struct scan_area *a = q->type == PT_NOTE_ ? segment_area(L, i) : NULL;
		int inside = q->offset >= p->offset && q->offset + q->filesz <= p->offset + p->filesz;
		if (q == p || q->type == PT_NULL_ || !lay_overlaps(q->offset, q->filesz, p->offset, p->filesz))
			continue;
		if (!(inside && (q->type == PT_PHDR_ || (a && a->n && a->n == a->ndlopen))))
			return 0;
	}
	if (ef->phoff == b || (phsec && ef->sh[phsec].offset == b))
		pos = b;                                      /* copy A, zeroed by eu-strip */
	do {
		progress = advance(&pos, p->offset, ef->phoff, old);
		if (phsec)
			progress |= advance(&pos, p->offset, ef->sh[phsec].offset, ef->sh[phsec].size);
		for (i = 0; i < L->sc->nitems; i++)
			if (L->sc->items[i].dlopen)
				progress |= advance(&pos, p->offset, L->sc->items[i].off, L->sc->items[i].size);
		found |= progress;
	} while (progress && pos + 8 <= end);
	if (!found || pos + 8 <= end)
		return 0;                   /* a segment too small to hold anything is not ours */
	if (phsec)
		L->phsec = phsec;
	return 1;
}

int lay_find_own(struct lay *L)
{
	const struct elf *ef = L->ef;
	size_t i;

	L->isown = xcalloc(ef->phnum, 1);
	if (!L->isown)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		int entry = ef->entry && ef->entry >= p->vaddr && ef->entry - p->vaddr < p->memsz;
		if (p->type == PT_LOAD_ && !(p->flags & PF_W_) && p->filesz == p->memsz && p->filesz && !entry &&
		    own_content(L, p)) {
			L->isown[i] = 1;
			L->nown++;
		}
	}
	return 0;
}

/* ---- the new program header table ---- */

static int push_ph(struct lay *L, const struct elf_phdr *ph)
{
	struct elf_phdr *v = xgrow(L->ph, &L->ph_cap, L->phnum, sizeof *v);

	if (!v)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	L->ph = v;
	L->ph[L->phnum++] = *ph;
	return 0;
}

static int insert_ph(struct lay *L, size_t at, const struct elf_phdr *ph)
{
	int k;

	if (push_ph(L, ph))
		return -1;
	memmove(&L->ph[at + 1], &L->ph[at], (L->phnum - 1 - at) * sizeof *L->ph);
	L->ph[at] = *ph;
	for (k = 0; k < L->nseg; k++)
		if (L->seg[k].ph >= (long)at)
			L->seg[k].ph++;
	if (L->note_ph >= (long)at)
		L->note_ph++;
	return 0;
}

static size_t after_last(const struct lay *L, uint32_t type)
{
	size_t i, at = L->phnum;

	for (i = 0; i < L->phnum; i++)
		if (L->ph[i].type == type)
			at = i + 1;
	return at;
}

/* A PT_NOTE mixing dlopen notes with others keeps only the runs of other notes: the dlopen
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

static const struct scan_area *segment_area(const struct lay *L, size_t index)
{
	size_t k;

	for (k = 0; k < L->sc->nareas; k++)
		if (L->sc->areas[k].kind == AREA_SEGMENT && L->sc->areas[k].index == index)
			return &L->sc->areas[k];
	return NULL;
}

/* The input's entries minus free slots, our old segments and dlopen PT_NOTEs, plus our
 * PT_LOADs (nseg of them; placed and sorted later) and our PT_NOTE. */
static int build_phdrs(struct lay *L)
{
	const struct elf *ef = L->ef;
	size_t i;
	int k;

	free(L->ph);
	L->ph = NULL;
	L->ph_cap = 0;
	L->phnum = 0;
	L->note_ph = -1;
	for (k = 0; k < L->nseg; k++)
		L->seg[k].ph = -1;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		const struct scan_area *a = ph->type == PT_NOTE_ ? segment_area(L, i) : NULL;
		if (ph->type == PT_NULL_ || L->isown[i])
			continue;
		if (a && a->ndlopen ? split_note_segment(L, ph, a) : push_ph(L, ph))
			return -1;
	}
	for (k = 0; k < L->nseg; k++) {
		struct elf_phdr load = { .type = PT_LOAD_, .flags = PF_R_ };
		size_t at = after_last(L, PT_LOAD_);
		if (insert_ph(L, at, &load))
			return -1;
		L->seg[k].ph = (long)at;
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
	L->phsz = phdr_bytes(ef, L->phnum);
	return 0;
}

/* How many entries fit where the PHT is: its own slots, plus zeroed bytes right after it that
 * no section or segment uses (slots freed by an earlier --remove).  Only with section headers,
 * which are what tells us the bytes are unused. */
static size_t pht_capacity(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t es = elf_phent_size(ef), end = ef->phoff + phdr_bytes(ef, ef->phnum), limit;
	const struct elf_phdr *ld = elf_load_covering(ef, ef->phoff, phdr_bytes(ef, ef->phnum));
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

int lay_plan_linked(struct lay *L)
{
	const struct elf *ef = L->ef;
	int pht_in_own = L->nown && lay_in_own(L, ef->phoff);

	if (!L->notesz)
		L->where = NOTE_NONE;
	else if (lay_place_in_place(L) && !lay_in_own(L, L->note_off))
		L->where = NOTE_INPLACE;
	else
		L->where = NOTE_SEGMENT;      /* our own segments are always rebuilt */
	L->pht_in_seg = pht_in_own;
	L->nseg = L->where == NOTE_SEGMENT || L->pht_in_seg;
	if (build_phdrs(L))
		return -1;
	if (!L->pht_in_seg && L->phnum > pht_capacity(L)) {
		/* No free slot: the table moves into our segment. */
		L->pht_in_seg = 1;
		L->nseg = 1;
		if (build_phdrs(L))
			return -1;
	}
	L->pl->strategy = L->where == NOTE_NONE ? "removed" :
			  L->where == NOTE_INPLACE ? (L->nown ? "in place, own segment rebuilt" : L->pht_in_seg ? "in place, PHT moved" : "in place") :
			  L->nown ? "own segment grown" :
			  L->pht_in_seg ? "PHT moved" : "new PT_LOAD with the PHT in a free slot";
	return 0;
}

/* ---- placing the segments ---- */

struct space {
	uint64_t bias;       /* first PT_LOAD's p_vaddr - p_offset */
	uint64_t vend;       /* end of the highest PT_LOAD in memory */
	uint64_t prev_end;   /* end of the last PT_LOAD's file content: bfd's running offset */
	uint64_t align;
};

static int survey(struct lay *L, struct space *s)
{
	const struct elf *ef = L->ef;
	const struct elf_phdr *first = NULL;
	size_t i;

	memset(s, 0, sizeof *s);
	s->align = elf_max_page(ef);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_LOAD_ || L->isown[i])
			continue;
		if (!first)
			first = p;
		if (p->vaddr + p->memsz > s->vend)
			s->vend = p->vaddr + p->memsz;
		if (p->offset + p->filesz > s->prev_end)
			s->prev_end = p->offset + p->filesz;
		if (p->align > s->align)
			s->align = p->align;
	}
	if (!first)
		return err_set(L->e, EXIT_BAD_INPUT, "no PT_LOAD segment: cannot place the note in memory");
	if (s->align & (s->align - 1))
		return err_set(L->e, EXIT_BAD_INPUT, "PT_LOAD alignment 0x%llx is not a power of two", (unsigned long long)s->align);
	s->bias = first->vaddr - first->offset;
	if (s->bias % s->align)
		return err_set(L->e, EXIT_BAD_INPUT, "first PT_LOAD is not aligned to 0x%llx: cannot place a segment congruently",
			       (unsigned long long)s->align);
	return 0;
}

/* Bytes a segment starting at `off` needs, and where its parts go inside it. */
static uint64_t seg_layout(const struct lay *L, const struct seg *g, uint64_t off, uint64_t *b_rel, uint64_t *note_rel)
{
	uint64_t pos = 0;

	*b_rel = *note_rel = 0;
	if (g->pht) {
		*b_rel = align_up(off + L->phsz, word(L->ef)) - off;    /* A at 0, then B aligned */
		pos = *b_rel + L->phsz;
	}
	if (g->note) {
		*note_rel = align_up(off + pos, 4) - off;
		pos = *note_rel + L->notesz;
	}
	return pos;
}

/* Is [off, off+size) in the file and [vaddr, vaddr+size) in memory free?  Our old segments
 * count as free; the file bytes must be zero (page padding). */
static int room_free(struct lay *L, uint64_t off, uint64_t vaddr, uint64_t size, int upto)
{
	const struct elf *ef = L->ef;
	unsigned char buf[4096];
	struct err ignore;
	uint64_t pos, n, k;
	size_t i;
	int j;

	if (!range_ok(off, size, ef->size))
		return 0;
	/* The table rewritten where it is may have grown into free slots after it, or shrunk,
	 * and then its old extent is zeroed. */
	if (!L->pht_in_seg && lay_overlaps(ef->phoff, L->phsz > phdr_bytes(ef, ef->phnum) ? L->phsz :
					   phdr_bytes(ef, ef->phnum), off, size))
		return 0;
	for (j = 0; j < upto; j++)
		if (lay_overlaps(L->seg[j].off, L->seg[j].size, off, size) || lay_overlaps(L->seg[j].vaddr, L->seg[j].size, vaddr, size))
			return 0;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || L->isown[i] || (p->type != PT_LOAD_ && lay_in_own(L, p->offset)))
			continue;
		if (lay_overlaps(p->offset, p->filesz, off, size) || (p->type == PT_LOAD_ && lay_overlaps(p->vaddr, p->memsz, vaddr, size)))
			return 0;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (lay_in_own(L, s->offset))
			continue;
		if ((s->type != SHT_NOBITS_ && lay_overlaps(s->offset, s->size, off, size)) ||
		    ((s->flags & SHF_ALLOC_) && lay_overlaps(s->addr, s->size, vaddr, size)))
			return 0;
	}
	if (ef->shnum && lay_overlaps(ef->shoff, ef->shnum * elf_shent_size(ef), off, size))
		return 0;
	for (pos = off; pos < off + size; pos += n) {
		n = off + size - pos < sizeof buf ? off + size - pos : sizeof buf;
		if (elf_read(ef, pos, n, buf, &ignore))
			return 0;
		for (k = 0; k < n; k++)
			if (buf[k] && !lay_in_own(L, pos + k))
				return 0;
	}
	return 1;
}

/* Where bfd thinks a segment's content ends: the ELF header, the program headers if they stay
 * in it, and its sections.  bfd continues laying out from there. */
static uint64_t bfd_content_end(const struct lay *L, const struct elf_phdr *p)
{
	const struct elf *ef = L->ef;
	uint64_t end = p->offset, pht = phdr_bytes(ef, ef->phnum);
	size_t i;

	if (!ef->shnum)
		return p->offset + p->filesz;
	if (p->offset == 0 && p->filesz >= elf_ehdr_size(ef))
		end = elf_ehdr_size(ef);
	if (!L->pht_in_seg && ef->phoff >= p->offset && ef->phoff + pht <= p->offset + p->filesz && ef->phoff + pht > end)
		end = ef->phoff + pht;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if (sh->type != SHT_NOBITS_ && (sh->flags & SHF_ALLOC_) && sh->size && sh->offset >= p->offset &&
		    sh->offset + sh->size <= p->offset + p->filesz && sh->offset + sh->size > end)
			end = sh->offset + sh->size;
	}
	return end;
}

/* The page padding right after a non-writable PT_LOAD with the first load's bias: there, bfd's
 * running offset is exactly our p_offset, so strip and objcopy keep the layout as it is, and
 * sharing that last page is harmless (same bytes, same permissions).  Read-only neighbours
 * first; an R+X one only for the PHT's segment, whose section can carry SHF_EXECINSTR. */
static int place_in_gap(struct lay *L, const struct space *s, int k)
{
	const struct elf *ef = L->ef;
	struct seg *g = &L->seg[k];
	uint64_t off, b_rel, note_rel, size;
	size_t i, pass;

	for (pass = 0; pass < 2 * ef->phnum; pass++) {
		const struct elf_phdr *p = &ef->ph[pass % ef->phnum];
		i = pass % ef->phnum;
		if (p->type != PT_LOAD_ || L->isown[i] || (p->flags & PF_W_) || p->filesz != p->memsz ||
		    p->vaddr - p->offset != s->bias || (p->flags & ~(uint32_t)(PF_R_ | PF_X_)))
			continue;
		if (!(p->flags & PF_X_) != (pass < ef->phnum) || ((p->flags & PF_X_) && !g->pht))
			continue;
		off = p->offset + p->filesz;
		if (bfd_content_end(L, p) != off)
			continue;
		size = seg_layout(L, g, off, &b_rel, &note_rel);
		if (!g->pht)
			off += note_rel, size -= note_rel;
		if (!room_free(L, off, off + s->bias, size, k))
			continue;
		g->off = off;
		g->vaddr = off + s->bias;
		g->size = size;
		g->align = s->align;     /* the file's largest; bias is a multiple of it */
		g->flags = p->flags;
		g->placement = p->flags & PF_X_ ? "in the page padding after an R+X segment" :
			       "in the page padding after a read-only segment";
		return 1;
	}
	return 0;
}

/* After the end of the file (and after segment 0 when that is there too).  With the PHT
 * inside: p_vaddr - p_offset = bias, and p_vaddr = bfd's running offset (mod align), so that a
 * bfd re-layout keeps the addresses. */
static int place_at_end(struct lay *L, const struct space *s, int k)
{
	const struct elf *ef = L->ef;
	struct seg *g = &L->seg[k];
	/* No rounding: copy A may start anywhere (bfd puts it at its running offset), and
	 * seg_layout aligns B and the note inside the segment. */
	uint64_t vend = s->vend, start = L->keep, limit = ef->is64 ? UINT64_MAX : UINT32_MAX;
	uint64_t vmin, vaddr, off, b_rel, note_rel;

	if (k && L->seg[0].vaddr + L->seg[0].size > vend)
		vend = L->seg[0].vaddr + L->seg[0].size;
	if (k && L->seg[0].off + L->seg[0].size > start)
		start = L->seg[0].off + L->seg[0].size;
	vmin = align_up(vend, s->align);
	if (g->pht) {
		vaddr = vmin + (s->prev_end - vmin) % s->align;
		if (vaddr - s->bias < start)
			vaddr += align_up(start - (vaddr - s->bias), s->align);
		off = vaddr - s->bias;
	} else {
		off = align_up(start, 4);  /* a note-only segment starts with the note */
		vaddr = vmin + off % s->align;
	}
	g->size = seg_layout(L, g, off, &b_rel, &note_rel);
	if (vaddr < vend || vaddr > limit || g->size > limit - vaddr)
		return err_set(L->e, EXIT_BAD_INPUT, "no room in the address space for a new segment above 0x%llx",
			       (unsigned long long)vend);
	/* The gap is sparse, so it costs no I/O, but a file must still be writable and copyable. */
	if (off > ef->size + MAX_SPARSE_GAP)
		return err_set(L->e, EXIT_BAD_INPUT, "the new segment would need a %llu GiB hole in the file (memory ends at 0x%llx)",
			       (unsigned long long)((off - ef->size) >> 30), (unsigned long long)vend);
	g->off = off;
	g->vaddr = vaddr;
	g->align = s->align;
	g->flags = PF_R_;
	g->placement = "after the end of the file";
	return 0;
}

/* Keep PT_LOAD entries sorted by address (the gABI requires it): ours goes before the first
 * earlier PT_LOAD above it, whatever other entries lie between. */
static void sort_segment_entry(struct lay *L, int k)
{
	struct elf_phdr me = L->ph[L->seg[k].ph];
	size_t cur = (size_t)L->seg[k].ph, at = cur, i;
	int j;

	for (i = 0; i < cur; i++)
		if (L->ph[i].type == PT_LOAD_ && L->ph[i].vaddr > me.vaddr) {
			at = i;
			break;
		}
	for (i = cur; i > at; i--) {
		L->ph[i] = L->ph[i - 1];
		for (j = 0; j < L->nseg; j++)
			if (L->seg[j].ph == (long)i - 1)
				L->seg[j].ph++;
		if (L->note_ph == (long)i - 1)
			L->note_ph++;
	}
	L->ph[at] = me;
	L->seg[k].ph = (long)at;
}

/* Segment 0 with everything, in the padding; else the PHT there and the note in a segment of
 * its own; else segment 0 after the end of the file. */
static int place_segments(struct lay *L, const struct space *s)
{
	int note = L->where == NOTE_SEGMENT;

	L->seg[0].pht = L->pht_in_seg;
	L->seg[0].note = note;
	if (place_in_gap(L, s, 0))
		return 0;
	if (L->pht_in_seg && note) {
		L->nseg = 2;
		L->seg[0].note = 0;
		L->seg[1].note = 1;
		if (build_phdrs(L))
			return -1;
		if (place_in_gap(L, s, 0))
			return place_in_gap(L, s, 1) ? 0 : place_at_end(L, s, 1);
		L->nseg = 1;
		L->seg[0].note = 1;
		if (build_phdrs(L))
			return -1;
	}
	return place_at_end(L, s, 0);
}

int lay_place_linked(struct lay *L)
{
	struct elf_phdr *p;
	struct space s;
	uint64_t b_rel, note_rel;
	size_t i;
	int k;

	if (L->nseg) {
		if (survey(L, &s) || place_segments(L, &s))
			return -1;
		for (k = 0; k < L->nseg; k++) {
			struct seg *g = &L->seg[k];
			p = &L->ph[g->ph];
			p->offset = g->off;
			p->vaddr = p->paddr = g->vaddr;
			p->filesz = p->memsz = g->size;
			p->align = g->align;
			p->flags = g->flags;
			seg_layout(L, g, g->off, &b_rel, &note_rel);
			if (g->pht)
				L->pht_b = g->off + b_rel;
			if (g->note) {
				L->note_off = g->off + note_rel;
				L->note_vaddr = g->vaddr + (L->note_off - g->off);
			}
		}
		for (k = 0; k < L->nseg; k++)
			sort_segment_entry(L, k);
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
			p->offset = L->pht_b;
			p->vaddr = p->paddr = L->seg[0].vaddr + (L->pht_b - L->seg[0].off);
		} else if (p->offset != L->ef->phoff) {
			continue;          /* it did not describe the table: left as it was */
		}
		p->filesz = p->memsz = L->phsz;
	}
	return 0;
}

/* The table goes where it was, or into segment 0 twice (A for bfd, B the live one). */
int lay_emit_phdrs(struct lay *L)
{
	const struct elf *ef = L->ef;
	size_t es = elf_phent_size(ef), i;
	unsigned char *pht = xcalloc(L->phnum, es);
	int r;

	if (!pht)
		return err_set(L->e, EXIT_BAD_INPUT, "out of memory");
	for (i = 0; i < L->phnum; i++)
		elf_encode_phdr(ef, &L->ph[i], pht + i * es);
	if (L->pht_in_seg)
		r = lay_patch(L, L->seg[0].off, L->phsz, pht, 0) || lay_patch(L, L->pht_b, L->phsz, pht, 0);
	else
		r = (L->phnum < ef->phnum && lay_zero(L, ef->phoff, phdr_bytes(ef, ef->phnum))) ||
		    lay_patch(L, ef->phoff, L->phsz, pht, 0);
	free(pht);
	return r ? -1 : 0;
}
