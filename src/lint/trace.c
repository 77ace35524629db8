/* SPDX-License-Identifier: MIT */
/* trace.c - the trace written by --record, read back for --discover/--check --recorded. */
#include "lint_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/base.h"

/* The module writes lines of at most 16 KiB; anything much longer is not ours. */
#define TRACE_MAX_LINE 65536

enum field {
	F_EVENT,
	F_BY,
	F_CALLER,
	F_NAME,
	F_SONAME,
	F_BUILD_ID,
	F_HIDDEN,
	F_CWD,
	F_SYMBOL,
	F_VERSION,
	FIELDS
};
static const char *const field_names[FIELDS] = {
	"event",           "by",     "caller", "name",   "soname",
	"caller_build_id", "hidden", "cwd",    "symbol", "version"};

struct line {
	struct buf f[FIELDS];
	long pid;
};

/* One line: a flat JSON object.  Unknown keys are skipped (later versions may add some). */
static int parse_line(const char *s, size_t len, size_t lineno, struct line *l, struct err *e)
{
	struct buf key = {0}, val = {0};
	struct json j;
	int r = -1, k;

	for (k = 0; k < FIELDS; k++)
		l->f[k].len = 0;
	l->pid = -1;
	json_init(&j, s, len, e);
	j.line = lineno;
	json_ws(&j);
	if (json_expect(&j, '{', "'{'"))
		goto out;
	do {
		key.len = val.len = 0;
		json_ws(&j);
		if (json_string(&j, &key))
			goto out;
		json_ws(&j);
		if (json_expect(&j, ':', "':'"))
			goto out;
		json_ws(&j);
		for (k = 0; k < FIELDS; k++)
			if (key.len == strlen(field_names[k]) &&
			    memcmp(key.p, field_names[k], key.len) == 0)
				break;
		if (json_peek(&j) == '"' ? json_string(&j, k < FIELDS ? &l->f[k] : &val)
					 : json_value(&j, 1, &val))
			goto out;
		if (key.len == 3 && memcmp(key.p, "pid", 3) == 0 && val.len) {
			buf_putc(&val, '\0');
			l->pid = strtol(val.p, NULL, 10);
		}
		json_ws(&j);
	} while (json_eat(&j, ','));
	if (json_expect(&j, '}', "',' or '}'"))
		goto out;
	json_ws(&j);
	if (json_peek(&j) >= 0) {
		json_error(&j, "text after the line's object");
		goto out;
	}
	for (k = 0; k < FIELDS; k++)
		buf_putc(&l->f[k], '\0');
	r = 0;
	for (k = 0; k < FIELDS; k++)
		r |= l->f[k].oom;
	if (r)
		err_oom(e);
out:
	buf_free(&key);
	buf_free(&val);
	return r;
}

static int is(const struct line *l, enum field f, const char *s)
{
	return strcmp(l->f[f].p, s) == 0;
}

static int add_ask(struct trace *t, const struct line *l)
{
	struct trace_ask *v = xrealloc(t->v, t->n + 1, sizeof *v), *a;
	const char *id = l->f[F_BUILD_ID].p;
	long c;

	if (!v)
		return -1;
	t->v = v;
	a = &t->v[t->n];
	memset(a, 0, sizeof *a);
	a->pid = l->pid;
	a->name = xstrndup(l->f[F_NAME].p, strlen(l->f[F_NAME].p));
	c = trace_caller_add(t, l->f[F_CALLER].p, id[0] ? id : NULL, l->f[F_HIDDEN].p[0] != '\0');
	if (!a->name || c < 0) {
		free(a->name);
		return -1;
	}
	a->caller = (size_t)c;
	t->n++;
	return 0;
}

/* A "loaded" line completes the latest ask of that process for that caller and name, with the
 * soname of the object loaded (when it has one). */
