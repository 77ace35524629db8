/* SPDX-License-Identifier: MIT */
/* objedit.h - rewriting a relocatable object with sections removed and COMDAT groups added.
 *
 * The caller (objplan.c) says which sections go and which groups come; objedit.c closes the
 * removal over what depends on it (relocation sections of removed sections, groups left empty,
 * symbols defined in removed sections, signature symbols of removed groups), renumbers
 * sections and symbols, and lays the object out again: every kept section is copied by the
 * kernel to its new offset, only headers, the symbol table, string tables, group member lists
 * and the r_info of relocations whose symbol moved are new bytes. */
#ifndef DLNOTE_OBJEDIT_H
#define DLNOTE_OBJEDIT_H

#include <stddef.h>
#include <stdint.h>

#include "../elf/elf.h"
#include "plan.h"

/* A COMDAT group to add: one SHT_GROUP section, its signature symbol (weak, hidden, undefined,
 * after every input symbol, so that adding moves no symbol: docs/layout.md),
 * and one member: a .note.dlopen section (SHF_ALLOC|SHF_GROUP|SHF_GNU_RETAIN) holding `note`. */
struct objedit_group {
	struct buf note;
	struct buf sig; /* the signature, without NUL */
};

struct objedit {
	const struct elf *ef;
	struct plan *pl;
	struct err *e;
	unsigned char *drop; /* drop[i]: input section i is removed (the caller's choice) */
	struct objedit_group *add;
	size_t nadd;
	int had_dlopen; /* the input has a dlopen section: a signature's name may be there */
};

/* SHT_GROUP members of every section: grp[i] is the group section listing i, 0 for none.
 * Checks each group's size and member indexes.  *out is allocated (ef->shnum entries). */
int objedit_groups(const struct elf *ef, size_t **out, struct err *e);
/* Read group g's words (flag word first); *n receives their count.  *out is allocated. */
int objedit_group_words(const struct elf *ef, size_t g, uint32_t **out, size_t *n, struct err *e);

/* Plan the rewrite into o->pl; the caller has checked the group lists with objedit_groups().
 * Fails with a reason (and plans nothing) when a removal cannot be done safely: a group that
 * would keep other members, a kept section linked to a removed one, a relocation referring to
 * a removed symbol. */
int objedit_plan(struct objedit *o);

#endif
