/* SPDX-License-Identifier: MIT */
/* test_planners.c - the planners on synthetic files (helpers.h builds them): for each placement
 * of docs/layout.md these inputs reach and for each object edit, the strategy chosen and the
 * patches that carry it out, asserted against what the input's layout and the encoded note say
 * they must be.  Two variants each: ELF64 little-endian and ELF32 big-endian. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "edit/edit.h"
#include "note/note.h"

static const unsigned char TEXT_BYTES[8] = { 0x90, 0x90, 0x90, 0xc3, 0, 0, 0, 0 };
static const unsigned char DATA_BYTES[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 };
static const int variants[2] = { 2, 1 };       /* ELF64 LE, ELF32 BE */

struct planned {
	struct elf ef;
	struct scan sc;
	struct plan pl;
	struct buf note;        /* the encoded note of the wanted entries */
	int fd;
};

static void entries_of(const char *json, struct entries *es)
{
	struct err e = { 0 };

	cr_assert_eq(manifest_parse(json, strlen(json), es, &e), 0, "%s", e.msg);
}

/* The note of `json` in the byte order of variant v. */
static void encode(const char *json, int v, struct buf *note)
{
	struct entries es = { 0 };
	struct err e = { 0 };

	entries_of(json, &es);
	cr_assert_eq(note_encode(&es, T_VARIANT_BIG(v), note, &e), 0, "%s", e.msg);
	manifest_free(&es);
}

/* Plan the edit of `im` to carry the entries of `json` (replace mode). */
static void plan(struct planned *p, const struct t_image *im, const char *json)
{
	struct entries es = { 0 };
	struct err e = { 0 };
	int r;

	memset(p, 0, sizeof *p);
	cr_assert_eq(t_elf_open(&p->ef, im->p, im->len, &p->fd, &e), 0, "%s", e.msg);
	cr_assert_eq(scan_file(&p->ef, &p->sc, &e), 0, "%s", e.msg);
	entries_of(json, &es);
	cr_assert_eq(note_encode(&es, p->ef.big, &p->note, &e), 0, "%s", e.msg);
	r = p->ef.type == ET_REL_ ? objplan(&p->ef, &p->sc, &es, 0, &p->pl, NULL, &e)
				   : layout_plan(&p->ef, &p->sc, &p->note, &p->pl, &e);
	cr_assert_eq(r, 0, "%s", e.msg);
	manifest_free(&es);
}

static void done(struct planned *p)
{
	plan_free(&p->pl);
	buf_free(&p->note);
	scan_free(&p->sc);
	t_elf_close(&p->ef, p->fd);
}

/* The patch writing exactly `len` bytes equal to `bytes`, or NULL. */
static const struct patch *data_patch(const struct plan *pl, const void *bytes, size_t len)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].data && !pl->p[i].xform && pl->p[i].len == len && memcmp(pl->p[i].data, bytes, len) == 0)
			return &pl->p[i];
	return NULL;
}

/* A patch whose data holds `bytes` somewhere (a new section gathered with others). */
static int data_contains(const struct plan *pl, const void *bytes, size_t len)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].data && !pl->p[i].xform && pl->p[i].len >= len && memmem(pl->p[i].data, pl->p[i].len, bytes, len))
			return 1;
	return 0;
}

static int zeroes(const struct plan *pl, uint64_t off, uint64_t len)
{
	for (size_t i = 0; i < pl->n; i++)
		if (!pl->p[i].data && pl->p[i].src == PATCH_ZERO && pl->p[i].off <= off && off + len <= pl->p[i].off + pl->p[i].len)
			return 1;
	return 0;
}

/* A shared object: [1] .note.dlopen holding `note` (none when NULL), [2] .text, [3] .data; one
 * read-only PT_LOAD over the whole file and a PT_NOTE over [1]. */
static void build_dyn(struct t_image *im, int v, const struct buf *note)
{
	const struct t_sec secs[] = {
		{ ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, note ? note->p : NULL, note ? note->len : 0 },
		{ ".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES },
		{ ".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES },
	};
	const struct t_seg segs[] = {
		{ PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000 },
		{ PT_NOTE_, PF_R_, 1, 4 },
	};

	if (note)
		t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_DYN_, T_VARIANT_IS64(v) ? 62 : 20, secs, 3, segs, 2);
	else
		t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_DYN_, T_VARIANT_IS64(v) ? 62 : 20, secs + 1, 2, segs, 1);
}

static const char ONE[] = "[{\"soname\":[\"libone.so.1\"],\"feature\":\"one\"}]";
static const char BIG[] = "[{\"soname\":[\"libone.so.1\"],\"feature\":\"one\"},"
			  "{\"soname\":[\"libtwo.so.2\",\"libtwo.so.1\"],\"feature\":\"two\",\"description\":\"the second\"}]";

/* The file already holds exactly this note: nothing to write. */
Test(planners, linked_unchanged)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf note = { 0 };
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
 * section's offset, the rest of the old note zeroed, the size unchanged. */
Test(planners, linked_in_place)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = { 0 };
		struct planned p;
		const struct patch *q;

		encode(BIG, variants[k], &old);
		build_dyn(&im, variants[k], &old);
		plan(&p, &im, ONE);
		cr_assert_str_eq(p.pl.strategy, "in place");
		q = data_patch(&p.pl, p.note.p, p.note.len);
		cr_assert(q, "no patch writes the note");
		cr_assert_eq(q->off, im.off[1]);
		cr_assert(zeroes(&p.pl, im.off[1] + p.note.len, old.len - p.note.len), "the old note's tail is not zeroed");
		cr_assert_eq(p.pl.out_size, im.len);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* A file without a note and no free program header slot: the table moves into a new read-only
 * PT_LOAD after the end of the file (the congruent placement), which also holds the note. */
