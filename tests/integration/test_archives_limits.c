/* SPDX-License-Identifier: MIT */
/* test_archives_limits.c - archives at the edges: damaged ones refused naming the member and
 * left untouched, a large one edited with bounded memory, a member moved past 4 GiB. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "archive_fixture.h"

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

	archive_objects("gcc");
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
	archive_sources();
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

	archive_objects("gcc");
	free(sh("echo blob > blob.bin && ar rc small.a a_member_with_a_long_name.o blob.bin x.o && "
		"/usr/bin/python3 '%s/tests/tools/bigar.py' small.a blob.bin 0xfffffff0 big.a", srcdir()));
	t0 = archive_table("big.a"), m0 = archive_armap("big.a"), i0 = index_of("big.a");
	cr_assert(strstr(i0, "/\n") == i0 && strstr(i0, "4294967280 x.o/"), "the input's index:\n%s", i0);

	c = run("'%s' -v -m m1.json -o out.a big.a", tool());
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.err, "big.a: symbol index written as /SYM64/"), "-v says: %s", c.err);
	cmd_free(&c);
	t1 = archive_table("out.a"), m1 = archive_armap("out.a"), i1 = index_of("out.a");
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
		archive_expect_program(lds[i], "mx.o", "out.a", "x 40", M1);
		if (!strstr(lds[i], "gold"))
			archive_expect_program(lds[i], "my.o", "out.a", "y 2", M1);
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
	archive_expect_program("-fuse-ld=bfd", "mx.o", "in.a", "x 40", "[]");
	free(sh("rm -f big.a in.a out.a out2.a"));
	free(t0), free(m0), free(i0), free(t1), free(m1), free(i1);
}
