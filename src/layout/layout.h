/* SPDX-License-Identifier: MIT */
/* layout.h - the interface of src/layout/: the planner of linked files (ET_EXEC, ET_DYN),
 * which decides where a note goes and which header bytes change, as a plan (src/plan/); it
 * never writes a file (docs/layout.md).  What its files share is in layout_int.h. */
#ifndef DLNOTE_LAYOUT_H
#define DLNOTE_LAYOUT_H

#include "../plan/plan.h"

/* layout.c: the planner of linked files (ET_EXEC, ET_DYN): where the new note goes and which
 * header bytes change (docs/layout.md). */

/* `note` holds the encoded note (empty: remove every dlopen note); ET_EXEC and ET_DYN only. */
int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note,
		struct plan *pl, struct err *e);

#endif
