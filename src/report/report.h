/* SPDX-License-Identifier: MIT */
/* report.h - the interface of the report layer (src/report/).  It takes entries, ELF models,
 * archives and traces; it gives listings, package dependencies, drafts, lint lines and the
 * --header text.  It never edits an input file, and never chooses an exit status (it says
 * whether something was wrong).  Other folders include this header only; what its files share
 * beyond this is in report_int.h. */
#ifndef DLNOTE_REPORT_H
#define DLNOTE_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "../note/note.h"
#include "../elf/elf.h"
#include "../base/base.h"
#include "../archive/archive.h"
#include "../edit/edit.h"

/* deps.c: entries seen as dependencies: the spec's priorities as ranks, feature names given on
 * the command line, the entries gathered from files, and a set of rendered dependencies that
 * keeps each distinct one once, at its strongest rank.  Shared by the listings (report.c) and
 * the packaging outputs (pkgdeps.c). */

/* The spec's priorities as ranks: a higher rank is a stronger dependency. */
enum { RANK_SUGGESTED, RANK_RECOMMENDED, RANK_REQUIRED, RANKS };

/* A priority name, or -1. */
int deps_rank_parse(const char *name, size_t len);
/* A rank's name ("suggested", "recommended", "required"). */
const char *deps_rank_name(int rank);

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

/* libfind.c: where the library of a declared soname is, as dpkg-shlibdeps finds a linked
 * file's: in the package trees being built (--build-root, in the order given), then in the
 * system (the multiarch, multilib and default directories of the file's machine); only a shared
 * object of the file's class, byte order and machine counts.  A tree is searched as if it were
 * "/": its symbolic links never lead out of it. */
struct libfind_lib {
	char *soname;
	int is64, big;
	unsigned machine;
	int found;  /* the fields below are valid */
	char *path; /* ROOT/DIR/SONAME as found */
	int fd;
	struct elf ef;
	struct elf_dynsym syms;
};

struct libfind {
	const char **roots; /* --build-root */
	size_t nroots, roots_cap;
	struct libfind_lib **v; /* each library once per class and machine, held open */
	size_t n, cap;
};

/* The library of soname for a file like `of` (found or not: see ->found), or NULL (e set) when
 * the one found cannot be read or a tree cannot be searched safely. */
const struct libfind_lib *libfind_get(struct libfind *f, const char *soname, const struct elf *of,
				      struct err *e);
/* Before a file: close the libraries when many are open (what libfind_get gave is then gone). */
void libfind_trim(struct libfind *f);
void libfind_free(struct libfind *f);

/* symbols.c: which exported symbols of each declared soname a file looks up.  From the file
 * alone, a heuristic: every C string of its read-only data (and every tail of one, which the
 * linker may have merged into a longer string) that the library defines, at the version node
 * it defines it at.  It misses names built at run time ("%s_init") and may count a string that
 * is no lookup (a message that ends with a function's name, a tail of a longer name). */
struct symref {
	char *soname;
	char *name;    /* NULL: no symbol of the soname is known */
	char *version; /* the version node, "" when none */
	char *library; /* the library's path, NULL when none was found */
	size_t file;   /* the file that looks it up: its index in the listing's paths */
	int recorded;  /* looked up during a recording (--recorded), not guessed */
};

struct symbols {
	struct symref *v;
	size_t n, cap;
};

int symbols_add(struct symbols *s, const char *soname, const char *name, const char *version,
		const char *library, size_t file, int recorded);
/* Append what file (ef, the listing's file index `file`) looks up from the libraries of the
 * sonames of its entries: one record per distinct symbol, and one without a name for a soname
 * none of whose symbols it names (its library, or none). */
int symbols_file(struct libfind *f, const struct elf *ef, const struct entries *es, size_t file,
		 struct symbols *out, struct err *e);
/* The distinct version nodes of soname among records [first, first+n), sorted, each followed by
 * a NUL byte, into out (emptied first); returns how many (out->oom on failure). */
size_t symbols_versions(const struct symbols *s, size_t first, size_t n, const char *soname,
			struct buf *out);
/* --format=symbols: "SONAME SYMBOL VERSION SOURCE LIBRARY" lines, sorted, each once; "-" for
 * what is not known.  Returns -1 when out of memory. */
int symbols_list(const struct symbols *s, FILE *out);
void symbols_free(struct symbols *s);

/* What --list and --check --expect gather from every FILE: the entries, in file order, and for
 * each one the file it came from (a copy, in paths), that file's rpm class suffix and the
 * records of the symbols it looks up (syms.v[sym_first..sym_first+sym_n)). */
struct listing {
	struct entries es;
	struct listing_from {
		const char *path;
		const char *rpm_suffix;
		size_t sym_first, sym_n;
	} * from;
	char **paths; /* the copies of the names `from` points to */
	size_t npaths, paths_cap;
	size_t from_cap;
	struct symbols syms;
};

