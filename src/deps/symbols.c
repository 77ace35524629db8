/* SPDX-License-Identifier: MIT */
/* symbols.c - which exported symbols of each declared soname a file names in its read-only
 * data (a heuristic, see deps.h), and the --format=symbols listing.
 *
 * dlsym(handle, "inflateGetHeader") puts the string "inflateGetHeader" in .rodata.  Each run of
 * identifier characters that a NUL byte ends (a C string) is looked up in the dynamic symbol
 * table of every library the file's notes name, and so is each of its tails after an
 * underscore: the linker merges a string into the tail of a longer one ("zng_inflate" holds
 * "inflate").  Other tails are not: "ZSTD_decompress" would name zlib's "compress".  The tails'
 * GNU hashes are computed right to left in one pass, and the bloom filter of .gnu.hash rejects
 * almost every one without a read. */
#include "deps.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

/* Shorter names are not looked up (a one-letter string is not worth a guess). */
#define SYMBOL_MIN_LEN 2

struct sym_scan {
	const struct libfind_lib *const *libs; /* the declared sonames' libraries that were found */
	size_t nlibs;
	uint64_t skip_off, skip_end; /* the file's own dynamic string table: its imports' names */
	char tok[ELF_DYNSYM_MAX_NAME + 1];
	size_t len;
	int too_long;
	struct symbols *out;
	size_t file, first, uniq; /* this file's records are out->v[first..]; uniq after a sort */
};

static int ident_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_';
}

static int str_cmp_null(const char *a, const char *b)
{
	return a && b ? strcmp(a, b) : (a != NULL) - (b != NULL);
}

/* By soname, library, name (none first), version, source, file. */
static int ref_cmp(const void *x, const void *y)
{
	const struct symref *a = x, *b = y;
	int c;

	if ((c = strcmp(a->soname, b->soname)) || (c = str_cmp_null(a->library, b->library)) ||
	    (c = str_cmp_null(a->name, b->name)) || (c = strcmp(a->version, b->version)))
		return c;
	if (a->recorded != b->recorded)
		return a->recorded - b->recorded;
	return a->file < b->file ? -1 : a->file > b->file;
}

static void ref_free(struct symref *r)
{
	free(r->soname);
	free(r->name);
	free(r->version);
	free(r->library);
}

/* Sort records [first, n) and keep each once. */
static void dedupe(struct symbols *s, size_t first)
{
	size_t k = first;

	if (s->n - first > 1)
		qsort(s->v + first, s->n - first, sizeof *s->v, ref_cmp);
	for (size_t i = first; i < s->n; i++) {
		if (k > first && ref_cmp(&s->v[k - 1], &s->v[i]) == 0) {
			ref_free(&s->v[i]);
			continue;
		}
		s->v[k++] = s->v[i];
	}
	s->n = k;
}

int symbols_add(struct symbols *s, const char *soname, const char *name, const char *version,
		const char *library, size_t file, int recorded)
{
	struct symref *v = xgrow(s->v, &s->cap, s->n, sizeof *v), *r;

	if (!v)
		return -1;
	s->v = v;
	r = &s->v[s->n];
	memset(r, 0, sizeof *r);
	r->soname = xstrndup(soname, strlen(soname));
	r->name = name ? xstrndup(name, strlen(name)) : NULL;
	r->version = xstrndup(version, strlen(version));
	r->library = library ? xstrndup(library, strlen(library)) : NULL;
	r->file = file;
	r->recorded = recorded;
	if (!r->soname || (name && !r->name) || !r->version || (library && !r->library)) {
		ref_free(r);
		return -1;
	}
	s->n++;
	return 0;
}

void symbols_free(struct symbols *s)
{
	for (size_t i = 0; i < s->n; i++)
		ref_free(&s->v[i]);
	free(s->v);
	memset(s, 0, sizeof *s);
}

/* A C string ended: look it and its tails up in every library. */
static int token_end(struct sym_scan *sc, struct err *e)
{
	char version[256];
	uint32_t h = 5381, p = 1;

	sc->tok[sc->len] = '\0';
	for (size_t i = sc->len; i-- > 0;) {
		const char *name = sc->tok + i;
		size_t len = sc->len - i;
		/* djb2 of tok[i..len) from that of tok[i+1..len): 5381 * 33^m + the characters. */
		h += (5381u * 32u + (unsigned char)sc->tok[i]) * p;
		p *= 33u;
		if (len < SYMBOL_MIN_LEN || (sc->tok[i] >= '0' && sc->tok[i] <= '9') ||
		    (i > 0 && sc->tok[i - 1] != '_'))
			continue;
		for (size_t k = 0; k < sc->nlibs; k++) {
			const struct libfind_lib *lib = sc->libs[k];
			int r;
			if (!elf_dynsym_maybe(&lib->syms, h))
				continue;
			r = elf_dynsym_find(&lib->syms, name, len, h, version, sizeof version, e);
			if (r < 0)
				return err_prefix(e, "%s: ", lib->path);
			if (r && symbols_add(sc->out, lib->soname, name, version, lib->path,
					     sc->file, 0))
				return err_oom(e);
		}
	}
	/* Memory stays within twice the distinct names found. */
	if (sc->out->n - sc->first > 2 * sc->uniq + 256) {
		dedupe(sc->out, sc->first);
		sc->uniq = sc->out->n - sc->first;
	}
	return 0;
}

