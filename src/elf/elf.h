/* SPDX-License-Identifier: MIT */
/* elf.h - the interface of the ELF layer (src/elf/).  It takes a descriptor and a range of it;
 * it gives the model of an ELF file of any class and byte order, the records' byte formats
 * (elf_codec.c), the ELF constants (elf_const.h, included here), file kinds (magic.c) and what
 * separate debug files are (debugfile.c).  It never writes a file and knows nothing of dlopen
 * notes.  Other folders include this header only. */
#ifndef DLNOTE_ELF_H
#define DLNOTE_ELF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/base.h"
#include "elf_const.h"

/* elf.c: the ELF model: headers of any class and byte order, read once into native structs.
 *
 * Nothing is trusted: every offset and count is checked against the file size with
 * overflow-safe arithmetic before it is used, and the file's bytes are never all read.  The
 * model holds only the ELF header, the program headers and the section headers. */

struct elf_phdr {
	uint32_t type, flags;
	uint64_t offset, vaddr, paddr, filesz, memsz, align;
};

struct elf_shdr {
	uint32_t name, type, link, info;
	uint64_t flags, addr, offset, size, addralign, entsize;
};

struct elf_sym {
	uint32_t name;
	unsigned char info, other;
	uint16_t shndx;
	uint64_t value, size;
};

struct elf {
	const char *path;
	int fd;
	uint64_t base;             /* where the object starts in fd: an archive member's data */
	const unsigned char *mem;  /* or, when set, its bytes already in memory (a small member) */
	const unsigned char *head; /* or its first head_len bytes only (a large member's start) */
	uint64_t head_len;
	uint64_t size; /* of the object (the window [base, base+size) of fd) */
	int is64, big;
	unsigned char ident[16];
	uint16_t type, machine;
	uint32_t version, flags;
	uint64_t entry, phoff, shoff;
	uint16_t ehsize;
	size_t phnum, shnum, shstrndx; /* real values, extended numbering resolved */
	struct elf_phdr *ph;
	struct elf_shdr *sh;
	char *names; /* the section-name table when it is small, else NULL */
	uint64_t namesz;
	/* A detached debug file (eu-strip -f, objcopy --only-keep-debug): its program headers
	 * describe the stripped file, whose contents are not here.  They are dropped (phnum 0):
	 * readers see its sections only; writers refuse it. */
	int detached;
	size_t detached_phnum; /* how many program headers it had */
};

/* Read and check the headers.  Fails with a reason for anything malformed. */
int elf_open(struct elf *ef, int fd, const char *path, uint64_t size, struct err *e);
/* The same for an object that is a window of fd: [base, base+size), such as an archive member
 * read in place.  Every offset of the model is relative to base and checked against size. */
int elf_open_at(struct elf *ef, int fd, const char *path, uint64_t base, uint64_t size,
		struct err *e);
/* elf_open_at for an object whose first head_len bytes are also in memory (they must outlive
 * the model): reads inside them are not system calls. */
int elf_open_at_head(struct elf *ef, int fd, const char *path, uint64_t base, uint64_t size,
		     const unsigned char *head, uint64_t head_len, struct err *e);
/* The same for an object whose `size` bytes are in memory (they must outlive the model). */
int elf_open_mem(struct elf *ef, const unsigned char *mem, const char *path, uint64_t size,
		 struct err *e);
void elf_close(struct elf *ef);
/* Before a rewrite: sections do not overlap each other or the ELF header, PT_LOAD segments are
 * sorted, disjoint in memory and congruent. */
int elf_check_layout(const struct elf *ef, struct err *e);

/* patchelf 0.14 moves .note.gnu.property away from a growing program header table but leaves
 * PT_GNU_PROPERTY (program header i) describing its old place, now inside the table: the
 * index of the section it should describe, or 0 when it is not such a stale header. */
size_t elf_stale_property(const struct elf *ef, size_t i);
/* Bounds-checked read of the object's bytes (offsets relative to its window). */
int elf_read(const struct elf *ef, uint64_t off, uint64_t len, void *buf, struct err *e);
/* Name of a section (from e_shstrndx), truncated to bufsz-1; "" when it has none. */
void elf_section_name(const struct elf *ef, size_t index, char *buf, size_t bufsz);
/* True when section `index` is named exactly `want` (without copying the name when the model
 * holds the table). */
