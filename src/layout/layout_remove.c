/* SPDX-License-Identifier: MIT */
/* layout_remove.c - what --remove on a linked file takes away besides the notes, so that
 * nothing of ours that can go stays (docs/layout.md, "Remove"):
 *
 *  - the dlopen sections' headers, wherever they are in the table: later sections are
 *    renumbered (sh_link, sh_info, e_shstrndx, .symtab's st_shndx, streamed through a
 *    transform, never held in memory).  A symbol defined in a removed section becomes
 *    absolute, its value kept.  A header stays, empty, when a kept section refers to it or
 *    when .dynsym (loaded, so never rewritten) names it or a later section;
 *  - .dlnote.phdrs and our segment: the program header table goes back right after the ELF
 *    header, where linkers put it, when those bytes are still free (with the linker's PT_NULL
 *    entries, and the first PT_LOAD grown back over it where GNU strip shrank it);
 *  - the section names the tool appended to the section-name table, which goes back to the
 *    hole an earlier add left.
 *
 * Files with extended section numbering or section groups only lose trailing sections: their
 * indexes live in places (SHT_SYMTAB_SHNDX, group member lists) not renumbered here. */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* ---- the program header table back home ---- */

/* Every program header type a linker writes: the generic ones and the OS/processor ranges. */
static int plausible_type(uint32_t t)
{
	return t <= 7 || (t >= 0x60000000u && t <= 0x7fffffffu);
}

/* The bytes at `home` may take the table: zeros, or a stale program header table describing
 * this file (every entry of a plausible type, one PT_LOAD equal to one of the new table) such
 * as the one the linker wrote and an earlier add left behind. */
static int home_bytes_ok(const struct lay *lay, uint64_t home, const unsigned char *pht)
{
	const struct elf *ef = lay->ef;
	size_t es = elf_phent_size(ef), i, k;
	unsigned char *cur = malloc(lay->phsz ? lay->phsz : 1);
	struct err ignore;
	int ok = 0, load = 0;

	if (!cur || elf_read(ef, home, lay->phsz, cur, &ignore))
		goto out;
	for (i = 0; i < lay->phsz && !cur[i]; i++)
		;
	ok = i == lay->phsz || memcmp(cur, pht, lay->phsz) == 0;
	for (i = 0; !ok && i < lay->phnum; i++) {
		if (!plausible_type((uint32_t)elf_get(ef, cur + i * es, 4)))
			goto out;
		for (k = 0; k < lay->phnum; k++)
			if (lay->ph[k].type == PT_LOAD_ &&
			    memcmp(cur + i * es, pht + k * es, es) == 0)
				load = 1;
	}
	ok = ok || load;
out:
	free(cur);
	return ok;
}

/* Nothing but our segments is loaded at [vaddr, vaddr+len). */
static int memory_free(const struct lay *lay, uint64_t vaddr, uint64_t len)
{
	const struct elf *ef = lay->ef;
	size_t i;

	for (i = 0; i < ef->phnum; i++)
		if (ef->ph[i].type == PT_LOAD_ && !lay->isown[i] &&
		    lay_overlaps(ef->ph[i].vaddr, ef->ph[i].memsz, vaddr, len))
			return 0;
	for (i = 1; i < ef->shnum; i++)
		if ((ef->sh[i].flags & SHF_ALLOC_) && !lay_in_own(lay, ef->sh[i].offset) &&
		    lay_overlaps(ef->sh[i].addr, ef->sh[i].size, vaddr, len))
			return 0;
	return 1;
}

/* Right after the ELF header, inside the first PT_LOAD (not ours), with no section, other
 * segment or header table there: 1.  Or 2: the first PT_LOAD holds the ELF header alone
 * (GNU strip shrinks it so when the table has left it: musl static) and nothing else is
 * loaded after it: that PT_LOAD grows back over the table, as the linker made it. */
