/* SPDX-License-Identifier: MIT */
/* test_placement.c - where our segment may go, as real consumers see it (issue "Real
 * distribution files", items 2 and 4).  Libraries loaded under qemu-user for every
 * architecture are in test_linked.c's matrix; these cases need inputs the matrix does not
 * build. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* eu-elflint takes a relocation at r_offset to modify [r_offset, r_offset + st_size): a
 * read-only segment placed right after the writable one (where the GOT is) draws "read-only
 * section modified but text relocation flag not set" for a PLT slot of a large function.
 * libz.so.1 has such slots; the note goes after the end of the file, above the writable
 * segment, far enough. */
Test(placement, grown_note_after_the_writable_segment_is_elflint_clean, .timeout = 120)
{
	static const char dl_c[] =
		"#include <dlfcn.h>\n#include <stdio.h>\n"
		"int main(int argc, char **argv) { void *h = dlopen(argv[1], RTLD_NOW); puts(h ? \"loaded\" : dlerror()); return !h; }\n";
	char *lint_in, *lint, *v, *where;

	need("eu-elflint");
	put_big_manifest("big.json", 60);
	put_file("dl.c", dl_c);
	free(sh("gcc -o dl dl.c -ldl && cp -L /lib/x86_64-linux-gnu/libz.so.1 in && cp in out"));
	lint_in = elflint("in");
	where = sh("'%s' -v -m big.json out 2>&1 | grep '(note)'", tool());
	cr_expect(strstr(where, "after the end of the file"), "the big note should go after the end of the file: %s", where);
	lint = elflint("out");
	cr_expect_str_eq(lint, lint_in, "eu-elflint now says\n%s\ninstead of\n%s", lint, lint_in);
	v = readers("validate in out");
	cr_expect_str_eq(v, "OK", "%s", v);
	free(v);
	v = sh("./dl ./out");
	cr_expect_str_eq(v, "loaded");
	free(v);
	/* Grown again (own segment rebuilt): still clean. */
	free(lint);
	free(sh("'%s' --merge --soname libmore.so.1 out", tool()));
	lint = elflint("out");
	cr_expect_str_eq(lint, lint_in, "after a merge eu-elflint says\n%s\ninstead of\n%s", lint, lint_in);
	free(lint);
	free(lint_in);
	free(where);
}
