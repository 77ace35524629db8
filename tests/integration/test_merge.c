/* SPDX-License-Identifier: MIT */
/* test_merge.c - editing files whose entries the code wrote (issue 32, items 3 and 4).
 *
 * A library built with systemd's macro carries entries at the priorities its authors chose;
 * a packager's manifest may name the same libraries at another one.  --merge must never write
 * a file that --check rejects: a manifest entry of the same feature and sonames replaces the
 * file's, said on stderr with the old entry; a file that already lists an entry twice is
 * refused.  Replace drops what the manifest does not name, and says which entries. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "macro_shapes.h"

/* Quotes escaped twice, for DECL() inside a C literal (macro_shapes.h). */
#define ESC "\\\\\\\""
#define DECL_ZSTD "DECL(\"[{" ESC "soname" ESC ":[" ESC "libzstd.so.1" ESC "]," ESC "feature" ESC ":" ESC "zstd" ESC "," ESC "priority" ESC ":" ESC "recommended" ESC "}]\");\n"
#define DECL_LZMA "DECL(\"[{" ESC "soname" ESC ":[" ESC "liblzma.so.5" ESC "]," ESC "feature" ESC ":" ESC "xz" ESC "," ESC "priority" ESC ":" ESC "recommended" ESC "}]\");\n"
#define DECL_CRYPTO "DECL(\"[{" ESC "soname" ESC ":[" ESC "libcrypto.so.3" ESC "]," ESC "feature" ESC ":" ESC "openssl" ESC "," ESC "priority" ESC ":" ESC "recommended" ESC "}]\");\n"

#define ZSTD_REC "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"recommended\"}"
#define ZSTD_SUG "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"suggested\"}"
#define LZMA_REC "{\"soname\":[\"liblzma.so.5\"],\"feature\":\"xz\",\"priority\":\"recommended\"}"
#define CRYPTO_REC "{\"soname\":[\"libcrypto.so.3\"],\"feature\":\"openssl\",\"priority\":\"recommended\"}"
#define FOO "{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\"}"

/* A library shaped like kmod 34: three entries from the macro, in a shared library, its
 * objects, and a static archive of them; a program that loads the library. */
static void kmod_shaped(void)
{
	char decl[4096];

	snprintf(decl, sizeof decl, "%s%s%s%s", sd_dlopen_h, DECL_ZSTD, DECL_LZMA, DECL_CRYPTO);
	put_file("decl.h", decl);
	put_file("kmod.c", "#include \"decl.h\"\nint kmod_version(void) { return 34; }\n");
	put_file("other.c", "#include \"decl.h\"\nint kmod_other(void) { return 1; }\n");
	put_file("main.c", "#include <stdio.h>\nint kmod_version(void);\nint main(void) { printf(\"%d\\n\", kmod_version()); return 0; }\n");
	free(sh("gcc -O2 -fPIC -c kmod.c other.c && gcc -shared -Wl,-soname,libkmod.so.2 -o libkmod.so.2 kmod.o other.o && "
		"ar rcs libkmod.a kmod.o other.o && gcc -o prog main.c ./libkmod.so.2"));
}

/* The tool's --check passes (exit 0) and lists `want` (a JSON array), in that order in a
 * linked file the tool edited (a replaced entry keeps its place); in an object or archive, and
 * a program linked from them, in any order (the replacement's group comes after the others). */
static void expect_valid_order(const char *file, const char *want, int object)
{
	struct cmd c = run("'%s' --check '%s'", tool(), file);
	char *got, *sorted_got, *sorted_want;

	cr_expect_eq(c.status, 0, "%s: --check fails (%d): %s%s", file, c.status, c.out, c.err);
	cmd_free(&c);
	got = entries_by("tool", file);
	if (!object) {
		cr_expect_str_eq(got, want, "%s lists\n%s\nnot\n%s", file, got, want);
	} else {
		put_file("got.json", got);
		put_file("want.json", want);
		sorted_got = sh("/usr/bin/python3 -c 'import json,sys; print(sorted(json.dumps(e) for e in json.load(open(sys.argv[1]))))' got.json");
		sorted_want = sh("/usr/bin/python3 -c 'import json,sys; print(sorted(json.dumps(e) for e in json.load(open(sys.argv[1]))))' want.json");
		cr_expect_str_eq(sorted_got, sorted_want, "%s lists\n%s\nnot, in any order,\n%s", file, got, want);
		free(sorted_got), free(sorted_want);
	}
	free(got);
}