int elf_section_named(const struct elf *ef, size_t index, const char *want);

/* True for GCC LTO bytecode (slim or fat): an object with .gnu.lto_* sections.  The linker
 * plugin claims such an object, and the link uses what LTO compiles from its bytecode: the
 * object's own sections (a note added to it) are dropped. */
int elf_is_gcc_lto(const struct elf *ef);

/* Before names are appended to the section-name table: fails, naming the section, when a
 * section's name points past the table's end, where an appended name would become its name. */
int elf_names_inside_table(const struct elf *ef, struct err *e);

/* True when [off, off+len) holds only zeros or holes (reads at most 1 MiB of data). */
int elf_range_is_zero(const struct elf *ef, uint64_t off, uint64_t len);

/* The PT_LOAD whose file content holds [off, off+len), or NULL. */
const struct elf_phdr *elf_load_covering(const struct elf *ef, uint64_t off, uint64_t len);

/* A file made for OpenBSD: EI_OSABI says so, or a .note.openbsd.ident section, or one of
 * OpenBSD's own program header types (its linkers leave EI_OSABI 0).  A Linux file is not
 * read by OpenBSD's ld.so: its limits do not concern it. */
int elf_is_openbsd(const struct elf *ef);

/* Sizes of the on-disk structures for this class. */
size_t elf_ehdr_size(const struct elf *ef);
size_t elf_phent_size(const struct elf *ef);
size_t elf_shent_size(const struct elf *ef);
size_t elf_sym_size(const struct elf *ef);

/* Fixed-width fields in the file's byte order. */
/* Fields in the file's byte order: loaded whole, swapped when the host's order differs (inline:
 * every header, symbol and relocation goes through them). */
#define ELF_HOST_BIG (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/* The same for a byte order alone (big: the file is big-endian), where no struct elf is at hand:
 * a transform of the plan (edit.h) runs after the model is gone. */
static inline uint64_t elf_get_order(int big, const unsigned char *p, int width)
{
	int swap = big != ELF_HOST_BIG;
	uint64_t v = 0;
	int i;

	switch (width) {
	case 8: {
		uint64_t x;
		memcpy(&x, p, 8);
		return swap ? __builtin_bswap64(x) : x;
	}
	case 4: {
		uint32_t x;
		memcpy(&x, p, 4);
		return swap ? __builtin_bswap32(x) : x;
	}
	case 2: {
		uint16_t x;
		memcpy(&x, p, 2);
		return swap ? __builtin_bswap16(x) : x;
	}
	}
	for (i = 0; i < width; i++)
		v |= (uint64_t)p[big ? width - 1 - i : i] << (8 * i);
	return v;
}

static inline uint64_t elf_get(const struct elf *ef, const unsigned char *p, int width)
{
	return elf_get_order(ef->big, p, width);
}

static inline void elf_put_order(int big, unsigned char *p, int width, uint64_t v)
{
	int swap = big != ELF_HOST_BIG;
	int i;

	switch (width) {
	case 8: {
		uint64_t x = swap ? __builtin_bswap64(v) : v;
		memcpy(p, &x, 8);
		return;
	}
	case 4: {
		uint32_t x = swap ? __builtin_bswap32((uint32_t)v) : (uint32_t)v;
		memcpy(p, &x, 4);
		return;
	}
	case 2: {
		uint16_t x = swap ? __builtin_bswap16((uint16_t)v) : (uint16_t)v;
		memcpy(p, &x, 2);
		return;
	}
	}
	for (i = 0; i < width; i++)
		p[big ? width - 1 - i : i] = (unsigned char)(v >> (8 * i));
}

static inline void elf_put(const struct elf *ef, unsigned char *p, int width, uint64_t v)
{
	elf_put_order(ef->big, p, width, v);
}

/* Encoders: native struct -> file bytes (out must hold the on-disk size).  The ELF header is
 * encoded from the model's fields with the given counts, extended numbering applied by the
 * caller (e_phnum/e_shnum/e_shstrndx as they must appear in the header). */
