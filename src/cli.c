/* cli.c - options, manifests, and the per-file pipeline:
 * file -> ELF model -> scan -> entries -> note bytes -> layout plan -> output. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "discover.h"
#include "elf.h"
#include "layout.h"
#include "manifest.h"
#include "note.h"
#include "output.h"
#include "record.h"
#include "report.h"
#include "scan.h"
#include "trace.h"
#include "util.h"

#ifndef VERSION
#define VERSION "0.1.0"
#endif

enum mode { MODE_REPLACE, MODE_MERGE, MODE_REMOVE, MODE_LIST, MODE_CHECK, MODE_DISCOVER, MODE_RECORD };

struct opts {
	enum mode mode;
	int mode_set, verbose, quiet, skip_non_elf;
	const char *format_opt;    /* the first of --json, --format, --rpm-*: for usage errors */
	int format_set, list_only; /* list_only: an option that only --list takes was given */
	const char *output;
	struct output_opts out;
	struct entries add;        /* manifest entries, then flag entries, in order */
	struct report_opts rep;    /* --list formats and filters */
	struct listing listed;     /* --list (but the table) and --check --expect: all files' entries */
	const char *expect_path;   /* --check --expect */
	struct entries expect;
	struct discovery found;    /* --discover */
	const char *record_path;   /* --record */
	const char *recorded_path; /* --discover/--check --recorded */
	struct trace trace;
	const char *files_from;    /* --files-from: more FILEs, one per line ('-': standard input) */
	int null_sep;              /* -0/--null: the list's names end with NUL bytes */
	int generate;              /* --rpm-generate: an rpm dependency generator */
	const char *gen_opt;       /* the first option only --rpm-generate takes */
	const char *stdin_user;    /* the option that reads standard input, if one does */
	char **manifests;          /* -m paths, read once the options are known to be right */
	size_t nmanifests, manifests_cap;
	const char **members;      /* --member: only these archive members */
	unsigned char *member_used;
	size_t nmembers;
};

static const char usage_text[] =
	"Usage: " PROGRAM_NAME " [OPTIONS] FILE...\n"
	"Add, replace, merge, remove, list or check the .note.dlopen ELF note (FDO dlopen metadata)\n"
	"in objects, static archives, executables and shared libraries.\n"
	"\n"
	"Entries:\n"
	"  -m, --manifest PATH     JSON manifest: an array of entry objects as in the spec\n"
	"                          ('-' reads standard input; repeatable, entries concatenate)\n"
	"      --feature NAME      start a new entry with this feature\n"
	"      --soname NAME       add a soname (alternatives: most preferred first) to the entry\n"
	"      --description TEXT  set the entry's description\n"
	"      --priority P        required | recommended | suggested\n"
	"Modes (default: replace the file's dlopen notes with the given entries):\n"
	"      --merge             keep the file's entries and append new ones\n"
	"      --remove            remove every dlopen note\n"
	"      --list              print the entries of each FILE as a table (--json: as JSON)\n"
	"      --check             validate the notes in each FILE; exit 1 if any is invalid\n"
	"      --discover          draft a manifest from soname-like strings in read-only data\n"
	"                          that are neither DT_NEEDED nor declared (a heuristic)\n"
	"      --record=TRACE -- COMMAND [ARG]...  run COMMAND with an rtld-audit module\n"
	"                          that appends each dlopen() and its caller to TRACE\n"
	"      --recorded=TRACE    for --discover/--check: what each FILE dlopen()ed in TRACE\n"
	"Packaging (the entries of all FILEs together):\n"
	"      --format F          for --list: table, json, jsonl (a line per file), sonames,\n"
	"                          features, rpm or deb\n"
	"      --only-feature L    for --list: only these features (comma-separated; '' = none)\n"
	"      --only-priority L   for --list: only these priorities (comma-separated)\n"
	"      --rpm-requires[=L]  rpm Requires: for the entries of these features (all without\n"
	"                          L); also --rpm-recommends, --rpm-suggests; they imply --list\n"
	"      --deb-map PATH      for --format=deb: soname-to-package lines (dpkg-query --search)\n"
	"      --rpm-generate K    be rpm's dependency generator for K (requires, recommends or\n"
	"                          suggests): file names on standard input, one dependency a line\n"
	"      --rpm-package NAME  for --rpm-generate: the subpackage being generated (%{name})\n"
	"      --rpm-features T    for --rpm-generate: SUBPACKAGE:FEATURE:LEVEL overrides (globs;\n"
	"                          LEVEL required, recommended, suggested or ignored)\n"
	"      --rpm-protocol P    for --rpm-generate: singlefile (default) or multifile (rpm 4.20)\n"
	"      --expect MANIFEST   for --check: print the differences from MANIFEST, exit 1 if any\n"
	"      --skip-non-elf      skip files that are not ELF, quietly\n"
	"      --member NAME       in ar archives, only this member (repeatable); by default\n"
	"                          every ELF member is read and edited\n"
	"Files:\n"
	"      --files-from LIST   also process the FILEs named in LIST, one per line\n"
	"                          ('-' reads standard input, as an rpm generator does)\n"
	"  -0, --null              names in LIST end with NUL bytes (find -print0)\n"
	"Output:\n"
	"  -o, --output PATH       write to PATH instead of rewriting FILE in place ('-':\n"
	"                          standard output); a device, FIFO, socket or directory is\n"
	"                          never replaced\n"
	"      --fsync             flush the result to disk before replacing the file\n"
	"  -v, --verbose           say what was done to each file, and where the note went\n"
	"                          (twice: also the byte ranges written)\n"
	"  -q, --quiet             print errors only\n"
	"      --version           print the version\n"
	"  -h, --help              print this help\n"
	"\n"
	"Exit status: 0 success, 1 bad input (some FILE failed), 2 bad usage.\n"
	"See dlnote-inject(1).\n";

