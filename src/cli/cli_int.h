/* SPDX-License-Identifier: MIT */
/* cli_int.h - the command-line layer (src/cli/), above all others, and private to it: nothing
 * calls this layer but main().  It takes argv; it gives the edited files, what is printed, and
 * the exit status (chosen here only).  It never parses ELF or JSON itself: the layers below do.
 *
 * What the command line asks for (struct opts, filled by cli.c), and the stages that carry it
 * out: files.c reads the inputs and dispatches each FILE, members.c each member of an archive,
 * actions.c runs a mode on one ELF object.  Calls go one way: cli -> files -> members ->
 * actions.  record.c runs --record, for cli.c. */
#ifndef DLNOTE_CLI_INT_H
#define DLNOTE_CLI_INT_H

#include <sys/stat.h>

#include "../closure/closure.h"
#include "../deps/deps.h"
#include "../lint/lint.h"
#include "../report/report.h"
#include "../elf/elf.h"
#include "../edit/edit.h"
#include "../note/note.h"
#include "../base/base.h"

/* Exit statuses, chosen here only: the tool never dies from a signal and never exits with
 * anything else (--record ends as COMMAND did, below). */
enum { EXIT_OK = 0, EXIT_BAD_INPUT = 1, EXIT_USAGE = 2 };

enum mode {
	MODE_REPLACE,
	MODE_MERGE,
	MODE_REMOVE,
	MODE_LIST,
	MODE_CHECK,
	MODE_DISCOVER,
	MODE_RECORD,
	MODE_HEADER,
	MODE_CLOSURE
};

/* Whether the mode writes files (replace, merge, remove) or only reads them (list, check,
 * discover); --record and --header take no FILE. */
static inline int mode_edits(int mode)
{
	return mode == MODE_REPLACE || mode == MODE_MERGE || mode == MODE_REMOVE;
}

/* Whether the mode takes entries (replace, merge): from manifests or flags. */
static inline int mode_takes_entries(int mode)
{
	return mode == MODE_REPLACE || mode == MODE_MERGE;
}

/* The exit status of an error a stage reported. */
static inline int exit_status(const struct err *e)
{
	return e->usage ? EXIT_USAGE : EXIT_BAD_INPUT;
}

/* What the command line asks for, and the inputs it names (manifests, the trace, the map),
 * read once: cli.c and files.c fill it before the first FILE. */
struct opts {
	enum mode mode;
	int mode_set, verbose, quiet, skip_non_elf;
	const char *format_opt;    /* the first of --json, --format, --rpm-*: for usage errors */
	int format_set, list_only; /* list_only: an option that only --list takes was given */
	const char *output;
	struct output_opts out;
	struct entries add;      /* manifest entries, then flag entries, in order */
	struct report_opts rep;  /* --list formats and filters */
	const char *expect_path; /* --check --expect */
	struct entries expect;
	const char *record_path;   /* --record */
	const char *recorded_path; /* --discover/--check --recorded */
	struct trace trace;
	const char *files_from; /* --files-from: more FILEs, one per line ('-': standard input) */
	int null_sep;           /* -0/--null: the list's names end with NUL bytes */
	int generate;           /* --rpm-generate: an rpm dependency generator */
	const char *gen_opt;    /* the first option only --rpm-generate takes */
	const char *stdin_user; /* the option that reads standard input, if one does */
	char **manifests;       /* -m paths, read once the options are known to be right */
	size_t nmanifests, manifests_cap;
	const char **members; /* --member: only these archive members */
	size_t nmembers;
	const char *root;        /* --closure --root */
	const char *policy_path; /* --policy */
	struct policy policy;
	int min_priority; /* --closure --min-priority: its rank + 1; 0 when not given */
};

/* What the FILEs give, gathered across them and printed once at the end (files_finish). */
struct gathered {
	struct listing listed; /* --list (but the table) and --check --expect: all files' entries */
	/* --check --expect: the files held to the manifest, the entries they lack in all */
	size_t expect_files, expect_missing;
	struct discovery found; /* --discover */
};

/* One run of the tool: the settings, what is gathered, and what the object planner keeps from
 * one object to the next. */
struct run {
	struct opts o;
	struct closure *closure; /* --closure: the walk, shared by every FILE */
	struct gathered got;
	struct objplan_memo memo[2]; /* replace: per byte order, kept across objects (edit.h) */
};

/* What a listing needs to know of the file its entries come from (for an archive: its first
 * ELF member). */
struct file_kind {
	int is64, object;
	unsigned machine;
};

/* actions.c: one mode on one ELF object (a file or an archive member). */
void action_file_kind(const struct elf *ef, struct file_kind *k);
/* --list: the table, JSON Lines and the rpm generator print per file; other formats gather.
 * ef, sc: the file and its scan (NULL for an archive's merged members). */
