/* SPDX-License-Identifier: MIT */
/* pkgdeps.c - dependencies for packages: rpm tags and Debian substvars from the entries, and
 * the soname -> Debian package map they need. */
#include "deps.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "../elf/elf.h"

static const char *const rpm_tags[RANKS] = {"Suggests", "Recommends", "Requires"};
static const char *const deb_fields[RANKS] = {"dlopen:Suggests", "dlopen:Recommends",
					      "dlopen:Depends"};

/* ---- the Debian map ---- */

/* Debian Policy §5.6.1: lowercase letters, digits, '+', '-', '.'; two characters at least,
 * starting with a letter or digit. */
static int deb_name_ok(const char *s, size_t len)
{
	if (len < 2 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '+' ||
		      s[i] == '-' || s[i] == '.'))
			return 0;
	return 1;
}

static int map_push(struct debmap *map, const char *soname, size_t slen, const char *pkg,
		    size_t plen, size_t line)
{
	struct debmap_pair *v = xgrow(map->v, &map->cap, map->n, sizeof *v);

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

/* Debian Policy §5.6.12: upstream and revision characters, an epoch's colon. */
static int deb_version_ok(const char *s, size_t len)
{
	if (len == 0 || !(s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr(".+~:-", s[i])))
			return 0;
	return 1;
}

/* One package of a map line: "NAME[:ARCH][ (RELATION VERSION)]".  The name goes into `out`
 * with its version restriction ("zlib1g (>= 1:1.2.2)"), the qualifier dropped ("zlib1g:amd64"
 * depends as "zlib1g"). */
static int map_package(const char *p, size_t len, size_t line, struct buf *out, struct err *e)
{
	static const char *const rels[] = {">=", "<=", ">>", "<<", "="};
	size_t n = 0, q, v;

	while (n < len && p[n] != ':' && p[n] != ' ')
		n++;
	if (!deb_name_ok(p, n))
		return err_set(e, "line %zu: \"%.*s\" is not a Debian package name", line, (int)n,
			       p);
	for (q = n; q < len && p[q] != ' '; q++)
		;
	out->len = 0;
	buf_put(out, p, n);
	if (q == len)
		return buf_put(out, "", 1), 0;
	for (size_t k = 0; k < sizeof rels / sizeof rels[0]; k++) {
		size_t rl = strlen(rels[k]);
		if (len - q < rl + 5 || memcmp(p + q, " (", 2) != 0 ||
		    memcmp(p + q + 2, rels[k], rl) != 0 || p[q + 2 + rl] != ' ' ||
		    p[len - 1] != ')')
			continue;
		v = q + 3 + rl;
		if (!deb_version_ok(p + v, len - 1 - v))
			break;
		buf_printf(out, " (%s %.*s)", rels[k], (int)(len - 1 - v), p + v);
		return buf_put(out, "", 1), 0;
	}
	return err_set(e, "line %zu: \"%.*s\" is not PACKAGE (RELATION VERSION)", line, (int)len,
		       p);
}

/* One line "PKG[:ARCH][ (REL VERSION)][, PKG...]: PATH". */
static int map_line(struct debmap *map, const char *s, size_t len, size_t line, struct err *e)
{
	const char *sep = NULL, *path, *base, *p, *end;
	struct buf pkg = {0};
	size_t i;
	int r = 0;

	if (starts_with(s, len, "diversion by ") || starts_with(s, len, "local diversion "))
		return 0;
	for (i = 0; i + 1 < len && !sep; i++)
		if (s[i] == ':' && s[i + 1] == ' ')
			sep = s + i;
	if (!sep)
		return err_set(e,
			       "line %zu: expected \"PACKAGE[, PACKAGE...]: PATH\", as dpkg-query "
			       "--search prints",
			       line);
	path = sep + 2;
	while (path < s + len && *path == ' ')
		path++;
	for (base = p = path; p < s + len; p++)
		if (*p == '/')
			base = p + 1;
	if (base == s + len)
		return err_set(e, "line %zu: no soname after the package", line);
	for (p = s; p < sep && r == 0; p = end + (end < sep ? 2 : 0)) {
		for (end = p; end < sep && !(end[0] == ',' && end + 1 < sep && end[1] == ' ');
		     end++)
			;
		if ((r = map_package(p, (size_t)(end - p), line, &pkg, e)) == 0 &&
		    (pkg.oom ||
		     map_push(map, base, (size_t)(s + len - base), pkg.p, pkg.len - 1, line)))
			r = err_oom(e);
	}
	buf_free(&pkg);
	return r;
}

int pkgdeps_debmap_parse(const char *text, size_t len, struct debmap *map, struct err *e)
{
	size_t start = 0, end, line = 0, n;

	while (start < len) {
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		line++;
		n = end - start;
		while (n && (text[start + n - 1] == ' ' || text[start + n - 1] == '\t' ||
			     text[start + n - 1] == '\r'))
			n--;
		if (n && text[start] != '#' && map_line(map, text + start, n, line, e))
			return -1;
		start = end + 1;
	}
	return 0;
}

void pkgdeps_debmap_free(struct debmap *map)
{
	for (size_t i = 0; i < map->n; i++) {
		free(map->v[i].soname);
		free(map->v[i].package);
	}
	free(map->v);
	memset(map, 0, sizeof *map);
}

/* ---- rpm and Debian dependencies ---- */

const char *pkgdeps_rpm_suffix(int is64, unsigned machine)
{
	/* rpm's elfdeps writes SONAME(VERSION)MARKER, with the marker "(64bit)" for ELFCLASS64 but
	 * on Alpha (EM_ALPHA, EM_FAKE_ALPHA), and the bare soname when it has neither. */
	return is64 && machine != EM_ALPHA_ && machine != EM_FAKE_ALPHA_ ? "()(64bit)" : "";
}

/* The rpm tag an entry gets: with --rpm-requires/-recommends/-suggests, the strongest of those
 * that select its feature (-1: none does); else its own priority. */
static int rpm_rank(const struct entry *en, struct namelist *tags, struct buf *tmp)
{
	const char *feature;
	int any = 0, rank = -1;

	for (int k = 0; k < RANKS; k++)
		any |= tags[k].given;
	if (!any)
		return deps_entry_rank(en, tmp);
	feature = entry_string(en, "feature", tmp);
	for (int k = RANKS - 1; k >= 0; k--) /* every list is asked: it marks its names used */
		if (deps_namelist_selects(&tags[k], feature) && rank < 0)
			rank = k;
	return rank;
}

/* The marker rpm writes after SONAME(VERSION): the class suffix without its "()". */
static const char *rpm_marker(const char *suffix)
{
	return strncmp(suffix, "()", 2) == 0 ? suffix + 2 : suffix;
}

/* One soname as rpm requires it, into out: "libfoo.so.1()(64bit)", and with the version nodes
 * of the symbols looked up from it (the NUL-separated vers), what elfdeps gives a file linked
 * with them: "libfoo.so.1(V)(64bit)" each, one line apart (lines), or together in a rich
 * dependency "(libfoo.so.1()(64bit) and libfoo.so.1(V)(64bit))" (an alternative). */
static void rpm_soname(const char *soname, const char *suffix, const struct buf *vers, size_t nv,
		       int lines, struct buf *out)
{
	const char *v = vers->p;

	if (nv && !lines)
		buf_putc(out, '(');
	buf_printf(out, "%s%s", soname, suffix);
	for (size_t k = 0; k < nv; k++, v += strlen(v) + 1)
		buf_printf(out, "%s%s(%s)%s", lines ? "\n" : " and ", soname, v,
			   rpm_marker(suffix));
	if (nv && !lines)
		buf_putc(out, ')');
}

/* Entry i of the listing as rpm dependencies, pushed at `rank`: one soname gives its lines
 * (rpm_soname), alternatives the rich dependency "(a()(64bit) or b()(64bit))" (rpm >= 4.13), in
 * which each alternative keeps its versions. */
static int rpm_push(const struct listing *l, size_t i, int rank, struct deps *d)
{
	const struct listing_from *f = &l->from[i];
	const struct keyval *m = entry_find(&l->es.v[i], "soname");
	struct buf s = {0}, vers = {0}, dep = {0}, names = {0};
	size_t pos = 0, n = deps_join_sonames(&l->es.v[i], " ", "", &names), k = 0;
	int r = 0;

	if (n > 1)
		buf_putc(&dep, '(');
	while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
		size_t nv;
		buf_put(&s, "", 0);
		nv = symbols_versions(&l->syms, f->sym_first, f->sym_n, s.p ? s.p : "", &vers);
		buf_puts(&dep, k++ ? " or " : "");
		rpm_soname(s.p ? s.p : "", f->rpm_suffix, &vers, nv, n == 1, &dep);
	}
	if (n > 1)
		buf_putc(&dep, ')');
	buf_put(&dep, "", 0);
	if (s.oom || vers.oom || dep.oom || names.oom)
		r = -1;
	/* One line each, in order (deps keeps the order of what one entry pushes). */
	for (char *line = dep.p, *nl; r == 0 && line; line = nl ? nl + 1 : NULL) {
		if ((nl = strchr(line, '\n')))
			*nl = '\0';
		r = deps_push(d, NULL, line, rank, i);
	}
	buf_free(&s);
	buf_free(&vers);
	buf_free(&dep);
	buf_free(&names);
	return r;
}

