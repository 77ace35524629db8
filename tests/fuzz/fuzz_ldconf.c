/* SPDX-License-Identifier: MIT */
/* Fuzz the ld.so.conf reader (src/closure/ldconf.c) with its `include` globs, and the trusted
 * directories of a few classes and machines, on a root described by the input (tree.h): it
 * ends (include loops, deep nesting), nothing outside the root is opened or read, and every
 * directory it gives is written in a file of the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure/closure_int.h"
#include "tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned machines[][3] = {{1, 0, 62}, {0, 0, 3}, {1, 1, 22}, {0, 0, 40}};
	struct tree t;
	struct root r;
	struct dirlist dirs = {0};
	struct err e;
	const char *d, *why;
	size_t pos = 0;

	if (tree_build(&t, data, size) || root_open(&r, t.root, &e))
		return 0;
	if (ldconf_read(&r, &dirs, 0, &e) == 0)
		while ((d = dirlist_next(&dirs, &pos)) != NULL)
			if (d[0] != '/' || !memmem(data, size, d, strlen(d)))
				abort(); /* a directory no file of the root names */
	for (size_t i = 0; i < sizeof machines / sizeof *machines; i++) {
		struct ldflavour f;
		if (ldconf_flavour(&r, (int)machines[i][0], (int)machines[i][1], machines[i][2], 0,
				   &f, &e) == 0)
			ldconf_flavour_free(&f);
	}
	root_close(&r);
	buf_free(&dirs.text);
	if ((why = tree_touched())) {
		fprintf(stderr, "outside the root: %s\n", why);
		abort();
	}
	return 0;
}
