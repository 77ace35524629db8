/* SPDX-License-Identifier: MIT */
/* test_planners_objects.c - the planner of relocatable objects (src/edit/objplan.c and
 * objedit*.c) on synthetic objects: for each edit, the strategy chosen and the object its
 * patches give, read back: one COMDAT group per entry as docs/layout.md ("Relocatable
 * objects") describes it, what stays and what goes.  Two variants each: ELF64 little-endian
 * and ELF32 big-endian. */
#include "planners.h"
#include "objedit/objedit_int.h"

/* An object: [1] .text, [2] .data, and [3] a .note.dlopen outside any group when `note` (as the
 * C macro of older versions wrote it). */
static void build_rel(struct t_image *im, int v, const struct buf *note)
{
	const struct t_sec secs[] = {
		{".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT_BYTES, sizeof TEXT_BYTES},
		{".data", 1, SHF_ALLOC_ | SHF_WRITE_, 8, DATA_BYTES, sizeof DATA_BYTES},
		{".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, note ? note->p : NULL,
		 note ? note->len : 0},
	};

	t_build(im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_REL_, T_VARIANT_IS64(v) ? 62 : 20, secs,
		note ? 3 : 2, NULL, 0);
}

/* The output's COMDAT groups are one per entry of `want` (each a JSON array of one entry), in
 * that order: flag GRP_COMDAT, one member, a .note.dlopen (SHT_NOTE, SHF_ALLOC | SHF_GROUP |
 * SHF_GNU_RETAIN, 4-aligned) holding that entry's note alone, and a signature symbol named
 * sd_dlopen: followed by the entry (compact, keys in its order), weak, hidden and undefined. */
static void check_groups(const struct result *r, int v, const char *const *want, size_t n)
{
	const struct elf *o = &r->ef;
	size_t g = 0;

	for (size_t i = 1; i < o->shnum; i++) {
		const struct elf_shdr *sh, *symtab, *strtab;
		struct buf note = {0};
		struct elf_sym sym;
		struct err e = {0};
		unsigned char ent[24];
		char sig[256];
		const char *name;
		uint32_t *w;
		size_t nw, m;

		if (o->sh[i].type != SHT_GROUP_)
			continue;
		cr_assert_lt(g, n, "more groups than entries");
		cr_assert_eq(objedit_group_words(o, i, &w, &nw, &e), 0, "%s", e.msg);
		m = nw == 2 ? w[1] : 0;
		cr_assert(nw == 2 && w[0] == GRP_COMDAT_, "group [%zu] is not a COMDAT of one", i);
		free(w);
		cr_assert(m && m < o->shnum && elf_section_named(o, m, SECTION_NAME));
		sh = &o->sh[m];
		cr_assert(sh->type == SHT_NOTE_ && sh->addralign == 4 &&
			  sh->flags == (SHF_ALLOC_ | SHF_GROUP_ | SHF_GNU_RETAIN_));
		encode(want[g], v, &note);
		t_assert_bytes(r->p + sh->offset, sh->size, note.p, note.len, "a group's note");
		buf_free(&note);

		cr_assert(o->sh[i].link < o->shnum);
		symtab = &o->sh[o->sh[i].link];
		cr_assert(symtab->type == SHT_SYMTAB_ && symtab->link < o->shnum);
		strtab = &o->sh[symtab->link];
		cr_assert_eq(elf_read(o, symtab->offset + o->sh[i].info * elf_sym_size(o),
				      elf_sym_size(o), ent, &e),
			     0, "%s", e.msg);
		elf_decode_sym(o, ent, &sym);
		snprintf(sig, sizeof sig, "%s%s", NOTE_GROUP_PREFIX, want[g]);
		name = (const char *)r->p + strtab->offset + sym.name;
		cr_assert(sym.name + strlen(sig) < strtab->size &&
				  !memcmp(name, sig, strlen(sig) + 1),
			  "group [%zu]: the signature is not %s", i, sig);
		cr_assert(sym.info >> 4 == STB_WEAK_ && (sym.other & 3) == STV_HIDDEN_ &&
			  sym.shndx == 0);
		g++;
	}
	cr_assert_eq(g, n, "%zu groups, expected %zu", g, n);
}

/* The .note.dlopen sections outside any group; the last in *last. */
static size_t plain_notes(const struct result *r, const struct elf_shdr **last)
{
	size_t n = 0;

	for (size_t i = 1; i < r->ef.shnum; i++)
		if (elf_section_named(&r->ef, i, SECTION_NAME) && !(r->ef.sh[i].flags & SHF_GROUP_))
			n++, *last = &r->ef.sh[i];
	return n;
}

/* Code and data of the input, with their bytes, in the output. */
static void check_kept(const struct result *r)
{
	size_t t = section_named(&r->ef, ".text"), d = section_named(&r->ef, ".data");

	cr_assert(t && d);
	t_assert_bytes(r->p + r->ef.sh[t].offset, r->ef.sh[t].size, TEXT_BYTES, sizeof TEXT_BYTES,
		       ".text");
	t_assert_bytes(r->p + r->ef.sh[d].offset, r->ef.sh[d].size, DATA_BYTES, sizeof DATA_BYTES,
		       ".data");
}

static size_t count(const char *log, const char *what)
{
	size_t n = 0;

	for (const char *s = log; s && (s = strstr(s, what)); s++)
		n++;
	return n;
}

static const char *const both[] = {ONE, TWO};

/* An object without a note: one group per entry, in order, the object's OS ABI becoming GNU
 * (SHF_GNU_RETAIN means nothing otherwise), code and data kept. */
Test(planners, object_groups_added)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p;
		struct result r;

		build_rel(&im, variants[k], NULL);
		plan(&p, &im, BIG);
		cr_assert_str_eq(p.pl.strategy, "section groups added");
		cr_assert_eq(count(p.pl.log.p, "group added: "), 2, "%s", p.pl.log.p);
		apply(&p, im.p, im.len, 0, &r);
		check_groups(&r, variants[k], both, 2);
		check_kept(&r);
		cr_assert_eq(r.ef.ident[7], 3, "EI_OSABI is not ELFOSABI_GNU");
		cr_assert_gt(r.len, im.len);
		result_free(&r);
		done(&p);
		free(im.p);
	}
}

