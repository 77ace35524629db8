/* test_odd_files.c - odd output targets, detached debug files and --discover on broken files
 * (issue 13 §3, §5, §6). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

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
