/* SPDX-License-Identifier: MIT */
/* elf.c - opening an ELF file or member: its headers and tables read and checked, names,
 * ranges and layout facts (the records' byte formats are in elf_codec.c). */
#include "elf.h"
#include "../base/base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* [off, off+len) of the object in memory (a small member's bytes, or a large one's head), or
 * NULL when it must be read from the file.  The range is checked by the caller. */
static const unsigned char *in_memory(const struct elf *ef, uint64_t off, uint64_t len)
{
	if (ef->mem)
		return ef->mem + off;
	return ef->head && off + len <= ef->head_len ? ef->head + off : NULL;
}

int elf_read(const struct elf *ef, uint64_t off, uint64_t len, void *buf, struct err *e)
{
	const unsigned char *m;

	if (!range_ok(off, len, ef->size))
		return err_set(
			e,
			"truncated file: %llu bytes at offset 0x%llx run past its end (%llu bytes)",
			(unsigned long long)len, (unsigned long long)off,
			(unsigned long long)ef->size);
	if ((m = in_memory(ef, off, len)) != NULL) {
		memcpy(buf, m, len);
		return 0;
	}
	return io_read_at(ef->fd, ef->base + off, buf, len, e);
}

static int read_ident(struct elf *ef, struct err *e)
{
	static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};

	const char *kind;

	if (ef->size < 16 || elf_read(ef, 0, 16, ef->ident, e) || memcmp(ef->ident, magic, 4)) {
		kind = elf_read(ef, 0, ef->size < 8 ? ef->size : 8, ef->ident, e)
			       ? NULL
			       : magic_foreign_kind(ef->ident, ef->size < 8 ? (size_t)ef->size : 8);
		if (kind)
			return err_set(e,
				       "%s, not an ELF file: its notes are in the objects the link "
				       "produces (edit those, or build this one without -flto)",
				       kind);
		return err_set(e, "not an ELF file");
	}
	if (ef->ident[4] != 1 && ef->ident[4] != 2)
		return err_set(e, "bad ELF class %u in e_ident", ef->ident[4]);
	if (ef->ident[5] != 1 && ef->ident[5] != 2)
		return err_set(e, "bad ELF byte order %u in e_ident", ef->ident[5]);
	if (ef->ident[6] != 1)
		return err_set(e, "unsupported ELF version %u in e_ident", ef->ident[6]);
	ef->is64 = ef->ident[4] == 2;
	ef->big = ef->ident[5] == 2;
	return 0;
}

/* A table of `num` entries of `entsize` bytes at `off` must lie inside the file. */
static int table_ok(const struct elf *ef, uint64_t off, uint64_t num, uint64_t entsize,
		    const char *what, struct err *e)
{
	uint64_t bytes;

	if (mul_ovf(num, entsize, &bytes) || !range_ok(off, bytes, ef->size))
		return err_set(
			e, "%s table (%llu entries at offset 0x%llx) runs past the end of the file",
			what, (unsigned long long)num, (unsigned long long)off);
	return 0;
}

static int read_table(const struct elf *ef, uint64_t off, size_t num, size_t entsize,
		      unsigned char **out, struct err *e)
{
	*out = xcalloc(num, entsize);
	if (!*out)
		return err_oom(e);
	return elf_read(ef, off, (uint64_t)num * entsize, *out, e);
}

static int read_sections(struct elf *ef, uint16_t e_shnum, uint16_t e_shstrndx, uint16_t shentsize,
			 struct err *e)
{
	size_t es = elf_shent_size(ef), i;
	unsigned char first[64], *raw = NULL;
	struct elf_shdr sh0;
	int r = 0;

