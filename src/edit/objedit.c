/* SPDX-License-Identifier: MIT */
/* objedit.c - remove sections from a relocatable object, add COMDAT groups, renumber.
 *
 * Section indexes are renumbered in order (the gABI wants a group before its members, and
 * linkers place input sections in index order).  Symbol indexes are changed as little as
 * possible, because every relocation that names a moved symbol must be rewritten: a removed
 * symbol's slot is filled by the last symbol of its binding class, and added signature symbols
 * come after every input symbol.  Only a rewritten symbol table is built in memory (its size),
 * never a relocation section or the file; when nothing is removed, not even that: the input's
 * symbols are copied and the new ones appended. */
#include <stdlib.h>
#include <string.h>

#include "objedit_int.h"

/* ---- groups ---- */

int objedit_group_words(const struct elf *ef, size_t g, uint32_t **out, size_t *n, struct err *e)
{
	const struct elf_shdr *s = &ef->sh[g];
	unsigned char *raw;
	size_t i;

	*out = NULL;
	if (s->size % 4 || s->size < 4 || s->size / 4 > ef->shnum + 1)
		return err_set(e, "section group [%zu] has a malformed size (%llu bytes)", g,
			       (unsigned long long)s->size);
	*n = (size_t)(s->size / 4);
	raw = malloc((size_t)s->size);
	*out = xcalloc(*n, sizeof **out);
	if (!raw || !*out) {
		free(raw);
		return err_oom(e);
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
		return err_oom(e);
	for (g = 1; g < ef->shnum; g++) {
		if (ef->sh[g].type != SHT_GROUP_)
			continue;
		if (objedit_group_words(ef, g, &w, &n, e))
			return -1;
		for (i = 1; i < n; i++) {
			if (w[i] == 0 || w[i] >= ef->shnum || w[i] == g || grp[w[i]]) {
				uint32_t bad = w[i];
				free(w);
				return err_set(e,
					       "section group [%zu] lists section %u, which is "
					       "invalid or in another group",
					       g, bad);
			}
			grp[w[i]] = g;
		}
		free(w);
	}
	return 0;
}

/* ---- what goes ---- */

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
			if (!drop[i] && (objedit_is_rel(s) || (s->flags & SHF_INFO_LINK_)) &&
			    s->info && s->info < X->n && drop[s->info])
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
				return err_set(X->e,
					       "section group [%zu] %s holds a dlopen note and "
					       "other sections: removing the note would change "
					       "what the group's signature stands for",
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
	case SHT_REL_:
	case SHT_RELA_:
	case SHT_SYMTAB_:
	case SHT_DYNSYM_:
	case SHT_HASH_:
	case SHT_DYNAMIC_:
	case SHT_GROUP_:
	case SHT_SYMTAB_SHNDX_:
	case SHT_GNU_HASH_:
	case SHT_GNU_VERDEF_:
	case SHT_GNU_VERNEED_:
	case SHT_GNU_VERSYM_:
	case SHT_LLVM_ADDRSIG_:
	case SHT_LLVM_CALL_GRAPH_PROFILE_: return 1;
	}
	return (s->flags & SHF_LINK_ORDER_) != 0;
}

/* ---- names ---- */

/* Offset of `want` as a whole string in string table t, else appended to `add`.  The table is
 * searched (with `search`) in memory when the model holds it (the section names), else read in
 * 4 KiB pieces that overlap by the length searched. */
static int find_or_add(struct oe *X, size_t t, const char *want, size_t len, int search,
		       struct buf *add, uint32_t *off)
{
	const struct elf_shdr *st = &X->ef->sh[t];
	unsigned char stack[4096], *chunk = stack;
	size_t wlen = len + 1, csz = wlen * 2 > sizeof stack ? wlen * 2 : sizeof stack;
	uint64_t base = 0, n, k;
	struct err ignore;
	int cached = t == X->ef->shstrndx && X->ef->names && X->ef->namesz == st->size;

