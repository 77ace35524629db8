/* SPDX-License-Identifier: MIT */
/* test_packaging_lint.c - the packaging side's checks for a package's author: the lint of the
 * files against a declared manifest (--check --expect: new, missing and changed dependencies),
 * and discovery (--discover: a draft manifest of the sonames a file's read-only data names
 * that are neither DT_NEEDED nor declared), on programs, objects and 32-bit files. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "packaging_fixtures.h"

/* ---- lint ---- */

Test(packaging, check_expect_passes_when_the_declaration_matches)
{
	build_apps("gcc", "");
	/* Descriptions and key order do not matter; sonames and priorities do. */
	put_file("declared.json", "[{\"priority\":\"required\",\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\"},"
				  "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\"},"
				  "{\"soname\":[\"libtss2-mu.so.0\"],\"feature\":\"tpm\",\"priority\":\"recommended\"},"
				  "{\"soname\":[\"libtss2-esys.so.0\"],\"feature\":\"tpm\",\"description\":\"other words\"}]");
	expect_out("--check -q --expect declared.json simple", "");
	{
		/* The check itself still runs: here it warns that the linker merged the notes into a
		 * shared PT_NOTE, then says ok. */
		char *last = sh("'%s' --check --expect declared.json simple | tail -n 1", tool());
		cr_expect_str_eq(last, "simple: ok (4 dlopen entries)");
		free(last);
	}
}

Test(packaging, check_expect_complains_about_new_missing_and_changed_dependencies)
{
	struct cmd c;

	build_apps("gcc", "");
	put_file("declared.json", "[{\"soname\":[\"libfido2.so.1\"],\"feature\":\"fido2\",\"priority\":\"recommended\"},"
				  "{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\"},"
				  "{\"soname\":[\"libold.so.1\"],\"feature\":\"old\"},"
				  "{\"soname\":[\"libpcre2-8.so.0\"],\"feature\":\"pcre2\",\"priority\":\"suggested\"}]");
	c = run("'%s' --check -q --expect declared.json app", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "declared.json: missing: app lacks 2 of the 4 declared entries: libold.so.1 (feature old), libpcre2-8.so.0 (feature pcre2)\n"
				"declared.json: priority: libfido2.so.1 (feature fido2): declared recommended, found required\n"
				"declared.json: new: libpcre2-8.so.0 | libpcre2-8.so.1 (feature pcre2, suggested): in app, not declared\n"
				"declared.json: new: libtss2-mu.so.0 (feature tpm, recommended): in app, not declared\n"
				"declared.json: new: libtss2-esys.so.0 (feature tpm, recommended): in app, not declared\n");
	cr_expect_str_eq(c.err, "dlnote-inject: declared.json: 6 differences between the declared and the found dlopen entries\n");
	cmd_free(&c);
	/* The entries of all FILEs together are compared for new ones: a package tree against one
	 * declaration; each file must hold each declared entry. */
	note_object("gcc", "nofeature", N_NOFEATURE);
	free(sh("gcc -O1 -o plain main.c nofeature.o"));
	put_file("tree.json", "[" "{\"soname\":[\"libx.so.2\"],\"priority\":\"suggested\"}" "]");
	c = run("'%s' --check -q --expect tree.json plain simple", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "tree.json: missing: simple lacks every declared entry (1): libx.so.2\n"
				"tree.json: new: libnofeature.so.1 (recommended): in plain, not declared\n"
				"tree.json: new: libfido2.so.1 (feature fido2, required): in simple, not declared\n"
				"tree.json: new: liblz4.so.1 (feature lz4, recommended): in simple, not declared\n"
				"tree.json: new: libtss2-mu.so.0 (feature tpm, recommended): in simple, not declared\n"
				"tree.json: new: libtss2-esys.so.0 (feature tpm, recommended): in simple, not declared\n");
	cmd_free(&c);
}

/* ---- discovery ---- */

static const char dl_c[] =
	"#include <dlfcn.h>\n#include <math.h>\n#include <stdio.h>\n"
	"int main(int argc, char **argv) {\n"
	"  void *z = dlopen(\"libz.so.1\", RTLD_NOW);\n"
	"  void *q = dlopen(\"libqrencode.so.4\", RTLD_LAZY);\n"
	"  printf(\"%p %p %f %s\\n\", z, q, cos(argc), argv[0]);\n"
	"  return z ? 0 : 1;\n}\n";

#define DRAFT(file) "[\n" \
	"  {\"soname\":[\"libz.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in " file "; " \
	"check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"}\n]\n"

