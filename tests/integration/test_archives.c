/* SPDX-License-Identifier: MIT */
/* test_archives.c - static archives as inputs (issue 11, requirement 2): archives built here
 * with ar and llvm-ar in every format are listed, edited in place and with -o, and linked; the
 * index and the member table stay what they were but for sizes and notes; damaged archives are
 * refused naming the member, untouched. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define M1 "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}]"
#define M1_LABEL "\"z\" [\"libz.so.1\"]"
#define M2 "[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}]"
#define M1_ENTRY "{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}"
#define M2_ENTRY "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}"
#define M12 "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"},{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}]"

/* Two members a program can pull one at a time, the second with a name longer than 15 bytes
 * (GNU keeps it in the "//" table, BSD after the header). */
static void sources(void)
{
	put_file("x.c", "int fx(void) { return 40; }\n");
	put_file("a_member_with_a_long_name.c", "int fy(void) { return 2; }\n");
	put_file("mx.c", "#include <stdio.h>\nint fx(void);\nint main(void) { printf(\"x %d\\n\", fx()); return 0; }\n");
	put_file("my.c", "#include <stdio.h>\nint fy(void);\nint main(void) { printf(\"y %d\\n\", fy()); return 0; }\n");
	put_file("m1.json", M1);
	put_file("m2.json", M2);
	put_file("m12.json", M12);
}

static void objects(const char *cc)
{
	need(cc);
	sources();
	free(sh("%s -O1 -ffunction-sections -c x.c a_member_with_a_long_name.c mx.c my.c", cc));
}

/* What `ar tv` and `nm -s` say, sizes removed: the rest must not change. */
static char *table(const char *a)
{
	return sh("ar tv '%s' | awk '{ $3 = \"\"; print }'", a);
}

static char *armap(const char *a)
{
	return sh("nm -s '%s' | sed -n '/^Archive index:/,/^$/p'", a);
}

struct fmt {
	char name[24];
	char make[96];       /* builds "%s" from x.o and the long-named member */
	int bsd;             /* bfd and gold read no BSD index (not even before the edit): lld and mold */
};

static struct fmt formats[] = {
	{ "gnu", "ar rc %s x.o a_member_with_a_long_name.o", 0 },
	{ "gnu deterministic", "ar rcD %s x.o a_member_with_a_long_name.o", 0 },
	{ "bsd", "llvm-ar --format=bsd rc %s x.o a_member_with_a_long_name.o", 1 },
	{ "gnu /SYM64/", "SYM64_THRESHOLD=0 llvm-ar --format=gnu rc %s x.o a_member_with_a_long_name.o", 0 },
};

ParameterizedTestParameters(archive, every_format_is_listed_edited_and_linked)
{
	return cr_make_param_array(struct fmt, formats, sizeof formats / sizeof formats[0]);
}

static void expect_program(const char *flags, const char *main_o, const char *lib, const char *out, const char *json)
{
	char *ran, *got;

	free(sh("gcc %s -o prog %s %s", flags, main_o, lib));
	ran = sh("./prog");
	cr_expect_str_eq(ran, out, "%s %s: the program prints %s", flags, lib, ran);
	got = entries_by("sections", "prog");
	cr_expect_str_eq(got, json, "%s %s: the program carries %s", flags, lib, got);
	free(got);
	got = entries_by("tool", "prog");
	cr_expect_str_eq(got, json, "%s %s: --list on the program says %s", flags, lib, got);
	free(got);
	free(ran);
}

