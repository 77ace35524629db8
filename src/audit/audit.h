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
HIDDEN const char *build_id_of(const char *path);

/* audit_exec.c: the binding of a PLT call to an exec or spawn function to its watcher. */
HIDDEN uintptr_t exec_bind(const char *symname, uintptr_t value);

#endif
