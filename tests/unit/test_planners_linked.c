/* SPDX-License-Identifier: MIT */
/* test_planners_linked.c - the planner of linked files (src/edit/layout*.c) on synthetic inputs:
 * for each placement of docs/layout.md, the strategy chosen and the file its patches give, read
 * back and checked against what the input's layout and the encoded note say it must be.  Two
 * variants each: ELF64 little-endian (x86-64) and ELF32 big-endian (PowerPC, 64 KiB pages). */
#include "planners.h"

/* ---- inputs ---- */

static uint16_t machine(int v)
{
	return T_VARIANT_IS64(v) ? 62 : 20; /* EM_X86_64, EM_PPC */
}

/* Program header i covers the file from section `from` (0: from the file's start, ELF header
 * and program headers included, as a linker's first PT_LOAD does) to the end of section `last`. */
static void cover(struct t_image *im, size_t i, size_t from, size_t last)
{
	struct elf_phdr *ph = &im->ph[i];

	ph->offset = from ? im->off[from] : 0;
	ph->vaddr = ph->paddr = ph->offset;
	ph->filesz = ph->memsz = im->off[last] + im->size[last] - ph->offset;
	t_write_phdr(im->p + im->phoff + i * (size_t)T_PHENT(im->is64), im->is64, im->big, ph);
}

/* The last n entries of the table dropped, their bytes left zero: slots an earlier --remove
 * freed. */
static void free_slots(struct t_image *im, size_t n)
{
	size_t es = (size_t)T_PHENT(im->is64);

	im->phnum -= n;
	memset(im->p + im->phoff + im->phnum * es, 0, n * es);
	t_put(im->p + EH_PHNUM(im->is64), 2, im->phnum, im->big);
}

/* The section header table right after the section names at the class's word alignment, where
 * linkers put it (t_build aligns it to 8 in both classes). */
static void pack_shdrs(struct t_image *im)
{
	uint64_t at = align_up(im->off[im->shstrndx] + im->size[im->shstrndx], T_WORD(im->is64));
	size_t n = im->shnum * (size_t)T_SHENT(im->is64);

	memmove(im->p + at, im->p + im->shoff, n);
	im->shoff = at;
	im->len = (size_t)at + n;
	t_put(im->p + EH_SHOFF(im->is64), T_WORD(im->is64), at, im->big);
}

/* A note owned by "GNU" with a descriptor of `descsz` bytes (a multiple of 4); its size. */
static size_t gnu_note(unsigned char *p, int big, uint32_t type, uint32_t descsz)
{
	t_put(p, 4, 4, big);
	t_put(p + 4, 4, descsz, big);
	t_put(p + 8, 4, type, big);
	memcpy(p + 12, "GNU", 4);
	for (uint32_t i = 0; i < descsz; i++)
		p[16 + i] = (unsigned char)(i + 1);
	return 16 + descsz;
}

/* A shared object: [1] .note.dlopen holding `note` (none when NULL), [2] .text, [3] .data; one
 * R+X PT_LOAD over the whole file and a PT_NOTE over [1]. */
static void build_dyn(struct t_image *im, int v, const struct buf *note)
{
	const struct t_sec secs[] = {
		{".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, note ? note->p : NULL,
		 note ? note->len : 0},
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES},
	};
	const struct t_seg segs[] = {{PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000}, {PT_NOTE_, PF_R_, 1, 4}};

	t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_DYN_, machine(v),
		note ? secs : secs + 1, note ? 3 : 2, segs, note ? 2 : 1);
}

/* Code first, so that nothing after the table may move and it cannot grow where it is: [1]
 * .text, then .note.dlopen holding `note` when given but no PT_NOTE for it (the table needs a
 * slot for one), then .data; one R+X PT_LOAD over them.  `slots`: that many free slots follow
 * the table. */
static void build_code_first(struct t_image *im, int v, const struct buf *note, size_t slots)
{
	const struct t_sec secs[] = {
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES},
		{".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, note ? note->p : NULL,
		 note ? note->len : 0},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES},
	};
	const struct t_sec code_data[] = {secs[0], secs[2]};
	const struct t_seg segs[] = {{PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000},
				     {PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000},
				     {PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000}};

	cr_assert_leq(slots, 2);
	t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_DYN_, machine(v),
		note ? secs : code_data, note ? 3 : 2, segs, 1 + slots);
	cover(im, 0, 0, note ? 3 : 2);
	free_slots(im, slots);
	pack_shdrs(im);
}

