/* SPDX-License-Identifier: MIT */
/* files.c - the inputs: manifests and maps read whole (bounded), the trace, each FILE opened
 * and dispatched (archive, ELF, or skipped), --files-from lists read one name at a time, and
 * what is printed once after the last FILE. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../archive/archive.h"
#include "cli_int.h"
#include "../elf/elf.h"

/* ---- manifests ---- */

static int read_bounded(int fd, struct buf *b, struct err *e)
{
	char chunk[65536];
	ssize_t n;

	for (;;) {
		n = read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return err_set(e, "read error: %s", strerror(errno));
		if (n == 0)
			return b->oom ? err_oom(e) : 0;
		if (b->len + (size_t)n > MANIFEST_MAX_BYTES)
			return err_set(e, "manifest larger than %u bytes", MANIFEST_MAX_BYTES);
		buf_put(b, chunk, (size_t)n);
	}
}

/* A text input given on the command line ('-' is standard input), bounded, without NUL bytes. */
static int read_text(const char *path, const char *what, struct buf *text, struct err *e)
{
	struct stat st;
	int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	int r = -1;

	if (fd < 0) {
		err_set(e, "%s", strerror(errno));
	} else if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		err_set(e, "is a directory");
	} else {
		if (fd) {
			int fl = fcntl(fd, F_GETFL);
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		}
		if (read_bounded(fd, text, e) == 0 && memchr(text->p ? text->p : "", 0, text->len))
			err_set(e, "NUL byte in %s", what);
		else if (!e->msg[0])
			r = 0;
	}
	if (fd > 0)
		close(fd);
	return r;
}

static int parse_manifest(const char *text, size_t len, void *out, struct err *e)
{
	return manifest_parse(text, len, out, e);
}

static int parse_deb_map(const char *text, size_t len, void *out, struct err *e)
{
	return pkgdeps_debmap_parse(text, len, out, e);
}

/* Read a manifest or a map and parse it into *out; errors name the file. */
static int load(const char *path, const char *what,
		int (*parse)(const char *, size_t, void *, struct err *), void *out)
{
	struct buf text = {0};
	struct err e = {0};
	int r = read_text(path, what, &text, &e);

	if (r == 0)
		r = parse(text.p ? text.p : "", text.len, out, &e);
	buf_free(&text);
	if (r)
		err_report(strcmp(path, "-") == 0 ? "<stdin>" : path, &e);
	return r;
}

int files_add_entries(const char *from, struct entries *out, const struct entries *add)
{
	struct buf msg = {0};
	struct err e = {0};
	size_t a, b;
	int r = manifest_merge_identity(out, add, 0, NULL, &a, &b);

	if (r < 0)
		err_oom(&e);
	if (r > 0) {
		buf_puts(&msg, "entry ");
		manifest_entry_label(&add->v[b], &msg);
		buf_puts(&msg, " is declared twice, differently: ");
		manifest_serialize_entry(&out->v[a], &msg);
		buf_puts(&msg, " and ");
		manifest_serialize_entry(&add->v[b], &msg);
		buf_puts(&msg, "; a program would list it twice (--check rejects that): keep one");
		err_set(&e, "%.*s", (int)msg.len, msg.p ? msg.p : "");
		buf_free(&msg);
	}
	if (r)
		err_report(from, &e);
	return r ? -1 : 0;
}

int files_load_manifest(const char *path, struct entries *out)
{
	struct entries es = {0};
	int r = load(path, "manifest", parse_manifest, &es);

	if (r == 0)
		r = files_add_entries(strcmp(path, "-") == 0 ? "<stdin>" : path, out, &es);
	manifest_free(&es);
	return r;
}

int files_load_deb_map(const char *path, struct debmap *out)
{
	return load(path, "map", parse_deb_map, out);
}

static int parse_policy(const char *text, size_t len, void *out, struct err *e)
{
	return policy_parse(text, len, out, e);
}

int files_load_policy(const char *path, struct policy *out)
{
	return load(path, "policy", parse_policy, out);
}

/* ---- per file ---- */

static int open_input(const char *path, int *fd, struct stat *st, struct err *e)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0)
		return err_set(e, "%s", strerror(errno));
	if (fstat(*fd, st) || !S_ISREG(st->st_mode)) {
		err_set(e, "not a regular file");
		close(*fd);
		*fd = -1;
		return -1;
	}
	fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

/* A libtool stand-in named instead of the file it stands for: the error names that file.  A
 * wrapper's program is relinked by `make install`, which drops what an edit wrote. */
static int stand_in(const char *path, int fd, const struct stat *st, struct err *e)
{
	const char *slash = strrchr(path, '/');
	char real[1024];
	const char *kind = magic_libtool(fd, (uint64_t)st->st_size, real, sizeof real);

	if (!kind)
		return 0;
	return err_set(e,
		       "a %s, not an ELF file: the %s is %.*s%s; name that file (and after "
		       "`make install`, which relinks it, the installed one)",
		       kind, strstr(kind, "wrapper") ? "program" : "library",
		       slash ? (int)(slash - path + 1) : 0, path, real);
}

