/* SPDX-License-Identifier: MIT */
/* test_terminal.c - what comes from files reaches the terminal escaped (issue 13 §4): names
 * with a newline, ESC and invalid UTF-8 in errors, table headers, --check lines, -v logs, lint
 * lines, warnings and the draft's comments; JSON output stays valid JSON. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char prog_c[] = "#include <stdio.h>\nint main(int argc, char **argv) { (void)argv; puts(argc > 5 ? \"libzstd.so.1\" : \"hi\"); return 0; }\n";

/* The shell's spelling of the hostile name, and how the tool must show it. */
#define NAME_SH "\"$(printf 'a\\nb\\033[31mc\\377\\177d')\""
#define NAME_SHOWN "a\\nb\\033[31mc\\xff\\177d"

/* No byte that a terminal acts on: C0 controls but the newline, DEL, nor invalid UTF-8 (the
 * tool prints ASCII and valid UTF-8 only). */
static void expect_clean(const char *what, const char *text, int lines)
{
	int n = 0;

	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		cr_expect((*p >= 0x20 && *p < 0x7f) || *p == '\n', "%s: raw byte 0x%02x in: %s", what, *p, text);
		n += *p == '\n';
	}
	if (lines >= 0)
		cr_expect_eq(n, lines, "%s: %d lines, want %d: %s", what, n, lines, text);
}

static void expect_shown(const char *what, const char *text)
{
	cr_expect(strstr(text, NAME_SHOWN), "%s: the name is not shown as %s: %s", what, NAME_SHOWN, text);
}

Test(terminal, hostile_file_names_are_escaped_everywhere)
{
	struct cmd c;

	put_file("p.c", prog_c);
	free(sh("gcc p.c -o prog && '%s' --feature f --soname libz.so.1 prog && cp prog " NAME_SH " && cp prog other && "
		"printf 'not ELF' > " NAME_SH ".bad && printf '[{\"soname\":[\"libq.so.1\"]}]' > m.json", tool()));

	/* An error: one line, the name escaped. */
	c = run("'%s' --soname x " NAME_SH ".bad", tool());
	cr_expect_eq(c.status, 1);
	expect_clean("error", c.err, 1);
	expect_shown("error", c.err);
	cmd_free(&c);
	c = run("'%s' --list " NAME_SH "-missing", tool());
	expect_clean("missing file", c.err, 1);
	cmd_free(&c);

	/* The table's header per file, --check lines. */
	c = run("'%s' --list " NAME_SH " other", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	expect_clean("--list headers", c.out, 6);
	expect_shown("--list headers", c.out);
	cmd_free(&c);
	c = run("'%s' --check " NAME_SH, tool());
	expect_clean("--check", c.out, 1);
	expect_shown("--check", c.out);
	cmd_free(&c);

	/* -v logs, and -o onto such a name. */
	c = run("'%s' -v --soname libq.so.1 " NAME_SH " -o " NAME_SH ".out", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	expect_clean("-v", c.err, -1);
	expect_shown("-v", c.err);
	cmd_free(&c);

	/* Lint lines, and the Debian warning name the file. */
	c = run("'%s' --check --expect m.json " NAME_SH, tool());
	cr_expect_eq(c.status, 1);
	expect_clean("lint", c.out, 2); /* missing (the file lacks it: no ok line), new */
	expect_shown("lint", c.out);
	cmd_free(&c);
	c = run(": > map && '%s' --list --format=deb --deb-map map " NAME_SH, tool());
	expect_clean("deb warning", c.err, 1);
	expect_shown("deb warning", c.err);
	cmd_free(&c);

	/* A manifest or a list with such a name. */
	c = run("'%s' -m " NAME_SH " prog", tool());
	expect_clean("manifest error", c.err, 1);
	cmd_free(&c);
	c = run("'%s' --list --files-from " NAME_SH "-missing", tool());
	expect_clean("list error", c.err, 1);
	expect_shown("list error", c.err);
	cmd_free(&c);
	c = run("'%s' --list --only-feature \"$(printf 'x\\033[2J')\" prog", tool());
	expect_clean("--only-feature", c.err, 1);
	cr_expect(strstr(c.err, "x\\033[2J"), "%s", c.err);
	cmd_free(&c);
}

/* The draft names the file in its comments: escaped C-style, then as JSON; still valid JSON
 * that says where the string was found. */
Test(terminal, discover_draft_names_the_file_escaped_in_valid_json)
{
	char *out;

	put_file("p.c", prog_c);
	free(sh("gcc p.c -o " NAME_SH));
	out = sh("'%s' -q --discover " NAME_SH " > draft.json && /usr/bin/python3 -c \"import json; d=json.load(open('draft.json')); "
		 "print(d[0]['soname'][0]); print(d[0]['description'])\"", tool());
	expect_clean("draft", out, 1);
	cr_expect(strstr(out, "libzstd.so.1\n"), "%s", out);
	expect_shown("draft", out);
	free(out);
}

/* A note written by someone else, with a newline, ESC, DEL, a C1 control and invalid UTF-8 in
 * its strings: the spec forbids them, so reading it fails, with a one-line, clean message. */
Test(terminal, hostile_payload_strings_give_a_clean_one_line_error)
{
	static const char *const payloads[] = {
		"[{\\\"soname\\\":[\\\"a\\\\nb\\\"]}]", "[{\\\"soname\\\":[\\\"\\\\x1b[31m\\\"]}]", "[{\\\"soname\\\":[\\\"x\\\\x7f\\\"]}]",
		"[{\\\"soname\\\":[\\\"x\\\\xc2\\\\x9b2J\\\"]}]", "[{\\\"soname\\\":[\\\"x\\\\xff\\\\xfe\\\"]}]",
		"[{\\\"soname\\\":[\\\"x\\\"],\\\"k\\\\x1b\\\":1,\\\"k\\\\x1b\\\":2}]",
	};

	put_file("o.c", "int helper(int x) { return x * 2; }\n");
	free(sh("gcc -c o.c -o obj"));
	for (size_t i = 0; i < sizeof payloads / sizeof payloads[0]; i++) {
		struct cmd c;
		/* The note by hand: namesz 4, descsz, type 0x407c0c0a, "FDO\0", payload, NUL, padding. */
		free(sh("/usr/bin/python3 -c \"import struct; p=b'%s'+b'\\\\0'; p+=b'\\\\0'*(-len(p)%%4); "
			"open('note.bin','wb').write(struct.pack('<III',4,len(p),0x407c0c0a)+b'FDO\\\\0'+p)\" && "
			"objcopy --add-section .note.dlopen=note.bin --set-section-flags .note.dlopen=alloc,readonly "
			"--set-section-alignment .note.dlopen=4 obj hand.o", payloads[i]));
		for (int k = 0; k < 3; k++) {
			const char *mode = k == 0 ? "--list" : k == 1 ? "--list --json" : "--check";
			c = run("'%s' %s hand.o", tool(), mode);
			cr_expect_eq(c.status, 1, "payload %zu, %s: exit %d", i, mode, c.status);
			expect_clean(mode, c.err, 1);
			expect_clean(mode, c.out, -1);
			cmd_free(&c);
		}
	}
}
