/* SPDX-License-Identifier: MIT */
/* objedit_sym.c - symbols of an object being rewritten: which go, where the others move, the
 * new symbol table, and the relocations and address-significance table that name them.
 *
 * Symbol indexes change as little as possible, because every relocation that names a moved
 * symbol must be rewritten: a removed symbol's slot is filled by the last symbol of its binding
 * class, and added signature symbols are not local (weak, hidden, undefined), so they come after
 * every input symbol.  When nothing is removed, nothing moves: the symbol table is the input's
 * bytes with the new symbols after them, and no relocation is read. */
#include <stdlib.h>
#include <string.h>

#include "objedit_int.h"

/* ---- symbols ---- */

int objedit_sym_table(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	size_t i;

	for (i = 1; i < rw->n; i++) {
		if (ef->sh[i].type != SHT_SYMTAB_)
			continue;
		if (rw->symtab)
			return err_set(rw->e, "more than one symbol table");
		rw->symtab = i;
	}
	for (i = 1; rw->symtab && i < rw->n; i++)
		if (ef->sh[i].type == SHT_SYMTAB_SHNDX_ && ef->sh[i].link == rw->symtab)
			rw->xtab = i;
	if (!rw->symtab) {
		/* Only the null symbol; the signature symbols come after it. */
		rw->new_symtab = rw->o->nadd != 0;
		rw->nsym = rw->nlocal = rw->new_symtab;
		return 0;
	}
	{
		const struct elf_shdr *st = &ef->sh[rw->symtab];
		if (st->entsize != elf_sym_size(ef) || st->size % st->entsize || st->link == 0 ||
		    st->link >= rw->n || ef->sh[st->link].type != SHT_STRTAB_)
			return err_set(rw->e, "malformed symbol table [%zu]", rw->symtab);
		rw->nsym = st->size / st->entsize;
		rw->nlocal = st->info;
		if (rw->nlocal > rw->nsym || rw->nsym == 0)
			return err_set(rw->e,
				       "malformed symbol table [%zu]: %llu locals of %llu symbols",
				       rw->symtab, (unsigned long long)rw->nlocal,
				       (unsigned long long)rw->nsym);
		if (rw->xtab && ef->sh[rw->xtab].size < rw->nsym * 4)
			return err_set(rw->e, "extended section index table [%zu] is too short",
				       rw->xtab);
	}
	return 0;
}

