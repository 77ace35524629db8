/* SPDX-License-Identifier: MIT */
/* tree.c - a root directory described by a fuzz input, and a watch on what lies beside it
 * (see tree.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"

static char priv[4096];      /* the private directory: root/ and outside/ */
static int watch_fd = -1;    /* inotify */
static int priv_wd = -1;     /* the watch on priv */
static int last_rootfd = -1; /* the previous tree's */
static char touched_what[512];
static char names[TREE_MAX_FILES][4096];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)f;
	if (flag == FTW_DP)
		return rmdir(path), 0;
	return unlink(path), 0;
}

static void remove_priv(void)
{
	if (priv[0])
		nftw(priv, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* libFuzzer ends a run with _exit(): the atexit() removal does not run, and a private
 * directory stays.  Those of processes that are gone are removed when the next one starts. */
static void remove_stale(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *e;
	char path[4096];
	long pid;

	while (d && (e = readdir(d)))
		if (sscanf(e->d_name, "dlnote-fuzz-tree.%ld", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) < 0 && errno == ESRCH &&
		    (size_t)snprintf(path, sizeof path, "%s/%s", tmp, e->d_name) < sizeof path)
			nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (d)
		closedir(d);
}

static int make_priv(void)
{
	const char *tmp = getenv("TMPDIR");

	if (priv[0])
		return 0;
	tmp = tmp && *tmp ? tmp : "/tmp";
	remove_stale(tmp);
	snprintf(priv, sizeof priv, "%s/dlnote-fuzz-tree.%ld", tmp, (long)getpid());
	if (mkdir(priv, 0700))
		return priv[0] = 0, -1;
	atexit(remove_priv);
	if ((watch_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) < 0)
		return -1;
	priv_wd = inotify_add_watch(watch_fd, priv, IN_OPEN | IN_ACCESS);
	return priv_wd < 0 ? -1 : 0;
}

/* One directory below fd, made when missing and opened without following a link; -1 when it
 * cannot be (a file or a link is there). */
static int sub_dir(int fd, const char *name, int watch, const char *path)
{
	int nfd;

	mkdirat(fd, name, 0755);
	nfd = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (nfd >= 0 && watch && watch_fd >= 0)
		inotify_add_watch(watch_fd, path, IN_OPEN | IN_ACCESS);
	return nfd;
}

/* The directory of PATH's last component under base (made), its name in *leaf: an fd, or -1
 * when the path has no name or cannot be made.  `.`, `..` and empty components are dropped. */
static int parent_of(const char *base, const char *given, size_t len, int watch, char *leaf)
{
	char path[4096]; /* the input's bytes, NUL-terminated */
	char comp[256], where[4096];
	int fd = open(base, O_PATH | O_DIRECTORY | O_CLOEXEC), nfd;
	size_t i = 0, n;

	snprintf(where, sizeof where, "%s", base);
	leaf[0] = 0;
	len = len < sizeof path ? len : sizeof path - 1;
	memcpy(path, given, len);
	path[len] = 0;
	while (fd >= 0 && i < len) {
		n = strcspn(path + i, "/");
		n = n > len - i ? len - i : n;
		if (n == 0 || n >= sizeof comp || (n == 1 && path[i] == '.') ||
		    (n == 2 && path[i] == '.' && path[i + 1] == '.')) {
			i += n + 1;
			continue;
		}
		memcpy(comp, path + i, n);
		comp[n] = 0;
		i += n + 1;
		if (i >= len) {
			snprintf(leaf, 256, "%s", comp);
			return fd;
		}
		if (strlen(where) + n + 2 >= sizeof where)
			break;
		strcat(strcat(where, "/"), comp);
		nfd = sub_dir(fd, comp, watch, where);
		close(fd);
		fd = nfd;
	}
	if (fd >= 0)
		close(fd);
	return -1;
}

/* Make one record under base (the root, or the mirror outside). */
static void make(const char *base, int kind, const char *path, size_t len, const char *target,
		 const uint8_t *content, size_t clen, int watch)
{
	char leaf[256], full[4096];
	int dfd = parent_of(base, path, len, watch, leaf), fd;

	if (dfd < 0)
		return;
	if ((size_t)snprintf(full, sizeof full, "%s/%.*s", base, (int)len, path) >= sizeof full)
		return (void)close(dfd);
	if (kind == 'd')
		close(sub_dir(dfd, leaf, watch, full));
	else if (kind == 'l' && !watch)
		symlinkat(target, dfd, leaf);
	else if (kind == 'f' &&
		 (fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
			      0644)) >= 0) {
		if (clen && write(fd, content, clen) < 0)
			errno = 0;
		close(fd);
	}
	close(dfd);
}

int tree_make(struct tree *t, const char *dir, const uint8_t *data, size_t size)
{
	char outside[4096], buf[64];
	const uint8_t *p = data, *end = data + size;

	memset(t, 0, sizeof *t);
	t->rootfd = -1;
	if ((size_t)snprintf(t->root, sizeof t->root, "%s/root", dir) >= sizeof t->root ||
	    (size_t)snprintf(outside, sizeof outside, "%s/outside", dir) >= sizeof outside)
		return -1;
	mkdir(t->root, 0755);
	mkdir(outside, 0755);
	if (watch_fd >= 0)
		inotify_add_watch(watch_fd, outside, IN_OPEN | IN_ACCESS);
	/* the sentinel: what a walk that climbed out of the root would read first */
	make(outside, 'f', "etc/ld.so.conf", 14, NULL, (const uint8_t *)"/lib\n/usr/lib\n", 14, 1);
	while (p < end) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p)), *line = p;
		size_t llen = (size_t)((nl ? nl : end) - p), plen, clen = 0;
		const uint8_t *tab;
		int kind = llen > 2 && line[1] == ' ' ? line[0] : 0;

		p = nl ? nl + 1 : end;
		if (!kind)
			continue;
		line += 2, llen -= 2;
		tab = memchr(line, '\t', llen);
		plen = tab ? (size_t)(tab - line) : llen;
		if (memchr(line, 0, plen) || plen >= 4000)
			continue;
		if (kind == 'f' && tab) {
			size_t n =
				llen - plen - 1 < sizeof buf - 1 ? llen - plen - 1 : sizeof buf - 1;
			memcpy(buf, tab + 1, n);
			buf[n] = 0;
			clen = strtoul(buf, NULL, 10);
			clen = clen > (size_t)(end - p) ? (size_t)(end - p) : clen;
		}
		if (kind == 'x' && t->nfiles < TREE_MAX_FILES) {
			memcpy(names[t->nfiles], line, plen);
			names[t->nfiles][plen] = 0;
			t->files[t->nfiles] = names[t->nfiles];
			t->nfiles++;
		} else if (kind == 'l' && tab) {
			char target[4096];
			size_t tl = llen - plen - 1 < sizeof target - 1 ? llen - plen - 1
									: sizeof target - 1;
			memcpy(target, tab + 1, tl);
			target[tl] = 0;
			if (!memchr(tab + 1, 0, tl))
				make(t->root, 'l', (const char *)line, plen, target, NULL, 0, 0);
		} else if (kind == 'd' || kind == 'f') {
			make(t->root, kind, (const char *)line, plen, NULL, p, clen, 0);
			make(outside, kind, (const char *)line, plen, NULL, p, clen, 1);
		}
		p += clen;
	}
	t->rootfd = open(t->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return t->rootfd < 0 ? -1 : 0;
}

