/* SPDX-License-Identifier: MIT */
/* planners.h - shared by test_planners_linked.c and test_planners_objects.c: plan an edit of a
 * synthetic file (helpers.h builds them), look for patches in the plan, check the patch list,
 * apply it in memory (output_apply_mem) and open the file it gives with the project's ELF
 * reader; then what that file must be, for linked files, whatever the placement and for each
 * (docs/layout.md).  Expected values come from the input and the encoded note.
 *
 * Everything is static inline so that a suite that does not use a helper does not warn. */
#ifndef DLNOTE_TEST_PLANNERS_H
#define DLNOTE_TEST_PLANNERS_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "edit/edit.h"
#include "note/note.h"

static const unsigned char TEXT_BYTES[8] = {0x90, 0x90, 0x90, 0xc3, 0, 0, 0, 0};
static const unsigned char DATA_BYTES[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
static const int variants[2] = {2, 1}; /* ELF64 LE, ELF32 BE */

/* Three notes of growing size; TWO is BIG's second entry alone, between ONE and BIG in size. */
static const char ONE[] = "[{\"soname\":[\"libone.so.1\"],\"feature\":\"one\"}]";
static const char TWO[] = "[{\"soname\":[\"libtwo.so.2\",\"libtwo.so.1\"],\"feature\":\"two\","
			  "\"description\":\"the second\"}]";
static const char BIG[] = "[{\"soname\":[\"libone.so.1\"],\"feature\":\"one\"},"
			  "{\"soname\":[\"libtwo.so.2\",\"libtwo.so.1\"],\"feature\":\"two\","
			  "\"description\":\"the second\"}]";
static const char HUGE[] = "[{\"soname\":[\"libone.so.1\"],\"feature\":\"one\"},"
			   "{\"soname\":[\"libtwo.so.2\",\"libtwo.so.1\"],\"feature\":\"two\","
			   "\"description\":\"the second\"},"
			   "{\"soname\":[\"libthree.so.3\"],\"feature\":\"three\","
			   "\"description\":\"a third one, to grow the note\"}]";

struct planned {
	struct elf ef;
	struct scan sc;
	struct plan pl;
	struct buf note; /* the encoded note of the wanted entries */
	int fd;
};

static inline void entries_of(const char *json, struct entries *es)
{
	struct err e = {0};

	cr_assert_eq(manifest_parse(json, strlen(json), es, &e), 0, "%s", e.msg);
}

/* The note of `json` in the byte order of variant v. */
static inline void encode(const char *json, int v, struct buf *note)
{
	struct entries es = {0};
	struct err e = {0};

	entries_of(json, &es);
	cr_assert_eq(note_encode(&es, T_VARIANT_BIG(v), note, &e), 0, "%s", e.msg);
	manifest_free(&es);
}

/* Plan the edit of the file `bytes` to carry the entries of `json`: replace mode, or merge
 * (objects only: objplan with keep_all). */
static inline void plan_bytes(struct planned *p, const void *bytes, size_t len, const char *json,
			      int merge)
{
	struct entries es = {0};
	struct err e = {0};
	int r;

	memset(p, 0, sizeof *p);
	cr_assert_eq(t_elf_open(&p->ef, bytes, len, &p->fd, &e), 0, "%s", e.msg);
	cr_assert_eq(scan_file(&p->ef, &p->sc, &e), 0, "%s", e.msg);
	/* Merge: as the command line does, the file's entries then the new ones (edit.h). */
	if (merge) {
		struct entries add = {0};
		cr_assert_eq(scan_entries(&p->ef, &p->sc, &es, &e), 0, "%s", e.msg);
		entries_of(json, &add);
		cr_assert_eq(manifest_merge(&es, &add), 0);
		manifest_free(&add);
	} else {
		entries_of(json, &es);
	}
	cr_assert_eq(note_encode(&es, p->ef.big, &p->note, &e), 0, "%s", e.msg);
	r = edit_plan(&p->ef, &p->sc, &es, merge, &p->note, &p->pl, NULL, &e);
	cr_assert_eq(r, 0, "%s", e.msg);
	manifest_free(&es);
}

static inline void plan(struct planned *p, const struct t_image *im, const char *json)
{
	plan_bytes(p, im->p, im->len, json, 0);
}

static inline void done(struct planned *p)
{
	plan_free(&p->pl);
	buf_free(&p->note);
	scan_free(&p->sc);
	t_elf_close(&p->ef, p->fd);
}

/* The patch writing exactly `len` bytes equal to `bytes`, or NULL. */
static inline const struct patch *data_patch(const struct plan *pl, const void *bytes, size_t len)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].data && !pl->p[i].xform && pl->p[i].len == len &&
		    memcmp(pl->p[i].data, bytes, len) == 0)
			return &pl->p[i];
	return NULL;
}

