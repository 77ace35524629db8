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
#include "edit.h"

/* ---- step 1: the dlopen sections ---- */

static int find_dlopen_sections(struct lay *L)
{
	const struct scan *sc = L->sc;
	size_t i;

	L->isd = xcalloc(L->ef->shnum ? L->ef->shnum : 1, 1);
	if (!L->isd)
		return err_oom(L->e);
	if (scan_dlopen_sections(L->ef, sc, L->isd, L->e))
		return -1;
	/* The note goes into the first section named .note.dlopen (readers look it up by name),
	 * else into a new one; other sections holding dlopen notes are emptied. */
	for (i = 0; i < sc->nareas; i++)
		if (sc->areas[i].kind == AREA_SECTION && sc->areas[i].named &&
		    L->isd[sc->areas[i].index]) {
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
		if (!sec || sh->type != SHT_NOTE_ || sh->addralign != 4 ||
		    !(sh->flags & SHF_ALLOC_) || (sh->flags & SHF_WRITE_))
			goto out;
	}
	/* Exactly one PT_NOTE touches the note, and it covers it exactly. */
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_NOTE_ || !lay_overlaps(p->offset, p->filesz, off, L->notesz))
			continue;
		if (p->offset != off || p->filesz != L->notesz || p->align != 4)
			goto out;
		vaddr = p->vaddr;
		segs++;
	}
	ld = elf_load_covering(ef, off, L->notesz);
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
static uint64_t compute_keep(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t keep = elf_ehdr_size(ef);
	size_t i;

	if (ef->phnum && !lay_in_own(L, ef->phoff) &&
	    ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef) > keep)
		keep = ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || p->type == PT_PHDR_ || (L->isown && L->isown[i]))
			continue;
		if (lay_in_own(L, p->offset))
			continue;
		if (p->offset + p->filesz > keep)
			keep = p->offset + p->filesz;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type != SHT_NOBITS_ && s->size == 0 && !L->isd[i] && s->offset > keep &&
		    s->offset <= ef->size)
			keep = s->offset; /* an empty section's offset stays inside the file */
		if (s->type == SHT_NOBITS_ || s->size == 0 || lay_in_own(L, s->offset))
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
	/* After that, the input holds only what we own and drop (old section headers, a moved
	 * name table, our old segments, old dlopen sections), zeros and holes, or unknown data,
	 * which is kept: keep ends where the last unknown byte does. */
	{
		struct span *own = xcalloc(2 + ef->phnum + ef->shnum, sizeof *own);
		size_t n = 0, k;
		uint64_t pos = keep;
		if (!own)
			return ef->size; /* keeping everything is always safe */
		if (ef->shnum && L->shoff != ef->shoff)
			own[n++] = (struct span){ef->shoff,
						 ef->shoff + ef->shnum * elf_shent_size(ef)};
		if (L->move_shstr)
			own[n++] = (struct span){ef->sh[ef->shstrndx].offset,
						 ef->sh[ef->shstrndx].offset +
							 ef->sh[ef->shstrndx].size};
		for (i = 0; L->nown && i < ef->phnum; i++)
			if (L->isown[i])
				own[n++] = (struct span){ef->ph[i].offset,
							 ef->ph[i].offset + ef->ph[i].filesz};
		for (i = 1; i < ef->shnum; i++)
			if (L->isd[i] && ef->sh[i].size &&
			    !(i == L->target && L->where == NOTE_INPLACE))
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

static int emit_headers(struct lay *L)
{
	const struct elf *ef = L->ef;
	struct elf model = *ef;
	unsigned char eh[64], ent[64];
	size_t i, shes = elf_shent_size(ef);
	uint16_t e_phnum, e_shnum, e_shstrndx;

	if (lay_emit_phdrs(L))
		return -1;
	model.phnum = L->phnum;
	if (L->pht_in_seg)
		model.phoff = L->pht_b;
	else if (L->pht_home)
		model.phoff = L->home_off;
	/* Section headers: copy the old table if it moves, then write the entries that changed. */
	if (ef->shnum) {
		if ((L->shoff != ef->shoff || L->shoff + ef->shnum * shes > L->keep) &&
		    lay_patch(L, L->shoff, (L->shout < ef->shnum ? L->shout : ef->shnum) * shes,
			      NULL, ef->shoff))
			return -1;
		lay_compact_sections(L);
		if (L->shout >= SHN_LORESERVE_ || ef->sh[0].size)
			L->sh[0].size = L->shout >= SHN_LORESERVE_ ? L->shout : 0;
		if (model.phnum >= PN_XNUM_)
			L->sh[0].info = (uint32_t)model.phnum;
		for (i = 0; i < L->shout; i++) {
			if (i < ef->shnum && memcmp(&L->sh[i], &ef->sh[i], sizeof *L->sh) == 0)
				continue; /* unchanged: already there, or copied with the table */
			elf_encode_shdr(ef, &L->sh[i], ent);
			if (lay_patch(L, L->shoff + i * shes, shes, ent, 0))
				return -1;
		}
		model.shoff = L->shoff;
		model.shnum = L->shout;
	} else if (model.phnum >= PN_XNUM_) {
		return err_set(L->e, "too many program headers for a file without section headers");
	}
	e_phnum = model.phnum >= PN_XNUM_ ? PN_XNUM_ : (uint16_t)model.phnum;
	e_shnum = model.shnum >= SHN_LORESERVE_ ? 0 : (uint16_t)model.shnum;
	e_shstrndx = ef->shstrndx >= SHN_LORESERVE_
			     ? SHN_XINDEX_
			     : (uint16_t)(L->newidx ? L->shstrndx_out : ef->shstrndx);
	elf_encode_ehdr(&model, eh, e_phnum, e_shnum, e_shstrndx);
	return lay_patch(L, 0, elf_ehdr_size(ef), eh, 0);
}

/* Zero a table we moved away, unless it shares bytes with a segment's data (ours excepted:
 * that is zeroed whole). */
static int zero_unless_loaded(struct lay *L, uint64_t off, uint64_t len)
{
	const struct elf *ef = L->ef;
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_NULL_ && !(L->isown && L->isown[i]) &&
		    lay_overlaps(p->offset, p->filesz, off, len))
			return 0;
	}
	return lay_zero(L, off, len);
}

