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
	struct debmap_pair { char *soname, *package; size_t line; } *v;
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
int pkgdeps_deb(const struct listing *l, const struct debmap *map, const char *map_path, int quiet, FILE *out);

#endif
