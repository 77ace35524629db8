/* SPDX-License-Identifier: MIT */
/* archive.c - reading ar archives member by member: headers, the name forms of every writer,
 * thin and nested members, and the read buffer of a write (the symbol index: archive_index.c). */
#include "archive.h"
#include "archive_int.h"
#include "../base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Header fields: name[16] date[12] uid[6] gid[6] mode[8] size[10] fmag[2]. */

int archive_is(const unsigned char *m, size_t len)
{
	return len >= 8 &&
	       (memcmp(m, ARCHIVE_MAGIC, 8) == 0 || memcmp(m, ARCHIVE_THIN_MAGIC, 8) == 0);
}

/* A decimal field: digits, then spaces only; at least one digit. */
static int parse_dec(const char *f, size_t w, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;

	for (; i < w && f[i] >= '0' && f[i] <= '9'; i++)
		if (mul_ovf(v, 10, &v) || add_ovf(v, (uint64_t)(f[i] - '0'), &v))
			return -1;
	if (i == 0)
		return -1;
	for (; i < w; i++)
		if (f[i] != ' ')
			return -1;
	*out = v;
	return 0;
}

int archive_open(struct archive *ar, int fd, const char *path, uint64_t size, struct err *e)
{
	unsigned char magic[8];

	memset(ar, 0, sizeof *ar);
	ar->fd = fd, ar->path = path, ar->size = size, ar->pos = 8;
	ar->offset32_max = UINT32_MAX, ar->plan_first = 2ull << 30;
	if (size < 8 || io_read_at(fd, 0, magic, 8, e) || !archive_is(magic, 8))
		return err_set(e, "not an ar archive");
	ar->thin = memcmp(magic, ARCHIVE_THIN_MAGIC, 8) == 0;
	return 0;
}

void archive_label(const struct archive_member *m, char *buf, size_t bufsz)
{
	if (m->name[0])
		str_cat(buf, bufsz, 0, m->name);
	else
		snprintf(buf, bufsz, "member %zu at offset 0x%llx", m->nth,
			 (unsigned long long)m->hdr);
}

static int is_padded(const char *f, size_t w, const char *word)
{
	size_t n = strlen(word), i;

	if (n > w || memcmp(f, word, n))
		return 0;
	for (i = n; i < w; i++)
		if (f[i] != ' ')
			return 0;
	return 1;
}

/* "/N": a name in the "//" table, ended by "/\n" (or "\n").  After N, what binutils writes:
 * spaces, GNU ar 2.40's stray '/' at the end of the field (a thin archive's member whose
 * basename has 15 characters), and in a thin archive ":ORIGIN" (a member of another archive,
 * read by nested_name()). */
static int nested_name(struct archive *ar, struct archive_member *m, uint64_t size,
		       struct err *e);

static int long_name(struct archive *ar, struct archive_member *m, const char *field, uint64_t size,
		     struct err *e)
{
	uint64_t at, n;
	size_t i = 1, end = 16;
	char *nl;

	while (end > 1 && (field[end - 1] == ' ' || (end == 16 && field[end - 1] == '/')))
		end--;
	while (i < end && field[i] >= '0' && field[i] <= '9')
		i++;
	if (ar->thin && i < end && field[i] == ':') {
		if (parse_dec(field + i + 1, end - i - 1, &m->origin))
			return err_set(e, "bad nested-member reference '%.16s' in the member header",
				       field);
		m->nested_len = 1; /* set to the path's length below */
	} else if (i != end) {
		return err_set(e, "bad long-name reference '%.16s' in the member header", field);
	}
	if (parse_dec(field + 1, i - 1, &at))
		return err_set(e, "bad long-name reference '%.16s' in the member header", field);
	if (!ar->names_size || at >= ar->names_size)
		return err_set(e,
			       "long-name reference /%llu is outside the name table (%llu bytes)",
			       (unsigned long long)at, (unsigned long long)ar->names_size);
	n = ar->names_size - at < ARCHIVE_MAX_NAME ? ar->names_size - at : ARCHIVE_MAX_NAME;
	if (io_read_at(ar->fd, ar->names_off + at, m->name, (size_t)n, e))
		return -1;
	m->name[n] = '\0';
	nl = memchr(m->name, '\n', (size_t)n);
	if (!nl)
		return m->name[0] = '\0',
		       err_set(e, "long name /%llu is not terminated in the name table",
			       (unsigned long long)at);
	*nl = '\0';
	if (nl > m->name && nl[-1] == '/')
		nl[-1] = '\0';
	return m->nested_len ? nested_name(ar, m, size, e) : 0;
}

