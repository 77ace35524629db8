/* SPDX-License-Identifier: MIT */
/* dynamic.c - what a linked file asks of the dynamic loader: its PT_INTERP, and from its
 * dynamic table the DT_NEEDED names, DT_SONAME, DT_RPATH, DT_RUNPATH and DT_FLAGS_1 (see
 * elf.h).  The table is read in chunks and every string is bounded by its table. */
#include <stdlib.h>
#include <string.h>

#include "elf.h"

int elf_vaddr_offset(const struct elf *ef, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		if (ph->type == PT_LOAD_ && vaddr >= ph->vaddr && vaddr - ph->vaddr < ph->filesz) {
			*off = ph->offset + (vaddr - ph->vaddr);
			return 0;
		}
	}
	return -1;
}

int elf_dyntab_find(const struct elf *ef, struct elf_dyntab *d)
{
	size_t i;

	memset(d, 0, sizeof *d);
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if (sh->type != SHT_DYNAMIC_ || sh->link == 0 || sh->link >= ef->shnum ||
		    ef->sh[sh->link].type != SHT_STRTAB_)
			continue;
		d->off = sh->offset;
		d->size = sh->size;
		d->str_off = ef->sh[sh->link].offset;
		d->str_size = ef->sh[sh->link].size;
		d->str_known = 1;
		return 1;
	}
	for (i = 0; i < ef->phnum; i++)
		if (ef->ph[i].type == PT_DYNAMIC_) {
			d->off = ef->ph[i].offset;
			d->size = ef->ph[i].filesz;
			return 1;
		}
	return 0;
}

int elf_dyntab_each(const struct elf *ef, const struct elf_dyntab *d,
		    int (*fn)(void *ctx, uint64_t tag, uint64_t val), void *ctx, struct err *e)
{
	unsigned char chunk[4096];
	size_t w = ef->is64 ? 8 : 4, es = 2 * w, per = sizeof chunk / es, i;
	uint64_t total = d->size / es, pos, n;
	int r;

	for (pos = 0; pos < total; pos += n) {
		n = total - pos < per ? total - pos : per;
		if (elf_read(ef, d->off + pos * es, n * es, chunk, e))
			return err_prefix(e, "dynamic section: ");
		for (i = 0; i < n; i++) {
			uint64_t tag = elf_get(ef, chunk + i * es, (int)w),
				 val = elf_get(ef, chunk + i * es + w, (int)w);
			if (tag == DT_NULL_)
				return 0;
			if ((r = fn(ctx, tag, val)) != 0)
				return r;
		}
	}
	return 0;
}

/* One string of the dynamic string table, at most ELF_DYN_MAX_STRING bytes; NULL (and not an
 * error) for an offset outside the table, a longer name, or one without its NUL. */
static char *dyn_string(const struct elf *ef, const struct elf_dyntab *d, uint64_t at, int *oom)
{
	char s[ELF_DYN_MAX_STRING + 1];
	uint64_t len;
	struct err ignore;
	char *r;

	if (at >= d->str_size)
		return NULL;
	len = d->str_size - at < sizeof s ? d->str_size - at : sizeof s; /* the name and its NUL */
	if (elf_read(ef, d->str_off + at, len, s, &ignore))
		return NULL;
	/* A name that runs to the end of the table (or past the longest kept) without its NUL
	 * would be read cut short: another name (libz.so for libz.so.1).  Not read. */
	if (strnlen(s, (size_t)len) == len)
		return NULL;
	r = xstrndup(s, strnlen(s, (size_t)len));
	if (!r)
		*oom = 1;
	return r;
}

/* A string tag's value: kept until the string table is known (DT_STRTAB may come after). */
struct want {
	uint64_t tag, val;
};

static int want_push(struct want **v, size_t *n, size_t *cap, uint64_t tag, uint64_t val)
{
	struct want *w = xgrow(*v, cap, *n, sizeof **v);

	if (!w)
		return -1;
	*v = w;
	w[(*n)++] = (struct want){tag, val};
	return 0;
}