ParameterizedTest(struct fmt *f, archive, every_format_is_listed_edited_and_linked, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(f, formats), "archive::every_format_is_listed_edited_and_linked"))
		return;
	char *t0, *m0, *t1, *m1, *got, *before;
	static const char *const gnu_lds[] = { "-fuse-ld=bfd", "-fuse-ld=gold -Wl,--gc-sections", "-fuse-ld=lld",
					       "-fuse-ld=mold -Wl,--gc-sections" };
	static const char *const bsd_lds[] = { "-fuse-ld=lld", "-fuse-ld=lld -Wl,--gc-sections", "-fuse-ld=mold",
					       "-fuse-ld=mold -Wl,--gc-sections" };
	const char *const *lds = f->bsd ? bsd_lds : gnu_lds;

	cr_log_info("format: %s", f->name);
	objects("gcc");
	free(sh(f->make, "lib.a"));
	t0 = table("lib.a"), m0 = armap("lib.a");
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, "[]", "%s: a fresh archive lists %s", f->name, got);
	free(got);

	/* -o: the input stays; in place: the same bytes. */
	free(sh("cp lib.a orig.a && '%s' -m m1.json -o out.a lib.a && '%s' -m m1.json lib.a", tool(), tool()));
	cr_expect(same_files("lib.a", "out.a"), "%s: in place and -o differ", f->name);
	free(sh("'%s' -m m1.json -o out2.a orig.a", tool()));
	cr_expect(same_files("out.a", "out2.a"), "%s: two runs give different bytes", f->name);
	t1 = table("lib.a"), m1 = armap("lib.a");
	cr_expect_str_eq(t1, t0, "%s: ar tv changed:\n%s\nwas\n%s", f->name, t1, t0);
	cr_expect_str_eq(m1, m0, "%s: the index changed:\n%s\nwas\n%s", f->name, m1, m0);
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, M1, "%s: the edited archive lists %s", f->name, got);
	free(got);
	/* Every member as the readers see it. */
	free(sh("mkdir x && cd x && ar x ../lib.a"));
	expect_entries("x/x.o", M1, 0);
	expect_entries("x/a_member_with_a_long_name.o", M1, 0);

	/* Idempotent: a second run changes neither the bytes nor the modification time. */
	before = sh("stat -c %%Y.%%y lib.a; sha256sum < lib.a");
	free(sh("sleep 1.1 && '%s' -m m1.json lib.a", tool()));
	got = sh("stat -c %%Y.%%y lib.a; sha256sum < lib.a");
	cr_expect_str_eq(got, before, "%s: the second run touched the archive", f->name);
	free(got);
	free(before);

	/* Programs pulling either member, four linkers. */
	for (size_t i = 0; i < 4; i++) {
		expect_program(lds[i], "mx.o", "lib.a", "x 40", M1);
		expect_program(lds[i], "my.o", "lib.a", "y 2", M1);
	}
	/* --merge, then --remove. */
	free(sh("'%s' --merge -m m2.json lib.a", tool()));
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, M12, "%s: merged archive lists %s", f->name, got);
	free(got);
	expect_program("-fuse-ld=lld -Wl,--gc-sections", "my.o", "lib.a", "y 2", M12);
	free(sh("'%s' --remove lib.a", tool()));
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, "[]", "%s: after --remove the archive lists %s", f->name, got);
	free(got);
	free(t0), free(m0), free(t1), free(m1);
}

/* Every member carries the library's entries, each in a payload-keyed COMDAT group: a program
 * pulling several members, and a shared library and a program both linking the archive, carry
 * each entry once. */
Test(archive, a_program_pulling_every_member_carries_each_entry_once, .timeout = 120)
{
	static const char *const lds[] = { "-fuse-ld=bfd", "-fuse-ld=bfd -Wl,--gc-sections", "-fuse-ld=gold",
					   "-fuse-ld=gold -Wl,--gc-sections", "-fuse-ld=lld", "-fuse-ld=lld -Wl,--gc-sections",
					   "-fuse-ld=mold", "-fuse-ld=mold -Wl,--gc-sections" };

	objects("gcc");
	put_file("mxy.c", "#include <stdio.h>\nint fx(void); int fy(void);\n"
		 "int main(void) { printf(\"xy %d\\n\", fx() + fy()); return 0; }\n");
	free(sh("gcc -O1 -c mxy.c && ar rc lib.a x.o a_member_with_a_long_name.o && '%s' -m m12.json lib.a", tool()));
	for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++)
		expect_program(lds[i], "mxy.o", "lib.a", "xy 42", M12);
	/* The same entries declared again in the program's own object fold with the archive's. */
	free(sh("'%s' -m m12.json mxy.o", tool()));
	for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++)
		expect_program(lds[i], "mxy.o", "lib.a", "xy 42", M12);
}

/* The other objects built with LTO (the archive's members are plain objects). */
Test(archive, a_program_linked_with_lto_carries_the_entries, .timeout = 60)
{
	objects("gcc");
	need("clang");
	free(sh("ar rc lib.a x.o a_member_with_a_long_name.o && '%s' -m m2.json lib.a && clang -flto -O2 -c my.c -o my-lto.o", tool()));
	free(sh("clang -flto -fuse-ld=lld -Wl,--gc-sections -o prog my-lto.o lib.a"));
	free(sh("gcc -flto -O2 -c mx.c -o mx-lto.o && gcc -flto -fuse-ld=bfd -o prog2 mx-lto.o lib.a"));
	char *a = sh("./prog && ./prog2"), *e1 = entries_by("sections", "prog"), *e2 = entries_by("sections", "prog2");
	cr_expect_str_eq(a, "y 2\nx 40");
	cr_expect_str_eq(e1, M2, "clang LTO program carries %s", e1);
	cr_expect_str_eq(e2, M2, "gcc LTO program carries %s", e2);
	free(a), free(e1), free(e2);
}

struct cross { char name[16], cc[32], runner[48]; };

static struct cross crosses[] = {
	{ "aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64 -L /usr/aarch64-linux-gnu" },
	{ "ppc64 BE", "powerpc64-linux-gnu-gcc", "qemu-ppc64 -L /usr/powerpc64-linux-gnu" },
	{ "i686", "i686-linux-gnu-gcc", "qemu-i386 -L /usr/i686-linux-gnu" },
};

