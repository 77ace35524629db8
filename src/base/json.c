/* SPDX-License-Identifier: MIT */
/* json.c - strict JSON lexing, compaction and key-uniqueness checks. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void json_init(struct json *j, const char *text, size_t len, struct err *e)
{
	memset(j, 0, sizeof *j);
	j->s = (const unsigned char *)text;
	j->len = len;
	j->line = j->col = 1;
	j->e = e;
}

int json_error(struct json *j, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	return err_set(j->e, "line %zu, column %zu: %s", j->line, j->col, msg);
}

/* Advance one byte, keeping line and column.  Columns count characters, so UTF-8
 * continuation bytes do not move them. */
static void adv(struct json *j)
{
	unsigned char c = j->s[j->i++];

	if (c == '\n') {
		j->line++;
		j->col = 1;
	} else if ((c & 0xc0) != 0x80) {
		j->col++;
	}
}

int json_peek(struct json *j)
{
	return j->i < j->len ? j->s[j->i] : -1;
}

void json_ws(struct json *j)
{
	int c;

	while ((c = json_peek(j)) == ' ' || c == '\t' || c == '\n' || c == '\r')
		adv(j);
}

int json_eat(struct json *j, int c)
{
	if (json_peek(j) != c)
		return 0;
	adv(j);
	return 1;
}

static const char *describe(int c)
{
	static const char *const names[] = {"end of text", "NUL byte", "byte"};

	if (c < 0)
		return names[0];
	return c == 0 ? names[1] : names[2];
}

int json_expect(struct json *j, int c, const char *what)
{
	int got = json_peek(j);

	if (got == c) {
		adv(j);
		return 0;
	}
	if (got > 0x20 && got < 0x7f)
		return json_error(j, "expected %s, found '%c'", what, got);
	return json_error(j, "expected %s, found %s", what, describe(got));
}

/* Length of the UTF-8 sequence at s (1..4), or 0 if it is invalid: overlong forms, surrogates,
 * code points past U+10FFFF and truncated sequences are all refused. */
static size_t utf8_len(const unsigned char *s, size_t avail, uint32_t *cp)
{
	unsigned char c = s[0];
	size_t n, k;
	uint32_t v, min;

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		return 0;
	}
	if (avail < n)
		return 0;
	for (k = 1; k < n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[k] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
		return 0;
	*cp = v;
	return n;
}

/* The spec forbids "any control characters": C0, DEL and C1 (Unicode category Cc). */
static int is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f);
}

const char *json_check_text(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, n;
	uint32_t cp;

	while (i < len) {
		n = utf8_len(s + i, len - i, &cp);
		if (n == 0)
			return "invalid UTF-8";
		if (cp == 0)
			return "NUL byte";
		if (is_control(cp))
			return "control character";
		i += n;
	}
	return NULL;
}

int json_string(struct json *j, struct buf *decoded)
{
	size_t n;
	uint32_t cp;
	int c;

	if (json_expect(j, '"', "a string"))
		return -1;
	for (;;) {
		c = json_peek(j);
		if (c < 0)
			return json_error(j, "unterminated string");
		if (c == '"') {
			adv(j);
			return 0;
		}
		if (c == '\\') {
			adv(j);
			c = json_peek(j);
			if (c == 'u')
				return json_error(
					j,
					"\\u escapes are not allowed (spec: no \\uXXXX escaping)");
			if (c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't')
				return json_error(j,
						  "escape \\%c encodes a control character, which "
						  "the spec forbids",
						  c);
			if (c != '"' && c != '\\' && c != '/')
				return json_error(j, "invalid escape in string");
			if (decoded)
				buf_putc(decoded, (char)c);
			adv(j);
			continue;
		}
		/* A run of printable ASCII at once: a 16 MiB payload is mostly that. */
		for (n = j->i; n < j->len && (unsigned char)j->s[n] >= 0x20 &&
			       (unsigned char)j->s[n] < 0x7f && j->s[n] != '"' && j->s[n] != '\\';
		     n++)
			;
		if (n > j->i) {
			if (decoded)
				buf_put(decoded, j->s + j->i, n - j->i);
			j->col += n - j->i;
			j->i = n;
			continue;
		}
		n = utf8_len(j->s + j->i, j->len - j->i, &cp);
		if (n == 0)
			return json_error(j, "invalid UTF-8 in string");
		if (cp == 0)
			return json_error(j, "NUL byte in string");
		if (is_control(cp))
			return json_error(j,
					  "control character U+%04X in string (spec forbids "
					  "control characters)",
					  (unsigned)cp);
		if (decoded)
			buf_put(decoded, j->s + j->i, n);
		while (n--)
			adv(j);
	}
}

