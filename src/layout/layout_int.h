/* SPDX-License-Identifier: MIT */
/* layout_int.h - the state of one plan for a linked file (struct lay, `lay` in its files), shared
 * by the files of that planner: layout.c (the steps), layout_facts.c, layout_front.c,
 * layout_linked.c, layout_place.c, layout_remove.c, layout_sections.c and layout_tail.c.  Private
 * to edit/. */
#ifndef DLNOTE_LAYOUT_INT_H
#define DLNOTE_LAYOUT_INT_H

#include "layout.h"

enum where { NOTE_NONE, NOTE_INPLACE, NOTE_SEGMENT };

struct lay {
	const struct elf *ef;
	const struct scan *sc;
	struct plan *pl;
	struct err *e;
	const unsigned char *note;
	uint64_t notesz;

	/* sections: the new table, the dlopen sections (isd[i]) and the one receiving the note */
	struct elf_shdr *sh;
	size_t shnum;
	size_t shout; /* entries written: fewer when --remove drops trailing dlopen sections */
	unsigned char *isd;
	size_t target; /* 0: none */
	size_t phsec;  /* the section covering the PHT in our segment, 0: none */
	int new_section, move_shstr;
	struct buf newnames; /* appended to the section-name table */
	uint64_t shstr_cut;  /* bytes of our names dropped from its end (--remove) */
	unsigned char *drop; /* --remove: drop[i], section i goes (NULL: none) */
	uint32_t *newidx;    /* its kept sections' new indexes */
	size_t shstrndx_out;

	/* program headers: the new table */
	struct elf_phdr *ph;
	size_t phnum, ph_cap;
	unsigned char *isown; /* isown[i]: input PT_LOAD i is ours, to be rebuilt */
	int nown;
	int pht_in_seg; /* the PHT moves into our segment */
	long note_ph;   /* index of our PT_NOTE in the new table, -1: none */
	uint64_t phsz;  /* bytes of the new table */
	uint64_t pht_b; /* file offset of the live PHT copy (B) when it moved */
	int pht_home;   /* --remove: the PHT goes back after the ELF header */
	uint64_t home_off, home_vaddr;

	/* our segments: [0] holds the PHT (copies A and B) and/or the note, [1] the note when
	 * it did not fit beside the PHT */
	struct seg {
		uint64_t off, vaddr, size, align;
		uint32_t flags; /* PF_R, or PF_R|PF_X when it shares a page with code */
		long ph;        /* index in the new table */
		int pht, note;  /* what it holds */
		int carry;      /* the carried block, first */
		const char *placement;
	} seg[2];
	int nseg;

	/* The carried block: the sections that followed the PHT where the linker put it, moved
	 * into our segment so that the table grows in place (layout_front.c).  [off, end) and
	 * vaddr are where it is in the input, new_off and new_vaddr where it goes. */
	struct carry {
		int present;
		uint64_t off, end, vaddr, align;
		uint64_t new_off, new_vaddr;
		unsigned char *in; /* in[i]: section i lies in the block (ef->shnum bytes) */
		uint64_t *dyn;     /* .dynamic entries pointing into it: (file offset of the
				    * value, value) pairs */
		size_t ndyn, dyn_cap;
	} carry;

	/* The tail (layout_tail.c): the non-allocated sections after the allocated part, moved
	 * after our segment when it goes there. */
	int tail_moves;
	uint64_t tail_from;

	enum where where;
	uint64_t note_off, note_vaddr;
	uint64_t keep, shstr_off, shoff;
};

int lay_patch(struct lay *lay, uint64_t off, uint64_t len, const void *data, uint64_t src);
int lay_zero(struct lay *lay, uint64_t off, uint64_t len);
int lay_overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen);
int lay_in_own(const struct lay *lay, uint64_t off);
/* The first PT_LOAD that is not ours, or NULL. */
const struct elf_phdr *lay_first_load(const struct lay *lay);
/* qsort order of uint64_t[2] pairs by their first value (file ranges). */
int lay_pair_cmp(const void *x, const void *y);
int lay_place_in_place(struct lay *lay);

static inline uint64_t lay_phdr_bytes(const struct elf *ef, size_t n)
{
	return (uint64_t)n * elf_phent_size(ef);
}

static inline uint64_t lay_word(const struct elf *ef)
{
	return ef->is64 ? 8 : 4;
}

/* layout_remove.c: what --remove takes away besides the notes */
int lay_pht_home(struct lay *lay);
size_t lay_plan_drops(struct lay *lay);
int lay_renumber_symbols(struct lay *lay);
void lay_compact_sections(struct lay *lay);
/* The symbol tables' transform (a patch_xform_fn): st_shndx of each entry of es bytes (at byte
 * `at`, big-endian when big) below n goes through map; SHN_ABS_ marks a removed section. */
struct lay_symmap {
	uint32_t es, at, big, n;
	uint64_t delta; /* added to the value of symbols in sections flagged LAY_SYM_MOVED */
	uint32_t map[];
};
#define LAY_SYM_MOVED 0x80000000u
void lay_symbols_renumbered(const void *ctx, unsigned char *buf, uint64_t len);
uint64_t lay_names_hole(const struct lay *lay, uint64_t size);

/* layout_sections.c */
int lay_setup_sections(struct lay *lay);
void lay_finish_sections(struct lay *lay);
int lay_fix_symbols(struct lay *lay);
int lay_order_sections(struct lay *lay);

/* layout_linked.c */
int lay_find_own(struct lay *lay);
int lay_build_phdrs(struct lay *lay);
int lay_plan_linked(struct lay *lay);
int lay_emit_phdrs(struct lay *lay);

/* layout_front.c: room for the table where the linker put it */
int lay_carriable(const struct lay *lay, size_t i);
int lay_front_room(struct lay *lay, uint64_t at, uint64_t size);
int lay_carry_from_own(struct lay *lay);
int lay_carry_home(struct lay *lay);
void lay_carry_phdrs(struct lay *lay);
void lay_carry_sections(struct lay *lay);
int lay_zero_carried(struct lay *lay);
int lay_emit_carry(struct lay *lay);
uint64_t lay_carry_delta(const struct lay *lay);

/* layout_tail.c: the non-allocated sections after our segment */
uint64_t lay_tail_start(const struct lay *lay);
uint64_t lay_tail_layout(struct lay *lay, uint64_t pos);
int lay_tail_emit(struct lay *lay);

/* layout_place.c */
int lay_place_linked(struct lay *lay);

#endif
