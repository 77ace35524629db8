/* SPDX-License-Identifier: MIT */
/* audit_exec.c - the processes a recording cannot follow.  A program that the loader runs in
 * secure-execution mode (set-user-ID or set-group-ID, changing the effective user or group)
 * ignores LD_AUDIT and removes it from the environment: neither it nor anything it starts is
 * recorded.  The PLT calls of the exec and spawn functions are bound to watchers that look at
 * the program about to run and, for such a program, write an "unauditable" line for it; the
 * tool counts them at the end of the run (docs/recording.md).  A call from inside libc
 * (system(), popen() start /bin/sh, which is watched in turn) or through a pointer is not seen.
 *
 * A watcher may run in the child of vfork(), which shares the parent's memory until it execs:
 * it takes no lock and keeps its line on its own stack.  libc only. */
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"

enum { X_EXECVE, X_EXECV, X_EXECVP, X_EXECVPE, X_SPAWN, X_SPAWNP, X_COUNT };

typedef int execve_fn(const char *, char *const[], char *const[]);
typedef int execv_fn(const char *, char *const[]);
typedef int spawn_fn(pid_t *, const char *, const posix_spawn_file_actions_t *,
		     const posix_spawnattr_t *, char *const[], char *const[]);

static const char *const names[X_COUNT] = {"execve",  "execv",       "execvp",
					   "execvpe", "posix_spawn", "posix_spawnp"};
static void *real[X_COUNT]; /* the definition bound first: an interposer's is left alone */

/* FILE as execvp() finds it: with a '/' as is, else the first executable regular file of
 * that name along PATH.  0 when there is one. */
static int find(const char *file, int search, char *out_path)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat s;

	if (!search || strchr(file, '/'))
		return strlen(file) < PATH_MAX ? (strcpy(out_path, file), 0) : -1;
	for (p = path && *path ? path : "/bin:/usr/bin";; p = end + 1) {
		size_t dir, len = strlen(file);
		end = strchr(p, ':');
		end = end ? end : p + strlen(p);
		dir = (size_t)(end - p);
		if (dir + 1 + len < PATH_MAX) {
			memcpy(out_path, p, dir);
			out_path[dir] = '/';
			memcpy(out_path + dir + (dir ? 1 : 0), file, len + 1);
			if (stat(out_path, &s) == 0 && S_ISREG(s.st_mode) &&
			    access(out_path, X_OK) == 0)
				return 0;
		}
		if (!*end)
			return -1;
	}
}

static void watch(const char *file, int search)
{
	char path[PATH_MAX], abs[PATH_MAX];
	struct line l;
	struct stat s;

	if (!out.trace || !file || find(file, search, path) != 0 || stat(path, &s) != 0 ||
	    !S_ISREG(s.st_mode))
		return;
	if (!((s.st_mode & S_ISUID) && s.st_uid != geteuid()) &&
	    !((s.st_mode & S_ISGID) && s.st_gid != getegid()))
		return;
	line_start_for(&l, "unauditable", absolute(path, abs));
	put_str(&l, "reason",
		"set-user-ID or set-group-ID program: the loader ignores LD_AUDIT for it");
	put_str(&l, "caller", out.exe);
	line_write(&l);
}

static int w_execve(const char *path, char *const argv[], char *const envp[])
{
	watch(path, 0);
	return ((execve_fn *)real[X_EXECVE])(path, argv, envp);
}

static int w_execv(const char *path, char *const argv[])
{
	watch(path, 0);
	return ((execv_fn *)real[X_EXECV])(path, argv);
}

static int w_execvp(const char *file, char *const argv[])
{
	watch(file, 1);
	return ((execv_fn *)real[X_EXECVP])(file, argv);
}

static int w_execvpe(const char *file, char *const argv[], char *const envp[])
{
	watch(file, 1);
	return ((execve_fn *)real[X_EXECVPE])(file, argv, envp);
}

static int w_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
		   const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	watch(path, 0);
	return ((spawn_fn *)real[X_SPAWN])(pid, path, fa, at, argv, envp);
}

static int w_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
		    const posix_spawnattr_t *at, char *const argv[], char *const envp[])
{
	watch(file, 1);
	return ((spawn_fn *)real[X_SPAWNP])(pid, file, fa, at, argv, envp);
}

uintptr_t exec_bind(const char *symname, uintptr_t value)
{
	static const uintptr_t watchers[X_COUNT] = {
		(uintptr_t)w_execve,  (uintptr_t)w_execv, (uintptr_t)w_execvp,
		(uintptr_t)w_execvpe, (uintptr_t)w_spawn, (uintptr_t)w_spawnp,
	};

	for (int i = 0; i < X_COUNT; i++) {
		void *first = NULL;
		if (strcmp(symname, names[i]) != 0)
			continue;
		if (!__atomic_compare_exchange_n(&real[i], &first, (void *)value, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
		    first != (void *)value)
			return value;
		return watchers[i];
	}
	return value;
}
