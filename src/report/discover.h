/* SPDX-License-Identifier: MIT */
/* discover.h - a heuristic for finding undeclared dlopen() dependencies: strings shaped like
 * sonames (lib*.so.N) in a file's read-only data that are neither in its DT_NEEDED list nor in
 * its dlopen notes.  A program that calls dlopen("libz.so.1") carries that string in .rodata.
 *
 * It guesses: a string may be a log message, and a name built at run time is not seen.  The
 * result is a draft for a human to finish, never something to inject as is. */
#ifndef DLNOTE_DISCOVER_H
#define DLNOTE_DISCOVER_H

#include <stddef.h>

#include "../elf/elf.h"
#include "../note/note.h"
#include "../base/base.h"

/* Longest soname considered; longer runs of name characters are not sonames. */
#define DISCOVER_MAX_NAME 255

struct discovery {
	struct found {
		char *soname;
		char *path; /* the first file it was seen in (a copy) */
		char **alt; /* later alternatives (from a recording), in the order tried */
		size_t nalt;
		int recorded;   /* from --recorded: dlopen()ed by path, not guessed */
		char *asked_as; /* recorded: the name asked for, when the object loaded for
				 * it has another soname (soname is the loaded one), or NULL */
		size_t seq;     /* order of discovery, so that the first path wins */
	} * v;
	size_t n, cap;
	size_t sorted; /* v[0..sorted) is sorted by soname and distinct; the rest is new */
	size_t seq;
};

/* Scan one file and append the sonames it newly suggests.  `declared` holds the entries of its
 * notes.  The file is read in fixed-size chunks; nothing is trusted. */
int discover_file(const struct elf *ef, const struct entries *declared, const char *path,
		  struct discovery *d, struct err *e);
/* The names a file accounts for without a note, its DT_NEEDED and DT_SONAME strings: appended
 * to `out`, each followed by a NUL byte; *n counts them. */
int discover_linked_names(const struct elf *ef, struct buf *out, size_t *n, struct err *e);
/* Append one found entry: names[0] and its alternatives, unless names[0] is there already. */
/* asked_as (recorded only, else NULL): the name asked for, when the object loaded for it has
 * names[0] as its soname. */
int discover_add(struct discovery *d, const char *const *names, size_t n, const char *path,
		 int recorded, const char *asked_as);
/* After the last file: each soname once, sorted. */
void discover_finish(struct discovery *d);
void discover_free(struct discovery *d);

#endif
