/* SPDX-License-Identifier: MIT */
/* test_dynamic.c - what a linked file asks of the dynamic loader (src/elf/dynamic.c): DT_NEEDED
 * in order, the first DT_SONAME, DT_RPATH and DT_RUNPATH, DT_FLAGS_1, read from the SHT_DYNAMIC
 * section and its sh_link string table, or from PT_DYNAMIC alone (no section headers, the
 * string table found through DT_STRTAB and DT_STRSZ); a name whose string cannot be read is
 * counted in `unread`, never guessed; PT_INTERP.  Every file is written by helpers.h, in each
 * class and byte order. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_fixtures.h"

/* Sections of every image: [1] .dynstr, [2] .dynamic, [3] .interp, [4] .dynstr2 (another string
 * table).  Segments: PT_LOAD over the whole file (addresses are file offsets), PT_DYNAMIC,
 * PT_INTERP. */
enum { DYNSTR = 1, DYNAMIC = 2, INTERP = 3, DYNSTR2 = 4 };

/* Values of entries that stand for a place in the image, filled in once it is laid out. */
#define AT_DYNSTR 0x7ffffff1u  /* the address of .dynstr */
#define SZ_DYNSTR 0x7ffffff2u  /* its size */
#define AT_DYNSTR2 0x7ffffff3u /* the address of .dynstr2 */

/* "\0" then the names, each ended by NUL. */
static const char DYNSTR_TEXT[] =
	"\0libz.so.1\0libc.so.6\0libself.so.1\0/opt/rpath\0$ORIGIN/../lib";
static const char DYNSTR2_TEXT[] = "\0libother.so.9";
static const char INTERP_TEXT[] = "/lib64/ld-test.so.2";

/* The offset of `name` in DYNSTR_TEXT. */
static uint64_t str(const char *name)
{
	for (size_t i = 1; i < sizeof DYNSTR_TEXT; i += strlen(DYNSTR_TEXT + i) + 1)
		if (strcmp(DYNSTR_TEXT + i, name) == 0)
			return i;
	cr_assert_fail("%s is not in the string table", name);
	return 0;
}

struct dyn {
	uint64_t tag, val;
};

/* An image of variant v with the dynamic entries `d` (n of them, DT_NULL not added), .dynamic's
 * sh_link set to `link`; with `strip`, no section headers. */
static void build(struct t_image *im, int v, const struct dyn *d, size_t n, uint32_t link,
		  int strip)
{
	int is64 = T_VARIANT_IS64(v), big = T_VARIANT_BIG(v), w = T_WORD(is64);
	unsigned char *table = calloc(n ? n : 1, 2 * (size_t)w);
	const struct t_sec secs[] = {
		{".dynstr", SHT_STRTAB_, SHF_ALLOC_, 1, DYNSTR_TEXT, sizeof DYNSTR_TEXT},
		{".dynamic", SHT_DYNAMIC_, SHF_ALLOC_ | SHF_WRITE_, 8, table, n * 2 * (size_t)w},
		{".interp", 1, SHF_ALLOC_, 1, INTERP_TEXT, sizeof INTERP_TEXT},
		{".dynstr2", SHT_STRTAB_, SHF_ALLOC_, 1, DYNSTR2_TEXT, sizeof DYNSTR2_TEXT},
	};
	const struct t_seg segs[] = {
		{PT_LOAD_, PF_R_ | PF_W_, 0, 0x1000},
		{PT_DYNAMIC_, PF_R_ | PF_W_, DYNAMIC, 8},
		{PT_INTERP_, PF_R_, INTERP, 1},
	};

	cr_assert(table);
	t_build(im, is64, big, ET_DYN_, machine_of(v), secs, 4, segs, 3);
	for (size_t i = 0; i < n; i++) {
		uint64_t val = d[i].val == AT_DYNSTR    ? im->off[DYNSTR]
			       : d[i].val == SZ_DYNSTR  ? im->size[DYNSTR]
			       : d[i].val == AT_DYNSTR2 ? im->off[DYNSTR2]
							: d[i].val;
		unsigned char *p = im->p + im->off[DYNAMIC] + i * 2 * (size_t)w;
		t_put(p, w, d[i].tag, big);
		t_put(p + w, w, val, big);
	}
	im->sh[DYNAMIC].link = link;
	t_write_shdr(im->p + im->shoff + DYNAMIC * (size_t)T_SHENT(is64), is64, big,
		     &im->sh[DYNAMIC]);
	if (strip)
		t_strip_sections(im);
	free(table);
}

