/* SPDX-License-Identifier: MIT */
/* test_remove.c - `--remove` on linked files leaves nothing of ours that can go (issue 12,
 * item 5): for an input without a dlopen note, adding entries and removing them gives the
 * input back byte for byte, whatever placement the add used; where that cannot be, the test
 * names what differs, computed from the files.  The full add/repeat/grow/shrink/remove/re-add
 * cycle with every reader is the `linked/every_mode` matrix; these inputs cover each
 * placement strategy once (docs/layout.md). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "linked_inputs.h"

struct rcase {
	char name[40];
	char build[300];     /* produces ./in from prog.c or lib.c */
	char need[40];
	char runner[64];     /* prefix to run a program (qemu-user), "" for native */
	int lib;             /* a shared library: run through ./dl */
	char placement[64];  /* what -v must say about the add (the strategy under test) */
};

static const char prog_c[] = "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 3; }\n";
static const char lib_c[] = "int dlnote_answer(void) { return 42; }\n";
static const char dl_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n"
	"int main(int argc, char **argv) { void *h = dlopen(argv[1], RTLD_NOW); if (!h) { puts(dlerror()); return 1; }\n"
	"  int (*f)(void) = (int (*)(void))dlsym(h, \"dlnote_answer\"); printf(\"answer %d\\n\", f ? f() : -1); return 3; }\n";

static struct rcase rcases[] = {
	{ "gcc bfd pie", "gcc -O1 -o in prog.c", "gcc", "", 0, "after a read-only segment" },
	{ "gcc bfd no-pie", "gcc -O1 -no-pie -o in prog.c", "gcc", "", 0, "after a read-only segment" },
	{ "gcc static", "gcc -O1 -static -o in prog.c", "gcc", "", 0, "PHT moved" },
	{ "bfd shared library", "gcc -O1 -shared -fPIC -o in lib.c && gcc -o dl dl.c", "gcc", "", 1, "PHT grown, sections carried" },
	{ "clang lld pie", "clang -O1 -fuse-ld=lld -o in prog.c", "ld.lld", "", 0, "after the end of the file" },
	{ "mold pie", "gcc -O1 -fuse-ld=mold -o in prog.c", "mold", "", 0, "after the end of the file" },
	{ "aarch64 dynamic", "aarch64-linux-gnu-gcc -O1 -o in prog.c", "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu", 0,
	  "after the end of the file" },
	{ "free program header slots", "musl-gcc -O1 -static -o in prog.c && /usr/bin/python3 $DLNOTE_SRC/tests/tools/phdr_room.py in 4",
	  "musl-gcc", "", 0, "new PT_LOAD with the PHT in a free slot" },
};

ParameterizedTestParameters(remove, add_then_remove_gives_back_the_input)
{
	return cr_make_param_array(struct rcase, rcases, sizeof rcases / sizeof rcases[0]);
}

ParameterizedTest(struct rcase *c, remove, add_then_remove_gives_back_the_input, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, rcases), "remove::add_then_remove_gives_back_the_input"))
		return;
	char *v, *run_in, *run_out;

	need(c->need);
	if (c->runner[0]) {
		char prog[64];
		snprintf(prog, sizeof prog, "%.*s", (int)strcspn(c->runner, " "), c->runner);
		need(prog);
	}
	put_file("prog.c", prog_c);
	put_file("lib.c", lib_c);
	put_file("dl.c", dl_c);
	free(sh("%s", c->build));
	free(sh("cp in out"));
	v = sh("'%s' -v --feature foo --soname libfoo.so.1 out 2>&1", tool());
	cr_expect(strstr(v, c->placement), "%s: the add should use '%s': %s", c->name, c->placement, v);
	free(v);
	expect_entries("out", "[{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\"}]", 1);
	v = sh("'%s' -v --remove out 2>&1", tool());
	cr_log_info("%s: %s", c->name, v);
	free(v);
	/* After remove, the readers that do not choke on mold's 8-aligned PT_NOTE of the input
	 * (the matrix's choice too): ours and the PT_NOTE walker. */
	v = entries_by("tool", "out");
	cr_expect_str_eq(v, "[]", "%s: after remove the tool lists %s", c->name, v);
	free(v);
	v = entries_by("segments", "out");
	cr_expect_str_eq(v, "[]", "%s: after remove the PT_NOTE walker sees %s", c->name, v);
	free(v);
	v = sh("cmp in out && echo same; true");
	cr_expect_str_eq(v, "same", "%s: add then remove does not give the input back: %s\n%s", c->name, v,
			 sh("readelf -lSW in > in.txt; readelf -lSW out > out.txt; diff in.txt out.txt; true"));
	free(v);
	run_in = sh("%s ./%s 2>&1; echo \"exit $?\"", c->runner, c->lib ? "dl ./in" : "in");
	run_out = sh("%s ./%s 2>&1; echo \"exit $?\"", c->runner, c->lib ? "dl ./out" : "out");
	cr_expect_str_eq(run_out, run_in, "%s: after add and remove the program prints %s", c->name, run_out);
	free(run_in);
	free(run_out);
}

/* After --remove: no entry for the tool or the PT_NOTE walker, and OUT's layout is valid
 * against IN. */
static void expect_gone_and_valid(const char *in, const char *out)
{
	char *v = entries_by("tool", out);

	cr_expect_str_eq(v, "[]", "%s: the tool reads %s", out, v);
	free(v);
	v = entries_by("segments", out);
	cr_expect_str_eq(v, "[]", "%s: the PT_NOTE walker reads %s", out, v);
	free(v);
	v = readers("validate '%s' '%s'", in, out);
	cr_expect_str_eq(v, "OK", "%s: %s", out, v);
	free(v);
}

