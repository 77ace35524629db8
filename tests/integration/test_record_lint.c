/* SPDX-License-Identifier: MIT */
/* test_record_lint.c - what a recording is for: `--check --recorded` and `--discover`
 * against real traces (the maintainer's loop, development symlinks, one object under two names,
 * packaged copies matched by build-id) and the installed tool finding its modules. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "record_fixture.h"

/* The maintainer's loop: record, the lint fails and names what is undeclared, --discover
 * drafts it (libdlr_t2.so.2 tried first and missing, then libdlr_t2.so.1: alternatives), the
 * draft is completed and injected with the tool, the lint passes. */
Test(record, lint_fails_then_passes_after_the_note_is_added)
{
	struct cmd c;
	char *out;

	record_build();
	free(sh("'%s' --record=trace -- ./prog o:libdlr_t2.so.2 o:libdlr_t2.so.1 o:libdlr_a.so.1 o:libdlr_t4.so.1 p:./plugin.so "
		">/dev/null && grep -q '\"caller\":\"%s/prog\",\"name\":\"libdlr_t4.so.1\",\"soname' trace",
		tool(), record_wd));
	/* libdlr_t4.so.1, which prog links (DT_NEEDED), is recorded but adds no dependency. */
	c = run("'%s' --check --recorded=trace prog plugin.so", tool());
	cr_assert_eq(c.status, 1);
	/* No "ok" before a failure; alternatives tried in a row are one dependency, as --discover
	 * drafts them (below): the counts agree. */
	cr_assert_str_eq(c.out,
		"prog: undeclared: libdlr_t2.so.2 or libdlr_t2.so.1 (tried in that order): dlopen()ed during the recording\n"
		"prog: undeclared: libdlr_a.so.1: dlopen()ed during the recording\n"
		"plugin.so: undeclared: libdlr_b.so.1: dlopen()ed during the recording\n");
	cr_assert_str_eq(c.err,
		"dlnote-inject: prog: 2 undeclared dlopen() dependencies in trace\n"
		"dlnote-inject: plugin.so: 1 undeclared dlopen() dependency in trace\n");
	cmd_free(&c);

	c = run("'%s' --discover --recorded=trace prog", tool());
	cr_expect_str_eq(c.err, "dlnote-inject: trace: 2 undeclared dlopen() dependencies recorded; describe each feature\n");
	cmd_free(&c);
	out = sh("'%s' --discover --recorded=trace -q prog", tool());
	cr_assert_str_eq(out, "[\n"
		"  {\"soname\":[\"libdlr_a.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: dlopen()ed by prog during "
		"dlnote-inject --record; describe the feature\",\"priority\":\"recommended\"},\n"
		"  {\"soname\":[\"libdlr_t2.so.2\",\"libdlr_t2.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: dlopen()ed by "
		"prog during dlnote-inject --record; describe the feature\",\"priority\":\"recommended\"}\n"
		"]");
	free(out);
	free(sh("'%s' --discover --recorded=trace -q prog | sed -e 's/FIXME: [^\"]*/Loaded at run time/' "
		"-e '0,/FIXME/s/FIXME/a/' -e 's/FIXME/b/' > prog.json && "
		"'%s' -m prog.json prog && '%s' --feature b --soname libdlr_b.so.1 plugin.so", tool(), tool(), tool()));
	/* The edited program still runs, and the lint passes: no more recording needed. */
	free(sh("./prog o:libdlr_b.so.1 | grep -q 'libdlr_b.so.1 loaded'"));
	out = sh("'%s' --check --recorded=trace prog plugin.so", tool());
	cr_assert_str_eq(out, "prog: ok (2 dlopen entries; recorded: 3 libraries dlopen()ed, none undeclared)\n"
			      "plugin.so: ok (1 dlopen entry; recorded: 1 library dlopen()ed, none undeclared)");
	free(out);
	c = run("'%s' --discover --recorded=trace prog plugin.so", tool());
	cr_expect_str_eq(c.out, "[]\n");
	cr_expect_str_eq(c.err, "dlnote-inject: trace: no undeclared dlopen() dependency recorded for these files: nothing to "
				"draft\n");
	cmd_free(&c);
	/* A declared entry never loaded is information, not a failure. */
	free(sh("'%s' --merge --feature never --soname libdlr_never.so.1 prog", tool()));
	out = sh("'%s' --check --recorded=trace prog", tool());
	cr_assert_str_eq(out, "prog: ok (3 dlopen entries; recorded: 3 libraries dlopen()ed, none undeclared; declared, not "
			      "dlopen()ed during the recording: libdlr_never.so.1)");
	free(out);
	/* -v: how the file was found in the trace, and each entry it did not dlopen() */
	out = sh("'%s' --check -v --recorded=trace prog | grep -v '^ '", tool());
	cr_assert(strstr(out, "prog: is ") && strstr(out, "/prog in the recording (the same build-id)\n") &&
			  strstr(out, "prog: not loaded: libdlr_never.so.1: declared, not dlopen()ed during the recording\n"),
		  "%s", out);
	free(out);
}

