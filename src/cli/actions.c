/* SPDX-License-Identifier: MIT */
/* actions.c - one mode (list, check, discover, edit) on one ELF object: a file or an archive
 * member, already opened and scanned. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_int.h"
#include "../note/note.h"
#include "../deps/deps.h"
#include "../lint/lint.h"
#include "../report/report.h"

void action_file_kind(const struct elf *ef, struct file_kind *k)
{
	k->is64 = ef->is64;
	k->machine = ef->machine;
	k->object = ef->type == ET_REL_;
}

/* The table, JSON Lines and the rpm generator are printed file by file (an archive is one file:
 * its members' entries merged); every other format gathers all files and prints once.  The
 * symbols a file looks up are read for the formats that need them, from linked files (ef; not
 * from objects, whose notes are for the programs linked from them). */
int action_list(struct run *run, const char *path, const struct elf *ef, const struct scan *sc,
		struct entries *es, const struct file_kind *k, int many, struct err *e)
{
	struct opts *o = &run->o; /* its --list filters note which names selected an entry */
	struct listing one = {0};
	const char *suffix = pkgdeps_rpm_suffix(k->is64, k->machine);
	int per_file = o->rep.format == FORMAT_TABLE || o->rep.format == FORMAT_JSONL ||
		       o->rep.format == FORMAT_RPM_GENERATE;
	struct listing *l = per_file ? &one : &run->got.listed;
	size_t first = l->es.n;
	int r = 0;

	if (report_listing_add(l, es, path, suffix, &o->rep))
		r = err_oom(e);
	if (r == 0 && ef && !k->object && report_format_symbols(o->rep.format))
		r = report_listing_symbols(l, first, ef, sc, &o->rep, e);
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
	    pkgdeps_rpm_generate(&one, &o->rep.gen, stdout))
		r = err_oom(e);
	report_listing_free(&one);
	return r;
}

/* The lines of a check report, each after "PATH: " (with -q, the errors only); the first
 * error's text is kept for the one-line summary on stderr.  With `gather` (an archive member,
 * without -v), every line goes there instead, without the path: the archive says each once. */
static void print_report(const struct opts *o, const char *path, const struct buf *report,
			 char *first, size_t firstsz, struct buf *gather)
{
	for (size_t i = 0, start = 0; i < report->len; i++) {
		const char *line = report->p + start;
		int error;

		if (report->p[i] != '\n')
			continue;
		error = strncmp(line, "error: ", 7) == 0;
		if (gather)
			buf_printf(gather, "%.*s\n", (int)(i - start), line);
		else if (!o->quiet || error)
			print_text(stdout, "%s: %.*s\n", path, (int)(i - start), line);
		if (error && !first[0])
			snprintf(first, firstsz, "%.*s", (int)(i - start - 7), line + 7);
		start = i + 1;
	}
}

/* What carries no dlopen notes by design (docs/packaging.md, "The lint"), else NULL. */
static const char *no_notes_by_design(const struct elf *ef)
{
	return ef->detached                  ? "a detached debug file"
	       : debugfile_dwz_multifile(ef) ? "a dwz multifile (DWARF shared by debug files)"
					     : NULL;
}

size_t action_expect_file(struct run *run, const char *path, struct entry *v, size_t n)
{
	const struct entries have = {.v = v, .n = n, .cap = n};
	size_t lacks = report_lint_file(&run->o.expect, run->o.expect_path, &have, path, stdout);

	run->got.expect_files++;
	run->got.expect_missing += lacks;
	return lacks;
}

