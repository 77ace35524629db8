/* SPDX-License-Identifier: MIT */
/* test_scan.c - finding notes in an ELF file (src/note/scan.c).
 *
 * Readers differ (shared/REFERENCE.md §2): some find the note through the section named
 * .note.dlopen, some through PT_NOTE program headers.  The scan sees both, counts a note seen
 * twice once, and --check reports what the spec requires of the section (SHT_NOTE, SHF_ALLOC,
 * read-only, 4-byte aligned, a valid payload) and what the readers need of the segment. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "elf/elf.h"
#include "note/note.h"

/* A dlopen note with an arbitrary descriptor, as the spec lays it out (padding to 4). */
static size_t raw_note(unsigned char *out, int big, uint32_t type, const char *owner, const void *desc, size_t descsz)
{
	size_t n;

	t_put(out, 4, 4, big);
	t_put(out + 4, 4, descsz, big);
	t_put(out + 8, 4, type, big);
	memcpy(out + 12, owner, 4);
	memcpy(out + 16, desc, descsz);
	n = 16 + descsz;
	while (n % 4)
		out[n++] = 0;
	return n;
}

/* A well-formed dlopen note for a payload (the NUL is added). */
static size_t dl_note(unsigned char *out, int big, const char *payload)
{
	return raw_note(out, big, 0x407c0c0a, "FDO", payload, strlen(payload) + 1);
}

static const unsigned char TEXT[16] = { 0xc3 };

/* NT_GNU_BUILD_ID: namesz 4, descsz 20, type 3. */
static size_t build_id_note(unsigned char *out, int big)
{
	return raw_note(out, big, 3, "GNU", "0123456789abcdefghij", 20);
}

struct fx {
	struct t_image im;
	struct elf ef;
	struct scan sc;
	int fd;
};

static void load(struct fx *f, int v, uint16_t type, const struct t_sec *secs, size_t nsec, const struct t_seg *segs, size_t nseg)
{
	struct err e;

	t_build(&f->im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), type, T_VARIANT_IS64(v) ? 62 : 3, secs, nsec, segs, nseg);
	cr_assert_eq(t_elf_open(&f->ef, f->im.p, f->im.len, &f->fd, &e), 0, "%s", e.msg);
	memset(&e, 0, sizeof e);
	cr_assert_eq(scan_file(&f->ef, &f->sc, &e), 0, "scan_file: %s", e.msg);
}

/* [1] .note.dlopen holding `note`, [2] .text; PT_LOAD over the file; a PT_NOTE over [1] when
 * ptnote_align is not 0. */
