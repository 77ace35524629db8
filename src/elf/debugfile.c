/* SPDX-License-Identifier: MIT */
/* debugfile.c - recognising a detached debug file from its headers (see elf.h). */
#include "elf.h"

#include <stdlib.h>
#include <string.h>

/* The signs of a detached debug file, which eu-strip -f and objcopy --only-keep-debug make when
 * they turn the stripped sections into NOBITS, keep the program headers of the stripped file and
 * move the sections they keep (the notes) to new offsets:
 *  - an allocated NOBITS section (not TLS, which takes no room in its segment) below a section
 *    with file bytes in the same PT_LOAD: linkers put NOBITS last (but for the odd PLT, such
 *    as ppc64's);
 *  - and a section with file bytes inside a PT_LOAD's file image at an offset the segment does
 *    not map it from (gABI: sh_offset - p_offset == sh_addr - p_vaddr), which no linker and no
 *    correct editor makes.
 * Sorting makes it O(n log n) in sections and segments. */
struct addr_span {
	uint64_t addr, end, off, filesz;
	int nobits;
};

static int addr_cmp(const void *x, const void *y)
{
	const struct addr_span *a = x, *b = y;

	return a->addr < b->addr ? -1 : a->addr > b->addr;
}

/* The last PT_LOAD (sorted by address) that starts at or below addr and covers it, or NULL. */
static const struct addr_span *load_of(const struct addr_span *l, size_t nl, uint64_t addr)
{
	size_t lo = 0, hi = nl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && addr < l[lo - 1].end ? &l[lo - 1] : NULL;
}

static int headers_disagree(const struct elf *ef)
{
	struct addr_span *s = xcalloc(ef->shnum + 1, sizeof *s),
			 *l = xcalloc(ef->phnum + 1, sizeof *l);
	uint64_t next_content = UINT64_MAX;
	size_t ns = 0, nl = 0, i;
	int nobits_below = 0, moved = 0;

	for (i = 1; s && l && i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if ((sh->flags & SHF_ALLOC_) && !(sh->flags & SHF_TLS_) && sh->size &&
		    sh->type != SHT_NULL_)
			s[ns++] = (struct addr_span){sh->addr, 0, sh->offset, 0,
						     sh->type == SHT_NOBITS_};
	}
	for (i = 0; s && l && i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_LOAD_ && p->memsz && p->vaddr <= UINT64_MAX - p->memsz)
			l[nl++] = (struct addr_span){p->vaddr, p->vaddr + p->memsz, p->offset,
						     p->filesz, 0};
	}
	if (s && l) {
		qsort(s, ns, sizeof *s, addr_cmp);
		qsort(l, nl, sizeof *l, addr_cmp);
	}
	/* From the top: the lowest address of a section with file bytes above each NOBITS one. */
	for (i = ns; s && l && i-- > 0 && !(nobits_below && moved);) {
		const struct addr_span *load = load_of(l, nl, s[i].addr);
		if (!s[i].nobits) {
			next_content = s[i].addr;
			if (load && s[i].addr - load->addr < load->filesz &&
			    s[i].off - load->off != s[i].addr - load->addr)
				moved = 1;
			continue;
		}
		if (load && next_content > s[i].addr && next_content < load->end)
			nobits_below = 1;
	}
	free(s);
	free(l);
	return nobits_below && moved;
}

/* Code that is not in the file: an executable section turned NOBITS.  Nothing but a debug file
 * makes such a section, and nothing in it is ever loaded.  It shows the debug files where the
 * signs above do not: a small program's, or a library's whose allocated sections with file
 * bytes (its notes) all come before its NOBITS ones, as dwz then lays them out (up to 0.1.0
 * their PT_NOTE headers were read, over DWARF: issue 32). */
static int code_missing(const struct elf *ef)
{
	for (size_t i = 1; i < ef->shnum; i++)
		if (ef->sh[i].type == SHT_NOBITS_ && (ef->sh[i].flags & SHF_EXECINSTR_) &&
		    ef->sh[i].size)
			return 1;
	return 0;
}

int debugfile_detached(const struct elf *ef)
{
	return code_missing(ef) || headers_disagree(ef);
}

/* A section's name from the names table read with the headers (elf.c keeps it when small; a
 * multifile's is), NULL when it is not there.  Not elf_section_name(): elf.c calls this file,
 * and a call back would make the two files a circle (make layers). */
static const char *name_of(const struct elf *ef, size_t i)
{
	uint32_t at = ef->sh[i].name;

	if (!ef->names || at >= ef->namesz || !memchr(ef->names + at, 0, ef->namesz - at))
		return NULL;
	return ef->names + at;
}

int debugfile_dwz_multifile(const struct elf *ef)
{
	int debug = 0;

	if (ef->phnum || ef->detached || ef->shnum < 2)
		return 0;
	for (size_t i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		const char *name = name_of(ef, i);
		if (!name || sh->flags & (SHF_ALLOC_ | SHF_EXECINSTR_) || sh->type == SHT_SYMTAB_ ||
		    sh->type == SHT_RELA_ || sh->type == SHT_REL_ || sh->type == SHT_GROUP_)
			return 0;
		if (i == ef->shstrndx || strcmp(name, ".note.gnu.build-id") == 0)
			continue;
		if (strncmp(name, ".debug_", 7) != 0)
			return 0; /* dwz -m writes DWARF and the build-id, nothing else */
		debug = 1;
	}
	return debug;
}