ParameterizedTestParameters(archive, cross_archives_are_edited_linked_and_run)
{
	return cr_make_param_array(struct cross, crosses, sizeof crosses / sizeof crosses[0]);
}

ParameterizedTest(struct cross *c, archive, cross_archives_are_edited_linked_and_run, .timeout = 120)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, crosses), "archive::cross_archives_are_edited_linked_and_run"))
		return;
	char prefix[40], *ran, *got, *m0, *m1;

	snprintf(prefix, sizeof prefix, "%.*s", (int)(strlen(c->cc) - 3), c->cc);   /* "...-gnu-" */
	objects(c->cc);
	free(sh("%sar rc lib.a x.o a_member_with_a_long_name.o", prefix));
	m0 = sh("%snm -s lib.a | sed -n '/^Archive index:/,/^$/p'", prefix);
	free(sh("'%s' -m m1.json lib.a", tool()));
	m1 = sh("%snm -s lib.a | sed -n '/^Archive index:/,/^$/p'", prefix);
	cr_expect_str_eq(m1, m0, "%s: the index changed", c->name);
	free(sh("%s -o prog my.o lib.a", c->cc));
	ran = sh("%s ./prog", c->runner);
	cr_expect_str_eq(ran, "y 2", "%s: the program prints %s", c->name, ran);
	got = entries_by("sections", "prog");
	cr_expect_str_eq(got, M1, "%s: the program carries %s", c->name, got);
	free(got), free(ran), free(m0), free(m1);
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, M1, "%s: the archive lists %s", c->name, got);
	free(got);
}

Test(archive, thin_archives_are_read_and_refused_for_writing)
{
	struct cmd c;
	char *got;

	objects("gcc");
	free(sh("'%s' -m m1.json x.o && '%s' -m m2.json a_member_with_a_long_name.o && "
		"ar rcT thin.a x.o a_member_with_a_long_name.o && cp thin.a thin.orig", tool(), tool()));
	got = entries_by("tool", "thin.a");
	cr_expect_str_eq(got, M12, "the thin archive lists %s", got);
	free(got);
	c = run("'%s' --remove thin.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "dlnote-inject: thin.a: thin archive:") == c.err && !strchr(strchr(c.err, '\n') + 1, '\n'),
		  "%s", c.err);
	cr_expect(same_files("thin.a", "thin.orig"));
	cmd_free(&c);
}

/* Thin archives as every writer makes them (issue 32, item 2): GNU ar 2.40 writes the long-name
 * reference of a member whose basename has 15 characters as "/N" with a '/' left at the end of
 * the field, and "/N:ORIGIN" for a member of another archive added to a thin one; llvm-ar writes
 * its own; Meson 1.0.1 makes every static library it does not install with `ar csrDT`.  Each
 * is listed and checked member by member, names as `ar t` gives them. */
Test(archive, thin_archives_of_every_writer_are_read, .timeout = 120)
{
	static const char *const makers[] = {
		"ar rcT", "ar csrDT", "llvm-ar rcT", "llvm-ar --format=gnu rcsT",
	};
	char *got, *names, *want;

	need("llvm-ar");
	put_file("m1.json", M1);
	put_file("m2.json", M2);
	/* basenames of 13 to 17 characters, in a subdirectory (thin archives name the path) */
	put_file("f.c", "int f(void) { return 1; }\n");
	free(sh("mkdir -p sub && for n in abcdefghi abcdefghij abcdefghijk abcdefghijkl abcdefghijklm; do "
		"sed s/f/$n/ f.c > sub/$n.c && gcc -O1 -c sub/$n.c -o sub/$n.o || exit 1; done && "
		"'%s' -m m1.json sub/abcdefghijklm.o && '%s' -m m2.json sub/abcdefghi.o", tool(), tool()));
	for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
		free(sh("rm -f thin.a && %s thin.a sub/abcdefghi.o sub/abcdefghij.o sub/abcdefghijk.o sub/abcdefghijkl.o "
			"sub/abcdefghijklm.o", makers[i]));
		got = entries_by("tool", "thin.a");
		cr_expect_str_eq(got, "[" M2_ENTRY "," M1_ENTRY "]", "%s: the thin archive lists %s", makers[i], got);
		free(got);
		/* the member names, as the tool reports them, against ar's */
		names = sh("ar t thin.a | tr '\\n' ' '");
		cr_expect(strstr(names, "sub/abcdefghijklm.o"), "%s: ar t says %s", makers[i], names);
		got = sh("'%s' --check thin.a", tool());
		cr_expect(strstr(got, "in 1 of 5 ELF members (sub/abcdefghijklm.o)") &&
				  strstr(got, "in 1 of 5 ELF members (sub/abcdefghi.o)"),
			  "%s: --check says\n%s", makers[i], got);
		free(got), free(names);
	}
	/* GNU ar flattens an archive added to a thin one: "/N:ORIGIN" names its members. */
	free(sh("ar rcs normal.a sub/abcdefghijklm.o sub/abcdefghij.o && rm -f nested.a && "
		"ar rcT nested.a normal.a sub/abcdefghi.o && grep -c ':[0-9]' nested.a"));
	want = sh("ar t nested.a | tr '\\n' ' '");
	cr_expect_str_eq(want, "abcdefghijklm.o abcdefghij.o sub/abcdefghi.o ", "ar t nested.a: %s", want);
	got = entries_by("tool", "nested.a");
	cr_expect_str_eq(got, "[" M1_ENTRY "," M2_ENTRY "]", "the nested thin archive lists %s", got);
	free(got);
	got = sh("'%s' --check nested.a", tool());
	cr_expect(strstr(got, "in 1 of 3 ELF members (normal.a(abcdefghijklm.o))"), "--check says\n%s", got);
	free(got), free(want);
	/* A nested archive that changed under the thin one: refused, naming both. */
	free(sh("cp sub/abcdefghij.o big.o && objcopy --add-section .pad=f.c big.o && rm normal.a && "
		"ar rcs normal.a big.o sub/abcdefghijklm.o"));
	{
		struct cmd c = run("'%s' --list nested.a", tool());
		cr_expect_eq(c.status, 1, "exit %d", c.status);
		cr_expect(strstr(c.err, "dlnote-inject: nested.a[normal.a]: ") == c.err && !strchr(strchr(c.err, '\n') + 1, '\n'),
			  "one line naming the member: %s", c.err);
		cmd_free(&c);
	}
}