/* Where a thin archive's member file is: names are relative to the archive's directory. */
static void thin_path(const struct archive *ar, const char *name, size_t len, char *path,
		      size_t pathsz)
{
	const char *slash = strrchr(ar->path, '/');

	if (name[0] == '/' || !slash)
		snprintf(path, pathsz, "%.*s", (int)len, name);
	else
		snprintf(path, pathsz, "%.*s/%.*s", (int)(slash - ar->path), ar->path, (int)len,
			 name);
}

/* The member of another archive that m names: its own name, read from that archive (whose
 * specials come first: the name table is known after them), appended as "PATH(MEMBER)". */
static int nested_name(struct archive *ar, struct archive_member *m, uint64_t size,
		       struct err *e)
{
	struct archive in;
	struct archive_member first, it;
	char path[4096];
	struct stat st;
	int fd, r;

	m->nested_len = strlen(m->name);
	thin_path(ar, m->name, m->nested_len, path, sizeof path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return err_set(e, "thin archive member %s: %s", path, strerror(errno));
	r = fstat(fd, &st) ? err_set(e, "%s: %s", path, strerror(errno))
			   : archive_open(&in, fd, path, (uint64_t)st.st_size, e);
	while (r == 0 && (r = archive_next(&in, &first, e)) == 1 && first.kind != AR_MEMBER)
		r = 0;
	if (r == 1) {
		in.pos = m->origin;
		r = archive_next(&in, &it, e);
	}
	close(fd);
	if (r == 0 && !e->msg[0])
		r = err_set(e, "no member at offset %llu", (unsigned long long)m->origin);
	if (r < 0 || it.kind != AR_MEMBER || in.thin || it.size != size)
		return r < 0 ? err_set(e, "nested archive %s: %s", path, e->msg)
			     : err_set(e, "%s has no %llu-byte member at offset %llu, which the "
					  "thin archive names", path, (unsigned long long)size,
				       (unsigned long long)m->origin);
	str_cat(m->name, sizeof m->name, m->nested_len, "(");
	str_cat(m->name, sizeof m->name, strlen(m->name), it.name);
	str_cat(m->name, sizeof m->name, strlen(m->name), ")");
	m->origin = it.data;
	return 0;
}

/* The name field: specials, BSD "#1/LEN" (name bytes follow the header), "/N", or a short
 * name ended by '/' (GNU) or spaces (BSD). */
static int member_name(struct archive *ar, struct archive_member *m, const char *f,
		       uint64_t field_size, struct err *e)
{
	size_t n;

	m->kind = AR_MEMBER;
	if (memcmp(f, "#1/", 3) == 0) {
		if (parse_dec(f + 3, 13, &m->name_len) || m->name_len > field_size ||
		    m->name_len > ARCHIVE_MAX_NAME)
			return err_set(e, "bad BSD name length '%.16s' (member size %llu)", f,
				       (unsigned long long)field_size);
		if (io_read_at(ar->fd, m->hdr + ARCHIVE_HDR, m->name, (size_t)m->name_len, e))
			return -1;
		m->name[m->name_len] = '\0';
		if (strncmp(m->name, "__.SYMDEF", 9) == 0)
			m->kind = AR_INDEX;
		return 0;
	}
	if (is_padded(f, 16, "/")) {
		m->kind = AR_INDEX;
	} else if (is_padded(f, 16, "/SYM64/")) {
		m->kind = AR_INDEX;
	} else if (is_padded(f, 16, "//")) {
		m->kind = AR_NAMES;
	} else if (f[0] == '/') {
		return long_name(ar, m, f, field_size, e);
	} else if (strncmp(f, "__.SYMDEF", 9) == 0) {
		m->kind = AR_INDEX;
	}
	memcpy(m->name, f, 16);
	for (n = 16; n && m->name[n - 1] == ' '; n--)
		;
	if (m->kind == AR_MEMBER && n > 1 && m->name[n - 1] == '/')
		n--;
	m->name[n] = '\0';
	return 0;
}

enum archive_index archive_index_kind(const char *name)
{
	if (strcmp(name, "/") == 0)
		return AR_GNU32;
	if (strcmp(name, "/SYM64/") == 0)
		return AR_GNU64;
	return strncmp(name, "__.SYMDEF_64", 12) == 0 ? AR_BSD64 : AR_BSD32;
}

/* ---- the read buffer, while writing ---- */

/* [off, off+len) of the archive in the read buffer (len <= its size), or NULL with e set. */
const unsigned char *archive_io_window(const struct archive *ar, uint64_t off, size_t len,
				       struct err *e)
{
	struct archive_io *io = ar->io;
	size_t want;