static int is_string_tag(uint64_t tag)
{
	return tag == DT_NEEDED_ || tag == DT_SONAME_ || tag == DT_RPATH_ || tag == DT_RUNPATH_;
}

/* What the walk of the table keeps: the string tags, and where the string table is. */
struct table_walk {
	struct elf_dynamic *out;
	struct want *want;
	size_t nwant, cap;
	uint64_t strtab, strsz;
	int have_tab;
};

static int walk_tag(void *ctx, uint64_t tag, uint64_t val)
{
	struct table_walk *t = ctx;

	if (tag == DT_STRTAB_)
		t->strtab = val, t->have_tab = 1;
	else if (tag == DT_STRSZ_)
		t->strsz = val;
	else if (tag == DT_FLAGS_1_)
		t->out->flags_1 = val;
	else if (is_string_tag(tag) && want_push(&t->want, &t->nwant, &t->cap, tag, val))
		return -2;
	return 0;
}

static int read_table(const struct elf *ef, struct elf_dyntab *d, struct elf_dynamic *out,
		      struct want **want, size_t *nwant, struct err *e)
{
	struct table_walk t = {.out = out};
	int r = elf_dyntab_each(ef, d, walk_tag, &t, e);

	*want = t.want;
	*nwant = t.nwant;
	if (r == -2)
		return err_oom(e);
	if (r)
		return -1;
	if (!d->str_known && t.have_tab && elf_vaddr_offset(ef, t.strtab, &d->str_off) == 0 &&
	    range_ok(d->str_off, t.strsz, ef->size)) {
		d->str_size = t.strsz;
		d->str_known = 1;
	}
	return 0;
}

static int keep_string(struct elf_dynamic *out, uint64_t tag, char *s, size_t *cap)
{
	char **slot = tag == DT_SONAME_    ? &out->soname
		      : tag == DT_RPATH_   ? &out->rpath
		      : tag == DT_RUNPATH_ ? &out->runpath
					   : NULL;
	char **v;

	if (slot) { /* the first of each kind counts, as in glibc's l_info[] */
		if (*slot)
			free(s);
		else
			*slot = s;
		return 0;
	}
	v = xgrow(out->needed, cap, out->nneeded, sizeof *v);
	if (!v)
		return free(s), -1;
	out->needed = v;
	v[out->nneeded++] = s;
	return 0;
}

int elf_dynamic_read(const struct elf *ef, struct elf_dynamic *out, struct err *e)
{
	struct want *want = NULL;
	size_t nwant = 0, cap = 0, k;
	struct elf_dyntab d;
	int oom = 0;

	memset(out, 0, sizeof *out);
	if (!elf_dyntab_find(ef, &d))
		return 0;
	out->dynamic = 1;
	if (read_table(ef, &d, out, &want, &nwant, e))
		return free(want), elf_dynamic_free(out), -1;
	for (k = 0; d.str_known && k < nwant && !oom; k++) {
		char *s = dyn_string(ef, &d, want[k].val, &oom);
		if (s && keep_string(out, want[k].tag, s, &cap))
			oom = 1;
		out->unread += !s && !oom;
	}
	if (!d.str_known)
		out->unread = nwant;
	free(want);
	if (oom)
		return elf_dynamic_free(out), err_oom(e);
	return 0;
}

void elf_dynamic_free(struct elf_dynamic *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->soname);
	free(d->rpath);
	free(d->runpath);
	memset(d, 0, sizeof *d);
}

int elf_interp(const struct elf *ef, char *buf, size_t bufsz, struct err *e)
{
	buf[0] = 0;
	for (size_t i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		uint64_t len = ph->filesz < bufsz - 1 ? ph->filesz : bufsz - 1;
		if (ph->type != PT_INTERP_)
			continue;
		if (elf_read(ef, ph->offset, len, buf, e))
			return err_prefix(e, "PT_INTERP: ");
		buf[len] = 0;
		return 0;
	}
	return 0;
}