/* The installed tool finds the installed modules: $(LIBDIR)/dlnote relative to $(BINDIR). */
Test(record, installed_tool_finds_its_module)
{
	char *out;

	record_build();
	free(sh("make -s -C '%s' install DESTDIR='%s/stage' PREFIX=/usr >/dev/null", srcdir(), record_wd));
	out = sh("cd stage/usr/lib/dlnote && find . -name dlnote-audit.so -printf '%%P %%y\\n' | LC_ALL=C sort && cd - >/dev/null && "
		 "env -u DLNOTE_AUDIT_MODULE "
		 "stage/usr/bin/dlnote-inject --record=trace -- ./prog o:libdlr_b.so.1 >/dev/null && "
		 "grep -c '\"event\":\"loaded\"' trace");
	/* One module per $LIB (tests/setup.sh installs every cross compiler the Makefile builds for). */
	cr_assert_str_eq(out, "lib/aarch64-linux-gnu/dlnote-audit.so f\nlib/arm-linux-gnueabi/dlnote-audit.so f\n"
		"lib/arm-linux-gnueabihf/dlnote-audit.so f\nlib/i386-linux-gnu/dlnote-audit.so f\n"
		"lib/mips-linux-gnu/dlnote-audit.so f\nlib/mips64el-linux-gnuabi64/dlnote-audit.so f\n"
		"lib/powerpc64-linux-gnu/dlnote-audit.so f\nlib/powerpc64le-linux-gnu/dlnote-audit.so f\n"
		"lib/riscv64-linux-gnu/dlnote-audit.so f\nlib/s390x-linux-gnu/dlnote-audit.so f\n"
		"lib/x86_64-linux-gnu/dlnote-audit.so f\nlib32/dlnote-audit.so l\n1");
	free(out);
}

/* A library with a versioned soname and an unversioned development symlink (libdlr_dev.so ->
 * libdlr_dev.so.1), dlopen()ed by the symlink's name, as a program does on a build machine with
 * the -dev package: the draft declares the soname that was loaded, the name asked for follows as
 * an alternative and the description says so; the lint names the soname; a declared development
 * name is warned about. */
Test(record, a_development_symlink_drafts_the_loaded_soname)
{
	struct cmd c;
	char *out;

	record_build();
	free(sh("echo 'int dlr_dev(void) { return 1; }' > dev.c && "
		"gcc -shared -fPIC -Wl,-soname,libdlr_dev.so.1 -o libdlr_dev.so.1 dev.c && ln -s libdlr_dev.so.1 libdlr_dev.so && "
		"'%s' --record=trace -- ./prog o:libdlr_dev.so | grep -q 'libdlr_dev.so loaded'", tool()));
	out = sh("'%s' --discover --recorded=trace -q prog", tool());
	cr_expect_str_eq(out, "[\n"
		"  {\"soname\":[\"libdlr_dev.so.1\",\"libdlr_dev.so\"],\"feature\":\"FIXME\",\"description\":\"FIXME: dlopen()ed by "
		"prog during dlnote-inject --record, asked for as libdlr_dev.so (a development name: keep it as an alternative, "
		"or drop it); describe the feature\",\"priority\":\"recommended\"}\n"
		"]");
	free(out);
	c = run("'%s' --check --recorded=trace prog", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "prog: undeclared: libdlr_dev.so.1 (asked for as libdlr_dev.so, a development name): "
				"dlopen()ed during the recording\n");
	cmd_free(&c);
	/* Declared by its soname: the lint passes.  Declared by the symlink's name: a warning. */
	free(sh("cp prog prog2 && '%s' --feature dev --soname libdlr_dev.so.1 prog && "
		"'%s' --feature dev --soname libdlr_dev.so prog2", tool(), tool()));
	out = sh("'%s' --check --recorded=trace prog", tool());
	cr_expect_str_eq(out, "prog: ok (1 dlopen entry; recorded: 1 library dlopen()ed, none undeclared)");
	free(out);
	out = sh("'%s' --check prog2", tool());
	cr_expect_str_eq(out, "prog2: warning: soname libdlr_dev.so has no version after .so: it names a development "
			      "symlink, which packages ship for linking, not for running; declare the versioned soname\n"
			      "prog2: ok (1 dlopen entry)");
	free(out);
}