/* discover.c: a heuristic for finding undeclared dlopen() dependencies: strings shaped like
 * sonames (lib*.so.N) in a file's read-only data that are neither in its DT_NEEDED list nor in
 * its dlopen notes.  A program that calls dlopen("libz.so.1") carries that string in .rodata.
 *
 * It guesses: a string may be a log message, and a name built at run time is not seen.  The
 * result is a draft for a human to finish, never something to inject as is. */

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
/* After the last file: each soname once, sorted. */
void discover_finish(struct discovery *d);
void discover_free(struct discovery *d);

/* trace.c: reading a trace written by --record (the "asked" and "loaded" lines of the audit
 * module, see docs/recording.md), for `--discover --recorded` and `--check --recorded`. */

/* One file that called dlopen() by name during the recording, once however often it asked: the
 * path and GNU build-id the module wrote, and what the lint learns of the file there now. */
struct trace_caller {
	char *path;     /* as the module wrote it */
	char *build_id; /* its GNU build-id then (hex), or NULL */
	int known;      /* the file at path now: device and inode */
	dev_t dev;
	ino_t ino;
	char *real;    /* and its real path, or NULL */
	int in_tree;   /* under the recording's working directory (or, for an older trace, the
			* lint's): a file of the build tree, which the package may ship */
	int by_loader; /* the loader itself is named: it hides the file that called (a tail
			* call through a GOT entry from a constructor) */
	size_t asks;   /* its dlopen() asks by name */
	/* Read when first needed (trace_match.c): the file there now and its code identity. */
	int read;
	const char *changed;     /* NULL when the file there is the one that ran; else why not */
	struct elf_code_id code; /* its code identity when it is */
	int hashed;
	const char *matched; /* how a FILE checked was found to be this caller, or NULL */
};

/* One dlopen() by name (not a path) as the loader saw it, in trace order.  Asks made for a
 * DT_NEEDED entry and dlopen() of a path (a plugin, not a soname dependency) are not kept. */
struct trace_ask {
	long pid;
	size_t caller; /* index into the trace's callers */
	char *name;
	int loaded;   /* an object was mapped for it */
	char *soname; /* that object's DT_SONAME, when it has one */
};

/* One dlsym() or dlvsym() result (a "symbol" line: glibc >= 2.35 reports them): the library's
 * soname, the symbol, the version node it resolved at ("" for none). */
struct trace_symbol {
	size_t caller; /* index into the trace's callers */
	char *soname, *name, *version;
};

struct trace {
	const char *path;
	struct trace_ask *v;
	size_t n;
	struct trace_symbol *syms;
	size_t nsyms, syms_cap;
	struct trace_caller *callers;
	size_t ncallers;
	size_t *slots, nslots;  /* callers' indexes + 1 by the hash of path and build-id */
	char *cwd;              /* the recording's working directory (its "record" line), or NULL */
	char *tree, *tree_real; /* the build tree: cwd, else the lint's (trace_match.c) */
	size_t processes;       /* "start" lines: processes recorded */
	size_t unauditable;     /* processes the module could not run in */
};

/* Read TRACE (streamed line by line).  Errors carry the line number. */
int trace_load(const char *path, struct trace *t, struct err *e);
void trace_free(struct trace *t);

/* FILE's own DT_NEEDED (and DT_SONAME) names count as declared: a dlopen() of a library the file
 * links anyway adds no dependency.  `ef` is FILE. */

/* trace_match.c: which callers of the trace a FILE is.  A caller is FILE when both have the same
 * GNU build-id; when both are the same file now (device and inode, or real path); or when the
 * file at the caller's path is still the one that ran (the same build-id as recorded) and has
 * the same code identity as FILE (elf.h: the build tree's file, after find-debuginfo gave the
 * shipped copy a new build-id).  is[i] says how caller i was recognised (NULL: it is not FILE);
 * *is is allocated, with t->ncallers slots.  Marks the callers found. */
int trace_match(struct trace *t, const char *path, const struct elf *ef, const struct scan *sc,
		const char ***is, struct err *e);

/* After the last FILE: the callers of the build tree that dlopen()ed by name and that no FILE
 * checked was (their dlopen() calls were not linted), and those the loader hid. */
struct trace_unmatched {
	size_t tree;       /* callers of the build tree that dlopen()ed */
	size_t unmatched;  /* of them, those no FILE was */
	size_t by_loader;  /* asks whose caller the loader hid */
	struct buf hidden; /* the names they asked for, the first three */
	struct buf first;  /* "PATH (why), PATH" for the first three unmatched */
	struct buf all;    /* one line per unmatched caller, for -v */
};
int trace_unmatched(struct trace *t, struct trace_unmatched *u);
void trace_unmatched_free(struct trace_unmatched *u);