/* The "ok" line: the notes, and under --recorded what the recording says of the file. */
static void print_ok(const struct opts *o, const char *path, const struct elf *ef,
		     const char *nonote, size_t n, const struct trace_verdict *v)
{
	struct buf b = {0};

	buf_printf(&b, "%zu dlopen entr%s", n, n == 1 ? "y" : "ies");
	if (nonote && o->expect_path)
		buf_printf(&b, "; %s: no notes by design, not held to %s", nonote, o->expect_path);
	else if (nonote && !ef->detached)
		buf_printf(&b, "; %s: no notes by design", nonote);
	if (o->recorded_path && ef->detached)
		buf_puts(&b, "; a detached debug file: not what runs, not linted against the "
			     "recording");
	else if (o->recorded_path && !v->callers)
		buf_puts(&b, "; no dlopen() by it in the recording");
	else if (o->recorded_path) {
		buf_printf(&b, "; recorded: %zu librar%s dlopen()ed, none undeclared", v->recorded,
			   v->recorded == 1 ? "y" : "ies");
		if (v->nunused)
			buf_printf(&b, "; declared, not dlopen()ed during the recording: %.*s",
				   (int)v->unused.len, v->unused.p);
	}
	print_text(stdout, "%s: ok (%.*s)\n", path, (int)b.len, b.p ? b.p : "");
	buf_free(&b);
}

int action_check(struct run *run, const char *path, const struct elf *ef, const struct scan *sc,
		 int in_archive, struct buf *gather, struct entries *repeated, size_t *nrepeated,
		 struct err *e)
{
	const struct opts *o = &run->o;
	struct buf report = {0};
	struct entries es = {0};
	struct trace_verdict v = {0};
	size_t errors = scan_check(ef, sc, gather != NULL, &report);
	char first[400] = "";
	int r = 0;

	print_report(o, path, &report, first, sizeof first, gather);
	if (!errors) {
		struct err ignore;
		struct buf repeats = {0};
		scan_entries(ef, sc, &es, &ignore);
		errors = travel_repeats(&es, &o->add, o->verbose > 0, &repeats,
					gather ? repeated : NULL);
		if (gather && nrepeated)
			*nrepeated = errors;
		travel_dev_names(&es, &repeats);
		print_report(o, path, &repeats, first, sizeof first, gather);
		buf_free(&repeats);
	}
	if (!errors) {
		/* The lint first (the listing takes the entries over), then the summary: "ok" only
		 * when every check passed, so it is never followed by a failure.  A detached debug
		 * file is not what runs: the recording is not matched to it. */
		if (o->recorded_path && !ef->detached)
			r = trace_check(&run->o.trace, ef, sc, path, &es, o->verbose > 0, stdout,
					&v, e);
		/* --expect: each file it applies to holds each entry (an archive: its members
		 * together, members.c); what carries no notes by design is not held to it. */
		size_t lacks = 0;
		const char *nonote = no_notes_by_design(ef);
		if (r == 0 && o->expect_path && !in_archive && !nonote)
			lacks = action_expect_file(run, path, es.v, es.n);
		if (r == 0 && !o->quiet && !in_archive && !v.undeclared && !lacks)
			print_ok(o, path, ef, nonote, es.n, &v);
		if (o->expect_path && r == 0 &&
		    report_listing_add(&run->got.listed, &es, path, "", NULL))
			r = err_oom(e);
	}
	manifest_free(&es);
	buf_free(&report);
	trace_verdict_free(&v);
	if (r)
		return -1;
	if (v.undeclared)
		return err_set(e, "%ld undeclared dlopen() dependenc%s in %s", v.undeclared,
			       v.undeclared == 1 ? "y" : "ies", o->recorded_path);
	/* One line on stderr that names the cause (a build log may show nothing else). */
	return errors ? err_set(e, "%zu error%s in dlopen notes%s%s", errors,
				errors == 1 ? "" : "s",
				first[0] ? (errors == 1 ? ": " : ", the first: ") : "", first)
		      : 0;
}

int action_discover(struct run *run, const char *path, const struct elf *ef, const struct scan *sc,
		    struct err *e)
{
	const struct opts *o = &run->o;
	struct entries es = {0};
	int r = scan_entries(ef, sc, &es, e);

	if (r == 0)
		r = o->recorded_path
			    ? trace_discover(&run->o.trace, ef, sc, path, &es, &run->got.found, e)
			    : discover_file(ef, &es, path, &run->got.found, e);
	manifest_free(&es);
	return r;
}

