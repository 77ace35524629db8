/* SPDX-License-Identifier: MIT */
/* edit.c - the one choice between the two planners: objects (objplan.c) and linked files
 * (layout.c). */
#include "edit.h"

int edit_plan(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all,
	      const struct buf *note, struct plan *pl, struct objplan_memo *memo, struct err *e)
{
	if (ef->type != ET_REL_)
		return layout_plan(ef, sc, note, pl, e);
	if (want->n && elf_is_gcc_lto(ef))
		return err_set(e,
			       "GCC LTO object (-flto): the LTO plugin drops the notes of such "
			       "objects when it links them; build it with -fno-lto, or compile the "
			       "entries in with --header (see dlnote-inject(1))");
	return objplan(ef, sc, want, keep_all, pl, memo, e);
}