static int emit(struct lay *L)
{
	const struct elf *ef = L->ef;
	const struct scan_item **v;
	size_t n = scan_dlopen_notes(L->sc, &v), i;
	int r = 0;

	if (!v)
		return err_oom(L->e);
	/* Old notes, emptied sections and our old segment become zeros; then the new bytes are
	 * laid over them. */
	for (i = 0; L->nown && i < ef->phnum && r == 0; i++)
		if (L->isown[i])
			r = lay_zero(L, ef->ph[i].offset, ef->ph[i].filesz);
	for (i = 0; i < n && r == 0; i++)
		r = lay_zero(L, v[i]->off, v[i]->size);
	free(v);
	for (i = 1; i < ef->shnum && r == 0; i++)
		if (L->isd[i] && ef->sh[i].type != SHT_NOBITS_)
			r = lay_zero(L, ef->sh[i].offset, ef->sh[i].size);
	if (r == 0)
		r = lay_zero_carried(L);
	if (r == 0)
		r = lay_emit_carry(L);
	if (r == 0)
		r = lay_tail_emit(L);
	if (r == 0 && L->notesz)
		r = lay_patch(L, L->note_off, L->notesz, L->note, 0);
	/* What we move away and leave inside the kept bytes becomes zeros, so that a later run
	 * does not mistake stale tables for content (and drops nothing it should keep); but not
	 * where a segment's data shares those bytes. */
	if (r == 0 && L->move_shstr)
		r = zero_unless_loaded(L, ef->sh[ef->shstrndx].offset, ef->sh[ef->shstrndx].size);
	if (r == 0 && ef->shnum && L->shoff != ef->shoff)
		r = zero_unless_loaded(L, ef->shoff, ef->shnum * elf_shent_size(ef));
	if (r == 0 && L->move_shstr) {
		const struct elf_shdr *st = &ef->sh[ef->shstrndx];
		r = lay_patch(L, L->shstr_off, st->size - L->shstr_cut, NULL, st->offset);
		if (r == 0)
			r = lay_patch(L, L->shstr_off + st->size, L->newnames.len, L->newnames.p,
				      0);
	}
	/* Renumbered tables first: symbols fixed after them overlay their entries. */
	if (r == 0 && ef->shnum)
		r = lay_renumber_symbols(L);
	if (r == 0 && ef->shnum)
		r = lay_fix_symbols(L);
	return r ? r : emit_headers(L);
}

/* ---- the planners ---- */

static void log_note(struct lay *L)
{
	struct plan *b = L->pl;

	if (!L->notesz) {
		plan_log(b, "note: removed\n");
		return;
	}
	plan_log(b, "note: %llu bytes at offset 0x%llx", (unsigned long long)L->notesz,
		 (unsigned long long)L->note_off);
	plan_log(b, ", address 0x%llx", (unsigned long long)L->note_vaddr);
	plan_log(b, " (%s)\n",
		 L->where == NOTE_INPLACE ? "where the old note was" : "in our segment");
}

/* Our segments at or after `from` (the end of the allocated part), or our old ones going away
 * from there: then the non-allocated sections after it move (layout_tail.c). */
static int segment_at_tail(const struct lay *L, uint64_t from)
{
	size_t i;
	int k;

	for (k = 0; k < L->nseg; k++)
		if (L->seg[k].off >= from)
			return 1;
	for (i = 0; !L->nseg && i < L->ef->phnum; i++)
		if (L->isown[i] && L->ef->ph[i].offset >= from)
			return 1;
	return 0;
}

