/* SPDX-License-Identifier: MIT */
/* elf_codec.c - ELF records (file, program and section headers, symbols) decoded from and
 * encoded into their bytes, in the file's class and byte order. */
#include "elf.h"

#include <string.h>

size_t elf_ehdr_size(const struct elf *ef)
{
	return ef->is64 ? 64 : 52;
}
size_t elf_phent_size(const struct elf *ef)
{
	return ef->is64 ? 56 : 32;
}
size_t elf_shent_size(const struct elf *ef)
{
	return ef->is64 ? 64 : 40;
}
size_t elf_sym_size(const struct elf *ef)
{
	return ef->is64 ? 24 : 16;
}

/* Field layout of the three header kinds for each class: {offset, width} pairs. */
#define W(c) (ef->is64 ? 8 : 4)

void elf_decode_phdr(const struct elf *ef, const unsigned char *p, struct elf_phdr *ph)
{
	ph->type = (uint32_t)elf_get(ef, p, 4);
	if (ef->is64) {
		ph->flags = (uint32_t)elf_get(ef, p + 4, 4);
		ph->offset = elf_get(ef, p + 8, 8);
		ph->vaddr = elf_get(ef, p + 16, 8);
		ph->paddr = elf_get(ef, p + 24, 8);
		ph->filesz = elf_get(ef, p + 32, 8);
		ph->memsz = elf_get(ef, p + 40, 8);
		ph->align = elf_get(ef, p + 48, 8);
	} else {
		ph->offset = elf_get(ef, p + 4, 4);
		ph->vaddr = elf_get(ef, p + 8, 4);
		ph->paddr = elf_get(ef, p + 12, 4);
		ph->filesz = elf_get(ef, p + 16, 4);
		ph->memsz = elf_get(ef, p + 20, 4);
		ph->flags = (uint32_t)elf_get(ef, p + 24, 4);
		ph->align = elf_get(ef, p + 28, 4);
	}
}

void elf_encode_phdr(const struct elf *ef, const struct elf_phdr *ph, unsigned char *p)
{
	elf_put(ef, p, 4, ph->type);
	if (ef->is64) {
		elf_put(ef, p + 4, 4, ph->flags);
		elf_put(ef, p + 8, 8, ph->offset);
		elf_put(ef, p + 16, 8, ph->vaddr);
		elf_put(ef, p + 24, 8, ph->paddr);
		elf_put(ef, p + 32, 8, ph->filesz);
		elf_put(ef, p + 40, 8, ph->memsz);
		elf_put(ef, p + 48, 8, ph->align);
	} else {
		elf_put(ef, p + 4, 4, ph->offset);
		elf_put(ef, p + 8, 4, ph->vaddr);
		elf_put(ef, p + 12, 4, ph->paddr);
		elf_put(ef, p + 16, 4, ph->filesz);
		elf_put(ef, p + 20, 4, ph->memsz);
		elf_put(ef, p + 24, 4, ph->flags);
		elf_put(ef, p + 28, 4, ph->align);
	}
}

/* Section headers share one layout shape; only the word width changes. */
void elf_decode_shdr(const struct elf *ef, const unsigned char *p, struct elf_shdr *sh)
{
	int w = W(ef);

	sh->name = (uint32_t)elf_get(ef, p, 4);
	sh->type = (uint32_t)elf_get(ef, p + 4, 4);
	sh->flags = elf_get(ef, p + 8, w);
	sh->addr = elf_get(ef, p + 8 + w, w);
	sh->offset = elf_get(ef, p + 8 + 2 * w, w);
	sh->size = elf_get(ef, p + 8 + 3 * w, w);
	sh->link = (uint32_t)elf_get(ef, p + 8 + 4 * w, 4);
	sh->info = (uint32_t)elf_get(ef, p + 12 + 4 * w, 4);
	sh->addralign = elf_get(ef, p + 16 + 4 * w, w);
	sh->entsize = elf_get(ef, p + 16 + 5 * w, w);
}

void elf_encode_shdr(const struct elf *ef, const struct elf_shdr *sh, unsigned char *p)
{
	int w = W(ef);

	elf_put(ef, p, 4, sh->name);
	elf_put(ef, p + 4, 4, sh->type);
	elf_put(ef, p + 8, w, sh->flags);
	elf_put(ef, p + 8 + w, w, sh->addr);
	elf_put(ef, p + 8 + 2 * w, w, sh->offset);
	elf_put(ef, p + 8 + 3 * w, w, sh->size);
	elf_put(ef, p + 8 + 4 * w, 4, sh->link);
	elf_put(ef, p + 12 + 4 * w, 4, sh->info);
	elf_put(ef, p + 16 + 4 * w, w, sh->addralign);
	elf_put(ef, p + 16 + 5 * w, w, sh->entsize);
}

void elf_decode_sym(const struct elf *ef, const unsigned char *p, struct elf_sym *s)
{
	s->name = (uint32_t)elf_get(ef, p, 4);
	if (ef->is64) {
		s->info = p[4];
		s->other = p[5];
		s->shndx = (uint16_t)elf_get(ef, p + 6, 2);
		s->value = elf_get(ef, p + 8, 8);
		s->size = elf_get(ef, p + 16, 8);
	} else {
		s->value = elf_get(ef, p + 4, 4);
		s->size = elf_get(ef, p + 8, 4);
		s->info = p[12];
		s->other = p[13];
		s->shndx = (uint16_t)elf_get(ef, p + 14, 2);
	}
}

void elf_encode_sym(const struct elf *ef, const struct elf_sym *s, unsigned char *p)
{
	elf_put(ef, p, 4, s->name);
	if (ef->is64) {
		p[4] = s->info;
		p[5] = s->other;
		elf_put(ef, p + 6, 2, s->shndx);
		elf_put(ef, p + 8, 8, s->value);
		elf_put(ef, p + 16, 8, s->size);
	} else {
		elf_put(ef, p + 4, 4, s->value);
		elf_put(ef, p + 8, 4, s->size);
		p[12] = s->info;
		p[13] = s->other;
		elf_put(ef, p + 14, 2, s->shndx);
	}
}

/* ELF header field offsets after e_ident/e_type/e_machine/e_version (which are common). */
void elf_encode_ehdr(const struct elf *ef, unsigned char *p, uint16_t e_phnum, uint16_t e_shnum,
		     uint16_t e_shstrndx)
{
	int w = W(ef);
	unsigned char *q = p + 24 + 3 * w;

	memcpy(p, ef->ident, 16);
	elf_put(ef, p + 16, 2, ef->type);
	elf_put(ef, p + 18, 2, ef->machine);
	elf_put(ef, p + 20, 4, ef->version);
	elf_put(ef, p + 24, w, ef->entry);
	elf_put(ef, p + 24 + w, w, ef->phoff);
	elf_put(ef, p + 24 + 2 * w, w, ef->shoff);
	elf_put(ef, q, 4, ef->flags);
	elf_put(ef, q + 4, 2, ef->ehsize);
	elf_put(ef, q + 6, 2, ef->phnum ? elf_phent_size(ef) : 0);
	elf_put(ef, q + 8, 2, e_phnum);
	elf_put(ef, q + 10, 2, ef->shnum ? elf_shent_size(ef) : 0);
	elf_put(ef, q + 12, 2, e_shnum);
	elf_put(ef, q + 14, 2, e_shstrndx);
}
