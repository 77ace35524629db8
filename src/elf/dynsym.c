/* SPDX-License-Identifier: MIT */
/* dynsym.c - the dynamic symbols of a linked file looked up by name as the dynamic loader looks
 * them up: through the .gnu.hash table (else .hash), at the version node each one is defined at
 * (.gnu.version, .gnu.version_d).  Everything is found through the dynamic table and the
 * PT_LOADs (dynamic.c), so that stripped files and files without section headers are read
 * alike; no table is read whole (libLLVM has 100,000 dynamic symbols): a lookup reads its
 * bucket, its chain and the candidates' names. */
#include <stdlib.h>
#include <string.h>

#include "elf.h"

/* The bloom filter of .gnu.hash is kept in memory up to this size (a library of 100,000
 * symbols has about 32 KiB); a larger one is read a word at a time. */
#define BLOOM_IN_MEMORY (256u * 1024u)

struct dyn_tags {
	uint64_t v[9];
	unsigned have;
};
enum { T_SYMTAB, T_STRTAB, T_STRSZ, T_SYMENT, T_GNU_HASH, T_HASH, T_VERSYM, T_VERDEF, T_VERDEFNUM };

static int collect_tag(void *ctx, uint64_t tag, uint64_t val)
{
	static const uint64_t want[9] = {DT_SYMTAB_, DT_STRTAB_,   DT_STRSZ_,
					 DT_SYMENT_, DT_GNU_HASH_, DT_HASH_,
					 DT_VERSYM_, DT_VERDEF_,   DT_VERDEFNUM_};
	struct dyn_tags *t = ctx;

	for (int i = 0; i < 9; i++)
		if (tag == want[i] && !(t->have & (1u << i))) {
			t->v[i] = val;
			t->have |= 1u << i;
		}
	return 0;
}

/* The file offset of tag i's address, or -1 when absent or outside the file's PT_LOADs. */
static int tag_offset(const struct elf *ef, const struct dyn_tags *t, int i, uint64_t *off)
{
	return (t->have & (1u << i)) ? elf_vaddr_offset(ef, t->v[i], off) : -1;
}

static int read_word(const struct elf_dynsym *d, uint64_t off, int width, uint64_t *v,
		     struct err *e)
{
	unsigned char b[8];

	if (elf_read(d->ef, off, (uint64_t)width, b, e))
		return -1;
	*v = elf_get(d->ef, b, width);
	return 0;
}

/* .gnu.version_d: the name (a string offset) of each version index the file defines. */
static int read_verdefs(struct elf_dynsym *d, uint64_t off, uint64_t count, struct err *e)
{
	unsigned char vd[20], aux[8];

	if (count > VERSYM_INDEX_)
		return err_set(e, "%llu version definitions (at most %u)",
			       (unsigned long long)count, (unsigned)VERSYM_INDEX_);
	d->defs = xcalloc(count + 1, sizeof *d->defs);
	if (!d->defs)
		return err_oom(e);
	for (uint64_t i = 0; i < count; i++) {
		uint64_t next, auxoff;
		if (elf_read(d->ef, off, sizeof vd, vd, e))
			return err_prefix(e, "version definition %llu: ", (unsigned long long)i);
		d->defs[d->ndefs].ndx = (uint16_t)elf_get(d->ef, vd + 4, 2);
		if (add_ovf(off, elf_get(d->ef, vd + 12, 4), &auxoff) ||
		    elf_read(d->ef, auxoff, sizeof aux, aux, e))
			return err_set(e, "version definition %llu: its name is outside the file",
				       (unsigned long long)i);
		d->defs[d->ndefs++].name = (uint32_t)elf_get(d->ef, aux, 4);
		next = elf_get(d->ef, vd + 16, 4);
		if (next == 0)
			break;
		if (add_ovf(off, next, &off))
			return err_set(e, "version definition %llu: bad link",
				       (unsigned long long)i);
	}
	return 0;
}

static int open_gnu_hash(struct elf_dynsym *d, uint64_t off, struct err *e)
{
	unsigned char h[16];
	uint64_t bloom_bytes;
	int ww = d->ef->is64 ? 8 : 4;

	if (elf_read(d->ef, off, sizeof h, h, e))
		return err_prefix(e, ".gnu.hash: ");
	d->gnu = 1;
	d->nbucket = (uint32_t)elf_get(d->ef, h, 4);
	d->symoffset = (uint32_t)elf_get(d->ef, h + 4, 4);
	d->bloom_words = (uint32_t)elf_get(d->ef, h + 8, 4);
	d->bloom_shift = (uint32_t)elf_get(d->ef, h + 12, 4);
	bloom_bytes = (uint64_t)d->bloom_words * (uint64_t)ww;
	d->bloom_off = off + 16;
	d->buckets = d->bloom_off + bloom_bytes;
	d->chains = d->buckets + 4ull * d->nbucket;
	if (d->bloom_shift >= 32) /* a shift of the 32-bit hash that wide is undefined */
		return err_set(e, ".gnu.hash: bloom shift %u is not below 32", d->bloom_shift);
	if (d->nbucket == 0 || d->bloom_words == 0 || (d->bloom_words & (d->bloom_words - 1)) ||
	    !range_ok(d->bloom_off, bloom_bytes + 4ull * d->nbucket, d->ef->size))
		return err_set(e,
			       ".gnu.hash: a table of %u buckets and %u bloom words does not fit",
			       d->nbucket, d->bloom_words);
	if (bloom_bytes <= BLOOM_IN_MEMORY) {
		if (!(d->bloom = malloc(bloom_bytes ? bloom_bytes : 1)))
			return err_oom(e);
		if (elf_read(d->ef, d->bloom_off, bloom_bytes, d->bloom, e))
			return err_prefix(e, ".gnu.hash: ");
	}
	return 0;
}

