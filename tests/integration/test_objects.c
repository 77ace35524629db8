/* SPDX-License-Identifier: MIT */
/* test_objects.c - relocatable objects of every class and byte order (issue "core"): the note
 * is written as a .note.dlopen section, every reader decodes it, and linking the object with
 * each linker, with and without --gc-sections, gives a program that carries the entries and
 * still runs (under qemu-user for foreign architectures). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define ENTRY_A "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"description\":\"Zstd — compression ✓\",\"priority\":\"recommended\"}"
#define ENTRY_B "{\"soname\":[\"libqrencode.so.4\",\"libqrencode.so.3\"],\"feature\":\"qr\",\"x-vendor\":{\"n\":[1,2.5,true,null]}}"
/* Numbers are ones that Python reads back as written: the readers re-serialize. */
#define MANIFEST "[" ENTRY_A "," ENTRY_B "]"

static const char lib_c[] = "int helper(int x) { return x * 2; }\n";
static const char main_c[] =
	"#include <stdio.h>\nint helper(int);\nint main(void) { printf(\"helper %d\\n\", helper(21)); return 3; }\n";

struct ocase {
	char name[40];
	char cc[48];         /* compiler driver */
	char runner[96];     /* "" native, else qemu prefix */
	char elfclass[8];    /* what readelf -h must say: ELF32/ELF64 */
	char data[16];       /* "little"/"big" */
};

static struct ocase ocases[] = {
	{ "gcc x86_64", "gcc", "", "ELF64", "little" },
	{ "clang x86_64", "clang", "", "ELF64", "little" },
	{ "i686 (ELF32 LE)", "i686-linux-gnu-gcc", "qemu-i386 -L /usr/i686-linux-gnu", "ELF32", "little" },
	{ "aarch64 (ELF64 LE)", "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu", "ELF64", "little" },
	{ "powerpc64 (ELF64 BE)", "powerpc64-linux-gnu-gcc", "qemu-ppc64 -L /usr/powerpc64-linux-gnu", "ELF64", "big" },
	{ "s390x (ELF64 BE)", "s390x-linux-gnu-gcc", "qemu-s390x -L /usr/s390x-linux-gnu", "ELF64", "big" },
	{ "mips (ELF32 BE)", "mips-linux-gnu-gcc", "qemu-mips -L /usr/mips-linux-gnu", "ELF32", "big" },
	{ "arm hard-float (ELF32 LE)", "arm-linux-gnueabihf-gcc", "qemu-arm -L /usr/arm-linux-gnueabihf", "ELF32", "little" },
	{ "riscv64 (ELF64 LE)", "riscv64-linux-gnu-gcc", "qemu-riscv64 -L /usr/riscv64-linux-gnu", "ELF64", "little" },
	{ "ppc64el (ELF64 LE)", "powerpc64le-linux-gnu-gcc", "qemu-ppc64le -L /usr/powerpc64le-linux-gnu", "ELF64", "little" },
	{ "mips64el N64 (ELF64 LE)", "mips64el-linux-gnuabi64-gcc", "qemu-mips64el -L /usr/mips64el-linux-gnuabi64", "ELF64", "little" },
	{ "armel soft-float (ELF32 LE)", "arm-linux-gnueabi-gcc", "qemu-arm -L /usr/arm-linux-gnueabi", "ELF32", "little" },
};

ParameterizedTestParameters(objects, every_class_and_byte_order)
{
	return cr_make_param_array(struct ocase, ocases, sizeof ocases / sizeof ocases[0]);
}

static void prepare(const char *cc)
{
	need(cc);
	need("eu-elflint");
	need("llvm-readobj");
	put_file("lib.c", lib_c);
	put_file("main.c", main_c);
	put_file("m.json", MANIFEST);
	free(sh("%s -O1 -c lib.c -o lib.o && %s -O1 -c main.c -o main.o", cc, cc));
}

/* The section as the spec wants it: NOTE, A (and no W), alignment 4. */
static void expect_section(const char *obj)
{
	char *s = sh("readelf -SW '%s' | grep ' .note.dlopen '", obj);

	cr_expect(strstr(s, " NOTE "), "%s: .note.dlopen is not SHT_NOTE: %s", obj, s);
	cr_expect(strstr(s, "  A  ") || strstr(s, " A ") || strstr(s, " AGR ") || strstr(s, " AGo "), "%s: .note.dlopen is not SHF_ALLOC: %s", obj, s);
	cr_expect(!strstr(s, " WA "), "%s: .note.dlopen is writable: %s", obj, s);
	cr_expect(s[strlen(s) - 1] == '4', "%s: .note.dlopen is not 4-aligned: %s", obj, s);
	free(s);
}

