/* SPDX-License-Identifier: MIT */
/* layout_front.c - room for the program header table where the linker put it: right after
 * the ELF header, before every section, in the first PT_LOAD (docs/layout.md, "The program
 * header table").  Two rewriters that distributions chain need it there:
 *
 *  - bfd (objcopy, strip) writes the table at the start of the PT_LOAD that holds it, at its
 *    running file offset, with no section over it (binutils 2.40 bfd/elf.c,
 *    assign_file_positions_for_load_sections);
 *  - libelf (eu-strip, debugedit) writes the table first and then every section, zero-filling
 *    the gaps between sections (elfutils 0.188 libelf/elf32_updatefile.c): a table lying
 *    between two sections becomes PT_NULL entries.
 *
 * Only a table that precedes every section survives both, in either order.  A table that
 * grows there takes the bytes of the sections after it.  Those that only headers point to
 * move into our segment, as one block that keeps its inner layout and alignment (the carried
 * block): .interp (PT_INTERP), notes (PT_NOTE, PT_GNU_PROPERTY), MIPS ABI flags and register
 * information (PT_MIPS_ABIFLAGS, PT_MIPS_REGINFO), and the
 * dynamic linker's tables (.hash, .gnu.hash, .dynsym, .dynstr, the version tables), which
 * .dynamic entries point to.  Their section headers, the program headers inside the block,
 * those .dynamic entries and the .symtab symbols defined in them follow.  Code and data never
 * move.  Refused (the caller falls back): anything else in the way, a dynamic symbol or a
 * relocation inside the block, a processor-specific .dynamic entry pointing into it. */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* .dynamic tags whose value is an address (gABI: the d_ptr ones) that a carried section may
 * be: when one points into the block it moves with it. */
static int dyn_is_address(uint64_t tag)
{
	static const uint64_t ptr[] = {
		DT_PLTGOT_,        DT_HASH_,   DT_STRTAB_,     DT_SYMTAB_,
		DT_RELA_,          DT_INIT_,   DT_FINI_,       DT_REL_,
		DT_DEBUG_,         DT_JMPREL_, DT_INIT_ARRAY_, DT_FINI_ARRAY_,
		DT_PREINIT_ARRAY_, DT_VERSYM_, DT_VERDEF_,     DT_VERNEED_,
	};
	size_t i;

	for (i = 0; i < sizeof ptr / sizeof ptr[0]; i++)
		if (tag == ptr[i])
			return 1;
	return tag >= DT_ADDRRNGLO_ && tag <= DT_ADDRRNGHI_; /* DT_GNU_HASH among them */
}

/* A program header of `type` covers section i exactly. */
static int covered_by(const struct lay *lay, size_t i, uint32_t type)
{
	const struct elf *ef = lay->ef;
	size_t k;

	for (k = 0; k < ef->phnum; k++)
		if (ef->ph[k].type == type && ef->ph[k].offset == ef->sh[i].offset &&
		    ef->ph[k].filesz == ef->sh[i].size)
			return 1;
	return 0;
}

/* Section i may move: read-only allocated data that only headers point to. */
int lay_carriable(const struct lay *lay, size_t i)
{
	const struct elf *ef = lay->ef;
	const struct elf_shdr *s = &ef->sh[i];
	size_t k;

	if (!(s->flags & SHF_ALLOC_) || (s->flags & (SHF_WRITE_ | SHF_EXECINSTR_ | SHF_TLS_)) ||
	    s->type == SHT_NOBITS_ || !s->size)
		return 0;
	if (s->addralign > 64 || (s->addralign & (s->addralign - 1)))
		return 0; /* linkers align these to 8 at most: a damaged header */
	switch (s->type) {
	case SHT_NOTE_:
	case SHT_HASH_:
	case SHT_GNU_HASH_:
	case SHT_DYNSYM_:
	case SHT_GNU_VERDEF_:
	case SHT_GNU_VERNEED_:
	case SHT_GNU_VERSYM_: return 1;
	case SHT_STRTAB_: /* .dynstr: the string table of .dynsym */
		for (k = 1; k < ef->shnum; k++)
			if (ef->sh[k].type == SHT_DYNSYM_ && ef->sh[k].link == i)
				return 1;
		return 0;
	case SHT_PROGBITS_: /* .interp */ return covered_by(lay, i, PT_INTERP_);
	case SHT_MIPS_ABIFLAGS_: return covered_by(lay, i, PT_MIPS_ABIFLAGS_);
	case SHT_MIPS_REGINFO_: return covered_by(lay, i, PT_MIPS_REGINFO_);
	}
	return 0;
}