	ef->shnum = e_shnum;
	ef->shstrndx = e_shstrndx;
	if (ef->shoff == 0) {
		ef->shnum = 0;
		ef->shstrndx = 0;
		return 0;
	}
	if (shentsize != es)
		return err_set(e, "bad e_shentsize %u (expected %zu)", shentsize, es);
	/* Extended numbering: the real counts live in section header 0, read alone only then;
	 * otherwise the table is read at once. */
	if (table_ok(ef, ef->shoff, e_shnum ? e_shnum : 1, es, "section header", e) ||
	    (e_shnum ? read_table(ef, ef->shoff, e_shnum, es, &raw, e)
		     : elf_read(ef, ef->shoff, es, first, e))) {
		free(raw);
		return -1;
	}
	elf_decode_shdr(ef, raw ? raw : first, &sh0);
	if (e_shnum == 0)
		ef->shnum = sh0.size;
	if (e_shstrndx == SHN_XINDEX_)
		ef->shstrndx = sh0.link;
	if (ef->phnum == PN_XNUM_)
		ef->phnum = sh0.info;
	if (ef->shnum == 0)
		r = err_set(e, "e_shoff is set but the file has no section headers");
	else if (table_ok(ef, ef->shoff, ef->shnum, es, "section header", e))
		r = -1;
	else if (ef->shstrndx >= ef->shnum)
		r = err_set(e, "e_shstrndx %zu is out of range (%zu sections)", ef->shstrndx,
			    ef->shnum);
	if (r) {
		free(raw);
		return -1;
	}
	ef->sh = xcalloc(ef->shnum, sizeof *ef->sh);
	if (!ef->sh || (!raw && read_table(ef, ef->shoff, ef->shnum, es, &raw, e))) {
		free(raw);
		return ef->sh ? -1 : err_oom(e);
	}
	for (i = 0; i < ef->shnum; i++)
		elf_decode_shdr(ef, raw + i * es, &ef->sh[i]);
	free(raw);
	for (i = 1; i < ef->shnum; i++)
		if (ef->sh[i].type != SHT_NOBITS_ &&
		    !range_ok(ef->sh[i].offset, ef->sh[i].size, ef->size))
			return err_set(e,
				       "section %zu (offset 0x%llx, size 0x%llx) runs past the end "
				       "of the file",
				       i, (unsigned long long)ef->sh[i].offset,
				       (unsigned long long)ef->sh[i].size);
	return 0;
}

static int read_segments(struct elf *ef, uint16_t phentsize, struct err *e)
{
	size_t es = elf_phent_size(ef), i, past_eof = 0;
	unsigned char *raw = NULL;

	if (ef->phnum == 0)
		return 0;
	if (phentsize != es)
		return err_set(e, "bad e_phentsize %u (expected %zu)", phentsize, es);
	if (table_ok(ef, ef->phoff, ef->phnum, es, "program header", e))
		return -1;
	ef->ph = xcalloc(ef->phnum, sizeof *ef->ph);
	if (!ef->ph || read_table(ef, ef->phoff, ef->phnum, es, &raw, e)) {
		free(raw);
		return ef->ph ? -1 : err_oom(e);
	}
	for (i = 0; i < ef->phnum; i++) {
		elf_decode_phdr(ef, raw + i * es, &ef->ph[i]);
		if (!past_eof && ef->ph[i].type != PT_NULL_ &&
		    !range_ok(ef->ph[i].offset, ef->ph[i].filesz, ef->size))
			past_eof = i + 1;
	}
	free(raw);
	if (ef->shnum && debugfile_detached(ef)) {
		ef->detached = 1;
		ef->detached_phnum = ef->phnum;
		ef->phnum = 0;
		free(ef->ph);
		ef->ph = NULL;
		return 0;
	}
	if (past_eof--)
		return err_set(e,
			       "program header %zu (offset 0x%llx, size 0x%llx) runs past the end "
			       "of the file",
			       past_eof, (unsigned long long)ef->ph[past_eof].offset,
			       (unsigned long long)ef->ph[past_eof].filesz);
	return 0;
}

/* Section names are looked up for every section: read a small name table once (the bound
 * keeps memory flat; a bigger one, such as clang's merged .strtab, is read name by name). */
static void load_names(struct elf *ef)
{
	const struct elf_shdr *st =
		ef->shstrndx && ef->shstrndx < ef->shnum ? &ef->sh[ef->shstrndx] : NULL;
	struct err ignore;

	if (!st || st->type == SHT_NOBITS_ || st->size == 0 || st->size > (1u << 20))
		return;
	ef->names = malloc(st->size);
	if (ef->names && elf_read(ef, st->offset, st->size, ef->names, &ignore)) {
		free(ef->names);
		ef->names = NULL;
	}
	if (ef->names)
		ef->namesz = st->size;
}

int elf_open(struct elf *ef, int fd, const char *path, uint64_t size, struct err *e)
{
	return elf_open_at(ef, fd, path, 0, size, e);
}

static int open_window(struct elf *ef, int fd, const unsigned char *mem, const char *path,
		       uint64_t base, uint64_t size, struct err *e);

int elf_open_at(struct elf *ef, int fd, const char *path, uint64_t base, uint64_t size,
		struct err *e)
{
	return elf_open_at_head(ef, fd, path, base, size, NULL, 0, e);
}

int elf_open_at_head(struct elf *ef, int fd, const char *path, uint64_t base, uint64_t size,
		     const unsigned char *head, uint64_t head_len, struct err *e)
{
	memset(ef, 0, sizeof *ef);
	ef->head = head;
	ef->head_len = head ? (head_len < size ? head_len : size) : 0;
	return open_window(ef, fd, NULL, path, base, size, e);
}