/* Notes aligned beyond 8 (docs/layout.md): every edit drops them or, --merge, writes again
 * what of them decodes; said->misaligned counts them, said->where says where the first were.
 * `lost`: the lines of those --merge could not decode. */
static void say_misaligned(const struct elf *ef, const struct scan *sc, const struct buf *lost,
			   size_t nlost, struct said *said)
{
	struct buf where = {0};
	size_t n = said ? scan_misaligned_where(ef, sc, &where) : 0;

	if (!n)
		return;
	if (!said->misaligned)
		snprintf(said->where, sizeof said->where, "%.*s", (int)where.len,
			 where.p ? where.p : "");
	if (nlost && lost->p && !said->lost)
		snprintf(said->first_lost, sizeof said->first_lost, "%.*s",
			 (int)strcspn(lost->p, "\n"), lost->p);
	said->misaligned += n;
	said->misaligned_members++;
	said->lost += nlost;
	buf_free(&where);
}

/* Replace: the file's entries that the manifest does not name go to said->dropped. */
static int say_dropped(const struct run *run, const struct elf *ef, const struct scan *sc,
		       struct said *said)
{
	struct entries have = {0}, gone = {0};
	struct err ignore = {0}; /* notes that do not decode: replace drops them, as before */
	struct buf lost = {0};
	size_t nlost = 0;
	unsigned char *unnamed = NULL;
	int r = 0;

	if (scan_entries_salvage(ef, sc, &have, &lost, &nlost, &ignore) == 0 && have.n &&
	    (!(unnamed = xcalloc(have.n, 1)) || manifest_unnamed(&have, &run->o.add, unnamed)))
		r = -1;
	for (size_t i = 0; r == 0 && unnamed && i < have.n; i++)
		if (unnamed[i])
			r = manifest_append_copy(&gone, &have.v[i]);
	if (r == 0 && gone.n)
		r = manifest_merge(&said->dropped, &gone);
	said->members += gone.n != 0;
	say_misaligned(ef, sc, &lost, nlost, said);
	buf_free(&lost);
	free(unnamed);
	manifest_free(&have);
	manifest_free(&gone);
	return r;
}

/* Merge: the file's entries as they are (one entry at several priorities included: systemd
 * 262 writes its programs so), then the manifest's that the file lacks; a manifest entry of
 * the same feature and sonames as the file's that equals none of them takes their place
 * (*replaced gets the file's). */
static int merged_entries(const struct run *run, const struct elf *ef, const struct scan *sc,
			  struct entries *final, struct entries *replaced, struct said *said,
			  struct err *e)
{
	struct buf lost = {0};
	size_t a, b, nlost;

	/* Misaligned notes: what of them decodes is kept and written again, the rest said. */
	if (scan_entries_salvage(ef, sc, final, &lost, &nlost, e)) {
		buf_free(&lost);
		err_prefix(e, "cannot merge with the existing notes: ");
		return -1;
	}
	say_misaligned(ef, sc, &lost, nlost, said);
	buf_free(&lost);
	if (manifest_merge_identity(final, &run->o.add, 1, replaced, &a, &b))
		return err_oom(e);
	return 0;
}

/* The file already holds exactly `want`: the same entries, each as many times, in whatever
 * notes and order (the spec gives the order of entries no meaning; an entry's keys in any
 * order, its unknown keys and the order of its sonames count), all where every reader finds
 * them.  Then nothing is written: not even a rename (item 5 of issue 43: a library the CMake
 * helper gave exactly the manifest's entries, in the linker's PT_NOTE, was rewritten). */
static int already_holds(const struct elf *ef, const struct scan *sc, const struct entries *want)
{
	struct entries have = {0};
	struct err ignore = {0};
	int same = want->n && scan_entries(ef, sc, &have, &ignore) == 0 &&
		   manifest_same_entries(&have, want) == 1 && scan_notes_in_place(ef, sc);

	manifest_free(&have);
	return same;
}

/* The edit of one object as a plan (printed with -v, -vv, unless the caller made pl quiet: a
 * plan made only to measure or compare); `label` names it in messages. */