static int home_is_free(const struct lay *lay, uint64_t home, uint64_t len)
{
	const struct elf *ef = lay->ef;
	const struct elf_phdr *ld = elf_load_covering(ef, home, len), *first = lay_first_load(lay);
	size_t i;
	int grow = (!ld || lay->isown[ld - ef->ph]) && first && first->offset == 0 &&
		   first->filesz == home && first->memsz == home && !(first->flags & PF_W_) &&
		   memory_free(lay, first->vaddr + home, len);

	if (!grow && (!ld || ld != first))
		return 0;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || p->type == PT_LOAD_ || p->type == PT_PHDR_ ||
		    lay->isown[i] || lay_in_own(lay, p->offset))
			continue;
		if (lay_overlaps(p->offset, p->filesz, home, len))
			return 0;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || lay->isd[i] || i == lay->phsec ||
		    lay_in_own(lay, s->offset))
			continue;
		if (lay_overlaps(s->offset, s->size, home, len))
			return 0;
	}
	if (ef->shnum && lay_overlaps(ef->shoff, ef->shnum * elf_shent_size(ef), home, len))
		return 0;
	return grow ? 2 : 1;
}

/* The linker's own PT_NULL entries (mips binutils ends its table with one, p_align 4) that the
 * stale table has right after ours come back too, so that the table has the input's count.
 * All-zero entries are free room, not entries. */
static int linker_nulls(struct lay *lay, uint64_t home)
{
	const struct elf *ef = lay->ef;
	size_t es = elf_phent_size(ef), k;
	unsigned char raw[64];
	struct elf_phdr ph;
	struct err ignore;

	while (home_is_free(lay, home, lay->phsz + es) &&
	       elf_read(ef, home + lay->phsz, es, raw, &ignore) == 0) {
		struct elf_phdr *v;
		for (k = 0; k < es && !raw[k]; k++)
			;
		elf_decode_phdr(ef, raw, &ph);
		if (ph.type != PT_NULL_ || k == es)
			break;
		v = xgrow(lay->ph, &lay->ph_cap, lay->phnum, sizeof *v);
		if (!v)
			return err_oom(lay->e);
		lay->ph = v;
		lay->ph[lay->phnum++] = ph;
		lay->phsz += es;
	}
	return 0;
}

/* On --remove, when the table was in our segment: lay->ph is the table without our PT_LOAD.
 * Returns 1 when it goes back after the ELF header (then our segment goes), 0 when it stays
 * in our segment. */
int lay_pht_home(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	uint64_t home = elf_ehdr_size(ef);
	size_t es = elf_phent_size(ef), i;
	unsigned char *pht;
	int ok = 0;

	pht = xcalloc(lay->phnum ? lay->phnum : 1, es);
	if (!pht)
		return err_oom(lay->e);
	for (i = 0; i < lay->phnum; i++)
		elf_encode_phdr(ef, &lay->ph[i], pht + i * es);
	ok = home_is_free(lay, home, lay->phsz) && home_bytes_ok(lay, home, pht);
	free(pht);
	if (ok) {
		const struct elf_phdr *ld = lay_first_load(lay);
		lay->pht_home = 1;
		lay->home_off = home;
		lay->home_vaddr = ld->vaddr + (home - ld->offset);
		plan_log(lay->pl,
			 "program headers: back at offset 0x%llx, after the ELF header; our "
			 "segment goes\n",
			 (unsigned long long)home);
		if (linker_nulls(lay, home))
			return -1;
		if (ld->offset + ld->filesz < home + lay->phsz)
			for (i = 0; i < lay->phnum; i++)
				if (lay->ph[i].type == PT_LOAD_ &&
				    lay->ph[i].offset == ld->offset &&
				    lay->ph[i].vaddr == ld->vaddr) {
					lay->ph[i].filesz = lay->ph[i].memsz =
						home + lay->phsz - ld->offset;
					plan_log(lay->pl, "segment: the first PT_LOAD grows back "
							  "over them\n");
				}
		return 1;
	}
	plan_log(lay->pl,
		 "program headers: stay in our segment (the bytes after the ELF header are "
		 "in use)\n");
	return 0;
}

/* ---- which section headers go ---- */

static void log_section(struct lay *lay, size_t i, const char *what)
{
	char name[64];

	elf_section_name(lay->ef, i, name, sizeof name);
	plan_log(lay->pl, "section [%zu] %s: %s\n", i, name, what);
}

/* A dropped section that a kept one links to stays (repeated until nothing changes: the
 * links form chains, such as a relocation section to its symbol table to its strings). */
