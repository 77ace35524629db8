/* SPDX-License-Identifier: MIT */
/* record.c - the --record driver: find the audit modules, look at COMMAND, set LD_AUDIT,
 * DLNOTE_RECORD_TRACE and DLNOTE_RECORD_FD, run COMMAND as a child, wait, and end as it ended
 * (docs/recording.md).  COMMAND's standard streams are its own. */
#include "cli_int.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../elf/elf.h"
#include "../base/base.h"

/* Where `make install` puts the module, relative to the directory of the installed tool. */
#ifndef RECORD_MODULE_FROM_BINDIR
#define RECORD_MODULE_FROM_BINDIR "../lib/dlnote"
#endif
#define MODULE_NAME "dlnote-audit.so"
/* The lowest number of the descriptor on the trace that the recording inherits. */
#define RECORD_FD_MIN 100

static int fail(int status, const char *path, const char *msg)
{
	fprintf(stderr, PROGRAM_NAME ": %s: %s\n", path, msg);
	return status;
}

/* The modules: one per value of $LIB in DIR/LIB/dlnote-audit.so, which the loader of each
 * program expands from LD_AUDIT to its own library directory (rtld.c: DSTs are expanded in
 * audit names); `native` is this machine's, LIB compiled in by the build.
 * $DLNOTE_AUDIT_MODULE names one module instead (dir empty).  Absolute paths: COMMAND may
 * chdir. */
#ifndef RECORD_AUDIT_LIB
#define RECORD_AUDIT_LIB "lib"
#endif
struct modules {
	char dir[PATH_MAX];
	char native[PATH_MAX];
	char ld_audit[PATH_MAX + 32];
};

/* The module directory: audit/ next to the tool (the build tree), else where `make install`
 * puts it relative to the tool. */
static int find_modules(struct modules *m)
{
	const char *env = getenv("DLNOTE_AUDIT_MODULE");
	static const char *const dirs[] = {"audit", RECORD_MODULE_FROM_BINDIR};
	char self[PATH_MAX], try[2 * PATH_MAX];
	ssize_t n;

	memset(m, 0, sizeof *m);
	if (env && *env) {
		if (!realpath(env, m->native) || access(m->native, R_OK) != 0)
			return -2;
		snprintf(m->ld_audit, sizeof m->ld_audit, "%s", m->native);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -1;
	self[n] = '\0';
	*strrchr(self, '/') = '\0';
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(try, sizeof try, "%s/%s/" RECORD_AUDIT_LIB "/" MODULE_NAME, self, dirs[i]);
		if (access(try, R_OK) != 0 || !realpath(try, m->native))
			continue;
		snprintf(try, sizeof try, "%s/%s", self, dirs[i]);
		if (!realpath(try, m->dir))
			return -1;
		snprintf(m->ld_audit, sizeof m->ld_audit, "%s/$LIB/" MODULE_NAME, m->dir);
		return 0;
	}
	return -1;
}

/* COMMAND as execvp() will find it: a name with a '/' as is, else the first executable regular
 * file of that name along PATH. */
static int resolve(const char *cmd, char *out)
{
	const char *path = getenv("PATH"), *p, *end;
	struct stat st;

	if (strchr(cmd, '/'))
		return snprintf(out, PATH_MAX, "%s", cmd) < PATH_MAX ? 0 : -1;
	for (p = path && *path ? path : "/usr/local/bin:/usr/bin:/bin";; p = end + 1) {
		end = strchr(p, ':');
		end = end ? end : p + strlen(p);
		if (snprintf(out, PATH_MAX, "%.*s%s%s", (int)(end - p), p, end > p ? "/" : "",
			     cmd) < PATH_MAX &&
		    stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		if (!*end)
			return -1;
	}
}

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386_: return "i386";
	case EM_MIPS_: return "MIPS";
	case EM_PPC_: return "PowerPC";
	case EM_PPC64_: return "PowerPC64";
	case EM_S390_: return "S/390";
	case EM_ARM_: return "ARM";
	case EM_X86_64_: return "x86-64";
	case EM_AARCH64_: return "AArch64";
	case EM_RISCV_: return "RISC-V";
	default: return "another machine";
	}
}

struct image {
	int is64, big;
	unsigned machine;
	int dynamic; /* has PT_INTERP */
	char interp[256];
};

