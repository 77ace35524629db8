/* SPDX-License-Identifier: MIT */
/* object.c - the ELF files the walk meets, each read once: class, machine, type, PT_INTERP,
 * the dynamic table's names and paths, and the dlopen notes; the flavour of the loader for
 * each class and machine; and the walk's messages (see closure_int.h). */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closure_int.h"

/* "dlnote-inject: DIR/PATH: ..." names a path of the root as it is on this machine. */
void closure_say(const struct closure *c, const char *path, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	print_text(stderr, PROGRAM_NAME ": %s%s%s: %s\n",
		   strcmp(c->o.root, "/") == 0 ? "" : c->o.root,
		   path[0] == '/' || strcmp(c->o.root, "/") == 0 ? "" : "/", path, msg);
}

/* ---- objects ---- */

#define UNREAD_NAMES "names of its dynamic table point outside its string table"

static void object_read(struct object *o, int fd)
{
	unsigned char m[8];
	char interp[ROOT_PATH_MAX];
	struct stat st;
	struct elf ef;
	struct scan sc = {0};
	struct err e = {0};

	if (fstat(fd, &st) || !magic_is_elf(m, magic_read(fd, 0, (uint64_t)st.st_size, m)))
		return;
	if (elf_open(&ef, fd, o->path, (uint64_t)st.st_size, &e)) {
		o->broken = xstrndup(e.msg, strlen(e.msg));
		return;
	}
	o->elf = 1;
	o->is64 = ef.is64;
	o->big = ef.big;
	o->machine = ef.machine;
	o->flags = ef.flags;
	o->type = ef.type;
	if (elf_interp(&ef, interp, sizeof interp, &e) == 0 && interp[0])
		o->interp = xstrndup(interp, strlen(interp));
	/* What cannot be read is said, and every FILE that reaches it misses something. */
	if (elf_dynamic_read(&ef, &o->dyn, &e))
		o->unread = xstrndup(e.msg, strlen(e.msg));
	else if (o->dyn.unread)
		o->unread = xstrndup(UNREAD_NAMES, strlen(UNREAD_NAMES));
	else if (scan_file(&ef, &sc, &e) || scan_entries(&ef, &sc, &o->notes, &e)) {
		/* As every mode that reads notes does (docs/manifest.md, "Notes a file carries"):
		 * a file whose notes are not all read gives none of its entries, not those that
		 * came before the fault. */
		manifest_free(&o->notes);
		o->unread = xstrndup(e.msg, strlen(e.msg));
	} else if (manifest_fold_strongest(&o->notes)) {
		/* Folding an entry declared at several priorities to its strongest (to follow it once)
		 * fails only without memory. */
		o->unread = xstrndup(OOM_MESSAGE, strlen(OOM_MESSAGE));
	}
	scan_free(&sc);
	elf_close(&ef);
}

long closure_object(struct closure *c, const char *path, int fd)
{
	size_t len = strlen(path), v;
	struct object *o;
	int found;

	v = strmap_get(&c->obj_by_path, path, len, &found);
	if (found) {
		close(fd);
		return (long)v;
	}
	o = xgrow(c->objs, &c->objs_cap, c->nobjs, sizeof *o);
	if (!o) {
		close(fd);
		return -1;
	}
	c->objs = o;
	o = &c->objs[c->nobjs];
	memset(o, 0, sizeof *o);
	o->path = xstrndup(path, len);
	if (o->path)
		object_read(o, fd);
	close(fd);
	o->said = xcalloc(o->dyn.nneeded + o->notes.n + 1, 1);
	if (!o->path || !o->said || strmap_put(&c->obj_by_path, path, len, c->nobjs)) {
		c->nobjs++; /* freed with the others */
		return -1;
	}
	return (long)c->nobjs++;
}

/* The trusted directories of flavour f: its loader's own, read from the loader's read-only data
 * (ldso.c); else the usual ones ldconf_flavour() put there, said once. */
static int flavour_dirs(struct closure *c, struct ldflavour *f, const struct object *o)
{
	int from_file = o->interp != NULL;
	struct dirlist own = {0};
	struct root_found found;
	struct buf list = {0};
	size_t pos = 0;
	const char *d, *why = NULL;
	int rc = f->interp ? root_resolve(&c->r, "", f->interp, ROOT_OPEN, NULL, &found, &c->e) : 1;

	if (rc == 0 && found.fd >= 0) {
		rc = ldso_system_dirs(found.fd, found.path, &own, &c->e);
		close(found.fd);
		if (rc < 0)
			return buf_free(&own.text), -1;
		why = rc ? c->e.msg : NULL;
	} else if (rc < 0 || !from_file) /* a missing PT_INTERP is said by the walk */
		why = !f->interp ? "no loader known for its class and machine"
		      : rc < 0   ? c->e.msg
				 : "no such loader in the root";
	if (rc == 0 && own.n) {
		buf_free(&f->defaults.text);
		f->defaults = own;
	} else
		buf_free(&own.text);
	while ((d = dirlist_next(&f->defaults, &pos)) != NULL)
		buf_printf(&list, "%s%s", list.len ? ":" : "", d);
	if (list.oom)
		return buf_free(&list), -1;
	if (why)
		closure_say(c, f->interp ? f->interp : o->path, "%s: searching %s instead", why,
			    list.p);
	else if (c->o.verbose)
		closure_say(c, f->interp, "its system search path: %s", list.p);
	buf_free(&list);
	return 0;
}

const struct ldflavour *closure_flavour(struct closure *c, const struct object *o)
{
	const char *interp =
		o->interp ? o->interp : ldso_usual(o->is64, o->big, o->machine, o->flags);
	struct ldflavour *f;

	for (size_t i = 0; i < c->nflav; i++)
		if (c->flav[i].is64 == o->is64 && c->flav[i].big == o->big &&
		    c->flav[i].machine == o->machine &&
		    (c->flav[i].interp && interp ? strcmp(c->flav[i].interp, interp) == 0
						 : c->flav[i].interp == interp))
			return &c->flav[i];
	f = xrealloc(c->flav, c->nflav + 1, sizeof *f);
	if (!f)
		return NULL;
	c->flav = f;
	f = &c->flav[c->nflav];
	if (ldconf_flavour(&c->r, o->is64, o->big, o->machine, o->flags, f, &c->e))
		return NULL;
	c->nflav++; /* freed with the others from here */
	if (interp && !(f->interp = xstrndup(interp, strlen(interp))))
		return NULL;
	return flavour_dirs(c, f, o) ? NULL : f;
}