static void load_std(struct fx *f, int v, const void *note, size_t notesz, uint32_t shtype, uint64_t shflags, uint64_t shalign,
		     uint64_t ptnote_align)
{
	const struct t_sec secs[] = {
		{ ".note.dlopen", shtype, shflags, shalign, note, notesz },
		{ ".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT, sizeof TEXT },
	};
	const struct t_seg segs[] = {
		{ PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000 },
		{ PT_NOTE_, PF_R_, 1, ptnote_align },
	};

	load(f, v, ET_DYN_, secs, 2, segs, ptnote_align ? 2 : 1);
}

static void unload(struct fx *f)
{
	scan_free(&f->sc);
	t_elf_close(&f->ef, f->fd);
	t_image_free(&f->im);
}

static void assert_member(const struct entry *en, size_t i, const char *key, const char *val)
{
	cr_assert_lt(i, en->n);
	T_STR_EQ(en->m[i].key, key, "member %zu", i);
	T_STR_EQ(en->m[i].val, val, "member %zu (%s)", i, key);
}

static char *check(struct fx *f, size_t *errors)
{
	struct buf r = { 0 };

	*errors = scan_check(&f->ef, &f->sc, 0, &r);
	return buf_take(&r);
}

static const char PAYLOAD_AB[] = "[{\"soname\":[\"liba.so.1\"],\"feature\":\"a\"},{\"soname\":[\"libb.so.2\",\"libb.so.1\"]}]";

/* ---------------------------------------------------------------- finding notes */

Test(scan, a_note_seen_through_its_section_and_its_pt_note_is_one_note)
{
	for (int v = 0; v < 4; v++) {
		const char *vn = t_variant(v);
		unsigned char gnu[64], dl[256];
		size_t gnusz = build_id_note(gnu, T_VARIANT_BIG(v)), dlsz = dl_note(dl, T_VARIANT_BIG(v), PAYLOAD_AB);
		const struct t_sec secs[] = {
			{ ".note.gnu.build-id", SHT_NOTE_, SHF_ALLOC_, 4, gnu, gnusz },
			{ ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, dl, dlsz },
			{ ".text", 1, SHF_ALLOC_ | SHF_EXECINSTR_, 16, TEXT, sizeof TEXT },
		};
		const struct t_seg segs[] = {
			{ PT_LOAD_, PF_R_ | PF_X_, 0, 0x1000 },
			{ PT_NOTE_, PF_R_, 1, 4 },
			{ PT_NOTE_, PF_R_, 2, 4 },
		};
		const struct scan_item **notes;
		const struct scan_area *a;
		struct entries es = { 0 };
		struct err e = { 0 };
		struct fx f;
		size_t n, i, sections = 0, segments = 0;

		load(&f, v, ET_DYN_, secs, 3, segs, 3);
		for (i = 0; i < f.sc.nareas; i++) {
			if (f.sc.areas[i].kind == AREA_SECTION)
				sections++;
			else
				segments++;
		}
		cr_assert_eq(sections, 2, "%s: the two note sections", vn);
		cr_assert_eq(segments, 2, "%s: the two PT_NOTEs", vn);

		a = scan_area_of(&f.sc, AREA_SECTION, f.im.off[2], dlsz);
		cr_assert_not_null(a, "%s", vn);
		cr_assert_eq(a->index, 2);
		cr_assert(a->named);
		cr_assert_eq(a->off, f.im.off[2]);
		cr_assert_eq(a->size, dlsz);
		cr_assert_eq(a->align, 4);
		cr_assert_eq(a->n, 1);
		cr_assert_eq(a->ndlopen, 1);
		a = scan_area_of(&f.sc, AREA_SEGMENT, f.im.off[2], dlsz);
		cr_assert_not_null(a, "%s", vn);
		cr_assert_eq(a->index, 2, "%s: program header 2", vn);
		cr_assert_eq(a->ndlopen, 1);
		a = scan_area_of(&f.sc, AREA_SECTION, f.im.off[1], gnusz);
		cr_assert_not_null(a);
		cr_assert_eq(a->n, 1);
		cr_assert_eq(a->ndlopen, 0, "%s: a build-id note is not a dlopen note", vn);
		cr_assert_not(a->named);

		n = scan_dlopen_notes(&f.sc, &notes);
		cr_assert_eq(n, 1, "%s: one distinct dlopen note", vn);
		cr_assert_eq(notes[0]->off, f.im.off[2]);
		cr_assert_eq(notes[0]->desc_off, f.im.off[2] + 16);
		cr_assert_eq(notes[0]->descsz, sizeof PAYLOAD_AB);
		cr_assert_eq(notes[0]->size, dlsz);
		free(notes);

		cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), 0, "%s: %s", vn, e.msg);
		cr_assert_eq(es.n, 2, "%s: the entries once, not once per view", vn);
		assert_member(&es.v[0], 0, "soname", "[\"liba.so.1\"]");
		assert_member(&es.v[0], 1, "feature", "\"a\"");
		assert_member(&es.v[1], 0, "soname", "[\"libb.so.2\",\"libb.so.1\"]");
		manifest_free(&es);
		unload(&f);
	}
}

Test(scan, several_dlopen_notes_read_as_one_array_in_file_order)
{
	unsigned char dl[512];
	size_t n1 = dl_note(dl, 0, "[{\"soname\":[\"libone.so\"]}]");
	size_t n2 = dl_note(dl + n1, 0, "[{\"soname\":[\"libtwo.so\"]},{\"soname\":[\"libthree.so\"]}]");
	const struct scan_item **notes;
	struct entries es = { 0 };
	struct err e = { 0 };
	struct fx f;

	load_std(&f, 2, dl, n1 + n2, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	cr_assert_eq(scan_dlopen_notes(&f.sc, &notes), 2);
	cr_assert_eq(notes[0]->off, f.im.off[1]);
	cr_assert_eq(notes[1]->off, f.im.off[1] + n1);
	free(notes);
	cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 3);
	assert_member(&es.v[0], 0, "soname", "[\"libone.so\"]");
	assert_member(&es.v[1], 0, "soname", "[\"libtwo.so\"]");
	assert_member(&es.v[2], 0, "soname", "[\"libthree.so\"]");
	manifest_free(&es);
	unload(&f);
}

