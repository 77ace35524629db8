/* SPDX-License-Identifier: MIT */
/* test_archives.c - static archives as inputs (issue 11, requirement 2): archives built here
 * with ar and llvm-ar in every format are listed, edited in place and with -o, and linked; the
 * index and the member table stay what they were but for sizes and notes; damaged archives are
 * refused naming the member, untouched (test_archives_limits.c); thin archives in
 * test_archives_thin.c. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "archive_fixture.h"

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
	archive_objects("gcc");
	free(sh(f->make, "lib.a"));
	t0 = archive_table("lib.a"), m0 = archive_armap("lib.a");
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, "[]", "%s: a fresh archive lists %s", f->name, got);
	free(got);

	/* -o: the input stays; in place: the same bytes. */
	free(sh("cp lib.a orig.a && '%s' -m m1.json -o out.a lib.a && '%s' -m m1.json lib.a", tool(), tool()));
	cr_expect(same_files("lib.a", "out.a"), "%s: in place and -o differ", f->name);
	free(sh("'%s' -m m1.json -o out2.a orig.a", tool()));
	cr_expect(same_files("out.a", "out2.a"), "%s: two runs give different bytes", f->name);
	t1 = archive_table("lib.a"), m1 = archive_armap("lib.a");
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
		archive_expect_program(lds[i], "mx.o", "lib.a", "x 40", M1);
		archive_expect_program(lds[i], "my.o", "lib.a", "y 2", M1);
	}
	/* --merge, then --remove. */
	free(sh("'%s' --merge -m m2.json lib.a", tool()));
	got = entries_by("tool", "lib.a");
	cr_expect_str_eq(got, M12, "%s: merged archive lists %s", f->name, got);
	free(got);
	archive_expect_program("-fuse-ld=lld -Wl,--gc-sections", "my.o", "lib.a", "y 2", M12);
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

	archive_objects("gcc");
	put_file("mxy.c", "#include <stdio.h>\nint fx(void); int fy(void);\n"
		 "int main(void) { printf(\"xy %d\\n\", fx() + fy()); return 0; }\n");
	free(sh("gcc -O1 -c mxy.c && ar rc lib.a x.o a_member_with_a_long_name.o && '%s' -m m12.json lib.a", tool()));
	for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++)
		archive_expect_program(lds[i], "mxy.o", "lib.a", "xy 42", M12);
	/* The same entries declared again in the program's own object fold with the archive's. */
	free(sh("'%s' -m m12.json mxy.o", tool()));
	for (size_t i = 0; i < sizeof lds / sizeof lds[0]; i++)
		archive_expect_program(lds[i], "mxy.o", "lib.a", "xy 42", M12);
}

