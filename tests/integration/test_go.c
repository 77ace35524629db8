/* SPDX-License-Identifier: MIT */
/* test_go.c - Go programs (issue "Real distribution files", item 1).
 *
 * A stripped Go program ends its file data where its NOBITS sections (.bss, .noptrbss, and
 * .tbss when linked externally) have their offset.  A note too big for the page padding puts
 * our segment at that very offset; every later edit must still leave those section headers
 * alone: a section header the tool did not create is never its own, whatever its offset.
 * After every step: the readers, the layout invariants (readers.py validate, which compares
 * every section header the tool does not own), eu-elflint, the program's output, and copies
 * made by GNU strip and eu-strip that must still run. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

struct gocase {
	char name[48];
	char build[256];
	char need[16];
};

static const char hello_go[] =
	"package main\n\nimport \"fmt\"\n\nvar big [1 << 20]byte\n\n"
	"func main() { big[5] = 3; fmt.Println(\"go\", big[5]) }\n";

static struct gocase gocases[] = {
	{ "golang-go internal linker", "go build -o in0 hello.go", "go" },
	{ "golang-go external linker (.tbss)", "go build -ldflags=-linkmode=external -o in0 hello.go", "go" },
	{ "gccgo", "gccgo -O1 -o in0 hello.go", "gccgo" },
};

ParameterizedTestParameters(go, nobits_sections_survive_every_edit)
{
	return cr_make_param_array(struct gocase, gocases, sizeof gocases / sizeof gocases[0]);
}

static void check(const struct gocase *c, const char *step, const char *expect_run, const char *lint_in)
{
	char *v, *ran, *lint;

	v = readers("validate in out");
	cr_expect_str_eq(v, "OK", "%s %s: %s", c->name, step, v);
	free(v);
	ran = sh("./out 2>&1; echo \"exit $?\"");
	cr_expect_str_eq(ran, expect_run, "%s %s: the program prints %s", c->name, step, ran);
	free(ran);
	lint = elflint("out");
	cr_expect_str_eq(lint, lint_in, "%s %s: eu-elflint now says\n%s\ninstead of\n%s", c->name, step, lint, lint_in);
	free(lint);
	for (int k = 0; k < 2; k++) {
		const char *stripper = k ? "eu-strip" : "strip";
		/* Compared with the input stripped by the same tool. */
		ran = sh("cp out st && cp in in.st && %s st && %s in.st && ./st 2>&1; echo \"exit $?\"", stripper, stripper);
		cr_expect_str_eq(ran, expect_run, "%s %s: after %s the program prints %s", c->name, step, stripper, ran);
		free(ran);
		v = readers("validate in.st st");
		cr_expect_str_eq(v, "OK", "%s %s: after %s: %s", c->name, step, stripper, v);
		free(v);
	}
}

ParameterizedTest(struct gocase *c, go, nobits_sections_survive_every_edit, .timeout = 300)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, gocases), "go::nobits_sections_survive_every_edit"))
		return;
	char *expect_run, *lint_in, *got, *v;
	struct cmd r;

	need(c->need);
	need("eu-elflint");
	put_file("hello.go", hello_go);
	put_big_manifest("big.json", 60);
	put_big_manifest("bigger.json", 70);
	free(sh("GOCACHE=\"$PWD/gocache\" %s && strip -o in in0 && rm -rf gocache && cp in out", c->build));
	v = sh("readelf -SW in | grep -c NOBITS");
	cr_assert(atoi(v) >= 1, "%s: the input has no NOBITS section", c->name);
	free(v);
	expect_run = sh("./in 2>&1; echo \"exit $?\"");
	cr_assert_str_eq(expect_run, "go 3\nexit 0", "%s: the input itself does not run", c->name);
	lint_in = elflint("in");

	r = run("'%s' -v -m big.json out", tool());
	cr_expect(strstr(r.err, "after the end of the file"), "%s: the first injection should go after the file data: %s", c->name, r.err);
	cmd_free(&r);
	check(c, "add", expect_run, lint_in);
	free(sh("'%s' --merge --soname libmerged.so.1 out", tool()));
	got = sh("'%s' --list --json out | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)[-1][\"soname\"][0])'", tool());
	cr_expect_str_eq(got, "libmerged.so.1", "%s: merge", c->name);
	free(got);
	check(c, "merge", expect_run, lint_in);
	free(sh("'%s' -m bigger.json out", tool()));
	check(c, "replace (grown)", expect_run, lint_in);
	free(sh("'%s' --soname libz.so.1 out", tool()));
	expect_entries("out", "[{\"soname\":[\"libz.so.1\"]}]", 1);
	check(c, "replace (shrunk)", expect_run, lint_in);
	free(sh("'%s' --remove out", tool()));
	expect_entries("out", "[]", 1);
	check(c, "remove", expect_run, lint_in);
	free(sh("'%s' -m big.json out", tool()));
	check(c, "re-add", expect_run, lint_in);
	free(expect_run);
	free(lint_in);
}