static void expect_valid(const char *file, const char *want)
{
	expect_valid_order(file, want, strstr(file, ".o") || strstr(file, ".a"));
}

/* The edit's stderr: exactly one line, holding each of `parts` (NULL-terminated). */
static void expect_one_line(const char *err, const char *what, const char *const *parts)
{
	cr_expect(err[0] && strchr(err, '\n') == err + strlen(err) - 1, "%s: not one line on stderr:\n%s", what, err);
	for (; *parts; parts++)
		cr_expect(strstr(err, *parts), "%s: stderr lacks \"%s\":\n%s", what, *parts, err);
}

Test(merge, an_entry_of_the_same_feature_and_sonames_replaces_the_files, .timeout = 60)
{
	const char *files[] = { "libkmod.so.2", "kmod.o", "libkmod.a" };

	kmod_shaped();
	put_file("sug.json", "[" ZSTD_SUG "," FOO "]");
	put_file("rec.json", "[" ZSTD_REC "]");
	for (size_t i = 0; i < 3; i++) {
		char out[64], again[64];
		struct cmd c;
		snprintf(out, sizeof out, "m-%s", files[i]);
		snprintf(again, sizeof again, "a-%s", files[i]);
		/* the code says recommended, the manifest suggested: the manifest's entry wins */
		c = run("'%s' --merge -m sug.json -o '%s' '%s'", tool(), out, files[i]);
		cr_expect_eq(c.status, 0, "%s: %s", files[i], c.err);
		expect_one_line(c.err, files[i],
				(const char *const[]){ "dlnote-inject: ", files[i], "--merge replaced 1 entry",
						       "\"zstd\" [\"libzstd.so.1\"] was " ZSTD_REC, NULL });
		cmd_free(&c);
		expect_valid(out, "[" ZSTD_SUG "," LZMA_REC "," CRYPTO_REC "," FOO "]");
		/* again: nothing changes, nothing is said */
		c = run("cp '%s' '%s' && '%s' --merge -m sug.json '%s'", out, again, tool(), again);
		cr_expect_eq(c.status, 0, "%s", c.err);
		cr_expect_str_eq(c.err, "", "%s: a second merge says %s", files[i], c.err);
		cr_expect(same_files(out, again), "%s: a second merge changed the file", files[i]);
		cmd_free(&c);
		/* the other order: the file says suggested (the first merge), the manifest
		 * recommended */
		c = run("'%s' --merge -m rec.json '%s'", tool(), again);
		cr_expect_eq(c.status, 0, "%s", c.err);
		expect_one_line(c.err, again,
				(const char *const[]){ "\"zstd\" [\"libzstd.so.1\"] was " ZSTD_SUG, NULL });
		cmd_free(&c);
		expect_valid(again, "[" ZSTD_REC "," LZMA_REC "," CRYPTO_REC "," FOO "]");
	}
	/* The edited archive still links, and the program runs and carries each entry once. */
	free(sh("gcc -o sprog main.c m-libkmod.a && ./sprog | grep -qx 34"));
	expect_valid_order("sprog", "[" ZSTD_SUG "," LZMA_REC "," CRYPTO_REC "," FOO "]", 1);
	/* An archive says it once, counting its members. */
	{
		struct cmd c = run("'%s' --merge -m sug.json -o x.a libkmod.a", tool());
		expect_one_line(c.err, "libkmod.a", (const char *const[]){ ", in 2 archive members:", NULL });
		cmd_free(&c);
	}
}

/* A file that already lists an entry at two priorities (systemd 262's programs, issue 43):
 * valid; --merge keeps both as they are and adds the new entry (before: refused); a manifest
 * entry equal to one of them changes nothing; one that equals neither takes their place; replace
 * and --remove work. */
