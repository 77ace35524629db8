/* SPDX-License-Identifier: MIT */
/* trace_symbols.c - the dlsym() and dlvsym() results of a trace (its "symbol" lines: the caller,
 * the library's soname, the symbol and the version node it resolved at), and those a FILE looked
 * up: the callers that FILE is (trace_match.c, as the lint finds them), the sonames its notes
 * declare.  They join what the file's data names in --format=symbols, marked "recorded". */
#include "lint_int.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

int trace_symbol_add(struct trace *t, size_t caller, const char *soname, const char *name,
		     const char *version)
{
	struct trace_symbol *v = xgrow(t->syms, &t->syms_cap, t->nsyms, sizeof *v), *s;

	if (!v)
		return -1;
	t->syms = v;
	s = &v[t->nsyms];
	s->caller = caller;
	s->soname = xstrndup(soname, strlen(soname));
	s->name = xstrndup(name, strlen(name));
	s->version = xstrndup(version, strlen(version));
	if (!s->soname || !s->name || !s->version) {
		free(s->soname);
		free(s->name);
		free(s->version);
		return -1;
	}
	t->nsyms++;
	return 0;
}

void trace_symbols_free(struct trace *t)
{
	for (size_t i = 0; i < t->nsyms; i++) {
		free(t->syms[i].soname);
		free(t->syms[i].name);
		free(t->syms[i].version);
	}
	free(t->syms);
	t->syms = NULL;
	t->nsyms = t->syms_cap = 0;
}

/* Whether an entry of es names the soname. */
static int declares(const struct entries *es, const char *soname, struct buf *tmp)
{
	for (size_t i = 0; i < es->n; i++) {
		const struct keyval *m = entry_find(&es->v[i], "soname");
		size_t pos = 0;
		while (m && json_array_next_string(m->val, m->vallen, &pos, tmp) == 1) {
			int same =
				tmp->len == strlen(soname) && memcmp(tmp->p, soname, tmp->len) == 0;
			tmp->len = 0;
			if (same)
				return 1;
		}
	}
	return 0;
}

int trace_symbols_of(struct trace *t, struct libfind *f, const char *path, const struct elf *ef,
		     const struct scan *sc, const struct entries *es, size_t file,
		     struct symbols *out, struct err *e)
{
	const char **is = NULL;
	struct buf tmp = {0};
	int r = 0;

	if (!t->nsyms)
		return 0;
	if (trace_match(t, path, ef, sc, &is, e))
		return -1;
	for (size_t i = 0; i < t->nsyms && r == 0; i++) {
		const struct trace_symbol *s = &t->syms[i];
		const struct libfind_lib *lib;
		/* A library the notes do not declare is the lint's business, not a dependency's. */
		if (!is[s->caller] || !declares(es, s->soname, &tmp))
			continue;
		if (!(lib = libfind_get(f, s->soname, ef, e)))
			r = -1;
		else if (symbols_add(out, s->soname, s->name, s->version,
				     lib->found ? lib->path : NULL, file, 1))
			r = err_oom(e);
	}
	free(is);
	buf_free(&tmp);
	return r;
}
