/* SPDX-License-Identifier: MIT */
/* test_code_id.c - the code identity of a linked file (elf.h): it covers code and data at their
 * addresses, and leaves out notes (the build-id), the dynamic linker's tables and what is not
 * allocated. */
#include "helpers.h"

#include "elf/elf.h"

static const unsigned char TEXT[8] = { 0x90, 0x90, 0x90, 0xc3, 0, 0, 0, 0 };
static const unsigned char DATA[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
static const unsigned char ID_A[24] = { 4, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 1, 2, 3, 4, 5, 6, 7, 8 };
static const unsigned char ID_B[24] = { 4, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 9, 9, 9, 9, 9, 9, 9, 9 };
static const unsigned char DYNSTR_A[8] = "\0libz.a";
static const unsigned char DYNSTR_B[8] = "\0libq.b";

/* A shared object: a build-id note, .dynstr, .text, .data, and a non-allocated .comment. */
static struct elf_code_id id_of(int v, const void *note, const void *dynstr, const void *text, const char *comment,
				uint16_t type)
{
	const struct t_sec secs[] = {
		{ ".note.gnu.build-id", SHT_NOTE_, SHF_ALLOC_, 4, note, 24 },
		{ ".dynstr", SHT_STRTAB_, SHF_ALLOC_, 1, dynstr, 8 },
		{ ".text", SHT_PROGBITS_, SHF_ALLOC_ | SHF_EXECINSTR_, 16, text, sizeof TEXT },
		{ ".data", SHT_PROGBITS_, SHF_ALLOC_ | SHF_WRITE_, 8, DATA, sizeof DATA },
		{ ".comment", SHT_PROGBITS_, 0, 1, comment, strlen(comment) },
	};
	const struct t_seg segs[] = { { PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000 }, { PT_NOTE_, PF_R_, 1, 4 } };
	struct t_image im;
	struct elf ef;
	struct elf_code_id id;
	struct err e;
	int fd;

	t_build(&im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), type, 62, secs, 5, segs, 2);
	cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), 0, "%s", e.msg);
	cr_assert_eq(elf_code_id_hash(&ef, &id, &e), 0, "%s", e.msg);
	t_elf_close(&ef, fd);
	t_image_free(&im);
	return id;
}

Test(code_id, covers_code_and_data_not_notes_dynamic_tables_or_comments)
{
	static const unsigned char other_text[8] = { 0x90, 0x90, 0x91, 0xc3, 0, 0, 0, 0 };

	for (int v = 0; v < 4; v++) {
		struct elf_code_id a = id_of(v, ID_A, DYNSTR_A, TEXT, "GCC 12", ET_DYN_);
		struct elf_code_id b = id_of(v, ID_B, DYNSTR_B, TEXT, "stripped comment", ET_DYN_);
		struct elf_code_id c = id_of(v, ID_A, DYNSTR_A, other_text, "GCC 12", ET_DYN_);
		struct elf_code_id o = id_of(v, ID_A, DYNSTR_A, TEXT, "GCC 12", 1 /* ET_REL */);

		cr_assert_eq(a.have, 1, "%s", t_variant(v));
		cr_expect_eq(a.sections, 2, "%s: .text and .data", t_variant(v));
		cr_expect_eq(a.bytes, sizeof TEXT + sizeof DATA, "%s", t_variant(v));
		cr_expect(memcmp(a.digest, b.digest, SHA256_BYTES) == 0,
			  "%s: another build-id, .dynstr or .comment changed the identity", t_variant(v));
		cr_expect(memcmp(a.digest, c.digest, SHA256_BYTES) != 0, "%s: a changed code byte kept the identity",
			  t_variant(v));
		cr_expect_eq(o.have, 0, "%s: an object has no code identity", t_variant(v));
	}
}
