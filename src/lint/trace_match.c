/* SPDX-License-Identifier: MIT */
/* trace_match.c - the callers of a trace (lint.h): each file that dlopen()ed by name, once,
 * and which of them a FILE checked is.
 *
 * The tests run in the build tree; the lint reads the files a package ships.  Between the two a
 * distribution rewrites them: rpm's find-debuginfo gives each a new GNU build-id (debugedit
 * with --build-id-seed: Fedora's default, unique build-ids), strip and dwz change what is not
 * loaded.  So a caller is recognised by its build-id, by being the same file, or by its code
 * identity (elf.h), read from the file at the caller's path when that file still has the
 * build-id the module recorded (it is the one that ran, not a file rebuilt since). */
#include "lint_int.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/base.h"

static const char HOW_BUILD_ID[] = "the same build-id";
static const char HOW_FILE[] = "the same file";
static const char HOW_CODE[] = "the same code, another build-id";

static uint64_t caller_hash(const char *path, const char *build_id)
{
	/* the path and its NUL, then the build-id: "a" "bc" and "ab" "c" differ */
	uint64_t h = hash_bytes(HASH_START, path, strlen(path) + 1);

	return hash_bytes(h, build_id ? build_id : "", build_id ? strlen(build_id) : 0);
}

static int same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Double the slots (they stay at most half full). */
static int rehash(struct trace *t)
{
	size_t n = t->nslots ? 2 * t->nslots : 64;
	size_t *v = xcalloc(n, sizeof *v);

	if (!v)
		return -1;
	for (size_t i = 0; i < t->ncallers; i++) {
		const struct trace_caller *c = &t->callers[i];
		size_t k = caller_hash(c->path, c->build_id) & (n - 1);
		while (v[k])
			k = (k + 1) & (n - 1);
		v[k] = i + 1;
	}
	free(t->slots);
	t->slots = v;
	t->nslots = n;
	return 0;
}

static int under(const char *path, const char *dir, size_t len)
{
	return path && len && strncmp(path, dir, len) == 0 &&
	       (path[len] == '/' || dir[len - 1] == '/');
}

/* The build tree: the recording's working directory (or, for an older trace, the lint's), as
 * written and as its real path; found once. */
static int tree_find(struct trace *t)
{
	char cwd[PATH_MAX], real[PATH_MAX];
	const char *tree = t->cwd;

	if (t->tree)
		return 0;
	if (!tree && getcwd(cwd, sizeof cwd))
		tree = cwd;
	if (!tree)
		tree = "";
	if (!realpath(tree, real))
		snprintf(real, sizeof real, "%s", tree);
	t->tree = xstrndup(tree, strlen(tree));
	t->tree_real = xstrndup(real, strlen(real));
	return t->tree && t->tree_real ? 0 : -1;
}

static int under_tree(const struct trace *t, const char *path)
{
	return under(path, t->tree, strlen(t->tree)) ||
	       under(path, t->tree_real, strlen(t->tree_real));
}

/* Where the caller is now, to compare with a FILE, and whether it is in the build tree. */
static int caller_resolve(struct trace *t, struct trace_caller *c)
{
	char real[PATH_MAX];
	struct stat st;

	if (stat(c->path, &st) == 0) {
		c->known = 1;
		c->dev = st.st_dev;
		c->ino = st.st_ino;
	}
	if (realpath(c->path, real) && !(c->real = xstrndup(real, strlen(real))))
		return -1;
	if (tree_find(t))
		return -1;
	c->in_tree = under_tree(t, c->path) || under_tree(t, c->real);
	return 0;
}