int elf_open_mem(struct elf *ef, const unsigned char *mem, const char *path, uint64_t size,
		 struct err *e)
{
	memset(ef, 0, sizeof *ef);
	return open_window(ef, -1, mem, path, 0, size, e);
}

/* ef zeroed but for head and head_len. */
static int open_window(struct elf *ef, int fd, const unsigned char *mem, const char *path,
		       uint64_t base, uint64_t size, struct err *e)
{
	unsigned char h[64];
	unsigned char *q;
	uint16_t phentsize, shentsize, e_shnum, e_shstrndx;
	int w;

	ef->fd = fd;
	ef->mem = mem;
	ef->path = path;
	ef->base = base;
	ef->size = size;
	if (read_ident(ef, e))
		return -1;
	if (elf_read(ef, 0, elf_ehdr_size(ef), h, e))
		return err_set(e, "truncated ELF header");
	w = ef->is64 ? 8 : 4;
	q = h + 24 + 3 * w;
	ef->type = (uint16_t)elf_get(ef, h + 16, 2);
	ef->machine = (uint16_t)elf_get(ef, h + 18, 2);
	ef->version = (uint32_t)elf_get(ef, h + 20, 4);
	ef->entry = elf_get(ef, h + 24, w);
	ef->phoff = elf_get(ef, h + 24 + w, w);
	ef->shoff = elf_get(ef, h + 24 + 2 * w, w);
	ef->flags = (uint32_t)elf_get(ef, q, 4);
	ef->ehsize = (uint16_t)elf_get(ef, q + 4, 2);
	phentsize = (uint16_t)elf_get(ef, q + 6, 2);
	ef->phnum = (uint16_t)elf_get(ef, q + 8, 2);
	shentsize = (uint16_t)elf_get(ef, q + 10, 2);
	e_shnum = (uint16_t)elf_get(ef, q + 12, 2);
	e_shstrndx = (uint16_t)elf_get(ef, q + 14, 2);
	if (ef->ehsize < elf_ehdr_size(ef))
		return err_set(e, "bad e_ehsize %u", ef->ehsize);
	if (ef->phoff == 0)
		ef->phnum = 0;
	if (read_sections(ef, e_shnum, e_shstrndx, shentsize, e) ||
	    read_segments(ef, phentsize, e)) {
		elf_close(ef);
		return -1;
	}
	load_names(ef);
	return 0;
}

void elf_close(struct elf *ef)
{
	free(ef->ph);
	free(ef->sh);
	free(ef->names);
	ef->ph = NULL;
	ef->sh = NULL;
	ef->names = NULL;
}

void elf_section_name(const struct elf *ef, size_t index, char *buf, size_t bufsz)
{
	const struct elf_shdr *st;
	uint64_t len;
	struct err ignore;
	size_t n;

	buf[0] = '\0';
	if (index >= ef->shnum || ef->shstrndx == 0 || ef->shstrndx >= ef->shnum)
		return;
	st = &ef->sh[ef->shstrndx];
	if (st->type == SHT_NOBITS_ || ef->sh[index].name >= st->size)
		return;
	len = st->size - ef->sh[index].name;
	n = len < bufsz - 1 ? (size_t)len : bufsz - 1;
	if (ef->names) {
		memcpy(buf, ef->names + ef->sh[index].name, n);
	} else if (elf_read(ef, st->offset + ef->sh[index].name, n, buf, &ignore)) {
		buf[0] = '\0';
		return;
	}
	buf[n] = '\0';
	buf[strnlen(buf, n)] = '\0';
}

int elf_section_named(const struct elf *ef, size_t index, const char *want)
{
	char name[256];
	size_t n = strlen(want);
	uint64_t at;

	if (ef->names && index < ef->shnum && ef->shstrndx && ef->shstrndx < ef->shnum &&
	    ef->namesz == ef->sh[ef->shstrndx].size) {
		at = ef->sh[index].name;
		return at < ef->namesz && ef->namesz - at > n &&
		       memcmp(ef->names + at, want, n) == 0 && ef->names[at + n] == '\0';
	}
	if (n >= sizeof name)
		return 0;
	elf_section_name(ef, index, name, sizeof name);
	return strcmp(name, want) == 0;
}