/* A patch whose data holds `bytes` somewhere (a new section gathered with others). */
static inline int data_contains(const struct plan *pl, const void *bytes, size_t len)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].data && !pl->p[i].xform && pl->p[i].len >= len &&
		    memmem(pl->p[i].data, pl->p[i].len, bytes, len))
			return 1;
	return 0;
}

static inline int zero_fill(const struct patch *q)
{
	return !q->data && q->src == PATCH_ZERO;
}

/* A zero-filling patch covers [off, off+len). */
static inline int zeroes(const struct plan *pl, uint64_t off, uint64_t len)
{
	for (size_t i = 0; i < pl->n; i++)
		if (zero_fill(&pl->p[i]) && pl->p[i].off <= off &&
		    off + len <= pl->p[i].off + pl->p[i].len)
			return 1;
	return 0;
}

/* What the writer (edit.h, plan.c) allows of a patch list: every patch inside the output and every
 * copy inside the input; a later patch overlays an earlier one only where that one fills
 * zeros, or it rewrites part of an earlier copy or write: entries over a table, or zeros over
 * old notes in copied bytes (the carried block), never zeros over new bytes.  With
 * `header_last`, the ELF header is the last patch and the only one touching its bytes. */
static inline void check_patches(const struct plan *pl, uint64_t in_len, uint64_t ehsize,
				 int header_last)
{
	cr_assert_gt(pl->n, 0, "no patch");
	cr_assert_leq(pl->keep, in_len, "keeps %llu bytes of a %llu-byte input",
		      (unsigned long long)pl->keep, (unsigned long long)in_len);
	cr_assert_leq(pl->keep, pl->out_size);
	for (size_t i = 0; i < pl->n; i++) {
		const struct patch *q = &pl->p[i];
		cr_assert(q->len && range_ok(q->off, q->len, pl->out_size),
			  "patch %zu [0x%llx, +0x%llx) is not inside the %llu-byte output", i,
			  (unsigned long long)q->off, (unsigned long long)q->len,
			  (unsigned long long)pl->out_size);
		if ((!q->data || q->xform) && !zero_fill(q))
			cr_assert(range_ok(q->src, q->len, in_len),
				  "patch %zu copies from outside the input", i);
		if (header_last && i + 1 < pl->n)
			cr_assert_geq(q->off, ehsize, "patch %zu writes into the ELF header", i);
		for (size_t j = 0; j < i; j++) {
			const struct patch *o = &pl->p[j];
			if (!(q->off < o->off + o->len && o->off < q->off + q->len))
				continue;
			cr_assert(
				zero_fill(o) ||
					(o->off <= q->off && q->off + q->len <= o->off + o->len &&
					 (!zero_fill(q) || !o->data)),
				"patch %zu [0x%llx, +0x%llx) overlays patch %zu [0x%llx, +0x%llx)",
				i, (unsigned long long)q->off, (unsigned long long)q->len, j,
				(unsigned long long)o->off, (unsigned long long)o->len);
		}
	}
	if (header_last) {
		const struct patch *h = &pl->p[pl->n - 1];
		cr_assert(h->off == 0 && h->len == ehsize && h->data && !h->xform,
			  "the last patch is not the ELF header");
	}
}