void json_put_string(struct buf *b, const char *s, size_t len)
{
	size_t i, start = 0;

	buf_putc(b, '"');
	for (i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\') {
			buf_put(b, s + start, i - start);
			buf_putc(b, '\\');
			start = i;
		}
	}
	buf_put(b, s + start, len - start);
	buf_putc(b, '"');
}

void json_put_lossy(struct buf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t cp;

	buf_putc(b, '"');
	for (size_t i = 0, n; i < len; i += n) {
		n = utf8_len(u + i, len - i, &cp);
		if (u[i] == '"' || u[i] == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, (char)u[i]);
		} else if (n == 0 || cp == 0 || is_control(cp)) {
			buf_putc(b, '?');
			n = 1;
		} else {
			buf_put(b, s + i, n);
		}
	}
	buf_putc(b, '"');
}

void json_put_text(struct buf *b, const char *s, size_t len)
{
	struct buf t = {0};

	buf_put_text(&t, s, len);
	if (t.oom)
		b->oom = 1;
	json_put_string(b, t.p ? t.p : "", t.len);
	buf_free(&t);
}

static int digits(struct json *j, struct buf *out)
{
	int c, any = 0;

	while ((c = json_peek(j)) >= '0' && c <= '9') {
		buf_putc(out, (char)c);
		adv(j);
		any = 1;
	}
	return any ? 0 : json_error(j, "expected a digit");
}

/* number = [ minus ] int [ frac ] [ exp ]  (RFC 8259 §6), copied as written. */
static int number(struct json *j, struct buf *out)
{
	if (json_eat(j, '-'))
		buf_putc(out, '-');
	if (json_peek(j) == '0') {
		buf_putc(out, '0');
		adv(j);
		if (json_peek(j) >= '0' && json_peek(j) <= '9')
			return json_error(j, "leading zeros are not allowed in numbers");
	} else if (digits(j, out)) {
		return -1;
	}
	if (json_eat(j, '.')) {
		buf_putc(out, '.');
		if (digits(j, out))
			return -1;
	}
	if (json_peek(j) == 'e' || json_peek(j) == 'E') {
		buf_putc(out, (char)json_peek(j));
		adv(j);
		if (json_peek(j) == '+' || json_peek(j) == '-') {
			buf_putc(out, (char)json_peek(j));
			adv(j);
		}
		if (digits(j, out))
			return -1;
	}
	return 0;
}

static int literal(struct json *j, struct buf *out)
{
	static const char *const words[] = {"true", "false", "null"};
	size_t k, n;

	for (k = 0; k < 3; k++) {
		n = strlen(words[k]);
		if (j->len - j->i >= n && memcmp(j->s + j->i, words[k], n) == 0) {
			buf_put(out, words[k], n);
			while (n--)
				adv(j);
			return 0;
		}
	}
	return json_expect(j, -2, "a value");
}

/* A string, re-emitted canonically; also fed to the key set when it is an object key. */
static int string_out(struct json *j, struct buf *out, struct json_keyset *ks)
{
	struct buf tmp = {0};
	size_t line = j->line, col = j->col;
	int r = json_string(j, &tmp);

	if (r == 0) {
		json_put_string(out, tmp.p ? tmp.p : "", tmp.len);
		if (ks && json_keyset_add(ks, tmp.p ? tmp.p : "", tmp.len, line, col))
			r = err_oom(j->e);
	}
	buf_free(&tmp);
	return r;
}

struct frame {
	char close;       /* ']' or '}' */
	size_t first_key; /* index of this object's first key in the key set */
};

/* Iterative: the depth bound is checked before each push, so hostile nesting costs nothing
 * but an error. */
int json_value(struct json *j, int depth, struct buf *out)
{
	struct frame st[JSON_MAX_DEPTH];
	struct json_keyset ks = {0};
	int sp = 0, c, r = -1;

value:
	json_ws(j);
	c = json_peek(j);
	if (c == '{' || c == '[') {
		if (depth + sp + 1 > JSON_MAX_DEPTH) {
			json_error(j, "nesting deeper than %d levels", JSON_MAX_DEPTH);
			goto done;
		}
		st[sp].close = c == '{' ? '}' : ']';
		st[sp].first_key = ks.n;
		sp++;
		buf_putc(out, (char)c);
		adv(j);
		json_ws(j);
		if (json_peek(j) == st[sp - 1].close)
			goto close;
		if (c == '[')
			goto value;
		goto key;
	}
	if (c == '"') {
		if (string_out(j, out, NULL))
			goto done;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		if (number(j, out))
			goto done;
	} else if (literal(j, out)) {
		goto done;
	}
after:
	if (sp == 0) {
		r = 0;
		goto done;
	}
	json_ws(j);
	if (json_peek(j) == st[sp - 1].close)
		goto close;
	if (json_expect(j, ',', st[sp - 1].close == '}' ? "',' or '}'" : "',' or ']'"))
		goto done;
	buf_putc(out, ',');
	if (st[sp - 1].close == ']')
		goto value;
key:
	json_ws(j);
	if (json_peek(j) != '"') {
		json_expect(j, '"', "a string key");
		goto done;
	}
	if (string_out(j, out, &ks))
		goto done;
	json_ws(j);
	if (json_expect(j, ':', "':'"))
		goto done;
	buf_putc(out, ':');
	goto value;
close:
	adv(j);
	sp--;
	buf_putc(out, st[sp].close);
	if (st[sp].close == '}' && json_keyset_close(&ks, st[sp].first_key, j->e))
		goto done;
	goto after;
done:
	json_keyset_free(&ks);
	if (r == 0 && out->oom)
		r = err_oom(j->e);
	return r;
}

