/* SPDX-License-Identifier: MIT */
/* test_closure_corpus.c - the closure fuzzer's own roots (tests/fuzz/corpus/closure and
 * tests/fuzz/regressions/closure: files, links with any target, loops, `..`, FILEs named
 * through links), built again as the fuzzer builds them (tests/fuzz/tree.c: ROOT beside a
 * mirror of it, `outside`), and the tool run on each under strace: once it has touched the
 * root, every file it names, opens or reads (strace -y gives each descriptor's path) lies in
 * the root.  Paths given as absolute: the root, and anything under it. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "tree.h"

/* The system calls that name a file, and where their path is (1: first argument, 2: second). */
static int path_argument(const char *line)
{
	static const struct {
		const char *call;
		int arg;
	} calls[] = {{"open(", 1},       {"openat(", 2},     {"openat2(", 2},   {"stat(", 1},
		     {"lstat(", 1},      {"newfstatat(", 2}, {"statx(", 2},     {"readlink(", 1},
		     {"readlinkat(", 2}, {"access(", 1},     {"faccessat(", 2}, {"faccessat2(", 2},
		     {"chdir(", 1},      {"execve(", 1}};

	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++)
		if (strncmp(line, calls[i].call, strlen(calls[i].call)) == 0)
			return calls[i].arg;
	return 0;
}

/* The first thing in LINE outside ROOT: a descriptor's path (<...>, but the working directory
 * AT_FDCWD, the output (descriptors 1 and 2) and /dev/null) or a path argument; NULL when
 * none. */
static const char *outside_root(const char *line, const char *root, char *what, size_t whatsz)
{
	size_t rl = strlen(root);
	int arg = path_argument(line);
	const char *p = line;

	while ((p = strchr(p, '<'))) {
		const char *end = strchr(p, '>');
		size_t n = end ? (size_t)(end - p - 1) : strlen(p + 1);
		int cwd = p >= line + 8 && strncmp(p - 8, "AT_FDCWD", 8) == 0;
		int out = p >= line + 2 &&
			  (strncmp(p - 2, "(1", 2) == 0 || strncmp(p - 2, "(2", 2) == 0);
		int null = strncmp(p, "</dev/null>", 11) == 0;
		if (p[1] == '/' && !cwd && !out && !null &&
		    !(n >= rl && strncmp(p + 1, root, rl) == 0 && (n == rl || p[1 + rl] == '/'))) {
			snprintf(what, whatsz, "%.*s", (int)n, p + 1);
			return what;
		}
		p += 1 + n;
	}
	if (arg) {
		const char *q = strchr(line, '(') + 1;
		if (arg == 2)
			q = strstr(q, ", \"") ? strstr(q, ", \"") + 2 : NULL;
		if (q && *q == '"') {
			const char *end = strchr(q + 1, '"');
			size_t n = end ? (size_t)(end - q - 1) : 0;
			int relative_to_dir =
				arg == 2 && strncmp(strchr(line, '(') + 1, "AT_FDCWD", 8);
			if (n && !relative_to_dir && strncmp(q, "\"/dev/null\"", 11) != 0 &&
			    !(n >= rl && strncmp(q + 1, root, rl) == 0 &&
			      (n == rl || q[1 + rl] == '/'))) {
				snprintf(what, whatsz, "%.*s", (int)n, q + 1);
				return what;
			}
		}
	}
	return NULL;
}

/* Run the tool on one input's root; "" when it kept inside, else what it touched.  *reached:
 * whether the tool got as far as the root (a replay that never did proves nothing). */
static char *replay(const char *input, int n, int *reached)
{
	char dir[4096], *text, *quoted = NULL, *seen = NULL, what[4096], line[8192];
	struct tree t;
	size_t len, qlen;
	FILE *args;
	FILE *trace;
	int started = 0;

	snprintf(dir, sizeof dir, "case-%d", n);
	make_dirs(dir);
	snprintf(dir, sizeof dir, "%s/case-%d", workdir(), n);
	FILE *in = fopen(input, "rb");
	cr_assert(in, "%s", input);
	text = malloc(1 << 20); /* the fuzzer's inputs are far smaller */
	len = fread(text, 1, 1 << 20, in);
	fclose(in);
	cr_assert_eq(tree_make(&t, dir, (const unsigned char *)text, len), 0, "%s", input);
	close(t.rootfd);
	free(text);
	*reached = 0;
	if (t.nfiles == 0)
		return strdup(""); /* a root without FILE: the tool is not run (usage error) */
	args = open_memstream(&quoted, &qlen);
	cr_assert(args);
	for (size_t i = 0; i < t.nfiles; i++) { /* each FILE as one shell word */
		fputs(" '", args);
		for (const char *p = t.files[i]; *p; p++)
			*p == '\'' ? (void)fputs("'\\''", args) : (void)fputc(*p, args);
		fputs("'", args);
	}
	fclose(args);
	struct cmd c = run("timeout 60 strace -f -qq -y -e trace=%%file,%%desc -o trace-%d '%s' "
			   "--closure --root='%s' --%s >/dev/null 2>&1; echo $?",
			   n, tool(), t.root, quoted ? quoted : "");
	free(quoted);
	cr_expect(strcmp(c.out, "0\n") == 0 || strcmp(c.out, "1\n") == 0,
		  "%s: the tool ended with status %s", input, c.out);
	cmd_free(&c);
	snprintf(line, sizeof line, "%s/trace-%d", workdir(), n);
	trace = fopen(line, "r");
	cr_assert(trace);
	while (!seen && fgets(line, sizeof line, trace)) {
		char *call = line + strspn(line, "0123456789 "); /* after strace -f's pid */
		started |= strstr(call, t.root) != NULL;
		if (started && outside_root(call, t.root, what, sizeof what))
			seen = strdup(line);
	}
	fclose(trace);
	*reached = started;
	return seen ? seen : strdup("");
}

Test(closure_corpus, the_fuzzers_roots_never_lead_the_tool_out, .timeout = 600)
{
	static const char *const dirs[] = {"tests/fuzz/regressions/closure",
					   "tests/fuzz/corpus/closure"};
	char path[4096];
	int n = 0, reached = 0;

	/* ASan's own reads of /proc at the end of a run would be paths outside the root */
	if (sanitized_pass_leaves("the tool runs under strace: the first pass's tool"))
		return;
	need("strace");
	for (size_t k = 0; k < 2; k++) {
		DIR *d;
		struct dirent *e;
		snprintf(path, sizeof path, "%s/%s", srcdir(), dirs[k]);
		cr_assert((d = opendir(path)), "%s: no such directory", path);
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s/%s", srcdir(), dirs[k], e->d_name);
			int in_root;
			char *seen = replay(path, n++, &in_root);
			reached += in_root;
			cr_expect_str_empty(seen,
					    "%s: the tool touched a path outside the root:\n%s",
					    path, seen);
			free(seen);
		}
		closedir(d);
	}
	/* Most roots are walked: those the tool never entered (no FILE, a FILE it refuses before
	 * the root) are counted apart, so that a tool failing early cannot pass for a safe one. */
	cr_expect_gt(reached, n / 2, "the tool reached the root in only %d of %d replays", reached,
		     n);
}
