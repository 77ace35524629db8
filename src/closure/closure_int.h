/* SPDX-License-Identifier: MIT */
/* closure_int.h - private to src/closure/: the confined resolver (root.c), the loader's search
 * directories (ldconf.c), the search of one library (search.c), and the walk (closure.c,
 * closure_out.c). */
#ifndef DLNOTE_CLOSURE_INT_H
#define DLNOTE_CLOSURE_INT_H

#include <sys/stat.h>

#include "closure.h"
#include "../deps/deps.h"
#include "../note/note.h"
#include "../elf/elf.h"
#include "../base/base.h"

/* ---- root.c: paths resolved inside a root directory ----
 *
 * As the kernel resolves them after chroot(DIR), but component by component in this process:
 * each component is looked at with fstatat(AT_SYMLINK_NOFOLLOW) and opened with O_NOFOLLOW from
 * its directory's descriptor, a symbolic link is read with readlinkat() and its target resolved
 * in turn (an absolute target from DIR, `..` never above DIR), at most ROOT_MAX_HOPS links per
 * resolution (the kernel's 40).  So nothing outside DIR is opened, read or named. */

#define ROOT_MAX_HOPS 40
#define ROOT_PATH_MAX 4096
#define ROOT_DIR_CACHE 16

struct root {
	int fd;          /* DIR */
	const char *dir; /* as given, for messages */
	struct root_dirfd {
		char *path; /* a resolved directory inside the root */
		int fd;
	} cache[ROOT_DIR_CACHE];
	size_t next;
};

struct root_found {
	char path[ROOT_PATH_MAX]; /* absolute inside the root, no link in it ("/" the root) */
	struct stat st;
	int fd; /* with ROOT_OPEN: a regular file opened for reading, else -1 */
};

enum { ROOT_OPEN = 1 };

int root_open(struct root *r, const char *dir, struct err *e);
void root_close(struct root *r);
/* Resolve PATH from BASE (a resolved directory: "" or "/" for the root; unused when PATH is
 * absolute), following every link, the last one too.  Each link met is appended to `links` as
 * its own path inside the root and a NUL byte (NULL: not kept).  Returns 0 when found, 1 when
 * not there (no such file, a file where a directory was expected), -1 with the reason in e
 * (too many links, a name too long, a read error). */
int root_resolve(struct root *r, const char *base, const char *path, int flags, struct buf *links,
		 struct root_found *out, struct err *e);
/* The directory part of an absolute PATH inside the root ("/" for "/x"), allocated: what
 * $ORIGIN is for a file there. */
char *root_dirname(const char *path);
/* A regular file's first `max` bytes at most, read whole into out (NUL-terminated): for
 * ld.so.conf.  1 when the file is not there, -1 with e set. */
int root_read_text(struct root *r, const char *path, size_t max, struct buf *out,
		   struct root_found *found, struct err *e);
/* The names in a resolved directory matching a shell pattern (fnmatch), sorted: appended to
 * out as NUL-terminated strings; returns how many, or -1 with e set. */
long root_glob_dir(struct root *r, const char *dir, const char *pattern, struct buf *out,
		   struct err *e);

/* ---- ldconf.c: where the loader of the root looks ---- */

/* A list of directories (paths inside the root, as written), NUL-separated. */
struct dirlist {
	struct buf text;
	size_t n;
};

/* The loader's facts for one ELF class and machine of the root. */
struct ldflavour {
	int is64, big;
	unsigned machine;
	unsigned long flags; /* e_flags, for ARM's float ABI */
	const char *triplet; /* Debian's multiarch name, or NULL */
	char lib[64];        /* what $LIB expands to */
	const char *
		platform; /* what $PLATFORM expands to, or NULL (unknown: such a path is dropped) */
	char *interp;     /* the loader whose system search path `defaults` is */
	struct dirlist defaults; /* the trusted directories, in the loader's order */
};

/* etc/ld.so.conf and its includes (globs, relative to the including file), read once.  Include
 * loops and depth beyond LDCONF_MAX_DEPTH are said on standard error and cut. */
#define LDCONF_MAX_DEPTH 16
int ldconf_read(struct root *r, struct dirlist *out, int verbose, struct err *e);
/* The facts for a class and machine (defaults, $LIB, $PLATFORM). */
int ldconf_flavour(struct root *r, int is64, int big, unsigned machine, unsigned long flags,
		   struct ldflavour *f, struct err *e);
void ldconf_flavour_free(struct ldflavour *f);
void dirlist_add(struct dirlist *l, const char *dir, size_t len);
/* Each directory in turn: *pos starts at 0; NULL at the end. */
const char *dirlist_next(const struct dirlist *l, size_t *pos);
int dirlist_has(const struct dirlist *l, const char *dir);

/* ---- ldso.c: the system search path of the root's loader ---- */