static int mark_loaded(struct trace *t, const struct line *l)
{
	for (size_t i = t->n; i-- > 0;)
		if (t->v[i].pid == l->pid &&
		    strcmp(t->callers[t->v[i].caller].path, l->f[F_CALLER].p) == 0 &&
		    strcmp(t->v[i].name, l->f[F_NAME].p) == 0) {
			const char *so = l->f[F_SONAME].p;
			t->v[i].loaded = 1;
			if (so[0] && !t->v[i].soname &&
			    !(t->v[i].soname = xstrndup(so, strlen(so))))
				return -1;
			return 0;
		}
	return 0;
}

/* A "symbol" line: a dlsym() or dlvsym() result (trace_symbols.c reads them per FILE). */
static int add_symbol(struct trace *t, const struct line *l)
{
	const char *id = l->f[F_BUILD_ID].p;
	long c = trace_caller_add(t, l->f[F_CALLER].p, id[0] ? id : NULL, 0);

	if (c < 0)
		return -1;
	t->callers[c].asks--; /* a lookup, not a dlopen() ask */
	return trace_symbol_add(t, (size_t)c, l->f[F_SONAME].p, l->f[F_SYMBOL].p,
				l->f[F_VERSION].p);
}

static int take_line(struct trace *t, const struct line *l)
{
	if (is(l, F_EVENT, "unauditable"))
		t->unauditable++;
	if (is(l, F_EVENT, "start"))
		t->processes++;
	/* The tool's own line: where the recording ran (the first, when several appended). */
	if (is(l, F_EVENT, "record") && !t->cwd && l->f[F_CWD].p[0] == '/' &&
	    !(t->cwd = xstrndup(l->f[F_CWD].p, strlen(l->f[F_CWD].p))))
		return -1;
	if (is(l, F_EVENT, "symbol") && is(l, F_BY, "dlsym") && l->f[F_SYMBOL].p[0] &&
	    l->f[F_SONAME].p[0])
		return add_symbol(t, l);
	/* Only dlopen() by name: a DT_NEEDED entry is declared already, a path is a plugin. */
	if (!is(l, F_BY, "dlopen") || strchr(l->f[F_NAME].p, '/') || !l->f[F_NAME].p[0])
		return 0;
	if (is(l, F_EVENT, "asked"))
		return add_ask(t, l);
	if (is(l, F_EVENT, "loaded"))
		return mark_loaded(t, l);
	return 0;
}

int trace_load(const char *path, struct trace *t, struct err *e)
{
	FILE *f = fopen(path, "re");
	struct line l;
	char *s = NULL;
	size_t cap = 0, lineno = 0;
	ssize_t n;
	int r = 0;

	memset(t, 0, sizeof *t);
	memset(&l, 0, sizeof l);
	t->path = path;
	if (!f)
		return err_set(e, "%s", strerror(errno));
	while (r == 0 && (n = getline(&s, &cap, f)) >= 0) {
		lineno++;
		if (n && s[n - 1] == '\n')
			n--;
		if (n > TRACE_MAX_LINE)
			r = err_set(e, "line %zu: longer than %d bytes", lineno, TRACE_MAX_LINE);
		else if (n && parse_line(s, (size_t)n, lineno, &l, e) == 0 && take_line(t, &l))
			r = err_oom(e);
		else if (n && e->msg[0])
			r = -1;
	}
	if (r == 0 && ferror(f))
		r = err_set(e, "read error: %s", strerror(errno));
	for (int k = 0; k < FIELDS; k++)
		buf_free(&l.f[k]);
	free(s);
	fclose(f);
	return r;
}

void trace_free(struct trace *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].soname);
	}
	free(t->v);
	free(t->cwd);
	trace_symbols_free(t);
	trace_callers_free(t);
	memset(t, 0, sizeof *t);
}

/* ---- per FILE ---- */

