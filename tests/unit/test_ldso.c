/* SPDX-License-Identifier: MIT */
/* test_ldso.c - the system search path of a root's loader read from its read-only data
 * (src/closure/ldso.c, docs/closure.md "How a library is found" 6): this machine's own ld.so
 * against what `ld.so --help` prints; and files made here, of each class and byte order, as
 * glibc lays the path out (the directories, each ending with '/', and an array of their
 * lengths as size_t): found with sections and without; a string beside the path and a copy
 * whose first directory is the tail of a longer string left out; no lengths, or two different
 * paths, refused with the reason. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure/closure_int.h"

#include "helpers.h"

/* The directories of ldso_system_dirs on those bytes, each followed by '|'; or "1: REASON". */
static const char *dirs_of(const void *data, size_t len)
{
	static char out[1024];
	struct dirlist l = {0};
	struct err e = {0};
	int fd = t_tmpfile(data, len), rc = ldso_system_dirs(fd, "ld.so", &l, &e);
	size_t pos = 0;
	const char *d;

	close(fd);
	out[0] = 0;
	if (rc)
		snprintf(out, sizeof out, "%d: %s", rc, e.msg);
	while (rc == 0 && (d = dirlist_next(&l, &pos)) != NULL)
		snprintf(out + strlen(out), sizeof out - strlen(out), "%s|", d);
	buf_free(&l.text);
	return out;
}

/* A loader's read-only data: `before` bytes, then the lengths of the NUL-separated DIRS (a
 * string of n directories) as words of the class, unless `no_lengths`, then the strings. */
static size_t rodata(unsigned char *p, int is64, int big, const char *before, size_t blen,
		     const char *dirs, size_t dlen, int no_lengths)
{
	size_t w = is64 ? 8 : 4, at = 0;

	memcpy(p, before, blen);
	at = (blen + w - 1) / w * w;
	memset(p + blen, 0, at - blen);
	for (size_t i = 0; !no_lengths && i < dlen; i += strlen(dirs + i) + 1, at += w)
		t_put(p + at, (int)w, strlen(dirs + i), big);
	memcpy(p + at, dirs, dlen);
	return at + dlen;
}

static const char debian[] = "/lib/x86_64-linux-gnu/\0/usr/lib/x86_64-linux-gnu/\0/lib/\0/usr/lib/";
#define DEBIAN_DIRS "/lib/x86_64-linux-gnu|/usr/lib/x86_64-linux-gnu|/lib|/usr/lib|"

/* The file of one variant: .text, then .rodata holding `data`; sections kept or stripped. */
static const char *loader_of(int v, const unsigned char *data, size_t len, int stripped)
{
	static const unsigned char code[16] = {0xc3};
	struct t_sec secs[] = {
		{".text", SHT_PROGBITS_, SHF_ALLOC_ | SHF_EXECINSTR_, 16, code, sizeof code},
		{".rodata", SHT_PROGBITS_, SHF_ALLOC_, 32, data, len},
	};
	struct t_seg segs[] = {{PT_LOAD_, PF_R_ | PF_X_, 1, 4096}, {PT_LOAD_, PF_R_, 2, 4096}};
	struct t_image im;
	const char *r;

	t_build(&im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_DYN_, EM_X86_64_, secs, 2, segs, 2);
	if (stripped)
		t_strip_sections(&im);
	r = dirs_of(im.p, im.len);
	t_image_free(&im);
	return r;
}

Test(ldso, this_machines_loader_gives_what_its_help_prints)
{
	char want[1024] = "", line[512];
	FILE *f = popen("/lib64/ld-linux-x86-64.so.2 --help", "r");
	int fd;

	cr_assert(f);
	while (fgets(line, sizeof line, f)) {
		char *p = strstr(line, " (system search path)");
		if (p) {
			*p = 0;
			snprintf(want + strlen(want), sizeof want - strlen(want), "%s|", line + 2);
		}
	}
	pclose(f);
	cr_assert(want[0], "ld.so --help lists no system search path");
	fd = open("/lib64/ld-linux-x86-64.so.2", O_RDONLY);
	cr_assert(fd >= 0);
	{
		struct dirlist l = {0};
		struct err e = {0};
		char got[1024] = "";
		size_t pos = 0;
		const char *d;
		cr_assert_eq(ldso_system_dirs(fd, "ld.so", &l, &e), 0, "%s", e.msg);
		while ((d = dirlist_next(&l, &pos)) != NULL)
			snprintf(got + strlen(got), sizeof got - strlen(got), "%s|", d);
		cr_expect_str_eq(got, want);
		buf_free(&l.text);
	}
	close(fd);
}

