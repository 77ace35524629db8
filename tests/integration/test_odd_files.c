/* SPDX-License-Identifier: MIT */
/* test_odd_files.c - odd output targets, detached debug files and --discover on broken files
 * (issue 13 §3, §5, §6); a section named past the section-name table. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "libtool_sample.h"

static const char prog_c[] = "#include <stdio.h>\n#include <string.h>\n"
			     "int main(int argc, char **argv) { (void)argv; puts(argc > 5 ? \"libzstd.so.1\" : \"hi\"); return 0; }\n";

/* -o onto a device node, a FIFO, a socket or a directory: refused, the target still what it
 * was, the input untouched, nothing left behind. */
Test(odd_files, output_onto_a_device_fifo_socket_or_directory_is_refused)
{
	static const char *const targets[][2] = {
		{ "cdev", "character special file" }, { "fifo", "fifo" }, { "sock", "socket" }, { "dir", "directory" },
		{ "link-to-cdev", "character special file" },
	};
	char *before, *after;

	put_file("p.c", prog_c);
	free(sh("gcc p.c -o prog && mknod cdev c 1 3 && mkfifo fifo && mkdir dir && ln -s cdev link-to-cdev && "
		"/usr/bin/python3 -c \"import socket; socket.socket(socket.AF_UNIX).bind('sock')\""));
	before = sh("sha256sum < prog");
	for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++) {
		struct cmd c = run("timeout 10 '%s' --soname libz.so.1 prog -o %s", tool(), targets[i][0]);
		char *kind = sh("stat -L -c %%F %s", targets[i][0]);
		cr_expect_eq(c.status, 1, "-o %s: exit %d: %s", targets[i][0], c.status, c.err);
		cr_expect(strncmp(c.err, "dlnote-inject: prog: output ", 28) == 0 && strstr(c.err, "only a regular file is replaced"),
			  "-o %s: %s", targets[i][0], c.err);
		cr_expect(strchr(c.err, '\n') == c.err + strlen(c.err) - 1, "not one line: %s", c.err);
		cr_expect_str_eq(kind, targets[i][1], "-o %s replaced it: now a %s", targets[i][0], kind);
		free(kind);
		cmd_free(&c);
	}
	after = sh("sha256sum < prog; ls -A | grep dlnote; true");
	cr_expect_str_eq(after, before);
	free(before);
	free(after);
}

/* -o - writes the result to standard output: the same bytes as -o FILE, through a pipe too; a
 * full device is reported. */
Test(odd_files, output_to_standard_output)
{
	struct cmd c;
	char *json;

	put_file("p.c", prog_c);
	free(sh("gcc p.c -o prog && '%s' --soname libz.so.1 prog -o file.out && '%s' --soname libz.so.1 prog -o - > stdout.out && "
		"'%s' --soname libz.so.1 prog -o - | cat > pipe.out && cmp file.out stdout.out && cmp file.out pipe.out && chmod +x pipe.out",
		tool(), tool(), tool()));
	json = sh("'%s' --list --json pipe.out && ./pipe.out", tool());
	cr_expect_str_eq(json, "[{\"soname\":[\"libz.so.1\"]}]\nhi");
	free(json);
	c = run("'%s' --soname libz.so.1 prog -o - > /dev/full", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "dlnote-inject: prog: ") == c.err && strstr(c.err, "No space left on device"), "%s", c.err);
	cmd_free(&c);
	json = sh("ls -A /tmp | grep -c 'stdout.dlnote' || true");
	cr_expect_str_eq(json, "0", "temporary files left in /tmp");
	free(json);
}

/* --discover over a good file and a damaged one: the error, and nothing on standard output (a
 * draft that silently misses a file would be taken for the whole story). */
Test(odd_files, discover_on_a_broken_file_prints_nothing_on_stdout)
{
	static const char *const kinds[] = { "note-absurd-descsz", "segment-past-eof", "bad-class", "section-past-eof" };

	put_file("p.c", prog_c);
	free(sh("gcc p.c -o prog && '%s' --soname libz.so.1 prog -o noted", tool()));
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		struct cmd c;
		free(sh("/usr/bin/python3 '%s/tests/tools/damage.py' %s noted broken 2>/dev/null || "
			"/usr/bin/python3 '%s/tests/tools/damage.py' %s prog broken", srcdir(), kinds[i], srcdir(), kinds[i]));
		c = run("'%s' --discover prog broken", tool());
		cr_expect_eq(c.status, 1, "%s: exit %d: %s", kinds[i], c.status, c.err);
		cr_expect_str_empty(c.out, "%s: standard output: %s", kinds[i], c.out);
		cr_expect(strstr(c.err, "dlnote-inject: broken: "), "%s: %s", kinds[i], c.err);
		cr_expect(!strstr(c.err, "heuristic"), "%s: a summary as if all was scanned: %s", kinds[i], c.err);
		cmd_free(&c);
	}
	/* The good file alone still gives its draft. */
	{
		char *out = sh("'%s' -q --discover prog", tool());
		cr_expect(strstr(out, "\"libzstd.so.1\""), "%s", out);
		free(out);
	}
}

