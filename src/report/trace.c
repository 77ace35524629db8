/* SPDX-License-Identifier: MIT */
/* trace.c - the trace written by --record, read back for --discover/--check --recorded. */
#include "report_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/base.h"

/* The module writes lines of at most 16 KiB; anything much longer is not ours. */
#define TRACE_MAX_LINE 65536

enum field { F_EVENT, F_BY, F_CALLER, F_NAME, F_SONAME, F_BUILD_ID, FIELDS };
static const char *const field_names[FIELDS] = {"event", "by",     "caller",
						"name",  "soname", "caller_build_id"};

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

/* Where the caller is now, to compare with a FILE: by device and inode, and by real path (a file
 * rewritten in place by this tool has a new inode). */
static void resolve_caller(struct trace_ask *a, const struct trace_ask *prev)
{
	struct stat st;
	char real[PATH_MAX];

	if (prev && strcmp(prev->caller, a->caller) == 0) {
		a->caller_known = prev->caller_known;
		a->dev = prev->dev;
		a->ino = prev->ino;
		a->caller_real = prev->caller_real
					 ? xstrndup(prev->caller_real, strlen(prev->caller_real))
					 : NULL;
		return;
	}
	if (stat(a->caller, &st) == 0) {
		a->caller_known = 1;
		a->dev = st.st_dev;
		a->ino = st.st_ino;
	}
	a->caller_real = realpath(a->caller, real) ? xstrndup(real, strlen(real)) : NULL;
}

static int add_ask(struct trace *t, const struct line *l)
{
	struct trace_ask *v = xrealloc(t->v, t->n + 1, sizeof *v), *a;

	if (!v)
		return -1;
	t->v = v;
	a = &t->v[t->n];
	memset(a, 0, sizeof *a);
	a->pid = l->pid;
	a->caller = xstrndup(l->f[F_CALLER].p, strlen(l->f[F_CALLER].p));
	a->name = xstrndup(l->f[F_NAME].p, strlen(l->f[F_NAME].p));
	a->build_id = l->f[F_BUILD_ID].p[0]
			      ? xstrndup(l->f[F_BUILD_ID].p, strlen(l->f[F_BUILD_ID].p))
			      : NULL;
	if (!a->caller || !a->name || (l->f[F_BUILD_ID].p[0] && !a->build_id)) {
		free(a->caller);
		free(a->name);
		free(a->build_id);
		return -1;
	}
	resolve_caller(a, t->n ? &t->v[t->n - 1] : NULL);
	t->n++;
	return 0;
}

/* A "loaded" line completes the latest ask of that process for that caller and name, with the
 * soname of the object loaded (when it has one). */
