/* SPDX-License-Identifier: MIT */
/* helpers.h - shared by the unit suites: an ELF image writer that is independent of src/elf/elf.c
 * (field offsets written out from the gABI tables), temporary files, and byte comparisons.
 *
 * Everything is static inline so that a suite that does not use a helper does not warn. */
#ifndef DLNOTE_TEST_HELPERS_H
#define DLNOTE_TEST_HELPERS_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf/elf.h"
#include "base/base.h"

/* ---- byte comparisons with a readable failure ---- */

static inline void t_hex(char *out, size_t outsz, const unsigned char *p, size_t n)
{
	size_t i, k = 0;

	out[0] = '\0';
	for (i = 0; i < n && k + 4 < outsz; i++)
		k += (size_t)snprintf(out + k, outsz - k, "%02x ", p[i]);
}

/* Assert that `got` holds exactly the `n` bytes of `want`, naming the first difference. */
static inline void t_assert_bytes(const void *got, size_t gotlen, const void *want, size_t n, const char *what)
{
	const unsigned char *g = got, *w = want;
	char hg[200], hw[200];
	size_t i;

	cr_assert_eq(gotlen, n, "%s: %zu bytes, expected %zu", what, gotlen, n);
	for (i = 0; i < n && g[i] == w[i]; i++)
		;
	if (i < n) {
		size_t from = i > 8 ? i - 8 : 0, len = n - from < 24 ? n - from : 24;
		t_hex(hg, sizeof hg, g + from, len);
		t_hex(hw, sizeof hw, w + from, len);
		cr_assert_fail("%s: byte %zu is 0x%02x, expected 0x%02x\n  got  (from %zu): %s\n  want (from %zu): %s",
			       what, i, g[i], w[i], from, hg, from, hw);
	}
}

/* String equality that shows both strings next to the test's own context (Criterion prints
 * only the custom message when one is given). */
#define T_STR_EQ(got, want, ...)                                                                     \
	do {                                                                                         \
		const char *g_ = (got), *w_ = (want);                                                \
		char ctx_[512];                                                                      \
		snprintf(ctx_, sizeof ctx_, __VA_ARGS__);                                            \
		cr_assert(g_ && strcmp(g_, w_) == 0, "%s\n  got:      [%s]\n  expected: [%s]", ctx_, \
			  g_ ? g_ : "(null)", w_);                                                   \
	} while (0)

/* ---- an independent ELF writer (gABI "ELF Header", "Program Header", "Sections", "Symbol Table") ---- */

