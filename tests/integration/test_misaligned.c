/* SPDX-License-Identifier: MIT */
/* test_misaligned.c - notes aligned beyond 8, as openal-soft 1.25's C++ macro makes them with
 * GCC 12 on x86-64 (tests/integration/macro_shapes.h): a .note.dlopen section aligned to 32,
 * zeros between its notes, which readelf calls corrupt.  --check names the cause and the way
 * out; --remove, replace and --merge rewrite such objects, archives and linked files (GNU ld,
 * gold, lld), and what they write is read by readelf, pyelftools, llvm-readobj and a PT_NOTE
 * walker, passes eu-elflint and still runs (docs/layout.md, "Notes aligned beyond 8"). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "macro_shapes.h"

#define PIPEWIRE                                                                                   \
	"{\"feature\":\"pipewire\",\"description\":\"PipeWire backend\",\"priority\":"             \
	"\"suggested\",\"soname\":[\"libpipewire-0.3.so.0\"]}"
#define PULSE                                                                                      \
	"{\"feature\":\"pulse\",\"description\":\"PulseAudio backend\",\"priority\":"              \
	"\"suggested\",\"soname\":[\"libpulse.so.0\"]}"
#define JACK                                                                                       \
	"{\"feature\":\"jack\",\"description\":\"JACK backend\",\"priority\":\"suggested\","        \
	"\"soname\":[\"libjack.so.0\"]}"
#define NEW_ENTRY "{\"feature\":\"x\",\"soname\":[\"libx.so.1\"]}"

/* Translation units as openal-soft's backends write them: a.cpp with two notes (one
 * section, zeros between them), c.cpp with one; b.cpp's note is an inline variable (a COMDAT
 * group of its own), for objects only: its symbol is global. */
/* JSON as a C++ string literal's text: its quotes escaped (the result is static). */
static const char *cxx(const char *json)
{
	static char out[4][512];
	static int next;
	char *o = out[next++ % 4];
	size_t k = 0;

	for (; *json && k + 3 < sizeof out[0]; json++) {
		if (*json == '"')
			o[k++] = '\\';
		o[k++] = *json;
	}
	o[k] = '\0';
	return o;
}

/* How many lines of `text` hold `what`. */
static int count_lines_with(const char *text, const char *what)
{
	int n = 0;

	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n'), *hit = strstr(line, what);
		n += hit && (!end || hit < end);
		if (!end)
			break;
		line = end + 1;
	}
	return n;
}

/* What eu-elflint says of every dlopen note, which it does not know. */
#define ELFLINT_FDO "unknown object file note type 1081871370 with owner name 'FDO'"

static void build_objects(void)
{
	char text[2048];

	put_file("oalnote.h", oal_note_h);
	snprintf(text, sizeof text,
		 "#include \"oalnote.h\"\nOALNOTE(\"[%s]\");\nOALNOTE(\"[%s]\");\n"
		 "extern \"C\" int oal_a(void) { return 2; }\n",
		 cxx(PIPEWIRE), cxx(PULSE));
	put_file("a.cpp", text);
	snprintf(text, sizeof text,
		 "#include \"oalnote.h\"\nOALNOTE(\"[%s]\");\n"
		 "extern \"C\" int oal_b(void) { return 1; }\n",
		 cxx(JACK));
	put_file("c.cpp", text);
	snprintf(text, sizeof text, "#include \"oalnote.h\"\nOALNOTE_INLINE(jack_note, \"[%s]\");\n",
		 cxx(JACK));
	put_file("b.cpp", text);
	put_file("main.cpp", "extern \"C\" int oal_a(void), oal_b(void);\n"
			     "int main() { return oal_a() + oal_b(); }\n");
	free(sh("g++ -std=c++20 -O2 -fPIC -c a.cpp b.cpp c.cpp"));
}

/* The section as GCC made it: aligned to 32, readelf calls its notes corrupt. */
static void expect_gcc_shape(const char *file)
{
	char *v = readelf_problems(file);

	cr_assert(strstr(v, "Corrupt note: alignment 32"),
		  "%s: GCC should have aligned the notes to 32 (openal-soft's shape): %s", file, v);
	free(v);
}

