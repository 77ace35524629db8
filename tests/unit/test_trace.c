/* SPDX-License-Identifier: MIT */
/* test_trace.c - reading a --record trace: which lines count, pairing "loaded" with "asked",
 * errors with their line, alternatives folded for --discover, and the --check lines. */
#include "helpers.h"

#include "note/note.h"
#include "lint/lint.h"

struct fixture {
	char dir[64], caller[128], other[128], trace[128];
	struct elf ef;
	struct t_image im;
	int fd;
};

/* A directory with two files that stand for callers, and an empty ELF object for FILE's
 * DT_NEEDED (it has none). */
static void setup(struct fixture *f)
{
	struct err e;

	snprintf(f->dir, sizeof f->dir, "/tmp/dlnote-unit-trace-XXXXXX");
	cr_assert(mkdtemp(f->dir));
	snprintf(f->caller, sizeof f->caller, "%s/app", f->dir);
	snprintf(f->other, sizeof f->other, "%s/other", f->dir);
	snprintf(f->trace, sizeof f->trace, "%s/trace", f->dir);
	fclose(fopen(f->caller, "w"));
	fclose(fopen(f->other, "w"));
	t_build(&f->im, 1, 0, 3, 62, NULL, 0, NULL, 0);
	cr_assert_eq(t_elf_open(&f->ef, f->im.p, f->im.len, &f->fd, &e), 0, "%s", e.msg);
}

static void teardown(struct fixture *f)
{
	t_elf_close(&f->ef, f->fd);
	t_image_free(&f->im);
	unlink(f->caller);
	unlink(f->other);
	unlink(f->trace);
	rmdir(f->dir);
}

/* One "asked" line, and a "loaded" line when `loaded`. */
static void ask(FILE *t, long pid, const char *by, const char *caller, const char *name, int loaded)
{
	fprintf(t, "{\"event\":\"asked\",\"pid\":%ld,\"exe\":\"/x\",\"by\":\"%s\",\"caller\":\"%s\",\"name\":\"%s\"}\n", pid, by,
		caller, name);
	if (loaded)
		fprintf(t, "{\"event\":\"loaded\",\"pid\":%ld,\"exe\":\"/x\",\"by\":\"%s\",\"caller\":\"%s\",\"name\":\"%s\","
			"\"soname\":\"%s\",\"path\":\"/lib/%s\"}\n", pid, by, caller, name, name, name);
}

