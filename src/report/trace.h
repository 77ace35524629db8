/* SPDX-License-Identifier: MIT */
/* trace.h - reading a trace written by --record (the "asked" and "loaded" lines of the audit
 * module, see docs/recording.md), for `--discover --recorded` and `--check --recorded`. */
#ifndef DLNOTE_TRACE_H
#define DLNOTE_TRACE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "discover.h"
#include "../note/note.h"
#include "../base/base.h"

/* One dlopen() by name (not a path) as the loader saw it, in trace order.  Asks made for a
 * DT_NEEDED entry and dlopen() of a path (a plugin, not a soname dependency) are not kept. */
struct trace_ask {
	long pid;
	char *caller, *name;
	int loaded;       /* an object was mapped for it */
	char *soname;     /* that object's DT_SONAME, when it has one */
	char *build_id;   /* the caller's GNU build-id in hex, when the module read one */
	int caller_known; /* caller's dev/ino and realpath below are valid */
	dev_t dev;
	ino_t ino;
	char *caller_real;
};

struct trace {
	const char *path;
	struct trace_ask *v;
	size_t n;
	size_t unauditable; /* processes the module could not run in */
};

/* Read TRACE (streamed line by line).  Errors carry the line number. */
int trace_load(const char *path, struct trace *t, struct err *e);
void trace_free(struct trace *t);

/* FILE's own DT_NEEDED (and DT_SONAME) names count as declared: a dlopen() of a library the file
 * links anyway adds no dependency.  `ef` is FILE. */

/* --discover --recorded: append to d the name groups FILE (path) asked for and its notes
 * (declared) do not declare.  A group is a run of names one process of FILE tried in a row for
 * the same library (the same text before ".so"), each failing but the last: alternatives. */
int trace_discover(const struct trace *t, const struct elf *ef, const struct scan *sc,
		   const char *path, const struct entries *declared, struct discovery *d,
		   struct err *e);

/* --check --recorded: print to out each name FILE asked for that its notes do not declare, and
 * as information each declared entry none of whose sonames it asked for.  Returns the number of
 * undeclared names, or -1 (e set). */
long trace_check(const struct trace *t, const struct elf *ef, const struct scan *sc,
		 const char *path, const struct entries *declared, FILE *out, struct err *e);

#endif
