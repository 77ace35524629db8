/* SPDX-License-Identifier: MIT */
/* closure.c - the walk: each FILE, its interpreter, its DT_NEEDED libraries breadth first as
 * the loader maps them, then the libraries its objects' notes name at the chosen priority or
 * stronger, each with what it needs in turn (see closure.h, docs/closure.md). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closure_int.h"

/* ---- the walk of one FILE ---- */

static int node_push(struct closure *c, size_t obj, size_t loader, char *origin)
{
	struct node *v = xgrow(c->nodes, &c->nodes_cap, c->nnodes, sizeof *v);

	if (!v)
		return free(origin), -1;
	c->nodes = v;
	v[c->nnodes++] = (struct node){obj, loader, origin};
	return 0;
}

/* The node of an object already loaded for this FILE under NAME (its file name or DT_SONAME,
 * as glibc's _dl_map_object compares them), or NO_NODE. */
static size_t loaded(const struct closure *c, const char *name, long obj)
{
	for (size_t i = 0; i < c->nnodes; i++) {
		const struct object *o = &c->objs[c->nodes[i].obj];
		const char *base = strrchr(o->path, '/');
		if ((long)c->nodes[i].obj == obj ||
		    (o->dyn.soname && strcmp(o->dyn.soname, name) == 0) ||
		    (base && strcmp(base + 1, name) == 0))
			return i;
	}
	return NO_NODE;
}

/* Load NAME for node `from` unless it is loaded: 1 loaded now or before, 0 not found, -1 out
 * of memory.  `why` is the reason's JSON members (the path of `from` follows). */
static int load(struct closure *c, const struct ldflavour *fl, size_t from, const char *name,
		const char *why)
{
	char *origin = NULL;
	size_t had = loaded(c, name, -1);
	long obj;
	struct buf r = {0};

	if (had != NO_NODE)
		obj = (long)c->nodes[had].obj;
	else if ((obj = search_library(c, fl, from, name, &origin)) == -2)
		return -1;
	if (obj < 0)
		return 0;
	if (c->o.json) {
		buf_puts(&r, why);
		buf_puts(&r, ",\"by\":");
		json_put_text(&r, c->objs[c->nodes[from].obj].path,
			      strlen(c->objs[c->nodes[from].obj].path));
		if (r.oom || closure_list(c, c->objs[obj].path, 0, r.p))
			return buf_free(&r), free(origin), -1;
		buf_free(&r);
	}
	if (had == NO_NODE && loaded(c, name, obj) == NO_NODE)
		return node_push(c, (size_t)obj, from, origin) ? -1 : 1;
	free(origin);
	return 1;
}

static int walk_needed(struct closure *c, const struct ldflavour *fl, size_t n)
{
	struct object *o = &c->objs[c->nodes[n].obj];

	if (o->unread) { /* an entry left out would be a library silently missing from the list */
		if (!o->unread_said)
			closure_say(c, o->path, "what it needs is not known: %s", o->unread);
		o->unread_said = 1;
		c->missing = 1;
	}

	for (size_t i = 0; i < o->dyn.nneeded; i++) {
		struct buf why = {0};
		int r;
		buf_puts(&why, "\"kind\":\"needed\",\"name\":");
		json_put_text(&why, o->dyn.needed[i], strlen(o->dyn.needed[i])); /* any bytes */
		r = why.oom ? -1 : load(c, fl, n, o->dyn.needed[i], why.p);
		buf_free(&why);
		o = &c->objs[c->nodes[n].obj]; /* the array may have moved */
		if (r < 0)
			return -1;
		if (r == 0 && !o->said[i]) {
			o->said[i] = 1;
			closure_say(c, o->path, "%s (DT_NEEDED) is not found%s", o->dyn.needed[i],
				    strcmp(c->o.root, "/") == 0 ? "" : " in the root");
		}
		c->missing |= r == 0;
	}
	return 0;
}

