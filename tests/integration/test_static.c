/* SPDX-License-Identifier: MIT */
/* test_static.c - entries that reach every program that links a static library, however it
 * links it: --header (the entries compiled into every object), the refusal of LTO objects and
 * bitcode members (a note added to them is dropped at link time), and --check, which says
 * where an archive's entries travel and catches entries a program would carry twice. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "harness.h"
#include "macro_shapes.h"

/* Two entries; the second's description has what the header must escape twice (assembler
 * string in a C string): quotes, a backslash, a trigraph, a comment end, UTF-8. */
#define E1 "{\"feature\":\"xz\",\"description\":\"Decompress xz\",\"priority\":\"recommended\",\"soname\":[\"liblzma.so.5\"]}"
#define E2 "{\"feature\":\"odd\",\"description\":\"a \\\"q\\\" \\\\ b ?\?/ */ ünï\",\"priority\":\"suggested\"," \
	   "\"soname\":[\"libodd.so.2\",\"libodd.so.1\"]}"
#define BOTH "[" E1 "," E2 "]"

static const char codec_c[] = "int part(int);\nint codec(int v) { return part(v) + 1; }\n";
static const char part_c[] = "int part(int v) { return v * 2; }\n";
static const char other_c[] = "int other(int v) { return v - 1; }\n";
static const char main_c[] = "#include <stdio.h>\nint codec(int);\nint main(void) { printf(\"%d\\n\", codec(20)); return 0; }\n";

/* The library's three sources compiled with -include notes.h (the manifest's header) by `cc`
 * with `cflags`, into lib.a; main.o is plain. */
static void build_library(const char *cc, const char *cflags)
{
	put_file("m.json", BOTH);
	put_file("codec.c", codec_c);
	put_file("part.c", part_c);
	put_file("other.c", other_c);
	put_file("main.c", main_c);
	free(sh("'%s' --header -m m.json -o notes.h", tool()));
	free(sh("rm -f lib.a && for f in codec part other; do %s %s -O2 -include notes.h -c $f.c -o $f.o || exit 1; done && "
		"ar rcs lib.a codec.o part.o other.o && %s -O2 -c main.c -o main.o", cc, cflags, cc));
}

struct link_case {
	char name[24], cc[16], cflags[40], ldflags[64], need[16];
};

static struct link_case link_cases[] = {
	{ "bfd", "gcc", "", "-fuse-ld=bfd", "ld.bfd" },
	{ "bfd gc", "gcc", "", "-fuse-ld=bfd -Wl,--gc-sections", "ld.bfd" },
	{ "gold gc", "gcc", "", "-fuse-ld=gold -Wl,--gc-sections", "ld.gold" },
	{ "lld gc", "gcc", "", "-fuse-ld=lld -Wl,--gc-sections", "ld.lld" },
	{ "mold gc", "gcc", "", "-fuse-ld=mold -Wl,--gc-sections", "mold" },
	{ "LTO program", "gcc", "", "-flto -fuse-ld=bfd -Wl,--gc-sections", "ld.bfd" },
	{ "gcc LTO lib, bfd", "gcc", "-flto", "-flto -Wl,--gc-sections", "ld.bfd" },
	{ "gcc LTO lib, gold", "gcc", "-flto", "-flto -fuse-ld=gold -Wl,--gc-sections", "ld.gold" },
	{ "gcc LTO lib, mold", "gcc", "-flto", "-flto -fuse-ld=mold -Wl,--gc-sections", "mold" },
	{ "gcc fat LTO lib", "gcc", "-flto -ffat-lto-objects", "-Wl,--gc-sections", "ld.bfd" },
	{ "clang LTO lib, lld", "clang", "-flto", "-flto -fuse-ld=lld -Wl,--gc-sections", "ld.lld" },
	{ "clang c99", "clang", "-std=c99", "-fuse-ld=lld", "ld.lld" },
	{ "gcc c99 (trigraphs)", "gcc", "-std=c99", "", "ld.bfd" },
};

ParameterizedTestParameters(header, every_program_gets_the_entries_once)
{
	return cr_make_param_array(struct link_case, link_cases, sizeof link_cases / sizeof link_cases[0]);
}

/* A program that takes two of the three members carries each entry once, seen by every reader,
 * and runs; no link option is needed. */