int elf_names_inside_table(const struct elf *ef, struct err *e)
{
	uint64_t size = ef->shstrndx && ef->shstrndx < ef->shnum ? ef->sh[ef->shstrndx].size : 0;

	for (size_t k = 1; k < ef->shnum; k++)
		if (ef->sh[k].name && ef->sh[k].name >= size)
			return err_set(
				e,
				"section %zu has a name outside the section-name table (offset %u, "
				"table of %llu bytes): a name added there would become its name",
				k, ef->sh[k].name, (unsigned long long)size);
	return 0;
}

int elf_range_is_zero(const struct elf *ef, uint64_t off, uint64_t len)
{
	unsigned char buf[4096];
	uint64_t pos = off, end = off + len, n, k, read_total = 0;
	off_t data, hole;
	struct err ignore;
	const unsigned char *m;

	if (!range_ok(off, len, ef->size))
		return 0;
	if ((m = in_memory(ef, off, len)) != NULL) {
		static const unsigned char zero[4096];
		for (k = 0; k < len; k += n) {
			n = len - k < sizeof zero ? len - k : sizeof zero;
			if (memcmp(m + k, zero, (size_t)n))
				return 0;
		}
		return 1;
	}
	if (len <= sizeof buf) { /* a little padding: one read, not the extents' lookups */
		if (elf_read(ef, off, len, buf, &ignore))
			return 0;
		for (k = 0; k < len; k++)
			if (buf[k])
				return 0;
		return 1;
	}
	while (pos < end) {
		/* The file's extents, seen from the window. */
		data = lseek(ef->fd, (off_t)(ef->base + pos), SEEK_DATA);
		data = data < 0 ? (errno == ENXIO ? (off_t)end
						  : (off_t)pos) /* no SEEK_DATA: read it all */
				: data - (off_t)ef->base;
		if ((uint64_t)data >= end)
			return 1;
		hole = lseek(ef->fd, (off_t)ef->base + data, SEEK_HOLE);
		hole = hole < 0 ? (off_t)end : hole - (off_t)ef->base;
		if ((uint64_t)hole > end)
			hole = (off_t)end;
		for (pos = (uint64_t)data; pos < (uint64_t)hole; pos += n) {
			n = (uint64_t)hole - pos < sizeof buf ? (uint64_t)hole - pos : sizeof buf;
			if ((read_total += n) > (1u << 20) || elf_read(ef, pos, n, buf, &ignore))
				return 0; /* too much to prove zero: treat as data */
			for (k = 0; k < n; k++)
				if (buf[k])
					return 0;
		}
	}
	return 1;
}

const struct elf_phdr *elf_load_covering(const struct elf *ef, uint64_t off, uint64_t len)
{
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		if (ph->type == PT_LOAD_ && ph->offset <= off &&
		    off + len <= ph->offset + ph->filesz)
			return ph;
	}
	return NULL;
}

int elf_is_openbsd(const struct elf *ef)
{
	size_t i;

	if (ef->ident[7] == 12) /* EI_OSABI, ELFOSABI_OPENBSD */
		return 1;
	for (i = 0; i < ef->phnum; i++)
		if ((ef->ph[i].type >= PT_OPENBSD_FIRST_ && ef->ph[i].type <= PT_OPENBSD_LAST_) ||
		    ef->ph[i].type == PT_OPENBSD_BOOTDATA_)
			return 1;
	for (i = 1; i < ef->shnum; i++)
		if (elf_section_named(ef, i, ".note.openbsd.ident"))
			return 1;
	return 0;
}

uint64_t elf_max_page(const struct elf *ef)
{
	switch (ef->machine) {
	case EM_AARCH64_:
	case EM_PPC64_:
	case EM_PPC_:
	case EM_MIPS_:
	case EM_LOONGARCH_:
	case EM_ARM_: /* 64 KiB pages exist on some ARM cores; binutils uses 64 KiB too */
		return 0x10000;
	case EM_SPARC_:
	case EM_SPARCV9_:
	case EM_SPARC32PLUS_: return 0x2000;
	case EM_S390_: /* binutils uses 4 KiB */
	default: return 0x1000;
	}
}

const char *elf_type_name(const struct elf *ef)
{
	switch (ef->type) {
	case ET_REL_: return "relocatable object";
	case ET_EXEC_: return "executable";
	case ET_DYN_: return "shared object";
	case ET_CORE_: return "core file";
	default: return "ELF file of unknown type";
	}
}

/* The end of the section of a keyed (offset, index) pair. */
static uint64_t span_end(const struct elf *ef, struct keyed k)
{
	return ef->sh[k.val].offset + ef->sh[k.val].size;
}

