/* SPDX-License-Identifier: MIT */
/* tree.h - a small root directory described by a fuzz input, built in a private directory
 * with a watched sentinel beside it (tests/fuzz/tree.c, used by the ldconf and closure
 * targets and by the hostile-root test's replay).
 *
 * The input is a list of records, one a line:
 *   d PATH            a directory
 *   f PATH<TAB>LEN    a file: the LEN bytes after the line (fewer at the end of the input)
 *   l PATH<TAB>TARGET a symbolic link, TARGET as written (absolute, `..`, loops: anything)
 *   x PATH            a FILE given to the closure (as written: `..` too)
 * Unknown lines are skipped.  PATH is taken inside the root: its empty, `.` and `..`
 * components are dropped, and nothing is created through a link.
 *
 * Beside the root, `outside/` mirrors every directory and file of the input (an escaping link
 * finds what it looks for there), and it and the private directory are watched with inotify:
 * tree_touched() says whether anything outside the root was opened or read since the build. */
#ifndef DLNOTE_FUZZ_TREE_H
#define DLNOTE_FUZZ_TREE_H

#include <stddef.h>
#include <stdint.h>

#define TREE_MAX_FILES 32

struct tree {
	char root[4096];                   /* the root's path */
	int rootfd;                        /* O_PATH descriptor of the root */
	const char *files[TREE_MAX_FILES]; /* the x records (NUL-terminated copies) */
	size_t nfiles;
};

/* Build the tree of the input in DIR (an existing directory): DIR/root and its mirror
 * DIR/outside, unwatched (the hostile-root test runs the tool on it).  t->files point into
 * static storage, valid until the next build. */
int tree_make(struct tree *t, const char *dir, const uint8_t *data, size_t size);
/* Build the tree of the input in the private directory (the previous one removed first),
 * watched; -1 when the private directory cannot be made. */
int tree_build(struct tree *t, const uint8_t *data, size_t size);
/* What was opened or read outside the root since tree_build, described, or NULL. */
const char *tree_touched(void);
/* Whether PATH (absolute, inside the root) names a thing of the root reached through real
 * directories only: no `..`, no link before its last component. */
int tree_path_inside(const struct tree *t, const char *path);

#endif