static int layout_tail(struct lay *L)
{
	const struct elf *ef = L->ef;
	uint64_t end, keep;
	int tail = L->nseg || L->nown || L->move_shstr || L->new_section ||
		   (ef->shnum && L->shout < ef->shnum),
	    k;

	/* Whenever anything new follows the input, the section headers move after it: they stay
	 * last, after everything they describe (strip and eu-elflint expect it). */
	L->shoff = tail ? UINT64_MAX : ef->shoff;
	L->keep = keep = tail ? compute_keep(L) : ef->size;
	if (tail) {
		L->tail_from = lay_tail_start(L);
		if (L->tail_from < L->keep)
			L->keep = L->tail_from, L->tail_moves = 1;
	}
	if (lay_place_linked(L))
		return -1;
	if (L->tail_moves && !segment_at_tail(L, L->tail_from))
		L->keep = keep, L->tail_moves = 0; /* our segment is in the page padding */
	end = L->keep;
	for (k = 0; k < L->nseg; k++)
		if (L->seg[k].off + L->seg[k].size > end)
			end = L->seg[k].off + L->seg[k].size;
	if (L->tail_moves) {
		end = lay_tail_layout(L, end);
		if (end == UINT64_MAX)
			return err_set(L->e, "the non-allocated sections cannot follow the new "
					     "segment (out of memory, "
					     "or sizes past the end of the address space)");
	} else if (L->move_shstr) {
		uint64_t size = ef->sh[ef->shstrndx].size - L->shstr_cut + L->newnames.len;
		L->shstr_off = L->notesz ? UINT64_MAX : lay_names_hole(L, size);
		if (L->shstr_off == UINT64_MAX) {
			L->shstr_off = end;
			end += size;
		} else {
			plan_log(L->pl, "section names: back at offset 0x%llx\n",
				 (unsigned long long)L->shstr_off);
		}
	}
	if (tail && ef->shnum) {
		L->shoff = align_up(end, ef->is64 ? 8 : 4);
		end = L->shoff + L->shout * elf_shent_size(ef);
	}
	if (!ef->is64 && end > UINT32_MAX)
		return err_set(
			L->e,
			"the file would grow past 4 GiB, which a 32-bit ELF file cannot describe");
	L->pl->keep = L->keep;
	L->pl->out_size = end;
	return 0;
}

int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note,
		struct plan *pl, struct err *e)
{
	struct lay L;
	size_t i;
	int r = -1;

	plan_reset(pl);
	memset(&L, 0, sizeof L);
	L.ef = ef, L.sc = sc, L.pl = pl, L.e = e;
	L.note = (const unsigned char *)note->p;
	L.notesz = note->len;
	L.note_ph = -1;
	if (ef->type != ET_EXEC_ && ef->type != ET_DYN_)
		return err_set(e, "cannot edit a %s", elf_type_name(ef));
	/* Its program headers describe another file: a layout planned from them would be wrong. */
	if (ef->detached || debugfile_code_missing(ef))
		return err_set(
			e,
			"detached debug file (eu-strip -f, objcopy --only-keep-debug): its program "
			"headers describe the stripped file, whose contents are not here; edit "
			"that file instead");
	for (i = 0; i < ef->phnum && ef->ph[i].type != PT_LOAD_; i++)
		;
	if (i == ef->phnum) /* nothing loaded: not a program, and our table would be empty */
		return err_set(e, "linked file without a PT_LOAD segment");
	if (elf_check_layout(ef, e) || find_dlopen_sections(&L))
		goto out;
	if (already_done(&L)) {
		pl->unchanged = 1;
		pl->keep = pl->out_size = ef->size; /* with -o, the output is a copy */
		pl->strategy = "unchanged";
		plan_log(pl, "note: already present as requested; nothing to write\n");
		r = 0;
		goto out;
	}
	if (lay_find_own(&L))
		goto out;
	if (lay_plan_linked(&L) || lay_setup_sections(&L) || layout_tail(&L))
		goto out;
	lay_finish_sections(&L);
	if (lay_order_sections(&L))
		goto out;
	r = emit(&L);
	if (r == 0) {
		log_note(&L);
		for (int k = 0; k < L.nseg; k++)
			plan_log(pl,
				 "segment: PT_LOAD %s at offset 0x%llx, address 0x%llx, %llu "
				 "bytes, align 0x%llx, %s%s\n",
				 L.seg[k].pht ? (L.seg[k].note ? "(PHT + note)" : "(PHT)")
					      : "(note)",
				 (unsigned long long)L.seg[k].off,
				 (unsigned long long)L.seg[k].vaddr,
				 (unsigned long long)L.seg[k].size,
				 (unsigned long long)L.seg[k].align, L.seg[k].placement,
				 L.nown ? ", replacing our own" : "");
		plan_log(pl, "program headers: %zu entries %s\n", L.phnum,
			 L.pht_in_seg ? "moved into the segment"
			 : L.pht_home ? "after the ELF header"
				      : "where they were");
		if (ef->shnum)
			plan_log(pl, "section headers: %zu entries at offset 0x%llx\n", L.shout,
				 (unsigned long long)L.shoff);
		plan_log(pl, "output: %llu bytes (input %llu)\n", (unsigned long long)pl->out_size,
			 (unsigned long long)ef->size);
	}
out:
	free(L.isd);
	free(L.carry.in);
	free(L.carry.dyn);
	free(L.isown);
	free(L.sh);
	free(L.drop);
	free(L.newidx);
	buf_free(&L.newnames);
	free(L.ph);
	if (r)
		plan_free(pl);
	return r;
}