Test(packaging, discover_finds_a_dlopened_soname_that_is_neither_needed_nor_declared)
{
	struct cmd c;
	char *needed;

	put_file("dl.c", dl_c);
	free(sh("gcc -O1 -o prog dl.c -lm && '%s' --feature qr --soname libqrencode.so.4 prog", tool()));
	needed = sh("readelf -dW prog | grep NEEDED | sed 's/.*\\[\\(.*\\)\\]/\\1/' | sort | tr '\\n' ' '");
	cr_expect_str_eq(needed, "libc.so.6 libm.so.6 ", "the test needs DT_NEEDED libc and libm: %s", needed);
	c = run("'%s' --discover prog", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, DRAFT("prog"));
	cr_expect_str_eq(c.err, "dlnote-inject: --discover is a heuristic: 1 soname-like string in read-only data, "
				"neither DT_NEEDED nor declared; review the draft before using it\n");
	cmd_free(&c);
	/* Without section headers: DT_NEEDED from PT_DYNAMIC, data from the PT_LOADs. */
	free(sh("cp prog bare && /usr/bin/python3 '%s/tests/tools/noshdr.py' bare", srcdir()));
	expect_run("--discover -q bare", 0, DRAFT("bare"));
	/* The draft is a manifest: once declared, nothing is left to discover. */
	free(sh("'%s' --discover -q prog > draft.json && '%s' --merge -m draft.json prog", tool(), tool()));
	expect_out("--discover -q prog", "[]\n");
	free(needed);
}

Test(packaging, discover_reads_objects_and_32_bit_files)
{
	need("i686-linux-gnu-gcc");
	put_file("dl.c", dl_c);
	free(sh("i686-linux-gnu-gcc -O1 -o prog32 dl.c -lm && i686-linux-gnu-gcc -O1 -c dl.c -o dl.o"));
	expect_run("--discover -q prog32", 0,
		   "[\n"
		   "  {\"soname\":[\"libqrencode.so.4\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in prog32; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"},\n"
		   "  {\"soname\":[\"libz.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in prog32; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"}\n"
		   "]\n");
	expect_run("--discover -q dl.o prog32", 0,
		   "[\n"
		   "  {\"soname\":[\"libqrencode.so.4\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in dl.o; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"},\n"
		   "  {\"soname\":[\"libz.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: guessed by dlnote-inject --discover (a heuristic) from a string in dl.o; "
		   "check that it is loaded with dlopen(), then describe the feature\",\"priority\":\"recommended\"}\n"
		   "]\n");
}

/* Issue 43, item 4: a file that carries no note passed when another FILE held every entry.
 * Each file the manifest applies to must hold each entry; detached debug files and dwz's
 * multifile carry none by design, and their ok line says so. */
Test(packaging, check_expect_holds_each_file_to_the_manifest)
{
	struct cmd c;
	char *v;

	need("dwz");
	put_file("lib.c", "int f(int x) { return x + 1; }\n");
	put_file("M.json", "[{\"feature\":\"z\",\"soname\":[\"libz.so.1\"]},"
			   "{\"feature\":\"k\",\"soname\":[\"libkmod.so.2\"]}]");
	free(sh("gcc -g -shared -fPIC -o a.so lib.c && cp a.so b.so && cp a.so c.so && "
		"'%s' -m M.json a.so c.so",
		tool()));
	c = run("'%s' --check --expect M.json a.so b.so", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "a.so: ok (2 dlopen entries)\n"
				"M.json: missing: b.so lacks every declared entry (2): libz.so.1 (feature z), "
				"libkmod.so.2 (feature k)\n");
	cr_expect_str_eq(c.err, "dlnote-inject: M.json: 2 differences between the declared and the "
				"found dlopen entries\n");
	cmd_free(&c);
	/* An archive: its members together. */
	free(sh("gcc -c -o m.o lib.c && ar rc bare.a m.o && cp bare.a noted.a && '%s' -m M.json noted.a",
		tool()));
	c = run("'%s' --check -q --expect M.json a.so noted.a bare.a", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "M.json: missing: bare.a lacks every declared entry (2): libz.so.1 "
				"(feature z), libkmod.so.2 (feature k)\n");
	cmd_free(&c);
	/* The debug files find-debuginfo and dh_strip leave, and dwz's multifile: told apart. */
	free(sh("objcopy --only-keep-debug c.so c.debug && gcc -g -shared -fPIC -o d.so lib.c && "
		"cp d.so e.so && dwz -m common.dwz d.so e.so"));
	/* dwz made a multifile (no program headers, DWARF sections), or the verdict below means
	 * nothing */
	v = sh("readelf -lW common.dwz | grep -c 'no program headers'; "
	       "readelf -SW common.dwz | grep -c '] \\.debug_' || true");
	cr_expect(strncmp(v, "1\n", 2) == 0 && strcmp(v + 2, "0") != 0,
		  "common.dwz is not a dwz multifile: %s", v);
	free(v);
	c = run("'%s' --check --expect M.json a.so c.debug common.dwz", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect_str_eq(c.out, "a.so: ok (2 dlopen entries)\n"
				"c.debug: ok (2 dlopen entries; a detached debug file: no notes by design, "
				"not held to M.json)\n"
				"common.dwz: ok (0 dlopen entries; a dwz multifile (DWARF shared by debug "
				"files): no notes by design, not held to M.json)\n");
	cmd_free(&c);
}
