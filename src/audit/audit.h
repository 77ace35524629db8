/* SPDX-License-Identifier: MIT */
/* audit.h - what the parts of the rtld-audit module share: the trace lines and their lock.
 * Everything here is hidden: the module exports only the la_* callbacks. */
#ifndef DLNOTE_AUDIT_H
#define DLNOTE_AUDIT_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define HIDDEN __attribute__((visibility("hidden")))
#define LINE_MAX_BYTES 16384

/* Where lines go and who writes them. */
struct out {
	const char *trace; /* NULL: recording off */
	int fd;            /* the tool's descriptor on it, -1 when none */
	dev_t dev;         /* and the file it must still be */
	ino_t ino;
	char exe[PATH_MAX]; /* this process's program */
};
HIDDEN extern struct out out;

struct line {
	char p[LINE_MAX_BYTES];
	size_t len;
	int overflow;
};

HIDDEN int lock(void);
HIDDEN void unlock(void);
HIDDEN void put(struct line *l, const char *s, size_t n);
HIDDEN void puts_(struct line *l, const char *s);
HIDDEN void put_u64(struct line *l, uint64_t v);
HIDDEN void put_str(struct line *l, const char *key, const char *v);
HIDDEN void out_init(void);
HIDDEN void line_start(struct line *l, const char *event);
HIDDEN void line_start_for(struct line *l, const char *event, const char *exe);
HIDDEN void line_write(struct line *l);
HIDDEN const char *absolute(const char *path, char *buf);
/* FNV-1a over strings (fnv_end closes one, so that "ab"+"c" and "a"+"bc" differ), and a set
 * of such hashes: 1 when h was in it, else it is added (while there is room). */
#define FNV_START 1469598103934665603u
HIDDEN uint64_t fnv_str(uint64_t h, const char *s);
HIDDEN uint64_t fnv_end(uint64_t h);
HIDDEN int seen_add(uint64_t *set, size_t *n, size_t max, uint64_t h);
HIDDEN const char *build_id_of(const char *path);

/* dlnote-audit.c: when lock() says it is a forked child's first, the forgetting of the (caller,
 * name) pairs its parent wrote. */
HIDDEN void pairs_forget(void);

/* audit_dlsym.c: DT_SONAME of a mapped object ("" when it has none). */
struct link_map;
HIDDEN const char *map_soname(struct link_map *m);

/* audit_dlsym.c: a "symbol" line for a dlsym()/dlvsym() result: symname, symbol ndx of def's
 * dynamic symbol table, looked up by the object caller. */
HIDDEN void dlsym_record(unsigned ndx, struct link_map *caller, struct link_map *def,
			 const char *symname);

/* audit_stubs.c: the dlopen() wrapper, and a stub per object that binds dlopen through its PLT
 * (at most DLOPEN_STUBS of them, STUB_SIZE bytes apart), on the machines that have them.  Each
 * stub passes its number, the plain wrapper -1, to dlnote_before_dlopen (dlnote-audit.c),
 * then jumps to dlnote_real_dlopen with the caller's stack. */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__arm__) ||        \
	(defined(__riscv) && __riscv_xlen == 64)
#define DLOPEN_WRAPPER 1
#define DLOPEN_STUBS 64
#if defined(__x86_64__) || defined(__i386__)
#define STUB_SIZE 16
#else
#define STUB_SIZE 8
#endif
HIDDEN extern void *dlnote_real_dlopen;
HIDDEN void dlnote_dlopen_wrapper(void);
HIDDEN extern const char dlnote_dlopen_stubs[];
HIDDEN void dlnote_before_dlopen(void *ret, const char *name, int stub);
#endif

/* audit_exec.c: the binding of a PLT call to an exec or spawn function to its watcher. */
HIDDEN uintptr_t exec_bind(const char *symname, uintptr_t value);

#endif
