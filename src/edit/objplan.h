/* SPDX-License-Identifier: MIT */
/* objplan.h - the planner of relocatable objects: it takes an object (elf/), its scan (note/)
 * and the entries it must carry, and gives a plan (plan.h) built by objedit.c: dlopen sections
 * removed, one COMDAT group per entry added.  It never writes a file and never prints. */
#ifndef DLNOTE_OBJPLAN_H
#define DLNOTE_OBJPLAN_H

#include "../base/base.h"
#include "../elf/elf.h"
#include "../note/note.h"
#include "plan.h"

/* objplan.c: a relocatable object.  `want` are the entries the object must carry; with
 * keep_all (merge) every dlopen section stays and only missing entries are added, else dlopen
 * sections that are not exactly one wanted entry in a COMDAT group of its own are removed.
 * layout_plan() on an object is objplan() with the note's entries and keep_all 0. */
struct entries;
struct objedit_group;
/* What planning an object derives from the wanted entries alone, kept from one object to the
 * next when they all get the same entries (the members of an archive): which entries repeat an
 * earlier one, and each entry's note and signature, in one byte order.  Zeroed to start;
 * objplan_memo_free() at the end.  It is valid for one `want`, which must not change. */
struct objplan_memo {
	const struct entries *want;
	int big, ready;
	unsigned char *dup;
	struct objedit_group *g;
	size_t n;
	struct buf whole; /* the note of all the entries (the caller's) */
	int whole_ready;
};
void objplan_memo_free(struct objplan_memo *m);
/* memo: NULL, or kept across calls with the same `want` (see above). */
int objplan(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all,
	    struct plan *pl, struct objplan_memo *memo, struct err *e);
int objplan_note(const struct elf *ef, const struct scan *sc, const struct buf *note,
		 struct plan *pl, struct err *e);

#endif