void elf_encode_ehdr(const struct elf *ef, unsigned char *out, uint16_t e_phnum, uint16_t e_shnum,
		     uint16_t e_shstrndx);
void elf_encode_phdr(const struct elf *ef, const struct elf_phdr *ph, unsigned char *out);
void elf_decode_phdr(const struct elf *ef, const unsigned char *in, struct elf_phdr *ph);
void elf_decode_shdr(const struct elf *ef, const unsigned char *in, struct elf_shdr *sh);
void elf_encode_shdr(const struct elf *ef, const struct elf_shdr *sh, unsigned char *out);
void elf_decode_sym(const struct elf *ef, const unsigned char *in, struct elf_sym *s);
void elf_encode_sym(const struct elf *ef, const struct elf_sym *s, unsigned char *out);

/* The ABI's largest page size for a machine: what a new PT_LOAD must be aligned to at least. */
uint64_t elf_max_page(const struct elf *ef);

const char *elf_type_name(const struct elf *ef);

/* code_id.c: the code identity of a linked file: a SHA-256 of the code and data it runs
 * (its allocated sections with file bytes, at their addresses), leaving out what rewriters
 * between a build tree and a package change: notes (the GNU build-id), headers, the dynamic
 * linker's tables, and every non-allocated section.  It matches a file that a test suite ran
 * to the file a package ships after find-debuginfo gave it a new build-id, strip, dwz, objcopy
 * and this tool.  Files without section headers, objects and detached debug files have none. */
struct elf_code_id {
	int have; /* 0: the file has no identity (no section headers, not linked, nothing counted)
		   */
	uint64_t bytes; /* what it covers, for a cheap comparison before hashing */
	size_t sections;
	unsigned char digest[SHA256_BYTES]; /* set by elf_code_id_hash only */
};
/* bytes and sections only: headers, no read. */
int elf_code_id_size(const struct elf *ef, struct elf_code_id *id, struct err *e);
/* The whole identity, reading the counted sections in 64 KiB pieces. */
int elf_code_id_hash(const struct elf *ef, struct elf_code_id *id, struct err *e);

/* dynsym.c: the dynamic symbols of a linked file looked up by name as the dynamic loader looks
 * them up (dlsym() without a version, or a link): a definition at its default version, found
 * through .gnu.hash or .hash, with the name of that version node. */

/* Longest symbol name looked up. */
#define ELF_DYNSYM_MAX_NAME 1024

struct elf_dynsym {
	const struct elf *ef;
	uint64_t sym, str, strsz, versym; /* file offsets, and the string table's size */
	int has_versym, gnu;              /* gnu: .gnu.hash, else .hash */
	uint32_t nbucket, symoffset, bloom_words, bloom_shift;
	uint64_t bloom_off, buckets, chains, nchain;
	int hash_word; /* .hash entry size */
	unsigned char
		*bloom; /* .gnu.hash's bloom filter, when small (else read a word at a time) */
	struct elf_verdef {
		uint32_t name; /* into the dynamic string table */
		uint16_t ndx;
	} * defs; /* .gnu.version_d */
	size_t ndefs;
};

/* Find the tables of a linked object through its dynamic table; fails, saying why, when it has
 * none (not a shared library) or they do not fit in the file. */
int elf_dynsym_open(const struct elf *ef, struct elf_dynsym *d, struct err *e);
void elf_dynsym_close(struct elf_dynsym *d);
/* The .gnu.hash function (the dynamic loader's dl_new_hash). */
uint32_t elf_gnu_hash(const char *s, size_t n);
/* 0 when the bloom filter says a name of GNU hash h is not defined (always 1 without one). */
int elf_dynsym_maybe(const struct elf_dynsym *d, uint32_t h);
/* Look (name, len) up, gnu_hash being its elf_gnu_hash: 1 when it is defined at its default
 * version, the version node's name then in `version` ("" when the symbol has none, truncated to
 * versz - 1 bytes); 0 when it is not; -1 (e set) when the tables are damaged. */
int elf_dynsym_find(const struct elf_dynsym *d, const char *name, size_t len, uint32_t gnu_hash,
		    char *version, size_t versz, struct err *e);

