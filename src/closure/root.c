/* SPDX-License-Identifier: MIT */
/* root.c - paths resolved inside a root directory, one component at a time, never leaving it
 * (see closure_int.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closure_int.h"

int root_open(struct root *r, const char *dir, struct err *e)
{
	memset(r, 0, sizeof *r);
	for (size_t i = 0; i < ROOT_DIR_CACHE; i++)
		r->cache[i].fd = -1;
	r->dir = dir;
	r->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0)
		return err_set(e, "cannot open the root: %s", strerror(errno));
	return 0;
}

void root_close(struct root *r)
{
	for (size_t i = 0; i < ROOT_DIR_CACHE; i++) {
		if (r->cache[i].fd >= 0)
			close(r->cache[i].fd);
		free(r->cache[i].path);
	}
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* A descriptor of a resolved directory ("" is the root), opened from the root one component at
 * a time with O_NOFOLLOW, kept in a small cache (the search directories come back for every
 * library).  Owned by the root: not to be closed. */
static int dir_fd(struct root *r, const char *path)
{
	struct root_dirfd *slot;
	const char *p = path, *end;
	int fd = r->fd, nfd;
	char comp[NAME_MAX + 1];

	if (!*path)
		return r->fd;
	for (size_t i = 0; i < ROOT_DIR_CACHE; i++)
		if (r->cache[i].path && strcmp(r->cache[i].path, path) == 0)
			return r->cache[i].fd;
	while (*p) {
		while (*p == '/')
			p++;
		end = strchrnul(p, '/');
		if (end == p)
			break;
		if ((size_t)(end - p) > NAME_MAX) {
			errno = ENAMETOOLONG;
			nfd = -1;
		} else {
			memcpy(comp, p, (size_t)(end - p));
			comp[end - p] = 0;
			nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd != r->fd)
			close(fd);
		if (nfd < 0)
			return -1;
		fd = nfd;
		p = end;
	}
	slot = &r->cache[r->next];
	r->next = (r->next + 1) % ROOT_DIR_CACHE;
	if (slot->fd >= 0)
		close(slot->fd);
	free(slot->path);
	slot->path = strdup(path);
	slot->fd = slot->path ? fd : -1;
	if (!slot->path) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	return fd;
}

static int gone(int err)
{
	return err == ENOENT || err == ENOTDIR;
}

/* The state of one resolution: the resolved part (cur, "" for the root) and what is left. */
struct walk {
	char cur[ROOT_PATH_MAX];
	size_t clen;
	char rest[2 * ROOT_PATH_MAX];
	size_t rlen, rpos;
	int hops;
};

static int walk_push(struct walk *w, const char *comp, size_t len)
{
	if (w->clen + 1 + len >= sizeof w->cur)
		return -1;
	w->cur[w->clen++] = '/';
	memcpy(w->cur + w->clen, comp, len);
	w->clen += len;
	w->cur[w->clen] = 0;
	return 0;
}

/* `..`: the parent of what is resolved so far, never above the root. */
static void walk_pop(struct walk *w)
{
	while (w->clen && w->cur[w->clen - 1] != '/')
		w->clen--;
	if (w->clen)
		w->clen--;
	w->cur[w->clen] = 0;
}

/* A link's target takes the place of the link in what is left to resolve. */
static int walk_follow(struct walk *w, const char *target, size_t tlen)
{
	size_t left = w->rlen - w->rpos;
	size_t sep = left ? 1 : 0; /* a trailing '/' would ask for a directory */

	if (tlen + sep + left >= sizeof w->rest)
		return -1;
	memmove(w->rest + tlen + sep, w->rest + w->rpos, left);
	memcpy(w->rest, target, tlen);
	if (sep)
		w->rest[tlen] = '/';
	w->rlen = tlen + sep + left;
	w->rest[w->rlen] = 0;
	w->rpos = 0;
	if (target[0] == '/')
		w->clen = 0, w->cur[0] = 0; /* absolute: from the root */
	return 0;
}

static int walk_link(struct root *r, struct walk *w, int dfd, const char *comp, size_t len,
		     struct buf *links, struct err *e)
{
	char target[ROOT_PATH_MAX];
	ssize_t n;