/* The directories glibc's ld.so open at fd searches by itself (its SYSTEM_DIRS, what
 * `ld.so --help` calls the "system search path"), read from its read-only data: appended to out
 * in its order.  0 when found; 1 when the file holds none that can be told apart (not glibc's
 * loader, two different ones), the reason in e; -1 out of memory. */
int ldso_system_dirs(int fd, const char *path, struct dirlist *out, struct err *e);
/* The loader of a class and machine as its ABI names it (PT_INTERP of its programs), for a FILE
 * that has no PT_INTERP; NULL when not known. */
const char *ldso_usual(int is64, int big, unsigned machine, unsigned long flags);

/* ---- strmap.c: strings to numbers, for the walk's sets (open addressing, no removal) ---- */

struct strmap {
	struct strmap_slot {
		char *key; /* owned */
		size_t len, val;
	} * v;
	size_t n, cap;
};

/* The value of key (*found 1), or 0 with *found 0. */
size_t strmap_get(const struct strmap *m, const char *key, size_t len, int *found);
/* Set key to val (a copy of key is kept); -1 when out of memory. */
int strmap_put(struct strmap *m, const char *key, size_t len, size_t val);
void strmap_free(struct strmap *m);

/* ---- closure.c, search.c, closure_out.c: the walk ---- */

/* One ELF file met, read once (its path resolved inside the root). */
struct object {
	char *path;
	int elf;      /* 1: read; 0: not ELF, or broken */
	char *broken; /* an ELF file whose headers are not right: why */
	char *unread; /* its dynamic table or notes, not all read: what it needs is not known */
	int unread_said;
	int is64, big;
	unsigned machine;
	unsigned long flags;
	unsigned type;
	char *interp; /* PT_INTERP, or NULL */
	struct elf_dynamic dyn;
	struct entries notes;
	unsigned char *said; /* per DT_NEEDED name then per entry: its problem was said */
};

/* An object loaded for the FILE being walked, and who loaded it. */
struct node {
	size_t obj;
	size_t loader; /* node index, or NO_NODE for the program */
	char *origin;  /* what $ORIGIN is for it */
};
#define NO_NODE ((size_t)-1)

/* Why a path is listed (--format=json). */
enum why { WHY_FILE, WHY_INTERP, WHY_NEEDED, WHY_DLOPEN, WHY_LINK, WHY_CACHE };

struct closure {
	struct closure_opts o;
	struct root r;
	struct dirlist conf; /* ld.so.conf's directories */
	int conf_read;
	struct ldflavour *flav; /* one per class and machine met */
	size_t nflav;
	struct object *objs;
	size_t nobjs, objs_cap;
	struct strmap obj_by_path;
	struct strmap searched;    /* "FLAVOUR|DIR|NAME" -> obj + 1 (0: not there) */
	struct strmap said;        /* a search's errors, each said once */
	struct strmap searched_at; /* "FLAVOUR|DIR|NAME" -> its links' offset in searched_links */
	struct buf searched_links; /* the links each search met, each list ended by an empty name */
	struct strmap paths;       /* the listing: path -> index in kinds */
	unsigned char *kinds;      /* per listed path: 1 symbolic link, 0 file */
	size_t kinds_cap;
	struct strmap reasons; /* json: "PATHINDEX\nREASON" -> order */
	struct node *nodes;    /* the FILE being walked */
	size_t nnodes, nodes_cap;
	struct err e;
	int missing;       /* something needed is not there */
	int no_cache_said; /* the root has no ld.so.cache, said once */
};

/* object.c */
/* "dlnote-inject: DIR/PATH: ..." about a path of the root, as it is named on this machine. */
void closure_say(const struct closure *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The object at a resolved path (fd: open for reading, or -1), read once; its index, or -1 when
 * out of memory. */
long closure_object(struct closure *c, const char *path, int fd);
/* closure_out.c */
/* Listing a path, and why (json: the reason as a compact JSON object's members). */
int closure_list(struct closure *c, const char *path, int link, const char *reason);
/* The links of a resolution (NUL-separated), listed as met on the way to `to`. */
int closure_list_links(struct closure *c, const char *links, size_t len, const char *to);
/* The flavour of an object's class and machine. */
const struct ldflavour *closure_flavour(struct closure *c, const struct object *o);

/* search.c: the loader's search for a library NAME that node `from` asks for (DT_NEEDED, or a
 * dlopen() by name): DT_RPATH of the loader chain when `from` has no DT_RUNPATH, its
 * DT_RUNPATH, ld.so.cache (ld.so.conf's directories), the trusted directories; DF_1_NODEFLIB
 * skips the last two.  Only a file of the program's class, byte order and machine is taken.
 * The object's index, its $ORIGIN (allocated) in *origin; -1 when not found, -2 out of memory. */
long search_library(struct closure *c, const struct ldflavour *fl, size_t from, const char *name,
		    char **origin);

#endif