int action_plan_edit(struct run *run, const char *label, const struct elf *ef,
		     const struct scan *sc, struct plan *pl, struct said *said, struct err *e)
{
	const struct opts *o = &run->o;
	int show = o->verbose && !pl->quiet;
	struct entries final = {0}, replaced = {0};
	const struct entries *want = &final;
	struct buf note = {0}, *whole = &note;
	/* Replace gives every object the same entries: what is derived from them alone is kept
	 * from one object (archive member) to the next, per byte order. */
	struct objplan_memo *memo = o->mode == MODE_REPLACE ? &run->memo[ef->big != 0] : NULL;
	int r = -1;

	memset(pl, 0, sizeof *pl);
	pl->quiet = !show;
	/* Replace: exactly the given entries.  Merge: the file's, then the new ones not already
	 * there.  Remove: none. */
	if (o->mode == MODE_REPLACE) {
		want = &o->add;
		if (said && !o->quiet && say_dropped(run, ef, sc, said))
			goto oom;
	} else if (o->mode == MODE_MERGE &&
		   merged_entries(run, ef, sc, &final, &replaced, o->quiet ? NULL : said, e)) {
		goto out;
	} else if (o->mode == MODE_REMOVE) {
		say_misaligned(ef, sc, NULL, 0, o->quiet ? NULL : said);
	}
	/* Objects: their planner judges it (objplan.c), because the form counts there: a plain
	 * note does not fold at link time where the tool's COMDAT group of the same entry does. */
	if (o->mode != MODE_REMOVE && ef->type != ET_REL_ && already_holds(ef, sc, want)) {
		plan_reset(pl);
		pl->quiet = !show;
		pl->unchanged = 1;
		pl->keep = pl->out_size = ef->size; /* with -o, the output is a copy */
		pl->strategy = "unchanged";
		plan_log(pl,
			 "note: the file already holds exactly these entries; nothing to write\n");
		r = 0;
		goto shown;
	}
	if (said && replaced.n && manifest_merge(&said->replaced, &replaced))
		goto oom;
	if (said && replaced.n)
		said->members++;
	if (memo && memo->whole_ready)
		whole = &memo->whole;
	else if (note_encode(want, ef->big, memo ? &memo->whole : &note, e))
		goto out;
	else if (memo)
		whole = &memo->whole, memo->whole_ready = 1;
	/* Objects: one COMDAT group per entry; merge keeps every group the object has but those of
	 * entries it replaced.  The whole note is encoded for both: a linked program carries all
	 * the entries as one array, so its size limit holds for objects too. */
	if (edit_plan(ef, sc, want, o->mode == MODE_MERGE, whole, pl, memo, e))
		goto out;
	r = 0;
shown:
	if (show) {
		print_text(stderr, PROGRAM_NAME ": %s: %s\n", label, pl->strategy);
		for (size_t i = 0, start = 0; i < pl->log.len;
		     i++) /* line by line: names come from the file */
			if (pl->log.p[i] == '\n') {
				print_text(stderr, "%.*s\n", (int)(i - start), pl->log.p + start);
				start = i + 1;
			}
	}
	if (show && o->verbose > 1) {
		/* -vv: the plan itself, as the writer will carry it out. */
		fprintf(stderr, "copy input bytes 0x0-0x%llx, then %zu patches, size 0x%llx:\n",
			(unsigned long long)pl->keep, pl->n, (unsigned long long)pl->out_size);
		for (size_t i = 0; i < pl->n; i++) {
			const struct patch *p = &pl->p[i];
			fprintf(stderr, "  0x%llx +0x%llx ", (unsigned long long)p->off,
				(unsigned long long)p->len);
			if (p->xform)
				fprintf(stderr,
					"copied from input offset 0x%llx, section indexes "
					"renumbered\n",
					(unsigned long long)p->src);
			else if (p->data)
				fprintf(stderr, "new bytes\n");
			else if (p->src == PATCH_ZERO)
				fprintf(stderr, "zeros\n");
			else
				fprintf(stderr, "copied from input offset 0x%llx\n",
					(unsigned long long)p->src);
		}
	}
	goto out;
oom:
	err_oom(e);
out:
	buf_free(&note);
	manifest_free(&final);
	manifest_free(&replaced);
	return r;
}