/* The file a plan gives, built in memory and opened again. */
struct result {
	unsigned char *p;
	size_t len;
	struct elf ef;
	int fd;
};

/* Check the patch list (check_patches), apply it to the input `in`, and open the result. */
static inline void apply(const struct planned *p, const void *in, size_t in_len, int header_last,
			 struct result *r)
{
	struct err e = {0};

	check_patches(&p->pl, in_len, elf_ehdr_size(&p->ef), header_last);
	r->len = p->pl.out_size;
	r->p = malloc(r->len);
	cr_assert(r->p);
	cr_assert_eq(output_apply_mem(in, in_len, &p->pl, r->p, &e), 0, "%s", e.msg);
	cr_assert_eq(t_elf_open(&r->ef, r->p, r->len, &r->fd, &e), 0, "%s", e.msg);
}

static inline void result_free(struct result *r)
{
	t_elf_close(&r->ef, r->fd);
	free(r->p);
	r->p = NULL;
}

/* Section `name` of an opened file, 0 when there is none. */
static inline size_t section_named(const struct elf *ef, const char *name)
{
	for (size_t i = 1; i < ef->shnum; i++)
		if (elf_section_named(ef, i, name))
			return i;
	return 0;
}

/* ---- what the output of a linked file must be ---- */

static inline int same_phdr(const struct elf_phdr *a, const struct elf_phdr *b)
{
	return a->type == b->type && a->flags == b->flags && a->offset == b->offset &&
	       a->vaddr == b->vaddr && a->paddr == b->paddr && a->filesz == b->filesz &&
	       a->memsz == b->memsz && a->align == b->align;
}

static inline int has_phdr(const struct elf *ef, const struct elf_phdr *ph)
{
	for (size_t i = 0; i < ef->phnum; i++)
		if (same_phdr(&ef->ph[i], ph))
			return 1;
	return 0;
}

/* p_vaddr - p_offset of the first PT_LOAD: what pre-5.18 kernels and qemu-user add to e_phoff. */
static inline uint64_t bias_of(const struct elf *ef)
{
	for (size_t i = 0; i < ef->phnum; i++)
		if (ef->ph[i].type == PT_LOAD_)
			return ef->ph[i].vaddr - ef->ph[i].offset;
	cr_assert_fail("no PT_LOAD");
	return 0;
}

/* The PT_NOTE holding the note (check_linked found exactly one). */
static inline const struct elf_phdr *note_phdr(const struct result *r, const struct buf *note)
{
	for (size_t i = 0; i < r->ef.phnum; i++) {
		const struct elf_phdr *ph = &r->ef.ph[i];
		if (ph->type == PT_NOTE_ && ph->filesz == note->len &&
		    range_ok(ph->offset, ph->filesz, r->len) &&
		    memcmp(r->p + ph->offset, note->p, note->len) == 0)
			return ph;
	}
	return NULL;
}

/* What every output of a linked file satisfies, whatever the placement (docs/layout.md,
 * "Linked files"): a layout the tool accepts; every PT_LOAD of `orig` (the file before any
 * edit) unchanged, code and data at their place with their bytes; new PT_LOADs read-only (or
 * R+X), congruent, clear of the input's in the file and in memory; the table loaded (AT_PHDR),
 * with as many entries of each other type as the planned input (dlopen PT_NOTEs replaced);
 * the note (if any) the only dlopen note, its bytes those encoded, in its own 4-aligned
 * PT_NOTE inside a non-writable PT_LOAD and in a .note.dlopen section that describes it the
 * same way; none left when removing.  Returns how many PT_LOADs are new; *ours: the last. */
