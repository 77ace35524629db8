/* SPDX-License-Identifier: MIT */
/* test_elf.c - the ELF model (src/elf/elf.c): headers of every class and byte order, read from real
 * files; section names; extended numbering, and the counts it may claim refused; bounds-checked
 * reads, from the file or from a head in memory; the machine's page size.  Damaged
 * identification and tables are in test_elf_damaged.c, the encoders and decoders in
 * test_elf_codec.c.
 *
 * The images are written by helpers.h from the gABI's structure layouts, independently of
 * src/elf/elf.c (elf_fixtures.h builds them).  Every damaged header must be refused with a message
 * that says what is wrong. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "elf/elf.h"
#include "elf_fixtures.h"

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

/* dwz's multifile (dwz -m): DWARF and a build-id, nothing allocated, no program headers; a
 * file with code, symbols or segments is not one (issue 43, item 4: --expect tells it apart). */
Test(elf, a_dwz_multifile_is_told_apart_from_objects_and_programs)
{
	static const unsigned char id[36] = { 4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0 };
	const struct t_sec multi[] = {
		{ ".note.gnu.build-id", SHT_NOTE_, 0, 4, id, sizeof id },
		{ ".debug_str", SHT_PROGBITS_, 0, 1, "abc", 4 },
	};
	const struct t_sec code[] = {
		{ ".note.gnu.build-id", SHT_NOTE_, 0, 4, id, sizeof id },
		{ ".debug_str", SHT_PROGBITS_, 0, 1, "abc", 4 },
		{ ".text", SHT_PROGBITS_, SHF_ALLOC_ | SHF_EXECINSTR_, 4, "\xc3\0\0\0", 4 },
	};
	const struct t_seg load_all[] = { { PT_LOAD_, PF_R_, 0, 0x1000 } };
	struct {
		uint16_t type;
		const struct t_sec *secs;
		size_t nsec, nseg;
		int want;
	} cases[] = {
		{ ET_REL_, multi, 2, 0, 1 }, { ET_EXEC_, multi, 2, 0, 1 }, { ET_REL_, multi, 1, 0, 0 },
		{ ET_REL_, code, 3, 0, 0 },  { ET_EXEC_, multi, 2, 1, 0 },
	};

	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		struct t_image im;
		struct elf ef;
		struct err e;
		int fd;

		t_build(&im, 1, 0, cases[i].type, 62, cases[i].secs, cases[i].nsec, load_all,
			cases[i].nseg);
		cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), 0, "case %zu: %s", i, e.msg);
		cr_expect_eq(debugfile_dwz_multifile(&ef), cases[i].want, "case %zu", i);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}
