/* SPDX-License-Identifier: MIT */
/* tree_fixtures.h - what the closure suites share (test_root.c, test_ldconf.c): a real
 * directory tree under $TMPDIR with a root directory and, beside it, a directory outside the
 * root whose files must never be opened; files, directories and symbolic links made in them by
 * relative name; a watch that sees every open of a file outside; the removal of the whole tree.
 *
 * Everything is static inline so that a suite that does not use a helper does not warn. */
#ifndef DLNOTE_TEST_TREE_FIXTURES_H
#define DLNOTE_TEST_TREE_FIXTURES_H

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

/* top/root is the root; top/outside is beside it: top/root/../outside is where a `..` that
 * climbed above the root would land. */
struct tree {
	char top[PATH_MAX], root[PATH_MAX], outside[PATH_MAX];
	int watch; /* inotify on outside and its directories */
};

static inline void tree_path(char *out, const char *base, const char *rel)
{
	int n = snprintf(out, PATH_MAX, "%s/%s", base, rel);

	cr_assert(n > 0 && n < PATH_MAX, "path too long: %s/%s", base, rel);
}

/* mkdir -p of base/rel. */
static inline void tree_dir(const char *base, const char *rel)
{
	char p[PATH_MAX];

	tree_path(p, base, rel);
	for (char *s = p + strlen(base) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = 0;
		cr_assert(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p,
			  strerror(errno));
		*s = '/';
	}
	cr_assert(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", p, strerror(errno));
}

static inline void tree_parent(const char *base, const char *rel)
{
	char d[PATH_MAX], *s;

	snprintf(d, sizeof d, "%s", rel);
	s = strrchr(d, '/');
	if (s && s != d) {
		*s = 0;
		tree_dir(base, d);
	}
}

/* A regular file base/rel holding `text`, its directories made. */
static inline void tree_file(const char *base, const char *rel, const char *text)
{
	char p[PATH_MAX];
	FILE *f;

	tree_parent(base, rel);
	tree_path(p, base, rel);
	f = fopen(p, "w");
	cr_assert(f, "create %s: %s", p, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

/* A symbolic link base/rel -> target, its directories made. */
static inline void tree_link(const char *base, const char *rel, const char *target)
{
	char p[PATH_MAX];

	tree_parent(base, rel);
	tree_path(p, base, rel);
	cr_assert_eq(symlink(target, p), 0, "symlink %s: %s", p, strerror(errno));
}

/* The identity of base/rel itself (not following a link). */
static inline struct stat tree_stat(const char *base, const char *rel)
{
	char p[PATH_MAX];
	struct stat st;

	tree_path(p, base, rel);
	cr_assert_eq(lstat(p, &st), 0, "lstat %s: %s", p, strerror(errno));
	return st;
}

static inline int tree_same(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Watch every directory under outside for opens and reads of what is in it: the resolver may
 * open nothing there.  (Descriptors opened with O_PATH and stat calls raise no event; what the
 * resolver returns is compared by identity with the files inside the root instead.) */
static inline void tree_watch(struct tree *t, const char *rel)
{
	char p[PATH_MAX];

	tree_path(p, t->outside, rel);
	cr_assert(inotify_add_watch(t->watch, p, IN_OPEN | IN_ACCESS) >= 0, "watch %s: %s", p,
		  strerror(errno));
}

/* No file or directory under a watched directory was opened or read since the last call. */
static inline void tree_assert_outside_untouched(struct tree *t, const char *what)
{
	char ev[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	ssize_t n = read(t->watch, ev, sizeof ev);

	cr_assert(n < 0 && errno == EAGAIN, "%s: something outside the root was opened (%s)", what,
		  n > 0 && ((struct inotify_event *)ev)->len ? ((struct inotify_event *)ev)->name
							     : "the directory itself");
}

/* TMPDIR/dlnote-unit-NAME-XXXXXX with root/ and outside/ (outside/secret, a marker). */
static inline void tree_make(struct tree *t, const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(t->top, sizeof t->top, "%s/dlnote-unit-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 name);
	cr_assert(mkdtemp(t->top), "mkdtemp %s: %s", t->top, strerror(errno));
	tree_path(t->root, t->top, "root");
	tree_path(t->outside, t->top, "outside");
	tree_dir(t->top, "root");
	tree_dir(t->top, "outside");
	tree_file(t->outside, "secret", "outside the root\n");
	t->watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	cr_assert(t->watch >= 0);
	tree_watch(t, ".");
}

static inline int tree_unlink_one(const char *path, const struct stat *st, int flag,
				  struct FTW *ftw)
{
	(void)st, (void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* rm -r of the whole tree, links not followed. */
static inline void tree_remove(struct tree *t)
{
	close(t->watch);
	cr_assert_eq(nftw(t->top, tree_unlink_one, 16, FTW_DEPTH | FTW_PHYS), 0, "remove %s: %s",
		     t->top, strerror(errno));
}

/* How many descriptors this process has open. */
static inline int tree_open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		n += fcntl(fd, F_GETFD) != -1;
	return n;
}

#endif