long trace_caller_add(struct trace *t, const char *path, const char *build_id, int hidden)
{
	struct trace_caller *v, *c;
	size_t k;

	if (2 * (t->ncallers + 1) > t->nslots && rehash(t))
		return -1;
	k = caller_hash(path, build_id) & (t->nslots - 1);
	for (; t->slots[k]; k = (k + 1) & (t->nslots - 1)) {
		c = &t->callers[t->slots[k] - 1];
		if (strcmp(c->path, path) == 0 && same_str(c->build_id, build_id)) {
			c->asks++;
			c->by_loader |= hidden;
			return (long)(t->slots[k] - 1);
		}
	}
	v = xrealloc(t->callers, t->ncallers + 1, sizeof *v);
	if (!v)
		return -1;
	t->callers = v;
	c = &v[t->ncallers];
	memset(c, 0, sizeof *c);
	c->path = xstrndup(path, strlen(path));
	c->build_id = build_id ? xstrndup(build_id, strlen(build_id)) : NULL;
	if (!c->path || (build_id && !c->build_id)) {
		free(c->path);
		free(c->build_id);
		return -1;
	}
	c->by_loader = hidden;
	c->asks = 1;
	if (caller_resolve(t, c)) {
		free(c->path);
		free(c->build_id);
		free(c->real);
		return -1;
	}
	t->slots[k] = t->ncallers + 1;
	return (long)t->ncallers++;
}

void trace_callers_free(struct trace *t)
{
	for (size_t i = 0; i < t->ncallers; i++) {
		free(t->callers[i].path);
		free(t->callers[i].build_id);
		free(t->callers[i].real);
	}
	free(t->callers);
	free(t->slots);
	free(t->tree);
	free(t->tree_real);
}

/* ---- the file at a caller's path ---- */

/* Opened once: is it still the file that ran, and what is its code identity's size? */
static void caller_read(struct trace_caller *c, struct elf *ef, struct scan *sc, int *fd)
{
	char id[2 * 64 + 1];
	struct err e = {0};
	struct stat st;

	c->read = 1;
	c->changed = "gone";
	*fd = open(c->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0)
		return;
	c->changed = "not an ELF file now";
	if (fstat(*fd, &st) || !S_ISREG(st.st_mode) ||
	    elf_open(ef, *fd, c->path, (uint64_t)st.st_size, &e)) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (scan_file(ef, sc, &e)) {
		elf_close(ef);
		close(*fd);
		*fd = -1;
		return;
	}
	scan_build_id(ef, sc, id);
	c->changed = same_str(c->build_id, id) ? NULL : "rebuilt since the recording";
	if (!c->changed && elf_code_id_size(ef, &c->code, &e))
		c->code.have = 0;
}

static void caller_done(struct elf *ef, struct scan *sc, int fd)
{
	if (fd < 0)
		return;
	scan_free(sc);
	elf_close(ef);
	close(fd);
}

/* Read the file at the caller's path once, for what caller_read learns. */
static void caller_look(struct trace_caller *c)
{
	struct elf ef;
	struct scan sc;
	int fd;

	if (c->read)
		return;
	caller_read(c, &ef, &sc, &fd);
	caller_done(&ef, &sc, fd);
}

/* The caller's code identity, hashed from the file at its path. */
static int caller_hash_code(struct trace_caller *c)
{
	struct elf ef;
	struct scan sc;
	struct err e = {0};
	int fd;

	caller_look(c);
	if (c->changed || !c->code.have)
		return 0;
	if (c->hashed)
		return 1;
	caller_read(c, &ef, &sc, &fd);
	if (!c->changed && c->code.have && elf_code_id_hash(&ef, &c->code, &e) == 0)
		c->hashed = 1;
	else
		c->code.have = 0;
	caller_done(&ef, &sc, fd);
	return c->hashed;
}

/* ---- FILE ---- */

struct file_id {
	int known;
	dev_t dev;
	ino_t ino;
	char real[PATH_MAX];
	char build_id[2 * 64 + 1]; /* hex, "" when FILE has none */
	struct elf_code_id code;
	int hashed; /* code: 0 sizes only, 1 hashed, -1 cannot be */
};