/* Detached debug files, as rpm's find-debuginfo (eu-strip -f) and objcopy --only-keep-debug
 * make them from a program and a library built here: their program headers describe the
 * stripped file.  Read-only modes read their note sections; writing into them is refused. */
Test(odd_files, detached_debug_files_are_read_and_never_written, .timeout = 120)
{
	static const char *const debug[] = { "tree/prog.debug", "tree/prog.objcopy.debug", "tree/libfoo.so.debug" };
	static const char *const writes[] = { "--soname libx.so.1", "--merge --soname libx.so.1", "--remove", "--soname libx.so.1 -o out.bin" };
	char *before, *after, *out;

	need("eu-strip");
	put_file("p.c", prog_c);
	put_file("foo.c", "int foo(void) { return 42; }\n");
	free(sh("mkdir tree && gcc -g p.c -o tree/prog && gcc -g -shared -fPIC foo.c -o tree/libfoo.so && "
		"'%s' --soname libz.so.1 --priority required tree/prog && '%s' --feature f --soname libfoo-plugin.so.2 tree/libfoo.so && "
		"objcopy --only-keep-debug tree/prog tree/prog.objcopy.debug 2>/dev/null && "
		"eu-strip -f tree/prog.debug tree/prog && eu-strip -f tree/libfoo.so.debug tree/libfoo.so && echo text > tree/README",
		tool(), tool()));
	for (size_t i = 0; i < sizeof debug / sizeof debug[0]; i++) {
		const char *want = strstr(debug[i], "libfoo") ? "[{\"soname\":[\"libfoo-plugin.so.2\"],\"feature\":\"f\"}]"
							     : "[{\"soname\":[\"libz.so.1\"],\"priority\":\"required\"}]";
		out = sh("'%s' --list --json %s", tool(), debug[i]);
		cr_expect_str_eq(out, want, "%s", debug[i]);
		free(out);
		out = sh("'%s' --check %s", tool(), debug[i]);
		cr_expect(strstr(out, "ok (1 dlopen entry)"), "%s: %s", debug[i], out);
		free(out);
		before = sh("sha256sum < %s", debug[i]);
		for (size_t k = 0; k < sizeof writes / sizeof writes[0]; k++) {
			struct cmd c = run("'%s' %s %s", tool(), writes[k], debug[i]);
			cr_expect_eq(c.status, 1, "%s %s: exit %d", writes[k], debug[i], c.status);
			cr_expect(strstr(c.err, "detached debug file") && strchr(c.err, '\n') == c.err + strlen(c.err) - 1, "%s %s: %s",
				  writes[k], debug[i], c.err);
			cmd_free(&c);
		}
		after = sh("sha256sum < %s; ls | grep -e dlnote -e out.bin; true", debug[i]);
		cr_expect_str_eq(after, before, "%s changed or left files", debug[i]);
		free(before);
		free(after);
	}
	/* A generator run over the package tree: every file, the debug files too. */
	out = sh("find tree -type f | sort | '%s' --list --format=sonames --skip-non-elf --files-from -", tool());
	cr_expect_str_eq(out, "libfoo-plugin.so.2 recommended\nlibz.so.1 required");
	free(out);
	out = sh("'%s' --check --skip-non-elf tree/* | sort", tool());
	cr_expect(strstr(out, "tree/prog.debug: ok (1 dlopen entry)") && strstr(out, "tree/libfoo.so.debug: ok (1 dlopen entry)") &&
		  strstr(out, "tree/prog: ok (1 dlopen entry)"), "%s", out);
	free(out);
}

/* The debug files of a library shaped like kmod 34 (notes from the macro, replaced by the tool:
 * its program headers grown, the sections after them carried into our segment), as each
 * pipeline makes them: find-debuginfo's steps (debugedit, objcopy --merge-notes, eu-strip -f,
 * dwz), eu-strip -f alone, objcopy --only-keep-debug as dh_strip runs it.  The library's
 * allocated sections with file bytes (its notes) all come before the NOBITS ones, and dwz lays
 * the file out again: the PT_NOTE headers point into DWARF (issue 32, item 6: `--list` failed
 * with "name size 2431488 runs past the note area").  Every one lists and checks like the
 * library, and a tree of them gives the library's dependencies. */
