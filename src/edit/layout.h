/* SPDX-License-Identifier: MIT */
/* layout.h - the planners of the edit layer: they take an ELF file (elf/), its scan (note/)
 * and the note or entries it must carry, and give a plan (plan.h) of where the new note goes
 * and which header bytes change, before anything is written.  They never write a file and never
 * print: the caller applies the plan (output.c, archive_write.c) and prints its log. */
#ifndef DLNOTE_LAYOUT_H
#define DLNOTE_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../elf/elf.h"
#include "../note/scan.h"
#include "../base/util.h"
#include "plan.h"

/* `note` holds the encoded note (empty: remove every dlopen note). */
int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note, struct plan *pl, struct err *e);
/* layout_rel.c: a relocatable object.  `want` are the entries the object must carry; with
 * keep_all (merge) every dlopen section stays and only missing entries are added, else dlopen
 * sections that are not exactly one wanted entry in a COMDAT group of its own are removed.
 * layout_plan() on an object is layout_plan_rel() with the note's entries and keep_all 0. */
struct entries;
struct objedit_group;
/* What planning an object derives from the wanted entries alone, kept from one object to the
 * next when they all get the same entries (the members of an archive): which entries repeat an
 * earlier one, and each entry's note and signature, in one byte order.  Zeroed to start;
 * layout_memo_free() at the end.  It is valid for one `want`, which must not change. */
struct layout_memo {
	const struct entries *want;
	int big, ready;
	unsigned char *dup;
	struct objedit_group *g;
	size_t n;
	struct buf whole;          /* the note of all the entries (the caller's) */
	int whole_ready;
};
void layout_memo_free(struct layout_memo *m);
/* memo: NULL, or kept across calls with the same `want` (see above). */
int layout_plan_rel(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all, struct plan *pl,
		    struct layout_memo *memo, struct err *e);
int layout_plan_rel_note(const struct elf *ef, const struct scan *sc, const struct buf *note, struct plan *pl, struct err *e);

#endif