static int refuse(struct lay *lay, const char *why)
{
	plan_log(lay->pl, "program headers: no room where they are (%s)\n", why);
	free(lay->carry.in);
	free(lay->carry.dyn);
	memset(&lay->carry, 0, sizeof lay->carry);
	return 0;
}

/* The .dynamic entries pointing into the block; 0 with a reason logged when one cannot move. */
static int find_dynamic_refs(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	struct carry *c = &lay->carry;
	uint64_t w = lay_word(ef), vend = c->vaddr + (c->end - c->off), k, n;
	unsigned char ent[16];
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_DYNAMIC_)
			continue;
		n = p->filesz / (2 * w);
		for (k = 0; k < n; k++) {
			uint64_t tag, val, *v;
			if (elf_read(ef, p->offset + k * 2 * w, 2 * w, ent, lay->e))
				return -1;
			tag = elf_get(ef, ent, (int)w);
			val = elf_get(ef, ent + w, (int)w);
			if (tag == 0)
				break;
			if (val < c->vaddr || val >= vend)
				continue;
			if (tag >= DT_LOPROC_ && tag <= DT_HIPROC_)
				return refuse(
					lay,
					"a processor-specific .dynamic entry points after them");
			if (!dyn_is_address(tag))
				continue;
			v = xgrow(c->dyn, &c->dyn_cap, 2 * c->ndyn + 1, sizeof *v);
			if (!v)
				return err_oom(lay->e);
			c->dyn = v;
			v[2 * c->ndyn] = p->offset + k * 2 * w + w;
			v[2 * c->ndyn + 1] = val;
			c->ndyn++;
		}
	}
	return 1;
}

/* No dynamic symbol is defined in the block (.dynsym is loaded: never rewritten) and no
 * relocation applies to it.  Tables are streamed. */
static int nothing_else_points_in(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct carry *c = &lay->carry;
	uint64_t vend = c->vaddr + (c->end - c->off), n, k, es;
	unsigned char chunk[256 * 24];
	struct elf_sym s;
	size_t t, i;

	for (t = 1; t < ef->shnum; t++) {
		const struct elf_shdr *st = &ef->sh[t];
		int sym = st->type == SHT_DYNSYM_,
		    rel = (st->type == SHT_RELA_ || st->type == SHT_REL_) &&
			  (st->flags & SHF_ALLOC_);
		if (!sym && !rel)
			continue;
		es = sym ? elf_sym_size(ef) : st->entsize;
		if (!es || es > 24)
			return refuse(lay, "a table with entries of an unknown size");
		for (i = 0; i < st->size / es; i += n) {
			n = st->size / es - i < 256 ? st->size / es - i : 256;
			if (elf_read(ef, st->offset + i * es, n * es, chunk, lay->e))
				return -1;
			for (k = 0; k < n; k++) {
				if (sym) {
					elf_decode_sym(ef, chunk + k * es, &s);
					if (s.shndx && s.shndx < ef->shnum && c->in[s.shndx])
						return refuse(
							lay,
							"a dynamic symbol is defined after them");
				} else {
					uint64_t at =
						elf_get(ef, chunk + k * es, (int)lay_word(ef));
					if (at >= c->vaddr && at < vend)
						return refuse(lay,
							      "a relocation applies after them");
				}
			}
		}
	}
	return 1;
}

/* The program headers other than PT_LOAD and PT_PHDR that reach into [from, c->end) lie
 * wholly inside the block, and its alignment covers theirs. */
static int headers_inside(struct lay *lay, uint64_t from)
{
	const struct elf *ef = lay->ef;
	struct carry *c = &lay->carry;
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || p->type == PT_LOAD_ || p->type == PT_PHDR_ ||
		    lay->isown[i] || elf_stale_property(ef, i) ||
		    !lay_overlaps(p->offset, p->filesz, from, c->end - from))
			continue;
		if (p->offset < c->off || p->offset + p->filesz > c->end)
			return refuse(lay,
				      "a program header covers more than the sections after them");
		if (p->align > c->align && p->align <= 64)
			c->align = p->align;
	}
	return 1;
}

/* The block's sections: those reaching into [from, to), and every one starting before the end
 * of the last.  Each must be carriable (a dlopen section is emptied anyway).  1: found, 2: no
 * section in the way, 0: refused. */