Test(merge, a_file_listing_an_entry_at_two_priorities_is_merged_as_it_is, .timeout = 60)
{
	char hdr[4096];
	struct cmd c;

	snprintf(hdr, sizeof hdr, "%s%s%s", sd_dlopen_h, sdl_note_h, DECL_ZSTD);
	put_file("twice.h", hdr);
	put_file("t.c", "#include \"twice.h\"\nSDLNOTE(\"[" "{\\\"soname\\\":[\\\"libzstd.so.1\\\"],\\\"feature\\\":\\\"zstd\\\","
			"\\\"priority\\\":\\\"suggested\\\"}]\");\nint t(void) { return 0; }\n");
	put_file("foo.json", "[" FOO "]");
	free(sh("gcc -O2 -c t.c && cp t.o t.orig && '%s' --list --json t.o | grep -o libzstd | wc -l | grep -qx 2", tool()));
	c = run("'%s' --check t.o && '%s' --list --json t.o > before.json", tool(), tool());
	cr_expect_eq(c.status, 0, "--check: %s%s", c.out, c.err);
	cmd_free(&c);
	c = run("'%s' --merge -m foo.json -o m.o t.o", tool());
	cr_expect_eq(c.status, 0, "exit %d: %s", c.status, c.err);
	cr_expect_str_eq(c.err, "");
	cmd_free(&c);
	{
		char *before = sh("cat before.json"), *want = malloc(strlen(before) + sizeof FOO + 2);
		sprintf(want, "%.*s," FOO "]", (int)strlen(before) - 1, before);
		expect_valid("m.o", want);
		free(want);
		free(before);
	}
	/* the suggested one again: nothing to add */
	put_file("zsug.json", "[" ZSTD_SUG "]");
	c = run("'%s' --merge -m zsug.json -o m2.o m.o && cmp m.o m2.o", tool());
	cr_expect_eq(c.status, 0, "a merge of an entry the file holds changed it: %s", c.err);
	cmd_free(&c);
	/* required: neither of them; it takes their place, said */
	put_file("zreq.json", "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"}]");
	c = run("'%s' --merge -m zreq.json -o m3.o m.o", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	expect_one_line(c.err, "m.o", (const char *const[]){ "--merge replaced 2 entries", NULL });
	cmd_free(&c);
	expect_valid("m3.o", "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"}," FOO "]");
	c = run("'%s' --remove -o r.o t.o && '%s' --list --json r.o", tool(), tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, "[]\n");
	cmd_free(&c);
	/* replace writes exactly the manifest, and says what it dropped */
	c = run("'%s' -m foo.json t.o", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	expect_one_line(c.err, "t.o", (const char *const[]){ "replacing drops 2 entries", "\"zstd\" [\"libzstd.so.1\"], \"zstd\" [\"libzstd.so.1\"]", NULL });
	cmd_free(&c);
	expect_valid("t.o", "[" FOO "]");
}

/* Manifests that contradict each other (or themselves) are refused before any file is read;
 * the same entry from two manifests is one entry. */
Test(merge, contradicting_manifests_are_refused_and_equal_entries_fold, .timeout = 60)
{
	struct cmd c;

	kmod_shaped();
	put_file("rec.json", "[" ZSTD_REC "]");
	put_file("sug.json", "[" ZSTD_SUG "]");
	put_file("both.json", "[" ZSTD_REC "," ZSTD_SUG "]");
	free(sh("cp prog p.orig"));
	for (const char *const *args = (const char *const[]){ "-m both.json", "-m rec.json -m sug.json",
							     "--merge -m both.json", NULL };
	     *args; args++) {
		c = run("'%s' %s prog", tool(), *args);
		cr_expect_eq(c.status, 1, "%s: exit %d", *args, c.status);
		expect_one_line(c.err, *args,
				(const char *const[]){ "is declared twice, differently: " ZSTD_REC " and " ZSTD_SUG,
						       "keep one", NULL });
		cr_expect(strstr(c.err, strstr(*args, "both") ? "dlnote-inject: both.json: " : "dlnote-inject: sug.json: ") == c.err,
			  "%s: the error names the manifest: %s", *args, c.err);
		cr_expect(same_files("prog", "p.orig"), "%s: the file changed", *args);
		cmd_free(&c);
	}
	c = run("'%s' -m rec.json -m rec.json --soname libzstd.so.1 --feature zstd --priority recommended prog", tool());
	cr_expect_eq(c.status, 2, "a flag entry without its keys in manifest order is another entry: %s", c.err);
	cmd_free(&c);
	c = run("'%s' -m rec.json -m rec.json prog", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.err, "", "nothing dropped, nothing said: %s", c.err);
	cmd_free(&c);
	expect_valid("prog", "[" ZSTD_REC "]");
	free(sh("LD_LIBRARY_PATH=. ./prog | grep -qx 34"));
}

