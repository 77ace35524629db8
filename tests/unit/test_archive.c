/* SPDX-License-Identifier: MIT */
/* test_archive.c - ar archives member by member, and the rewritten index (src/archive/archive.c, archive_index.c).
 *
 * The archives are written here byte by byte from the formats' descriptions (GNU/SysV ar(5),
 * BSD "#1/" names and __.SYMDEF), independently of the code under test. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive/archive.h"
#include "helpers.h"

struct ar_img {
	unsigned char p[4096];
	size_t n;
};

/* A header: name (16), date "1700000000", uid/gid "0", mode "644", size, "`\n". */
static void hdr(struct ar_img *a, const char *name, size_t size)
{
	char h[61];

	snprintf(h, sizeof h, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "1700000000", "0", "0", "100644", size);
	memcpy(a->p + a->n, h, 60);
	a->n += 60;
}

static void put(struct ar_img *a, const void *d, size_t n)
{
	memcpy(a->p + a->n, d, n);
	a->n += n;
	if (a->n & 1)
		a->p[a->n++] = '\n';
}

static void be32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static uint32_t get_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* GNU: "/" index (2 symbols), "//" names, "short.o" (odd size 5), "/0" long name (size 4).
 * *idx_at: offset of the index's first member offset. */
static void gnu(struct ar_img *a, size_t *m1, size_t *m2)
{
	unsigned char idx[4 + 8 + 4] = { 0 };
	static const char names[] = "a_rather_long_member_name.o/\n";

	memset(a, 0, sizeof *a);
	memcpy(a->p, ARCHIVE_MAGIC, 8);
	a->n = 8;
	hdr(a, "/", sizeof idx);
	size_t idx_data = a->n;
	put(a, idx, sizeof idx);
	hdr(a, "//", sizeof names - 1);
	put(a, names, sizeof names - 1);
	*m1 = a->n;
	hdr(a, "short.o/", 5);
	put(a, "AAAAA", 5);
	*m2 = a->n;
	hdr(a, "/0", 4);
	put(a, "BBBB", 4);
	be32(a->p + idx_data, 2);
	be32(a->p + idx_data + 4, (uint32_t)*m1);
	be32(a->p + idx_data + 8, (uint32_t)*m2);
	memcpy(a->p + idx_data + 12, "f\0g\0", 4);
}

static int open_img(struct archive *ar, const struct ar_img *a, struct err *e)
{
	int fd = t_tmpfile(a->p, a->n);

	memset(e, 0, sizeof *e);
	return archive_open(ar, fd, "lib.a", a->n, e) ? -1 : fd;
}

Test(archive, gnu_members_names_and_specials_are_walked_in_order)
{
	struct ar_img a;
	struct archive ar;
	struct archive_member m;
	struct err e;
	size_t m1, m2;
	int fd;

	gnu(&a, &m1, &m2);
	fd = open_img(&ar, &a, &e);
	cr_assert(fd >= 0, "%s", e.msg);
	cr_assert_eq(archive_next(&ar, &m, &e), 1, "%s", e.msg);
	cr_expect_eq(m.kind, AR_INDEX);
	cr_expect_eq(ar.index, AR_GNU32);
	cr_expect_eq(archive_check_index(&ar, &m, &e), 0, "%s", e.msg);
	cr_assert_eq(archive_next(&ar, &m, &e), 1, "%s", e.msg);
	cr_expect_eq(m.kind, AR_NAMES);
	cr_assert_eq(archive_next(&ar, &m, &e), 1, "%s", e.msg);
	cr_expect_str_eq(m.name, "short.o");
	cr_expect_eq(m.hdr, m1);
	cr_expect_eq(m.size, 5);
	cr_expect_eq(m.next, m2, "an odd member is padded to an even offset");
	cr_assert_eq(archive_next(&ar, &m, &e), 1, "%s", e.msg);
	cr_expect_str_eq(m.name, "a_rather_long_member_name.o");
	cr_expect_eq(m.data, m2 + 60);
	cr_expect_eq(archive_next(&ar, &m, &e), 0);
	close(fd);
}

