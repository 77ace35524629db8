/* SPDX-License-Identifier: MIT */
/* Fuzz the code identity (src/elf/code_id.c) on an ELF file.  Never a read outside the input
 * (ASan: the file is read from memory); the identity is the same measured twice, its size
 * agrees with its hash, and a byte changed in a section it leaves out (a note: the build-id)
 * keeps it. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int identity(const uint8_t *data, size_t size, struct elf_code_id *id)
{
	struct elf ef;
	struct err e;
	int r;

	if (elf_open_mem(&ef, data, "fuzz", size, &e))
		return -1;
	r = elf_code_id_hash(&ef, id, &e);
	elf_close(&ef);
	return r;
}

static int overlaps(uint64_t off, uint64_t a, uint64_t len)
{
	return off >= a && off - a < len;
}

/* Whether byte `off` of the file is read for the model (headers, section names) or counted. */
static int structural(const struct elf *ef, uint64_t off, int *counted_in)
{
	*counted_in = 0;
	if (overlaps(off, 0, 64) ||
	    overlaps(off, ef->phoff, (uint64_t)ef->phnum * elf_phent_size(ef)) ||
	    overlaps(off, ef->shoff, (uint64_t)(ef->shnum ? ef->shnum : 1) * elf_shent_size(ef)))
		return 1;
	for (size_t i = 0; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || !overlaps(off, s->offset, s->size))
			continue;
		if (i == ef->shstrndx)
			return 1;
		if ((s->flags & SHF_ALLOC_) && s->type != SHT_NOTE_)
			*counted_in = 1; /* maybe: only a note is surely left out */
	}
	return 0;
}

/* Change one byte of the first note section that shares no byte with anything else. */
static void flip_a_note(const uint8_t *data, size_t size, const struct elf *ef,
			const struct elf_code_id *id)
{
	struct elf_code_id again;
	uint8_t *copy;
	int counted;

	for (size_t i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		uint64_t off = s->offset + s->size / 2;
		if (s->type != SHT_NOTE_ || !s->size || !range_ok(s->offset, s->size, size) ||
		    structural(ef, off, &counted) || counted)
			continue;
		if (!(copy = malloc(size)))
			return;
		memcpy(copy, data, size);
		copy[off] ^= 0x5a;
		if (identity(copy, size, &again) != 0 || again.have != id->have ||
		    memcmp(again.digest, id->digest, sizeof id->digest))
			abort(); /* a note is not part of the identity */
		free(copy);
		return;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf ef;
	struct elf_code_id a, b, sz;
	struct err e;

	if (elf_open_mem(&ef, data, "fuzz", size, &e))
		return 0;
	if (elf_code_id_size(&ef, &sz, &e) == 0 && elf_code_id_hash(&ef, &a, &e) == 0) {
		if (a.have != sz.have || a.bytes != sz.bytes || a.sections != sz.sections)
			abort(); /* the size is what the hash covers */
		if (identity(data, size, &b) != 0 || b.have != a.have ||
		    memcmp(a.digest, b.digest, sizeof a.digest))
			abort(); /* measured twice, the same */
		if (a.have)
			flip_a_note(data, size, &ef, &a);
	}
	elf_close(&ef);
	return 0;
}
