/* SPDX-License-Identifier: MIT */
/* test_cli.c - what a user of the command sees: modes, exit statuses, one-line errors, manifest
 * positions, and the in-place guarantees (atomic, metadata kept, symlinks followed, failures
 * leave the file untouched and no temporary behind). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char obj_c[] = "int helper(int x) { return x * 2; }\n";

static void object(const char *name)
{
	put_file("o.c", obj_c);
	free(sh("gcc -c o.c -o '%s'", name));
}

static void expect_fail(const char *args, int status, const char *message)
{
	struct cmd c = run("'%s' %s", tool(), args);

	cr_expect_eq(c.status, status, "`%s` exits %d, not %d (stderr: %s)", args, c.status, status, c.err);
	cr_expect(strstr(c.err, message), "`%s` says \"%s\", which lacks \"%s\"", args, c.err, message);
	cr_expect(strchr(c.err, '\n') == c.err + strlen(c.err) - 1 || strstr(c.err, "Try '"),
		  "`%s`: an error is one line: %s", args, c.err);
	cmd_free(&c);
}

Test(cli, usage_errors_exit_2)
{
	object("a.o");
	object("b.o");
	expect_fail("", 2, "dlnote-inject: no FILE given");
	expect_fail("--bogus a.o", 2, "unrecognized option");
	expect_fail("a.o", 2, "no entries");
	expect_fail("--json a.o", 2, "--json is only for --list");
	expect_fail("--soname x -o out.o a.o b.o", 2, "-o/--output takes exactly one FILE");
	expect_fail("--remove --soname x a.o", 2, "entries cannot be given with --remove");
	expect_fail("--merge --remove a.o", 2, "cannot be combined");
	expect_fail("--feature f a.o", 2, "has no --soname");
	expect_fail("--soname x --priority urgent a.o", 2, "--priority: must be required, recommended or suggested");
	expect_fail("--soname '' a.o", 2, "--soname: empty soname");
	expect_fail("--soname x --description \"$(printf 'a\\tb')\" a.o", 2, "--description: control character");
	expect_fail("--soname x --description \"$(printf '\\300\\200')\" a.o", 2, "--description: invalid UTF-8");
	expect_fail("--soname x --description a --description b a.o", 2, "--description given twice");
	/* An entry being built when the error comes is not leaked (the sanitized pass checks). */
	expect_fail("--soname x --bogus a.o", 2, "unrecognized option '--bogus'");
	expect_fail("--soname x a.o -o", 2, "option '-o' needs an argument");
	/* Usage is checked before any manifest is read. */
	expect_fail("-m missing.json --bogus a.o", 2, "unrecognized option");
	expect_fail("-m - --files-from - < /dev/null", 2, "--manifest - and --files-from - cannot both read standard input");
}

Test(cli, bad_input_exits_1_naming_the_file)
{
	object("a.o");
	put_file("text", "not an elf\n");
	free(sh("mkdir d && mkfifo fifo"));
	expect_fail("--soname x text", 1, "dlnote-inject: text: not an ELF file");
	expect_fail("--soname x d", 1, "dlnote-inject: d: not a regular file");
	expect_fail("--soname x fifo", 1, "dlnote-inject: fifo: not a regular file");
	expect_fail("--soname x missing", 1, "dlnote-inject: missing: No such file or directory");
	expect_fail("--list text", 1, "dlnote-inject: text: not an ELF file");
	free(sh("head -c 40 a.o > trunc.o"));
	expect_fail("--soname x trunc.o", 1, "dlnote-inject: trunc.o: truncated");
}

