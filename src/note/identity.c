/* SPDX-License-Identifier: MIT */
/* identity.c - which entries declare the same dependency (note.h): their feature and sonames.
 * A program listing two such entries lists the dependency twice, which --check rejects; a merge
 * folds or replaces them, and inputs that contradict each other are refused. */
#include <stdlib.h>
#include <string.h>

#include "note.h"

void manifest_entry_identity(const struct entry *en, struct buf *out)
{
	const struct keyval *f = entry_find(en, "feature"), *s = entry_find(en, "soname");

	if (f)
		buf_put(out, f->val, f->vallen);
	buf_putc(out, '\n');
	if (s)
		buf_put(out, s->val, s->vallen);
}

void manifest_entry_label(const struct entry *en, struct buf *out)
{
	const struct keyval *f = entry_find(en, "feature"), *s = entry_find(en, "soname");

	if (f)
		buf_put(out, f->val, f->vallen);
	else
		buf_puts(out, "(no feature)");
	buf_putc(out, ' ');
	if (s)
		buf_put(out, s->val, s->vallen);
}

#define NO_ENTRY ((size_t)-1)

/* The identities of a's entries then b's, grouped: grp[i] is the group of entry i (b's after
 * a's), and first[g] the first entry of a in group g (NO_ENTRY when only b's are there).
 * O(n log n).  Returns the number of groups, or -1 when out of memory. */
static long group_identities(const struct entries *a, const struct entries *b, size_t **grp,
			     size_t **first)
{
	size_t na = a->n, n = na + b->n, i, g = 0;
	size_t *start = xcalloc(n + 1, sizeof *start);
	struct key *k = xcalloc(n + 1, sizeof *k);
	struct buf ids = {0};
	long r = -1;

	*grp = xcalloc(n + 1, sizeof **grp), *first = xcalloc(n + 1, sizeof **first);
	if (!start || !k || !*grp || !*first)
		goto out;
	for (i = 0; i < n; i++) {
		start[i] = ids.len;
		manifest_entry_identity(i < na ? &a->v[i] : &b->v[i - na], &ids);
	}
	if (ids.oom)
		goto out;
	start[n] = ids.len;
	for (i = 0; i < n; i++)
		k[i] = (struct key){ids.p + start[i], start[i + 1] - start[i], i};
	keys_sort(k, n);
	for (i = 0; i < n; i++) {
		if (i > 0 && !key_same(&k[i - 1], &k[i]))
			g++;
		if (i == 0 || !key_same(&k[i - 1], &k[i]))
			(*first)[g] = k[i].pos < na ? k[i].pos : NO_ENTRY;
		(*grp)[k[i].pos] = g;
	}
	r = n ? (long)g + 1 : 0;
out:
	buf_free(&ids);
	free(start);
	free(k);
	if (r < 0) {
		free(*grp), free(*first);
		*grp = *first = NULL;
	}
	return r;
}

/* The dst entries of each group as lists: next[i] the next entry of dst in i's group after i,
 * NO_ENTRY at the end (the first is holder[g]). */
static size_t *group_chains(size_t na, const size_t *grp, const size_t *holder)
{
	size_t *next = xcalloc(na + 1, sizeof *next), *last = xcalloc(na + 1, sizeof *last);
	size_t i;

	if (!next || !last) {
		free(next), free(last);
		return NULL;
	}
	for (i = 0; i < na; i++) {
		next[i] = NO_ENTRY;
		if (holder[grp[i]] != i)
			next[last[grp[i]]] = i;
		last[grp[i]] = i;
	}
	free(last);
	return next;
}

/* dst without its entries marked in drop, which go to `to` (kept in order). */
static int drop_marked(struct entries *dst, const unsigned char *drop, size_t na,
		       struct entries *to)
{
	size_t i, k = 0;
	int r = 0;

	for (i = 0; i < dst->n; i++) {
		if (i < na && drop[i]) {
			if (r == 0)
				r = manifest_append_take(to, &dst->v[i]);
			continue;
		}
		dst->v[k++] = dst->v[i];
	}
	dst->n = k;
	return r;
}

int manifest_merge_identity(struct entries *dst, const struct entries *src, int replace,
			    struct entries *replaced, size_t *clash_dst, size_t *clash_src)
{
	struct entries dropped = {0}, *to = replaced ? replaced : &dropped;
	size_t na = dst->n, *grp, *holder, *next = NULL, j, i;
	unsigned char *done = NULL, *drop = NULL;
	int r = 0;

