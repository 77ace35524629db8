/* SPDX-License-Identifier: MIT */
/* test_relocs.c - editing objects whose notes others wrote keeps every relocation's meaning
 * (issue 32, item 1).
 *
 * Removing or replacing notes removes sections and the symbols defined in them, so symbols of
 * the object are renumbered and every relocation naming a moved symbol is rewritten.  The
 * objects here carry notes written four ways (a --header header, systemd's sd-dlopen.h layout,
 * SDL3's C-object layout, the tool itself) in code with many relocations close together
 * (calls, string and data references, a function pointer table).  After --remove, replace and
 * --merge, pyelftools must read the same object, by name, outside the notes: every section's
 * bytes, every symbol, every relocation (target, offset, type, symbol, addend); the program
 * linked from the edited objects must print what the unedited one prints, with the four linkers
 * natively and with each cross toolchain under qemu-user. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "macro_shapes.h"

#define A_ "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"description\":\"Zstandard\",\"priority\":\"recommended\"}"
#define B_ "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}"
#define O_ "{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\"}"

/* Code with relocations at every few bytes: calls, strings, data, a table of pointers. */
static const char lib_c[] =
	"#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	"static int counter;\nint shared_total = 5;\n"
	"static const char *names[] = { \"delta\", \"alpha\", \"gamma\", \"beta\" };\n"
	"static int cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }\n"
	"static int twice(int v) { return 2 * v; }\nstatic int square(int v) { return v * v; }\n"
	"int (*const ops[])(int) = { twice, square };\n"
	"int lib_sum(int x) { counter += x; shared_total += counter; return counter * 3 + ops[x & 1](shared_total); }\n"
	"const char *lib_name(int i) { return names[i & 3]; }\n"
	"int lib_sort(char *out, size_t n) { const char *v[4]; memcpy(v, names, sizeof v); qsort(v, 4, sizeof v[0], cmp);\n"
	"  return snprintf(out, n, \"%s,%s,%s,%s\", v[0], v[1], v[2], v[3]); }\n";
static const char main_c[] =
	"#include <stdio.h>\n#include <string.h>\n"
	"int lib_sum(int); const char *lib_name(int); int lib_sort(char *, size_t);\nextern int shared_total;\n"
	"int main(int argc, char **argv) { char buf[64]; int n = lib_sort(buf, sizeof buf); int s = lib_sum(argc);\n"
	"  printf(\"%d %s %d %s %d %d\\n\", s, lib_name(argc + 1), shared_total, buf, n, strlen(argv[0]) > 0);\n"
	"  puts(lib_name(argc)); return 0; }\n";

struct rcase {
	char name[32];
	char cc[48];
	char runner[96]; /* "" natively, else the qemu-user command */
	int linkers;     /* link with bfd, gold, lld and mold (else the driver's default) */
};

static struct rcase rcases[] = {
	{ "x86_64", "gcc", "", 1 },
	{ "i686", "i686-linux-gnu-gcc", "qemu-i386 -L /usr/i686-linux-gnu", 0 },
	{ "aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu", 0 },
	{ "powerpc64", "powerpc64-linux-gnu-gcc", "qemu-ppc64 -L /usr/powerpc64-linux-gnu", 0 },
	{ "s390x", "s390x-linux-gnu-gcc", "qemu-s390x -L /usr/s390x-linux-gnu", 0 },
	{ "mips", "mips-linux-gnu-gcc", "qemu-mips -L /usr/mips-linux-gnu", 0 },
	{ "armhf", "arm-linux-gnueabihf-gcc", "qemu-arm -L /usr/arm-linux-gnueabihf", 0 },
	{ "riscv64", "riscv64-linux-gnu-gcc", "qemu-riscv64 -L /usr/riscv64-linux-gnu", 0 },
	{ "ppc64el", "powerpc64le-linux-gnu-gcc", "qemu-ppc64le -L /usr/powerpc64le-linux-gnu", 0 },
	{ "mips64el", "mips64el-linux-gnuabi64-gcc", "qemu-mips64el -L /usr/mips64el-linux-gnuabi64", 0 },
	{ "armel", "arm-linux-gnueabi-gcc", "qemu-arm -L /usr/arm-linux-gnueabi", 0 },
};

ParameterizedTestParameters(relocs, edits_keep_every_relocation)
{
	return cr_make_param_array(struct rcase, rcases, sizeof rcases / sizeof rcases[0]);
}

/* `json` as a C string literal for the file `f`: quotes escaped once (SDLNOTE), or twice, for
 * the assembler string inside the literal (DECL). */
static void put_literal(FILE *f, const char *json, int twice)
{
	fputc('"', f);
	for (const char *p = json; *p; p++)
		fputs(*p != '"' ? (char[]){ *p, 0 } : twice ? "\\\\\\\"" : "\\\"", f);
	fputc('"', f);
}

/* notes-PRODUCER.h, included in both sources: the entries A and B, written by that producer. */
static void put_macro_notes(const char *name, const char *macros, const char *macro, int twice)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert(f);
	fputs(macros, f);
	for (int i = 0; i < 2; i++) {
		fprintf(f, "%s(", macro);
		put_literal(f, i ? "[" B_ "]" : "[" A_ "]", twice);
		fputs(");\n", f);
	}
	fclose(f);
	put_file(name, text);
	free(text);
}

static void put_producers(void)
{
	put_file("m.json", "[" A_ "," B_ "]");
	put_file("o.json", "[" O_ "]");
	free(sh("'%s' --header -m m.json -o notes-header.h", tool()));
	put_macro_notes("notes-sd.h", sd_dlopen_h, "DECL", 1);
	put_macro_notes("notes-sdl.h", sdl_note_h, "SDLNOTE", 0);
}

