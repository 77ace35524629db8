/* SPDX-License-Identifier: MIT */
/* members.c - archives: every ELF member read in place as a window of the file; edits written
 * by streaming the archive (archive_write.c), members selected with --member. */
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
#include "../report/report.h"

/* ---- archives: every ELF member, read in place ---- */

struct ar_ctx {
	struct run *run;     /* its settings: run->o */
	unsigned char *used; /* used[i]: --member o->members[i] was found in this archive */
	const char *path;
	char label[PATH_MAX + ARCHIVE_MAX_NAME + 3]; /* "PATH[MEMBER]" */
	struct entries merged;                       /* --list: every member's entries */
	struct file_kind kind;                       /* of the first ELF member */
	int have_kind;
	struct travel travel; /* --check: where the entries travel */
	struct said said;     /* an edit: what members drop or replace, said once it is written */
	/* --check without -v: each member's error and warning lines, "TEXT\tMEMBER\n", printed
	 * once per distinct TEXT at the end (gathered_lines); how many ELF members were checked,
	 * and how many of them had errors */
	struct buf lines;
	size_t checked, failed;
	/* the manifest's entries that members' code declares too, and those members
	 * ("NTH\tMEMBER\n"): one line for the archive */
	struct entries repeated;
	struct buf repeat_members;
	uint64_t said_upto; /* the header of the last member whose plan went into `said` */
};

/* --member narrows reading and writing to the named members. */
static int member_selected(struct ar_ctx *c, const char *name)
{
	int hit = c->run->o.nmembers == 0;

	for (size_t i = 0; i < c->run->o.nmembers; i++)
		if (strcmp(c->run->o.members[i], name) == 0)
			hit = c->used[i] = 1;
	return hit;
}

/* The name of what an error or message is about: "PATH[MEMBER]", or "PATH" (member NULL). */
static void set_label(struct ar_ctx *c, const char *member)
{
	if (member)
		snprintf(c->label, sizeof c->label, "%s[%s]", c->path, member);
	else
		snprintf(c->label, sizeof c->label, "%s", c->path);
}

/* Open an ELF member as a window; 0 with *skip set for members that are kept as they are. */
static int open_member(struct ar_ctx *c, const struct archive *ar, const struct archive_member *m,
		       struct elf *ef, struct scan *sc, int *close_fd, int *skip, struct err *e)
{
	unsigned char magic[8];
	const char *kind;
	uint64_t base;
	size_t n;
	int fd;

	set_label(c, m->name);
	*skip = 1;
	if (!member_selected(c, m->name))
		return 0;
	if (m->mem) {
		fd = -1, base = 0, *close_fd = 0;
		n = m->size < 8 ? (size_t)m->size : 8;
		memcpy(magic, m->mem, n);
	} else if (archive_member_fd(ar, m, &fd, &base, close_fd, e)) {
		return -1;
	} else if (m->head_len) {
		n = m->head_len < 8 ? (size_t)m->head_len : 8;
		memcpy(magic, m->head, n);
	} else {
		n = magic_read(fd, base, m->size, magic);
	}
	if (!magic_is_elf(magic, n)) {
		kind = magic_foreign_kind(magic, n);
		if (c->run->o.mode == MODE_CHECK)
			travel_foreign(&c->travel, m, kind);
		/* A program that takes only such members would get no entry: refused, not skipped.
		 */
		if (kind && mode_takes_entries(c->run->o.mode) &&
		    (c->run->o.mode == MODE_MERGE || c->run->o.add.n)) {
			if (*close_fd)
				close(fd);
			return err_set(
				e,
				"%s: it cannot carry a note, and a program that takes this member "
				"would not get the entries; build it with -fno-lto, or compile the "
				"entries in with "
				"--header (see dlnote-inject(1))",
				kind);
		}
		if (c->run->o.verbose)
			fprintf(stderr, PROGRAM_NAME ": %s: %s, %s\n", c->label,
				kind ? kind : "not ELF",
				mode_edits(c->run->o.mode) ? "kept untouched" : "skipped");
		if (*close_fd)
			close(fd);
		return 0;
	}
	*skip = 0;
	if (m->mem ? elf_open_mem(ef, m->mem, c->label, m->size, e)
		   : elf_open_at_head(ef, fd, c->label, base, m->size, m->head, m->head_len, e)) {
		if (*close_fd)
			close(fd);
		return -1;
	}
	if (scan_file(ef, sc, e)) {
		elf_close(ef);
		if (*close_fd)
			close(fd);
		return -1;
	}
	return 0;
}