static inline size_t check_linked(const struct planned *p, const struct elf *orig,
				  const struct result *r, const struct elf_phdr **ours)
{
	const struct elf *o = &r->ef;
	const struct scan_item **v;
	const struct elf_phdr *nph, *ld;
	struct scan sc = {0};
	struct err e = {0};
	size_t n = 0, i, k, s;
	unsigned char a[64], b[64];

	*ours = NULL;
	cr_assert_eq(elf_check_layout(o, &e), 0, "%s", e.msg);
	for (i = 0; i < orig->phnum; i++)
		if (orig->ph[i].type == PT_LOAD_)
			cr_assert(has_phdr(o, &orig->ph[i]), "input PT_LOAD %zu changed or gone",
				  i);
	for (i = 0; i < o->phnum; i++) {
		const struct elf_phdr *ph = &o->ph[i];
		if (ph->type != PT_LOAD_ || has_phdr(orig, ph))
			continue;
		n++, *ours = ph;
		cr_assert((ph->flags & PF_R_) && !(ph->flags & ~(uint32_t)(PF_R_ | PF_X_)),
			  "new PT_LOAD with flags %#x", ph->flags);
		cr_assert(ph->filesz && ph->filesz == ph->memsz &&
			  ph->offset + ph->filesz <= r->len);
		cr_assert(ph->align && ph->vaddr % ph->align == ph->offset % ph->align);
		for (k = 0; k < orig->phnum; k++) {
			const struct elf_phdr *q = &orig->ph[k];
			if (q->type != PT_LOAD_)
				continue;
			cr_assert(ph->offset >= q->offset + q->filesz ||
					  q->offset >= ph->offset + ph->filesz,
				  "new PT_LOAD shares file bytes with input PT_LOAD %zu", k);
			cr_assert(ph->vaddr >= q->vaddr + q->memsz ||
					  q->vaddr >= ph->vaddr + ph->memsz,
				  "new PT_LOAD shares memory with input PT_LOAD %zu", k);
		}
	}
	cr_assert(elf_load_covering(o, o->phoff, o->phnum * elf_phent_size(o)),
		  "the program headers are not loaded");
	/* The other entries: as many of each type as in the planned input, but for PT_NOTE: those
	 * holding only dlopen notes replaced by ours. */
	for (i = 0; i < o->phnum + p->ef.phnum; i++) {
		uint32_t t = i < o->phnum ? o->ph[i].type : p->ef.ph[i - o->phnum].type;
		size_t nin = 0, nout = 0;
		if (t == PT_LOAD_)
			continue;
		for (k = 0; k < p->ef.phnum; k++)
			nin += p->ef.ph[k].type == t;
		for (k = 0; k < o->phnum; k++)
			nout += o->ph[k].type == t;
		if (t == PT_NOTE_) {
			for (k = 0; k < p->sc.nareas; k++)
				nin -= p->sc.areas[k].kind == AREA_SEGMENT && p->sc.areas[k].n &&
				       p->sc.areas[k].n == p->sc.areas[k].ndlopen;
			nin += p->note.len != 0;
		}
		cr_assert_eq(nout, nin, "%zu program headers of type %#x, expected %zu", nout, t,
			     nin);
	}
	/* Code and data: same place, same bytes (carried sections move: not these). */
	for (i = 1; i < orig->shnum; i++) {
		char name[32];
		elf_section_name(orig, i, name, sizeof name);
		if (!(orig->sh[i].flags & SHF_ALLOC_) || orig->sh[i].type != SHT_PROGBITS_ ||
		    !strcmp(name, ".interp"))
			continue;
		s = section_named(o, name);
		cr_assert(s && o->sh[s].offset == orig->sh[i].offset &&
				  o->sh[s].addr == orig->sh[i].addr &&
				  o->sh[s].size == orig->sh[i].size,
			  "section %s moved", name);
		for (k = 0; k < orig->sh[i].size; k += sizeof a) {
			size_t len =
				orig->sh[i].size - k < sizeof a ? orig->sh[i].size - k : sizeof a;
			cr_assert_eq(elf_read(orig, orig->sh[i].offset + k, len, a, &e), 0);
			cr_assert_eq(elf_read(o, o->sh[s].offset + k, len, b, &e), 0);
			cr_assert(memcmp(a, b, len) == 0, "the bytes of %s changed", name);
		}
	}
	cr_assert_eq(scan_file(o, &sc, &e), 0, "%s", e.msg);
	k = scan_dlopen_notes(&sc, &v);
	s = section_named(o, SECTION_NAME);
	if (!p->note.len) {
		cr_assert_eq(k, 0, "%zu dlopen notes left", k);
		cr_assert_eq(s, 0, "a .note.dlopen section is left");
	} else {
		cr_assert_eq(k, 1, "%zu dlopen notes", k);
		nph = note_phdr(r, &p->note);
		cr_assert(nph, "no PT_NOTE holds the encoded note");
		cr_assert(v[0]->off == nph->offset && v[0]->size == p->note.len);
		cr_assert(nph->align == 4 && nph->offset % 4 == 0 && nph->filesz == nph->memsz);
		for (i = 0; i < o->phnum; i++)
			cr_assert(o->ph[i].type != PT_NOTE_ || &o->ph[i] == nph ||
					  o->ph[i].offset >= nph->offset + nph->filesz ||
					  nph->offset >= o->ph[i].offset + o->ph[i].filesz,
				  "PT_NOTE %zu overlaps the note's", i);
		ld = elf_load_covering(o, nph->offset, nph->filesz);
		cr_assert(ld && !(ld->flags & PF_W_), "the note is not in a read-only PT_LOAD");
		cr_assert_eq(nph->vaddr - ld->vaddr, nph->offset - ld->offset);
		cr_assert(s, "no .note.dlopen section");
		cr_assert(o->sh[s].type == SHT_NOTE_ && o->sh[s].offset == nph->offset &&
			  o->sh[s].addr == nph->vaddr && o->sh[s].size == nph->filesz &&
			  o->sh[s].addralign == 4 && (o->sh[s].flags & SHF_ALLOC_) &&
			  !(o->sh[s].flags & SHF_WRITE_));
	}
	free(v);
	scan_free(&sc);
	return n;
}