/* One line: `what` happened to these entries of `path` (each followed by the old entry itself
 * when `old`), then why. */
static void say(const char *path, const char *what, const struct entries *es, int old,
		size_t members, const char *why)
{
	struct buf b = {0};

	for (size_t i = 0; i < es->n; i++) {
		buf_puts(&b, i ? ", " : "");
		manifest_entry_label(&es->v[i], &b);
		if (old) {
			buf_puts(&b, " was ");
			manifest_serialize_entry(&es->v[i], &b);
		}
	}
	print_text(stderr, PROGRAM_NAME ": %s: %s %zu %s the file had", path, what, es->n,
		   es->n == 1 ? "entry" : "entries");
	if (members)
		print_text(stderr, ", in %zu archive member%s", members, members == 1 ? "" : "s");
	print_text(stderr, ": %.*s; %s\n", (int)b.len, b.p ? b.p : "", why);
	buf_free(&b);
}

/* One line for the misaligned notes an edit dropped or wrote again, one for those it lost. */
static void say_misaligned_done(const struct run *run, const char *path, const struct said *s,
				int archive)
{
	char in[64] = "";

	if (run->o.quiet || !s->misaligned)
		return;
	if (archive)
		snprintf(in, sizeof in, ", in %zu archive member%s", s->misaligned_members,
			 s->misaligned_members == 1 ? "" : "s");
	print_text(stderr,
		   PROGRAM_NAME ": %s: %s %zu misaligned dlopen note%s the file had%s (%s%s)%s\n",
		   path, run->o.mode == MODE_MERGE ? "--merge rewrote" : "dropped", s->misaligned,
		   s->misaligned == 1 ? "" : "s", in, archive ? "the first: " : "", s->where,
		   run->o.mode == MODE_MERGE     ? " as 4-aligned notes"
		   : run->o.mode == MODE_REPLACE ? "; the manifest's entries take their place"
						 : "");
	if (s->lost)
		print_text(stderr,
			   PROGRAM_NAME ": %s: --merge left out %zu misaligned dlopen note%s it "
					"could not decode%s: %s\n",
			   path, s->lost, s->lost == 1 ? "" : "s",
			   s->lost == 1 ? "" : ", the first", s->first_lost);
}

void action_said(const struct run *run, const char *path, struct said *s, int archive)
{
	say_misaligned_done(run, path, s, archive);
	if (!run->o.quiet && s->dropped.n)
		say(path, "replacing drops", &s->dropped, 0, archive ? s->members : 0,
		    "the manifest does not name them (--merge keeps them)");
	if (!run->o.quiet && s->replaced.n)
		say(path, "--merge replaced", &s->replaced, 1, archive ? s->members : 0,
		    "the manifest's entries of the same feature and sonames took their place");
	action_said_clear(s);
}

void action_said_clear(struct said *s)
{
	manifest_free(&s->dropped);
	manifest_free(&s->replaced);
	s->members = 0;
	s->misaligned = s->misaligned_members = s->lost = 0;
}

int action_edit(struct run *run, const char *path, int fd, const struct stat *st,
		const struct elf *ef, const struct scan *sc, struct err *e)
{
	const struct opts *o = &run->o;
	struct plan pl = {0};
	struct said said = {0};
	int r = action_plan_edit(run, path, ef, sc, &pl, &said, e);

	if (r == 0 && !(pl.unchanged && !o->output)) {
		if (strcmp(o->output ? o->output : "", "-") == 0)
			r = output_stream(fd, &pl, STDOUT_FILENO, e);
		else
			r = output_write(fd, st, &pl, o->output ? o->output : path, !o->output,
					 &o->out, e);
	}
	if (r == 0)
		action_said(run, path, &said, 0);
	action_said_clear(&said);
	plan_free(&pl);
	return r;
}
