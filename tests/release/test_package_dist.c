/* SPDX-License-Identifier: MIT */
/* test_package_dist.c - the release tarball holds everything needed to build and test: make
 * dist, unpack it outside any git checkout, and run the whole make check there (about ten
 * minutes: make check-packaging only). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

Test(package_dist, make_check_passes_in_the_unpacked_tarball, .timeout = 1800)
{
	char *v = sh("cat '%s/VERSION'", srcdir()), *tail;
	struct cmd c;

	need("make");
	free(sh("make -s -C '%s' dist DIST_OUT=\"$PWD/dlnote-%s.tar.gz\" >/dev/null && tar -xzf dlnote-%s.tar.gz", srcdir(), v, v));
	/* The tree's own tool and source; nothing of the calling make (SANITIZE=1, CC=...). */
	c = run("cd dlnote-%s && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u DLNOTE -u DLNOTE_SRC -u DLNOTE_PLAIN "
		"-u DLNOTE_SANITIZED make check > ../check.log 2>&1", v);
	tail = sh("tail -40 check.log");
	cr_assert_eq(c.status, 0, "make check in the unpacked tarball failed (%d):\n%s", c.status, tail);
	free(tail);
	/* Every suite ran and passed. */
	tail = sh("grep -c '^\\[====\\] Synthesis: Tested: [0-9]* | Passing: [0-9]* | Failing: 0 | Crashing: 0' check.log; "
		  "grep -c '^buildsys: [0-9]* passed, 0 failed' check.log");
	cr_expect_str_eq(tail, "4\n2", "suites that passed in check.log (Criterion: unit, integration, buildsys, release; run.sh: CMake, Meson):\n%s",
			 tail);
	free(tail);
	cmd_free(&c);
	free(v);
}