Test(scan, notes_are_found_by_owner_and_type_not_by_position)
{
	unsigned char area[512];
	size_t n = 0;
	struct entries es = { 0 };
	struct err e = { 0 };
	struct fx f;

	n += raw_note(area + n, 0, 0x407c0c0a, "GNU", "[{\"soname\":[\"no\"]}]", 20);    /* right type, wrong owner */
	n += raw_note(area + n, 0, 0x407c0c0b, "FDO", "[{\"soname\":[\"no\"]}]", 20);    /* right owner, wrong type */
	n += dl_note(area + n, 0, "[{\"soname\":[\"yes\"]}]");
	load_std(&f, 2, area, n, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 1);
	assert_member(&es.v[0], 0, "soname", "[\"yes\"]");
	manifest_free(&es);
	unload(&f);
}

Test(scan, a_file_without_section_headers_is_read_through_its_pt_note)
{
	for (int v = 0; v < 4; v++) {
		unsigned char dl[256];
		size_t dlsz = dl_note(dl, T_VARIANT_BIG(v), PAYLOAD_AB);
		struct entries es = { 0 };
		struct err e = { 0 };
		struct fx f;
		const struct t_sec secs[] = { { ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, dl, dlsz } };
		const struct t_seg segs[] = { { PT_LOAD_, PF_R_, 0, 0x1000 }, { PT_NOTE_, PF_R_, 1, 4 } };

		t_build(&f.im, T_VARIANT_IS64(v), T_VARIANT_BIG(v), ET_EXEC_, 62, secs, 1, segs, 2);
		t_strip_sections(&f.im);
		cr_assert_eq(t_elf_open(&f.ef, f.im.p, f.im.len, &f.fd, &e), 0, "%s", e.msg);
		cr_assert_eq(scan_file(&f.ef, &f.sc, &e), 0, "%s", e.msg);
		cr_assert_eq(f.sc.nareas, 1, "%s", t_variant(v));
		cr_assert_eq(f.sc.areas[0].kind, AREA_SEGMENT);
		cr_assert_eq(f.sc.areas[0].ndlopen, 1);
		cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), 0, "%s: %s", t_variant(v), e.msg);
		cr_assert_eq(es.n, 2, "%s", t_variant(v));
		assert_member(&es.v[1], 0, "soname", "[\"libb.so.2\",\"libb.so.1\"]");
		manifest_free(&es);
		unload(&f);
	}
}