/* multiarch.c: Debian's multiarch name (dpkg-architecture's DEB_HOST_MULTIARCH) of a file of
 * this class, byte order, machine and e_flags (the ARM float ABI), or NULL for an unknown one. */
const char *elf_multiarch(int is64, int big, unsigned machine, unsigned long flags);

/* magic.c: what a file or archive member is, from its first bytes. */

/* The first (up to 8) bytes of [base, base+size) of fd; how many were read. */
size_t magic_read(int fd, uint64_t base, uint64_t size, unsigned char m[8]);
/* Whether they begin an ELF file. */
int magic_is_elf(const unsigned char *m, size_t n);
/* A name for a known non-ELF object format (LLVM bitcode), or NULL. */
const char *magic_foreign_kind(const unsigned char *magic, size_t len);
/* libtool's stand-ins for what it builds: the wrapper script of an uninstalled program
 * ("temporary wrapper script for .libs/NAME") and the .la file of a library (its dlname, or
 * its old_library when it has no shared one).  For one of them, the real file's path, relative
 * to the stand-in's directory, goes to `real` and its kind is returned ("libtool wrapper
 * script", "libtool library file"); else NULL.  Reads at most the first 8 KiB of fd. */
const char *magic_libtool(int fd, uint64_t size, char *real, size_t realsz);

/* debugfile.c: detached debug files (eu-strip -f, objcopy --only-keep-debug): they keep the
 * program headers of the stripped file, whose contents are not in them.  elf_open recognises
 * them here from the headers it has read, and then drops their program headers. */

/* True when the section and program headers of `ef` show a detached debug file. */
int debugfile_detached(const struct elf *ef);
/* True for dwz's multifile (`dwz -m FILE`, Debian's and Fedora's `.dwz` files): DWARF shared by
 * several debug files, with no program headers, nothing allocated but its build-id note, and
 * no code.  Like a detached debug file it carries no dlopen notes by design. */
int debugfile_dwz_multifile(const struct elf *ef);

/* dynamic.c: what a linked file asks of the dynamic loader. */

/* Longest string kept from the dynamic string table (a name, a search path). */
#define ELF_DYN_MAX_STRING 4095

struct elf_dynamic {
	int dynamic;   /* the file has a dynamic table */
	char **needed; /* DT_NEEDED, in order */
	size_t nneeded;
	char *soname, *rpath, *runpath; /* the first of each, or NULL */
	uint64_t flags_1;               /* DT_FLAGS_1 */
	size_t unread; /* string entries whose string could not be read (left out above) */
};

/* The file offset of a virtual address, through the PT_LOAD that maps it from file bytes:
 * 0, or -1 when no PT_LOAD does. */
int elf_vaddr_offset(const struct elf *ef, uint64_t vaddr, uint64_t *off);

/* Where the dynamic table is: the SHT_DYNAMIC section and its sh_link string table when there
 * are section headers, else PT_DYNAMIC (the string table then from DT_STRTAB: str_known 0). */
struct elf_dyntab {
	uint64_t off, size;
	uint64_t str_off, str_size;
	int str_known;
};
/* 1 when the file has a dynamic table, else 0. */
int elf_dyntab_find(const struct elf *ef, struct elf_dyntab *d);
/* fn on each entry before DT_NULL, read in chunks; a nonzero return of fn stops the walk and is
 * returned.  -1 (e set) when the table cannot be read. */
int elf_dyntab_each(const struct elf *ef, const struct elf_dyntab *d,
		    int (*fn)(void *ctx, uint64_t tag, uint64_t val), void *ctx, struct err *e);

/* The dynamic table's strings (from SHT_DYNAMIC, else PT_DYNAMIC).  A file without one gives an
 * empty result; a string offset outside the string table names nothing. */
int elf_dynamic_read(const struct elf *ef, struct elf_dynamic *out, struct err *e);
void elf_dynamic_free(struct elf_dynamic *d);
/* PT_INTERP's path into buf (truncated to bufsz - 1 bytes), "" when the file has none. */
int elf_interp(const struct elf *ef, char *buf, size_t bufsz, struct err *e);

#endif