ParameterizedTest(struct ocase *c, objects, every_class_and_byte_order, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, ocases), "objects::every_class_and_byte_order"))
		return;
	char *hdr, *lint_in, *lint, *ran, *got;

	cr_log_info("case: %s", c->name);
	prepare(c->cc);
	if (c->runner[0]) {
		char prog[64];
		snprintf(prog, sizeof prog, "%.*s", (int)strcspn(c->runner, " "), c->runner);
		need(prog);
	}
	hdr = sh("readelf -hW lib.o");
	cr_assert(strstr(hdr, c->elfclass) && strstr(hdr, c->data), "%s: the compiler did not make %s %s: %s", c->name,
		  c->elfclass, c->data, hdr);
	free(hdr);
	lint_in = elflint("lib.o");
	free(sh("'%s' -m m.json -o note.o lib.o", tool()));
	cr_expect(same_files("lib.o", "lib.o"), "input changed");
	expect_entries("note.o", MANIFEST, 0);
	expect_section("note.o");
	lint = elflint("note.o");
	cr_expect_str_eq(lint, lint_in, "%s: eu-elflint now says\n%s", c->name, lint);
	free(lint);

	/* Linked: the program carries the entries and runs. */
	free(sh("%s -o prog main.o note.o", c->cc));
	ran = sh("%s ./prog; echo \"exit $?\"", c->runner);
	cr_expect_str_eq(ran, "helper 42\nexit 3", "%s: linked program prints %s", c->name, ran);
	got = entries_by("tool", "prog");
	cr_expect_str_eq(got, MANIFEST, "%s: linked program carries %s", c->name, got);
	free(got);
	free(ran);
	free(sh("%s -Wl,--gc-sections -ffunction-sections -o prog-gc main.o note.o", c->cc));
	got = entries_by("sections", "prog-gc");
	cr_expect_str_eq(got, MANIFEST, "%s: --gc-sections dropped the note: %s", c->name, got);
	free(got);
	free(lint_in);
}

struct lk {
	char name[16];
	char flags[64];
	char need[16];
};

static struct lk linkers[] = {
	{ "bfd", "-fuse-ld=bfd", "ld.bfd" }, { "bfd gc", "-fuse-ld=bfd -Wl,--gc-sections", "ld.bfd" },
	{ "gold", "-fuse-ld=gold", "ld.gold" }, { "gold gc", "-fuse-ld=gold -Wl,--gc-sections", "ld.gold" },
	{ "lld", "-fuse-ld=lld", "ld.lld" }, { "lld gc", "-fuse-ld=lld -Wl,--gc-sections", "ld.lld" },
	{ "mold", "-fuse-ld=mold", "mold" }, { "mold gc", "-fuse-ld=mold -Wl,--gc-sections", "mold" },
};

ParameterizedTestParameters(objects, linkers_keep_the_note)
{
	return cr_make_param_array(struct lk, linkers, sizeof linkers / sizeof linkers[0]);
}

ParameterizedTest(struct lk *l, objects, linkers_keep_the_note, .timeout = 60)
{
	char *ran, *got;

	need(l->need);
	prepare("gcc");
	free(sh("'%s' -m m.json lib.o && gcc %s -o prog main.o lib.o", tool(), l->flags));
	ran = sh("./prog; echo \"exit $?\"");
	cr_expect_str_eq(ran, "helper 42\nexit 3", "%s: %s", l->name, ran);
	got = entries_by("sections", "prog");
	cr_expect_str_eq(got, MANIFEST, "%s: the linked program has %s", l->name, got);
	free(got);
	got = entries_by("tool", "prog");
	cr_expect_str_eq(got, MANIFEST, "%s: --list sees %s", l->name, got);
	free(got);
	free(ran);
}

/* The C macro of shared/seeds: an object that already carries notes (and symbols in them). */
static const char macro_c[] =
	"#include <stdint.h>\n"
	"#define NOTE(json, v) __attribute__((used, section(\".note.dlopen\"))) _Alignas(4) static const struct {"
	" struct { uint32_t a, b, c; } h; char n[4]; _Alignas(4) char j[sizeof(json)]; } v = "
	"{ { 4, sizeof(json), 0x407c0c0a }, \"FDO\", json }\n"
	"NOTE(\"[{\\\"feature\\\":\\\"one\\\",\\\"soname\\\":[\\\"libone.so.1\\\"]}]\", n1);\n"
	"NOTE(\"[{\\\"feature\\\":\\\"two\\\",\\\"soname\\\":[\\\"libtwo.so.2\\\"]}]\", n2);\n"
	"int helper(int x) { return x * 2; }\n";

#define MACRO_ONE "{\"feature\":\"one\",\"soname\":[\"libone.so.1\"]}"
#define MACRO_TWO "{\"feature\":\"two\",\"soname\":[\"libtwo.so.2\"]}"

