/* SPDX-License-Identifier: MIT */
/* layout_sections.c - the section headers of a linked file after the edit: the .note.dlopen
 * name, the sections of our segment, emptied dlopen sections, and symbols that pointed into
 * them. */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* ---- sections ---- */

/* Reuse ".note.dlopen" if the name table already has it (as a whole string); else the table is
 * copied to the tail with the name appended. */
static int find_name(struct lay *lay, const char *want, uint32_t *name)
{
	const struct elf *ef = lay->ef;
	const struct elf_shdr *st = &ef->sh[ef->shstrndx];
	size_t wlen = strlen(want) + 1; /* with its NUL */
	unsigned char chunk[4096];
	uint64_t base = 0, n, k;
	struct err ignore;

	if (ef->shstrndx == 0 || st->type != SHT_STRTAB_)
		return err_set(lay->e,
			       "no section name table (e_shstrndx): cannot name a new section");
	/* Chunks overlap by wlen, so a match across a boundary is seen whole once. */
	while (base < st->size) {
		n = st->size - base < sizeof chunk ? st->size - base : sizeof chunk;
		if (elf_read(ef, st->offset + base, n, chunk, &ignore))
			break;
		for (k = 0; k + wlen <= n; k++)
			if (memcmp(chunk + k, want, wlen) == 0 &&
			    (base + k == 0 || (k > 0 && chunk[k - 1] == 0))) {
				*name = (uint32_t)(base + k);
				return 0;
			}
		if (base + n >= st->size)
			break;
		base += n - wlen;
	}
	if (st->size + lay->newnames.len + wlen + 1 > UINT32_MAX)
		return err_set(lay->e, "section name table too large");
	if (elf_names_inside_table(ef, lay->e))
		return -1;
	if (st->size + lay->newnames.len == 0)
		buf_putc(&lay->newnames, '\0'); /* offset 0 is the empty name of unnamed sections */
	*name = (uint32_t)(st->size + lay->newnames.len);
	buf_put(&lay->newnames, want, wlen);
	lay->move_shstr = 1;
	return lay->newnames.oom ? err_oom(lay->e) : 0;
}

/* New sections go at the end of the table, so no index changes: the PHT's section (when the
 * PHT moved into our segment and has none yet), then .note.dlopen (when the file has none). */
int lay_setup_sections(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	int new_ph;

	if (!ef->shnum)
		return 0;
	/* A name table we moved after our own segment moves again with it; kept there, it would
	 * push the rebuilt segment further on every run. */
	for (size_t i = 0; i < ef->phnum && lay->nown && ef->shstrndx; i++)
		if (lay->isown[i] && ef->sh[ef->shstrndx].offset >= ef->ph[i].offset)
			lay->move_shstr = 1;
	/* A section covering exactly the table is its section, whatever its name; the one named
	 * PHDR_SECTION_NAME in our segment (found by lay_find_own) serves only when none does. */
	for (size_t i = 1; i < ef->shnum; i++)
		if (ef->sh[i].offset == ef->phoff &&
		    ef->sh[i].size == ef->phnum * elf_phent_size(ef) &&
		    ef->sh[i].type != SHT_NOBITS_ && !lay->isd[i]) {
			lay->phsec = i;
			break;
		}
	new_ph = lay->pht_in_seg && !lay->phsec;
	lay->new_section = lay->notesz && !lay->target;
	lay->shnum = ef->shnum + (size_t)new_ph + (size_t)lay->new_section;
	lay->sh = xcalloc(lay->shnum, sizeof *lay->sh);
	if (!lay->sh)
		return err_oom(lay->e);
	memcpy(lay->sh, ef->sh, ef->shnum * sizeof *lay->sh);
	lay->shout = lay_plan_drops(lay);
	if (lay->shout == (size_t)-1)
		return -1;
	if (new_ph) {
		lay->phsec = ef->shnum;
		if (find_name(lay, PHDR_SECTION_NAME, &lay->sh[lay->phsec].name))
			return -1;
	}
	if (lay->new_section) {
		lay->target = ef->shnum + (size_t)new_ph;
		if (find_name(lay, SECTION_NAME, &lay->sh[lay->target].name))
			return -1;
	}
	return 0;
}

/* A section emptied by this run keeps its place when that place stays loaded (a linker put it
 * there); if it was in our own segment, which is rebuilt, it no longer describes memory. */