/* Our segment holds the table (the fallback layout, docs/layout.md "Where our segment goes"):
 * copy A at its start, where bfd writes its own; the live copy B (e_phoff) right after it at the
 * word's alignment, covered by .dlnote.phdrs for libelf; then the note, when it is there.  Its
 * p_vaddr - p_offset is the input's bias, for pre-5.18 kernels and qemu-user. */
static inline void check_table_in_segment(const struct planned *p, const struct elf *orig,
					  const struct result *r, const struct elf_phdr *seg,
					  int note)
{
	uint64_t phsz = r->ef.phnum * elf_phent_size(&r->ef);
	uint64_t b = align_up(seg->offset + phsz, r->ef.is64 ? 8 : 4), end = b + phsz;
	size_t s = section_named(&r->ef, PHDR_SECTION_NAME);

	cr_assert_eq(r->ef.phoff, b, "e_phoff 0x%llx, expected 0x%llx",
		     (unsigned long long)r->ef.phoff, (unsigned long long)b);
	cr_assert(memcmp(r->p + seg->offset, r->p + b, phsz) == 0, "copy A differs from the table");
	cr_assert(s && r->ef.sh[s].offset == b && r->ef.sh[s].size == phsz &&
			  r->ef.sh[s].addr == seg->vaddr + (b - seg->offset),
		  "no section covers the table");
	cr_assert_eq(seg->vaddr - seg->offset, bias_of(orig));
	if (note) {
		const struct elf_phdr *nph = note_phdr(r, &p->note);
		cr_assert_eq(nph->offset, align_up(end, 4), "the note does not follow the table");
		end = nph->offset + nph->filesz;
	}
	cr_assert_eq(seg->offset + seg->filesz, end, "our segment holds more than it should");
}