/* Every soname of every entry of the notes, then the file's DT_NEEDED and DT_SONAME names. */
static int declared_list(const struct elf *ef, const struct entries *declared, struct buf *all,
			 size_t *n, struct err *e)
{
	struct buf s = {0};

	*n = 0;
	if (discover_linked_names(ef, all, n, e))
		return -1;
	for (size_t i = 0; i < declared->n; i++) {
		const struct keyval *m = entry_find(&declared->v[i], "soname");
		size_t pos = 0;
		while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
			buf_put(all, s.p, s.len);
			buf_putc(all, '\0');
			(*n)++;
			s.len = 0;
		}
	}
	buf_free(&s);
	return all->oom ? err_oom(e) : 0;
}

/* Whether the list of n NUL-terminated names holds (name, len). */
static int in_list_n(const char *list, size_t n, const char *name, size_t len)
{
	for (size_t i = 0; i < n; i++, list += strlen(list) + 1)
		if (strlen(list) == len && memcmp(list, name, len) == 0)
			return 1;
	return 0;
}

static int in_list(const char *list, size_t n, const char *name)
{
	return in_list_n(list, n, name, strlen(name));
}

/* "libfoo.so.2" and "libfoo.so.1" name the same library: the text before ".so". */
static int same_library(const char *a, const char *b)
{
	const char *ea = strstr(a, ".so"), *eb = strstr(b, ".so");

	return ea && eb && ea - a == eb - b && memcmp(a, b, (size_t)(ea - a)) == 0;
}

struct group {
	size_t *ask; /* indices into the trace, in the order tried */
	size_t n;
};

static int group_has(const struct trace *t, const struct group *g, const char *name)
{
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(t->v[g->ask[i]].name, name) == 0)
			return 1;
	return 0;
}

static int group_push(struct group *g, size_t ask)
{
	size_t *v = xrealloc(g->ask, g->n + 1, sizeof *v);

	if (!v)
		return -1;
	g->ask = v;
	g->ask[g->n++] = ask;
	return 0;
}

/* The asks of FILE in groups of alternatives; groups that share a name are one. */
static int make_groups(const struct trace *t, const char *const *is, struct group **out,
		       size_t *nout)
{
	struct group *g = NULL, *v;
	size_t n = 0, i, k, m;

	for (i = 0; i < t->n; i++) {
		const struct trace_ask *a = &t->v[i];
		struct group *prev = NULL;
		if (!is[a->caller])
			continue;
		for (k = n; k-- > 0 && !prev;)
			if (t->v[g[k].ask[g[k].n - 1]].pid == a->pid)
				prev = &g[k];
		if (prev && group_has(t, prev, a->name))
			continue;
		if (!(prev && !t->v[prev->ask[prev->n - 1]].loaded &&
		      same_library(t->v[prev->ask[0]].name, a->name))) {
			for (k = 0; k < n && !group_has(t, &g[k], a->name); k++)
				;
			if (k < n)
				continue; /* asked before, by another process or earlier */
			v = xrealloc(g, n + 1, sizeof *v);
			if (!v)
				goto oom;
			g = v;
			memset(&g[n], 0, sizeof g[n]);
			prev = &g[n++];
		}
		if (group_push(prev, i))
			goto oom;
	}
	/* Fold a group into an earlier one that shares a name. */
	for (i = 1; i < n; i++)
		for (k = 0; k < i; k++) {
			int share = 0;
			for (m = 0; m < g[i].n && !share; m++)
				share = group_has(t, &g[k], t->v[g[i].ask[m]].name);
			if (!share)
				continue;
			for (m = 0; m < g[i].n; m++)
				if (!group_has(t, &g[k], t->v[g[i].ask[m]].name) &&
				    group_push(&g[k], g[i].ask[m]))
					goto oom;
			free(g[i].ask);
			memmove(&g[i], &g[i + 1], (n - i - 1) * sizeof *g);
			n--;
			i--;
			break;
		}
	*out = g;
	*nout = n;
	return 0;
oom:
	for (i = 0; i < n; i++)
		free(g[i].ask);
	free(g);
	return -1;
}

static void groups_free(struct group *g, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(g[i].ask);
	free(g);
}

static int names_have(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return 1;
	return 0;
}

