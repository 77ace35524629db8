/* SPDX-License-Identifier: MIT */
/* json.h - a strict JSON lexer for manifests and note payloads.
 *
 * Strict in the ways the dlopen-note spec asks (docs/background.md §1): valid UTF-8 with no
 * overlong forms or surrogates, no control characters in strings (raw or escaped), no \u
 * escapes, unique keys in every object, bounded nesting, nothing after the top value.  It does
 * not allocate per token and never recurses on input-controlled depth. */
#ifndef DLNOTE_JSON_H
#define DLNOTE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Depth counts every array and object, the top-level array included. */
#define JSON_MAX_DEPTH 32

struct json {
	const unsigned char *s;
	size_t len, i;
	size_t line, col; /* position of s[i], both 1-based; col counts characters */
	struct err *e;
};

void json_init(struct json *j, const char *text, size_t len, struct err *e);
void json_ws(struct json *j);
int json_peek(struct json *j);       /* next byte, or -1 at the end */
int json_eat(struct json *j, int c); /* consume c if it is next; 1 if consumed */
int json_expect(struct json *j, int c, const char *what);
int json_error(struct json *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A string at the cursor.  Its decoded bytes are appended to `decoded` (may be NULL). */
int json_string(struct json *j, struct buf *decoded);

/* Any value at the cursor, `depth` containers deep already.  Appended to `compact` in canonical
 * compact form: no whitespace, strings re-escaped canonically, numbers and literals as written. */
int json_value(struct json *j, int depth, struct buf *compact);

/* Canonical string encoding of decoded bytes: only '"' and '\' are escaped (nothing else can
 * appear, since control characters are refused). */
void json_put_string(struct buf *b, const char *s, size_t len);

/* Validate text that did not come from JSON (a command-line value) by the same string rules.
 * Returns NULL when valid, else the reason. */
const char *json_check_text(const char *s, size_t len);

/* Key uniqueness (RFC 8259 §4, required by the spec): keys of one object are collected, then
 * checked together in O(n log n) when the object closes. */
struct json_key {
	size_t off, len; /* into keyset.text */
	size_t line, col;
};
struct json_keyset {
	struct buf text;
	struct json_key *k;
	size_t n, cap;
};
int json_keyset_add(struct json_keyset *ks, const char *key, size_t len, size_t line, size_t col);
/* Check keys [first, n) for duplicates and drop them from the set. */
int json_keyset_close(struct json_keyset *ks, size_t first, struct err *e);
void json_keyset_free(struct json_keyset *ks);

/* Walk the strings of a canonical compact array such as ["a","b"] (as produced by json_value):
 * returns 1 and fills out with the next decoded string, 0 at the end, -1 if not such an array. */
int json_array_next_string(const char *val, size_t len, size_t *pos, struct buf *out);
/* Decode a canonical compact string value ("...") into out; -1 if val is not a string. */
int json_string_value(const char *val, size_t len, struct buf *out);

#endif