static void keep_referenced(struct lay *lay, unsigned char *drop)
{
	const struct elf *ef = lay->ef;
	size_t j;
	int changed = 1;

	while (changed) {
		changed = 0;
		for (j = 1; j < ef->shnum; j++) {
			const struct elf_shdr *s = &ef->sh[j];
			int info_index = s->type == SHT_REL_ || s->type == SHT_RELA_ ||
					 (s->flags & SHF_INFO_LINK_);
			if (drop[j])
				continue;
			if (s->link && s->link < ef->shnum && drop[s->link]) {
				drop[s->link] = 0, changed = 1;
				log_section(lay, s->link,
					    "kept, empty: another section links to it");
			}
			if (info_index && s->info && s->info < ef->shnum && drop[s->info]) {
				drop[s->info] = 0, changed = 1;
				log_section(lay, s->info, "kept, empty: relocations apply to it");
			}
		}
	}
}

/* A section stays, empty, when a dynamic symbol is defined in it: the symbol would be left
 * outside any section.  Later sections are renumbered, in .dynsym too (its st_shndx only
 * tells the loader that a symbol is defined; lay_renumber_symbols).  The table is streamed. */
static int keep_dynamic_targets(struct lay *lay, unsigned char *drop)
{
	const struct elf *ef = lay->ef;
	size_t es = elf_sym_size(ef), t, k, i, n;
	unsigned char chunk[256 * 24];
	struct elf_sym s;

	for (t = 1; t < ef->shnum; t++) {
		const struct elf_shdr *st = &ef->sh[t];
		if (st->type != SHT_DYNSYM_)
			continue;
		if (st->entsize != es) {
			for (k = 1; k < ef->shnum; k++)
				drop[k] = 0; /* unreadable: nothing may be renumbered */
			return 0;
		}
		for (i = 0; i < st->size / es; i += n) {
			n = st->size / es - i < 256 ? (size_t)(st->size / es - i) : 256;
			if (elf_read(ef, st->offset + i * es, n * es, chunk, lay->e))
				return -1;
			for (k = 0; k < n; k++) {
				elf_decode_sym(ef, chunk + k * es, &s);
				if (s.shndx > 0 && s.shndx < ef->shnum &&
				    s.shndx < SHN_LORESERVE_ && drop[s.shndx]) {
					drop[s.shndx] = 0;
					log_section(lay, s.shndx,
						    "kept, empty: a dynamic symbol (.dynsym) is "
						    "defined in it");
				}
			}
		}
	}
	return 0;
}

/* Only trailing sections go when indexes must not change (extended numbering, groups). */
static void keep_all_but_trailing(const struct elf *ef, unsigned char *drop)
{
	size_t i = ef->shnum;

	while (i > 1 && drop[i - 1])
		i--;
	while (i > 1)
		drop[--i] = 0;
}

/* Trailing names of the section-name table that are ours and that no kept section uses go. */
static void trim_names(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct elf_shdr *st = &ef->sh[ef->shstrndx];
	unsigned char tail[64];
	uint64_t size = st->size, from, start;
	struct err ignore;
	size_t i;

	if (!ef->shstrndx || st->type != SHT_STRTAB_ || (st->flags & SHF_ALLOC_) ||
	    lay->newnames.len || size < 2)
		return;
	from = size > sizeof tail ? size - sizeof tail : 0;
	if (elf_read(ef, st->offset + from, size - from, tail, &ignore) || tail[size - from - 1])
		return;
	for (;;) {
		const char *name;
		for (start = size - 1; start > from && tail[start - 1 - from]; start--)
			;
		if (start == from && from)
			break;
		name = (const char *)tail + (start - from);
		if (start == 0 || (strcmp(name, SECTION_NAME) && strcmp(name, PHDR_SECTION_NAME)))
			break;
		for (i = 1; i < ef->shnum; i++)
			if (!lay->drop[i] && lay->sh[i].name >= start && lay->sh[i].name < size)
				return;
		size = start;
	}
	if (size < st->size) {
		lay->shstr_cut = st->size - size;
		lay->move_shstr = 1;
		plan_log(lay->pl,
			 "section names: %llu bytes of ours dropped from the end of the name "
			 "table\n",
			 (unsigned long long)lay->shstr_cut);
	}
}