/* 64-bit s390 and Alpha have 8-byte .hash entries; every other target 4-byte ones. */
static int open_sysv_hash(struct elf_dynsym *d, uint64_t off, struct err *e)
{
	uint64_t nbucket, nchain;

	d->hash_word =
		d->ef->is64 && (d->ef->machine == EM_S390_ || d->ef->machine == EM_ALPHA_) ? 8 : 4;
	if (read_word(d, off, d->hash_word, &nbucket, e) ||
	    read_word(d, off + (uint64_t)d->hash_word, d->hash_word, &nchain, e))
		return err_prefix(e, ".hash: ");
	d->nbucket = (uint32_t)nbucket;
	d->nchain = nchain;
	d->buckets = off + 2ull * (uint64_t)d->hash_word;
	d->chains = d->buckets + nbucket * (uint64_t)d->hash_word;
	if (nbucket == 0 || nbucket > UINT32_MAX || nchain > d->ef->size ||
	    !range_ok(d->buckets, (nbucket + nchain) * (uint64_t)d->hash_word, d->ef->size))
		return err_set(e, ".hash: a table of %llu buckets and %llu chains does not fit",
			       (unsigned long long)nbucket, (unsigned long long)nchain);
	return 0;
}

int elf_dynsym_open(const struct elf *ef, struct elf_dynsym *d, struct err *e)
{
	struct elf_dyntab dyn;
	struct dyn_tags t = {0};
	uint64_t hash, verdef;

	memset(d, 0, sizeof *d);
	d->ef = ef;
	if (!elf_dyntab_find(ef, &dyn))
		return err_set(e, "no dynamic section: not a shared library");
	if (elf_dyntab_each(ef, &dyn, collect_tag, &t, e))
		return -1;
	if (tag_offset(ef, &t, T_SYMTAB, &d->sym) || tag_offset(ef, &t, T_STRTAB, &d->str) ||
	    !(t.have & (1u << T_STRSZ)) || !range_ok(d->str, t.v[T_STRSZ], ef->size))
		return err_set(e, "no dynamic symbol table (DT_SYMTAB, DT_STRTAB, DT_STRSZ)");
	d->strsz = t.v[T_STRSZ];
	if ((t.have & (1u << T_SYMENT)) && t.v[T_SYMENT] != elf_sym_size(ef))
		return err_set(e, "DT_SYMENT is %llu, not %zu", (unsigned long long)t.v[T_SYMENT],
			       elf_sym_size(ef));
	if (tag_offset(ef, &t, T_GNU_HASH, &hash) == 0) {
		if (open_gnu_hash(d, hash, e))
			return elf_dynsym_close(d), -1;
	} else if (tag_offset(ef, &t, T_HASH, &hash) == 0) {
		if (open_sysv_hash(d, hash, e))
			return -1;
	} else {
		return err_set(e, "no symbol hash table (DT_GNU_HASH, DT_HASH)");
	}
	d->has_versym = tag_offset(ef, &t, T_VERSYM, &d->versym) == 0;
	if (d->has_versym && tag_offset(ef, &t, T_VERDEF, &verdef) == 0 &&
	    read_verdefs(d, verdef, t.v[T_VERDEFNUM], e))
		return elf_dynsym_close(d), err_prefix(e, ".gnu.version_d: ");
	return 0;
}

void elf_dynsym_close(struct elf_dynsym *d)
{
	free(d->bloom);
	free(d->defs);
	d->bloom = NULL;
	d->defs = NULL;
}

uint32_t elf_gnu_hash(const char *s, size_t n)
{
	uint32_t h = 5381;

	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)s[i];
	return h;
}