Test(scan, dlopen_notes_in_an_8_aligned_pt_note_are_taken_from_their_section)
{
	/* mold merges .note.gnu.property (8-aligned) and .note.dlopen into one 8-aligned PT_NOTE
	 * (REFERENCE §3).  The dlopen notes are 4-aligned: walking them with 8-byte padding would
	 * read the second note's header 4 bytes too late.  The sections know each note's alignment. */
	unsigned char prop[32], dl[256];
	size_t propsz = raw_note(prop, 0, 5, "GNU", "\x02\x00\x00\xc0\x04\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00", 16);
	size_t dl1 = dl_note(dl, 0, "[{\"soname\":[\"libzz.so\"]}]");
	size_t dlsz = dl1 + dl_note(dl + dl1, 0, "[{\"soname\":[\"liby.so\"]}]");
	const struct t_sec secs[] = {
		{ ".note.gnu.property", SHT_NOTE_, SHF_ALLOC_, 8, prop, propsz },
		{ ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, dl, dlsz },
	};
	const struct t_seg segs[] = { { PT_LOAD_, PF_R_, 0, 0x1000 }, { PT_NOTE_, PF_R_, 1, 8 } };
	const struct scan_item **notes;
	struct entries es = { 0 };
	struct err e = { 0 };
	struct fx f;
	char *report, want[1024];
	size_t errors;
	uint64_t ph1;

	cr_assert_eq(dl1 % 8, 4, "the first dlopen note must end off an 8-byte boundary for this test");
	load(&f, 2, ET_DYN_, secs, 2, segs, 2);
	/* widen the PT_NOTE over both sections, re-open and re-scan */
	ph1 = f.im.phoff + 56;
	t_put(f.im.p + ph1 + 32, 8, f.im.off[2] + dlsz - f.im.off[1], 0);
	t_put(f.im.p + ph1 + 40, 8, f.im.off[2] + dlsz - f.im.off[1], 0);
	scan_free(&f.sc);
	t_elf_close(&f.ef, f.fd);
	cr_assert_eq(t_elf_open(&f.ef, f.im.p, f.im.len, &f.fd, &e), 0, "%s", e.msg);
	cr_assert_eq(f.ef.ph[1].filesz, propsz + dlsz);
	cr_assert_eq(scan_file(&f.ef, &f.sc, &e), 0, "%s", e.msg);

	cr_assert_eq(scan_dlopen_notes(&f.sc, &notes), 2);
	cr_assert_eq(notes[0]->off, f.im.off[2]);
	cr_assert_eq(notes[1]->off, f.im.off[2] + dl1);
	free(notes);
	cr_assert_eq(scan_area_of(&f.sc, AREA_SEGMENT, f.im.off[2] + dl1, dlsz - dl1)->n, 3, "the segment holds three notes");
	cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 2);
	assert_member(&es.v[0], 0, "soname", "[\"libzz.so\"]");
	assert_member(&es.v[1], 0, "soname", "[\"liby.so\"]");
	manifest_free(&es);

	report = check(&f, &errors);
	snprintf(want, sizeof want,
		 "warning: dlopen note at offset 0x%llx is in a PT_NOTE aligned to 8: readers walking it with that padding can misparse it\n"
		 "warning: dlopen note at offset 0x%llx is in a PT_NOTE aligned to 8: readers walking it with that padding can misparse it\n",
		 (unsigned long long)f.im.off[2], (unsigned long long)(f.im.off[2] + dl1));
	cr_assert_eq(errors, 0, "%s", report);
	T_STR_EQ(report, want, "check of a mold-style merged PT_NOTE");
	free(report);
	unload(&f);
}

Test(scan, a_malformed_note_makes_the_scan_fail_naming_the_area)
{
	unsigned char area[32];
	char msg[160];
	struct err e = { 0 };
	struct t_image im;
	struct elf ef;
	struct scan sc;
	int fd;
	const struct t_sec secs[] = { { ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, area, 20 } };
	const struct t_seg segs[] = { { PT_LOAD_, PF_R_, 0, 0x1000 }, { PT_NOTE_, PF_R_, 1, 4 } };

	memset(area, 0, sizeof area);
	dl_note(area, 0, "[]");
	t_put(area + 4, 4, 0xffffffff, 0);        /* n_descsz */
	t_build(&im, 1, 0, ET_DYN_, 62, secs, 1, segs, 2);
	cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), 0, "%s", e.msg);
	cr_assert_eq(scan_file(&ef, &sc, &e), -1);
	T_STR_EQ(e.msg, "section [1] .note.dlopen: note at offset 0x0: descriptor size 4294967295 runs past the note area", "section");
	cr_assert_null(sc.areas);
	cr_assert_null(sc.items);
	t_elf_close(&ef, fd);

	t_strip_sections(&im);
	cr_assert_eq(t_elf_open(&ef, im.p, im.len, &fd, &e), 0, "%s", e.msg);
	cr_assert_eq(scan_file(&ef, &sc, &e), -1);
	snprintf(msg, sizeof msg, "program header 1 (PT_NOTE): note at offset 0x0: descriptor size 4294967295 runs past the note area");
	T_STR_EQ(e.msg, msg, "segment");
	t_elf_close(&ef, fd);
	t_image_free(&im);
}