static void empty_section(struct lay *lay, size_t i)
{
	struct elf_shdr *s = &lay->sh[i];

	s->size = 0;
	if ((s->flags & SHF_ALLOC_) &&
	    (lay_in_own(lay, lay->ef->sh[i].offset) || !elf_load_covering(lay->ef, s->offset, 0))) {
		s->flags &= ~(uint64_t)SHF_ALLOC_;
		s->addr = 0;
		s->offset = s->offset < lay->keep ? s->offset : lay->keep;
	}
}

void lay_finish_sections(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	struct elf_shdr *s;
	size_t i;

	if (!lay->sh)
		return;
	for (i = 1; i < ef->shnum; i++)
		if (lay->isd[i] && (i != lay->target || !lay->notesz))
			empty_section(lay, i);
	/* No other section is ours, whatever its offset: a NOBITS section (.bss, .tbss) may
	 * start where our old segment does, and keeps its header. */
	if (lay->notesz) {
		s = &lay->sh[lay->target];
		s->type = SHT_NOTE_;
		s->flags = (s->flags & ~(uint64_t)(SHF_WRITE_ | SHF_EXECINSTR_)) | SHF_ALLOC_;
		s->addr = lay->note_vaddr;
		s->offset = lay->note_off;
		s->size = lay->notesz;
		s->addralign = 4;
		s->entsize = 0;
	}
	if (lay->phsec && !lay->pht_in_seg && ef->sh[lay->phsec].offset == ef->phoff &&
	    ef->sh[lay->phsec].size == ef->phnum * elf_phent_size(ef)) {
		lay->sh[lay->phsec].size =
			lay->phnum * elf_phent_size(ef); /* the table stays: still covered */
	} else if (lay->phsec && !lay->pht_in_seg) {
		empty_section(lay, lay->phsec); /* the table left our segment */
	} else if (lay->phsec) {
		s = &lay->sh[lay->phsec];
		s->type = 1; /* SHT_PROGBITS */
		s->flags = SHF_ALLOC_ | (lay->seg[0].flags & PF_X_ ? SHF_EXECINSTR_ : 0);
		s->addr = lay->seg[0].vaddr +
			  (lay->pht_b - lay->seg[0].off); /* copy B, the live one */
		s->offset = lay->pht_b;
		s->size = lay->phsz;
		s->addralign = ef->is64 ? 8 : 4;
		s->link = s->info = 0;
		s->entsize = elf_phent_size(ef);
	}
	lay_carry_sections(lay);
	if (lay->move_shstr) {
		lay->sh[ef->shstrndx].offset = lay->shstr_off;
		lay->sh[ef->shstrndx].size += lay->newnames.len - lay->shstr_cut;
	}
}

/* ---- the order of the table ---- */

/* .dynsym and its string table keep their place in the table when carried: bfd reads a string
 * table by first loading the sections that link to it, and a relocation section by first
 * loading its symbol table, then writes sections in the order it loaded them.  A .dynsym
 * after .dynstr or .rela.dyn would come out in another place in GNU strip's output, and
 * .dynsym's st_shndx (which bfd copies as they are) would name the wrong sections. */
static int dynamic_symbols(const struct elf *ef, size_t i)
{
	size_t k;

	if (ef->sh[i].type == SHT_DYNSYM_)
		return 1;
	for (k = 1; ef->sh[i].type == SHT_STRTAB_ && k < ef->shnum; k++)
		if (ef->sh[k].type == SHT_DYNSYM_ && ef->sh[k].link == i)
			return 1;
	return 0;
}

/* Sections this run moved or made: carried after the table, and ours. */
static int moving(const struct lay *lay, size_t i)
{
	return i >= lay->ef->shnum ||
	       (lay->carry.in && lay->carry.in[i] && !dynamic_symbols(lay->ef, i)) ||
	       (i == lay->target && lay->notesz) || (i == lay->phsec && lay->pht_in_seg);
}

/* The table in the order linkers write it: allocated sections by address, then the others, as
 * they were.  dwz sorts sections by offset and takes the table's order for ties (an allocated
 * section after a non-allocated one, or sharing an offset with an empty one, fails the
 * package build); patchelf sorts them by offset without renumbering the symbols.  Only the
 * sections that moved change places: ours and the carried ones, merged in by address.  Later
 * sections are renumbered, .dynsym included (lay_renumber_symbols).  Files with section groups
 * or extended numbering keep their order. */