/* A file the tool wrote: no reader complains, each sees `json`. */
static void expect_readable(const char *file, const char *json, int linked)
{
	char *v = readelf_problems(file);

	cr_expect(!strstr(v, "Corrupt note") && !strstr(v, "note"), "%s: readelf: %s", file, v);
	free(v);
	expect_entries(file, json, linked);
	v = sh("'%s' --check '%s'", tool(), file);
	cr_expect(strstr(v, ": ok ("), "%s: %s", file, v);
	free(v);
}

Test(misaligned, objects_and_archive_checked_removed_replaced_merged, .timeout = 120)
{
	struct cmd c;
	char *v;

	need("g++");
	build_objects();
	expect_gcc_shape("a.o");
	free(sh("ar rc liboal.a a.o b.o c.o"));

	/* --check: one line naming the cause (section, offset, alignment, the macro) and the way
	 * out; the old tool read "FDO\0" as a name size. */
	c = run("'%s' --check a.o", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "a.o: error: section [4] .note.dlopen at offset 0x60 is aligned to "
				"32, its 2 dlopen notes padded with zeros to that") &&
			  strstr(c.out, "openal-soft") && strstr(c.out, "dlnote-inject --merge") &&
			  !strstr(c.out, "runs past"),
		  "%s", c.out);
	cmd_free(&c);
	/* An archive: one line for the cause, whatever each member's sections and offsets (issue
	 * 43, item 7: one line per cause, never one per member), each member's place under -v. */
	c = run("'%s' --check liboal.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(count_lines_with(c.out, "aligned to 32") == 1 &&
			  strstr(c.out, "liboal.a: error: .note.dlopen sections aligned to 32, their "
					"dlopen notes padded with zeros to that") &&
			  strstr(c.out, "(in 3 of 3 ELF members: a.o, b.o, c.o)"),
		  "%s", c.out);
	cmd_free(&c);
	c = run("'%s' --check -v liboal.a", tool());
	cr_expect(strstr(c.out, "liboal.a[a.o]: error: section [4] .note.dlopen at offset 0x60") &&
			  strstr(c.out, "liboal.a[c.o]: error: section [4] .note.dlopen at offset 0x60"),
		  "%s", c.out);
	cmd_free(&c);
	/* Listings refuse too: what the file holds is not what its readers get. */
	c = run("'%s' --list a.o", tool());
	cr_expect(c.status == 1 && strstr(c.err, "aligned to 32"), "%s", c.err);
	cmd_free(&c);

	/* --remove: the broken notes go, said on stderr; nothing else changes. */
	free(sh("cp a.o removed.o && cp b.o removed-b.o && cp liboal.a removed.a"));
	v = tool_edit("removed.o", "--remove");
	cr_expect(strstr(v, "dropped 2 misaligned dlopen notes the file had (section [4]"), "%s", v);
	free(v);
	v = tool_edit("removed-b.o", "--remove");
	cr_expect(strstr(v, "dropped 1 misaligned dlopen note "), "%s", v);
	free(v);
	expect_readable("removed.o", "[]", 0);
	expect_readable("removed-b.o", "[]", 0);
	v = sh("readelf -gW removed-b.o | grep -c 'COMDAT group' || true");
	cr_expect_str_eq(v, "0", "the note's group goes with it");
	free(v);
	v = tool_edit("removed.a", "--remove");
	cr_expect(strstr(v, "dropped 4 misaligned dlopen notes the file had, in 3 archive members"),
		  "%s", v);
	free(v);
	v = sh("'%s' --list --json removed.a", tool());
	cr_expect_str_eq(v, "[]");
	free(v);

	/* Replace: the manifest's entries take their place. */
	put_file("m.json", "[" NEW_ENTRY "]");
	free(sh("cp a.o replaced.o && cp liboal.a replaced.a"));
	v = tool_edit("replaced.o", "-m m.json");
	cr_expect(strstr(v, "dropped 2 misaligned") && strstr(v, "take their place"), "%s", v);
	free(v);
	expect_readable("replaced.o", "[" NEW_ENTRY "]", 0);
	free(tool_edit("replaced.a", "-m m.json"));
	v = sh("'%s' --check replaced.a", tool());
	cr_expect(strstr(v, "replaced.a: ok (1 dlopen entry in 3 ELF members"), "%s", v);
	free(v);

	/* --merge keeps what decodes, written again 4-aligned, in the file's order. */
	put_file("empty.json", "[]");
	free(sh("cp a.o merged.o && cp liboal.a merged.a"));
	v = tool_edit("merged.o", "--merge -m empty.json");
	cr_expect(strstr(v, "--merge rewrote 2 misaligned dlopen notes the file had"), "%s", v);
	free(v);
	v = sh("'%s' --list --json merged.o", tool());
	cr_expect(strstr(v, PIPEWIRE) && strstr(v, PULSE), "%s", v);
	expect_readable("merged.o", v, 0);
	free(v);
	free(tool_edit("merged.a", "--merge -m m.json"));
	v = sh("'%s' --list --json merged.a", tool());
	cr_expect(strstr(v, PIPEWIRE) && strstr(v, PULSE) && strstr(v, JACK) && strstr(v, NEW_ENTRY),
		  "%s", v);
	free(v);
	v = sh("{ readelf -nW merged.a >/dev/null; } 2>&1 || true");
	cr_expect_str_eq(v, "", "readelf reads every member");
	free(v);
}

