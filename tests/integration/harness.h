/* SPDX-License-Identifier: MIT */
/* harness.h - what the integration tests share: running commands, scratch directories,
 * building real inputs, and asking independent readers (tests/tools/readers.py). */
#ifndef DLNOTE_HARNESS_H
#define DLNOTE_HARNESS_H

#include <stddef.h>
#include <time.h>

struct cmd {
	int status;           /* exit status; 128+N for a signal */
	char *out, *err;
};

/* The tool under test ($DLNOTE) and the source tree ($DLNOTE_SRC). */
const char *tool(void);
const char *srcdir(void);

/* check-all's second pass, with ASan and UBSan, is told where the first pass's binary is
 * ($DLNOTE_PLAIN): NULL otherwise.  Where a test checks a file the tool wrote with the
 * independent readers, strip, the loader and qemu-user, that pass runs the same steps and
 * checks instead that the sanitized tool wrote the very bytes the first pass checked
 * (tool_edit), and reads them back with the tool. */
const char *plain_tool(void);
/* Run the tool under test with ARGS (printf-style, then the file name) on FILE in the work
 * directory, asserting success; returns its stdout and stderr.  In the sanitized pass the
 * plain build first runs the same command on a copy of FILE, and the two results must be the
 * same bytes. */
char *tool_edit(const char *file, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* In the sanitized pass, the tool's runs in the calling test skip LeakSanitizer's scan at exit
 * (about 40 ms a run, more on big heaps): for the matrix's thousand-odd runs and the scale
 * tests.  The other suites, which run the same code paths, keep it. */
void sanitized_skip_leak_scan(void);

/* check-all's sanitized pass runs each big matrix on a sample, chosen by one rule: the case
 * of index INDEX runs when INDEX % N == 0, N being $DLNOTE_SANITIZED_SHARE (check-all: 4;
 * `make check-sanitized` runs every case).  The first pass runs them all, with every reader.
 * Returns 1, and says on stderr which case is left to the other pass, when this one does not
 * run; always 0 outside the sanitized pass. */
int sanitized_sample_skips(size_t index, const char *name);
/* The second rule: a test whose tool runs are made by another program (rpmbuild's generators,
 * dpkg-buildpackage's dh_dlnote, a recording under qemu-user) on modes that other tests run
 * directly in the sanitized pass is left to the first pass.  Returns 1, saying so (the test's
 * name and WHY) on stderr, in the sanitized pass; 0 outside it. */
int sanitized_pass_leaves(const char *why);
/* The index in ARRAY of a parameterized test's PARAM (Criterion hands the test a copy). */
#define PARAM_INDEX(param, array) param_index((param), (array), sizeof(array) / sizeof((array)[0]), sizeof((array)[0]))
size_t param_index(const void *param, const void *array, size_t n, size_t size);

/* A fresh directory for one test; it is the working directory of run().  Removed when the test
 * passes, kept (and named on stderr) when it fails, kept always with DLNOTE_KEEP_TEST_DIRS=1. */
const char *workdir(void);

/* Run a shell command line (printf-style) in the work directory and capture its output. */
struct cmd run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, asserting exit status 0; returns stdout with trailing newlines removed. */
char *sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cmd_free(struct cmd *c);
/* $DLNOTE_CMD_TIMES names a file that gets a line per command, with its wall time and the CPU
 * time of the command and its children (CPU -1: not known), to find what the suite spends its
 * time on. */
void log_time(const char *line, struct timespec t0, struct timespec t1, double cpu);
/* The same, for the test named TEST ("category::name"). */
void log_time_as(const char *test, const char *line, struct timespec t0, struct timespec t1, double cpu);
/* The running test's "category::name" (a static buffer), "-" outside a test. */
const char *current_test_name(void);

/* What dpkg-shlibdeps takes from the shlibs file of the installed PACKAGE for SONAME: the
 * dependency of its line (of the given type, "deb" or "udeb", else the untyped one). */
char *shlibs_dependency(const char *package, const char *soname, const char *type);

/* `make install` of the source tree into stage/usr in the work directory (PREFIX, so rpm's and
 * Perl's directories are there too), with the tool under test as its program. */
void stage_install(void);
/* A command's prefix in a directory one level below the work directory (a source package):
 * the staged dlnote-inject and dh_dlnote through PATH, the debhelper sequence through
 * PERL5LIB, and no make of the test run's own (its jobserver). */
#define STAGED_DH                                                                                 \
	"env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL PATH=\"$PWD/../stage/usr/bin:$PATH\" "          \
	"PERL5LIB=\"$PWD/../stage/usr/share/perl5\" "
/* dpkg-buildpackage -b of the source package in DIR (a directory of the work directory) with
 * the staged tool and addon; -d: their packages are not installed.  Output and errors in out. */
struct cmd deb_buildpackage(const char *dir);

/* rpm options (shell words) under which no attribute file of the system's fileattrs directory
 * but the given ones is active, so that a dlnote.attr installed there by any version of the
 * tool plays no part: rpm's macro path and _fileattrsdir name rpm-attrs/ in the work directory,
 * which holds the system's attributes but dlnote.attr (when `system_too`) and the file `extra`
 * (when not NULL). */
const char *rpm_isolated(int system_too, const char *extra);

/* Fail the test (never skip) when a required program is missing. */
void need(const char *program);

void put_file(const char *name, const char *text);
/* The fenced block that follows the line "<!-- MARK -->" in PAGE (a path in the source tree),
 * byte for byte, with its final newline: what a page shows is what a test runs.  Fails the test
 * when the page has no such block. */
char *doc_block(const char *page, const char *mark);
/* A manifest of `entries` entries of about 110 bytes each: 60 make a note larger than any page
 * padding (4 KiB), so that it goes after the end of the file. */
void put_big_manifest(const char *name, int entries);
char *get_file(const char *name, size_t *len);
int same_files(const char *a, const char *b);
/* cp FROM TO without a process (names relative to the work directory): TO gets FROM's mode when
 * it is created, and is written through when it exists (as cp does). */
void copy_file(const char *from, const char *to);
/* mkdir -p PATH (relative to the work directory) without a process. */
void make_dirs(const char *path);
/* NAME as a path: itself when absolute, else in the work directory (written into BUF). */
const char *workdir_path(char *buf, size_t size, const char *name);
/* The size of a file, relative to the work directory. */
long long file_size(const char *name);

/* Entries of FILE as one compact JSON array, according to one reader:
 * "tool" (dlnote-inject --list --json), "sections" (pyelftools), "segments" (PT_NOTE
 * walker), "readelf", "llvm". */
char *entries_by(const char *reader, const char *file);
/* tests/tools/readers.py commands, run by one Python process per test (started at the first
 * call: Python with pyelftools costs about 130 ms to start).  The working directory is the
 * test's.  `args` (printf-style, shell words, one line) are command lines separated by " -- ";
 * out[0..n) get each command's output, trailing newlines removed (free them).  A command that
 * fails gives its error as its output (validate: its findings, or OK). */
void readers_batch(char **out, int n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* One command's output, the same way. */
char *readers(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int has_sections(const char *file);
/* Assert that every reader sees exactly `json`.  `segments_too` is 0 for objects. */
void expect_entries(const char *file, const char *json, int linked);

/* eu-elflint's complaints about FILE, our unknown-note-type message removed, program header
 * numbers normalized, one per line (so input and output can be compared). */
char *elflint(const char *file);
/* Warnings llvm-readobj --all prints, numbers normalized. */
char *llvm_problems(const char *file);
/* What elflint() gives for each of FILES[0..n), into out[0..n), from one run of eu-elflint
 * (llvm-readobj and eu-elflint cost about 130 and 50 ms a start). */
void elflint_each(char **out, const char *const *files, size_t n);
/* What llvm_problems() gives for each of FILES[0..n), with the file's name in its lines written
 * as AS (the name a run on one file would have seen), from one run when no file gives an error
 * (llvm-readobj stops at the first: then a run per file). */
void llvm_problems_each(char **out, const char *const *files, size_t n, const char *as);
/* Problems readelf -W -a prints on stderr (warnings, errors). */
char *readelf_problems(const char *file);
/* readelf_problems of N files, in OUT[0..N-1]: one readelf for all when none has any. */
void readelf_problems_each(char **out, const char *const *files, size_t n);
/* What one `readelf -hlSW FILE` says of it: its section and program header counts, its PT_LOAD
 * and PT_NULL entries, its .note.dlopen section headers. */
struct elf_counts {
	int sections, phdrs, loads, nulls, dlopen_sections;
};
struct elf_counts readelf_counts(const char *file);
/* The same for N files, from one readelf run. */
void readelf_counts_each(struct elf_counts *out, const char *const *files, size_t n);

#endif