static size_t no_drops(struct lay *lay)
{
	free(lay->drop);
	free(lay->newidx);
	lay->drop = NULL;
	lay->newidx = NULL;
	return lay->shnum;
}

/* The section count to write, with lay->drop and lay->newidx set when any header goes (newidx maps
 * every kept index to its new one): on --remove, ours; on an add, the PHT section of an older
 * layout whose table went back home. */
size_t lay_plan_drops(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t i, out = 0, groups = 0;

	if (!ef->shnum || (lay->notesz && (!lay->phsec || lay->pht_in_seg)))
		return lay->shnum;
	/* Sections appended by this run (the table's, when it moves) follow the input's. */
	lay->drop = xcalloc(lay->shnum, 1);
	lay->newidx = xcalloc(lay->shnum, sizeof *lay->newidx);
	if (!lay->drop || !lay->newidx)
		return no_drops(lay); /* out of memory: nothing goes, which is always safe */
	for (i = 1; i < ef->shnum; i++) {
		char name[32];
		elf_section_name(ef, i, name, sizeof name);
		/* On an add, only the PHT's section of an older layout goes (the table left it). */
		lay->drop[i] = i != ef->shstrndx && ((lay->isd[i] && !lay->notesz) ||
						     (i == lay->phsec && !lay->pht_in_seg &&
						      strcmp(name, PHDR_SECTION_NAME) == 0));
		groups += ef->sh[i].type == SHT_GROUP_;
	}
	keep_referenced(lay, lay->drop);
	if (keep_dynamic_targets(lay, lay->drop))
		return (size_t)-1;
	if (ef->shnum >= SHN_LORESERVE_ || groups)
		keep_all_but_trailing(ef, lay->drop);
	for (i = 0; i < lay->shnum; i++) {
		lay->newidx[i] = (uint32_t)out;
		if (!lay->drop[i])
			out++;
		else
			log_section(lay, i, "removed");
	}
	if (out == lay->shnum)
		return no_drops(lay);
	lay->shstrndx_out = lay->newidx[ef->shstrndx];
	if (!lay->notesz)
		trim_names(lay); /* on an add, names may still be taken (lay_setup_sections) */
	return out;
}

/* ---- renumbering ---- */

void lay_symbols_renumbered(const void *ctx, unsigned char *buf, uint64_t len)
{
	const struct lay_symmap *m = ctx;
	int vw = m->es == 24 ? 8 : 4, vat = m->es == 24 ? 8 : 4, i;
	uint64_t k, val;

	for (k = 0; k + m->es <= len; k += m->es) {
		unsigned char *p = buf + k + m->at, *vp = buf + k + vat;
		uint32_t v = m->big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
		if (v == 0 || v >= m->n)
			continue;
		v = m->map[v];
		if (v & LAY_SYM_MOVED) {
			/* its section moved in memory (a carried block): the value follows */
			for (val = 0, i = 0; i < vw; i++)
				val |= (uint64_t)vp[m->big ? vw - 1 - i : i] << (8 * i);
			val += m->delta;
			for (i = 0; i < vw; i++)
				vp[m->big ? vw - 1 - i : i] = (unsigned char)(val >> (8 * i));
			v &= ~LAY_SYM_MOVED;
		}
		p[m->big ? 0 : 1] = (unsigned char)(v >> 8);
		p[m->big ? 1 : 0] = (unsigned char)v;
	}
}

/* Every symbol table is rewritten through symbols_renumbered, when any index changes or a
 * carried section moved. */
