/* SPDX-License-Identifier: MIT */
/* layout_linked.c - segments and program headers of linked files (ET_EXEC, ET_DYN).
 *
 * The note needs its own PT_NOTE inside a non-writable PT_LOAD, so a file without a free
 * program header slot gets a new PT_LOAD that also carries the program header table (PHT).
 * Three consumers constrain where that segment goes (docs/background.md §4; binutils 2.40
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
 * eu-elflint requires an executable segment to hold an executable section.  Where exactly is
 * decided in layout_place.c; this file recognizes our own segments and builds the table. */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

static const struct scan_area *segment_area(const struct lay *lay, size_t index);

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

/* Everything in it is ours: the PHT and the copy before it, the section covering the PHT,
 * sections carried from after the table (layout_front.c) and dlopen notes, with at most 7
 * bytes of padding between them.  No marker is needed. */
static int own_content(struct lay *lay, const struct elf_phdr *p)
{
	const struct elf *ef = lay->ef;
	uint64_t old = lay_phdr_bytes(ef, ef->phnum), pos = p->offset, end = p->offset + p->filesz;
	uint64_t b = align_up(p->offset + old, lay_word(ef));
	unsigned char *carried = xcalloc(ef->shnum ? ef->shnum : 1, 1);
	uint64_t clo = UINT64_MAX, chi = 0; /* the carried block's extent */
	size_t i, phsec = 0;
	int progress, found = 0, ok = 0;
	char name[32];

	if (!carried)
		return 0;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || lay->isd[i] ||
		    !lay_overlaps(s->offset, s->size, p->offset, p->filesz))
			continue;
		if (lay_carriable(lay, i) && s->offset >= p->offset && s->offset + s->size <= end) {
			carried[i] = 1;
			clo = s->offset < clo ? s->offset : clo;
			chi = s->offset + s->size > chi ? s->offset + s->size : chi;
			continue;
		}
		elf_section_name(ef, i, name, sizeof name);
		/* Ours covers the live table, or B where GNU strip left it (e_phoff then is A). */
		if (strcmp(name, PHDR_SECTION_NAME) || (s->offset != ef->phoff && s->offset != b))
			goto out;
		phsec = i;
	}
	/* Nor may another segment reach into it, but for the PHT's, the dlopen notes' and those
	 * of carried sections. */
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *q = &ef->ph[i];
		const struct scan_area *a = q->type == PT_NOTE_ ? segment_area(lay, i) : NULL;
		int inside =
			q->offset >= p->offset && q->offset + q->filesz <= p->offset + p->filesz;
		int in_carried = q->offset >= clo && q->offset + q->filesz <= chi;
		if (q == p || q->type == PT_NULL_ ||
		    !lay_overlaps(q->offset, q->filesz, p->offset, p->filesz))
			continue;
		if (!(inside && q->type != PT_LOAD_ &&
		      (q->type == PT_PHDR_ || (a && a->n && a->n == a->ndlopen) || in_carried)))
			goto out;
	}
	if (ef->phoff == b || (phsec && ef->sh[phsec].offset == b))
		pos = b; /* copy A, zeroed by eu-strip */
	do {
		uint64_t next = end;
		progress = advance(&pos, p->offset, ef->phoff, old);
		if (phsec)
			progress |=
				advance(&pos, p->offset, ef->sh[phsec].offset, ef->sh[phsec].size);
		for (i = 1; i < ef->shnum; i++)
			if (carried[i]) {
				progress |=
					advance(&pos, p->offset, ef->sh[i].offset, ef->sh[i].size);
				if (ef->sh[i].offset > pos && ef->sh[i].offset < next)
					next = ef->sh[i].offset;
			}
		for (i = 0; i < lay->sc->nitems; i++)
			if (lay->sc->items[i].dlopen) {
				const struct scan_item *it = &lay->sc->items[i];
				progress |= advance(&pos, p->offset, it->off, it->size);
				if (it->off > pos && it->off < next)
					next = it->off;
			}
		/* zeros in or right after the carried block: the old dlopen notes it held, emptied
		 */
		if (!progress && clo < chi && pos >= clo && pos <= chi && next < end &&
		    elf_range_is_zero(ef, pos, next - pos))
			pos = next, progress = 1;
		found |= progress;
	} while (progress && pos + 8 <= end);
	if (!found || pos + 8 <= end)
		goto out; /* a segment too small to hold anything is not ours */
	if (phsec)
		lay->phsec = phsec;
	ok = 1;
out:
	free(carried);
	return ok;
}

