/* SPDX-License-Identifier: MIT */
/* output.c - temporary file, kernel copies, patches, metadata, atomic rename. */
#include "plan.h"
#include "../base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/xattr.h>
#include <unistd.h>

/* Fallback when the kernel cannot copy between these files: a fixed 64 KiB buffer, so memory
 * stays flat whatever the size. */
static int copy_slow(int in, uint64_t src, int out, uint64_t dst, uint64_t len, struct err *e)
{
	unsigned char buf[65536];

	while (len) {
		uint64_t n = len < sizeof buf ? len : sizeof buf;
		if (io_read_at(in, src, buf, n, e) || io_write_at(out, dst, buf, n, e))
			return -1;
		src += n, dst += n, len -= n;
	}
	return 0;
}

static int copy_range(int in, uint64_t src, int out, uint64_t dst, uint64_t len, struct err *e)
{
	loff_t si = (loff_t)src, di = (loff_t)dst;
	ssize_t n;

	while (len) {
		n = copy_file_range(in, &si, out, &di, len > IO_MAX_CALL ? IO_MAX_CALL : len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL ||
			      errno == EOPNOTSUPP || errno == EBADF))
			return copy_slow(in, (uint64_t)si, out, (uint64_t)di, len, e);
		if (n < 0)
			return err_set(e, "copy failed: %s", strerror(errno));
		if (n == 0)
			return err_set(e, "copy failed: input ended early");
		len -= (uint64_t)n;
	}
	return 0;
}

/* Copy only the data extents: holes (sparse files, the gap our segment may need) stay holes
 * in the output, which is extended by ftruncate at the end.  Filesystems without SEEK_DATA
 * give one extent. */
int output_copy(int in, uint64_t src, int out, uint64_t dst, uint64_t len, struct err *e)
{
	uint64_t pos = src, end = src + len;
	off_t data, hole;

	if (len < (1u << 20)) /* holes in a small range are not worth two lseeks */
		return copy_range(in, src, out, dst, len, e);
	while (pos < end) {
		data = lseek(in, (off_t)pos, SEEK_DATA);
		if (data < 0 && errno == ENXIO)
			return 0; /* only a hole is left */
		if (data < 0)
			return copy_range(in, pos, out, dst + (pos - src), end - pos, e);
		if ((uint64_t)data >= end)
			return 0;
		hole = lseek(in, data, SEEK_HOLE);
		if (hole < 0 || (uint64_t)hole > end)
			hole = (off_t)end;
		if (copy_range(in, (uint64_t)data, out, dst + ((uint64_t)data - src),
			       (uint64_t)(hole - data), e))
			return -1;
		pos = (uint64_t)hole;
	}
	return 0;
}

/* In order, to a file that may not seek (a pipe, a terminal, /dev/full). */
static int copy_stream(int in, int out, uint64_t len, struct err *e)
{
	unsigned char buf[65536];
	uint64_t pos, n;

	for (pos = 0; pos < len; pos += n) {
		n = len - pos < sizeof buf ? len - pos : sizeof buf;
		if (io_read_at(in, pos, buf, n, e) ||
		    io_write_all(out, buf, n, "standard output", e))
			return -1;
	}
	return 0;
}

static int write_zeros(int fd, uint64_t off, uint64_t len, struct err *e)
{
	static const unsigned char zeros[4096];
	uint64_t n;

	while (len) {
		n = len < sizeof zeros ? len : sizeof zeros;
		if (io_write_at(fd, off, zeros, n, e))
			return -1;
		off += n, len -= n;
	}
	return 0;
}

/* Input bytes through a patch's transform, PATCH_CHUNK at a time (edit.h). */
static int copy_xform(int in, uint64_t src, int out, uint64_t dst, const struct patch *p,
		      struct err *e)
{
	unsigned char buf[PATCH_CHUNK];
	uint64_t k, n;

	for (k = 0; k < p->len; k += n) {
		n = p->len - k < sizeof buf ? p->len - k : sizeof buf;
		if (io_read_at(in, src + k, buf, n, e))
			return -1;
		p->xform(p->data, buf, n);
		if (io_write_at(out, dst + k, buf, n, e))
			return -1;
	}
	return 0;
}

