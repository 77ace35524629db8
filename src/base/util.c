/* SPDX-License-Identifier: MIT */
/* util.c - errors, growable buffers, allocation helpers. */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static int err_vset(struct err *e, int usage, const char *fmt, va_list ap)
{
	e->usage = usage;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, 0, fmt, ap);
	va_end(ap);
	return -1;
}

int err_usage(struct err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, 1, fmt, ap);
	va_end(ap);
	return -1;
}

int err_oom(struct err *e)
{
	return err_set(e, OOM_MESSAGE);
}

void print_oom(void)
{
	fputs(PROGRAM_NAME ": " OOM_MESSAGE "\n", stderr);
}

int err_prefix(struct err *e, const char *fmt, ...)
{
	char head[256], old[sizeof e->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof old);
	old[sizeof old - 1] = '\0';
	/* Truncation of an overlong message is acceptable: it stays one line. */
	strncpy(e->msg, head, sizeof e->msg - 1);
	e->msg[sizeof e->msg - 1] = '\0';
	strncat(e->msg, old, sizeof e->msg - 1 - strlen(e->msg));
	return -1;
}

static int buf_reserve(struct buf *b, size_t more)
{
	size_t want, cap;
	char *p;

	if (b->oom)
		return -1;
	if (__builtin_add_overflow(b->len, more, &want) || want == SIZE_MAX)
		goto fail;
	if (want + 1 <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < want + 1) {
		if (cap > SIZE_MAX / 2)
			goto fail;
		cap *= 2;
	}
	p = realloc(b->p, cap);
	if (!p)
		goto fail;
	b->p = p;
	b->cap = cap;
	return 0;
fail:
	b->oom = 1;
	return -1;
}

void buf_put(struct buf *b, const void *data, size_t len)
{
	if (buf_reserve(b, len))
		return;
	if (len)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	b->p[b->len] = '\0';
}

void buf_putc(struct buf *b, char c)
{
	buf_put(b, &c, 1);
}

void buf_puts(struct buf *b, const char *s)
{
	buf_put(b, s, strlen(s));
}

void buf_zero(struct buf *b, size_t len)
{
	if (buf_reserve(b, len))
		return;
	memset(b->p + b->len, 0, len);
	b->len += len;
	b->p[b->len] = '\0';
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	if (n >= 0 && !buf_reserve(b, (size_t)n)) {
		vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof *b);
}

int buf_grow(struct buf *b, size_t more)
{
	return buf_reserve(b, more);
}

char *buf_take(struct buf *b)
{
	char *p;

	if (!b->p)
		buf_put(b, "", 0);
	p = b->oom ? NULL : b->p;
	if (b->oom)
		free(b->p);
	memset(b, 0, sizeof *b);
	return p;
}

/* Length of the valid UTF-8 sequence at p (RFC 3629: no overlong forms, no surrogates, at most
 * U+10FFFF), 0 when it is not one; *cp gets the code point. */
static size_t utf8_seq(const unsigned char *p, size_t n, uint32_t *cp)
{
	size_t len = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : 2, i;
	uint32_t c;

	if (p[0] < 0xc2 || p[0] > 0xf4 || n < len)
		return 0;
	c = p[0] & (0x3f >> (len - 1));
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

void buf_put_text(struct buf *b, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, k;
	uint32_t cp;

	while (i < len) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			buf_putc(b, (char)c);
			i++;
		} else if (c == '\n' || c == '\t' || c == '\r') {
			buf_printf(b, "\\%c", c == '\n' ? 'n' : c == '\t' ? 't' : 'r');
			i++;
		} else if (c < 0x80) {
			buf_printf(b, "\\%03o", c); /* ESC is \033, DEL \177 */
			i++;
		} else if ((k = utf8_seq(p + i, len - i, &cp)) && cp >= 0xa0) {
			buf_put(b, p + i, k);
			i += k;
		} else {
			for (k = k ? k : 1; k--;
			     i++) /* a C1 control, or a byte that is not UTF-8 */
				buf_printf(b, "\\x%02x", p[i]);
		}
	}
}

