/* SPDX-License-Identifier: MIT */
/* test_record_names.c - a recording where names are any bytes: a program in a directory whose
 * name holds a C0 control, a C1 control (U+0085, valid UTF-8) and a byte that is not UTF-8,
 * run from there.  The trace the tool and its audit module write is one the lint reads (the
 * reader refuses controls, C1 too, and invalid UTF-8: each such character is written as '?',
 * docs/recording.md), and the lint still finds the program's dlopen() in it.  The C1 control
 * and the working directory's control made the trace unreadable (issue 45, the writers). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

Test(record_names, controls_and_bad_bytes_in_paths_leave_a_trace_the_lint_reads)
{
	struct cmd c;

	free(sh("printf '%%s\\n' '#include <dlfcn.h>' "
		"'int main(void) { return !dlopen(\"libz.so.1\", RTLD_NOW); }' > dl.c && "
		"d=$(printf 'c1\\302\\205d\\001x\\377') && mkdir \"$d\" && gcc -o \"$d/dl\" dl.c "
		"-ldl"));
	c = run("cd c1* && '%s' --record=../trace -- ./dl && cd .. && "
		"'%s' --check --recorded=trace c1*/dl",
		tool(), tool());
	cr_expect_eq(c.status, 1, "%s%s", c.out, c.err);
	cr_expect(strstr(c.out, "/dl: undeclared: libz.so.1: dlopen()ed during the recording\n"),
		  "the lint did not find the dlopen() in the trace:\n%s%s", c.out, c.err);
	cr_expect(!strstr(c.err, "trace: line"), "the trace is not read:\n%s", c.err);
	cmd_free(&c);
}