int json_keyset_add(struct json_keyset *ks, const char *key, size_t len, size_t line, size_t col)
{
	struct json_key *k;

	k = xgrow(ks->k, &ks->cap, ks->n, sizeof *k);
	if (!k)
		return -1;
	ks->k = k;
	k = &ks->k[ks->n];
	k->off = ks->text.len;
	k->len = len;
	k->line = line;
	k->col = col;
	buf_put(&ks->text, key, len);
	if (ks->text.oom)
		return -1;
	ks->n++;
	return 0;
}

struct keyref {
	const char *p;
	const struct json_key *k;
};

static int keyref_cmp(const void *a, const void *b)
{
	const struct keyref *x = a, *y = b;
	size_t n = x->k->len < y->k->len ? x->k->len : y->k->len;
	int c = memcmp(x->p, y->p, n);

	if (c)
		return c;
	if (x->k->len != y->k->len)
		return x->k->len < y->k->len ? -1 : 1;
	return x->k < y->k ? -1 : (x->k > y->k); /* document order among equals */
}

int json_keyset_close(struct json_keyset *ks, size_t first, struct err *e)
{
	size_t n = ks->n - first, i, k;
	struct keyref *r;
	int rc = 0;

	/* Entries have a handful of keys: compared pairwise, without an allocation; many keys are
	 * sorted, so that hostile objects cost O(n log n). */
	for (i = 1; n <= 8 && i < n && rc == 0; i++)
		for (k = 0; k < i && rc == 0; k++) {
			const struct json_key *a = &ks->k[first + k], *b = &ks->k[first + i];
			if (a->len == b->len &&
			    memcmp(ks->text.p + a->off, ks->text.p + b->off, a->len) == 0)
				rc = err_set(e,
					     "line %zu, column %zu: duplicate key \"%.*s\" (keys "
					     "must be unique)",
					     b->line, b->col, (int)(b->len > 64 ? 64 : b->len),
					     ks->text.p + b->off);
		}
	if (n > 8) {
		r = xcalloc(n, sizeof *r);
		if (!r)
			return err_oom(e);
		for (i = 0; i < n; i++) {
			r[i].k = &ks->k[first + i];
			r[i].p = ks->text.p + r[i].k->off;
		}
		qsort(r, n, sizeof *r, keyref_cmp);
		for (i = 1; i < n && rc == 0; i++) {
			if (r[i].k->len == r[i - 1].k->len &&
			    memcmp(r[i].p, r[i - 1].p, r[i].k->len) == 0)
				rc = err_set(e,
					     "line %zu, column %zu: duplicate key \"%.*s\" (keys "
					     "must be unique)",
					     r[i].k->line, r[i].k->col,
					     (int)(r[i].k->len > 64 ? 64 : r[i].k->len), r[i].p);
		}
		free(r);
	}
	if (n)
		ks->text.len = ks->k[first].off;
	ks->n = first;
	return rc;
}

void json_keyset_free(struct json_keyset *ks)
{
	buf_free(&ks->text);
	free(ks->k);
	memset(ks, 0, sizeof *ks);
}

int json_string_value(const char *val, size_t len, struct buf *out)
{
	size_t i;

	if (len < 2 || val[0] != '"' || val[len - 1] != '"')
		return -1;
	for (i = 1; i + 1 < len; i++) {
		if (val[i] == '\\')
			i++;
		buf_putc(out, val[i]);
	}
	return 0;
}

int json_array_next_string(const char *val, size_t len, size_t *pos, struct buf *out)
{
	size_t i = *pos, start;

	if (i == 0) {
		if (len < 2 || val[0] != '[')
			return -1;
		i = 1;
	}
	if (i < len && val[i] == ',')
		i++;
	if (i >= len || val[i] == ']')
		return 0;
	if (val[i] != '"')
		return -1;
	start = i++;
	while (i < len && val[i] != '"')
		i += val[i] == '\\' ? 2 : 1;
	if (i >= len)
		return -1;
	*pos = ++i;
	out->len = 0;
	return json_string_value(val + start, i - start, out) ? -1 : 1;
}
