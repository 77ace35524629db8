/* SPDX-License-Identifier: MIT */
/* manifest.c - entries: the spec's rules (docs/background.md §1), parsing, building, writing. */
#include "note.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

static const char *const priorities[] = {"required", "recommended", "suggested"};

void manifest_entry_free(struct entry *en)
{
	size_t i;

	for (i = 0; i < en->n; i++)
		free(en->m[i].key); /* the value shares its allocation */
	free(en->m);
	memset(en, 0, sizeof *en);
}

void manifest_truncate(struct entries *es, size_t n)
{
	while (es->n > n)
		manifest_entry_free(&es->v[--es->n]);
}

void manifest_free(struct entries *es)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		manifest_entry_free(&es->v[i]);
	free(es->v);
	memset(es, 0, sizeof *es);
}

static int entry_add_member(struct entry *en, const char *key, size_t keylen, const char *val,
			    size_t vallen)
{
	struct keyval *m = xgrow(en->m, &en->cap, en->n, sizeof *m);

	if (!m)
		return -1;
	en->m = m;
	m = &en->m[en->n];
	/* One allocation for both: entries are many, allocations are what they cost. */
	if (keylen > SIZE_MAX / 2 - vallen || !(m->key = malloc(keylen + vallen + 2)))
		return -1;
	memcpy(m->key, key, keylen);
	m->key[keylen] = '\0';
	m->val = m->key + keylen + 1;
	memcpy(m->val, val, vallen);
	m->val[vallen] = '\0';
	m->keylen = keylen;
	m->vallen = vallen;
	en->n++;
	return 0;
}

/* Takes ownership of *en. */
static int entries_push(struct entries *es, struct entry *en)
{
	struct entry *v = xgrow(es->v, &es->cap, es->n, sizeof *v);

	if (!v) {
		manifest_entry_free(en);
		return -1;
	}
	es->v = v;
	es->v[es->n++] = *en;
	memset(en, 0, sizeof *en);
	return 0;
}

const struct keyval *entry_find(const struct entry *en, const char *key)
{
	size_t i, n = strlen(key);

	for (i = 0; i < en->n; i++)
		if (en->m[i].keylen == n && memcmp(en->m[i].key, key, n) == 0)
			return &en->m[i];
	return NULL;
}

const char *entry_string(const struct entry *en, const char *key, struct buf *tmp)
{
	const struct keyval *m = entry_find(en, key);

	tmp->len = 0;
	if (!m || json_string_value(m->val, m->vallen, tmp))
		return NULL;
	buf_put(tmp, "", 0);
	return tmp->oom ? NULL : tmp->p;
}

const char *entry_priority(const struct entry *en, struct buf *tmp)
{
	const char *p = entry_string(en, "priority", tmp);

	return p ? p : "recommended";
}

int manifest_priority_rank(const struct entry *en)
{
	const struct keyval *p = entry_find(en, "priority");

	if (p && p->vallen == 10 && memcmp(p->val, "\"required\"", 10) == 0)
		return 2;
	if (p && p->vallen == 11 && memcmp(p->val, "\"suggested\"", 11) == 0)
		return 0;
	return 1; /* recommended, absent (its default), or a level this version does not know */
}

/* The spec's rule for one well-known key, applied to its canonical value.  Unknown keys may hold
 * any JSON value.  Returns NULL when the value is acceptable, else the reason. */
static const char *check_member(const char *key, const char *val, size_t len)
{
	struct buf s = {0};
	const char *why = NULL;
	size_t pos = 0, count = 0, i;
	int r;

	if (strcmp(key, "soname") == 0) {
		if (val[0] != '[')
			return "\"soname\" must be an array of strings";
		while ((r = json_array_next_string(val, len, &pos, &s)) == 1 && !why) {
			count++;
			if (s.len == 0)
				why = "\"soname\" must not contain an empty string";
		}
		if (!why && r < 0)
			why = "\"soname\" must be an array of strings";
		if (!why && count == 0)
			why = "\"soname\" must list at least one library";
	} else if (strcmp(key, "feature") == 0 || strcmp(key, "description") == 0) {
		if (val[0] != '"')
			why = strcmp(key, "feature") == 0 ? "\"feature\" must be a string"
							  : "\"description\" must be a string";
	} else if (strcmp(key, "priority") == 0) {
		why = "\"priority\" must be \"required\", \"recommended\" or \"suggested\"";
		if (json_string_value(val, len, &s) == 0) {
			buf_put(&s, "", 0);
			for (i = 0; i < 3; i++)
				if (s.p && strcmp(s.p, priorities[i]) == 0)
					why = NULL;
		}
	}
	buf_free(&s);
	return why;
}