static uint32_t sysv_hash(const char *s, size_t n)
{
	uint32_t h = 0, g;

	for (size_t i = 0; i < n; i++) {
		h = (h << 4) + (unsigned char)s[i];
		g = h & 0xf0000000u;
		h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* Symbol `index`, when it is a definition named exactly (name, len) that a lookup without a
 * version finds (its version not hidden): 1, its version index in *ndx; else 0. */
static int symbol_matches(const struct elf_dynsym *d, uint64_t index, const char *name, size_t len,
			  unsigned *ndx, struct err *e)
{
	size_t ss = elf_sym_size(d->ef);
	unsigned char raw[24], s[ELF_DYNSYM_MAX_NAME + 1];
	struct elf_sym sym;
	uint64_t v = VER_NDX_GLOBAL_;
	int bind, type;

	uint64_t at, vat;

	/* index comes from a hash chain of the file: the offset, overflow-safe */
	if (mul_ovf(index, ss, &at) || add_ovf(d->sym, at, &at) || mul_ovf(index, 2, &vat) ||
	    add_ovf(d->versym, vat, &vat))
		return err_set(e, "dynamic symbol %llu: past any file", (unsigned long long)index);
	if (elf_read(d->ef, at, ss, raw, e))
		return err_prefix(e, "dynamic symbol %llu: ", (unsigned long long)index);
	elf_decode_sym(d->ef, raw, &sym);
	bind = sym.info >> 4;
	type = sym.info & 0xf;
	if (sym.shndx == SHN_UNDEF_ || type == STT_SECTION_ || type == STT_FILE_ ||
	    (bind != STB_GLOBAL_ && bind != STB_WEAK_ && bind != STB_GNU_UNIQUE_) ||
	    (sym.other & 3) == STV_HIDDEN_ || len >= sizeof s || sym.name >= d->strsz ||
	    d->strsz - sym.name < len + 1)
		return 0;
	if (elf_read(d->ef, d->str + sym.name, len + 1, s, e))
		return -1;
	if (memcmp(s, name, len) != 0 || s[len] != '\0')
		return 0;
	if (d->has_versym && read_word(d, vat, 2, &v, e))
		return err_prefix(e, ".gnu.version: ");
	if (v & VERSYM_HIDDEN_)
		return 0; /* dlsym() and the linker take the default version only */
	*ndx = (unsigned)(v & VERSYM_INDEX_);
	return 1;
}

/* The version node's name of version index ndx into version (empty: unversioned). */
static int version_name(const struct elf_dynsym *d, unsigned ndx, char *version, size_t versz,
			struct err *e)
{
	version[0] = '\0';
	if (ndx <= VER_NDX_GLOBAL_)
		return 0;
	for (size_t i = 0; i < d->ndefs; i++) {
		uint64_t n;
		if (d->defs[i].ndx != ndx)
			continue;
		if (d->defs[i].name >= d->strsz)
			return err_set(e, "version %u: its name is outside the string table", ndx);
		n = d->strsz - d->defs[i].name < versz ? d->strsz - d->defs[i].name : versz;
		if (elf_read(d->ef, d->str + d->defs[i].name, n, version, e))
			return -1;
		version[n - 1] = '\0';
		return 0;
	}
	return err_set(e, "symbol version %u is not defined (.gnu.version_d)", ndx);
}

int elf_dynsym_maybe(const struct elf_dynsym *d, uint32_t h)
{
	int ww = d->ef->is64 ? 8 : 4;
	uint64_t word, bits = (uint64_t)ww * 8, mask, at;
	struct err ignore;

	if (!d->gnu)
		return 1;
	at = (h / bits) & (d->bloom_words - 1);
	if (d->bloom)
		word = elf_get(d->ef, d->bloom + at * (uint64_t)ww, ww);
	else if (read_word(d, d->bloom_off + at * (uint64_t)ww, ww, &word, &ignore))
		return 1; /* the lookup will say what is wrong */
	mask = (1ull << (h % bits)) | (1ull << ((h >> d->bloom_shift) % bits));
	return (word & mask) == mask;
}

int elf_dynsym_find(const struct elf_dynsym *d, const char *name, size_t len, uint32_t gnu_hash,
		    char *version, size_t versz, struct err *e)
{
	uint64_t i, v, steps = 0, limit = d->ef->size / 4 + 1;
	unsigned ndx;
	int r;

	if (d->gnu) {
		if (!elf_dynsym_maybe(d, gnu_hash))
			return 0;
		if (read_word(d, d->buckets + 4ull * (gnu_hash % d->nbucket), 4, &i, e))
			return err_prefix(e, ".gnu.hash: ");
		if (i == 0 || i < d->symoffset)
			return 0;
		for (;; i++) {
			if (++steps > limit ||
			    read_word(d, d->chains + 4 * (i - d->symoffset), 4, &v, e))
				return err_set(e,
					       ".gnu.hash: a chain runs past the end of the file");
			if ((v | 1) == (gnu_hash | 1) &&
			    (r = symbol_matches(d, i, name, len, &ndx, e)) != 0)
				return r < 0                                     ? -1
				       : version_name(d, ndx, version, versz, e) ? -1
										 : 1;
			if (v & 1)
				return 0;
		}
	}
	if (read_word(d, d->buckets + (uint64_t)d->hash_word * (sysv_hash(name, len) % d->nbucket),
		      d->hash_word, &i, e))
		return err_prefix(e, ".hash: ");
	for (; i != 0; steps++) {
		if (i >= d->nchain || steps > d->nchain)
			return err_set(e, ".hash: a chain leaves the table or loops");
		if ((r = symbol_matches(d, i, name, len, &ndx, e)) != 0)
			return r < 0 ? -1 : version_name(d, ndx, version, versz, e) ? -1 : 1;
		if (read_word(d, d->chains + (uint64_t)d->hash_word * i, d->hash_word, &i, e))
			return err_prefix(e, ".hash: ");
	}
	return 0;
}