/* A .note.dlopen outside any group (the old macro's) is removed and the entries get their
 * groups; [] removes every dlopen section, and the object gets smaller. */
Test(planners, object_groups_replaced_and_removed)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p;
		struct result r;
		const struct elf_shdr *last;

		encode(ONE, variants[k], &old);
		build_rel(&im, variants[k], &old);
		plan(&p, &im, BIG);
		cr_assert_str_eq(p.pl.strategy, "section groups replaced");
		cr_assert(strstr(p.pl.log.p, "section [3] .note.dlopen: removed"), "%s",
			  p.pl.log.p);
		apply(&p, im.p, im.len, 0, &r);
		cr_assert_eq(plain_notes(&r, &last), 0, "the old note is left");
		check_groups(&r, variants[k], both, 2);
		check_kept(&r);
		result_free(&r);
		done(&p);

		plan(&p, &im, "[]");
		cr_assert_str_eq(p.pl.strategy, "removed");
		cr_assert(strstr(p.pl.log.p, "section [3] .note.dlopen: removed"), "%s",
			  p.pl.log.p);
		apply(&p, im.p, im.len, 0, &r);
		cr_assert_eq(section_named(&r.ef, SECTION_NAME), 0, "a .note.dlopen is left");
		cr_assert_eq(r.ef.shnum, im.shnum - 1);
		check_groups(&r, variants[k], both, 0);
		check_kept(&r);
		cr_assert_lt(r.len, im.len);
		result_free(&r);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* Merge (objplan with keep_all): the existing .note.dlopen stays, untouched and outside any
 * group; only the entry it lacks gets a group.  When it already holds every wanted entry,
 * nothing is written. */
Test(planners, object_merge_keeps_the_note_and_adds_what_it_lacks)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct buf old = {0};
		struct planned p;
		struct result r;
		const struct elf_shdr *last = NULL;

		encode(ONE, variants[k], &old);
		build_rel(&im, variants[k], &old);
		plan_bytes(&p, im.p, im.len, BIG, 1);
		cr_assert_str_eq(p.pl.strategy, "section groups added");
		cr_assert_eq(count(p.pl.log.p, "group added: "), 1, "%s", p.pl.log.p);
		cr_assert_eq(count(p.pl.log.p, ": removed"), 0, "%s", p.pl.log.p);
		apply(&p, im.p, im.len, 0, &r);
		cr_assert_eq(plain_notes(&r, &last), 1);
		t_assert_bytes(r.p + last->offset, last->size, old.p, old.len, "the kept note");
		check_groups(&r, variants[k], both + 1, 1);
		check_kept(&r);
		result_free(&r);
		done(&p);
		buf_free(&old);
		free(im.p);

		encode(BIG, variants[k], &old);
		build_rel(&im, variants[k], &old);
		plan_bytes(&p, im.p, im.len, TWO, 1);
		cr_assert_str_eq(p.pl.strategy, "unchanged");
		cr_assert(p.pl.unchanged && p.pl.n == 0 && p.pl.out_size == im.len);
		done(&p);
		buf_free(&old);
		free(im.p);
	}
}

/* An object that already has exactly the wanted groups: "unchanged", no patch, same size, in
 * replace mode and in merge mode (also for a subset of its entries).  Replacing with a subset
 * removes the other group and keeps the wanted one. */
Test(planners, object_unchanged_when_the_groups_are_there)
{
	for (int k = 0; k < 2; k++) {
		struct t_image im;
		struct planned p, q;
		struct result r, r2;
		static const struct {
			const char *json;
			int merge;
		} same[] = {{BIG, 0}, {BIG, 1}, {ONE, 1}, {TWO, 1}};

		build_rel(&im, variants[k], NULL);
		plan(&p, &im, BIG);
		apply(&p, im.p, im.len, 0, &r);
		for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
			plan_bytes(&q, r.p, r.len, same[i].json, same[i].merge);
			T_STR_EQ(q.pl.strategy, "unchanged", "%s, merge %d", same[i].json,
				 same[i].merge);
			cr_assert(q.pl.unchanged && q.pl.n == 0 && q.pl.out_size == r.len);
			done(&q);
		}
		plan_bytes(&q, r.p, r.len, ONE, 0);
		cr_assert_str_eq(q.pl.strategy, "section groups replaced");
		apply(&q, r.p, r.len, 0, &r2);
		check_groups(&r2, variants[k], both, 1);
		check_kept(&r2);
		result_free(&r2);
		done(&q);
		result_free(&r);
		done(&p);
		free(im.p);
	}
}