	if (archive_io_holds(io, off, len))
		return io->in + (off - io->in_off);
	want = ar->size - off < io->in_cap ? (size_t)(ar->size - off) : io->in_cap;
	if (io->before_refill && io->before_refill(io, e))
		return NULL;
	if (len > want || io_read_at(ar->fd, off, io->in, want, e)) {
		io->in_len = 0;
		return e->msg[0] ? NULL : (err_set(e, "read past the end of the archive"), NULL);
	}
	io->in_off = io->in_valid = off, io->in_len = want;
	return io->in;
}

static int read_hdr(const struct archive *ar, uint64_t off, char *h, struct err *e)
{
	const unsigned char *p;

	if (!ar->io)
		return io_read_at(ar->fd, off, h, ARCHIVE_HDR, e);
	if (!(p = archive_io_window(ar, off, ARCHIVE_HDR, e)))
		return -1;
	memcpy(h, p, ARCHIVE_HDR);
	return 0;
}

int archive_next(struct archive *ar, struct archive_member *m, struct err *e)
{
	char h[ARCHIVE_HDR];
	uint64_t field_size, end;

	memset(m, 0, sizeof *m);
	m->hdr = ar->pos;
	m->nth = ++ar->nth;
	if (ar->pos >= ar->size)
		return 0;
	if (!range_ok(ar->pos, ARCHIVE_HDR, ar->size))
		return err_set(e, "truncated member header (%llu bytes left)",
			       (unsigned long long)(ar->size - ar->pos));
	if (read_hdr(ar, ar->pos, h, e))
		return -1;
	memcpy(m->raw, h, sizeof h);
	if (h[F_FMAG] != '`' || h[F_FMAG + 1] != '\n')
		return err_set(e, "bad member header (no \"`\\n\" at its end): not an ar member");
	if (parse_dec(h + F_SIZE, W_SIZE, &field_size)) {
		struct err ignore = {0};
		member_name(ar, m, h, 0, &ignore); /* only to name it */
		return err_set(e, "bad size field '%.10s' in the member header", h + F_SIZE);
	}
	if (member_name(ar, m, h, field_size, e))
		return -1;
	if (m->kind == AR_INDEX && ar->index != AR_NO_INDEX)
		return err_set(e, "a second symbol index");
	if (m->kind == AR_INDEX)
		ar->index = archive_index_kind(m->name);
	m->data = m->hdr + ARCHIVE_HDR + m->name_len;
	m->size = field_size - m->name_len;
	/* A thin archive holds its index and name table; its members' bytes are other files. */
	end = ar->thin && m->kind == AR_MEMBER ? m->data : m->data + m->size;
	if (!range_ok(m->hdr + ARCHIVE_HDR, end - m->hdr - ARCHIVE_HDR, ar->size))
		return err_set(e,
			       "truncated member: %llu bytes at offset 0x%llx run past the end of "
			       "the archive "
			       "(%llu bytes)",
			       (unsigned long long)field_size,
			       (unsigned long long)(m->hdr + ARCHIVE_HDR),
			       (unsigned long long)ar->size);
	if (m->kind == AR_NAMES)
		ar->names_off = m->data, ar->names_size = m->size;
	/* Members start at even offsets; a last odd member may lack its padding byte. */
	m->next = end + (end & 1);
	ar->pos = m->next;
	return 1;
}

int archive_member_fd(const struct archive *ar, const struct archive_member *m, int *fd,
		      uint64_t *base, int *close_fd, struct err *e)
{
	char path[4096];
	struct stat st;

	*fd = ar->fd, *base = m->data, *close_fd = 0;
	if (!ar->thin)
		return 0;
	thin_path(ar, m->name, m->nested_len ? m->nested_len : strlen(m->name), path, sizeof path);
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (*fd < 0)
		return err_set(e, "thin archive member %s: %s", path, strerror(errno));
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode) ||
	    (m->nested_len ? !range_ok(m->origin, m->size, (uint64_t)st.st_size)
			   : (uint64_t)st.st_size != m->size)) {
		close(*fd);
		return err_set(e,
			       "thin archive member %s is not the %llu-byte regular file the "
			       "archive lists",
			       path, (unsigned long long)m->size);
	}
	*base = m->nested_len ? m->origin : 0, *close_fd = 1;
	return 0;
}