/* A field of `width` bytes in little- or big-endian order. */
static inline void t_put(unsigned char *p, int width, uint64_t v, int big)
{
	int i;

	for (i = 0; i < width; i++)
		p[big ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

/* ELF header field offsets (Elf32_Ehdr / Elf64_Ehdr). */
#define EH_TYPE              16
#define EH_MACHINE           18
#define EH_VERSION           20
#define EH_ENTRY             24
#define EH_PHOFF(is64)       ((is64) ? 32 : 28)
#define EH_SHOFF(is64)       ((is64) ? 40 : 32)
#define EH_FLAGS(is64)       ((is64) ? 48 : 36)
#define EH_EHSIZE(is64)      ((is64) ? 52 : 40)
#define EH_PHENTSIZE(is64)   ((is64) ? 54 : 42)
#define EH_PHNUM(is64)       ((is64) ? 56 : 44)
#define EH_SHENTSIZE(is64)   ((is64) ? 58 : 46)
#define EH_SHNUM(is64)       ((is64) ? 60 : 48)
#define EH_SHSTRNDX(is64)    ((is64) ? 62 : 50)
#define T_EHSIZE(is64)       ((is64) ? 64 : 52)
#define T_PHENT(is64)        ((is64) ? 56 : 32)
#define T_SHENT(is64)        ((is64) ? 64 : 40)
#define T_SYMENT(is64)       ((is64) ? 24 : 16)
#define T_WORD(is64)         ((is64) ? 8 : 4)

/* Section header field offsets (Elf32_Shdr / Elf64_Shdr). */
#define SH_NAME              0
#define SH_TYPE              4
#define SH_FLAGS             8
#define SH_ADDR(is64)        ((is64) ? 16 : 12)
#define SH_OFFSET(is64)      ((is64) ? 24 : 16)
#define SH_SIZE(is64)        ((is64) ? 32 : 20)
#define SH_LINK(is64)        ((is64) ? 40 : 24)
#define SH_INFO(is64)        ((is64) ? 44 : 28)
#define SH_ADDRALIGN(is64)   ((is64) ? 48 : 32)
#define SH_ENTSIZE(is64)     ((is64) ? 56 : 36)

struct t_ehdr {
	uint16_t type, machine;
	uint32_t version, flags;
	uint64_t entry, phoff, shoff;
	uint16_t ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

static inline void t_write_ehdr(unsigned char *p, int is64, int big, const struct t_ehdr *h)
{
	int w = T_WORD(is64);

	memset(p, 0, (size_t)T_EHSIZE(is64));
	p[0] = 0x7f, p[1] = 'E', p[2] = 'L', p[3] = 'F';
	p[4] = is64 ? 2 : 1;          /* EI_CLASS: ELFCLASS32 1, ELFCLASS64 2 */
	p[5] = big ? 2 : 1;           /* EI_DATA: ELFDATA2LSB 1, ELFDATA2MSB 2 */
	p[6] = 1;                     /* EI_VERSION: EV_CURRENT */
	t_put(p + EH_TYPE, 2, h->type, big);
	t_put(p + EH_MACHINE, 2, h->machine, big);
	t_put(p + EH_VERSION, 4, h->version, big);
	t_put(p + EH_ENTRY, w, h->entry, big);
	t_put(p + EH_PHOFF(is64), w, h->phoff, big);
	t_put(p + EH_SHOFF(is64), w, h->shoff, big);
	t_put(p + EH_FLAGS(is64), 4, h->flags, big);
	t_put(p + EH_EHSIZE(is64), 2, h->ehsize, big);
	t_put(p + EH_PHENTSIZE(is64), 2, h->phentsize, big);
	t_put(p + EH_PHNUM(is64), 2, h->phnum, big);
	t_put(p + EH_SHENTSIZE(is64), 2, h->shentsize, big);
	t_put(p + EH_SHNUM(is64), 2, h->shnum, big);
	t_put(p + EH_SHSTRNDX(is64), 2, h->shstrndx, big);
}

/* Elf32_Phdr: type offset vaddr paddr filesz memsz flags align (4 bytes each).
 * Elf64_Phdr: type(4) flags(4) offset vaddr paddr filesz memsz align (8 bytes each). */
static inline void t_write_phdr(unsigned char *p, int is64, int big, const struct elf_phdr *ph)
{
	if (is64) {
		t_put(p + 0, 4, ph->type, big);
		t_put(p + 4, 4, ph->flags, big);
		t_put(p + 8, 8, ph->offset, big);
		t_put(p + 16, 8, ph->vaddr, big);
		t_put(p + 24, 8, ph->paddr, big);
		t_put(p + 32, 8, ph->filesz, big);
		t_put(p + 40, 8, ph->memsz, big);
		t_put(p + 48, 8, ph->align, big);
	} else {
		t_put(p + 0, 4, ph->type, big);
		t_put(p + 4, 4, ph->offset, big);
		t_put(p + 8, 4, ph->vaddr, big);
		t_put(p + 12, 4, ph->paddr, big);
		t_put(p + 16, 4, ph->filesz, big);
		t_put(p + 20, 4, ph->memsz, big);
		t_put(p + 24, 4, ph->flags, big);
		t_put(p + 28, 4, ph->align, big);
	}
}

static inline void t_write_shdr(unsigned char *p, int is64, int big, const struct elf_shdr *sh)
{
	int w = T_WORD(is64);

	t_put(p + SH_NAME, 4, sh->name, big);
	t_put(p + SH_TYPE, 4, sh->type, big);
	t_put(p + SH_FLAGS, w, sh->flags, big);
	t_put(p + SH_ADDR(is64), w, sh->addr, big);
	t_put(p + SH_OFFSET(is64), w, sh->offset, big);
	t_put(p + SH_SIZE(is64), w, sh->size, big);
	t_put(p + SH_LINK(is64), 4, sh->link, big);
	t_put(p + SH_INFO(is64), 4, sh->info, big);
	t_put(p + SH_ADDRALIGN(is64), w, sh->addralign, big);
	t_put(p + SH_ENTSIZE(is64), w, sh->entsize, big);
}

/* Elf32_Sym: name(4) value(4) size(4) info other shndx(2).
 * Elf64_Sym: name(4) info other shndx(2) value(8) size(8). */
static inline void t_write_sym(unsigned char *p, int is64, int big, const struct elf_sym *s)
{
	t_put(p, 4, s->name, big);
	if (is64) {
		p[4] = s->info;
		p[5] = s->other;
		t_put(p + 6, 2, s->shndx, big);
		t_put(p + 8, 8, s->value, big);
		t_put(p + 16, 8, s->size, big);
	} else {
		t_put(p + 4, 4, s->value, big);
		t_put(p + 8, 4, s->size, big);
		p[12] = s->info;
		p[13] = s->other;
		t_put(p + 14, 2, s->shndx, big);
	}
}

/* ---- a whole synthetic file: header, program headers, sections, .shstrtab, section headers ---- */

#define T_MAXSEC 16

struct t_sec {
	const char *name;
	uint32_t type;
	uint64_t flags, addralign;
	const void *data;
	size_t size;
};

struct t_seg {
	uint32_t type, flags;
	int sec;                  /* cover section number `sec` (as in the file, >= 1); 0: the whole file */
	uint64_t align;
};

struct t_image {
	unsigned char *p;
	size_t len;
	int is64, big;
	uint64_t phoff, shoff;
	uint64_t off[T_MAXSEC];   /* file offset of section i, i as in the file (0 is SHT_NULL) */
	uint64_t size[T_MAXSEC];
	size_t shnum, shstrndx;
	struct elf_shdr sh[T_MAXSEC];
	struct elf_phdr ph[T_MAXSEC];
	size_t phnum;
};

/* Lay out: ELF header, program headers, each section at its alignment, .shstrtab (the last
 * section), section header table (8-aligned).  Allocated sections get sh_addr == sh_offset,
 * segments p_vaddr == p_offset. */
static inline void t_build(struct t_image *im, int is64, int big, uint16_t type, uint16_t machine,
			   const struct t_sec *secs, size_t nsec, const struct t_seg *segs, size_t nseg)
{
	char names[512];
	size_t namelen = 1, i, pos;
	uint32_t nameoff[T_MAXSEC];
	struct t_ehdr h;

	cr_assert(nsec + 2 <= T_MAXSEC && nseg <= T_MAXSEC);
	memset(im, 0, sizeof *im);
	im->is64 = is64;
	im->big = big;
	names[0] = '\0';
	for (i = 0; i < nsec; i++) {
		nameoff[i + 1] = (uint32_t)namelen;
		memcpy(names + namelen, secs[i].name, strlen(secs[i].name) + 1);
		namelen += strlen(secs[i].name) + 1;
	}
	nameoff[nsec + 1] = (uint32_t)namelen;
	memcpy(names + namelen, ".shstrtab", 10);
	namelen += 10;

	pos = (size_t)T_EHSIZE(is64);
	im->phoff = nseg ? pos : 0;
	pos += nseg * (size_t)T_PHENT(is64);
	for (i = 0; i < nsec; i++) {
		uint64_t a = secs[i].addralign > 1 ? secs[i].addralign : 1;
		pos = (size_t)align_up(pos, a);
		im->off[i + 1] = pos;
		im->size[i + 1] = secs[i].size;
		pos += secs[i].size;
	}
	im->off[nsec + 1] = pos;
	im->size[nsec + 1] = namelen;
	pos += namelen;
	pos = (size_t)align_up(pos, 8);
	im->shoff = pos;
	im->shnum = nsec + 2;
	im->shstrndx = nsec + 1;
	im->len = pos + im->shnum * (size_t)T_SHENT(is64);
	im->p = calloc(1, im->len);
	cr_assert(im->p);

	for (i = 0; i < nsec; i++) {
		struct elf_shdr *sh = &im->sh[i + 1];
		memcpy(im->p + im->off[i + 1], secs[i].data, secs[i].size);
		sh->name = nameoff[i + 1];
		sh->type = secs[i].type;
		sh->flags = secs[i].flags;
		sh->addr = (secs[i].flags & SHF_ALLOC_) ? im->off[i + 1] : 0;
		sh->offset = im->off[i + 1];
		sh->size = secs[i].size;
		sh->addralign = secs[i].addralign;
	}
	memcpy(im->p + im->off[nsec + 1], names, namelen);
	im->sh[nsec + 1].name = nameoff[nsec + 1];
	im->sh[nsec + 1].type = SHT_STRTAB_;
	im->sh[nsec + 1].offset = im->off[nsec + 1];
	im->sh[nsec + 1].size = namelen;
	im->sh[nsec + 1].addralign = 1;
	for (i = 0; i < im->shnum; i++)
		t_write_shdr(im->p + im->shoff + i * (size_t)T_SHENT(is64), is64, big, &im->sh[i]);

	im->phnum = nseg;
	for (i = 0; i < nseg; i++) {
		struct elf_phdr *ph = &im->ph[i];
		ph->type = segs[i].type;
		ph->flags = segs[i].flags;
		ph->offset = segs[i].sec ? im->off[segs[i].sec] : 0;
		ph->filesz = segs[i].sec ? im->size[segs[i].sec] : im->len;
		ph->vaddr = ph->paddr = ph->offset;
		ph->memsz = ph->filesz;
		ph->align = segs[i].align;
		t_write_phdr(im->p + im->phoff + i * (size_t)T_PHENT(is64), is64, big, ph);
	}

	memset(&h, 0, sizeof h);
	h.type = type;
	h.machine = machine;
	h.version = 1;
	h.phoff = im->phoff;
	h.shoff = im->shoff;
	h.ehsize = (uint16_t)T_EHSIZE(is64);
	h.phentsize = nseg ? (uint16_t)T_PHENT(is64) : 0;
	h.phnum = (uint16_t)nseg;
	h.shentsize = (uint16_t)T_SHENT(is64);
	h.shnum = (uint16_t)im->shnum;
	h.shstrndx = (uint16_t)im->shstrndx;
	t_write_ehdr(im->p, is64, big, &h);
}

/* Drop the section header table (as sstrip does): e_shoff, e_shnum, e_shstrndx = 0, and the file
 * ends where the table began. */
static inline void t_strip_sections(struct t_image *im)
{
	t_put(im->p + EH_SHOFF(im->is64), T_WORD(im->is64), 0, im->big);
	t_put(im->p + EH_SHNUM(im->is64), 2, 0, im->big);
	t_put(im->p + EH_SHSTRNDX(im->is64), 2, 0, im->big);
	t_put(im->p + EH_SHENTSIZE(im->is64), 2, 0, im->big);
	im->len = im->shoff;
	/* segments that covered the whole file now end with it */
	for (size_t i = 0; i < im->phnum; i++) {
		struct elf_phdr *ph = &im->ph[i];
		if (ph->offset + ph->filesz > im->len) {
			ph->filesz = ph->memsz = im->len - ph->offset;
			t_write_phdr(im->p + im->phoff + i * (size_t)T_PHENT(im->is64), im->is64, im->big, ph);
		}
	}
}

static inline void t_image_free(struct t_image *im)
{
	free(im->p);
	im->p = NULL;
}

/* Write bytes to an unlinked temporary file; returns its descriptor. */
static inline int t_tmpfile(const void *data, size_t len)
{
	char path[] = "/tmp/dlnote-unit-XXXXXX";
	int fd = mkstemp(path);

	cr_assert(fd >= 0, "mkstemp failed");
	unlink(path);
	cr_assert_eq(write(fd, data, len), (ssize_t)len, "short write to the temporary file");
	return fd;
}

/* elf_open on the bytes, through a real file (open + fstat for the size, as the tool does).
 * *fd receives the descriptor, to be closed with t_elf_close. */
static inline int t_elf_open(struct elf *ef, const void *data, size_t len, int *fd, struct err *e)
{
	struct stat st;

	*fd = t_tmpfile(data, len);
	cr_assert_eq(fstat(*fd, &st), 0);
	memset(e, 0, sizeof *e);
	return elf_open(ef, *fd, "test.elf", (uint64_t)st.st_size, e);
}

static inline void t_elf_close(struct elf *ef, int fd)
{
	elf_close(ef);
	close(fd);
}

/* The four kinds of ELF file: v = 0..3 -> ELF32 LE, ELF32 BE, ELF64 LE, ELF64 BE. */
#define T_VARIANT_IS64(v) ((v) >= 2)
#define T_VARIANT_BIG(v) ((v) & 1)
static inline const char *t_variant(int v)
{
	return v == 0 ? "ELF32 LE" : v == 1 ? "ELF32 BE" : v == 2 ? "ELF64 LE" : "ELF64 BE";
}

#endif