/* The plan's patches, over what was copied of the input; both files seen from a base offset. */
static int apply_patches(int in, uint64_t in_base, int out, uint64_t out_base,
			 const struct plan *pl, struct err *e)
{
	size_t i;

	for (i = 0; i < pl->n; i++) {
		const struct patch *p = &pl->p[i];
		int r = p->xform  ? copy_xform(in, in_base + p->src, out, out_base + p->off, p, e)
			: p->data ? io_write_at(out, out_base + p->off, p->data, p->len, e)
			: p->src == PATCH_ZERO ? write_zeros(out, out_base + p->off, p->len, e)
					       : output_copy(in, in_base + p->src, out,
							     out_base + p->off, p->len, e);
		if (r)
			return -1;
	}
	return 0;
}

int output_apply_mem(const unsigned char *in, uint64_t in_size, const struct plan *pl,
		     unsigned char *out, struct err *e)
{
	if (pl->keep > in_size)
		return err_set(e, "the plan keeps more bytes than the input has");
	memcpy(out, in, pl->keep);
	memset(out + pl->keep, 0, pl->out_size - pl->keep);
	for (size_t i = 0; i < pl->n; i++) {
		const struct patch *p = &pl->p[i];
		if (!range_ok(p->off, p->len, pl->out_size) ||
		    ((!p->data || p->xform) && p->src != PATCH_ZERO &&
		     !range_ok(p->src, p->len, in_size)))
			return err_set(e, "a patch runs past the member");
		if (p->xform) {
			memmove(out + p->off, in + p->src, p->len);
			for (uint64_t k = 0; k < p->len; k += PATCH_CHUNK)
				p->xform(p->data, out + p->off + k,
					 p->len - k < PATCH_CHUNK ? p->len - k : PATCH_CHUNK);
		} else if (p->data)
			memcpy(out + p->off, p->data, p->len);
		else if (p->src == PATCH_ZERO)
			memset(out + p->off, 0, p->len);
		else
			memcpy(out + p->off, in + p->src, p->len);
	}
	return 0;
}

int output_apply_at(int in, uint64_t in_base, int out, uint64_t out_base, const struct plan *pl,
		    struct err *e)
{
	if (output_copy(in, in_base, out, out_base, pl->keep, e))
		return -1;
	return apply_patches(in, in_base, out, out_base, pl, e);
}

int output_apply(int in, int out, const struct plan *pl, struct err *e)
{
	struct stat st;

	/* The whole input kept: share its blocks where the filesystem can (btrfs, XFS), so that
	 * only the patched blocks are written; else the kernel copies. */
	if (!(fstat(in, &st) == 0 && (uint64_t)st.st_size == pl->keep && pl->keep &&
	      ioctl(out, FICLONE, in) == 0) &&
	    output_copy(in, 0, out, 0, pl->keep, e))
		return -1;
	if (apply_patches(in, 0, out, 0, pl, e))
		return -1;
	if (ftruncate(out, (off_t)pl->out_size))
		return err_set(e, "cannot set the output size: %s", strerror(errno));
	return 0;
}

/* Extended attributes carry security labels and file capabilities: losing them silently would
 * change what the program may do. */
static int copy_xattrs(int in, int out, struct err *e)
{
	char names[4096], value[4096];
	ssize_t len, vlen, k;

	len = flistxattr(in, names, sizeof names);
	if (len < 0)
		return errno == ENOTSUP || errno == ENOSYS
			       ? 0
			       : err_set(e, "cannot list extended attributes: %s", strerror(errno));
	for (k = 0; k < len; k += (ssize_t)strlen(names + k) + 1) {
		vlen = fgetxattr(in, names + k, value, sizeof value);
		if (vlen < 0 || fsetxattr(out, names + k, value, (size_t)vlen, 0))
			return err_set(e, "cannot keep extended attribute %s: %s", names + k,
				       strerror(errno));
	}
	return 0;
}