/* As linkers lay out a PIE: [1] .interp (PT_INTERP), [2] a property note, [3] a build-id,
 * [4] an ABI tag (a PT_NOTE each), then .text on a later line and .data; one R+X PT_LOAD over
 * them.  The table grows over those sections, which only headers point to: they are carried
 * into our segment (more bytes of them than the table grows by, as in linkers' output). */
static void build_notes_first(struct t_image *im, int v)
{
	static const char interp[] = "/lib/ld-test.so.1";
	unsigned char prop[48], id[36], abi[32];
	int big = T_VARIANT_BIG(v);
	const struct t_sec secs[] = {
		{".interp", 1, SHF_ALLOC_, 1, interp, sizeof interp},
		{".note.gnu.property", SHT_NOTE_, SHF_ALLOC_, 4, prop, gnu_note(prop, big, 5, 32)},
		{".note.gnu.build-id", SHT_NOTE_, SHF_ALLOC_, 4, id, gnu_note(id, big, 3, 20)},
		{".note.ABI-tag", SHT_NOTE_, SHF_ALLOC_, 4, abi, gnu_note(abi, big, 1, 16)},
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 0x200, TEXT_BYTES, sizeof TEXT_BYTES},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES},
	};
	const struct t_seg segs[] = {{PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000},
				     {PT_INTERP_, PF_R_, 1, 1},
				     {PT_NOTE_, PF_R_, 2, 4},
				     {PT_NOTE_, PF_R_, 3, 4},
				     {PT_NOTE_, PF_R_, 4, 4}};

	t_build(im, T_VARIANT_IS64(v), big, ET_DYN_, machine(v), secs, 6, segs, 5);
	cover(im, 0, 0, 6);
	pack_shdrs(im);
}

/* Only an ABI tag (32 bytes, a PT_NOTE) between the table and .text, which starts on a later
 * line: the table grows by more bytes than the carried block holds. */
static void build_lone_note(struct t_image *im, int v)
{
	unsigned char abi[32];
	int big = T_VARIANT_BIG(v);
	const struct t_sec secs[] = {
		{".note.ABI-tag", SHT_NOTE_, SHF_ALLOC_, 4, abi, gnu_note(abi, big, 1, 16)},
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 0x200, TEXT_BYTES, sizeof TEXT_BYTES},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES},
	};
	const struct t_seg segs[] = {{PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000}, {PT_NOTE_, PF_R_, 1, 4}};

	t_build(im, T_VARIANT_IS64(v), big, ET_DYN_, machine(v), secs, 3, segs, 2);
	cover(im, 0, 0, 3);
	pack_shdrs(im);
}

/* A program with code and data apart from the read-only part, all aligned to 64 KiB: [1]
 * .rodata in a read-only PT_LOAD from the file's start, [2] .text in an R+X one, [3] .data in
 * an RW one.  `padded`: .text and .data start a page further, zeros filling the read-only
 * PT_LOAD's last page (bfd's layout); else each follows the previous (packed, as lld or mips
 * binutils write).  Nothing can move after the table; `slots` free slots follow it. */
static void build_split(struct t_image *im, int v, int padded, size_t slots)
{
	uint64_t a = padded ? 0x10000 : 16;
	const struct t_sec secs[] = {
		{".rodata", 1, SHF_ALLOC_, 8, DATA_BYTES, sizeof DATA_BYTES},
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, a, TEXT_BYTES, sizeof TEXT_BYTES},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, a, DATA_BYTES, sizeof DATA_BYTES},
	};
	const struct t_seg segs[] = {{PT_LOAD_, PF_R_, 1, 0x10000},
				     {PT_LOAD_, PF_R_ | PF_X_, 2, 0x10000},
				     {PT_LOAD_, PF_R_ | PF_W_, 3, 0x10000},
				     {PT_LOAD_, PF_R_, 3, 0x10000},
				     {PT_LOAD_, PF_R_, 3, 0x10000}};

	cr_assert_leq(slots, 2);
	t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_EXEC_, machine(v), secs, 3, segs,
		3 + slots);
	cover(im, 0, 0, 1);
	free_slots(im, slots);
	pack_shdrs(im);
}

/* ---- the placements ---- */

/* The file already holds exactly this note: nothing to write. */
Test(planners, linked_unchanged)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf note = {0};
		struct planned p;

		encode(ONE, variants[k], &note);
		build_dyn(&im, variants[k], &note);
		plan(&p, &im, ONE);
		cr_assert_str_eq(p.pl.strategy, "unchanged");
		cr_assert(p.pl.unchanged);
		cr_assert_eq(p.pl.n, 0);
		cr_assert_eq(p.pl.out_size, im.len);
		done(&p);
		buf_free(&note);
		free(im.p);
	}
}

