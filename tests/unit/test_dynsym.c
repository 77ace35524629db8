/* SPDX-License-Identifier: MIT */
/* test_dynsym.c - dynamic symbols looked up by name (src/elf/dynsym.c) in small shared objects
 * written here byte by byte (ELF64 little-endian, program headers only, as a stripped library
 * is read): through .gnu.hash and through .hash, at the default version only, and every table
 * that does not fit, loops or names a version it does not define refused with its reason. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

/* Where each table goes; the PT_LOAD maps the whole file at address 0. */
enum {
	SYMTAB = 0x100,
	STRTAB = 0x300,
	HASH = 0x400,
	VERSYM = 0x600,
	VERDEF = 0x680,
	DYNAMIC = 0x800,
	SIZE = 0x900
};

/* Symbols 1..5: alpha@V1 (index 2), beta@V2 hidden (0x8003), beta@@V3 (4), gamma undefined,
 * delta unversioned (1). */
static const char *const names[] = {"", "alpha", "beta", "beta", "gamma", "delta"};
static const unsigned versyms[] = {0, 2, 0x8003, 4, 1, 1};
enum { NSYM = 6 };

struct image {
	unsigned char p[SIZE];
	uint32_t name_off[NSYM];
};

static void put(unsigned char *p, uint64_t v, int w)
{
	for (int i = 0; i < w; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void dyn(struct image *im, int *n, uint64_t tag, uint64_t val)
{
	put(im->p + DYNAMIC + 16 * (*n), tag, 8);
	put(im->p + DYNAMIC + 16 * (*n) + 8, val, 8);
	(*n)++;
}

/* The image with a .gnu.hash (gnu) or a .hash table. */
static void build(struct image *im, int gnu)
{
	unsigned char *e = im->p, *ph;
	uint32_t str = 1;
	int nd = 0;

	memset(im, 0, sizeof *im);
	memcpy(e, "\177ELF\2\1\1", 7);
	put(e + 16, ET_DYN_, 2);
	put(e + 18, EM_X86_64_, 2);
	put(e + 20, 1, 4);
	put(e + 32, 64, 8); /* e_phoff */
	put(e + 52, 64, 2);
	put(e + 54, 56, 2);
	put(e + 56, 2, 2);
	ph = e + 64;
	put(ph, PT_LOAD_, 4);
	put(ph + 4, PF_R_, 4);
	put(ph + 32, SIZE, 8);
	put(ph + 40, SIZE, 8);
	put(ph + 48, 0x1000, 8);
	ph += 56;
	put(ph, PT_DYNAMIC_, 4);
	put(ph + 8, DYNAMIC, 8);
	put(ph + 16, DYNAMIC, 8);
	put(ph + 32, 0x100, 8);
	put(ph + 40, 0x100, 8);
	for (int i = 1; i < NSYM; i++) {
		unsigned char *s = e + SYMTAB + 24 * i;
		im->name_off[i] = str;
		strcpy((char *)e + STRTAB + str, names[i]);
		str += (uint32_t)strlen(names[i]) + 1;
		put(s, im->name_off[i], 4);
		s[4] = (unsigned char)(STB_GLOBAL_ << 4 | 2); /* STT_FUNC */
		put(s + 6, i == 4 ? SHN_UNDEF_ : 7, 2);
		put(e + VERSYM + 2 * i, versyms[i], 2);
	}
	/* Version names, then the verdefs 1 (the base, the soname), 2 V1, 3 V2, 4 V3. */
	for (int v = 1; v <= 4; v++) {
		unsigned char *d = e + VERDEF + 28 * (v - 1);
		static const char *const vn[] = {"", "libt.so.1", "V1", "V2", "V3"};
		put(d, 1, 2);
		put(d + 4, (uint64_t)v, 2);
		put(d + 6, 1, 2);
		put(d + 12, 20, 4);
		put(d + 16, v < 4 ? 28 : 0, 4);
		put(d + 20, str, 4);
		strcpy((char *)e + STRTAB + str, vn[v]);
		str += (uint32_t)strlen(vn[v]) + 1;
	}
	if (gnu) {
		/* One bucket from symbol 1, a bloom word that lets everything through. */
		put(e + HASH, 1, 4);
		put(e + HASH + 4, 1, 4);
		put(e + HASH + 8, 1, 4);
		put(e + HASH + 12, 6, 4);
		put(e + HASH + 16, ~0ull, 8);
		put(e + HASH + 24, 1, 4);
		for (int i = 1; i < NSYM; i++)
			put(e + HASH + 28 + 4 * (i - 1),
			    (elf_gnu_hash(names[i], strlen(names[i])) & ~1u) | (i == NSYM - 1), 4);
	} else {
		/* One bucket: 5 -> 4 -> 3 -> 2 -> 1 -> 0. */
		put(e + HASH, 1, 4);
		put(e + HASH + 4, NSYM, 4);
		put(e + HASH + 8, NSYM - 1, 4);
		for (int i = 1; i < NSYM; i++)
			put(e + HASH + 12 + 4 * i, (uint64_t)(i - 1), 4);
	}
	dyn(im, &nd, gnu ? DT_GNU_HASH_ : DT_HASH_, HASH);
	dyn(im, &nd, DT_SYMTAB_, SYMTAB);
	dyn(im, &nd, DT_STRTAB_, STRTAB);
	dyn(im, &nd, DT_STRSZ_, str);
	dyn(im, &nd, DT_SYMENT_, 24);
	dyn(im, &nd, DT_VERSYM_, VERSYM);
	dyn(im, &nd, DT_VERDEF_, VERDEF);
	dyn(im, &nd, DT_VERDEFNUM_, 4);
}

/* Look NAME up; returns find's result, its version in `version`, its error in `e`. */
static int lookup(const struct image *im, const char *name, char *version, struct err *e)
{
	struct elf ef;
	struct elf_dynsym d;
	int fd, r;

	cr_assert_eq(t_elf_open(&ef, im->p, sizeof im->p, &fd, e), 0, "%s", e->msg);
	version[0] = '\0';
	r = elf_dynsym_open(&ef, &d, e);
	if (r == 0) {
		r = elf_dynsym_find(&d, name, strlen(name), elf_gnu_hash(name, strlen(name)),
				    version, 64, e);
		elf_dynsym_close(&d);
	}
	t_elf_close(&ef, fd);
	return r;
}

static void expect_found(const struct image *im, const char *name, int found,
			 const char *want_version, const char *what)
{
	char version[64];
	struct err e = {0};
	int r = lookup(im, name, version, &e);

	cr_assert_eq(r, found, "%s: %s: %d (%s)", what, name, r, e.msg);
	if (found == 1)
		T_STR_EQ(version, want_version, "%s: %s's version", what, name);
}

static void expect_refused(const struct image *im, const char *name, const char *msg)
{
	char version[64];
	struct err e = {0};

	cr_assert_eq(lookup(im, name, version, &e), -1, "%s accepted; expected: %s", name, msg);
	T_STR_EQ(e.msg, msg, "%s", name);
}

Test(dynsym, definitions_are_found_at_their_default_version_through_either_hash_table)
{
	struct image im;

	for (int gnu = 0; gnu <= 1; gnu++) {
		const char *what = gnu ? ".gnu.hash" : ".hash";
		build(&im, gnu);
		expect_found(&im, "alpha", 1, "V1", what);
		/* beta@V2 is hidden (a non-default version): dlsym() and the linker take beta@@V3.
		 */
		expect_found(&im, "beta", 1, "V3", what);
		expect_found(&im, "delta", 1, "", what);
		/* An undefined symbol is the library's import, not its export. */
		expect_found(&im, "gamma", 0, "", what);
		expect_found(&im, "nope", 0, "", what);
		expect_found(&im, "alph", 0, "", what);
	}
}

Test(dynsym, the_bloom_filter_rejects_without_reading_the_chains)
{
	struct image im;

	build(&im, 1);
	put(im.p + HASH + 16, 0, 8);
	/* The chain would find alpha; the filter says no first. */
	expect_found(&im, "alpha", 0, "", "empty bloom filter");
}

Test(dynsym, tables_that_do_not_fit_loop_or_name_unknown_versions_are_refused)
{
	struct image im;

	build(&im, 1);
	put(im.p + HASH, 0x7fffffff, 4);
	expect_refused(&im, "alpha",
		       ".gnu.hash: a table of 2147483647 buckets and 1 bloom words does not fit");
	/* A bloom shift of 32 or more: h >> shift would be undefined (found by review). */
	build(&im, 1);
	put(im.p + HASH + 12, 40, 4);
	expect_refused(&im, "alpha", ".gnu.hash: bloom shift 40 is not below 32");
	/* A chain whose last word never ends it runs off the file: a table at the file's end. */
	build(&im, 1);
	memcpy(im.p + SIZE - 32, im.p + HASH, 28);
	put(im.p + SIZE - 4, 0x10, 4);
	put(im.p + DYNAMIC + 8, SIZE - 32, 8);
	expect_refused(&im, "zzz", ".gnu.hash: a chain runs past the end of the file");
	/* .hash: a chain that comes back to itself. */
	build(&im, 0);
	put(im.p + HASH + 12 + 4 * 1, 2, 4);
	put(im.p + HASH + 12 + 4 * 2, 1, 4);
	expect_refused(&im, "nope", ".hash: a chain leaves the table or loops");
	/* A symbol whose version index no verdef defines. */
	build(&im, 1);
	put(im.p + VERSYM + 2 * 1, 9, 2);
	expect_refused(&im, "alpha", "symbol version 9 is not defined (.gnu.version_d)");
	build(&im, 1);
	put(im.p + DYNAMIC + 16 * 7 + 8, 0x8000, 8);
	expect_refused(&im, "alpha", ".gnu.version_d: 32768 version definitions (at most 32767)");
	/* No dynamic table: not a shared library. */
	build(&im, 1);
	put(im.p + 64 + 56, PT_NULL_, 4);
	expect_refused(&im, "alpha", "no dynamic section: not a shared library");
}