int lay_order_sections(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t n = lay->shnum, i, k, out = 1, nm = 0, m = 0;
	struct keyed *mov;
	int same = 1;

	if (!n || ef->shnum >= SHN_LORESERVE_)
		return 0;
	/* The output's headers: a dlopen section of another type becomes a note here, and the
	 * next run must decide as this one did. */
	for (i = 1; i < n; i++)
		if (!(lay->drop && lay->drop[i]) &&
		    (lay->sh[i].type == SHT_GROUP_ || lay->sh[i].type == SHT_SYMTAB_SHNDX_))
			return 0;
	mov = xcalloc(n, sizeof *mov);
	if (!lay->newidx)
		lay->newidx = xcalloc(n, sizeof *lay->newidx);
	if (!mov || !lay->newidx) {
		free(mov);
		return err_oom(lay->e);
	}
	for (i = 1; i < n; i++)
		if ((!lay->drop || !lay->drop[i]) && (lay->sh[i].flags & SHF_ALLOC_) &&
		    moving(lay, i))
			mov[nm].key = lay->sh[i].addr, mov[nm++].val = i;
	keyed_sort(mov, nm);
	for (k = 0; k < 2; k++)
		for (i = 1; i < n; i++) {
			int alloc = (lay->sh[i].flags & SHF_ALLOC_) != 0;
			if ((lay->drop && lay->drop[i]) || alloc != !k || (alloc && moving(lay, i)))
				continue;
			/* a .dynsym carried away keeps its place: addresses say nothing there
			 * (going back, they do again) */
			int kept = lay->carry.in && i < ef->shnum && lay->carry.in[i] &&
				   lay->carry.new_vaddr > lay->carry.vaddr;
			while (m < nm && (!alloc || (!kept && mov[m].key < lay->sh[i].addr)))
				lay->newidx[mov[m++].val] = (uint32_t)out++;
			lay->newidx[i] = (uint32_t)out++;
		}
	while (m < nm)
		lay->newidx[mov[m++].val] = (uint32_t)out++;
	free(mov);
	for (i = 0; i < n; i++)
		if (!(lay->drop && lay->drop[i]) && lay->newidx[i] != i)
			same = 0;
	if (same && !lay->drop) {
		free(lay->newidx);
		lay->newidx = NULL;
		return 0;
	}
	lay->shstrndx_out = lay->newidx[ef->shstrndx];
	return 0;
}

/* Symbols defined in a rewritten dlopen section must stay inside it (eu-elflint checks this):
 * those that no longer fit are moved to its start with size 0.  Symbol tables are streamed. */
int lay_fix_symbols(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t es = elf_sym_size(ef), t, i, k, nsym;
	unsigned char chunk[256 * 24], xs[256 * 4], out[24];
	uint64_t idx;
	struct elf_sym s;

	/* Only symbols in sections that held dlopen notes can need it (new sections have none). */
	for (t = 1; t < ef->shnum && !lay->isd[t]; t++)
		;
	if (t == ef->shnum)
		return 0;
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
			if (elf_read(ef, st->offset + i * es, n * es, chunk, lay->e))
				return -1;
			if (xt && (xt->size < (i + n) * 4 ||
				   elf_read(ef, xt->offset + i * 4, n * 4, xs, lay->e)))
				xt = NULL;
			for (k = 0; k < n; k++) {
				const struct elf_shdr *d;
				uint64_t start;
				elf_decode_sym(ef, chunk + k * es, &s);
				idx = s.shndx == SHN_XINDEX_ && xt ? elf_get(ef, xs + k * 4, 4)
								   : s.shndx;
				if (idx == 0 || idx >= ef->shnum || !lay->isd[idx] ||
				    (s.shndx >= SHN_LORESERVE_ && s.shndx != SHN_XINDEX_) ||
				    (lay->drop && lay->drop[idx]))
					continue; /* a removed section's symbols are renumbered to
						     SHN_ABS */
				d = &lay->sh[idx];
				start = d->addr;
				if ((s.info & 0xf) == STT_SECTION_
					    ? s.value == start
					    : (s.value >= start && s.value - start <= d->size &&
					       s.size <= d->size - (s.value - start)))
					continue;
				/* .dynsym is loaded: its entries are never rewritten. */
				if (st->type == SHT_DYNSYM_)
					return err_set(
						lay->e,
						"dynamic symbol %zu points into the dlopen note, "
						"which would %s",
						i + k,
						lay->notesz ? "move"
							    : "be left outside its emptied section "
							      "(.dynsym is never rewritten)");
				s.value = start;
				s.size = 0;
				if (lay->newidx && s.shndx != SHN_XINDEX_)
					s.shndx =
						(uint16_t)lay->newidx[s.shndx]; /* over the
										 renumbered table */
				elf_encode_sym(ef, &s, out);
				if (lay_patch(lay, lay->sh[t].offset + (i + k) * es, es, out, 0))
					return -1;
			}
		}
	}
	return 0;
}