int lay_find_own(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t i;

	lay->isown = xcalloc(ef->phnum, 1);
	if (!lay->isown)
		return err_oom(lay->e);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		int entry = ef->entry && ef->entry >= p->vaddr && ef->entry - p->vaddr < p->memsz;
		if (p->type == PT_LOAD_ && p->offset && !(p->flags & PF_W_) &&
		    p->filesz == p->memsz && p->filesz && !entry && own_content(lay, p)) {
			lay->isown[i] = 1;
			lay->nown++;
		}
	}
	return 0;
}

/* ---- the new program header table ---- */

static int push_ph(struct lay *lay, const struct elf_phdr *ph)
{
	struct elf_phdr *v = xgrow(lay->ph, &lay->ph_cap, lay->phnum, sizeof *v);

	if (!v)
		return err_oom(lay->e);
	lay->ph = v;
	lay->ph[lay->phnum++] = *ph;
	return 0;
}

static int insert_ph(struct lay *lay, size_t at, const struct elf_phdr *ph)
{
	int k;

	if (push_ph(lay, ph))
		return -1;
	memmove(&lay->ph[at + 1], &lay->ph[at], (lay->phnum - 1 - at) * sizeof *lay->ph);
	lay->ph[at] = *ph;
	for (k = 0; k < lay->nseg; k++)
		if (lay->seg[k].ph >= (long)at)
			lay->seg[k].ph++;
	if (lay->note_ph >= (long)at)
		lay->note_ph++;
	return 0;
}

static size_t after_last(const struct lay *lay, uint32_t type)
{
	size_t i, at = lay->phnum;

	for (i = 0; i < lay->phnum; i++)
		if (lay->ph[i].type == type)
			at = i + 1;
	return at;
}

/* A PT_NOTE mixing dlopen notes with others keeps only the runs of other notes: the dlopen
 * note gets its own PT_NOTE (OpenBSD ld.so, mold's 8-aligned merge; docs/background.md §2-3). */
static int split_note_segment(struct lay *lay, const struct elf_phdr *ph, const struct scan_area *a)
{
	const struct scan_item *it = lay->sc->items + a->first;
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
		if (push_ph(lay, &run))
			return -1;
		i = k + 1;
	}
	return 0;
}

static const struct scan_area *segment_area(const struct lay *lay, size_t index)
{
	size_t k;

	for (k = 0; k < lay->sc->nareas; k++)
		if (lay->sc->areas[k].kind == AREA_SEGMENT && lay->sc->areas[k].index == index)
			return &lay->sc->areas[k];
	return NULL;
}

/* Candidate places for an in-place rewrite: the old dlopen sections, or (no section headers)
 * the runs of dlopen notes found through PT_NOTE. */
int lay_place_in_place(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct elf_phdr *ld;
	size_t i;

	if (ef->shnum) {
		i = lay->target;
		if (!i || ef->sh[i].size < lay->notesz || ef->sh[i].type == SHT_NOBITS_)
			return 0;
		ld = elf_load_covering(ef, ef->sh[i].offset, lay->notesz);
		if (!ld || (ld->flags & PF_W_))
			return 0;
		lay->note_off = ef->sh[i].offset;
		lay->note_vaddr = ld->vaddr + (lay->note_off - ld->offset);
		return 1;
	}
	for (i = 0; i < lay->sc->nareas; i++) {
		const struct scan_area *a = &lay->sc->areas[i];
		if (a->kind != AREA_SEGMENT || a->n == 0 || a->n != a->ndlopen ||
		    a->size < lay->notesz)
			continue;
		ld = elf_load_covering(ef, a->off, lay->notesz);
		if (!ld || (ld->flags & PF_W_))
			continue;
		lay->note_off = a->off;
		lay->note_vaddr = ld->vaddr + (a->off - ld->offset);
		return 1;
	}
	return 0;
}

/* The input's entries minus our old segments and dlopen PT_NOTEs (and PT_NULL entries when the
 * table moves into our segment, as older versions did), plus our
 * PT_LOADs (nseg of them; placed and sorted later) and our PT_NOTE. */
