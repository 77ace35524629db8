/* test_elf.c - the ELF model (src/elf.c): headers of every class and byte order, read from real
 * files, checked against the file size; encoders and decoders of the on-disk structures.
 *
 * The images are written by helpers.h from the gABI's structure layouts, independently of
 * src/elf.c.  Every damaged header must be refused with a message that says what is wrong. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "elf.h"

static const unsigned char NOTE_BYTES[20] = { 4, 0, 0, 0, 3, 0, 0, 0, 0x0a, 0x0c, 0x7c, 0x40, 'F', 'D', 'O', 0, '[', ']', 0, 0 };
static const unsigned char TEXT_BYTES[8] = { 0x90, 0x90, 0x90, 0xc3, 0, 0, 0, 0 };
static const unsigned char DATA_BYTES[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };

/* Machines per variant: i386, PowerPC, x86-64, PowerPC64. */
static uint16_t machine_of(int v)
{
	static const uint16_t m[4] = { 3, 20, 62, 21 };
	return m[v];
}

/* A small shared object: [1] .note.dlopen, [2] .text, [3] .data, [4] .shstrtab; PT_LOAD over
 * the whole file and a PT_NOTE over [1]. */
static void build_basic(struct t_image *im, int v)
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

static void patch(struct t_image *im, uint64_t off, int width, uint64_t val)
{
	cr_assert(off + (uint64_t)width <= im->len);
	t_put(im->p + off, width, val, im->big);
}

/* elf_open on the image must fail with exactly `msg`, leaving no tables behind. */
static void open_fails(const struct t_image *im, const char *msg, const char *variant)
{
	struct elf ef;
	struct err e;
	int fd;

	cr_assert_eq(t_elf_open(&ef, im->p, im->len, &fd, &e), -1, "%s: accepted; expected: %s", variant, msg);
	T_STR_EQ(e.msg, msg, "%s", variant);
	cr_assert_eq(e.status, EXIT_BAD_INPUT);
	cr_assert_null(ef.ph, "%s: program headers freed on failure", variant);
	cr_assert_null(ef.sh, "%s: section headers freed on failure", variant);
	t_elf_close(&ef, fd);
}

static void open_ok(struct elf *ef, const struct t_image *im, int *fd, const char *variant)
{
	struct err e;

	cr_assert_eq(t_elf_open(ef, im->p, im->len, fd, &e), 0, "%s: refused: %s", variant, e.msg);
}

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

/* ---------------------------------------------------------------- opening valid files */

