/* SPDX-License-Identifier: MIT */
/* pkgdeps.h - dependencies for packages: rpm's Requires/Recommends/Suggests and Debian's
 * dlopen:Depends/Recommends/Suggests substvars from the entries of the packaged files.
 *
 * The formats follow package-notes' dlopen-notes.py, dh_dlopenlibdeps and dlopen_notes.attr
 * where those define an output; docs/packaging.md says where and why we differ. */
#ifndef DLNOTE_PKGDEPS_H
#define DLNOTE_PKGDEPS_H

#include <stdio.h>

#include "deps.h"

/* Soname -> Debian packages, from `dpkg-query --search` output or lines written the same way. */
struct debmap {
	struct debmap_pair {
		char *soname, *package;
		size_t line;
	} * v;
	size_t n, cap;
};

/* Parse a soname -> package map: lines "PACKAGE[, PACKAGE...]: PATH" whose last path component
 * is the soname; ":ARCH" qualifiers are dropped, dpkg's diversion lines, '#' comments and blank
 * lines are skipped.  Errors carry the line number. */
int pkgdeps_debmap_parse(const char *text, size_t len, struct debmap *map, struct err *e);
void pkgdeps_debmap_free(struct debmap *map);

/* What rpm appends to a soname of this ELF class and machine, as its elfdeps does: "()(64bit)"
 * for ELFCLASS64 (but Alpha), else nothing. */
const char *pkgdeps_rpm_suffix(int is64, unsigned machine);

/* --format=rpm: "Requires: libfoo.so.1()(64bit)" lines.  With names in tags[] (--rpm-suggests,
 * ...), the strongest list that selects an entry's feature gives its tag, and entries no list
 * selects are left out; else each entry's own priority does.  Returns -1 when out of memory. */
int pkgdeps_rpm(const struct listing *l, struct namelist tags[RANKS], FILE *out);
/* --format=deb: the three substvars; an entry whose sonames no package provides is left out
 * with a warning naming map_path (unless quiet).  Returns -1 when out of memory. */
int pkgdeps_deb(const struct listing *l, const struct debmap *map, const char *map_path, int quiet,
		FILE *out);

/* ---- the rpm dependency generator (--rpm-generate) ---- */

/* %dlopen_notes_features: SUBPACKAGE:FEATURE:LEVEL declarations with shell globs. */
struct rpm_overrides {
	struct rpm_override {
		char *package, *feature;
		int rank;
	} * v; /* rank -1: ignored */
	size_t n;
};

struct rpm_generator {
	int kind;            /* the rank whose tag is generated: RANK_REQUIRED for requires */
	const char *package; /* the subpackage being generated (%{name}) */
	struct rpm_overrides over;
	int multifile; /* rpm >= 4.20's multifile protocol: ";FILE" before its lines */
};

/* "requires", "recommends", "suggests" as a rank, or -1. */
int pkgdeps_kind_parse(const char *name);
/* Append the declarations of one %dlopen_notes_features text: lines of whitespace-separated
 * SUBPACKAGE:FEATURE:LEVEL words; a line starting with '#' is a comment. */
int pkgdeps_overrides_parse(const char *text, struct rpm_overrides *o, struct err *e);
void pkgdeps_overrides_free(struct rpm_overrides *o);
/* The dependencies of one file's entries that get g->kind in g->package, one per line, each
 * once, in entry order; in the multifile protocol preceded by ";PATH" when there are any.
 * Returns -1 when out of memory. */
int pkgdeps_rpm_generate(const struct entries *es, const char *path, const char *suffix,
			 const struct rpm_generator *g, FILE *out);

#endif
