/* SPDX-License-Identifier: MIT */
/* test_closure_loaders.c - the system search path --closure reads from a root's loader
 * (src/closure/ldso.c, docs/closure.md "How a library is found" 6), for the loaders of Debian's
 * cross C libraries of eight architectures (32 and 64 bits, little and big endian): each is put
 * in a root at the path its ABI names, given as FILE (a FILE without PT_INTERP takes that
 * loader), and the path `-v` prints is the one the loader itself prints under qemu-user with
 * `--help` ("system search path"). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct loader {
	const char *qemu, *triplet, *path; /* path: in the root, as the ABI names it */
};

static const struct loader loaders[] = {
	{"qemu-aarch64", "aarch64-linux-gnu", "/lib/ld-linux-aarch64.so.1"},
	{"qemu-arm", "arm-linux-gnueabihf", "/lib/ld-linux-armhf.so.3"},
	{"qemu-i386", "i686-linux-gnu", "/lib/ld-linux.so.2"},
	{"qemu-mips", "mips-linux-gnu", "/lib/ld.so.1"},
	{"qemu-ppc64", "powerpc64-linux-gnu", "/lib64/ld64.so.1"},
	{"qemu-ppc64le", "powerpc64le-linux-gnu", "/lib64/ld64.so.2"},
	{"qemu-riscv64", "riscv64-linux-gnu", "/lib/ld-linux-riscv64-lp64d.so.1"},
	{"qemu-s390x", "s390x-linux-gnu", "/lib/ld64.so.1"},
};

Test(closure_loaders, each_architectures_loader_gives_the_search_path_its_help_prints)
{
	for (size_t i = 0; i < sizeof loaders / sizeof loaders[0]; i++) {
		const struct loader *l = &loaders[i];
		char *want, *got;
		need(l->qemu);
		free(sh("rm -rf r && mkdir -p \"r$(dirname %s)\" && cp -L \"/usr/%s/lib/$(basename %s)\" r%s", l->path,
			l->triplet, l->path, l->path));
		want = sh("%s -L /usr/%s r%s --help | sed -n 's/^  *\\(.*\\) (system search path)$/\\1/p' | paste -sd:",
			  l->qemu, l->triplet, l->path);
		got = sh("'%s' -v --closure --root=r %s 2>&1 >/dev/null | sed -n 's/.*: its system search path: //p'", tool(),
			 l->path);
		cr_expect(want[0], "%s: the loader printed no system search path", l->triplet);
		cr_expect_str_eq(got, want, "%s", l->triplet);
		free(want);
		free(got);
	}
}
