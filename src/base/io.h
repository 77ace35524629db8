/* SPDX-License-Identifier: MIT */
/* io.h - the one loop around pread(2), pwrite(2) and write(2): whole transfers, retried after a
 * signal, at most 1 GiB per call (Linux moves at most 0x7ffff000 bytes per call, and a 32-bit
 * ssize_t less), a short read past the end of a file an error.  It takes a descriptor and a
 * range; it gives 0 or -1 with the reason in the error.  It never opens, closes or seeks. */
#ifndef DLNOTE_IO_H
#define DLNOTE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

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

#endif