ParameterizedTest(struct link_case *c, header, every_program_gets_the_entries_once, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, link_cases), "header::every_program_gets_the_entries_once"))
		return;
	char *out;

	need(c->cc);
	need(c->need);
	build_library(c->cc, c->cflags);
	free(sh("%s %s %s main.o lib.a -o prog", c->cc, c->cflags, c->ldflags));
	out = sh("./prog");
	cr_expect_str_eq(out, "41", "%s: the program printed %s", c->name, out);
	free(out);
	/* mold 1.10 puts the 4-aligned dlopen notes into the 8-aligned PT_NOTE of
	 * .note.gnu.property, where a walker padding to 8 misreads them (so it does with the C
	 * macro's notes): its programs are read through their sections, and --check says so. */
	expect_entries("prog", BOTH, !strstr(c->name, "mold"));
	if (strstr(c->name, "mold")) {
		out = sh("'%s' --check prog", tool());
		cr_expect(strstr(out, "is in a PT_NOTE aligned to 8: readers walking it with that padding can misparse it"),
			  "%s: %s", c->name, out);
		free(out);
	}
	out = sh("'%s' --check prog | tail -n 1", tool());
	cr_expect_str_eq(out, "prog: ok (2 dlopen entries)", "%s: %s", c->name, out);
	free(out);
}

struct cross {
	char cc[40], run[64];
};

static struct cross crosses[] = {
	{ "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu" },
	{ "arm-linux-gnueabihf-gcc", "qemu-arm -L /usr/arm-linux-gnueabihf" },
	{ "i686-linux-gnu-gcc", "qemu-i386 -L /usr/i686-linux-gnu" },
	{ "powerpc64-linux-gnu-gcc", "qemu-ppc64 -L /usr/powerpc64-linux-gnu" },
	{ "powerpc64le-linux-gnu-gcc", "qemu-ppc64le -L /usr/powerpc64le-linux-gnu" },
	{ "s390x-linux-gnu-gcc", "qemu-s390x -L /usr/s390x-linux-gnu" },
	{ "mips64el-linux-gnuabi64-gcc", "qemu-mips64el -L /usr/mips64el-linux-gnuabi64" },
	{ "riscv64-linux-gnu-gcc", "qemu-riscv64 -L /usr/riscv64-linux-gnu" },
};

ParameterizedTestParameters(header, every_architecture)
{
	return cr_make_param_array(struct cross, crosses, sizeof crosses / sizeof crosses[0]);
}

/* The header's assembler statements work with every cross compiler of the matrix: each
 * object carries both entries, the program carries them once and runs under qemu-user. */
ParameterizedTest(struct cross *x, header, every_architecture, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(x, crosses), "header::every_architecture"))
		return;
	char *out, qemu[32];

	need(x->cc);
	sscanf(x->run, "%31s", qemu);
	need(qemu);
	build_library(x->cc, "");
	expect_entries("part.o", BOTH, 0);
	free(sh("%s main.o lib.a -o prog", x->cc));
	out = sh("%s ./prog", x->run);
	cr_expect_str_eq(out, "41", "%s: the program printed %s", x->cc, out);
	free(out);
	expect_entries("prog", BOTH, 1);
}

