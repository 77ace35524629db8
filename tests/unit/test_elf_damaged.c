/* SPDX-License-Identifier: MIT */
/* test_elf_damaged.c - the ELF model (src/elf/elf.c) refusing damaged files: a missing magic, a
 * bad class, byte order or version, a truncated header, wrong entry sizes, and program headers,
 * section headers, sections and segments that run past the end of the file or overflow.
 *
 * The images are written by helpers.h (through elf_fixtures.h) independently of src/elf/elf.c, then
 * patched.  Every damaged header must be refused with a message that says what is wrong, and
 * leave no tables behind. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "elf/elf.h"
#include "elf_fixtures.h"

/* ---------------------------------------------------------------- damaged identification */

Test(elf, a_file_without_the_elf_magic_is_not_an_elf_file)
{
	static const unsigned char tiny[10] = { 0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0 };
	struct t_image im;
	struct elf ef;
	struct err e;
	int fd;

	build_basic(&im, 2);
	im.p[1] = 'X';
	open_fails(&im, "not an ELF file", "bad magic");
	im.p[1] = 'E';
	im.p[0] = 0x7e;
	open_fails(&im, "not an ELF file", "bad magic");
	t_image_free(&im);

	cr_assert_eq(t_elf_open(&ef, tiny, sizeof tiny, &fd, &e), -1);
	T_STR_EQ(e.msg, "not an ELF file", "shorter than e_ident");
	t_elf_close(&ef, fd);
	cr_assert_eq(t_elf_open(&ef, "", 0, &fd, &e), -1);
	T_STR_EQ(e.msg, "not an ELF file", "empty file");
	t_elf_close(&ef, fd);
}

Test(elf, a_bad_class_byte_order_or_version_is_refused)
{
	struct t_image im;

	build_basic(&im, 2);
	im.p[4] = 0;
	open_fails(&im, "bad ELF class 0 in e_ident", "ELFCLASSNONE");
	im.p[4] = 3;
	open_fails(&im, "bad ELF class 3 in e_ident", "class 3");
	im.p[4] = 2;
	im.p[5] = 0;
	open_fails(&im, "bad ELF byte order 0 in e_ident", "ELFDATANONE");
	im.p[5] = 3;
	open_fails(&im, "bad ELF byte order 3 in e_ident", "data 3");
	im.p[5] = 1;
	im.p[6] = 0;
	open_fails(&im, "unsupported ELF version 0 in e_ident", "EV_NONE");
	im.p[6] = 2;
	open_fails(&im, "unsupported ELF version 2 in e_ident", "version 2");
	t_image_free(&im);
}

Test(elf, a_truncated_elf_header_is_refused)
{
	for (int v = 0; v < 4; v++) {
		struct t_image im;

		build_basic(&im, v);
		im.len = (size_t)T_EHSIZE(T_VARIANT_IS64(v)) - 1;
		open_fails(&im, "truncated ELF header", t_variant(v));
		im.len = 16;
		open_fails(&im, "truncated ELF header", t_variant(v));
		t_image_free(&im);
	}
	/* a 64-bit header is longer than a 32-bit one: 52 bytes of ELF64 are not enough */
	{
		struct t_image im;

		build_basic(&im, 2);
		im.len = 52;
		open_fails(&im, "truncated ELF header", "ELF64 LE, 52 bytes");
		t_image_free(&im);
	}
}

Test(elf, an_e_ehsize_smaller_than_the_header_is_refused)
{
	struct t_image im;

	build_basic(&im, 2);
	patch(&im, EH_EHSIZE(1), 2, 52);
	open_fails(&im, "bad e_ehsize 52", "ELF64 LE");
	t_image_free(&im);
	build_basic(&im, 1);
	patch(&im, EH_EHSIZE(0), 2, 0);
	open_fails(&im, "bad e_ehsize 0", "ELF32 BE");
	t_image_free(&im);
}

/* ---------------------------------------------------------------- damaged tables */

Test(elf, a_program_header_table_past_the_end_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		struct t_image im;
		char msg[160];

		build_basic(&im, v);
		patch(&im, EH_PHOFF(is64), T_WORD(is64), im.len);
		snprintf(msg, sizeof msg, "program header table (2 entries at offset 0x%zx) runs past the end of the file", im.len);
		open_fails(&im, msg, t_variant(v));
		/* straddling the end: the first entry fits, the second does not */
		patch(&im, EH_PHOFF(is64), T_WORD(is64), im.len - (size_t)T_PHENT(is64) - 8);
		snprintf(msg, sizeof msg, "program header table (2 entries at offset 0x%zx) runs past the end of the file",
			 im.len - (size_t)T_PHENT(is64) - 8);
		open_fails(&im, msg, t_variant(v));
		t_image_free(&im);
	}
}