/* elf_dynamic_read of the image, expected to succeed. */
static void read_dyn(const struct t_image *im, struct elf_dynamic *out, const char *what)
{
	struct elf ef;
	struct err e;
	int fd;

	cr_assert_eq(t_elf_open(&ef, im->p, im->len, &fd, &e), 0, "%s: %s", what, e.msg);
	cr_assert_eq(elf_dynamic_read(&ef, out, &e), 0, "%s: %s", what, e.msg);
	t_elf_close(&ef, fd);
}

/* The DT_NEEDED names joined with ' '. */
static const char *needed(const struct elf_dynamic *d)
{
	static char s[16384];

	s[0] = 0;
	for (size_t i = 0; i < d->nneeded; i++) {
		cr_assert(strlen(s) + strlen(d->needed[i]) + 2 < sizeof s);
		strcat(strcat(s, i ? " " : ""), d->needed[i]);
	}
	return s;
}

#define NULLABLE_EQ(got, want, ...)                                                                \
	do {                                                                                       \
		if (want)                                                                          \
			T_STR_EQ(got, want, __VA_ARGS__);                                          \
		else                                                                               \
			cr_assert_null(got, __VA_ARGS__);                                          \
	} while (0)

/* What a read must give. */
struct want {
	const char *needed; /* the DT_NEEDED names joined with ' ' */
	const char *soname, *rpath, *runpath;
	uint64_t flags_1;
	size_t unread;
};

static void expect(const struct elf_dynamic *d, const struct want *w, const char *what)
{
	cr_assert_eq(d->dynamic, 1, "%s: has a dynamic table", what);
	T_STR_EQ(needed(d), w->needed, "%s: DT_NEEDED", what);
	NULLABLE_EQ(d->soname, w->soname, "%s: DT_SONAME", what);
	NULLABLE_EQ(d->rpath, w->rpath, "%s: DT_RPATH", what);
	NULLABLE_EQ(d->runpath, w->runpath, "%s: DT_RUNPATH", what);
	cr_assert_eq(d->flags_1, w->flags_1, "%s: DT_FLAGS_1 0x%llx", what,
		     (unsigned long long)d->flags_1);
	cr_assert_eq(d->unread, w->unread, "%s: %zu unread, expected %zu", what, d->unread,
		     w->unread);
}

/* The layouts of an image: with its section headers, without them (PT_DYNAMIC alone). */
enum { SECTIONS = 1, PT_DYNAMIC_ONLY = 2, BOTH = 3 };

/* The entries d read in each class and byte order, in each of the layouts, give w. */
static void expect_each(const struct dyn *d, size_t n, uint32_t link, int layouts,
			const struct want *w, const char *what)
{
	for (int v = 0; v < 4; v++)
		for (int strip = 0; strip < 2; strip++) {
			struct t_image im;
			struct elf_dynamic dy;
			char name[128];
			if (!(layouts & (strip ? PT_DYNAMIC_ONLY : SECTIONS)))
				continue;
			snprintf(name, sizeof name, "%s: %s, %s", what, t_variant(v),
				 strip ? "PT_DYNAMIC only" : "section headers");
			build(&im, v, d, n, link, strip);
			read_dyn(&im, &dy, name);
			expect(&dy, w, name);
			elf_dynamic_free(&dy);
			t_image_free(&im);
		}
}

Test(dynamic, every_string_tag_and_flags_1_are_read_from_sections_and_from_pt_dynamic_alone)
{
	const struct dyn d[] = {
		{DT_NEEDED_, str("libz.so.1")},       {DT_STRTAB_, AT_DYNSTR},
		{DT_SONAME_, str("libself.so.1")},    {DT_NEEDED_, str("libc.so.6")},
		{DT_RPATH_, str("/opt/rpath")},       {DT_FLAGS_1_, DF_1_NODEFLIB_ | 1},
		{DT_RUNPATH_, str("$ORIGIN/../lib")}, {DT_STRSZ_, SZ_DYNSTR},
	};
	const struct want w = {"libz.so.1 libc.so.6", "libself.so.1",     "/opt/rpath",
			       "$ORIGIN/../lib",      DF_1_NODEFLIB_ | 1, 0};

	expect_each(d, 8, DYNSTR, BOTH, &w, "all tags");
}

Test(dynamic, string_offsets_outside_the_table_are_counted_unread_and_the_rest_kept)
{
	const struct dyn d[] = {
		{DT_STRTAB_, AT_DYNSTR},
		{DT_STRSZ_, SZ_DYNSTR},
		{DT_NEEDED_, sizeof DYNSTR_TEXT}, /* just past the end */
		{DT_NEEDED_, str("libc.so.6")},
		{DT_NEEDED_, 0xffffffffu},
		{DT_SONAME_, 0x10000},
		{DT_NEEDED_, str("libz.so.1")},
		{DT_RUNPATH_, sizeof DYNSTR_TEXT + 100},
	};
	const struct want w = {"libc.so.6 libz.so.1", NULL, NULL, NULL, 0, 4};

	expect_each(d, 8, DYNSTR, BOTH, &w, "offsets outside");
}

