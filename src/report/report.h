/* SPDX-License-Identifier: MIT */
/* report.h - the interface of the report layer (src/report/).  It takes entries, ELF models,
 * archives, what the dependency layer (deps.h) and the lint (lint.h) find; it gives listings,
 * drafts, the check of a declared manifest, where an archive's entries travel and the --header
 * text.  It never edits an input file, and never chooses an exit status (it says whether
 * something was wrong).  Other folders include this header only; what its files share beyond
 * this is in report_int.h. */
#ifndef DLNOTE_REPORT_H
#define DLNOTE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../note/note.h"
#include "../elf/elf.h"
#include "../base/base.h"
#include "../archive/archive.h"
#include "../edit/edit.h"
#include "../deps/deps.h"
#include "../lint/lint.h"

/* travel.c: --check on a file and on an archive: entries that would reach a program more than
 * once, and for an archive, where each entry travels.
 *
 * A link takes an archive member only to resolve a symbol the member defines (the archive's
 * index lists them), so an entry reaches a program with the members that carry it: with any
 * member, when every member that defines symbols carries it; only with some; or never, when
 * the members carrying it define nothing (a note-only object), unless a link option pulls them.
 * Notes in COMDAT groups keyed on the same payload fold to one copy; other notes are copied
 * once per member taken. */

/* Entries of one file that appear more than once.  The file's own notes may repeat an entry, at
 * one priority or several (systemd 262's programs do; consumers take the strongest): said with
 * -v only, one line each.  An entry that `added` (a manifest the build added: --check -m,
 * --expect) also declares is an error: the manifest adds it beside the same entry in the code.
 * Appended to `report`: one "error: " line for all of them, naming a few, or one each with -v;
 * without -v and with `repeated`, no line: they are added to `repeated` (once each), for one
 * line of an archive's (travel_repeats_line).  Returns how many such entries. */
size_t travel_repeats(const struct entries *es, const struct entries *added, int verbose,
		      struct buf *report, struct entries *repeated);
/* The one line for the entries in `repeated` (a manifest's, also in the code). */
void travel_repeats_line(const struct entries *repeated, struct buf *out);

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
	size_t bare_members; /* members that define symbols and carry no entry */
	uint64_t sym_nth;    /* the last index symbol whose name was read, and its name */
	char sym[256];
	int sym_read;
	char lto_first[ARCHIVE_MAX_NAME + 1], foreign_first[ARCHIVE_MAX_NAME + 1];
	char bare_first[ARCHIVE_MAX_NAME + 1];
};

/* The archive's symbol index: how many symbols each member defines. */
int travel_index(struct travel *t, const struct archive *ar, const struct archive_member *m,
		 struct err *e);
/* One ELF member, opened and scanned (its notes already checked). */
int travel_member(struct travel *t, const struct archive_member *m, const struct elf *ef,
		  const struct scan *sc, struct err *e);
/* A member that is not ELF: LLVM bitcode (kind) or other data (kind NULL). */
void travel_foreign(struct travel *t, const struct archive_member *m, const char *kind);
/* Where each entry travels, a line each, then one summary line.  Entries in notes that do not
 * fold are a warning when `added` (the manifests given to --check) names them.  Returns the
 * number of errors (entries no link takes). */
size_t travel_report(struct travel *t, const struct entries *added, int quiet, const char *path,
		     FILE *out);
void travel_free(struct travel *t);

/* header.c: --header: entries as a C header that gives every object compiled with it
 * (-include) the notes, as payload-keyed COMDAT groups. */

/* The header's text (repeated entries once), appended to `out`. */
int header_render(const struct entries *es, struct buf *out, struct err *e);
/* Write it to `path` ("-": standard output), only when its bytes change, replacing the file as
 * -o replaces one (output_replace: a temporary and a rename, --fsync honoured). */
int header_write(const char *path, const struct entries *es, const struct output_opts *o,
		 struct err *e);

/* report.c: printing entries for people and for tools (--list), comparing them with a
 * declared manifest (--check --expect), and printing a discovered draft (--discover).  The
 * packaging formats (rpm, deb) are pkgdeps.c's (deps.h). */

/* The --format names in order, then the generator's own output (--rpm-generate). */
enum report_format {
	FORMAT_TABLE,
	FORMAT_JSON,
	FORMAT_SONAMES,
	FORMAT_FEATURES,
	FORMAT_RPM,
	FORMAT_DEB,
	FORMAT_JSONL,
	FORMAT_CYCLONEDX,
	FORMAT_SYMBOLS,
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
	struct rpm_generator gen;    /* --rpm-generate */
	const struct policy *policy; /* --policy, or NULL */
	size_t policy_refused;       /* entries of features the policy does not name (refused) */
	struct buf policy_first;     /* "PATH: ENTRY" of the first of them */
	int verbose;                 /* -v: a line for each of them too */
	struct libfind libs;         /* --build-root, and the libraries found */
	struct trace *trace;         /* --recorded: the symbols looked up during the tests */
};

/* Whether a format needs the symbols each file looks up (symbols, rpm, the generator). */
int report_format_symbols(enum report_format f);

void report_opts_free(struct report_opts *r);

/* After report_listing_add of one file (ef, scanned as sc), whose entries start at
 * l->es.v[first]: the symbols it looks up from the libraries of their sonames, for those
 * entries: named in its data (symbols.c), and with r->trace looked up during the recording
 * (trace_symbols.c). */
int report_listing_symbols(struct listing *l, size_t first, const struct elf *ef,
			   const struct scan *sc, struct report_opts *r, struct err *e);
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
 * (missing, new, changed priority), one per line; returns the number of differences.  With
 * `per_file`, the entries missing from every file are left to report_lint_file(), which said
 * them of each file. */
size_t report_lint(const struct entries *declared, const char *manifest_path,
		   const struct listing *found, int per_file, FILE *out);
/* --check --expect on one file the manifest applies to: one line naming the declared entries
 * `have` lacks (the first three, and how many more), when any.  Returns how many it lacks. */
size_t report_lint_file(const struct entries *declared, const char *manifest_path,
			const struct entries *have, const char *path, FILE *out);

/* --discover: the found sonames as a draft manifest that says it is a guess. */
void report_draft(const struct discovery *d, FILE *out);

#endif