static void close_member(struct elf *ef, struct scan *sc, int close_fd)
{
	int fd = ef->fd;

	scan_free(sc);
	elf_close(ef);
	if (close_fd)
		close(fd);
}

/* archive_write's and archive_changes' question: this member's plan. */
static int plan_member(void *ctx, const struct archive *ar, const struct archive_member *m,
		       struct plan *pl, struct err *e)
{
	struct ar_ctx *c = ctx;
	struct elf ef;
	struct scan sc;
	int close_fd, skip, r;

	(void)ar;
	r = open_member(c, ar, m, &ef, &sc, &close_fd, &skip, e);
	if (r == 0 && !skip) {
		/* Said once, by the plans that are written; a question (quiet) says nothing.  A
		 * member at or before the last one said starts a new write pass (archive_write
		 * writes again with a 64-bit index): what the first pass said goes. */
		if (!pl->quiet && c->said_upto >= m->hdr)
			action_said_clear(&c->said);
		if (!pl->quiet)
			c->said_upto = m->hdr;
		r = action_plan_edit(c->run, c->label, &ef, &sc, pl, pl->quiet ? NULL : &c->said,
				     e);
		close_member(&ef, &sc, close_fd);
	}
	return r ? -1 : !skip;
}

struct ar_write {
	struct archive *ar;
	struct ar_ctx *c;
	char member[ARCHIVE_MAX_NAME + 64];
};

static int fill_archive(void *ctx, int in, int out, struct err *e)
{
	struct ar_write *w = ctx;

	(void)in;
	return archive_write(w->ar, out, plan_member, w->c, w->member, sizeof w->member, e);
}

static int edit_archive(struct ar_ctx *c, struct archive *ar, int fd, const struct stat *st,
			struct err *e)
{
	struct ar_write w = {ar, c, ""};
	const struct opts *o = &c->run->o;
	int r = 1, unchanged = 0;

	if (ar->thin)
		return err_set(
			e, "thin archive: its members are other files; edit those files instead "
			   "(writing thin archives is not supported)");
	/* Idempotence: nothing is written, not even the mtime, when no member would change. */
	if (!o->output)
		r = archive_changes(ar, plan_member, c, w.member, sizeof w.member, e);
	unchanged = r == 0;
	if (r > 0 && o->output && strcmp(o->output, "-") == 0)
		r = output_stream_fill(fd, fill_archive, &w, STDOUT_FILENO, e);
	else if (r > 0)
		r = output_replace(fd, st, o->output ? o->output : c->path, !o->output, &o->out,
				   fill_archive, &w, e);
	if (r == 0)
		action_said(c->run, c->path, &c->said, 1);
	if (r == 0 && unchanged && o->verbose)
		fprintf(stderr,
			PROGRAM_NAME ": %s: unchanged: every member already holds exactly these "
				     "entries; nothing to write\n",
			c->path);
	if (r == 0 && ar->widened && o->verbose)
		fprintf(stderr,
			PROGRAM_NAME ": %s: symbol index written as /SYM64/ (a member with symbols "
				     "is past 4 GiB)\n",
			c->path);
	if (r)
		set_label(c, w.member[0] ? w.member : NULL);
	action_said_clear(&c->said);
	return r < 0 ? -1 : 0;
}

static int is_error(const char *line)
{
	return strncmp(line, "error: ", 7) == 0;
}

/* A member's check lines (each "error: ..." or "warning: ..."), added to c->lines as
 * "TEXT\tNTH\tMEMBER\n" (NTH: the member's place among those checked, as names may repeat);
 * whether one of them is an error. */
static int gather_lines(struct ar_ctx *c, const struct buf *mine, const char *member)
{
	int errors = 0;

	for (size_t i = 0, start = 0; i < mine->len; i++)
		if (mine->p[i] == '\n') {
			buf_printf(&c->lines, "%.*s\t%zu\t%s\n", (int)(i - start), mine->p + start,
				   c->checked, member);
			errors |= is_error(mine->p + start);
			start = i + 1;
		}
	return errors;
}

/* The read-only modes on one member; --list gathers the entries of every member. */
static int read_member(struct ar_ctx *c, struct archive *ar, const struct archive_member *m,
		       struct err *e)
{
	struct entries es = {0};
	struct elf ef;
	struct scan sc;
	int close_fd, skip, r;