Test(dynamic, without_a_usable_dt_strtab_every_name_of_pt_dynamic_is_unread)
{
	const struct dyn no_strtab[] = {
		{DT_NEEDED_, 1},  {DT_FLAGS_1_, 0x8},     {DT_SONAME_, 11},
		{DT_NEEDED_, 21}, {DT_STRSZ_, SZ_DYNSTR},
	};
	const struct dyn unmapped[] = {
		{DT_NEEDED_, 1},  {DT_FLAGS_1_, 0x8},     {DT_SONAME_, 11},
		{DT_NEEDED_, 21}, {DT_STRSZ_, SZ_DYNSTR}, {DT_STRTAB_, 0x40000000},
	};
	const struct dyn past_the_end[] = {
		{DT_NEEDED_, 1},  {DT_FLAGS_1_, 0x8},    {DT_SONAME_, 11},
		{DT_NEEDED_, 21}, {DT_STRSZ_, 0x100000}, {DT_STRTAB_, AT_DYNSTR},
	};
	const struct want w = {"", NULL, NULL, NULL, 0x8, 3};

	expect_each(no_strtab, 5, DYNSTR, PT_DYNAMIC_ONLY, &w, "no DT_STRTAB");
	expect_each(unmapped, 6, DYNSTR, PT_DYNAMIC_ONLY, &w, "DT_STRTAB mapped by no PT_LOAD");
	expect_each(past_the_end, 6, DYNSTR, PT_DYNAMIC_ONLY, &w, "DT_STRSZ past the end");
}

Test(dynamic, without_dt_strsz_the_table_is_empty_and_every_name_is_unread)
{
	const struct dyn d[] = {{DT_STRTAB_, AT_DYNSTR},
				{DT_NEEDED_, 1},
				{DT_FLAGS_1_, 0x8},
				{DT_SONAME_, 11},
				{DT_NEEDED_, 21}};
	const struct want w = {"", NULL, NULL, NULL, 0x8, 3};

	expect_each(d, 5, DYNSTR, PT_DYNAMIC_ONLY, &w, "no DT_STRSZ");
}

Test(dynamic, entries_after_dt_null_are_not_read)
{
	const struct dyn d[] = {
		{DT_STRTAB_, AT_DYNSTR},        {DT_STRSZ_, SZ_DYNSTR},
		{DT_NEEDED_, str("libz.so.1")}, {DT_NULL_, 0},
		{DT_NEEDED_, str("libc.so.6")}, {DT_FLAGS_1_, 1},
	};
	const struct want w = {"libz.so.1", NULL, NULL, NULL, 0, 0};

	expect_each(d, 6, DYNSTR, BOTH, &w, "DT_NULL");
}

Test(dynamic, the_first_soname_rpath_and_runpath_count_as_the_loader_takes_them)
{
	const struct dyn d[] = {
		{DT_RUNPATH_, str("$ORIGIN/../lib")},
		{DT_SONAME_, str("libself.so.1")},
		{DT_RUNPATH_, str("/opt/rpath")},
		{DT_SONAME_, str("libz.so.1")},
		{DT_RPATH_, str("/opt/rpath")},
		{DT_RPATH_, str("libc.so.6")},
		{DT_STRTAB_, AT_DYNSTR},
		{DT_STRSZ_, SZ_DYNSTR},
	};
	const struct want w = {"", "libself.so.1", "/opt/rpath", "$ORIGIN/../lib", 0, 0};

	expect_each(d, 8, DYNSTR, BOTH, &w, "twice each");
}

Test(dynamic, the_sections_string_table_is_used_when_there_are_section_headers)
{
	/* DT_STRTAB names .dynstr2, the section's sh_link .dynstr: elf.h says the section's. */
	const struct dyn d[] = {
		{DT_STRTAB_, AT_DYNSTR2}, {DT_STRSZ_, sizeof DYNSTR2_TEXT}, {DT_NEEDED_, 1}};
	const struct want by_link = {"libz.so.1", NULL, NULL, NULL, 0, 0};
	const struct want by_tag = {"libother.so.9", NULL, NULL, NULL, 0, 0};

	expect_each(d, 3, DYNSTR, SECTIONS, &by_link, "sh_link");
	/* Stripped of its section headers, the same file names DT_STRTAB's. */
	expect_each(d, 3, DYNSTR, PT_DYNAMIC_ONLY, &by_tag, "DT_STRTAB");
	/* A .dynamic whose sh_link is not a string table: PT_DYNAMIC and DT_STRTAB. */
	expect_each(d, 3, DYNAMIC, SECTIONS, &by_tag, "sh_link to .dynamic");
}

