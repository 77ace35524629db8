/* SPDX-License-Identifier: MIT */
/* test_groups.c - notes in payload-keyed COMDAT groups (issue 11, requirement 1).
 *
 * Objects are written the way systemd v261's sd-dlopen.h lays its notes out: each note in its
 * own .note.dlopen section, flags "aGR", type %note, in a COMDAT group whose signature is
 * "sd_dlopen:" followed by the payload.  The linker keeps the first group of a signature and
 * drops the others whatever they hold, so after merge, replace and remove every program linked
 * from the edited object and another object carrying the same group must hold exactly the
 * entries declared, each once, with every linker, in both link orders, with and without
 * --gc-sections. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "macro_shapes.h"

/* Entries in the key order the header writes (feature, description, priority, soname). */
#define X_ "{\"feature\":\"x\",\"description\":\"X support\",\"priority\":\"recommended\",\"soname\":[\"libx.so.1\"]}"
#define Y_ "{\"feature\":\"y\",\"description\":\"Y support\",\"priority\":\"suggested\",\"soname\":[\"liby.so.2\",\"liby.so.1\"]}"
#define Z_ "{\"feature\":\"z\",\"description\":\"Z support\",\"priority\":\"required\",\"soname\":[\"libz.so.1\"]}"
#define N_ "{\"soname\":[\"libnew.so.1\"],\"feature\":\"new\"}"

/* DECL() (macro_shapes.h) and two payloads for it, quotes escaped for the assembler. */
static const char decl_payloads[] =
	"#define X \"[{\\\\\\\"feature\\\\\\\":\\\\\\\"x\\\\\\\",\\\\\\\"description\\\\\\\":\\\\\\\"X support\\\\\\\",\\\\\\\"priority\\\\\\\":\\\\\\\"recommended\\\\\\\",\\\\\\\"soname\\\\\\\":[\\\\\\\"libx.so.1\\\\\\\"]}]\"\n"
	"#define Y \"[{\\\\\\\"feature\\\\\\\":\\\\\\\"y\\\\\\\",\\\\\\\"description\\\\\\\":\\\\\\\"Y support\\\\\\\",\\\\\\\"priority\\\\\\\":\\\\\\\"suggested\\\\\\\",\\\\\\\"soname\\\\\\\":[\\\\\\\"liby.so.2\\\\\\\",\\\\\\\"liby.so.1\\\\\\\"]}]\"\n";

/* one.o declares X and Y (X twice: the assembler folds it), two.o declares X. */
static const char one_c[] = "#include \"decl.h\"\nDECL(X);\nDECL(Y);\nint one(int v) { DECL(X); return v + 1; }\n";
static const char two_c[] = "#include \"decl.h\"\nint two(int v) { DECL(X); return v * 2; }\n";
static const char three_c[] = "int three(int v) { return v - 3; }\n";
static const char main_c[] =
	"#include <stdio.h>\nint one(int), two(int), three(int);\n"
	"int main(void) { printf(\"%d\\n\", one(1) + two(2) + three(3)); return 0; }\n";

