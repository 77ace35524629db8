/* SPDX-License-Identifier: MIT */
/* sbom.c - --list --format=cyclonedx: the files and the dependencies their notes declare as a
 * CycloneDX 1.6 JSON document (see report.h, docs/sbom.md). */
#include <stdlib.h>
#include <string.h>

#include "report_int.h"

#ifndef VERSION
#error "VERSION is defined by the build, from the file VERSION"
#endif

/* One soname of one entry: a dependency.  Equal ones (same soname, feature, description,
 * priority and alternatives) are one component. */
struct sbom_dep {
	char *identity; /* soname \n priority \n feature \n description \n alternatives */
	size_t soname_len, entry, alt, comp, file;
};

static int dep_cmp(const void *a, const void *b)
{
	return strcmp(((const struct sbom_dep *)a)->identity,
		      ((const struct sbom_dep *)b)->identity);
}

/* By file, then by component: each file's dependsOn list, each once. */
static int dep_by_file(const void *a, const void *b)
{
	const struct sbom_dep *x = a, *y = b;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->comp < y->comp ? -1 : x->comp > y->comp;
}

/* The ref of a file: "file:" and its path; of a component: "dlopen:" and its soname, "#N" for
 * the N-th different declaration of the same soname. */
static void file_ref(struct buf *b, const char *path)
{
	struct buf r = {0};

	/* Percent-encoded, so that two names never give one ref (the display escape does not
	 * tell a newline from a backslash and an n): bytes outside printable ASCII, '%'. */
	buf_puts(&r, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p > 0x20 && *p < 0x7f && *p != '%')
			buf_putc(&r, (char)*p);
		else
			buf_printf(&r, "%%%02X", *p);
	json_put_string(b, r.p ? r.p : "", r.len);
	buf_free(&r);
}

static void comp_ref(struct buf *b, const struct sbom_dep *d, size_t variant)
{
	struct buf r = {0};

	buf_puts(&r, "dlopen:");
	buf_put(&r, d->identity, d->soname_len);
	if (variant)
		buf_printf(&r, "#%zu", variant + 1);
	json_put_string(b, r.p ? r.p : "", r.len);
	buf_free(&r);
}

static void property(struct buf *b, const char *name, const char *value, size_t len, int *first)
{
	buf_printf(b, "%s{\"name\":\"dlnote:%s\",\"value\":", *first ? "" : ",", name);
	json_put_string(b, value, len);
	buf_putc(b, '}');
	*first = 0;
}

static int path_cmp(const void *a, const void *b, void *arg)
{
	const struct listing *l = arg;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(l->paths[x], l->paths[y]);

	return c ? c : x < y ? -1 : x > y;
}

/* canon[i]: the first of l->paths that names the same file as paths[i] (a file named twice on
 * the command line, not in a row, is one component: a bom-ref is unique). */
static size_t *canonical_paths(const struct listing *l)
{
	size_t *order = xcalloc(l->npaths + 1, sizeof *order),
	       *canon = xcalloc(l->npaths + 1, sizeof *canon);

	if (!order || !canon) {
		free(order);
		free(canon);
		return NULL;
	}
	for (size_t i = 0; i < l->npaths; i++)
		order[i] = i;
	qsort_r(order, l->npaths, sizeof *order, path_cmp, (void *)l);
	for (size_t k = 0; k < l->npaths; k++)
		canon[order[k]] = k && strcmp(l->paths[order[k]], l->paths[order[k - 1]]) == 0
					  ? canon[order[k - 1]]
					  : order[k];
	free(order);
	return canon;
}

/* Collect every (entry, soname) with its identity; their files are indexes into l->paths, the
 * first of each name (canon). */
static int collect(const struct listing *l, const size_t *canon, struct sbom_dep **out, size_t *n)
{
	struct buf tmp = {0}, name = {0}, id = {0};
	size_t cap = 0, file = 0;

	for (size_t e = 0; e < l->es.n; e++) {
		const struct entry *en = &l->es.v[e];
		const struct keyval *so = entry_find(en, "soname");
		size_t pos = 0, alt = 0;
		while (file < l->npaths && l->paths[file] != l->from[e].path)
			file++;
		while (so && json_array_next_string(so->val, so->vallen, &pos, &name) == 1) {
			struct sbom_dep *v = xgrow(*out, &cap, *n, sizeof **out);
			const char *s;
			if (!v)
				goto oom;
			*out = v;
			id.len = 0;
			buf_put(&id, name.p, name.len);
			buf_printf(&id, "\n%s\n", entry_priority(en, &tmp));
			if ((s = entry_string(en, "feature", &tmp)))
				buf_puts(&id, s);
			buf_putc(&id, '\n');
			if ((s = entry_string(en, "description", &tmp)))
				buf_puts(&id, s);
			buf_putc(&id, '\n');
			buf_put(&id, so->val, so->vallen);
			if (id.oom)
				goto oom;
			v[*n] = (struct sbom_dep){
				xstrndup(id.p, id.len), name.len, e, alt++, 0, canon[file]};
			if (!v[*n].identity)
				goto oom;
			(*n)++;
		}
	}
	buf_free(&tmp);
	buf_free(&name);
	buf_free(&id);
	return 0;
oom:
	buf_free(&tmp);
	buf_free(&name);
	buf_free(&id);
	return -1;
}