/* --format=rpm: "Requires: libfoo.so.1()(64bit)", alternatives as a rich dependency
 * "(a()(64bit) or b()(64bit))".  Requires first, then Recommends, then Suggests; in each, the
 * order the entries came in. */
int pkgdeps_rpm(const struct listing *l, struct namelist tags[RANKS], FILE *out)
{
	struct deps d = {0};
	struct buf p = {0};
	size_t i;
	int r = 0, rank, k;

	for (i = 0; i < l->es.n && r == 0; i++) {
		if ((rank = rpm_rank(&l->es.v[i], tags, &p)) < 0)
			continue;
		r = rpm_push(l, i, rank, &d);
	}
	deps_merge(&d);
	deps_sort_first(&d);
	for (k = RANKS - 1; k >= 0 && r == 0; k--)
		for (i = 0; i < d.n; i++)
			if (d.v[i].rank == k)
				print_text(out, "%s: %s\n", rpm_tags[k], d.v[i].text);
	deps_free(&d);
	buf_free(&p);
	return r;
}

/* The map sorted by soname (then map order), so that a soname's packages are found in
 * O(log n) and the map is not walked once per entry. */
static struct key *map_index(const struct debmap *map)
{
	struct key *v = xcalloc(map->n + 1, sizeof *v);

