/* SPDX-License-Identifier: MIT */
/* layout.c - plan where the note goes, for relocatable objects and for linked files.
 *
 * Order of decisions (docs/background.md §4):
 *   1. which existing sections and segments hold dlopen notes (they are ours to rewrite);
 *   2. where the note goes: where the old one was if it fits, else into our own segment
 *      (rebuilt), else a new PT_LOAD (layout_linked.c);
 *   3. where the program headers go: where they are if the new table fits (free slots), else
 *      into that segment, placed so that old kernels and qemu-user still find them;
 *   4. what follows the last input byte we keep: segment, section-name table, section headers
 *      (layout_sections.c writes the section headers and symbols).
 * Nothing allocated moves.  The plan is a list of byte patches (plan.c) over a prefix of
 * the input. */
#include <stdlib.h>
#include <string.h>

#include "../elf/elf.h"
#include "layout_int.h"
#include "layout.h"

/* ---- step 1: the dlopen sections ---- */

static int find_dlopen_sections(struct lay *lay)
{
	const struct scan *sc = lay->sc;
	size_t i;

	lay->isd = xcalloc(lay->ef->shnum ? lay->ef->shnum : 1, 1);
	if (!lay->isd)
		return err_oom(lay->e);
	if (scan_dlopen_sections(lay->ef, sc, lay->isd, lay->e))
		return -1;
	/* The note goes into the first section named .note.dlopen (readers look it up by name),
	 * else into a new one; other sections holding dlopen notes are emptied. */
	for (i = 0; i < sc->nareas; i++)
		if (sc->areas[i].kind == AREA_SECTION && sc->areas[i].named &&
		    lay->isd[sc->areas[i].index]) {
			lay->target = sc->areas[i].index;
			break;
		}
	return 0;
}

/* ---- already done? ---- */

/* The file already holds exactly this note, the way we would write it: one dlopen note, alone in
 * a correct .note.dlopen section and (linked files) alone in its own 4-aligned PT_NOTE inside a
 * read-only PT_LOAD.  Then nothing is written (idempotence). */
static int already_done(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct scan_item **v;
	const struct elf_phdr *ld;
	size_t n = scan_dlopen_notes(lay->sc, &v), i, sec = 0, segs = 0;
	uint64_t off, vaddr = 0;
	unsigned char *cur = NULL;
	struct err ignore;
	int ok = 0;

	if (!v)
		return 0;
	if (lay->notesz == 0) {
		free(v);
		return n == 0;
	}
	if (n != 1 || v[0]->size != lay->notesz || v[0]->misaligned)
		goto out;
	off = v[0]->off;
	cur = malloc(lay->notesz);
	if (!cur || elf_read(ef, off, lay->notesz, cur, &ignore) ||
	    memcmp(cur, lay->note, lay->notesz))
		goto out;
	for (i = 1; i < ef->shnum; i++) {
		if (!lay->isd[i] || ef->sh[i].size == 0)
			continue;
		if (sec || ef->sh[i].offset != off || ef->sh[i].size != lay->notesz ||
		    i != lay->target)
			goto out;
		sec = i;
	}
	if (ef->shnum) {
		const struct elf_shdr *sh = &ef->sh[sec];
		if (!sec || sh->type != SHT_NOTE_ || sh->addralign != 4 ||
		    !(sh->flags & SHF_ALLOC_) || (sh->flags & SHF_WRITE_))
			goto out;
	}
	/* Exactly one PT_NOTE touches the note, and it covers it exactly. */
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_NOTE_ || !lay_overlaps(p->offset, p->filesz, off, lay->notesz))
			continue;
		if (p->offset != off || p->filesz != lay->notesz || p->align != 4)
			goto out;
		vaddr = p->vaddr;
		segs++;
	}
	ld = elf_load_covering(ef, off, lay->notesz);
	if (segs != 1 || !ld || (ld->flags & PF_W_) || vaddr - ld->vaddr != off - ld->offset)
		goto out;
	if (sec && ef->sh[sec].addr != vaddr)
		goto out;
	ok = 1;
out:
	free(cur);
	free(v);
	return ok;
}

