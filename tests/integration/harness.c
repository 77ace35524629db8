/* SPDX-License-Identifier: MIT */
/* harness.c - see harness.h. */
#include "harness.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char wdir[4096];

const char *tool(void)
{
	const char *t = getenv("DLNOTE");
	cr_assert(t && *t, "DLNOTE must name the tool under test (make check sets it)");
	return t;
}

const char *srcdir(void)
{
	const char *s = getenv("DLNOTE_SRC");
	cr_assert(s && *s, "DLNOTE_SRC must name the source tree (make check sets it)");
	return s;
}

const char *plain_tool(void)
{
	const char *p = getenv("DLNOTE_PLAIN");
	return p && *p ? p : NULL;
}

void sanitized_skip_leak_scan(void)
{
	const char *o = getenv("ASAN_OPTIONS");
	char v[1024];

	if (!getenv("DLNOTE_SANITIZED"))
		return;
	snprintf(v, sizeof v, "%s%sdetect_leaks=0", o && *o ? o : "", o && *o ? ":" : "");
	setenv("ASAN_OPTIONS", v, 1);
}

size_t param_index(const void *param, const void *array, size_t n, size_t size)
{
	for (size_t i = 0; i < n; i++)
		if (memcmp((const char *)array + i * size, param, size) == 0)
			return i;
	cr_assert_fail("the parameter is none of its array's");
	return 0;
}

int sanitized_sample_skips(size_t index, const char *name)
{
	const char *v = getenv("DLNOTE_SANITIZED_SHARE");
	long n = v && *v ? atol(v) : 1;

	if (!getenv("DLNOTE_SANITIZED") || n <= 1 || index % (size_t)n == 0)
		return 0;
	/* Said on stderr, not as a Criterion warning (which fails the run). */
	fprintf(stderr, "%s: case %zu left to the first pass (sanitized pass: one case in %ld)\n", name,
		index, n);
	return 1;
}

int sanitized_pass_leaves(const char *why)
{
	if (!getenv("DLNOTE_SANITIZED"))
		return 0;
	fprintf(stderr, "%s: left to the first pass (%s)\n", current_test_name(), why);
	return 1;
}

char *tool_edit(const char *file, const char *fmt, ...)
{
	char args[8192];
	va_list ap;
	struct cmd c;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	if (plain_tool())
		free(sh("cp '%s' '%s.plain' && '%s' %s '%s.plain' 2>&1", file, file, plain_tool(), args, file));
	c = run("'%s' %s '%s' 2>&1", tool(), args, file);
	cr_assert_eq(c.status, 0, "%s %s %s failed (%d): %s", tool(), args, file, c.status, c.out);
	if (plain_tool()) {
		char plain[4200];
		snprintf(plain, sizeof plain, "%s.plain", file);
		cr_expect(same_files(file, plain), "%s %s: the sanitized build wrote other bytes than the plain build",
			  args, file);
	}
	free(c.err);
	return c.out;
}

/* Work directories: one per test process, named after the test, under $DLNOTE_TEST_TMP,
 * $TMPDIR or /tmp.  A test that passes removes its directory when its process exits; one that
 * fails keeps it and says where it is; DLNOTE_KEEP_TEST_DIRS=1 keeps them all.  A failed
 * assertion goes through criterion_abort_test() (cr_assert) or criterion_continue_test()
 * (cr_expect): the harness defines both, notes the failure and calls Criterion's own. */
static int test_failed;
static pid_t wdir_owner;

static void *criterion_own(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (!f) {
		fprintf(stderr, "harness: no %s in Criterion\n", name);
		abort();
	}
	return f;
}

void criterion_abort_test(void)
{
	test_failed = 1;
	((void (*)(void))criterion_own("criterion_abort_test"))();
	abort(); /* not reached: Criterion's own does not return */
}

void criterion_continue_test(void)
{
	test_failed = 1;
	((void (*)(void))criterion_own("criterion_continue_test"))();
}

static const char *tmp_base(void)
{
	const char *b = getenv("DLNOTE_TEST_TMP");

	if (!b || !*b)
		b = getenv("TMPDIR");
	return b && *b ? b : "/tmp";
}