static void file_id(const char *path, const struct elf *ef, const struct scan *sc,
		    struct file_id *id)
{
	struct stat st;
	struct err e = {0};

	memset(id, 0, sizeof *id);
	scan_build_id(ef, sc, id->build_id);
	if (stat(path, &st) == 0) {
		id->known = 1;
		id->dev = st.st_dev;
		id->ino = st.st_ino;
	}
	if (!realpath(path, id->real))
		snprintf(id->real, sizeof id->real, "%s", path);
	if (elf_code_id_size(ef, &id->code, &e))
		id->code.have = 0;
}

static const char *same(struct trace_caller *c, struct file_id *id, const struct elf *ef)
{
	struct err e = {0};

	if (id->build_id[0] && c->build_id) {
		if (strcmp(c->build_id, id->build_id) == 0)
			return HOW_BUILD_ID;
		/* Another build-id: another build, even at the same path (a library rebuilt since
		 * the recording, by the tests or by hand).  Editing the notes keeps the build-id.
		 */
	} else if ((id->known && c->known && c->dev == id->dev && c->ino == id->ino) ||
		   (c->real && strcmp(c->real, id->real) == 0) || strcmp(c->path, id->real) == 0) {
		return HOW_FILE;
	}
	if (!id->code.have || id->hashed < 0)
		return NULL;
	caller_look(c);
	if (c->changed || !c->code.have || c->code.bytes != id->code.bytes ||
	    c->code.sections != id->code.sections)
		return NULL;
	if (!id->hashed)
		id->hashed = elf_code_id_hash(ef, &id->code, &e) == 0 ? 1 : -1;
	if (id->hashed < 0 || !caller_hash_code(c))
		return NULL;
	return memcmp(c->code.digest, id->code.digest, sizeof id->code.digest) == 0 ? HOW_CODE
										    : NULL;
}

int trace_match(struct trace *t, const char *path, const struct elf *ef, const struct scan *sc,
		const char ***is, struct err *e)
{
	struct file_id id;

	*is = xcalloc(t->ncallers ? t->ncallers : 1, sizeof **is);
	if (!*is)
		return err_oom(e);
	file_id(path, ef, sc, &id);
	for (size_t i = 0; i < t->ncallers; i++)
		if (((*is)[i] = same(&t->callers[i], &id, ef)))
			t->callers[i].matched = (*is)[i];
	return 0;
}

/* ---- after the last FILE ---- */

int trace_unmatched(struct trace *t, struct trace_unmatched *u)
{
	memset(u, 0, sizeof *u);
	for (size_t i = 0; i < t->ncallers; i++) {
		struct trace_caller *c = &t->callers[i];
		if (c->by_loader)
			u->by_loader += c->asks;
		if (!c->in_tree || c->by_loader || !c->asks) /* !asks: it only looked symbols up */
			continue;
		u->tree++;
		if (c->matched)
			continue;
		caller_look(c);
		if (u->unmatched++ < 3)
			buf_printf(&u->first, "%s%s%s%s%s", u->first.len ? ", " : "", c->path,
				   c->changed ? " (" : "", c->changed ? c->changed : "",
				   c->changed ? ")" : "");
		buf_printf(&u->all,
			   "%s: dlopen()ed during the recording, matches no file checked%s%s\n",
			   c->path, c->changed ? ": " : "", c->changed ? c->changed : "");
	}
	/* The names the hidden calls asked for, the first three. */
	for (size_t i = 0, n = 0; i < t->n && n < 3; i++)
		if (t->callers[t->v[i].caller].by_loader)
			buf_printf(&u->hidden, "%s%s", n++ ? ", " : "", t->v[i].name);
	return u->first.oom || u->all.oom || u->hidden.oom ? -1 : 0;
}

void trace_unmatched_free(struct trace_unmatched *u)
{
	buf_free(&u->first);
	buf_free(&u->all);
	buf_free(&u->hidden);
}