static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	print_text(stderr, PROGRAM_NAME ": %s\n", msg);
	fprintf(stderr, "Try '" PROGRAM_NAME " --help' for more information.\n");
	return EXIT_USAGE;
}

static void report_err(const char *path, const struct err *e)
{
	print_text(stderr, PROGRAM_NAME ": %s: %s\n", path, e->msg);
}

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
			return err_set(e, EXIT_BAD_INPUT, "read error: %s", strerror(errno));
		if (n == 0)
			return b->oom ? err_set(e, EXIT_BAD_INPUT, "out of memory") : 0;
		if (b->len + (size_t)n > MANIFEST_MAX_BYTES)
			return err_set(e, EXIT_BAD_INPUT, "manifest larger than %u bytes", MANIFEST_MAX_BYTES);
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
		err_set(e, EXIT_BAD_INPUT, "%s", strerror(errno));
	} else if (fstat(fd, &st) || S_ISDIR(st.st_mode)) {
		err_set(e, EXIT_BAD_INPUT, "is a directory");
	} else {
		if (fd) {
			int fl = fcntl(fd, F_GETFL);
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		}
		if (read_bounded(fd, text, e) == 0 && memchr(text->p ? text->p : "", 0, text->len))
			err_set(e, EXIT_BAD_INPUT, "NUL byte in %s", what);
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
static int load(const char *path, const char *what, int (*parse)(const char *, size_t, void *, struct err *), void *out)
{
	struct buf text = { 0 };
	struct err e = { 0 };
	int r = read_text(path, what, &text, &e);

	if (r == 0)
		r = parse(text.p ? text.p : "", text.len, out, &e);
	buf_free(&text);
	if (r)
		report_err(strcmp(path, "-") == 0 ? "<stdin>" : path, &e);
	return r;
}

/* ---- entries from flags ---- */

struct flag_entry {
	struct entry_spec spec;
	size_t cap;                /* of spec.sonames */
	int open;
};

static int flush_flag_entry(struct flag_entry *f, struct entries *out)
{
	struct err e = { 0 };
	int r = 0;

	if (f->open && out && manifest_entry_from_spec(&f->spec, out, &e)) {
		print_text(stderr, PROGRAM_NAME ": %s\n", e.msg);
		r = -1;
	}
	free(f->spec.sonames);
	memset(f, 0, sizeof *f);
	return r;
}

static int set_once(const char **slot, const char *value, const char *flag)
{
	if (*slot) {
		fprintf(stderr, PROGRAM_NAME ": %s given twice for one entry (start another with --feature)\n", flag);
		return -1;
	}
	*slot = value;
	return 0;
}

/* ---- per file ---- */

static int open_input(const char *path, int *fd, struct stat *st, struct err *e)
{
	*fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (*fd < 0)
		return err_set(e, EXIT_BAD_INPUT, "%s", strerror(errno));
	if (fstat(*fd, st) || !S_ISREG(st->st_mode)) {
		err_set(e, EXIT_BAD_INPUT, "not a regular file");
		close(*fd);
		*fd = -1;
		return -1;
	}
	fcntl(*fd, F_SETFL, fcntl(*fd, F_GETFL) & ~O_NONBLOCK);
	return 0;
}

/* What a listing needs to know of the file its entries come from (for an archive: its first
 * ELF member). */
struct file_kind {
	int is64, object;
	unsigned machine;
};

static void file_kind_of(const struct elf *ef, struct file_kind *k)
{
	k->is64 = ef->is64;
	k->machine = ef->machine;
	k->object = ef->type == ET_REL_;
}

/* The table, JSON Lines and the rpm generator are printed file by file (an archive is one file:
 * its members' entries merged); every other format gathers all files and prints once. */
static int do_list(struct opts *o, const char *path, struct entries *es, const struct file_kind *k, int many,
		   struct err *e)
{
	struct listing one = { 0 };
	const char *suffix = pkgdeps_rpm_suffix(k->is64, k->machine);
	int per_file = o->rep.format == FORMAT_TABLE || o->rep.format == FORMAT_JSONL || o->rep.format == FORMAT_RPM_GENERATE;
	int r = 0;

	if (!per_file && report_listing_add(&o->listed, es, path, suffix, &o->rep))
		r = err_set(e, EXIT_BAD_INPUT, "out of memory");
	if (r == 0 && per_file && report_listing_add(&one, es, path, suffix, &o->rep))
		r = err_set(e, EXIT_BAD_INPUT, "out of memory");
	if (r == 0 && o->rep.format == FORMAT_TABLE && one.es.n) {
		if (many)
			print_text(stdout, "%s:\n", path);
		report_table(&one.es, stdout);
	}
	if (r == 0 && o->rep.format == FORMAT_JSONL)
		report_jsonl(&one.es, path, k->is64, k->machine, stdout);
	/* An object's notes are for the programs linked from it, not for the package shipping it
	 * (rpm's elfdeps also looks at executables and shared objects only). */
	if (r == 0 && o->rep.format == FORMAT_RPM_GENERATE && !k->object &&
	    pkgdeps_rpm_generate(&one.es, path, suffix, &o->rep.gen, stdout))
		r = err_set(e, EXIT_BAD_INPUT, "out of memory");
	report_listing_free(&one);
	return r;
}

static int do_check(struct opts *o, const char *path, const struct elf *ef, const struct scan *sc, struct err *e)
{
	struct buf report = { 0 };
	struct entries es = { 0 };
	size_t errors = scan_check(ef, sc, &report), i, start;
	long undeclared = 0;

	for (i = start = 0; i < report.len; i++) {
		if (report.p[i] != '\n')
			continue;
		if (!o->quiet || strncmp(report.p + start, "error", 5) == 0)
			print_text(stdout, "%s: %.*s\n", path, (int)(i - start), report.p + start);
		start = i + 1;
	}
	if (!errors) {
		struct err ignore;
		scan_entries(ef, sc, &es, &ignore);
		if (!o->quiet)
			print_text(stdout, "%s: ok (%zu dlopen entr%s)\n", path, es.n, es.n == 1 ? "y" : "ies");
		/* The lint first: the listing takes the entries over. */
		if (o->recorded_path)
			undeclared = trace_check(&o->trace, ef, path, &es, stdout, e);
		if (o->expect_path && undeclared >= 0 && report_listing_add(&o->listed, &es, path, "", NULL)) {
			manifest_free(&es);
			buf_free(&report);
			return err_set(e, EXIT_BAD_INPUT, "out of memory");
		}
	}
	manifest_free(&es);
	buf_free(&report);
	if (undeclared)
		return undeclared < 0 ? -1 : err_set(e, EXIT_BAD_INPUT, "%ld undeclared dlopen() dependenc%s in %s", undeclared,
						     undeclared == 1 ? "y" : "ies", o->recorded_path);
	return errors ? err_set(e, EXIT_BAD_INPUT, "%zu error%s in dlopen notes", errors, errors == 1 ? "" : "s") : 0;
}

static int do_discover(struct opts *o, const char *path, const struct elf *ef, const struct scan *sc, struct err *e)
{
	struct entries es = { 0 };
	int r = scan_entries(ef, sc, &es, e);

	if (r == 0)
		r = o->recorded_path ? trace_discover(&o->trace, ef, path, &es, &o->found, e)
				     : discover_file(ef, &es, path, &o->found, e);
	manifest_free(&es);
	return r;
}

/* The edit of one object as a plan (printed with -v, -vv); `label` names it in messages. */
static int plan_edit(struct opts *o, const char *label, const struct elf *ef, const struct scan *sc, struct plan *pl,
		     struct err *e)
{
	struct entries final = { 0 };
	struct buf note = { 0 };
	int r = -1;

	memset(pl, 0, sizeof *pl);
	/* Replace: exactly the given entries.  Merge: the file's, then the new ones not already
	 * there.  Remove: none. */
	if (o->mode == MODE_MERGE && scan_entries(ef, sc, &final, e)) {
		err_prefix(e, "cannot merge with the existing notes: ");
		goto out;
	}
	if ((o->mode == MODE_MERGE && manifest_merge(&final, &o->add)) ||
	    (o->mode == MODE_REPLACE && manifest_merge_all(&final, &o->add))) {
		err_set(e, EXIT_BAD_INPUT, "out of memory");
		goto out;
	}
	/* Objects: one COMDAT group per entry; merge keeps every group the object has. */
	if (ef->type == ET_REL_ ? layout_plan_rel(ef, sc, &final, o->mode == MODE_MERGE, pl, e) :
	    (note_encode(&final, ef->big, &note, e) || layout_plan(ef, sc, &note, pl, e)))
		goto out;
	r = 0;
	if (o->verbose) {
		print_text(stderr, PROGRAM_NAME ": %s: %s\n", label, pl->strategy);
		for (size_t i = 0, start = 0; i < pl->log.len; i++)   /* line by line: names come from the file */
			if (pl->log.p[i] == '\n') {
				print_text(stderr, "%.*s\n", (int)(i - start), pl->log.p + start);
				start = i + 1;
			}
	}
	if (o->verbose > 1) {
		/* -vv: the plan itself, as the writer will carry it out. */
		fprintf(stderr, "copy input bytes 0x0-0x%llx, then %zu patches, size 0x%llx:\n", (unsigned long long)pl->keep, pl->n,
			(unsigned long long)pl->out_size);
		for (size_t i = 0; i < pl->n; i++) {
			const struct patch *p = &pl->p[i];
			fprintf(stderr, "  0x%llx +0x%llx ", (unsigned long long)p->off, (unsigned long long)p->len);
			if (p->data)
				fprintf(stderr, "new bytes\n");
			else if (p->src == PATCH_ZERO)
				fprintf(stderr, "zeros\n");
			else
				fprintf(stderr, "copied from input offset 0x%llx\n", (unsigned long long)p->src);
		}
	}
out:
	buf_free(&note);
	manifest_free(&final);
	return r;
}

static int do_edit(struct opts *o, const char *path, int fd, const struct stat *st, const struct elf *ef,
		   const struct scan *sc, struct err *e)
{
	struct plan pl;
	int r = plan_edit(o, path, ef, sc, &pl, e);

	if (r == 0 && !(pl.unchanged && !o->output)) {
		if (strcmp(o->output ? o->output : "", "-") == 0)
			r = output_stream(fd, &pl, STDOUT_FILENO, e);
		else
			r = output_write(fd, st, &pl, o->output ? o->output : path, !o->output, &o->out, e);
	}
	layout_free(&pl);
	return r;
}

/* The first bytes of a file or member. */
static size_t magic_of(int fd, uint64_t base, uint64_t size, unsigned char m[8])
{
	ssize_t n = pread(fd, m, size < 8 ? (size_t)size : 8, (off_t)base);

	return n > 0 ? (size_t)n : 0;
}

static int is_elf(const unsigned char *m, size_t n)
{
	return n >= 4 && memcmp(m, "\177ELF", 4) == 0;
}

/* ---- archives: every ELF member, read in place ---- */

struct ar_ctx {
	struct opts *o;
	const char *path;
	char label[PATH_MAX + ARCHIVE_MAX_NAME + 3];   /* "PATH[MEMBER]" */
	struct entries merged;                          /* --list: every member's entries */
	struct file_kind kind;                          /* of the first ELF member */
	int have_kind;
};

/* --member narrows reading and writing to the named members. */
static int member_selected(struct opts *o, const char *name)
{
	int hit = o->nmembers == 0;

	for (size_t i = 0; i < o->nmembers; i++)
		if (strcmp(o->members[i], name) == 0)
			hit = o->member_used[i] = 1;
	return hit;
}

/* Open an ELF member as a window; 0 with *skip set for members that are kept as they are. */
static int open_member(struct ar_ctx *c, const struct archive *ar, const struct archive_member *m, struct elf *ef,
		       int *close_fd, int *skip, struct err *e)
{
	unsigned char magic[8];
	const char *kind;
	uint64_t base;
	size_t n;
	int fd;

	snprintf(c->label, sizeof c->label, "%s[%s]", c->path, m->name);
	*skip = 1;
	if (!member_selected(c->o, m->name))
		return 0;
	if (m->mem) {
		fd = -1, base = 0, *close_fd = 0;
		n = m->size < 8 ? (size_t)m->size : 8;
		memcpy(magic, m->mem, n);
	} else if (archive_member_fd(ar, m, &fd, &base, close_fd, e)) {
		return -1;
	} else {
		n = magic_of(fd, base, m->size, magic);
	}
	if (!is_elf(magic, n)) {
		kind = elf_foreign_kind(magic, n);
		if (c->o->verbose)
			fprintf(stderr, PROGRAM_NAME ": %s: %s, %s\n", c->label, kind ? kind : "not ELF",
				c->o->mode == MODE_LIST || c->o->mode == MODE_CHECK || c->o->mode == MODE_DISCOVER ? "skipped"
				: "kept untouched");
		if (*close_fd)
			close(fd);
		return 0;
	}
	*skip = 0;
	if (m->mem ? elf_open_mem(ef, m->mem, c->label, m->size, e) : elf_open_at(ef, fd, c->label, base, m->size, e)) {
		if (*close_fd)
			close(fd);
		return -1;
	}
	return 0;
}

static void close_member(struct elf *ef, int close_fd)
{
	int fd = ef->fd;

	elf_close(ef);
	if (close_fd)
		close(fd);
}

/* archive_write's and archive_changes' question: this member's plan. */
static int plan_member(void *ctx, const struct archive *ar, const struct archive_member *m, struct plan *pl, struct err *e)
{
	struct ar_ctx *c = ctx;
	struct elf ef;
	struct scan sc;
	int close_fd, skip, r;

	if (open_member(c, ar, m, &ef, &close_fd, &skip, e))
		return -1;
	if (skip)
		return 0;
	r = scan_file(&ef, &sc, e);
	if (r == 0) {
		r = plan_edit(c->o, c->label, &ef, &sc, pl, e);
		scan_free(&sc);
	}
	close_member(&ef, close_fd);
	return r ? -1 : 1;
}

struct ar_write { struct archive *ar; struct ar_ctx *c; char member[ARCHIVE_MAX_NAME + 64]; };

static int fill_archive(void *ctx, int in, int out, struct err *e)
{
	struct ar_write *w = ctx;

	(void)in;
	return archive_write(w->ar, out, plan_member, w->c, w->member, sizeof w->member, e);
}

static int edit_archive(struct ar_ctx *c, struct archive *ar, int fd, const struct stat *st, struct err *e)
{
	struct ar_write w = { ar, c, "" };
	struct opts *o = c->o;
	int r = 1;

	if (ar->thin)
		return err_set(e, EXIT_BAD_INPUT, "thin archive: its members are other files; edit those files instead "
			       "(writing thin archives is not supported)");
	/* Idempotence: nothing is written, not even the mtime, when no member would change. */
	if (!o->output) {
		int verbose = o->verbose;
		o->verbose = 0;          /* the plans are printed once, when written */
		r = archive_changes(ar, plan_member, c, w.member, sizeof w.member, e);
		o->verbose = verbose;
	}
	if (r > 0 && o->output && strcmp(o->output, "-") == 0)
		r = output_stream_fill(fd, fill_archive, &w, STDOUT_FILENO, e);
	else if (r > 0)
		r = output_replace(fd, st, o->output ? o->output : c->path, !o->output, &o->out, fill_archive, &w, e);
	if (r && w.member[0])
		snprintf(c->label, sizeof c->label, "%s[%s]", c->path, w.member);
	else if (r)
		snprintf(c->label, sizeof c->label, "%s", c->path);
	return r < 0 ? -1 : 0;
}

/* The read-only modes on one member; --list gathers the entries of every member. */
static int read_member(struct ar_ctx *c, struct archive *ar, const struct archive_member *m, struct err *e)
{
	struct entries es = { 0 };
	struct elf ef;
	struct scan sc;
	int close_fd, skip, r;

	if (open_member(c, ar, m, &ef, &close_fd, &skip, e))
		return -1;
	if (skip)
		return 0;
	r = scan_file(&ef, &sc, e);
	if (r == 0) {
		if (c->o->mode == MODE_LIST) {
			r = scan_entries(&ef, &sc, &es, e);
			if (r == 0 && manifest_merge(&c->merged, &es))
				r = err_set(e, EXIT_BAD_INPUT, "out of memory");
			if (!c->have_kind) {
				file_kind_of(&ef, &c->kind);
				c->have_kind = 1;
			}
			manifest_free(&es);
		} else {
			r = c->o->mode == MODE_CHECK ? do_check(c->o, c->label, &ef, &sc, e) : do_discover(c->o, c->label, &ef, &sc, e);
		}
		scan_free(&sc);
	}
	close_member(&ef, close_fd);
	return r;
}

static int process_archive(struct opts *o, const char *path, int fd, const struct stat *st, int many)
{
	struct ar_ctx c = { .o = o, .path = path };
	struct archive ar;
	struct archive_member m;
	struct err e = { 0 };
	int status = EXIT_OK, r;

	snprintf(c.label, sizeof c.label, "%s", path);
	if (o->nmembers)
		memset(o->member_used, 0, o->nmembers);
	if (archive_open(&ar, fd, path, (uint64_t)st->st_size, &e) == 0 && o->mode != MODE_LIST && o->mode != MODE_CHECK &&
	    o->mode != MODE_DISCOVER) {
		if (edit_archive(&c, &ar, fd, st, &e))
			status = e.status ? e.status : EXIT_BAD_INPUT;
	} else if (!e.msg[0]) {
		/* A damaged member stops the walk; a member whose notes are wrong does not. */
		while ((r = archive_next(&ar, &m, &e)) != 0) {
			if (r > 0 && m.kind == AR_INDEX)
				r = archive_check_index(&ar, &m, &e) ? -1 : 1;
			snprintf(c.label, sizeof c.label, "%s[", path);
			archive_label(&m, c.label + strlen(c.label), sizeof c.label - strlen(c.label) - 1);
			strcat(c.label, "]");
			if (r < 0)
				break;
			if (m.kind == AR_MEMBER && read_member(&c, &ar, &m, &e)) {
				report_err(c.label, &e);
				status = e.status ? e.status : EXIT_BAD_INPUT;
				memset(&e, 0, sizeof e);
			}
		}
		if (r == 0 && o->mode == MODE_LIST && do_list(o, path, &c.merged, &c.kind, many, &e))
			c.label[0] = '\0';
		else if (r == 0)
			memset(&e, 0, sizeof e);
	}
	manifest_free(&c.merged);
	if (e.msg[0]) {
		report_err(c.label[0] ? c.label : path, &e);
		status = e.status ? e.status : EXIT_BAD_INPUT;
	}
	for (size_t i = 0; i < o->nmembers && status == EXIT_OK; i++)
		if (!o->member_used[i]) {
			fprintf(stderr, PROGRAM_NAME ": %s: no member named '%s'\n", path, o->members[i]);
			status = EXIT_BAD_INPUT;
		}
	return status;
}

/* many: several FILEs (or a list), so the table names each one. */
static int process(struct opts *o, const char *path, int many)
{
	struct err e = { 0 };
	struct stat st;
	struct elf ef;
	struct scan sc;
	unsigned char magic[8];
	size_t n;
	int fd, r = -1;

	if (open_input(path, &fd, &st, &e))
		goto fail;
	n = magic_of(fd, 0, (uint64_t)st.st_size, magic);
	if (archive_is(magic, n)) {
		r = process_archive(o, path, fd, &st, many);
		close(fd);
		return r;
	}
	if (o->skip_non_elf && !is_elf(magic, n)) {
		close(fd);
		return 0;
	}
	if (o->nmembers) {
		close(fd);
		err_set(&e, EXIT_BAD_INPUT, "--member is given but this is not an archive");
		goto fail;
	}
	if (elf_open(&ef, fd, path, (uint64_t)st.st_size, &e)) {
		close(fd);
		goto fail;
	}
	if (scan_file(&ef, &sc, &e) == 0) {
		struct entries es = { 0 };
		switch (o->mode) {
		case MODE_LIST:
			r = scan_entries(&ef, &sc, &es, &e);
			if (r == 0) {
				struct file_kind k;
				file_kind_of(&ef, &k);
				r = do_list(o, path, &es, &k, many, &e);
			}
			manifest_free(&es);
			break;
		case MODE_CHECK:
			r = do_check(o, path, &ef, &sc, &e);
			break;
		case MODE_DISCOVER:
			r = do_discover(o, path, &ef, &sc, &e);
			break;
		default:
			r = do_edit(o, path, fd, &st, &ef, &sc, &e);
		}
		scan_free(&sc);
	}
	elf_close(&ef);
	close(fd);
	if (r == 0)
		return 0;
fail:
	report_err(path, &e);
	return e.status ? e.status : EXIT_BAD_INPUT;
}

/* --files-from: each name is processed as it is read, so the list may be of any length.  A
 * name longer than PATH_MAX is an error for that name only; empty names are skipped. */
static int process_list(struct opts *o)
{
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
			print_text(stderr, PROGRAM_NAME ": %s: name %zu is longer than %d bytes\n", list, lineno, PATH_MAX - 1);
			status = EXIT_BAD_INPUT;
		} else if (len) {
			name[len] = '\0';
			s = process(o, name, 1);
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

/* ---- options ---- */

enum {
	OPT_FEATURE = 256, OPT_SONAME, OPT_DESCRIPTION, OPT_PRIORITY, OPT_MERGE, OPT_REMOVE, OPT_LIST, OPT_JSON,
	OPT_CHECK, OPT_VERSION, OPT_FSYNC, OPT_DISCOVER, OPT_FORMAT, OPT_ONLY_FEATURE, OPT_ONLY_PRIORITY,
	OPT_RPM_SUGGESTS, OPT_RPM_RECOMMENDS, OPT_RPM_REQUIRES, OPT_DEB_MAP, OPT_EXPECT, OPT_SKIP_NON_ELF,
	OPT_FILES_FROM, OPT_RECORD, OPT_RECORDED, OPT_MEMBER,
	OPT_RPM_GENERATE, OPT_RPM_PACKAGE, OPT_RPM_FEATURES, OPT_RPM_PROTOCOL,
};

static const struct option longopts[] = {
	{ "manifest", required_argument, NULL, 'm' },
	{ "feature", required_argument, NULL, OPT_FEATURE },
	{ "soname", required_argument, NULL, OPT_SONAME },
	{ "description", required_argument, NULL, OPT_DESCRIPTION },
	{ "priority", required_argument, NULL, OPT_PRIORITY },
	{ "merge", no_argument, NULL, OPT_MERGE },
	{ "remove", no_argument, NULL, OPT_REMOVE },
	{ "list", no_argument, NULL, OPT_LIST },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "check", no_argument, NULL, OPT_CHECK },
	{ "discover", no_argument, NULL, OPT_DISCOVER },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "recorded", required_argument, NULL, OPT_RECORDED },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "only-feature", required_argument, NULL, OPT_ONLY_FEATURE },
	{ "only-priority", required_argument, NULL, OPT_ONLY_PRIORITY },
	{ "rpm-suggests", optional_argument, NULL, OPT_RPM_SUGGESTS },
	{ "rpm-recommends", optional_argument, NULL, OPT_RPM_RECOMMENDS },
	{ "rpm-requires", optional_argument, NULL, OPT_RPM_REQUIRES },
	{ "deb-map", required_argument, NULL, OPT_DEB_MAP },
	{ "rpm-generate", required_argument, NULL, OPT_RPM_GENERATE },
	{ "rpm-package", required_argument, NULL, OPT_RPM_PACKAGE },
	{ "rpm-features", required_argument, NULL, OPT_RPM_FEATURES },
	{ "rpm-protocol", required_argument, NULL, OPT_RPM_PROTOCOL },
	{ "expect", required_argument, NULL, OPT_EXPECT },
	{ "skip-non-elf", no_argument, NULL, OPT_SKIP_NON_ELF },
	{ "files-from", required_argument, NULL, OPT_FILES_FROM },
	{ "member", required_argument, NULL, OPT_MEMBER },
	{ "null", no_argument, NULL, '0' },
	{ "output", required_argument, NULL, 'o' },
	{ "fsync", no_argument, NULL, OPT_FSYNC },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static const char *mode_name(enum mode m)
{
	static const char *const names[] = { "replace", "--merge", "--remove", "--list", "--check", "--discover", "--record" };
	return names[m];
}