static int keep_dirs(void)
{
	const char *k = getenv("DLNOTE_KEEP_TEST_DIRS");

	return k && *k && strcmp(k, "0") != 0;
}

static void workdir_done(void)
{
	char line[8400];

	if (!wdir[0] || getpid() != wdir_owner)
		return;
	if (test_failed) {
		fprintf(stderr, "[----] %s::%s: its work directory is kept: %s\n", criterion_current_test->category,
			criterion_current_test->name, wdir);
		return;
	}
	if (keep_dirs())
		return;
	/* Tests make read-only files and directories too. */
	snprintf(line, sizeof line, "chmod -R u+rwX '%s' 2>/dev/null; rm -rf '%s'", wdir, wdir);
	if (system(line) != 0)
		fprintf(stderr, "harness: could not remove %s\n", wdir);
}

const char *workdir(void)
{
	if (!wdir[0]) {
		snprintf(wdir, sizeof wdir, "%s/dlnote-test.%s.%s.XXXXXX", tmp_base(), criterion_current_test->category,
			 criterion_current_test->name);
		cr_assert(mkdtemp(wdir), "mkdtemp %s: %s", wdir, strerror(errno));
		wdir_owner = getpid();
		atexit(workdir_done);
	}
	return wdir;
}

/* A test process that crashed or timed out never ran workdir_done(): say where its directory is. */
static void say_kept(struct criterion_test_stats *stats)
{
	fprintf(stderr, "[----] %s::%s: its work directory is kept: %s/dlnote-test.%s.%s.*\n", stats->test->category,
			stats->test->name, tmp_base(), stats->test->category, stats->test->name);
}

ReportHook(TEST_CRASH)(struct criterion_test_stats *stats)
{
	say_kept(stats);
}

ReportHook(POST_TEST)(struct criterion_test_stats *stats)
{
	if (stats->timed_out)
		say_kept(stats);
}