Test(cli, manifest_errors_give_line_and_column)
{
	object("a.o");
	put_file("bad.json", "[\n  {\"soname\": [\"libz.so.1\"],\n   \"priority\": \"urgent\"}\n]\n");
	expect_fail("-m bad.json a.o", 1, "dlnote-inject: bad.json: line 3, column 16: entry 1: \"priority\" must be");
	put_file("dup.json", "[{\"soname\":[\"a\"],\"soname\":[\"b\"]}]");
	expect_fail("-m dup.json a.o", 1, "dlnote-inject: dup.json: line 1, column 18: duplicate key \"soname\"");
	put_file("nosoname.json", "[\n{\"feature\":\"x\"}]");
	expect_fail("-m nosoname.json a.o", 1, "line 2, column 1: entry 1 has no \"soname\"");
	put_file("trail.json", "[] x");
	expect_fail("-m trail.json a.o", 1, "line 1, column 4: unexpected text after the array");
	put_file("esc.json", "[{\"soname\":[\"a\\u0041\"]}]");
	expect_fail("-m esc.json a.o", 1, "\\u escapes are not allowed");
	put_file("empty.json", "");
	expect_fail("-m empty.json a.o", 1, "empty manifest");
	expect_fail("-m nonexistent.json a.o", 1, "dlnote-inject: nonexistent.json: No such file or directory");
	/* Stdin is read as a manifest too, and named in errors. */
	expect_fail("-m - a.o < bad.json", 1, "dlnote-inject: <stdin>: line 3, column 16");
	cr_expect(same_files("a.o", "a.o"));
}

Test(cli, list_json_prints_back_exactly_what_was_written)
{
	const char *m = "[{\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"],\"feature\":\"foo\",\"description\":\"Enables the foo feature — ✓ \\\"quoted\\\" \\\\ back/slash\","
			"\"priority\":\"suggested\",\"x-unknown\":{\"nested\":[1,2.5e3,-0.5,true,false,null,\"s\"]}},{\"soname\":[\"libbar.so.2\"]}]";
	char *got;

	object("a.o");
	put_file("m.json", m);
	free(sh("'%s' -m m.json a.o", tool()));
	got = sh("'%s' --list --json a.o", tool());
	cr_expect_str_eq(got, m);
	free(got);
	/* Whitespace and escapes are normalized to the compact canonical form. */
	put_file("pretty.json", "[ {\n  \"soname\" : [ \"a\\/b\" ] ,\n  \"feature\" : \"f\"\n} ]\n");
	free(sh("'%s' -m pretty.json a.o", tool()));
	got = sh("'%s' --list --json a.o", tool());
	cr_expect_str_eq(got, "[{\"soname\":[\"a/b\"],\"feature\":\"f\"}]");
	free(got);
}

Test(cli, manifests_then_flags_in_order)
{
	char *got;

	object("a.o");
	put_file("1.json", "[{\"soname\":[\"one\"]}]");
	put_file("2.json", "[{\"soname\":[\"two\"]}]");
	free(sh("'%s' --feature f3 --soname three --soname three.alt --description 'd 3' --priority required "
		"-m 1.json --feature f4 --soname four -m 2.json a.o", tool()));
	got = sh("'%s' --list --json a.o", tool());
	cr_expect_str_eq(got, "[{\"soname\":[\"one\"]},{\"soname\":[\"two\"]},"
			      "{\"soname\":[\"three\",\"three.alt\"],\"feature\":\"f3\",\"description\":\"d 3\",\"priority\":\"required\"},"
			      "{\"soname\":[\"four\"],\"feature\":\"f4\"}]");
	free(got);
}

Test(cli, merge_keeps_existing_and_skips_duplicates)
{
	char *got;

	object("a.o");
	free(sh("'%s' --soname one a.o", tool()));
	free(sh("'%s' --merge --soname one --feature f --soname two a.o", tool()));
	got = sh("'%s' --list --json a.o", tool());
	cr_expect_str_eq(got, "[{\"soname\":[\"one\"]},{\"soname\":[\"two\"],\"feature\":\"f\"}]");
	free(got);
}

Test(cli, table_listing)
{
	char *got;

	object("a.o");
	put_file("m.json", "[{\"soname\":[\"libfoo.so.1\",\"libfoo.so.0\"]}]");
	free(sh("'%s' --feature zstd --soname libzstd.so.1 --description 'Zstd support' --priority recommended -m m.json a.o", tool()));
	got = sh("'%s' --list a.o", tool());
	cr_expect_str_eq(got, "FEATURE  DESCRIPTION   SONAME                    PRIORITY\n"
			      "-        -             libfoo.so.1, libfoo.so.0  recommended\n"
			      "zstd     Zstd support  libzstd.so.1              recommended");
	free(got);
}

