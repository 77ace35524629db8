/* report.c - listing formats, the lint against a declared manifest, and the discovery draft. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"

static const char *const rank_names[RANKS] = { "suggested", "recommended", "required" };
static const char *const rpm_tags[RANKS] = { "Suggests", "Recommends", "Requires" };
static const char *const deb_fields[RANKS] = { "dlopen:Suggests", "dlopen:Recommends", "dlopen:Depends" };

int report_format_parse(const char *name)
{
	static const char *const names[] = { "table", "json", "sonames", "features", "rpm", "deb" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(name, names[i]) == 0)
			return (int)i;
	return -1;
}

int report_rank_parse(const char *name, size_t len)
{
	for (int i = 0; i < RANKS; i++)
		if (strlen(rank_names[i]) == len && memcmp(name, rank_names[i], len) == 0)
			return i;
	return -1;
}

static int entry_rank(const struct entry *en, struct buf *tmp)
{
	const char *p = entry_priority(en, tmp);
	int r = report_rank_parse(p, strlen(p));

	return r < 0 ? RANK_RECOMMENDED : r;
}

/* ---- command-line name lists ---- */

int report_namelist_add(struct namelist *l, const char *list)
{
	const char *p = list, *comma;
	char **v;
	unsigned char *u;

	l->given = 1;
	l->all |= !list;
	while (p) {
		comma = strchr(p, ',');
		v = xrealloc(l->v, l->n + 1, sizeof *v);
		if (v)
			l->v = v;
		u = xrealloc(l->used, l->n + 1, 1);
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

static void namelist_free(struct namelist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	free(l->used);
	memset(l, 0, sizeof *l);
}

/* Does the list select an entry with this feature (NULL: none)?  An option given without names
 * selects every entry. */
static int namelist_selects(struct namelist *l, const char *feature)
{
	int hit = 0;

	if (!l->given)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], feature ? feature : "") == 0)
			hit = l->used[i] = 1;
	return hit || l->all;
}

void report_opts_free(struct report_opts *r)
{
	namelist_free(&r->only_feature);
	for (int i = 0; i < RANKS; i++)
		namelist_free(&r->rpm_tag[i]);
	for (size_t i = 0; i < r->deb_map.n; i++) {
		free(r->deb_map.v[i].soname);
		free(r->deb_map.v[i].package);
	}
	free(r->deb_map.v);
	memset(&r->deb_map, 0, sizeof r->deb_map);
}

/* ---- the Debian map ---- */

/* Debian Policy §5.6.1: lowercase letters, digits, '+', '-', '.'; two characters at least,
 * starting with a letter or digit. */