int lay_renumber_symbols(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t es = elf_sym_size(ef), i, t;
	uint64_t delta = lay_carry_delta(lay);
	struct lay_symmap *m;
	int moved = delta != 0, r = 0;

	for (i = 0; lay->newidx && i < ef->shnum; i++)
		moved |= !(lay->drop && lay->drop[i]) && lay->newidx[i] != i;
	if (!moved)
		return 0;
	m = malloc(sizeof *m + ef->shnum * sizeof m->map[0]);
	if (!m)
		return err_oom(lay->e);
	m->es = (uint32_t)es;
	m->at = ef->is64 ? 6 : 14;
	m->big = (uint32_t)ef->big;
	m->n = (uint32_t)ef->shnum;
	m->delta = delta;
	for (i = 0; i < ef->shnum; i++) {
		m->map[i] = !lay->newidx                ? (uint32_t)i
			    : lay->drop && lay->drop[i] ? SHN_ABS_
							: lay->newidx[i];
		if (delta && lay->carry.in[i])
			m->map[i] |= LAY_SYM_MOVED;
	}
	for (t = 1; t < ef->shnum && r == 0; t++) {
		const struct elf_shdr *st = &ef->sh[t];
		/* .dynsym too: loaded, but the loader reads only whether st_shndx is a section; its
		 * indexes change only when sections moved (never on --remove: keep_dynamic_targets)
		 */
		if ((st->type != SHT_SYMTAB_ && st->type != SHT_DYNSYM_) ||
		    (lay->drop && lay->drop[t]))
			continue;
		if (st->entsize != es || st->size % es)
			r = err_set(
				lay->e,
				"symbol table %zu has entries of %llu bytes: cannot renumber it", t,
				(unsigned long long)st->entsize);
		else
			r = plan_patch_xform(lay->pl, lay->sh[t].offset, st->size, st->offset,
					     lay_symbols_renumbered, m,
					     sizeof *m + ef->shnum * sizeof m->map[0], lay->e);
	}
	free(m);
	return r;
}

/* The new section table: kept entries, in their new order, with their links renumbered. */
void lay_compact_sections(struct lay *lay)
{
	struct elf_shdr *old;
	size_t i;

	if (!lay->newidx || !(old = malloc(lay->shnum * sizeof *old)))
		return;
	memcpy(old, lay->sh, lay->shnum * sizeof *old);
	for (i = 0; i < lay->shnum; i++) {
		struct elf_shdr s = old[i];
		int info_index =
			s.type == SHT_REL_ || s.type == SHT_RELA_ || (s.flags & SHF_INFO_LINK_);
		if (lay->drop && lay->drop[i])
			continue;
		if (s.link && s.link < lay->shnum)
			s.link = lay->newidx[s.link];
		if (info_index && s.info && s.info < lay->shnum)
			s.info = lay->newidx[s.info];
		lay->sh[lay->newidx[i]] = s;
	}
	free(old);
}

/* ---- the section-name table back in its hole ---- */

/* An earlier add moved the name table to the end (appending a name) and zeroed its old place.
 * The first zeroed gap after the loaded bytes and before `keep` that no section or header
 * table uses and that holds `size` bytes takes it back: that is its old place (the gaps
 * between sections are alignment padding, smaller than the names), so the file shrinks back.
 * UINT64_MAX: none. */
uint64_t lay_names_hole(const struct lay *lay, uint64_t size)
{
	const struct elf *ef = lay->ef;
	uint64_t(*sp)[2] = xcalloc(ef->shnum + 1, sizeof *sp), pos = 0, found = UINT64_MAX;
	size_t i, n = 0;

	if (!sp || !size)
		goto out;
	for (i = 0; i < ef->phnum; i++)
		if (ef->ph[i].type == PT_LOAD_ && !lay->isown[i] &&
		    ef->ph[i].offset + ef->ph[i].filesz > pos)
			pos = ef->ph[i].offset + ef->ph[i].filesz;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || !s->size || lay->isd[i] || i == lay->phsec ||
		    i == ef->shstrndx || lay_in_own(lay, s->offset))
			continue;
		sp[n][0] = s->offset, sp[n++][1] = s->offset + s->size;
	}
	sp[n][0] = ef->shoff, sp[n++][1] = ef->shoff + ef->shnum * elf_shent_size(ef);
	qsort(sp, n, sizeof *sp, lay_pair_cmp);
	for (i = 0; i <= n && pos + size <= lay->keep; i++) {
		uint64_t next = i < n && sp[i][0] < lay->keep ? sp[i][0] : lay->keep;
		if (next >= pos + size && elf_range_is_zero(ef, pos, size)) {
			found = pos;
			break;
		}
		if (i < n && sp[i][1] > pos)
			pos = sp[i][1];
	}
out:
	free(sp);
	return found;
}
