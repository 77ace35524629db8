/* SPDX-License-Identifier: MIT */
/* report_int.h - private to src/report/: what its files share beyond report.h.  deps.c's
 * ranks by name, name lists and sets of rendered dependencies (report.c, pkgdeps.c),
 * discover.c's additions (trace.c), the trace's callers (trace_match.c), and pkgdeps.c's package
 * formats (report.c). */
#ifndef DLNOTE_REPORT_INT_H
#define DLNOTE_REPORT_INT_H

#include <stdio.h>

#include "report.h"

extern const char *const deps_rank_names[RANKS];

/* An entry's rank; a priority the spec does not know counts as recommended. */
int deps_entry_rank(const struct entry *en, struct buf *tmp);

void deps_namelist_free(struct namelist *l);
/* Does the list select an entry with this feature (NULL: none)?  Marks the names it matched. */
int deps_namelist_selects(struct namelist *l, const char *feature);
/* Print an error for each name that selected nothing; 1 when there was one. */
int deps_namelist_unused(const struct namelist *l, const char *option);

/* The sonames of an entry joined by `sep`, each followed by `suffix`, into out (NUL-terminated).
 * Returns how many there are. */
size_t deps_join_sonames(const struct entry *en, const char *sep, const char *suffix,
			 struct buf *out);

/* A rendered dependency.  `bucket` groups them (the feature, for --format=features; NULL for
 * "no feature" or when the format has no groups); `first` is the entry it was first seen in. */
struct dep {
	char *bucket, *text;
	int rank;
	size_t first, seq; /* seq: the order of the pushes, for the lines of one entry */
};

struct deps {
	struct dep *v;
	size_t n, cap;
};

int deps_push(struct deps *d, const char *bucket, const char *text, int rank, size_t first);
void deps_free(struct deps *d);
/* Sort by bucket (no bucket last) and text, keeping each distinct one once at its strongest
 * rank. */
void deps_merge(struct deps *d);
/* Back into the order the entries came in. */
void deps_sort_first(struct deps *d);

/* The names a file accounts for without a note, its DT_NEEDED and DT_SONAME strings: appended
 * to `out`, each followed by a NUL byte; *n counts them. */
int discover_linked_names(const struct elf *ef, struct buf *out, size_t *n, struct err *e);
/* Stream the file's read-only bytes to fn: every PT_LOAD without PF_W, or in a file without
 * segments (an object) every allocated, non-writable section with file bytes, 64 KiB at a time
 * with their file offset; a region's end is a call with n == 0.  fn returns -1 with e set to
 * stop. */
int discover_readonly(const struct elf *ef,
		      int (*fn)(void *ctx, uint64_t off, const unsigned char *p, size_t n,
				struct err *e),
		      void *ctx, struct err *e);
/* Append one found entry: names[0] and its alternatives, unless names[0] is there already. */
/* asked_as (recorded only, else NULL): the name asked for, when the object loaded for it has
 * names[0] as its soname. */
int discover_add(struct discovery *d, const char *const *names, size_t n, const char *path,
		 int recorded, const char *asked_as);

/* trace_match.c: the trace's callers, one per path and build-id: the index of the one for
 * this ask (counted), or -1 when out of memory.  hidden: the loader is named instead of the
 * file that called. */
long trace_caller_add(struct trace *t, const char *path, const char *build_id, int hidden);
/* trace_symbols.c: a "symbol" line kept; and the symbols FILE (path, ef, sc: one of the trace's
 * callers, as trace_match finds it) looked up from the sonames its entries es declare,
 * appended to out as recorded records of the listing's file `file`. */
int trace_symbol_add(struct trace *t, size_t caller, const char *soname, const char *name,
		     const char *version);
void trace_symbols_free(struct trace *t);
int trace_symbols_of(struct trace *t, struct libfind *f, const char *path, const struct elf *ef,
		     const struct scan *sc, const struct entries *es, size_t file,
		     struct symbols *out, struct err *e);
void trace_callers_free(struct trace *t);

void pkgdeps_debmap_free(struct debmap *map);

/* sbom.c: --format=cyclonedx: a CycloneDX 1.6 JSON document: each file of the listing a
 * component of type file, each distinct dependency of their notes (a soname with its entry's
 * feature, description and priority) a component of type library, scope required or optional,
 * and the files' dependencies.  Returns -1 when out of memory. */
int sbom_cyclonedx(const struct listing *l, FILE *out);

/* --format=rpm: "Requires: libfoo.so.1()(64bit)" lines.  With names in tags[] (--rpm-suggests,
 * ...), the strongest list that selects an entry's feature gives its tag, and entries no list
 * selects are left out; else each entry's own priority does.  Returns -1 when out of memory. */
int pkgdeps_rpm(const struct listing *l, struct namelist tags[RANKS], FILE *out);
/* --format=deb: the three substvars; an entry whose sonames no package provides is left out
 * with a warning naming map_path (unless quiet).  Returns -1 when out of memory. */
int pkgdeps_deb(const struct listing *l, const struct debmap *map, const char *map_path, int quiet,
		FILE *out);

#endif