static int keep_metadata(int in, int out, const struct stat *st, int in_place, struct err *e)
{
	if (in_place && (fchown(out, st->st_uid, st->st_gid) || copy_xattrs(in, out, e)))
		return e->msg[0] ? -1 : err_set(e, "cannot keep the owner: %s", strerror(errno));
	/* After fchown, which clears set-id bits. */
	if (fchmod(out, st->st_mode & 07777))
		return err_set(e, "cannot keep the mode: %s", strerror(errno));
	return 0;
}

struct tmp {
	int fd;
	int named; /* tmppath exists in the directory */
	char dir[PATH_MAX], dest[PATH_MAX], tmppath[PATH_MAX + 64];
};

static int split_path(const char *path, struct tmp *t, struct err *e)
{
	const char *slash = strrchr(path, '/');
	size_t dlen;

	if (strlen(path) >= sizeof t->dest || !*path || (slash && slash[1] == '\0'))
		return err_set(e, "bad output path");
	strcpy(t->dest, path);
	if (!slash) {
		strcpy(t->dir, ".");
	} else {
		dlen = slash == path ? 1 : (size_t)(slash - path);
		memcpy(t->dir, path, dlen);
		t->dir[dlen] = '\0';
	}
	return 0;
}

/* A name in the same directory: ".BASE.dlnote-PID-N". */
static void tmp_name(struct tmp *t, unsigned n)
{
	const char *base = strrchr(t->dest, '/');

	base = base ? base + 1 : t->dest;
	snprintf(t->tmppath, sizeof t->tmppath, "%s/.%.20s.dlnote-%ld-%u", t->dir, base,
		 (long)getpid(), n);
}