static int strcount_lines(const char *s)
{
	int n = *s != '\0';

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* The header's groups are the tool's: an object compiled with it and one the tool edited fold,
 * in a program and in an archive. */
Test(header, folds_with_groups_the_tool_writes, .timeout = 60)
{
	char *a, *b;

	build_library("gcc", "");
	free(sh("gcc -O2 -c other.c -o edited.o && '%s' -q -m m.json edited.o", tool()));
	a = sh("readelf -gW part.o | grep -o 'sd_dlopen:.*]' | sort");
	b = sh("readelf -gW edited.o | grep -o 'sd_dlopen:.*]' | sort");
	cr_expect_eq(strcount_lines(a), 2, "part.o's groups:\n%s", a);
	cr_expect_str_eq(a, b, "group signatures differ:\n%s\n%s", a, b);
	free(a), free(b);
	free(sh("gcc main.o codec.o part.o edited.o -o prog"));
	expect_entries("prog", BOTH, 1);
}

/* Written once: an unchanged header is not rewritten (nothing that includes it recompiles); a
 * bad manifest leaves the old one; -o is required. */
Test(header, rewritten_only_when_it_changes, .timeout = 30)
{
	struct stat st1, st2;
	struct cmd c;
	char *h1, *h2, path[4096];

	snprintf(path, sizeof path, "%s/notes.h", workdir());
	put_file("m.json", BOTH);
	free(sh("'%s' --header -o notes.h m.json && touch -d @1000000000 notes.h", tool()));
	cr_assert_eq(stat(path, &st1), 0);
	free(sh("'%s' --header -m m.json -o notes.h", tool()));
	cr_assert_eq(stat(path, &st2), 0);
	cr_expect(st1.st_ino == st2.st_ino && st1.st_mtime == st2.st_mtime, "an unchanged header was rewritten");
	h1 = get_file("notes.h", NULL);
	put_file("bad.json", "[{\"soname\": \"libx.so\"}]");
	c = run("'%s' --header -m bad.json -o notes.h", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "bad.json: line 1"), "%s", c.err);
	cmd_free(&c);
	h2 = get_file("notes.h", NULL);
	cr_expect_str_eq(h2, h1, "a failed run changed the header");
	free(h1), free(h2);
	c = run("'%s' --header -m m.json", tool());
	cr_expect_eq(c.status, 2);
	cr_expect(strstr(c.err, "--header needs -o PATH"), "%s", c.err);
	cmd_free(&c);
	/* a FIFO, a directory: never written over */
	c = run("mkfifo fifo.h && mkdir dir.h && '%s' --header -m m.json -o fifo.h; echo $?; '%s' --header -m m.json -o dir.h; "
		"echo $?; test -p fifo.h && test -d dir.h && echo kept", tool(), tool());
	cr_expect_str_eq(c.out, "1\n1\nkept\n");
	cr_expect(strstr(c.err, "is a FIFO: only a regular file is replaced"), "%s", c.err);
	cmd_free(&c);
	/* --feature entries and manifests together, in order; '-' is standard output */
	h1 = sh("'%s' --header -o - m.json --feature z --soname libz.so.1 | grep -c pushsection", tool());
	cr_expect_str_eq(h1, "3");
	free(h1);
}

/* A note added to a GCC LTO object or beside an LLVM bitcode member never reaches a program:
 * refused, the file untouched; removing notes is still allowed. */
