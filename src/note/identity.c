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

int manifest_merge_identity(struct entries *dst, const struct entries *src, int replace,
			    struct entries *replaced, size_t *clash_dst, size_t *clash_src)
{
	struct entries dropped = {0}, *to = replaced ? replaced : &dropped;
	size_t na = dst->n, *grp, *holder, j;
	int r = 0;

	if (group_identities(dst, src, &grp, &holder) < 0)
		return -1;
	for (j = 0; j < src->n && r == 0; j++) {
		size_t g = grp[na + j], h = holder[g];
		struct entries one = {0};
		if (h == NO_ENTRY) {
			r = manifest_append_copy(dst, &src->v[j]);
			holder[g] = dst->n - 1;
		} else if (manifest_entry_equal(&dst->v[h], &src->v[j])) {
			continue;
		} else if (!replace) {
			*clash_dst = h, *clash_src = j;
			r = 1;
		} else if ((r = manifest_append_copy(&one, &src->v[j])) == 0 &&
			   (r = manifest_append_take(to, &dst->v[h])) == 0) {
			/* the new entry takes the old one's place; the old one is handed back */
			dst->v[h] = one.v[0];
			free(one.v);
		} else {
			manifest_free(&one);
		}
	}
	manifest_free(&dropped);
	free(grp);
	free(holder);
	return r;
}

int manifest_first_repeat(const struct entries *es, size_t *a, size_t *b)
{
	static const struct entries none;
	size_t *grp, *first, i;
	long n = group_identities(es, &none, &grp, &first);
	int found = 0;

	if (n < 0)
		return -1;
	for (i = 0; i < es->n && !found; i++)
		if (first[grp[i]] != i) {
			*a = first[grp[i]], *b = i;
			found = 1;
		}
	free(grp);
	free(first);
	return found;
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