/* Symbols [first, first+n) of the input, with their real section index in x[]. */
static int read_syms(struct rewrite *rw, uint64_t first, size_t n, struct elf_sym *s, uint32_t *x)
{
	const struct elf *ef = rw->ef;
	size_t es = elf_sym_size(ef), k;
	unsigned char raw[256 * 24], xr[256 * 4];

	if (elf_read(ef, ef->sh[rw->symtab].offset + first * es, n * es, raw, rw->e))
		return -1;
	if (rw->xtab && elf_read(ef, ef->sh[rw->xtab].offset + first * 4, n * 4, xr, rw->e))
		return -1;
	for (k = 0; k < n; k++) {
		elf_decode_sym(ef, raw + k * es, &s[k]);
		x[k] = s[k].shndx == SHN_XINDEX_ && rw->xtab ? (uint32_t)elf_get(ef, xr + 4 * k, 4)
							     : s[k].shndx;
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
static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int objedit_sym_removed(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	uint64_t *sig_gone, *sig_kept, k;
	size_t ngone = 0, nkept = 0, cap = 0, i;
	struct elf_sym s[256];
	uint32_t x[256];
	int r = -1;

	rw->ndel = 0;
	if (!rw->ndrop)
		return 0; /* no section goes: neither do its symbols nor a group's signature */
	sig_gone = xcalloc(rw->n, sizeof *sig_gone), sig_kept = xcalloc(rw->n, sizeof *sig_kept);
	if (!sig_gone || !sig_kept)
		goto oom;
	for (i = 1; i < rw->n; i++)
		if (ef->sh[i].type == SHT_GROUP_ && ef->sh[i].link == rw->symtab)
			*(rw->o->drop[i] ? &sig_gone[ngone++] : &sig_kept[nkept++]) =
				ef->sh[i].info;
	/* Sorted, so that each symbol is looked up in O(log n): an object may hold a group per
	 * entry. */
	qsort(sig_gone, ngone, sizeof *sig_gone, u64_cmp);
	qsort(sig_kept, nkept, sizeof *sig_kept, u64_cmp);
	for (k = 0; rw->symtab && k < rw->nsym; k += 256) {
		size_t n = rw->nsym - k < 256 ? (size_t)(rw->nsym - k) : 256, j;
		if (read_syms(rw, k, n, s, x))
			goto out;
		for (j = 0; j < n; j++) {
			int gone = is_section_index(&s[j], x[j], rw->n) && rw->o->drop[x[j]];
			/* the tool's own signatures are undefined weak symbols */
			if (!gone && k + j && (k + j < rw->nlocal || s[j].shndx == SHN_UNDEF_)) {
				uint64_t sym = k + j;
				gone = bsearch(&sym, sig_gone, ngone, sizeof *sig_gone, u64_cmp) &&
				       !bsearch(&sym, sig_kept, nkept, sizeof *sig_kept, u64_cmp);
			}
			if (!gone)
				continue;
			if (k + j == 0) {
				r = err_set(rw->e, "symbol 0 is defined in a removed section");
				goto out;
			}
			if (rw->ndel == cap) {
				uint64_t *v =
					xrealloc(rw->del, cap = cap ? cap * 2 : 16, sizeof *v);
				if (!v)
					goto oom;
				rw->del = v;
			}
			rw->del[rw->ndel++] = k + j;
		}
	}
	r = 0;
	goto out;
oom:
	r = err_oom(rw->e);
out:
	free(sig_gone);
	free(sig_kept);
	return r;
}

static int add_move(struct rewrite *rw, size_t *cap, uint64_t from, uint64_t to)
{
	if (rw->nmv == *cap) {
		struct move *v = xrealloc(rw->mv, *cap = *cap ? *cap * 2 : 16, sizeof *v);
		if (!v)
			return err_oom(rw->e);
		rw->mv = v;
	}
	rw->mv[rw->nmv++] = (struct move){from, to};
	return 0;
}

/* Fill holes with the symbols that must leave their slots, both lists ascending.  Holes and
 * movers are counted the same way, so they pair up exactly. */
int objedit_sym_permute(struct rewrite *rw)
{
	uint64_t n = rw->nsym, L = rw->nlocal, dl = 0, p, q, Ls, Lo, no;
	size_t cap = 0, i, h;
	uint64_t *holes = NULL;
	size_t nh = 0, ch = 0;
	int r = -1;

	rw->nmv = 0;
	for (i = 0; i < rw->ndel && rw->del[i] < L; i++)
		dl++;
	Ls = L - dl;
	Lo = Ls;
	no = n - rw->ndel;
	rw->nsym_out = no + rw->o->nadd; /* the signature symbols come last */
	rw->nlocal_out = Lo;
#define HOLE(v)                                                                                    \
	do {                                                                                       \
		if (nh == ch) {                                                                    \
			uint64_t *t_ = xrealloc(holes, ch = ch ? ch * 2 : 16, sizeof *t_);         \
			if (!t_)                                                                   \
				goto oom;                                                          \
			holes = t_;                                                                \
		}                                                                                  \
		holes[nh++] = (v);                                                                 \
	} while (0)
	/* locals: removed slots below Ls take the surviving locals from [Ls, L) */
	for (i = 0; i < rw->ndel && rw->del[i] < Ls; i++)
		HOLE(rw->del[i]);
	for (q = Ls, h = 0; q < L; q++)
		if (!u64_find(rw->del, rw->ndel, q) && add_move(rw, &cap, q, holes[h++]))
			goto out;
	/* globals: [Lo, no) */
	nh = 0;
	for (p = Lo; p < (L < no ? L : no); p++)
		HOLE(p);
	for (i = 0; i < rw->ndel; i++)
		if (rw->del[i] >= L && rw->del[i] >= Lo && rw->del[i] < no)
			HOLE(rw->del[i]);
	for (p = n > Lo ? n : Lo; p < no; p++)
		HOLE(p);
	h = 0;
	for (q = L; q < (Lo < n ? Lo : n); q++)
		if (!u64_find(rw->del, rw->ndel, q) && add_move(rw, &cap, q, holes[h++]))
			goto out;
	for (q = no > L ? no : L; q < n; q++)
		if (!u64_find(rw->del, rw->ndel, q) && add_move(rw, &cap, q, holes[h++]))
			goto out;
#undef HOLE
	r = h == nh ? 0 : err_set(rw->e, "internal error: symbol renumbering does not add up");
	goto out;
oom:
	r = err_oom(rw->e);
out:
	free(holes);
	return r;
}

int objedit_sym_unmoved(const struct rewrite *rw)
{
	return !rw->ndel && !rw->nmv && !rw->ndrop;
}

/* New index of an input symbol; -1 when it is removed. */
int64_t objedit_sym_new(const struct rewrite *rw, uint64_t k)
{
	size_t lo = 0, hi = rw->nmv;

	if (u64_find(rw->del, rw->ndel, k))
		return -1;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rw->mv[mid].from == k)
			return (int64_t)rw->mv[mid].to;
		if (rw->mv[mid].from < k)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (int64_t)k;
}

/* A symbol's section index in the output: st_shndx and, when it needs one, the extended index. */
static int put_shndx(struct rewrite *rw, struct elf_sym *s, uint32_t *x, uint64_t sec)
{
	if (sec < SHN_LORESERVE_) {
		s->shndx = (uint16_t)sec;
		*x = 0;
		return 0;
	}
	if (!rw->xtab)
		return err_set(rw->e, "a symbol would need an extended section index, and the "
				      "object has no SHT_SYMTAB_SHNDX table");
	s->shndx = SHN_XINDEX_;
	*x = (uint32_t)sec;
	return 0;
}

/* The tool's signature symbol for added group j: weak, hidden, undefined (docs/layout.md). */
static void encode_signature(const struct rewrite *rw, size_t j, unsigned char *raw)
{
	elf_encode_sym(rw->ef,
		       &(struct elf_sym){.name = rw->sig_name[j],
					 .info = STB_WEAK_ << 4,
					 .other = STV_HIDDEN_},
		       raw);
}

int objedit_sym_rewrite(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	size_t es = elf_sym_size(ef), j;
	struct osec *st, *xt = NULL;
	struct elf_sym s[256];
	uint32_t x[256];
	uint64_t k;

	if (!rw->symtab && !rw->new_symtab)
		return 0;
	st = &rw->os[objedit_symtab_out(rw)];
	if (rw->symtab && objedit_sym_unmoved(rw)) {
		/* The input's symbols as they are, the signatures after them. */
		for (j = 0; j < rw->o->nadd; j++) {
			unsigned char raw[24];
			encode_signature(rw, j, raw);
			buf_put(&rw->symtab_add, raw, es);
			buf_put(&rw->xtab_add, "\0\0\0\0", rw->xtab ? 4 : 0);
		}
		if (rw->symtab_add.oom || rw->xtab_add.oom)
			return err_oom(rw->e);
		st->tail = &rw->symtab_add;
		if (rw->xtab)
			rw->os[rw->map[rw->xtab]].tail = &rw->xtab_add;
		return 0;
	}
	st->sh.size = rw->nsym_out * es;
	st->data = xcalloc((size_t)rw->nsym_out, es);
	if (rw->xtab) {
		xt = &rw->os[rw->map[rw->xtab]];
		xt->sh.size = rw->nsym_out * 4;
		xt->data = xcalloc((size_t)rw->nsym_out, 4);
	}
	if (!st->data || (xt && !xt->data))
		return err_oom(rw->e);
	for (k = 0; rw->symtab && k < rw->nsym; k += 256) {
		size_t n = rw->nsym - k < 256 ? (size_t)(rw->nsym - k) : 256;
		if (read_syms(rw, k, n, s, x))
			return -1;
		for (j = 0; j < n; j++) {
			int64_t to = objedit_sym_new(rw, k + j);
			uint32_t xo = 0;
			if (to < 0)
				continue;
			if (is_section_index(&s[j], x[j], rw->n) &&
			    put_shndx(rw, &s[j], &xo, rw->map[x[j]]))
				return -1;
			elf_encode_sym(ef, &s[j], st->data + (uint64_t)to * es);
			if (xt)
				elf_put(ef, xt->data + (uint64_t)to * 4, 4, xo);
		}
	}
	for (j = 0; j < rw->o->nadd; j++) {
		uint64_t to = rw->nsym_out - rw->o->nadd + j;
		encode_signature(rw, j, st->data + to * es);
		if (xt)
			elf_put(ef, xt->data + to * 4, 4, 0);
	}
	return 0;
}

/* LLVM's address-significance table: symbol indexes as ULEB128 numbers.  Removed symbols leave
 * it (they are gone from the output), moved ones are renumbered. */
int objedit_sym_addrsig(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	size_t i;

	for (i = 1; i < rw->nout; i++) {
		struct osec *o = &rw->os[i];
		const struct elf_shdr *s = o->in ? &ef->sh[o->in] : NULL;
		unsigned char *in, *out;
		uint64_t k = 0, len = 0;
		if (!s || s->type != SHT_LLVM_ADDRSIG_ || !rw->symtab || s->link != rw->symtab)
			continue;
		if (s->size > SCAN_MAX_AREA)
			return err_set(rw->e, "address-significance table [%zu] too large", o->in);
		in = malloc(s->size + 1);
		out = malloc(s->size * 10 + 10); /* an index takes at most 10 bytes */
		if (!in || !out) {
			free(in);
			free(out);
			return err_oom(rw->e);
		}
		if (elf_read(ef, s->offset, s->size, in, rw->e)) {
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
					return err_set(rw->e,
						       "malformed address-significance table [%zu]",
						       o->in);
				}
				v |= (uint64_t)(in[k] & 0x7f) << shift;
				shift += 7;
			} while (in[k++] & 0x80);
			to = v < rw->nsym ? objedit_sym_new(rw, v) : (int64_t)v;
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

/* How r_info holds the symbol index: ELF32 (info >> 8), ELF64 (info >> 32), and MIPS64 little
 * endian, whose r_info is a 32-bit symbol index followed by four type bytes (read as one
 * little-endian word, the symbol is its low half). */
enum rinfo_form { RINFO_32, RINFO_64, RINFO_MIPS64EL };

static uint64_t rinfo_sym(enum rinfo_form f, uint64_t info)
{
	return f == RINFO_32 ? info >> 8 : f == RINFO_MIPS64EL ? info & 0xffffffffu : info >> 32;
}

static uint64_t rinfo_with_sym(enum rinfo_form f, uint64_t info, uint64_t sym)
{
	return f == RINFO_32	     ? sym << 8 | (info & 0xff)
	       : f == RINFO_MIPS64EL ? (info & ~(uint64_t)0xffffffffu) | sym
				     : sym << 32 | (info & 0xffffffffu);
}

/* The context of relocs_renumbered: the moves, sorted by old index, after the header. */
struct reloc_map {
	uint64_t es, nmv;
	int w, big;
	enum rinfo_form form;
	struct move mv[];
};

static const struct move *move_find(const struct move *mv, uint64_t n, uint64_t from)
{
	uint64_t lo = 0, hi = n;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (mv[mid].from == from)
			return &mv[mid];
		if (mv[mid].from < from)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The plan's transform (edit.h) of a relocation section: only r_info's symbol index changes;
 * r_offset, the type and r_addend keep their bytes. */
static void relocs_renumbered(const void *ctx, unsigned char *buf, uint64_t len)
{
	const struct reloc_map *m = ctx;
	uint64_t k;

	for (k = 0; k + m->es <= len; k += m->es) {
		unsigned char *p = buf + k + m->w;
		uint64_t info = elf_get_order(m->big, p, m->w);
		const struct move *mv = move_find(m->mv, m->nmv, rinfo_sym(m->form, info));
		if (mv)
			elf_put_order(m->big, p, m->w, rinfo_with_sym(m->form, info, mv->to));
	}
}

/* A relocation section whose relocations name a moved symbol is copied through
 * relocs_renumbered, one patch streamed when the file is written; one naming a removed symbol
 * stops the edit.  Read once here, in pieces, to check both. */
int objedit_sym_relocs(struct rewrite *rw, const struct osec *o)
{
	const struct elf *ef = rw->ef;
	const struct elf_shdr *s = &ef->sh[o->in];
	int w = ef->is64 ? 8 : 4, moved = 0, r;
	enum rinfo_form form = !ef->is64 ? RINFO_32
			       : !ef->big && ef->machine == EM_MIPS_ ? RINFO_MIPS64EL
								      : RINFO_64;
	uint64_t es = s->entsize, k, n;
	unsigned char chunk[PATCH_CHUNK];
	struct reloc_map *m;

	if (es < (uint64_t)(2 * w) || es > sizeof chunk || s->size % es || PATCH_CHUNK % es)
		return err_set(rw->e, "relocation section [%zu] has entries of %llu bytes: cannot "
				      "renumber its symbols", o->in, (unsigned long long)es);
	n = s->size / es;
	for (k = 0; k < n;) {
		uint64_t c = n - k < sizeof chunk / es ? n - k : sizeof chunk / es, j;
		if (elf_read(ef, s->offset + k * es, c * es, chunk, rw->e))
			return -1;
		for (j = 0; j < c; j++) {
			uint64_t sym = rinfo_sym(form, elf_get(ef, chunk + j * es + (uint64_t)w, w));
			int64_t to = sym >= rw->nsym ? (int64_t)sym : objedit_sym_new(rw, sym);
			if (to < 0)
				return err_set(
					rw->e,
					"relocation %llu of section [%zu] refers to symbol %llu, "
					"which is defined in a section that would be removed",
					(unsigned long long)(k + j), o->in,
					(unsigned long long)sym);
			moved |= (uint64_t)to != sym;
		}
		k += c;
	}
	if (!moved)
		return 0;
	if (objedit_patch_flush(rw) ||
	    !(m = malloc(sizeof *m + rw->nmv * sizeof m->mv[0])))
		return rw->run.oom ? -1 : err_oom(rw->e);
	*m = (struct reloc_map){ .es = es, .nmv = rw->nmv, .w = w, .big = ef->big, .form = form };
	memcpy(m->mv, rw->mv, rw->nmv * sizeof m->mv[0]);
	r = plan_patch_xform(rw->o->pl, o->sh.offset, s->size, s->offset, relocs_renumbered, m,
			     sizeof *m + rw->nmv * sizeof m->mv[0], rw->e);
	free(m);
	return r;
}