Test(cli, in_place_keeps_mode_owner_and_follows_symlinks)
{
	char *st, *lst;

	object("a.o");
	free(sh("chown 1234:5678 a.o && chmod 4751 a.o && ln -s a.o link.o && ln -s link.o link2.o"));
	free(sh("'%s' --soname x link2.o", tool()));
	st = sh("stat -c '%%a %%u %%g %%F' a.o");
	cr_expect_str_eq(st, "4751 1234 5678 regular file");
	lst = sh("stat -c '%%F' link.o link2.o | tr '\\n' ' '");
	cr_expect_str_eq(lst, "symbolic link symbolic link ");
	free(st);
	free(lst);
	st = sh("'%s' --list --json a.o", tool());
	cr_expect_str_eq(st, "[{\"soname\":[\"x\"]}]");
	free(st);
}

Test(cli, failure_leaves_the_file_untouched_and_no_temporary)
{
	struct cmd c;
	char *ls;

	object("a.o");
	free(sh("cp a.o orig.o && mkdir ro && cp a.o ro/a.o && chmod 555 ro"));
	put_file("bad.json", "[{\"soname\":[]}]");
	c = run("'%s' -m bad.json a.o", tool());
	cr_expect_eq(c.status, 1);
	cmd_free(&c);
	cr_expect(same_files("a.o", "orig.o"), "a failed run changed the file");
	/* A read-only directory: clear error, nothing changed (root would bypass it: use a user). */
	c = run("setpriv --reuid=65534 --regid=65534 --clear-groups '%s' --soname x ro/a.o", tool());
	cr_expect_eq(c.status, 1, "exit %d: %s", c.status, c.err);
	cr_expect(strstr(c.err, "dlnote-inject: ro/a.o: "), "%s", c.err);
	cmd_free(&c);
	cr_expect(same_files("ro/a.o", "orig.o"));
	ls = sh("ls -A ro; ls -A | grep -c dlnote; true");
	cr_expect_str_eq(ls, "a.o\n0", "temporaries left behind: %s", ls);
	free(ls);
}

Test(cli, several_files_are_handled_each_on_their_own)
{
	struct cmd c;
	char *a, *b;

	object("a.o");
	object("b.o");
	put_file("junk", "junk");
	c = run("'%s' --soname x a.o junk b.o", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "dlnote-inject: junk: not an ELF file"));
	cmd_free(&c);
	a = sh("'%s' --list --json a.o", tool());
	b = sh("'%s' --list --json b.o", tool());
	cr_expect_str_eq(a, "[{\"soname\":[\"x\"]}]");
	cr_expect_str_eq(b, "[{\"soname\":[\"x\"]}]");
	free(a);
	free(b);
}

Test(cli, output_option_leaves_the_input_alone)
{
	char *got;

	object("a.o");
	free(sh("cp a.o orig.o && '%s' --soname x -o out.o a.o", tool()));
	cr_expect(same_files("a.o", "orig.o"));
	got = sh("'%s' --list --json out.o", tool());
	cr_expect_str_eq(got, "[{\"soname\":[\"x\"]}]");
	free(got);
}

/* Found by the fuzzer: an unchanged file written with -o was an empty file. */
Test(cli, output_of_an_unchanged_file_is_a_copy)
{
	object("a.o");
	free(sh("'%s' --soname x a.o && '%s' --soname x -o copy.o a.o", tool(), tool()));
	cr_expect(same_files("a.o", "copy.o"), "-o on a file that already holds the note must copy it");
}

Test(cli, hard_links_see_the_new_content)
{
	char *a, *n;

	object("a.o");
	free(sh("ln a.o b.o && '%s' --soname x a.o", tool()));
	a = sh("'%s' --list --json b.o", tool());
	cr_expect_str_eq(a, "[{\"soname\":[\"x\"]}]", "the other link sees %s", a);
	n = sh("stat -c %%h a.o");
	cr_expect_str_eq(n, "2", "the hard link was split");
	free(a);
	free(n);
}

