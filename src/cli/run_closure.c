/* SPDX-License-Identifier: MIT */
/* run_closure.c - --closure: every FILE into one walk of the root, the listing at the end
 * (see cli_int.h, docs/closure.md). */
#include <string.h>

#include "cli_int.h"

int run_closure_file(struct run *run, const char *path)
{
	const struct opts *o = &run->o;
	int r;

	if (!run->closure) {
		struct closure_opts co = {
			.root = o->root ? o->root : "/",
			.min_rank = o->min_priority ? o->min_priority - 1 : RANK_RECOMMENDED,
			.json = o->format_set && o->rep.format == FORMAT_JSON,
			.verbose = o->verbose,
			.skip_non_elf = o->skip_non_elf,
			.policy = o->policy_path ? &o->policy : NULL,
		};
		struct err e = {0};
		run->closure = closure_new(&co, &e);
		if (!run->closure) {
			err_report(co.root, &e);
			return EXIT_BAD_INPUT;
		}
	}
	r = closure_add(run->closure, path);
	if (r < 0) {
		print_oom();
		return EXIT_BAD_INPUT;
	}
	return r ? EXIT_BAD_INPUT : EXIT_OK;
}

int run_closure_finish(struct run *run, int failed)
{
	(void)failed; /* what was found is printed all the same: the messages say what is not */
	if (!run->closure)
		return EXIT_BAD_INPUT;
	switch (closure_print(run->closure, stdout)) {
	case 0: return EXIT_OK;
	case 1: return EXIT_BAD_INPUT;
	}
	print_oom();
	return EXIT_BAD_INPUT;
}
