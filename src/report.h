/* report.h - printing entries for people and for tools (--list), comparing them with a
 * declared manifest (--check --expect), and printing a discovered draft (--discover).
 *
 * The packaging formats follow package-notes' dlopen-notes.py, dh_dlopenlibdeps and
 * dlopen_notes.attr where those define an output; docs/packaging.md says where and why we
 * differ. */
#ifndef DLNOTE_REPORT_H
#define DLNOTE_REPORT_H

#include <stdio.h>

#include "discover.h"
#include "manifest.h"

enum report_format { FORMAT_TABLE, FORMAT_JSON, FORMAT_SONAMES, FORMAT_FEATURES, FORMAT_RPM, FORMAT_DEB };

/* The spec's priorities as ranks: a higher rank is a stronger dependency. */
enum { RANK_SUGGESTED, RANK_RECOMMENDED, RANK_REQUIRED, RANKS };

/* A --format name, or -1. */
int report_format_parse(const char *name);
/* A priority name, or -1. */
int report_rank_parse(const char *name, size_t len);

/* Names given on the command line as comma-separated lists.  Each remembers whether it selected
 * an entry, so that a name that selects nothing can be reported. */
struct namelist {
	char **v;
	unsigned char *used;
	size_t n;
	int given, all;            /* all: the option was given without names */
};

/* Soname -> Debian packages, from `dpkg-query --search` output or lines written the same way. */
struct debmap {
	struct debmap_pair { char *soname, *package; size_t line; } *v;
	size_t n;
};

struct report_opts {
	enum report_format format;
	struct namelist only_feature;     /* --only-feature; "" selects entries without a feature */
	unsigned only_rank;               /* --only-priority: bit per rank; 0 selects all */
	struct namelist rpm_tag[RANKS];   /* --rpm-suggests/--rpm-recommends/--rpm-requires */
	const char *deb_map_path;
	struct debmap deb_map;
};

/* Append the names of a comma-separated list.  `list` may be NULL (the option without a
 * value: every entry).  Returns -1 when out of memory. */
int report_namelist_add(struct namelist *l, const char *list);
void report_opts_free(struct report_opts *r);

/* Parse a soname -> package map: lines "PACKAGE[, PACKAGE...]: PATH" whose last path component
 * is the soname; ":ARCH" qualifiers are dropped, dpkg's diversion lines, '#' comments and blank
 * lines are skipped.  Errors carry the line number. */
int report_debmap_parse(const char *text, size_t len, struct debmap *map, struct err *e);

/* What --list and --check --expect gather from every FILE: the entries, in file order, and for
 * each one the file it came from and that file's rpm class suffix. */
struct listing {
	struct entries es;
	struct listing_from { const char *path; const char *rpm_suffix; } *from;
	char **paths;              /* the copies of the names `from` points to */
	size_t npaths;
};

/* What rpm appends to a soname of this ELF class and machine, as its elfdeps does: "()(64bit)"
 * for ELFCLASS64 (but Alpha), else nothing. */
const char *report_rpm_suffix(int is64, unsigned machine);
/* Append the entries of one file that the filters select (all of them when r is NULL). */
int report_listing_add(struct listing *l, const struct entries *es, const char *path, const char *rpm_suffix,
		struct report_opts *r);
void report_listing_free(struct listing *l);

/* A table like systemd-analyze's: FEATURE, DESCRIPTION, SONAME, PRIORITY.  Alternatives are
 * joined with ", ".  Absent values print as "-". */
void report_table(const struct entries *es, FILE *out);
/* The entries as one compact JSON array and a newline: exactly the note's payload. */
void report_json(const struct entries *es, FILE *out);
/* Every format but the table, for the entries of all files together.  Returns an exit status:
 * 1 when a name given to --only-feature or --rpm-* selected nothing. */
int report_list(const struct listing *l, struct report_opts *r, int quiet, FILE *out);

/* --check --expect: print each difference between the declared entries and the found ones
 * (missing, new, changed priority), one per line; returns the number of differences. */
size_t report_lint(const struct entries *declared, const char *manifest_path, const struct listing *found, FILE *out);

/* --discover: the found sonames as a draft manifest that says it is a guess. */
void report_draft(const struct discovery *d, FILE *out);

#endif