	for (size_t i = 0; v && i < map->n; i++)
		v[i] = (struct key){map->v[i].soname, strlen(map->v[i].soname), i};
	if (v)
		keys_sort(v, map->n);
	return v;
}

/* The packages that provide an entry's sonames, in soname preference order then map order,
 * each once, joined with " | ".  Empty when the map has none.  Returns -1 when out of memory. */
static int deb_alternatives(const struct entry *en, const struct debmap *map, const struct key *idx,
			    struct buf *out)
{
	const struct keyval *m = entry_find(en, "soname");
	struct key *pk = NULL, *sorted = NULL, *v, want;
	unsigned char *first = NULL;
	const struct key *k;
	struct buf s = {0};
	size_t pos = 0, n = 0, cap = 0, i, shown = 0;
	int r = 0;

	/* Every package of every soname, in order; a sorted copy finds the first of each. */
	while (r == 0 && m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
		buf_put(&s, "", 0);
		want = (struct key){s.p, s.len, 0};
		for (k = s.oom ? NULL : keys_find(idx, map->n, s.p, s.len);
		     k && k < idx + map->n && key_same(k, &want); k++) {
			const char *p = map->v[k->pos].package;
			if (!(v = xgrow(pk, &cap, n, sizeof *pk))) {
				r = -1;
				break;
			}
			pk = v;
			pk[n] = (struct key){p, strlen(p), n};
			n++;
		}
	}
	first = xcalloc(n + 1, 1);
	sorted = xcalloc(n + 1, sizeof *sorted);
	if (r || !first || !sorted || s.oom)
		r = -1;
	out->len = 0;
	if (r == 0 && n) {
		memcpy(sorted, pk, n * sizeof *pk);
		keys_sort(sorted, n);
		for (i = 0; i < n; i++)
			if (i == 0 || !key_same(&sorted[i - 1], &sorted[i]))
				first[sorted[i].pos] = 1;
		for (i = 0; i < n; i++)
			if (first[i])
				buf_printf(out, "%s%s", shown++ ? " | " : "", pk[i].p);
	}
	buf_put(out, "", 0);
	free(first);
	free(sorted);
	free(pk);
	buf_free(&s);
	return r || out->oom ? -1 : 0;
}

/* --format=deb: the three substvars dh_dlopenlibdeps writes, always all three (so that a
 * control file can use them even when empty); each field's dependencies sorted and joined with
 * ", "; a dependency goes only into its strongest field. */
