/* objedit.c - remove sections from a relocatable object, add COMDAT groups, renumber.
 *
 * Section indexes are renumbered in order (the gABI wants a group before its members, and
 * linkers place input sections in index order).  Symbol indexes are changed as little as
 * possible, because every relocation that names a moved symbol must be rewritten: a removed
 * symbol's slot is filled by the last symbol of its binding class, and added local symbols take
 * the slots of the first globals, which move to the end.  Only the symbol table itself is
 * built in memory (its size), never a relocation section or the file. */
#include <stdlib.h>
#include <string.h>

#include "objedit.h"

enum {
	SHT_HASH_ = 5, SHT_DYNAMIC_ = 6, SHT_GROUP_ = 17, SHT_GNU_HASH_ = 0x6ffffff6, SHT_GNU_VERDEF_ = 0x6ffffffd,
	SHT_GNU_VERNEED_ = 0x6ffffffe, SHT_GNU_VERSYM_ = 0x6fffffff,
	SHT_LLVM_ADDRSIG_ = 0x6fff4c03, SHT_LLVM_CALL_GRAPH_PROFILE_ = 0x6fff4c09,
	SHF_LINK_ORDER_ = 0x80, SHN_ABS_ = 0xfff1, SHF_GROUP_ = 0x200, SHF_GNU_RETAIN_ = 0x200000, GRP_COMDAT_ = 1, EM_MIPS_ = 8,
};

struct move {
	uint64_t from, to;
};

struct osec {
	size_t in;                 /* input index; 0 for a new section */
	struct elf_shdr sh;
	unsigned char *data;       /* new content (owned), or NULL: the input's bytes are copied */
	const struct buf *tail;    /* bytes appended after the copied content */
};

struct oe {
	struct objedit *o;
	const struct elf *ef;
	struct err *e;
	size_t n;
	size_t *grp, *map;
	size_t symtab, xtab;
	int new_symtab;            /* the object had none: .symtab and .strtab are added last */
	uint64_t nsym, nlocal, nsym_out, nlocal_out;
	uint64_t *del;
	size_t ndel;
	struct move *mv;
	size_t nmv;
	struct buf strtab_add, shstr_add;
	uint32_t *sig_name, name_group, name_note, name_symtab, name_strtab;
	struct osec *os;
	size_t nout;
	uint64_t shoff;
};

/* ---- groups ---- */

int objedit_group_words(const struct elf *ef, size_t g, uint32_t **out, size_t *n, struct err *e)
{
	const struct elf_shdr *s = &ef->sh[g];
	unsigned char *raw;
	size_t i;

	*out = NULL;
	if (s->size % 4 || s->size < 4 || s->size / 4 > ef->shnum + 1)
		return err_set(e, EXIT_BAD_INPUT, "section group [%zu] has a malformed size (%llu bytes)", g, (unsigned long long)s->size);
	*n = (size_t)(s->size / 4);
	raw = malloc((size_t)s->size);
	*out = xcalloc(*n, sizeof **out);
	if (!raw || !*out) {
		free(raw);
		return err_set(e, EXIT_BAD_INPUT, "out of memory");
	}
	if (elf_read(ef, s->offset, s->size, raw, e)) {
		free(raw);
		return -1;
	}
	for (i = 0; i < *n; i++)
		(*out)[i] = (uint32_t)elf_get(ef, raw + 4 * i, 4);
	free(raw);
	return 0;
}

int objedit_groups(const struct elf *ef, size_t **out, struct err *e)
{
	size_t g, i, n, *grp = xcalloc(ef->shnum ? ef->shnum : 1, sizeof *grp);
	uint32_t *w;

	*out = grp;
	if (!grp)
		return err_set(e, EXIT_BAD_INPUT, "out of memory");
	for (g = 1; g < ef->shnum; g++) {
		if (ef->sh[g].type != SHT_GROUP_)
			continue;
		if (objedit_group_words(ef, g, &w, &n, e))
			return -1;
		for (i = 1; i < n; i++) {
			if (w[i] == 0 || w[i] >= ef->shnum || w[i] == g || grp[w[i]]) {
				free(w);
				return err_set(e, EXIT_BAD_INPUT, "section group [%zu] lists section %u, which is invalid or in another group", g, w[i]);
			}
			grp[w[i]] = g;
		}
		free(w);
	}
	return 0;
}

/* ---- what goes ---- */

static int is_rel(const struct elf_shdr *s)
{
	return s->type == SHT_REL_ || s->type == SHT_RELA_;
}

/* Relocation sections of removed sections go; a group whose members all go goes; a group that
 * would lose only some of its members is refused: its content would no longer be what its
 * signature promises to the linker. */