/* Buffers every entry of a manifest reuses: a manifest may hold a million entries. */
struct scratch {
	struct json_keyset ks;
	struct buf key, val;
};

/* One entry object at the cursor (already past nothing: the cursor is on '{'). */
static int parse_entry(struct json *j, size_t index, struct entries *out, struct scratch *sc)
{
	struct json_keyset *ks = &sc->ks;
	struct entry en = {0};
	struct buf *key = &sc->key, *val = &sc->val;
	size_t line = j->line, col = j->col, kline, kcol, vline, vcol;
	const char *why;
	int r = -1;

	if (json_expect(j, '{', "an entry object"))
		return -1;
	json_ws(j);
	if (!json_eat(j, '}')) {
		do {
			json_ws(j);
			key->len = val->len = 0;
			if (json_peek(j) != '"') {
				json_expect(j, '"', "a string key");
				goto out;
			}
			kline = j->line, kcol = j->col;
			if (json_string(j, key))
				goto out;
			if (json_keyset_add(ks, key->p ? key->p : "", key->len, kline, kcol))
				goto oom;
			json_ws(j);
			if (json_expect(j, ':', "':'"))
				goto out;
			json_ws(j);
			vline = j->line, vcol = j->col;
			if (json_value(j, 2, val))
				goto out;
			buf_put(key, "", 0);
			if (key->oom || val->oom)
				goto oom;
			why = check_member(key->p, val->p, val->len);
			if (why) {
				err_set(j->e, "line %zu, column %zu: entry %zu: %s", vline, vcol,
					index, why);
				goto out;
			}
			if (entry_add_member(&en, key->p, key->len, val->p, val->len))
				goto oom;
			json_ws(j);
		} while (json_eat(j, ','));
		if (json_expect(j, '}', "',' or '}'"))
			goto out;
	}
	if (json_keyset_close(ks, 0, j->e))
		goto out;
	if (!entry_find(&en, "soname")) {
		err_set(j->e, "line %zu, column %zu: entry %zu has no \"soname\" (it is mandatory)",
			line, col, index);
		goto out;
	}
	if (entries_push(out, &en))
		goto oom;
	r = 0;
	goto out;
oom:
	err_oom(j->e);
out:
	manifest_entry_free(&en);
	ks->n = 0; /* an error leaves keys behind; the next entry starts afresh */
	ks->text.len = 0;
	return r;
}

int manifest_parse(const char *text, size_t len, struct entries *out, struct err *e)
{
	struct scratch sc = {0};
	struct json j;
	size_t index = 0;
	int r = -1;

	json_init(&j, text, len, e);
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		return json_error(&j,
				  "byte order mark before the array (not allowed in JSON text)");
	json_ws(&j);
	if (json_peek(&j) != '[') {
		if (json_peek(&j) < 0)
			return json_error(&j,
					  "empty manifest: expected a JSON array of entry objects");
		return json_error(&j, "expected a JSON array of entry objects");
	}
	json_eat(&j, '[');
	json_ws(&j);
	if (!json_eat(&j, ']')) {
		do {
			json_ws(&j);
			if (parse_entry(&j, ++index, out, &sc))
				goto out;
			json_ws(&j);
		} while (json_eat(&j, ','));
		if (json_expect(&j, ']', "',' or ']'"))
			goto out;
	}
	json_ws(&j);
	r = json_peek(&j) >= 0 ? json_error(&j, "unexpected text after the array") : 0;
out:
	json_keyset_free(&sc.ks);
	buf_free(&sc.key);
	buf_free(&sc.val);
	return r;
}

static int add_string_member(struct entry *en, const char *key, const char *value, struct err *e)
{
	struct buf v = {0};
	const char *why = json_check_text(value, strlen(value));
	int r;

	if (why)
		return err_usage(e, "%s: %s", key, why);
	json_put_string(&v, value, strlen(value));
	r = v.oom || entry_add_member(en, key, strlen(key), v.p, v.len);
	buf_free(&v);
	return r ? err_oom(e) : 0;
}