Test(odd_files, debug_files_of_every_pipeline_list_like_their_library, .timeout = 120)
{
	static const char *const makers[] = {
		"cp lib.so f.so && debugedit -b \"$PWD\" -d /usr/src/debug -i f.so >/dev/null && "
		"(objcopy --merge-notes f.so 2>/dev/null || true) && eu-strip --remove-comment -f d.debug f.so && dwz d.debug",
		"cp lib.so f.so && eu-strip -f d.debug f.so",
		"objcopy --only-keep-debug --compress-debug-sections lib.so d.debug",
		"cp lib.so f.so && eu-strip -f d.debug f.so && dwz d.debug",
	};
	const char *want = "[{\"soname\":[\"libfoo.so.1\"],\"feature\":\"foo\"}]";
	char *out, *lib;

	need("debugedit");
	need("dwz");
	need("eu-strip");
	put_file("h.json", "[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"recommended\"}]");
	put_file("foo.json", want);
	put_file("k.c", "int kmod_a(int x) { return x + 1; }\nint kmod_b(int x) { return x * 3; }\n");
	free(sh("'%s' --header -m h.json -o h.h && gcc -g -O2 -shared -fPIC -include h.h -Wl,-soname,libkmod.so.2 "
		"-Wl,--build-id -o lib.so k.c && '%s' -m foo.json lib.so 2>/dev/null", tool(), tool()));
	lib = sh("'%s' --list --format=sonames lib.so", tool());
	cr_assert_str_eq(lib, "libfoo.so.1 recommended");
	for (size_t i = 0; i < sizeof makers / sizeof makers[0]; i++) {
		free(sh("rm -f f.so d.debug && %s", makers[i]));
		out = sh("'%s' --list --json d.debug", tool());
		cr_expect_str_eq(out, want, "%s: the debug file lists %s", makers[i], out);
		free(out);
		out = sh("'%s' --check d.debug", tool());
		cr_expect_str_eq(out, "d.debug: ok (1 dlopen entry)", "%s: %s", makers[i], out);
		free(out);
		out = sh("printf '%%s\\n' d.debug lib.so | '%s' --list --format=sonames --files-from -", tool());
		cr_expect_str_eq(out, lib, "%s: the tree gives %s", makers[i], out);
		free(out);
		out = entries_by("sections", "d.debug");
		cr_expect_str_eq(out, want, "%s: pyelftools reads %s", makers[i], out);
		free(out);
	}
	free(lib);
}

/* A libtool package (libtool_sample.h: the files an autotools build such as jq's gives): the
 * uninstalled program is libtool's wrapper script and the library's handle a .la file.  Named
 * instead of the files they stand for, they are refused with one line that names the real
 * file, untouched (issue 33, item 1); that file takes the notes, and `make install` copies the
 * program and library with them (this package relinks nothing: the build-ids match, as the
 * recorded lint needs). */
Test(odd_files, libtool_stand_ins_name_the_real_file, .timeout = 180)
{
	struct cmd c;
	char *out;

	need("libtool");
	put_file("Makefile", app_makefile);
	put_file("libapp.c", libapp_c);
	put_file("app.c", app_c);
	put_file("m.json", "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\"}]");
	free(sh("make -s >/dev/null 2>&1 && head -c 2 app | grep -q '#!' && cp app app.orig && cp libapp.la libapp.la.orig"));
	c = run("'%s' -m m.json app", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect_str_eq(c.err, "dlnote-inject: app: a libtool wrapper script, not an ELF file: the program is .libs/app; "
				"name that file (and after `make install`, which relinks it, the installed one)\n");
	cmd_free(&c);
	c = run("'%s' --list ./libapp.la", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: ./libapp.la: a libtool library file, not an ELF file: the library is "
				"./.libs/libapp.so.1; ") == c.err, "%s", c.err);
	cmd_free(&c);
	cr_expect(same_files("app", "app.orig") && same_files("libapp.la", "libapp.la.orig"), "a stand-in changed");
	free(sh("'%s' -m m.json .libs/app .libs/libapp.so.1 && make -s install DESTDIR=$PWD/root >/dev/null 2>&1", tool()));
	out = sh("'%s' --list --format=sonames root/usr/bin/app root/usr/lib/libapp.so.1", tool());
	cr_expect_str_eq(out, "libz.so.1 recommended", "the installed files: %s", out);
	free(out);
	/* a tree of the build, as a generator walks it: the stand-ins are skipped, quietly */
	out = sh("'%s' --list --format=sonames --skip-non-elf app libapp.la .libs/app", tool());
	cr_expect_str_eq(out, "libz.so.1 recommended");
	free(out);
}

