/* SPDX-License-Identifier: MIT */
/* debugfile.h - detached debug files (eu-strip -f, objcopy --only-keep-debug): they keep the
 * program headers of the stripped file, whose contents are not in them.  elf_open recognises
 * them here from the headers it has read, and then drops their program headers. */
#ifndef DLNOTE_DEBUGFILE_H
#define DLNOTE_DEBUGFILE_H

#include "elf.h"

/* True when the section and program headers of `ef` show a detached debug file. */
int debugfile_detached(const struct elf *ef);
/* True when an executable section is NOBITS: the code is elsewhere (a debug file).  Writing is
 * refused for these too; reading them needs nothing special. */
int debugfile_code_missing(const struct elf *ef);

#endif