int pkgdeps_deb(const struct listing *l, const struct debmap *map, const char *map_path, int quiet,
		FILE *out)
{
	struct deps d = {0};
	struct buf t = {0}, p = {0};
	struct key *idx = map_index(map);
	size_t i;
	int r = idx ? 0 : -1, k, first;

	for (i = 0; i < l->es.n && r == 0; i++) {
		int rank = deps_entry_rank(&l->es.v[i], &p);
		if (deb_alternatives(&l->es.v[i], map, idx, &t)) {
			r = -1;
		} else if (t.p && t.p[0]) {
			r = deps_push(&d, NULL, t.p, rank, i);
		} else if (!quiet) {
			deps_join_sonames(&l->es.v[i], " | ", "", &t);
			print_text(stderr,
				   PROGRAM_NAME
				   ": %s: no package for %s (%s, in %s): left out of %s\n",
				   map_path, t.p, deps_rank_names[rank], l->from[i].path,
				   deb_fields[rank]);
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
	free(idx);
	return r;
}

/* ---- the rpm dependency generator ---- */

int pkgdeps_kind_parse(const char *name)
{
	static const char *const kinds[RANKS] = {"suggests", "recommends", "requires"};

	for (int i = 0; i < RANKS; i++)
		if (strcmp(name, kinds[i]) == 0)
			return i;
	return -1;
}

static int override_push(struct rpm_overrides *o, const char *word, const char *c1, const char *c2,
			 int rank)
{
	struct rpm_override *v = xrealloc(o->v, o->n + 1, sizeof *v);

	if (!v)
		return -1;
	o->v = v;
	v = &o->v[o->n];
	v->package = xstrndup(word, (size_t)(c1 - word));
	v->feature = xstrndup(c1 + 1, (size_t)(c2 - c1 - 1));
	v->rank = rank;
	if (!v->package || !v->feature) {
		free(v->package);
		free(v->feature);
		return -1;
	}
	o->n++;
	return 0;
}

/* One declaration SUBPACKAGE:FEATURE:LEVEL.  The level is the rest after the second colon, so
 * "a:b:c:required" is refused rather than read as feature "b:c". */
static int override_word(struct rpm_overrides *o, const char *w, size_t len, struct err *e)
{
	const char *c1 = memchr(w, ':', len),
		   *c2 = c1 ? memchr(c1 + 1, ':', len - (size_t)(c1 + 1 - w)) : NULL;
	const char *level;
	size_t llen;
	int rank;

	if (!c2)
		return err_usage(e, "'%.*s' is not SUBPACKAGE:FEATURE:LEVEL", (int)len, w);
	level = c2 + 1;
	llen = len - (size_t)(level - w);
	rank = deps_rank_parse(level, llen);
	if (rank < 0 && !(llen == 7 && memcmp(level, "ignored", 7) == 0))
		return err_usage(
			e, "'%.*s': the level is not required, recommended, suggested or ignored",
			(int)len, w);
	if (override_push(o, w, c1, c2, rank))
		return err_oom(e);
	return 0;
}

int pkgdeps_overrides_parse(const char *text, struct rpm_overrides *o, struct err *e)
{
	const char *p = text, *end, *w;

	while (*p) {
		for (end = p; *end && *end != '\n'; end++)
			;
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
			p++;
		if (p < end && *p != '#') {
			while (p < end) {
				for (w = p; p < end && *p != ' ' && *p != '\t' && *p != '\r'; p++)
					;
				if (p > w && override_word(o, w, (size_t)(p - w), e))
					return -1;
				while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
					p++;
			}
		}
		p = *end ? end + 1 : end;
	}
	return 0;
}

void pkgdeps_overrides_free(struct rpm_overrides *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].package);
		free(o->v[i].feature);
	}
	free(o->v);
	memset(o, 0, sizeof *o);
}

/* The rank an entry gets in this subpackage: the first override whose globs match the
 * subpackage and the feature ("" when it has none), as package-notes reads them; else its own
 * priority.  -1: ignored. */
static int generate_rank(const struct entry *en, const struct rpm_generator *g, struct buf *tmp)
{
	const char *feature;

	for (size_t i = 0; i < g->over.n; i++) {
		if (fnmatch(g->over.v[i].package, g->package ? g->package : "", 0) != 0)
			continue;
		feature = entry_string(en, "feature", tmp);
		if (fnmatch(g->over.v[i].feature, feature ? feature : "", 0) == 0)
			return g->over.v[i].rank;
	}
	return deps_entry_rank(en, tmp);
}

int pkgdeps_rpm_generate(const struct listing *one, const struct rpm_generator *g, FILE *out)
{
	struct deps d = {0};
	struct buf p = {0};
	size_t i, k;
	int r = 0;

	/* Every entry's dependency at its rank, merged: a dependency the file gives at two ranks
	 * is printed by the generator of the strongest alone, as --format=rpm prints it. */
	for (i = 0; i < one->es.n && r == 0; i++) {
		int rank = generate_rank(&one->es.v[i], g, &p);
		if (rank >= 0)
			r = rpm_push(one, i, rank, &d);
	}
	deps_merge(&d);
	deps_sort_first(&d);
	for (i = 0, k = 0; i < d.n; i++)
		k += d.v[i].rank == g->kind;
	if (r == 0 && k && g->multifile)
		fprintf(out, ";%s\n", one->from[0].path);
	for (i = 0; i < d.n && r == 0; i++)
		if (d.v[i].rank == g->kind)
			fprintf(out, "%s\n", d.v[i].text);
	deps_free(&d);
	buf_free(&p);
	return r;
}
