/* SPDX-License-Identifier: MIT */
/* deps.h - entries seen as dependencies: the spec's priorities as ranks, feature names given on
 * the command line, the entries gathered from files, and a set of rendered dependencies that
 * keeps each distinct one once, at its strongest rank.  Shared by the listings (report.c) and
 * the packaging outputs (pkgdeps.c). */
#ifndef DLNOTE_DEPS_H
#define DLNOTE_DEPS_H

#include <stddef.h>

#include "../note/note.h"

/* The spec's priorities as ranks: a higher rank is a stronger dependency. */
enum { RANK_SUGGESTED, RANK_RECOMMENDED, RANK_REQUIRED, RANKS };

extern const char *const deps_rank_names[RANKS];

/* A priority name, or -1. */
int deps_rank_parse(const char *name, size_t len);
/* An entry's rank; a priority the spec does not know counts as recommended. */
int deps_entry_rank(const struct entry *en, struct buf *tmp);

/* Names given on the command line as comma-separated lists.  Each remembers whether it selected
 * an entry, so that a name that selects nothing can be reported. */
struct namelist {
	char **v;
	unsigned char *used;
	size_t n, cap, used_cap;
	int given, all;     /* all: the option was given without names */
	struct key *sorted; /* the names sorted, for lookups; built when first asked */
	size_t nsorted;
};

/* Append the names of a comma-separated list.  `list` may be NULL (the option without a
 * value: every entry).  Returns -1 when out of memory. */
int deps_namelist_add(struct namelist *l, const char *list);
void deps_namelist_free(struct namelist *l);
/* Does the list select an entry with this feature (NULL: none)?  Marks the names it matched. */
int deps_namelist_selects(struct namelist *l, const char *feature);
/* Print an error for each name that selected nothing; 1 when there was one. */
int deps_namelist_unused(const struct namelist *l, const char *option);

/* What --list and --check --expect gather from every FILE: the entries, in file order, and for
 * each one the file it came from (a copy, in paths) and that file's rpm class suffix. */
struct listing {
	struct entries es;
	struct listing_from {
		const char *path;
		const char *rpm_suffix;
	} * from;
	char **paths; /* the copies of the names `from` points to */
	size_t npaths, paths_cap;
	size_t from_cap;
};

/* The sonames of an entry joined by `sep`, each followed by `suffix`, into out (NUL-terminated).
 * Returns how many there are. */
size_t deps_join_sonames(const struct entry *en, const char *sep, const char *suffix,
			 struct buf *out);

/* A rendered dependency.  `bucket` groups them (the feature, for --format=features; NULL for
 * "no feature" or when the format has no groups); `first` is the entry it was first seen in. */
struct dep {
	char *bucket, *text;
	int rank;
	size_t first;
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

#endif