Test(elf, open_reads_every_header_field_for_each_class_and_byte_order)
{
	for (int v = 0; v < 4; v++) {
		const char *vn = t_variant(v);
		struct t_image im;
		struct elf ef;
		int fd, is64 = T_VARIANT_IS64(v);
		size_t i;

		build_basic(&im, v);
		patch(&im, EH_ENTRY, T_WORD(is64), is64 ? 0x0000000000401020ull : 0x08049020);
		patch(&im, EH_FLAGS(is64), 4, 0x05000400);
		open_ok(&ef, &im, &fd, vn);
		cr_assert_eq(ef.is64, is64, "%s", vn);
		cr_assert_eq(ef.big, T_VARIANT_BIG(v), "%s", vn);
		cr_assert_eq(memcmp(ef.ident, im.p, 16), 0, "%s: e_ident kept", vn);
		cr_assert_eq(ef.size, im.len, "%s", vn);
		cr_assert_eq(ef.fd, fd);
		cr_assert_eq(ef.type, ET_DYN_, "%s", vn);
		cr_assert_eq(ef.machine, machine_of(v), "%s", vn);
		cr_assert_eq(ef.version, 1, "%s", vn);
		cr_assert_eq(ef.entry, is64 ? 0x401020ull : 0x08049020, "%s", vn);
		cr_assert_eq(ef.flags, 0x05000400, "%s", vn);
		cr_assert_eq(ef.phoff, im.phoff, "%s", vn);
		cr_assert_eq(ef.shoff, im.shoff, "%s", vn);
		cr_assert_eq(ef.ehsize, T_EHSIZE(is64), "%s", vn);
		cr_assert_eq(ef.phnum, 2, "%s", vn);
		cr_assert_eq(ef.shnum, 5, "%s", vn);
		cr_assert_eq(ef.shstrndx, 4, "%s", vn);
		for (i = 0; i < 2; i++) {
			cr_assert_eq(ef.ph[i].type, im.ph[i].type, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].flags, im.ph[i].flags, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].offset, im.ph[i].offset, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].vaddr, im.ph[i].vaddr, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].paddr, im.ph[i].paddr, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].filesz, im.ph[i].filesz, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].memsz, im.ph[i].memsz, "%s ph %zu", vn, i);
			cr_assert_eq(ef.ph[i].align, im.ph[i].align, "%s ph %zu", vn, i);
		}
		for (i = 0; i < 5; i++) {
			cr_assert_eq(ef.sh[i].name, im.sh[i].name, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].type, im.sh[i].type, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].flags, im.sh[i].flags, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].addr, im.sh[i].addr, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].offset, im.sh[i].offset, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].size, im.sh[i].size, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].link, im.sh[i].link, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].info, im.sh[i].info, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].addralign, im.sh[i].addralign, "%s sh %zu", vn, i);
			cr_assert_eq(ef.sh[i].entsize, im.sh[i].entsize, "%s sh %zu", vn, i);
		}
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(elf, section_names_come_from_the_e_shstrndx_table)
{
	for (int v = 0; v < 4; v++) {
		static const char *const names[5] = { "", ".note.dlopen", ".text", ".data", ".shstrtab" };
		struct t_image im;
		struct elf ef;
		char buf[64];
		int fd;
		size_t i;

		build_basic(&im, v);
		open_ok(&ef, &im, &fd, t_variant(v));
		for (i = 0; i < 5; i++) {
			elf_section_name(&ef, i, buf, sizeof buf);
			T_STR_EQ(buf, names[i], "%s section %zu", t_variant(v), i);
		}
		elf_section_name(&ef, 5, buf, sizeof buf);
		T_STR_EQ(buf, "", "an index past the table has no name");
		elf_section_name(&ef, 1, buf, 6);
		T_STR_EQ(buf, ".note", "truncated to the buffer");
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(elf, a_file_with_e_shstrndx_zero_has_no_section_names)
{
	struct t_image im;
	struct elf ef;
	char buf[32];
	int fd;

	build_basic(&im, 2);
	patch(&im, EH_SHSTRNDX(1), 2, 0);
	open_ok(&ef, &im, &fd, "ELF64 LE");
	cr_assert_eq(ef.shstrndx, 0);
	elf_section_name(&ef, 1, buf, sizeof buf);
	cr_assert_str_eq(buf, "");
	t_elf_close(&ef, fd);
	t_image_free(&im);
}

Test(elf, a_file_without_section_headers_opens_with_none)
{
	for (int v = 0; v < 4; v++) {
		struct t_image im;
		struct elf ef;
		int fd;

		build_basic(&im, v);
		t_strip_sections(&im);
		open_ok(&ef, &im, &fd, t_variant(v));
		cr_assert_eq(ef.shnum, 0, "%s", t_variant(v));
		cr_assert_eq(ef.shstrndx, 0);
		cr_assert_null(ef.sh);
		cr_assert_eq(ef.phnum, 2);
		cr_assert_eq(ef.ph[1].type, PT_NOTE_);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(elf, zero_table_offsets_mean_no_table_whatever_the_counts_say)
{
	struct t_image im;
	struct elf ef;
	int fd;

	build_basic(&im, 3);
	patch(&im, EH_PHOFF(1), 8, 0);
	patch(&im, EH_SHOFF(1), 8, 0);
	open_ok(&ef, &im, &fd, "ELF64 BE");
	cr_assert_eq(ef.phnum, 0);
	cr_assert_eq(ef.shnum, 0);
	t_elf_close(&ef, fd);
	t_image_free(&im);
}

/* ---------------------------------------------------------------- extended numbering */

Test(elf, extended_numbering_takes_the_counts_from_section_header_0)
{
	for (int v = 0; v < 4; v++) {
		const char *vn = t_variant(v);
		int is64 = T_VARIANT_IS64(v), fd;
		struct t_image im;
		struct elf ef;
		char buf[32];

		build_basic(&im, v);
		patch(&im, EH_SHNUM(is64), 2, 0);                       /* e_shnum 0: count in sh[0].sh_size */
		patch(&im, im.shoff + SH_SIZE(is64), T_WORD(is64), 5);
		patch(&im, EH_SHSTRNDX(is64), 2, SHN_XINDEX_);          /* index in sh[0].sh_link */
		patch(&im, im.shoff + SH_LINK(is64), 4, 4);
		patch(&im, EH_PHNUM(is64), 2, PN_XNUM_);                /* e_phnum PN_XNUM: count in sh[0].sh_info */
		patch(&im, im.shoff + SH_INFO(is64), 4, 2);
		open_ok(&ef, &im, &fd, vn);
		cr_assert_eq(ef.shnum, 5, "%s", vn);
		cr_assert_eq(ef.shstrndx, 4, "%s", vn);
		cr_assert_eq(ef.phnum, 2, "%s", vn);
		cr_assert_eq(ef.sh[3].offset, im.off[3], "%s", vn);
		cr_assert_eq(ef.ph[1].offset, im.off[1], "%s", vn);
		elf_section_name(&ef, 2, buf, sizeof buf);
		T_STR_EQ(buf, ".text", "%s", vn);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(elf, extended_numbering_claiming_2_to_the_32_sections_is_refused)
{
	struct t_image im;
	char msg[160];

	build_basic(&im, 2);
	patch(&im, EH_SHNUM(1), 2, 0);
	patch(&im, im.shoff + SH_SIZE(1), 8, 0x100000000ull);
	snprintf(msg, sizeof msg, "section header table (4294967296 entries at offset 0x%llx) runs past the end of the file",
		 (unsigned long long)im.shoff);
	open_fails(&im, msg, "ELF64 LE");
	/* so large that entries * 64 overflows 64 bits */
	patch(&im, im.shoff + SH_SIZE(1), 8, 1ull << 60);
	snprintf(msg, sizeof msg, "section header table (1152921504606846976 entries at offset 0x%llx) runs past the end of the file",
		 (unsigned long long)im.shoff);
	open_fails(&im, msg, "ELF64 LE");
	t_image_free(&im);

	build_basic(&im, 1);
	patch(&im, EH_SHNUM(0), 2, 0);
	patch(&im, im.shoff + SH_SIZE(0), 4, 0xffffffff);
	snprintf(msg, sizeof msg, "section header table (4294967295 entries at offset 0x%llx) runs past the end of the file",
		 (unsigned long long)im.shoff);
	open_fails(&im, msg, "ELF32 BE");
	t_image_free(&im);
}

Test(elf, extended_numbering_with_no_count_is_refused)
{
	struct t_image im;

	build_basic(&im, 0);
	patch(&im, EH_SHNUM(0), 2, 0);      /* and sh[0].sh_size stays 0 */
	open_fails(&im, "e_shoff is set but the file has no section headers", "ELF32 LE");
	t_image_free(&im);
}

Test(elf, extended_e_shstrndx_out_of_range_is_refused)
{
	struct t_image im;

	build_basic(&im, 3);
	patch(&im, EH_SHSTRNDX(1), 2, SHN_XINDEX_);
	patch(&im, im.shoff + SH_LINK(1), 4, 77);
	open_fails(&im, "e_shstrndx 77 is out of range (5 sections)", "ELF64 BE");
	t_image_free(&im);
}

/* e_phnum PN_XNUM with sh[0].sh_info 0xffffffff: 0xffffffff * e_phentsize bytes claimed. */
Test(elf, a_phnum_times_phentsize_far_past_the_file_is_refused_without_reading)
{
	for (int v = 0; v < 4; v++) {
		int is64 = T_VARIANT_IS64(v);
		struct t_image im;
		char msg[160];

		build_basic(&im, v);
		patch(&im, EH_PHNUM(is64), 2, PN_XNUM_);
		patch(&im, im.shoff + SH_INFO(is64), 4, 0xffffffff);
		snprintf(msg, sizeof msg, "program header table (4294967295 entries at offset 0x%llx) runs past the end of the file",
			 (unsigned long long)im.phoff);
		open_fails(&im, msg, t_variant(v));
		t_image_free(&im);
	}
}

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
		/* replace the PT_NOTE and section [3] by the samples, made harmless for the bounds checks */
		ph.type = PT_NULL_;
		sh.type = SHT_NOBITS_;
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

/* ---------------------------------------------------------------- reading bytes */

Test(elf, read_is_bounds_checked_against_the_file_size)
{
	struct t_image im;
	struct elf ef;
	struct err e = { 0 };
	unsigned char buf[sizeof NOTE_BYTES];
	char msg[160];
	int fd;

	build_basic(&im, 2);
	open_ok(&ef, &im, &fd, "ELF64 LE");
	cr_assert_eq(elf_read(&ef, im.off[1], sizeof NOTE_BYTES, buf, &e), 0, "%s", e.msg);
	cr_assert_eq(memcmp(buf, NOTE_BYTES, sizeof NOTE_BYTES), 0);
	cr_assert_eq(elf_read(&ef, im.len - 8, 8, buf, &e), 0, "the last bytes of the file");
	cr_assert_eq(elf_read(&ef, im.len - 4, 8, buf, &e), -1);
	snprintf(msg, sizeof msg, "truncated file: 8 bytes at offset 0x%zx run past its end (%zu bytes)", im.len - 4, im.len);
	cr_assert_str_eq(e.msg, msg);
	cr_assert_eq(elf_read(&ef, UINT64_MAX, 2, buf, &e), -1, "offset + length overflows");
	cr_assert(strstr(e.msg, "run past its end"), "%s", e.msg);
	t_elf_close(&ef, fd);
	t_image_free(&im);
}

/* An object whose first bytes are in memory (a large archive member whose start is in the
 * read buffer): reads and zero checks inside them come from memory, the rest from the file.
 * The file here holds a different byte in the head's range, so that the source shows. */
Test(elf, a_head_in_memory_answers_the_reads_inside_it)
{
	struct t_image im;
	struct elf ef;
	struct err e = { 0 };
	unsigned char buf[sizeof NOTE_BYTES], *head, *file;
	int fd;

	build_basic(&im, 2);
	head = malloc(im.len);
	file = malloc(im.len);
	cr_assert(head && file);
	memcpy(head, im.p, im.len);
	memcpy(file, im.p, im.len);
	file[im.off[1]] ^= 0xff;                       /* the note's first byte, in the file only */
	memset(file + im.off[2], 0, 4);                /* .text's first four bytes: zero in the file only */
	fd = t_tmpfile(file, im.len);
	/* The head covers the note and .text: both read from memory. */
	cr_assert_eq(elf_open_at_head(&ef, fd, "test.elf", 0, im.len, head, im.off[2] + 8, &e), 0, "%s", e.msg);
	cr_assert_eq(ef.shnum, 5);
	cr_assert_eq(elf_read(&ef, im.off[1], sizeof NOTE_BYTES, buf, &e), 0, "%s", e.msg);
	cr_assert_eq(memcmp(buf, NOTE_BYTES, sizeof NOTE_BYTES), 0, "read from the head");
	cr_assert_not(elf_range_is_zero(&ef, im.off[2], 4), "checked in the head, where .text is not zero");
	elf_close(&ef);
	/* Without the head the file's bytes show. */
	cr_assert_eq(elf_open_at(&ef, fd, "test.elf", 0, im.len, &e), 0, "%s", e.msg);
	cr_assert_eq(elf_read(&ef, im.off[1], sizeof NOTE_BYTES, buf, &e), 0, "%s", e.msg);
	cr_assert_eq(buf[0], NOTE_BYTES[0] ^ 0xff);
	cr_assert(elf_range_is_zero(&ef, im.off[2], 4));
	elf_close(&ef);
	/* A head longer than the object is cut to it; an object entirely in the head opens with no
	 * file at all. */
	cr_assert_eq(elf_open_at_head(&ef, -1, "test.elf", 0, im.len, head, im.len + 100, &e), 0, "%s", e.msg);
	cr_assert_eq(ef.head_len, im.len);
	cr_assert_eq(elf_read(&ef, im.len - 4, 8, buf, &e), -1, "past the object's end");
	elf_close(&ef);
	close(fd);
	free(head), free(file);
	t_image_free(&im);
}

Test(elf, max_page_follows_the_abi_of_the_machine)
{
	/* shared/REFERENCE.md §4: 64 KiB on aarch64, ppc64, mips, loongarch; 8 KiB sparc; 4 KiB x86 */
	static const struct { uint16_t machine; uint64_t page; } cases[] = {
		{ 183, 0x10000 }, { 21, 0x10000 }, { 8, 0x10000 }, { 258, 0x10000 },
		{ 2, 0x2000 }, { 43, 0x2000 },
		{ 62, 0x1000 }, { 3, 0x1000 },
	};
	struct elf ef = { 0 };
	size_t i;

	for (i = 0; i < sizeof cases / sizeof *cases; i++) {
		ef.machine = cases[i].machine;
		cr_assert_eq(elf_max_page(&ef), cases[i].page, "e_machine %u", cases[i].machine);
	}
}
