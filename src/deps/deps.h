/* SPDX-License-Identifier: MIT */
/* deps.h - the interface of the dependency layer (src/deps/).  It takes entries and ELF models;
 * it gives what they depend on: the spec's priorities as ranks and the feature names given on
 * the command line (deps.c), where a soname's library is (libfind.c), which of its symbols and
 * version nodes a file looks up (symbols.c), the sonames a file names without declaring them
 * (discover.c), the packages' dependencies (pkgdeps.c) and the priorities a --policy gives
 * (policy.c).  It never edits an input file, and never chooses an exit status.  Other folders
 * include this header only. */
#ifndef DLNOTE_DEPS_H
#define DLNOTE_DEPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../note/note.h"
#include "../elf/elf.h"
#include "../base/base.h"

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

void pkgdeps_debmap_free(struct debmap *map);

/* --format=rpm: "Requires: libfoo.so.1()(64bit)" lines.  With names in tags[] (--rpm-suggests,
 * ...), the strongest list that selects an entry's feature gives its tag, and entries no list
 * selects are left out; else each entry's own priority does.  Returns -1 when out of memory. */
int pkgdeps_rpm(const struct listing *l, struct namelist tags[RANKS], FILE *out);
/* --format=deb: the three substvars; an entry whose sonames no package provides is left out
 * with a warning naming map_path (unless quiet).  Returns -1 when out of memory. */
int pkgdeps_deb(const struct listing *l, const struct debmap *map, const char *map_path, int quiet,
		FILE *out);

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

#endif