Test(archive, bsd_names_follow_the_header_and_count_in_the_size)
{
	struct ar_img a = { .n = 8 };
	struct archive ar;
	struct archive_member m;
	struct err e;
	int fd;

	memcpy(a.p, ARCHIVE_MAGIC, 8);
	hdr(&a, "#1/20", 20 + 3);
	put(&a, "long_bsd_name.o\0\0\0\0\0XYZ", 23);
	fd = open_img(&ar, &a, &e);
	cr_assert_eq(archive_next(&ar, &m, &e), 1, "%s", e.msg);
	cr_expect_str_eq(m.name, "long_bsd_name.o");
	cr_expect_eq(m.name_len, 20);
	cr_expect_eq(m.size, 3);
	cr_expect_eq(m.data, 8 + 60 + 20);
	close(fd);
}

static void expect_error(struct ar_img *a, size_t nth, const char *msg)
{
	struct archive ar;
	struct archive_member m;
	struct err e;
	int fd = open_img(&ar, a, &e), r;

	cr_assert(fd >= 0, "%s", e.msg);
	while ((r = archive_next(&ar, &m, &e)) == 1)
		if (m.kind == AR_INDEX && archive_check_index(&ar, &m, &e)) {
			r = -1;
			break;
		}
	cr_expect_eq(r, -1, "accepted; expected %s", msg);
	cr_expect_eq(m.nth, nth, "the error is about member %zu, not %zu", m.nth, nth);
	cr_expect(strstr(e.msg, msg), "\"%s\" lacks \"%s\"", e.msg, msg);
	close(fd);
}

Test(archive, damaged_headers_are_refused_at_the_member)
{
	struct ar_img a;
	size_t m1, m2;

	gnu(&a, &m1, &m2);
	memcpy(a.p + m1 + 48, "5x        ", 10);
	expect_error(&a, 3, "bad size field '5x        '");
	gnu(&a, &m1, &m2);
	memcpy(a.p + m2 + 58, "``", 2);
	expect_error(&a, 4, "bad member header");
	gnu(&a, &m1, &m2);
	a.n -= 3;
	expect_error(&a, 4, "truncated member");
	gnu(&a, &m1, &m2);
	a.n = m2 + 30;
	expect_error(&a, 4, "truncated member header");
	gnu(&a, &m1, &m2);
	memcpy(a.p + m2, "/99             ", 16);
	expect_error(&a, 4, "long-name reference /99 is outside the name table");
	/* after the digits: spaces, and a '/' in the last byte only */
	gnu(&a, &m1, &m2);
	memcpy(a.p + m2, "/0 /            ", 16);
	expect_error(&a, 4, "bad long-name reference '/0 /");
	gnu(&a, &m1, &m2);
	memcpy(a.p + m2, "/0x             ", 16);
	expect_error(&a, 4, "bad long-name reference '/0x");
	/* ":ORIGIN" only in a thin archive */
	gnu(&a, &m1, &m2);
	memcpy(a.p + m2, "/0:84           ", 16);
	expect_error(&a, 4, "bad long-name reference '/0:84");
}

/* GNU ar 2.40 writes a thin archive member whose basename has 15 characters as "/N", spaces, and
 * a '/' in the field's last byte; binutils and LLVM read it as "/N". */
Test(archive, a_long_name_reference_may_end_with_a_slash)
{
	struct ar_img a;
	struct archive ar;
	struct archive_member m;
	struct err e;
	size_t m1, m2;
	int fd;

	gnu(&a, &m1, &m2);
	memcpy(a.p + m2, "/0             /", 16);
	fd = open_img(&ar, &a, &e);
	cr_assert(fd >= 0, "%s", e.msg);
	for (int i = 0; i < 4; i++)
		cr_assert_eq(archive_next(&ar, &m, &e), 1, "member %d: %s", i + 1, e.msg);
	cr_expect_str_eq(m.name, "a_rather_long_member_name.o");
	cr_expect_eq(m.nested_len, 0);
	close(fd);
}

Test(archive, an_index_pointing_outside_is_refused)
{
	struct ar_img a;
	size_t m1, m2;

	gnu(&a, &m1, &m2);
	be32(a.p + 8 + 60 + 8, 0x7fffff00);
	expect_error(&a, 1, "symbol 1 points to offset 0x7fffff00, outside the archive");
	gnu(&a, &m1, &m2);
	be32(a.p + 8 + 60, 1000);
	expect_error(&a, 1, "symbol index of 1000 entries does not fit");
}

