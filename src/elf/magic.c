/* SPDX-License-Identifier: MIT */
/* magic.c - what a file or archive member is, from its first bytes: ELF, LLVM bitcode, or
 * something else (archives: archive_is in archive.c). */
#include "elf.h"

#include <string.h>
#include <unistd.h>

/* LLVM's bitcode magic 'BC' 0xC0DE, and the wrapper (0x0B17C0DE, little-endian) that Darwin
 * and some build systems put around it. */
const char *magic_foreign_kind(const unsigned char *m, size_t len)
{
	static const unsigned char bc[4] = {'B', 'C', 0xc0, 0xde},
				   wrap[4] = {0xde, 0xc0, 0x17, 0x0b};

	if (len >= 4 && (memcmp(m, bc, 4) == 0 || memcmp(m, wrap, 4) == 0))
		return "LLVM bitcode (clang -flto)";
	return NULL;
}

/* The first bytes of a file or member. */
size_t magic_read(int fd, uint64_t base, uint64_t size, unsigned char m[8])
{
	ssize_t n = pread(fd, m, size < 8 ? (size_t)size : 8, (off_t)base);

	return n > 0 ? (size_t)n : 0;
}

int magic_is_elf(const unsigned char *m, size_t n)
{
	return n >= 4 && memcmp(m, "\177ELF", 4) == 0;
}