	if (++w->hops > ROOT_MAX_HOPS)
		return err_set(e, "more than %d symbolic links (a loop?)", ROOT_MAX_HOPS);
	n = readlinkat(dfd, comp, target, sizeof target);
	if (n < 0 || (size_t)n >= sizeof target)
		return err_set(e, "%s/%s: cannot read the link: %s", w->cur, comp,
			       n < 0 ? strerror(errno) : "too long");
	if (links) {
		buf_put(links, w->cur, w->clen);
		buf_putc(links, '/');
		buf_put(links, comp, len);
		buf_putc(links, 0);
	}
	if (walk_follow(w, target, (size_t)n))
		return err_set(e, "%s/%s: path too long", w->cur, comp);
	(void)r;
	return 0;
}

/* Open what the walk resolved (no link, no ".." left in path) for reading.  The kernel resolves
 * it again below the root (io_open_in_root): a directory of the walk moved out of the root, or
 * a component replaced by a link, since the walk (or since a cached descriptor was opened) gives
 * no file of the host.  Kernels without openat2 (before 5.6) open from the walk's directory. */
static int open_resolved(struct root *r, int dfd, const char *comp, const char *path, int flags)
{
	int fd = io_open_in_root(r->fd, path, flags | O_NOFOLLOW, 1);

	if (fd < 0 && errno == ENOSYS)
		fd = openat(dfd, comp ? comp : ".", flags | O_NOFOLLOW | O_CLOEXEC);
	return fd;
}

static int walk_found(struct root *r, struct walk *w, int dfd, const char *comp, int flags,
		      struct root_found *out, struct err *e)
{
	if (comp) {
		if (walk_push(w, comp, strlen(comp)))
			return err_set(e, "path too long");
	}
	memcpy(out->path, w->clen ? w->cur : "/", w->clen ? w->clen + 1 : 2);
	if (!comp && fstat(dfd, &out->st))
		return err_set(e, "%s: %s", out->path, strerror(errno));
	if ((flags & ROOT_OPEN) && S_ISREG(out->st.st_mode)) {
		struct stat st;
		out->fd = open_resolved(r, dfd, comp, out->path, O_RDONLY | O_NOCTTY | O_NONBLOCK);
		if (out->fd < 0 && gone(errno))
			return 1; /* not in the root (any more) */
		if (out->fd < 0 && (errno == ELOOP || errno == EXDEV))
			return err_set(e, "%s: changed while it was opened", out->path);
		if (out->fd < 0)
			return err_set(e, "%s: %s", out->path, strerror(errno));
		if (fstat(out->fd, &st) || st.st_ino != out->st.st_ino ||
		    st.st_dev != out->st.st_dev)
			return close(out->fd),
			       out->fd = -1,
			       err_set(e, "%s: changed while it was opened", out->path);
	}
	return 0;
}

int root_resolve(struct root *r, const char *base, const char *path, int flags, struct buf *links,
		 struct root_found *out, struct err *e)
{
	struct walk w;
	size_t plen = strlen(path);

