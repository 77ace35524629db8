/* SPDX-License-Identifier: MIT */
/* expect.c - --check --expect: the declared manifest against the entries the files hold, each
 * file on its own and all of them together (docs/packaging.md, "The lint"). */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

/* Entries are the same dependency when their soname arrays are equal (same alternatives, same
 * order): the canonical JSON values compare byte for byte.  Both lists are grouped at once by
 * sorting their soname values, so the comparison costs O(n log n).  For each position:
 * `lead` when it is the first of its group in its own list; the group's strongest rank in the
 * declared list (want) and in the found one (got), -1 when absent there. */
struct groups {
	unsigned char *lead;
	int *want, *got;
};

static int group(const struct entries *declared, const struct entries *found, struct groups *g)
{
	size_t nd = declared->n, n = nd + found->n, i, start, k;
	struct key *v = xcalloc(n + 1, sizeof *v);
	struct buf tmp = {0};

	g->lead = xcalloc(n + 1, 1);
	g->want = xcalloc(n + 1, sizeof *g->want);
	g->got = xcalloc(n + 1, sizeof *g->got);
	if (!v || !g->lead || !g->want || !g->got) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		const struct keyval *m =
			entry_find(i < nd ? &declared->v[i] : &found->v[i - nd], "soname");
		v[i] = (struct key){m ? m->val : "", m ? m->vallen : 0, i};
	}
	keys_sort(v, n);
	for (start = 0; start < n; start = i) {
		int want = -1, got = -1, seen_d = 0, seen_f = 0;
		for (i = start; i < n && key_same(&v[start], &v[i]); i++) {
			size_t p = v[i].pos;
			int rank =
				deps_entry_rank(p < nd ? &declared->v[p] : &found->v[p - nd], &tmp);
			int *best = p < nd ? &want : &got, *seen = p < nd ? &seen_d : &seen_f;
			if (rank > *best)
				*best = rank;
			g->lead[p] = !*seen; /* sorted by position within the run */
			*seen = 1;
		}
		for (k = start; k < i; k++) {
			g->want[v[k].pos] = want;
			g->got[v[k].pos] = got;
		}
	}
	buf_free(&tmp);
	free(v);
	return 0;
}

/* "libfoo.so.1 | libfoo.so.0 (feature foo, suggested)"; rank -1 leaves the priority out. */
static void describe(const struct entry *en, int rank, struct buf *out)
{
	struct buf t = {0};
	const char *f;

	deps_join_sonames(en, " | ", "", &t);
	out->len = 0;
	buf_puts(out, t.p ? t.p : "");
	f = entry_string(en, "feature", &t);
	if (f || rank >= 0)
		buf_printf(out, " (%s%s%s%s)", f ? "feature " : "", f ? f : "",
			   f && rank >= 0 ? ", " : "", rank >= 0 ? deps_rank_names[rank] : "");
	buf_put(out, "", 0);
	buf_free(&t);
}

size_t report_lint_file(const struct entries *declared, const char *manifest_path,
			const struct entries *have, const char *path, FILE *out)
{
	struct groups g = {0};
	struct buf d = {0}, names = {0};
	size_t i, nd = declared->n, lead = 0, lacks = 0;

	if (group(declared, have, &g)) {
		print_oom();
		lacks = 1;
		goto out;
	}
	for (i = 0; i < nd; i++) {
		if (!g.lead[i])
			continue; /* declared twice: counted once */
		lead++;
		if (g.got[i] >= 0)
			continue;
		if (++lacks <= 3) {
			describe(&declared->v[i], -1, &d);
			buf_printf(&names, "%s%s", lacks > 1 ? ", " : "", d.p);
		}
	}
	if (lacks > 3)
		buf_printf(&names, " and %zu more", lacks - 3);
	if (lacks == lead)
		print_text(out, "%s: missing: %s lacks every declared entry (%zu): %s\n",
			   manifest_path, path, lacks, names.p ? names.p : "");
	else if (lacks)
		print_text(out, "%s: missing: %s lacks %zu of the %zu declared entries: %s\n",
			   manifest_path, path, lacks, lead, names.p ? names.p : "");
out:
	free(g.lead);
	free(g.want);
	free(g.got);
	buf_free(&d);
	buf_free(&names);
	return lacks;
}

size_t report_lint(const struct entries *declared, const char *manifest_path,
		   const struct listing *found, int per_file, FILE *out)
{
	struct groups g = {0};
	struct buf d = {0};
	size_t i, nd = declared->n, diffs = 0;

	if (group(declared, &found->es, &g)) {
		print_oom();
		diffs = 1;
		goto out;
	}
	for (i = 0; i < nd; i++) {
		int want = g.want[i], got = g.got[i];
		if (!g.lead[i] || got == want || (got < 0 && per_file))
			continue; /* declared twice: compared once; per file: said of each */
		describe(&declared->v[i], got < 0 ? want : -1, &d);
		if (got < 0)
			print_text(out, "%s: missing: %s: declared, in no FILE\n", manifest_path,
				   d.p);
		else
			print_text(out, "%s: priority: %s: declared %s, found %s\n", manifest_path,
				   d.p, deps_rank_names[want], deps_rank_names[got]);
		diffs++;
	}
	for (i = 0; i < found->es.n; i++) {
		if (!g.lead[nd + i] || g.want[nd + i] >= 0)
			continue;
		describe(&found->es.v[i], g.got[nd + i], &d);
		print_text(out, "%s: new: %s: in %s, not declared\n", manifest_path, d.p,
			   found->from[i].path);
		diffs++;
	}
out:
	free(g.lead);
	free(g.want);
	free(g.got);
	buf_free(&d);
	return diffs;
}