static int deb_name_ok(const char *s, size_t len)
{
	if (len < 2 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' || s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

static int map_push(struct debmap *map, const char *soname, size_t slen, const char *pkg, size_t plen, size_t line)
{
	struct debmap_pair *v = xrealloc(map->v, map->n + 1, sizeof *v);

	if (!v)
		return -1;
	map->v = v;
	v = &map->v[map->n];
	v->soname = xstrndup(soname, slen);
	v->package = xstrndup(pkg, plen);
	v->line = line;
	if (!v->soname || !v->package) {
		free(v->soname);
		free(v->package);
		return -1;
	}
	map->n++;
	return 0;
}

static int starts_with(const char *s, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return len >= n && memcmp(s, prefix, n) == 0;
}

/* One line "PKG[:ARCH][, PKG[:ARCH]...]: PATH". */
static int map_line(struct debmap *map, const char *s, size_t len, size_t line, struct err *e)
{
	const char *sep = NULL, *path, *base, *p, *end;
	size_t i;

	if (starts_with(s, len, "diversion by ") || starts_with(s, len, "local diversion "))
		return 0;
	for (i = 0; i + 1 < len && !sep; i++)
		if (s[i] == ':' && s[i + 1] == ' ')
			sep = s + i;
	if (!sep)
		return err_set(e, EXIT_BAD_INPUT, "line %zu: expected \"PACKAGE[, PACKAGE...]: PATH\", as dpkg-query --search prints", line);
	path = sep + 2;
	while (path < s + len && *path == ' ')
		path++;
	for (base = p = path; p < s + len; p++)
		if (*p == '/')
			base = p + 1;
	if (base == s + len)
		return err_set(e, EXIT_BAD_INPUT, "line %zu: no soname after the package", line);
	for (p = s; p < sep; p = end + (end < sep ? 2 : 0)) {
		size_t plen;
		for (end = p; end < sep && !(end[0] == ',' && end + 1 < sep && end[1] == ' '); end++)
			;
		for (plen = 0; p + plen < end && p[plen] != ':'; plen++)
			;              /* "zlib1g:amd64" depends as "zlib1g" */
		if (!deb_name_ok(p, plen))
			return err_set(e, EXIT_BAD_INPUT, "line %zu: \"%.*s\" is not a Debian package name", line, (int)plen, p);
		if (map_push(map, base, (size_t)(s + len - base), p, plen, line))
			return err_set(e, EXIT_BAD_INPUT, "out of memory");
	}
	return 0;
}

int report_debmap_parse(const char *text, size_t len, struct debmap *map, struct err *e)
{
	size_t start = 0, end, line = 0, n;

	while (start < len) {
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		line++;
		n = end - start;
		while (n && (text[start + n - 1] == ' ' || text[start + n - 1] == '\t' || text[start + n - 1] == '\r'))
			n--;
		if (n && text[start] != '#' && map_line(map, text + start, n, line, e))
			return -1;
		start = end + 1;
	}
	return 0;
}

/* ---- the listing ---- */

const char *report_rpm_suffix(int is64, unsigned machine)
{
	/* rpm's elfdeps writes SONAME(VERSION)MARKER, with the marker "(64bit)" for ELFCLASS64 but
	 * on Alpha (EM_ALPHA 0x9026, EM_FAKE_ALPHA 41), and the bare soname when it has neither. */
	return is64 && machine != 0x9026 && machine != 41 ? "()(64bit)" : "";
}

/* A feature name counts as used when an entry has it, even if --only-priority then drops the
 * entry: the name itself is right. */
static int entry_selected(const struct entry *en, struct report_opts *r, struct buf *tmp)
{
	const char *f = entry_string(en, "feature", tmp);

	if (r->only_feature.given && !namelist_selects(&r->only_feature, f))
		return 0;
	return !r->only_rank || (r->only_rank & (1u << entry_rank(en, tmp)));
}

int report_listing_add(struct listing *l, const struct entries *es, const char *path, const char *rpm_suffix,
		struct report_opts *r)
{
	struct buf tmp = { 0 };
	int rc = 0;
	char **paths;

	/* The listing keeps its own copy of the name: callers pass reused buffers (--files-from
	 * names, archive members). */
	if (es->n) {
		paths = xrealloc(l->paths, l->npaths + 1, sizeof *paths);
		if (!paths)
			return -1;
		l->paths = paths;
		if (!(path = l->paths[l->npaths] = xstrndup(path, strlen(path))))
			return -1;
		l->npaths++;
	}
	for (size_t i = 0; i < es->n && rc == 0; i++) {
		struct listing_from *v;
		if (r && !entry_selected(&es->v[i], r, &tmp))
			continue;
		v = xrealloc(l->from, l->es.n + 1, sizeof *v);
		if (!v || manifest_append_copy(&l->es, &es->v[i])) {
			if (v)
				l->from = v;
			rc = -1;
			break;
		}
		l->from = v;
		l->from[l->es.n - 1].path = path;
		l->from[l->es.n - 1].rpm_suffix = rpm_suffix;
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
}

/* The sonames of an entry joined by `sep`, each followed by `suffix`, into out (NUL-terminated).
 * Returns how many there are. */
static size_t join_sonames(const struct entry *en, const char *sep, const char *suffix, struct buf *out)
{
	const struct member *m = entry_find(en, "soname");
	struct buf s = { 0 };
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

/* ---- the table and JSON ---- */

/* Display width of UTF-8 text: one column per code point (good enough for a table). */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
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
	static const char *const head[4] = { "FEATURE", "DESCRIPTION", "SONAME", "PRIORITY" };
	char **cells = xcalloc(es->n * 4 + 1, sizeof *cells);
	size_t w[4], i, c;
	struct buf t = { 0 };

	if (!cells)
		return;
	for (c = 0; c < 4; c++)
		w[c] = strlen(head[c]);
	for (i = 0; i < es->n; i++) {
		const char *v;
		v = entry_string(&es->v[i], "feature", &t);
		cells[i * 4] = strdup(v ? v : "-");
		v = entry_string(&es->v[i], "description", &t);
		cells[i * 4 + 1] = strdup(v ? v : "-");
		join_sonames(&es->v[i], ", ", "", &t);
		cells[i * 4 + 2] = strdup(t.p ? t.p : "");
		cells[i * 4 + 3] = strdup(entry_priority(&es->v[i], &t));
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
	struct buf b = { 0 };

	manifest_serialize(es, &b);
	if (b.p)
		fwrite(b.p, 1, b.len, out);
	fputc('\n', out);
	buf_free(&b);
}

/* ---- dependencies: one rendered line per distinct thing, at its strongest priority ---- */

/* A rendered dependency.  `bucket` groups them (the feature, for --format=features; NULL for
 * "no feature" or when the format has no groups); `first` is the entry it was first seen in. */
struct dep {
	char *bucket, *text;
	int rank;
	size_t first;
};

struct deps {
	struct dep *v;
	size_t n;
};

static int deps_push(struct deps *d, const char *bucket, const char *text, int rank, size_t first)
{
	struct dep *v = text ? xrealloc(d->v, d->n + 1, sizeof *v) : NULL;

	if (!v)
		return -1;
	d->v = v;
	v = &d->v[d->n];
	v->bucket = bucket ? xstrndup(bucket, strlen(bucket)) : NULL;
	v->text = xstrndup(text, strlen(text));
	v->rank = rank;
	v->first = first;
	if (!v->text || (bucket && !v->bucket)) {
		free(v->bucket);
		free(v->text);
		return -1;
	}
	d->n++;
	return 0;
}

static void deps_free(struct deps *d)
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

	return c ? c : a->first < b->first ? -1 : a->first > b->first;
}

/* Spec: the same dependency declared twice (two notes, two files) is one dependency; packaging
 * needs its strongest priority.  Sorts, then keeps the first of each run at the run's
 * strongest rank. */
static void deps_merge(struct deps *d)
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

	return a->first < b->first ? -1 : a->first > b->first;
}

/* --format=sonames: "SONAME [ALTERNATIVE...] PRIORITY", sorted. */
static int list_sonames(const struct listing *l, FILE *out)
{
	struct deps d = { 0 };
	struct buf t = { 0 }, p = { 0 };
	size_t i;
	int r = 0;

	for (i = 0; i < l->es.n && r == 0; i++) {
		join_sonames(&l->es.v[i], " ", "", &t);
		r = deps_push(&d, NULL, t.p, entry_rank(&l->es.v[i], &p), i);
	}
	deps_merge(&d);
	for (i = 0; i < d.n && r == 0; i++)
		fprintf(out, "%s %s\n", d.v[i].text, rank_names[d.v[i].rank]);
	deps_free(&d);
	buf_free(&t);
	buf_free(&p);
	return r;
}

/* --format=features: each feature (sorted, entries without one last) with its description and
 * the library groups it needs, alternatives joined with " | ". */
static int list_features(const struct listing *l, FILE *out)
{
	struct deps d = { 0 };
	struct buf t = { 0 }, f = { 0 };
	size_t i, k;
	int r = 0;

	for (i = 0; i < l->es.n && r == 0; i++) {
		int rank = entry_rank(&l->es.v[i], &f);
		const char *feature = entry_string(&l->es.v[i], "feature", &f);
		join_sonames(&l->es.v[i], " | ", "", &t);
		r = deps_push(&d, feature, t.p, rank, i);
	}
	deps_merge(&d);
	for (i = 0; i < d.n && r == 0; i++) {
		const char *b = d.v[i].bucket, *desc = NULL;
		if (i == 0 || !b != !d.v[i - 1].bucket || (b && strcmp(b, d.v[i - 1].bucket) != 0)) {
			/* The first description given for the feature. */
			for (k = 0; b && k < l->es.n && !desc; k++) {
				const char *kf = entry_string(&l->es.v[k], "feature", &f);
				if (kf && strcmp(kf, b) == 0)
					desc = entry_string(&l->es.v[k], "description", &t);
			}
			fprintf(out, "%s%s%s\n", b ? b : "(no feature)", desc ? ": " : "", desc ? desc : "");
		}
		fprintf(out, "  %s (%s)\n", d.v[i].text, rank_names[d.v[i].rank]);
	}
	deps_free(&d);
	buf_free(&t);
	buf_free(&f);
	return r;
}

/* The rpm tag an entry gets: with --rpm-requires/-recommends/-suggests, the strongest of those
 * that select its feature (-1: none does); else its own priority. */
static int rpm_rank(const struct entry *en, struct report_opts *r, struct buf *tmp)
{
	const char *feature;
	int any = 0, rank = -1;

	for (int k = 0; k < RANKS; k++)
		any |= r->rpm_tag[k].given;
	if (!any)
		return entry_rank(en, tmp);
	feature = entry_string(en, "feature", tmp);
	for (int k = RANKS - 1; k >= 0; k--)      /* every list is asked: it marks its names used */
		if (namelist_selects(&r->rpm_tag[k], feature) && rank < 0)
			rank = k;
	return rank;
}

/* --format=rpm: "Requires: libfoo.so.1()(64bit)", alternatives as a rich dependency
 * "(a()(64bit) or b()(64bit))".  Requires first, then Recommends, then Suggests; in each, the
 * order the entries came in. */
static int list_rpm(const struct listing *l, struct report_opts *ro, FILE *out)
{
	struct deps d = { 0 };
	struct buf t = { 0 }, p = { 0 }, dep = { 0 };
	size_t i;
	int r = 0, rank, k;

	for (i = 0; i < l->es.n && r == 0; i++) {
		if ((rank = rpm_rank(&l->es.v[i], ro, &p)) < 0)
			continue;
		dep.len = 0;
		if (join_sonames(&l->es.v[i], " or ", l->from[i].rpm_suffix, &t) > 1)
			buf_printf(&dep, "(%s)", t.p);
		else
			buf_puts(&dep, t.p);
		buf_put(&dep, "", 0);
		r = dep.oom || deps_push(&d, NULL, dep.p, rank, i);
	}
	deps_merge(&d);
	if (d.n)
		qsort(d.v, d.n, sizeof *d.v, by_first);
	for (k = RANKS - 1; k >= 0 && r == 0; k--)
		for (i = 0; i < d.n; i++)
			if (d.v[i].rank == k)
				fprintf(out, "%s: %s\n", rpm_tags[k], d.v[i].text);
	deps_free(&d);
	buf_free(&t);
	buf_free(&p);
	buf_free(&dep);
	return r;
}

/* The packages that provide an entry's sonames, in soname preference order then map order,
 * each once, joined with " | ".  Empty when the map has none. */
static void deb_alternatives(const struct entry *en, const struct debmap *map, struct buf *out)
{
	const struct member *m = entry_find(en, "soname");
	const char **seen = xcalloc(map->n + 1, sizeof *seen);
	struct buf s = { 0 };
	size_t pos = 0, i, k, n = 0;

	out->len = 0;
	while (seen && m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
		buf_put(&s, "", 0);
		for (i = 0; i < map->n && !s.oom; i++) {
			if (strcmp(map->v[i].soname, s.p) != 0)
				continue;
			for (k = 0; k < n && strcmp(seen[k], map->v[i].package) != 0; k++)
				;
			if (k < n)
				continue;
			seen[n++] = map->v[i].package;
			buf_printf(out, "%s%s", n > 1 ? " | " : "", map->v[i].package);
		}
	}
	buf_put(out, "", 0);
	buf_free(&s);
	free(seen);
}

/* --format=deb: the three substvars dh_dlopenlibdeps writes, always all three (so that a
 * control file can use them even when empty); each field's dependencies sorted and joined with
 * ", "; a dependency goes only into its strongest field. */
static int list_deb(const struct listing *l, struct report_opts *ro, int quiet, FILE *out)
{
	struct deps d = { 0 };
	struct buf t = { 0 }, p = { 0 };
	size_t i;
	int r = 0, k, first;

	for (i = 0; i < l->es.n && r == 0; i++) {
		int rank = entry_rank(&l->es.v[i], &p);
		deb_alternatives(&l->es.v[i], &ro->deb_map, &t);
		if (t.p && t.p[0]) {
			r = deps_push(&d, NULL, t.p, rank, i);
		} else if (!quiet) {
			join_sonames(&l->es.v[i], " | ", "", &t);
			fprintf(stderr, PROGRAM_NAME ": %s: no package for %s (%s, in %s): left out of %s\n", ro->deb_map_path,
				t.p, rank_names[rank], l->from[i].path, deb_fields[rank]);
		}
	}
	deps_merge(&d);
	for (k = RANKS - 1; k >= 0 && r == 0; k--) {
		fprintf(out, "%s=", deb_fields[k]);
		for (i = 0, first = 1; i < d.n; i++)
			if (d.v[i].rank == k) {
				fprintf(out, "%s%s", first ? "" : ", ", d.v[i].text);
				first = 0;
			}
		fputc('\n', out);
	}
	deps_free(&d);
	buf_free(&t);
	buf_free(&p);
	return r;
}

/* A name given to --only-feature or --rpm-* that selected nothing is most likely a feature that
 * was renamed or dropped: say so (dlopen-notes.py stops with "Some features not found"). */
static int report_unused(const struct namelist *l, const char *option)
{
	int bad = 0;

	for (size_t i = 0; i < l->n; i++)
		if (!l->used[i]) {
			if (l->v[i][0])
				fprintf(stderr, PROGRAM_NAME ": %s: no entry has the feature '%s'\n", option, l->v[i]);
			else
				fprintf(stderr, PROGRAM_NAME ": %s: no entry is without a feature\n", option);
			bad = 1;
		}
	return bad;
}

int report_list(const struct listing *l, struct report_opts *r, int quiet, FILE *out)
{
	static const char *const rpm_opts[RANKS] = { "--rpm-suggests", "--rpm-recommends", "--rpm-requires" };
	struct entries merged = { 0 };
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
	case FORMAT_RPM: rc = list_rpm(l, r, out); break;
	case FORMAT_DEB: rc = list_deb(l, r, quiet, out); break;
	case FORMAT_TABLE: break;          /* printed file by file */
	}
	if (rc) {
		fprintf(stderr, PROGRAM_NAME ": out of memory\n");
		return EXIT_BAD_INPUT;
	}
	bad = report_unused(&r->only_feature, "--only-feature");
	for (int k = RANKS - 1; k >= 0; k--)
		bad |= report_unused(&r->rpm_tag[k], rpm_opts[k]);
	return bad ? EXIT_BAD_INPUT : EXIT_OK;
}

/* ---- --check --expect ---- */

/* Entries are the same dependency when their soname arrays are equal (same alternatives, same
 * order): the canonical JSON values compare byte for byte. */
static const struct entry *find_group(const struct entries *es, const struct entry *en, size_t *at)
{
	const struct member *m = entry_find(en, "soname");

	for (size_t i = 0; m && i < es->n; i++) {
		const struct member *o = entry_find(&es->v[i], "soname");
		if (o && o->vallen == m->vallen && memcmp(o->val, m->val, m->vallen) == 0) {
			if (at)
				*at = i;
			return &es->v[i];
		}
	}
	return NULL;
}

/* The strongest priority any entry of `es` gives to the group of `en`. */
static int group_rank(const struct entries *es, const struct entry *en, struct buf *tmp)
{
	const struct member *m = entry_find(en, "soname");
	int rank = -1;

	for (size_t i = 0; m && i < es->n; i++) {
		const struct member *o = entry_find(&es->v[i], "soname");
		int k;
		if (!o || o->vallen != m->vallen || memcmp(o->val, m->val, m->vallen) != 0)
			continue;
		k = entry_rank(&es->v[i], tmp);
		if (k > rank)
			rank = k;
	}
	return rank;
}

/* "libfoo.so.1 | libfoo.so.0 (feature foo, suggested)"; rank -1 leaves the priority out. */
static void describe(const struct entry *en, int rank, struct buf *out)
{
	struct buf t = { 0 };
	const char *f;

	join_sonames(en, " | ", "", &t);
	out->len = 0;
	buf_puts(out, t.p ? t.p : "");
	f = entry_string(en, "feature", &t);
	if (f || rank >= 0)
		buf_printf(out, " (%s%s%s%s)", f ? "feature " : "", f ? f : "", f && rank >= 0 ? ", " : "",
			   rank >= 0 ? rank_names[rank] : "");
	buf_put(out, "", 0);
	buf_free(&t);
}

size_t report_lint(const struct entries *declared, const char *manifest_path, const struct listing *found, FILE *out)
{
	struct buf d = { 0 }, tmp = { 0 };
	size_t i, at, diffs = 0;

	for (i = 0; i < declared->n; i++) {
		const struct entry *en = &declared->v[i];
		int want, got;
		if (find_group(declared, en, &at) && at != i)
			continue;           /* declared twice: compared once */
		want = group_rank(declared, en, &tmp);
		got = group_rank(&found->es, en, &tmp);
		if (got == want)
			continue;
		describe(en, got < 0 ? want : -1, &d);
		if (got < 0)
			fprintf(out, "%s: missing: %s: declared, in no FILE\n", manifest_path, d.p);
		else
			fprintf(out, "%s: priority: %s: declared %s, found %s\n", manifest_path, d.p, rank_names[want], rank_names[got]);
		diffs++;
	}
	for (i = 0; i < found->es.n; i++) {
		const struct entry *en = &found->es.v[i];
		if (find_group(declared, en, NULL) || (find_group(&found->es, en, &at) && at != i))
			continue;
		describe(en, group_rank(&found->es, en, &tmp), &d);
		fprintf(out, "%s: new: %s: in %s, not declared\n", manifest_path, d.p, found->from[i].path);
		diffs++;
	}
	buf_free(&d);
	buf_free(&tmp);
	return diffs;
}

/* ---- --discover ---- */

static int found_cmp(const void *x, const void *y)
{
	return strcmp(((const struct found *)x)->soname, ((const struct found *)y)->soname);
}

/* A file name as JSON string text: one the spec's string rules refuse (control characters,
 * invalid UTF-8) is shown with '?' for every byte outside printable ASCII. */
static void put_printable(struct buf *b, const char *s)
{
	if (!json_check_text(s, strlen(s))) {
		buf_puts(b, s);
		return;
	}
	for (; *s; s++)
		buf_putc(b, (unsigned char)*s >= 0x20 && (unsigned char)*s < 0x7f ? *s : '?');
}

/* One entry per line, so that a person can edit it.  The description says that it is a guess;
 * "FIXME" marks what only a person can fill in. */
void report_draft(const struct discovery *d, FILE *out)
{
	struct found *v = xcalloc(d->n + 1, sizeof *v);
	struct buf b = { 0 }, why = { 0 };
	size_t i;

	if (!v)
		return;
	if (d->n)
		memcpy(v, d->v, d->n * sizeof *v);
	qsort(v, d->n, sizeof *v, found_cmp);
	buf_puts(&b, d->n ? "[\n" : "[");
	for (i = 0; i < d->n; i++) {
		why.len = 0;
		buf_puts(&why, "FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in ");
		put_printable(&why, v[i].path);
		buf_puts(&why, "; check that it is loaded with dlopen(), then describe the feature");
		buf_puts(&b, "  {\"soname\":[");
		json_put_string(&b, v[i].soname, strlen(v[i].soname));
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
