/* SPDX-License-Identifier: MIT */
/* test_note.c - the FDO dlopen note: encoding, walking note areas, decoding (src/note/note.c).
 *
 * The expected bytes are built here from the spec (shared/REFERENCE.md §1, gABI "Note
 * Section"): n_namesz = 4, n_descsz, n_type = 0x407c0c0a in the file's byte order, the owner
 * "FDO\0", the payload as a NUL-terminated string, zero padding to 4.  The descriptor of a
 * note starts at the header + name rounded up to the area's alignment (4, or 8 for GNU property
 * notes), and the next note at the descriptor's end rounded up the same way. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "note/note.h"

/* A 32-bit word, least or most significant byte first. */
static void word(unsigned char *p, uint32_t v, int big)
{
	unsigned char b0 = (unsigned char)(v & 0xff), b1 = (unsigned char)((v >> 8) & 0xff);
	unsigned char b2 = (unsigned char)((v >> 16) & 0xff), b3 = (unsigned char)(v >> 24);

	if (big) {
		p[0] = b3, p[1] = b2, p[2] = b1, p[3] = b0;
	} else {
		p[0] = b0, p[1] = b1, p[2] = b2, p[3] = b3;
	}
}

/* The whole note for `payload` (without its NUL), as the spec lays it out. */
static size_t expected_note(unsigned char *out, size_t outsz, int big, const char *payload)
{
	static const unsigned char type_le[4] = { 0x0a, 0x0c, 0x7c, 0x40 };
	static const unsigned char type_be[4] = { 0x40, 0x7c, 0x0c, 0x0a };
	size_t plen = strlen(payload), descsz = plen + 1, pad = (4 - descsz % 4) % 4, n = 0;

	cr_assert(16 + descsz + pad <= outsz);
	word(out + n, 4, big), n += 4;                      /* n_namesz */
	word(out + n, (uint32_t)descsz, big), n += 4;       /* n_descsz: the payload and its NUL */
	memcpy(out + n, big ? type_be : type_le, 4), n += 4;
	out[n++] = 'F', out[n++] = 'D', out[n++] = 'O', out[n++] = '\0';
	memcpy(out + n, payload, plen), n += plen;
	out[n++] = '\0';
	while (pad--)
		out[n++] = '\0';
	return n;
}

static struct entries parse_lit(const char *text)
{
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(manifest_parse(text, strlen(text), &es, &e), 0, "%s", e.msg);
	return es;
}

static void encode_matches_spec(int big)
{
	/* sonames of 1..4 characters make payload+NUL lengths with all four remainders mod 4 */
	static const char *const payloads[] = {
		"[{\"soname\":[\"a\"]}]",
		"[{\"soname\":[\"ab\"]}]",
		"[{\"soname\":[\"abc\"]}]",
		"[{\"soname\":[\"abcd\"]}]",
		("[{\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"],\"feature\":\"foo\",\"description\":\"Enables foo\",\"priority\":\"recommended\"},"
		 "{\"soname\":[\"libbar.so.2\"],\"x-unknown\":{\"k\":[1,2]}}]"),
	};
	unsigned char want[512];
	int seen_pad[4] = { 0 };
	size_t i, n;

	for (i = 0; i < sizeof payloads / sizeof *payloads; i++) {
		struct entries es = parse_lit(payloads[i]);
		struct buf out = { 0 };
		struct err e = { 0 };
		char what[64];

		cr_assert_eq(note_encode(&es, big, &out, &e), 0, "%s", e.msg);
		n = expected_note(want, sizeof want, big, payloads[i]);
		snprintf(what, sizeof what, "%s note for payload %zu", big ? "big-endian" : "little-endian", i);
		t_assert_bytes(out.p, out.len, want, n, what);
		cr_assert_eq(out.len % 4, 0);
		seen_pad[(4 - (strlen(payloads[i]) + 1) % 4) % 4] = 1;
		buf_free(&out);
		manifest_free(&es);
	}
	cr_assert(seen_pad[0] && seen_pad[1] && seen_pad[2] && seen_pad[3], "every padding length was exercised");
}

/* ---------------------------------------------------------------- encoding */

Test(note, encode_little_endian_gives_the_exact_note_bytes)
{
	encode_matches_spec(0);
}