/* Meson makes a static library it does not install thin (`ar csrDT`); its objects are named
 * after their sources (SOURCE.c.o, here 15 characters).  The library is compiled with a
 * --header header; the tool reads the archive the build made, and the program linked from it
 * carries the member's entries. */
Test(archive, a_meson_thin_archive_is_read, .timeout = 120)
{
	char *got;

	need("meson");
	need("ninja");
	put_file("m1.json", M1);
	put_file("meson.build", "project('t', 'c')\n"
				"inner = static_library('inner', 'abcdefghijk.c', install: false,\n"
				"  c_args: ['-include', meson.current_source_dir() / 'notes.h'])\n"
				"executable('prog', 'main.c', link_with: inner)\n");
	put_file("abcdefghijk.c", "int inner(void) { return 7; }\n");
	put_file("main.c", "#include <stdio.h>\nint inner(void);\nint main(void) { printf(\"%d\\n\", inner()); return 0; }\n");
	free(sh("'%s' --header -m m1.json -o notes.h && meson setup build >/dev/null && ninja -C build >/dev/null && "
		"head -c 8 build/libinner.a | grep -q '<thin>' && ar t build/libinner.a | grep -q '/abcdefghijk.c.o$'", tool()));
	got = entries_by("tool", "build/libinner.a");
	cr_expect_str_eq(got, M1, "the Meson thin archive lists %s", got);
	free(got);
	got = sh("'%s' --check build/libinner.a", tool());
	cr_expect(strstr(got, "ok (1 dlopen entry in 1 ELF member"), "--check says\n%s", got);
	free(got);
	got = entries_by("sections", "build/prog");
	cr_expect_str_eq(got, M1, "the program carries %s", got);
	free(got);
}

/* Members whose notes fail --check for the same cause (the macro left on beside the helper's
 * header: each entry twice) are said once for the archive (issue 33, item 5): with -q, one line
 * on stderr naming the cause and the fix; without, one line per distinct cause on stdout with
 * how many members; -v, every member. */