Test(lto, objects_whose_notes_a_link_drops_are_refused, .timeout = 60)
{
	struct cmd c;
	char *out;

	need("clang");
	build_library("gcc", "");
	free(sh("gcc -flto -c part.c -o slim.o && gcc -flto -ffat-lto-objects -c part.c -o fat.o && cp slim.o slim.orig && "
		"cp fat.o fat.orig && clang -flto -c other.c -o bc.o && ar rcs mixed.a codec.o bc.o && cp mixed.a mixed.orig"));
	for (const char *const *f = (const char *const[]){ "slim.o", "fat.o", NULL }; *f; f++) {
		c = run("'%s' -m m.json %s", tool(), *f);
		cr_expect_eq(c.status, 1, "%s", *f);
		cr_expect(strstr(c.err, "GCC LTO object (-flto): the LTO plugin drops the notes"), "%s: %s", *f, c.err);
		cmd_free(&c);
	}
	c = run("'%s' --merge -m m.json mixed.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "mixed.a[bc.o]: LLVM bitcode (clang -flto): it cannot carry a note"), "%s", c.err);
	cmd_free(&c);
	out = sh("cmp slim.o slim.orig && cmp fat.o fat.orig && cmp mixed.a mixed.orig && echo untouched");
	cr_expect_str_eq(out, "untouched");
	free(out);
	free(sh("'%s' --remove mixed.a", tool()));
}

/* `file`: a C source whose function `fn` comes with a plain .note.dlopen section (not in a group,
 * as older in-code macros write it) holding `payload`, given as a C string literal's inside. */
static void put_plain_note(const char *file, const char *payload, const char *fn)
{
	char text[1024];

	snprintf(text, sizeof text,
		 "__attribute__((section(\".note.dlopen\"), used, aligned(4))) static const struct {\n"
		 "  unsigned n, d, t; char o[4]; char p[sizeof \"%s\" + 3 & ~3u]; } note = {\n"
		 "  4, sizeof \"%s\", 0x407c0c0a, \"FDO\", \"%s\" };\nint %s(void) { return 0; }\n",
		 payload, payload, payload, fn);
	put_file(file, text);
}

/* --check on a linked file: an entry from two notes that do not fold (the manifest's group and
 * the code's plain note) is an error naming it; folded groups are fine. */
Test(check, entries_a_program_would_carry_twice, .timeout = 60)
{
	struct cmd c;

	build_library("gcc", "");
	/* the code's own note for E1: a plain section, as older macros write it */
	put_plain_note("plain.c", "[{\\\"feature\\\":\\\"xz\\\",\\\"description\\\":\\\"Decompress xz\\\","
		       "\\\"soname\\\":[\\\"liblzma.so.5\\\"]}]", "plain");
	free(sh("gcc -c plain.c && gcc main.o lib.a plain.o -o twice && gcc main.o lib.a -o once"));
	/* the code's own notes may repeat an entry: valid; the manifest's entry in the code too is
	 * what --check -m (the helpers' check) rejects */
	c = run("'%s' --check -q twice", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cmd_free(&c);
	c = run("'%s' --check -m m.json twice", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "twice: error: 1 entry of the manifest is also declared by the code (an in-code macro "
				"left on beside the helper?): \"xz\" [\"liblzma.so.5\"]: a program lists it twice"),
		  "%s", c.out);
	cmd_free(&c);
	c = run("'%s' --check -q once", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cmd_free(&c);
	/* in an object (one member of an archive): the same */
	free(sh("ld -r part.o plain.o -o both.o && ar rcs both.a both.o codec.o"));
	c = run("'%s' --check -m m.json both.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "both.a[both.o]: error: 1 entry of the manifest is also declared by the code"), "%s",
		  c.out);
	cmd_free(&c);
}

static char *line_with(const char *text, const char *needle)
{
	const char *p = strstr(text, needle), *s, *e;

	if (!p)
		return strdup("");
	for (s = p; s > text && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	return strndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* --check on an archive: where each entry travels.  Every member compiled with the header:
 * every program that takes a member.  A note-only member: no link takes it (an error).  A
 * member defining only a pull symbol: it needs -Wl,-u.  Plain notes in two members: twice. */
Test(check, where_an_archives_entries_travel, .timeout = 60)
{
	struct cmd c;
	char *l;

	build_library("gcc", "");
	c = run("'%s' --check lib.a", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	l = line_with(c.out, "\"xz\"");
	cr_expect_str_eq(l, "lib.a: \"xz\" [\"liblzma.so.5\"]: in every ELF member (3); every program that takes a member "
			    "of this archive carries it");
	free(l);
	cr_expect(strstr(c.out, "lib.a: ok (2 dlopen entries in 3 ELF members; 2 of them reach every program that takes a "
				"member)"), "%s", c.out);
	cmd_free(&c);

	/* a note-only member, and a member whose one symbol is a pull symbol */
	free(sh("printf '' > empty.c && gcc -c empty.c && printf 'int dlnote_pull_codec = 1;\\n' > pull.c && gcc -c pull.c && "
		"'%s' -q --feature lost --soname liblost.so.1 empty.o && '%s' -q --feature pulled --soname libpulled.so.1 pull.o && "
		"gcc -c codec.c -o plain-codec.o && gcc -c part.c -o plain-part.o && ar rcs odd.a plain-codec.o plain-part.o empty.o pull.o",
		tool(), tool()));
	c = run("'%s' --check odd.a", tool());
	cr_expect_eq(c.status, 1);
	l = line_with(c.out, "\"lost\"");
	cr_expect_str_eq(l, "odd.a: error: \"lost\" [\"liblost.so.1\"]: in 1 of 4 ELF members (empty.o); no member carrying "
			    "it defines a symbol: no link takes them (but with --whole-archive), the entry is lost");
	free(l);
	l = line_with(c.out, "\"pulled\"");
	cr_expect_str_eq(l, "odd.a: warning: \"pulled\" [\"libpulled.so.1\"]: in 1 of 4 ELF members (pull.o); pull.o defines "
			    "only the symbol dlnote_pull_codec: a link takes it only when something needs that symbol (a pull "
			    "symbol: -Wl,-u,dlnote_pull_codec)");
	free(l);
	cr_expect(strstr(c.err, "dlnote-inject: odd.a: 1 dlopen entry that no link takes from this archive"), "%s", c.err);
	cmd_free(&c);
	/* what the lines say, by linking: the lost entry is in no program, the pulled one with -u */
	free(sh("gcc main.o odd.a -o p1 && gcc -Wl,-u,dlnote_pull_codec main.o odd.a -o p2"));
	l = sh("'%s' --list --format=sonames p1; echo --; '%s' --list --format=sonames p2", tool(), tool());
	cr_expect_str_eq(l, "--\nlibpulled.so.1 recommended", "%s", l);
	free(l);

	/* plain notes (not groups) in two members: a program taking both lists the entry twice */
	put_plain_note("plain.c", "[{\\\"soname\\\":[\\\"libp.so.1\\\"]}]", "FN");
	free(sh("gcc -DFN=pa -c plain.c -o pa.o && gcc -DFN=pb -c plain.c -o pb.o && ar rcs plain.a pa.o pb.o"));
	c = run("'%s' --check plain.a", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	l = line_with(c.out, "libp.so.1");
	cr_expect_str_eq(l, "plain.a: (no feature) [\"libp.so.1\"]: in every ELF member (2); every program that takes a "
			    "member of this archive carries it; in notes that do not fold: a program that takes two of these "
			    "members lists it twice, which consumers take once");
	free(l);
	cmd_free(&c);
	/* a warning when the manifest given to the check names it (the helper's and the code's) */
	put_file("p.json", "[{\"soname\":[\"libp.so.1\"]}]");
	c = run("'%s' --check -m p.json plain.a", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	l = line_with(c.out, "libp.so.1");
	cr_expect_str_eq(l, "plain.a: warning: (no feature) [\"libp.so.1\"]: in every ELF member (2); every program that "
			    "takes a member of this archive carries it; in notes that do not fold (not one COMDAT group of the "
			    "same payload): a program that takes two of these members lists it twice");
	free(l);
	cmd_free(&c);
	free(sh("printf 'int pa(void), pb(void);\\nint main(void) { return pa() + pb(); }\\n' > ab.c && gcc ab.c plain.a -o ab"));
	l = sh("readelf -nW ab | grep -o 0x407c0c0a | wc -l");
	cr_expect_str_eq(l, "2", "the program holds %s dlopen notes", l);
	free(l);
}

/* openal-soft's shape: a bundled library's objects (its fmt, 2 of 104 members) go into the
 * archive compiled without the entries.  The summary said "0 of them reach every program",
 * which read like a failure: it says which members carry none, what that means for a program,
 * and what to do if it matters; the check passes. */
Test(check, members_without_entries_are_named_with_what_to_do, .timeout = 60)
{
	struct cmd c;

	build_library("gcc", "");
	free(sh("printf 'int fmt_format(int v) { return v; }\\n' > fmt.c && gcc -O2 -c fmt.c -o fmt.o && "
		"cp lib.a bundled.a && ar rcs bundled.a fmt.o"));
	c = run("'%s' --check bundled.a", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect(strstr(c.out, "bundled.a: ok (2 dlopen entries in 4 ELF members; 0 of them reach every program that "
				"takes a member: 1 member that defines symbols carries none (fmt.o), so a program that "
				"takes only such members gets no entry; if it must, compile them with the entries too "
				"(-include the notes header)"),
		  "%s", c.out);
	cr_expect(!strstr(c.out, "error"), "%s", c.out);
	cmd_free(&c);
	/* what the line says, by linking: fmt.o alone carries nothing, with codec.o both entries */
	free(sh("printf 'int fmt_format(int);\\nint main(void) { return fmt_format(0); }\\n' > usefmt.c && "
		"gcc usefmt.c bundled.a -o fmtonly && gcc main.o bundled.a -o withcodec"));
	char *l = sh("'%s' --list --format=sonames fmtonly | wc -l; '%s' --list --format=sonames withcodec | wc -l",
		     tool(), tool());
	cr_expect_str_eq(l, "0\n2", "%s", l);
	free(l);
}

/* gnulib's sd-dlopen module (macro_shapes.h: GNUNOTE is SD_ELF_NOTE_DLOPEN, GNUANCHORED
 * SD_ELF_NOTE_DLOPEN_ANCHORED) in a library whose build system also declares the entry with the
 * header.  The plain macro writes the same payload-keyed group as the header: it folds, the
 * program lists the entry once and the check passes.  The anchored note's group is keyed on its
 * tag: it never folds, so the object, the archive and the program each fail the check given the
 * manifest (-m, as the build systems' checks run it) in one line that names the entry, as the
 * other macros do; with --gc-sections and the function gone,
 * its note goes with it and the program is right again. */
Test(check, gnulib_sd_dlopen_macros_beside_the_manifest, .timeout = 60)
{
	static const char xz[] = "#define XZ \"[{\\\\\\\"feature\\\\\\\":\\\\\\\"xz\\\\\\\",\\\\\\\"description\\\\\\\":"
				 "\\\\\\\"Decompress xz\\\\\\\",\\\\\\\"priority\\\\\\\":\\\\\\\"recommended\\\\\\\","
				 "\\\\\\\"soname\\\\\\\":[\\\\\\\"liblzma.so.5\\\\\\\"]}]\"\n";
	static const char dup[] = "1 entry of the manifest is also declared by the code (an in-code "
				  "macro left on beside the helper?): \"xz\" [\"liblzma.so.5\"]";
	char *l, gnu_h[sizeof gnulib_sd_dlopen_h + sizeof xz];
	struct cmd c;

	put_file("gnu.h", strcat(strcpy(gnu_h, gnulib_sd_dlopen_h), xz));
	put_file("x.json", "[" E1 "]");
	put_file("plain.c", "#include \"gnu.h\"\nGNUNOTE(XZ);\nint load(void) { return 1; }\n");
	put_file("anch.c", "#include \"gnu.h\"\nint load(void) { return 1; }\n"
			   "int lzma(void) { GNUANCHORED(xz_recommended, XZ); return 2; }\n");
	put_file("main.c", "int load(void);\nint main(void) { return load() - 1; }\n");
	free(sh("'%s' -q --header -o x.h x.json && gcc -c main.c && for f in plain anch; do "
		"gcc -O2 -ffunction-sections -include x.h -c $f.c -o $f.o && gcc -O2 -c $f.c -o $f-alone.o && ar rcs lib$f.a $f.o && "
		"gcc main.o lib$f.a -o $f || exit 1; done && gcc -Wl,--gc-sections main.o anch.o -o anch-gc",
		tool()));

	/* the plain macro: one group with the header's, once everywhere */
	c = run("'%s' --check -q plain.o libplain.a plain", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cmd_free(&c);
	l = sh("'%s' --list --format=sonames plain", tool());
	cr_expect_str_eq(l, "liblzma.so.5 recommended", "%s", l);
	free(l);

	/* the anchored macro alone: read as any note */
	l = sh("'%s' --list --json anch-alone.o", tool());
	cr_expect_str_eq(l, "[" E1 "]", "%s", l);
	free(l);

	/* beside the header, the check given its manifest (as the build systems' checks are):
	 * twice, one line each on stderr */
	c = run("'%s' --check -q -m x.json anch.o libanch.a anch", tool());
	cr_expect_eq(c.status, 1, "%s%s", c.out, c.err);
	cr_expect_eq(strcount_lines(c.err), 4, "three lines and the end: %s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: anch.o: 1 error in dlopen notes: "), "%s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: libanch.a: 1 error in the dlopen notes of 1 of its 1 ELF members, the first: "),
		  "%s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: anch: 1 error in dlopen notes: "), "%s", c.err);
	l = sh("'%s' --check -q -m x.json anch 2>&1 >/dev/null | grep -cF '%s'", tool(), dup);
	cr_expect_str_eq(l, "1", "%s", l);
	free(l);
	/* without the manifest, the file's own entry twice is valid (systemd's programs declare
	 * entries so: issue 43, item 1) */
	c = run("'%s' --check -q anch.o libanch.a anch", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cmd_free(&c);
	l = sh("readelf -nW anch | grep -o 0x407c0c0a | wc -l; readelf -nW anch-gc | grep -o 0x407c0c0a | wc -l");
	cr_expect_str_eq(l, "2\n1", "dlopen notes in anch, anch-gc: %s", l);
	free(l);
	c = run("'%s' --check -q anch-gc", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cmd_free(&c);
}