Test(note, encode_big_endian_gives_the_exact_note_bytes)
{
	encode_matches_spec(1);
}

Test(note, encode_header_words_spelled_out)
{
	/* [{"soname":["ab"]}] is 19 characters: n_descsz 20, no padding */
	static const unsigned char le[16] = { 4, 0, 0, 0, 20, 0, 0, 0, 0x0a, 0x0c, 0x7c, 0x40, 'F', 'D', 'O', 0 };
	static const unsigned char be[16] = { 0, 0, 0, 4, 0, 0, 0, 20, 0x40, 0x7c, 0x0c, 0x0a, 'F', 'D', 'O', 0 };
	struct entries es = parse_lit("[{\"soname\":[\"ab\"]}]");
	struct buf out = { 0 };
	struct err e = { 0 };

	cr_assert_eq(note_encode(&es, 0, &out, &e), 0);
	cr_assert_eq(out.len, 36);
	t_assert_bytes(out.p, 16, le, 16, "little-endian header");
	cr_assert_eq(memcmp(out.p + 16, "[{\"soname\":[\"ab\"]}]\0", 20), 0);
	out.len = 0;
	cr_assert_eq(note_encode(&es, 1, &out, &e), 0);
	t_assert_bytes(out.p, 16, be, 16, "big-endian header");
	cr_assert_eq(memcmp(out.p + 16, "[{\"soname\":[\"ab\"]}]\0", 20), 0);
	buf_free(&out);
	manifest_free(&es);
}

Test(note, encode_of_no_entries_gives_no_bytes)
{
	struct entries es = { 0 };
	struct buf out = { 0 };
	struct err e = { 0 };

	cr_assert_eq(note_encode(&es, 0, &out, &e), 0);
	cr_assert_eq(out.len, 0);
	buf_free(&out);
}

Test(note, encode_appends_after_existing_bytes)
{
	struct entries es = parse_lit("[{\"soname\":[\"a\"]}]");
	unsigned char want[64];
	struct buf out = { 0 };
	struct err e = { 0 };
	size_t n = expected_note(want, sizeof want, 0, "[{\"soname\":[\"a\"]}]");

	buf_put(&out, "XYZW", 4);
	cr_assert_eq(note_encode(&es, 0, &out, &e), 0);
	cr_assert_eq(memcmp(out.p, "XYZW", 4), 0);
	t_assert_bytes(out.p + 4, out.len - 4, want, n, "note after a prefix");
	buf_free(&out);
	manifest_free(&es);
}

Test(note, encode_walk_decode_gives_back_the_entries_in_both_byte_orders)
{
	struct entries es = parse_lit("[{\"soname\":[\"liba.so.1\"],\"feature\":\"a\"},{\"soname\":[\"libb.so.1\",\"libb.so.0\"],\"x\":[{}]}]");
	int big;

	for (big = 0; big < 2; big++) {
		struct entries back = { 0 };
		struct buf out = { 0 };
		struct err e = { 0 };
		struct note_iter it;
		struct note n;
		size_t i;

		cr_assert_eq(note_encode(&es, big, &out, &e), 0);
		note_iter_init(&it, out.p, out.len, 4, big);
		cr_assert_eq(note_next(&it, &n, &e), 1, "%s", e.msg);
		cr_assert(note_is_dlopen(&n));
		cr_assert_eq(n.off, 0);
		cr_assert_eq(n.size, out.len);
		cr_assert_eq(note_decode(&n, &back, &e), 0, "%s", e.msg);
		cr_assert_eq(back.n, es.n);
		for (i = 0; i < es.n; i++)
			cr_assert(manifest_entry_equal(&es.v[i], &back.v[i]));
		cr_assert_eq(note_next(&it, &n, &e), 0);
		manifest_free(&back);
		buf_free(&out);
	}
	manifest_free(&es);
}

/* ---------------------------------------------------------------- walking */

/* Write a note header at area+off, the name right after it and the descriptor at desc_at
 * (both relative to the area), as the test spells out. */
static void put_note(unsigned char *area, size_t off, int big, uint32_t namesz, uint32_t descsz, uint32_t type,
		     const char *name, size_t desc_at, const char *desc)
{
	word(area + off, namesz, big);
	word(area + off + 4, descsz, big);
	word(area + off + 8, type, big);
	if (name)
		memcpy(area + off + 12, name, namesz);
	if (desc)
		memcpy(area + desc_at, desc, descsz);
}

