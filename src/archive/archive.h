/* SPDX-License-Identifier: MIT */
/* archive.h - the interface of the archive layer (src/archive/).  It takes an ar archive's
 * descriptor and, to edit, a plan for each member (edit.h); it gives the members as windows onto
 * the file and writes the edited copy.  It never decides what a member's edit is: the caller
 * plans it.  Other folders include this header only.
 *
 * archive.c and archive_write.c: static archives (ar): the members as windows onto one file, and an
 * edited copy written by streaming.
 *
 * Formats: GNU/SysV ("/" and "/SYM64/" symbol index, "//" long-name table, "/N" names), BSD
 * ("#1/LEN" names stored before the data, "__.SYMDEF" index) and GNU thin archives ("!<thin>",
 * members are other files: read, never written).  Every header field is checked against the
 * file size before use.  Nothing is loaded: a member is read in place by the ELF model
 * (elf_open_at), the index is read and rewritten in fixed-size pieces. */
#ifndef DLNOTE_ARCHIVE_H
#define DLNOTE_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "../edit/edit.h"
#include "../base/base.h"

#define ARCHIVE_MAGIC "!<arch>\n"
#define ARCHIVE_THIN_MAGIC "!<thin>\n"
#define ARCHIVE_HDR 60
#define ARCHIVE_MAX_NAME 1024 /* longer member names are refused */

enum archive_kind { AR_MEMBER, AR_INDEX, AR_NAMES };
enum archive_index { AR_NO_INDEX, AR_GNU32, AR_GNU64, AR_BSD32, AR_BSD64 };

struct archive_member {
	enum archive_kind kind;
	size_t nth;            /* 1 for the first member (specials counted too) */
	uint64_t hdr;          /* offset of its header */
	uint64_t name_len;     /* BSD "#1/LEN": name bytes between the header and the data */
	uint64_t data, size;   /* its bytes: [data, data+size) of the archive (thin: of its file) */
	uint64_t next;         /* offset of the next header */
	char raw[ARCHIVE_HDR]; /* its header as read */
	const unsigned char
		*mem; /* while writing: its `size` bytes in the read buffer, when small */
	const unsigned char *head; /* or, when large, its first head_len bytes that are there */
	uint64_t head_len;
	char name[ARCHIVE_MAX_NAME + 1];
	/* A thin archive's member that lies in another archive (GNU ar's "/N:ORIGIN", written
	 * when an archive is added to a thin one): name is "PATH(MEMBER)", the first nested_len
	 * bytes the archive's path, and the member's header is at `origin` in that file. */
	size_t nested_len;
	uint64_t origin;
};

struct archive {
	const char *path;
	int fd;
	uint64_t size;
	int thin;
	enum archive_index index;
	uint64_t names_off, names_size; /* the "//" table, once seen */
	uint64_t pos;                   /* next header */
	size_t nth;
	struct archive_io *io; /* while writing: the read and write buffers */
	/* Writing a GNU "/" index: a symbol's member offset above offset32_max (UINT32_MAX; the
	 * unit tests lower both) makes it "/SYM64/".  From an input of plan_first bytes on (2 GiB),
	 * every member is planned once before writing, so that the index's kind and size are
	 * known before the first member is placed; below, the 4 GiB line is not expected to be
	 * crossed, and if an edit does cross it the write is done again with the 64-bit index. */
	uint64_t offset32_max, plan_first;
	int widened; /* the last write turned a "/" index into "/SYM64/" */
};

/* True when the first 8 bytes are an archive's magic. */
int archive_is(const unsigned char *magic, size_t len);

int archive_open(struct archive *ar, int fd, const char *path, uint64_t size, struct err *e);
/* The next member (index and name table included, see kind): 1, or 0 at the end, or -1 with
 * the reason in e (archive_label names the member it is about). */
int archive_next(struct archive *ar, struct archive_member *m, struct err *e);

/* "NAME" or, when the name could not be read, "member N at offset 0xOFF". */
void archive_label(const struct archive_member *m, char *buf, size_t bufsz);

/* Where a member's bytes are: the archive itself, or for a thin archive its own file (opened;
 * *close_fd says the caller must close *fd).  *base is the offset of its first byte. */
int archive_member_fd(const struct archive *ar, const struct archive_member *m, int *fd,
		      uint64_t *base, int *close_fd, struct err *e);

/* The symbol index is well formed and every entry points inside the archive. */
int archive_check_index(const struct archive *ar, const struct archive_member *m, struct err *e);

/* The members the index names, by header offset: how many symbols each defines, and the index
 * position of its first (for archive_index_name).  *out is allocated, sorted by offset. */
struct archive_index_count {
	uint64_t off, nsyms, first;
};
int archive_index_members(const struct archive *ar, const struct archive_member *m,
			  struct archive_index_count **out, size_t *nout, struct err *e);
/* The name of the index's symbol `nth`, truncated to bufsz - 1 bytes. */
int archive_index_name(const struct archive *ar, const struct archive_member *m, uint64_t nth,
		       char *buf, size_t bufsz, struct err *e);

/* Writing: for each member, `plan` says whether it changes (1, with *pl filled; the archive
 * frees it), stays (0) or fails (-1).  *pl comes with `quiet` set when the archive only asks
 * (whether anything changes, where members will go): such a plan logs and prints nothing. */
typedef int (*archive_plan_fn)(void *ctx, const struct archive *ar, const struct archive_member *m,
			       struct plan *pl, struct err *e);

/* Whether any member would change (stops at the first that does); on failure `label` names
 * the member. */
int archive_changes(struct archive *ar, archive_plan_fn plan, void *ctx, char *label,
		    size_t labelsz, struct err *e);

/* Write the edited archive into the empty file `out`: unchanged members copied by the kernel,
 * edited ones at their new offsets with only the header's size field changed, then the symbol
 * index with the new member offsets (same symbols, same order, same kind; a GNU "/" index
 * whose offsets no longer fit 32 bits becomes "/SYM64/", as GNU ar writes it; a BSD one is
 * refused).  On failure e names the member in `label` (empty when it is about the whole
 * archive). */
int archive_write(struct archive *ar, int out, archive_plan_fn plan, void *ctx, char *label,
		  size_t labelsz, struct err *e);

#endif