Test(scan, scan_entries_reports_an_invalid_payload_with_the_notes_offset)
{
	unsigned char dl[64];
	size_t dlsz = dl_note(dl, 0, "[{\"feature\":\"x\"}]");
	struct entries es = { 0 };
	struct err e = { 0 };
	char msg[200];
	struct fx f;

	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), -1);
	snprintf(msg, sizeof msg, "dlopen note at offset 0x%llx: line 1, column 2: entry 1 has no \"soname\" (it is mandatory)",
		 (unsigned long long)f.im.off[1]);
	T_STR_EQ(e.msg, msg, "scan_entries");
	manifest_free(&es);
	unload(&f);
}

/* ---------------------------------------------------------------- --check */

static void check_is(struct fx *f, size_t want_errors, const char *want_report, const char *what)
{
	size_t errors;
	char *report = check(f, &errors);

	T_STR_EQ(report, want_report, "%s", what);
	cr_assert_eq(errors, want_errors, "%s: %zu errors, expected %zu", what, errors, want_errors);
	free(report);
}

Test(scan, check_reports_nothing_for_a_note_as_the_spec_wants_it)
{
	for (int v = 0; v < 4; v++) {
		unsigned char dl[256];
		size_t dlsz = dl_note(dl, T_VARIANT_BIG(v), PAYLOAD_AB);
		struct fx f;

		load_std(&f, v, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 4, 4);
		check_is(&f, 0, "", t_variant(v));
		unload(&f);
	}
}

Test(scan, check_reports_a_section_that_is_not_sht_note)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	struct fx f;

	load_std(&f, 2, dl, dlsz, 1 /* SHT_PROGBITS */, SHF_ALLOC_, 4, 4);
	check_is(&f, 1, "error: section [1] .note.dlopen has type 1, not SHT_NOTE\n", "SHT_PROGBITS");
	unload(&f);
}

Test(scan, check_reports_a_section_that_is_not_allocated)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 1, PAYLOAD_AB);
	struct fx f;

	load_std(&f, 1, dl, dlsz, SHT_NOTE_, 0, 4, 4);
	check_is(&f, 1, "error: section [1] .note.dlopen is not allocated (SHF_ALLOC), as the spec requires\n", "no SHF_ALLOC");
	unload(&f);
}

Test(scan, check_reports_a_writable_section)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	struct fx f;

	load_std(&f, 0, dl, dlsz, SHT_NOTE_, SHF_ALLOC_ | SHF_WRITE_, 4, 4);
	check_is(&f, 1, "error: section [1] .note.dlopen is writable; the spec requires read-only\n", "SHF_WRITE");
	unload(&f);
}

Test(scan, check_reports_an_alignment_other_than_4)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	struct fx f;

	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 8, 4);
	check_is(&f, 1, "error: section [1] .note.dlopen has alignment 8; the spec requires 4\n", "sh_addralign 8");
	unload(&f);
	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 1, 4);
	check_is(&f, 1, "error: section [1] .note.dlopen has alignment 1; the spec requires 4\n", "sh_addralign 1");
	unload(&f);
}

Test(scan, check_reports_every_section_problem_in_one_pass)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	struct fx f;

	load_std(&f, 2, dl, dlsz, 1, SHF_WRITE_, 8, 4);
	check_is(&f, 4,
		 "error: section [1] .note.dlopen has type 1, not SHT_NOTE\n"
		 "error: section [1] .note.dlopen is not allocated (SHF_ALLOC), as the spec requires\n"
		 "error: section [1] .note.dlopen is writable; the spec requires read-only\n"
		 "error: section [1] .note.dlopen has alignment 8; the spec requires 4\n",
		 "PROGBITS, writable, not allocated, 8-aligned");
	unload(&f);
}

Test(scan, check_reports_an_invalid_payload_once_though_seen_twice)
{
	unsigned char dl[64];
	size_t dlsz = dl_note(dl, 0, "[{\"soname\":[\"a\"],\"priority\":\"urgent\"}]");
	char want[300];
	struct fx f;

	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	/* "priority" 18-27, ':' 28, value 29 */
	snprintf(want, sizeof want,
		 "error: dlopen note at offset 0x%llx: line 1, column 29: entry 1: \"priority\" must be \"required\", \"recommended\" or \"suggested\"\n",
		 (unsigned long long)f.im.off[1]);
	check_is(&f, 1, want, "bad priority");
	unload(&f);
}

