/* SPDX-License-Identifier: MIT */
/* test_planners_names.c - the section-name table where linkers never put it (found by make
 * fuzz): inside the allocated part, where it cannot move with the tail, and marked allocated.
 * An add appends our section's name, so the table moves: it must land after everything else,
 * with every name readable, and a second run must change nothing; an allocated table is
 * refused, the input untouched. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "planners.h"

/* [1] .text, [2] the section names (64 bytes, non-allocated), [3] .data, [4] .comment, [5] the
 * builder's own name table, left as an ordinary string section; one R+X PT_LOAD from the
 * file's start to the end of .data.  `alloc`: [2] is marked SHF_ALLOC. */
static void build_names_inside(struct t_image *im, int v, int alloc)
{
	static const unsigned char names_room[64];
	static const char comment[] = "GCC: (test) 12";
	const struct t_sec secs[] = {
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES},
		{".names", SHT_STRTAB_, alloc ? SHF_ALLOC_ : 0, 1, names_room, sizeof names_room},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES},
		{".comment", 1, 0, 1, comment, sizeof comment},
	};
	const struct t_seg segs[] = {{PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000}};
	int is64 = T_VARIANT_IS64(v), big = T_VARIANT_BIG(v);
	struct elf_phdr *ph = &im->ph[0];

	t_build(im, is64, big, ET_EXEC_, is64 ? 62 : 8, secs, 4, segs, 1);
	cr_assert_leq(im->size[5], sizeof names_room);
	memcpy(im->p + im->off[2], im->p + im->off[5], im->size[5]);
	t_put(im->p + (is64 ? 62 : 50), 2, 2, big); /* e_shstrndx */
	im->shstrndx = 2;
	ph->filesz = ph->memsz = im->off[3] + im->size[3];
	t_write_phdr(im->p + im->phoff, is64, big, ph);
}

Test(planners, names_inside_the_allocated_part_move_after_everything)
{
	static const char *const want[] = {".text", ".names", ".data", ".comment", ".shstrtab"};

	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p1, p2;
		struct result r1;
		char name[64];
		size_t sec;

		build_names_inside(&im, variants[k], 0);
		plan(&p1, &im, BIG);
		apply(&p1, im.p, im.len, 1, &r1);
		/* Every input section keeps its name, and ours is there. */
		for (size_t i = 0; i < 5; i++) {
			sec = section_named(&r1.ef, want[i]);
			cr_assert_neq(sec, 0, "%s: section %s lost its name", t_variant(variants[k]),
				      want[i]);
		}
		cr_assert_neq(section_named(&r1.ef, ".dlnote.phdrs"), 0);
		sec = r1.ef.shstrndx;
		elf_section_name(&r1.ef, sec, name, sizeof name);
		cr_assert_str_eq(name, ".names");
		/* The names moved after every byte of the input's allocated part and of ours. */
		for (size_t i = 0; i < r1.ef.phnum; i++)
			if (r1.ef.ph[i].type == PT_LOAD_)
				cr_assert_geq(r1.ef.sh[sec].offset,
					      r1.ef.ph[i].offset + r1.ef.ph[i].filesz,
					      "the names overlap a PT_LOAD");
		/* The same command on the result changes nothing. */
		plan_bytes(&p2, r1.p, r1.len, BIG, 0);
		cr_assert_str_eq(p2.pl.strategy, "unchanged");
		done(&p2);
		result_free(&r1);
		done(&p1);
		free(im.p);
	}
}

Test(planners, allocated_names_are_refused)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p;
		struct entries es = {0};
		struct err e = {0};

		build_names_inside(&im, variants[k], 1);
		memset(&p, 0, sizeof p);
		cr_assert_eq(t_elf_open(&p.ef, im.p, im.len, &p.fd, &e), 0, "%s", e.msg);
		cr_assert_eq(scan_file(&p.ef, &p.sc, &e), 0, "%s", e.msg);
		entries_of(BIG, &es);
		cr_assert_eq(note_encode(&es, p.ef.big, &p.note, &e), 0, "%s", e.msg);
		cr_assert_eq(edit_plan(&p.ef, &p.sc, &es, 0, &p.note, &p.pl, NULL, &e), -1);
		cr_assert_str_eq(e.msg, "the section-name table is marked allocated (SHF_ALLOC), "
					"which no linker writes: its names cannot be rewritten "
					"(damaged file)");
		manifest_free(&es);
		done(&p);
		free(im.p);
	}
}