/* After the end of the file (docs/layout.md): after the content of every input PT_LOAD, at the
 * lowest address above them all that its alignment allows (the largest of the file's, a power
 * of two); with the table inside, p_vaddr - p_offset the bias and p_vaddr congruent to bfd's
 * running offset, the end of the last PT_LOAD's content, so that GNU strip keeps every address. */
static inline void check_after_end(const struct elf *orig, const struct elf_phdr *seg, int table)
{
	uint64_t vend = 0, fend = 0, a = seg->align, vmin;

	cr_assert(a && !(a & (a - 1)), "alignment 0x%llx", (unsigned long long)a);
	for (size_t i = 0; i < orig->phnum; i++) {
		const struct elf_phdr *q = &orig->ph[i];
		if (q->type != PT_LOAD_)
			continue;
		cr_assert_geq(a, q->align);
		vend = q->vaddr + q->memsz > vend ? q->vaddr + q->memsz : vend;
		fend = q->offset + q->filesz > fend ? q->offset + q->filesz : fend;
	}
	vmin = align_up(vend, a);
	cr_assert_eq(seg->flags, PF_R_);
	cr_assert_geq(seg->offset, fend, "our segment is not after the input's content");
	cr_assert(seg->vaddr >= vmin && seg->vaddr < vmin + a, "p_vaddr 0x%llx, lowest 0x%llx",
		  (unsigned long long)seg->vaddr, (unsigned long long)vmin);
	if (table) {
		cr_assert_eq(seg->vaddr - seg->offset, bias_of(orig));
		cr_assert_eq(seg->vaddr % a, fend % a, "p_vaddr is not congruent to bfd's offset");
	}
}

/* In the page padding right after a non-writable PT_LOAD P of the input (docs/layout.md): where
 * P's content ends (the note-only segment at the note's alignment), with P's permissions and
 * bias, inside P's last page and before every later PT_LOAD, over bytes that were zeros. */
static inline void check_in_padding(const struct elf *orig, const struct elf_phdr *seg)
{
	const struct elf_phdr *P = NULL;
	uint64_t end = seg->offset + seg->filesz;

	for (size_t i = 0; i < orig->phnum; i++) {
		const struct elf_phdr *q = &orig->ph[i];
		if (q->type == PT_LOAD_ && !(q->flags & PF_W_) &&
		    q->offset + q->filesz <= seg->offset && seg->offset < q->offset + q->filesz + 4)
			P = q;
	}
	cr_assert(P, "our segment does not follow a read-only PT_LOAD");
	cr_assert_eq(seg->flags, P->flags);
	cr_assert_eq(seg->vaddr - seg->offset, P->vaddr - P->offset);
	cr_assert_leq(end, align_up(P->offset + P->filesz, seg->align), "not in P's last page");
	for (size_t i = 0; i < orig->phnum; i++) {
		const struct elf_phdr *q = &orig->ph[i];
		if (q->type == PT_LOAD_ && q->offset > P->offset)
			cr_assert(end <= q->offset && seg->vaddr + seg->memsz <= q->vaddr);
	}
	cr_assert(elf_range_is_zero(orig, seg->offset, seg->filesz), "the padding was not zeros");
}

/* Plan `json` on the file `in`, expect `strategy`, and apply the plan into r. */
static inline void run(struct planned *p, const void *in, size_t len, const char *json,
		       const char *strategy, struct result *r)
{
	plan_bytes(p, in, len, json, 0);
	T_STR_EQ(p->pl.strategy, strategy, "planning %s", json);
	apply(p, in, len, 1, r);
}

#endif
