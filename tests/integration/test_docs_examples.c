/* SPDX-License-Identifier: MIT */
/* test_docs_examples.c - the complete examples that the pages a user lands on show (README.md,
 * docs/build-systems.md, docs/packaging.md, docs/recording.md), taken from the pages byte for byte (doc_block)
 * and run: their files, their commands, and the output the page shows.  The program is also
 * read by independent readers and run.  The commands name `dlnote-inject` as a user types it:
 * PATH starts with a directory whose dlnote-inject is the tool under test (or, for CMake's
 * find_package, its `make install` into stage/usr). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The entry of the pages' app-dlopen.json, as the readers print it. */
#define ZSTD_ENTRY \
	"[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"description\":\"Support zstd compression\"," \
	"\"priority\":\"recommended\"}]"

/* PAGE's block MARK, into FILE in the work directory. */
static void put_block(const char *page, const char *mark, const char *file)
{
	char *text = doc_block(page, mark);

	put_file(file, text);
	free(text);
}

/* PAGE's block MARK run by sh -e in the work directory, with the tool under test first in PATH
 * and the environment ENV ("VAR=VALUE ...", or ""); its standard output and error. */
static struct cmd run_block(const char *page, const char *mark, const char *env)
{
	char *script = doc_block(page, mark);
	struct cmd c;

	put_file("block.sh", script);
	free(sh("mkdir -p bin && ln -sf '%s' bin/dlnote-inject", tool()));
	c = run("PATH=\"$PWD/bin:$PATH\" %s sh -e block.sh", env);
	free(script);
	return c;
}

/* What the example's program carries, by the section and the segment readers, and that it
 * runs. */
static void expect_app(const char *app)
{
	char *got;

	expect_entries(app, ZSTD_ENTRY, 1);
	got = sh("./%s", app);
	cr_expect(strcmp(got, "zstd loaded") == 0 || strcmp(got, "zstd missing") == 0, "%s printed: %s", app, got);
	free(got);
}

/* The block's output ends with the page's `listed` block. */
static void expect_listed(const struct cmd *c, const char *page)
{
	char *listed = doc_block(page, "example: listed");
	size_t n = strlen(listed), m = strlen(c->out);

	cr_expect_eq(c->status, 0, "the example of %s failed:\n%s\n%s", page, c->out, c->err);
	cr_expect(m >= n && strcmp(c->out + m - n, listed) == 0, "%s shows\n%s\nbut the commands printed\n%s", page,
		  listed, c->out);
	free(listed);
}

/* PAGE's example: its program and manifest, PROJECT (a file of the page, or NULL), then SETUP
 * (shell, or NULL) in the work directory, and the commands of its block BUILD with ENV: they
 * end by listing the entries the page shows, and the program APP carries them and runs. */
static void example(const char *page, const char *project, const char *setup, const char *build, const char *env,
		    const char *app)
{
	char mark[64];
	struct cmd c;

	put_block(page, "example: app.c", "app.c");
	put_block(page, "example: app-dlopen.json", "app-dlopen.json");
	if (project) {
		snprintf(mark, sizeof mark, "example: %s", project);
		put_block(page, mark, project);
	}
	if (setup)
		free(sh("%s", setup));
	c = run_block(page, build, env);
	expect_listed(&c, page);
	cmd_free(&c);
	expect_app(app);
}

Test(docs, readme_example_injects_and_lists)
{
	need("cc");
	example("README.md", NULL, NULL, "example: use", "", "app");
}

Test(docs, build_systems_cmake_example_builds, .timeout = 120)
{
	if (sanitized_pass_leaves("CMake runs the tool; its modes run directly in other tests"))
		return;
	need("cmake");
	need("make");
	stage_install();
	example("docs/build-systems.md", "CMakeLists.txt", NULL, "example: cmake build",
		"CMAKE_PREFIX_PATH=\"$PWD/stage/usr\"", "build/app");
}

Test(docs, build_systems_meson_example_builds, .timeout = 120)
{
	char setup[4300];

	if (sanitized_pass_leaves("Meson runs the tool; its modes run directly in other tests"))
		return;
	need("meson");
	need("ninja");
	/* The source tree as a subproject, as tests/buildsys/meson.sh copies it. */
	snprintf(setup, sizeof setup,
		 "mkdir -p subprojects/dlnote && for f in meson.build meson_options.txt Makefile VERSION meson src; do "
		 "cp -r '%s'/$f subprojects/dlnote/ || exit 1; done",
		 srcdir());
	example("docs/build-systems.md", "meson.build", setup, "example: meson build", "", "build/app");
}

Test(docs, packaging_example_gives_the_dependencies)
{
	struct cmd c;
	char *want;

	need("cc");
	need("dpkg-query");
	put_block("docs/build-systems.md", "example: app.c", "app.c");
	put_block("docs/packaging.md", "example: app-dlopen.json", "app-dlopen.json");
	free(sh("mkdir -p pkgroot/usr/bin && cc app.c -o pkgroot/usr/bin/app"));
	c = run_block("docs/packaging.md", "example: package", "");
	want = doc_block("docs/packaging.md", "example: dependencies");
	cr_expect_eq(c.status, 0, "%s\n%s", c.out, c.err);
	cr_expect_str_eq(c.out, want, "docs/packaging.md shows\n%s\nbut the commands printed\n%s", want, c.out);
	free(want);
	cmd_free(&c);
	expect_entries("pkgroot/usr/bin/app", ZSTD_ENTRY, 1);
}

Test(docs, recording_example_drafts_and_lints)
{
	struct cmd c;
	char *want;

	need("cc");
	put_block("docs/recording.md", "example: app.c", "app.c");
	c = run_block("docs/recording.md", "example: record", "");
	want = doc_block("docs/recording.md", "example: recorded");
	cr_expect_eq(c.status, 1, "the lint passed:\n%s\n%s", c.out, c.err);
	cr_expect_str_eq(c.out, want, "docs/recording.md shows\n%s\nbut the commands printed\n%s", want, c.out);
	cr_expect(strstr(c.err, "dlnote-inject: app: 1 undeclared dlopen() dependency in app.trace\n"), "%s", c.err);
	free(want);
	cmd_free(&c);
	/* The draft declared, the same lint passes. */
	c = run_block("docs/recording.md", "example: declare", "");
	want = doc_block("docs/recording.md", "example: declared");
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, want, "docs/recording.md shows\n%s\nbut the commands printed\n%s", want, c.out);
	free(want);
	cmd_free(&c);
}
