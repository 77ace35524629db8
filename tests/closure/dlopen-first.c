/* SPDX-License-Identifier: MIT */
/* dlopen-first.c - run inside a chroot by test_closure_debian.c: dlopen() each NAME in turn,
 * as a program does with the alternatives of a note entry, and print the path of the first
 * that loads ("none" and exit 1 when none does). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct link_map *m;
		void *h = dlopen(argv[i], RTLD_NOW);
		if (h && dlinfo(h, RTLD_DI_LINKMAP, &m) == 0) {
			printf("%s\n", m->l_name);
			return 0;
		}
	}
	puts("none");
	return 1;
}
