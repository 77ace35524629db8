/* SPDX-License-Identifier: MIT */
/* closure.h - the interface of the closure layer (src/closure/): what a copy of a program needs
 * to run inside a root directory.  It takes a root, programs inside it and a lowest priority;
 * it gives the paths (files and every symbolic link on the way) that the root's dynamic loader
 * would open for the programs, their DT_NEEDED libraries and the libraries their dlopen notes
 * name, transitively (docs/closure.md).  Every path is resolved inside the root, one component
 * at a time: nothing outside it is ever opened.  It never changes a file and never chooses an
 * exit status.  Other folders include this header only. */
#ifndef DLNOTE_CLOSURE_H
#define DLNOTE_CLOSURE_H

#include <stddef.h>
#include <stdio.h>

#include "../deps/deps.h"
#include "../base/base.h"

struct closure;

struct closure_opts {
	const char *root; /* the directory, as given ("/" by default) */
	int min_rank;     /* the weakest note priority followed (RANK_* of deps.h) */
	int json;         /* --format=json: each path with the reasons it is there */
	int verbose;
	int skip_non_elf;            /* a FILE that is not ELF is passed over quietly */
	const struct policy *policy; /* --policy, or NULL */
};

/* Open the root; NULL with the reason in e (the root cannot be opened, out of memory). */
struct closure *closure_new(const struct closure_opts *o, struct err *e);
/* Add FILE (a path inside the root: absolute, or relative to it) and all it needs.  What is
 * missing is said on standard error, once per cause.  Returns 0, 1 when something needed is
 * missing (a DT_NEEDED library, a required note entry) or FILE cannot be read, -1 when out of
 * memory. */
int closure_add(struct closure *c, const char *file);
/* Print the paths, sorted, each once (or the JSON document).  1 when a name could not be
 * listed (a newline in it: JSON only), -1 when out of memory. */
int closure_print(struct closure *c, FILE *out);
void closure_free(struct closure *c);

#endif
