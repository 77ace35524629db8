/* SPDX-License-Identifier: MIT */
/* deps.c - entries seen as dependencies: priorities as ranks, the feature lists given on the
 * command line, and the set of rendered dependencies that keeps each one at its strongest rank. */
#include "deps.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

const char *const deps_rank_names[RANKS] = {"suggested", "recommended", "required"};

const char *deps_rank_name(int rank)
{
	return rank >= 0 && rank < RANKS ? deps_rank_names[rank] : "recommended";
}

int deps_rank_parse(const char *name, size_t len)
{
	for (int i = 0; i < RANKS; i++)
		if (strlen(deps_rank_names[i]) == len && memcmp(name, deps_rank_names[i], len) == 0)
			return i;
	return -1;
}

int deps_entry_rank(const struct entry *en, struct buf *tmp)
{
	_Static_assert(RANK_SUGGESTED == 0 && RANK_RECOMMENDED == 1 && RANK_REQUIRED == 2,
		       "the ranks are manifest_priority_rank()'s");
	(void)tmp;
	return manifest_priority_rank(en);
}

/* ---- command-line name lists ---- */

int deps_namelist_add(struct namelist *l, const char *list)
{
	const char *p = list, *comma;
	char **v;
	unsigned char *u;

	l->given = 1;
	l->all |= !list;
	while (p) {
		comma = strchr(p, ',');
		v = xgrow(l->v, &l->cap, l->n, sizeof *v);
		if (v)
			l->v = v;
		u = xgrow(l->used, &l->used_cap, l->n, 1);
		if (u)
			l->used = u;
		if (!v || !u)
			return -1;
		l->v[l->n] = xstrndup(p, comma ? (size_t)(comma - p) : strlen(p));
		if (!l->v[l->n])
			return -1;
		l->used[l->n++] = 0;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

void deps_namelist_free(struct namelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->used);
	free(l->sorted);
	memset(l, 0, sizeof *l);
}

/* Does the list select an entry with this feature (NULL: none)?  An option given without names
 * selects every entry. */
int deps_namelist_selects(struct namelist *l, const char *feature)
{
	const struct key *k, *end;
	const char *f = feature ? feature : "";
	int hit = 0;

	if (!l->given)
		return 0;
	/* Names times entries would be quadratic: look names up in a sorted copy. */
	if (l->nsorted != l->n) {
		struct key *v = xrealloc(l->sorted, l->n, sizeof *v);
		if (!v) { /* out of memory: the slow way */
			for (size_t i = 0; i < l->n; i++)
				if (strcmp(l->v[i], f) == 0)
					hit = l->used[i] = 1;
			return hit || l->all;
		}
		for (size_t i = 0; i < l->n; i++)
			v[i] = (struct key){l->v[i], strlen(l->v[i]), i};
		keys_sort(v, l->n);
		l->sorted = v;
		l->nsorted = l->n;
	}
	end = l->sorted + l->nsorted;
	for (k = keys_find(l->sorted, l->nsorted, f, strlen(f));
	     k && k < end && k->len == strlen(f) && memcmp(k->p, f, k->len) == 0; k++)
		hit = l->used[k->pos] = 1;
	return hit || l->all;
}

/* A name given to --only-feature or --rpm-* that selected nothing is most likely a feature that
 * was renamed or dropped: say so (dlopen-notes.py stops with "Some features not found"). */
int deps_namelist_unused(const struct namelist *l, const char *option)
{
	int bad = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!l->used[i]) {
			if (l->v[i][0])
				print_text(stderr,
					   PROGRAM_NAME ": %s: no entry has the feature '%s'\n",
					   option, l->v[i]);
			else
				fprintf(stderr,
					PROGRAM_NAME ": %s: no entry is without a feature\n",
					option);
			bad = 1;
		}
	return bad;
}

/* The sonames of an entry joined by `sep`, each followed by `suffix`, into out (NUL-terminated).
 * Returns how many there are. */
size_t deps_join_sonames(const struct entry *en, const char *sep, const char *suffix,
			 struct buf *out)
{
	const struct keyval *m = entry_find(en, "soname");
	struct buf s = {0};
	size_t pos = 0, n = 0;

	out->len = 0;
	while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
		if (n++)
			buf_puts(out, sep);
		buf_put(out, s.p, s.len);
		buf_puts(out, suffix);
	}
	buf_put(out, "", 0);
	buf_free(&s);
	return n;
}

int deps_push(struct deps *d, const char *bucket, const char *text, int rank, size_t first)
{
	struct dep *v = text ? xgrow(d->v, &d->cap, d->n, sizeof *v) : NULL;

	if (!v)
		return -1;
	d->v = v;
	v = &d->v[d->n];
	v->bucket = bucket ? xstrndup(bucket, strlen(bucket)) : NULL;
	v->text = xstrndup(text, strlen(text));
	v->rank = rank;
	v->first = first;
	v->seq = d->n;
	if (!v->text || (bucket && !v->bucket)) {
		free(v->bucket);
		free(v->text);
		return -1;
	}
	d->n++;
	return 0;
}

void deps_free(struct deps *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].bucket);
		free(d->v[i].text);
	}
	free(d->v);
}

/* Buckets sort by name, the no-feature bucket last; then texts by bytes. */
static int dep_key_cmp(const struct dep *a, const struct dep *b)
{
	int c;

	if (!a->bucket != !b->bucket)
		return a->bucket ? -1 : 1;
	if (a->bucket && (c = strcmp(a->bucket, b->bucket)) != 0)
		return c;
	return strcmp(a->text, b->text);
}

/* The key, then the order they came in. */
static int dep_cmp(const void *x, const void *y)
{
	const struct dep *a = x, *b = y;
	int c = dep_key_cmp(a, b);

	if (c)
		return c;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Spec: the same dependency declared twice (two notes, two files) is one dependency; packaging
 * needs its strongest priority.  Sorts, then keeps the first of each run at the run's
 * strongest rank. */
void deps_merge(struct deps *d)
{
	size_t i, k = 0;

	if (d->n)
		qsort(d->v, d->n, sizeof *d->v, dep_cmp);
	for (i = 0; i < d->n; i++) {
		struct dep *last = k ? &d->v[k - 1] : NULL;
		if (last && dep_key_cmp(last, &d->v[i]) == 0) {
			if (d->v[i].rank > last->rank)
				last->rank = d->v[i].rank;
			free(d->v[i].bucket);
			free(d->v[i].text);
			continue;
		}
		d->v[k++] = d->v[i];
	}
	d->n = k;
}

static int by_first(const void *x, const void *y)
{
	const struct dep *a = x, *b = y;

	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void deps_sort_first(struct deps *d)
{
	if (d->n)
		qsort(d->v, d->n, sizeof *d->v, by_first);
}
