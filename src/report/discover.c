/* SPDX-License-Identifier: MIT */
/* discover.c - soname-shaped strings in read-only data, minus DT_NEEDED, DT_SONAME and the
 * notes' sonames (see report.h). */
#include "report_int.h"

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

/* The file offset of a virtual address, through the PT_LOAD that maps it from file bytes. */
static int vaddr_to_offset(const struct elf *ef, uint64_t vaddr, uint64_t *off)
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

struct dyn {
	uint64_t off, size;         /* the table */
	uint64_t str_off, str_size; /* its string table */
	int str_known;
};

/* Where the dynamic table and its strings are: from the SHT_DYNAMIC section and its sh_link when
 * there are section headers, else from PT_DYNAMIC with DT_STRTAB/DT_STRSZ (filled in later). */
static int find_dynamic(const struct elf *ef, struct dyn *d)
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

/* One string of the dynamic string table, bounded by the table and by DISCOVER_MAX_NAME. */
static int dyn_string(const struct elf *ef, const struct dyn *d, uint64_t at, struct names *ns)
{
	char s[DISCOVER_MAX_NAME + 1];
	uint64_t len;
	struct err ignore;

	if (at >= d->str_size)
		return 0; /* a bad offset names nothing */
	len = d->str_size - at < DISCOVER_MAX_NAME ? d->str_size - at : DISCOVER_MAX_NAME;
	if (elf_read(ef, d->str_off + at, len, s, &ignore))
		return 0;
	return names_push(ns, s, strnlen(s, (size_t)len));
}

/* DT_NEEDED and DT_SONAME names.  The table is read in chunks; the string offsets are kept until
 * the string table is known (DT_STRTAB may follow the DT_NEEDED entries). */
static int dynamic_names(const struct elf *ef, struct names *ns, struct err *e)
{
	unsigned char chunk[4096];
	size_t w = ef->is64 ? 8 : 4, es = 2 * w, per = sizeof chunk / es, i, k, nwant = 0, cap = 0;
	uint64_t *want = NULL, pos, strtab = 0, strsz = 0, n, total;
	struct dyn d;
	int done = 0, have_tab = 0, r = 0;

	if (!find_dynamic(ef, &d))
		return 0;
	total = d.size / es;
	for (pos = 0; pos < total && !done && r == 0; pos += n) {
		n = total - pos < per ? total - pos : per;
		if (elf_read(ef, d.off + pos * es, n * es, chunk, e))
			return free(want), err_prefix(e, "dynamic section: ");
		for (i = 0; i < n && !done; i++) {
			uint64_t tag = elf_get(ef, chunk + i * es, (int)w),
				 val = elf_get(ef, chunk + i * es + w, (int)w);
			uint64_t *v;
			if (tag == DT_NULL_)
				done = 1;
			else if (tag == DT_STRTAB_)
				strtab = val, have_tab = 1;
			else if (tag == DT_STRSZ_)
				strsz = val;
			else if (tag == DT_NEEDED_ || tag == DT_SONAME_) {
				v = xgrow(want, &cap, nwant, sizeof *v);
				if (!v) {
					r = -1;
					break;
				}
				want = v;
				want[nwant++] = val;
			}
		}
	}
	if (r == 0 && !d.str_known && have_tab && vaddr_to_offset(ef, strtab, &d.str_off) == 0 &&
	    range_ok(d.str_off, strsz, ef->size)) {
		d.str_size = strsz;
		d.str_known = 1;
	}
	for (k = 0; r == 0 && d.str_known && k < nwant; k++)
		r = dyn_string(ef, &d, want[k], ns);
	free(want);
	return r ? err_oom(e) : 0;
}

int discover_linked_names(const struct elf *ef, struct buf *out, size_t *n, struct err *e)
{
	struct names ns = {0};
	int r = dynamic_names(ef, &ns, e);

	for (size_t i = 0; r == 0 && i < ns.n; i++) {
		buf_put(out, ns.v[i], strlen(ns.v[i]) + 1);
		(*n)++;
	}
	names_free(&ns);
	return r == 0 && out->oom ? err_oom(e) : r;
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

static int scan_bytes(struct scanner *sc, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!name_char(p[i])) {
			if ((sc->len || sc->too_long) && token_end(sc))
				return -1;
		} else if (sc->len < DISCOVER_MAX_NAME) {
			sc->tok[sc->len++] = (char)p[i];
		} else {
			sc->too_long = 1;
		}
	}
	return 0;
}

/* Stream [off, off+size) through the scanner, CHUNK bytes at a time.  A region's end ends a
 * token. */
static int scan_region(const struct elf *ef, struct scanner *sc, unsigned char *buf, uint64_t off,
		       uint64_t size, struct err *e)
{
	uint64_t pos, n;

	if (!range_ok(off, size, ef->size))
		return 0; /* elf_open checked segments; a bad section is skipped */
	for (pos = 0; pos < size; pos += n) {
		n = size - pos < CHUNK ? size - pos : CHUNK;
		if (elf_read(ef, off + pos, n, buf, e))
			return -1;
		if (scan_bytes(sc, buf, (size_t)n))
			return err_oom(e);
	}
	return (sc->len || sc->too_long) && token_end(sc) ? err_oom(e) : 0;
}

/* Read-only data: every PT_LOAD without PF_W (text and rodata); in a file without segments (an
 * object), every allocated, non-writable section with file bytes. */
static int scan_readonly(const struct elf *ef, struct scanner *sc, struct err *e)
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
			r = scan_region(ef, sc, buf, ph->offset, ph->filesz, e);
	}
	for (i = 1; i < ef->shnum && r == 0 && !loads; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if ((sh->flags & SHF_ALLOC_) && !(sh->flags & SHF_WRITE_) &&
		    sh->type != SHT_NOBITS_)
			r = scan_region(ef, sc, buf, sh->offset, sh->size, e);
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
		r = scan_readonly(ef, &sc, e);
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