Test(archive, one_line_per_cause_for_many_members, .timeout = 60)
{
	struct cmd c;
	char *n;

	put_file("m.json", M1);
	put_file("sdl.h", "__attribute__((aligned(4), used, section(\".note.dlopen\"))) static const struct { unsigned h[3]; "
			  "char n[4]; char j[44]; } note = { { 4, 41, 0x407c0c0a }, \"FDO\", "
			  "\"[{\\\"feature\\\":\\\"z\\\",\\\"soname\\\":[\\\"libz.so.1\\\"]}]\" };\n");
	free(sh("'%s' --header -m m.json -o h.h && for i in $(seq 1 16); do echo \"int f$i(void) { return $i; }\" > m$i.c && "
		"gcc -O1 -c -include h.h -include sdl.h m$i.c -o m$i.o || exit 1; done && ar rcs lib.a m*.o", tool()));
	c = run("'%s' --check -q lib.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "", "-q: nothing on stdout: %s", c.out);
	cr_expect(strstr(c.err, "dlnote-inject: lib.a: 16 errors in the dlopen notes of 16 of its 16 ELF members, the first: "
				"entry \"z\" [\"libz.so.1\"] is declared 2 times") == c.err &&
			  strstr(c.err, "declare it once") && strchr(c.err, '\n') == c.err + strlen(c.err) - 1,
		  "one line on stderr:\n%s", c.err);
	cmd_free(&c);
	c = run("'%s' --check lib.a", tool());
	cr_expect(strstr(c.out, "lib.a: error: entry \"z\" [\"libz.so.1\"] is declared 2 times") == c.out &&
			  strstr(c.out, "(in 16 of 16 ELF members: m1.o, m10.o, m11.o, ...)\n") &&
			  strchr(c.out, '\n') == c.out + strlen(c.out) - 1,
		  "one line on stdout:\n%s", c.out);
	cmd_free(&c);
	n = sh("'%s' --check -v lib.a 2>&1 | grep -c '^lib.a\\[m[0-9]*.o\\]: error: '", tool());
	cr_expect_str_eq(n, "16", "-v: a line per member");
	free(n);
}

/* A bitcode member cannot carry a note, and a program that takes it would get no entry: an edit
 * that adds entries is refused (the archive untouched), unless --member leaves the member out.
 * Members that are not code (text) are kept as they are. */
Test(archive, bitcode_members_refuse_the_edit_and_non_elf_members_are_kept, .timeout = 60)
{
	struct cmd c;

	objects("gcc");
	need("clang");
	free(sh("clang -flto -O2 -c my.c -o lto.o && echo 'not an object' > notes.txt && ar rc lib.a x.o lto.o notes.txt && "
		"cp lib.a lib.orig && ar rc text.a x.o notes.txt"));
	c = run("'%s' -v -m m1.json lib.a", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: lib.a[lto.o]: LLVM bitcode (clang -flto): it cannot carry a note, and a "
				"program that takes this member would not get the entries;"), "%s", c.err);
	cmd_free(&c);
	cr_expect(same_files("lib.a", "lib.orig"), "a refused edit changed the archive");
	c = run("'%s' -v -m m1.json --member x.o lib.a", tool());
	cr_expect_eq(c.status, 0, "--member leaves the bitcode member out: %s", c.err);
	cmd_free(&c);
	free(sh("'%s' --remove lib.a", tool()));
	c = run("'%s' -v -m m1.json text.a", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.err, "text.a[notes.txt]: not ELF, kept untouched\n"), "%s", c.err);
	cmd_free(&c);
	free(sh("mkdir x && cd x && ar x ../text.a"));
	cr_expect(same_files("x/notes.txt", "notes.txt"), "the text member changed");
	expect_entries("x/x.o", M1, 0);
	/* A bitcode file given alone says what it is. */
	c = run("'%s' --list lto.o", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "dlnote-inject: lto.o: LLVM bitcode (clang -flto), not an ELF file") == c.err, "%s", c.err);
	cmd_free(&c);
}