/* ---- step 2, where the note goes: layout_linked.c (lay_plan_linked) ---- */

/* ---- step 4: the tail ---- */

struct span {
	uint64_t off, end;
};

static int span_cmp(const void *x, const void *y)
{
	const struct span *a = x, *b = y;

	return a->off < b->off ? -1 : a->off > b->off;
}

/* The end of everything we keep in place.  Bytes after it that are ours (old section headers,
 * an old copy of the name table, our old segment) are dropped; anything unknown is kept. */
static uint64_t compute_keep(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	uint64_t keep = elf_ehdr_size(ef);
	size_t i;

	if (ef->phnum && !lay_in_own(lay, ef->phoff) &&
	    ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef) > keep)
		keep = ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || p->type == PT_PHDR_ || (lay->isown && lay->isown[i]))
			continue;
		if (lay_in_own(lay, p->offset))
			continue;
		if (p->offset + p->filesz > keep)
			keep = p->offset + p->filesz;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type != SHT_NOBITS_ && s->size == 0 && !lay->isd[i] && s->offset > keep &&
		    s->offset <= ef->size)
			keep = s->offset; /* an empty section's offset stays inside the file */
		if (s->type == SHT_NOBITS_ || s->size == 0 || lay_in_own(lay, s->offset))
			continue;
		if (lay->isd[i] && !(i == lay->target && lay->where == NOTE_INPLACE))
			continue;
		if (i == ef->shstrndx && lay->move_shstr)
			continue;
		if (s->offset + s->size > keep)
			keep = s->offset + s->size;
	}
	if (ef->shnum && lay->shoff == ef->shoff &&
	    keep < ef->shoff + ef->shnum * elf_shent_size(ef))
		keep = ef->shoff + ef->shnum * elf_shent_size(ef);
	/* After that, the input holds only what we own and drop (old section headers, a moved
	 * name table, our old segments, old dlopen sections), zeros and holes, or unknown data,
	 * which is kept: keep ends where the last unknown byte does. */
	{
		struct span *own = xcalloc(2 + ef->phnum + ef->shnum, sizeof *own);
		size_t n = 0, k;
		uint64_t pos = keep;
		if (!own)
			return ef->size; /* keeping everything is always safe */
		if (ef->shnum && lay->shoff != ef->shoff)
			own[n++] = (struct span){ef->shoff,
						 ef->shoff + ef->shnum * elf_shent_size(ef)};
		if (lay->move_shstr)
			own[n++] = (struct span){ef->sh[ef->shstrndx].offset,
						 ef->sh[ef->shstrndx].offset +
							 ef->sh[ef->shstrndx].size};
		for (i = 0; lay->nown && i < ef->phnum; i++)
			if (lay->isown[i])
				own[n++] = (struct span){ef->ph[i].offset,
							 ef->ph[i].offset + ef->ph[i].filesz};
		for (i = 1; i < ef->shnum; i++)
			if (lay->isd[i] && ef->sh[i].size &&
			    !(i == lay->target && lay->where == NOTE_INPLACE))
				own[n++] = (struct span){ef->sh[i].offset,
							 ef->sh[i].offset + ef->sh[i].size};
		qsort(own, n, sizeof *own, span_cmp);
		for (k = 0; k < n; k++) {
			if (own[k].end <= pos)
				continue;
			if (own[k].off > pos && !elf_range_is_zero(ef, pos, own[k].off - pos))
				keep = own[k].off; /* unknown data before this owned range */
			pos = own[k].end;
		}
		if (pos < ef->size && !elf_range_is_zero(ef, pos, ef->size - pos))
			keep = ef->size;
		free(own);
	}
	return keep;
}

/* ---- emitting ---- */