/* Every member grows by 3 bytes (the plan keeps it and extends it with zeros). */
static int grow(void *ctx, const struct archive *ar, const struct archive_member *m, struct plan *pl, struct err *e)
{
	(void)ctx, (void)ar, (void)e;
	memset(pl, 0, sizeof *pl);
	pl->keep = m->size;
	pl->out_size = m->size + 3;
	return 1;
}

Test(archive, the_index_follows_the_members_to_their_new_offsets)
{
	struct ar_img a;
	struct archive ar;
	struct err e;
	char label[64];
	unsigned char out[4096];
	size_t m1, m2;
	int fd, ofd;
	ssize_t n;

	gnu(&a, &m1, &m2);
	fd = open_img(&ar, &a, &e);
	ofd = t_tmpfile("", 0);
	cr_assert_eq(archive_write(&ar, ofd, grow, NULL, label, sizeof label, &e), 0, "%s: %s", label, e.msg);
	n = pread(ofd, out, sizeof out, 0);
	/* short.o: 5 -> 8 bytes (no padding now); the long-named member moves by 8 - 6 = 2. */
	cr_assert_eq(n, (ssize_t)(a.n + 2 + 4), "output of %zd bytes", n);
	cr_expect_eq(get_be32(out + 8 + 60 + 4), m1, "the first member did not move");
	cr_expect_eq(get_be32(out + 8 + 60 + 8), m2 + 2);
	cr_expect(memcmp(out + m1, a.p + m1, 48) == 0, "name, date, owner and mode bytes kept");
	cr_expect(memcmp(out + m1 + 48, "8         `\n", 12) == 0, "size field: %.12s", out + m1 + 48);
	cr_expect(memcmp(out + m1 + 60, "AAAAA\0\0\0", 8) == 0);
	cr_expect(memcmp(out + m2 + 2 + 48, "7         `\n", 12) == 0, "size field: %.12s", out + m2 + 2 + 48);
	cr_expect(memcmp(out + m2 + 2 + 60, "BBBB\0\0\0\n", 8) == 0, "odd member padded with a newline");
	close(fd);
	close(ofd);
}

Test(archive, thin_archives_are_not_written)
{
	struct ar_img a;
	struct archive ar;
	struct err e;
	char label[64];
	size_t m1, m2;
	int fd;

	gnu(&a, &m1, &m2);
	memcpy(a.p, ARCHIVE_THIN_MAGIC, 8);
	fd = open_img(&ar, &a, &e);
	cr_expect(ar.thin);
	cr_expect_eq(archive_write(&ar, -1, grow, NULL, label, sizeof label, &e), -1);
	cr_expect(strstr(e.msg, "thin archive"), "%s", e.msg);
	close(fd);
}

static void be64(unsigned char *p, uint64_t v)
{
	be32(p, (uint32_t)(v >> 32));
	be32(p + 4, (uint32_t)v);
}

/* archive_write with every member grown by 3 bytes, the "/" index's limit lowered from
 * 4 GiB to offset32_max; plan_first 0 decides the index by planning first, a huge one by
 * writing again. */
static size_t write_limited(const struct ar_img *a, uint64_t offset32_max, uint64_t plan_first, unsigned char *out,
			    size_t outsz, int *widened, struct err *e)
{
	struct archive ar;
	char label[64];
	int fd = open_img(&ar, a, e), ofd = t_tmpfile("", 0);
	ssize_t n;

	ar.offset32_max = offset32_max, ar.plan_first = plan_first;
	cr_assert_eq(archive_write(&ar, ofd, grow, NULL, label, sizeof label, e), 0, "%s: %s", label, e->msg);
	n = pread(ofd, out, outsz, 0);
	*widened = ar.widened;
	close(fd);
	close(ofd);
	return (size_t)n;
}

/* GNU ar (bfd's archive writer) writes "/SYM64/" exactly when a symbol's member offset, with
 * the 32-bit index, does not fit 32 bits: an 8-byte count, 8-byte offsets, the same names,
 * zeros to a multiple of 8.  The index grows from 16 to 32 bytes, moving every member. */