int trace_discover(struct trace *t, const struct elf *ef, const struct scan *sc, const char *path,
		   const struct entries *declared, struct discovery *d, struct err *e)
{
	struct buf dl = {0};
	const char **is = NULL;
	struct group *g = NULL;
	const char **names = NULL;
	size_t ng = 0, ndl, i, k, n;
	int r = 0;

	if (trace_match(t, path, ef, sc, &is, e))
		return -1;
	if (declared_list(ef, declared, &dl, &ndl, e)) {
		free(is);
		buf_free(&dl);
		return -1;
	}
	if (make_groups(t, is, &g, &ng)) {
		free(is);
		buf_free(&dl);
		return err_oom(e);
	}
	for (i = 0; i < ng && r == 0; i++) {
		const char **v = xrealloc(names, 2 * g[i].n, sizeof *v), *asked_as = NULL;
		if (!v) {
			r = -1;
			break;
		}
		names = v;
		/* The soname of what was loaded first, then the name asked for when it differs (a
		 * development symlink, libfoo.so): packages provide sonames. */
		for (k = n = 0; k < g[i].n; k++) {
			const struct trace_ask *a = &t->v[g[i].ask[k]];
			if (a->soname && strcmp(a->soname, a->name) != 0 &&
			    !in_list(dl.p, ndl, a->soname) && !names_have(names, n, a->soname)) {
				names[n++] = a->soname;
				asked_as = asked_as ? asked_as : a->name;
			}
			if (!in_list(dl.p, ndl, a->name) && !names_have(names, n, a->name))
				names[n++] = a->name;
		}
		if (n)
			r = discover_add(d, names, n, path, 1, asked_as);
	}
	free(names);
	free(is);
	groups_free(g, ng);
	buf_free(&dl);
	return r ? err_oom(e) : 0;
}

/* The names FILE asked for, and the sonames of what was loaded for it (libfoo.so.1 for
 * libfoo.so), into seen (NUL-separated; *n counts them). */
static void seen_names(const struct trace *t, const char *const *is, struct buf *seen, size_t *n)
{
	for (size_t i = 0; i < t->n; i++)
		for (int k = 0; k < 2 && is[t->v[i].caller]; k++) {
			const char *name = k ? t->v[i].soname : t->v[i].name;
			if (!name || in_list(seen->p, *n, name))
				continue;
			buf_puts(seen, name);
			buf_putc(seen, '\0');
			(*n)++;
		}
}

/* One line per group of alternatives FILE does not declare, as --discover drafts them: the same
 * count (a group whose first name, the loaded soname, was printed already is the same
 * dependency).  Returns how many. */
static long print_undeclared(const struct trace *t, const struct group *g, size_t ng,
			     const char *dl, size_t ndl, const char *path, FILE *out)
{
	struct buf names = {0}, printed = {0};
	size_t nprinted = 0, i, k;
	long undeclared = 0;

	for (i = 0; i < ng; i++) {
		const char *asked_as = NULL;
		size_t n = 0, first;
		int loaded = 0;
		names.len = 0;
		for (k = 0; k < g[i].n; k++) {
			const struct trace_ask *a = &t->v[g[i].ask[k]];
			loaded |= a->loaded;
			/* the soname of what was loaded for a development name: what to declare */
			if (a->soname && strcmp(a->soname, a->name) != 0 &&
			    !in_list(dl, ndl, a->soname)) {
				buf_printf(&names, "%s%s", n++ ? " or " : "", a->soname);
				asked_as = asked_as ? asked_as : a->name;
			}
			if (in_list(dl, ndl, a->name) ||
			    (a->soname && strcmp(a->soname, a->name) != 0))
				continue;
			buf_printf(&names, "%s%s", n++ ? " or " : "", a->name);
		}
		if (!n)
			continue;
		first = strcspn(names.p, " ");
		if (in_list_n(printed.p, nprinted, names.p, first))
			continue;
		buf_put(&printed, names.p, first);
		buf_putc(&printed, '\0');
		nprinted++;
		if (asked_as)
			buf_printf(&names, " (asked for as %s%s)", asked_as,
				   soname_unversioned(asked_as, strlen(asked_as))
					   ? ", a development name"
					   : "");
		else if (n > 1)
			buf_puts(&names, " (tried in that order)");
		fprintf(out, "%s: undeclared: %.*s: %s during the recording\n", path,
			(int)names.len, names.p,
			loaded ? "dlopen()ed" : "asked for with dlopen(), not found,");
		undeclared++;
	}
	buf_free(&names);
	buf_free(&printed);
	return undeclared;
}