/* many: several FILEs (or a list), so the table names each one. */
int files_process(struct run *run, const char *path, int many)
{
	const struct opts *o = &run->o;
	struct err e = {0};
	struct stat st;
	struct elf ef;
	struct scan sc;
	unsigned char magic[8];
	size_t n;
	int fd, r = -1;

	if (o->mode == MODE_CLOSURE)
		return run_closure_file(run, path);
	if (open_input(path, &fd, &st, &e))
		goto fail;
	n = magic_read(fd, 0, (uint64_t)st.st_size, magic);
	if (archive_is(magic, n)) {
		r = members_process(run, path, fd, &st, many);
		close(fd);
		return r;
	}
	if (o->skip_non_elf && !magic_is_elf(magic, n)) {
		close(fd);
		return 0;
	}
	if (o->nmembers) {
		close(fd);
		err_set(&e, "--member is given but this is not an archive");
		goto fail;
	}
	if (!magic_is_elf(magic, n) && stand_in(path, fd, &st, &e)) {
		close(fd);
		goto fail;
	}
	if (elf_open(&ef, fd, path, (uint64_t)st.st_size, &e)) {
		close(fd);
		goto fail;
	}
	if (scan_file(&ef, &sc, &e) == 0) {
		struct entries es = {0};
		switch (o->mode) {
		case MODE_LIST:
			r = scan_entries(&ef, &sc, &es, &e);
			if (r == 0) {
				struct file_kind k;
				action_file_kind(&ef, &k);
				r = action_list(run, path, &ef, &sc, &es, &k, many, &e);
			}
			manifest_free(&es);
			break;
		case MODE_CHECK: r = action_check(run, path, &ef, &sc, 0, NULL, NULL, NULL, &e); break;
		case MODE_DISCOVER: r = action_discover(run, path, &ef, &sc, &e); break;
		default: r = action_edit(run, path, fd, &st, &ef, &sc, &e);
		}
		scan_free(&sc);
	}
	elf_close(&ef);
	close(fd);
	if (r == 0)
		return 0;
fail:
	err_report(path, &e);
	return exit_status(&e);
}

/* --files-from: each name is processed as it is read, so the list may be of any length.  A
 * name longer than PATH_MAX is an error for that name only; empty names are skipped. */
int files_process_list(struct run *run)
{
	const struct opts *o = &run->o;
	const char *list = strcmp(o->files_from, "-") == 0 ? "<stdin>" : o->files_from;
	FILE *f = strcmp(o->files_from, "-") == 0 ? stdin : fopen(o->files_from, "re");
	int delim = o->null_sep ? '\0' : '\n', status = EXIT_OK, c, s;
	char name[PATH_MAX];
	size_t len = 0, too_long = 0, lineno = 1;

	if (!f) {
		print_text(stderr, PROGRAM_NAME ": %s: %s\n", list, strerror(errno));
		return EXIT_BAD_INPUT;
	}
	do {
		c = getc_unlocked(f);
		if (c != EOF && c != delim) {
			if (len < sizeof name - 1)
				name[len++] = (char)c;
			else
				too_long = 1;
			continue;
		}
		if (too_long) {
			print_text(stderr, PROGRAM_NAME ": %s: name %zu is longer than %d bytes\n",
				   list, lineno, PATH_MAX - 1);
			status = EXIT_BAD_INPUT;
		} else if (len) {
			name[len] = '\0';
			s = files_process(run, name, 1);
			if (s > status)
				status = s;
		}
		len = too_long = 0;
		lineno++;
	} while (c != EOF);
	if (ferror(f)) {
		print_text(stderr, PROGRAM_NAME ": %s: read error: %s\n", list, strerror(errno));
		status = EXIT_BAD_INPUT;
	}
	if (f != stdin)
		fclose(f);
	return status;
}

/* --recorded: the trace, read once before the files. */
int files_load_trace(struct opts *o)
{
	struct err e = {0};

	if (trace_load(o->recorded_path, &o->trace, &e)) {
		err_report(o->recorded_path, &e);
		return -1;
	}
	if (o->trace.unauditable && !o->quiet)
		fprintf(stderr,
			PROGRAM_NAME
			": %s: %zu program%s could not be audited: what %s dlopen()ed is missing\n",
			o->recorded_path, o->trace.unauditable,
			o->trace.unauditable == 1 ? "" : "s",
			o->trace.unauditable == 1 ? "it" : "they");
	return 0;
}

/* --check --recorded, after the last FILE: what the recording holds that the lint did not see.
 * Each file of the build tree that dlopen()ed and that no FILE checked is (a program the tests
 * rebuilt, a test program the package does not ship) is said, in one line; when none is, or
 * the trace recorded no process, nothing was linted against the recording: that fails. */
