/* SPDX-License-Identifier: MIT */
/* lint_int.h - private to src/lint/: what its files share beyond lint.h.  trace_match.c's
 * callers and trace_symbols.c's "symbol" lines, as trace.c reads them. */
#ifndef DLNOTE_LINT_INT_H
#define DLNOTE_LINT_INT_H

#include "lint.h"

/* trace_match.c: the trace's callers, one per path and build-id: the index of the one for
 * this ask (counted), or -1 when out of memory.  hidden: the loader is named instead of the
 * file that called. */
long trace_caller_add(struct trace *t, const char *path, const char *build_id, int hidden);
void trace_callers_free(struct trace *t);
/* trace_symbols.c: a "symbol" line kept. */
int trace_symbol_add(struct trace *t, size_t caller, const char *soname, const char *name,
		     const char *version);
void trace_symbols_free(struct trace *t);

#endif