/* How many libraries the groups stand for: a group is known by the soname of what was loaded
 * for it, else by its first name (one object dlopen()ed under two names is one library). */
static size_t distinct_libraries(const struct trace *t, const struct group *g, size_t ng)
{
	struct buf keys = {0};
	size_t n = 0;

	for (size_t i = 0; i < ng; i++) {
		const char *key = t->v[g[i].ask[0]].name;
		for (size_t k = 0; k < g[i].n; k++)
			if (t->v[g[i].ask[k]].soname) {
				key = t->v[g[i].ask[k]].soname;
				break;
			}
		if (in_list(keys.p, n, key))
			continue;
		buf_puts(&keys, key);
		buf_putc(&keys, '\0');
		n++;
	}
	buf_free(&keys);
	return n;
}

/* Declared entries none of whose sonames FILE asked for: "a or b" each, in v->unused; with
 * verbose, a line each. */
static void unused_entries(const struct entries *declared, const char *seen, size_t nseen,
			   const char *path, int verbose, FILE *out, struct trace_verdict *v)
{
	struct buf s = {0}, list = {0};

	for (size_t i = 0; i < declared->n; i++) {
		const struct keyval *m = entry_find(&declared->v[i], "soname");
		size_t pos = 0;
		int asked = 0;
		list.len = 0;
		while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
			buf_putc(&s, '\0');
			asked |= in_list(seen, nseen, s.p);
			buf_printf(&list, "%s%s", list.len ? " or " : "", s.p);
			s.len = 0;
		}
		if (asked || !list.len)
			continue;
		buf_printf(&v->unused, "%s%.*s", v->nunused++ ? ", " : "", (int)list.len, list.p);
		if (verbose)
			fprintf(out,
				"%s: not loaded: %.*s: declared, not dlopen()ed during the "
				"recording\n",
				path, (int)list.len, list.p);
	}
	buf_free(&s);
	buf_free(&list);
}

int trace_check(struct trace *t, const struct elf *ef, const struct scan *sc, const char *path,
		const struct entries *declared, int verbose, FILE *out, struct trace_verdict *v,
		struct err *e)
{
	struct buf dl = {0}, seen = {0};
	const char **is = NULL;
	struct group *g = NULL;
	size_t ndl, nseen = 0, ng = 0;

	memset(v, 0, sizeof *v);
	if (trace_match(t, path, ef, sc, &is, e))
		return -1;
	if (declared_list(ef, declared, &dl, &ndl, e) || make_groups(t, is, &g, &ng)) {
		free(is);
		buf_free(&dl);
		return e->msg[0] ? -1 : err_oom(e);
	}
	for (size_t i = 0; i < t->ncallers; i++)
		if (is[i]) {
			v->callers++;
			if (verbose)
				fprintf(out, "%s: is %s in the recording (%s)\n", path,
					t->callers[i].path, is[i]);
		}
	v->recorded = distinct_libraries(t, g, ng);
	v->undeclared = print_undeclared(t, g, ng, dl.p, ndl, path, out);
	/* Entries it did not dlopen(): said only of a file the recording saw dlopen(). */
	seen_names(t, is, &seen, &nseen);
	if (v->callers)
		unused_entries(declared, seen.p, nseen, path, verbose, out, v);
	groups_free(g, ng);
	free(is);
	buf_free(&seen);
	buf_free(&dl);
	return v->unused.oom ? err_oom(e) : 0;
}

void trace_verdict_free(struct trace_verdict *v)
{
	buf_free(&v->unused);
}
