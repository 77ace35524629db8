/* SPDX-License-Identifier: MIT */
/* scan.h - where the notes of a file are: every note section and every PT_NOTE segment, the
 * notes inside each, and which of them are dlopen notes.
 *
 * Readers differ (docs/background.md §2): some look at sections, some at PT_NOTE segments.
 * The scan records both views so that listing, checking and the layout planner agree. */
#ifndef DLNOTE_SCAN_H
#define DLNOTE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "../elf/elf.h"
#include "manifest.h"
#include "../base/base.h"

/* Note areas larger than this are refused: real ones are a few KiB. */
#define SCAN_MAX_AREA (64u << 20)

#define SECTION_NAME ".note.dlopen"
/* The section that covers the program header table when it moved into our segment: tools that
 * lay files out from their sections (libelf's eu-strip, bfd's strip) keep bytes that a section
 * describes and zero-fill or re-lay out the rest. */
#define PHDR_SECTION_NAME ".dlnote.phdrs"

struct scan_item { /* one note, at an absolute file offset */
	uint64_t off, size;
	uint64_t desc_off;
	uint32_t descsz;
	int dlopen;
	int build_id; /* a GNU build-id note (owner "GNU", NT_GNU_BUILD_ID) */
};

enum { AREA_SECTION, AREA_SEGMENT };

struct scan_area {
	int kind;
	size_t index; /* section or program header index */
	uint64_t off, size, align;
	size_t first, n; /* its items: scan.items[first .. first+n) */
	size_t ndlopen;
	int named; /* section named .note.dlopen */
};

struct scan {
	struct scan_area *areas;
	size_t nareas, areas_cap;
	struct scan_item *items;
	size_t nitems, items_cap;
};

int scan_file(const struct elf *ef, struct scan *sc, struct err *e);
void scan_free(struct scan *sc);

/* The distinct dlopen notes of the file, in file order (a note seen through a section and a
 * segment counts once).  Returns the count; *out is allocated. */
size_t scan_dlopen_notes(const struct scan *sc, const struct scan_item ***out);

/* Decode every distinct dlopen note into entries (the spec: several notes are one array). */
int scan_entries(const struct elf *ef, const struct scan *sc, struct entries *out, struct err *e);

/* isd[i] = 1 for every section holding dlopen notes or named .note.dlopen (isd has ef->shnum
 * bytes).  A section mixing dlopen notes with other notes cannot be rewritten: an error. */
int scan_dlopen_sections(const struct elf *ef, const struct scan *sc, unsigned char *isd,
			 struct err *e);

/* Decode one dlopen note into entries (appended). */
int scan_decode_item(const struct elf *ef, const struct scan_item *it, struct entries *out,
		     struct err *e);

/* The file's GNU build-id in lower-case hex (at most 64 bytes of it), "" when it has none. */
void scan_build_id(const struct elf *ef, const struct scan *sc, char hex[2 * 64 + 1]);

/* --check: validate against the spec and the readers.  Problems are appended to `report`, one
 * per line, prefixed "error: " or "warning: ".  Returns the number of errors. */
size_t scan_check(const struct elf *ef, const struct scan *sc, struct buf *report);

/* The PT_NOTE or section area covering [off, off+size), or NULL. */
const struct scan_area *scan_area_of(const struct scan *sc, int kind, uint64_t off, uint64_t size);

#endif