/* A smaller note where the old one was, in its read-only segment: the note's bytes at the
 * section's offset, the rest of the old note zeroed, the table where it was with as many
 * entries (its PT_NOTE rewritten), no new segment, the size unchanged. */
Test(planners, linked_in_place)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p;
		struct result r;
		const struct elf_phdr *seg;
		const struct patch *q;

		encode(BIG, variants[k], &old);
		build_dyn(&im, variants[k], &old);
		run(&p, im.p, im.len, ONE, "in place", &r);
		q = data_patch(&p.pl, p.note.p, p.note.len);
		cr_assert(q, "no patch writes the note");
		cr_assert_eq(q->off, im.off[1]);
		cr_assert(zeroes(&p.pl, im.off[1] + p.note.len, old.len - p.note.len));
		cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 0, "a new PT_LOAD");
		cr_assert_eq(r.ef.phoff, im.phoff);
		cr_assert_eq(r.ef.phnum, im.phnum);
		cr_assert_eq(note_phdr(&r, &p.note)->offset, im.off[1]);
		for (uint64_t i = im.off[1] + p.note.len; i < im.off[1] + old.len; i++)
			cr_assert_eq(r.p[i], 0, "byte 0x%llx of the old note left",
				     (unsigned long long)i);
		cr_assert_eq(r.len, im.len);
		result_free(&r);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* No note and nothing after the table that may move (code follows it): the table moves into a
 * new read-only PT_LOAD after the end of the file, twice (copy A, live B), with the note; the
 * table has a PT_LOAD and a PT_NOTE more than the input's. */
Test(planners, linked_pht_moved)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p;
		struct result r;
		const struct elf_phdr *seg;

		build_dyn(&im, variants[k], NULL);
		run(&p, im.p, im.len, BIG, "PHT moved", &r);
		cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 1);
		cr_assert_eq(r.ef.phnum, im.phnum + 2);
		check_table_in_segment(&p, &p.ef, &r, seg, 1);
		check_after_end(&p.ef, seg, 1);
		result_free(&r);
		done(&p);
		free(im.p);
	}
}

/* The table grows where it is, after the ELF header (e_phoff unchanged, two entries more), over
 * the sections that only headers point to.  Those it reaches, and any starting before the end
 * of the last of them, move into our segment as one block (same bytes, same relative layout,
 * their PT_INTERP or PT_NOTE following), first in it, the note after it; the others stay.
 * With the old note right after the table, as the macro's, nothing else moves. */
Test(planners, linked_pht_grown_sections_carried)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p;
		struct result r;
		const struct elf_phdr *seg, *nph;
		uint64_t grown, block, first = 0;
		size_t ncarried = 0;

		encode(ONE, variants[k], &old);
		build_dyn(&im, variants[k], &old);
		run(&p, im.p, im.len, BIG, "PHT grown, sections carried", &r);
		cr_assert(strstr(p.pl.log.p, "program headers: grow where they are; the "));
		cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 1);
		cr_assert_eq(r.ef.phoff, im.phoff);
		cr_assert_eq(r.ef.phnum, im.phnum + 1); /* the old note's PT_NOTE is replaced */
		result_free(&r);
		done(&p);
		buf_free(&old);
		free(im.p);

		/* [1] .interp, [2..4] notes, each under the program header im.ph[i] */
		build_notes_first(&im, variants[k]);
		run(&p, im.p, im.len, BIG, "PHT grown, sections carried", &r);
		cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 1);
		cr_assert_eq(r.ef.phoff, im.phoff);
		cr_assert_eq(r.ef.phnum, im.phnum + 2);
		grown = block = im.phoff + (im.phnum + 2) * (uint64_t)T_PHENT(im.is64);
		for (size_t i = 1; i <= 4; i++) {
			char name[32];
			size_t s;
			const struct elf_shdr *sh;
			struct elf_phdr moved = im.ph[i];
			elf_section_name(&p.ef, i, name, sizeof name);
			s = section_named(&r.ef, name);
			sh = &r.ef.sh[s];
			cr_assert(s && sh->size == im.size[i]);
			cr_assert(memcmp(r.p + sh->offset, im.p + im.off[i], im.size[i]) == 0);
			if (im.off[i] >= block) { /* out of the table's way: stays */
				cr_assert(sh->offset == im.off[i] && sh->addr == im.sh[i].addr,
					  "%s moved", name);
				cr_assert(has_phdr(&r.ef, &im.ph[i]), "the header of %s changed",
					  name);
				continue;
			}
			block = im.off[i] + im.size[i] > block ? im.off[i] + im.size[i] : block;
			cr_assert(sh->offset >= seg->offset &&
					  sh->offset + sh->size <= seg->offset + seg->filesz &&
					  sh->addr - seg->vaddr == sh->offset - seg->offset,
				  "%s is not in our segment", name);
			if (ncarried++ == 0)
				first = sh->offset;
			cr_assert_eq(sh->offset - first, im.off[i] - im.off[1], "%s moved apart",
				     name);
			moved.offset = sh->offset;
			moved.vaddr = moved.paddr = sh->addr;
			cr_assert(has_phdr(&r.ef, &moved), "the header of %s did not follow it",
				  name);
		}
		cr_assert(ncarried && block > grown,
			  "the premise: more is carried than the table grows");
		cr_assert_eq(first, seg->offset, "the carried block does not come first");
		nph = note_phdr(&r, &p.note);
		cr_assert_eq(nph->offset, align_up(first + (block - im.off[1]), 4),
			     "the note does not follow the block");
		cr_assert_eq(seg->offset + seg->filesz, nph->offset + nph->filesz);
		check_after_end(&p.ef, seg, 0); /* only the table may follow an R+X segment */
		result_free(&r);
		done(&p);
		free(im.p);
	}
}