static int close_sections(struct oe *X)
{
	const struct elf *ef = X->ef;
	unsigned char *drop = X->o->drop;
	size_t i, k, n, gone;
	uint32_t *w;
	int again = 1;

	while (again) {
		again = 0;
		for (i = 1; i < X->n; i++) {
			const struct elf_shdr *s = &ef->sh[i];
			if (!drop[i] && (is_rel(s) || (s->flags & SHF_INFO_LINK_)) && s->info && s->info < X->n && drop[s->info])
				drop[i] = 1, again = 1;
		}
		for (i = 1; i < X->n; i++) {
			if (drop[i] || ef->sh[i].type != SHT_GROUP_)
				continue;
			if (objedit_group_words(ef, i, &w, &n, X->e))
				return -1;
			for (k = 1, gone = 0; k < n; k++)
				gone += drop[w[k]];
			free(w);
			if (gone && gone < n - 1) {
				char name[64];
				elf_section_name(ef, i, name, sizeof name);
				return err_set(X->e, EXIT_BAD_INPUT,
					       "section group [%zu] %s holds a dlopen note and other sections: removing the note would change what the group's signature stands for",
					       i, name);
			}
			if (gone)
				drop[i] = 1, again = 1;
		}
	}
	return 0;
}

static int links_by_index(const struct elf_shdr *s)
{
	switch (s->type) {
	case SHT_REL_: case SHT_RELA_: case SHT_SYMTAB_: case SHT_DYNSYM_: case SHT_HASH_: case SHT_DYNAMIC_:
	case SHT_GROUP_: case SHT_SYMTAB_SHNDX_: case SHT_GNU_HASH_: case SHT_GNU_VERDEF_: case SHT_GNU_VERNEED_:
	case SHT_GNU_VERSYM_: case SHT_LLVM_ADDRSIG_: case SHT_LLVM_CALL_GRAPH_PROFILE_:
		return 1;
	}
	return (s->flags & SHF_LINK_ORDER_) != 0;
}

/* ---- symbols ---- */

static int find_symtab(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t i;

	for (i = 1; i < X->n; i++) {
		if (ef->sh[i].type != SHT_SYMTAB_)
			continue;
		if (X->symtab)
			return err_set(X->e, EXIT_BAD_INPUT, "more than one symbol table");
		X->symtab = i;
	}
	for (i = 1; X->symtab && i < X->n; i++)
		if (ef->sh[i].type == SHT_SYMTAB_SHNDX_ && ef->sh[i].link == X->symtab)
			X->xtab = i;
	if (!X->symtab) {
		/* Only the null symbol; the signature symbols come after it. */
		X->new_symtab = X->o->nadd != 0;
		X->nsym = X->nlocal = X->new_symtab;
		return 0;
	}
	{
		const struct elf_shdr *st = &ef->sh[X->symtab];
		if (st->entsize != elf_sym_size(ef) || st->size % st->entsize || st->link == 0 || st->link >= X->n ||
		    ef->sh[st->link].type != SHT_STRTAB_)
			return err_set(X->e, EXIT_BAD_INPUT, "malformed symbol table [%zu]", X->symtab);
		X->nsym = st->size / st->entsize;
		X->nlocal = st->info;
		if (X->nlocal > X->nsym || X->nsym == 0)
			return err_set(X->e, EXIT_BAD_INPUT, "malformed symbol table [%zu]: %llu locals of %llu symbols", X->symtab,
				       (unsigned long long)X->nlocal, (unsigned long long)X->nsym);
		if (X->xtab && ef->sh[X->xtab].size < X->nsym * 4)
			return err_set(X->e, EXIT_BAD_INPUT, "extended section index table [%zu] is too short", X->xtab);
	}
	return 0;
}

/* Symbols [first, first+n) of the input, with their real section index in x[]. */
static int read_syms(struct oe *X, uint64_t first, size_t n, struct elf_sym *s, uint32_t *x)
{
	const struct elf *ef = X->ef;
	size_t es = elf_sym_size(ef), k;
	unsigned char raw[256 * 24], xr[256 * 4];

	if (elf_read(ef, ef->sh[X->symtab].offset + first * es, n * es, raw, X->e))
		return -1;
	if (X->xtab && elf_read(ef, ef->sh[X->xtab].offset + first * 4, n * 4, xr, X->e))
		return -1;
	for (k = 0; k < n; k++) {
		elf_decode_sym(ef, raw + k * es, &s[k]);
		x[k] = s[k].shndx == SHN_XINDEX_ && X->xtab ? (uint32_t)elf_get(ef, xr + 4 * k, 4) : s[k].shndx;
	}
	return 0;
}

