/* SPDX-License-Identifier: MIT */
/* travel.h - --check on a file and on an archive: entries that would reach a program more than
 * once, and for an archive, where each entry travels.
 *
 * A link takes an archive member only to resolve a symbol the member defines (the archive's
 * index lists them), so an entry reaches a program with the members that carry it: with any
 * member, when every member that defines symbols carries it; only with some; or never, when
 * the members carrying it define nothing (a note-only object), unless a link option pulls them.
 * Notes in COMDAT groups keyed on the same payload fold to one copy; other notes are copied
 * once per member taken. */
#ifndef DLNOTE_TRAVEL_H
#define DLNOTE_TRAVEL_H

#include <stdint.h>
#include <stdio.h>

#include "../archive/archive.h"
#include "../elf/elf.h"
#include "../note/note.h"
#include "../base/base.h"

/* Entries of one file that appear more than once (a program would list them twice): one
 * "error: " line each is appended to `report`.  Returns how many. */
size_t travel_repeats(const struct entries *es, struct buf *report);

/* Declared sonames that name development symlinks (no version after ".so"): one "warning: "
 * line each appended to `report`.  Returns how many. */
size_t travel_dev_names(const struct entries *es, struct buf *report);

struct travel_entry;

struct travel {
	struct travel_entry *v;
	size_t n, cap;
	size_t *slots, nslots; /* v's indexes + 1 by the hash of their identity (0: free) */
	struct archive_index_count
		*idx; /* the index's members: offset and symbol count, by offset */
	size_t nidx;
	const struct archive *ar;    /* set once the archive's symbol index was read */
	struct archive_member index; /* the index member, to read symbol names */
	size_t elf_members, code_members, lto_members, foreign_members;
	uint64_t sym_nth; /* the last index symbol whose name was read, and its name */
	char sym[256];
	int sym_read;
	char lto_first[ARCHIVE_MAX_NAME + 1], foreign_first[ARCHIVE_MAX_NAME + 1];
};

/* The archive's symbol index: how many symbols each member defines. */
int travel_index(struct travel *t, const struct archive *ar, const struct archive_member *m,
		 struct err *e);
/* One ELF member, opened and scanned (its notes already checked). */
int travel_member(struct travel *t, const struct archive_member *m, const struct elf *ef,
		  const struct scan *sc, struct err *e);
/* A member that is not ELF: LLVM bitcode (kind) or other data (kind NULL). */
void travel_foreign(struct travel *t, const struct archive_member *m, const char *kind);
/* Where each entry travels, a line each, then one summary line.  Returns the number of
 * errors (entries no link takes). */
size_t travel_report(struct travel *t, const char *path, int quiet, FILE *out);
void travel_free(struct travel *t);

#endif