/* --discover --recorded: append to d the name groups FILE (path) asked for and its notes
 * (declared) do not declare.  A group is a run of names one process of FILE tried in a row for
 * the same library (the same text before ".so"), each failing but the last: alternatives. */
int trace_discover(struct trace *t, const struct elf *ef, const struct scan *sc, const char *path,
		   const struct entries *declared, struct discovery *d, struct err *e);

/* --check --recorded: what the lint found in one FILE. */
struct trace_verdict {
	long undeclared;   /* dependencies it dlopen()ed that it does not declare */
	size_t callers;    /* callers of the trace that are FILE */
	size_t recorded;   /* dependencies it dlopen()ed (groups of alternatives) */
	struct buf unused; /* declared entries none of whose names it dlopen()ed: "a, b or c" */
	size_t nunused;
};
/* Print to out each dependency FILE dlopen()ed that its notes do not declare; with verbose,
 * also how FILE was recognised in the trace and each declared entry it did not dlopen().
 * Returns -1 (e set) or 0. */
int trace_check(struct trace *t, const struct elf *ef, const struct scan *sc, const char *path,
		const struct entries *declared, int verbose, FILE *out, struct trace_verdict *v,
		struct err *e);
void trace_verdict_free(struct trace_verdict *v);

/* travel.c: --check on a file and on an archive: entries that would reach a program more than
 * once, and for an archive, where each entry travels.
 *
 * A link takes an archive member only to resolve a symbol the member defines (the archive's
 * index lists them), so an entry reaches a program with the members that carry it: with any
 * member, when every member that defines symbols carries it; only with some; or never, when
 * the members carrying it define nothing (a note-only object), unless a link option pulls them.
 * Notes in COMDAT groups keyed on the same payload fold to one copy; other notes are copied
 * once per member taken. */

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
/* Where each entry travels, a line each, then one summary line.  Returns the number of
 * errors (entries no link takes). */
size_t travel_report(struct travel *t, const char *path, int quiet, FILE *out);
void travel_free(struct travel *t);

/* pkgdeps.c: dependencies for packages: rpm's Requires/Recommends/Suggests and Debian's
 * dlopen:Depends/Recommends/Suggests substvars from the entries of the packaged files.
 *
 * The formats follow package-notes' dlopen-notes.py, dh_dlopenlibdeps and dlopen_notes.attr
 * where those define an output; docs/packaging.md says where and why we differ. */

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

/* What rpm appends to a soname of this ELF class and machine, as its elfdeps does: "()(64bit)"
 * for ELFCLASS64 (but Alpha), else nothing. */
const char *pkgdeps_rpm_suffix(int is64, unsigned machine);

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
/* The dependencies of one file's entries (the listing of that file alone) that get g->kind in
 * g->package, one per line, each once, in entry order, with the version nodes of the symbols it
 * looks up (its listing's records); in the multifile protocol preceded by ";PATH" when there
 * are any.  Returns -1 when out of memory. */
int pkgdeps_rpm_generate(const struct listing *one, const struct rpm_generator *g, FILE *out);

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
 * packaging formats (rpm, deb) are pkgdeps.c's (above). */

/* policy.c: --policy=FILE, applied by every consumer (docs/policy.md):
 *   {"unknown": "accept" | "error",
 *    "features": [{"feature": GLOB, "files": GLOB, "priority": P | "ignored"}, ...]}
 * The first rule whose feature glob matches an entry's feature ("" for none) and whose files
 * glob (when given) matches the end of the declaring file's path decides. */
enum { POLICY_IGNORED = -2, POLICY_UNKNOWN = -3 };
struct policy {
	struct policy_rule {
		char *feature, *files;
		int rank, has_rank; /* rank: RANK_* or POLICY_IGNORED */
	} * v;
	size_t n;
	int unknown_error;
	int unknown_given, features_given; /* while parsing: each key once */
};

int policy_parse(const char *text, size_t len, struct policy *p, struct err *e);
void policy_free(struct policy *p);
/* The rank an entry of `file` gets: a rule's, else its own (POLICY_UNKNOWN when the policy
 * refuses features it does not name); POLICY_IGNORED.  p may be NULL: the entry's own. */
int policy_rank(const struct policy *p, const struct entry *en, const char *file);
/* Write that rank into the entry's "priority". -1 when out of memory. */
int policy_set_priority(struct entry *en, int rank);

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
 * (missing, new, changed priority), one per line; returns the number of differences. */
size_t report_lint(const struct entries *declared, const char *manifest_path,
		   const struct listing *found, FILE *out);

/* --discover: the found sonames as a draft manifest that says it is a guess. */
void report_draft(const struct discovery *d, FILE *out);

#endif
