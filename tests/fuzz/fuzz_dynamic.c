/* SPDX-License-Identifier: MIT */
/* Fuzz the dynamic section walk (src/elf/dynamic.c) on an ELF file: DT_NEEDED, DT_SONAME,
 * DT_RPATH, DT_RUNPATH and their string offsets, PT_INTERP.  Never a read outside the input
 * (ASan: the file is read from memory), and every name given back is a string of the file:
 * its bytes and their NUL are there, within the longest name kept. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf/elf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The name, with its NUL, is somewhere in the file. */
static void in_file(const uint8_t *data, size_t size, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (n > ELF_DYN_MAX_STRING || !memmem(data, size, s, n + 1))
		abort();
}

static int count_tag(void *ctx, uint64_t tag, uint64_t val)
{
	(void)tag, (void)val;
	return ++*(size_t *)ctx > 1u << 20; /* a table is never longer than its file */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elf ef;
	struct elf_dynamic d;
	struct elf_dyntab t;
	struct err e;
	char interp[256];
	size_t tags = 0;

	if (elf_open_mem(&ef, data, "fuzz", size, &e))
		return 0;
	if (elf_interp(&ef, interp, sizeof interp, &e) == 0 && strlen(interp) >= sizeof interp)
		abort();
	if (elf_dyntab_find(&ef, &t) && elf_dyntab_each(&ef, &t, count_tag, &tags, &e) == 0 &&
	    tags > size / 8)
		abort(); /* each entry is at least 8 bytes of the file */
	if (elf_dynamic_read(&ef, &d, &e) == 0) {
		if (!d.dynamic && (d.nneeded || d.soname || d.rpath || d.runpath))
			abort();
		for (size_t i = 0; i < d.nneeded; i++)
			in_file(data, size, d.needed[i]);
		in_file(data, size, d.soname);
		in_file(data, size, d.rpath);
		in_file(data, size, d.runpath);
		if (d.nneeded + d.unread > tags)
			abort(); /* one name per entry at most */
		elf_dynamic_free(&d);
	}
	elf_close(&ef);
	return 0;
}
