/* SPDX-License-Identifier: MIT */
/* note.h - the interface of the note layer (src/note/).  It takes JSON text, flags and ELF
 * models; it gives dlopen entries (checked against the spec, docs/background.md §1), their note
 * bytes, and where a file's notes are.  It never changes a file.  Other folders include this
 * header only. */
#ifndef DLNOTE_NOTE_H
#define DLNOTE_NOTE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/base.h"
#include "../elf/elf.h"

/* manifest.c: dlopen entries: parsing and validating a manifest, building entries from flags,
 * and writing them back as compact JSON.
 *
 * An entry keeps its members in order, each as a decoded key and a canonical compact JSON value,
 * so unknown keys survive untouched and the serialization is deterministic. */

/* Bound on one manifest or one note payload: generous for real use, small enough that hostile
 * input cannot make the tool use much memory. */
#define MANIFEST_MAX_BYTES (16u << 20)

/* One key of an entry's JSON object, decoded, with its value as canonical compact JSON. */
struct keyval {
	char *key, *val;
	size_t keylen, vallen;
};

struct entry {
	struct keyval *m;
	size_t n, cap;
};

struct entries {
	struct entry *v;
	size_t n, cap;
};

/* Parse a manifest (a JSON array of entry objects) and append its entries to `out`.  Every rule
 * of the spec is checked; errors carry "line L, column C". */
int manifest_parse(const char *text, size_t len, struct entries *out, struct err *e);

/* An entry from separate values (the command line's flags).  Values are validated like manifest
 * strings; a value's error is a usage error that starts with its key ("soname: empty soname").
 * `priority`, `feature` and `description` may be NULL. */
struct entry_spec {
	const char *feature, *description, *priority;
	const char **sonames;
	size_t nsonames;
};
int manifest_entry_from_spec(const struct entry_spec *s, struct entries *out, struct err *e);

const struct keyval *entry_find(const struct entry *en, const char *key);
/* Decoded string value of a key (NULL when absent or not a string); the returned text lives in
 * `tmp`, which the caller frees. */
const char *entry_string(const struct entry *en, const char *key, struct buf *tmp);
/* Effective priority: the entry's, or "recommended" when absent, as the spec says. */
const char *entry_priority(const struct entry *en, struct buf *tmp);

/* A soname with no version after ".so" (libfoo.so) names a development symlink: what a -dev
 * package ships for the link editor, not what a program needs at run time. */
int soname_unversioned(const char *s, size_t len);

void manifest_serialize(const struct entries *es, struct buf *out);
void manifest_serialize_entry(const struct entry *en, struct buf *out);
int manifest_entry_equal(const struct entry *a, const struct entry *b);
/* seen[i] = 1 when b's entry i equals an entry of a or an earlier one of b: O(n log n). */
int manifest_mark_seen(const struct entries *a, const struct entries *b, unsigned char *seen);
/* 1 when a and b hold the same entries, each as many times, in any order (entries equal as
 * manifest_entry_equal says: keys in any order, unknown keys included); 0 otherwise or out of
 * memory.  O(n log n). */
int manifest_same_entries(const struct entries *a, const struct entries *b);
/* in[i] = 1 when b's entry i equals an entry of a: O(n log n). */
int manifest_mark_in(const struct entries *a, const struct entries *b, unsigned char *in);
/* Append the entries of src that are not already in dst (merge mode). */
int manifest_merge(struct entries *dst, const struct entries *src);
int manifest_append_copy(struct entries *dst, const struct entry *en);
/* Append *en itself, leaving it empty (no copy).  On failure *en is freed. */
int manifest_append_take(struct entries *dst, struct entry *en);
/* Append copies of every entry of src. */
int manifest_merge_all(struct entries *dst, const struct entries *src);
/* Free the entries from index n on: es keeps its first n. */
void manifest_truncate(struct entries *es, size_t n);
void manifest_free(struct entries *es);
void manifest_entry_free(struct entry *en);

/* identity.c: entries that declare the same dependency: the same feature and sonames (their
 * values as canonical JSON).  A program that lists two such entries lists the dependency
 * twice, which --check rejects. */
void manifest_entry_identity(const struct entry *en, struct buf *out);
/* "feature" ["soname", ...], for messages ("(no feature)" without one). */
void manifest_entry_label(const struct entry *en, struct buf *out);
/* Merge src into dst by identity: an entry equal to one of dst's entries of its identity (dst
 * may hold one at several priorities: systemd's programs do) is skipped, and dst's are kept as
 * they are; an entry of the same identity that equals none of them replaces them when
 * `replace` (the first one's place; the old entries are moved to `replaced`, when not NULL),
 * else stops the merge: 1 with the two entries' indexes in *clash_dst and *clash_src.  0 when
 * merged, -1 out of memory. */
int manifest_merge_identity(struct entries *dst, const struct entries *src, int replace,
			    struct entries *replaced, size_t *clash_dst, size_t *clash_src);