static int emit_headers(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	struct elf model = *ef;
	unsigned char eh[64], ent[64];
	size_t i, shes = elf_shent_size(ef);
	uint16_t e_phnum, e_shnum, e_shstrndx;

	if (lay_emit_phdrs(lay))
		return -1;
	model.phnum = lay->phnum;
	if (lay->pht_in_seg)
		model.phoff = lay->pht_b;
	else if (lay->pht_home)
		model.phoff = lay->home_off;
	/* Section headers: copy the old table if it moves, then write the entries that changed. */
	if (ef->shnum) {
		if ((lay->shoff != ef->shoff || lay->shoff + ef->shnum * shes > lay->keep) &&
		    lay_patch(lay, lay->shoff,
			      (lay->shout < ef->shnum ? lay->shout : ef->shnum) * shes, NULL,
			      ef->shoff))
			return -1;
		lay_compact_sections(lay);
		if (lay->shout >= SHN_LORESERVE_ || ef->sh[0].size)
			lay->sh[0].size = lay->shout >= SHN_LORESERVE_ ? lay->shout : 0;
		if (model.phnum >= PN_XNUM_)
			lay->sh[0].info = (uint32_t)model.phnum;
		for (i = 0; i < lay->shout; i++) {
			if (i < ef->shnum && memcmp(&lay->sh[i], &ef->sh[i], sizeof *lay->sh) == 0)
				continue; /* unchanged: already there, or copied with the table */
			elf_encode_shdr(ef, &lay->sh[i], ent);
			if (lay_patch(lay, lay->shoff + i * shes, shes, ent, 0))
				return -1;
		}
		model.shoff = lay->shoff;
		model.shnum = lay->shout;
	} else if (model.phnum >= PN_XNUM_) {
		return err_set(lay->e,
			       "too many program headers for a file without section headers");
	}
	e_phnum = model.phnum >= PN_XNUM_ ? PN_XNUM_ : (uint16_t)model.phnum;
	e_shnum = model.shnum >= SHN_LORESERVE_ ? 0 : (uint16_t)model.shnum;
	e_shstrndx = ef->shstrndx >= SHN_LORESERVE_
			     ? SHN_XINDEX_
			     : (uint16_t)(lay->newidx ? lay->shstrndx_out : ef->shstrndx);
	elf_encode_ehdr(&model, eh, e_phnum, e_shnum, e_shstrndx);
	return lay_patch(lay, 0, elf_ehdr_size(ef), eh, 0);
}

/* Zero a table we moved away, unless it shares bytes with a segment's data (ours excepted:
 * that is zeroed whole). */
static int zero_unless_loaded(struct lay *lay, uint64_t off, uint64_t len)
{
	const struct elf *ef = lay->ef;
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_NULL_ && !(lay->isown && lay->isown[i]) &&
		    lay_overlaps(p->offset, p->filesz, off, len))
			return 0;
	}
	return lay_zero(lay, off, len);
}

static int emit(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(lay->sc, &v), i;
	int r = 0;

	if (!v)
		return err_oom(lay->e);
	/* Old notes, emptied sections and our old segment become zeros; then the new bytes are
	 * laid over them. */
	for (i = 0; lay->nown && i < ef->phnum && r == 0; i++)
		if (lay->isown[i])
			r = lay_zero(lay, ef->ph[i].offset, ef->ph[i].filesz);
	for (i = 0; i < n && r == 0; i++)
		r = lay_zero(lay, v[i]->off, v[i]->size);
	free(v);
	for (i = 1; i < ef->shnum && r == 0; i++)
		if (lay->isd[i] && ef->sh[i].type != SHT_NOBITS_)
			r = lay_zero(lay, ef->sh[i].offset, ef->sh[i].size);
	if (r == 0)
		r = lay_zero_carried(lay);
	if (r == 0)
		r = lay_emit_carry(lay);
	if (r == 0)
		r = lay_tail_emit(lay);
	if (r == 0 && lay->notesz)
		r = lay_patch(lay, lay->note_off, lay->notesz, lay->note, 0);
	/* What we move away and leave inside the kept bytes becomes zeros, so that a later run
	 * does not mistake stale tables for content (and drops nothing it should keep); but not
	 * where a segment's data shares those bytes. */
	if (r == 0 && lay->move_shstr)
		r = zero_unless_loaded(lay, ef->sh[ef->shstrndx].offset, ef->sh[ef->shstrndx].size);
	if (r == 0 && ef->shnum && lay->shoff != ef->shoff)
		r = zero_unless_loaded(lay, ef->shoff, ef->shnum * elf_shent_size(ef));
	if (r == 0 && lay->move_shstr) {
		const struct elf_shdr *st = &ef->sh[ef->shstrndx];
		r = lay_patch(lay, lay->shstr_off, st->size - lay->shstr_cut, NULL, st->offset);
		if (r == 0)
			r = lay_patch(lay, lay->shstr_off + st->size, lay->newnames.len,
				      lay->newnames.p, 0);
	}
	/* Renumbered tables first: symbols fixed after them overlay their entries. */
	if (r == 0 && ef->shnum)
		r = lay_renumber_symbols(lay);
	if (r == 0 && ef->shnum)
		r = lay_fix_symbols(lay);
	return r ? r : emit_headers(lay);
}