static int set_mode(struct opts *o, enum mode m)
{
	if (o->mode_set && o->mode != m)
		return usage_error("%s cannot be combined with another mode", mode_name(m));
	o->mode = m;
	o->mode_set = 1;
	return 0;
}

/* --json, --format and --rpm-*: one format per run. */
static int set_format(struct opts *o, enum report_format format, const char *opt)
{
	if (o->format_set && o->rep.format != format)
		return usage_error("%s cannot be combined with %s", opt, o->format_opt);
	if (!o->format_set)
		o->format_opt = opt;
	o->rep.format = format;
	o->format_set = 1;
	o->list_only = 1;
	return 0;
}

static int add_ranks(struct opts *o, const char *list)
{
	const char *p = list, *end;
	int k;

	for (;;) {
		end = strchr(p, ',');
		end = end ? end : p + strlen(p);
		k = deps_rank_parse(p, (size_t)(end - p));
		if (k < 0)
			return usage_error("--only-priority: '%.*s' is not required, recommended or suggested", (int)(end - p), p);
		o->rep.only_rank |= 1u << k;
		if (!*end)
			return 0;
		p = end + 1;
	}
}

/* --rpm-requires[=FEATURES] and its kin, as in dlopen-notes.py: rpm lines with that tag for the
 * entries of these features, whatever their own priority.  They imply --list. */