/* An entry: its first soname that loads.  One that none does is said once. */
static int walk_entry(struct closure *c, const struct ldflavour *fl, size_t n, size_t k, int rank)
{
	struct object *o = &c->objs[c->nodes[n].obj];
	const struct entry *en = &o->notes.v[k];
	const struct keyval *sonames = entry_find(en, "soname");
	struct buf tmp = {0}, name = {0}, why = {0}, label = {0};
	int r = 0;
	size_t pos = 0;

	while (sonames && r == 0 &&
	       json_array_next_string(sonames->val, sonames->vallen, &pos, &name) == 1) {
		why.len = 0;
		buf_puts(&why, "\"kind\":\"dlopen\",\"name\":");
		json_put_string(&why, name.p, name.len);
		buf_printf(&why, ",\"priority\":\"%s\"", deps_rank_name(rank));
		if (entry_string(en, "feature", &tmp)) {
			buf_puts(&why, ",\"feature\":");
			json_put_string(&why, tmp.p, tmp.len);
		}
		r = why.oom ? -1 : load(c, fl, n, name.p, why.p);
		name.len = 0;
	}
	o = &c->objs[c->nodes[n].obj];
	if (r == 0 && !o->said[o->dyn.nneeded + k]) {
		o->said[o->dyn.nneeded + k] = 1;
		manifest_entry_label(en, &label);
		closure_say(c, o->path, "%s %s: no soname of it is found%s", deps_rank_name(rank),
			    label.p ? label.p : "", rank == RANK_REQUIRED ? "" : " (left out)");
	}
	if (r == 0 && rank == RANK_REQUIRED)
		c->missing = 1;
	buf_free(&tmp);
	buf_free(&name);
	buf_free(&why);
	buf_free(&label);
	return r < 0 ? -1 : 0;
}

/* The notes of node n: each entry of the chosen priority or stronger. */
static int walk_notes(struct closure *c, const struct ldflavour *fl, size_t n)
{
	for (size_t k = 0; k < c->objs[c->nodes[n].obj].notes.n; k++) {
		struct object *o = &c->objs[c->nodes[n].obj];
		int rank = policy_rank(c->o.policy, &o->notes.v[k], o->path);
		if (rank == POLICY_UNKNOWN && !o->said[o->dyn.nneeded + k]) {
			struct buf label = {0};
			o->said[o->dyn.nneeded + k] = 1;
			manifest_entry_label(&o->notes.v[k], &label);
			closure_say(c, o->path, "%s: the policy does not name this feature",
				    label.p ? label.p : "");
			buf_free(&label);
		}
		c->missing |= rank == POLICY_UNKNOWN;
		if (rank >= c->o.min_rank && walk_entry(c, fl, n, k, rank))
			return -1;
	}
	return 0;
}

/* FILE's interpreter: loaded first, by its path (it is the loader itself). */
static int walk_interp(struct closure *c, const struct ldflavour *fl, size_t prog)
{
	const char *interp = c->objs[c->nodes[prog].obj].interp;
	struct buf links = {0}, why = {0};
	struct root_found f;
	long obj = -1;
	int rc = root_resolve(&c->r, "", interp, ROOT_OPEN, &links, &f, &c->e);

	if (rc == 0 && f.fd >= 0 && (obj = closure_object(c, f.path, f.fd)) < 0)
		return buf_free(&links), -1;
	if (obj >= 0 && c->objs[obj].elf && c->objs[obj].is64 == fl->is64 &&
	    c->objs[obj].machine == fl->machine) {
		const char *by = c->objs[c->nodes[prog].obj].path;
		buf_puts(&why, "\"kind\":\"interpreter\",\"by\":");
		json_put_text(&why, by, strlen(by));
		rc = why.oom || closure_list_links(c, links.p, links.len, f.path) ||
		     closure_list(c, f.path, 0, why.p) ||
		     node_push(c, (size_t)obj, prog, root_dirname(interp));
		buf_free(&links);
		buf_free(&why);
		return rc ? -1 : 0;
	}
	buf_free(&links);
	closure_say(c, c->objs[c->nodes[prog].obj].path, "its interpreter %s is not found%s%s%s",
		    interp, rc < 0 ? " (" : "", rc < 0 ? c->e.msg : "", rc < 0 ? ")" : "");
	c->missing = 1;
	return 0;
}