static char *slurp_fd(FILE *f)
{
	size_t cap = 4096, len = 0, n;
	char *p = malloc(cap);

	rewind(f);
	while ((n = fread(p + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2)
			p = realloc(p, cap *= 2);
	}
	p[len] = '\0';
	return p;
}

/* $DLNOTE_CMD_TIMES names a file that gets each command's wall time (to find what the suite
 * spends its time on). */
void log_time_as(const char *test, const char *line, struct timespec t0, struct timespec t1, double cpu)
{
	const char *name = getenv("DLNOTE_CMD_TIMES");
	FILE *f;

	if (!name || !*name || !(f = fopen(name, "a")))
		return;
	fprintf(f, "%.3f\t%.3f\t%s%s\t%.200s\n", (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
		cpu, getenv("DLNOTE_SANITIZED") ? "san:" : "", test, line);
	fclose(f);
}

const char *current_test_name(void)
{
	static char name[256];

	if (!criterion_current_test)
		return "-";
	snprintf(name, sizeof name, "%s::%s", criterion_current_test->category, criterion_current_test->name);
	return name;
}

void log_time(const char *line, struct timespec t0, struct timespec t1, double cpu)
{
	log_time_as(current_test_name(), line, t0, t1, cpu);
}

static struct cmd vrun(const char *fmt, va_list ap)
{
	struct timespec t0, t1;
	struct rusage ru;
	char line[16384], full[17000];
	FILE *o = tmpfile(), *e = tmpfile();
	struct cmd c;
	pid_t pid;
	int st;

	vsnprintf(line, sizeof line, fmt, ap);
	snprintf(full, sizeof full, "cd '%s' && %s", workdir(), line);
	fflush(NULL);
	pid = fork();
	cr_assert(pid >= 0);
	if (pid == 0) {
		dup2(fileno(o), 1);
		dup2(fileno(e), 2);
		/* Criterion's worker protocol: a Criterion program run by a test (make unit in a
		 * copied tree) would take itself for a worker. */
		unsetenv("BXFI_MAP");
		execl("/bin/sh", "sh", "-c", full, (char *)NULL);
		_exit(127);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	wait4(pid, &st, 0, &ru);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_time(line, t0, t1, (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
				       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	c.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	c.out = slurp_fd(o);
	c.err = slurp_fd(e);
	fclose(o);
	fclose(e);
	return c;
}

struct cmd run(const char *fmt, ...)
{
	va_list ap;
	struct cmd c;

	va_start(ap, fmt);
	c = vrun(fmt, ap);
	va_end(ap);
	return c;
}

char *sh(const char *fmt, ...)
{
	char line[16384];
	va_list ap;
	struct cmd c;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	c = run("%s", line);
	cr_assert_eq(c.status, 0, "command failed (%d): %s\nstdout: %s\nstderr: %s", c.status, line, c.out, c.err);
	free(c.err);
	n = strlen(c.out);
	while (n && c.out[n - 1] == '\n')
		c.out[--n] = '\0';
	return c.out;
}

void cmd_free(struct cmd *c)
{
	free(c->out);
	free(c->err);
}

/* PROGRAM as `command -v` finds it: a path with a slash is taken as it is, a name is looked up
 * in $PATH; executable either way.  Without starting a shell: need() is called a thousand
 * times a run.  The programs found are kept (in this test process). */
void need(const char *program)
{
	static char found[64][128];
	static size_t nfound;
	const char *path = getenv("PATH"), *p, *end;
	char full[4200];
	int ok = 0;

	for (size_t i = 0; i < nfound; i++)
		if (strcmp(found[i], program) == 0)
			return;
	if (strchr(program, '/')) {
		ok = access(program, X_OK) == 0;
	} else {
		for (p = path ? path : ""; !ok && *p; p = *end ? end + 1 : end) {
			struct stat st;
			end = strchrnul(p, ':');
			snprintf(full, sizeof full, "%.*s/%s", (int)(end - p), end == p ? "." : p, program);
			ok = stat(full, &st) == 0 && S_ISREG(st.st_mode) && access(full, X_OK) == 0;
		}
	}
	cr_assert(ok, "%s is required by this test: run tests/setup.sh (see README)", program);
	if (nfound < sizeof found / sizeof found[0] && strlen(program) < sizeof found[0])
		strcpy(found[nfound++], program);
}

char *shlibs_dependency(const char *package, const char *soname, const char *type)
{
	char *dep = sh("dpkg-query --control-show '%s' shlibs | awk -v so='%s' -v type='%s' '"
		       "{ t = \"\"; if ($1 ~ /:$/) { t = substr($1, 1, length($1) - 1); $1 = \"\"; $0 = $0 } } "
		       "so == $1 \".so.\" $2 && (t == type || (t == \"\" && !found)) "
		       "{ found = t == type; $1 = $2 = \"\"; sub(/^ +/, \"\"); d = $0 } END { print d }'",
		       package, soname, type);

	cr_assert(dep[0], "%s's shlibs file has no line for %s", package, soname);
	return dep;
}

struct cmd deb_buildpackage(const char *dir)
{
	return run("cd '%s' && " STAGED_DH "dpkg-buildpackage -b -uc -us -d 2>&1", dir);
}

void stage_install(void)
{
	need("make");
	free(sh("make -s -C '%s' install BIN='%s' PREFIX=\"$PWD/stage/usr\" >/dev/null", srcdir(), tool()));
}

const char *rpm_isolated(int system_too, const char *extra)
{
	static char opts[4500];
	char *dir;

	need("rpm");
	free(sh("rm -rf rpm-attrs && mkdir rpm-attrs"));
	if (system_too)
		free(sh("d=$(rpm --eval '%%{_fileattrsdir}') && for a in \"$d\"/*.attr; do "
			"[ \"${a##*/}\" = dlnote.attr ] || ln -s \"$a\" rpm-attrs/; done"));
	if (extra)
		free(sh("ln -s \"$(realpath '%s')\" rpm-attrs/", extra));
	dir = sh("realpath rpm-attrs");
	/* The macro path with the fileattrs directory's entry replaced by rpm-attrs/. */
	snprintf(opts, sizeof opts,
		 "--macros \"$(rpm --showrc | sed -n 's/^Macro path: //p' | tr : '\\n' | "
		 "sed 's|^.*/fileattrs/\\*\\.attr$|%s/*.attr|' | paste -sd:)\" --define '_fileattrsdir %s'", dir, dir);
	free(dir);
	return opts;
}

char *doc_block(const char *page, const char *mark)
{
	char *text = sh("awk -v m='<!-- %s -->' '$0 == m { on = 1; next } on == 1 && /^```/ { on = 2; next } "
			"on == 2 && /^```/ { exit } on == 2 { print }' '%s/%s'",
			mark, srcdir(), page);
	size_t n = strlen(text);
	char *block = malloc(n + 2);

	cr_assert(n > 0, "%s has no block after <!-- %s -->", page, mark);
	cr_assert(block);
	memcpy(block, text, n);
	strcpy(block + n, "\n");
	free(text);
	return block;
}

void put_file(const char *name, const char *text)
{
	char path[4200];
	FILE *f;

	snprintf(path, sizeof path, "%s/%s", workdir(), name);
	f = fopen(path, "w");
	cr_assert(f, "cannot write %s", path);
	fputs(text, f);
	fclose(f);
}

char *get_file(const char *name, size_t *len)
{
	char path[4200];
	FILE *f;
	char *p;
	long n;

	snprintf(path, sizeof path, "%s/%s", workdir(), name);
	f = fopen(path, "rb");
	cr_assert(f, "cannot read %s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	p = malloc((size_t)n + 1);
	cr_assert_eq(fread(p, 1, (size_t)n, f), (size_t)n);
	p[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return p;
}

void put_big_manifest(const char *name, int entries)
{
	char *m = malloc(128 * (size_t)entries + 8), *p = m;
	int i;

	p += sprintf(p, "[");
	for (i = 0; i < entries; i++)
		p += sprintf(p, "%s{\"soname\":[\"libbig%d.so.1\"],\"feature\":\"f%d\",\"description\":\"%s\"}", i ? "," : "", i, i,
			     "an entry long enough that the note outgrows the page padding");
	sprintf(p, "]");
	put_file(name, m);
	free(m);
}

const char *workdir_path(char *buf, size_t size, const char *name)
{
	if (name[0] == '/')
		return name;
	snprintf(buf, size, "%s/%s", workdir(), name);
	return buf;
}

static int open_in_workdir(const char *name, int flags, mode_t mode)
{
	char path[4200];

	return open(workdir_path(path, sizeof path, name), flags, mode);
}

int same_files(const char *a, const char *b)
{
	static char x[1 << 16], y[1 << 16];
	int fa = open_in_workdir(a, O_RDONLY, 0), fb = open_in_workdir(b, O_RDONLY, 0), same = fa >= 0 && fb >= 0;

	while (same) {
		ssize_t n = read(fa, x, sizeof x), m = n > 0 ? read(fb, y, (size_t)n) : read(fb, y, 1);
		cr_assert(n >= 0 && m >= 0, "read %s or %s: %s", a, b, strerror(errno));
		if (n == 0) {
			same = m == 0;
			break;
		}
		/* a short read of B is possible only at its end: regular files */
		same = m == n && memcmp(x, y, (size_t)n) == 0;
	}
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return same;
}

void copy_file(const char *from, const char *to)
{
	int in = open_in_workdir(from, O_RDONLY, 0), out;
	struct stat st;
	ssize_t n;

	cr_assert(in >= 0 && fstat(in, &st) == 0, "copy %s: %s", from, strerror(errno));
	out = open_in_workdir(to, O_WRONLY | O_CREAT | O_TRUNC, st.st_mode & 07777);
	cr_assert(out >= 0, "copy %s to %s: %s", from, to, strerror(errno));
	while ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0)
		;
	cr_assert(n == 0, "copy %s to %s: %s", from, to, strerror(errno));
	close(in);
	close(out);
}

void make_dirs(const char *path)
{
	char full[4200];

	snprintf(full, sizeof full, "%s/%s", workdir(), path);
	for (char *p = full + strlen(workdir()) + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			cr_assert(mkdir(full, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", full, strerror(errno));
			*p = '/';
		}
	cr_assert(mkdir(full, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", full, strerror(errno));
}

long long file_size(const char *name)
{
	char path[4200];
	struct stat st;

	cr_assert(stat(workdir_path(path, sizeof path, name), &st) == 0, "stat %s: %s", name, strerror(errno));
	return (long long)st.st_size;
}