Test(dynamic, a_table_longer_than_one_read_chunk_gives_every_name_in_order)
{
	enum { N = 700 }; /* 4096-byte chunks: 256 entries of ELF64, 512 of ELF32 */
	struct dyn *d = calloc(N + 2, sizeof *d);
	char names[N * 12] = "";
	struct want w = {names, NULL, NULL, NULL, 0, 0};

	cr_assert(d);
	d[0] = (struct dyn){DT_STRTAB_, AT_DYNSTR};
	d[1] = (struct dyn){DT_STRSZ_, SZ_DYNSTR};
	for (int i = 0; i < N; i++) {
		static const char *const name[] = {"libz.so.1", "libc.so.6", "libself.so.1"};
		d[i + 2] = (struct dyn){DT_NEEDED_, str(name[i % 3])};
		strcat(strcat(names, i ? " " : ""), name[i % 3]);
	}
	expect_each(d, N + 2, DYNSTR, BOTH, &w, "700 DT_NEEDED");
	free(d);
}

Test(dynamic, a_file_without_a_dynamic_table_asks_for_nothing)
{
	for (int v = 0; v < 4; v++) {
		struct t_image im;
		struct elf ef;
		struct elf_dynamic dy;
		struct err e;
		char interp[64];
		int fd;

		t_build(&im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_EXEC_, machine_of(v), NULL, 0,
			NULL, 0);
		cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), 0, "%s", e.msg);
		cr_assert_eq(elf_dynamic_read(&ef, &dy, &e), 0);
		cr_assert_eq(dy.dynamic, 0, "%s: no dynamic table", t_variant(v));
		cr_assert_eq(dy.nneeded, 0);
		cr_assert_null(dy.needed);
		cr_assert_null(dy.soname);
		cr_assert_eq(dy.unread, 0);
		memset(interp, 'x', sizeof interp);
		cr_assert_eq(elf_interp(&ef, interp, sizeof interp, &e), 0);
		T_STR_EQ(interp, "", "%s: no PT_INTERP", t_variant(v));
		elf_dynamic_free(&dy);
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(dynamic, pt_interp_is_read_and_cut_to_the_buffer)
{
	const struct dyn d[] = {{DT_STRTAB_, AT_DYNSTR}, {DT_STRSZ_, SZ_DYNSTR}};

	for (int v = 0; v < 4; v++) {
		struct t_image im;
		struct elf ef;
		struct err e;
		char interp[64], small[8];
		int fd;

		build(&im, v, d, 2, DYNSTR, 1);
		cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), 0, "%s", e.msg);
		cr_assert_eq(elf_interp(&ef, interp, sizeof interp, &e), 0, "%s", e.msg);
		T_STR_EQ(interp, INTERP_TEXT, "%s: PT_INTERP", t_variant(v));
		cr_assert_eq(elf_interp(&ef, small, sizeof small, &e), 0, "%s", e.msg);
		T_STR_EQ(small, "/lib64/", "%s: cut to 7 bytes", t_variant(v));
		t_elf_close(&ef, fd);
		t_image_free(&im);
	}
}

Test(dynamic, a_name_not_ended_inside_its_string_table_is_unread_not_cut)
{
	/* DT_STRSZ (or the section's size) ends inside "libz.so.1": the table holds "libz.so" and
	 * no NUL byte.  The name the file asks for is not in its table; "libz.so" is another
	 * library's name (the development link), which neither the loader nor readelf would give.
	 */
	const struct dyn d[] = {{DT_STRTAB_, AT_DYNSTR}, {DT_STRSZ_, 1 + 7}, {DT_NEEDED_, 1}};
	const struct want w = {"", NULL, NULL, NULL, 0, 1};

	for (int v = 0; v < 4; v++)
		for (int strip = 0; strip < 2; strip++) {
			struct t_image im;
			struct elf_dynamic dy;
			char what[64];
			snprintf(what, sizeof what, "%s, %s", t_variant(v),
				 strip ? "PT_DYNAMIC only" : "section headers");
			build(&im, v, d, 3, DYNSTR, strip);
			if (!strip) { /* the section's size */
				im.sh[DYNSTR].size = 1 + 7;
				t_write_shdr(im.p + im.shoff + DYNSTR * (size_t)T_SHENT(im.is64),
					     im.is64, im.big, &im.sh[DYNSTR]);
			}
			read_dyn(&im, &dy, what);
			expect(&dy, &w, what);
			elf_dynamic_free(&dy);
			t_image_free(&im);
		}
}
