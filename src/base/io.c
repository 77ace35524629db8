/* SPDX-License-Identifier: MIT */
/* io.c - whole reads and writes at an offset, and in order (base.h). */
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

static size_t call_size(uint64_t len)
{
	return len > IO_MAX_CALL ? IO_MAX_CALL : (size_t)len;
}

int io_read_at(int fd, uint64_t off, void *buf, uint64_t len, struct err *e)
{
	unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = pread(fd, p, call_size(len), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, "read error: %s", strerror(errno));
		if (n == 0)
			return err_set(e, "read error: the file shrank while being read");
		p += n, off += (uint64_t)n, len -= (uint64_t)n;
	}
	return 0;
}

int io_write_at(int fd, uint64_t off, const void *buf, uint64_t len, struct err *e)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = pwrite(fd, p, call_size(len), (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return err_set(e, "write failed: %s",
				       n < 0 ? strerror(errno) : "no progress");
		p += n, off += (uint64_t)n, len -= (uint64_t)n;
	}
	return 0;
}

int io_write_all(int fd, const void *buf, uint64_t len, const char *what, struct err *e)
{
	const unsigned char *p = buf;
	ssize_t n;

	while (len) {
		n = write(fd, p, call_size(len));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return err_set(e, "%s: write failed: %s", what,
				       n < 0 ? strerror(errno) : "no progress");
		p += n, len -= (uint64_t)n;
	}
	return 0;
}

int io_writev_at(int fd, uint64_t off, struct iovec *iov, int n, struct err *e)
{
	ssize_t w;

	while (n) {
		w = pwritev(fd, iov, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return err_set(e, "write failed: %s",
				       w < 0 ? strerror(errno) : "no progress");
		off += (uint64_t)w;
		for (; n && (size_t)w >= iov->iov_len; n--, iov++)
			w -= (ssize_t)iov->iov_len;
		if (n) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int io_open_in_root(int rootfd, const char *path, int flags, int no_symlinks)
{
	struct open_how how = {.flags = (unsigned)flags | O_CLOEXEC,
			       .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
					  (no_symlinks ? RESOLVE_NO_SYMLINKS : 0)};

	while (*path == '/')
		path++;
	return (int)syscall(SYS_openat2, rootfd, *path ? path : ".", &how, sizeof how);
}