static int add_rpm_tag(struct opts *o, int rank, const char *opt, const char *list)
{
	if (set_format(o, FORMAT_RPM, opt) || set_mode(o, MODE_LIST))
		return -1;
	if (deps_namelist_add(&o->rep.rpm_tag[rank], list))
		return usage_error("%s", "out of memory");
	return 0;
}

/* --rpm-generate=KIND and the options only it takes (each sets gen_opt for usage errors). */
static int rpm_generator_opt(struct opts *o, int c, const char *arg)
{
	struct rpm_generator *g = &o->rep.gen;
	struct err e = { 0 };
	int kind;

	if (c != OPT_RPM_GENERATE) {
		if (!o->gen_opt)
			o->gen_opt = c == OPT_RPM_PACKAGE ? "--rpm-package" : c == OPT_RPM_FEATURES ? "--rpm-features" : "--rpm-protocol";
	} else if ((kind = pkgdeps_kind_parse(arg)) < 0) {
		return usage_error("--rpm-generate: '%s' is not requires, recommends or suggests", arg);
	} else if (o->generate && kind != g->kind) {
		return usage_error("%s", "--rpm-generate: one kind of dependency per run");
	} else {
		g->kind = kind;
		o->generate = 1;
		if (set_format(o, FORMAT_RPM_GENERATE, "--rpm-generate") || set_mode(o, MODE_LIST))
			return -1;
	}
	if (c == OPT_RPM_PACKAGE)
		g->package = arg;
	if (c == OPT_RPM_FEATURES && pkgdeps_overrides_parse(arg, &g->over, &e))
		return usage_error("--rpm-features: %s", e.msg);
	if (c == OPT_RPM_PROTOCOL) {
		if (strcmp(arg, "multifile") != 0 && strcmp(arg, "singlefile") != 0)
			return usage_error("--rpm-protocol: '%s' is not singlefile or multifile", arg);
		g->multifile = strcmp(arg, "multifile") == 0;
	}
	return 0;
}