/* Free slots after the table (zeros no section uses, as --remove leaves them): the table is
 * rewritten where it is with our PT_LOAD and PT_NOTE in them, and the new PT_LOAD holds only
 * the note, after the end of the file (the only neighbour is R+X, which takes only a table). */
Test(planners, linked_new_load_in_free_slot)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p;
		struct result r;
		const struct elf_phdr *seg, *nph;
		const struct patch *q;

		build_code_first(&im, variants[k], NULL, 2);
		run(&p, im.p, im.len, BIG, "new PT_LOAD with the PHT in a free slot", &r);
		q = data_patch(&p.pl, r.p + im.phoff, (im.phnum + 2) * (size_t)T_PHENT(im.is64));
		cr_assert(q && q->off == im.phoff, "the table is not rewritten where it was");
		cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 1);
		cr_assert_eq(r.ef.phoff, im.phoff);
		cr_assert_eq(r.ef.phnum, im.phnum + 2);
		cr_assert_eq(section_named(&r.ef, PHDR_SECTION_NAME), 0);
		nph = note_phdr(&r, &p.note);
		cr_assert(nph->offset == seg->offset && nph->filesz == seg->filesz,
			  "our segment holds more than the note");
		check_after_end(&p.ef, seg, 0);
		result_free(&r);
		done(&p);
		free(im.p);
	}
}

/* Where our segment goes (docs/layout.md), decided by the input's layout: the same program
 * with zeros after its read-only PT_LOAD up to the next page gets the segment there; packed,
 * with less room there than the segment needs, after the end of the file.  Both for a segment
 * holding the table (no free slot) and for one holding only the note (free slots). */
Test(planners, linked_segment_in_page_padding_or_after_the_end)
{
	for (int k = 0; k < 2; k++)
		for (int padded = 0; padded < 2; padded++)
			for (size_t slots = 0; slots <= 2; slots += 2) {
				struct t_image im;
				struct planned p;
				struct result r;
				const struct elf_phdr *seg, *P, *next;

				build_split(&im, variants[k], padded, slots);
				run(&p, im.p, im.len, BIG,
				    slots ? "new PT_LOAD with the PHT in a free slot" : "PHT moved",
				    &r);
				cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 1);
				cr_assert_eq(r.ef.phnum, im.phnum + 2);
				P = &p.ef.ph[0], next = &p.ef.ph[1];
				if (padded) {
					cr_assert(strstr(p.pl.log.p, "in the page padding after a "
								     "read-only segment"));
					check_in_padding(&p.ef, seg);
				} else {
					/* the premise: the gap is too small for the segment */
					cr_assert_lt(next->offset - (P->offset + P->filesz),
						     seg->filesz);
					cr_assert(strstr(p.pl.log.p, "after the end of the file"));
					check_after_end(&p.ef, seg, !slots);
				}
				if (slots)
					cr_assert_eq(r.ef.phoff, im.phoff);
				else
					check_table_in_segment(&p, &p.ef, &r, seg, 1);
				result_free(&r);
				done(&p);
				free(im.p);
			}
}

