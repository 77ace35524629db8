/* SPDX-License-Identifier: MIT */
/* objedit_int.h - private to src/edit/: the object rewriter, which objplan.c calls, and the
 * state its files share: objedit.c (sections, groups, layout), objedit_patch.c (the patches)
 * and objedit_sym.c (symbols, relocations, address-significance). */
#ifndef DLNOTE_OBJEDIT_INT_H
#define DLNOTE_OBJEDIT_INT_H

#include "../note/note.h"
#include "objedit.h"

/* objedit.c: rewriting a relocatable object with sections removed and COMDAT groups added.
 *
 * The caller (objplan.c) says which sections go and which groups come; objedit.c closes the
 * removal over what depends on it (relocation sections of removed sections, groups left empty,
 * symbols defined in removed sections, signature symbols of removed groups), renumbers
 * sections and symbols, and lays the object out again: every kept section is copied by the
 * kernel to its new offset, only headers, the symbol table, string tables, group member lists
 * and the r_info of relocations whose symbol moved are new bytes. */

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

/* Read group g's words (flag word first); *n receives their count.  *out is allocated. */
int objedit_group_words(const struct elf *ef, size_t g, uint32_t **out, size_t *n, struct err *e);

/* Plan the rewrite into o->pl; the caller has checked the group lists with objedit_groups().
 * Fails with a reason (and plans nothing) when a removal cannot be done safely: a group that
 * would keep other members, a kept section linked to a removed one, a relocation referring to
 * a removed symbol. */
int objedit_plan(struct objedit *o);

struct move {
	uint64_t from, to;
};

struct osec {
	size_t in; /* input index; 0 for a new section */
	struct elf_shdr sh;
	unsigned char *data;    /* new content (owned), or NULL: the input's bytes are copied */
	const struct buf *tail; /* bytes appended after the copied content */
};

/* One object rewrite in progress (objedit_plan()'s state, `rw` in its files). */
struct rewrite {
	struct objedit *o;
	const struct elf *ef;
	struct err *e;
	size_t n;
	size_t ndrop; /* input sections removed (after close_sections) */
	size_t *map;
	size_t symtab, xtab;
	int new_symtab; /* the object had none: .symtab and .strtab are added last */
	uint64_t nsym, nlocal, nsym_out, nlocal_out;
	uint64_t *del;
	size_t ndel;
	struct move *mv;
	size_t nmv;
	struct buf strtab_add, shstr_add, symtab_add, xtab_add;
	struct buf run; /* new bytes gathered for one patch at run_off (objedit_patch) */
	uint64_t run_off;
	uint64_t laid_end; /* the end of the furthest patch planned before the run */
	uint32_t *sig_name, name_group, name_note, name_symtab, name_strtab;
	struct osec *os;
	size_t nout;
	uint64_t shoff;
};

/* The largest section alignment an object may ask for: 1 GiB. */
#define OBJEDIT_MAX_ALIGN (1u << 30)

static inline int objedit_is_rel(const struct elf_shdr *s)
{
	return s->type == SHT_REL_ || s->type == SHT_RELA_;
}

/* Output index of the symbol table. */
static inline size_t objedit_symtab_out(const struct rewrite *rw)
{
	return rw->new_symtab ? rw->nout - 2 : rw->map[rw->symtab];
}

/* objedit.c */
int objedit_patch(struct rewrite *rw, uint64_t off, uint64_t len, const void *data, uint64_t src);
int objedit_patch_flush(struct rewrite *rw);

/* objedit_sym.c */
int objedit_sym_table(struct rewrite *rw);
int objedit_sym_removed(struct rewrite *rw);
int objedit_sym_permute(struct rewrite *rw);
/* New index of an input symbol; -1 when it is removed. */
int64_t objedit_sym_new(const struct rewrite *rw, uint64_t k);
/* True when no input symbol moves or goes and no section goes: the symbol table keeps its
 * bytes (the new symbols are appended), relocations and the address-significance table stay. */
int objedit_sym_unmoved(const struct rewrite *rw);
int objedit_sym_rewrite(struct rewrite *rw);
int objedit_sym_addrsig(struct rewrite *rw);
int objedit_sym_relocs(struct rewrite *rw, const struct osec *o);

#endif