Test(archive, a_slash_index_becomes_sym64_exactly_when_an_offset_does_not_fit)
{
	struct ar_img a;
	struct err e;
	unsigned char out[4096], want[4096], again[4096];
	size_t m1, m2, n, k;
	int widened;

	gnu(&a, &m1, &m2);
	/* The long-named member moves to m2 + 2 (short.o: 5 -> 8 bytes): that fits. */
	n = write_limited(&a, m2 + 2, 0, out, sizeof out, &widened, &e);
	cr_expect_eq(n, a.n + 2 + 4);
	cr_expect_eq(widened, 0);
	cr_expect(memcmp(out + 8, "/               ", 16) == 0, "index %.16s", out + 8);
	cr_expect_eq(get_be32(out + 8 + 60 + 8), m2 + 2);

	/* One byte less: "/SYM64/". */
	memcpy(want, a.p, 8 + 60);
	memcpy(want + 8, "/SYM64/         ", 16);
	memcpy(want + 8 + 48, "32        `\n", 12);
	be64(want + 68, 2);
	be64(want + 76, m1 + 16);
	be64(want + 84, m2 + 2 + 16);
	memcpy(want + 92, "f\0g\0\0\0\0\0", 8);
	k = 100;
	memcpy(want + k, a.p + 84, m1 - 84);                 /* "//", moved by 16 */
	k += m1 - 84;
	memcpy(want + k, a.p + m1, 48);
	memcpy(want + k + 48, "8         `\nAAAAA\0\0\0", 20);
	k += 68;
	memcpy(want + k, a.p + m2, 48);
	memcpy(want + k + 48, "7         `\nBBBB\0\0\0\n", 20);
	k += 68;
	n = write_limited(&a, m2 + 1, 0, out, sizeof out, &widened, &e);
	t_assert_bytes(out, n, want, k, "planned first");
	cr_expect_eq(widened, 1);
	n = write_limited(&a, m2 + 1, UINT64_MAX, again, sizeof again, &widened, &e);
	t_assert_bytes(again, n, want, k, "written again");
	cr_expect_eq(widened, 1);
}

static void le32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16), p[3] = (unsigned char)(v >> 24);
}

/* A BSD "__.SYMDEF" index whose offsets would need 64 bits is refused: __.SYMDEF_64 is not
 * written. */
Test(archive, a_bsd_index_that_would_need_64_bits_is_refused)
{
	struct ar_img a = { .n = 8 };
	struct archive ar;
	struct err e;
	unsigned char idx[12 + 4 + 16 + 4 + 4] = "__.SYMDEF";
	char label[64];
	size_t m1, m2;
	int fd, ofd;

	memcpy(a.p, ARCHIVE_MAGIC, 8);
	hdr(&a, "#1/12", sizeof idx);
	size_t at = a.n;
	put(&a, idx, sizeof idx);
	m1 = a.n;
	hdr(&a, "#1/4", 4 + 5);
	put(&a, "a.o\0AAAAA", 9);
	m2 = a.n;
	hdr(&a, "#1/4", 4 + 5);
	put(&a, "b.o\0BBBBB", 9);
	le32(a.p + at + 12, 16);                               /* two (name, offset) pairs */
	le32(a.p + at + 16, 0), le32(a.p + at + 20, (uint32_t)m1);
	le32(a.p + at + 24, 2), le32(a.p + at + 28, (uint32_t)m2);
	le32(a.p + at + 32, 4);
	memcpy(a.p + at + 36, "f\0g\0", 4);
	fd = open_img(&ar, &a, &e);
	ofd = t_tmpfile("", 0);
	ar.offset32_max = m2 + 1;                            /* b.o moves to m2 + 2 */
	cr_expect_eq(archive_write(&ar, ofd, grow, NULL, label, sizeof label, &e), -1);
	cr_expect_str_eq(label, "__.SYMDEF");
	cr_expect(strstr(e.msg, "__.SYMDEF_64"), "%s", e.msg);
	ar.offset32_max = m2 + 2;
	memset(&e, 0, sizeof e);
	cr_expect_eq(archive_write(&ar, ofd, grow, NULL, label, sizeof label, &e), 0, "%s", e.msg);
	close(fd);
	close(ofd);
}