static int push_soname(struct flag_entry *f, const char *name)
{
	const char **v = xgrow(f->spec.sonames, &f->cap, f->spec.nsonames, sizeof *v);

	if (!v)
		return -1;
	v[f->spec.nsonames++] = name;
	f->spec.sonames = v;
	f->open = 1;
	return 0;
}

/* Returns -1 to continue, else an exit status; the entry being built stays in *cur. */
static int parse_loop(int argc, char **argv, struct opts *o, struct flag_entry *cur, struct entries *flagged)
{
	int c, bad = 0;

	opterr = 0;               /* our own one-line messages */
	while ((c = getopt_long(argc, argv, ":m:o:vqh0", longopts, NULL)) != -1 && !bad) {
		if ((c == 'm' || c == OPT_EXPECT || c == OPT_DEB_MAP || c == OPT_FILES_FROM) && strcmp(optarg, "-") == 0) {
			const char *opt = c == 'm' ? "--manifest" : c == OPT_EXPECT ? "--expect" :
					  c == OPT_DEB_MAP ? "--deb-map" : "--files-from";
			if (o->stdin_user) {
				bad = usage_error("%s - and %s - cannot both read standard input", o->stdin_user, opt);
				continue;
			}
			o->stdin_user = opt;
		}
		switch (c) {
		case 'm': {
			char **v = xgrow(o->manifests, &o->manifests_cap, o->nmanifests, sizeof *v);
			if (!v) {
				bad = usage_error("%s", "out of memory");
				break;
			}
			o->manifests = v;
			o->manifests[o->nmanifests++] = optarg;
			break;
		}
		case OPT_FEATURE:
			bad = flush_flag_entry(cur, flagged);
			cur->open = 1;
			cur->spec.feature = optarg;
			break;
		case OPT_SONAME:
			bad = push_soname(cur, optarg);
			break;
		case OPT_DESCRIPTION:
			cur->open = 1;
			bad = set_once(&cur->spec.description, optarg, "--description");
			break;
		case OPT_PRIORITY:
			cur->open = 1;
			bad = set_once(&cur->spec.priority, optarg, "--priority");
			break;
		case OPT_MERGE: bad = set_mode(o, MODE_MERGE); break;
		case OPT_REMOVE: bad = set_mode(o, MODE_REMOVE); break;
		case OPT_LIST: bad = set_mode(o, MODE_LIST); break;
		case OPT_CHECK: bad = set_mode(o, MODE_CHECK); break;
		case OPT_DISCOVER: bad = set_mode(o, MODE_DISCOVER); break;
		case OPT_RECORD: o->record_path = optarg; bad = set_mode(o, MODE_RECORD); break;
		case OPT_RECORDED: o->recorded_path = optarg; break;
		case OPT_JSON: bad = set_format(o, FORMAT_JSON, "--json"); break;
		case OPT_FORMAT:
			if (report_format_parse(optarg) < 0)
				return usage_error("--format: unknown format '%s' (table, json, jsonl, sonames, features, rpm or deb)", optarg);
			bad = set_format(o, (enum report_format)report_format_parse(optarg), "--format");
			break;
		case OPT_ONLY_FEATURE:
			o->list_only = 1;
			if (deps_namelist_add(&o->rep.only_feature, optarg))
				bad = usage_error("%s", "out of memory");
			break;
		case OPT_ONLY_PRIORITY: o->list_only = 1; bad = add_ranks(o, optarg); break;
		case OPT_RPM_SUGGESTS: bad = add_rpm_tag(o, RANK_SUGGESTED, "--rpm-suggests", optarg); break;
		case OPT_RPM_RECOMMENDS: bad = add_rpm_tag(o, RANK_RECOMMENDED, "--rpm-recommends", optarg); break;
		case OPT_RPM_REQUIRES: bad = add_rpm_tag(o, RANK_REQUIRED, "--rpm-requires", optarg); break;
		case OPT_DEB_MAP: o->rep.deb_map_path = optarg; break;
		case OPT_RPM_GENERATE:
		case OPT_RPM_PACKAGE:
		case OPT_RPM_FEATURES:
		case OPT_RPM_PROTOCOL: bad = rpm_generator_opt(o, c, optarg); break;
		case OPT_EXPECT: o->expect_path = optarg; break;
		case OPT_SKIP_NON_ELF: o->skip_non_elf = 1; break;
		case OPT_FILES_FROM:
			if (o->files_from) {
				bad = usage_error("%s", "--files-from given twice");
				break;
			}
			o->files_from = optarg;
			break;
		case OPT_MEMBER: {
			const char **v = xrealloc(o->members, o->nmembers + 1, sizeof *v);
			unsigned char *u = v ? xrealloc(o->member_used, o->nmembers + 1, 1) : NULL;
			if (v)
				o->members = v;
			if (u)
				o->member_used = u;
			if (!v || !u) {
				bad = usage_error("%s", "out of memory");
				break;
			}
			o->members[o->nmembers++] = optarg;
			break;
		}
		case '0': o->null_sep = 1; break;
		case 'o': o->output = optarg; break;
		case OPT_FSYNC: o->out.fsync = 1; break;
		case 'v': o->verbose++; break;
		case 'q': o->quiet = 1; break;
		case OPT_VERSION:
			printf(PROGRAM_NAME " " VERSION "\n");
			return EXIT_OK;
		case 'h':
			fputs(usage_text, stdout);
			return EXIT_OK;
		case ':':
			return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default:
			return usage_error("unrecognized option '%s'", argv[optind - 1]);
		}
	}
	return bad ? EXIT_USAGE : -1;
}