/* ---- the planners ---- */

static void log_note(struct lay *lay)
{
	struct plan *b = lay->pl;

	if (!lay->notesz) {
		plan_log(b, "note: removed\n");
		return;
	}
	plan_log(b, "note: %llu bytes at offset 0x%llx", (unsigned long long)lay->notesz,
		 (unsigned long long)lay->note_off);
	plan_log(b, ", address 0x%llx", (unsigned long long)lay->note_vaddr);
	plan_log(b, " (%s)\n",
		 lay->where == NOTE_INPLACE ? "where the old note was" : "in our segment");
}

/* Our segments at or after `from` (the end of the allocated part), or our old ones going away
 * from there: then the non-allocated sections after it move (layout_tail.c). */
static int segment_at_tail(const struct lay *lay, uint64_t from)
{
	size_t i;
	int k;

	for (k = 0; k < lay->nseg; k++)
		if (lay->seg[k].off >= from)
			return 1;
	for (i = 0; !lay->nseg && i < lay->ef->phnum; i++)
		if (lay->isown[i] && lay->ef->ph[i].offset >= from)
			return 1;
	return 0;
}

static int layout_tail(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	uint64_t end, keep;
	int tail = lay->nseg || lay->nown || lay->move_shstr || lay->new_section ||
		   (ef->shnum && lay->shout < ef->shnum),
	    k;

	/* Whenever anything new follows the input, the section headers move after it: they stay
	 * last, after everything they describe (strip and eu-elflint expect it). */
	lay->shoff = tail ? UINT64_MAX : ef->shoff;
	lay->keep = keep = tail ? compute_keep(lay) : ef->size;
	if (tail) {
		lay->tail_from = lay_tail_start(lay);
		if (lay->tail_from < lay->keep)
			lay->keep = lay->tail_from, lay->tail_moves = 1;
	}
	if (lay_place_linked(lay))
		return -1;
	if (lay->tail_moves && !segment_at_tail(lay, lay->tail_from))
		lay->keep = keep, lay->tail_moves = 0; /* our segment is in the page padding */
	end = lay->keep;
	for (k = 0; k < lay->nseg; k++)
		if (lay->seg[k].off + lay->seg[k].size > end)
			end = lay->seg[k].off + lay->seg[k].size;
	/* An allocated name table would count in the allocated part once moved after our segment,
	 * and the next run would put our segment after it again: the file would grow each time. */
	if (lay->move_shstr && (ef->sh[ef->shstrndx].flags & SHF_ALLOC_))
		return err_set(lay->e, "the section-name table is marked allocated (SHF_ALLOC), "
				       "which no linker writes: its names cannot be rewritten "
				       "(damaged file)");
	/* The name table moves with the tail when it is one of its sections; else (before the end
	 * of the allocated part, in damaged files) it is placed below like a table that stays. */
	lay->shstr_off = UINT64_MAX;
	if (lay->tail_moves) {
		end = lay_tail_layout(lay, end);
		if (end == UINT64_MAX)
			return err_set(lay->e, "the non-allocated sections cannot follow the new "
					       "segment (out of memory, "
					       "or sizes past the end of the address space)");
	}
	if (lay->move_shstr && lay->shstr_off == UINT64_MAX) {
		uint64_t size = ef->sh[ef->shstrndx].size - lay->shstr_cut + lay->newnames.len;
		lay->shstr_off = lay->notesz ? UINT64_MAX : lay_names_hole(lay, size);
		if (lay->shstr_off == UINT64_MAX) {
			lay->shstr_off = end;
			end += size;
		} else {
			plan_log(lay->pl, "section names: back at offset 0x%llx\n",
				 (unsigned long long)lay->shstr_off);
		}
	}
	if (tail && ef->shnum) {
		lay->shoff = align_up(end, ef->is64 ? 8 : 4);
		end = lay->shoff + lay->shout * elf_shent_size(ef);
	}
	if (!ef->is64 && end > UINT32_MAX)
		return err_set(
			lay->e,
			"the file would grow past 4 GiB, which a 32-bit ELF file cannot describe");
	lay->pl->keep = lay->keep;
	lay->pl->out_size = end;
	return 0;
}

