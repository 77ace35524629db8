/* SPDX-License-Identifier: MIT */
/* record_fixture.h - what the `--record` tests (test_record*.c) share.  Paths in a normalized
 * trace are relative to the work directory, shown as "W"; process ids are shown as the order in
 * which the programs printed them ("P1", "P2"...). */
#ifndef RECORD_FIXTURE_H
#define RECORD_FIXTURE_H

#include <stddef.h>

/* The work directory's real path (set by record_build()). */
extern char record_wd[4096];

/* Builds, in the work directory, prog and child (a copy), plugin.so and plugin_noplt.so and
 * libdlr_{a,b,c,t1..t4}.so.1; libdlr_a needs libdlr_c, prog needs libdlr_t4; all find their
 * libraries through RUNPATH $ORIGIN.  prog's arguments, one action each: o:NAME dlopen();
 * n:NAME dlopen(RTLD_NOLOAD); p:PATH dlopen() a plugin and run it; t:A,B,... one thread per name,
 * all at once; f:N start N copies of ./child at once with the remaining arguments; e:N write to
 * both streams and exit N; k:NAME fork a child (no exec) that dlopen()s NAME.  It prints
 * "pid N" first, then each dlopen() result. */
void record_build(void);

/* The trace file TRACE normalized: the work directory as "W", each pid as "Pk" (k: its rank in
 * PIDS), the callers' build-ids left out. */
char *record_trace_norm(const char *trace, const long *pids, size_t npids);

/* The lines of TEXT, sorted, joined again. */
char *record_sorted(const char *text);

/* Runs ./prog ARGS under --record=trace, asserting that its status, stderr and output (less the
 * "pid N" lines, sorted) are what it gives without the recording; returns the normalized trace
 * and the pids it printed. */
char *record_run(const char *args, long *pids, size_t *npids);

/* A program that prints "pid N" and "hi". */
extern const char record_hi_c[];

#define START(P, E) "{\"event\":\"start\",\"pid\":\"" P "\",\"exe\":\"" E "\"}\n"
#define ASKED(P, E, BY, C, N) "{\"event\":\"asked\",\"pid\":\"" P "\",\"exe\":\"" E "\",\"by\":\"" BY "\",\"caller\":\"" C \
	"\",\"name\":\"" N "\"}\n"
#define LOADED(P, E, BY, C, N, S, F) "{\"event\":\"loaded\",\"pid\":\"" P "\",\"exe\":\"" E "\",\"by\":\"" BY "\",\"caller\":\"" \
	C "\",\"name\":\"" N "\",\"soname\":\"" S "\",\"path\":\"" F "\"}\n"
/* A dlsym() result: the symbol, its version node, the library's soname and path. */
#define SYMBOL(P, E, C, N, V, S, F) "{\"event\":\"symbol\",\"pid\":\"" P "\",\"exe\":\"" E "\",\"by\":\"dlsym\",\"caller\":\"" \
	C "\",\"symbol\":\"" N "\",\"version\":\"" V "\",\"soname\":\"" S "\",\"path\":\"" F "\"}\n"

#endif
