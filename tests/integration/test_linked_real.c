/* SPDX-License-Identifier: MIT */
/* test_linked_real.c - linked files beyond the matrix of test_linked.c: a program whose
 * .note.dlopen the C macro put in the linker's shared PT_NOTE (replaced, merged, removed), and
 * real files of this machine (python3.11, ls, libz, libsystemd, libLLVM, ld.so) given the note
 * and checked with every reader, eu-elflint, strip and the loader. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "linked_inputs.h"

/* The C macro of shared/seeds puts .note.dlopen inside the linker's shared PT_NOTE. */
Test(linked, macro_note_replace_merge_grow_remove, .timeout = 120)
{
	static const char macro_entry[] = "{\"feature\":\"macro\",\"soname\":[\"libmacro.so.1\"]}";
	char *v, *lint_in;

	need("eu-elflint");
	put_file("macro.c", macro_c);
	free(sh("gcc -O1 -o in macro.c"));
	lint_in = elflint("in");
	/* The input: the note shares a PT_NOTE with build-id and ABI tag. */
	v = readers("validate in in");
	cr_expect(strstr(v, "shares its PT_NOTE"), "the macro input should share its PT_NOTE: %s", v);
	free(v);

	/* Replace with a note that would fit where the old one was.  But the shared PT_NOTE
	 * becomes three, so the table grows where it is, and the notes after it, the old dlopen
	 * note among them, move into our segment: the new note goes there, with its own PT_NOTE
	 * (docs/layout.md, the carried block). */
	free(sh("cp in out"));
	v = sh("'%s' -v --soname libz.so.1 out 2>&1", tool());
	cr_expect(strstr(v, "PHT grown, sections carried") && strstr(v, "(in our segment)"),
		  "the note goes with the carried notes: %s", v);
	free(v);
	expect_entries("out", "[{\"soname\":[\"libz.so.1\"]}]", 1);
	v = readers("validate in out");
	cr_expect_str_eq(v, "OK");
	free(v);
	v = sh("./out; echo $?");
	cr_expect_str_eq(v, "macro\n3");
	free(v);
	v = elflint("out");
	cr_expect_str_eq(v, lint_in);
	free(v);

	/* Merge keeps the macro's entry first. */
	free(sh("cp in merged && '%s' --merge --feature kmod --soname libkmod.so.2 merged", tool()));
	expect_entries("merged", "[{\"feature\":\"macro\",\"soname\":[\"libmacro.so.1\"]},{\"soname\":[\"libkmod.so.2\"],\"feature\":\"kmod\"}]", 1);
	v = sh("./merged; echo $?");
	cr_expect_str_eq(v, "macro\n3");
	free(v);

	/* Merging an entry that is already there changes nothing. */
	free(sh("cp in same && cp in same.orig && printf '[%s]' > m.json && '%s' --merge -m m.json same", macro_entry, tool()));
	v = sh("'%s' --list --json same", tool());
	cr_expect_str_eq(v, "[{\"feature\":\"macro\",\"soname\":[\"libmacro.so.1\"]}]");
	free(v);

	/* Remove: no dlopen note left anywhere, the other notes keep their PT_NOTE. */
	free(sh("cp in removed && '%s' --remove removed", tool()));
	expect_entries("removed", "[]", 1);
	v = readers("validate in removed");
	cr_expect_str_eq(v, "OK");
	free(v);
	v = sh("readelf -nW removed | grep -c 'NT_GNU_BUILD_ID\\|NT_GNU_ABI_TAG'");
	cr_expect_str_eq(v, "2", "build-id and ABI tag notes must stay");
	free(v);
	v = sh("./removed; echo $?");
	cr_expect_str_eq(v, "macro\n3");
	free(v);
	v = elflint("removed");
	cr_expect_str_eq(v, lint_in);
	free(v);
	free(lint_in);
	/* The linker-made section goes with its header: later sections are renumbered, the
	 * macro's local symbol n1 becomes absolute (docs/layout.md), and the readers, GNU strip
	 * and eu-strip see a file with one section fewer and nothing new to complain about. */
	v = sh("readelf -SW removed | grep -c ' .note.dlopen ' || true");
	cr_expect_str_eq(v, "0", "--remove left a .note.dlopen section header");
	free(v);
	{
		char *n_in = sh("readelf -hW in | sed -n 's/.*Number of section headers: *//p'");
		char *n_out = sh("readelf -hW removed | sed -n 's/.*Number of section headers: *//p'");
		cr_expect_eq(atoi(n_out), atoi(n_in) - 1, "%s sections after --remove, the input had %s", n_out, n_in);
		free(n_in);
		free(n_out);
	}
	v = sh("readelf -sW removed | awk '$8 == \"n1\" { print $7 }'");
	cr_expect_str_eq(v, "ABS", "the macro's symbol n1 should be absolute, its section is gone: '%s'", v);
	free(v);
	v = sh("readelf -sW removed | awk '$8 == \"main\" { print $7 }'");
	lint_in = sh("readelf -SW removed | awk '$2 == \".text\" { print $1 $2 }' | tr -d '[]' | sed 's/.text//'");
	cr_expect_str_eq(v, lint_in, "main is in section %s, .text is %s", v, lint_in);
	free(v);
	free(lint_in);
	v = readelf_problems("removed");
	lint_in = readelf_problems("in");
	cr_expect_str_eq(v, lint_in, "readelf says\n%s\ninstead of\n%s", v, lint_in);
	free(v);
	free(lint_in);
	v = llvm_problems("removed");
	lint_in = llvm_problems("in");
	cr_expect_str_eq(v, lint_in, "llvm-readobj says\n%s\ninstead of\n%s", v, lint_in);
	free(v);
	free(lint_in);
	v = sh("cp removed st && strip st && ./st; echo $?; cp removed est && eu-strip est && ./est; echo $?");
	cr_expect_str_eq(v, "macro\n3\nmacro\n3", "stripped copies of the removed file: %s", v);
	free(v);
	v = readers("validate in removed");
	cr_expect_str_eq(v, "OK");
	free(v);
}

