/* SPDX-License-Identifier: MIT */
/* readers.c - the independent readers and checkers, run for the tests (see harness.h):
 * tests/tools/readers.py in one Python process per test, eu-elflint, readelf, llvm-readobj. */
#include "harness.h"
#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *entries_by(const char *reader, const char *file)
{
	if (strcmp(reader, "tool") == 0)
		return sh("'%s' --list --json '%s'", tool(), file);
	return readers("%s '%s'", reader, file);
}

/* One tests/tools/readers.py per test process, started at its first use and fed one batch per
 * line (readers.py serve): Python with pyelftools costs about 130 ms to start, which was a
 * third of linked::every_mode's time when each check started its own.  Its pipes are
 * close-on-exec, so that no command run() starts holds them; it ends when the test does. */
static struct {
	pid_t pid, owner;
	FILE *to, *from;
	char test[256];	/* the test that started it: at exit Criterion's current test is gone */
} rd;

static void readers_stop(void)
{
	struct timespec t0, t1;
	struct rusage ru;

	if (!rd.pid || getpid() != rd.owner)
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fclose(rd.to);
	fclose(rd.from);
	wait4(rd.pid, NULL, 0, &ru);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	log_time_as(rd.test, "readers.py serve: its whole life", t0, t1, (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
		 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	rd.pid = 0;
}

static void readers_start(void)
{
	char script[4200];
	const char *dir = workdir();
	int in[2], out[2];

	snprintf(script, sizeof script, "%s/tests/tools/readers.py", srcdir());
	cr_assert(pipe2(in, O_CLOEXEC) == 0 && pipe2(out, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
	fflush(NULL);
	rd.pid = fork();
	cr_assert(rd.pid >= 0, "fork: %s", strerror(errno));
	if (rd.pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		unsetenv("BXFI_MAP");
		if (chdir(dir) == 0)
			execl("/usr/bin/python3", "python3", script, "serve", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	rd.owner = getpid();
	snprintf(rd.test, sizeof rd.test, "%s", current_test_name());
	rd.to = fdopen(in[1], "w");
	rd.from = fdopen(out[0], "r");
	cr_assert(rd.to && rd.from);
	atexit(readers_stop); /* before the work directory's removal, registered by workdir() */
}

/* The outputs of one batch, up to the line "=== done". */
static char *readers_ask(const char *args)
{
	struct timespec t0, t1;
	size_t cap = 4096, len = 0;
	char *all = malloc(cap), line[65536];

	cr_assert(!strchr(args, '\n'), "readers.py serve takes one line: %s", args);
	if (!rd.pid)
		readers_start();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	fprintf(rd.to, "%s\n", args);
	fflush(rd.to);
	all[0] = '\0';
	for (;;) {
		size_t n;
		cr_assert(fgets(line, sizeof line, rd.from), "readers.py serve ended before answering %s (its error is above)", args);
		if (strcmp(line, "=== done\n") == 0)
			break;
		n = strlen(line);
		if (len + n + 1 > cap) {
			while (len + n + 1 > cap)
				cap *= 2;
			all = realloc(all, cap);
		}
		memcpy(all + len, line, n + 1);
		len += n;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	snprintf(line, sizeof line, "readers.py serve: %.200s", args);
	log_time(line, t0, t1, -1);
	return all;
}

void readers_batch(char **out, int n, const char *fmt, ...)
{
	char args[8192], *all, *p;
	va_list ap;
	int i;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	all = readers_ask(args);
	for (i = 0, p = all; i < n; i++) {
		char *end = strstr(p, "=== end");
		size_t len;
		cr_assert(end, "readers.py %s: %d outputs, not %d: %s", args, i, n, all);
		len = (size_t)(end - p);
		while (len && p[len - 1] == '\n')
			len--;
		out[i] = strndup(p, len);
		p = end + strlen("=== end");
		if (*p == '\n')
			p++;
	}
	free(all);
}

char *readers(const char *fmt, ...)
{
	char args[8192], *out;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	readers_batch(&out, 1, "%s", args);
	return out;
}

/* e_shoff of FILE's ELF header, read here: expect_entries() asks it of every file it checks. */
int has_sections(const char *file)
{
	unsigned char h[64];
	char path[4200];
	uint64_t off = 0;
	size_t got;
	FILE *f;
	int wide, big;

	f = fopen(workdir_path(path, sizeof path, file), "rb");
	cr_assert(f, "%s: %s", file, strerror(errno));
	got = fread(h, 1, sizeof h, f);
	fclose(f);
	wide = h[EI_CLASS] == ELFCLASS64;
	cr_assert(got >= (wide ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)) && memcmp(h, ELFMAG, SELFMAG) == 0, "%s: no ELF header",
		  file);
	big = h[EI_DATA] == ELFDATA2MSB;
	for (int i = 0; i < (wide ? 8 : 4); i++) {
		int at = (wide ? 0x28 : 0x20) + (big ? i : (wide ? 7 : 3) - i);
		off = off << 8 | h[at];
	}
	return off > 0;
}

void expect_entries(const char *file, const char *json, int linked)
{
	static const char *const readers[] = { "tool", "sections", "readelf", "llvm", "segments" };
	int shdrs = has_sections(file);
	char *got[5];
	size_t i;

	got[0] = entries_by("tool", file);
	if (linked)
		readers_batch(got + 1, 4, "sections '%s' -- readelf '%s' -- llvm '%s' -- segments '%s'", file, file, file, file);
	else
		readers_batch(got + 1, 3, "sections '%s' -- readelf '%s' -- llvm '%s'", file, file, file);
	for (i = 0; i < (linked ? 5u : 4u); i++) {
		/* Without section headers, readers by section see nothing; PT_NOTE must do. */
		const char *want = !shdrs && strcmp(readers[i], "sections") == 0 ? "[]" : json;
		cr_expect_str_eq(got[i], want, "%s: reader %s decodes %s, expected %s", file, readers[i], got[i], want);
		free(got[i]);
	}
}


/* A normalization: every match of the extended regular expression `re` becomes its first
 * subexpression (empty when it has none) followed by `then`. */
struct norm {
	const char *re, *then;
};

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* LINE (freed) with each of the compiled RES[0..n) applied as NORMS says. */
static char *normalized(char *line, const struct norm *norms, const regex_t *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		regmatch_t m[2];
		size_t at = 0;

		while (line[at] && regexec(&res[i], line + at, 2, m, at ? REG_NOTBOL : 0) == 0 && m[0].rm_eo > m[0].rm_so) {
			size_t head = at + (size_t)m[0].rm_so, tail = at + (size_t)m[0].rm_eo;
			int keep = norms[i].re[0] == '(' && m[1].rm_so >= 0 ? (int)(m[1].rm_eo - m[1].rm_so) : 0;
			char *next = malloc(strlen(line) + strlen(norms[i].then) + 1);

			cr_assert(next);
			sprintf(next, "%.*s%.*s%s%s", (int)head, line, keep, keep ? line + at + m[1].rm_so : "", norms[i].then,
				line + tail);
			at = head + (size_t)keep + strlen(norms[i].then);
			free(line);
			line = next;
		}
	}
	return line;
}

/* TEXT's lines (freed here) but those holding a string of `drop`, normalized, sorted, each
 * once, joined by newlines: what `grep -v | sed -E | sort -u` gave, without three more
 * processes a call (thousands a run). */
static char *filtered(char *text, const char *const *drop, const struct norm *norms)
{
	char *save = NULL, **lines = NULL, *out;
	size_t n = 0, len = 1, k = 0, nres = 0;
	regex_t res[4];

	for (; norms[nres].re; nres++) {
		cr_assert(nres < sizeof res / sizeof res[0]);
		cr_assert(regcomp(&res[nres], norms[nres].re, REG_EXTENDED) == 0, "regcomp %s", norms[nres].re);
	}
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int dropped = 0;
		for (const char *const *d = drop; *d; d++)
			dropped |= strstr(l, *d) != NULL;
		if (dropped)
			continue;
		lines = realloc(lines, (n + 1) * sizeof *lines);
		cr_assert(lines);
		lines[n] = normalized(strdup(l), norms, res, nres);
		len += strlen(lines[n++]) + 1;
	}
	if (n)
		qsort(lines, n, sizeof *lines, compare_strings);
	out = calloc(1, len);
	cr_assert(out);
	for (size_t i = 0; i < n; i++) {
		if (!i || strcmp(lines[i], lines[i - 1]))
			k += (size_t)sprintf(out + k, "%s%s", k ? "\n" : "", lines[i]);
		free(lines[i]);
	}
	free(lines);
	free(text);
	for (size_t i = 0; i < nres; i++)
		regfree(&res[i]);
	return out;
}

/* The lines a command prints on stdout and stderr (its status is not the point), filtered. */
static char *problems(const char *cmd, const char *file, const char *const *drop, const struct norm *norms)
{
	struct cmd c = run(cmd, file);
	char *text = malloc(strlen(c.out) + strlen(c.err) + 2);

	cr_assert(text);
	sprintf(text, "%s\n%s", c.out, c.err);
	cmd_free(&c);
	return filtered(text, drop, norms);
}

/* S (freed) with every FROM replaced by TO. */
static char *replaced(char *s, const char *from, const char *to)
{
	size_t n = 0, fl = strlen(from);
	char *out, *o;

	for (const char *p = s; (p = strstr(p, from)); p += fl)
		n++;
	out = o = malloc(strlen(s) + n * strlen(to) + 1);
	cr_assert(out);
	for (const char *p = s, *q; ; p = q + fl) {
		q = strstr(p, from);
		if (!q) {
			strcpy(o, p);
			break;
		}
		memcpy(o, p, (size_t)(q - p));
		o += q - p;
		o = stpcpy(o, to);
	}
	free(s);
	return out;
}

/* FILES[0..n) as shell words, quoted. */
static char *words(const char *const *files, size_t n)
{
	size_t len = 1;
	char *w, *p;

	for (size_t i = 0; i < n; i++)
		len += strlen(files[i]) + 3;
	w = p = malloc(len);
	cr_assert(w);
	*p = '\0';
	for (size_t i = 0; i < n; i++)
		p += sprintf(p, "%s'%s'", i ? " " : "", files[i]);
	return w;
}

static const char *const elflint_drop[] = { "note type 1081871370", "No errors", NULL };
static const struct norm elflint_norms[] = {
	{ "(phdr\\[|program header entry |segment \\[|loadable segment \\[)[0-9]+", "N" },
	{ "section \\[ *[0-9]+\\]", "section [N]" },
	{ NULL, NULL },
};
static const char *const llvm_drop[] = { NULL };
static const struct norm llvm_norms[] = { { "0x[0-9a-fA-F]+", "0xN" }, { "index [0-9]+", "index N" }, { NULL, NULL } };

char *elflint(const char *file)
{
	return problems("eu-elflint --gnu-ld '%s'", file, elflint_drop, elflint_norms);
}

char *llvm_problems(const char *file)
{
	return problems("llvm-readobj --all '%s' >/dev/null", file, llvm_drop, llvm_norms);
}

static const char *const readelf_drop[] = { NULL };
static const struct norm readelf_norms[] = { { "0x[0-9a-f]+", "0xN" }, { NULL, NULL } };

char *readelf_problems(const char *file)
{
	return problems("readelf -W -a '%s' >/dev/null", file, readelf_drop, readelf_norms);
}

void readelf_problems_each(char **out, const char *const *files, size_t n)
{
	char *list = words(files, n), *all;

	/* readelf names no file in its warnings: when the files together give none, each gives
	 * none; else each is read again alone. */
	all = n > 1 ? problems("readelf -W -a %s >/dev/null", list, readelf_drop, readelf_norms) : NULL;
	free(list);
	for (size_t i = 0; i < n; i++)
		out[i] = all && !*all ? strdup("") : readelf_problems(files[i]);
	free(all);
}

void readelf_counts_each(struct elf_counts *out, const char *const *files, size_t n)
{
	char *list = words(files, n), *text = sh("readelf -hlSW %s 2>/dev/null; true", list), *save = NULL;
	struct elf_counts *k = out;
	const char *v;

	memset(out, 0, n * sizeof *out);
	free(list);
	/* Given several files, readelf heads each one's part with "File: NAME", in their order. */
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (n > 1 && strncmp(l, "File: ", 6) == 0) {
			size_t i = 0;
			while (i < n && strcmp(l + 6, files[i]) != 0)
				i++;
			cr_assert(i < n, "readelf named a file it was not given: %s", l);
			k = &out[i];
		} else if ((v = strstr(l, "Number of section headers:"))) {
			k->sections = atoi(v + strlen("Number of section headers:"));
		} else if ((v = strstr(l, "Number of program headers:"))) {
			k->phdrs = atoi(v + strlen("Number of program headers:"));
		} else if (strncmp(l, "  LOAD ", 7) == 0) {
			k->loads++;
		} else if (strncmp(l, "  NULL ", 7) == 0) {
			k->nulls++;
		} else if (strstr(l, " .note.dlopen ") && strncmp(l, "  [", 3) == 0) {
			k->dlopen_sections++;
		}
	}
	free(text);
}

struct elf_counts readelf_counts(const char *file)
{
	struct elf_counts k;

	readelf_counts_each(&k, &file, 1);
	return k;
}

void elflint_each(char **out, const char *const *files, size_t n)
{
	char *list, *text;
	const char *p;
	struct cmd c;

	if (n == 1) { /* eu-elflint heads each file's part with its name only when given several */
		out[0] = elflint(files[0]);
		return;
	}
	list = words(files, n);
	c = run("eu-elflint --gnu-ld %s", list);

	free(list);
	text = malloc(strlen(c.out) + 2);
	cr_assert(text);
	sprintf(text, "\n%s", c.out);
	/* Each file's lines follow a line "FILE:" after an empty one, in the order given. */
	p = text;
	for (size_t i = 0; i < n; i++) {
		char head[4200];
		const char *start, *end = NULL;

		snprintf(head, sizeof head, "\n\n%s:\n", files[i]);
		start = strstr(p, head);
		cr_assert(start, "eu-elflint: no part for %s in\n%s", files[i], c.out);
		start += strlen(head);
		if (i + 1 < n) {
			snprintf(head, sizeof head, "\n\n%s:\n", files[i + 1]);
			end = strstr(start, head);
		}
		out[i] = filtered(end ? strndup(start, (size_t)(end - start)) : strdup(start), elflint_drop, elflint_norms);
		p = end ? end : start;
	}
	free(text);
	cmd_free(&c);
}

/* The lines of ERR that are FILES[i]'s: those naming it, and those naming no file. */
static char *lines_of(const char *err, const char *const *files, size_t n, size_t i)
{
	char *mine = calloc(1, strlen(err) + 2), *copy = strdup(err), *save = NULL, w[4200];

	cr_assert(mine && copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int named_me = 0, named_other = 0;
		for (size_t j = 0; j < n; j++) {
			snprintf(w, sizeof w, "'%s'", files[j]);
			if (strstr(l, w))
				*(j == i ? &named_me : &named_other) = 1;
		}
		if (named_me || !named_other)
			strcat(strcat(mine, l), "\n");
	}
	free(copy);
	return mine;
}

void llvm_problems_each(char **out, const char *const *files, size_t n, const char *as)
{
	char *list = words(files, n), named[4200], to[4200];
	struct cmd c = run("llvm-readobj --all %s >/dev/null", list);
	int stopped = strstr(c.err, "llvm-readobj: error:") != NULL;

	free(list);
	snprintf(to, sizeof to, "'%s'", as);
	for (size_t i = 0; i < n; i++) {
		snprintf(named, sizeof named, "'%s'", files[i]);
		if (stopped) /* it stops at the first error: each file alone */
			out[i] = replaced(llvm_problems(files[i]), named, to);
		else
			out[i] = replaced(filtered(lines_of(c.err, files, n, i), llvm_drop, llvm_norms), named, to);
	}
	cmd_free(&c);
}
