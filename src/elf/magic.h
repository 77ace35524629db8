/* SPDX-License-Identifier: MIT */
/* magic.h - what a file or archive member is, from its first bytes. */
#ifndef DLNOTE_MAGIC_H
#define DLNOTE_MAGIC_H

#include <stddef.h>
#include <stdint.h>

/* The first (up to 8) bytes of [base, base+size) of fd; how many were read. */
size_t magic_read(int fd, uint64_t base, uint64_t size, unsigned char m[8]);
/* Whether they begin an ELF file. */
int magic_is_elf(const unsigned char *m, size_t n);
/* A name for a known non-ELF object format (LLVM bitcode), or NULL. */
const char *magic_foreign_kind(const unsigned char *magic, size_t len);

#endif