Test(archive, member_narrows_reading_and_writing)
{
	struct cmd c;
	char *got;

	objects("gcc");
	free(sh("ar rc lib.a x.o a_member_with_a_long_name.o && '%s' -m m1.json --member a_member_with_a_long_name.o lib.a "
		"&& mkdir x && cd x && ar x ../lib.a", tool()));
	cr_expect(same_files("x/x.o", "x.o"), "x.o was edited");
	expect_entries("x/a_member_with_a_long_name.o", M1, 0);
	got = sh("'%s' --list --json --member x.o lib.a", tool());
	cr_expect_str_eq(got, "[]");
	free(got);
	free(sh("cp lib.a before.a"));
	c = run("'%s' -m m2.json --member nosuch.o lib.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "dlnote-inject: lib.a: no member named 'nosuch.o'\n");
	cmd_free(&c);
	cr_expect(same_files("lib.a", "before.a"), "a run naming no member changed the archive");
}

/* Replace reuses, from one member to the next, what it derives from the entries alone (each
 * entry's note and signature): members that already hold some of the entries, others, or none
 * each end with exactly the entries given, byte for byte what the same edit of each object
 * alone gives. */
Test(archive, replace_gives_members_holding_different_entries_the_same_entries, .timeout = 60)
{
	static const char *const names[] = { "xa.o", "la.o", "my.o" };

	objects("gcc");
	free(sh("cp x.o xa.o && '%s' -m m2.json xa.o && cp a_member_with_a_long_name.o la.o && '%s' -m m12.json la.o && "
		"ar rc lib.a xa.o la.o my.o", tool(), tool()));
	for (const char *const *m = (const char *const[]){ "m12.json", "m1.json", NULL }; *m; m++) {
		free(sh("rm -rf x && cp lib.a ed.a && '%s' -m %s ed.a && mkdir x && cd x && ar x ../ed.a", tool(), *m));
		for (size_t i = 0; i < 3; i++) {
			char member[64];
			snprintf(member, sizeof member, "x/%s", names[i]);
			expect_entries(member, strcmp(*m, "m1.json") ? M12 : M1, 0);
			free(sh("'%s' -m %s -o alone.o %s && cmp alone.o %s", tool(), *m, names[i], member));
		}
	}
}

/* A BSD member's long name sits between its header and its data.  A member whose header is in
 * the writer's read buffer but whose data runs past it is read again from its name, not its
 * data: the name must come out whole (it came out as the bytes before the buffer). */
Test(archive, a_long_bsd_name_straddling_the_read_buffer_is_kept, .timeout = 60)
{
	char *before, *after;

	need("llvm-ar");
	put_file("m1.json", M1);
	put_file("a.c", "static const char big[200000] = { 1 };\nconst char *f1(void) { return big; }\n");
	put_file("b_member_with_a_long_name.c", "static const char big2[100000] = { 2 };\nconst char *f2(void) { return big2; }\n");
	free(sh("gcc -c a.c b_member_with_a_long_name.c && llvm-ar --format=bsd rc lib.a a.o b_member_with_a_long_name.o && "
		"'%s' -m m1.json -o out.a lib.a && cp lib.a in-place.a && '%s' -m m1.json in-place.a", tool(), tool()));
	before = sh("llvm-ar t lib.a");
	for (const char *const *a = (const char *const[]){ "out.a", "in-place.a", NULL }; *a; a++) {
		after = sh("llvm-ar t %s", *a);
		cr_expect_str_eq(after, before, "%s: member names", *a);
		free(after);
		free(sh("rm -rf x && mkdir x && cd x && llvm-ar x ../%s && test -s b_member_with_a_long_name.o", *a));
		expect_entries("x/b_member_with_a_long_name.o", M1, 0);
	}
	free(before);
}

/* Members larger than the 256 KiB read buffer are copied by the kernel, their headers read
 * from the buffer when it holds their start: a large member after a small one (its start in
 * the buffer), a second large one right after it (the buffer refilled at its header), a small
 * one last.  Every member is decoded by each reader, keeps its section bytes, passes
 * eu-elflint, and a program pulling each returns the sums of their arrays. */
Test(archive, members_larger_than_the_read_buffer_are_edited_whole, .timeout = 90)
{
	static const char *const names[] = { "s1.o", "big1.o", "big2.o", "s2.o" };
	char *before, *after, *lint, *run1;

	put_file("m1.json", M1);
	put_file("s1.c", "int s1(void) { return 1; }\n");
	put_file("big1.c", "static unsigned char b[300000] = { 3, [299999] = 5 };\n"
		 "int big1(void) { int s = 0; for (int i = 0; i < 300000; i++) s += b[i]; return s; }\n");
	put_file("big2.c", "static unsigned char c[400000] = { 7, [200000] = 11, [399999] = 13 };\n"
		 "int big2(void) { int s = 0; for (int i = 0; i < 400000; i++) s += c[i]; return s; }\n");
	put_file("s2.c", "int s2(void) { return 2; }\n");
	put_file("main.c", "#include <stdio.h>\nint s1(void), big1(void), big2(void), s2(void);\n"
		 "int main(void) { printf(\"%d %d %d %d\\n\", s1(), big1(), big2(), s2()); return 0; }\n");
	free(sh("gcc -O1 -c s1.c big1.c big2.c s2.c main.c && ar rc lib.a s1.o big1.o big2.o s2.o && "
		"'%s' -m m1.json -o out.a lib.a && cp lib.a in-place.a && '%s' -m m1.json in-place.a", tool(), tool()));
	before = sh("for f in s1.o big1.o big2.o s2.o; do objcopy -O binary -j .data -j .text $f $f.bin && md5sum < $f.bin; done");
	for (const char *const *a = (const char *const[]){ "out.a", "in-place.a", NULL }; *a; a++) {
		free(sh("rm -rf x && mkdir x && cd x && ar x ../%s", *a));
		for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
			char path[64];
			snprintf(path, sizeof path, "x/%s", names[i]);
			expect_entries(path, M1, 0);
			lint = elflint(path);
			cr_expect_str_eq(lint, "", "%s: eu-elflint: %s", path, lint);
			free(lint);
		}
		after = sh("cd x && for f in s1.o big1.o big2.o s2.o; do objcopy -O binary -j .data -j .text $f $f.bin && md5sum < $f.bin; done");
		cr_expect_str_eq(after, before, "%s: the members' code and data changed", *a);
		run1 = sh("gcc main.o %s -o prog && ./prog", *a);
		cr_expect_str_eq(run1, "1 8 31 2", "%s: the program printed %s", *a, run1);
		free(after), free(run1);
	}
	free(before);
}

