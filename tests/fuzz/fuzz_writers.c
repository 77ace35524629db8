/* SPDX-License-Identifier: MIT */
/* Fuzz the writers' escaping of hostile strings: file names (control characters, quotes,
 * backslashes, bytes that are not UTF-8) in the SBOM (--format=cyclonedx), in --format=jsonl
 * and --format=json, and json_put_text and json_put_lossy (the trace's lines) for any bytes.  The
 * input: a manifest, then file names, NUL-separated.  What the writers emit parses back with the
 * strict JSON reader, and a string written with json_put_text reads back as exactly the text
 * messages show (buf_put_text), one written with json_put_lossy as strict JSON no longer than the
 * bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 8

/* The whole of s[0..len) is JSON values, one per line when `lines`. */
static void parses(const char *s, size_t len, int lines, const char *what)
{
	for (size_t at = 0; at < len;) {
		size_t end = len;
		const char *nl;
		struct json j;
		struct err e = {0};
		struct buf compact = {0};
		int bad;

		if (lines && (nl = memchr(s + at, '\n', len - at)))
			end = (size_t)(nl - s) + 1;
		json_init(&j, s + at, end - at, &e);
		json_ws(&j);
		bad = json_value(&j, 0, &compact) || (json_ws(&j), json_peek(&j) != -1);
		buf_free(&compact);
		if (bad) {
			fprintf(stderr, "%s: not JSON: %s\n%.*s\n", what, e.msg, (int)(end - at),
				s + at);
			abort();
		}
		at = end;
	}
}

static void text_round_trip(const char *s, size_t len)
{
	struct buf written = {0}, text = {0}, back = {0};
	struct json j;
	struct err e = {0};

	json_put_text(&written, s, len);
	buf_put_text(&text, s, len);
	json_init(&j, written.p, written.len, &e);
	if (json_string(&j, &back) || json_peek(&j) != -1 || back.len != text.len ||
	    (text.len && memcmp(back.p, text.p, text.len))) {
		fprintf(stderr, "json_put_text does not read back: %s\n", e.msg);
		abort();
	}
	/* and as the trace's lines are written: strict JSON, a character for each '?' */
	written.len = back.len = 0;
	json_put_lossy(&written, s, len);
	json_init(&j, written.p, written.len, &e);
	if (json_string(&j, &back) || json_peek(&j) != -1 || back.len > len) {
		fprintf(stderr, "json_put_lossy does not read back: %s\n", e.msg);
		abort();
	}
	buf_free(&written);
	buf_free(&text);
	buf_free(&back);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char fallback[] = "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}]";
	const char *s = (const char *)data, *end = s + size, *manifest = fallback;
	size_t mlen = sizeof fallback - 1, nfiles = 0;
	char *files[MAX_FILES];
	struct report_opts r = {.format = FORMAT_CYCLONEDX};
	struct listing l = {0};
	struct entries es = {0};
	struct err e = {0};
	char *out = NULL;
	size_t outlen = 0;
	FILE *f;

	const char *nul = memchr(s, 0, size);
	if (nul) {
		if (manifest_parse(s, (size_t)(nul - s), &es, &e) == 0)
			manifest = s, mlen = (size_t)(nul - s);
		manifest_free(&es);
		for (const char *p = nul + 1; p < end && nfiles < MAX_FILES;) {
			const char *q = memchr(p, 0, (size_t)(end - p));
			size_t n = q ? (size_t)(q - p) : (size_t)(end - p);
			text_round_trip(p, n);
			files[nfiles++] = strndup(p, n); /* a name ends at its first NUL */
			p += n + 1;
		}
	}
	if (!nfiles)
		files[nfiles++] = strdup("/usr/lib/libx.so.1");
	if (!(f = open_memstream(&out, &outlen)))
		abort();
	for (size_t i = 0; i < nfiles; i++) {
		char *line = NULL;
		size_t linelen = 0;
		FILE *lf = open_memstream(&line, &linelen);
		memset(&es, 0, sizeof es);
		if (!lf || manifest_parse(manifest, mlen, &es, &e))
			abort();
		report_jsonl(&es, files[i], (int)(i & 1), 62, lf);
		fclose(lf);
		parses(line, linelen, 1, "--format=jsonl");
		free(line);
		report_listing_add(&l, &es, files[i], NULL, &r);
		manifest_free(&es);
	}
	report_list(&l, &r, 1, f);
	fclose(f);
	parses(out, outlen, 0, "--format=cyclonedx");
	free(out);
	report_listing_free(&l);
	report_opts_free(&r);
	for (size_t i = 0; i < nfiles; i++)
		free(files[i]);
	return 0;
}
