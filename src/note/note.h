/* SPDX-License-Identifier: MIT */
/* note.h - the FDO dlopen note: encoding entries into note bytes, walking note lists, and
 * decoding a note's payload back into entries. */
#ifndef DLNOTE_NOTE_H
#define DLNOTE_NOTE_H

#include <stddef.h>
#include <stdint.h>

#include "manifest.h"
#include "../base/base.h"

#define NOTE_DLOPEN_TYPE 0x407c0c0au
#define NOTE_DLOPEN_OWNER "FDO"
/* A COMDAT group holding one entry's note is named this, followed by the note's payload (as
 * systemd's sd-dlopen.h names them, decoded by gas): identical entries fold at link time. */
#define NOTE_GROUP_PREFIX "sd_dlopen:"

/* Encode all entries as one note (n_namesz 4, "FDO\0", payload NUL-terminated and padded to
 * 4 bytes with zeros), header words in the given byte order.  An empty list gives no bytes. */
int note_encode(const struct entries *es, int big, struct buf *out, struct err *e);

/* One note inside a note area. */
struct note {
	uint64_t off;  /* of the header, relative to the area */
	uint64_t size; /* header + name + desc, with padding, clipped to the area */
	uint32_t namesz, descsz, type;
	const unsigned char *name, *desc;
};

struct note_iter {
	const unsigned char *p;
	uint64_t len, off;
	unsigned align; /* 4 or 8: padding of name and desc */
	int big;
};

void note_iter_init(struct note_iter *it, const void *area, uint64_t len, uint64_t align, int big);
/* 1 with *n filled, 0 at the end, -1 with a reason for a malformed note. */
int note_next(struct note_iter *it, struct note *n, struct err *e);

int note_is_dlopen(const struct note *n);

/* Decode a dlopen note's payload and append its entries.  The payload must be a NUL-terminated
 * string (only zero bytes may follow the terminator) holding a valid manifest. */
int note_decode(const struct note *n, struct entries *out, struct err *e);

#endif