Test(archive, files_from_check_expect_and_discover_read_archives)
{
	char *got;

	objects("gcc");
	put_file("dl.c", "#include <dlfcn.h>\nvoid *load(void) { return dlopen(\"libfoo.so.3\", 0); }\n");
	free(sh("gcc -O1 -c dl.c && ar rc lib.a x.o dl.o && '%s' -m m1.json lib.a && echo lib.a > list", tool()));
	got = sh("'%s' --list --json --files-from list", tool());
	cr_expect_str_eq(got, M1);
	free(got);
	got = sh("'%s' --check lib.a", tool());
	cr_expect_str_eq(got, "lib.a: " M1_LABEL ": in every ELF member (2); every program that takes a member of this archive "
			      "carries it\nlib.a: ok (1 dlopen entry in 2 ELF members; 1 of them reach every program that takes a "
			      "member)");
	free(got);
	got = sh("'%s' --check -q --expect m1.json --files-from list", tool());
	cr_expect_str_eq(got, "");
	free(got);
	struct cmd c = run("'%s' --check -q --expect m2.json lib.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "liblz4.so.1"), "%s", c.out);
	cmd_free(&c);
	got = sh("'%s' --discover -q lib.a", tool());
	cr_expect(strstr(got, "libfoo.so.3"), "--discover over the archive: %s", got);
	cr_expect(strstr(got, "lib.a[dl.o]"), "--discover names the member it found the name in: %s", got);
	free(got);
}

/* Each damage: a shell edit of lib.a, and what the one-line error must contain. */
struct damage { char name[32], how[160], member[48], why[64]; };

static struct damage damages[] = {
	{ "truncated member", "truncate -s -100 lib.a", "[a_member_with_a_long_name.o]", "truncated member" },
	{ "bad size field", "printf '12x4      ' | dd of=lib.a bs=1 seek=$(( $X + 48 )) conv=notrunc status=none",
	  "[x.o]", "bad size field" },
	{ "bad header magic", "printf 'XX' | dd of=lib.a bs=1 seek=$(( $X + 58 )) conv=notrunc status=none", "[", "bad member header" },
	{ "index outside", "printf '\\377\\377\\377\\000' | dd of=lib.a bs=1 seek=72 conv=notrunc status=none", "[/]",
	  "outside the archive" },
};

ParameterizedTestParameters(archive, damaged_archives_are_refused_naming_the_member)
{
	return cr_make_param_array(struct damage, damages, sizeof damages / sizeof damages[0]);
}

ParameterizedTest(struct damage *d, archive, damaged_archives_are_refused_naming_the_member)
{
	static const char *const modes[] = { "-m m1.json", "--list", "--remove" };
	struct cmd c;

	objects("gcc");
	/* X: offset of x.o's header (the index and the name table come first). */
	free(sh("ar rc lib.a x.o a_member_with_a_long_name.o && X=$(grep -abo 'x.o/  ' lib.a | head -1 | cut -d: -f1) && %s && "
		"cp lib.a damaged.a", d->how));
	for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
		c = run("'%s' %s lib.a", tool(), modes[i]);
		cr_expect_eq(c.status, 1, "%s %s: exit %d", d->name, modes[i], c.status);
		cr_expect(strncmp(c.err, "dlnote-inject: lib.a", 20) == 0 && strstr(c.err, d->member) && strstr(c.err, d->why),
			  "%s %s: %s", d->name, modes[i], c.err);
		cr_expect(strchr(c.err, '\n') == c.err + strlen(c.err) - 1, "%s %s: not one line: %s", d->name, modes[i], c.err);
		cr_expect(same_files("lib.a", "damaged.a"), "%s %s: the archive changed", d->name, modes[i]);
		cmd_free(&c);
	}
}

/* libpython3.11.a, hundreds of members: every one edited with flat memory. */
Test(archive, a_large_archive_is_edited_with_bounded_memory, .timeout = 120)
{
	const char *big = "/usr/lib/x86_64-linux-gnu/libpython3.11.a";
	char *rss, *n0, *n1, *got;

	cr_assert(access(big, R_OK) == 0, "%s is missing: install libpython3.11-dev (tests/setup.sh)", big);
	sources();
	rss = sh("/usr/bin/time -f %%M '%s' -m m1.json -o out.a %s 2>&1 >/dev/null | tail -1", tool(), big);
	if (getenv("DLNOTE_SANITIZED"))
		cr_log_info("sanitized build: peak RSS %s KiB not compared with the 4 MiB bound", rss);
	else
		cr_expect(atoi(rss) < 4096, "peak RSS %s KiB", rss);
	n0 = sh("nm -s %s | sed -n '/^Archive index:/,/^$/p' | md5sum", big);
	n1 = sh("nm -s out.a | sed -n '/^Archive index:/,/^$/p' | md5sum");
	cr_expect_str_eq(n1, n0, "the index changed");
	got = sh("ar t out.a | wc -l; ar t %s | wc -l; readelf -n out.a | grep -c 'Owner.*FDO\\|^  FDO'", big);
	cr_log_info("members, members before, notes: %s", got);
	free(got);
	got = entries_by("tool", "out.a");
	cr_expect_str_eq(got, M1);
	free(rss), free(n0), free(n1), free(got);
}

/* Which index the archive's first member is ("/", "/SYM64/"), and the member each of its
 * symbols points to, as "symbol offset member" lines: read here from ar(5), not by the tool. */