/* Replace drops the entries the manifest does not name, and says which (one line per file or
 * archive); -q keeps quiet; a manifest naming them all drops nothing and says nothing. */
Test(merge, replacing_says_which_entries_it_drops, .timeout = 60)
{
	struct cmd c;

	kmod_shaped();
	put_file("one.json", "[" ZSTD_SUG "," FOO "]");
	put_file("all.json", "[" ZSTD_SUG "," LZMA_REC "," CRYPTO_REC "]");
	c = run("'%s' -m one.json -o r.so libkmod.so.2", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	expect_one_line(c.err, "libkmod.so.2",
			(const char *const[]){ "dlnote-inject: libkmod.so.2: replacing drops 2 entries the file had: "
					       "\"xz\" [\"liblzma.so.5\"], \"openssl\" [\"libcrypto.so.3\"]; "
					       "the manifest does not name them (--merge keeps them)",
					       NULL });
	cr_expect(!strstr(c.err, "zstd"), "zstd is named by the manifest (another priority): not dropped: %s", c.err);
	cmd_free(&c);
	expect_valid("r.so", "[" ZSTD_SUG "," FOO "]");
	c = run("'%s' -q -m one.json -o q.so libkmod.so.2", tool());
	cr_expect_str_eq(c.err, "", "-q: %s", c.err);
	cr_expect(same_files("q.so", "r.so"), "-q wrote other bytes");
	cmd_free(&c);
	c = run("'%s' -m all.json -o all.so libkmod.so.2", tool());
	cr_expect_str_eq(c.err, "", "nothing dropped: %s", c.err);
	cmd_free(&c);
	c = run("'%s' -m one.json -o r.a libkmod.a", tool());
	expect_one_line(c.err, "libkmod.a",
			(const char *const[]){ "dlnote-inject: libkmod.a: replacing drops 2 entries the file had, in 2 archive members: ",
					       NULL });
	cmd_free(&c);
	/* a failed edit says nothing of drops: nothing was written */
	c = run("'%s' -m one.json -o no/such/dir/x.so libkmod.so.2", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(!strstr(c.err, "drops") && strstr(c.err, "no/such/dir"), "a failed edit speaks of drops: %s", c.err);
	cmd_free(&c);
}

/* The file's identity, its bytes aside: inode, mtime (to the nanosecond), size; and the names
 * of the directory (no temporary file left, no rename). */
static char *file_state(const char *file)
{
	return sh("stat -c '%%i %%y %%s' '%s' && ls -a", file);
}

/* Writing the entries a file already holds changes nothing (issue 43, item 5: a library the
 * CMake helper gave exactly the manifest's entries, in the linker's PT_NOTE, was rewritten:
 * program headers 10 -> 12).  "Exactly": the same entries, each as many times, in whatever
 * notes and order (an entry's keys in any order), all where readers find them.  Then the file
 * is left byte for byte (no rename, mtime kept) and -v says so, for replace and --merge, in a
 * linked file, an object and an archive (in objects the form counts too: a group's payload is
 * its COMDAT signature).  An entry with another unknown key, or declared twice
 * where the manifest says it once, is another set of entries: written. */
Test(merge, a_file_already_holding_the_entries_is_left_byte_for_byte, .timeout = 60)
{
	static const char *const files[] = { "lib.so", "note.o", "lib.a" };
	char *before, *after, *n;
	struct cmd c;

	put_file("m.json", "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"description\":\"zz\",\"x-vendor\":{\"k\":1}},"
			   "{\"soname\":[\"libb.so.2\",\"libb.so.1\"],\"feature\":\"b\",\"priority\":\"required\"}]");
	/* the same entries, in the other order, keys in another order */
	put_file("m2.json", "[{\"priority\":\"required\",\"feature\":\"b\",\"soname\":[\"libb.so.2\",\"libb.so.1\"]},"
			    "{\"x-vendor\":{\"k\":1},\"description\":\"zz\",\"feature\":\"z\",\"soname\":[\"libz.so.1\"]}]");
	put_file("l.c", "int f(void) { return 1; }\n");
	put_file("t.c", "int t(void) { return 2; }\n");
	/* as the CMake helper makes it: a note object linked in, its note in the linker's PT_NOTE */
	free(sh("gcc -O1 -c t.c -o t.o && '%s' -m m.json -o note.o t.o && gcc -shared -fPIC -Wl,--build-id -o lib.so l.c "
		"note.o && ar rcs lib.a note.o && mkdir -p keep && cp -p lib.so note.o lib.a keep/ && "
		"touch -d @1000000000 lib.so note.o lib.a",
		tool()));
	n = sh("readelf -lW lib.so | grep -c '^  NOTE .*0x4$'");
	cr_expect_str_eq(n, "1", "the note is in the linker's one 4-aligned PT_NOTE, with the build-id");
	free(n);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		for (const char *const *args = (const char *const[]){ "-m m.json", "-m m2.json", "--merge -m m.json",
								     "--merge -m m2.json", NULL };
		     *args; args++) {
			/* in an object a group's payload is its COMDAT signature, which decides what
			 * folds at link time: the same entries written otherwise are another group */
			if (i > 0 && strstr(*args, "m2.json"))
				continue;
			before = file_state(files[i]);
			c = run("'%s' -v %s '%s'", tool(), *args, files[i]);
			cr_expect_eq(c.status, 0, "%s %s: %s", *args, files[i], c.err);
			cr_expect(strstr(c.err, i == 0 ? "already holds exactly these entries; nothing to write"
						       : i == 1 ? "already present as requested; nothing to write"
							       : "unchanged: every member already holds exactly these entries"),
				  "%s %s: -v does not say so:\n%s", *args, files[i], c.err);
			cmd_free(&c);
			after = file_state(files[i]);
			cr_expect_str_eq(after, before, "%s %s: the file was replaced or touched", *args, files[i]);
			free(before), free(after);
			n = sh("cmp '%s' 'keep/%s' && echo same", files[i], files[i]);
			cr_expect_str_eq(n, "same", "%s %s: the bytes changed", *args, files[i]);
			free(n);
		}
		/* quiet without -v */
		c = run("'%s' -m m.json '%s'", tool(), files[i]);
		cr_expect_eq(c.status, 0, "%s", c.err);
		cr_expect_str_eq(c.err, "", "%s", files[i]);
		cmd_free(&c);
	}
	/* not the same entries: written */
	put_file("m3.json", "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"description\":\"zz\"},"
			    "{\"soname\":[\"libb.so.2\",\"libb.so.1\"],\"feature\":\"b\",\"priority\":\"required\"}]");
	put_file("m4.json", "[{\"soname\":[\"libb.so.1\",\"libb.so.2\"],\"feature\":\"b\",\"priority\":\"required\"},"
			    "{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"description\":\"zz\",\"x-vendor\":{\"k\":1}}]");
	for (const char *const *m = (const char *const[]){ "m3.json", "m4.json", NULL }; *m; m++) {
		c = run("'%s' -m %s -o out.so lib.so && '%s' -m %s -o out.o note.o", tool(), *m, tool(), *m);
		cr_expect_eq(c.status, 0, "%s: %s", *m, c.err);
		cmd_free(&c);
		cr_expect(!same_files("out.so", "keep/lib.so"), "%s: another unknown key or soname order is written", *m);
		cr_expect(!same_files("out.o", "keep/note.o"), "%s: another unknown key or soname order is written", *m);
	}
	/* a file that declares an entry twice (a plain note besides the group): the manifest that
	 * says it once is written */
	put_file("plain.c", "#define J \"[{\\\"soname\\\":[\\\"libz.so.1\\\"],\\\"feature\\\":\\\"z\\\",\\\"description\\\":"
			    "\\\"zz\\\",\\\"x-vendor\\\":{\\\"k\\\":1}}]\"\n"
			    "__attribute__((aligned(4), used, section(\".note.dlopen\"))) static const struct { unsigned "
			    "h[3]; char n[4]; char j[(sizeof(J) + 3) & ~3]; } note = { { 4, sizeof(J), 0x407c0c0a }, \"FDO\", J };\n");
	free(sh("gcc -shared -fPIC -o twice.so l.c note.o plain.c"));
	n = sh("'%s' --list twice.so | grep -c libz.so.1", tool());
	if (strcmp(n, "2") == 0) {
		c = run("'%s' -m m.json -o once.so twice.so && '%s' --list once.so | grep -c libz.so.1", tool(),
			tool());
		cr_expect_str_eq(c.out, "1\n", "the repeat is written away: %s", c.err);
		cmd_free(&c);
	} else {
		cr_expect_str_eq(n, "2", "the file built to declare z twice does not");
	}
	free(n);
}