/* Lines of readers.py object, without those about the notes (their sections, the symbols
 * defined in them, their groups and signatures). */
static char *outside_notes(const char *lines)
{
	char *out = calloc(1, strlen(lines) + 2), *copy = strdup(lines), *save = NULL;

	cr_assert(out && copy);
	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (!strstr(l, ".note.dlopen") && !strstr(l, "sd_dlopen:"))
			strcat(strcat(out, l), "\n");
	free(copy);
	return out;
}

static char *sonames(const char *file)
{
	return sh("'%s' --list --format=sonames '%s' | cut -d' ' -f1 | sort | tr '\\n' ' '", tool(), file);
}

static const struct {
	const char *name, *args, *sonames;
} ops[] = {
	{ "remove", "--remove", "" },
	{ "replace", "-m o.json", "libfoo.so.1 " },
	{ "merge", "--merge -m o.json", "libfoo.so.1 liblz4.so.1 libzstd.so.1 " },
};

static void link_and_run(const struct rcase *c, const char *what, const char *flags, const char *prefix,
			 const char *want_out, const char *want_sonames)
{
	char *ran, *got, prog[32];

	free(sh("%s %s -o %sprog %smain.o %slib.o", c->cc, flags, prefix, prefix, prefix));
	ran = sh("timeout 30 %s ./%sprog", c->runner, prefix);
	cr_expect_str_eq(ran, want_out, "%s, %s %s: the program prints\n%s\nnot\n%s", c->name, what, flags, ran,
			 want_out);
	snprintf(prog, sizeof prog, "%sprog", prefix);
	got = sonames(prog);
	cr_expect_str_eq(got, want_sonames, "%s, %s %s: the program declares '%s'", c->name, what, flags, got);
	free(got);
	free(ran);
}

ParameterizedTest(struct rcase *c, relocs, edits_keep_every_relocation, .timeout = 300)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, rcases), "relocs::edits_keep_every_relocation"))
		return;
	static const char *const producers[] = { "header", "sd", "sdl", "tool" };
	static const char *const lds[] = { "-fuse-ld=bfd", "-fuse-ld=gold", "-fuse-ld=lld", "-fuse-ld=mold" };
	size_t nlds = c->linkers ? 4 : 1;

	need(c->cc);
	if (c->runner[0]) {
		char prog[32];
		snprintf(prog, sizeof prog, "%.*s", (int)strcspn(c->runner, " "), c->runner);
		need(prog);
	}
	put_file("lib.c", lib_c);
	put_file("main.c", main_c);
	put_producers();
	for (size_t p = 0; p < sizeof producers / sizeof producers[0]; p++) {
		const char *pr = producers[p];
		char *want_out, *in_lines[2], *out_lines[6], *s;

		cr_log_info("%s: notes written by %s", c->name, pr);
		/* The unedited program, as the expected output: built from the same sources. */
		if (strcmp(pr, "tool") == 0)
			free(sh("for f in lib main; do %s -O2 -c $f.c -o $f.o && '%s' -m m.json $f.o || exit 1; done", c->cc,
				tool()));
		else
			free(sh("for f in lib main; do %s -O2 -include notes-%s.h -c $f.c -o $f.o || exit 1; done", c->cc, pr));
		s = sonames("lib.o");
		cr_assert_str_eq(s, "liblz4.so.1 libzstd.so.1 ", "%s, %s: the input carries '%s'", c->name, pr, s);
		free(s);
		for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
			char prefix[16];
			snprintf(prefix, sizeof prefix, "%s-", ops[o].name);
			free(sh("cp lib.o %slib.o && cp main.o %smain.o", prefix, prefix));
			free(tool_edit(strcat(strcpy((char[32]){ 0 }, prefix), "lib.o"), "%s", ops[o].args));
			free(tool_edit(strcat(strcpy((char[32]){ 0 }, prefix), "main.o"), "%s", ops[o].args));
		}
		/* The sanitized pass: tool_edit() found the bytes the plain build wrote, which the
		 * first pass read with pyelftools, linked and ran. */
		if (plain_tool())
			continue;
		free(sh("%s -o prog main.o lib.o", c->cc));
		want_out = sh("timeout 30 %s ./prog", c->runner);
		cr_assert(strstr(want_out, "alpha,beta,delta,gamma"), "%s: the unedited program prints %s", c->name, want_out);
		readers_batch(in_lines, 2, "object lib.o -- object main.o");
		readers_batch(out_lines, 6,
			      "object remove-lib.o -- object remove-main.o -- object replace-lib.o -- object replace-main.o -- "
			      "object merge-lib.o -- object merge-main.o");
		for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
			for (int f = 0; f < 2; f++) {
				char *want = outside_notes(in_lines[f]), *got = outside_notes(out_lines[2 * o + (size_t)f]);
				cr_assert(strstr(want, "reloc ") && strstr(want, "symbol "), "%s: pyelftools reads %s", c->name,
					  in_lines[f]);
				cr_expect_str_eq(got, want, "%s, notes by %s, %s of %s: outside the notes, the object now reads\n%s\nwhere it read\n%s",
						 c->name, pr, ops[o].name, f ? "main.o" : "lib.o", got, want);
				free(want);
				free(got);
			}
			for (size_t l = 0; l < nlds; l++) {
				char prefix[16];
				snprintf(prefix, sizeof prefix, "%s-", ops[o].name);
				link_and_run(c, ops[o].name, c->linkers ? lds[l] : "", prefix, want_out, ops[o].sonames);
			}
		}
		for (int i = 0; i < 6; i++)
			free(i < 2 ? (free(in_lines[i]), out_lines[i]) : out_lines[i]);
		free(want_out);
	}
}