size_t elf_stale_property(const struct elf *ef, size_t i)
{
	const struct elf_phdr *p = &ef->ph[i];
	uint64_t pend = ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef);
	size_t k;

	if (p->type != PT_GNU_PROPERTY_ || !(p->offset < pend && ef->phoff < p->offset + p->filesz))
		return 0;
	for (k = 1; k < ef->shnum; k++) {
		const struct elf_shdr *s = &ef->sh[k];
		if (s->type == SHT_NOTE_ && s->size == p->filesz && s->offset >= pend &&
		    elf_section_named(ef, k, ".note.gnu.property"))
			return k;
	}
	return 0;
}

/* Before rewriting: the parts a rewrite relies on must not overlap, or writing one would
 * corrupt another (damaged files, not linker output). */
int elf_check_layout(const struct elf *ef, struct err *e)
{
	struct keyed *v = xcalloc(ef->shnum + 1, sizeof *v);
	size_t n = 0, i;
	uint64_t prev_vend = 0;
	int r = 0, seen = 0;

	if (!v)
		return err_oom(e);
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (s->type == SHT_NOBITS_ || s->type == SHT_NULL_ || s->size == 0)
			continue;
		if (s->offset < elf_ehdr_size(ef)) {
			r = err_set(e, "section %zu overlaps the ELF header", i);
			goto out;
		}
		v[n++] = (struct keyed){s->offset, i};
	}
	keyed_sort(v, n);
	for (i = 1; i < n; i++)
		if (v[i].key < span_end(ef, v[i - 1])) {
			r = err_set(e, "sections %zu and %zu overlap in the file", v[i - 1].val,
				    v[i].val);
			goto out;
		}
	/* The header tables are rewritten: no section may share their bytes. */
	for (i = 0; i < n; i++) {
		uint64_t pend = ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef);
		uint64_t send = ef->shoff + (uint64_t)ef->shnum * elf_shent_size(ef);
		/* A section covering exactly the table is ours (PHDR_SECTION_NAME, see
		 * layout_linked.c). */
		if (ef->phnum && v[i].key < pend && ef->phoff < span_end(ef, v[i]) &&
		    !(v[i].key == ef->phoff && span_end(ef, v[i]) == pend)) {
			r = err_set(e, "the program headers overlap section %zu", v[i].val);
			goto out;
		}
		if (ef->shnum && v[i].key < send && ef->shoff < span_end(ef, v[i])) {
			r = err_set(e, "the section headers overlap section %zu", v[i].val);
			goto out;
		}
	}
	if (ef->phnum && ef->phoff < elf_ehdr_size(ef)) {
		r = err_set(e, "the program headers overlap the ELF header");
		goto out;
	}
	if (ef->shnum && ef->shoff < elf_ehdr_size(ef)) {
		r = err_set(e, "the section headers overlap the ELF header");
		goto out;
	}
	if (ef->phnum && ef->shnum &&
	    ef->shoff < ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef) &&
	    ef->phoff < ef->shoff + (uint64_t)ef->shnum * elf_shent_size(ef)) {
		r = err_set(e, "the section headers overlap the program headers");
		goto out;
	}
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		uint64_t pend = ef->phoff + (uint64_t)ef->phnum * elf_phent_size(ef);
		if (p->type == PT_LOAD_ || p->type == PT_PHDR_ || p->type == PT_NULL_ ||
		    !p->filesz || elf_stale_property(ef, i))
			continue;
		if (p->offset < pend && ef->phoff < p->offset + p->filesz) {
			r = err_set(e, "the program headers overlap the data of program header %zu",
				    i);
			goto out;
		}
	}
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_LOAD_)
			continue;
		if (p->filesz > p->memsz || p->memsz > UINT64_MAX - p->vaddr)
			r = err_set(e, "PT_LOAD %zu: bad sizes", i);
		else if (p->align > 1 && (p->vaddr - p->offset) % p->align)
			r = err_set(e, "PT_LOAD %zu: p_offset and p_vaddr disagree modulo p_align",
				    i);
		else if (seen && p->vaddr < prev_vend)
			r = err_set(e, "PT_LOAD %zu overlaps or precedes the one before it", i);
		if (r)
			goto out;
		prev_vend = p->vaddr + p->memsz;
		seen = 1;
	}
out:
	free(v);
	return r;
}

int elf_is_gcc_lto(const struct elf *ef)
{
	static const char prefix[] = ".gnu.lto_";
	char name[sizeof prefix];

	for (size_t i = 1; i < ef->shnum; i++) {
		elf_section_name(ef, i, name, sizeof name);
		if (strncmp(name, prefix, sizeof prefix - 1) == 0)
			return 1;
	}
	return 0;
}
