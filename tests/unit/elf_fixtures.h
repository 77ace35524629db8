/* SPDX-License-Identifier: MIT */
/* elf_fixtures.h - what the ELF model's suites share (test_elf.c, test_elf_damaged.c,
 * test_elf_codec.c): a small shared object of each class and byte order written by helpers.h,
 * a field patcher, and elf_open expected to succeed or to fail with a given message.
 *
 * Everything is static inline (or static const) so that a suite that does not use a helper
 * does not warn. */
#ifndef DLNOTE_TEST_ELF_FIXTURES_H
#define DLNOTE_TEST_ELF_FIXTURES_H

#include <criterion/criterion.h>
#include <stdint.h>

#include "helpers.h"
#include "elf/elf.h"

static const unsigned char NOTE_BYTES[20] = { 4, 0, 0, 0, 3, 0, 0, 0, 0x0a, 0x0c, 0x7c, 0x40, 'F', 'D', 'O', 0, '[', ']', 0, 0 };
static const unsigned char TEXT_BYTES[8] = { 0x90, 0x90, 0x90, 0xc3, 0, 0, 0, 0 };
static const unsigned char DATA_BYTES[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

/* Machines per variant: i386, PowerPC, x86-64, PowerPC64. */
static inline uint16_t machine_of(int v)
{
	static const uint16_t m[4] = { 3, 20, 62, 21 };
	return m[v];
}

/* A small shared object: [1] .note.dlopen, [2] .text, [3] .data, [4] .shstrtab; PT_LOAD over
 * the whole file and a PT_NOTE over [1]. */
static inline void build_basic(struct t_image *im, int v)
{
	const struct t_sec secs[] = {
		{ ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, NOTE_BYTES, sizeof NOTE_BYTES },
		{ ".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES },
		{ ".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES },
	};
	const struct t_seg segs[] = {
		{ PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000 },
		{ PT_NOTE_, PF_R_, 1, 4 },
	};

	t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_DYN_, machine_of(v), secs, 3, segs, 2);
}

static inline void patch(struct t_image *im, uint64_t off, int width, uint64_t val)
{
	cr_assert(off + (uint64_t)width <= im->len);
	t_put(im->p + off, width, val, im->big);
}

/* elf_open on the image must fail with exactly `msg`, leaving no tables behind. */
static inline void open_fails(const struct t_image *im, const char *msg, const char *variant)
{
	struct elf ef;
	struct err e;
	int fd;

	cr_assert_eq(t_elf_open(&ef, im->p, im->len, &fd, &e), -1, "%s: accepted; expected: %s", variant, msg);
	T_STR_EQ(e.msg, msg, "%s", variant);
	cr_assert_eq(e.usage, 0);
	cr_assert_null(ef.ph, "%s: program headers freed on failure", variant);
	cr_assert_null(ef.sh, "%s: section headers freed on failure", variant);
	t_elf_close(&ef, fd);
}

static inline void open_ok(struct elf *ef, const struct t_image *im, int *fd, const char *variant)
{
	struct err e;

	cr_assert_eq(t_elf_open(ef, im->p, im->len, fd, &e), 0, "%s: refused: %s", variant, e.msg);
}

#endif