static void expect_note(struct note_iter *it, const unsigned char *area, uint64_t off, uint64_t size, uint32_t namesz,
			uint32_t descsz, uint32_t type, uint64_t desc_at)
{
	struct note n;
	struct err e = { 0 };

	memset(&n, 0xa5, sizeof n);
	cr_assert_eq(note_next(it, &n, &e), 1, "note at %llu: %s", (unsigned long long)off, e.msg);
	cr_assert_eq(n.off, off);
	cr_assert_eq(n.size, size, "note at %llu: size %llu, expected %llu", (unsigned long long)off, (unsigned long long)n.size,
		     (unsigned long long)size);
	cr_assert_eq(n.namesz, namesz);
	cr_assert_eq(n.descsz, descsz);
	cr_assert_eq(n.type, type);
	cr_assert_eq(n.name, area + off + 12, "the name follows the header");
	cr_assert_eq(n.desc, area + desc_at, "note at %llu: descriptor at %td, expected %llu", (unsigned long long)off,
		     n.desc - area, (unsigned long long)desc_at);
}

static void expect_end(struct note_iter *it)
{
	struct note n;
	struct err e = { 0 };

	cr_assert_eq(note_next(it, &n, &e), 0, "expected the end of the area: %s", e.msg);
	cr_assert_eq(note_next(it, &n, &e), 0, "the end stays the end");
}

static void expect_walk_error(const unsigned char *area, size_t len, unsigned align, int big, int good_notes, const char *msg)
{
	struct note_iter it;
	struct note n;
	struct err e = { 0 };
	int i;

	note_iter_init(&it, area, len, align, big);
	for (i = 0; i < good_notes; i++)
		cr_assert_eq(note_next(&it, &n, &e), 1, "note %d: %s", i, e.msg);
	cr_assert_eq(note_next(&it, &n, &e), -1, "expected: %s", msg);
	cr_assert_str_eq(e.msg, msg);
	cr_assert_eq(e.usage, 0);
}

Test(note, walks_a_4_aligned_area_note_by_note)
{
	unsigned char area[80];
	struct note_iter it;

	memset(area, 0, sizeof area);
	/* NT_GNU_BUILD_ID: 12 + "GNU\0" + 20 = 36 bytes */
	put_note(area, 0, 0, 4, 20, 3, "GNU", 16, "0123456789abcdefghij");
	/* namesz 6 ("Linux\0") pads to 8: descriptor at 36+20; 1 byte of descriptor pads to 4 -> 24 bytes */
	put_note(area, 36, 0, 6, 1, 0x100, "Linux", 56, "x");
	/* dlopen note "[]\0": descriptor at 60+16, 3 bytes pad to 4 -> 20 bytes */
	put_note(area, 60, 0, 4, 3, NOTE_DLOPEN_TYPE, "FDO", 76, "[]");

	note_iter_init(&it, area, sizeof area, 4, 0);
	expect_note(&it, area, 0, 36, 4, 20, 3, 16);
	expect_note(&it, area, 36, 24, 6, 1, 0x100, 56);
	expect_note(&it, area, 60, 20, 4, 3, NOTE_DLOPEN_TYPE, 76);
	expect_end(&it);
}

Test(note, walks_an_8_aligned_gnu_property_area_with_the_descriptor_at_16)
{
	unsigned char area[56];
	struct note_iter it;

	memset(area, 0, sizeof area);
	/* NT_GNU_PROPERTY_TYPE_0: namesz 4, descsz 16 -> descriptor at 16, size 32 */
	put_note(area, 0, 0, 4, 16, 5, "GNU", 16, "\x02\x00\x00\xc0\x04\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00");
	/* descsz 4: 16 + 4 = 20 rounds up to 24 with 8-byte padding */
	put_note(area, 32, 0, 4, 4, 5, "GNU", 48, "abcd");

	note_iter_init(&it, area, sizeof area, 8, 0);
	expect_note(&it, area, 0, 32, 4, 16, 5, 16);
	expect_note(&it, area, 32, 24, 4, 4, 5, 48);
	expect_end(&it);
}

