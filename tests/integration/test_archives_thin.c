/* SPDX-License-Identifier: MIT */
/* test_archives_thin.c - thin archives (members kept as files beside the archive): those of
 * GNU ar, llvm-ar and Meson are read, and refused for writing in one line. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "archive_fixture.h"

Test(archive, thin_archives_are_read_and_refused_for_writing)
{
	struct cmd c;
	char *got;

	archive_objects("gcc");
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
