/* SPDX-License-Identifier: MIT */
/* report.c - listing formats and the discovery draft. */
#include "report_int.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"

int report_format_parse(const char *name)
{
	static const char *const names[] = {"table", "json",  "sonames",   "features", "rpm",
					    "deb",   "jsonl", "cyclonedx", "symbols"};

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

void report_opts_free(struct report_opts *r)
{
	deps_namelist_free(&r->only_feature);
	for (int i = 0; i < RANKS; i++)
		deps_namelist_free(&r->rpm_tag[i]);
	pkgdeps_debmap_free(&r->deb_map);
	pkgdeps_overrides_free(&r->gen.over);
	libfind_free(&r->libs);
	free(r->libs.roots);
	buf_free(&r->policy_first);
}

int report_format_symbols(enum report_format f)
{
	return f == FORMAT_SYMBOLS || f == FORMAT_RPM || f == FORMAT_RPM_GENERATE;
}

/* ---- the listing ---- */

/* A feature name counts as used when an entry has it, even if --only-priority then drops the
 * entry: the name itself is right. */
static int entry_selected(const struct entry *en, struct report_opts *r, struct buf *tmp)
{
	const char *f = entry_string(en, "feature", tmp);

	if (r->only_feature.given && !deps_namelist_selects(&r->only_feature, f))
		return 0;
	return !r->only_rank || (r->only_rank & (1u << deps_entry_rank(en, tmp)));
}

/* The file's name, copied once for all its entries: the caller's buffer may be reused for the
 * next name (--files-from reads them into one). */
static const char *listing_path(struct listing *l, const char *path)
{
	char **v;

	if (l->npaths && strcmp(l->paths[l->npaths - 1], path) == 0)
		return l->paths[l->npaths - 1];
	v = xgrow(l->paths, &l->paths_cap, l->npaths, sizeof *v);
	if (!v)
		return NULL;
	l->paths = v;
	if (!(v[l->npaths] = xstrndup(path, strlen(path))))
		return NULL;
	return l->paths[l->npaths++];
}

int report_listing_symbols(struct listing *l, size_t first, const struct elf *ef,
			   const struct scan *sc, struct report_opts *r, struct err *e)
{
	struct entries added = {.v = l->es.v + first, .n = l->es.n - first};
	size_t from = l->syms.n, file = l->npaths - 1;

	if (first >= l->es.n)
		return 0;
	if (symbols_file(&r->libs, ef, &added, file, &l->syms, e) ||
	    (r->trace && trace_symbols_of(r->trace, &r->libs, l->paths[file], ef, sc, &added, file,
					  &l->syms, e)))
		return -1;
	for (size_t i = first; i < l->es.n; i++) {
		l->from[i].sym_first = from;
		l->from[i].sym_n = l->syms.n - from;
	}
	return 0;
}

/* The one place the listings apply the policy: the entry's rank (set in it), -1 when the
 * policy leaves it out, -2 out of memory. */
static int policy_entry(struct entry *en, const char *path, struct report_opts *r)
{
	int rank = policy_rank(r->policy, en, path);

	if (rank == POLICY_UNKNOWN) { /* said once for all files (the CLI), each with -v */
		struct buf label = {0};
		manifest_entry_label(en, &label);
		if (!r->policy_refused++)
			buf_printf(&r->policy_first, "%s: %s", path, label.p ? label.p : "");
		if (r->verbose)
			print_text(stderr,
				   PROGRAM_NAME ": %s: %s: the policy does not name this feature\n",
				   path, label.p ? label.p : "");
		buf_free(&label);
	}
	if (rank < 0)
		return -1;
	return policy_set_priority(en, rank) ? -2 : rank;
}

/* The policy applied to every entry of es, those it leaves out dropped. */
static int listing_policy(struct entries *es, const char *path, struct report_opts *r)
{
	size_t k = 0;

	for (size_t i = 0; i < es->n; i++) {
		int rank = policy_entry(&es->v[i], path, r);
		if (rank == -2)
			return -1;
		if (rank < 0)
			manifest_entry_free(&es->v[i]);
		else
			es->v[k++] = es->v[i];
	}
	es->n = k;
	return 0;
}

int report_listing_add(struct listing *l, struct entries *es, const char *path,
		       const char *rpm_suffix, struct report_opts *r)
{
	struct buf tmp = {0};
	const char *owned = NULL;
	int rc = 0;

	/* The SBOM names every file, with dependencies or not. */
	if (r && r->format == FORMAT_CYCLONEDX && !(owned = listing_path(l, path)))
		return -1;
	if (r && r->policy && listing_policy(es, path, r))
		return -1;
	/* Every consumer of the notes takes an entry the file declares at several priorities once,
	 * at its strongest (dh_dlopenlibdeps, rpm, dracut): so do the formats made for them, after
	 * the policy.  The listings of what the file holds (table, JSON) show every entry. */
	if (r && r->format != FORMAT_TABLE && r->format != FORMAT_JSON &&
	    r->format != FORMAT_JSONL && manifest_fold_strongest(es))
		return -1;
	for (size_t i = 0; i < es->n && rc == 0; i++) {
		struct listing_from *v;
		if (r && !entry_selected(&es->v[i], r, &tmp))
			continue;
		if (!owned && !(owned = listing_path(l, path))) {
			rc = -1;
			break;
		}
		v = xgrow(l->from, &l->from_cap, l->es.n, sizeof *v);
		if (!v || manifest_append_take(&l->es, &es->v[i])) {
			if (v)
				l->from = v;
			rc = -1;
			break;
		}
		l->from = v;
		l->from[l->es.n - 1].path = owned;
		l->from[l->es.n - 1].rpm_suffix = rpm_suffix;
		l->from[l->es.n - 1].sym_first = l->from[l->es.n - 1].sym_n = 0;
	}
	buf_free(&tmp);
	return rc;
}

void report_listing_free(struct listing *l)
{
	manifest_free(&l->es);
	free(l->from);
	l->from = NULL;
	for (size_t i = 0; i < l->npaths; i++)
		free(l->paths[i]);
	free(l->paths);
	l->paths = NULL;
	l->npaths = 0;
	l->from_cap = 0;
	l->paths_cap = 0;
	symbols_free(&l->syms);
}

/* ---- the table and JSON ---- */

/* Display width of UTF-8 text: one column per code point (good enough for a table). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* A cell's text as the terminal will show it (see buf_put_text), so that widths are right. */
static char *cell_text(const char *s)
{
	struct buf b = {0};

	buf_put_text(&b, s, strlen(s));
	return buf_take(&b);
}

static void cell(FILE *out, const char *s, size_t w, int last)
{
	size_t k = width(s);

	fputs(s, out);
	if (!last)
		for (; k < w + 2; k++)
			fputc(' ', out);
}

void report_table(const struct entries *es, FILE *out)
{
	static const char *const head[4] = {"FEATURE", "DESCRIPTION", "SONAME", "PRIORITY"};
	char **cells = xcalloc(es->n * 4 + 1, sizeof *cells);
	size_t w[4], i, c;
	struct buf t = {0};

	if (!cells)
		return;
	for (c = 0; c < 4; c++)
		w[c] = strlen(head[c]);
	for (i = 0; i < es->n; i++) {
		const char *v;
		v = entry_string(&es->v[i], "feature", &t);
		cells[i * 4] = cell_text(v ? v : "-");
		v = entry_string(&es->v[i], "description", &t);
		cells[i * 4 + 1] = cell_text(v ? v : "-");
		deps_join_sonames(&es->v[i], ", ", "", &t);
		cells[i * 4 + 2] = cell_text(t.p ? t.p : "");
		cells[i * 4 + 3] = cell_text(entry_priority(&es->v[i], &t));
		for (c = 0; c < 4; c++)
			if (cells[i * 4 + c] && width(cells[i * 4 + c]) > w[c])
				w[c] = width(cells[i * 4 + c]);
	}
	for (c = 0; c < 4; c++)
		cell(out, head[c], w[c], c == 3);
	fputc('\n', out);
	for (i = 0; i < es->n; i++) {
		for (c = 0; c < 4; c++)
			cell(out, cells[i * 4 + c] ? cells[i * 4 + c] : "?", w[c], c == 3);
		fputc('\n', out);
	}
	for (i = 0; i < es->n * 4; i++)
		free(cells[i]);
	free(cells);
	buf_free(&t);
}

void report_json(const struct entries *es, FILE *out)
{
	struct buf b = {0};

	manifest_serialize(es, &b);
	if (b.p)
		fwrite(b.p, 1, b.len, out);
	fputc('\n', out);
	buf_free(&b);
}

/* --format=sonames: "SONAME [ALTERNATIVE...] PRIORITY", sorted. */
static int list_sonames(const struct listing *l, FILE *out)
{
	struct deps d = {0};
	struct buf t = {0}, p = {0};
	size_t i;
	int r = 0;

	for (i = 0; i < l->es.n && r == 0; i++) {
		deps_join_sonames(&l->es.v[i], " ", "", &t);
		r = deps_push(&d, NULL, t.p, deps_entry_rank(&l->es.v[i], &p), i);
	}
	deps_merge(&d);
	for (i = 0; i < d.n && r == 0; i++)
		print_text(out, "%s %s\n", d.v[i].text, deps_rank_names[d.v[i].rank]);
	deps_free(&d);
	buf_free(&t);
	buf_free(&p);
	return r;
}

/* The features of the entries that have a description, sorted, so that the first description
 * given for a feature is found in O(log n).  The keys point into `names`. */
static struct key *described_features(const struct entries *es, struct buf *names, size_t *n)
{
	size_t *off = xcalloc(es->n + 1, sizeof *off), *at = xcalloc(es->n + 1, sizeof *at), i,
	       k = 0;
	struct key *v = xcalloc(es->n + 1, sizeof *v);
	struct buf f = {0};

	buf_put(names, "", 0); /* keys never point at NULL, even when all are "" */
	for (i = 0; v && off && at && i < es->n; i++) {
		const char *feature = entry_string(&es->v[i], "feature", &f);
		if (!feature || !entry_find(&es->v[i], "description"))
			continue;
		off[k] = names->len;
		at[k++] = i;
		buf_put(names, f.p, f.len);
	}
	if (v && off && at && !names->oom) {
		for (i = 0; i < k; i++)
			v[i] = (struct key){names->p + off[i],
					    (i + 1 < k ? off[i + 1] : names->len) - off[i], at[i]};
		keys_sort(v, k);
	} else {
		free(v);
		v = NULL;
	}
	*n = k;
	free(off);
	free(at);
	buf_free(&f);
	return v;
}

/* --format=features: each feature (sorted, entries without one last) with its description and
 * the library groups it needs, alternatives joined with " | ". */
static int list_features(const struct listing *l, FILE *out)
{
	struct deps d = {0};
	struct buf t = {0}, f = {0}, names = {0};
	size_t i, ndesc;
	struct key *desc_of = described_features(&l->es, &names, &ndesc);
	int r = desc_of ? 0 : -1;

	for (i = 0; i < l->es.n && r == 0; i++) {
		int rank = deps_entry_rank(&l->es.v[i], &f);
		const char *feature = entry_string(&l->es.v[i], "feature", &f);
		deps_join_sonames(&l->es.v[i], " | ", "", &t);
		r = deps_push(&d, feature, t.p, rank, i);
	}
	deps_merge(&d);
	for (i = 0; i < d.n && r == 0; i++) {
		const char *b = d.v[i].bucket, *desc = NULL;
		if (i == 0 || !b != !d.v[i - 1].bucket ||
		    (b && strcmp(b, d.v[i - 1].bucket) != 0)) {
			/* The first description given for the feature. */
			const struct key *k = b ? keys_find(desc_of, ndesc, b, strlen(b)) : NULL;
			if (k)
				desc = entry_string(&l->es.v[k->pos], "description", &t);
			print_text(out, "%s%s%s\n", b ? b : "(no feature)", desc ? ": " : "",
				   desc ? desc : "");
		}
		print_text(out, "  %s (%s)\n", d.v[i].text, deps_rank_names[d.v[i].rank]);
	}
	deps_free(&d);
	buf_free(&t);
	buf_free(&f);
	buf_free(&names);
	free(desc_of);
	return r;
}

int report_list(const struct listing *l, struct report_opts *r, int quiet, FILE *out)
{
	static const char *const rpm_opts[RANKS] = {"--rpm-suggests", "--rpm-recommends",
						    "--rpm-requires"};
	struct entries merged = {0};
	int rc = 0, bad;

	switch (r->format) {
	case FORMAT_JSON:
		rc = manifest_merge(&merged, &l->es);
		if (rc == 0)
			report_json(&merged, out);
		manifest_free(&merged);
		break;
	case FORMAT_SONAMES: rc = list_sonames(l, out); break;
	case FORMAT_FEATURES: rc = list_features(l, out); break;
	case FORMAT_RPM: rc = pkgdeps_rpm(l, r->rpm_tag, out); break;
	case FORMAT_DEB: rc = pkgdeps_deb(l, &r->deb_map, r->deb_map_path, quiet, out); break;
	case FORMAT_CYCLONEDX: rc = sbom_cyclonedx(l, out); break;
	case FORMAT_SYMBOLS: rc = symbols_list(&l->syms, out); break;
	case FORMAT_TABLE:
	case FORMAT_JSONL:
	case FORMAT_RPM_GENERATE: break; /* printed file by file */
	}
	if (rc) {
		print_oom();
		return 1;
	}
	/* The generator sees one file at a time: a feature it does not have is no mistake. */
	bad = r->format != FORMAT_RPM_GENERATE &&
	      deps_namelist_unused(&r->only_feature, "--only-feature");
	for (int k = RANKS - 1; k >= 0; k--)
		bad |= deps_namelist_unused(&r->rpm_tag[k], rpm_opts[k]);
	return bad;
}

/* ---- --discover ---- */

static int found_cmp(const void *x, const void *y)
{
	return strcmp(((const struct found *)x)->soname, ((const struct found *)y)->soname);
}

/* One entry per line, so that a person can edit it.  The description says that it is a guess;
 * "FIXME" marks what only a person can fill in. */
void report_draft(const struct discovery *d, FILE *out)
{
	struct found *v = xcalloc(d->n + 1, sizeof *v);
	struct buf b = {0}, why = {0};
	size_t i;

	if (!v)
		return;
	if (d->n)
		memcpy(v, d->v, d->n * sizeof *v);
	qsort(v, d->n, sizeof *v, found_cmp);
	buf_puts(&b, d->n ? "[\n" : "[");
	for (i = 0; i < d->n; i++) {
		why.len = 0;
		buf_puts(&why, v[i].recorded ? "FIXME: dlopen()ed by "
					     : "FIXME: guessed by dlnote-inject --discover (a "
					       "heuristic) from a string in ");
		buf_put_text(&why, v[i].path, strlen(v[i].path)); /* then JSON-escaped */
		buf_puts(&why, v[i].recorded ? " during dlnote-inject --record" : "");
		if (v[i].asked_as) {
			buf_puts(&why, ", asked for as ");
			buf_put_text(&why, v[i].asked_as, strlen(v[i].asked_as));
			buf_puts(&why, soname_unversioned(v[i].asked_as, strlen(v[i].asked_as))
					       ? " (a development name: keep it as an alternative, "
						 "or drop it)"
					       : " (another name of it: keep it as an alternative, "
						 "or drop it)");
		}
		buf_puts(&why, v[i].recorded ? "; describe the feature"
					     : "; check that it is loaded with dlopen(), then "
					       "describe the feature");
		buf_puts(&b, "  {\"soname\":[");
		json_put_string(&b, v[i].soname, strlen(v[i].soname));
		for (size_t k = 0; k < v[i].nalt; k++) {
			buf_putc(&b, ',');
			json_put_string(&b, v[i].alt[k], strlen(v[i].alt[k]));
		}
		buf_puts(&b, "],\"feature\":\"FIXME\",\"description\":");
		json_put_string(&b, why.p, why.len);
		buf_printf(&b, ",\"priority\":\"recommended\"}%s\n", i + 1 < d->n ? "," : "");
	}
	buf_puts(&b, "]\n");
	if (b.p)
		fwrite(b.p, 1, b.len, out);
	buf_free(&b);
	buf_free(&why);
	free(v);
}

/* ---- --format=jsonl ---- */

void report_jsonl(const struct entries *es, const char *path, int is64, unsigned machine, FILE *out)
{
	struct buf b = {0}, name = {0};

	buf_put_text(&name, path, strlen(path)); /* then JSON-escaped, as the draft does */
	buf_puts(&b, "{\"path\":");
	json_put_string(&b, name.p ? name.p : "", name.len);
	buf_printf(&b, ",\"class\":\"ELF%d\",\"machine\":%u,\"entries\":", is64 ? 64 : 32, machine);
	manifest_serialize(es, &b);
	buf_puts(&b, "}\n");
	if (b.p && !b.oom)
		fwrite(b.p, 1, b.len, out);
	buf_free(&b);
	buf_free(&name);
}