Test(note, the_name_is_padded_to_the_area_alignment)
{
	unsigned char area[40];
	struct note_iter it;

	memset(area, 0, sizeof area);
	/* namesz 5: 12 + 5 = 17 -> descriptor at 20 with 4-byte padding, at 24 with 8-byte padding */
	put_note(area, 0, 0, 5, 8, 1, "abcd", 24, NULL);
	note_iter_init(&it, area, sizeof area, 4, 0);
	expect_note(&it, area, 0, 28, 5, 8, 1, 20);
	note_iter_init(&it, area, sizeof area, 8, 0);
	expect_note(&it, area, 0, 32, 5, 8, 1, 24);
}

Test(note, alignments_other_than_8_walk_as_4)
{
	unsigned char area[28];
	struct note_iter it;

	memset(area, 0, sizeof area);
	put_note(area, 0, 0, 5, 8, 1, "abcd", 20, NULL);
	note_iter_init(&it, area, sizeof area, 0, 0);
	expect_note(&it, area, 0, 28, 5, 8, 1, 20);
	note_iter_init(&it, area, sizeof area, 1, 0);
	expect_note(&it, area, 0, 28, 5, 8, 1, 20);
}

/* openal-soft's macro with GCC on x86-64: each note starts at a multiple of 32, zeros between
 * (docs/layout.md, "Notes aligned beyond 8").  A 4-byte walk reads the zeros as a header. */
Test(note, an_area_aligned_beyond_8_steps_over_the_zeros_up_to_its_alignment)
{
	unsigned char area[64 + 20];
	struct note_iter it;
	struct note n;
	struct err e = { 0 };

	memset(area, 0, sizeof area);
	/* "[1]\0": 12 + 4 + 4 = 20 bytes, then 12 zero bytes to 32; the second at 32, 36 at 64 */
	put_note(area, 0, 0, 4, 4, NOTE_DLOPEN_TYPE, "FDO", 16, "[1]");
	put_note(area, 32, 0, 4, 4, NOTE_DLOPEN_TYPE, "FDO", 48, "[2]");
	put_note(area, 64, 0, 4, 4, NOTE_DLOPEN_TYPE, "FDO", 80, "[3]");
	note_iter_init(&it, area, sizeof area, 32, 0);
	expect_note(&it, area, 0, 20, 4, 4, NOTE_DLOPEN_TYPE, 16);
	expect_note(&it, area, 32, 20, 4, 4, NOTE_DLOPEN_TYPE, 48);
	expect_note(&it, area, 64, 20, 4, 4, NOTE_DLOPEN_TYPE, 80);
	expect_end(&it);
	/* Never past the next multiple of the alignment: a zero header there is a note. */
	memset(area + 32, 0, 32);
	note_iter_init(&it, area, sizeof area, 32, 0);
	expect_note(&it, area, 0, 20, 4, 4, NOTE_DLOPEN_TYPE, 16);
	expect_note(&it, area, 32, 12, 0, 0, 0, 44);
	/* Walked as 4, 12 zero bytes read as an empty note of type 0; 8 of them (a note 4 bytes
	 * longer) as a header of type 4 (the next note's name size), then the next note's type is
	 * read as a descriptor size: an error. */
	put_note(area, 32, 0, 4, 4, NOTE_DLOPEN_TYPE, "FDO", 48, "[2]");
	note_iter_init(&it, area, 52, 4, 0);
	expect_note(&it, area, 0, 20, 4, 4, NOTE_DLOPEN_TYPE, 16);
	expect_note(&it, area, 20, 12, 0, 0, 0, 32);
	expect_note(&it, area, 32, 20, 4, 4, NOTE_DLOPEN_TYPE, 48);
	put_note(area, 0, 0, 4, 8, NOTE_DLOPEN_TYPE, "FDO", 16, "[1]\0\0\0\0");
	note_iter_init(&it, area, 52, 4, 0);
	expect_note(&it, area, 0, 24, 4, 8, NOTE_DLOPEN_TYPE, 16);
	expect_note(&it, area, 24, 12, 0, 0, 4, 36);
	cr_assert_eq(note_next(&it, &n, &e), -1, "the misread ends in an error");
	cr_assert(strstr(e.msg, "descriptor size 1081871370 runs past"), "%s", e.msg);
}