static void component(struct buf *b, const struct listing *l, const struct sbom_dep *d,
		      size_t variant)
{
	const struct entry *en = &l->es.v[d->entry];
	const struct keyval *so = entry_find(en, "soname");
	struct buf tmp = {0}, alts = {0}, name = {0};
	const char *prio = entry_priority(en, &tmp), *s;
	size_t pos = 0;
	int first = 1;

	buf_puts(b, ",\n    {\"type\":\"library\",\"bom-ref\":");
	comp_ref(b, d, variant);
	buf_puts(b, ",\"name\":");
	json_put_string(b, d->identity, d->soname_len);
	buf_printf(b, ",\"scope\":\"%s\"", strcmp(prio, "required") == 0 ? "required" : "optional");
	if ((s = entry_string(en, "description", &tmp))) {
		buf_puts(b, ",\"description\":");
		json_put_string(b, s, tmp.len);
	}
	buf_puts(b, ",\"properties\":[");
	prio = entry_priority(en, &tmp);
	property(b, "priority", prio, strlen(prio), &first);
	if ((s = entry_string(en, "feature", &tmp)))
		property(b, "feature", s, tmp.len, &first);
	if ((s = entry_string(en, "description", &tmp)))
		property(b, "description", s, tmp.len, &first);
	while (json_array_next_string(so->val, so->vallen, &pos, &name) == 1) {
		if (alts.len)
			buf_putc(&alts, ' ');
		buf_put(&alts, name.p, name.len);
	}
	property(b, "alternatives", alts.p ? alts.p : "", alts.len, &first);
	tmp.len = 0;
	buf_printf(&tmp, "%zu", d->alt + 1);
	property(b, "preference", tmp.p, tmp.len, &first);
	buf_puts(b, "]}");
	buf_free(&tmp);
	buf_free(&alts);
	buf_free(&name);
}

/* The files, the distinct dependencies as components, and who depends on what. */
static void document(struct buf *b, const struct listing *l, const size_t *canon,
		     struct sbom_dep *v, size_t n)
{
	size_t comps = 0, variant = 0, listed = 0;

	buf_puts(b, "{\n  \"bomFormat\":\"CycloneDX\",\"specVersion\":\"1.6\",\"version\":1,\n"
		    "  "
		    "\"metadata\":{\"tools\":{\"components\":[{\"type\":\"application\",\"name\":"
		    "\"" PROGRAM_NAME "\",\"version\":\"" VERSION "\"}]}},\n  \"components\":[");
	for (size_t i = 0; i < l->npaths; i++) {
		if (canon[i] != i)
			continue;
		buf_puts(b, listed++ ? ",\n    {\"type\":\"file\",\"bom-ref\":"
				     : "\n    {\"type\":\"file\",\"bom-ref\":");
		file_ref(b, l->paths[i]);
		buf_puts(b, ",\"name\":");
		json_put_text(b, l->paths[i], strlen(l->paths[i])); /* as --format=jsonl names files */
		buf_putc(b, '}');
	}
	for (size_t i = 0; i < n; i++) {
		int same = i && strcmp(v[i].identity, v[i - 1].identity) == 0;
		if (!same && i && v[i].soname_len == v[i - 1].soname_len &&
		    memcmp(v[i].identity, v[i - 1].identity, v[i].soname_len) == 0)
			variant++;
		else if (!same)
			variant = 0;
		v[i].comp = same ? v[i - 1].comp : comps++;
		if (!same)
			component(b, l, &v[i], variant);
		v[i].alt = variant; /* from here on: the variant, for the ref */
	}
	buf_puts(b, "\n  ],\n  \"dependencies\":[");
	if (n) /* (no dependency at all: v is NULL, which qsort may not be given) */
		qsort(v, n, sizeof *v, dep_by_file);
	listed = 0;
	for (size_t f = 0, i = 0; f < l->npaths; f++) {
		int first = 1;
		if (canon[f] != f)
			continue;
		buf_puts(b, listed++ ? ",\n    {\"ref\":" : "\n    {\"ref\":");
		file_ref(b, l->paths[f]);
		buf_puts(b, ",\"dependsOn\":[");
		for (; i < n && v[i].file == f; i++) {
			if (i && v[i - 1].file == f && v[i - 1].comp == v[i].comp)
				continue;
			buf_puts(b, first ? "" : ",");
			comp_ref(b, &v[i], v[i].alt);
			first = 0;
		}
		buf_puts(b, "]}");
	}
	buf_puts(b, "\n  ]\n}\n");
}

int sbom_cyclonedx(const struct listing *l, FILE *out)
{
	struct sbom_dep *v = NULL;
	struct buf b = {0};
	size_t n = 0, *canon = canonical_paths(l);
	int rc = canon ? collect(l, canon, &v, &n) : -1;

	if (rc == 0) {
		if (n)
			qsort(v, n, sizeof *v, dep_cmp);
		document(&b, l, canon, v, n);
		rc = b.oom ? -1 : 0;
		if (rc == 0)
			fwrite(b.p, 1, b.len, out);
	}
	for (size_t i = 0; i < n; i++)
		free(v[i].identity);
	free(v);
	free(canon);
	buf_free(&b);
	return rc;
}
