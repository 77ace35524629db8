/* SPDX-License-Identifier: MIT */
/* lint.h - the interface of the lint layer (src/lint/): a trace written by --record read back
 * (trace.c), the files that called dlopen() in it matched with the FILEs checked
 * (trace_match.c) and their dlsym() lookups (trace_symbols.c), for `--check --recorded`,
 * `--discover --recorded` and `--list --recorded`.  It never edits an input file, and never
 * chooses an exit status (it says whether something was wrong).  Other folders include this
 * header only; what its files share beyond this is in lint_int.h. */
#ifndef DLNOTE_LINT_H
#define DLNOTE_LINT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "../note/note.h"
#include "../elf/elf.h"
#include "../base/base.h"
#include "../deps/deps.h"

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

/* trace_symbols.c: the symbols FILE (path, ef, sc: one of the trace's callers, as trace_match
 * finds it) looked up from the sonames its entries es declare, appended to out as recorded
 * records of the listing's file `file`. */
int trace_symbols_of(struct trace *t, struct libfind *f, const char *path, const struct elf *ef,
		     const struct scan *sc, const struct entries *es, size_t file,
		     struct symbols *out, struct err *e);
void trace_callers_free(struct trace *t);

#endif