/* A section whose sh_name points past the end of the section-name table (found by the elf
 * fuzzer, 2026-12-04: an object whose table was empty).  Adding ".group" and ".note.dlopen"
 * to the table would make that offset a real name: the edited object named its section-name
 * table ".note.dlopen", and no reader could read it back.  Refused for objects and linked
 * files alike, naming the section, the file untouched; readelf shows the input as corrupt. */
Test(odd_files, a_section_named_past_the_name_table_is_refused)
{
	static const char *const files[] = { "o.o", "lib.so" };
	char *before, *after, *shown;

	put_file("p.c", "int f(void) { return 1; }\n");
	/* .text's sh_name: the table's size plus 3 (ELF64 little-endian: e_shoff at 0x28,
	 * e_shentsize 0x3a, e_shstrndx 0x3e; sh_name at 0 and sh_size at 0x20 of a header). */
	put_file("past.py", "import struct, sys\n"
		 "f = open(sys.argv[1], 'r+b'); d = bytearray(f.read())\n"
		 "shoff = struct.unpack_from('<Q', d, 0x28)[0]; es, n, ix = struct.unpack_from('<HHH', d, 0x3a)\n"
		 "tab = shoff + ix * es; size = struct.unpack_from('<Q', d, tab + 0x20)[0]\n"
		 "toff = struct.unpack_from('<Q', d, tab + 0x18)[0]\n"
		 "name = lambda i: d[toff + struct.unpack_from('<I', d, shoff + i * es)[0]:].split(b'\\0')[0]\n"
		 "i = [k for k in range(n) if name(k) == b'.text'][0]\n"
		 "struct.pack_into('<I', d, shoff + i * es, size + 3); f.seek(0); f.write(d)\n"
		 "print(i)\n");
	free(sh("gcc -c p.c -o o.o && gcc -shared -fPIC p.c -o lib.so"));
	for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
		char *index = sh("/usr/bin/python3 past.py %s", files[k]), want[96];
		struct cmd c;

		shown = sh("readelf -SW %s 2>&1 | grep -c '<corrupt>'", files[k]);
		cr_expect_str_eq(shown, "1", "%s: readelf sees one corrupt name", files[k]);
		before = sh("sha256sum < %s", files[k]);
		c = run("'%s' --soname libz.so.1 %s", tool(), files[k]);
		snprintf(want, sizeof want, "dlnote-inject: %s: section %s has a name outside the section-name table", files[k], index);
		cr_expect_eq(c.status, 1, "%s: exit %d: %s", files[k], c.status, c.err);
		cr_expect(strncmp(c.err, want, strlen(want)) == 0, "%s: %s", files[k], c.err);
		cr_expect(strchr(c.err, '\n') == c.err + strlen(c.err) - 1, "not one line: %s", c.err);
		after = sh("sha256sum < %s; ls -A | grep dlnote; true", files[k]);
		cr_expect_str_eq(after, before, "%s changed", files[k]);
		free(index), free(shown), free(before), free(after);
		cmd_free(&c);
	}
}

/* A relocatable object with program headers (found by the elf fuzzer, 2026-12-04: a program
 * whose e_type said ET_REL).  An object's sections are laid out anew when groups are added,
 * so its program headers would describe bytes that moved or were dropped: the output had
 * program headers past its end, and the tool could not read it back.  Refused, the file
 * untouched; --list still reads it. */
Test(odd_files, a_relocatable_object_with_program_headers_is_read_not_written)
{
	char *before, *after, *listed;
	struct cmd c;

	put_file("p.c", prog_c);
	free(sh("gcc p.c -o prog && '%s' --soname libz.so.1 -o noted prog && cp noted rel && "
		"printf '\\001' | dd of=rel bs=1 seek=16 conv=notrunc status=none", tool()));
	listed = sh("readelf -h rel | grep 'Type:'; readelf -l rel | grep -c LOAD");
	cr_expect(strstr(listed, "REL (Relocatable file)") && atoi(strchr(listed, '\n') + 1) > 0, "the input: %s", listed);
	before = sh("sha256sum < rel");
	c = run("'%s' --soname liblz4.so.1 --merge rel", tool());
	cr_expect_eq(c.status, 1, "exit %d: %s", c.status, c.err);
	cr_expect(strncmp(c.err, "dlnote-inject: rel: a relocatable object with program headers", 61) == 0, "%s", c.err);
	cr_expect(strchr(c.err, '\n') == c.err + strlen(c.err) - 1, "not one line: %s", c.err);
	after = sh("sha256sum < rel; ls -A | grep dlnote; true");
	cr_expect_str_eq(after, before, "rel changed");
	free(listed);
	listed = sh("'%s' --list --format=sonames rel", tool());
	cr_expect_str_eq(listed, "libz.so.1 recommended");
	free(listed), free(before), free(after);
	cmd_free(&c);
}
