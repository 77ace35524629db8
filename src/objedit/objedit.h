/* SPDX-License-Identifier: MIT */
/* objedit.h - the interface of src/objedit/: the planner of relocatable objects (objplan.c)
 * and the rewrite of their sections, symbols and groups (objedit*.c), as a plan (src/plan/);
 * it never writes a file.  What its files share is in objedit_int.h. */
#ifndef DLNOTE_OBJEDIT_H
#define DLNOTE_OBJEDIT_H

#include "../plan/plan.h"

/* objplan.c: the planner of relocatable objects: dlopen sections removed, one COMDAT group per
 * entry added (the rewrite itself is objedit.c's).  `want` are the entries the object must carry;
 * with keep_all (merge: `want` holds the file's entries, but those the merge replaced, then the
 * new ones) every dlopen section whose entries `want` all holds stays and only missing entries
 * are added, else dlopen sections that are not exactly one wanted entry in a COMDAT group of
 * its own are removed. */
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
/* objedit.c: the SHT_GROUP members of every section: grp[i] is the group section listing i, 0
 * for none.  Checks each group's size and member indexes.  *out is allocated (ef->shnum
 * entries). */
int objedit_groups(const struct elf *ef, size_t **out, struct err *e);

#endif
