/* SPDX-License-Identifier: MIT */
/* edit.h - the interface of the edit stage, which other folders include: it takes an ELF file
 * (elf/), its scan and the entries or note it must carry (note/), and gives a plan (plan/)
 * from the planner of its kind, linked files (layout/) or objects (objedit/), chosen in one
 * place (edit.c); the writers that apply a plan are plan/'s (output.c).  The planners never
 * write a file and never print: the caller applies the plan and prints its log. */
#ifndef DLNOTE_EDIT_H
#define DLNOTE_EDIT_H

#include "../plan/plan.h"
#include "../layout/layout.h"
#include "../objedit/objedit.h"

/* edit.c: the plan of an edit, from the planner the file's type calls for: objplan() for a
 * relocatable object (a GCC LTO object that must carry entries is refused), layout_plan() for
 * the others.  `want`: the entries the file must carry; `note`: their encoded note (the
 * whole array, whose size limit holds for objects too); keep_all and memo: objplan()'s. */
struct objplan_memo;
int edit_plan(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all,
	      const struct buf *note, struct plan *pl, struct objplan_memo *memo, struct err *e);

#endif