/* What a merge cannot decode it says, and keeps the rest. */
Test(misaligned, merge_says_what_it_could_not_decode, .timeout = 60)
{
	char *v;

	need("g++");
	build_objects();
	free(sh("cp a.o bad.o"));
	/* The second note's payload loses its terminating NUL: it no longer decodes. */
	free(sh("python3 -c \"import sys; d=bytearray(open('bad.o','rb').read()); "
		"i=d.rfind(b'\\\"]}]'); d[i+4]=0x41; open('bad.o','wb').write(d)\""));
	put_file("empty.json", "[]");
	v = tool_edit("bad.o", "--merge -m empty.json");
	cr_expect(strstr(v, "--merge left out 1 misaligned dlopen note it could not decode: "
			    "dlopen note at offset"),
		  "%s", v);
	free(v);
	v = sh("'%s' --list --json bad.o", tool());
	cr_expect(strstr(v, "pulse") || strstr(v, "pipewire"), "one entry is kept: %s", v);
	cr_expect(!(strstr(v, "pulse") && strstr(v, "pipewire")), "one is lost: %s", v);
	free(v);

	/* A note that fails after its first entry is left out whole: no entry of it is kept (the
	 * first one was, before). */
	char text[2048];
	snprintf(text, sizeof text,
		 "#include \"oalnote.h\"\nOALNOTE(\"[%s]\");\nOALNOTE(\"[%s,%s]\");\n"
		 "extern \"C\" int oal_p(void) { return 3; }\n",
		 cxx(PIPEWIRE), cxx(JACK),
		 cxx("{\"soname\":[\"libbad.so.1\"],\"priority\":\"optional\"}"));
	put_file("partial.cpp", text);
	free(sh("g++ -std=c++20 -O2 -fPIC -c partial.cpp"));
	expect_gcc_shape("partial.o");
	v = tool_edit("partial.o", "--merge -m empty.json");
	cr_expect(strstr(v, "--merge left out 1 misaligned dlopen note it could not decode"), "%s", v);
	free(v);
	v = sh("'%s' --list --json partial.o", tool());
	cr_expect(strstr(v, "pipewire") && !strstr(v, "jack") && !strstr(v, "libbad"),
		  "only the note that decodes is kept: %s", v);
	free(v);
}

/* By value: Criterion may run a test in a fresh process, where pointers mean nothing. */
struct linker {
	char name[8];
};
static struct linker linkers[] = { { "bfd" }, { "gold" }, { "lld" } };

ParameterizedTestParameters(misaligned, linked_by_each_linker)
{
	return cr_make_param_array(struct linker, linkers, sizeof linkers / sizeof *linkers);
}

/* The linker concatenates the 32-aligned input sections, zeros between them, into one
 * .note.dlopen (GNU ld and gold: in a PT_NOTE aligned to 32 of its own). */