Test(objects, macro_object_replace_merge_remove)
{
	char *lint_in, *lint, *ran, *orig, *merged;

	prepare("gcc");
	put_file("macro.c", macro_c);
	free(sh("gcc -O1 -c macro.c -o macro.o"));
	/* The compiler decides the order of the two notes; pyelftools tells it. */
	orig = entries_by("sections", "macro.o");
	cr_assert(strcmp(orig, "[" MACRO_ONE "," MACRO_TWO "]") == 0 || strcmp(orig, "[" MACRO_TWO "," MACRO_ONE "]") == 0,
		  "the macro object holds %s", orig);
	expect_entries("macro.o", orig, 0);
	lint_in = elflint("macro.o");

	free(sh("cp macro.o r.o && '%s' --soname libz.so.1 r.o", tool()));
	expect_entries("r.o", "[{\"soname\":[\"libz.so.1\"]}]", 0);
	free(sh("cp macro.o g.o && '%s' -m m.json g.o", tool()));
	expect_entries("g.o", MANIFEST, 0);
	free(sh("cp macro.o mg.o && '%s' --merge -m m.json mg.o", tool()));
	merged = malloc(strlen(orig) + sizeof MANIFEST);
	sprintf(merged, "%.*s,%s", (int)strlen(orig) - 1, orig, MANIFEST + 1);
	expect_entries("mg.o", merged, 0);
	free(merged);
	free(orig);
	free(sh("cp macro.o rm.o && '%s' --remove rm.o", tool()));
	expect_entries("rm.o", "[]", 0);
	/* Symbols of the macro's variables stay inside their (rewritten) section. */
	for (const char *const *o = (const char *const[]){ "r.o", "g.o", "mg.o", "rm.o", NULL }; *o; o++) {
		lint = elflint(*o);
		cr_expect_str_eq(lint, lint_in, "%s: eu-elflint now says\n%s", *o, lint);
		free(lint);
		free(sh("gcc -o p-%s main.o %s", *o, *o));
		ran = sh("./p-%s; echo $?", *o);
		cr_expect_str_eq(ran, "helper 42\n3", "%s linked: %s", *o, ran);
		free(ran);
	}
	free(lint_in);
}

/* More than 65280 sections: extended section numbering (e_shnum 0, count in shdr[0]). */
Test(objects, extended_section_numbering, .timeout = 180)
{
	char *n, *lint_in, *lint, *ran;

	prepare("gcc");
	free(sh("{ for i in $(seq 1 66000); do printf '.section .s%%d,\"a\"\\n.byte %%d\\n' $i $((i %% 256)); done; } > many.s"
		" && gcc -c many.s -o many.o"));
	n = sh("readelf -hW many.o | sed -n 's/.*Number of section headers: *//p'");
	cr_assert(strstr(n, "66"), "the input does not use extended numbering: %s", n);
	free(n);
	free(sh("cp many.o note.o"));
	free(tool_edit("note.o", "-m m.json"));
	n = sh("readelf -hW note.o | sed -n 's/.*Number of section headers: *//p'");
	cr_expect(strstr(n, "(66"), "section count after the edit: %s", n);
	free(n);
	/* The sanitized pass: tool_edit() found the plain build's bytes, which the first pass
	 * read with every reader and eu-elflint, and linked (66,000 sections take pyelftools
	 * and eu-elflint tens of seconds). */
	if (plain_tool()) {
		n = entries_by("tool", "note.o");
		cr_expect_str_eq(n, MANIFEST, "the tool reads back %s", n);
		free(n);
		return;
	}
	lint_in = elflint("many.o");
	expect_entries("note.o", MANIFEST, 0);
	lint = elflint("note.o");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s", lint);
	free(sh("gcc -o prog main.o lib.o note.o"));
	ran = sh("./prog; echo $?");
	cr_expect_str_eq(ran, "helper 42\n3");
	free(ran);
	free(lint);
	free(lint_in);
}

Test(objects, same_command_twice_changes_nothing_and_is_reproducible)
{
	prepare("gcc");
	free(sh("cp lib.o a.o && cp lib.o b.o && '%s' -m m.json a.o && '%s' -m m.json b.o && cp a.o a1.o"
		" && touch -d '2001-01-01' a.o && '%s' -m m.json a.o", tool(), tool(), tool()));
	cr_expect(same_files("a.o", "b.o"), "two runs on the same input give different bytes");
	cr_expect(same_files("a.o", "a1.o"), "running the same command again changed the file");
	char *mtime = sh("stat -c %%Y a.o");
	cr_expect_str_eq(mtime, "978307200", "an unchanged file must not be rewritten (mtime %s)", mtime);
	free(mtime);
}