/* One object under two names: dlopen("libdlr_t1.so.1") then dlopen() of a symlink to it, which
 * the loader answers with the object already loaded (no object mapped, no audit callback of its
 * own).  The second is "loaded" too, with the object's soname: declared by that soname, the lint
 * passes; before, it said "asked for with dlopen(), not found". */
Test(record, one_object_under_two_names_is_loaded_under_both)
{
	struct cmd c;
	char *out;

	record_build();
	free(sh("ln -s libdlr_t1.so.1 libdlr_alias.so.7 && "
		"'%s' --record=trace -- ./prog o:libdlr_t1.so.1 o:libdlr_alias.so.7 > out && "
		"grep -q 'libdlr_alias.so.7 loaded' out", tool()));
	out = sh("grep -c '\"event\":\"loaded\".*\"name\":\"libdlr_alias.so.7\",\"soname\":\"libdlr_t1.so.1\"' trace");
	cr_expect_str_eq(out, "1", "no loaded line for the alias:\n%s", get_file("trace", NULL));
	free(out);
	c = run("'%s' --check --recorded=trace prog", tool());
	cr_expect_str_eq(c.out, "prog: undeclared: libdlr_t1.so.1: dlopen()ed during the recording\n");
	cmd_free(&c);
	free(sh("'%s' --feature t1 --soname libdlr_t1.so.1 prog", tool()));
	out = sh("'%s' --check --recorded=trace prog", tool());
	cr_expect_str_eq(out, "prog: ok (1 dlopen entry; recorded: 1 library dlopen()ed, none undeclared)");
	free(out);
	/* a name that is no file stays "not found" */
	free(sh("'%s' --record=trace2 -- ./prog o:libdlr_t1.so.1 o:libdlr_nosuch.so.1 > out2", tool()));
	c = run("'%s' --check --recorded=trace2 prog", tool());
	cr_expect_str_eq(c.out, "prog: undeclared: libdlr_nosuch.so.1: asked for with dlopen(), not found, during the "
				"recording\n");
	cmd_free(&c);
}

/* A trace of the build tree lints the packaged files: the module writes each caller's GNU
 * build-id, and a FILE matches the trace by build-id first, then by path.  The program is
 * recorded where it was built, then checked as a copy at another path and as a stripped copy
 * (strip keeps the build-id note). */
Test(record, a_trace_of_the_build_tree_lints_packaged_copies_by_build_id)
{
	struct cmd c;
	char *out, *id;

	record_build();
	free(sh("'%s' --record=trace -- ./prog o:libdlr_a.so.1 >/dev/null && mkdir -p pkg/usr/bin && cp prog pkg/usr/bin/prog && "
		"strip -o pkg/usr/bin/prog-stripped prog", tool()));
	id = sh("readelf -nW prog | sed -n 's/.*Build ID: //p'");
	cr_assert(strlen(id) >= 16, "no build-id in prog: %s", id);
	out = sh("grep -c '\"name\":\"libdlr_a.so.1\",\"caller_build_id\":\"%s\"' trace", id);
	cr_expect_str_eq(out, "1");
	free(out);
	for (const char *const *f = (const char *const[]){ "pkg/usr/bin/prog", "pkg/usr/bin/prog-stripped", NULL }; *f; f++) {
		c = run("'%s' --check --recorded=trace %s", tool(), *f);
		cr_expect_eq(c.status, 1, "%s", *f);
		cr_expect(strstr(c.out, ": undeclared: libdlr_a.so.1: dlopen()ed during the recording"), "%s: %s", *f, c.out);
		cmd_free(&c);
		out = sh("'%s' --discover --recorded=trace -q %s | grep -c libdlr_a.so.1", tool(), *f);
		cr_expect_str_eq(out, "1", "%s: not drafted", *f);
		free(out);
	}
	/* a file of another build-id at a path the trace does not name: nothing recorded for it; and
	 * since no file checked is one that dlopen()ed, the lint checked nothing: it fails */
	c = run("'%s' --check --recorded=trace libdlr_b.so.1", tool());
	cr_expect_eq(c.status, 1, "%s", c.out);
	cr_expect_str_eq(c.out, "libdlr_b.so.1: ok (0 dlopen entries; no dlopen() by it in the recording)\n");
	cr_expect(strstr(c.err, "dlnote-inject: trace: no file checked is one that dlopen()ed during the recording (1 of the "
				"build tree did: ") && strstr(c.err, "/prog): nothing was linted against it"), "%s", c.err);
	cmd_free(&c);
	free(id);
}
