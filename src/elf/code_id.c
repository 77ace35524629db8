/* SPDX-License-Identifier: MIT */
/* code_id.c - the code identity of a linked file (see elf.h): what stays the same from the
 * build tree to the package.
 *
 * Between the file a test suite ran and the file a package ships, the distribution rewrites
 * it: rpm's find-debuginfo (debugedit rewrites the DWARF paths and then the GNU build-id, made
 * unique per release with --build-id-seed; objcopy --merge-notes; eu-strip -f), Debian's dh_dwz
 * and dh_strip (dwz, objcopy --only-keep-debug, strip, objcopy --add-gnu-debuglink), and this
 * tool (the note, the program header table, and the dynamic linker's tables it may carry into
 * its segment).  None of them changes the code or data a program runs: they change the
 * non-allocated sections, the notes, the headers and the dynamic linker's own tables.  So the
 * identity is a SHA-256 over every allocated section with file bytes (code, read-only data,
 * relocations, initialised data), each with its address and size, in address order, less:
 *  - notes (the build-id, ours, the ABI tag, properties) and NOBITS;
 *  - the dynamic linker's tables, which this tool carries and patchelf moves: .interp (inside
 *    PT_INTERP), .dynamic, .hash, .gnu.hash, .dynsym, allocated string tables (.dynstr), the
 *    version tables, MIPS ABI flags and register information;
 *  - anything over the ELF header or the program header table (the tool's .dlnote.phdrs).
 * The class, byte order, machine, type and entry point go in first.  Two files with the same
 * identity run the same instructions on the same data; any changed byte of code or data, or a
 * section at another address, gives another identity. */
#include <stdlib.h>

#include "elf.h"

static int inside(uint64_t off, uint64_t size, uint64_t start, uint64_t len)
{
	return off < start + len && start < off + size;
}

/* Whether section i is part of the identity. */
static int counted(const struct elf *ef, size_t i)
{
	const struct elf_shdr *s = &ef->sh[i];
	uint64_t pht = (uint64_t)ef->phnum * elf_phent_size(ef);

	if (!(s->flags & SHF_ALLOC_) || s->size == 0)
		return 0;
	switch (s->type) {
	case SHT_NOBITS_:
	case SHT_NOTE_:
	case SHT_DYNAMIC_:
	case SHT_HASH_:
	case SHT_GNU_HASH_:
	case SHT_DYNSYM_:
	case SHT_STRTAB_:
	case SHT_GNU_VERDEF_:
	case SHT_GNU_VERNEED_:
	case SHT_GNU_VERSYM_:
	case SHT_MIPS_REGINFO_:
	case SHT_MIPS_ABIFLAGS_: return 0;
	}
	if (inside(s->offset, s->size, 0, ef->ehsize) ||
	    (pht && inside(s->offset, s->size, ef->phoff, pht)) ||
	    elf_section_named(ef, i, ".interp"))
		return 0;
	for (size_t k = 0; k < ef->phnum; k++)
		if (ef->ph[k].type == PT_INTERP_ &&
		    inside(s->offset, s->size, ef->ph[k].offset, ef->ph[k].filesz))
			return 0;
	return 1;
}

static int by_address(const void *x, const void *y, void *arg)
{
	const struct elf *ef = arg;
	const struct elf_shdr *a = &ef->sh[*(const size_t *)x], *b = &ef->sh[*(const size_t *)y];

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return a->offset < b->offset ? -1 : a->offset > b->offset;
}

/* The counted sections' indexes in address order (*out allocated), or -1. */
static long counted_sections(const struct elf *ef, size_t **out)
{
	size_t *v = xcalloc(ef->shnum ? ef->shnum : 1, sizeof *v), n = 0;

	*out = v;
	if (!v)
		return -1;
	for (size_t i = 1; i < ef->shnum; i++)
		if (counted(ef, i))
			v[n++] = i;
	qsort_r(v, n, sizeof *v, by_address, (void *)ef);
	return (long)n;
}

int elf_code_id_size(const struct elf *ef, struct elf_code_id *id, struct err *e)
{
	size_t *v;
	long n;

	memset(id, 0, sizeof *id);
	if ((ef->type != ET_EXEC_ && ef->type != ET_DYN_) || !ef->shnum || ef->detached)
		return 0;
	if ((n = counted_sections(ef, &v)) < 0)
		return err_oom(e);
	for (long k = 0; k < n; k++)
		id->bytes += ef->sh[v[k]].size;
	id->sections = (size_t)n;
	id->have = n > 0;
	free(v);
	return 0;
}

static void put_u64(struct sha256 *h, uint64_t v)
{
	unsigned char b[8];

	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	sha256_update(h, b, sizeof b);
}

int elf_code_id_hash(const struct elf *ef, struct elf_code_id *id, struct err *e)
{
	static const char tag[] = "dlnote-code-id-1";
	unsigned char chunk[65536];
	struct sha256 h;
	size_t *v;
	long n;
	int r = 0;

	if (elf_code_id_size(ef, id, e) || !id->have)
		return id->have ? -1 : 0;
	if ((n = counted_sections(ef, &v)) < 0)
		return err_oom(e);
	sha256_init(&h);
	sha256_update(&h, tag, sizeof tag);
	sha256_update(&h, ef->ident + 4, 2); /* class, byte order */
	put_u64(&h, ef->machine);
	put_u64(&h, ef->type);
	put_u64(&h, ef->entry);
	for (long k = 0; k < n && r == 0; k++) {
		const struct elf_shdr *s = &ef->sh[v[k]];
		put_u64(&h, s->addr);
		put_u64(&h, s->size);
		for (uint64_t at = 0; at < s->size && r == 0; at += sizeof chunk) {
			uint64_t len = s->size - at < sizeof chunk ? s->size - at : sizeof chunk;
			r = elf_read(ef, s->offset + at, len, chunk, e);
			if (r == 0)
				sha256_update(&h, chunk, (size_t)len);
		}
	}
	free(v);
	if (r)
		return err_prefix(e, "code identity: ");
	sha256_final(&h, id->digest);
	return 0;
}
