/* SPDX-License-Identifier: MIT */
/* test_packaging_docs.c - the packaging options' usage errors and their documentation: every
 * long option in --help, the man page and the bash completion; the man page rendering without
 * warnings; the completion of options and values; make install putting the man page and the
 * completion in place. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "packaging_fixtures.h"

/* ---- usage, documentation, completion, install ---- */

Test(packaging, packaging_options_usage_errors)
{
	build_apps("gcc", "");
	put_file("m.json", "[]");
	put_file("bad.map", "libfido2-1: libfido2.so.1\nno separator here\n");
	put_file("badpkg.map", "Bad_Name: libfido2.so.1\n");
	expect_usage("--list --format=xml app", "--format: unknown format 'xml'");
	expect_usage("--format=rpm app", "--format is only for --list");
	expect_usage("--check --format=rpm app", "--format is only for --list");
	expect_usage("--check --only-feature=x app", "--only-feature is only for --list");
	expect_usage("--list --only-priority=urgent app", "--only-priority: 'urgent' is not required, recommended or suggested");
	expect_usage("--list --json --format=rpm app", "--format cannot be combined with --json");
	expect_usage("--rpm-requires --check app", "cannot be combined");
	expect_usage("--list --format=deb app", "--format=deb needs --deb-map");
	expect_usage("--list --deb-map=m.json app", "--deb-map is only for --list --format=deb");
	expect_usage("--list --expect=m.json app", "--expect is only for --check");
	expect_usage("--discover --soname x app", "entries cannot be given with --discover");
	expect_usage("--discover -o out app", "-o/--output cannot be used with --discover");
	{
		struct cmd c = run("'%s' --list --format=deb --deb-map=bad.map app", tool());
		cr_expect_eq(c.status, 1);
		cr_expect_str_eq(c.err, "dlnote-inject: bad.map: line 2: expected \"PACKAGE[, PACKAGE...]: PATH\", as dpkg-query --search prints\n");
		cmd_free(&c);
		c = run("'%s' --list --format=deb --deb-map=badpkg.map app", tool());
		cr_expect_eq(c.status, 1);
		cr_expect_str_eq(c.err, "dlnote-inject: badpkg.map: line 1: \"Bad_Name\" is not a Debian package name\n");
		cmd_free(&c);
	}
}

/* Every long option in cli.c is in --help, the man page and the bash completion. */
Test(packaging, every_option_is_documented_and_completed)
{
	char *opts, *help, *missing;

	opts = sh("sed -n 's/^\t{ *\"\\([a-z-]*\\)\", .*/\\1/p' '%s/src/cli/cli.c' | tr '\\n' ' '", srcdir());
	cr_assert(strstr(opts, "format") && strstr(opts, "discover"), "options: %s", opts);
	help = sh("'%s' --help | wc -l", tool());
	cr_expect(atoi(help) <= 60, "--help is %s lines: keep it on one screen", help);
	missing = sh("for o in %s; do '%s' --help | grep -q -e \"--$o\\b\" || echo \"help: $o\"; "
		     "sed 's/[\\\\]-/-/g' '%s/docs/dlnote-inject.1' | grep -q -e \"--$o\\b\" || echo \"man: $o\"; "
		     "grep -q -e \"--$o\\b\" '%s/completion/dlnote-inject.bash' || echo \"completion: $o\"; done",
		     opts, tool(), srcdir(), srcdir());
	cr_expect_str_eq(missing, "", "undocumented options:\n%s", missing);
	free(opts);
	free(help);
	free(missing);
}

Test(packaging, man_page_renders_without_warnings)
{
	char *warn;

	need("groff");
	warn = sh("groff -ww -man -Tutf8 '%s/docs/dlnote-inject.1' 2>&1 >/dev/null", srcdir());
	cr_expect_str_eq(warn, "", "groff -ww: %s", warn);
	free(warn);
	warn = sh("MANWIDTH=80 man -l '%s/docs/dlnote-inject.1' 2>&1 >/dev/null", srcdir());
	cr_expect_str_eq(warn, "", "man -l: %s", warn);
	free(warn);
}

static char *complete(const char *words, int cword)
{
	return sh("bash -c 'source \"%s/completion/dlnote-inject.bash\"; COMP_WORDS=(%s); COMP_CWORD=%d; "
		  "COMP_LINE=\"${COMP_WORDS[*]}\"; _dlnote_inject; printf \"%%s \" \"${COMPREPLY[@]}\"'",
		  srcdir(), words, cword);
}

Test(packaging, bash_completion_completes_options_and_values)
{
	char *got;

	need("bash");
	got = complete("dlnote-inject --list --form", 2);
	cr_expect_str_eq(got, "--format ");
	free(got);
	got = complete("dlnote-inject --list --format s", 3);
	cr_expect_str_eq(got, "sonames symbols ");
	free(got);
	make_dirs("tree/usr");
	put_file("trees", "not a directory");
	got = complete("dlnote-inject --build-root tre", 2);
	cr_expect_str_eq(got, "tree ", "--build-root completes directories");
	free(got);
	/* readline splits --format=r at '='. */
	got = complete("dlnote-inject --list --format = r", 4);
	cr_expect_str_eq(got, "rpm ");
	free(got);
	got = complete("dlnote-inject --priority \"\"", 2);
	cr_expect_str_eq(got, "required recommended suggested ");
	free(got);
	got = complete("dlnote-inject --rpm-re", 1);
	cr_expect_str_eq(got, "--rpm-requires --rpm-recommends ");
	free(got);
}

Test(packaging, make_install_installs_the_man_page_and_the_completion)
{
	char *ls;

	free(sh("make -s -C '%s' install DESTDIR='%s/stage' PREFIX=/usr >/dev/null", srcdir(), workdir()));
	ls = sh("cd stage/usr && ls bin/dlnote-inject share/man/man1/dlnote-inject.1 share/bash-completion/completions/dlnote-inject");
	cr_expect_str_eq(ls, "bin/dlnote-inject\nshare/bash-completion/completions/dlnote-inject\nshare/man/man1/dlnote-inject.1");
	free(ls);
}
