/* SPDX-License-Identifier: MIT */
/* test_classes.c - kinds of ELF files that distributions ship besides programs and libraries
 * (issue "Real distribution files", item 6): kernel modules, objects with compressed debug
 * sections, and separate debug files.  Files without section headers (sstrip) are in
 * test_linked.c's matrix ("no section headers"); Go programs in test_go.c. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define ENTRIES "[{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\"}]"

/* A kernel module is an ET_REL object with .modinfo and .gnu.linkonce.this_module, made by
 * `ld -r` (Kbuild); this one is built without kernel headers.  The note is an object's
 * section; .modinfo and every other section stay byte for byte. */
Test(classes, kernel_module, .timeout = 60)
{
	static const char ko_c[] =
		"__attribute__((section(\".modinfo\"), used)) static const char l[] = \"license=GPL\";\n"
		"__attribute__((section(\".modinfo\"), used)) static const char d[] = \"description=dlnote test\";\n"
		"__attribute__((section(\".gnu.linkonce.this_module\"), used)) static char this_module[64] = \"dlnote\";\n"
		"int init_module(void) { return 0; }\nvoid cleanup_module(void) {}\n";
	char *lint_in, *lint, *a, *b;

	need("eu-elflint");
	put_file("ko.c", ko_c);
	free(sh("gcc -O1 -fno-pic -mcmodel=kernel -ffreestanding -c ko.c -o ko.o && ld -r -o in.ko ko.o && cp in.ko out.ko"));
	lint_in = elflint("in.ko");
	free(sh("printf '%%s' '" ENTRIES "' > m.json && '%s' -m m.json out.ko", tool()));
	expect_entries("out.ko", ENTRIES, 0);
	a = sh("readelf -x .modinfo -x .gnu.linkonce.this_module -x .text in.ko | tail -n +2");
	b = sh("readelf -x .modinfo -x .gnu.linkonce.this_module -x .text out.ko | tail -n +2");
	cr_expect_str_eq(b, a, ".modinfo or the module's sections changed:\n%s\ninstead of\n%s", b, a);
	free(a);
	free(b);
	a = sh("readelf -p .modinfo out.ko | grep -c 'license=GPL\\|description=dlnote test'");
	cr_expect_str_eq(a, "2");
	free(a);
	lint = elflint("out.ko");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s\ninstead of\n%s", lint, lint_in);
	free(lint);
	free(sh("'%s' --remove out.ko", tool()));
	expect_entries("out.ko", "[]", 0);
	free(lint_in);
}

/* -gz: SHF_COMPRESSED debug sections stay compressed and decode the same; the object still
 * links into a program that runs and carries the note. */
Test(classes, compressed_debug_sections, .timeout = 60)
{
	char *a, *b, *ran, *lint_in, *lint;

	need("eu-elflint");
	put_file("lib.c", "int helper(int x) { return x * 2; }\n");
	put_file("main.c", "#include <stdio.h>\nint helper(int);\nint main(void) { printf(\"helper %d\\n\", helper(21)); return 3; }\n");
	free(sh("gcc -g -gz -O1 -c lib.c -o in.o && gcc -O1 -c main.c -o main.o && cp in.o out.o"));
	a = sh("readelf -SW in.o | grep -c ' C '");
	cr_assert(atoi(a) > 0, "gcc -gz made no compressed section");
	lint_in = elflint("in.o");
	free(sh("printf '%%s' '" ENTRIES "' > m.json && '%s' -m m.json out.o", tool()));
	expect_entries("out.o", ENTRIES, 0);
	b = sh("readelf -SW out.o | grep -c ' C '");
	cr_expect_str_eq(b, a, "compressed sections: %s, then %s", a, b);
	free(a);
	free(b);
	a = sh("readelf -wi in.o 2>&1");
	b = sh("readelf -wi out.o 2>&1");
	cr_expect_str_eq(b, a, "the debug information decodes differently");
	free(a);
	free(b);
	lint = elflint("out.o");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s\ninstead of\n%s", lint, lint_in);
	free(sh("gcc -o prog main.o out.o"));
	ran = sh("./prog; echo \"exit $?\"");
	cr_expect_str_eq(ran, "helper 42\nexit 3");
	expect_entries("prog", ENTRIES, 1);
	a = sh("readelf -wi prog 2>&1 >/dev/null");
	cr_expect_str_empty(a, "readelf complains about the program's debug information: %s", a);
	free(a);
	free(ran);
	free(lint);
	free(lint_in);
}

/* A separate debug file (objcopy --only-keep-debug) has the program's headers but NOBITS
 * code: writing into it is refused with one line, and the file stays as it was. */
Test(classes, separate_debug_file_is_refused, .timeout = 60)
{
	static const char *const modes[] = { "--soname libfoo.so.1", "-m m.json" };
	struct cmd r;

	put_file("p.c", "int main(void) { return 0; }\n");
	put_file("m.json", ENTRIES);
	free(sh("gcc -g -O1 -o prog p.c && objcopy --only-keep-debug prog prog.debug && cp prog.debug orig"));
	for (size_t i = 0; i < 2; i++) {
		r = run("'%s' %s prog.debug", tool(), modes[i]);
		cr_expect_eq(r.status, 1, "%s on a debug file: exit %d", modes[i], r.status);
		cr_expect(strstr(r.err, "prog.debug: detached debug file") && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
			  "%s: not one clear line: %s", modes[i], r.err);
		cmd_free(&r);
		cr_expect(same_files("prog.debug", "orig"), "%s changed the debug file", modes[i]);
	}
}