/* The ELF headers of path; 1 when it is not ELF, -1 when it cannot be read. */
static int read_image(const char *path, struct image *im, char *first, size_t nfirst)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = -1;
	struct stat st;
	struct elf ef;
	struct err e = {0};
	ssize_t n;

	memset(im, 0, sizeof *im);
	memset(first, 0, nfirst);
	if (fd < 0 || fstat(fd, &st))
		goto out;
	n = pread(fd, first, nfirst - 1, 0);
	if (n < 4 || memcmp(first, "\177ELF", 4) != 0) {
		r = n < 0 ? -1 : 1;
		goto out;
	}
	if (elf_open(&ef, fd, path, (uint64_t)st.st_size, &e))
		goto out;
	im->is64 = ef.is64;
	im->big = ef.big;
	im->machine = ef.machine;
	for (size_t i = 0; i < ef.phnum; i++)
		if (ef.ph[i].type == PT_INTERP_ && ef.ph[i].filesz) {
			uint64_t len = ef.ph[i].filesz < sizeof im->interp ? ef.ph[i].filesz
									   : sizeof im->interp - 1;
			if (elf_read(&ef, ef.ph[i].offset, len, im->interp, &e) == 0) {
				im->interp[len] = '\0';
				im->dynamic = 1;
			}
		}
	elf_close(&ef);
	r = 0;
out:
	if (fd >= 0)
		close(fd);
	return r;
}

static int same_target(const char *module, const struct image *im)
{
	struct image m;
	char first[8];

	return read_image(module, &m, first, sizeof first) == 0 && m.is64 == im->is64 &&
	       m.big == im->big && m.machine == im->machine;
}

/* Whether a module will load in a program like im: this machine's, or one of the class,
 * byte order and machine of im among DIR/LIB and DIR/lib/TRIPLET (which one the program's
 * loader picks is its $LIB: the loader decides). */
static int module_for(const struct modules *mods, const struct image *im)
{
	static const char *const patterns[] = {"/*/" MODULE_NAME, "/*/*/" MODULE_NAME};
	char pat[PATH_MAX + 32];
	int found = same_target(mods->native, im);

	for (size_t i = 0; !found && mods->dir[0] && i < sizeof patterns / sizeof patterns[0];
	     i++) {
		glob_t g;
		snprintf(pat, sizeof pat, "%s%s", mods->dir, patterns[i]);
		if (glob(pat, GLOB_NOSORT, NULL, &g) != 0)
			continue;
		for (size_t j = 0; !found && j < g.gl_pathc; j++)
			found = same_target(g.gl_pathv[j], im);
		globfree(&g);
	}
	return found;
}

/* Why the module cannot run in the program at path, in `why`; 0 when it can (or when path is
 * not something we can tell about: the loader decides).  A script is judged by its
 * interpreter. */
static int unauditable(const char *path, const struct modules *mods, char *why, size_t whysz,
		       int depth)
{
	char first[256], interp[PATH_MAX];
	const char *base;
	struct image im;
	struct stat st;
	int r = read_image(path, &im, first, sizeof first);

	if (r < 0)
		return 0;
	if (r == 1) {
		if (depth || first[0] != '#' || first[1] != '!' ||
		    sscanf(first + 2, " %4095[^ \t\n]", interp) != 1)
			return 0;
		return unauditable(interp, mods, why, whysz, 1);
	}
	if (stat(path, &st) == 0 && (((st.st_mode & S_ISUID) && st.st_uid != geteuid()) ||
				     ((st.st_mode & S_ISGID) && st.st_gid != getegid())))
		return snprintf(why, whysz,
				"set-user-ID or set-group-ID program: the loader ignores LD_AUDIT "
				"for it"),
		       1;
	if (!im.dynamic)
		return snprintf(why, whysz,
				"statically linked program: no dynamic loader runs in it"),
		       1;
	base = strrchr(im.interp, '/');
	base = base ? base + 1 : im.interp;
	if (strncmp(base, "ld-musl-", 8) == 0)
		return snprintf(why, whysz,
				"musl program: its loader %s has no rtld-audit interface",
				im.interp),
		       1;
	if (strncmp(base, "ld-linux", 8) != 0 && strncmp(base, "ld64.so", 7) != 0 &&
	    strncmp(base, "ld.so", 5) != 0)
		return snprintf(why, whysz, "its loader %s is not glibc's", im.interp), 1;
	if (!module_for(mods, &im))
		return snprintf(why, whysz,
				"ELFCLASS%d %s program: no audit module of that class and machine",
				im.is64 ? 64 : 32, machine_name(im.machine)),
		       2;
	return 0;
}

/* One line of the tool's own in the trace, with its process id (COMMAND runs as its child):
 * {"event":EVENT,"pid":N,KEY1:V1,KEY2:V2}. */
static int trace_line(int fd, const char *event, const char *k1, const char *v1, const char *k2,
		      const char *v2)
{
	struct buf b = {0};
	int r = -1;

	buf_printf(&b, "{\"event\":\"%s\",\"pid\":%ld,\"%s\":", event, (long)getpid(), k1);
	json_put_lossy(&b, v1, strlen(v1)); /* paths: any bytes, written as the module does */
	buf_printf(&b, ",\"%s\":", k2);
	json_put_lossy(&b, v2, strlen(v2));
	buf_puts(&b, "}\n");
	if (!b.oom && write(fd, b.p, b.len) == (ssize_t)b.len)
		r = 0;
	buf_free(&b);
	return r;
}