Test(ldso, the_path_is_found_in_each_class_and_byte_order_with_sections_or_without)
{
	unsigned char data[512];

	for (int v = 0; v < 4; v++) {
		size_t n = rodata(data, T_VARIANT_IS64(v), T_VARIANT_BIG(v), "x", 1, debian,
				  sizeof debian, 0);
		const char *got = loader_of(v, data, n, 0);
		cr_expect_str_eq(got, DEBIAN_DIRS, "%s: %s", t_variant(v), got);
		cr_expect_str_eq(loader_of(v, data, n, 1), DEBIAN_DIRS, "%s, no sections",
				 t_variant(v));
	}
}

Test(ldso, a_string_beside_the_path_and_a_copy_inside_a_longer_string_are_left_out)
{
	unsigned char data[512];
	size_t n = rodata(data, 1, 0, "x", 1, debian, sizeof debian, 0);

	/* the copy `ld.so --help` keeps, its first directory the tail of "...-gnu/" */
	memcpy(data + n, "some/lib/x86_64-linux-gnu/", 26);
	memcpy(data + n + 26, debian + 22, sizeof debian - 22);
	cr_expect_str_eq(loader_of(2, data, n + 26 + sizeof debian - 22, 0), DEBIAN_DIRS);
	/* a string on each side of the directories whose lengths are there */
	n = rodata(data, 1, 0, "x", 1, "/etc/", 6, 1);
	memcpy(data + n, debian, sizeof debian);
	memcpy(data + n + sizeof debian, "/opt/", 6);
	n += sizeof debian + 6;
	memset(data + n, 0, 8);
	n = (n + 7) / 8 * 8;
	for (size_t i = 0, at = n; i < sizeof debian; i += strlen(debian + i) + 1, at += 8)
		t_put(data + at, 8, strlen(debian + i), 0);
	cr_expect_str_eq(loader_of(2, data, n + 32, 0), DEBIAN_DIRS);
}

Test(ldso, no_lengths_or_two_different_paths_are_refused_with_the_reason)
{
	unsigned char data[512];
	size_t n = rodata(data, 1, 0, "x", 1, debian, sizeof debian, 1);

	cr_expect_str_eq(loader_of(2, data, n, 0),
			 "1: no system search path in its read-only data (not glibc's ld.so?)");
	n = rodata(data, 1, 0, "x", 1, debian, sizeof debian, 0);
	n = (n + 7) / 8 * 8;
	n = rodata(data + n, 1, 0, "y", 1, "/lib64/\0/usr/lib64/", 20, 0) + n;
	cr_expect_str_eq(loader_of(2, data, n, 0),
			 "1: two different system search paths in its read-only data");
	/* one directory alone is not told from a chance string */
	n = rodata(data, 1, 0, "x", 1, "/lib/", 6, 0);
	cr_expect_str_eq(loader_of(2, data, n, 0),
			 "1: no system search path in its read-only data (not glibc's ld.so?)");
}

Test(ldso, the_usual_loader_of_a_machine)
{
	cr_expect_str_eq(ldso_usual(1, 0, EM_X86_64_, 0), "/lib64/ld-linux-x86-64.so.2");
	cr_expect_str_eq(ldso_usual(0, 0, EM_386_, 0), "/lib/ld-linux.so.2");
	cr_expect_str_eq(ldso_usual(0, 0, EM_ARM_, 0x400), "/lib/ld-linux-armhf.so.3");
	cr_expect_null(ldso_usual(0, 0, EM_SPARC_, 0));
}
