/* SPDX-License-Identifier: MIT */
/* manifest_fixtures.h - what the manifest suites share (test_manifest.c, test_manifest_build.c,
 * test_manifest_merge.c): manifest_parse expected to accept a text or to refuse it with a given
 * message, a member of an entry compared with its key and canonical value, serialization into
 * a string, and the sonames of the "foo" entry.
 *
 * Everything is static inline (or static const) so that a suite that does not use a helper
 * does not warn. */
#ifndef DLNOTE_TEST_MANIFEST_FIXTURES_H
#define DLNOTE_TEST_MANIFEST_FIXTURES_H

#include <criterion/criterion.h>
#include <string.h>

#include "helpers.h"
#include "base/base.h"
#include "note/note.h"

static inline void parse_ok_at(const char *text, size_t len, struct entries *es)
{
	struct err e = { 0 };

	cr_assert_eq(manifest_parse(text, len, es, &e), 0, "manifest [%.*s] refused: %s", (int)len, text, e.msg);
}

static inline void parse_err_at(const char *text, size_t len, const char *msg)
{
	struct entries es = { 0 };
	struct err e = { 0 };
	int r = manifest_parse(text, len, &es, &e);

	cr_assert_eq(r, -1, "manifest [%.*s] accepted; expected: %s", (int)len, text, msg);
	T_STR_EQ(e.msg, msg, "manifest [%.*s]", (int)len, text);
	cr_assert_eq(e.usage, 0);
	manifest_free(&es);
}

#define PARSE_OK(lit, es) parse_ok_at(lit, sizeof(lit) - 1, es)
#define PARSE_ERR(lit, msg) parse_err_at(lit, sizeof(lit) - 1, msg)

/* Member i of the entry is exactly key: val (val in canonical compact JSON). */
static inline void assert_member(const struct entry *en, size_t i, const char *key, const char *val)
{
	cr_assert_lt(i, en->n, "entry has %zu members, wanted member %zu (%s)", en->n, i, key);
	cr_assert_eq(en->m[i].keylen, strlen(key));
	T_STR_EQ(en->m[i].key, key, "member %zu", i);
	cr_assert_eq(en->m[i].vallen, strlen(val), "member %zu (%s): value [%s], expected [%s]", i, key, en->m[i].val, val);
	T_STR_EQ(en->m[i].val, val, "member %zu (%s)", i, key);
}

static inline struct entries parse_lit(const char *text)
{
	struct entries es = { 0 };

	parse_ok_at(text, strlen(text), &es);
	return es;
}

static inline char *serialize(const struct entries *es)
{
	struct buf b = { 0 };

	manifest_serialize(es, &b);
	cr_assert(!b.oom);
	return buf_take(&b);
}

static const char *const FOO_SONAMES[] = { "libfoo.so.1", "libfoo.so.0" };

#endif