static int open_tmp(struct tmp *t, struct err *e)
{
	unsigned n;

	t->fd = open(t->dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (t->fd >= 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT)
		return err_set(e, "cannot create a temporary file in %s: %s", t->dir,
			       strerror(errno));
	/* This filesystem has no unnamed temporaries: a named one, removed on every failure. */
	for (n = 0; n < 100; n++) {
		tmp_name(t, n);
		t->fd = open(t->tmppath, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
		if (t->fd >= 0) {
			t->named = 1;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return err_set(e, "cannot create a temporary file in %s: %s", t->dir, strerror(errno));
}

/* Give the unnamed temporary a name, so it can be renamed over the destination.  From here to
 * the rename (two system calls) a kill leaves this name behind. */
static int name_tmp(struct tmp *t, struct err *e)
{
	char proc[64];
	unsigned n;

	if (t->named)
		return 0;
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", t->fd);
	for (n = 0; n < 100; n++) {
		tmp_name(t, n);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, t->tmppath, AT_SYMLINK_FOLLOW) == 0 ||
		    linkat(t->fd, "", AT_FDCWD, t->tmppath, AT_EMPTY_PATH) == 0) {
			t->named = 1;
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	return err_set(e, "cannot name the temporary file: %s", strerror(errno));
}

static void drop_tmp(struct tmp *t)
{
	if (t->named)
		unlink(t->tmppath);
	if (t->fd >= 0)
		close(t->fd);
}

static int fsync_dir(const char *dir, struct err *e)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), r;

	if (fd < 0)
		return err_set(e, "cannot open directory %s: %s", dir, strerror(errno));
	r = fsync(fd);
	close(fd);
	return r ? err_set(e, "fsync of the directory failed: %s", strerror(errno)) : 0;
}

/* Several hard links share the inode; a rename would split them.  Like binutils, we update the
 * inode itself then: every name sees the new content, but this last copy is not atomic.  The
 * space is reserved first, so a full disk fails before anything is overwritten. */
static int write_through(const struct tmp *t, uint64_t size, struct err *e)
{
	int fd = open(t->dest, O_WRONLY | O_CLOEXEC);
	int r = 0;

	if (fd < 0)
		return err_set(e, "cannot open for writing: %s", strerror(errno));
	errno = posix_fallocate(fd, 0, (off_t)size);
	if (errno && errno != EOPNOTSUPP && errno != EINVAL)
		r = err_set(e, "cannot reserve space: %s", strerror(errno));
	if (r == 0)
		r = output_copy(t->fd, 0, fd, 0, size, e);
	if (r == 0 && ftruncate(fd, (off_t)size))
		r = err_set(e, "cannot set the size: %s", strerror(errno));
	if (close(fd) && r == 0)
		r = err_set(e, "write failed: %s", strerror(errno));
	return r;
}

static const char *file_kind(mode_t m)
{
	return S_ISDIR(m)    ? "a directory"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISFIFO(m) ? "a FIFO"
	       : S_ISSOCK(m) ? "a socket"
			     : "not a regular file";
}

/* The result is built in an unnamed temporary file (it must be seekable, standard output may be a
 * pipe), then copied out in order. */
int output_stream_fill(int infd, output_fill_fn fill, void *ctx, int out, struct err *e)
{
	const char *dir = getenv("TMPDIR");
	struct tmp t = {.fd = -1};
	struct stat ts;
	int r = -1;

	if (!dir || !*dir)
		dir = "/tmp";
	if (strlen(dir) >= sizeof t.dir)
		return err_set(e, "TMPDIR is too long");
	strcpy(t.dir, dir);
	strcpy(t.dest, "stdout");
	if (open_tmp(&t, e) || fill(ctx, infd, t.fd, e))
		goto out;
	if (fstat(t.fd, &ts)) {
		err_set(e, "cannot read the result's size: %s", strerror(errno));
		goto out;
	}
	r = copy_stream(t.fd, out, (uint64_t)ts.st_size, e);
out:
	drop_tmp(&t);
	return r;
}

int output_replace(int infd, const struct stat *st, const char *dest, int in_place,
		   const struct output_opts *o, output_fill_fn fill, void *ctx, struct err *e)
{
	struct tmp t = {.fd = -1};
	char real[PATH_MAX];
	struct stat ds, ts;
	int r = -1;

	/* A symlink is followed: the file it points to is replaced, the link stays. */
	if (lstat(dest, &ds) == 0 && S_ISLNK(ds.st_mode)) {
		if (!realpath(dest, real))
			return err_set(e, "cannot resolve symlink: %s", strerror(errno));
		dest = real;
	}
	/* The result replaces the destination by a rename: a device node, FIFO, socket or directory
	 * would be replaced by a regular file (as root, -o /dev/null would replace /dev/null). */
	if (stat(dest, &ds) == 0 && !S_ISREG(ds.st_mode))
		return err_set(e,
			       "output %s is %s: only a regular file is replaced (-o - writes to "
			       "standard output)",
			       dest, file_kind(ds.st_mode));
	/* Replacing a file goes through its directory, which would bypass the file's own mode:
	 * a user may only rewrite what they may write (root may write anything, as with cp). */
	if (in_place && faccessat(AT_FDCWD, dest, W_OK, AT_EACCESS))
		return err_set(e, "%s", strerror(errno));
	if (split_path(dest, &t, e) || open_tmp(&t, e))
		goto out;
	if (fill(ctx, infd, t.fd, e) || keep_metadata(infd, t.fd, st, in_place, e))
		goto out;
	if (o->fsync && fsync(t.fd)) {
		err_set(e, "fsync failed: %s", strerror(errno));
		goto out;
	}
	if (in_place && st->st_nlink > 1) {
		if (fstat(t.fd, &ts)) {
			err_set(e, "cannot read the result's size: %s", strerror(errno));
			goto out;
		}
		r = write_through(&t, (uint64_t)ts.st_size, e);
		if (r == 0 && o->fsync)
			r = fsync(t.fd);
		goto out;
	}
	if (name_tmp(&t, e))
		goto out;
	if (rename(t.tmppath, t.dest)) {
		err_set(e, "cannot replace the file: %s", strerror(errno));
		goto out;
	}
	t.named = 0;
	if (o->fsync && fsync_dir(t.dir, e))
		goto out;
	r = 0;
out:
	drop_tmp(&t);
	return r;
}

static int fill_plan(void *pl, int in, int out, struct err *e)
{
	return output_apply(in, out, pl, e);
}

int output_write(int infd, const struct stat *st, const struct plan *pl, const char *dest,
		 int in_place, const struct output_opts *o, struct err *e)
{
	return output_replace(infd, st, dest, in_place, o, fill_plan, (void *)pl, e);
}

int output_stream(int infd, const struct plan *pl, int out, struct err *e)
{
	return output_stream_fill(infd, fill_plan, (void *)pl, out, e);
}