int tree_build(struct tree *t, const uint8_t *data, size_t size)
{
	char path[4096];

	if (make_priv())
		return -1;
	if (last_rootfd >= 0)
		close(last_rootfd);
	last_rootfd = -1;
	if ((size_t)snprintf(path, sizeof path, "%s/root", priv) < sizeof path)
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if ((size_t)snprintf(path, sizeof path, "%s/outside", priv) < sizeof path)
		nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	if (tree_make(t, priv, data, size))
		return -1;
	last_rootfd = t->rootfd;
	tree_touched(); /* what building it did is not counted */
	touched_what[0] = 0;
	return 0;
}

const char *tree_touched(void)
{
	char ev[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	const char *found = NULL;
	ssize_t n;

	while ((n = read(watch_fd, ev, sizeof ev)) > 0)
		for (char *q = ev; q < ev + n;) {
			const struct inotify_event *i = (const struct inotify_event *)q;
			q += sizeof *i + i->len;
			if (i->mask & IN_Q_OVERFLOW) {
				snprintf(touched_what, sizeof touched_what, "inotify overflow");
				found = touched_what;
			} else if (i->wd == priv_wd && i->len && strcmp(i->name, "root") == 0) {
				continue; /* the root itself */
			} else if (i->mask & (IN_OPEN | IN_ACCESS)) {
				snprintf(touched_what, sizeof touched_what, "%s %s (watch %d)",
					 i->mask & IN_OPEN ? "opened" : "read",
					 i->len ? i->name : "(the directory)", i->wd);
				found = touched_what;
			}
		}
	return found;
}

int tree_path_inside(const struct tree *t, const char *path)
{
	char comp[256];
	int fd, nfd;
	size_t i = 1, n;
	struct stat st;

	if (path[0] != '/' || t->rootfd < 0)
		return 0;
	if (!path[1])
		return 1;
	fd = dup(t->rootfd);
	while (fd >= 0) {
		n = strcspn(path + i, "/");
		if (n == 0 || n >= sizeof comp || (n == 1 && path[i] == '.') ||
		    (n == 2 && path[i] == '.' && path[i + 1] == '.'))
			break;
		memcpy(comp, path + i, n);
		comp[n] = 0;
		i += n;
		if (!path[i]) {
			int ok = fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0;
			close(fd);
			return ok;
		}
		i++;
		nfd = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = nfd;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}
