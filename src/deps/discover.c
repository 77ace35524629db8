/* SPDX-License-Identifier: MIT */
/* discover.c - soname-shaped strings in read-only data, minus DT_NEEDED, DT_SONAME and the
 * notes' sonames (see deps.h). */
#include "deps.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

#define CHUNK 65536u

/* Names the file already accounts for: its DT_NEEDED and DT_SONAME strings, and every soname of
 * its notes.  Kept sorted for lookups. */
struct names {
	char **v;
	size_t n, cap;
};

static int names_push(struct names *ns, const char *s, size_t len)
{
	char **v = xgrow(ns->v, &ns->cap, ns->n, sizeof *v);

	if (!v)
		return -1;
	ns->v = v;
	ns->v[ns->n] = xstrndup(s, len);
	return ns->v[ns->n] ? (ns->n++, 0) : -1;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int names_has(const struct names *ns, const char *s)
{
	return ns->n && bsearch(&s, ns->v, ns->n, sizeof *ns->v, str_cmp) != NULL;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

/* ---- the dynamic section ---- */

int discover_linked_names(const struct elf *ef, struct buf *out, size_t *n, struct err *e)
{
	struct elf_dynamic d;

	if (elf_dynamic_read(ef, &d, e))
		return -1;
	for (size_t i = 0; i < d.nneeded; i++) {
		buf_put(out, d.needed[i], strlen(d.needed[i]) + 1);
		(*n)++;
	}
	if (d.soname) {
		buf_put(out, d.soname, strlen(d.soname) + 1);
		(*n)++;
	}
	elf_dynamic_free(&d);
	return out->oom ? err_oom(e) : 0;
}

/* ---- the scan ---- */

static int name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '.' || c == '_' || c == '-' || c == '+';
}

/* "lib" NAME ".so." DIGITS ("." DIGITS)*: the shape of a versioned soname. */
static int soname_shaped(const char *s, size_t len)
{
	size_t i, k;

	if (len < 9 || memcmp(s, "lib", 3) != 0)
		return 0;
	for (i = 4; i + 4 < len; i++) {
		if (memcmp(s + i, ".so.", 4) != 0)
			continue;
		for (k = i + 4; k < len; k++)
			if (!(s[k] >= '0' && s[k] <= '9') &&
			    !(s[k] == '.' && s[k - 1] != '.' && k + 1 < len))
				break;
		if (k == len && s[len - 1] != '.')
			return 1;
	}
	return 0;
}

struct scanner {
	const struct names *known;
	struct discovery *d;
	const char *path;
	char tok[DISCOVER_MAX_NAME + 1];
	size_t len;
	int too_long;
};

static int found_cmp_name(const void *x, const void *y)
{
	return strcmp(((const struct found *)x)->soname, ((const struct found *)y)->soname);
}

static int found_cmp(const void *x, const void *y)
{
	const struct found *a = x, *b = y;
	int c = strcmp(a->soname, b->soname);

	return c ? c : a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int found_known(const struct discovery *d, const char *s)
{
	struct found key = {.soname = (char *)s};

	return d->sorted && bsearch(&key, d->v, d->sorted, sizeof *d->v, found_cmp_name) != NULL;
}

static void found_free(struct found *f)
{
	for (size_t k = 0; k < f->nalt; k++)
		free(f->alt[k]);
	free(f->alt);
	free(f->soname);
	free(f->path);
	free(f->asked_as);
}

/* Sort everything, keep the earliest of each soname: O(n log n), done when the unsorted tail is
 * as long as the sorted part, so each soname costs O(log n) amortized and memory stays within
 * twice the distinct ones. */
void discover_finish(struct discovery *d)
{
	size_t i, k = 0;

	if (d->n)
		qsort(d->v, d->n, sizeof *d->v, found_cmp);
	for (i = 0; i < d->n; i++) {
		if (k && strcmp(d->v[k - 1].soname, d->v[i].soname) == 0) {
			found_free(&d->v[i]);
			continue;
		}
		d->v[k++] = d->v[i];
	}
	d->n = d->sorted = k;
}

int discover_add(struct discovery *d, const char *const *names, size_t n, const char *path,
		 int recorded, const char *asked_as)
{
	struct found *v, *f;

	if (found_known(d, names[0]))
		return 0;
	if (d->n - d->sorted >= (d->sorted > 64 ? d->sorted : 64)) {
		discover_finish(d);
		if (found_known(d, names[0]))
			return 0;
	}
	v = xgrow(d->v, &d->cap, d->n, sizeof *v);
	if (!v)
		return -1;
	d->v = v;
	f = &d->v[d->n];
	memset(f, 0, sizeof *f);
	/* The path is copied: callers pass reused buffers (--files-from names, archive members). */
	f->path = xstrndup(path, strlen(path));
	f->recorded = recorded;
	f->asked_as = asked_as ? xstrndup(asked_as, strlen(asked_as)) : NULL;
	f->seq = d->seq++;
	f->soname = xstrndup(names[0], strlen(names[0]));
	f->alt = n > 1 ? xcalloc(n - 1, sizeof *f->alt) : NULL;
	for (f->nalt = 0; f->nalt + 1 < n && f->alt; f->nalt++)
		if (!(f->alt[f->nalt] = xstrndup(names[f->nalt + 1], strlen(names[f->nalt + 1]))))
			break;
	d->n++;
	if (!f->soname || !f->path || f->nalt + 1 < n || (asked_as && !f->asked_as))
		return -1; /* discover_free frees what was made */
	return 0;
}

static int found_push(struct discovery *d, const char *s, const char *path)
{
	return discover_add(d, &s, 1, path, 0, NULL);
}

/* The end of a run of name characters: keep it if it is a soname nobody accounts for. */
static int token_end(struct scanner *sc)
{
	int r = 0;

	sc->tok[sc->len] = '\0';
	if (!sc->too_long && soname_shaped(sc->tok, sc->len) && !names_has(sc->known, sc->tok))
		r = found_push(sc->d, sc->tok, sc->path);
	sc->len = 0;
	sc->too_long = 0;
	return r;
}

/* The scanner's side of discover_readonly: a chunk of bytes, or (n == 0) a region's end, which
 * ends a token. */
static int scan_bytes(void *ctx, uint64_t off, const unsigned char *p, size_t n, struct err *e)
{
	struct scanner *sc = ctx;

	(void)off;
	if (n == 0)
		return (sc->len || sc->too_long) && token_end(sc) ? err_oom(e) : 0;
	for (size_t i = 0; i < n; i++) {
		if (!name_char(p[i])) {
			if ((sc->len || sc->too_long) && token_end(sc))
				return err_oom(e);
		} else if (sc->len < DISCOVER_MAX_NAME) {
			sc->tok[sc->len++] = (char)p[i];
		} else {
			sc->too_long = 1;
		}
	}
	return 0;
}

/* Stream [off, off+size) through fn, CHUNK bytes at a time, then a region's end. */
static int stream_region(const struct elf *ef, unsigned char *buf, uint64_t off, uint64_t size,
			 int (*fn)(void *, uint64_t, const unsigned char *, size_t, struct err *),
			 void *ctx, struct err *e)
{
	uint64_t pos, n;

	if (!range_ok(off, size, ef->size))
		return 0; /* elf_open checked segments; a bad section is skipped */
	for (pos = 0; pos < size; pos += n) {
		n = size - pos < CHUNK ? size - pos : CHUNK;
		if (elf_read(ef, off + pos, n, buf, e))
			return -1;
		if (fn(ctx, off + pos, buf, (size_t)n, e))
			return -1;
	}
	return fn(ctx, off + size, buf, 0, e);
}

int discover_readonly(const struct elf *ef,
		      int (*fn)(void *ctx, uint64_t off, const unsigned char *p, size_t n,
				struct err *e),
		      void *ctx, struct err *e)
{
	unsigned char *buf = malloc(CHUNK);
	int loads = 0, r = 0;
	size_t i;

	if (!buf)
		return err_oom(e);
	for (i = 0; i < ef->phnum && r == 0; i++) {
		const struct elf_phdr *ph = &ef->ph[i];
		if (ph->type != PT_LOAD_)
			continue;
		loads = 1;
		if (!(ph->flags & PF_W_))
			r = stream_region(ef, buf, ph->offset, ph->filesz, fn, ctx, e);
	}
	for (i = 1; i < ef->shnum && r == 0 && !loads; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if ((sh->flags & SHF_ALLOC_) && !(sh->flags & SHF_WRITE_) &&
		    sh->type != SHT_NOBITS_)
			r = stream_region(ef, buf, sh->offset, sh->size, fn, ctx, e);
	}
	free(buf);
	return r;
}

static int declared_names(const struct entries *declared, struct names *ns)
{
	struct buf s = {0};
	int r = 0;

	for (size_t i = 0; i < declared->n && r == 0; i++) {
		const struct keyval *m = entry_find(&declared->v[i], "soname");
		size_t pos = 0;
		while (r == 0 && m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1)
			r = names_push(ns, s.p, s.len);
	}
	buf_free(&s);
	return r;
}

/* The file's DT_NEEDED and DT_SONAME names, into ns. */
static int dynamic_names(const struct elf *ef, struct names *ns, struct err *e)
{
	struct elf_dynamic dy;
	int r = 0;

	if (elf_dynamic_read(ef, &dy, e))
		return -1;
	for (size_t i = 0; r == 0 && i < dy.nneeded; i++)
		r = names_push(ns, dy.needed[i], strlen(dy.needed[i]));
	if (r == 0 && dy.soname)
		r = names_push(ns, dy.soname, strlen(dy.soname));
	elf_dynamic_free(&dy);
	return r ? err_oom(e) : 0;
}

int discover_file(const struct elf *ef, const struct entries *declared, const char *path,
		  struct discovery *d, struct err *e)
{
	struct names known = {0};
	struct scanner sc;
	int r;

	r = dynamic_names(ef, &known, e);
	if (r == 0 && declared_names(declared, &known))
		r = err_oom(e);
	if (r == 0) {
		if (known.n)
			qsort(known.v, known.n, sizeof *known.v, str_cmp);
		memset(&sc, 0, sizeof sc);
		sc.known = &known;
		sc.d = d;
		sc.path = path;
		r = discover_readonly(ef, scan_bytes, &sc, e);
	}
	names_free(&known);
	return r;
}

void discover_free(struct discovery *d)
{
	for (size_t i = 0; i < d->n; i++)
		found_free(&d->v[i]);
	free(d->v);
	memset(d, 0, sizeof *d);
}
