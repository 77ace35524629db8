/* SPDX-License-Identifier: MIT */
/* Fuzz the closure (src/closure/) over a root described by the input (tree.h: files, links,
 * loops, `..`), built in a private directory beside a mirror of it that is watched: nothing
 * outside the root is opened or read, every path the closure lists lies inside the root
 * (reached through real directories, no `..`), and its JSON listing parses back with the
 * strict reader. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure/closure.h"
#include "tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run the closure of the input's files; its listing into *out (allocated). */
static void run(const struct tree *t, int json, char **out, size_t *len)
{
	struct closure_opts o = {.root = t->root, .min_rank = RANK_SUGGESTED, .json = json};
	struct closure *c;
	struct err e;
	FILE *f = open_memstream(out, len);

	if (!f)
		abort();
	if ((c = closure_new(&o, &e))) {
		for (size_t i = 0; i < t->nfiles; i++)
			if (closure_add(c, t->files[i]) < 0)
				break;
		closure_print(c, f);
		closure_free(c);
	}
	fclose(f);
}

static void check_list(const struct tree *t, char *s, size_t len)
{
	for (char *p = s, *nl; p < s + len; p = nl + 1) {
		if (!(nl = memchr(p, '\n', (size_t)(s + len - p))))
			abort(); /* each path on its line */
		*nl = 0;
		if (!tree_path_inside(t, p)) {
			fprintf(stderr, "listed outside the root: %s\n", p);
			abort();
		}
	}
}

static void check_json(const char *s, size_t len)
{
	struct json j;
	struct err e;
	struct buf compact = {0};
	int bad;

	json_init(&j, s, len, &e);
	json_ws(&j);
	bad = json_value(&j, 0, &compact) || (json_ws(&j), json_peek(&j) != -1);
	buf_free(&compact);
	if (bad) {
		fprintf(stderr, "the JSON listing does not parse: %s\n%.*s\n", e.msg, (int)len, s);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tree t;
	const char *why;
	char *out = NULL;
	size_t len = 0;

	if (tree_build(&t, data, size))
		return 0;
	run(&t, 0, &out, &len);
	check_list(&t, out, len);
	free(out);
	out = NULL;
	run(&t, 1, &out, &len);
	check_json(out, len);
	free(out);
	if ((why = tree_touched())) {
		fprintf(stderr, "outside the root: %s\n", why);
		abort();
	}
	return 0;
}