static void prepare(const char *cc)
{
	need(cc);
	{
		char decl_h[sizeof sd_dlopen_h + sizeof decl_payloads];
		put_file("decl.h", strcat(strcpy(decl_h, sd_dlopen_h), decl_payloads));
	}
	put_file("one.c", one_c);
	put_file("two.c", two_c);
	put_file("three.c", three_c);
	put_file("main.c", main_c);
	free(sh("for f in one two three main; do %s -O1 -ffunction-sections -c $f.c -o $f.o || exit 1; done", cc));
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A compact JSON array of flat entries (no object inside an entry), its entries sorted one per
 * line: link order decides the order of the notes, not what they hold. */
static char *sort_array(const char *json)
{
	char *copy = strdup(json), *v[64], *out, *p;
	size_t n = 0, len = strlen(json) + 64, i;

	cr_assert(copy && json[0] == '[', "not a JSON array: %s", json);
	for (p = copy + 1; *p == '{' && n < 64;) {
		char *end = strchr(p, '}');
		cr_assert(end, "unterminated entry in %s", json);
		v[n++] = p;
		p = end + 1;
		*p = '\0';
		p += 1;
	}
	qsort(v, n, sizeof *v, str_cmp);
	out = calloc(1, len);
	for (i = 0; i < n; i++) {
		strcat(out, v[i]);
		strcat(out, i + 1 < n ? "\n" : "");
	}
	free(copy);
	return out;
}

static char *sorted_entries(const char *file)
{
	char *j = entries_by("tool", file), *s = sort_array(j);

	free(j);
	return s;
}

static char *sorted_list(const char *json_array)
{
	return sort_array(json_array);
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

ParameterizedTestParameters(groups, edits_fold_with_other_objects)
{
	return cr_make_param_array(struct lk, linkers, sizeof linkers / sizeof linkers[0]);
}

/* Link `edited` with two.o (which carries X's group) and three.o, in both orders: the program
 * runs and holds exactly `want` (a JSON array), each entry once. */
static void expect_linked_with(const char *cc, const char *runner, const struct lk *l, const char *what, const char *edited,
			       const char *want)
{
	char *w = sorted_list(want);

	for (int order = 0; order < 2; order++) {
		char *got, *ran;
		free(sh("%s %s -o prog main.o %s %s three.o", cc, l->flags, order ? "two.o" : edited, order ? edited : "two.o"));
		ran = sh("%s ./prog", runner);
		cr_expect_str_eq(ran, "6", "%s, %s, order %d: the program prints %s", l->name, what, order, ran);
		got = sorted_entries("prog");
		cr_expect_str_eq(got, w, "%s, %s, %s first: the program holds\n%s\nbut the objects declare\n%s", l->name, what,
				 order ? "two.o" : edited, got, w);
		free(got);
		free(ran);
	}
	free(w);
}

static void expect_linked(const struct lk *l, const char *what, const char *edited, const char *want)
{
	expect_linked_with("gcc", "", l, what, edited, want);
}

ParameterizedTest(struct lk *l, groups, edits_fold_with_other_objects, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(l, linkers), "groups::edits_fold_with_other_objects"))
		return;
	char *lint_in, *lint;

	need(l->need);
	need("eu-elflint");
	prepare("gcc");
	/* The objects as the header makes them, unedited. */
	expect_linked(l, "unedited", "one.o", "[" X_ "," Y_ "]");
	lint_in = elflint("one.o");

	/* merge: X and Y stay as they are, N gets a group of its own; X is not added twice */
	put_file("n.json", "[" N_ "," X_ "]");
	free(sh("cp one.o merged.o && '%s' --merge -m n.json merged.o", tool()));
	expect_linked(l, "merge", "merged.o", "[" X_ "," Y_ "," N_ "]");

	/* replace keeping X: X's group is kept, Y's removed, Z's added */
	put_file("xz.json", "[" X_ "," Z_ "]");
	free(sh("cp one.o xz.o && '%s' -m xz.json xz.o", tool()));
	expect_linked(l, "replace with X and Z", "xz.o", "[" X_ "," Z_ "]");

	/* replace without X: one.o no longer declares it, two.o still does */
	put_file("z.json", "[" Z_ "]");
	free(sh("cp one.o z.o && '%s' -m z.json z.o", tool()));
	expect_linked(l, "replace with Z", "z.o", "[" X_ "," Z_ "]");

	/* remove: only two.o's X is left */
	free(sh("cp one.o rm.o && '%s' --remove rm.o", tool()));
	expect_linked(l, "remove", "rm.o", "[" X_ "]");

	/* the tool's group for X folds with the header's: three.o given X and Z by the tool */
	free(sh("cp three.o three-xz.o && '%s' -m xz.json three-xz.o && mv three.o three.orig.o && cp three-xz.o three.o", tool()));
	expect_linked(l, "tool-written X and Z beside the header's X", "rm.o", "[" X_ "," Z_ "]");
	/* two objects the tool wrote, overlapping on Z: one copy each */
	put_file("zn.json", "[" Z_ "," N_ "]");
	free(sh("cp rm.o rm-zn.o && '%s' -m zn.json rm-zn.o", tool()));
	expect_linked(l, "tool-written Z and N beside tool-written X and Z", "rm-zn.o", "[" X_ "," Z_ "," N_ "]");
	free(sh("mv three.orig.o three.o"));

	for (const char *const *o = (const char *const[]){ "merged.o", "xz.o", "z.o", "rm.o", NULL }; *o; o++) {
		lint = elflint(*o);
		cr_expect_str_eq(lint, lint_in, "%s: eu-elflint now says\n%s", *o, lint);
		free(lint);
	}
	free(lint_in);
}