int manifest_entry_from_spec(const struct entry_spec *s, struct entries *out, struct err *e)
{
	struct entry en = {0};
	struct buf arr = {0};
	const char *why;
	size_t i;

	if (s->nsonames == 0)
		return err_usage(e, "entry%s%s has no soname (it is mandatory)",
				 s->feature ? " for feature " : "", s->feature ? s->feature : "");
	buf_putc(&arr, '[');
	for (i = 0; i < s->nsonames; i++) {
		why = json_check_text(s->sonames[i], strlen(s->sonames[i]));
		if (!why && s->sonames[i][0] == '\0')
			why = "empty soname";
		if (why) {
			buf_free(&arr);
			return err_usage(e, "soname: %s", why);
		}
		if (i)
			buf_putc(&arr, ',');
		json_put_string(&arr, s->sonames[i], strlen(s->sonames[i]));
	}
	buf_putc(&arr, ']');
	if (arr.oom || entry_add_member(&en, "soname", 6, arr.p, arr.len)) {
		buf_free(&arr);
		return err_oom(e);
	}
	buf_free(&arr);
	for (i = 0; s->priority && i < 3 && strcmp(s->priority, priorities[i]); i++)
		;
	if (i == 3) {
		manifest_entry_free(&en);
		return err_usage(
			e, "priority: must be required, recommended or suggested, not '%.64s'",
			s->priority);
	}
	/* Key order follows the spec's example: soname, feature, description, priority. */
	if ((s->feature && add_string_member(&en, "feature", s->feature, e)) ||
	    (s->description && add_string_member(&en, "description", s->description, e)) ||
	    (s->priority && add_string_member(&en, "priority", s->priority, e))) {
		manifest_entry_free(&en);
		return -1;
	}
	return entries_push(out, &en) ? err_oom(e) : 0;
}

void manifest_serialize_entry(const struct entry *en, struct buf *out)
{
	size_t i;

	buf_putc(out, '{');
	for (i = 0; i < en->n; i++) {
		if (i)
			buf_putc(out, ',');
		json_put_string(out, en->m[i].key, en->m[i].keylen);
		buf_putc(out, ':');
		buf_put(out, en->m[i].val, en->m[i].vallen);
	}
	buf_putc(out, '}');
}

void manifest_serialize(const struct entries *es, struct buf *out)
{
	size_t i;

	buf_putc(out, '[');
	for (i = 0; i < es->n; i++) {
		if (i)
			buf_putc(out, ',');
		manifest_serialize_entry(&es->v[i], out);
	}
	buf_putc(out, ']');
}

/* Same keys with the same values, in any order: JSON objects are unordered (RFC 8259 §4), and
 * the C macro writes "feature" first while flag entries start with "soname".  Values are in
 * canonical form, so byte equality is value equality (nested objects keep their order). */
int manifest_entry_equal(const struct entry *a, const struct entry *b)
{
	const struct keyval *m;
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++) {
		m = entry_find(b, a->m[i].key);
		if (!m || m->vallen != a->m[i].vallen || memcmp(m->val, a->m[i].val, m->vallen))
			return 0;
	}
	return 1;
}

int manifest_append_take(struct entries *dst, struct entry *en)
{
	return entries_push(dst, en);
}

int manifest_append_copy(struct entries *dst, const struct entry *en)
{
	struct entry copy = {0};
	size_t i;

	for (i = 0; i < en->n; i++)
		if (entry_add_member(&copy, en->m[i].key, en->m[i].keylen, en->m[i].val,
				     en->m[i].vallen)) {
			manifest_entry_free(&copy);
			return -1;
		}
	return entries_push(dst, &copy);
}

/* An entry's members sorted by key, serialized: equal entries (manifest_entry_equal) give equal
 * texts, and different ones different texts (keys are escaped, values canonical). */
