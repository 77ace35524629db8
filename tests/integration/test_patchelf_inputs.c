/* SPDX-License-Identifier: MIT */
/* test_patchelf_inputs.c - inputs patchelf edited before the tool. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"


/* Inputs patchelf already edited (NixOS, conda, AppImage): patchelf 0.14 grows the program
 * header table over the sections after it, moves them, .dynstr and .dynamic into a PT_LOAD of
 * its own and, for a bfd PIE, leaves PT_GNU_PROPERTY inside the table.  The tool takes them
 * with today's guarantees: the layout rules of readers.py validate against the patchelf'd
 * input, the entries by every reader, and the program running as the input does, before and
 * after objcopy then eu-strip. */
struct pinput {
	char name[24];
	char flags[40];
	char linker[12];
	int lib;
};

static struct pinput pinputs[] = {
	{ "bfd pie", "", "", 0 },
	{ "bfd shlib", "", "", 1 },
	{ "gold pie", "-fuse-ld=gold", "ld.gold", 0 },
	{ "gold shlib", "-fuse-ld=gold", "ld.gold", 1 },
	{ "lld pie", "-fuse-ld=lld", "ld.lld", 0 },
	{ "lld shlib", "-fuse-ld=lld", "ld.lld", 1 },
	{ "mold pie", "-fuse-ld=mold", "mold", 0 },
	{ "mold shlib", "-fuse-ld=mold", "mold", 1 },
};

ParameterizedTestParameters(pipelines, inputs_patchelf_edited_are_accepted)
{
	return cr_make_param_array(struct pinput, pinputs, sizeof pinputs / sizeof pinputs[0]);
}

ParameterizedTest(struct pinput *p, pipelines, inputs_patchelf_edited_are_accepted, .timeout = 60)
{
	if (sanitized_sample_skips(PARAM_INDEX(p, pinputs), "pipelines::inputs_patchelf_edited_are_accepted"))
		return;
	static const char entries[] = "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"recommended\"}]";
	const char *file = p->lib ? "libp.so" : "prog", *runner = p->lib ? "./use" : "./prog";
	char *v, *want;

	need("patchelf");
	if (p->linker[0])
		need(p->linker);
	put_file("prog.c", "#include <stdio.h>\n#include <dlfcn.h>\nint f(void);\nint main(void) { void *h = "
		 "dlopen(\"libz.so.1\", RTLD_NOW); printf(\"zlib %s %d\\n\", h ? \"loaded\" : \"missing\", f()); return 0; }\n");
	put_file("lib.c", "int f(void) { return 42; }\n");
	put_file("m.json", entries);
	if (p->lib)
		free(sh("gcc -g -O1 -shared -fPIC %s -o libp.so lib.c && gcc -o use prog.c -L. -lp -Wl,-rpath,'$ORIGIN'", p->flags));
	else
		free(sh("gcc -g -O1 %s -o prog prog.c lib.c", p->flags));
	free(sh("patchelf --set-rpath /a/rpath/long/enough/to/move/the/dynamic/string/table/somewhere/else %s && cp %s in",
		file, file));
	want = sh("%s", runner);
	cr_assert_str_eq(want, "zlib loaded 42", "%s: patchelf's output prints %s", p->name, want);
	free(sh("'%s' -m m.json %s", tool(), file));
	v = readers("validate in %s", file);
	cr_expect_str_eq(v, "OK", "%s: %s", p->name, v);
	free(v);
	expect_entries(file, entries, 1);
	v = sh("%s", runner);
	cr_expect_str_eq(v, want, "%s: the injected file prints %s", p->name, v);
	free(v);
	v = sh("objcopy %s && eu-strip %s && %s", file, file, runner);
	cr_expect_str_eq(v, want, "%s: after objcopy then eu-strip the injected file prints %s", p->name, v);
	free(v);
	free(want);
}