	if (search && !cached && csz > sizeof stack && !(chunk = malloc(csz)))
		return err_oom(X->e);
	while (search && base < st->size) {
		const unsigned char *c = cached ? (const unsigned char *)X->ef->names : chunk;
		n = cached ? st->size : st->size - base < csz ? st->size - base : csz;
		if (!cached && elf_read(X->ef, st->offset + base, n, chunk, &ignore))
			break;
		for (k = 0; k + wlen <= n; k++) {
			const unsigned char *hit = memmem(c + k, (size_t)(n - k), want, len);
			if (!hit || (uint64_t)(hit - c) + wlen > n)
				break;
			k = (uint64_t)(hit - c);
			if (c[k + len] == 0 &&
			    (base + k == 0 || (k > 0 && c[k - 1] == 0))) { /* a whole string */
				*off = (uint32_t)(base + k);
				if (chunk != stack)
					free(chunk);
				return 0;
			}
		}
		if (base + n >= st->size)
			break;
		base += n - wlen;
	}
	if (chunk != stack)
		free(chunk);
	if (st->size + add->len + wlen + 1 > UINT32_MAX)
		return err_set(X->e, "string table [%zu] too large", t);
	if (st->size + add->len == 0)
		buf_putc(add, '\0');
	*off = (uint32_t)(st->size + add->len);
	buf_put(add, want, len);
	buf_putc(add, '\0');
	return add->oom ? err_oom(X->e) : 0;
}

static int names(struct oe *X)
{
	const struct elf *ef = X->ef;
	size_t j;

	if (!X->o->nadd)
		return 0;
	if (!ef->shstrndx || ef->sh[ef->shstrndx].type != SHT_STRTAB_)
		return err_set(X->e,
			       "no section name table (e_shstrndx): cannot name a new section");
	if (elf_names_inside_table(ef, X->e) ||
	    find_or_add(X, ef->shstrndx, ".group", 6, 1, &X->shstr_add, &X->name_group) ||
	    find_or_add(X, ef->shstrndx, SECTION_NAME, strlen(SECTION_NAME), 1, &X->shstr_add,
			&X->name_note))
		return -1;
	X->sig_name = xcalloc(X->o->nadd, sizeof *X->sig_name);
	if (!X->sig_name)
		return err_oom(X->e);
	if (X->new_symtab) {
		buf_putc(&X->strtab_add, '\0');
		for (j = 0; j < X->o->nadd; j++) {
			X->sig_name[j] = (uint32_t)X->strtab_add.len;
			buf_put(&X->strtab_add, X->o->add[j].sig.p, X->o->add[j].sig.len);
			buf_putc(&X->strtab_add, '\0');
		}
		if (X->strtab_add.len > UINT32_MAX)
			return err_set(X->e, "string table too large");
		return find_or_add(X, ef->shstrndx, ".symtab", 7, 1, &X->shstr_add,
				   &X->name_symtab) ||
		       find_or_add(X, ef->shstrndx, ".strtab", 7, 1, &X->shstr_add,
				   &X->name_strtab);
	}
	/* clang uses one table for section and symbol names.  A signature's name can be there
	 * already only where a dlopen section is (a group of the header's or the tool's): else it
	 * is appended without searching the table. */
	for (j = 0; j < X->o->nadd; j++) {
		size_t t = ef->sh[X->symtab].link;
		if (find_or_add(X, t, X->o->add[j].sig.p, X->o->add[j].sig.len, X->o->had_dlopen,
				t == ef->shstrndx ? &X->shstr_add : &X->strtab_add,
				&X->sig_name[j]))
			return -1;
	}
	return 0;
}

/* ---- the new section table ---- */