static int is_section_index(const struct elf_sym *s, uint32_t x, size_t n)
{
	return (s->shndx < SHN_LORESERVE_ || s->shndx == SHN_XINDEX_) && x != 0 && x < n;
}

static int u64_find(const uint64_t *v, size_t n, uint64_t k)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (v[mid] == k)
			return 1;
		if (v[mid] < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Removed: symbols defined in removed sections, and local signature symbols of removed groups
 * that no kept group uses (gas makes them local, defined in the group or absolute). */
static int find_removed_symbols(struct oe *X)
{
	const struct elf *ef = X->ef;
	uint64_t *sig_gone = xcalloc(X->n, sizeof *sig_gone), *sig_kept = xcalloc(X->n, sizeof *sig_kept), k;
	size_t ngone = 0, nkept = 0, cap = 0, i;
	struct elf_sym s[256];
	uint32_t x[256];
	int r = -1;

	X->ndel = 0;
	if (!sig_gone || !sig_kept)
		goto oom;
	for (i = 1; i < X->n; i++)
		if (ef->sh[i].type == SHT_GROUP_ && ef->sh[i].link == X->symtab)
			*(X->o->drop[i] ? &sig_gone[ngone++] : &sig_kept[nkept++]) = ef->sh[i].info;
	for (k = 0; X->symtab && k < X->nsym; k += 256) {
		size_t n = X->nsym - k < 256 ? (size_t)(X->nsym - k) : 256, j;
		if (read_syms(X, k, n, s, x))
			goto out;
		for (j = 0; j < n; j++) {
			int gone = is_section_index(&s[j], x[j], X->n) && X->o->drop[x[j]];
			if (!gone && k + j < X->nlocal && k + j) {
				for (i = 0; i < ngone && sig_gone[i] != k + j; i++)
					;
				gone = i < ngone;
				for (i = 0; gone && i < nkept; i++)
					gone = sig_kept[i] != k + j;
			}
			if (!gone)
				continue;
			if (k + j == 0) {
				r = err_set(X->e, EXIT_BAD_INPUT, "symbol 0 is defined in a removed section");
				goto out;
			}
			if (X->ndel == cap) {
				uint64_t *v = xrealloc(X->del, cap = cap ? cap * 2 : 16, sizeof *v);
				if (!v)
					goto oom;
				X->del = v;
			}
			X->del[X->ndel++] = k + j;
		}
	}
	r = 0;
	goto out;
oom:
	r = err_set(X->e, EXIT_BAD_INPUT, "out of memory");
out:
	free(sig_gone);
	free(sig_kept);
	return r;
}

static int add_move(struct oe *X, size_t *cap, uint64_t from, uint64_t to)
{
	if (X->nmv == *cap) {
		struct move *v = xrealloc(X->mv, *cap = *cap ? *cap * 2 : 16, sizeof *v);
		if (!v)
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		X->mv = v;
	}
	X->mv[X->nmv++] = (struct move){ from, to };
	return 0;
}

/* Fill holes with the symbols that must leave their slots, both lists ascending.  Holes and
 * movers are counted the same way, so they pair up exactly. */
static int permute(struct oe *X)
{
	uint64_t n = X->nsym, L = X->nlocal, dl = 0, k = X->o->nadd, p, q, Ls, Lo, no;
	size_t cap = 0, i, h;
	uint64_t *holes = NULL;
	size_t nh = 0, ch = 0;
	int r = -1;

	X->nmv = 0;
	for (i = 0; i < X->ndel && X->del[i] < L; i++)
		dl++;
	Ls = L - dl;
	Lo = Ls + k;
	no = n - X->ndel + k;
	X->nsym_out = no;
	X->nlocal_out = Lo;
#define HOLE(v) do { if (nh == ch) { uint64_t *t_ = xrealloc(holes, ch = ch ? ch * 2 : 16, sizeof *t_); if (!t_) goto oom; holes = t_; } holes[nh++] = (v); } while (0)
	/* locals: removed slots below Ls take the surviving locals from [Ls, L) */
	for (i = 0; i < X->ndel && X->del[i] < Ls; i++)
		HOLE(X->del[i]);
	for (q = Ls, h = 0; q < L; q++)
		if (!u64_find(X->del, X->ndel, q) && add_move(X, &cap, q, holes[h++]))
			goto out;
	/* globals: [Lo, no) */
	nh = 0;
	for (p = Lo; p < (L < no ? L : no); p++)
		HOLE(p);
	for (i = 0; i < X->ndel; i++)
		if (X->del[i] >= L && X->del[i] >= Lo && X->del[i] < no)
			HOLE(X->del[i]);
	for (p = n > Lo ? n : Lo; p < no; p++)
		HOLE(p);
	h = 0;
	for (q = L; q < (Lo < n ? Lo : n); q++)
		if (!u64_find(X->del, X->ndel, q) && add_move(X, &cap, q, holes[h++]))
			goto out;
	for (q = no > L ? no : L; q < n; q++)
		if (!u64_find(X->del, X->ndel, q) && add_move(X, &cap, q, holes[h++]))
			goto out;
#undef HOLE
	r = h == nh ? 0 : err_set(X->e, EXIT_BAD_INPUT, "internal error: symbol renumbering does not add up");
	goto out;
oom:
	r = err_set(X->e, EXIT_BAD_INPUT, "out of memory");
out:
	free(holes);
	return r;
}

/* New index of an input symbol; -1 when it is removed. */
static int64_t sym_new(const struct oe *X, uint64_t k)
{
	size_t lo = 0, hi = X->nmv;

	if (u64_find(X->del, X->ndel, k))
		return -1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (X->mv[mid].from == k)
			return (int64_t)X->mv[mid].to;
		if (X->mv[mid].from < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)k;
}

/* ---- names ---- */

/* Offset of `want` as a whole string in string table t, else appended to `add`. */
static int find_or_add(struct oe *X, size_t t, const char *want, size_t len, struct buf *add, uint32_t *off)
{
	const struct elf_shdr *st = &X->ef->sh[t];
	size_t wlen = len + 1, csz = wlen * 2 > 65536 ? wlen * 2 : 65536;
	unsigned char *chunk = malloc(csz);
	uint64_t base = 0, n, k;
	struct err ignore;

	if (!chunk)
		return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
	while (base < st->size) {
		n = st->size - base < csz ? st->size - base : csz;
		if (elf_read(X->ef, st->offset + base, n, chunk, &ignore))
			break;
		for (k = 0; k + wlen <= n; k++)
			if ((base + k == 0 || (k > 0 && chunk[k - 1] == 0)) && memcmp(chunk + k, want, len) == 0 && chunk[k + len] == 0) {
				*off = (uint32_t)(base + k);
				free(chunk);
				return 0;
			}
		if (base + n >= st->size)
			break;
		base += n - wlen;
	}
	free(chunk);
	if (st->size + add->len + wlen + 1 > UINT32_MAX)
		return err_set(X->e, EXIT_BAD_INPUT, "string table [%zu] too large", t);
	if (st->size + add->len == 0)
		buf_putc(add, '\0');
	*off = (uint32_t)(st->size + add->len);
	buf_put(add, want, len);
	buf_putc(add, '\0');
	return add->oom ? err_set(X->e, EXIT_BAD_INPUT, "out of memory") : 0;
}

static int names(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t j;

	if (!X->o->nadd)
		return 0;
	if (!ef->shstrndx || ef->sh[ef->shstrndx].type != SHT_STRTAB_)
		return err_set(X->e, EXIT_BAD_INPUT, "no section name table (e_shstrndx): cannot name a new section");
	if (find_or_add(X, ef->shstrndx, ".group", 6, &X->shstr_add, &X->name_group) ||
	    find_or_add(X, ef->shstrndx, SECTION_NAME, strlen(SECTION_NAME), &X->shstr_add, &X->name_note))
		return -1;
	X->sig_name = xcalloc(X->o->nadd, sizeof *X->sig_name);
	if (!X->sig_name)
		return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
	if (X->new_symtab) {
		buf_putc(&X->strtab_add, '\0');
		for (j = 0; j < X->o->nadd; j++) {
			X->sig_name[j] = (uint32_t)X->strtab_add.len;
			buf_put(&X->strtab_add, X->o->add[j].sig.p, X->o->add[j].sig.len);
			buf_putc(&X->strtab_add, '\0');
		}
		if (X->strtab_add.len > UINT32_MAX)
			return err_set(X->e, EXIT_BAD_INPUT, "string table too large");
		return find_or_add(X, ef->shstrndx, ".symtab", 7, &X->shstr_add, &X->name_symtab) ||
		       find_or_add(X, ef->shstrndx, ".strtab", 7, &X->shstr_add, &X->name_strtab);
	}
	/* clang uses one table for section and symbol names */
	for (j = 0; j < X->o->nadd; j++)
		if (find_or_add(X, ef->sh[X->symtab].link, X->o->add[j].sig.p, X->o->add[j].sig.len,
				ef->sh[X->symtab].link == ef->shstrndx ? &X->shstr_add : &X->strtab_add, &X->sig_name[j]))
			return -1;
	return 0;
}

/* ---- the new section table ---- */

static size_t sec_new(const struct oe *X, size_t i)
{
	return i < X->n ? X->map[i] : 0;
}

/* Output index of the symbol table. */
static size_t symtab_out(const struct oe *X)
{
	return X->new_symtab ? X->nout - 2 : X->map[X->symtab];
}

static int build_sections(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t i, k = 1, j;

	X->map = xcalloc(X->n, sizeof *X->map);
	X->nout = 1;
	for (i = 1; i < X->n; i++)
		X->nout += !X->o->drop[i];
	X->nout += 2 * X->o->nadd + 2 * (size_t)X->new_symtab;
	X->os = xcalloc(X->nout, sizeof *X->os);
	if (!X->map || !X->os)
		return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
	for (i = 1; i < X->n; i++)
		if (!X->o->drop[i])
			X->map[i] = k++;
	X->os[0].sh = ef->sh[0];
	for (i = 1; i < X->n; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		struct osec *o;
		if (X->o->drop[i])
			continue;
		o = &X->os[X->map[i]];
		o->in = i;
		o->sh = *s;
		if (links_by_index(s) && s->link) {
			if (s->link >= X->n || X->o->drop[s->link])
				return err_set(X->e, EXIT_BAD_INPUT, "section [%zu] is linked to section [%u], which would be removed", i, s->link);
			o->sh.link = (uint32_t)X->map[s->link];
		}
		if ((is_rel(s) || (s->flags & SHF_INFO_LINK_)) && s->info && s->info < X->n)
			o->sh.info = (uint32_t)X->map[s->info];
		if (i == X->symtab)
			o->sh.info = (uint32_t)X->nlocal_out;
		if (s->type == SHT_GROUP_ && s->link == X->symtab) {
			int64_t ns = sym_new(X, s->info);
			if (ns < 0)
				return err_set(X->e, EXIT_BAD_INPUT, "section group [%zu] keeps its signature symbol %u, which would be removed", i, s->info);
			o->sh.info = (uint32_t)ns;
		}
	}
	for (j = 0; j < X->o->nadd; j++) {
		struct elf_shdr *g = &X->os[k].sh, *m = &X->os[k + 1].sh;
		unsigned char *d = malloc(8);
		if (!d)
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		elf_put(ef, d, 4, GRP_COMDAT_);
		elf_put(ef, d + 4, 4, k + 1);
		X->os[k].data = d;
		*g = (struct elf_shdr){ .name = X->name_group, .type = SHT_GROUP_, .link = (uint32_t)symtab_out(X),
					.info = (uint32_t)(X->nlocal_out - X->o->nadd + j), .size = 8, .addralign = 4, .entsize = 4 };
		*m = (struct elf_shdr){ .name = X->name_note, .type = SHT_NOTE_, .flags = SHF_ALLOC_ | SHF_GROUP_ | SHF_GNU_RETAIN_,
					.size = X->o->add[j].note.len, .addralign = 4 };
		X->os[k + 1].data = malloc(X->o->add[j].note.len);
		if (!X->os[k + 1].data)
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		memcpy(X->os[k + 1].data, X->o->add[j].note.p, X->o->add[j].note.len);
		k += 2;
	}
	if (X->new_symtab) {
		X->os[k].sh = (struct elf_shdr){ .name = X->name_symtab, .type = SHT_SYMTAB_, .link = (uint32_t)(k + 1),
						 .info = (uint32_t)X->nlocal_out, .addralign = ef->is64 ? 8 : 4, .entsize = elf_sym_size(ef) };
		X->os[k + 1].sh = (struct elf_shdr){ .name = X->name_strtab, .type = SHT_STRTAB_, .size = X->strtab_add.len, .addralign = 1 };
		X->os[k + 1].data = malloc(X->strtab_add.len);
		if (!X->os[k + 1].data)
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		memcpy(X->os[k + 1].data, X->strtab_add.p, X->strtab_add.len);
	}
	return 0;
}

/* Kept groups list their members by their new indexes. */
static int rewrite_groups(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t i, k, n;
	uint32_t *w;

	for (i = 1; i < X->nout; i++) {
		struct osec *o = &X->os[i];
		if (!o->in || ef->sh[o->in].type != SHT_GROUP_)
			continue;
		if (objedit_group_words(ef, o->in, &w, &n, X->e))
			return -1;
		o->data = malloc(n * 4);
		if (!o->data) {
			free(w);
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		}
		elf_put(ef, o->data, 4, w[0]);
		for (k = 1; k < n; k++)
			elf_put(ef, o->data + 4 * k, 4, X->map[w[k]]);
		free(w);
	}
	return 0;
}

/* A symbol's section index in the output: st_shndx and, when it needs one, the extended index. */
static int put_shndx(struct oe *X, struct elf_sym *s, uint32_t *x, uint64_t sec)
{
	if (sec < SHN_LORESERVE_) {
		s->shndx = (uint16_t)sec;
		*x = 0;
		return 0;
	}
	if (!X->xtab)
		return err_set(X->e, EXIT_BAD_INPUT, "a symbol would need an extended section index, and the object has no SHT_SYMTAB_SHNDX table");
	s->shndx = SHN_XINDEX_;
	*x = (uint32_t)sec;
	return 0;
}

static int rewrite_symbols(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t es = elf_sym_size(ef), j;
	struct osec *st, *xt = NULL;
	struct elf_sym s[256];
	uint32_t x[256];
	uint64_t k;

	if (!X->symtab && !X->new_symtab)
		return 0;
	st = &X->os[symtab_out(X)];
	st->sh.size = X->nsym_out * es;
	st->data = xcalloc((size_t)X->nsym_out, es);
	if (X->xtab) {
		xt = &X->os[X->map[X->xtab]];
		xt->sh.size = X->nsym_out * 4;
		xt->data = xcalloc((size_t)X->nsym_out, 4);
	}
	if (!st->data || (xt && !xt->data))
		return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
	for (k = 0; X->symtab && k < X->nsym; k += 256) {
		size_t n = X->nsym - k < 256 ? (size_t)(X->nsym - k) : 256;
		if (read_syms(X, k, n, s, x))
			return -1;
		for (j = 0; j < n; j++) {
			int64_t to = sym_new(X, k + j);
			uint32_t xo = 0;
			if (to < 0)
				continue;
			if (is_section_index(&s[j], x[j], X->n) && put_shndx(X, &s[j], &xo, X->map[x[j]]))
				return -1;
			elf_encode_sym(ef, &s[j], st->data + (uint64_t)to * es);
			if (xt)
				elf_put(ef, xt->data + (uint64_t)to * 4, 4, xo);
		}
	}
	for (j = 0; j < X->o->nadd; j++) {
		uint64_t to = X->nlocal_out - X->o->nadd + j;
		struct elf_sym ns = { .name = X->sig_name[j] };
		uint32_t xo = 0;
		uint64_t g = X->nout - 2 * X->o->nadd - 2 * (size_t)X->new_symtab + 2 * j;
		/* Defined in its group, so that a discarded copy leaves no symbol behind; absolute
		 * (like sd-dlopen.h's) when the index needs a table the object lacks. */
		if (g >= SHN_LORESERVE_ && !X->xtab)
			ns.shndx = SHN_ABS_;
		else if (put_shndx(X, &ns, &xo, g))
			return -1;
		elf_encode_sym(ef, &ns, st->data + to * es);
		if (xt)
			elf_put(ef, xt->data + to * 4, 4, xo);
	}
	return 0;
}

/* LLVM's address-significance table: symbol indexes as ULEB128 numbers.  Removed symbols leave
 * it (they are gone from the output), moved ones are renumbered. */
static int rewrite_addrsig(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t i;

	for (i = 1; i < X->nout; i++) {
		struct osec *o = &X->os[i];
		const struct elf_shdr *s = o->in ? &ef->sh[o->in] : NULL;
		unsigned char *in, *out;
		uint64_t k = 0, len = 0;
		if (!s || s->type != SHT_LLVM_ADDRSIG_ || !X->symtab || s->link != X->symtab)
			continue;
		if (s->size > SCAN_MAX_AREA)
			return err_set(X->e, EXIT_BAD_INPUT, "address-significance table [%zu] too large", o->in);
		in = malloc(s->size + 1);
		out = malloc(s->size * 10 + 10);    /* an index takes at most 10 bytes */
		if (!in || !out) {
			free(in);
			free(out);
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		}
		if (elf_read(ef, s->offset, s->size, in, X->e)) {
			free(in);
			free(out);
			return -1;
		}
		while (k < s->size) {
			uint64_t v = 0;
			int64_t to;
			unsigned shift = 0;
			do {
				if (k >= s->size || shift > 63) {
					free(in);
					free(out);
					return err_set(X->e, EXIT_BAD_INPUT, "malformed address-significance table [%zu]", o->in);
				}
				v |= (uint64_t)(in[k] & 0x7f) << shift;
				shift += 7;
			} while (in[k++] & 0x80);
			to = v < X->nsym ? sym_new(X, v) : (int64_t)v;
			if (to < 0)
				continue;
			for (v = (uint64_t)to;; v >>= 7) {
				out[len++] = (unsigned char)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
				if (v < 0x80)
					break;
			}
		}
		free(in);
		o->data = out;
		o->sh.size = len;
	}
	return 0;
}

/* ---- layout and patches ---- */

static int patch(struct oe *X, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	struct plan *pl = X->o->pl;
	struct patch *p = pl->n ? &pl->p[pl->n - 1] : NULL;

	/* A copy that continues the previous one at the same distance is one copy. */
	if (!data && p && !p->data && p->src != PATCH_ZERO && src != PATCH_ZERO && off - src == p->off - p->src &&
	    off >= p->off + p->len && off - (p->off + p->len) < 4096 &&
	    elf_range_is_zero(X->ef, p->src + p->len, off - (p->off + p->len))) {
		p->len = off + len - p->off;
		return 0;
	}
	if (len == 0)
		return 0;
	if (pl->n == pl->cap) {
		size_t cap = pl->cap ? pl->cap * 2 : 16;
		p = xrealloc(pl->p, cap, sizeof *p);
		if (!p)
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		pl->p = p;
		pl->cap = cap;
	}
	p = &pl->p[pl->n];
	memset(p, 0, sizeof *p);
	p->off = off, p->len = len, p->src = src;
	if (data) {
		p->data = malloc(len);
		if (!p->data)
			return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
		memcpy(p->data, data, len);
	}
	pl->n++;
	return 0;
}

static int off_cmp(const void *a, const void *b, void *ctx)
{
	const struct oe *X = ctx;
	const struct osec *x = &X->os[*(const size_t *)a], *y = &X->os[*(const size_t *)b];
	uint64_t xo = x->in ? X->ef->sh[x->in].offset : UINT64_MAX, yo = y->in ? X->ef->sh[y->in].offset : UINT64_MAX;

	if (xo != yo)
		return xo < yo ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* Kept sections in their input order, then the new ones; then the section headers. */
static int lay_out(struct oe *X, size_t **order)
{
	const struct elf *ef = X->ef;
	uint64_t pos = elf_ehdr_size(ef);
	size_t i, *ord = xcalloc(X->nout, sizeof *ord);

	*order = ord;
	if (!ord)
		return err_set(X->e, EXIT_BAD_INPUT, "out of memory");
	if (ef->phnum)
		pos = align_up(pos, 8) + ef->phnum * elf_phent_size(ef);
	for (i = 1; i < X->nout; i++)
		ord[i - 1] = i;
	qsort_r(ord, X->nout - 1, sizeof *ord, off_cmp, X);
	for (i = 0; i + 1 < X->nout; i++) {
		struct osec *o = &X->os[ord[i]];
		if (o->in == X->o->ef->shstrndx && o->in)
			o->tail = &X->shstr_add;
		if (X->symtab && o->in == ef->sh[X->symtab].link && !o->tail)
			o->tail = &X->strtab_add;
		if (o->tail)
			o->sh.size += o->tail->len;
		pos = align_up(pos, o->sh.addralign > 1 ? o->sh.addralign : 1);
		o->sh.offset = pos;
		if (o->sh.type != SHT_NOBITS_)
			pos += o->sh.size;
	}
	X->shoff = align_up(pos, ef->is64 ? 8 : 4);
	X->o->pl->out_size = X->shoff + X->nout * elf_shent_size(ef);
	return 0;
}

/* r_info of every relocation whose symbol moved; a relocation naming a removed symbol stops
 * the edit.  Relocation sections are streamed. */
static int rewrite_relocs(struct oe *X, const struct osec *o)
{
	const struct elf *ef = X->ef;
	const struct elf_shdr *s = &ef->sh[o->in];
	int w = ef->is64 ? 8 : 4, mips64el = ef->is64 && !ef->big && ef->machine == EM_MIPS_;
	uint64_t es = s->entsize, k, n;
	unsigned char chunk[65536], out[8];

	if (es < (uint64_t)(2 * w) || es > sizeof chunk || s->size % es)
		return err_set(X->e, EXIT_BAD_INPUT, "relocation section [%zu] has a malformed entry size", o->in);
	n = s->size / es;
	for (k = 0; k < n;) {
		uint64_t m = n - k < sizeof chunk / es ? n - k : sizeof chunk / es, j;
		if (elf_read(ef, s->offset + k * es, m * es, chunk, X->e))
			return -1;
		for (j = 0; j < m; j++) {
			uint64_t info = elf_get(ef, chunk + j * es + (uint64_t)w, w), sym, type;
			int64_t to;
			sym = !ef->is64 ? info >> 8 : mips64el ? info & 0xffffffffu : info >> 32;
			type = !ef->is64 ? info & 0xff : mips64el ? info & ~(uint64_t)0xffffffffu : info & 0xffffffffu;
			to = sym >= X->nsym ? (int64_t)sym : sym_new(X, sym);
			if (to < 0)
				return err_set(X->e, EXIT_BAD_INPUT, "relocation %llu of section [%zu] refers to symbol %llu, which is defined in a section that would be removed",
					       (unsigned long long)(k + j), o->in, (unsigned long long)sym);
			if ((uint64_t)to == sym)
				continue;
			info = !ef->is64 ? (uint64_t)to << 8 | type : mips64el ? type | (uint64_t)to : (uint64_t)to << 32 | type;
			elf_put(ef, out, w, info);
			if (patch(X, o->sh.offset + (k + j) * es + (uint64_t)w, (uint64_t)w, out, 0))
				return -1;
		}
		k += m;
	}
	return 0;
}

static int emit(struct oe *X, const size_t *order)
{
	const struct elf *ef = X->ef;
	struct elf model = *ef;
	unsigned char eh[64], ent[64];
	size_t i, shes = elf_shent_size(ef);
	uint64_t phoff = align_up(elf_ehdr_size(ef), 8);

	if (ef->phnum && patch(X, phoff, ef->phnum * elf_phent_size(ef), NULL, ef->phoff))
		return -1;
	for (i = 0; i + 1 < X->nout; i++) {
		struct osec *o = &X->os[order[i]];
		uint64_t inlen = o->in ? ef->sh[o->in].size : 0;
		if (o->sh.type == SHT_NOBITS_)
			continue;
		if (o->data ? patch(X, o->sh.offset, o->sh.size, o->data, 0) : patch(X, o->sh.offset, inlen, NULL, ef->sh[o->in].offset))
			return -1;
		if (o->tail && patch(X, o->sh.offset + inlen, o->tail->len, o->tail->p, 0))
			return -1;
	}
	for (i = 1; i < X->nout; i++) {
		const struct osec *o = &X->os[i];
		if (o->in && is_rel(&ef->sh[o->in]) && ef->sh[o->in].link == X->symtab && X->symtab && rewrite_relocs(X, o))
			return -1;
	}
	X->os[0].sh.size = X->nout >= SHN_LORESERVE_ ? X->nout : 0;
	X->os[0].sh.link = sec_new(X, ef->shstrndx) >= SHN_LORESERVE_ ? (uint32_t)sec_new(X, ef->shstrndx) : 0;
	for (i = 0; i < X->nout; i++) {
		elf_encode_shdr(ef, &X->os[i].sh, ent);
		if (patch(X, X->shoff + i * shes, shes, ent, 0))
			return -1;
	}
	/* SHF_GNU_RETAIN means something only with the GNU OS ABI (bfd ignores it otherwise, and
	 * --gc-sections drops the note): gas and llvm-mc mark the object the same way. */
	if (X->o->nadd && model.ident[7] == 0)
		model.ident[7] = 3;
	model.phoff = ef->phnum ? phoff : 0;
	model.shoff = X->shoff;
	model.shnum = X->nout;
	model.shstrndx = sec_new(X, ef->shstrndx);
	elf_encode_ehdr(&model, eh, ef->phnum >= PN_XNUM_ ? PN_XNUM_ : (uint16_t)ef->phnum,
			X->nout >= SHN_LORESERVE_ ? 0 : (uint16_t)X->nout,
			model.shstrndx >= SHN_LORESERVE_ ? SHN_XINDEX_ : (uint16_t)model.shstrndx);
	return patch(X, 0, elf_ehdr_size(ef), eh, 0);
}

int objedit_plan(struct objedit *o)
{
	struct oe X;
	size_t i, *order = NULL;
	int r = -1;

	memset(&X, 0, sizeof X);
	X.o = o, X.ef = o->ef, X.e = o->e, X.n = o->ef->shnum;
	if (objedit_groups(o->ef, &X.grp, o->e) || find_symtab(&X))
		goto out;
	if (close_sections(&X) || ((X.symtab || X.new_symtab) && (find_removed_symbols(&X) || permute(&X))))
		goto out;
	if (X.symtab && o->drop[X.symtab])
		goto out;
	if (names(&X) || build_sections(&X) || rewrite_groups(&X) || rewrite_symbols(&X) || rewrite_addrsig(&X) || lay_out(&X, &order))
		goto out;
	o->pl->keep = 0;
	r = emit(&X, order);
out:
	free(order);
	for (i = 0; X.os && i < X.nout; i++)
		free(X.os[i].data);
	free(X.os);
	free(X.grp);
	free(X.map);
	free(X.del);
	free(X.mv);
	free(X.sig_name);
	buf_free(&X.strtab_add);
	buf_free(&X.shstr_add);
	return r;
}
