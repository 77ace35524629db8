/* SPDX-License-Identifier: MIT */
/* report.h - the report layer (src/report/: report, deps, pkgdeps, discover, trace, travel,
 * header).  It takes entries, ELF models, archives and traces; it gives listings, package
 * dependencies, drafts, lint lines and the --header text.  It never edits an input file, and
 * never chooses an exit status (it says whether something was wrong).
 *
 * report.h: printing entries for people and for tools (--list), comparing them with a
 * declared manifest (--check --expect), and printing a discovered draft (--discover).  The
 * packaging formats (rpm, deb) are in pkgdeps.h. */
#ifndef DLNOTE_REPORT_H
#define DLNOTE_REPORT_H

#include <stdio.h>

#include "deps.h"
#include "discover.h"
#include "../note/note.h"
#include "pkgdeps.h"

/* The --format names in order, then the generator's own output (--rpm-generate). */
enum report_format {
	FORMAT_TABLE,
	FORMAT_JSON,
	FORMAT_SONAMES,
	FORMAT_FEATURES,
	FORMAT_RPM,
	FORMAT_DEB,
	FORMAT_JSONL,
	FORMAT_RPM_GENERATE
};

/* A --format name, or -1. */
int report_format_parse(const char *name);

struct report_opts {
	enum report_format format;
	struct namelist only_feature;   /* --only-feature; "" selects entries without a feature */
	unsigned only_rank;             /* --only-priority: bit per rank; 0 selects all */
	struct namelist rpm_tag[RANKS]; /* --rpm-suggests/--rpm-recommends/--rpm-requires */
	const char *deb_map_path;
	struct debmap deb_map;
	struct rpm_generator gen; /* --rpm-generate */
};

void report_opts_free(struct report_opts *r);

/* Move the entries of one file that the filters select (all of them when r is NULL) out of es
 * into the listing: they are left empty there, and not copied. */
int report_listing_add(struct listing *l, struct entries *es, const char *path,
		       const char *rpm_suffix, struct report_opts *r);
void report_listing_free(struct listing *l);

/* A table like systemd-analyze's: FEATURE, DESCRIPTION, SONAME, PRIORITY.  Alternatives are
 * joined with ", ".  Absent values print as "-". */
void report_table(const struct entries *es, FILE *out);
/* The entries as one compact JSON array and a newline: exactly the note's payload. */
void report_json(const struct entries *es, FILE *out);
/* --format=jsonl: one line per file, {"path":...,"class":"ELF64","machine":62,"entries":[...]}. */
void report_jsonl(const struct entries *es, const char *path, int is64, unsigned machine,
		  FILE *out);
/* Every format but the per-file ones (table, jsonl, the generator), for the entries of all
 * files together.  Returns 1 when something went wrong, said on standard error: out of memory,
 * or a name given to --only-feature or --rpm-* selected nothing; else 0. */
int report_list(const struct listing *l, struct report_opts *r, int quiet, FILE *out);

/* --check --expect: print each difference between the declared entries and the found ones
 * (missing, new, changed priority), one per line; returns the number of differences. */
size_t report_lint(const struct entries *declared, const char *manifest_path,
		   const struct listing *found, FILE *out);

/* --discover: the found sonames as a draft manifest that says it is a guess. */
void report_draft(const struct discovery *d, FILE *out);

#endif
