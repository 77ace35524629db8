/* SPDX-License-Identifier: MIT */
/* search.c - the loader's search for one library, as glibc's _dl_map_object does it inside the
 * root (see closure_int.h, docs/closure.md). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closure_int.h"

/* Expand $ORIGIN, $LIB and $PLATFORM (also as ${NAME}) in one path element.  0 done, 1 when the
 * element is dropped (as glibc drops one whose substitution it cannot make), -1 too long. */
static int expand(const struct ldflavour *fl, const char *origin, const char *in, size_t len,
		  char *out, size_t outsz)
{
	size_t o = 0, i = 0;

	while (i < len) {
		const char *val = NULL;
		size_t nlen = 0, skip = 0;
		if (in[i] == '$') {
			int brace = i + 1 < len && in[i + 1] == '{';
			size_t s = i + 1 + (size_t)brace;
			while (s + nlen < len && (in[s + nlen] == '_' ||
						  (in[s + nlen] >= 'A' && in[s + nlen] <= 'Z')))
				nlen++;
			if (brace && (s + nlen >= len || in[s + nlen] != '}'))
				nlen = 0;
			skip = nlen ? 1 + (size_t)brace * 2 + nlen : 0;
			if (nlen == 6 && memcmp(in + s, "ORIGIN", 6) == 0)
				val = origin;
			else if (nlen == 3 && memcmp(in + s, "LIB", 3) == 0)
				val = fl->lib;
			else if (nlen == 8 && memcmp(in + s, "PLATFORM", 8) == 0) {
				if (!fl->platform)
					return 1;
				val = fl->platform;
			} else
				skip = 0;
			if (skip && !val)
				return 1;
		}
		if (skip) {
			size_t vl = strlen(val);
			if (o + vl >= outsz)
				return -1;
			memcpy(out + o, val, vl);
			o += vl;
			i += skip;
		} else {
			if (o + 1 >= outsz)
				return -1;
			out[o++] = in[i++];
		}
	}
	out[o] = 0;
	return 0;
}

static int flavour_matches(const struct ldflavour *fl, const struct object *o)
{
	return o->elf && o->is64 == fl->is64 && o->big == fl->big && o->machine == fl->machine &&
	       o->type == ET_DYN_;
}

/* The answer of a search kept in c->searched (its object, or none) is taken: the file and the
 * links met on the way to it are listed (kept at the offset c->searched_at gives, each name
 * NUL-terminated, an empty name last).  A file found but not taken (a directory of ld.so.conf
 * the loader does not search without ld.so.cache) is not listed. */
static int take(struct closure *c, const char *key, size_t keylen, long obj)
{
	int found;
	size_t off = strmap_get(&c->searched_at, key, keylen, &found), end = off;

	while (found && end < c->searched_links.len && c->searched_links.p[end])
		end += strlen(c->searched_links.p + end) + 1;
	if ((found &&
	     closure_list_links(c, c->searched_links.p + off, end - off, c->objs[obj].path)) ||
	    closure_list(c, c->objs[obj].path, 0, NULL))
		return -1;
	return 0;
}

/* DIR/NAME, when it is a library of the program's flavour: its object, -1 when not, -2 out of
 * memory.  Each answer is kept, with the links on the way; with `taking`, the file found and
 * those links are listed (take()). */
static long try_path(struct closure *c, const struct ldflavour *fl, const char *dir,
		     const char *name, int taking)
{
	char key[2 * ROOT_PATH_MAX + 64];
	struct buf links = {0};
	struct root_found f;
	size_t v;
	long obj = -1;
	int found, n, rc;

	n = snprintf(key, sizeof key, "%d%d%u|%s|%s", fl->is64, fl->big, fl->machine, dir, name);
	if (n < 0 || (size_t)n >= sizeof key)
		return -1;
	v = strmap_get(&c->searched, key, (size_t)n, &found);
	if (found) {
		obj = (long)v - 1;
		return obj >= 0 && taking && take(c, key, (size_t)n, obj) ? -2 : obj;
	}
	snprintf(key + n + 1, sizeof key - (size_t)n - 1, "%s%s%s", dir,
		 *dir && dir[strlen(dir) - 1] == '/' ? "" : "/", name);
	rc = root_resolve(&c->r, "", *name == '/' ? name : key + n + 1, ROOT_OPEN, &links, &f,
			  &c->e);
	if (rc < 0) { /* a link loop, a name too long: the answer is kept; one line per cause */
		char cause[sizeof key];
		int said, m = snprintf(cause, sizeof cause, "%s\n%s", dir, c->e.msg);
		if (m < 0 || (size_t)m >= sizeof cause)
			m = (int)sizeof cause - 1;
		strmap_get(&c->said, cause, (size_t)m, &said);
		if (!said && strmap_put(&c->said, cause, (size_t)m, 1) == 0)
			print_text(stderr, PROGRAM_NAME ": %s%s: %s\n",
				   strcmp(c->o.root, "/") == 0 ? "" : c->o.root, key + n + 1,
				   c->e.msg);
	}
	if (rc == 0 && f.fd >= 0) {
		obj = closure_object(c, f.path, f.fd);
		if (obj >= 0 && !flavour_matches(fl, &c->objs[obj]))
			obj = -1;
	}
	if (obj >= 0 && links.len) {
		size_t at = c->searched_links.len;
		buf_put(&c->searched_links, links.p, links.len);
		buf_putc(&c->searched_links, 0);
		if (c->searched_links.oom || strmap_put(&c->searched_at, key, (size_t)n, at))
			obj = -2;
	}
	if (links.oom || c->searched_links.oom)
		obj = -2;
	buf_free(&links);
	if (obj == -2 || strmap_put(&c->searched, key, (size_t)n, (size_t)(obj + 1)))
		return -2;
	return obj >= 0 && taking && take(c, key, (size_t)n, obj) ? -2 : obj;
}