static int entry_canonical(const struct entry *en, struct buf *out, struct key **scratch,
			   size_t *cap)
{
	struct key *k = en->n <= *cap ? *scratch : xrealloc(*scratch, en->n, sizeof *k);
	size_t i;

	if (!k)
		return -1;
	if (k != *scratch || en->n > *cap) {
		*scratch = k;
		*cap = en->n;
	}
	for (i = 0; i < en->n; i++)
		k[i] = (struct key){en->m[i].key, en->m[i].keylen, i};
	keys_sort(k, en->n);
	buf_putc(out, '{');
	for (i = 0; i < en->n; i++) {
		const struct keyval *m = &en->m[k[i].pos];
		json_put_string(out, m->key, m->keylen);
		buf_putc(out, ':');
		buf_put(out, m->val, m->vallen);
		buf_putc(out, ',');
	}
	return out->oom ? -1 : 0;
}

/* The canonical texts of a's entries then b's, as keys in k[0..a->n+b->n) (k[i].pos = i) into
 * `text`; k gets one more slot.  -1 without memory (*k then NULL or to be freed). */
static int canonical_keys(const struct entries *a, const struct entries *b, struct buf *text,
			  struct key **k)
{
	size_t na = a->n, n = na + b->n, i, cap = 0;
	size_t *off = xcalloc(n + 1, sizeof *off);
	struct key *members = NULL;
	int r;

	*k = xcalloc(n + 1, sizeof **k);
	r = off && *k ? 0 : -1;
	for (i = 0; i < n && r == 0; i++) {
		off[i] = text->len;
		r = entry_canonical(i < na ? &a->v[i] : &b->v[i - na], text, &members, &cap);
	}
	free(members);
	if (r == 0) {
		off[n] = text->len;
		for (i = 0; i < n; i++)
			(*k)[i] = (struct key){text->p + off[i], off[i + 1] - off[i], i};
	}
	free(off);
	return r;
}

/* For each entry of b: 1 when it equals an entry of a, or (unless only_a) an earlier entry of
 * b.  The entries' canonical texts are sorted once (keys_sort puts equal texts in input order:
 * a's first), so n entries cost O(n log n), not n^2 comparisons. */
static int mark(const struct entries *a, const struct entries *b, int only_a, unsigned char *seen)
{
	size_t na = a->n, n = na + b->n, i;
	struct buf text = {0};
	struct key *k;
	int r = canonical_keys(a, b, &text, &k);

	if (r == 0) {
		keys_sort(k, n);
		for (size_t run = 0; run < n;) {
			size_t end = run + 1;
			while (end < n && key_same(&k[run], &k[end]))
				end++;
			for (i = run; i < end; i++)
				if (k[i].pos >= na)
					seen[k[i].pos - na] = only_a ? k[run].pos < na : i > run;
			run = end;
		}
	}
	buf_free(&text);
	free(k);
	return r;
}

int manifest_same_entries(const struct entries *a, const struct entries *b)
{
	size_t na = a->n, n = na + b->n, i, j;
	struct buf text = {0};
	struct key *k = NULL;
	int r = a->n == b->n ? canonical_keys(a, b, &text, &k) : -1, same = 0;

	if (r == 0) {
		keys_sort(k, na);
		keys_sort(k + na, n - na);
		for (i = 0, j = na, same = 1; i < na && same; i++, j++)
			same = key_same(&k[i], &k[j]);
	}
	buf_free(&text);
	free(k);
	return same; /* 0 out of memory too */
}

int manifest_mark_seen(const struct entries *a, const struct entries *b, unsigned char *seen)
{
	return mark(a, b, 0, seen);
}

int manifest_mark_in(const struct entries *a, const struct entries *b, unsigned char *in)
{
	return mark(a, b, 1, in);
}

/* Each entry of src is kept when it is the first of its kind among dst then src. */
int manifest_merge(struct entries *dst, const struct entries *src)
{
	unsigned char *seen = xcalloc(src->n + 1, 1);
	int r = seen ? manifest_mark_seen(dst, src, seen) : -1;

	for (size_t i = 0; i < src->n && r == 0; i++)
		if (!seen[i])
			r = manifest_append_copy(dst, &src->v[i]);
	free(seen);
	return r;
}

int manifest_merge_all(struct entries *dst, const struct entries *src)
{
	size_t i;

	for (i = 0; i < src->n; i++)
		if (manifest_append_copy(dst, &src->v[i]))
			return -1;
	return 0;
}

int soname_unversioned(const char *s, size_t len)
{
	return len > 3 && memcmp(s + len - 3, ".so", 3) == 0;
}
