/* SPDX-License-Identifier: MIT */
/* libfind.c - where the library of a declared soname is, as dpkg-shlibdeps finds a linked
 * file's (and rpm's buildroot holds it): in the package trees being built (--build-root, in the
 * order given), then in the system, in the directories the dynamic loader searches for the
 * file's machine; only a shared object of the file's class, byte order and machine counts.
 * Each library is opened once per run and its dynamic symbol table kept ready (dynsym.c). */
#include "deps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/base.h"

/* At most this many libraries are held open; beyond, the cache starts again. */
#define LIBFIND_OPEN_MAX 64

/* The directories searched, in order, for a file of this kind: the multiarch ones, then the
 * class's multilib ones, then /lib and /usr/lib.  Returns how many were written. */
static size_t search_dirs(const struct elf *of, char dirs[][48], size_t max)
{
	const char *triplet = elf_multiarch(of->is64, of->big, of->machine, of->flags);
	int is64 = of->is64;
	size_t n = 0;

	if (triplet && max >= 2) {
		snprintf(dirs[n++], sizeof dirs[0], "/lib/%s", triplet);
		snprintf(dirs[n++], sizeof dirs[0], "/usr/lib/%s", triplet);
	}
	for (const char *const *d = is64 ? (const char *const[]){"/lib64", "/usr/lib64", NULL}
					 : (const char *const[]){"/lib32", "/usr/lib32", NULL};
	     *d && n < max; d++)
		snprintf(dirs[n++], sizeof dirs[0], "%s", *d);
	for (const char *const *d = (const char *const[]){"/lib", "/usr/lib", NULL}; *d && n < max;
	     d++)
		snprintf(dirs[n++], sizeof dirs[0], "%s", *d);
	return n;
}

/* PATH (absolute) inside ROOT, as if ROOT were "/": symbolic links and ".." never lead out of
 * it (a package tree is someone else's input).  The kernel does it (openat2, Linux 5.6). */
static int open_in_root(int rootfd, const char *path, struct err *e)
{
	int fd = io_open_in_root(rootfd, path, O_RDONLY | O_NOCTTY | O_NONBLOCK, 0);

	if (fd < 0 && (errno == ENOSYS || errno == EPERM))
		return err_set(e, "cannot look inside it safely: this kernel has no openat2() "
				  "(Linux 5.6)"),
		       -2;
	return fd;
}

/* A candidate: a regular file, an ELF shared object of the wanted kind, whose dynamic symbols
 * can be read.  1 when it is the library (kept in lib), 0 when it is not of that kind, -1 when
 * it is but cannot be read (e set). */
static int take(struct libfind_lib *lib, int fd, struct err *e)
{
	struct stat st;
	unsigned char m[8];
	struct err skip = {0};

	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    !magic_is_elf(m, magic_read(fd, 0, (uint64_t)st.st_size, m)))
		return 0;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ||
	    elf_open(&lib->ef, fd, lib->path, (uint64_t)st.st_size, &skip))
		return 0;
	if (lib->ef.is64 != lib->is64 || lib->ef.big != lib->big ||
	    lib->ef.machine != lib->machine || lib->ef.type != ET_DYN_) {
		elf_close(&lib->ef);
		return 0;
	}
	lib->fd = fd;
	if (elf_dynsym_open(&lib->ef, &lib->syms, e)) {
		elf_close(&lib->ef);
		lib->fd = -1;
		return err_prefix(e, "%s: ", lib->path);
	}
	return 1;
}

/* Search one root ("" for the system); the path the library is named by is ROOT/DIR/SONAME. */
static int search_root(struct libfind_lib *lib, const char *root, char dirs[][48], size_t ndirs,
		       struct err *e)
{
	size_t rlen = strlen(root);
	int rootfd = -1, r = 0, fd;

	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--; /* "/" is the system: its paths are the dirs themselves */
	if (rlen && (rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0; /* a tree that does not exist holds nothing */
	for (size_t i = 0; i < ndirs && r == 0; i++) {
		struct buf p = {0};
		buf_printf(&p, "%.*s%s/%s", (int)rlen, root, dirs[i], lib->soname);
		if (!(lib->path = buf_take(&p))) {
			r = err_oom(e);
			break;
		}
		fd = rootfd >= 0 ? open_in_root(rootfd, lib->path + rlen, e)
				 : open(lib->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (fd == -2)
			r = err_prefix(e, "--build-root %.*s: ", (int)rlen, root);
		else if (fd >= 0 && (r = take(lib, fd, e)) != 1)
			close(fd);
		if (r == 1) {
			lib->found = 1;
		} else {
			free(lib->path);
			lib->path = NULL;
		}
	}
	if (rootfd >= 0)
		close(rootfd);
	return r < 0 ? -1 : 0;
}

static void lib_free(struct libfind_lib *lib)
{
	if (lib->found) {
		elf_dynsym_close(&lib->syms);
		elf_close(&lib->ef);
		close(lib->fd);
	}
	free(lib->soname);
	free(lib->path);
}

void libfind_free(struct libfind *f)
{
	for (size_t i = 0; i < f->n; i++) {
		lib_free(f->v[i]);
		free(f->v[i]);
	}
	free(f->v);
	f->v = NULL;
	f->n = f->cap = 0;
}

void libfind_trim(struct libfind *f)
{
	if (f->n >= LIBFIND_OPEN_MAX)
		libfind_free(f);
}

const struct libfind_lib *libfind_get(struct libfind *f, const char *soname, const struct elf *of,
				      struct err *e)
{
	char dirs[16][48];
	size_t ndirs = search_dirs(of, dirs, 16);
	struct libfind_lib *lib, **v;

	for (size_t i = 0; i < f->n; i++)
		if (f->v[i]->is64 == of->is64 && f->v[i]->big == of->big &&
		    f->v[i]->machine == of->machine && strcmp(f->v[i]->soname, soname) == 0)
			return f->v[i];
	/* Each library on its own: its symbol table points at its ELF model. */
	if (!(v = xgrow(f->v, &f->cap, f->n, sizeof *v)) || !(lib = xcalloc(1, sizeof *lib))) {
		if (v)
			f->v = v;
		err_oom(e);
		return NULL;
	}
	f->v = v;
	lib->fd = -1;
	lib->is64 = of->is64;
	lib->big = of->big;
	lib->machine = of->machine;
	if (!(lib->soname = xstrndup(soname, strlen(soname)))) {
		free(lib);
		err_oom(e);
		return NULL;
	}
	/* A soname is a file name: one with a slash names no library of the search. */
	for (size_t i = 0; !strchr(soname, '/') && i <= f->nroots && !lib->found; i++)
		if (search_root(lib, i < f->nroots ? f->roots[i] : "", dirs, ndirs, e)) {
			lib_free(lib);
			free(lib);
			return NULL;
		}
	f->v[f->n++] = lib;
	return lib;
}
