/* SPDX-License-Identifier: MIT */
/* closure_out.c - the listing: each path once, whether it is a symbolic link, and with
 * --format=json the reasons it is there; printed sorted (see closure.h). */
#include <stdlib.h>
#include <string.h>

#include "closure_int.h"

int closure_list(struct closure *c, const char *path, int link, const char *reason)
{
	size_t len = strlen(path), idx;
	int found;

	idx = strmap_get(&c->paths, path, len, &found);
	if (!found) {
		unsigned char *k = xgrow(c->kinds, &c->kinds_cap, c->paths.n, 1);
		if (!k)
			return -1;
		c->kinds = k;
		idx = c->paths.n;
		k[idx] = (unsigned char)link;
		if (strmap_put(&c->paths, path, len, idx))
			return -1;
	}
	if (c->o.json && reason) {
		struct buf key = {0};
		int r;
		buf_printf(&key, "%zu\n%s", idx, reason);
		r = key.oom ? -1 : 0;
		if (r == 0 && !(strmap_get(&c->reasons, key.p, key.len, &found), found))
			r = strmap_put(&c->reasons, key.p, key.len, c->reasons.n);
		buf_free(&key);
		return r;
	}
	return 0;
}

int closure_list_links(struct closure *c, const char *links, size_t len, const char *to)
{
	struct buf why = {0};
	int r = 0;

	if (c->o.json) {
		buf_puts(&why, "\"kind\":\"link\",\"on_the_way_to\":");
		json_put_text(&why, to, strlen(to));
		if (why.oom)
			return buf_free(&why), -1;
	}
	for (size_t off = 0; off < len && r == 0; off += strlen(links + off) + 1)
		r = closure_list(c, links + off, 1, why.p);
	buf_free(&why);
	return r;
}

struct listed {
	const char *path;
	size_t idx;
};

static int listed_cmp(const void *a, const void *b)
{
	return strcmp(((const struct listed *)a)->path, ((const struct listed *)b)->path);
}

/* The reasons in the order they came, grouped by path. */
struct reason {
	size_t idx, seq;
	const char *text;
};

static int reason_cmp(const void *a, const void *b)
{
	const struct reason *x = a, *y = b;
	if (x->idx != y->idx)
		return x->idx < y->idx ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct reason *reasons_sorted(const struct closure *c)
{
	struct reason *v = xcalloc(c->reasons.n + 1, sizeof *v);
	size_t n = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < c->reasons.cap; i++) {
		const struct strmap_slot *s = &c->reasons.v[i];
		char *nl;
		if (!s->key)
			continue;
		nl = strchr(s->key, '\n');
		v[n++] = (struct reason){strtoull(s->key, NULL, 10), s->val, nl ? nl + 1 : ""};
	}
	if (n)
		qsort(v, n, sizeof *v, reason_cmp);
	return v;
}

/* One path's JSON object: {"path":...,"type":...,"reasons":[{...},...]}. */
static void print_json_path(const struct closure *c, const struct listed *l,
			    const struct reason *rs, FILE *out, struct buf *b)
{
	size_t lo = 0, hi = c->reasons.n, first = 1;

	while (lo < hi) { /* the first reason of this path */
		size_t mid = (lo + hi) / 2;
		if (rs[mid].idx < l->idx)
			lo = mid + 1;
		else
			hi = mid;
	}
	b->len = 0;
	buf_puts(b, "{\"path\":");
	json_put_text(b, l->path, strlen(l->path));
	buf_printf(b, ",\"type\":\"%s\",\"reasons\":[", c->kinds[l->idx] ? "symlink" : "file");
	for (; lo < c->reasons.n && rs[lo].idx == l->idx; lo++, first = 0)
		buf_printf(b, "%s{%s}", first ? "" : ",", rs[lo].text);
	buf_puts(b, "]}");
	if (!b->oom)
		fwrite(b->p, 1, b->len, out);
}

int closure_print(struct closure *c, FILE *out)
{
	struct listed *v = xcalloc(c->paths.n + 1, sizeof *v);
	struct reason *rs = c->o.json ? reasons_sorted(c) : NULL;
	struct buf b = {0};
	size_t n = 0, refused = 0;

	if (!v || (c->o.json && !rs))
		return free(v), free(rs), -1;
	for (size_t i = 0; i < c->paths.cap; i++)
		if (c->paths.v[i].key)
			v[n++] = (struct listed){c->paths.v[i].key, c->paths.v[i].val};
	if (n)
		qsort(v, n, sizeof *v, listed_cmp);
	if (c->o.json)
		fputs("[", out);
	for (size_t i = 0; i < n; i++) {
		if (!c->o.json && strchr(v[i].path, '\n')) { /* it would be two names */
			closure_say(c, v[i].path, "%s",
				    "a name with a newline: listed by --format=json only");
			refused++;
			continue;
		}
		if (!c->o.json) {
			fputs(v[i].path, out); /* names as they are: a list for tar and cpio */
			fputc('\n', out);
			continue;
		}
		fputs(i ? ",\n" : "\n", out);
		print_json_path(c, &v[i], rs, out, &b);
	}
	if (c->o.json)
		fputs("\n]\n", out);
	free(v);
	free(rs);
	n = b.oom;
	buf_free(&b);
	return n ? -1 : refused ? 1 : 0;
}