Test(note, big_endian_header_words_are_read_in_the_files_order)
{
	unsigned char area[20];
	struct note_iter it;

	memset(area, 0, sizeof area);
	put_note(area, 0, 1, 4, 3, NOTE_DLOPEN_TYPE, "FDO", 16, "[]");
	cr_assert_eq(area[3], 4, "namesz 4 is stored most significant byte first");
	note_iter_init(&it, area, sizeof area, 4, 1);
	expect_note(&it, area, 0, 20, 4, 3, NOTE_DLOPEN_TYPE, 16);
	expect_end(&it);
}

Test(note, an_empty_area_has_no_notes)
{
	struct note_iter it;

	note_iter_init(&it, "", 0, 4, 0);
	expect_end(&it);
}

Test(note, a_last_note_without_padding_is_clipped_to_the_area)
{
	unsigned char area[19];
	struct note_iter it;

	memset(area, 0, sizeof area);
	put_note(area, 0, 0, 4, 3, NOTE_DLOPEN_TYPE, "FDO", 16, "[]");
	note_iter_init(&it, area, sizeof area, 4, 0);
	expect_note(&it, area, 0, 19, 4, 3, NOTE_DLOPEN_TYPE, 16);
	expect_end(&it);
}

Test(note, trailing_zero_padding_shorter_than_a_header_is_not_a_note)
{
	unsigned char area[20 + 11];
	size_t k;

	for (k = 1; k <= 11; k++) {
		struct note_iter it;

		memset(area, 0, sizeof area);
		put_note(area, 0, 0, 4, 3, NOTE_DLOPEN_TYPE, "FDO", 16, "[]");
		note_iter_init(&it, area, 20 + k, 4, 0);
		expect_note(&it, area, 0, 20, 4, 3, NOTE_DLOPEN_TYPE, 16);
		expect_end(&it);
	}
}

Test(note, nonzero_bytes_shorter_than_a_header_are_a_truncated_note)
{
	unsigned char area[20 + 8];

	memset(area, 0, sizeof area);
	put_note(area, 0, 0, 4, 3, NOTE_DLOPEN_TYPE, "FDO", 16, "[]");
	area[20] = 4;       /* the start of a header, cut after 8 bytes */
	area[24] = 3;
	expect_walk_error(area, sizeof area, 4, 0, 1, "truncated note header at offset 0x14");
}

Test(note, a_name_running_past_the_area_is_refused)
{
	unsigned char area[32];

	memset(area, 0, sizeof area);
	put_note(area, 0, 0, 0xffffffffu, 0, 1, NULL, 0, NULL);
	expect_walk_error(area, sizeof area, 4, 0, 0, "note at offset 0x0: name size 4294967295 runs past the note area");
	put_note(area, 0, 1, 0xfffffff4u, 0, 1, NULL, 0, NULL);     /* 12 + namesz == 2^32: no 32-bit wrap either */
	expect_walk_error(area, sizeof area, 4, 1, 0, "note at offset 0x0: name size 4294967284 runs past the note area");
	/* the name fits, its padding does not: 12 + 17 -> 32 > 30 */
	put_note(area, 0, 0, 17, 0, 1, NULL, 0, NULL);
	expect_walk_error(area, 30, 4, 0, 0, "note at offset 0x0: name size 17 runs past the note area");
}

Test(note, a_descriptor_running_past_the_area_is_refused)
{
	unsigned char area[40];

	memset(area, 0, sizeof area);
	put_note(area, 0, 0, 4, 0xffffffffu, NOTE_DLOPEN_TYPE, "FDO", 16, NULL);
	expect_walk_error(area, sizeof area, 4, 0, 0, "note at offset 0x0: descriptor size 4294967295 runs past the note area");
	put_note(area, 0, 0, 4, 3, NOTE_DLOPEN_TYPE, "FDO", 16, "[]");
	put_note(area, 20, 0, 4, 100, NOTE_DLOPEN_TYPE, "FDO", 36, NULL);
	expect_walk_error(area, sizeof area, 4, 0, 1, "note at offset 0x14: descriptor size 100 runs past the note area");
	/* one byte too many */
	put_note(area, 20, 0, 4, 5, NOTE_DLOPEN_TYPE, "FDO", 36, NULL);
	expect_walk_error(area, sizeof area, 4, 0, 1, "note at offset 0x14: descriptor size 5 runs past the note area");
}