	if (open_member(c, ar, m, &ef, &sc, &close_fd, &skip, e))
		return -1;
	if (skip)
		return 0;
	if (c->run->o.mode == MODE_LIST) {
		r = scan_entries(&ef, &sc, &es, e);
		if (r == 0 && manifest_merge(&c->merged, &es))
			r = err_oom(e);
		if (!c->have_kind) {
			action_file_kind(&ef, &c->kind);
			c->have_kind = 1;
		}
		manifest_free(&es);
	} else {
		struct buf mine = {0};
		int gather = c->run->o.mode == MODE_CHECK && !c->run->o.verbose;
		size_t nrep = 0;
		r = c->run->o.mode == MODE_CHECK
			    ? action_check(c->run, c->label, &ef, &sc, 1, gather ? &mine : NULL,
					   &c->repeated, &nrep, e)
			    : action_discover(c->run, c->label, &ef, &sc, e);
		c->checked += c->run->o.mode == MODE_CHECK;
		if (nrep)
			buf_printf(&c->repeat_members, "%zu\t%s\n", c->checked, m->name);
		/* What a member's notes give is said once for the archive: a member whose only
		 * fault is in its notes has no line of its own on stderr. */
		if (gather && (gather_lines(c, &mine, m->name) | (nrep != 0)) && r)
			c->failed++, r = 1;
		if (c->lines.oom)
			r = err_oom(e);
		buf_free(&mine);
		if (c->run->o.mode == MODE_CHECK) {
			struct err te = {0};
			if (travel_member(&c->travel, m, &ef, &sc, &te) && r == 0)
				r = -1, *e = te;
		}
	}
	close_member(&ef, &sc, close_fd);
	return r;
}

/* The manifest's entries that members' code declares too: one line, each member's, gathered as
 * any other (one line for the archive, naming the first members). */
static void repeats_gathered(struct ar_ctx *c)
{
	struct buf text = {0};

	travel_repeats_line(&c->repeated, &text);
	if (text.len)
		text.len--; /* its newline */
	for (size_t i = 0, start = 0; i < c->repeat_members.len; i++)
		if (c->repeat_members.p[i] == '\n') {
			buf_printf(&c->lines, "%.*s\t%.*s\n", (int)text.len, text.p,
				   (int)(i - start), c->repeat_members.p + start);
			start = i + 1;
		}
	buf_free(&text);
}

/* The member that gave a gathered line: its name (of *len bytes), and its place in *nth. */
static const char *line_member(const struct key *k, size_t *nth, int *len)
{
	char *name;

	*nth = (size_t)strtoull(k->p + k->len + 1, &name, 10);
	name++; /* the tab */
	*len = (int)(strchr(name, '\n') - name);
	return name;
}

/* The members' lines, each distinct text once with how many members gave it and the first
 * three of them (a member that gave it twice counted once), or as that member's own line if
 * only one gave it (-v: every member's lines; -q: the errors only, and none for a single
 * cause), then, when members had errors, one line on stderr for the archive that names the
 * first. */
static void gathered_lines(struct ar_ctx *c)
{
	const struct opts *o = &c->run->o;
	struct key *k = NULL;
	struct keyed *heads = NULL;
	size_t n = 0, nheads = 0, causes = 0, errors = 0, i, j;
	const struct key *first_error = NULL;
	char *p = c->lines.p, *end = p + c->lines.len;

	for (char *q = p; q < end; q = strchr(q, '\n') + 1)
		n++;
	k = xcalloc(n + 1, sizeof *k), heads = xcalloc(n + 1, sizeof *heads);
	if (!k || !heads) {
		print_oom();
		goto out;
	}
	for (i = 0; p < end; i++, p = strchr(p, '\n') + 1) {
		k[i] = (struct key){p, (size_t)(strchr(p, '\t') - p), i};
		errors += (size_t)is_error(p);
	}
	keys_sort(k, n);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && key_same(&k[i], &k[j]); j++)
			;
		heads[nheads++] = (struct keyed){k[i].pos, i}; /* first seen, in archive order */
		causes += (size_t)is_error(k[i].p);
	}
	keyed_sort(heads, nheads);
	for (size_t h = 0; h < nheads; h++) {
		size_t first = heads[h].val, count = 0, shown = 0, nth = 0, prev = 0;
		int error = is_error(k[first].p), len;
		const char *name;
		if (error && !first_error)
			first_error = &k[first];
		/* -q: no warning; one cause: the line on stderr says it all (a build log shows
		 * one line). */
		if (o->quiet && (!error || causes == 1))
			continue;
		for (j = first; j < n && key_same(&k[first], &k[j]); j++, prev = nth)
			line_member(&k[j], &nth, &len), count += j == first || nth != prev;
		name = line_member(&k[first], &nth, &len);
		if (count == 1) { /* one member: named as any member is */
			print_text(stdout, "%s[%.*s]: %.*s\n", c->path, len, name,
				   (int)k[first].len, k[first].p);
			continue;
		}
		print_text(stdout, "%s: %.*s (in %zu of %zu ELF members: ", c->path,
			   (int)k[first].len, k[first].p, count, c->checked);
		for (j = first; shown < 3 && j < n && key_same(&k[first], &k[j]); j++, prev = nth) {
			name = line_member(&k[j], &nth, &len);
			if (j == first || nth != prev)
				print_text(stdout, "%s%.*s", shown++ ? ", " : "", len, name);
		}
		print_text(stdout, "%s)\n", count > 3 ? ", ..." : "");
	}
	if (c->failed && first_error)
		print_text(stderr,
			   PROGRAM_NAME
			   ": %s: %zu error%s in the dlopen notes of %zu of its %zu ELF "
			   "members, the first: %.*s (-v names each member)\n",
			   c->path, errors, errors == 1 ? "" : "s", c->failed, c->checked,
			   (int)first_error->len - 7, first_error->p + 7);
