/* SPDX-License-Identifier: MIT */
/* base.h - the interface of the base layer (src/base/), below every other.  It takes bytes,
 * strings and descriptors; it gives errors, growable buffers, overflow-safe arithmetic, strict
 * JSON and whole reads and writes.  It knows nothing of ELF, notes or the command line, and
 * never chooses an exit status.  Other folders include this header only. */
#ifndef DLNOTE_BASE_H
#define DLNOTE_BASE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* util.c: errors, growable buffers and overflow-safe arithmetic shared by every stage. */

#define PROGRAM_NAME "dlnote-inject"

/* The one error type.  A stage fills it and returns -1; the command line (src/cli/) prints
 * "dlnote-inject: PATH: msg" and chooses the exit status from `usage`. */
struct err {
	int usage; /* the fault is in what the command line gave (an option's value) */
	char msg[512];
};

/* A fault of the input (a file, a manifest), or of the machine (memory, I/O). */
int err_set(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A fault of what the caller was given to do: an option's value, entries built from flags. */
int err_usage(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one "out of memory": in an error (returns -1), or printed on standard error where no
 * error is passed. */
#define OOM_MESSAGE "out of memory"
int err_oom(struct err *e);
void print_oom(void);
/* Prefix an existing message, e.g. with "note 2: ". */
int err_prefix(struct err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print the one-line error "dlnote-inject: PATH: msg" (escaped as print_text does). */
void err_report(const char *path, const struct err *e);

/* Growable byte buffer.  `oom` latches an allocation failure so that callers can
 * append freely and check once. */
struct buf {
	char *p;
	size_t len, cap;
	int oom;
};

void buf_put(struct buf *b, const void *data, size_t len);
void buf_putc(struct buf *b, char c);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_zero(struct buf *b, size_t len);
void buf_free(struct buf *b);
/* Room for `more` bytes after the content, allocated now (-1 and oom set when it cannot be). */
int buf_grow(struct buf *b, size_t more);
/* Hand the bytes over to the caller (NUL-terminated); the buffer is reset. */
char *buf_take(struct buf *b);

/* Text for a terminal.  Names and payload strings come from files: control characters, DEL,
 * C1 controls and bytes that are not UTF-8 would move the cursor, change colours or split a
 * one-line message.  They are shown C-style: \n, \t, \r, \033 (octal for the other controls
 * and DEL), \xNN for each byte of a C1 control or of invalid UTF-8.  Valid printable UTF-8 is
 * kept as it is. */
void buf_put_text(struct buf *b, const char *s, size_t len);
/* printf, then the whole line escaped as above, a final newline kept: every line for people
 * goes through here (errors, -v logs, tables, listings, lint). */
void print_text(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void *xcalloc(size_t n, size_t size); /* NULL on overflow or failure */
void *xrealloc(void *p, size_t n, size_t size);
/* A buffer of len bytes whose pages are present from the start (one mapping, no page fault
 * per page on first use), or NULL; freed with free_present(p, len).  Built with
 * AddressSanitizer it is malloc'd, so that an overrun is still caught. */
void *alloc_present(size_t len);
void free_present(void *p, size_t len);
/* Room for element `n` of an array of `size`-byte elements whose capacity is *cap: returns the
 * array, reallocated to twice its capacity when full, or NULL when out of memory (the array is
 * then untouched).  Every growing array goes through here, so n appends cost O(n) copies. */
void *xgrow(void *p, size_t *cap, size_t n, size_t size);
char *xstrndup(const char *s, size_t n);

/* Grouping equal strings in O(n log n): a key is bytes (not NUL-terminated) and the position
 * of what it belongs to.  keys_sort orders by bytes, then by position, so the first of each
 * run of equal keys is the earliest. */
struct key {
	const char *p;
	size_t len, pos;
};
/* Pairs sorted by key, then by value: a file's sections by offset (insertion for the few
 * dozen an object has, mostly in order already; qsort beyond). */
struct keyed {
	uint64_t key;
	size_t val;
};
void keyed_sort(struct keyed *v, size_t n);
/* s appended at buf[at], truncated to bufsz - 1 bytes in all, NUL-terminated: the new length
 * (snprintf's "%s%s" without its cost, for labels made once per archive member). */
size_t str_cat(char *buf, size_t bufsz, size_t at, const char *s);
void keys_sort(struct key *v, size_t n);
int key_same(const struct key *a, const struct key *b);
/* The first key equal to (p, len) in sorted keys, or NULL. */
const struct key *keys_find(const struct key *v, size_t n, const char *p, size_t len);

/* Overflow-safe arithmetic: return 0 on success, -1 when the result does not fit. */
static inline int add_ovf(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out) ? -1 : 0;
}
static inline int mul_ovf(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out) ? -1 : 0;
}
/* True when [off, off+len) lies inside [0, size). */
static inline int range_ok(uint64_t off, uint64_t len, uint64_t size)
{
	uint64_t end;
	return add_ovf(off, len, &end) == 0 && end <= size;
}
static inline uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* io.c: the one loop around pread(2), pwrite(2) and write(2): whole transfers, retried after a
 * signal, at most 1 GiB per call (Linux moves at most 0x7ffff000 bytes per call, and a 32-bit
 * ssize_t less), a short read past the end of a file an error.  It takes a descriptor and a
 * range; it gives 0 or -1 with the reason in the error.  It never opens, closes or seeks. */

/* The most bytes one call asks for. */
#define IO_MAX_CALL ((size_t)1 << 30)

/* len bytes at off into buf; a file that ends before is an error ("the file shrank"). */
int io_read_at(int fd, uint64_t off, void *buf, uint64_t len, struct err *e);
/* len bytes of buf at off. */
int io_write_at(int fd, uint64_t off, const void *buf, uint64_t len, struct err *e);
/* The n buffers of iov, one after the other, at off (iov is used up: entries are advanced). */
struct iovec;
int io_writev_at(int fd, uint64_t off, struct iovec *iov, int n, struct err *e);
/* len bytes of buf in order, to a descriptor that may not seek (a pipe); `what` names it in
 * the error. */
int io_write_all(int fd, const void *buf, uint64_t len, const char *what, struct err *e);

/* FNV-1a over n bytes, continuing from h (HASH_START to begin): the hash of the in-memory
 * tables (not for identities: sha256 below). */
#define HASH_START 1469598103934665603ull
uint64_t hash_bytes(uint64_t h, const void *p, size_t n);

/* sha256.c: SHA-256 (FIPS 180-4), fed in pieces. */
#define SHA256_BYTES 32
struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	size_t n;
};
void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
void sha256_final(struct sha256 *s, unsigned char out[SHA256_BYTES]);

/* PATH opened below the directory rootfd as if it were "/" (openat2 RESOLVE_IN_ROOT, Linux 5.6):
 * no symbolic link, ".." or rename done meanwhile leads out of it; with no_symlinks, a symbolic
 * link anywhere on the way fails (ELOOP).  The descriptor, or -1 with errno (ENOSYS: a kernel
 * without openat2). */
int io_open_in_root(int rootfd, const char *path, int flags, int no_symlinks);

/* json.c: a strict JSON lexer for manifests and note payloads.
 *
 * Strict in the ways the dlopen-note spec asks (docs/background.md §1): valid UTF-8 with no
 * overlong forms or surrogates, no control characters in strings (raw or escaped), no \u
 * escapes, unique keys in every object, bounded nesting, nothing after the top value.  It does
 * not allocate per token and never recurses on input-controlled depth. */

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
/* A string that did not come from JSON (a file's name, a DT_NEEDED name: any bytes) as a JSON
 * string of its text as messages show it (buf_put_text: controls and bytes that are not UTF-8
 * C-style), so that the document stays JSON whatever the bytes. */
void json_put_text(struct buf *b, const char *s, size_t len);
/* The same as the audit module writes its trace lines (src/audit/audit_line.c, put_str): each
 * control character (C0, DEL, C1) and each byte that is not UTF-8 as '?' (docs/recording.md). */
void json_put_lossy(struct buf *b, const char *s, size_t len);

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