Test(scan, check_reports_a_payload_without_its_nul_or_with_bytes_after_it)
{
	unsigned char dl[64];
	size_t dlsz;
	char want[200];
	struct fx f;

	dlsz = raw_note(dl, 0, 0x407c0c0a, "FDO", "[]", 2);
	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	snprintf(want, sizeof want, "error: dlopen note at offset 0x%llx: payload is not NUL-terminated\n", (unsigned long long)f.im.off[1]);
	check_is(&f, 1, want, "no NUL");
	unload(&f);

	dlsz = raw_note(dl, 0, 0x407c0c0a, "FDO", "[]\0x", 4);
	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	snprintf(want, sizeof want, "error: dlopen note at offset 0x%llx: payload has bytes after its terminating NUL\n",
		 (unsigned long long)f.im.off[1]);
	check_is(&f, 1, want, "bytes after the NUL");
	unload(&f);
}

Test(scan, check_warns_when_no_pt_note_covers_the_note)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	char want[300];
	struct fx f;

	load_std(&f, 2, dl, dlsz, SHT_NOTE_, SHF_ALLOC_, 4, 0);
	snprintf(want, sizeof want,
		 "warning: dlopen note at offset 0x%llx is in no PT_NOTE segment: readers of program headers (systemd-analyze) will not see it\n",
		 (unsigned long long)f.im.off[1]);
	check_is(&f, 0, want, "no PT_NOTE");
	unload(&f);
}

Test(scan, check_warns_when_the_pt_note_is_in_no_pt_load)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	const struct t_sec secs[] = { { ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, dl, dlsz } };
	const struct t_seg segs[] = { { PT_NOTE_, PF_R_, 1, 4 } };
	struct fx f;

	load(&f, 2, ET_EXEC_, secs, 1, segs, 1);
	check_is(&f, 0, "warning: PT_NOTE program header 0 lies in no PT_LOAD: it is not in memory at run time\n", "no PT_LOAD");
	unload(&f);
}

Test(scan, check_warns_about_dlopen_notes_in_a_section_with_another_name)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	const struct t_sec secs[] = { { ".note.other", SHT_NOTE_, SHF_ALLOC_, 4, dl, dlsz } };
	const struct t_seg segs[] = { { PT_LOAD_, PF_R_, 0, 0x1000 }, { PT_NOTE_, PF_R_, 1, 4 } };
	struct fx f;

	load(&f, 2, ET_DYN_, secs, 1, segs, 2);
	check_is(&f, 0,
		 "warning: section [1] holds dlopen notes but is not named .note.dlopen: readers that look the section up by name "
		 "(dlopen-notes.py, dracut) will not see them\n",
		 "misnamed section");
	unload(&f);
}

Test(scan, check_warns_about_other_notes_sharing_the_section)
{
	unsigned char area[256];
	size_t n = build_id_note(area, 0);
	struct fx f;

	/* Sharing the PT_NOTE is no warning: a Linux file, and the segment is small. */
	n += dl_note(area + n, 0, "[{\"soname\":[\"a\"]}]");
	load_std(&f, 2, area, n, SHT_NOTE_, SHF_ALLOC_, 4, 4);
	check_is(&f, 0, "warning: section [1] .note.dlopen also holds notes that are not dlopen notes\n",
		 "shared section");
	unload(&f);
}

Test(scan, an_empty_note_dlopen_section_is_harmless)
{
	struct fx f;

	load_std(&f, 2, "", 0, 1, SHF_WRITE_, 1, 0);
	check_is(&f, 0, "", "empty .note.dlopen");
	unload(&f);
}

Test(scan, a_relocatable_object_is_not_checked_for_segments)
{
	unsigned char dl[256];
	size_t dlsz = dl_note(dl, 0, PAYLOAD_AB);
	const struct t_sec secs[] = { { ".note.dlopen", SHT_NOTE_, SHF_ALLOC_, 4, dl, dlsz } };
	struct entries es = { 0 };
	struct err e = { 0 };
	struct fx f;

	load(&f, 2, ET_REL_, secs, 1, NULL, 0);
	check_is(&f, 0, "", "ET_REL");
	cr_assert_eq(scan_entries(&f.ef, &f.sc, &es, &e), 0, "%s", e.msg);
	cr_assert_eq(es.n, 2);
	manifest_free(&es);
	unload(&f);
}