static int parse_args(int argc, char **argv, struct opts *o, struct entries *flagged)
{
	struct flag_entry cur = { 0 };
	int r = parse_loop(argc, argv, o, &cur, flagged);

	if (flush_flag_entry(&cur, r < 0 ? flagged : NULL) && r < 0)
		r = EXIT_USAGE;
	return r;
}

static int check_usage(struct opts *o, int nfiles)
{
	int edits = o->mode == MODE_REPLACE || o->mode == MODE_MERGE;

	if (o->mode == MODE_RECORD)
		return nfiles ? -1 : usage_error("%s", "--record needs a COMMAND (after '--')");
	if (o->recorded_path && o->mode != MODE_CHECK && o->mode != MODE_DISCOVER)
		return usage_error("%s", "--recorded is only for --check and --discover");
	if (o->gen_opt && !o->generate)
		return usage_error("%s is only for --rpm-generate", o->gen_opt);
	/* rpm hands a generator the file names on standard input. */
	if (o->generate && nfiles == 0 && !o->files_from) {
		if (o->stdin_user)
			return usage_error("--rpm-generate reads the file names on standard input: %s - cannot", o->stdin_user);
		o->files_from = "-";
	}
	if (nfiles == 0 && !o->files_from)
		return usage_error("%s", "no FILE given (name them, or give --files-from)");
	if (o->output && (nfiles > 1 || o->files_from))
		return usage_error("%s", "-o/--output takes exactly one FILE");
	if (o->null_sep && !o->files_from)
		return usage_error("%s", "-0/--null is only for --files-from");
	if (o->output && !edits && o->mode != MODE_REMOVE)
		return usage_error("-o/--output cannot be used with %s", mode_name(o->mode));
	if (o->list_only && o->mode != MODE_LIST)
		return usage_error("%s is only for --list", o->format_opt ? o->format_opt
				   : o->rep.only_feature.given ? "--only-feature" : "--only-priority");
	if (o->rep.deb_map_path && (o->mode != MODE_LIST || o->rep.format != FORMAT_DEB))
		return usage_error("%s", "--deb-map is only for --list --format=deb");
	if (o->mode == MODE_LIST && o->rep.format == FORMAT_DEB && !o->rep.deb_map_path)
		return usage_error("%s", "--format=deb needs --deb-map (a soname to package map: see dlnote-inject(1))");
	if (o->expect_path && o->mode != MODE_CHECK)
		return usage_error("%s", "--expect is only for --check");
	/* A manifest may declare no entry ("[]"): replacing with it removes the notes. */
	if (edits && o->add.n == 0 && o->nmanifests == 0)
		return usage_error("%s", "no entries: give --manifest or --soname (or --remove, --list, --check)");
	if (!edits && o->add.n)
		return usage_error("entries cannot be given with %s", mode_name(o->mode));
	return -1;
}