Test(planners, linked_pht_moved)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p;
		const struct patch *q;
		size_t phts = 0;

		build_dyn(&im, variants[k], NULL);
		plan(&p, &im, BIG);
		cr_assert_str_eq(p.pl.strategy, "PHT moved");
		q = data_patch(&p.pl, p.note.p, p.note.len);
		cr_assert(q, "no patch writes the note");
		cr_assert_geq(q->off, im.len, "the note is not after the input");
		cr_assert_eq(q->off % 4, 0);
		/* The new table, with a PT_LOAD and a PT_NOTE more than the input's: twice (a copy
		 * where bfd puts its own, and the live one). */
		for (size_t i = 0; i < p.pl.n; i++)
			if (p.pl.p[i].data && p.pl.p[i].len == (im.phnum + 2) * (size_t)T_PHENT(im.is64))
				phts++;
		cr_assert_eq(phts, 2, "%zu program header tables written", phts);
		/* The ELF header, last. */
		cr_assert_eq(p.pl.p[p.pl.n - 1].off, 0);
		cr_assert_eq(p.pl.p[p.pl.n - 1].len, (uint64_t)T_EHSIZE(im.is64));
		cr_assert_gt(p.pl.out_size, im.len);
		done(&p);
		free(im.p);
	}
}

/* A note larger than the old one, which sits right after the program header table: the table
 * grows in place and the sections in its way (the old note) are carried into the new segment,
 * which holds the new note after the input. */
Test(planners, linked_pht_grown_sections_carried)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = { 0 };
		struct planned p;
		const struct patch *q;

		encode(ONE, variants[k], &old);
		build_dyn(&im, variants[k], &old);
		plan(&p, &im, BIG);
		cr_assert_str_eq(p.pl.strategy, "PHT grown, sections carried");
		q = data_patch(&p.pl, p.note.p, p.note.len);
		cr_assert(q, "no patch writes the note");
		cr_assert_geq(q->off, im.len, "the note is not after the input");
		cr_assert(strstr(p.pl.log.p, "program headers: grow where they are; the "), "%s", p.pl.log.p);
		cr_assert(strstr(p.pl.log.p, " of sections after them move into our segment"), "%s", p.pl.log.p);
		cr_assert_eq(p.pl.p[p.pl.n - 1].off, 0);
		cr_assert_gt(p.pl.out_size, im.len);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* No note at all, none asked: removing the dlopen section and its PT_NOTE. */
Test(planners, linked_removed)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = { 0 };
		struct planned p;

		encode(ONE, variants[k], &old);
		build_dyn(&im, variants[k], &old);
		plan(&p, &im, "[]");
		cr_assert_str_eq(p.pl.strategy, "removed");
		cr_assert(zeroes(&p.pl, im.off[1], old.len), "the old note is not zeroed");
		cr_assert(strstr(p.pl.log.p, "section [1] .note.dlopen: removed"), "%s", p.pl.log.p);
		cr_assert_eq(p.pl.p[p.pl.n - 1].off, 0);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* An object: [1] .text, [2] .data, and a .note.dlopen outside any group when `note`. */
static void build_rel(struct t_image *im, int v, const struct buf *note)
{
	const struct t_sec secs[] = {
		{ ".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES },
		{ ".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES },
		{ ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, note ? note->p : NULL, note ? note->len : 0 },
	};

	t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_REL_, T_VARIANT_IS64(v) ? 62 : 20, secs, note ? 3 : 2, NULL, 0);
}

/* Objects: one COMDAT group per entry added, each holding that entry's note; a .note.dlopen
 * that is not such a group is removed; [] removes it. */
Test(planners, object_edits)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = { 0 }, one = { 0 }, two = { 0 };
		struct planned p;

		encode(ONE, variants[k], &old);
		encode("[{\"soname\":[\"libtwo.so.2\",\"libtwo.so.1\"],\"feature\":\"two\",\"description\":\"the second\"}]",
		       variants[k], &two);
		build_rel(&im, variants[k], NULL);
		plan(&p, &im, BIG);
		cr_assert_str_eq(p.pl.strategy, "section groups added");
		encode(ONE, variants[k], &one);
		cr_assert(data_contains(&p.pl, one.p, one.len), "the first entry's note is not written");
		cr_assert(data_contains(&p.pl, two.p, two.len), "the second entry's note is not written");
		cr_assert_gt(p.pl.out_size, im.len);
		done(&p);
		free(im.p);

		build_rel(&im, variants[k], &old);
		plan(&p, &im, BIG);
		cr_assert_str_eq(p.pl.strategy, "section groups replaced");
		cr_assert(strstr(p.pl.log.p, "section [3] .note.dlopen: removed"), "%s", p.pl.log.p);
		cr_assert(data_contains(&p.pl, two.p, two.len), "the second entry's note is not written");
		done(&p);

		plan(&p, &im, "[]");
		cr_assert_str_eq(p.pl.strategy, "removed");
		cr_assert(strstr(p.pl.log.p, "section [3] .note.dlopen: removed"), "%s", p.pl.log.p);
		cr_assert_lt(p.pl.out_size, im.len + 1);
		done(&p);
		free(im.p);
		buf_free(&old);
		buf_free(&one);
		buf_free(&two);
	}
}
