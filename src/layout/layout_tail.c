/* SPDX-License-Identifier: MIT */
/* layout_tail.c - what follows the allocated part of a linked file: the non-allocated
 * sections (.comment, .debug_*, .symtab, .strtab, the section names), then the section
 * headers.  Linkers write them after every allocated byte, and tools rely on it: dwz refuses a
 * file in which an allocated section follows them ("Allocatable section in FILE after
 * non-allocatable ones", dwz 0.15 write_dso), and so dh_dwz fails the package build.  So a
 * segment of ours that goes after the allocated part pushes them further, in their order and
 * with their alignments, and --remove brings them back (docs/layout.md, "The tail"). */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* Linkers align non-allocated sections to 8 at most; a larger one (damaged files) keeps the
 * tail where it is. */
#define TAIL_MAX_ALIGN 4096u

/* A non-allocated section after the allocated part, empty ones included (their offset must
 * stay inside the file): it moves with the tail. */
static int tail_section(const struct lay *lay, size_t i, uint64_t from)
{
	const struct elf_shdr *s = &lay->ef->sh[i];

	return !(s->flags & SHF_ALLOC_) && s->type != SHT_NOBITS_ && s->offset >= from &&
	       !lay->isd[i] && (!s->size || !lay_in_own(lay, s->offset));
}

/* The end of the allocated part: the ELF header, the program header table, every PT_LOAD and
 * allocated section that is not ours. */
static uint64_t alloc_end(const struct lay *lay)
{
	const struct elf *ef = lay->ef;
	uint64_t end = elf_ehdr_size(ef);
	size_t i;

	if (ef->phnum && !lay_in_own(lay, ef->phoff) &&
	    ef->phoff + lay_phdr_bytes(ef, ef->phnum) > end)
		end = ef->phoff + lay_phdr_bytes(ef, ef->phnum);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_LOAD_ && !lay->isown[i] && p->offset + p->filesz > end)
			end = p->offset + p->filesz;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		/* an empty one too: its offset must stay inside the file */
		if ((s->flags & SHF_ALLOC_) && s->type != SHT_NOBITS_ && !lay->isd[i] &&
		    !lay_in_own(lay, s->offset) && s->offset + s->size > end)
			end = s->offset + s->size;
	}
	return end;
}

/* Where the tail starts, when everything from there on is non-allocated sections, our own old
 * bytes (segments, dlopen sections), the old section headers or zeros: then it can move.
 * UINT64_MAX: it cannot (unknown data stays where it is). */
uint64_t lay_tail_start(const struct lay *lay)
{
	const struct elf *ef = lay->ef;
	uint64_t from = alloc_end(lay), pos = from, (*sp)[2];
	size_t i, n = 0, ntail = 0;

	if (!ef->shnum || from >= ef->size)
		return UINT64_MAX;
	sp = xcalloc(ef->shnum + ef->phnum + 1, sizeof *sp);
	if (!sp)
		return UINT64_MAX;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || (s->size && s->offset + s->size <= from) ||
		    (!s->size && (s->offset < from || (s->flags & SHF_ALLOC_))))
			continue; /* an empty allocated one ends the allocated part at most */
		if (!tail_section(lay, i, from) && !lay->isd[i] && !lay_in_own(lay, s->offset))
			goto no; /* something allocated, or straddling the start */
		if (tail_section(lay, i, from) &&
		    (s->addralign > TAIL_MAX_ALIGN || (s->addralign & (s->addralign - 1))))
			goto no; /* an alignment no layout can honour: it stays */
		ntail += tail_section(lay, i, from);
		sp[n][0] = s->offset, sp[n++][1] = s->offset + s->size;
	}
	for (i = 0; i < ef->phnum; i++)
		if (lay->isown[i])
			sp[n][0] = ef->ph[i].offset,
			sp[n++][1] = ef->ph[i].offset + ef->ph[i].filesz;
	sp[n][0] = ef->shoff, sp[n++][1] = ef->shoff + ef->shnum * elf_shent_size(ef);
	qsort(sp, n, sizeof *sp, lay_pair_cmp);
	for (i = 0; i < n; i++) {
		if (sp[i][1] <= pos)
			continue;
		if (sp[i][0] > pos && !elf_range_is_zero(ef, pos, sp[i][0] - pos))
			goto no;
		pos = sp[i][1];
	}
	if (pos < ef->size && !elf_range_is_zero(ef, pos, ef->size - pos))
		goto no;
	free(sp);
	return ntail ? from : UINT64_MAX;
no:
	free(sp);
	return UINT64_MAX;
}

/* A program header describing a non-allocated section follows it: PT_RISCV_ATTRIBUTES, the
 * only kind linkers write, loads nothing (p_memsz 0), which tells it from the notes carried
 * into our segment.  Each is matched against the sections' old places, all at once. */
static void shift_headers(struct lay *lay, uint64_t (*order)[2], size_t n)
{
	size_t i, k;

	for (i = 0; i < lay->phnum; i++) {
		struct elf_phdr *p = &lay->ph[i];
		if (p->type == PT_LOAD_ || p->type == PT_PHDR_ || p->type == PT_NULL_ ||
		    !p->filesz || p->memsz)
			continue;
		for (k = 0; k < n; k++) {
			const struct elf_shdr *s = &lay->ef->sh[order[k][1]];
			if (p->offset >= s->offset &&
			    p->offset + p->filesz <= s->offset + s->size) {
				p->offset += lay->sh[order[k][1]].offset - s->offset;
				break;
			}
		}
	}
}

/* The tail sections from `pos` on, in the table's order (linkers write them so; an older
 * version of the tool moved the name table last, and this puts it back), each at its
 * alignment (the name table with the names appended or dropped).  Returns where they end. */
uint64_t lay_tail_layout(struct lay *lay, uint64_t pos)
{
	const struct elf *ef = lay->ef;
	uint64_t(*order)[2] = xcalloc(ef->shnum, sizeof *order);
	size_t i, n = 0;

	if (!order)
		return UINT64_MAX;
	for (i = 1; i < ef->shnum; i++)
		if (tail_section(lay, i, lay->tail_from))
			order[n][0] = i, order[n++][1] = i;
	for (i = 0; i < n; i++) {
		size_t k = (size_t)order[i][1];
		uint64_t size = ef->sh[k].size,
			 a = ef->sh[k].addralign > 1 ? ef->sh[k].addralign : 1;
		if (k == ef->shstrndx) {
			size = size - lay->shstr_cut + lay->newnames.len;
			lay->move_shstr = 1;
		}
		pos = align_up(pos, a);
		lay->sh[k].offset = pos;
		if (k == ef->shstrndx)
			lay->shstr_off = pos;
		if (pos + size < pos) {
			free(order);
			return UINT64_MAX;
		}
		pos += size;
	}
	shift_headers(lay, order, n);
	free(order);
	plan_log(lay->pl, "tail: %zu non-allocated sections from offset 0x%llx to 0x%llx\n", n,
		 (unsigned long long)lay->tail_from, (unsigned long long)pos);
	return pos;
}

/* The tail sections copied to their new places (the name table is written with its names by
 * the caller), before the symbol tables' transforms overlay theirs. */
int lay_tail_emit(struct lay *lay)
{
	const struct elf *ef = lay->ef;
	size_t i;

	for (i = 1; lay->tail_moves && i < ef->shnum; i++)
		if (i != ef->shstrndx && tail_section(lay, i, lay->tail_from) &&
		    lay_patch(lay, lay->sh[i].offset, ef->sh[i].size, NULL, ef->sh[i].offset))
			return -1;
	return 0;
}