/* An entry's priority as a rank: suggested 0, recommended (or none, or one not known) 1,
 * required 2. */
int manifest_priority_rank(const struct entry *en);
/* Entries of one identity become one, in the first one's place: the first of the strongest
 * priority, as every consumer reads notes (dh_dlopenlibdeps, rpm, dracut).  -1 out of memory. */
int manifest_fold_strongest(struct entries *es);
/* For each entry i of es that is the first of its identity: count[i] its entries in es and
 * in_added[i] whether `added` has one of that identity (0 for the others); first[i] the first
 * entry of i's identity.  Each array has es->n elements.  -1 out of memory.  O(n log n). */
int manifest_repeats(const struct entries *es, const struct entries *added, size_t *count,
		     unsigned char *in_added, size_t *first);
/* unnamed[i] = 1 when no entry of `names` has the identity of have's entry i. */
int manifest_unnamed(const struct entries *have, const struct entries *names,
		     unsigned char *unnamed);

/* note.c: the FDO dlopen note: encoding entries into note bytes, walking note lists, and
 * decoding a note's payload back into entries. */

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
	uint64_t gap;   /* the area's alignment when above 8 (else 0): zero words up to it are
			 * skipped between notes (docs/layout.md, "Notes aligned beyond 8") */
	int big;
};

void note_iter_init(struct note_iter *it, const void *area, uint64_t len, uint64_t align, int big);
/* 1 with *n filled, 0 at the end, -1 with a reason for a malformed note. */
int note_next(struct note_iter *it, struct note *n, struct err *e);

int note_is_dlopen(const struct note *n);

/* Decode a dlopen note's payload and append its entries.  The payload must be a NUL-terminated
 * string (only zero bytes may follow the terminator) holding a valid manifest. */
int note_decode(const struct note *n, struct entries *out, struct err *e);

/* scan.c: where the notes of a file are: every note section and every PT_NOTE segment, the
 * notes inside each, and which of them are dlopen notes.
 *
 * Readers differ (docs/background.md §2): some look at sections, some at PT_NOTE segments.
 * The scan records both views so that listing, checking and the layout planner agree. */

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
	int build_id;   /* a GNU build-id note (owner "GNU", NT_GNU_BUILD_ID) */
	int misaligned; /* a dlopen note of an area aligned beyond 8: readers cannot read it */
};

enum { AREA_SECTION, AREA_SEGMENT };

struct scan_area {
	int kind;
	size_t index; /* section or program header index */
	uint64_t off, size, align;
	size_t first, n; /* its items: scan.items[first .. first+n) */
	size_t ndlopen;
	int named;          /* section named .note.dlopen */
	size_t nmisaligned; /* its dlopen notes in an area aligned beyond 8 */
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

/* Decode every distinct dlopen note into entries (the spec: several notes are one array).
 * Fails with scan_misaligned()'s cause when the file holds misaligned notes: what it holds is
 * not what its readers get (docs/layout.md, "Notes aligned beyond 8"). */
int scan_entries(const struct elf *ef, const struct scan *sc, struct entries *out, struct err *e);
/* The same, decoding misaligned notes too, as --merge keeps what it can: the entries of the
 * notes that do not decode are left out, each note's error line appended to `lost` and
 * counted in *nlost. */
int scan_entries_salvage(const struct elf *ef, const struct scan *sc, struct entries *out,
			 struct buf *lost, size_t *nlost, struct err *e);
/* The number of misaligned dlopen notes; when any, the cause and the way out in one sentence
 * (which sections or offsets, their alignment) appended to `why`.  Brief: without the section
 * index, offset and count, the same words in every file of the cause (an archive's members
 * give one line). */
size_t scan_misaligned(const struct elf *ef, const struct scan *sc, int brief, struct buf *why);
/* The same, saying only where they are ("section [4] .note.dlopen at offset 0x60 is aligned to
 * 32, its 2 dlopen notes padded with zeros to that"): what an edit that drops them says. */
size_t scan_misaligned_where(const struct elf *ef, const struct scan *sc, struct buf *where);

/* 1 when every dlopen note of the file is where every reader finds it: in a section named
 * .note.dlopen that holds only dlopen notes, SHT_NOTE, allocated, read-only, 4-aligned (when
 * the file has section headers), and in a linked file in a 4-aligned PT_NOTE inside a PT_LOAD.
 * (A PT_NOTE shared with other notes, as linkers make it, is fine.) */
int scan_notes_in_place(const struct elf *ef, const struct scan *sc);

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
 * per line, prefixed "error: " or "warning: ".  Returns the number of errors.  Brief: lines
 * that name no place in the file where they can (scan_misaligned()), for a caller that gathers
 * the same cause of many files into one line. */
size_t scan_check(const struct elf *ef, const struct scan *sc, int brief, struct buf *report);

/* The PT_NOTE or section area covering [off, off+size), or NULL. */
const struct scan_area *scan_area_of(const struct scan *sc, int kind, uint64_t off, uint64_t size);

#endif