int lay_build_phdrs(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t i;
	int k;

	free(lay->ph);
	lay->ph = NULL;
	lay->ph_cap = 0;
	lay->phnum = 0;
	lay->note_ph = -1;
	for (k = 0; k < lay->nseg; k++)
		lay->seg[k].ph = -1;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		const struct scan_area *a = ph->type == PT_NOTE_ ? segment_area(lay, i) : NULL;
		size_t prop = elf_stale_property(ef, i);
		/* The linker's PT_NULL entries stay (mips binutils ends its table with one), so
		 * that --remove gives the table back as it was, wherever the table is: dropped
		 * from a table moved into our segment, they would let the next run fit it back
		 * where it was, and two runs would not give the same file. */
		if (lay->isown[i])
			continue;
		if (prop) {
			/* patchelf's stale PT_GNU_PROPERTY: it describes the property note again */
			struct elf_phdr fixed = *ph;
			const struct elf_phdr *ld =
				elf_load_covering(ef, ef->sh[prop].offset, ef->sh[prop].size);
			fixed.offset = ef->sh[prop].offset;
			fixed.vaddr = fixed.paddr = ef->sh[prop].addr;
			if (!ld || ef->sh[prop].addr - ld->vaddr != fixed.offset - ld->offset)
				return err_set(lay->e,
					       "PT_GNU_PROPERTY describes the program headers, and "
					       ".note.gnu.property is not loaded");
			if (push_ph(lay, &fixed))
				return -1;
			continue;
		}
		if (a && a->ndlopen ? split_note_segment(lay, ph, a) : push_ph(lay, ph))
			return -1;
	}
	for (k = 0; k < lay->nseg; k++) {
		struct elf_phdr load = {.type = PT_LOAD_, .flags = PF_R_};
		size_t at = after_last(lay, PT_LOAD_);
		if (insert_ph(lay, at, &load))
			return -1;
		lay->seg[k].ph = (long)at;
	}
	if (lay->notesz) {
		struct elf_phdr pn = {.type = PT_NOTE_, .flags = PF_R_, .align = 4};
		size_t at = after_last(lay, PT_NOTE_);
		if (at == lay->phnum)
			at = after_last(lay, PT_LOAD_);
		if (insert_ph(lay, at, &pn))
			return -1;
		lay->note_ph = (long)at;
	}
	lay->phsz = lay_phdr_bytes(ef, lay->phnum);
	return 0;
}

/* How many entries fit where the PHT is: its own slots, plus zeroed bytes right after it that
 * no section or segment uses (slots freed by an earlier --remove).  Only with section headers,
 * which are what tells us the bytes are unused. */