ParameterizedTest(struct linker *ld, misaligned, linked_by_each_linker, .timeout = 180)
{
	static const char *const modes[][2] = {
		{ "removed", "--remove" }, { "replaced", "-m m.json" }, { "merged", "--merge -m empty.json" }};
	char *v, *lint_in;
	struct cmd c;

	need("g++");
	need("eu-elflint");
	build_objects();
	free(sh("g++ -shared -fuse-ld=%s -o liboal.so a.o c.o && g++ -fuse-ld=%s -o main main.cpp "
		"-L. -loal -Wl,-rpath,'$ORIGIN'",
		ld->name, ld->name));
	expect_gcc_shape("liboal.so");
	c = run("'%s' --check liboal.so", tool());
	cr_expect(c.status == 1 && strstr(c.out, "liboal.so: error: section [") &&
			  strstr(c.out, "is aligned to 32, its 3 dlopen notes padded with zeros") &&
			  !strstr(c.out, "warning"),
		  "%s", c.out);
	cmd_free(&c);
	/* eu-elflint's complaints about the notes go; the others stay.  The input's note lines (the
	 * misparsed notes the tool removes) are left out of the comparison; of the output's only
	 * ELFLINT_FDO, which eu-elflint 0.188 says of every dlopen note, well formed or not. */
	lint_in = sh("eu-elflint --gnu-ld liboal.so | grep -av -e note -e FDO -e '^No errors' || true");
	put_file("m.json", "[" NEW_ENTRY "]");
	put_file("empty.json", "[]");
	for (size_t i = 0; i < 3; i++) {
		const char *out = modes[i][0];
		char *lint;
		free(sh("cp liboal.so %s", out));
		v = tool_edit(out, "%s", modes[i][1]);
		cr_expect(strstr(v, i == 2 ? "--merge rewrote 3 misaligned" : "dropped 3 misaligned"),
			  "%s: %s", out, v);
		free(v);
		expect_readable(out, i == 0   ? "[]"
				     : i == 1 ? "[" NEW_ENTRY "]"
					      : "[" PULSE "," PIPEWIRE "," JACK "]",
				1);
		v = readers("validate liboal.so %s", out);
		cr_expect_str_eq(v, "OK", "%s", out);
		free(v);
		lint = elflint(out);
		/* only the line every dlopen note gets is left out: a note complaint of its own fails */
		v = sh("eu-elflint --gnu-ld %s | grep -av -e \"%s\" -e '^No errors' || true", out,
		       ELFLINT_FDO);
		cr_expect_str_eq(v, lint_in, "%s: eu-elflint: %s\n(the input: %s)", out, v, lint_in);
		free(v);
		free(lint);
		free(sh("cp %s liboal.so.run", out));
	}
	free(lint_in);
	/* Without section headers (sstrip): GNU ld's and gold's PT_NOTE aligned to 32 is walked
	 * alone, named, and merged into one of its own (lld's notes are in no PT_NOTE). */
	if (strcmp(ld->name, "lld") != 0) {
		free(sh("cp liboal.so noshdr && /usr/bin/python3 '%s/tests/tools/noshdr.py' noshdr",
			srcdir()));
		c = run("'%s' --check noshdr", tool());
		cr_expect(c.status == 1 && strstr(c.out, "noshdr: error: PT_NOTE program header ") &&
				  strstr(c.out, "is aligned to 32, its 3 dlopen notes"),
			  "%s", c.out);
		cmd_free(&c);
		v = tool_edit("noshdr", "--merge -m empty.json");
		cr_expect(strstr(v, "--merge rewrote 3 misaligned"), "%s", v);
		free(v);
		expect_readable("noshdr", "[" PULSE "," PIPEWIRE "," JACK "]", 1);
	}
	/* Beside a 4-aligned note of the helper's kind (an object the tool gave a note), which the
	 * linker puts among them: the old tool read a note type as a descriptor size there. */
	put_file("h.json", "[{\"feature\":\"helper\",\"soname\":[\"libhelper.so.1\"]}]");
	put_file("h.c", "int helper_dummy;\n");
	free(sh("gcc -c -fPIC h.c && '%s' -m h.json h.o && g++ -shared -fuse-ld=%s -o mixed.so a.o "
		"h.o c.o",
		tool(), ld->name));
	c = run("'%s' --check mixed.so", tool());
	cr_expect(c.status == 1 && strstr(c.out, "is aligned to 32, its 4 dlopen notes"), "%s",
		  c.out);
	cmd_free(&c);
	free(tool_edit("mixed.so", "--merge -m empty.json"));
	expect_readable("mixed.so",
			"[" PULSE "," PIPEWIRE ",{\"feature\":\"helper\",\"soname\":[\"libhelper.so.1\"]}"
			"," JACK "]",
			1);
	/* The program runs with each result (the last copied in place of the library). */
	free(sh("cp merged liboal.so"));
	v = sh("./main; echo $?");
	cr_expect_str_eq(v, "3");
	free(v);
	free(sh("cp removed liboal.so"));
	v = sh("./main; echo $?");
	cr_expect_str_eq(v, "3");
	free(v);
}