struct realfile {
	char name[64];
	char path[160];      /* shell glob, first match */
	char run[200];       /* how to exercise the copy ($F is the file) */
};

static struct realfile realfiles[] = {
	{ "python3.11", "/usr/bin/python3.11", "$F -c 'import sys; print(sys.version_info[:2])'" },
	{ "ls", "/usr/bin/ls", "$F --version | head -1" },
	{ "libz.so.1", "/lib/x86_64-linux-gnu/libz.so.1", "./dl $F" },
	{ "libsystemd.so.0 (has an FDO package note)", "/lib/x86_64-linux-gnu/libsystemd.so.0", "./dl $F" },
	{ "libLLVM-15.so.1 (over 100 MB)", "/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1", "./dl $F" },
	{ "ld-linux-x86-64.so.2 (the dynamic loader)", "/lib64/ld-linux-x86-64.so.2", "$F /bin/echo loaded through the copy" },
};

ParameterizedTestParameters(linked, real_distribution_files)
{
	return cr_make_param_array(struct realfile, realfiles, sizeof realfiles / sizeof realfiles[0]);
}

/* Copied first, never modified in place. */
ParameterizedTest(struct realfile *r, linked, real_distribution_files, .timeout = 300)
{
	static const char dl_any[] =
		"#include <dlfcn.h>\n#include <stdio.h>\n"
		"int main(int argc, char **argv) { void *h = dlopen(argv[1], RTLD_NOW); puts(h ? \"loaded\" : dlerror()); return h ? 0 : 1; }\n";
	char *before, *after, *sum, *sum2, *lint_in, *lint, *val;

	cr_log_info("file: %s", r->path);
	sanitized_skip_leak_scan();
	put_file("dl.c", dl_any);
	put_file("big.json", M_BIG);
	free(sh("gcc -o dl dl.c -ldl"));
	sum = sh("sha256sum < '%s'", r->path);
	free(sh("cp -L '%s' in && cp in out", r->path));
	if (plain_tool()) {   /* the same bytes as the first pass's, which it checked */
		free(tool_edit("out", "-v -m big.json"));
		after = entries_by("tool", "out");
		cr_expect_str_eq(after, M_BIG);
		free(after);
		free(sum);
		return;
	}
	before = sh("F=./in; %s", r->run);
	lint_in = elflint("in");
	free(tool_edit("out", "-v -m big.json"));
	expect_entries("out", M_BIG, 1);
	val = readers("validate in out");
	cr_expect_str_eq(val, "OK", "%s: %s", r->name, val);
	after = sh("F=./out; %s", r->run);
	cr_expect_str_eq(after, before, "%s: prints %s instead of %s", r->name, after, before);
	lint = elflint("out");
	cr_expect_str_eq(lint, lint_in, "%s: eu-elflint now says\n%s\ninstead of\n%s", r->name, lint, lint_in);
	free(after);
	/* Survives strip, and the file we copied from is untouched. */
	free(sh("cp out st && strip --strip-all st"));
	after = sh("F=./st; %s", r->run);
	cr_expect_str_eq(after, before, "%s after strip: %s", r->name, after);
	free(after);
	after = entries_by("tool", "st");
	cr_expect_str_eq(after, M_BIG);
	sum2 = sh("sha256sum < '%s'", r->path);
	cr_expect_str_eq(sum, sum2, "%s was modified", r->path);
	free(after);
	free(before);
	free(sum);
	free(sum2);
	free(lint);
	free(lint_in);
	free(val);
}