/* A second run with a bigger note on each kind of segment of ours (the carried block and the
 * note; the table and the note; the note alone): the segment is rebuilt in place ("own segment
 * grown"): same offset, address and permissions, larger; no other program header and no other
 * allocated section moves (the carried ones included), the table stays where the first run
 * put it, and the input's PT_LOADs are still unchanged. */
Test(planners, linked_own_segment_grown)
{
	for (int k = 0; k < 2; k++)
		for (int kind = 0; kind < 3; kind++) {
			static const char *first[] = {"PHT grown, sections carried", "PHT moved",
						      "new PT_LOAD with the PHT in a free slot"};
			struct t_image im;
			struct planned p1, p2;
			struct result r1, r2;
			const struct elf_phdr *s1, *s2, *n1, *n2;

			if (kind == 0)
				build_notes_first(&im, variants[k]);
			else
				build_code_first(&im, variants[k], NULL, kind == 2 ? 2 : 0);
			run(&p1, im.p, im.len, BIG, first[kind], &r1);
			cr_assert_eq(check_linked(&p1, &p1.ef, &r1, &s1), 1);
			run(&p2, r1.p, r1.len, HUGE, "own segment grown", &r2);
			cr_assert_eq(check_linked(&p2, &p1.ef, &r2, &s2), 1);
			cr_assert(s2->offset == s1->offset && s2->vaddr == s1->vaddr &&
					  s2->flags == s1->flags && s2->align == s1->align,
				  "our segment moved");
			cr_assert_gt(s2->filesz, s1->filesz);
			cr_assert_eq(r2.ef.phoff, r1.ef.phoff);
			cr_assert_eq(r2.ef.phnum, r1.ef.phnum);
			n1 = note_phdr(&r1, &p1.note), n2 = note_phdr(&r2, &p2.note);
			for (size_t i = 0; i < r1.ef.phnum; i++)
				if (&r1.ef.ph[i] != s1 && &r1.ef.ph[i] != n1)
					cr_assert(has_phdr(&r2.ef, &r1.ef.ph[i]),
						  "program header %zu changed", i);
			cr_assert(n2->offset >= s2->offset &&
				  n2->offset + n2->filesz == s2->offset + s2->filesz);
			for (size_t i = 1; i < r1.ef.shnum; i++) {
				char name[32];
				size_t s;
				elf_section_name(&r1.ef, i, name, sizeof name);
				if (!(r1.ef.sh[i].flags & SHF_ALLOC_) ||
				    !strcmp(name, SECTION_NAME))
					continue;
				s = section_named(&r2.ef, name);
				cr_assert(s && r2.ef.sh[s].addr == r1.ef.sh[i].addr &&
						  r2.ef.sh[s].offset == r1.ef.sh[i].offset,
					  "section %s moved", name);
			}
			if (kind == 1)
				check_table_in_segment(&p2, &p1.ef, &r2, s2, 1);
			result_free(&r2);
			done(&p2);
			result_free(&r1);
			done(&p1);
			free(im.p);
		}
}

/* A dlopen section with no PT_NOTE, code right after the table: the smaller note TWO goes where
 * the old one was, but its new PT_NOTE needs a slot the table does not have and cannot grow
 * into: the table moves into a new PT_LOAD after the end of the file, holding nothing else. */
static void in_place_pht_moved(struct t_image *im, struct buf *old, int v, struct planned *p,
			       struct result *r)
{
	const size_t s = 2; /* .note.dlopen, after .text */
	const struct elf_phdr *seg;

	encode(BIG, v, old);
	build_code_first(im, v, old, 0);
	run(p, im->p, im->len, TWO, "in place, PHT moved", r);
	cr_assert_eq(check_linked(p, &p->ef, r, &seg), 1);
	cr_assert_eq(note_phdr(r, &p->note)->offset, im->off[s], "the note is not in place");
	for (uint64_t i = im->off[s] + p->note.len; i < im->off[s] + old->len; i++)
		cr_assert_eq(r->p[i], 0, "byte 0x%llx of the old note left", (unsigned long long)i);
	cr_assert_eq(r->ef.phnum, im->phnum + 2);
	check_table_in_segment(p, &p->ef, r, seg, 0);
	check_after_end(&p->ef, seg, 1);
}

Test(planners, linked_in_place_pht_moved)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p;
		struct result r;

		in_place_pht_moved(&im, &old, variants[k], &p, &r);
		result_free(&r);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* The same file again with the smaller note ONE: in place again, and the segment of ours that
 * holds the table is rebuilt where it was (same offset and address, same table at the same
 * e_phoff), the rest of the previous note zeroed. */