static int scan_bytes(void *ctx, uint64_t off, const unsigned char *p, size_t n, struct err *e)
{
	struct sym_scan *sc = ctx;

	if (n == 0) {
		sc->len = 0;
		sc->too_long = 0;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (off + i >= sc->skip_off && off + i < sc->skip_end) {
			sc->len = 0;
			sc->too_long = 0;
		} else if (ident_char(p[i])) {
			if (sc->len < ELF_DYNSYM_MAX_NAME)
				sc->tok[sc->len++] = (char)p[i];
			else
				sc->too_long = 1;
		} else {
			if (p[i] == '\0' && sc->len && !sc->too_long && token_end(sc, e))
				return -1;
			sc->len = 0;
			sc->too_long = 0;
		}
	}
	return 0;
}

struct strtab_tags {
	uint64_t strtab, strsz;
	int have;
};

static int strtab_tag(void *ctx, uint64_t tag, uint64_t val)
{
	struct strtab_tags *t = ctx;

	if (tag == DT_STRTAB_)
		t->strtab = val, t->have |= 1;
	else if (tag == DT_STRSZ_)
		t->strsz = val, t->have |= 2;
	return 0;
}

/* The file's own dynamic string table: the names it imports and exports, which are no lookup. */
static void own_strings(const struct elf *ef, struct sym_scan *sc)
{
	struct elf_dyntab d;
	struct strtab_tags t = {0};
	struct err ignore;

	if (!elf_dyntab_find(ef, &d) || elf_dyntab_each(ef, &d, strtab_tag, &t, &ignore) ||
	    t.have != 3 || elf_vaddr_offset(ef, t.strtab, &sc->skip_off) ||
	    add_ovf(sc->skip_off, t.strsz, &sc->skip_end))
		sc->skip_off = sc->skip_end = 0;
}

int symbols_file(struct libfind *f, const struct elf *ef, const struct entries *es, size_t file,
		 struct symbols *out, struct err *e)
{
	const struct libfind_lib **libs = NULL, **v;
	size_t nlibs = 0, cap = 0, first = out->n, i;
	struct buf s = {0};
	struct sym_scan sc;
	int r = 0;

	libfind_trim(f);
	for (i = 0; i < es->n && r == 0; i++) {
		const struct keyval *m = entry_find(&es->v[i], "soname");
		size_t pos = 0;
		while (r == 0 && m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
			const struct libfind_lib *lib;
			buf_put(&s, "", 0);
			if (s.oom || !(v = xgrow(libs, &cap, nlibs, sizeof *libs))) {
				r = err_oom(e);
				break;
			}
			libs = v;
			if (!(lib = libfind_get(f, s.p, ef, e)))
				r = -1;
			else if (lib->found)
				libs[nlibs++] = lib;
			else if (symbols_add(out, s.p, NULL, "", NULL, file, 0))
				r = err_oom(e);
		}
	}
	buf_free(&s);
	memset(&sc, 0, sizeof sc);
	sc.libs = libs;
	sc.nlibs = nlibs;
	sc.out = out;
	sc.file = file;
	sc.first = first;
	own_strings(ef, &sc);
	if (r == 0 && nlibs)
		r = discover_readonly(ef, scan_bytes, &sc, e);
	/* A library of which the file names no symbol: its line says where it is. */
	for (i = 0; r == 0 && i < nlibs; i++) {
		size_t k = first;
		while (k < out->n && !(out->v[k].name && out->v[k].library &&
				       strcmp(out->v[k].library, libs[i]->path) == 0))
			k++;
		if (k == out->n &&
		    symbols_add(out, libs[i]->soname, NULL, "", libs[i]->path, file, 0))
			r = err_oom(e);
	}
	free(libs);
	if (r == 0)
		dedupe(out, first);
	return r;
}

size_t symbols_versions(const struct symbols *s, size_t first, size_t n, const char *soname,
			struct buf *out)
{
	struct key *v = xcalloc(n + 1, sizeof *v);
	size_t k = 0, shown = 0;

	out->len = 0;
	for (size_t i = first; v && i < first + n; i++)
		if (s->v[i].name && s->v[i].version[0] && strcmp(s->v[i].soname, soname) == 0)
			v[k] = (struct key){s->v[i].version, strlen(s->v[i].version), k}, k++;
	if (v)
		keys_sort(v, k);
	for (size_t i = 0; v && i < k; i++)
		if (i == 0 || !key_same(&v[i - 1], &v[i])) {
			buf_put(out, v[i].p, v[i].len + 1);
			shown++;
		}
	if (!v)
		out->oom = 1;
	free(v);
	return shown;
}

static int same_library(const struct symref *a, const struct symref *b)
{
	return strcmp(a->soname, b->soname) == 0 && str_cmp_null(a->library, b->library) == 0;
}

int symbols_list(const struct symbols *s, FILE *out)
{
	struct symref *v = xcalloc(s->n + 1, sizeof *v);
	size_t i;

	if (!v)
		return -1;
	if (s->n)
		memcpy(v, s->v, s->n * sizeof *v);
	if (s->n > 1)
		qsort(v, s->n, sizeof *v, ref_cmp);
	for (i = 0; i < s->n; i++) {
		const struct symref *r = &v[i];
		/* The records of one soname and library: a line without a symbol only when the
		 * files name none of its symbols (named ones sort after it). */
		size_t j = i + 1;
		while (!r->name && j < s->n && !v[j].name && same_library(&v[j], r))
			j++;
		if (!r->name && j < s->n && same_library(&v[j], r))
			continue;
		if (i && same_library(&v[i - 1], r) && str_cmp_null(v[i - 1].name, r->name) == 0 &&
		    strcmp(v[i - 1].version, r->version) == 0 && v[i - 1].recorded == r->recorded)
			continue; /* the same line from another file */
		print_text(out, "%s %s %s %s %s\n", r->soname, r->name ? r->name : "-",
			   r->version[0] ? r->version : "-",
			   r->name ? (r->recorded ? "recorded" : "data") : "-",
			   r->library ? r->library : "-");
	}
	free(v);
	return 0;
}
