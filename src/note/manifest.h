/* SPDX-License-Identifier: MIT */
/* manifest.h - the note layer (src/note/: manifest, note, scan).  It takes JSON text, flags and
 * ELF models; it gives dlopen entries (checked against the spec, docs/background.md §1), their
 * note bytes, and where a file's notes are.  It never changes a file.
 *
 * manifest.h: dlopen entries: parsing and validating a manifest, building entries from flags,
 * and writing them back as compact JSON.
 *
 * An entry keeps its members in order, each as a decoded key and a canonical compact JSON value,
 * so unknown keys survive untouched and the serialization is deterministic. */
#ifndef DLNOTE_MANIFEST_H
#define DLNOTE_MANIFEST_H

#include <stddef.h>

#include "../base/base.h"

/* Bound on one manifest or one note payload: generous for real use, small enough that hostile
 * input cannot make the tool use much memory. */
#define MANIFEST_MAX_BYTES (16u << 20)

/* One key of an entry's JSON object, decoded, with its value as canonical compact JSON. */
struct keyval {
	char *key, *val;
	size_t keylen, vallen;
};

struct entry {
	struct keyval *m;
	size_t n, cap;
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

/* Parse a manifest (a JSON array of entry objects) and append its entries to `out`.  Every rule
 * of the spec is checked; errors carry "line L, column C". */
int manifest_parse(const char *text, size_t len, struct entries *out, struct err *e);

/* An entry from command-line values.  Values are validated like manifest strings.  `priority`,
 * `feature` and `description` may be NULL. */
struct entry_spec {
	const char *feature, *description, *priority;
	const char **sonames;
	size_t nsonames;
};
int manifest_entry_from_spec(const struct entry_spec *s, struct entries *out, struct err *e);

const struct keyval *entry_find(const struct entry *en, const char *key);
/* Decoded string value of a key (NULL when absent or not a string); the returned text lives in
 * `tmp`, which the caller frees. */
const char *entry_string(const struct entry *en, const char *key, struct buf *tmp);
/* Effective priority: the entry's, or "recommended" when absent, as the spec says. */
const char *entry_priority(const struct entry *en, struct buf *tmp);

/* A soname with no version after ".so" (libfoo.so) names a development symlink: what a -dev
 * package ships for the link editor, not what a program needs at run time. */
int soname_unversioned(const char *s, size_t len);

void manifest_serialize(const struct entries *es, struct buf *out);
void manifest_serialize_entry(const struct entry *en, struct buf *out);
int manifest_entry_equal(const struct entry *a, const struct entry *b);
/* seen[i] = 1 when b's entry i equals an entry of a or an earlier one of b: O(n log n). */
int manifest_mark_seen(const struct entries *a, const struct entries *b, unsigned char *seen);
/* Append the entries of src that are not already in dst (merge mode). */
int manifest_merge(struct entries *dst, const struct entries *src);
int manifest_append_copy(struct entries *dst, const struct entry *en);
/* Append *en itself, leaving it empty (no copy).  On failure *en is freed. */
int manifest_append_take(struct entries *dst, struct entry *en);
/* Append copies of every entry of src. */
int manifest_merge_all(struct entries *dst, const struct entries *src);
void manifest_free(struct entries *es);

#endif