Test(trace, only_dlopen_by_name_is_kept_and_loaded_lines_complete_their_ask)
{
	struct fixture f;
	struct trace t;
	struct err e = { 0 };
	FILE *w;

	setup(&f);
	w = fopen(f.trace, "w");
	fprintf(w, "{\"event\":\"start\",\"pid\":7,\"exe\":\"/x\"}\n");
	ask(w, 7, "dlopen", f.caller, "libx.so.1", 1);
	ask(w, 7, "needed", "/lib/libx.so.1", "liby.so.3", 1);
	ask(w, 7, "dlopen", f.caller, "./plugin.so", 1);
	fprintf(w, "\n{\"event\":\"asked\",\"pid\":7,\"future\":[1,{\"k\":true}],\"by\":\"dlopen\",\"caller\":\"%s\",\"name\":\"libq.so.2\"}\n",
		f.caller);
	fprintf(w, "{\"event\":\"unauditable\",\"pid\":8,\"exe\":\"/s\",\"reason\":\"statically linked program\"}\n");
	fclose(w);
	cr_assert_eq(trace_load(f.trace, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(t.n, 2);
	cr_assert_str_eq(t.v[0].name, "libx.so.1");
	cr_assert_str_eq(t.callers[t.v[0].caller].path, f.caller);
	cr_assert_eq(t.v[1].caller, t.v[0].caller, "one caller, once");
	cr_assert_eq(t.ncallers, 1);
	cr_assert_eq(t.callers[0].asks, 2);
	cr_assert_eq(t.processes, 1);
	cr_assert_eq(t.v[0].loaded, 1);
	cr_assert_eq(t.v[0].pid, 7);
	cr_assert_str_eq(t.v[1].name, "libq.so.2");
	cr_assert_eq(t.v[1].loaded, 0);
	cr_assert_eq(t.unauditable, 1);
	trace_free(&t);
	teardown(&f);
}

/* "symbol" lines (the audit module's dlsym() results): kept with their caller, which they do not
 * make a dlopen() caller; one without a symbol or soname is skipped. */
Test(trace, symbol_lines_are_kept_as_lookups_not_asks)
{
	struct fixture f;
	struct trace t;
	struct err e = { 0 };
	FILE *w;

	setup(&f);
	w = fopen(f.trace, "w");
	ask(w, 7, "dlopen", f.caller, "libz.so.1", 1);
	fprintf(w, "{\"event\":\"symbol\",\"pid\":7,\"by\":\"dlsym\",\"caller\":\"%s\",\"symbol\":\"inflate\","
		"\"version\":\"ZLIB_1.2.0\",\"soname\":\"libz.so.1\",\"path\":\"/lib/libz.so.1\"}\n", f.caller);
	fprintf(w, "{\"event\":\"symbol\",\"pid\":7,\"by\":\"dlsym\",\"caller\":\"%s\",\"symbol\":\"puts\","
		"\"version\":\"\",\"soname\":\"libc.so.6\"}\n", f.other);
	fprintf(w, "{\"event\":\"symbol\",\"pid\":7,\"by\":\"dlsym\",\"caller\":\"%s\",\"symbol\":\"\",\"soname\":\"libc.so.6\"}\n",
		f.other);
	fclose(w);
	cr_assert_eq(trace_load(f.trace, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(t.n, 1);
	cr_assert_eq(t.nsyms, 2);
	cr_assert_str_eq(t.syms[0].name, "inflate");
	cr_assert_str_eq(t.syms[0].version, "ZLIB_1.2.0");
	cr_assert_str_eq(t.syms[0].soname, "libz.so.1");
	cr_assert_eq(t.syms[0].caller, t.v[0].caller);
	cr_assert_str_eq(t.syms[1].version, "");
	cr_assert_str_eq(t.callers[t.syms[1].caller].path, f.other);
	cr_assert_eq(t.callers[t.v[0].caller].asks, 1, "the lookup is no dlopen() ask");
	cr_assert_eq(t.callers[t.syms[1].caller].asks, 0);
	trace_free(&t);
	teardown(&f);
}

Test(trace, a_bad_line_is_an_error_naming_it)
{
	struct fixture f;
	struct trace t;
	struct err e = { 0 };
	FILE *w;

	setup(&f);
	w = fopen(f.trace, "w");
	ask(w, 7, "dlopen", f.caller, "libx.so.1", 0);
	fprintf(w, "{\"event\":\"asked\",\"pid\":7 \"name\":\"x\"}\n");
	fclose(w);
	cr_assert_eq(trace_load(f.trace, &t, &e), -1);
	cr_assert(strstr(e.msg, "line 2,"), "%s", e.msg);
	trace_free(&t);
	cr_assert_eq(trace_load("/nonexistent/trace", &t, &e), -1);
	teardown(&f);
}

/* app: libfoo.so.2 fails, libfoo.so.1 loads (one library: alternatives); libbar.so.1 fails and
 * libbaz.so.1 loads (two libraries); another process loads libfoo.so.1 directly (the same
 * group).  other's dlopen() is not app's. */
static void write_groups(struct fixture *f)
{
	FILE *w = fopen(f->trace, "w");

	ask(w, 7, "dlopen", f->caller, "libfoo.so.2", 0);
	ask(w, 7, "dlopen", f->caller, "libfoo.so.1", 1);
	ask(w, 9, "dlopen", f->other, "libother.so.1", 1);
	ask(w, 7, "dlopen", f->caller, "libbar.so.1", 0);
	ask(w, 7, "dlopen", f->caller, "libbaz.so.1", 1);
	ask(w, 8, "dlopen", f->caller, "libfoo.so.1", 1);
	fclose(w);
}

Test(trace, discover_folds_alternatives_tried_in_a_row)
{
	struct fixture f;
	struct trace t;
	struct discovery d = { 0 };
	struct entries none = { 0 };
	struct err e = { 0 };

	setup(&f);
	write_groups(&f);
	cr_assert_eq(trace_load(f.trace, &t, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_discover(&t, &f.ef, &(struct scan){ 0 }, f.caller, &none, &d, &e), 0, "%s", e.msg);
	cr_assert_eq(d.n, 3);
	cr_assert_str_eq(d.v[0].soname, "libfoo.so.2");
	cr_assert_eq(d.v[0].nalt, 1);
	cr_assert_str_eq(d.v[0].alt[0], "libfoo.so.1");
	cr_assert_str_eq(d.v[1].soname, "libbar.so.1");
	cr_assert_eq(d.v[1].nalt, 0);
	cr_assert_str_eq(d.v[2].soname, "libbaz.so.1");
	cr_assert_eq(d.v[2].recorded, 1);
	discover_free(&d);
	trace_free(&t);
	teardown(&f);
}

Test(trace, check_names_the_undeclared_and_the_never_loaded)
{
	static const char declared_json[] = "[{\"soname\":[\"libfoo.so.2\",\"libfoo.so.1\"]},{\"soname\":[\"libold.so.1\"]}]";
	struct fixture f;
	struct trace t;
	struct entries declared = { 0 };
	struct trace_verdict v;
	struct err e = { 0 };
	char *out = NULL, want[2048];
	size_t len;
	FILE *o;

	setup(&f);
	write_groups(&f);
	cr_assert_eq(manifest_parse(declared_json, strlen(declared_json), &declared, &e), 0, "%s", e.msg);
	cr_assert_eq(trace_load(f.trace, &t, &e), 0, "%s", e.msg);
	o = open_memstream(&out, &len);
	cr_assert_eq(trace_check(&t, &f.ef, &(struct scan){ 0 }, f.caller, &declared, 1, o, &v, &e), 0, "%s", e.msg);
	fclose(o);
	cr_assert_eq(v.undeclared, 2);
	cr_assert_eq(v.callers, 1);
	cr_assert_eq(v.recorded, 3, "libfoo.so.2 or .1, libbar.so.1, libbaz.so.1");
	cr_assert_eq(v.nunused, 1);
	cr_assert_str_eq(v.unused.p, "libold.so.1");
	snprintf(want, sizeof want,
		 "%s: is %s in the recording (the same file)\n"
		 "%s: undeclared: libbar.so.1: asked for with dlopen(), not found, during the recording\n"
		 "%s: undeclared: libbaz.so.1: dlopen()ed during the recording\n"
		 "%s: not loaded: libold.so.1: declared, not dlopen()ed during the recording\n",
		 f.caller, f.caller, f.caller, f.caller, f.caller);
	cr_assert_str_eq(out, want);
	free(out);
	trace_verdict_free(&v);
	manifest_free(&declared);
	trace_free(&t);
	teardown(&f);
}

/* The recording's working directory is the build tree: of its callers that dlopen()ed, those no
 * FILE checked was are said; a caller outside it (a system program) is not; the loader named as
 * the caller (a hidden one) is counted apart. */
Test(trace, callers_of_the_build_tree_that_no_file_matched_are_said)
{
	struct fixture f;
	struct trace t;
	struct trace_unmatched u;
	struct err e = { 0 };
	const char **is;
	FILE *w;

	setup(&f);
	w = fopen(f.trace, "w");
	fprintf(w, "{\"event\":\"record\",\"pid\":6,\"cwd\":\"%s\",\"command\":\"make\"}\n", f.dir);
	fprintf(w, "{\"event\":\"start\",\"pid\":7,\"exe\":\"/x\"}\n");
	ask(w, 7, "dlopen", f.caller, "libx.so.1", 1);
	ask(w, 7, "dlopen", f.other, "liby.so.1", 1);
	ask(w, 7, "dlopen", "/usr/bin/python3", "libz.so.1", 1);
	fprintf(w, "{\"event\":\"asked\",\"pid\":7,\"by\":\"dlopen\",\"caller\":\"/lib64/ld-linux-x86-64.so.2\","
		"\"name\":\"libq.so.1\",\"hidden\":\"loader\"}\n");
	fclose(w);
	cr_assert_eq(trace_load(f.trace, &t, &e), 0, "%s", e.msg);
	cr_assert_str_eq(t.cwd, f.dir);
	cr_assert_eq(t.ncallers, 4);
	cr_assert_eq(t.callers[0].in_tree + t.callers[1].in_tree + t.callers[2].in_tree + t.callers[3].in_tree, 2);
	cr_assert_eq(t.callers[3].by_loader, 1);
	cr_assert_eq(trace_match(&t, f.caller, &f.ef, &(struct scan){ 0 }, &is, &e), 0, "%s", e.msg);
	cr_assert_str_eq(is[0], "the same file");
	cr_assert_null(is[1]);
	free(is);
	cr_assert_eq(trace_unmatched(&t, &u), 0);
	cr_assert_eq(u.tree, 2);
	cr_assert_eq(u.unmatched, 1);
	cr_assert_eq(u.by_loader, 1);
	cr_assert(strncmp(u.first.p, f.other, strlen(f.other)) == 0 && strstr(u.first.p, "(not an ELF file now)"), "%s", u.first.p);
	trace_unmatched_free(&u);
	trace_free(&t);
	teardown(&f);
}