static size_t sec_new(const struct oe *X, size_t i)
{
	return i < X->n ? X->map[i] : 0;
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
		return err_oom(X->e);
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
				return err_set(X->e,
					       "section [%zu] is linked to section [%u], which "
					       "would be removed",
					       i, s->link);
			o->sh.link = (uint32_t)X->map[s->link];
		}
		if ((objedit_is_rel(s) || (s->flags & SHF_INFO_LINK_)) && s->info && s->info < X->n)
			o->sh.info = (uint32_t)X->map[s->info];
		if (i == X->symtab)
			o->sh.info = (uint32_t)X->nlocal_out;
		if (s->type == SHT_GROUP_ && s->link == X->symtab) {
			int64_t ns = objedit_sym_new(X, s->info);
			if (ns < 0)
				return err_set(X->e,
					       "section group [%zu] keeps its signature symbol %u, "
					       "which would be removed",
					       i, s->info);
			o->sh.info = (uint32_t)ns;
		}
	}
	for (j = 0; j < X->o->nadd; j++) {
		struct elf_shdr *g = &X->os[k].sh, *m = &X->os[k + 1].sh;
		unsigned char *d = malloc(8);
		if (!d)
			return err_oom(X->e);
		elf_put(ef, d, 4, GRP_COMDAT_);
		elf_put(ef, d + 4, 4, k + 1);
		X->os[k].data = d;
		*g = (struct elf_shdr){.name = X->name_group,
				       .type = SHT_GROUP_,
				       .link = (uint32_t)objedit_symtab_out(X),
				       .info = (uint32_t)(X->nsym_out - X->o->nadd + j),
				       .size = 8,
				       .addralign = 4,
				       .entsize = 4};
		*m = (struct elf_shdr){.name = X->name_note,
				       .type = SHT_NOTE_,
				       .flags = SHF_ALLOC_ | SHF_GROUP_ | SHF_GNU_RETAIN_,
				       .size = X->o->add[j].note.len,
				       .addralign = 4};
		X->os[k + 1].data = malloc(X->o->add[j].note.len);
		if (!X->os[k + 1].data)
			return err_oom(X->e);
		memcpy(X->os[k + 1].data, X->o->add[j].note.p, X->o->add[j].note.len);
		k += 2;
	}
	if (X->new_symtab) {
		X->os[k].sh = (struct elf_shdr){.name = X->name_symtab,
						.type = SHT_SYMTAB_,
						.link = (uint32_t)(k + 1),
						.info = (uint32_t)X->nlocal_out,
						.addralign = ef->is64 ? 8 : 4,
						.entsize = elf_sym_size(ef)};
		X->os[k + 1].sh = (struct elf_shdr){.name = X->name_strtab,
						    .type = SHT_STRTAB_,
						    .size = X->strtab_add.len,
						    .addralign = 1};
		X->os[k + 1].data = malloc(X->strtab_add.len);
		if (!X->os[k + 1].data)
			return err_oom(X->e);
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
			return err_oom(X->e);
		}
		elf_put(ef, o->data, 4, w[0]);
		for (k = 1; k < n; k++)
			elf_put(ef, o->data + 4 * k, 4, X->map[w[k]]);
		free(w);
	}
	return 0;
}

/* ---- layout (the patches: objedit_patch.c) ---- */

/* Kept sections in their input order, then the new ones; then the section headers. */
static int lay_out(struct oe *X, size_t **order)
{
	const struct elf *ef = X->ef;
	uint64_t pos = elf_ehdr_size(ef);
	size_t i, *ord = xcalloc(X->nout, sizeof *ord);
	struct keyed *k = xcalloc(X->nout, sizeof *k);

	*order = ord;
	if (!ord || !k) {
		free(k);
		return err_oom(X->e);
	}
	if (ef->phnum)
		pos = align_up(pos, 8) + ef->phnum * elf_phent_size(ef);
	for (i = 1; i < X->nout; i++) /* by input offset; new sections last, in order */
		k[i - 1] = (struct keyed){X->os[i].in ? ef->sh[X->os[i].in].offset : UINT64_MAX, i};
	keyed_sort(k, X->nout - 1);
	for (i = 0; i + 1 < X->nout; i++)
		ord[i] = k[i].val;
	free(k);
	for (i = 0; i + 1 < X->nout; i++) {
		struct osec *o = &X->os[ord[i]];
		if (o->in == X->o->ef->shstrndx && o->in)
			o->tail = &X->shstr_add;
		if (X->symtab && o->in == ef->sh[X->symtab].link && !o->tail)
			o->tail = &X->strtab_add;
		if (o->tail)
			o->sh.size += o->tail->len;
		/* Sections are laid out again at their alignment: a hostile one could send the
		 * output anywhere.  Real objects ask for pages at most (2 MiB huge pages, say). */
		if (o->sh.addralign > OBJEDIT_MAX_ALIGN)
			return err_set(X->e,
				       "section [%zu] asks for an alignment of %llu bytes; the "
				       "tool lays sections out up to %u",
				       o->in, (unsigned long long)o->sh.addralign,
				       OBJEDIT_MAX_ALIGN);
		pos = align_up(pos, o->sh.addralign > 1 ? o->sh.addralign : 1);
		o->sh.offset = pos;
		if (o->sh.type != SHT_NOBITS_)
			pos += o->sh.size;
	}
	X->shoff = align_up(pos, ef->is64 ? 8 : 4);
	X->o->pl->out_size = X->shoff + X->nout * elf_shent_size(ef);
	return 0;
}

