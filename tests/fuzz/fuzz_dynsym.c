/* SPDX-License-Identifier: MIT */
/* Fuzz the dynamic symbol lookups (src/elf/dynsym.c) on an ELF file: .gnu.hash (buckets,
 * chains, bloom words) and .hash, .gnu.version, .gnu.version_d.  Never a read outside the input
 * (ASan: the file is read from memory), and a lookup finds a symbol only where a plain scan of
 * the symbol table finds it: a definition of that name that a lookup without a version takes,
 * at the version the lookup gives. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_NAMES 48

struct scan {
	const uint8_t *data;
	size_t size;
	const struct elf_dynsym *d;
};

#define VERSZ 64

/* The name of symbol i when it is a definition that a lookup by name takes (its version's
 * name in ver, "" when none or unknown, cut to VERSZ - 1 bytes), else NULL: the rules read
 * plainly from the table. */
static const char *plain_symbol(const struct scan *s, uint64_t i, char ver[VERSZ])
{
	const struct elf_dynsym *d = s->d;
	size_t ss = elf_sym_size(d->ef);
	struct elf_sym sym;
	uint64_t at = d->sym + i * ss, v = VER_NDX_GLOBAL_;
	const char *name;
	int bind, type;

	ver[0] = 0;
	if (at > s->size || s->size - at < ss)
		return NULL;
	elf_decode_sym(d->ef, s->data + at, &sym);
	bind = sym.info >> 4, type = sym.info & 0xf;
	if (sym.shndx == SHN_UNDEF_ || type == STT_SECTION_ || type == STT_FILE_ ||
	    (bind != STB_GLOBAL_ && bind != STB_WEAK_ && bind != STB_GNU_UNIQUE_) ||
	    (sym.other & 3) == STV_HIDDEN_ || sym.name >= d->strsz)
		return NULL;
	name = (const char *)s->data + d->str + sym.name;
	if (!memchr(name, 0, d->strsz - sym.name))
		return NULL;
	if (d->has_versym) {
		if (d->versym + 2 * i + 2 > s->size)
			return NULL;
		v = elf_get(d->ef, s->data + d->versym + 2 * i, 2);
		if (v & VERSYM_HIDDEN_)
			return NULL;
	}
	for (size_t k = 0; k < d->ndefs && (v & VERSYM_INDEX_) > VER_NDX_GLOBAL_; k++)
		if (d->defs[k].ndx == (v & VERSYM_INDEX_) && d->defs[k].name < d->strsz) {
			uint64_t room = d->strsz - d->defs[k].name;
			size_t n = room < VERSZ ? (size_t)room : VERSZ;
			memcpy(ver, s->data + d->str + d->defs[k].name, n);
			ver[n - 1] = 0;
			break;
		}
	return name;
}

/* Whether a plain scan of every symbol the file can hold finds `name` at version `ver`. */
static int plain_finds(const struct scan *s, const char *name, const char *ver)
{
	uint64_t n = (s->size - s->d->sym) / elf_sym_size(s->d->ef);
	const char *p;
	char v[VERSZ];

	for (uint64_t i = 0; i < n; i++)
		if ((p = plain_symbol(s, i, v)) && strcmp(p, name) == 0 && strcmp(v, ver) == 0)
			return 1;
	return 0;
}

static void look_up(const struct scan *s, const char *name)
{
	char ver[VERSZ];
	struct err e;
	size_t len = strlen(name);

	if (len > ELF_DYNSYM_MAX_NAME)
		return;
	if (elf_dynsym_find(s->d, name, len, elf_gnu_hash(name, len), ver, sizeof ver, &e) == 1 &&
	    !plain_finds(s, name, ver))
		abort(); /* the lookup found what the table does not define */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const fixed[] = {"", "main", "malloc", "dlopen", "f", "g", "_init"};
	struct elf ef;
	struct elf_dynsym d;
	struct err e;
	struct scan s = {data, size, &d};
	const char *name;
	char v[VERSZ];
	size_t looked = 0;

	if (elf_open_mem(&ef, data, "fuzz", size, &e))
		return 0;
	if (elf_dynsym_open(&ef, &d, &e) == 0) {
		if (d.sym > size || d.str > size || d.strsz > size - d.str)
			abort(); /* the tables it found lie in the file */
		for (size_t k = 0; k < sizeof fixed / sizeof *fixed; k++)
			look_up(&s, fixed[k]);
		/* the names the table defines, the first few */
		for (uint64_t i = 0;
		     d.sym < size && i < (size - d.sym) / elf_sym_size(&ef) && looked < MAX_NAMES;
		     i++)
			if ((name = plain_symbol(&s, i, v))) {
				look_up(&s, name);
				looked++;
			}
		elf_dynsym_close(&d);
	}
	elf_close(&ef);
	return 0;
}