/* The C macro's note in a shared library: its header goes and the later sections are
 * renumbered, .dynsym included (the exported function stays in .text); the notes are gone for
 * every reader, the layout is valid, eu-elflint says nothing new, and the library loads. */
Test(remove, macro_note_in_a_library_loses_its_header_and_dynsym_follows, .timeout = 60)
{
	static const char libmacro_c[] =
		"#include <stdint.h>\n"
		"#define NOTE(json, v) __attribute__((used, section(\".note.dlopen\"))) _Alignas(4) %sconst struct {"
		" struct { uint32_t a, b, c; } h; char n[4]; _Alignas(4) char j[sizeof(json)]; } v = "
		"{ { 4, sizeof(json), 0x407c0c0a }, \"FDO\", json }\n"
		"NOTE(\"[{\\\"feature\\\":\\\"macro\\\",\\\"soname\\\":[\\\"libmacro.so.1\\\"]}]\", n1);\n"
		"int dlnote_answer(void) { return 42; }\n";
	char src[1024], *v, *lint_in, *lint;
	struct cmd r;

	need("eu-elflint");
	snprintf(src, sizeof src, libmacro_c, "static ");
	put_file("lib.c", src);
	put_file("dl.c", dl_c);
	free(sh("gcc -O1 -shared -fPIC -o in.so lib.c && gcc -o dl dl.c && cp in.so out.so"));
	v = sh("'%s' -v --remove out.so 2>&1", tool());
	cr_expect(strstr(v, "section [2] .note.dlopen: removed"), "-v should say the header goes: %s", v);
	free(v);
	expect_gone_and_valid("in.so", "out.so");
	v = sh("readelf -SW out.so | grep -c '\\.note\\.dlopen'; true");
	cr_expect_str_eq(v, "0", "the header is gone: %s", v);
	free(v);
	/* .dynsym names the same section as before, through its new index. */
	v = sh("for f in in.so out.so; do readelf -sW --dyn-syms $f | awk '$8 == \"dlnote_answer\" { print $7 }' | "
	       "while read n; do readelf -SW $f | sed 's/^ *\\[ *//; s/\\]//' | awk -v n=$n '$1 == n { print $2 }'; done; done | sort -u");
	cr_expect_str_eq(v, ".text", "dlnote_answer is defined in %s", v);
	free(v);
	lint_in = elflint("in.so");
	lint = elflint("out.so");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s\ninstead of\n%s", lint, lint_in);
	free(lint);
	free(lint_in);
	v = sh("./dl ./out.so; echo \"exit $?\"");
	cr_expect_str_eq(v, "answer 42\nexit 3");
	free(v);

	/* An exported symbol inside the note: emptying its section would leave it outside, and
	 * .dynsym is never rewritten, so --remove refuses and the file stays as it was. */
	snprintf(src, sizeof src, libmacro_c, "");
	put_file("lib.c", src);
	free(sh("gcc -O1 -shared -fPIC -o in.so lib.c && cp in.so out.so"));
	r = run("'%s' --remove out.so", tool());
	cr_expect_eq(r.status, 1, "exit %d: %s", r.status, r.err);
	cr_expect(strstr(r.err, "out.so: dynamic symbol") && strstr(r.err, "never rewritten"), "%s", r.err);
	cmd_free(&r);
	cr_expect(same_files("in.so", "out.so"), "a refused --remove changed the file");
}

/* gold puts the macro's note between the ABI tag and the build-id: their shared PT_NOTE
 * becomes two, one program header more, and without a free slot the table grows where it is,
 * the notes after it carried into a segment of ours.  The .note.dlopen header still goes (the table's new section is renumbered
 * with the rest), the other notes keep their PT_NOTEs, and the program runs, stripped too. */
Test(remove, gold_macro_note_between_other_notes, .timeout = 60)
{
	char *v, *lint_in, *lint;

	need("ld.gold");
	need("eu-elflint");
	put_file("macro.c", macro_c);
	free(sh("gcc -O1 -fuse-ld=gold -o in macro.c && cp in out"));
	v = sh("'%s' -v --remove out 2>&1", tool());
	cr_expect(strstr(v, "section [4] .note.dlopen: removed"), "%s", v);
	cr_expect(strstr(v, "program headers: grow where they are"), "%s", v);
	free(v);
	v = sh("readelf -SW out | grep -c ' .note.dlopen ' || true");
	cr_expect_str_eq(v, "0");
	free(v);
	expect_gone_and_valid("in", "out");
	v = sh("readelf -nW out | grep -c 'NT_GNU_BUILD_ID\\|NT_GNU_ABI_TAG\\|NT_GNU_GOLD_VERSION'");
	cr_expect_str_eq(v, "3", "the other notes stay: %s", v);
	free(v);
	lint_in = sh("eu-elflint --gnu-ld in | grep -v FDO | sed 's/section \\[ *[0-9]*\\]/section/'; true");
	lint = sh("eu-elflint --gnu-ld out | sed 's/section \\[ *[0-9]*\\]/section/'; true");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s\ninstead of\n%s", lint, lint_in);
	free(lint);
	free(lint_in);
	v = sh("./out; echo $?; cp out st && strip st && ./st; echo $?; cp out est && eu-strip est && ./est; echo $?");
	cr_expect_str_eq(v, "macro\n3\nmacro\n3\nmacro\n3");
	free(v);
}