Test(planners, linked_in_place_own_segment_rebuilt)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p1, p2;
		struct result r1, r2;
		const struct elf_phdr *s1, *s2, *n1;

		in_place_pht_moved(&im, &old, variants[k], &p1, &r1);
		check_linked(&p1, &p1.ef, &r1, &s1);
		n1 = note_phdr(&r1, &p1.note);
		run(&p2, r1.p, r1.len, ONE, "in place, own segment rebuilt", &r2);
		cr_assert_eq(check_linked(&p2, &p1.ef, &r2, &s2), 1);
		cr_assert(s2->offset == s1->offset && s2->vaddr == s1->vaddr &&
				  s2->filesz == s1->filesz,
			  "our segment moved");
		cr_assert_eq(r2.ef.phoff, r1.ef.phoff);
		cr_assert_eq(r2.ef.phnum, r1.ef.phnum);
		check_table_in_segment(&p2, &p1.ef, &r2, s2, 0);
		cr_assert_eq(note_phdr(&r2, &p2.note)->offset, n1->offset, "the note moved");
		for (uint64_t i = n1->offset + p2.note.len; i < n1->offset + n1->filesz; i++)
			cr_assert_eq(r2.p[i], 0, "byte 0x%llx of the old note left",
				     (unsigned long long)i);
		result_free(&r2);
		done(&p2);
		result_free(&r1);
		done(&p1);
		buf_free(&old);
		free(im.p);
	}
}

/* No note at all, none asked: the dlopen section and its PT_NOTE go, the note's bytes become
 * zeros where code may point, every PT_LOAD stays. */
Test(planners, linked_removed)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p;
		struct result r;
		const struct elf_phdr *seg;

		encode(ONE, variants[k], &old);
		build_dyn(&im, variants[k], &old);
		run(&p, im.p, im.len, "[]", "removed", &r);
		cr_assert(zeroes(&p.pl, im.off[1], old.len), "the old note is not zeroed");
		cr_assert(strstr(p.pl.log.p, "section [1] .note.dlopen: removed"), "%s",
			  p.pl.log.p);
		cr_assert_eq(check_linked(&p, &p.ef, &r, &seg), 0);
		cr_assert_eq(r.ef.phoff, im.phoff);
		cr_assert_eq(r.ef.phnum, im.phnum - 1);
		cr_assert_eq(r.ef.shnum, im.shnum - 1);
		for (uint64_t i = im.off[1]; i < im.off[1] + old.len; i++)
			cr_assert_eq(r.p[i], 0, "byte 0x%llx of the old note left",
				     (unsigned long long)i);
		result_free(&r);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* docs/layout.md, "Remove": for a file without a dlopen note, adding entries, growing them and
 * removing them gives back the input byte for byte, whatever placement the add used: the
 * table moved after the end of the file or into the page padding, a free slot, carried
 * sections (more bytes of them than the table grows by, or fewer: the old table's tail after
 * the block goes back to zeros).  Checked from the first add and from the grown note. */
Test(planners, linked_remove_after_add_gives_the_input_back)
{
	for (int k = 0; k < 2; k++)
		for (int kind = 0; kind < 6; kind++) {
			struct t_image im;
			struct planned p1, p2, p3;
			struct result r1, r2, r3;

			switch (kind) {
			case 0: build_code_first(&im, variants[k], NULL, 0); break;
			case 1: build_code_first(&im, variants[k], NULL, 2); break;
			case 2: build_split(&im, variants[k], 1, 0); break;
			case 3: build_split(&im, variants[k], 0, 2); break;
			case 4: build_notes_first(&im, variants[k]); break;
			default: build_lone_note(&im, variants[k]); break;
			}
			plan(&p1, &im, BIG);
			apply(&p1, im.p, im.len, 1, &r1);
			run(&p2, r1.p, r1.len, HUGE, "own segment grown", &r2);
			for (int from = 0; from < 2; from++) {
				const struct result *in = from ? &r2 : &r1;
				run(&p3, in->p, in->len, "[]", "removed", &r3);
				t_assert_bytes(r3.p, r3.len, im.p, im.len,
					       from ? "removed after growing"
						    : "removed after adding");
				result_free(&r3);
				done(&p3);
			}
			result_free(&r2);
			done(&p2);
			result_free(&r1);
			done(&p1);
			free(im.p);
		}
}