	out->fd = -1;
	w.hops = 0;
	w.clen = 0;
	w.cur[0] = 0;
	if (path[0] != '/' && base && strcmp(base, "/") != 0) {
		w.clen = strlen(base);
		if (w.clen >= sizeof w.cur)
			return err_set(e, "path too long");
		memcpy(w.cur, base, w.clen + 1);
	}
	if (plen >= sizeof w.rest)
		return err_set(e, "path too long");
	memcpy(w.rest, path, plen + 1);
	w.rlen = plen;
	w.rpos = 0;
	for (;;) {
		char comp[NAME_MAX + 1];
		size_t len;
		struct stat st;
		int dfd;

		while (w.rpos < w.rlen && w.rest[w.rpos] == '/')
			w.rpos++;
		if (w.rpos >= w.rlen) { /* a directory */
			dfd = dir_fd(r, w.cur);
			if (dfd < 0)
				return gone(errno) ? 1
						   : err_set(e, "%s: %s", w.cur, strerror(errno));
			return walk_found(r, &w, dfd, NULL, flags, out, e);
		}
		len = strcspn(w.rest + w.rpos, "/");
		if (len > NAME_MAX)
			return err_set(e, "a name longer than %d bytes", NAME_MAX);
		memcpy(comp, w.rest + w.rpos, len);
		comp[len] = 0;
		w.rpos += len;
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			walk_pop(&w);
			continue;
		}
		dfd = dir_fd(r, w.cur);
		if (dfd < 0)
			return gone(errno) ? 1 : err_set(e, "%s: %s", w.cur, strerror(errno));
		if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW))
			return gone(errno) ? 1
					   : err_set(e, "%s/%s: %s", w.cur, comp, strerror(errno));
		if (S_ISLNK(st.st_mode)) {
			if (walk_link(r, &w, dfd, comp, len, links, e))
				return -1;
			continue;
		}
		while (w.rpos < w.rlen && w.rest[w.rpos] == '/')
			w.rpos++;
		if (w.rpos < w.rlen || w.rest[w.rpos - 1] == '/') {
			if (!S_ISDIR(st.st_mode))
				return 1;
			if (walk_push(&w, comp, len))
				return err_set(e, "path too long");
			continue;
		}
		out->st = st;
		return walk_found(r, &w, dfd, comp, flags, out, e);
	}
}

int root_read_text(struct root *r, const char *path, size_t max, struct buf *out,
		   struct root_found *found, struct err *e)
{
	int rc = root_resolve(r, "", path, ROOT_OPEN, NULL, found, e);

	if (rc)
		return rc;
	if (found->fd < 0)
		return err_set(e, "not a regular file");
	if ((uint64_t)found->st.st_size > max) {
		close(found->fd);
		return err_set(e, "larger than %zu bytes", max);
	}
	if (buf_grow(out, (size_t)found->st.st_size + 1)) {
		close(found->fd);
		return err_oom(e);
	}
	/* io's one read loop: the whole size fstat gave, or an error (a file that shrank) */
	rc = io_read_at(found->fd, 0, out->p + out->len, (uint64_t)found->st.st_size, e);
	close(found->fd);
	found->fd = -1;
	if (rc)
		return -1;
	out->len += (size_t)found->st.st_size;
	out->p[out->len] = 0;
	return 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

long root_glob_dir(struct root *r, const char *dir, const char *pattern, struct buf *out,
		   struct err *e)
{
	int dfd = dir_fd(r, strcmp(dir, "/") == 0 ? "" : dir), fd;
	struct buf names = {0};
	char **v = NULL;
	size_t n = 0, cap = 0, off = 0;
	struct dirent *d;
	DIR *dp;

	if (dfd < 0)
		return gone(errno) ? 0 : err_set(e, "%s: %s", dir, strerror(errno));
	fd = open_resolved(r, dfd, NULL, dir, O_RDONLY | O_DIRECTORY);
	dp = fd < 0 ? NULL : fdopendir(fd);
	if (!dp) {
		if (fd >= 0)
			close(fd);
		return err_set(e, "%s: %s", dir, strerror(errno));
	}
	while ((d = readdir(dp)) != NULL)
		if (fnmatch(pattern, d->d_name, FNM_PERIOD) == 0)
			buf_put(&names, d->d_name, strlen(d->d_name) + 1);
	closedir(dp);
	for (off = 0; off < names.len && !names.oom; off += strlen(names.p + off) + 1) {
		char **g = xgrow(v, &cap, n, sizeof *v);
		if (!g)
			break;
		v = g;
		v[n++] = names.p + off;
	}
	if (names.oom || off < names.len)
		return free(v), buf_free(&names), err_oom(e);
	if (n)
		qsort(v, n, sizeof *v, name_cmp);
	for (size_t i = 0; i < n; i++)
		buf_put(out, v[i], strlen(v[i]) + 1);
	free(v);
	buf_free(&names);
	return out->oom ? err_oom(e) : (long)n;
}

char *root_dirname(const char *path)
{
	const char *s = strrchr(path, '/');

	return xstrndup(path, s && s != path ? (size_t)(s - path) : 1);
}