void print_text(FILE *f, const char *fmt, ...)
{
	struct buf line = {0}, out = {0};
	va_list ap;
	int n;

	/* A message on stderr comes after the report lines it sums up, also in a build log where
	 * both streams go to one pipe and stdout is buffered. */
	if (f == stderr)
		fflush(stdout);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_put(&line, "", 0);
	if (!line.oom && buf_reserve(&line, (size_t)n) == 0) {
		va_start(ap, fmt);
		vsnprintf(line.p, (size_t)n + 1, fmt, ap);
		va_end(ap);
		line.len = (size_t)n;
	}
	if (line.oom) {
		fputs(PROGRAM_NAME ": " OOM_MESSAGE "\n", f);
		return;
	}
	n = line.len && line.p[line.len - 1] == '\n';
	buf_put_text(&out, line.p, line.len - (size_t)n);
	if (n)
		buf_putc(&out, '\n');
	if (out.p)
		fwrite(out.p, 1, out.len, f);
	buf_free(&line);
	buf_free(&out);
}

void *xcalloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (n == 0 || size == 0)
		n = size = 1;
	/* malloc and memset, not calloc: glibc's calloc bypasses the thread cache, and the many
	 * small zeroed arrays of a member's edit cost twice as much through it.  The empty asm
	 * keeps the compiler from folding the pair back into calloc. */
	if (__builtin_mul_overflow(n, size, &bytes) || !(p = malloc(bytes)))
		return NULL;
	__asm__("" : "+r"(p));
	return memset(p, 0, bytes);
}

/* AddressSanitizer: GCC says so with a macro, clang (the fuzz targets) with __has_feature. */
#if defined(__SANITIZE_ADDRESS__)
#define BUILT_WITH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BUILT_WITH_ASAN 1
#endif
#endif

#ifdef BUILT_WITH_ASAN
void *alloc_present(size_t len)
{
	return malloc(len ? len : 1);
}

void free_present(void *p, size_t len)
{
	(void)len;
	free(p);
}
#else
void *alloc_present(size_t len)
{
	void *p = mmap(NULL, len ? len : 1, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

void free_present(void *p, size_t len)
{
	if (p)
		munmap(p, len ? len : 1);
}
#endif

void *xrealloc(void *p, size_t n, size_t size)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return realloc(p, bytes ? bytes : 1);
}

void *xgrow(void *p, size_t *cap, size_t n, size_t size)
{
	size_t c = *cap ? *cap : 8;
	void *q;

	if (n < *cap)
		return p;
	while (c <= n) {
		if (c > SIZE_MAX / 2)
			return NULL;
		c *= 2;
	}
	q = xrealloc(p, c, size);
	if (q)
		*cap = c;
	return q;
}

static int key_bytes_cmp(const char *p, size_t len, const struct key *b)
{
	int c = memcmp(p, b->p, len < b->len ? len : b->len);

	if (c)
		return c;
	return len < b->len ? -1 : len > b->len;
}

static int key_cmp(const void *x, const void *y)
{
	const struct key *a = x, *b = y;
	int c = key_bytes_cmp(a->p, a->len, b);

	return c ? c : a->pos < b->pos ? -1 : a->pos > b->pos;
}

static int keyed_cmp(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->val < b->val ? -1 : a->val > b->val;
}

void keyed_sort(struct keyed *v, size_t n)
{
	if (n > 64) {
		qsort(v, n, sizeof *v, keyed_cmp);
		return;
	}
	for (size_t i = 1; i < n; i++) { /* insertion: few moves when mostly in order */
		struct keyed t = v[i];
		size_t j = i;
		for (; j > 0 &&
		       (v[j - 1].key > t.key || (v[j - 1].key == t.key && v[j - 1].val > t.val));
		     j--)
			v[j] = v[j - 1];
		v[j] = t;
	}
}

size_t str_cat(char *buf, size_t bufsz, size_t at, const char *s)
{
	size_t n = strlen(s);

	if (at >= bufsz)
		return at;
	if (n > bufsz - 1 - at)
		n = bufsz - 1 - at;
	memcpy(buf + at, s, n);
	buf[at + n] = '\0';
	return at + n;
}

void keys_sort(struct key *v, size_t n)
{
	if (n > 1)
		qsort(v, n, sizeof *v, key_cmp);
}

int key_same(const struct key *a, const struct key *b)
{
	return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

const struct key *keys_find(const struct key *v, size_t n, const char *p, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) { /* the first key not below (p, len) */
		size_t mid = lo + (hi - lo) / 2;
		if (key_bytes_cmp(p, len, &v[mid]) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].len == len && memcmp(v[lo].p, p, len) == 0 ? &v[lo] : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = malloc(n + 1);

	if (p) {
		memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void err_report(const char *path, const struct err *e)
{
	print_text(stderr, PROGRAM_NAME ": %s: %s\n", path, e->msg);
}

uint64_t hash_bytes(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}
