/* SPDX-License-Identifier: MIT */
/* packaging_fixtures.h - what the packaging suites share (test_packaging.c,
 * test_packaging_tree.c, test_packaging_lint.c, test_packaging_docs.c): the notes the
 * programs `app` and `simple` are linked with, the objects carrying them, and the tool run with
 * its exact output or usage error expected.
 *
 * Everything is static inline (or static const) so that a suite that does not use a helper
 * does not warn. */
#ifndef DLNOTE_PACKAGING_FIXTURES_H
#define DLNOTE_PACKAGING_FIXTURES_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Four notes, linked from four objects: several notes in one .note.dlopen, one of them with
 * two entries of one feature, one entry with alternatives, one without a priority. */
#define N_FIDO2 "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"description\":\"FIDO2 security tokens\",\"priority\":\"required\"}]"
#define N_PCRE2 "[{\"soname\":[\"libpcre2-8.so.0\",\"libpcre2-8.so.1\"],\"feature\":\"pcre2\",\"description\":\"Regular expressions\",\"priority\":\"suggested\"}]"
#define N_LZ4 "[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"LZ4 compression\",\"priority\":\"recommended\"}]"
#define N_TPM "[{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\"}," \
	"{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"TPM2 support\",\"priority\":\"recommended\"}]"
/* Entries without "feature" (dlopen-notes.py: KeyError 'feature'). */
#define N_NOFEATURE "[{\"soname\":[\"libnofeature.so.1\"]},{\"soname\":[\"libx.so.2\"],\"priority\":\"suggested\",\"x-vendor\":1}]"

static const char main_c[] = "#include <stdio.h>\nint main(void) { puts(\"app\"); return 0; }\n";

/* An object carrying one note: a tiny translation unit, then the tool. */
static inline void note_object(const char *cc, const char *name, const char *json)
{
	char file[64];

	snprintf(file, sizeof file, "%s.json", name);
	put_file(file, json);
	free(sh("echo 'int %s_marker = 1;' > %s.c && %s -c %s.c -o %s.o && '%s' -m %s.json %s.o", name, name, cc, name, name,
		tool(), name, name));
}

/* `app` (all four notes) and `simple` (no alternatives: what dlopen-notes.py handles without
 * losing information), linked with the given compiler; `suffix` names the outputs. */
static inline void build_apps(const char *cc, const char *suffix)
{
	need(cc);
	put_file("main.c", main_c);
	note_object(cc, "fido2", N_FIDO2);
	note_object(cc, "pcre2", N_PCRE2);
	note_object(cc, "lz4", N_LZ4);
	note_object(cc, "tpm", N_TPM);
	free(sh("%s -O1 -o app%s main.c fido2.o pcre2.o lz4.o tpm.o && %s -O1 -o simple%s main.c fido2.o lz4.o tpm.o", cc, suffix,
		cc, suffix));
}

/* Run the tool; it must exit `status`, print exactly `out` and nothing on stderr (status 0). */
static inline void expect_run(const char *args, int status, const char *out)
{
	struct cmd c = run("'%s' %s", tool(), args);

	cr_expect_eq(c.status, status, "`%s` exits %d, not %d\nstderr: %s", args, c.status, status, c.err);
	cr_expect_str_eq(c.out, out, "`%s` prints\n%s\ninstead of\n%s", args, c.out, out);
	if (status == 0)
		cr_expect_str_eq(c.err, "", "`%s` complains: %s", args, c.err);
	cmd_free(&c);
}

static inline void expect_out(const char *args, const char *out)
{
	expect_run(args, 0, out);
}

static inline void expect_usage(const char *args, const char *message)
{
	struct cmd c = run("'%s' %s", tool(), args);

	cr_expect_eq(c.status, 2, "`%s` exits %d, not 2 (stderr: %s)", args, c.status, c.err);
	cr_expect(strstr(c.err, message), "`%s` says \"%s\", which lacks \"%s\"", args, c.err, message);
	cmd_free(&c);
}

#endif