/* LD_AUDIT: the module first, then whatever was there already (unless it is ours). */
static int set_env(const char *module, const char *trace, const char *fdvar)
{
	const char *old = getenv("LD_AUDIT");
	struct buf v = {0};
	int r;

	buf_puts(&v, module);
	if (old && *old && strcmp(old, module) != 0) {
		buf_putc(&v, ':');
		buf_puts(&v, old);
	}
	buf_putc(&v, '\0');
	r = v.oom || setenv("LD_AUDIT", v.p, 1) || setenv("DLNOTE_RECORD_TRACE", trace, 1) ||
			    setenv("DLNOTE_RECORD_FD", fdvar, 1)
		    ? -1
		    : 0;
	buf_free(&v);
	return r;
}

/* The string value of "key" in a trace line, decoded by the JSON reader (json_string), in
 * out; "" when it has none. */
static void field(const char *line, const char *key, char *out, size_t size)
{
	char pat[32];
	const char *p;
	struct json j;
	struct buf v = {0};
	struct err e = {0};

	snprintf(pat, sizeof pat, "\"%s\":", key);
	out[0] = '\0';
	if (!(p = strstr(line, pat)))
		return;
	p += strlen(pat);
	json_init(&j, p, strlen(p), &e);
	if (json_string(&j, &v) == 0 && !v.oom)
		snprintf(out, size, "%.*s", (int)v.len, v.p ? v.p : "");
	buf_free(&v);
}

/* After the run: one line for the processes the module found it could not follow (its
 * "unauditable" lines from `from` on, which name their caller; COMMAND's own was said before
 * it ran), with a count. */
static void summarize(const char *trace_arg, const char *trace, off_t from)
{
	FILE *f = fopen(trace, "re");
	char *line = NULL, exe[PATH_MAX] = "", reason[512] = "";
	size_t cap = 0;
	long count = 0;

	if (!f || fseeko(f, from, SEEK_SET) != 0) {
		if (f)
			fclose(f);
		return;
	}
	while (getline(&line, &cap, f) > 0) {
		static const char start[] = "{\"event\":\"unauditable\",";
		if (strncmp(line, start, sizeof start - 1) != 0 || !strstr(line, ",\"caller\":\""))
			continue;
		if (count++ == 0) {
			field(line, "exe", exe, sizeof exe);
			field(line, "reason", reason, sizeof reason);
		}
	}
	free(line);
	fclose(f);
	if (count)
		fprintf(stderr,
			PROGRAM_NAME
			": %s: %ld process%s could not be recorded (first: %s: %s; see the trace's "
			"\"unauditable\" lines)\n",
			trace_arg, count, count == 1 ? "" : "es", exe, reason);
}

/* Signals sent to the tool alone (a supervisor's TERM) go on to COMMAND; the terminal's
 * interrupt and quit reach COMMAND's process group anyway and are not the tool's to act on. */
static volatile pid_t running;

static void forward(int sig)
{
	if (running > 0)
		kill(running, sig);
}

static const int forwarded[] = {SIGHUP, SIGTERM, SIGUSR1, SIGUSR2, SIGCONT, SIGWINCH};

/* Run COMMAND as the child, wait, and end as it ended: its exit status, or its signal.  A
 * COMMAND that cannot be audited (`why`) gets its line in the trace from the child, with the
 * process id it keeps. */