/* The real library: openal-soft's libopenal1 from Debian unstable, downloaded once into the
 * build directory by tests/closure/debian-root.sh (about 0.8 MB).  Released openal-soft
 * (1.25.2, Debian's 1:1.25.2-2) still puts aligned(4) on each note variable; the 32-byte shape
 * comes from its master since 2026-07-31 (commit 9531d76f0, "Replace some .note.dlopen macros
 * with consteval functions").  Whichever the archive ships, --check says the right thing about
 * it, without a warning about the linker's layout, and every edit gives a file readelf reads
 * without complaint. */
Test(misaligned, debian_unstable_libopenal1, .timeout = 300)
{
	char build[4096], *root, *lib, *align, *v, *have;
	struct cmd c;
	int misaligned;

	need("dpkg-deb");
	snprintf(build, sizeof build, "%s", tool());
	root = sh("sh '%s/tests/closure/debian-root.sh' '%s/openal-cache' unstable "
		  "'%s/tests/closure/unstable-openal.txt'",
		  srcdir(), dirname(build), srcdir());
	lib = sh("ls '%s'/usr/lib/x86_64-linux-gnu/libopenal.so.1.*", root);
	v = sh("zcat '%s/usr/share/doc/libopenal1/changelog.Debian.gz' | head -n 1", root);
	cr_log_info("testing %s", v);
	cr_assert(strstr(v, "openal-soft (1:1."), "%s", v);
	free(v);
	free(sh("cp '%s' in.so", lib));
	align = sh("readelf -SW in.so | awk '$2 == \".note.dlopen\" { print $NF }'");
	misaligned = strcmp(align, "4") != 0;
	cr_log_info(".note.dlopen of %s is aligned to %s", lib, align);
	c = run("'%s' --check in.so", tool());
	cr_expect(!strstr(c.out, "warning") && !strstr(c.err, "warning"), "%s%s", c.out, c.err);
	if (misaligned)
		cr_expect(c.status == 1 && strstr(c.out, "in.so: error: section [") &&
				  strstr(c.out, "aligned to 32") && strstr(c.out, "--merge"),
			  "%s", c.out);
	else
		cr_expect(c.status == 0 && strstr(c.out, "in.so: ok ("), "%s", c.out);
	cmd_free(&c);
	/* What the file holds, every reader agreeing (decoded by the salvaging merge when
	 * misaligned). */
	put_file("empty.json", "[]");
	free(sh("cp in.so merged.so"));
	free(tool_edit("merged.so", "--merge -m empty.json"));
	have = sh("'%s' --list --json merged.so", tool());
	cr_expect(strstr(have, "\"soname\":[\"libpulse.so.0\"]") &&
			  strstr(have, "\"soname\":[\"libpipewire-0.3.so.0\"]"),
		  "openal's backends: %s", have);
	expect_readable("merged.so", have, 1);
	v = readers("validate in.so merged.so");
	cr_expect_str_eq(v, "OK");
	free(v);
	/* Remove and replace. */
	free(sh("cp in.so removed.so && cp in.so replaced.so"));
	free(tool_edit("removed.so", "--remove"));
	expect_readable("removed.so", "[]", 1);
	put_file("m.json", "[" NEW_ENTRY "]");
	free(tool_edit("replaced.so", "-m m.json"));
	expect_readable("replaced.so", "[" NEW_ENTRY "]", 1);
	/* --expect holds each file to the manifest (item 4): the stripped copy lacks them all. */
	put_file("have.json", have);
	c = run("'%s' --check -q --expect have.json merged.so removed.so", tool());
	cr_expect(c.status == 1 && strstr(c.out, "have.json: missing: removed.so lacks every "
						 "declared entry") &&
			  !strstr(c.out, "merged.so"),
		  "%s", c.out);
	cmd_free(&c);
	free(have);
	free(align);
	free(lib);
	free(root);
}