/* Breadth first, as the loader maps DT_NEEDED libraries; then each object's notes, whose
 * libraries are walked the same way in turn. */
static int walk(struct closure *c, const struct ldflavour *fl)
{
	size_t i = 0, j = 0;

	while (i < c->nnodes || j < c->nnodes) {
		if (i < c->nnodes) {
			if (walk_needed(c, fl, i++))
				return -1;
		} else if (walk_notes(c, fl, j++))
			return -1;
	}
	return 0;
}

static void nodes_clear(struct closure *c)
{
	for (size_t i = 0; i < c->nnodes; i++)
		free(c->nodes[i].origin);
	c->nnodes = 0;
}

int closure_add(struct closure *c, const char *file)
{
	struct buf links = {0};
	struct root_found f;
	const struct ldflavour *fl;
	long obj = -1;
	int rc = root_resolve(&c->r, "", file, ROOT_OPEN, &links, &f, &c->e), was = c->missing;

	if (rc != 0 || f.fd < 0) {
		buf_free(&links);
		if (rc < 0)
			return closure_say(c, file, "%s", c->e.msg), 1;
		return closure_say(c, file, "%s",
				   rc ? "no such file in the root (FILE names a path inside it)"
				      : "not a regular file"),
		       1;
	}
	if ((obj = closure_object(c, f.path, f.fd)) < 0)
		return buf_free(&links), -1;
	if (!c->objs[obj].elf) { /* a broken ELF file is never skipped */
		buf_free(&links);
		if (c->o.skip_non_elf && !c->objs[obj].broken)
			return 0;
		return closure_say(c, file, "%s",
				   c->objs[obj].broken ? c->objs[obj].broken : "not an ELF file"),
		       1;
	}
	rc = closure_list_links(c, links.p, links.len, f.path) ||
	     closure_list(c, f.path, 0, "\"kind\":\"file\"");
	buf_free(&links);
	fl = rc ? NULL : closure_flavour(c, &c->objs[obj]);
	if (!fl || node_push(c, (size_t)obj, NO_NODE, root_dirname(f.path)))
		return -1;
	c->missing = 0;
	rc = c->objs[obj].interp ? walk_interp(c, fl, 0) : 0;
	if (rc == 0)
		rc = walk(c, fl);
	nodes_clear(c);
	if (rc)
		return -1;
	rc = c->missing;
	c->missing |= was;
	return rc;
}

struct closure *closure_new(const struct closure_opts *o, struct err *e)
{
	struct closure *c = xcalloc(1, sizeof *c);

	if (!c)
		return err_oom(e), NULL;
	c->o = *o;
	if (root_open(&c->r, o->root, e))
		return free(c), NULL;
	return c;
}

void closure_free(struct closure *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nobjs; i++) {
		free(c->objs[i].path);
		free(c->objs[i].interp);
		free(c->objs[i].broken);
		free(c->objs[i].unread);
		free(c->objs[i].said);
		elf_dynamic_free(&c->objs[i].dyn);
		manifest_free(&c->objs[i].notes);
	}
	for (size_t i = 0; i < c->nflav; i++)
		ldconf_flavour_free(&c->flav[i]);
	nodes_clear(c);
	free(c->nodes);
	free(c->flav);
	free(c->objs);
	free(c->kinds);
	buf_free(&c->conf.text);
	buf_free(&c->searched_links);
	strmap_free(&c->obj_by_path);
	strmap_free(&c->searched);
	strmap_free(&c->searched_at);
	strmap_free(&c->said);
	strmap_free(&c->paths);
	strmap_free(&c->reasons);
	root_close(&c->r);
	free(c);
}