int action_list(struct run *run, const char *path, const struct elf *ef, const struct scan *sc,
		struct entries *es, const struct file_kind *k, int many, struct err *e);
/* in_archive: no "ok" line (the archive's summary says it, travel.c).  gather: NULL, or where
 * the error and warning lines go instead of standard output (text only, one a line: an
 * archive gathers its members' and prints each distinct one once), and the manifest's entries
 * that the code declares too go to `repeated` (one line for the archive); *nrepeated gets how
 * many this object has. */
int action_check(struct run *run, const char *path, const struct elf *ef, const struct scan *sc,
		 int in_archive, struct buf *gather, struct entries *repeated, size_t *nrepeated,
		 struct err *e);
int action_discover(struct run *run, const char *path, const struct elf *ef, const struct scan *sc,
		    struct err *e);
/* What edits drop or replace of the entries files had, said on standard error once the edit is
 * written (one line per file or archive, unless --quiet): replace drops the file's entries the
 * manifest does not name (same feature and sonames); --merge replaces the file's entries that a
 * manifest entry of the same feature and sonames contradicts. */
struct said {
	struct entries dropped, replaced; /* each distinct entry once */
	size_t members;                   /* the archive members that dropped or replaced one */
	/* Notes aligned beyond 8 (docs/layout.md): how many the edit dropped or wrote again, in
	 * how many members, where the first were; those of them --merge could not decode. */
	size_t misaligned, misaligned_members, lost;
	char where[200], first_lost[200];
};
/* Print what `s` holds about `path` (an archive: counting its members), and empty it. */
void action_said(const struct run *run, const char *path, struct said *s, int archive);
void action_said_clear(struct said *s);
/* The edit of one object as a plan (printed with -v, -vv); `label` names it in messages.
 * `said` gathers what the edit drops or replaces; NULL when the plan is only a question (an
 * archive asks each member whether it changes, then plans it again to write it). */
/* --check --expect on one file (an archive: its members' entries together) the manifest applies
 * to: a line naming the declared entries it lacks; returns how many. */
size_t action_expect_file(struct run *run, const char *path, struct entry *v, size_t n);
int action_plan_edit(struct run *run, const char *label, const struct elf *ef,
		     const struct scan *sc, struct plan *pl, struct said *said, struct err *e);
int action_edit(struct run *run, const char *path, int fd, const struct stat *st,
		const struct elf *ef, const struct scan *sc, struct err *e);

/* members.c: every ELF member of an archive, read in place; written by streaming. */
int members_process(struct run *run, const char *path, int fd, const struct stat *st, int many);

/* files.c: the inputs (manifests, maps, the trace, FILEs and --files-from lists). */
/* A manifest's entries, added to *out: an entry equal to one already there is folded (several
 * manifests may declare it), one of the same feature and sonames that differs is refused, the
 * error naming `path` (so is the same contradiction inside one manifest). */
int files_load_manifest(const char *path, struct entries *out);
/* The same for entries from elsewhere (the command line's flags), `from` naming them. */
int files_add_entries(const char *from, struct entries *out, const struct entries *add);
int files_load_deb_map(const char *path, struct debmap *out);
/* --policy: read and parse; the listings and the closure apply it from then on. */
int files_load_policy(const char *path, struct policy *out);
int files_load_trace(struct opts *o);
/* many: several FILEs (or a list), so the table names each one. */
int files_process(struct run *run, const char *path, int many);
int files_process_list(struct run *run);
/* What is printed once for all files; `failed`: a FILE could not be read. */
int files_finish(struct run *run, int failed);

/* usage.c: the text of --help. */
extern const char usage_text[];

/* run_closure.c: --closure.  Each FILE is added to one walk (files.c calls it for every name,
 * --files-from's too); the paths are printed once at the end. */
int run_closure_file(struct run *run, const char *path);
int run_closure_finish(struct run *run, int failed);

/* record.c: `--record=TRACE -- COMMAND [ARG]...`: run COMMAND with the rtld-audit module
 * (src/audit/) so that every dlopen() after start-up is appended to TRACE, in
 * COMMAND and in every child it starts.  See docs/recording.md. */

/* Exit statuses of --record itself, as env(1) has them: COMMAND's own status when it ran. */
enum { RECORD_FAILED = 125, RECORD_CANNOT_RUN = 126, RECORD_NOT_FOUND = 127 };

/* Runs COMMAND (argv, NULL-terminated) as a child with the recording set and returns its exit
 * status; a COMMAND killed by a signal kills the tool by the same signal.  The tool's own failures
 * return a status above, the reason printed.  A COMMAND the module cannot audit still runs: TRACE
 * gets an "unauditable" line for it and standard error one message; the processes of the
 * recording the module found it could not follow get one line at the end, with their count. */
int record_run(const char *trace, char **argv);

#endif