Test(elf, a_program_header_table_offset_that_overflows_is_refused)
{
	struct t_image im;

	build_basic(&im, 2);
	patch(&im, EH_PHOFF(1), 8, 0xfffffffffffffff0ull);
	open_fails(&im, "program header table (2 entries at offset 0xfffffffffffffff0) runs past the end of the file", "ELF64 LE");
	t_image_free(&im);
}

Test(elf, a_section_header_table_past_the_end_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		struct t_image im;
		struct elf ef;
		struct err e;
		char tail[128];
		int fd;

		build_basic(&im, v);
		patch(&im, EH_SHOFF(is64), T_WORD(is64), im.len);
		cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), -1, "%s", t_variant(v));
		snprintf(tail, sizeof tail, "entries at offset 0x%zx) runs past the end of the file", im.len);
		cr_assert(strncmp(e.msg, "section header table (", 22) == 0, "%s: %s", t_variant(v), e.msg);
		cr_assert(strstr(e.msg, tail), "%s: [%s] should end with [%s]", t_variant(v), e.msg, tail);
		t_elf_close(&ef, fd);
		/* straddling the end */
		patch(&im, EH_SHOFF(is64), T_WORD(is64), im.shoff + 8);
		cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), -1, "%s", t_variant(v));
		cr_assert(strstr(e.msg, "runs past the end of the file"), "%s: %s", t_variant(v), e.msg);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(elf, a_section_header_table_past_the_end_reports_the_count_e_shnum_claims)
{
	struct t_image im;
	char msg[160];

	build_basic(&im, 2);
	patch(&im, EH_SHOFF(1), 8, im.len);
	snprintf(msg, sizeof msg, "section header table (5 entries at offset 0x%zx) runs past the end of the file", im.len);
	open_fails(&im, msg, "ELF64 LE");
	t_image_free(&im);
}

Test(elf, a_section_header_table_offset_that_overflows_is_refused)
{
	struct t_image im;
	struct elf ef;
	struct err e;
	int fd;

	build_basic(&im, 3);
	patch(&im, EH_SHOFF(1), 8, 0xfffffffffffffff5ull);
	cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), -1);
	cr_assert(strstr(e.msg, "section header table ("), "%s", e.msg);
	cr_assert(strstr(e.msg, "entries at offset 0xfffffffffffffff5) runs past the end of the file"), "%s", e.msg);
	t_elf_close(&ef, fd);
	t_image_free(&im);
}

Test(elf, e_shstrndx_out_of_range_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		struct t_image im;

		build_basic(&im, v);
		patch(&im, EH_SHSTRNDX(is64), 2, 9);
		open_fails(&im, "e_shstrndx 9 is out of range (5 sections)", t_variant(v));
		patch(&im, EH_SHSTRNDX(is64), 2, 5);
		open_fails(&im, "e_shstrndx 5 is out of range (5 sections)", t_variant(v));
		patch(&im, EH_SHSTRNDX(is64), 2, 0xff00);     /* reserved, but not SHN_XINDEX */
		open_fails(&im, "e_shstrndx 65280 is out of range (5 sections)", t_variant(v));
		t_image_free(&im);
	}
}

Test(elf, a_wrong_e_phentsize_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		struct t_image im;
		char msg[64];

		build_basic(&im, v);
		patch(&im, EH_PHENTSIZE(is64), 2, (uint64_t)T_PHENT(!is64));
		snprintf(msg, sizeof msg, "bad e_phentsize %d (expected %d)", T_PHENT(!is64), T_PHENT(is64));
		open_fails(&im, msg, t_variant(v));
		patch(&im, EH_PHENTSIZE(is64), 2, 0);
		snprintf(msg, sizeof msg, "bad e_phentsize 0 (expected %d)", T_PHENT(is64));
		open_fails(&im, msg, t_variant(v));
		t_image_free(&im);
	}
}