/* What the objects look like: every dlopen section alone in a COMDAT group whose signature is
 * "sd_dlopen:" and its payload; no dlopen section, group or signature symbol left by remove;
 * relocations, symbols and the other groups renumbered (eu-elflint, readelf, llvm-readobj). */
Test(groups, objects_as_readers_see_them, .timeout = 60)
{
	char *s, *lint_in, *lint;

	need("llvm-readobj");
	prepare("gcc");
	lint_in = elflint("one.o");
	put_file("zn.json", "[" Z_ "," N_ "]");
	free(sh("cp one.o z.o && '%s' -m zn.json z.o", tool()));
	s = sh("readelf -gW z.o");
	cr_expect(strstr(s, "COMDAT group section") && strstr(s, "[sd_dlopen:[" Z_ "]]") && strstr(s, "[sd_dlopen:[" N_ "]]"),
		  "readelf -g: %s", s);
	cr_expect(!strstr(s, "\"x\"") && !strstr(s, "\"y\""), "groups of replaced entries remain: %s", s);
	free(s);
	s = sh("readelf -sW z.o | grep -c sd_dlopen: || true");
	cr_expect_str_eq(s, "2", "signature symbols in z.o: %s", s);
	free(s);
	s = sh("llvm-readobj --section-groups z.o | grep -c 'Signature: sd_dlopen:'");
	cr_expect_str_eq(s, "2", "llvm-readobj sees %s groups", s);
	free(s);
	s = sh("readelf -SW z.o | grep ' .note.dlopen ' | grep -c ' AGR '");
	cr_expect_str_eq(s, "2", "dlopen sections with flags AGR: %s", s);
	free(s);
	expect_entries("z.o", "[" Z_ "," N_ "]", 0);
	lint = elflint("z.o");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s", lint);
	free(lint);

	free(sh("cp one.o rm.o && '%s' --remove rm.o", tool()));
	s = sh("readelf -SW rm.o | grep -c -e '.note.dlopen' -e GROUP || true");
	cr_expect_str_eq(s, "0", "sections left by remove: %s", s);
	free(s);
	s = sh("readelf -sW rm.o | grep -c sd_dlopen: || true");
	cr_expect_str_eq(s, "0", "signature symbols left by remove: %s", s);
	free(s);
	s = sh("a=$(readelf -rW rm.o | grep -c R_X86_64); b=$(readelf -rW one.o | grep -c R_X86_64); echo $a $b");
	{
		unsigned a, b;
		cr_expect(sscanf(s, "%u %u", &a, &b) == 2 && a == b && a > 0, "relocations after remove / before: %s", s);
	}
	free(s);
	lint = elflint("rm.o");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s", lint);
	free(lint);
	s = sh("stat -c %%s rm.o one.o | tr '\\n' ' '");
	{
		unsigned long a, b;
		cr_expect(sscanf(s, "%lu %lu", &a, &b) == 2 && a < b, "remove did not make the object smaller: %s", s);
	}
	free(s);
	free(lint_in);
}