static size_t pht_capacity(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	uint64_t es = elf_phent_size(ef), end = ef->phoff + lay_phdr_bytes(ef, ef->phnum), limit;
	const struct elf_phdr *ld = elf_load_covering(ef, ef->phoff, lay_phdr_bytes(ef, ef->phnum));
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
		if (p->type == PT_LOAD_ || p->type == PT_PHDR_ || p->type == PT_NULL_ ||
		    p->filesz == 0)
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

/* The table back right after the ELF header, where the linker put it, from our segment (a
 * file an older version wrote): when it fits there, carrying the sections after it if it must.
 * 1: it goes there. */
static int table_home(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct elf_phdr *ld = lay_first_load(lay);
	uint64_t home = elf_ehdr_size(ef);
	int r;

	/* Our segment holding both the table and carried sections is no layout of ours: it stays.
	 */
	if (!ld || ld->offset != 0 || lay->carry.present)
		return 0;
	lay->pht_in_seg = 0;
	lay->nseg = lay->where == NOTE_SEGMENT;
	if (lay_build_phdrs(lay))
		return -1;
	r = lay_front_room(lay, home, lay->phsz);
	if (r == 1 && !lay->nseg) {
		lay->nseg = 1; /* the carried block needs our segment */
		if (lay_build_phdrs(lay))
			return -1;
		r = lay_front_room(lay, home, lay->phsz);
	}
	if (r <= 0)
		return r;
	lay->pht_home = 1;
	lay->home_off = home;
	lay->home_vaddr = ld->vaddr + home;
	plan_log(lay->pl, "program headers: back at offset 0x%llx, after the ELF header\n",
		 (unsigned long long)home);
	return 1;
}

/* The table grows where it is, carrying the sections after it into our segment (which the
 * table then counts).  1: done, 0: not possible. */
static int table_grows(struct lay *lay)
{
	int r, quiet = lay->pl->quiet;

	/* Nothing in the way but bytes no section or segment describes (patchelf leaves the old
	 * bytes of the sections it moved there): the table may take them.  Without a segment of
	 * ours first, when the note needs none: a later run puts the table back there (as
	 * table_home() does), so this run must too, or two runs would differ. */
	if (!lay->nseg) {
		lay->pl->quiet = 1; /* a block to carry needs our segment: asked again below */
		r = lay_front_room(lay, lay->ef->phoff, lay->phsz);
		lay->pl->quiet = quiet;
		if (r == 2)
			return 1;
		if (r < 0)
			return -1;
		lay->nseg = 1;
		if (lay_build_phdrs(lay))
			return -1;
	}
	r = lay_front_room(lay, lay->ef->phoff, lay->phsz);
	return r == 2 ? 1 : r;
}

int lay_plan_linked(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	int pht_in_own = lay->nown && lay_in_own(lay, ef->phoff), r;

	if (!lay->notesz)
		lay->where = NOTE_NONE;
	else if (lay_place_in_place(lay) && !lay_in_own(lay, lay->note_off))
		lay->where = NOTE_INPLACE;
	else
		lay->where = NOTE_SEGMENT; /* our own segments are always rebuilt */
	if (lay_carry_from_own(lay))
		return -1;
	lay->pht_in_seg = pht_in_own;
	lay->nseg = lay->where == NOTE_SEGMENT || lay->pht_in_seg || lay->carry.present;
	if (lay_build_phdrs(lay))
		return -1;
	if (pht_in_own) {
		/* An older version moved the table into our segment: it goes back where the linker
		 * put it, as on a first run; --remove gives the input back when nothing was
		 * carried. */
		if (lay->where == NOTE_NONE) {
			int home;
			lay->nseg = 0;
			if (lay_build_phdrs(lay) || (home = lay_pht_home(lay)) < 0)
				return -1;
			lay->pht_in_seg = !home;
			lay->nseg = !home;
			if (!home && lay_build_phdrs(lay))
				return -1;
		} else if ((r = table_home(lay)) < 0) {
			return -1;
		} else if (r == 0) {
			lay->pht_in_seg = 1;
			lay->nseg = 1;
			if (lay_build_phdrs(lay))
				return -1;
		}
	}
	if (lay->carry.present && lay->where == NOTE_NONE && !lay->pht_in_seg && !lay->pht_home) {
		/* --remove: the carried block goes back after the table, and our segment with it.
		 */
		lay->nseg = 0;
		if (lay_build_phdrs(lay) || (r = lay_carry_home(lay)) < 0)
			return -1;
		if (r == 0) {
			lay->nseg = 1;
			if (lay_build_phdrs(lay))
				return -1;
		}
	}
	if (!lay->pht_in_seg && !lay->pht_home && lay->phnum > pht_capacity(lay)) {
		if ((r = table_grows(lay)) < 0)
			return -1;
		if (r == 0) {
			/* Nothing can move: the table moves into our segment (docs/layout.md). */
			lay->pht_in_seg = 1;
			lay->nseg = 1;
			if (lay_build_phdrs(lay))
				return -1;
		}
	}
	if (lay->pht_in_seg && lay->carry.present)
		return err_set(
			lay->e,
			"a segment of ours holds both the program headers and carried sections: "
			"no layout this tool writes (damaged file)");
	/* An old note among the carried sections moves with them: into our segment, not in place.
	 */
	if (lay->where == NOTE_INPLACE && (lay->carry.present || lay->pht_home) &&
	    ((lay->note_off >= lay->carry.off && lay->note_off < lay->carry.end) ||
	     lay->note_off < elf_ehdr_size(ef) + lay->phsz))
		lay->where = NOTE_SEGMENT;
	lay->pl->strategy = lay->where == NOTE_NONE ? "removed"
			    : lay->where == NOTE_INPLACE
				    ? (lay->nown         ? "in place, own segment rebuilt"
				       : lay->pht_in_seg ? "in place, PHT moved"
							 : "in place")
			    : lay->nown          ? "own segment grown"
			    : lay->pht_in_seg    ? "PHT moved"
			    : lay->carry.present ? "PHT grown, sections carried"
						 : "new PT_LOAD with the PHT in a free slot";
	return 0;
}

/* The table goes where it was, or into segment 0 twice (A for bfd, B the live one). */
int lay_emit_phdrs(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t es = elf_phent_size(ef), i;
	unsigned char *pht = xcalloc(lay->phnum, es);
	int r;

	if (!pht)
		return err_oom(lay->e);
	for (i = 0; i < lay->phnum; i++)
		elf_encode_phdr(ef, &lay->ph[i], pht + i * es);
	if (lay->pht_in_seg)
		r = lay_patch(lay, lay->seg[0].off, lay->phsz, pht, 0) ||
		    lay_patch(lay, lay->pht_b, lay->phsz, pht, 0);
	else if (lay->pht_home)
		r = lay_patch(lay, lay->home_off, lay->phsz, pht,
			      0); /* the old one goes with our segment */
	else {
		/* A shrinking table leaves zeros, but not over a carried block going back there:
		 * before the block, and after it when the block is smaller than the table was. */
		uint64_t end = ef->phoff + lay_phdr_bytes(ef, ef->phnum), zend = end, bend = end;
		if (lay->carry.present && lay->carry.new_off > ef->phoff &&
		    lay->carry.new_off < end) {
			zend = lay->carry.new_off;
			bend = lay->carry.new_off + (lay->carry.end - lay->carry.off);
		}
		r = (lay->phnum < ef->phnum && lay_zero(lay, ef->phoff, zend - ef->phoff)) ||
		    (lay->phnum < ef->phnum && bend < end && lay_zero(lay, bend, end - bend)) ||
		    lay_patch(lay, ef->phoff, lay->phsz, pht, 0);
	}
	free(pht);
	return r ? -1 : 0;
}
