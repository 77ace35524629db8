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
#include "../note/note.h"
#include "../base/base.h"
#include "plan.h"

/* `note` holds the encoded note (empty: remove every dlopen note). */
int layout_plan(const struct elf *ef, const struct scan *sc, const struct buf *note,
		struct plan *pl, struct err *e);
#endif