static int find_block(struct lay *lay, uint64_t from, uint64_t to)
{
	const struct elf *ef = lay->ef;
	struct carry *c = &lay->carry;
	size_t i;
	int grown = 1;

	c->off = UINT64_MAX;
	c->end = to;
	c->align = 1;
	while (grown) {
		grown = 0;
		/* a note segment covering several notes moves whole: the block takes them all */
		for (i = 0; i < ef->phnum; i++) {
			const struct elf_phdr *p = &ef->ph[i];
			if (p->type == PT_NULL_ || p->type == PT_LOAD_ || p->type == PT_PHDR_ ||
			    lay->isown[i] || elf_stale_property(ef, i) ||
			    !lay_overlaps(p->offset, p->filesz, from, c->end - from))
				continue;
			if (p->offset + p->filesz > c->end)
				c->end = p->offset + p->filesz, grown = 1;
		}
		for (i = 1; i < ef->shnum; i++) {
			const struct elf_shdr *s = &ef->sh[i];
			if (s->type == SHT_NOBITS_ || !s->size || c->in[i] ||
			    !lay_overlaps(s->offset, s->size, from, c->end - from))
				continue;
			if (!lay->isd[i] && !lay_carriable(lay, i))
				return refuse(
					lay,
					"a section that code or data may point to follows them");
			c->in[i] = 1;
			if (s->offset < c->off)
				c->off = s->offset;
			if (s->offset + s->size > c->end)
				c->end = s->offset + s->size, grown = 1;
			if (!lay->isd[i] && s->addralign > c->align)
				c->align = s->addralign;
		}
	}
	for (i = 1; i < ef->shnum; i++)
		if (lay->isd[i])
			c->in[i] = 0; /* emptied, not moved */
	return c->off == UINT64_MAX ? 2 : 1;
}

/* Room for `size` bytes of table at `at` (the linker's place): 2 when nothing is in the way,
 * 1 when the sections after it are carried (lay->carry set), 0 when not possible. */
int lay_front_room(struct lay *lay, uint64_t at, uint64_t size)
{
	const struct elf *ef = lay->ef;
	const struct elf_phdr *ld = lay_first_load(lay);
	struct carry *c = &lay->carry;
	int r;

	free(c->in); /* a block found in our segment is replaced */
	free(c->dyn);
	memset(c, 0, sizeof *c);
	if (!ef->shnum)
		return refuse(lay, "no section headers tell what follows them");
	if (!ld || ld->offset > at || at + size > ld->offset + ld->filesz || at + size < at)
		return refuse(lay, "the first PT_LOAD is too small");
	c->in = xcalloc(ef->shnum, 1);
	if (!c->in)
		return err_oom(lay->e);
	r = find_block(lay, at, at + size);
	if (r == 2) {
		c->off = c->end = at + size;
		r = headers_inside(lay, at);
		free(c->in);
		memset(c, 0, sizeof *c);
		return r == 1 ? 2 : r;
	}
	if (r != 1)
		return r;
	if (c->end > ld->offset + ld->filesz)
		return refuse(lay, "the sections after them leave the first PT_LOAD");
	c->vaddr = ld->vaddr + (c->off - ld->offset);
	if ((r = headers_inside(lay, at)) != 1 || (r = find_dynamic_refs(lay)) != 1 ||
	    (r = nothing_else_points_in(lay)) != 1)
		return r;
	c->present = 1;
	plan_log(lay->pl,
		 "program headers: grow where they are; the %llu bytes of sections after them move "
		 "into our segment\n",
		 (unsigned long long)(c->end - c->off));
	return 1;
}

/* A block carried by an earlier run, in our segment: its sections are the carriable ones
 * there.  It moves with the segment, or back after the table (lay_carry_home). */
int lay_carry_from_own(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	struct carry *c = &lay->carry;
	size_t i;
	int r;

	if (!lay->nown || !ef->shnum)
		return 0;
	c->in = xcalloc(ef->shnum, 1);
	if (!c->in)
		return err_oom(lay->e);
	c->off = UINT64_MAX;
	c->align = 1;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (lay->isd[i] || i == lay->phsec || s->type == SHT_NOBITS_ || !s->size ||
		    !lay_in_own(lay, s->offset) || !lay_carriable(lay, i))
			continue;
		c->in[i] = 1;
		if (s->offset < c->off)
			c->off = s->offset, c->vaddr = s->addr;
		if (s->offset + s->size > c->end)
			c->end = s->offset + s->size;
		if (s->addralign > c->align)
			c->align = s->addralign;
	}
	if (c->off == UINT64_MAX) {
		free(c->in);
		memset(c, 0, sizeof *c);
		return 0;
	}
	if ((r = headers_inside(lay, c->off)) < 0 || (r == 1 && (r = find_dynamic_refs(lay)) < 0))
		return -1;
	if (r == 0)
		return err_set(lay->e, "our segment holds sections that cannot move with it");
	c->present = 1;
	return 0;
}

