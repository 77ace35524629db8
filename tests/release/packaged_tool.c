/* SPDX-License-Identifier: MIT */
/* packaged_tool.c - see packaged_tool.h. */
#include "packaged_tool.h"

#include <criterion/criterion.h>
#include <stdlib.h>

#include "harness.h"

#define MANIFEST "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"description\":\"Compression\",\"priority\":\"required\"}]"

void expect_packaged_tool_works(const char *root, const char *version)
{
	char *got, *want;
	struct cmd c;

	got = sh("%s/usr/bin/dlnote-inject --version", root);
	want = sh("echo 'dlnote-inject %s'", version);
	cr_expect_str_eq(got, want, "the packaged tool says '%s'", got);
	free(got);
	free(want);

	put_file("hello.c", "#include <dlfcn.h>\n#include <stdio.h>\n"
			    "int main(void) { puts(dlopen(\"libz.so.1\", RTLD_NOW) ? \"loaded\" : \"missing\"); return 0; }\n");
	put_file("deps.json", MANIFEST "\n");
	free(sh("gcc -o hello hello.c && %s/usr/bin/dlnote-inject --manifest deps.json hello", root));
	got = sh("%s/usr/bin/dlnote-inject --list --json hello", root);
	cr_expect_str_eq(got, MANIFEST, "the packaged tool lists %s", got);
	free(got);
	got = sh("./hello");
	cr_expect_str_eq(got, "loaded", "the edited program prints '%s'", got);
	free(got);

	/* Neither a caller's module (DLNOTE_AUDIT_MODULE) nor LD_AUDIT. */
	got = sh("env -u DLNOTE_AUDIT_MODULE -u LD_AUDIT %s/usr/bin/dlnote-inject --record=t.trace -- ./hello >/dev/null && "
		 "grep -c '\"event\":\"loaded\".*\"name\":\"libz.so.1\"' t.trace && "
		 "%s/usr/bin/dlnote-inject --check --recorded=t.trace hello 2>&1",
		 root, root);
	cr_expect_str_eq(got, "1\nhello: ok (1 dlopen entry; recorded: 1 library dlopen()ed, none undeclared)",
			 "recording with the packaged audit module: %s", got);
	free(got);
	c = run("mv %s/usr/lib/dlnote %s/usr/lib/dlnote.gone && env -u DLNOTE_AUDIT_MODULE -u LD_AUDIT "
		"%s/usr/bin/dlnote-inject --record=t2.trace -- ./hello; s=$?; mv %s/usr/lib/dlnote.gone %s/usr/lib/dlnote; exit $s",
		root, root, root, root, root);
	cr_expect_neq(c.status, 0, "--record worked without the packaged audit module: it used another one");
	cmd_free(&c);
}