int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note,
		struct plan *pl, struct err *e)
{
	struct lay lay;
	size_t i;
	int r = -1;

	plan_reset(pl);
	memset(&lay, 0, sizeof lay);
	lay.ef = ef, lay.sc = sc, lay.pl = pl, lay.e = e;
	lay.note = (const unsigned char *)note->p;
	lay.notesz = note->len;
	lay.note_ph = -1;
	if (ef->type != ET_EXEC_ && ef->type != ET_DYN_)
		return err_set(e, "cannot edit a %s", elf_type_name(ef));
	/* Its program headers describe another file: a layout planned from them would be wrong. */
	if (ef->detached)
		return err_set(
			e,
			"detached debug file (eu-strip -f, objcopy --only-keep-debug): its program "
			"headers describe the stripped file, whose contents are not here; edit "
			"that file instead");
	for (i = 0; i < ef->phnum && ef->ph[i].type != PT_LOAD_; i++)
		;
	if (i == ef->phnum) /* nothing loaded: not a program, and our table would be empty */
		return err_set(e, "linked file without a PT_LOAD segment");
	if (elf_check_layout(ef, e) || find_dlopen_sections(&lay))
		goto out;
	if (already_done(&lay)) {
		pl->unchanged = 1;
		pl->keep = pl->out_size = ef->size; /* with -o, the output is a copy */
		pl->strategy = "unchanged";
		plan_log(pl, "note: already present as requested; nothing to write\n");
		r = 0;
		goto out;
	}
	if (lay_find_own(&lay))
		goto out;
	if (lay_plan_linked(&lay) || lay_setup_sections(&lay) || layout_tail(&lay))
		goto out;
	lay_finish_sections(&lay);
	if (lay_order_sections(&lay))
		goto out;
	r = emit(&lay);
	if (r == 0) {
		log_note(&lay);
		for (int k = 0; k < lay.nseg; k++)
			plan_log(pl,
				 "segment: PT_LOAD %s at offset 0x%llx, address 0x%llx, %llu "
				 "bytes, align 0x%llx, %s%s\n",
				 lay.seg[k].pht ? (lay.seg[k].note ? "(PHT + note)" : "(PHT)")
						: "(note)",
				 (unsigned long long)lay.seg[k].off,
				 (unsigned long long)lay.seg[k].vaddr,
				 (unsigned long long)lay.seg[k].size,
				 (unsigned long long)lay.seg[k].align, lay.seg[k].placement,
				 lay.nown ? ", replacing our own" : "");
		plan_log(pl, "program headers: %zu entries %s\n", lay.phnum,
			 lay.pht_in_seg ? "moved into the segment"
			 : lay.pht_home ? "after the ELF header"
					: "where they were");
		if (ef->shnum)
			plan_log(pl, "section headers: %zu entries at offset 0x%llx\n", lay.shout,
				 (unsigned long long)lay.shoff);
		plan_log(pl, "output: %llu bytes (input %llu)\n", (unsigned long long)pl->out_size,
			 (unsigned long long)ef->size);
	}
out:
	free(lay.isd);
	free(lay.carry.in);
	free(lay.carry.dyn);
	free(lay.isown);
	free(lay.sh);
	free(lay.drop);
	free(lay.newidx);
	buf_free(&lay.newnames);
	free(lay.ph);
	if (r)
		plan_free(pl);
	return r;
}
