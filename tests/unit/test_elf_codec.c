/* SPDX-License-Identifier: MIT */
/* test_elf_codec.c - the ELF records' codec (src/elf/elf_codec.c and elf.h's field accessors):
 * fields read and written in either byte order, the structure sizes of each class, and the
 * file, program and section headers and symbols encoded into the gABI's layouts (written
 * independently by helpers.h) and decoded back, directly or through elf_open. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "elf/elf.h"
#include "elf_fixtures.h"

/* ---------------------------------------------------------------- fields in the file's byte order */

Test(elf, get_reads_fields_little_and_big_endian)
{
	static const unsigned char b[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct elf le = { 0 }, be = { 0 };

	be.big = 1;
	cr_assert_eq(elf_get(&le, b, 1), 0x01);
	cr_assert_eq(elf_get(&le, b, 2), 0x0201);
	cr_assert_eq(elf_get(&le, b, 4), 0x04030201);
	cr_assert_eq(elf_get(&le, b, 8), 0x0807060504030201ull);
	cr_assert_eq(elf_get(&be, b, 1), 0x01);
	cr_assert_eq(elf_get(&be, b, 2), 0x0102);
	cr_assert_eq(elf_get(&be, b, 4), 0x01020304);
	cr_assert_eq(elf_get(&be, b, 8), 0x0102030405060708ull);
}

Test(elf, put_writes_fields_little_and_big_endian_and_nothing_else)
{
	static const unsigned char le8[8] = { 8, 7, 6, 5, 4, 3, 2, 1 }, be8[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	static const unsigned char le4[10] = { 0xee, 8, 7, 6, 5, 0xee, 0xee, 0xee, 0xee, 0xee };
	static const unsigned char be4[10] = { 0xee, 5, 6, 7, 8, 0xee, 0xee, 0xee, 0xee, 0xee };
	static const unsigned char le2[4] = { 0xee, 8, 7, 0xee }, be2[4] = { 0xee, 7, 8, 0xee };
	struct elf le = { 0 }, be = { 0 };
	unsigned char p[10];

	be.big = 1;
	elf_put(&le, p, 8, 0x0102030405060708ull);
	t_assert_bytes(p, 8, le8, 8, "LE width 8");
	elf_put(&be, p, 8, 0x0102030405060708ull);
	t_assert_bytes(p, 8, be8, 8, "BE width 8");
	memset(p, 0xee, sizeof p);
	elf_put(&le, p + 1, 4, 0x0102030405060708ull);      /* only the low 32 bits */
	t_assert_bytes(p, 10, le4, 10, "LE width 4");
	memset(p, 0xee, sizeof p);
	elf_put(&be, p + 1, 4, 0x0102030405060708ull);
	t_assert_bytes(p, 10, be4, 10, "BE width 4");
	memset(p, 0xee, sizeof p);
	elf_put(&le, p + 1, 2, 0x0708);
	t_assert_bytes(p, 4, le2, 4, "LE width 2");
	memset(p, 0xee, sizeof p);
	elf_put(&be, p + 1, 2, 0x0708);
	t_assert_bytes(p, 4, be2, 4, "BE width 2");
}

Test(elf, put_then_get_round_trips_in_both_byte_orders)
{
	static const uint64_t vals[] = { 0, 1, 0x7f, 0x80, 0xff, 0x1234, 0xffff, 0x12345678, 0x80000000, 0xffffffff,
					 0x0123456789abcdefull, 0x8000000000000000ull, UINT64_MAX };
	static const int widths[] = { 1, 2, 4, 8 };
	struct elf ef = { 0 };
	unsigned char p[8];
	size_t i, w;

	for (ef.big = 0; ef.big < 2; ef.big++)
		for (w = 0; w < 4; w++)
			for (i = 0; i < sizeof vals / sizeof *vals; i++) {
				uint64_t want = widths[w] == 8 ? vals[i] : vals[i] & ((1ull << (8 * widths[w])) - 1);
				elf_put(&ef, p, widths[w], vals[i]);
				cr_assert_eq(elf_get(&ef, p, widths[w]), want, "big=%d width=%d value 0x%llx", ef.big, widths[w],
					     (unsigned long long)vals[i]);
			}
}

Test(elf, structure_sizes_follow_the_class)
{
	struct elf e32 = { 0 }, e64 = { 0 };

	e64.is64 = 1;
	cr_assert_eq(elf_ehdr_size(&e32), 52);
	cr_assert_eq(elf_phent_size(&e32), 32);
	cr_assert_eq(elf_shent_size(&e32), 40);
	cr_assert_eq(elf_sym_size(&e32), 16);
	cr_assert_eq(elf_ehdr_size(&e64), 64);
	cr_assert_eq(elf_phent_size(&e64), 56);
	cr_assert_eq(elf_shent_size(&e64), 64);
	cr_assert_eq(elf_sym_size(&e64), 24);
}

/* ---------------------------------------------------------------- encoders and decoders */

static struct elf model(int v)
{
	struct elf ef;

	memset(&ef, 0, sizeof ef);
	ef.is64 = T_VARIANT_IS64(v);
	ef.big = T_VARIANT_BIG(v);
	return ef;
}

/* Field values whose bytes all differ, so that a swapped or misplaced field shows. */
static struct elf_phdr sample_phdr(int is64)
{
	struct elf_phdr ph = { 0 };

	ph.type = 0x01020304;
	ph.flags = 0x05060708;
	ph.offset = is64 ? 0x1112131415161718ull : 0x090a0b0c;
	ph.vaddr = is64 ? 0x2122232425262728ull : 0x0d0e0f10;
	ph.paddr = is64 ? 0x3132333435363738ull : 0x11121314;
	ph.filesz = is64 ? 0x4142434445464748ull : 0x15161718;
	ph.memsz = is64 ? 0x5152535455565758ull : 0x191a1b1c;
	ph.align = is64 ? 0x6162636465666768ull : 0x1d1e1f20;
	return ph;
}

static struct elf_shdr sample_shdr(int is64)
{
	struct elf_shdr sh = { 0 };

	sh.name = 0x01020304;
	sh.type = 0x05060708;
	sh.flags = is64 ? 0x1112131415161718ull : 0x090a0b0c;
	sh.addr = is64 ? 0x2122232425262728ull : 0x0d0e0f10;
	sh.offset = is64 ? 0x3132333435363738ull : 0x11121314;
	sh.size = is64 ? 0x4142434445464748ull : 0x15161718;
	sh.link = 0x71727374;
	sh.info = 0x75767778;
	sh.addralign = is64 ? 0x5152535455565758ull : 0x191a1b1c;
	sh.entsize = is64 ? 0x6162636465666768ull : 0x1d1e1f20;
	return sh;
}

static struct elf_sym sample_sym(int is64)
{
	struct elf_sym s = { 0 };

	s.name = 0x01020304;
	s.info = 0x12;
	s.other = 0x03;
	s.shndx = 0xfff1;
	s.value = is64 ? 0x1112131415161718ull : 0x05060708;
	s.size = is64 ? 0x2122232425262728ull : 0x090a0b0c;
	return s;
}

Test(elf, encode_phdr_writes_the_gabi_layout_for_each_class_and_byte_order)
{
	for (int v = 0; v < 4; v++) {
		struct elf ef = model(v);
		struct elf_phdr ph = sample_phdr(ef.is64);
		unsigned char got[56], want[56];

		memset(got, 0xee, sizeof got);
		memset(want, 0xee, sizeof want);
		elf_encode_phdr(&ef, &ph, got);
		t_write_phdr(want, ef.is64, ef.big, &ph);
		t_assert_bytes(got, sizeof got, want, sizeof want, t_variant(v));
	}
}

Test(elf, encode_shdr_writes_the_gabi_layout_for_each_class_and_byte_order)
{
	for (int v = 0; v < 4; v++) {
		struct elf ef = model(v);
		struct elf_shdr sh = sample_shdr(ef.is64);
		unsigned char got[64], want[64];

		memset(got, 0xee, sizeof got);
		memset(want, 0xee, sizeof want);
		elf_encode_shdr(&ef, &sh, got);
		t_write_shdr(want, ef.is64, ef.big, &sh);
		t_assert_bytes(got, sizeof got, want, sizeof want, t_variant(v));
	}
}

Test(elf, encoded_phdrs_and_shdrs_decode_to_the_same_values_through_elf_open)
{
	for (int v = 0; v < 4; v++) {
		struct elf model_ef = model(v), ef;
		int is64 = model_ef.is64, fd;
		struct elf_phdr ph = sample_phdr(is64);
		struct elf_shdr sh = sample_shdr(is64);
		struct t_image im;

		build_basic(&im, v);
		/* replace the PT_NOTE and section [3] by the samples, made harmless for the bounds checks
		 * (and not executable: code turned NOBITS is a detached debug file's, whose program
		 * headers elf_open drops) */
		ph.type = PT_NULL_;
		sh.type = SHT_NOBITS_;
		sh.flags &= ~(uint64_t)SHF_EXECINSTR_;
		elf_encode_phdr(&model_ef, &ph, im.p + im.phoff + (uint64_t)T_PHENT(is64));
		elf_encode_shdr(&model_ef, &sh, im.p + im.shoff + 3 * (uint64_t)T_SHENT(is64));
		open_ok(&ef, &im, &fd, t_variant(v));
		cr_assert_eq(memcmp(&ef.ph[1], &ph, sizeof ph), 0, "%s: phdr round trip", t_variant(v));
		cr_assert_eq(ef.ph[1].offset, ph.offset);
		cr_assert_eq(ef.ph[1].align, ph.align);
		cr_assert_eq(memcmp(&ef.sh[3], &sh, sizeof sh), 0, "%s: shdr round trip", t_variant(v));
		cr_assert_eq(ef.sh[3].entsize, sh.entsize);
		cr_assert_eq(ef.sh[3].info, sh.info);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(elf, encode_sym_writes_the_gabi_layout_and_decode_sym_reads_it_back)
{
	for (int v = 0; v < 4; v++) {
		struct elf ef = model(v);
		struct elf_sym s = sample_sym(ef.is64), back;
		unsigned char got[24], want[24];
		size_t n = elf_sym_size(&ef);

		memset(got, 0xee, sizeof got);
		memset(want, 0xee, sizeof want);
		elf_encode_sym(&ef, &s, got);
		t_write_sym(want, ef.is64, ef.big, &s);
		t_assert_bytes(got, sizeof got, want, sizeof want, t_variant(v));
		cr_assert_eq(n, (size_t)T_SYMENT(ef.is64));

		memset(&back, 0, sizeof back);
		elf_decode_sym(&ef, want, &back);
		cr_assert_eq(back.name, s.name, "%s", t_variant(v));
		cr_assert_eq(back.info, s.info, "%s", t_variant(v));
		cr_assert_eq(back.other, s.other, "%s", t_variant(v));
		cr_assert_eq(back.shndx, s.shndx, "%s", t_variant(v));
		cr_assert_eq(back.value, s.value, "%s", t_variant(v));
		cr_assert_eq(back.size, s.size, "%s", t_variant(v));
	}
}

Test(elf, encode_ehdr_reproduces_the_header_it_was_read_from)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v), fd;
		unsigned char out[64];
		struct t_image im;
		struct elf ef;

		build_basic(&im, v);
		patch(&im, EH_ENTRY, T_WORD(is64), 0x1234);
		patch(&im, EH_FLAGS(is64), 4, 0x80000001);
		open_ok(&ef, &im, &fd, t_variant(v));
		memset(out, 0xee, sizeof out);
		elf_encode_ehdr(&ef, out, 2, 5, 4);
		t_assert_bytes(out, (size_t)T_EHSIZE(is64), im.p, (size_t)T_EHSIZE(is64), t_variant(v));
		/* extended numbering: the caller's header values are written as given */
		elf_encode_ehdr(&ef, out, PN_XNUM_, 0, SHN_XINDEX_);
		cr_assert_eq(elf_get(&ef, out + EH_PHNUM(is64), 2), PN_XNUM_);
		cr_assert_eq(elf_get(&ef, out + EH_SHNUM(is64), 2), 0);
		cr_assert_eq(elf_get(&ef, out + EH_SHSTRNDX(is64), 2), SHN_XINDEX_);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}