/* Each element of a colon-separated list, expanded for node `n`. */
static long try_list(struct closure *c, const struct ldflavour *fl, const char *list, size_t n,
		     const char *name, char **origin)
{
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ":");
		char dir[ROOT_PATH_MAX];
		if (len && expand(fl, c->nodes[n].origin, p, len, dir, sizeof dir) == 0) {
			long obj = try_path(c, fl, dir, name, 1);
			if (obj >= 0)
				return (*origin = xstrndup(dir, strlen(dir))) ? obj : -2;
			if (obj == -2)
				return -2;
		}
		p += len + (p[len] == ':');
	}
	return -1;
}

/* ld.so.cache, as ldconfig would write it from ld.so.conf: its directories.  A library found
 * in one the loader does not search by itself needs the cache in the copy too. */
static long try_cache(struct closure *c, const struct ldflavour *fl, const char *name,
		      char **origin)
{
	size_t pos = 0;
	const char *dir;

	if (!c->conf_read) {
		c->conf_read = 1;
		if (ldconf_read(&c->r, &c->conf, c->o.verbose, &c->e))
			return -2;
	}
	while ((dir = dirlist_next(&c->conf, &pos)) != NULL) {
		long obj = try_path(c, fl, dir, name, 0);
		if (obj == -2)
			return -2;
		if (obj < 0)
			continue;
		if (!dirlist_has(&fl->defaults, dir)) {
			struct buf links = {0};
			struct root_found f;
			int rc = root_resolve(&c->r, "", "/etc/ld.so.cache", 0, &links, &f, &c->e);
			if (rc != 0 || !S_ISREG(f.st.st_mode)) {
				/* The loader reads ld.so.conf's directories from the cache only:
				 * without one, it does not find the library there. */
				buf_free(&links);
				if (!c->no_cache_said)
					closure_say(
						c, dir,
						"holds %s, but the root has no /etc/ld.so.cache, "
						"and its loader searches ld.so.conf's directories "
						"through the cache only: not found (ldconfig -r "
						"ROOT writes the cache)",
						name);
				c->no_cache_said = 1;
				continue;
			}
			if (closure_list_links(c, links.p, links.len, f.path) ||
			    closure_list(c, f.path, 0, "\"kind\":\"ld.so.cache\""))
				obj = -2;
			buf_free(&links);
		}
		if (obj >= 0 && try_path(c, fl, dir, name, 1) == -2)
			obj = -2;
		if (obj >= 0 && !(*origin = xstrndup(dir, strlen(dir))))
			obj = -2;
		return obj;
	}
	return -1;
}

long search_library(struct closure *c, const struct ldflavour *fl, size_t from, const char *name,
		    char **origin)
{
	const struct object *lo = &c->objs[c->nodes[from].obj];
	size_t pos = 0;
	const char *dir;
	long obj = -1;

	*origin = NULL;
	if (strchr(name, '/')) { /* a path: only DSTs are expanded */
		char path[ROOT_PATH_MAX];
		if (expand(fl, c->nodes[from].origin, name, strlen(name), path, sizeof path))
			return -1;
		obj = try_path(c, fl, "", path, 1);
		if (obj >= 0 && !(*origin = root_dirname(path)))
			return -2;
		return obj;
	}
	/* DT_RPATH of the loader chain, unless the loader has DT_RUNPATH (glibc ignores the
	 * DT_RPATH of an object that has a DT_RUNPATH: get-dynamic-info.h). */
	for (size_t n = from; !lo->dyn.runpath && n != NO_NODE && obj == -1;
	     n = c->nodes[n].loader) {
		const struct object *o = &c->objs[c->nodes[n].obj];
		if (o->dyn.rpath && !o->dyn.runpath)
			obj = try_list(c, fl, o->dyn.rpath, n, name, origin);
	}
	if (obj == -1 && lo->dyn.runpath)
		obj = try_list(c, fl, lo->dyn.runpath, from, name, origin);
	if (lo->dyn.flags_1 & DF_1_NODEFLIB_)
		return obj;
	if (obj == -1)
		obj = try_cache(c, fl, name, origin);
	while (obj == -1 && (dir = dirlist_next(&fl->defaults, &pos)) != NULL)
		if ((obj = try_path(c, fl, dir, name, 1)) >= 0 &&
		    !(*origin = xstrndup(dir, strlen(dir))))
			obj = -2;
	return obj;
}