/* --recorded: the trace, read once before the files. */
static int load_trace(struct opts *o)
{
	struct err e = { 0 };

	if (trace_load(o->recorded_path, &o->trace, &e)) {
		report_err(o->recorded_path, &e);
		return -1;
	}
	if (o->trace.unauditable && !o->quiet)
		fprintf(stderr, PROGRAM_NAME ": %s: %zu program%s could not be audited: what %s dlopen()ed is missing\n",
			o->recorded_path, o->trace.unauditable, o->trace.unauditable == 1 ? "" : "s",
			o->trace.unauditable == 1 ? "it" : "they");
	return 0;
}

/* What is printed once for all files: the gathered formats, the lint, the discovery draft.
 * `failed`: a FILE could not be read. */
static int finish(struct opts *o, int failed)
{
	size_t diffs;

	if (o->mode == MODE_LIST)
		return report_list(&o->listed, &o->rep, o->quiet, stdout);
	if (o->mode == MODE_CHECK && o->expect_path) {
		diffs = report_lint(&o->expect, o->expect_path, &o->listed, stdout);
		if (!diffs)
			return EXIT_OK;
		print_text(stderr, PROGRAM_NAME ": %s: %zu difference%s between the declared and the found dlopen entries\n",
			o->expect_path, diffs, diffs == 1 ? "" : "s");
		return EXIT_BAD_INPUT;
	}
	/* A draft that silently misses a file would be taken for the whole story: nothing then. */
	if (o->mode == MODE_DISCOVER && !failed) {
		discover_finish(&o->found);
		report_draft(&o->found, stdout);
		if (!o->quiet && o->recorded_path)
			fprintf(stderr, PROGRAM_NAME ": %s: %zu undeclared dlopen() dependenc%s recorded; describe each feature\n",
				o->recorded_path, o->found.n, o->found.n == 1 ? "y" : "ies");
		else if (!o->quiet)
			fprintf(stderr, PROGRAM_NAME ": --discover is a heuristic: %zu soname-like string%s in read-only data, "
				"neither DT_NEEDED nor declared; review the draft before using it\n",
				o->found.n, o->found.n == 1 ? "" : "s");
	}
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct entries flagged = { 0 };
	int status = EXIT_OK, r, i;

	/* Never die from a signal: a closed pipe or a file-size limit become write errors. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	memset(&o, 0, sizeof o);
	r = parse_args(argc, argv, &o, &flagged);
	for (size_t k = 0; r < 0 && k < o.nmanifests; k++)
		if (load(o.manifests[k], "manifest", parse_manifest, &o.add))
			r = EXIT_BAD_INPUT;
	if (r < 0) {
		if (manifest_merge_all(&o.add, &flagged))
			r = EXIT_BAD_INPUT;
	}
	if (r < 0)
		r = check_usage(&o, argc - optind);
	/* Read after the usage checks, so that a usage error is reported as one. */
	if (r < 0 && ((o.expect_path && load(o.expect_path, "manifest", parse_manifest, &o.expect)) ||
		      (o.rep.deb_map_path && load(o.rep.deb_map_path, "map", parse_deb_map, &o.rep.deb_map))))
		r = EXIT_BAD_INPUT;
	if (r < 0 && o.mode == MODE_RECORD)
		r = record_run(o.record_path, argv + optind);
	if (r < 0 && o.recorded_path && load_trace(&o))
		r = EXIT_BAD_INPUT;
	if (r < 0) {
		for (i = optind; i < argc; i++) {
			int s = process(&o, argv[i], o.files_from || argc - optind > 1);
			if (s > status)
				status = s;
		}
		if (o.files_from && (r = process_list(&o)) > status)
			status = r;
		r = finish(&o, status != EXIT_OK);
		if (r > status)
			status = r;
		if (fflush(stdout) || ferror(stdout)) {
			fprintf(stderr, PROGRAM_NAME ": standard output: %s\n", strerror(errno));
			status = EXIT_BAD_INPUT;
		}
		r = status;
	}
	manifest_free(&flagged);
	free(o.manifests);
	free(o.members);
	free(o.member_used);
	manifest_free(&o.add);
	manifest_free(&o.expect);
	report_listing_free(&o.listed);
	report_opts_free(&o.rep);
	discover_free(&o.found);
	trace_free(&o.trace);
	return r;
}