/* ---------------------------------------------------------------- identity */

Test(note, a_dlopen_note_is_owner_FDO_and_type_0x407c0c0a)
{
	struct note n;

	memset(&n, 0, sizeof n);
	n.type = 0x407c0c0a;
	n.namesz = 4;
	n.name = (const unsigned char *)"FDO\0";
	cr_assert(note_is_dlopen(&n));
	n.type = 0x407c0c0b;
	cr_assert_not(note_is_dlopen(&n), "another type");
	n.type = 0x407c0c0a;
	n.name = (const unsigned char *)"GNU\0";
	cr_assert_not(note_is_dlopen(&n), "another owner");
	n.name = (const unsigned char *)"FDOX";
	cr_assert_not(note_is_dlopen(&n), "owner not NUL-terminated");
	n.name = (const unsigned char *)"FDO\0";
	n.namesz = 3;
	cr_assert_not(note_is_dlopen(&n), "namesz must be 4");
	n.namesz = 5;
	cr_assert_not(note_is_dlopen(&n), "namesz must be 4");
}

/* ---------------------------------------------------------------- decoding */

static struct note desc_note(const char *desc, size_t len)
{
	struct note n;

	memset(&n, 0, sizeof n);
	n.type = NOTE_DLOPEN_TYPE;
	n.namesz = 4;
	n.name = (const unsigned char *)"FDO";
	n.desc = (const unsigned char *)desc;
	n.descsz = (uint32_t)len;
	return n;
}

static void decode_err(const char *desc, size_t len, const char *msg)
{
	struct note n = desc_note(desc, len);
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(note_decode(&n, &es, &e), -1, "expected: %s", msg);
	cr_assert_str_eq(e.msg, msg);
	cr_assert_eq(e.usage, 0);
	manifest_free(&es);
}

#define DECODE_ERR(lit, msg) decode_err(lit, sizeof(lit) - 1, msg)

Test(note, decode_reads_the_payload_as_a_manifest)
{
	static const char d[] = "[{\"soname\":[\"liba.so.1\"],\"priority\":\"suggested\"},{\"soname\":[\"b\"]}]";
	struct note n = desc_note(d, sizeof d);     /* with its NUL */
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(note_decode(&n, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 2);
	cr_assert_str_eq(es.v[0].m[0].val, "[\"liba.so.1\"]");
	cr_assert_str_eq(es.v[0].m[1].val, "\"suggested\"");
	cr_assert_str_eq(es.v[1].m[0].val, "[\"b\"]");
	manifest_free(&es);
}

Test(note, decode_requires_a_terminating_nul)
{
	DECODE_ERR("[]", "payload is not NUL-terminated");
	decode_err("", 0, "payload is not NUL-terminated");
}

Test(note, decode_accepts_only_zero_bytes_after_the_nul)
{
	struct note n = desc_note("[]\0\0\0\0", 6);
	struct entries es = { 0 };
	struct err e = { 0 };

	cr_assert_eq(note_decode(&n, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 0);
	DECODE_ERR("[]\0x", "payload has bytes after its terminating NUL");
	DECODE_ERR("[]\0\0\0[", "payload has bytes after its terminating NUL");
	DECODE_ERR("[]\0[{\"soname\":[\"a\"]}]\0", "payload has bytes after its terminating NUL");
}

Test(note, decode_reports_manifest_errors_with_their_position)
{
	DECODE_ERR("[{\"feature\":\"x\"}]\0", "line 1, column 2: entry 1 has no \"soname\" (it is mandatory)");
	DECODE_ERR("\0", "line 1, column 1: empty manifest: expected a JSON array of entry objects");
	DECODE_ERR("[{\"soname\":[\"a\\u0062\"]}]\0", "line 1, column 16: \\u escapes are not allowed (spec: no \\uXXXX escaping)");
}

Test(note, decode_appends_to_the_entries_already_read)
{
	struct entries es = parse_lit("[{\"soname\":[\"first\"]}]");
	struct note n = desc_note("[{\"soname\":[\"second\"]}]", 24);
	struct err e = { 0 };

	cr_assert_eq(note_decode(&n, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 2);
	cr_assert_str_eq(es.v[1].m[0].val, "[\"second\"]");
	manifest_free(&es);
}
