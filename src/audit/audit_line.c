/* SPDX-License-Identifier: MIT */
/* audit_line.c - the rtld-audit module's trace lines: JSON built in a fixed buffer, written
 * whole with one write(), under a lock that fork() cannot leave held.  Also the two facts a
 * line reads from files: an absolute path and a build-id.  libc only. */
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"

struct out out;
static pid_t lock_holder; /* the process holding the lock, 0 when free */
static pid_t lock_pid;    /* the process that took it last */

/* A lock that fork() cannot leave held: the program's fork() does not run handlers registered
 * with the module's own libc, so a child finding the lock held by another process (its parent,
 * at the fork) takes it over.  1 when this is the first lock taken in this process (a forked
 * child starts its own set of pairs written). */
int lock(void)
{
	pid_t self = getpid(), held = 0;

	while (!__atomic_compare_exchange_n(&lock_holder, &held, self, 0, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		if (held != self && __atomic_compare_exchange_n(&lock_holder, &held, self, 0,
								__ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			break;
		sched_yield();
		held = 0;
	}
	if (lock_pid == self)
		return 0;
	lock_pid = self;
	return 1;
}

void unlock(void)
{
	__atomic_store_n(&lock_holder, 0, __ATOMIC_RELEASE);
}

uint64_t fnv_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211u;
	return h;
}

uint64_t fnv_end(uint64_t h)
{
	return (h ^ 0xff) * 1099511628211u;
}

int seen_add(uint64_t *set, size_t *n, size_t max, uint64_t h)
{
	for (size_t i = 0; i < *n; i++)
		if (set[i] == h)
			return 1;
	if (*n < max)
		set[(*n)++] = h;
	return 0;
}

void put(struct line *l, const char *s, size_t n)
{
	if (l->len + n >= sizeof l->p) {
		l->overflow = 1;
		return;
	}
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

void puts_(struct line *l, const char *s)
{
	put(l, s, strlen(s));
}

void put_u64(struct line *l, uint64_t v)
{
	char d[24];
	size_t i = sizeof d;

	do
		d[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put(l, d + i, sizeof d - i);
}

/* Length of the valid UTF-8 sequence at s (json.c's rules: no overlongs, no surrogates), or 0. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	uint32_t cp;

	if (n == 0)
		return 0;
	cp = c & (0xff >> (n + 1));
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

/* "key":"value", with '"' and '\' escaped; a control character (C0, DEL, and C1: U+0080 to
 * U+009F, valid UTF-8 the reader refuses too) or a byte that is not valid UTF-8 is written as
 * '?' (the trace reader accepts strict JSON strings only). */
void put_str(struct line *l, const char *key, const char *v)
{
	const unsigned char *s = (const unsigned char *)v;

	put(l, ",\"", 2);
	puts_(l, key);
	put(l, "\":\"", 3);
	while (*s) {
		size_t n = *s < 0x80 ? 1 : utf8_len(s);
		if (*s == '"' || *s == '\\')
			put(l, "\\", 1), put(l, (const char *)s, 1);
		else if (*s < 0x20 || *s == 0x7f || n == 0 || (*s == 0xc2 && s[1] < 0xa0))
			put(l, "?", 1), n = 1;
		else
			put(l, (const char *)s, n);
		s += n;
	}
	put(l, "\"", 1);
}

void line_start_for(struct line *l, const char *event, const char *exe)
{
	l->len = 0;
	l->overflow = 0;
	puts_(l, "{\"event\":\"");
	puts_(l, event);
	puts_(l, "\",\"pid\":");
	put_u64(l, (uint64_t)getpid());
	put_str(l, "exe", exe);
}

void line_start(struct line *l, const char *event)
{
	line_start_for(l, event, out.exe);
}

/* The recording's settings, from the environment the tool set: DLNOTE_RECORD_TRACE, the
 * trace's absolute path (children may chdir), and DLNOTE_RECORD_FD, "FD:DEV:INO", a descriptor
 * on it that the tool left open for every process of the recording. */
void out_init(void)
{
	const char *fd = getenv("DLNOTE_RECORD_FD");
	unsigned long long dev, ino;
	int n, end = 0;
	ssize_t len;

	out.trace = getenv("DLNOTE_RECORD_TRACE");
	if (out.trace && out.trace[0] != '/')
		out.trace = NULL;
	out.fd = -1;
	if (fd && sscanf(fd, "%d:%llu:%llu%n", &n, &dev, &ino, &end) == 3 && !fd[end] && n >= 0) {
		out.fd = n;
		out.dev = (dev_t)dev;
		out.ino = (ino_t)ino;
	}
	len = readlink("/proc/self/exe", out.exe, sizeof out.exe - 1);
	out.exe[len > 0 ? len : 0] = '\0';
}

/* One write(), on the inherited descriptor while it is still the trace (a process that
 * changed user may not open the file; one that closed or reused the number falls back), else
 * on the file opened for this line alone. */
void line_write(struct line *l)
{
	struct stat s;
	int fd;

	if (l->overflow)
		return; /* longer than any path the loader takes */
	put(l, "}\n", 2);
	if (out.fd >= 0 && fstat(out.fd, &s) == 0 && s.st_dev == out.dev && s.st_ino == out.ino &&
	    write(out.fd, l->p, l->len) == (ssize_t)l->len)
		return;
	fd = open(out.trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	(void)!write(fd, l->p, l->len);
	close(fd);
}

/* An absolute path without "." components: a dlopen() of "./plugin.so" leaves that name in
 * l_name, and $ORIGIN of such an object expands to ".../.".  Symbolic links are kept. */
const char *absolute(const char *path, char *buf)
{
	char tmp[PATH_MAX];
	size_t n = 0;
	const char *s;

	if (path[0] != '/') {
		if (!getcwd(tmp, sizeof tmp) || strlen(tmp) + strlen(path) + 2 > sizeof tmp)
			return path;
		strcat(strcat(tmp, "/"), path);
	} else if (strlen(path) < sizeof tmp) {
		strcpy(tmp, path);
	} else {
		return path;
	}
	for (s = tmp; *s;) {
		if (s[0] == '/' &&
		    (s[1] == '/' || (s[1] == '.' && (s[2] == '/' || s[2] == '\0')))) {
			s += s[1] == '/' ? 1 : 2;
			continue;
		}
		buf[n++] = *s++;
	}
	buf[n ? n : (buf[0] = '/', 1)] = '\0';
	return buf;
}

/* The GNU build-id of the ELF file at `path`, in hex ("" when it has none), read from its
 * PT_NOTE segments; the last one is kept, as most asks come from the same caller.  The reader
 * matches a FILE to the trace by it, so a trace of the build tree lints the packaged copies,
 * stripped or not (docs/recording.md). */
const char *build_id_of(const char *path)
{
	static char last[PATH_MAX], hex[2 * 64 + 1];
	static const char digits[] = "0123456789abcdef";
	unsigned char buf[4 + 64];
	ElfW(Ehdr) eh;
	ElfW(Phdr) ph;
	int fd;

	if (strcmp(path, last) == 0)
		return hex;
	hex[0] = last[0] = '\0';
	if (strlen(path) >= sizeof last || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return hex;
	strcpy(last, path);
	if (pread(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_phentsize == sizeof ph)
		for (unsigned i = 0; i < eh.e_phnum && !hex[0]; i++) {
			uint64_t off, end, al;
			if (pread(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + i * sizeof ph)) !=
				    (ssize_t)sizeof ph ||
			    ph.p_type != PT_NOTE)
				continue;
			al = ph.p_align == 8 ? 8 : 4;
			/* Note by note, header first: a large note before it (.note.dlopen) costs
			 * one read. */
			for (off = ph.p_offset, end = ph.p_offset + ph.p_filesz; off + 12 <= end;) {
				uint32_t h[3];
				uint64_t desc, next;
				if (pread(fd, h, sizeof h, (off_t)off) != (ssize_t)sizeof h)
					break;
				desc = off + 12 + ((h[0] + al - 1) & ~(al - 1));
				next = desc + ((h[1] + al - 1) & ~(al - 1));
				if (next > end || next <= off)
					break;
				if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 && h[1] && h[1] <= 64 &&
				    pread(fd, buf, 4 + h[1], (off_t)(off + 12)) ==
					    (ssize_t)(4 + h[1]) &&
				    memcmp(buf, "GNU", 4) == 0) {
					for (uint32_t k = 0; k < h[1]; k++) {
						hex[2 * k] = digits[buf[4 + k] >> 4];
						hex[2 * k + 1] = digits[buf[4 + k] & 15];
					}
					hex[2 * h[1]] = '\0';
					break;
				}
				off = next;
			}
		}
	close(fd);
	return hex;
}