/* The other objects built with LTO (the archive's members are plain objects). */
Test(archive, a_program_linked_with_lto_carries_the_entries, .timeout = 60)
{
	archive_objects("gcc");
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
	archive_objects(c->cc);
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

/* Objects mN.o for each N of the shell words NUMS, each declaring M1's entry twice: by --header
 * and by a note of its own, as SDL's and systemd's macros write it (a note that does not fold
 * with --header's COMDAT group of the same entry). */
static void objects_declaring_z_twice(const char *nums)
{
	put_file("m.json", M1);
	put_file("sdl.h", "__attribute__((aligned(4), used, section(\".note.dlopen\"))) static const struct { unsigned h[3]; "
			  "char n[4]; char j[44]; } note = { { 4, 41, 0x407c0c0a }, \"FDO\", "
			  "\"[{\\\"feature\\\":\\\"z\\\",\\\"soname\\\":[\\\"libz.so.1\\\"]}]\" };\n");
	free(sh("'%s' --header -m m.json -o h.h && for i in %s; do echo \"int f$i(void) { return $i; }\" > m$i.c && "
		"gcc -O1 -c -include h.h -include sdl.h m$i.c -o m$i.o || exit 1; done", tool(), nums));
}

/* Five entries: the helper's header (from five.json) and the code's own plain note (SDL3's
 * macros left on) give each object every entry twice. */
#define FIVE "[{\"soname\":[\"liba.so.1\"],\"feature\":\"a\"},{\"soname\":[\"libb.so.1\"],\"feature\":\"b\"}," \
	     "{\"soname\":[\"libc.so.1\"],\"feature\":\"c\"},{\"soname\":[\"libd.so.1\"],\"feature\":\"d\"}," \
	     "{\"soname\":[\"libe.so.1\"],\"feature\":\"e\"}]"
static void objects_declaring_five_twice(int n)
{
	put_file("five.json", FIVE);
	put_file("plain.h", "#define PLAIN(js) __attribute__((aligned(4), used, section(\".note.dlopen\"))) static const "
			    "struct { unsigned h[3]; char n[4]; char j[(sizeof(js) + 3) & ~3]; } note = "
			    "{ { 4, sizeof(js), 0x407c0c0a }, \"FDO\", js };\n");
	put_file("five.c", "#include \"plain.h\"\nPLAIN(\"[{\\\"soname\\\":[\\\"liba.so.1\\\"],\\\"feature\\\":\\\"a\\\"},"
			   "{\\\"soname\\\":[\\\"libb.so.1\\\"],\\\"feature\\\":\\\"b\\\"},{\\\"soname\\\":[\\\"libc.so.1\\\"],"
			   "\\\"feature\\\":\\\"c\\\"},{\\\"soname\\\":[\\\"libd.so.1\\\"],\\\"feature\\\":\\\"d\\\"},"
			   "{\\\"soname\\\":[\\\"libe.so.1\\\"],\\\"feature\\\":\\\"e\\\"}]\")\n");
	free(sh("'%s' --header -m five.json -o h.h && for i in $(seq 1 %d); do echo \"int f$i(void) { return $i; }\" > "
		"m$i.c && gcc -O1 -c -include h.h -include five.c m$i.c -o m$i.o || exit 1; done && ar rcs lib.a m*.o",
		tool(), n));
}

#define FIVE_TWICE "5 entries of the manifest are also declared by the code (an in-code macro left on beside the " \
		   "helper?): \"a\" [\"liba.so.1\"], \"b\" [\"libb.so.1\"], \"c\" [\"libc.so.1\"] and 2 more: a " \
		   "program lists each twice, declare each once (-v: each)"

/* Issue 43: the code's own notes may repeat entries (no error); the manifest given to --check
 * (-m, or --expect) names the entries the build added, and those the code declares too are one
 * error line for the cause, naming three and how many more, for a file as for an archive of
 * 16 such members (before: a line per entry); -v: a line per entry (and member). */
Test(archive, one_line_per_cause_for_many_members, .timeout = 60)
{
	struct cmd c;
	char *n;

	objects_declaring_five_twice(16);
	c = run("'%s' --check lib.a m1.o", tool());
	cr_expect_eq(c.status, 0, "the code's own repeats are valid: %s%s", c.out, c.err);
	cr_expect(!strstr(c.out, "error") && !strstr(c.out, "warning"), "%s", c.out);
	cmd_free(&c);
	c = run("'%s' --check -q -m five.json lib.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "", "-q: nothing on stdout: %s", c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: lib.a: 16 errors in the dlopen notes of 16 of its 16 ELF members, the "
				"first: " FIVE_TWICE " (-v names each member)\n");
	cmd_free(&c);
	c = run("'%s' --check -m five.json lib.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "lib.a: error: " FIVE_TWICE " (in 16 of 16 ELF members: m1.o, m10.o, m11.o, ...)\n");
	cmd_free(&c);
	n = sh("'%s' --check -v -m five.json lib.a 2>&1 | grep -c '^lib.a\\[m[0-9]*.o\\]: error: entry '", tool());
	cr_expect_str_eq(n, "80", "-v: a line per member and entry");
	free(n);
	/* one object: one line on stdout, one on stderr; --expect says the same */
	c = run("'%s' --check -m five.json m1.o", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "m1.o: error: " FIVE_TWICE "\n");
	cr_expect_str_eq(c.err, "dlnote-inject: m1.o: 5 errors in dlopen notes, the first: " FIVE_TWICE "\n");
	cmd_free(&c);
	c = run("'%s' --check --expect five.json m1.o", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strncmp(c.out, "m1.o: error: " FIVE_TWICE "\n", strlen("m1.o: error: " FIVE_TWICE "\n")) == 0,
		  "%s", c.out);
	cmd_free(&c);
	n = sh("'%s' --check -v -m five.json m1.o | grep -c '^m1.o: error: entry .* is declared 2 times (recommended, "
	       "recommended): the manifest adds it beside the same entry in the code'", tool());
	cr_expect_str_eq(n, "5", "-v: a line per entry");
	free(n);
	n = sh("'%s' --check -v m1.o | grep -c '^m1.o: entry .* is declared 2 times (recommended, recommended): consumers "
	       "take it once, at its strongest priority$'", tool());
	cr_expect_str_eq(n, "5", "-v without the manifest: a detail line per entry");
	free(n);
}

/* Warnings are gathered as errors are (issue 40: libSDL3.a printed the same warning once for
 * each of its 338 members): each distinct one once, with the count and the first members; one
 * that a single member gives is that member's own line; a member that gives it twice (m5.o: two
 * entries name the soname) is counted once; -v prints every member's; -q none. */
#define DEV_WARNING(s) "warning: soname " s " has no version after .so: it names a development symlink, which " \
		       "packages ship for linking, not for running; declare the versioned soname"
Test(archive, warnings_one_line_per_cause_for_many_members, .timeout = 60)
{
	struct cmd c;
	char *n;

	put_file("steam.json", "[{\"soname\":[\"libsteam_api.so\"],\"feature\":\"steam\"}]");
	put_file("foo.json", "[{\"soname\":[\"libfoo.so\"],\"feature\":\"foo\"}]");
	put_file("steam2.json", "[{\"soname\":[\"libsteam_api.so\"],\"feature\":\"steam2\"}]");
	free(sh("for i in 1 2 3 4 5; do echo \"int f$i(void) { return $i; }\" > m$i.c && gcc -O1 -c m$i.c || exit 1; done && "
		"'%s' -m steam.json m1.o m2.o m3.o m4.o m5.o && '%s' --merge -m foo.json m4.o && '%s' --merge -m steam2.json m5.o && ar rcs lib.a m*.o",
		tool(), tool(), tool()));
	c = run("'%s' --check lib.a", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out,
			 "lib.a: " DEV_WARNING("libsteam_api.so") " (in 5 of 5 ELF members: m1.o, m2.o, m3.o, ...)\n"
			 "lib.a[m4.o]: " DEV_WARNING("libfoo.so") "\n"
			 "lib.a: \"steam\" [\"libsteam_api.so\"]: in every ELF member (5); every program that takes a "
			 "member of this archive carries it\n"
			 "lib.a: \"foo\" [\"libfoo.so\"]: in 1 of 5 ELF members (m4.o); only a program that takes m4.o "
			 "carries it\n"
			 "lib.a: \"steam2\" [\"libsteam_api.so\"]: in 1 of 5 ELF members (m5.o); only a program that "
			 "takes m5.o carries it\n"
			 "lib.a: ok (3 dlopen entries in 5 ELF members; 1 of them reaches every program that takes a member: "
			 "the others come with the members that carry them, as a note written beside the code that calls "
			 "dlopen() does)\n");
	cr_expect_str_eq(c.err, "");
	cmd_free(&c);
	c = run("'%s' --check -q lib.a", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, "", "-q: no warning: %s", c.out);
	cr_expect_str_eq(c.err, "");
	cmd_free(&c);
	n = sh("'%s' --check -v lib.a 2>&1 | grep -c '^lib.a\\[m[0-9].o\\]: warning: soname '", tool());
	cr_expect_str_eq(n, "7", "-v: a line per member, entry and cause");
	free(n);
	/* A member with an error besides: the line on stderr names the error, not the warnings
	 * before it. */
	objects_declaring_z_twice("6");
	free(sh("ar rcs lib.a m6.o"));
	c = run("'%s' --check -q -m m.json lib.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "", "-q: nothing on stdout: %s", c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: lib.a: 1 error in the dlopen notes of 1 of its 6 ELF members, the first: "
				"1 entry of the manifest is also declared by the code (an in-code macro left on beside "
				"the helper?): \"z\" [\"libz.so.1\"]: a program lists it twice, declare it once (-v: each) "
				"(-v names each member)\n");
	cmd_free(&c);
}

/* A bitcode member cannot carry a note, and a program that takes it would get no entry: an edit
 * that adds entries is refused (the archive untouched), unless --member leaves the member out.
 * Members that are not code (text) are kept as they are. */
Test(archive, bitcode_members_refuse_the_edit_and_non_elf_members_are_kept, .timeout = 60)
{
	struct cmd c;

	archive_objects("gcc");
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

	archive_objects("gcc");
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

	archive_objects("gcc");
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

	archive_objects("gcc");
	put_file("dl.c", "#include <dlfcn.h>\nvoid *load(void) { return dlopen(\"libfoo.so.3\", 0); }\n");
	free(sh("gcc -O1 -c dl.c && ar rc lib.a x.o dl.o && '%s' -m m1.json lib.a && echo lib.a > list", tool()));
	got = sh("'%s' --list --json --files-from list", tool());
	cr_expect_str_eq(got, M1);
	free(got);
	got = sh("'%s' --check lib.a", tool());
	cr_expect_str_eq(got, "lib.a: " M1_LABEL ": in every ELF member (2); every program that takes a member of this archive "
			      "carries it\nlib.a: ok (1 dlopen entry in 2 ELF members; 1 of them reaches every program that takes a "
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