Test(cli, check_reports_spec_violations)
{
	struct cmd c;

	object("a.o");
	/* A note written by hand with a bad priority, through objcopy. */
	free(sh("/usr/bin/python3 -c 'import struct,sys; j=b\"[{\\\"soname\\\":[\\\"a\\\"],\\\"priority\\\":\\\"x\\\"}]\\0\"; "
		"sys.stdout.buffer.write(struct.pack(\"<III\", 4, len(j), 0x407c0c0a) + b\"FDO\\0\" + j + bytes(-len(j) %% 4))' > n.bin"
		" && objcopy --add-section .note.dlopen=n.bin --set-section-flags .note.dlopen=alloc,readonly "
		"--set-section-alignment .note.dlopen=4 a.o bad.o"));
	c = run("'%s' --check bad.o", tool());
	cr_expect_eq(c.status, 1, "check exit %d: %s %s", c.status, c.out, c.err);
	cr_expect(strstr(c.out, "bad.o: error: dlopen note at offset"), "%s", c.out);
	cr_expect(strstr(c.out, "\"priority\" must be"), "%s", c.out);
	cmd_free(&c);
	free(sh("'%s' --soname y a.o", tool()));
	c = run("'%s' --check a.o", tool());
	cr_expect_eq(c.status, 0);
	cr_expect_str_eq(c.out, "a.o: ok (1 dlopen entry)\n");
	cmd_free(&c);
}

Test(cli, never_dies_from_a_signal)
{
	struct cmd c;

	object("a.o");
	free(sh("'%s' --soname x a.o", tool()));
	/* A closed pipe is a write error, not SIGPIPE. */
	c = run("'%s' --list --json a.o a.o a.o | true; echo ${PIPESTATUS:-done}", tool());
	cr_expect_eq(c.status, 0);
	cmd_free(&c);
	c = run("bash -c \"set -o pipefail; '%s' --list a.o a.o | (exec 0<&-; true)\"", tool());
	cr_expect(c.status == 0 || c.status == 1, "status %d", c.status);
	cmd_free(&c);
}

Test(cli, verbose_twice_prints_the_plan)
{
	char *v;

	object("a.o");
	v = sh("'%s' -vv --soname x a.o 2>&1", tool());
	cr_expect(strstr(v, "dlnote-inject: a.o: section groups added"), "%s", v);
	cr_expect(strstr(v, "copy input bytes 0x0-0x"), "%s", v);
	cr_expect(strstr(v, " new bytes"), "%s", v);
	free(v);
	v = sh("'%s' -v --soname y a.o 2>&1", tool());
	cr_expect(!strstr(v, "copy input bytes"), "-v alone does not print the plan: %s", v);
	free(v);
}

/* Requirement 5 of issue 11: "[]" is a manifest that declares no entry. */
Test(cli, an_empty_manifest_replaces_with_nothing_and_merges_nothing)
{
	char *got, *before, *after;

	object("a.o");
	put_file("empty.json", " [ ]\n");
	free(sh("'%s' --feature z --soname libz.so.1 a.o && cp a.o noted.o", tool()));
	/* --merge with it changes nothing: not a byte, not the modification time. */
	before = sh("stat -c %%Y.%%y a.o; sha256sum < a.o");
	free(sh("sleep 1.1 && '%s' --merge -m empty.json a.o", tool()));
	after = sh("stat -c %%Y.%%y a.o; sha256sum < a.o");
	cr_expect_str_eq(after, before, "--merge with [] touched the file");
	free(before), free(after);
	/* Replace with it removes the notes, as --remove does. */
	free(sh("'%s' -m empty.json a.o && '%s' --remove -o removed.o noted.o", tool(), tool()));
	got = sh("'%s' --list --json a.o", tool());
	cr_expect_str_eq(got, "[]");
	free(got);
	cr_expect(same_files("a.o", "removed.o"), "replace with [] and --remove differ");
	/* From standard input too; and without any manifest it is still a usage error. */
	free(sh("'%s' -m - -o stdin.o noted.o < empty.json", tool()));
	cr_expect(same_files("stdin.o", "removed.o"));
	expect_fail("a.o", 2, "no entries: give --manifest or --soname");
}