Test(elf, a_wrong_e_shentsize_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		struct t_image im;
		char msg[64];

		build_basic(&im, v);
		patch(&im, EH_SHENTSIZE(is64), 2, (uint64_t)T_SHENT(!is64));
		snprintf(msg, sizeof msg, "bad e_shentsize %d (expected %d)", T_SHENT(!is64), T_SHENT(is64));
		open_fails(&im, msg, t_variant(v));
		patch(&im, EH_SHENTSIZE(is64), 2, (uint64_t)T_SHENT(is64) + 1);
		snprintf(msg, sizeof msg, "bad e_shentsize %d (expected %d)", T_SHENT(is64) + 1, T_SHENT(is64));
		open_fails(&im, msg, t_variant(v));
		t_image_free(&im);
	}
}

Test(elf, a_section_running_past_the_end_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		uint64_t sh2 = 0;
		struct t_image im;
		char msg[160];

		build_basic(&im, v);
		sh2 = im.shoff + 2 * (uint64_t)T_SHENT(is64);
		/* .text one byte longer than what is left of the file */
		patch(&im, sh2 + SH_SIZE(is64), T_WORD(is64), im.len - im.off[2] + 1);
		snprintf(msg, sizeof msg, "section 2 (offset 0x%llx, size 0x%llx) runs past the end of the file",
			 (unsigned long long)im.off[2], (unsigned long long)(im.len - im.off[2] + 1));
		open_fails(&im, msg, t_variant(v));
		/* an offset past the end with size 0 is past the end too */
		patch(&im, sh2 + SH_SIZE(is64), T_WORD(is64), 0);
		patch(&im, sh2 + SH_OFFSET(is64), T_WORD(is64), im.len + 1);
		snprintf(msg, sizeof msg, "section 2 (offset 0x%llx, size 0x0) runs past the end of the file", (unsigned long long)im.len + 1);
		open_fails(&im, msg, t_variant(v));
		t_image_free(&im);
	}
}

Test(elf, a_section_whose_offset_plus_size_overflows_is_refused)
{
	struct t_image im;
	uint64_t sh3;

	build_basic(&im, 2);
	sh3 = im.shoff + 3 * 64;
	patch(&im, sh3 + SH_OFFSET(1), 8, 0xffffffffffffff00ull);
	patch(&im, sh3 + SH_SIZE(1), 8, 0x200);
	open_fails(&im, "section 3 (offset 0xffffffffffffff00, size 0x200) runs past the end of the file", "ELF64 LE");
	t_image_free(&im);
}

Test(elf, a_nobits_section_may_extend_past_the_end)
{
	struct t_image im;
	struct elf ef;
	uint64_t sh3;
	int fd;

	build_basic(&im, 1);
	sh3 = im.shoff + 3 * 40;
	patch(&im, sh3 + SH_TYPE, 4, SHT_NOBITS_);
	patch(&im, sh3 + SH_SIZE(0), 4, 0x100000);
	open_ok(&ef, &im, &fd, "ELF32 BE");
	cr_assert_eq(ef.sh[3].type, SHT_NOBITS_);
	cr_assert_eq(ef.sh[3].size, 0x100000);
	t_elf_close(&ef, fd);
	t_image_free(&im);
}

Test(elf, a_segment_running_past_the_end_is_refused)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		uint64_t ph1, fsz = is64 ? 32 : 16;       /* p_filesz offset in Elf64_Phdr / Elf32_Phdr */
		struct t_image im;
		char msg[160];

		build_basic(&im, v);
		ph1 = im.phoff + (uint64_t)T_PHENT(is64);
		patch(&im, ph1 + fsz, T_WORD(is64), 0x10000);
		snprintf(msg, sizeof msg, "program header 1 (offset 0x%llx, size 0x10000) runs past the end of the file",
			 (unsigned long long)im.off[1]);
		open_fails(&im, msg, t_variant(v));
		t_image_free(&im);
	}
}

Test(elf, a_pt_null_entry_is_not_bounds_checked)
{
	struct t_image im;
	struct elf ef;
	uint64_t ph1;
	int fd;

	build_basic(&im, 2);
	ph1 = im.phoff + 56;
	patch(&im, ph1, 4, PT_NULL_);
	patch(&im, ph1 + 8, 8, 0xdead0000);       /* p_offset */
	patch(&im, ph1 + 32, 8, 0x10000);         /* p_filesz */
	open_ok(&ef, &im, &fd, "ELF64 LE");
	cr_assert_eq(ef.ph[1].type, PT_NULL_);
	t_elf_close(&ef, fd);
	t_image_free(&im);
}