static int run_and_wait(const char *trace_arg, const char *trace, off_t from, int trace_fd,
			const char *exe, const char *why, char **argv)
{
	struct sigaction sa = {0}, old_int, old_quit;
	int status, err_pipe[2], err = 0;
	sigset_t fw, old_mask;
	pid_t pid;

	if (pipe2(err_pipe, O_CLOEXEC))
		return fail(RECORD_FAILED, argv[0], strerror(errno));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGQUIT, &sa, &old_quit);
	/* The signals to forward are held from before fork() until the handlers are set: one that
	 * came in between used to end the tool and leave COMMAND running without it. */
	sigemptyset(&fw);
	for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaddset(&fw, forwarded[i]);
	sigprocmask(SIG_BLOCK, &fw, &old_mask);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		if (why && trace_line(trace_fd, "unauditable", "exe", exe, "reason", why)) {
			fail(RECORD_FAILED, trace_arg, "cannot append to the trace");
			_exit(RECORD_FAILED);
		}
		execvp(argv[0], argv); /* trace_fd is inherited: opened without O_CLOEXEC */
		err = errno;
		(void)!write(err_pipe[1], &err, sizeof err);
		_exit(RECORD_CANNOT_RUN);
	}
	close(err_pipe[1]);
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		close(err_pipe[0]);
		return fail(RECORD_FAILED, argv[0], strerror(errno));
	}
	running = pid;
	sa.sa_handler = forward;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
		sigaction(forwarded[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old_mask, NULL); /* what came meanwhile goes on now */
	if (read(err_pipe[0], &err, sizeof err) == (ssize_t)sizeof err) {
		close(err_pipe[0]);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return fail(err == ENOENT ? RECORD_NOT_FOUND : RECORD_CANNOT_RUN, argv[0],
			    strerror(err));
	}
	close(err_pipe[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return fail(RECORD_FAILED, argv[0], strerror(errno));
	running = 0;
	close(trace_fd);
	summarize(trace_arg, trace, from);
	if (WIFSIGNALED(status)) {
		sa.sa_handler = SIG_DFL;
		sa.sa_flags = 0;
		sigaction(WTERMSIG(status), &sa, NULL);
		fflush(NULL);
		raise(WTERMSIG(status));
		return 128 + WTERMSIG(status);
	}
	return WEXITSTATUS(status);
}

int record_run(const char *trace_arg, char **argv)
{
	char trace[PATH_MAX], cwd[PATH_MAX], exe[PATH_MAX], real[PATH_MAX], first[8], why[512];
	char fdvar[64];
	struct modules mods;
	struct image mod;
	struct stat st;
	int fd, inherited, kind = 0, found;
	off_t from;

	found = find_modules(&mods);
	if (found == -2) {
		snprintf(why, sizeof why, "set in DLNOTE_AUDIT_MODULE, but cannot be read: %s",
			 strerror(errno));
		return fail(RECORD_FAILED, getenv("DLNOTE_AUDIT_MODULE"), why);
	}
	if (found)
		return fail(RECORD_FAILED, MODULE_NAME,
			    "audit module not found in audit/" RECORD_AUDIT_LIB
			    " next to the tool nor in " RECORD_MODULE_FROM_BINDIR
			    "/" RECORD_AUDIT_LIB " from it (set DLNOTE_AUDIT_MODULE)");
	if (strpbrk(mods.dir, ":$") || strchr(mods.native, ':'))
		return fail(RECORD_FAILED, mods.native,
			    "a ':' or '$' in the module's path cannot be put in LD_AUDIT");
	if (read_image(mods.native, &mod, first, sizeof first))
		return fail(RECORD_FAILED, mods.native, "not an ELF file");
	if (!getcwd(cwd, sizeof cwd))
		return fail(RECORD_FAILED, trace_arg, strerror(errno));
	if (snprintf(trace, sizeof trace, "%s%s%s", trace_arg[0] == '/' ? "" : cwd,
		     trace_arg[0] == '/' ? "" : "/", trace_arg) >= (int)sizeof trace)
		return fail(RECORD_FAILED, trace_arg, "path too long");
	/* The descriptor every process of the recording inherits: one that changes user can still
	 * append to a trace it may not open.  Above the numbers programs pick for themselves. */
	fd = open(trace, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return fail(RECORD_FAILED, trace_arg, strerror(errno));
	inherited = fcntl(fd, F_DUPFD, RECORD_FD_MIN);
	close(fd);
	if (inherited < 0 || fstat(inherited, &st))
		return fail(RECORD_FAILED, trace_arg, strerror(errno));
	snprintf(fdvar, sizeof fdvar, "%d:%llu:%llu", inherited, (unsigned long long)st.st_dev,
		 (unsigned long long)st.st_ino);
	if (resolve(argv[0], exe) == 0 &&
	    (kind = unauditable(exe, &mods, why, sizeof why, 0)) != 0) {
		fprintf(stderr,
			PROGRAM_NAME ": %s: not auditable: %s; what it dlopen()s is not recorded\n",
			exe, why);
		if (realpath(exe, real))
			snprintf(exe, sizeof exe, "%s", real);
	}
	from = lseek(inherited, 0, SEEK_END);
	/* Where the recording runs: the lint takes the files under it for the build tree. */
	if (trace_line(inherited, "record", "cwd", cwd, "command", argv[0]))
		return fail(RECORD_FAILED, trace_arg, "cannot append to the trace");
	/* A program of another class or machine would have its loader print an error about the
	 * module on its standard error: it runs without it (and so do its children). */
	if (kind != 2 && set_env(mods.ld_audit, trace, fdvar))
		return fail(RECORD_FAILED, argv[0], "cannot set the environment");
	return run_and_wait(trace_arg, trace, from < 0 ? 0 : from, inherited, exe,
			    kind ? why : NULL, argv);
}