/* Adding groups moves no symbol and rewrites no relocation: the input's symbols keep their
 * indexes and bytes, each new signature symbol is appended after them (weak, hidden,
 * undefined: outside the archive index, never exported, never pulling a member), so an edit
 * copies the relocation sections as they are.  Cross-checked with readelf and llvm-readobj. */
Test(groups, adding_keeps_every_symbol_and_relocation_in_place, .timeout = 60)
{
	char *in, *out, *s;

	need("llvm-readobj");
	prepare("gcc");
	put_file("n.json", "[" N_ "]");
	free(sh("cp one.o add.o && '%s' --merge -m n.json add.o", tool()));
	in = sh("readelf -sW one.o | grep -E '^ +[0-9]+:'");
	out = sh("readelf -sW add.o | grep -E '^ +[0-9]+:'");
	cr_assert(strlen(in) > 0 && strncmp(in, out, strlen(in)) == 0, "symbols moved or changed:\n%s\n---\n%s", in, out);
	s = out + strlen(in);
	cr_expect(strstr(s, "NOTYPE  WEAK   HIDDEN   UND sd_dlopen:[{") && !strchr(strchr(s, '\n') + 1, '\n'),
		  "the one added symbol: %s", s);
	free(in);
	free(out);
	in = sh("readelf -SW one.o | grep ' .symtab ' | awk '{print $(NF-1)}'");
	out = sh("readelf -SW add.o | grep ' .symtab ' | awk '{print $(NF-1)}'");
	cr_expect_str_eq(out, in, "the symbol table's first global moved");
	free(in);
	free(out);
	in = sh("llvm-readobj -r one.o | grep -v '^File:'");
	out = sh("llvm-readobj -r add.o | grep -v '^File:'");
	cr_expect(strlen(in) > 100, "one.o has relocations: %s", in);
	cr_expect_str_eq(out, in, "relocations changed");
	free(in);
	free(out);
	s = sh("llvm-readobj --section-groups add.o | grep -c 'Signature: sd_dlopen:'");
	cr_expect_str_eq(s, "3", "groups: %s", s);
	free(s);
	expect_entries("add.o", "[" X_ "," Y_ "," N_ "]", 0);
}

/* A removed section whose symbol a kept relocation uses cannot go: refused, file untouched. */
Test(groups, refuses_removing_what_code_refers_to)
{
	struct cmd c;

	need("gcc");
	put_file("ref.c", "__attribute__((used, section(\".note.dlopen\"))) static const struct { unsigned h[3]; char n[4]; char j[28]; } n =\n"
			  "  { { 4, 28, 0x407c0c0a }, \"FDO\", \"[{\\\"soname\\\":[\\\"libq.so.1\\\"]}]\" };\n"
			  "const void *p(void) { return &n; }\n");
	free(sh("gcc -O1 -c ref.c -o ref.o && cp ref.o ref.orig"));
	c = run("'%s' --remove ref.o", tool());
	cr_expect_eq(c.status, 1, "exit %d: %s", c.status, c.err);
	cr_expect(strstr(c.err, "ref.o: ") && strstr(c.err, "removed"), "message: %s", c.err);
	cr_expect(same_files("ref.o", "ref.orig"), "the refused file changed");
	cmd_free(&c);
}

/* Re-running any edit changes nothing; the same edit on the same input gives the same bytes. */
Test(groups, idempotent_and_reproducible, .timeout = 60)
{
	prepare("gcc");
	put_file("xz.json", "[" X_ "," Z_ "]");
	free(sh("for m in '-m xz.json' '--merge -m xz.json' '--remove'; do "
		"cp one.o a.o && cp one.o b.o && '%s' $m a.o && '%s' $m b.o && cmp a.o b.o && cp a.o a1.o && "
		"touch -d 2001-01-01 a.o && '%s' $m a.o && cmp a.o a1.o && test $(stat -c %%Y a.o) = 978307200 || exit 1; done",
		tool(), tool(), tool()));
	/* replace after merge converges: the same as replace on the original */
	free(sh("cp one.o c.o && '%s' --merge -m xz.json c.o && '%s' -m xz.json c.o && '%s' -m xz.json c.o", tool(), tool(), tool()));
	expect_entries("c.o", "[" X_ "," Z_ "]", 0);
}