static int mark_loaded(struct trace *t, const struct line *l)
{
	for (size_t i = t->n; i-- > 0;)
		if (t->v[i].pid == l->pid && strcmp(t->v[i].caller, l->f[F_CALLER].p) == 0 &&
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

static int take_line(struct trace *t, const struct line *l)
{
	if (is(l, F_EVENT, "unauditable"))
		t->unauditable++;
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
		free(t->v[i].caller);
		free(t->v[i].name);
		free(t->v[i].caller_real);
		free(t->v[i].soname);
		free(t->v[i].build_id);
	}
	free(t->v);
	memset(t, 0, sizeof *t);
}

/* ---- per FILE ---- */

struct file_id {
	int known;
	dev_t dev;
	ino_t ino;
	char real[PATH_MAX];
	char build_id[2 * 64 + 1]; /* hex, "" when FILE has none */
};

static void file_id(const char *path, const struct elf *ef, const struct scan *sc,
		    struct file_id *id)
{
	struct stat st;

	memset(id, 0, sizeof *id);
	scan_build_id(ef, sc, id->build_id);
	if (stat(path, &st) == 0) {
		id->known = 1;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
	if (!realpath(path, id->real))
		snprintf(id->real, sizeof id->real, "%s", path);
}

/* The same build-id first (a copy of FILE elsewhere, stripped or not, is FILE), then the same
 * file (device and inode) or real path. */
static int asked_by(const struct trace_ask *a, const struct file_id *id)
{
	if (id->build_id[0] && a->build_id && strcmp(a->build_id, id->build_id) == 0)
		return 1;
	return (id->known && a->caller_known && a->dev == id->dev && a->ino == id->ino) ||
	       (a->caller_real && strcmp(a->caller_real, id->real) == 0) ||
	       strcmp(a->caller, id->real) == 0;
}

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
static int make_groups(const struct trace *t, const struct file_id *id, struct group **out,
		       size_t *nout)
{
	struct group *g = NULL, *v;
	size_t n = 0, i, k, m;

	for (i = 0; i < t->n; i++) {
		const struct trace_ask *a = &t->v[i];
		struct group *prev = NULL;
		if (!asked_by(a, id))
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

int trace_discover(const struct trace *t, const struct elf *ef, const struct scan *sc,
		   const char *path, const struct entries *declared, struct discovery *d,
		   struct err *e)
{
	struct buf dl = {0};
	struct file_id id;
	struct group *g = NULL;
	const char **names = NULL;
	size_t ng = 0, ndl, i, k, n;
	int r = 0;

	file_id(path, ef, sc, &id);
	if (declared_list(ef, declared, &dl, &ndl, e)) {
		buf_free(&dl);
		return -1;
	}
	if (make_groups(t, &id, &g, &ng)) {
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
	groups_free(g, ng);
	buf_free(&dl);
	return r ? err_oom(e) : 0;
}

long trace_check(const struct trace *t, const struct elf *ef, const struct scan *sc,
		 const char *path, const struct entries *declared, FILE *out, struct err *e)
{
	struct buf dl = {0}, s = {0}, seen = {0}, names = {0}, printed = {0};
	struct file_id id;
	struct group *g = NULL;
	size_t ndl, nseen = 0, ng = 0, nprinted = 0, i, k;
	long undeclared = 0;

	file_id(path, ef, sc, &id);
	if (declared_list(ef, declared, &dl, &ndl, e))
		return buf_free(&dl), -1;
	if (make_groups(t, &id, &g, &ng)) {
		buf_free(&dl);
		return err_oom(e), -1;
	}
	/* What FILE asked for, and the sonames of what was loaded for it (libfoo.so.1 for
	 * libfoo.so). */
	for (i = 0; i < t->n; i++)
		for (k = 0; k < 2 && asked_by(&t->v[i], &id); k++) {
			const char *name = k ? t->v[i].soname : t->v[i].name;
			if (!name || in_list(seen.p, nseen, name))
				continue;
			buf_puts(&seen, name);
			buf_putc(&seen, '\0');
			nseen++;
		}
	/* One line per group of alternatives, as --discover drafts them: the same count (a group
	 * whose first name, the loaded soname, was printed already is the same dependency). */
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
			    !in_list(dl.p, ndl, a->soname)) {
				buf_printf(&names, "%s%s", n++ ? " or " : "", a->soname);
				asked_as = asked_as ? asked_as : a->name;
			}
			if (in_list(dl.p, ndl, a->name) ||
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
	groups_free(g, ng);
	buf_free(&names);
	buf_free(&printed);
	/* Information: entries none of whose sonames this file asked for. */
	for (i = 0; i < declared->n; i++) {
		const struct keyval *m = entry_find(&declared->v[i], "soname");
		struct buf list = {0};
		size_t pos = 0;
		int asked = 0;
		while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
			buf_putc(&s, '\0');
			asked |= in_list(seen.p, nseen, s.p);
			buf_printf(&list, "%s%s", list.len ? ", " : "", s.p);
			s.len = 0;
		}
		if (!asked && list.len)
			fprintf(out,
				"%s: not loaded: %.*s: declared, not dlopen()ed during the "
				"recording\n",
				path, (int)list.len, list.p);
		buf_free(&list);
	}
	buf_free(&s);
	buf_free(&seen);
	buf_free(&dl);
	return undeclared;
}