/* Patches in output order (the ELF header, the program headers, the sections, the section
 * headers), so that an archive member can be written with one vectored write; relocations
 * whose symbol moved are patched last. */
static int emit(struct oe *X, const size_t *order)
{
	const struct elf *ef = X->ef;
	struct elf model = *ef;
	unsigned char eh[64], *sht;
	size_t i, shes = elf_shent_size(ef);
	uint64_t phoff = align_up(elf_ehdr_size(ef), 8);
	int r;

	X->os[0].sh.size = X->nout >= SHN_LORESERVE_ ? X->nout : 0;
	X->os[0].sh.link =
		sec_new(X, ef->shstrndx) >= SHN_LORESERVE_ ? (uint32_t)sec_new(X, ef->shstrndx) : 0;
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
	if (buf_grow(&X->run, X->nout * shes + 4096) ||
	    objedit_patch(X, 0, elf_ehdr_size(ef), eh, 0))
		return -1;
	if (ef->phnum && objedit_patch(X, phoff, ef->phnum * elf_phent_size(ef), NULL, ef->phoff))
		return -1;
	for (i = 0; i + 1 < X->nout; i++) {
		struct osec *o = &X->os[order[i]];
		uint64_t inlen = o->in ? ef->sh[o->in].size : 0;
		if (o->sh.type == SHT_NOBITS_)
			continue;
		if (o->data ? objedit_patch(X, o->sh.offset, o->sh.size, o->data, 0)
			    : objedit_patch(X, o->sh.offset, inlen, NULL, ef->sh[o->in].offset))
			return -1;
		if (o->tail && objedit_patch(X, o->sh.offset + inlen, o->tail->len, o->tail->p, 0))
			return -1;
	}
	if (!(sht = xcalloc(X->nout, shes)))
		return err_oom(X->e);
	for (i = 0; i < X->nout; i++)
		elf_encode_shdr(ef, &X->os[i].sh, sht + i * shes);
	r = objedit_patch(X, X->shoff, X->nout * shes, sht, 0);
	free(sht);
	for (i = 1; r == 0 && i < X->nout && !objedit_sym_unmoved(X); i++) {
		const struct osec *o = &X->os[i];
		if (o->in && objedit_is_rel(&ef->sh[o->in]) && ef->sh[o->in].link == X->symtab &&
		    X->symtab && objedit_sym_relocs(X, o))
			r = -1;
	}
	return r ? r : objedit_patch_flush(X);
}

int objedit_plan(struct objedit *o)
{
	struct oe X;
	size_t i, *order = NULL;
	int r = -1;

	/* The sections are laid out anew: program headers, which a relocatable object does not
	 * use (gABI), would describe bytes that moved or were dropped. */
	if (o->ef->phnum)
		return err_set(
			o->e,
			"a relocatable object with program headers (%zu): its sections are laid "
			"out anew, and they would describe bytes that moved; not written",
			o->ef->phnum);
	memset(&X, 0, sizeof X);
	X.o = o, X.ef = o->ef, X.e = o->e, X.n = o->ef->shnum;
	if (objedit_sym_table(&X))
		goto out;
	if (close_sections(&X))
		goto out;
	for (i = 1; i < X.n; i++)
		X.ndrop += o->drop[i] != 0;
	if ((X.symtab || X.new_symtab) && (objedit_sym_removed(&X) || objedit_sym_permute(&X)))
		goto out;
	if (X.symtab && o->drop[X.symtab])
		goto out;
	if (names(&X) || build_sections(&X) || rewrite_groups(&X) || objedit_sym_rewrite(&X) ||
	    (!objedit_sym_unmoved(&X) && objedit_sym_addrsig(&X)) || lay_out(&X, &order))
		goto out;
	o->pl->keep = 0;
	r = emit(&X, order);
out:
	free(order);
	for (i = 0; X.os && i < X.nout; i++)
		free(X.os[i].data);
	free(X.os);
	free(X.map);
	free(X.del);
	free(X.mv);
	free(X.sig_name);
	buf_free(&X.strtab_add);
	buf_free(&X.shstr_add);
	buf_free(&X.symtab_add);
	buf_free(&X.xtab_add);
	buf_free(&X.run);
	return r;
}