static char *index_of(const char *a)
{
	return sh("/usr/bin/python3 -c 'import struct, sys\n"
		  "f = open(sys.argv[1], \"rb\"); h = f.read(68); w = 8 if h[8:15] == b\"/SYM64/\" else 4\n"
		  "c = int.from_bytes(f.read(w), \"big\"); offs = [int.from_bytes(f.read(w), \"big\") for i in range(c)]\n"
		  "print(h[8:24].decode().rstrip())\n"
		  "for o in offs:\n f.seek(o); print(o, f.read(16).decode().rstrip())' '%s'", a);
}

/* Issue 11: an edit that moves a member holding symbols past 4 GiB writes a "/SYM64/" index,
 * as GNU ar does (bfd switches when a symbol's member offset does not fit 32 bits).  The
 * archive: the long-named member, a 4 GiB hole (not ELF, costs no disk), then x.o 16 bytes
 * below 4 GiB, so that any growth of the first member moves x.o past the line. */
Test(archive, an_edit_moving_a_member_past_4_GiB_writes_a_64_bit_index, .timeout = 120)
{
	static const char *const lds[] = { "-fuse-ld=bfd", "-fuse-ld=gold", "-fuse-ld=lld", "-fuse-ld=mold" };
	char *t0, *m0, *i0, *t1, *m1, *i1, *got, *before;
	struct cmd c;

	objects("gcc");
	free(sh("echo blob > blob.bin && ar rc small.a a_member_with_a_long_name.o blob.bin x.o && "
		"/usr/bin/python3 '%s/tests/tools/bigar.py' small.a blob.bin 0xfffffff0 big.a", srcdir()));
	t0 = table("big.a"), m0 = armap("big.a"), i0 = index_of("big.a");
	cr_assert(strstr(i0, "/\n") == i0 && strstr(i0, "4294967280 x.o/"), "the input's index:\n%s", i0);

	c = run("'%s' -v -m m1.json -o out.a big.a", tool());
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.err, "big.a: symbol index written as /SYM64/"), "-v says: %s", c.err);
	cmd_free(&c);
	t1 = table("out.a"), m1 = armap("out.a"), i1 = index_of("out.a");
	cr_expect(strncmp(i1, "/SYM64/\n", 8) == 0, "the output's index:\n%s", i1);
	got = sh("echo '%s' | awk 'NR > 1 && $1 > 4294967295 { print $2 }'", i1);
	cr_expect_str_eq(got, "x.o/", "members past 4 GiB: %s (index:\n%s)", got, i1);
	free(got);
	cr_expect_str_eq(t1, t0, "ar tv changed:\n%s\nwas\n%s", t1, t0);
	cr_expect_str_eq(m1, m0, "nm -s changed:\n%s\nwas\n%s", m1, m0);
	got = entries_by("tool", "out.a");
	cr_expect_str_eq(got, M1, "the edited archive lists %s", got);
	free(got);
	free(sh("ar p out.a x.o > x-out.o"));
	expect_entries("x-out.o", M1, 0);
	got = sh("echo $(( $(stat -c %%b out.a) * 512 < (1 << 20) ))");
	cr_expect_str_eq(got, "1", "the hole was written out: %s blocks", sh("stat -c %%b out.a"));
	free(got);

	/* The member past 4 GiB and the one before it, four linkers.  gold pulling the first
	 * member maps the whole archive and allocates 4 GiB more, and did not finish in 20 s, with
	 * the unedited input as well: not asked of it. */
	for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++) {
		expect_program(lds[i], "mx.o", "out.a", "x 40", M1);
		if (!strstr(lds[i], "gold"))
			expect_program(lds[i], "my.o", "out.a", "y 2", M1);
	}

	/* In place gives the -o bytes, a second run touches nothing, a second -o the same bytes. */
	free(sh("cp --sparse=always big.a in.a && '%s' -m m1.json in.a && '%s' -m m1.json -o out2.a big.a", tool(), tool()));
	free(sh("/usr/bin/python3 '%s/tests/tools/bigar.py' same in.a out.a", srcdir()));
	free(sh("/usr/bin/python3 '%s/tests/tools/bigar.py' same out2.a out.a", srcdir()));
	before = sh("stat -c %%i.%%y in.a");                 /* a rewrite is a new inode */
	free(sh("'%s' -m m1.json in.a", tool()));
	got = sh("stat -c %%i.%%y in.a");
	cr_expect_str_eq(got, before, "the second run touched the archive");
	free(got), free(before);

	/* Removing the notes again keeps "/SYM64/" (docs/archives.md): nothing else moves. */
	free(sh("'%s' --remove in.a", tool()));
	got = index_of("in.a");
	cr_expect(strncmp(got, "/SYM64/\n", 8) == 0, "after --remove:\n%s", got);
	free(got);
	got = entries_by("tool", "in.a");
	cr_expect_str_eq(got, "[]", "after --remove the archive lists %s", got);
	free(got);
	expect_program("-fuse-ld=bfd", "mx.o", "in.a", "x 40", "[]");
	free(sh("rm -f big.a in.a out.a out2.a"));
	free(t0), free(m0), free(i0), free(t1), free(m1), free(i1);
}
