/* SPDX-License-Identifier: MIT */
/* Fuzz the reader of --record's traces (src/lint/trace.c, the lines the lint reads): any
 * input either fails with a message that names its line, or gives asks and lookups whose
 * callers are the trace's, by name (never a path, never empty), which the lint's summary of
 * unmatched callers walks. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lint/lint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	struct trace t;
	struct trace_unmatched u;
	struct err e = {0};

	if (fd < 0 && (fd = memfd_create("trace", 0)) < 0)
		abort();
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (trace_load(path, &t, &e) != 0) {
		if (strncmp(e.msg, "line ", 5) && strcmp(e.msg, "out of memory"))
			abort(); /* every trace error names its line */
		trace_free(&t);
		return 0;
	}
	for (size_t i = 0; i < t.n; i++)
		if (t.v[i].caller >= t.ncallers || !t.v[i].name[0] || strchr(t.v[i].name, '/'))
			abort();
	for (size_t i = 0; i < t.nsyms; i++)
		if (t.syms[i].caller >= t.ncallers || !t.syms[i].name[0] || !t.syms[i].soname[0])
			abort();
	memset(&u, 0, sizeof u);
	trace_unmatched(&t, &u);
	trace_unmatched_free(&u);
	trace_free(&t);
	return 0;
}