out:
	free(k);
	free(heads);
}

int members_process(struct run *run, const char *path, int fd, const struct stat *st, int many)
{
	const struct opts *o = &run->o;
	struct ar_ctx c = {.run = run, .path = path};
	char name[ARCHIVE_MAX_NAME + 64];
	struct archive ar;
	struct archive_member m;
	struct err e = {0};
	int status = EXIT_OK, r, r2;
	size_t first_listed = run->got.listed.es.n; /* --expect: the archive's entries after it */

	set_label(&c, NULL);
	if (o->nmembers && !(c.used = xcalloc(o->nmembers, 1))) {
		err_oom(&e);
		err_report(path, &e);
		return exit_status(&e);
	}
	if (archive_open(&ar, fd, path, (uint64_t)st->st_size, &e) == 0 && mode_edits(o->mode)) {
		if (edit_archive(&c, &ar, fd, st, &e))
			status = exit_status(&e);
	} else if (!e.msg[0]) {
		/* A damaged member stops the walk; a member whose notes are wrong does not. */
		while ((r = archive_next(&ar, &m, &e)) != 0) {
			if (r > 0 && m.kind == AR_INDEX)
				r = (o->mode == MODE_CHECK ? travel_index(&c.travel, &ar, &m, &e)
							   : archive_check_index(&ar, &m, &e))
					    ? -1
					    : 1;
			archive_label(&m, name, sizeof name);
			set_label(&c, name);
			if (r < 0)
				break;
			if (m.kind == AR_MEMBER && (r2 = read_member(&c, &ar, &m, &e)) != 0) {
				if (r2 < 0)
					err_report(c.label, &e);
				status = r2 > 0 ? EXIT_BAD_INPUT : exit_status(&e);
				memset(&e, 0, sizeof e);
			}
		}
		if (c.repeated.n)
			repeats_gathered(&c);
		if (c.lines.len)
			gathered_lines(&c);
		if (r == 0 && o->mode == MODE_LIST &&
		    action_list(run, path, NULL, NULL, &c.merged, &c.kind, many, &e))
			c.label[0] = '\0';
		else if (r == 0)
			memset(&e, 0, sizeof e);
		size_t lacks = 0; /* then no "ok" line: the archive misses what it should hold */
		if (r == 0 && o->mode == MODE_CHECK && status == EXIT_OK && o->expect_path)
			lacks = action_expect_file(run, path, run->got.listed.es.v + first_listed,
						   run->got.listed.es.n - first_listed);
		if (r == 0 && o->mode == MODE_CHECK && status == EXIT_OK) {
			size_t lost = travel_report(&c.travel, &o->add, o->quiet || lacks, path, stdout);
			if (lost) {
				c.label[0] = '\0';
				err_set(&e,
					"%zu dlopen entr%s that no link takes from this archive",
					lost, lost == 1 ? "y" : "ies");
			}
		}
	}
	travel_free(&c.travel);
	manifest_free(&c.merged);
	manifest_free(&c.repeated);
	buf_free(&c.repeat_members);
	buf_free(&c.lines);
	if (e.msg[0]) {
		err_report(c.label[0] ? c.label : path, &e);
		status = exit_status(&e);
	}
	for (size_t i = 0; i < o->nmembers && status == EXIT_OK; i++)
		if (!c.used[i]) {
			fprintf(stderr, PROGRAM_NAME ": %s: no member named '%s'\n", path,
				o->members[i]);
			status = EXIT_BAD_INPUT;
		}
	free(c.used);
	return status;
}
