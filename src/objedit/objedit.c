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
static int close_sections(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	unsigned char *drop = rw->o->drop;
	size_t i, k, n, gone;
	uint32_t *w;
	int again = 1;

	while (again) {
		again = 0;
		for (i = 1; i < rw->n; i++) {
			const struct elf_shdr *s = &ef->sh[i];
			if (!drop[i] && (objedit_is_rel(s) || (s->flags & SHF_INFO_LINK_)) &&
			    s->info && s->info < rw->n && drop[s->info])
				drop[i] = 1, again = 1;
		}
		for (i = 1; i < rw->n; i++) {
			if (drop[i] || ef->sh[i].type != SHT_GROUP_)
				continue;
			if (objedit_group_words(ef, i, &w, &n, rw->e))
				return -1;
			for (k = 1, gone = 0; k < n; k++)
				gone += drop[w[k]];
			free(w);
			if (gone && gone < n - 1) {
				char name[64];
				elf_section_name(ef, i, name, sizeof name);
				return err_set(rw->e,
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
static int find_or_add(struct rewrite *rw, size_t t, const char *want, size_t len, int search,
		       struct buf *add, uint32_t *off)
{
	const struct elf_shdr *st = &rw->ef->sh[t];
	unsigned char stack[4096], *chunk = stack;
	size_t wlen = len + 1, csz = wlen * 2 > sizeof stack ? wlen * 2 : sizeof stack;
	uint64_t base = 0, n, k;
	struct err ignore;
	int cached = t == rw->ef->shstrndx && rw->ef->names && rw->ef->namesz == st->size;

	if (search && !cached && csz > sizeof stack && !(chunk = malloc(csz)))
		return err_oom(rw->e);
	while (search && base < st->size) {
		const unsigned char *c = cached ? (const unsigned char *)rw->ef->names : chunk;
		n = cached ? st->size : st->size - base < csz ? st->size - base : csz;
		if (!cached && elf_read(rw->ef, st->offset + base, n, chunk, &ignore))
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
		return err_set(rw->e, "string table [%zu] too large", t);
	if (st->size + add->len == 0)
		buf_putc(add, '\0');
	*off = (uint32_t)(st->size + add->len);
	buf_put(add, want, len);
	buf_putc(add, '\0');
	return add->oom ? err_oom(rw->e) : 0;
}

static int names(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	size_t j;

	if (!rw->o->nadd)
		return 0;
	if (!ef->shstrndx || ef->sh[ef->shstrndx].type != SHT_STRTAB_)
		return err_set(rw->e,
			       "no section name table (e_shstrndx): cannot name a new section");
	if (elf_names_inside_table(ef, rw->e) ||
	    find_or_add(rw, ef->shstrndx, ".group", 6, 1, &rw->shstr_add, &rw->name_group) ||
	    find_or_add(rw, ef->shstrndx, SECTION_NAME, strlen(SECTION_NAME), 1, &rw->shstr_add,
			&rw->name_note))
		return -1;
	rw->sig_name = xcalloc(rw->o->nadd, sizeof *rw->sig_name);
	if (!rw->sig_name)
		return err_oom(rw->e);
	if (rw->new_symtab) {
		buf_putc(&rw->strtab_add, '\0');
		for (j = 0; j < rw->o->nadd; j++) {
			rw->sig_name[j] = (uint32_t)rw->strtab_add.len;
			buf_put(&rw->strtab_add, rw->o->add[j].sig.p, rw->o->add[j].sig.len);
			buf_putc(&rw->strtab_add, '\0');
		}
		if (rw->strtab_add.len > UINT32_MAX)
			return err_set(rw->e, "string table too large");
		return find_or_add(rw, ef->shstrndx, ".symtab", 7, 1, &rw->shstr_add,
				   &rw->name_symtab) ||
		       find_or_add(rw, ef->shstrndx, ".strtab", 7, 1, &rw->shstr_add,
				   &rw->name_strtab);
	}
	/* clang uses one table for section and symbol names.  A signature's name can be there
	 * already only where a dlopen section is (a group of the header's or the tool's): else it
	 * is appended without searching the table. */
	for (j = 0; j < rw->o->nadd; j++) {
		size_t t = ef->sh[rw->symtab].link;
		if (find_or_add(
			    rw, t, rw->o->add[j].sig.p, rw->o->add[j].sig.len, rw->o->had_dlopen,
			    t == ef->shstrndx ? &rw->shstr_add : &rw->strtab_add, &rw->sig_name[j]))
			return -1;
	}
	return 0;
}

/* ---- the new section table ---- */

static size_t sec_new(const struct rewrite *rw, size_t i)
{
	return i < rw->n ? rw->map[i] : 0;
}

static int build_sections(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	size_t i, k = 1, j;

	rw->map = xcalloc(rw->n, sizeof *rw->map);
	rw->nout = 1;
	for (i = 1; i < rw->n; i++)
		rw->nout += !rw->o->drop[i];
	rw->nout += 2 * rw->o->nadd + 2 * (size_t)rw->new_symtab;
	rw->os = xcalloc(rw->nout, sizeof *rw->os);
	if (!rw->map || !rw->os)
		return err_oom(rw->e);
	for (i = 1; i < rw->n; i++)
		if (!rw->o->drop[i])
			rw->map[i] = k++;
	rw->os[0].sh = ef->sh[0];
	for (i = 1; i < rw->n; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		struct osec *o;
		if (rw->o->drop[i])
			continue;
		o = &rw->os[rw->map[i]];
		o->in = i;
		o->sh = *s;
		if (links_by_index(s) && s->link) {
			if (s->link >= rw->n || rw->o->drop[s->link])
				return err_set(rw->e,
					       "section [%zu] is linked to section [%u], which "
					       "would be removed",
					       i, s->link);
			o->sh.link = (uint32_t)rw->map[s->link];
		}
		if ((objedit_is_rel(s) || (s->flags & SHF_INFO_LINK_)) && s->info &&
		    s->info < rw->n)
			o->sh.info = (uint32_t)rw->map[s->info];
		if (i == rw->symtab)
			o->sh.info = (uint32_t)rw->nlocal_out;
		if (s->type == SHT_GROUP_ && s->link == rw->symtab) {
			int64_t ns = objedit_sym_new(rw, s->info);
			if (ns < 0)
				return err_set(rw->e,
					       "section group [%zu] keeps its signature symbol %u, "
					       "which would be removed",
					       i, s->info);
			o->sh.info = (uint32_t)ns;
		}
	}
	for (j = 0; j < rw->o->nadd; j++) {
		struct elf_shdr *g = &rw->os[k].sh, *m = &rw->os[k + 1].sh;
		unsigned char *d = malloc(8);
		if (!d)
			return err_oom(rw->e);
		elf_put(ef, d, 4, GRP_COMDAT_);
		elf_put(ef, d + 4, 4, k + 1);
		rw->os[k].data = d;
		*g = (struct elf_shdr){.name = rw->name_group,
				       .type = SHT_GROUP_,
				       .link = (uint32_t)objedit_symtab_out(rw),
				       .info = (uint32_t)(rw->nsym_out - rw->o->nadd + j),
				       .size = 8,
				       .addralign = 4,
				       .entsize = 4};
		*m = (struct elf_shdr){.name = rw->name_note,
				       .type = SHT_NOTE_,
				       .flags = SHF_ALLOC_ | SHF_GROUP_ | SHF_GNU_RETAIN_,
				       .size = rw->o->add[j].note.len,
				       .addralign = 4};
		rw->os[k + 1].data = malloc(rw->o->add[j].note.len);
		if (!rw->os[k + 1].data)
			return err_oom(rw->e);
		memcpy(rw->os[k + 1].data, rw->o->add[j].note.p, rw->o->add[j].note.len);
		k += 2;
	}
	if (rw->new_symtab) {
		rw->os[k].sh = (struct elf_shdr){.name = rw->name_symtab,
						 .type = SHT_SYMTAB_,
						 .link = (uint32_t)(k + 1),
						 .info = (uint32_t)rw->nlocal_out,
						 .addralign = ef->is64 ? 8 : 4,
						 .entsize = elf_sym_size(ef)};
		rw->os[k + 1].sh = (struct elf_shdr){.name = rw->name_strtab,
						     .type = SHT_STRTAB_,
						     .size = rw->strtab_add.len,
						     .addralign = 1};
		rw->os[k + 1].data = malloc(rw->strtab_add.len);
		if (!rw->os[k + 1].data)
			return err_oom(rw->e);
		memcpy(rw->os[k + 1].data, rw->strtab_add.p, rw->strtab_add.len);
	}
	return 0;
}

/* Kept groups list their members by their new indexes. */
static int rewrite_groups(struct rewrite *rw)
{
	const struct elf *ef = rw->ef;
	size_t i, k, n;
	uint32_t *w;

	for (i = 1; i < rw->nout; i++) {
		struct osec *o = &rw->os[i];
		if (!o->in || ef->sh[o->in].type != SHT_GROUP_)
			continue;
		if (objedit_group_words(ef, o->in, &w, &n, rw->e))
			return -1;
		o->data = malloc(n * 4);
		if (!o->data) {
			free(w);
			return err_oom(rw->e);
		}
		elf_put(ef, o->data, 4, w[0]);
		for (k = 1; k < n; k++)
			elf_put(ef, o->data + 4 * k, 4, rw->map[w[k]]);
		free(w);
	}
	return 0;
}

/* ---- layout (the patches: objedit_patch.c) ---- */

/* Kept sections in their input order, then the new ones; then the section headers. */
static int lay_out(struct rewrite *rw, size_t **order)
{
	const struct elf *ef = rw->ef;
	uint64_t pos = elf_ehdr_size(ef);
	size_t i, *ord = xcalloc(rw->nout, sizeof *ord);
	struct keyed *k = xcalloc(rw->nout, sizeof *k);

	*order = ord;
	if (!ord || !k) {
		free(k);
		return err_oom(rw->e);
	}
	if (ef->phnum)
		pos = align_up(pos, 8) + ef->phnum * elf_phent_size(ef);
	for (i = 1; i < rw->nout; i++) /* by input offset; new sections last, in order */
		k[i - 1] =
			(struct keyed){rw->os[i].in ? ef->sh[rw->os[i].in].offset : UINT64_MAX, i};
	keyed_sort(k, rw->nout - 1);
	for (i = 0; i + 1 < rw->nout; i++)
		ord[i] = k[i].val;
	free(k);
	for (i = 0; i + 1 < rw->nout; i++) {
		struct osec *o = &rw->os[ord[i]];
		if (o->in == rw->o->ef->shstrndx && o->in)
			o->tail = &rw->shstr_add;
		if (rw->symtab && o->in == ef->sh[rw->symtab].link && !o->tail)
			o->tail = &rw->strtab_add;
		if (o->tail)
			o->sh.size += o->tail->len;
		/* Sections are laid out again at their alignment: a hostile one could send the
		 * output anywhere.  Real objects ask for pages at most (2 MiB huge pages, say). */
		if (o->sh.addralign > OBJEDIT_MAX_ALIGN)
			return err_set(rw->e,
				       "section [%zu] asks for an alignment of %llu bytes; the "
				       "tool lays sections out up to %u",
				       o->in, (unsigned long long)o->sh.addralign,
				       OBJEDIT_MAX_ALIGN);
		pos = align_up(pos, o->sh.addralign > 1 ? o->sh.addralign : 1);
		o->sh.offset = pos;
		if (o->sh.type != SHT_NOBITS_)
			pos += o->sh.size;
	}
	rw->shoff = align_up(pos, ef->is64 ? 8 : 4);
	rw->o->pl->out_size = rw->shoff + rw->nout * elf_shent_size(ef);
	return 0;
}

/* Patches in output order (the ELF header, the program headers, the sections, the section
 * headers), so that an archive member can be written with one vectored write; relocations
 * whose symbol moved are patched last. */
static int emit(struct rewrite *rw, const size_t *order)
{
	const struct elf *ef = rw->ef;
	struct elf model = *ef;
	unsigned char eh[64], *sht;
	size_t i, shes = elf_shent_size(ef);
	uint64_t phoff = align_up(elf_ehdr_size(ef), 8);
	int r;

	rw->os[0].sh.size = rw->nout >= SHN_LORESERVE_ ? rw->nout : 0;
	rw->os[0].sh.link = sec_new(rw, ef->shstrndx) >= SHN_LORESERVE_
				    ? (uint32_t)sec_new(rw, ef->shstrndx)
				    : 0;
	/* SHF_GNU_RETAIN means something only with the GNU OS ABI (bfd ignores it otherwise, and
	 * --gc-sections drops the note): gas and llvm-mc mark the object the same way. */
	if (rw->o->nadd && model.ident[7] == 0)
		model.ident[7] = 3;
	model.phoff = ef->phnum ? phoff : 0;
	model.shoff = rw->shoff;
	model.shnum = rw->nout;
	model.shstrndx = sec_new(rw, ef->shstrndx);
	elf_encode_ehdr(&model, eh, ef->phnum >= PN_XNUM_ ? PN_XNUM_ : (uint16_t)ef->phnum,
			rw->nout >= SHN_LORESERVE_ ? 0 : (uint16_t)rw->nout,
			model.shstrndx >= SHN_LORESERVE_ ? SHN_XINDEX_ : (uint16_t)model.shstrndx);
	if (buf_grow(&rw->run, rw->nout * shes + 4096) ||
	    objedit_patch(rw, 0, elf_ehdr_size(ef), eh, 0))
		return -1;
	if (ef->phnum && objedit_patch(rw, phoff, ef->phnum * elf_phent_size(ef), NULL, ef->phoff))
		return -1;
	for (i = 0; i + 1 < rw->nout; i++) {
		struct osec *o = &rw->os[order[i]];
		uint64_t inlen = o->in ? ef->sh[o->in].size : 0;
		if (o->sh.type == SHT_NOBITS_)
			continue;
		if (o->data ? objedit_patch(rw, o->sh.offset, o->sh.size, o->data, 0)
			    : objedit_patch(rw, o->sh.offset, inlen, NULL, ef->sh[o->in].offset))
			return -1;
		if (o->tail && objedit_patch(rw, o->sh.offset + inlen, o->tail->len, o->tail->p, 0))
			return -1;
	}
	if (!(sht = xcalloc(rw->nout, shes)))
		return err_oom(rw->e);
	for (i = 0; i < rw->nout; i++)
		elf_encode_shdr(ef, &rw->os[i].sh, sht + i * shes);
	r = objedit_patch(rw, rw->shoff, rw->nout * shes, sht, 0);
	free(sht);
	for (i = 1; r == 0 && i < rw->nout && !objedit_sym_unmoved(rw); i++) {
		const struct osec *o = &rw->os[i];
		if (o->in && objedit_is_rel(&ef->sh[o->in]) && ef->sh[o->in].link == rw->symtab &&
		    rw->symtab && objedit_sym_relocs(rw, o))
			r = -1;
	}
	return r ? r : objedit_patch_flush(rw);
}

int objedit_plan(struct objedit *o)
{
	struct rewrite rw;
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
	memset(&rw, 0, sizeof rw);
	rw.o = o, rw.ef = o->ef, rw.e = o->e, rw.n = o->ef->shnum;
	if (objedit_sym_table(&rw))
		goto out;
	if (close_sections(&rw))
		goto out;
	for (i = 1; i < rw.n; i++)
		rw.ndrop += o->drop[i] != 0;
	if ((rw.symtab || rw.new_symtab) && (objedit_sym_removed(&rw) || objedit_sym_permute(&rw)))
		goto out;
	if (rw.symtab && o->drop[rw.symtab])
		goto out;
	if (names(&rw) || build_sections(&rw) || rewrite_groups(&rw) || objedit_sym_rewrite(&rw) ||
	    (!objedit_sym_unmoved(&rw) && objedit_sym_addrsig(&rw)) || lay_out(&rw, &order))
		goto out;
	o->pl->keep = 0;
	r = emit(&rw, order);
out:
	free(order);
	for (i = 0; rw.os && i < rw.nout; i++)
		free(rw.os[i].data);
	free(rw.os);
	free(rw.map);
	free(rw.del);
	free(rw.mv);
	free(rw.sig_name);
	buf_free(&rw.strtab_add);
	buf_free(&rw.shstr_add);
	buf_free(&rw.symtab_add);
	buf_free(&rw.xtab_add);
	buf_free(&rw.run);
	return r;
}