static int finish_recorded(struct opts *o)
{
	struct trace_unmatched u;
	int status = EXIT_OK;

	if (trace_unmatched(&o->trace, &u)) {
		trace_unmatched_free(&u);
		print_oom();
		return EXIT_BAD_INPUT;
	}
	if (!o->trace.processes) {
		print_text(stderr,
			   PROGRAM_NAME ": %s: the trace records no process: run the tests under "
					"--record=TRACE before the lint\n",
			   o->recorded_path);
		status = EXIT_BAD_INPUT;
	} else if (u.tree && u.unmatched == u.tree) {
		print_text(stderr,
			   PROGRAM_NAME
			   ": %s: no file checked is one that dlopen()ed during the "
			   "recording (%zu of the build tree did: %.*s%s): nothing was "
			   "linted against it; give the lint the files the package ships\n",
			   o->recorded_path, u.tree, (int)u.first.len, u.first.p,
			   u.unmatched > 3 ? ", ..." : "");
		status = EXIT_BAD_INPUT;
	} else if (u.unmatched && !o->quiet) {
		print_text(stderr,
			   PROGRAM_NAME ": %s: %zu file%s of the build tree dlopen()ed during the "
					"recording and match%s no file checked: %.*s%s (-v lists "
					"them); what %s dlopen()ed is not linted\n",
			   o->recorded_path, u.unmatched, u.unmatched == 1 ? "" : "s",
			   u.unmatched == 1 ? "es" : "", (int)u.first.len, u.first.p,
			   u.unmatched > 3 ? ", ..." : "", u.unmatched == 1 ? "it" : "they");
	}
	if (u.unmatched && o->verbose && u.all.len)
		print_text(stderr, "%.*s", (int)u.all.len, u.all.p);
	/* The lint cannot say which file made them: it fails rather than say ok without them. */
	if (u.by_loader) {
		print_text(
			stderr,
			PROGRAM_NAME
			": %s: %zu dlopen() call%s named the dynamic loader as %s caller (%.*s%s: "
			"a tail call through a GOT entry, -fno-plt, from a constructor or "
			"destructor, of a name built at run time): no file can be linted for "
			"%s; record a build without -fno-plt (docs/recording.md)\n",
			o->recorded_path, u.by_loader, u.by_loader == 1 ? "" : "s",
			u.by_loader == 1 ? "its" : "their", (int)u.hidden.len, u.hidden.p,
			u.by_loader > 3 ? ", ..." : "", u.by_loader == 1 ? "it" : "them");
		status = EXIT_BAD_INPUT;
	}
	trace_unmatched_free(&u);
	return status;
}

/* What is printed once for all files: the gathered formats, the lint, the discovery draft.
 * `failed`: a FILE could not be read. */
int files_finish(struct run *run, int failed)
{
	struct opts *o = &run->o;
	struct gathered *got = &run->got;
	size_t diffs;

	if (o->mode == MODE_CLOSURE)
		return run_closure_finish(run, failed);
	if (o->mode == MODE_LIST) { /* an entry the policy refuses fails the run */
		int r = report_list(&got->listed, &o->rep, o->quiet, stdout);
		if (o->rep.policy_refused)
			print_text(stderr,
				   PROGRAM_NAME ": %s: %zu entr%s of features the policy does not "
						"name, the first %s (-v names each)\n",
				   o->policy_path, o->rep.policy_refused,
				   o->rep.policy_refused == 1 ? "y" : "ies",
				   o->rep.policy_first.p ? o->rep.policy_first.p : "");
		return r || o->rep.policy_refused ? EXIT_BAD_INPUT : EXIT_OK;
	}
	if (o->mode == MODE_CHECK && o->expect_path) {
		int status = o->recorded_path ? finish_recorded(o) : EXIT_OK;
		diffs = report_lint(&o->expect, o->expect_path, &got->listed,
				    got->expect_files != 0, stdout) +
			got->expect_missing;
		if (!diffs)
			return status;
		print_text(stderr,
			   PROGRAM_NAME ": %s: %zu difference%s between the declared and the found "
					"dlopen entries\n",
			   o->expect_path, diffs, diffs == 1 ? "" : "s");
		return EXIT_BAD_INPUT;
	}
	if (o->mode == MODE_CHECK && o->recorded_path)
		return finish_recorded(o);
	/* A draft that silently misses a file would be taken for the whole story: nothing then. */
	if (o->mode == MODE_DISCOVER && !failed) {
		discover_finish(&got->found);
		report_draft(&got->found, stdout);
		if (!o->quiet && o->recorded_path && got->found.n)
			fprintf(stderr,
				PROGRAM_NAME ": %s: %zu undeclared dlopen() dependenc%s recorded; "
					     "describe each feature\n",
				o->recorded_path, got->found.n, got->found.n == 1 ? "y" : "ies");
		else if (!o->quiet && o->recorded_path)
			fprintf(stderr,
				PROGRAM_NAME
				": %s: no undeclared dlopen() dependency recorded for these files: "
				"nothing to draft\n",
				o->recorded_path);
		else if (!o->quiet)
			fprintf(stderr,
				PROGRAM_NAME ": --discover is a heuristic: %zu soname-like "
					     "string%s in read-only data, "
					     "neither DT_NEEDED nor declared; review the draft "
					     "before using it\n",
				got->found.n, got->found.n == 1 ? "" : "s");
	}
	return EXIT_OK;
}