	if (group_identities(dst, src, &grp, &holder) < 0)
		return -1;
	if (!(next = group_chains(na, grp, holder)) || !(done = xcalloc(na + src->n + 1, 1)) ||
	    !(drop = xcalloc(na + 1, 1)))
		r = -1;
	for (j = 0; j < src->n && r == 0; j++) {
		size_t g = grp[na + j], h = holder[g];
		struct entries one = {0};
		if (h == NO_ENTRY) {
			r = manifest_append_copy(dst, &src->v[j]);
			holder[g] = dst->n - 1;
			done[g] = 1;
			continue;
		}
		if (done[g] && h >= na) /* the manifest's own repeat: judged against its first */
			i = manifest_entry_equal(&dst->v[h], &src->v[j]) ? h : NO_ENTRY;
		else if (done[g])
			continue; /* the file's entries of this identity were judged already */
		else /* equal to any of the file's entries of this identity: kept as they are */
			for (i = h; i != NO_ENTRY && !manifest_entry_equal(&dst->v[i], &src->v[j]);)
				i = i < na ? next[i] : NO_ENTRY;
		done[g] = 1;
		if (i != NO_ENTRY)
			continue;
		if (!replace || h >= na) {
			*clash_dst = h, *clash_src = j;
			r = 1;
		} else if ((r = manifest_append_copy(&one, &src->v[j])) == 0 &&
			   (r = manifest_append_take(to, &dst->v[h])) == 0) {
			/* the new entry takes the first one's place; every old one is handed back
			 */
			dst->v[h] = one.v[0];
			free(one.v);
			for (i = next[h]; i != NO_ENTRY; i = next[i])
				drop[i] = 1;
		} else {
			manifest_free(&one);
		}
	}
	if (r == 0 && drop && drop_marked(dst, drop, na, to))
		r = -1;
	manifest_free(&dropped);
	free(grp);
	free(holder);
	free(next);
	free(done);
	free(drop);
	return r;
}

int manifest_fold_strongest(struct entries *es)
{
	static const struct entries none;
	size_t *grp, *first, *best, i, k = 0;
	long n = group_identities(es, &none, &grp, &first);

	if (n < 0 || !(best = xcalloc((size_t)n + 1, sizeof *best))) {
		if (n >= 0)
			free(grp), free(first);
		return -1;
	}
	for (i = 0; i < (size_t)n; i++)
		best[i] = first[i];
	for (i = 0; i < es->n; i++)
		if (manifest_priority_rank(&es->v[i]) >
		    manifest_priority_rank(&es->v[best[grp[i]]]))
			best[grp[i]] = i;
	/* The strongest takes the place of its group's first; the others go. */
	for (i = 0; i < es->n; i++) {
		size_t g = grp[i];
		if (first[g] == i && best[g] != i) {
			manifest_entry_free(&es->v[i]);
			es->v[k++] = es->v[best[g]];
			memset(&es->v[best[g]], 0, sizeof es->v[0]); /* moved: not freed below */
		} else if (first[g] == i) {
			es->v[k++] = es->v[i];
		} else if (best[g] != i) {
			manifest_entry_free(&es->v[i]);
		}
	}
	es->n = k;
	free(grp), free(first), free(best);
	return 0;
}

int manifest_repeats(const struct entries *es, const struct entries *added, size_t *count,
		     unsigned char *in_added, size_t *first)
{
	size_t *grp, *f, i;
	long n = group_identities(es, added, &grp, &f);

	if (n < 0)
		return -1;
	for (i = 0; i < es->n; i++) {
		count[i] = 0, in_added[i] = 0;
		first[i] = f[grp[i]];
	}
	for (i = 0; i < es->n; i++)
		count[f[grp[i]]]++;
	for (i = 0; i < added->n; i++)
		if (f[grp[es->n + i]] != NO_ENTRY)
			in_added[f[grp[es->n + i]]] = 1;
	free(grp);
	free(f);
	return 0;
}

int manifest_unnamed(const struct entries *have, const struct entries *names,
		     unsigned char *unnamed)
{
	size_t *grp, *first, i;

	if (group_identities(names, have, &grp, &first) < 0)
		return -1;
	for (i = 0; i < have->n; i++)
		unnamed[i] = first[grp[names->n + i]] == NO_ENTRY;
	free(grp);
	free(first);
	return 0;
}