/* clang's assembler keeps the backslashes of the quoted signature, so its groups are named
 * differently from gas's (they do not fold with them; their notes are the same).  The tool
 * keeps or removes them whole all the same. */
Test(groups, clang_objects, .timeout = 60)
{
	char *got;

	need("clang");
	prepare("clang");
	put_file("z.json", "[" Z_ "]");
	free(sh("cp one.o rm.o && '%s' --remove rm.o && cp one.o z.o && '%s' -m z.json z.o && cp one.o mg.o && '%s' --merge -m z.json mg.o",
		tool(), tool(), tool()));
	expect_entries("rm.o", "[]", 0);
	expect_entries("z.o", "[" Z_ "]", 0);
	free(sh("clang -fuse-ld=lld -o prog main.o mg.o two.o three.o && ./prog"));
	got = sorted_entries("prog");
	{
		char *w = sorted_list("[" X_ "," Y_ "," Z_ "]");
		cr_expect_str_eq(got, w, "clang objects merged and linked: %s", got);
		free(w);
	}
	free(got);
}

/* Other classes, byte orders and relocation formats (REL on i686 and mips, RELA elsewhere):
 * the edits renumber sections, symbols and relocations, and the programs still run. */
struct xcase {
	char cc[40];
	char runner[64];
};

static struct xcase xcases[] = {
	{ "i686-linux-gnu-gcc", "qemu-i386 -L /usr/i686-linux-gnu" },
	{ "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu" },
	{ "powerpc64-linux-gnu-gcc", "qemu-ppc64 -L /usr/powerpc64-linux-gnu" },
	{ "mips-linux-gnu-gcc", "qemu-mips -L /usr/mips-linux-gnu" },
};

ParameterizedTestParameters(groups, cross_objects)
{
	return cr_make_param_array(struct xcase, xcases, sizeof xcases / sizeof xcases[0]);
}

ParameterizedTest(struct xcase *x, groups, cross_objects, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(x, xcases), "groups::cross_objects"))
		return;
	static const struct lk bfd = { "bfd", "", "ld.bfd" };
	char prog[32], *lint_in, *lint;

	snprintf(prog, sizeof prog, "%.*s", (int)strcspn(x->runner, " "), x->runner);
	need(prog);
	prepare(x->cc);
	lint_in = elflint("one.o");
	put_file("n.json", "[" N_ "," X_ "]");
	put_file("z.json", "[" Z_ "]");
	free(sh("cp one.o merged.o && '%s' --merge -m n.json merged.o && cp one.o z.o && '%s' -m z.json z.o && "
		"cp one.o rm.o && '%s' --remove rm.o", tool(), tool(), tool()));
	expect_linked_with(x->cc, x->runner, &bfd, "merge", "merged.o", "[" X_ "," Y_ "," N_ "]");
	expect_linked_with(x->cc, x->runner, &bfd, "replace with Z", "z.o", "[" X_ "," Z_ "]");
	expect_linked_with(x->cc, x->runner, &bfd, "remove", "rm.o", "[" X_ "]");
	for (const char *const *o = (const char *const[]){ "merged.o", "z.o", "rm.o", NULL }; *o; o++) {
		lint = elflint(*o);
		cr_expect_str_eq(lint, lint_in, "%s, %s: eu-elflint now says\n%s", x->cc, *o, lint);
		free(lint);
	}
	free(lint_in);
}
