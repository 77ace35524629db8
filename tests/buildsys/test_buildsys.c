/* SPDX-License-Identifier: MIT */
/* test_buildsys.c - the build-system helpers' suite (tests/buildsys/run.sh) as three Criterion
 * tests, its CMake, Meson and Autotools parts, which Criterion runs at once: run.sh builds sample
 * projects and prints one PASS/FAIL line per check.  The tool comes from $DLNOTE, the source
 * tree from $DLNOTE_SRC (make buildsys sets both). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

static void run_part(const char *part)
{
	const char *src = getenv("DLNOTE_SRC");
	const char *tool = getenv("DLNOTE");
	cr_assert(src && *src, "DLNOTE_SRC must name the source tree");
	cr_assert(tool && *tool, "DLNOTE must name the dlnote-inject under test");

	char cmd[4096];
	snprintf(cmd, sizeof cmd, "ONLY=%s bash '%s/tests/buildsys/run.sh' 2>&1", part, src);
	FILE *out = popen(cmd, "r");
	cr_assert(out, "cannot run %s", cmd);

	char line[4096];
	int checks = 0, fails = 0;
	while (fgets(line, sizeof line, out)) {
		fputs(line, stderr);	/* the per-check lines are the report */
		if (strncmp(line, "PASS", 4) == 0)
			checks++;
		if (strncmp(line, "FAIL", 4) == 0) {
			checks++;
			fails++;
			cr_log_error("%s", line);
		}
	}
	int status = pclose(out);
	cr_expect(checks > 0, "run.sh (%s) reported no checks", part);
	cr_expect_eq(fails, 0, "%s: %d of %d build-system checks failed", part, fails, checks);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "run.sh exit status %d", status);
}

Test(buildsys, cmake_helpers_pass_every_check, .timeout = 900)
{
	run_part("cmake");
}

Test(buildsys, meson_helpers_pass_every_check, .timeout = 900)
{
	run_part("meson");
}

Test(buildsys, autotools_macro_passes_every_check, .timeout = 900)
{
	run_part("autotools");
}