/* --remove: the block goes back right after the table when it fits where it was (the first
 * offset past the table with the block's alignment, zeros up to its end).  1: it does (our
 * segment can go), 0: it stays in our segment. */
int lay_carry_home(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct elf_phdr *ld = lay_first_load(lay);
	struct carry *c = &lay->carry;
	uint64_t tend = ef->phoff + lay->phsz, old = ef->phoff + lay_phdr_bytes(ef, ef->phnum),
		 len = c->end - c->off, b, z;
	size_t i;

	if (!ld || lay_in_own(lay, ef->phoff))
		return 0;
	b = tend + (c->off % c->align + c->align - tend % c->align) % c->align;
	if (b + len > ld->offset + ld->filesz)
		return 0;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type != SHT_NOBITS_ && !c->in[i] && !lay->isd[i] &&
		    !lay_in_own(lay, s->offset) &&
		    lay_overlaps(s->offset, s->size, tend, b + len - tend))
			return 0;
	}
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_NULL_ && p->type != PT_LOAD_ && p->type != PT_PHDR_ &&
		    !lay->isown[i] && !lay_in_own(lay, p->offset) &&
		    lay_overlaps(p->offset, p->filesz, tend, b + len - tend))
			return 0;
	}
	z = old > b ? old : b;
	if (z < b + len && !elf_range_is_zero(ef, z, b + len - z))
		return 0;
	c->new_off = b;
	c->new_vaddr = ld->vaddr + (b - ld->offset);
	plan_log(lay->pl,
		 "sections: the %llu bytes carried by an earlier run go back after the program "
		 "headers, at offset 0x%llx\n",
		 (unsigned long long)len, (unsigned long long)b);
	return 1;
}

uint64_t lay_carry_delta(const struct lay *lay)
{
	return lay->carry.present ? lay->carry.new_vaddr - lay->carry.vaddr : 0;
}

/* Program headers that came from the input and lie in the block follow it (ours, set by the
 * placement, are left alone). */
void lay_carry_phdrs(struct lay *lay)
{
	const struct carry *c = &lay->carry;
	uint64_t doff = c->new_off - c->off, dv = c->new_vaddr - c->vaddr;
	size_t i;
	int k, ours;

	if (!c->present)
		return;
	for (i = 0; i < lay->phnum; i++) {
		struct elf_phdr *p = &lay->ph[i];
		for (ours = (long)i == lay->note_ph, k = 0; k < lay->nseg; k++)
			ours |= (long)i == lay->seg[k].ph;
		if (ours || p->type == PT_LOAD_ || p->type == PT_PHDR_ || p->offset < c->off ||
		    p->offset + p->filesz > c->end)
			continue;
		p->offset += doff;
		p->vaddr += dv;
		p->paddr += dv;
	}
}

void lay_carry_sections(struct lay *lay)
{
	const struct carry *c = &lay->carry;
	size_t i;

	for (i = 1; c->present && i < lay->ef->shnum; i++)
		if (c->in[i]) {
			lay->sh[i].offset += c->new_off - c->off;
			lay->sh[i].addr += c->new_vaddr - c->vaddr;
		}
}

/* Before the table is written: the block's old bytes become zeros (the table then overlays
 * the start). */
int lay_zero_carried(struct lay *lay)
{
	const struct carry *c = &lay->carry;

	if (!c->present || c->new_off == c->off)
		return 0;
	return lay_zero(lay, c->off, c->end - c->off);
}

/* After the table: the block at its new place (copied from the input), with the dlopen notes
 * it held zeroed, and the .dynamic entries pointing into it. */
int lay_emit_carry(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	const struct carry *c = &lay->carry;
	uint64_t dv = c->new_vaddr - c->vaddr, w = lay_word(ef);
	unsigned char word[8];
	size_t i;

	if (!c->present)
		return 0;
	if (lay_patch(lay, c->new_off, c->end - c->off, NULL, c->off))
		return -1;
	for (i = 0; i < lay->sc->nitems; i++) {
		const struct scan_item *it = &lay->sc->items[i];
		if (it->dlopen && it->off >= c->off && it->off + it->size <= c->end &&
		    lay_patch(lay, c->new_off + (it->off - c->off), it->size, NULL, PATCH_ZERO))
			return -1;
	}
	for (i = 0; dv && i < c->ndyn; i++) {
		elf_put(ef, word, (int)w, c->dyn[2 * i + 1] + dv);
		if (lay_patch(lay, c->dyn[2 * i], w, word, 0))
			return -1;
	}
	return 0;
}