/* Issue 43, item 2: a linker puts every note of a linked file in one PT_NOTE; that concerns
 * OpenBSD's ld.so only (it skips PT_NOTE segments over 1024 bytes), so --check says nothing of
 * it for a Linux file, and says it once for an OpenBSD one over the limit.  What the tool
 * writes has a PT_NOTE of its own. */
Test(linked, check_is_silent_about_linker_laid_out_notes_on_linux, .timeout = 60)
{
	char text[4096], json[1400];
	struct cmd c;
	char *v;
	size_t k = 0;

	/* One entry with a long description: the shared PT_NOTE grows over 1024 bytes. */
	k += (size_t)snprintf(json + k, sizeof json - k,
			      "[{\\\"feature\\\":\\\"big\\\",\\\"soname\\\":[\\\"libbig.so.1\\\"],"
			      "\\\"description\\\":\\\"");
	while (k < 1200)
		json[k++] = 'd';
	snprintf(json + k, sizeof json - k, "\\\"}]");
	snprintf(text, sizeof text,
		 "#include <stdint.h>\n"
		 "#define NOTE(json, v) __attribute__((used, section(\".note.dlopen\"))) _Alignas(4) "
		 "static const struct { struct { uint32_t a, b, c; } h; char n[4]; _Alignas(4) char "
		 "j[sizeof(json)]; } v = { { 4, sizeof(json), 0x407c0c0a }, \"FDO\", json }\n"
		 "NOTE(\"%s\", n1);\nint main(void) { return 3; }\n",
		 json);
	put_file("big.c", text);
	free(sh("gcc -O1 -o in big.c"));
	put_file("macro.c", macro_c);
	free(sh("gcc -O1 -o small macro.c"));
	v = readers("validate in in");
	cr_assert(strstr(v, "shares its PT_NOTE"), "the linker shares the PT_NOTE: %s", v);
	free(v);
	v = sh("readelf -lW in | awk '$1 == \"NOTE\" { print $5 }' | sort | tail -1");
	cr_assert(strtoull(v, NULL, 16) > 1024, "the shared PT_NOTE is over 1024 bytes: %s", v);
	free(v);
	for (int i = 0; i < 2; i++) {
		const char *f = i ? "small" : "in";
		c = run("'%s' --check %s", tool(), f);
		cr_expect_eq(c.status, 0);
		cr_expect(!strstr(c.out, "warning") && !strstr(c.err, "warning") &&
				  strstr(c.out, ": ok (1 dlopen entry)"),
			  "%s: %s%s", f, c.out, c.err);
		cmd_free(&c);
	}
	/* The same bytes marked as an OpenBSD file: one warning, for the one segment. */
	free(sh("cp in obsd && printf '\\014' | dd of=obsd bs=1 seek=7 conv=notrunc 2>/dev/null && "
		"cp small obsd-small && printf '\\014' | dd of=obsd-small bs=1 seek=7 conv=notrunc "
		"2>/dev/null"));
	c = run("'%s' --check obsd", tool());
	cr_expect_eq(c.status, 0);
	v = sh("'%s' --check obsd | grep -c warning || true", tool());
	cr_expect_str_eq(v, "1", "%s", c.out);
	free(v);
	cr_expect(strstr(c.out, "OpenBSD ld.so skips PT_NOTE segments over 1024 bytes"), "%s", c.out);
	cmd_free(&c);
	v = sh("'%s' --check obsd-small", tool());
	cr_expect(!strstr(v, "warning"), "under the limit: %s", v);
	free(v);
	/* What the tool writes keeps a PT_NOTE of its own, and --check is silent about it. */
	free(sh("cp in out && '%s' --merge --soname libz.so.1 out", tool()));
	v = readers("validate in out");
	cr_expect_str_eq(v, "OK");
	free(v);
	v = sh("'%s' --check out", tool());
	cr_expect(!strstr(v, "warning") && strstr(v, ": ok (2 dlopen entries)"), "%s", v);
	free(v);
}
