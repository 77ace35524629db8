/* SPDX-License-Identifier: MIT */
/* test_record.c - `--record` (issue "Record what programs really dlopen()"): real programs,
 * libraries and plugins built here (record_fixture.h), run under the recording, and every trace
 * line compared with what the program did (it prints each dlopen() result and its process id):
 * callers, repeated dlopen(), threads, children, streams and status. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "record_fixture.h"

Test(record, each_dlopen_attributed_to_its_caller_with_needed_and_missing)
{
	long pids[16];
	size_t n;
	char *t, want[4200];

	record_build();
	t = record_run("o:libdlr_a.so.1 p:./plugin.so o:libdlr_missing.so.2", pids, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(t,
		START("P1", "W/prog")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_a.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_a.so.1", "libdlr_a.so.1", "W/libdlr_a.so.1")
		ASKED("P1", "W/prog", "needed", "W/libdlr_a.so.1", "libdlr_c.so.1")
		LOADED("P1", "W/prog", "needed", "W/libdlr_a.so.1", "libdlr_c.so.1", "libdlr_c.so.1", "W/libdlr_c.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so", "", "W/plugin.so")
		SYMBOL("P1", "W/prog", "W/prog", "plugin_run", "", "", "W/plugin.so")
		ASKED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_missing.so.2"));
	free(t);
	/* The tool's own first line: where the recording ran (the lint's build tree). */
	t = sh("head -n 1 trace | sed 's/\"pid\":[0-9]*,//'");
	snprintf(want, sizeof want, "{\"event\":\"record\",\"cwd\":\"%s\",\"command\":\"./prog\"}", record_wd);
	cr_assert_str_eq(t, want);
	free(t);
}

/* Each (caller, name) once per process: a repeated dlopen(), RTLD_NOLOAD of a loaded object, a
 * name asked again after failing.  RTLD_NOLOAD of an object not loaded is searched for and not
 * mapped: an "asked" line alone, as for a missing one.  The plugin's dlopen() of libdlr_b.so.1,
 * which prog loaded already, is answered by the loader without a search: the dlopen() wrapper
 * records it for the plugin; prog's dlopen() of libdlr_t4.so.1, its own DT_NEEDED, likewise.
 * plugin_noplt.so calls dlopen() through its GOT (-fno-plt): its dlopen() of the loaded
 * libdlr_b.so.1 is not seen (docs/recording.md), its dlopen() of libdlr_t3.so.1 loads it and is. */
Test(record, repeated_and_noload_dlopen_recorded_once)
{
	long pids[16];
	size_t n;
	char *t;

	record_build();
	t = record_run("o:libdlr_b.so.1 o:libdlr_b.so.1 n:libdlr_b.so.1 o:libdlr_b.so.1 o:libdlr_nope.so.1 o:libdlr_nope.so.1 "
		   "n:libdlr_c.so.1 p:./plugin.so o:libdlr_t4.so.1 p:./plugin_noplt.so", pids, &n);
	cr_assert_str_eq(t,
		START("P1", "W/prog")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_nope.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_c.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so", "", "W/plugin.so")
		SYMBOL("P1", "W/prog", "W/prog", "plugin_run", "", "", "W/plugin.so")
		ASKED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t4.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t4.so.1", "libdlr_t4.so.1", "W/libdlr_t4.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "./plugin_noplt.so")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "./plugin_noplt.so", "", "W/plugin_noplt.so")
		SYMBOL("P1", "W/prog", "W/prog", "plugin_run", "", "", "W/plugin_noplt.so")
		ASKED("P1", "W/prog", "dlopen", "W/plugin_noplt.so", "libdlr_t3.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/plugin_noplt.so", "libdlr_t3.so.1", "libdlr_t3.so.1", "W/libdlr_t3.so.1"));
	free(t);
}

/* Four threads dlopen() at once: each object once, each "loaded" line right after its "asked"
 * line (the loader serialises the audit calls). */
Test(record, multithreaded_program)
{
	long pids[16];
	size_t n;
	char *t, *s, *p;

	record_build();
	t = record_run("t:libdlr_t1.so.1,libdlr_t2.so.1,libdlr_t3.so.1,libdlr_t4.so.1", pids, &n);
	for (p = strstr(t, "\"asked\""); p; p = strstr(p + 1, "\"asked\"")) {
		char *name = strstr(p, "\"name\":"), *next = strchr(p, '\n') + 1;
		cr_assert(strncmp(next, "{\"event\":\"loaded\"", 17) == 0, "%s", t);
		cr_assert(strncmp(strstr(next, "\"name\":"), name, (size_t)(strchr(name, '}') - name)) == 0, "%s", t);
	}
	s = record_sorted(t);
	cr_assert_str_eq(s,
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t1.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t2.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t3.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t4.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t1.so.1", "libdlr_t1.so.1", "W/libdlr_t1.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t2.so.1", "libdlr_t2.so.1", "W/libdlr_t2.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t3.so.1", "libdlr_t3.so.1", "W/libdlr_t3.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t4.so.1", "libdlr_t4.so.1", "W/libdlr_t4.so.1")
		START("P1", "W/prog"));
	free(s);
	free(t);
}

/* prog dlopen()s, then starts three children at once (fork + exec, through LD_AUDIT inherited
 * in the environment) that each dlopen() two objects: every process's lines, whole. */
Test(record, children_recorded_concurrently)
{
	long pids[16];
	size_t n, i;
	char *t, *s, want[8192], *w = want;

	record_build();
	t = record_run("o:libdlr_a.so.1 f:3 o:libdlr_b.so.1 o:libdlr_t1.so.1", pids, &n);
	cr_assert_eq(n, 4, "%zu pids", n);
	w += sprintf(w, START("P1", "W/prog")
		     ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_a.so.1")
		     LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_a.so.1", "libdlr_a.so.1", "W/libdlr_a.so.1")
		     ASKED("P1", "W/prog", "needed", "W/libdlr_a.so.1", "libdlr_c.so.1")
		     LOADED("P1", "W/prog", "needed", "W/libdlr_a.so.1", "libdlr_c.so.1", "libdlr_c.so.1", "W/libdlr_c.so.1"));
	for (i = 2; i <= 4; i++) {
		char p[8];
		snprintf(p, sizeof p, "P%zu", i);
#define C(X) X(p, "W/child")
		w += sprintf(w, "{\"event\":\"start\",\"pid\":\"%s\",\"exe\":\"W/child\"}\n", p);
		w += sprintf(w, "{\"event\":\"asked\",\"pid\":\"%s\",\"exe\":\"W/child\",\"by\":\"dlopen\",\"caller\":\"W/child\","
			     "\"name\":\"libdlr_b.so.1\"}\n", p);
		w += sprintf(w, "{\"event\":\"loaded\",\"pid\":\"%s\",\"exe\":\"W/child\",\"by\":\"dlopen\",\"caller\":\"W/child\","
			     "\"name\":\"libdlr_b.so.1\",\"soname\":\"libdlr_b.so.1\",\"path\":\"W/libdlr_b.so.1\"}\n", p);
		w += sprintf(w, "{\"event\":\"asked\",\"pid\":\"%s\",\"exe\":\"W/child\",\"by\":\"dlopen\",\"caller\":\"W/child\","
			     "\"name\":\"libdlr_t1.so.1\"}\n", p);
		w += sprintf(w, "{\"event\":\"loaded\",\"pid\":\"%s\",\"exe\":\"W/child\",\"by\":\"dlopen\",\"caller\":\"W/child\","
			     "\"name\":\"libdlr_t1.so.1\",\"soname\":\"libdlr_t1.so.1\",\"path\":\"W/libdlr_t1.so.1\"}\n", p);
#undef C
	}
	s = record_sorted(t);
	cr_assert_str_eq(s, record_sorted(want));
	free(s);
	free(t);
}

/* A child forked without exec has the parent's module state: it records its own dlopen() of an
 * object the parent loaded (and recorded) already, under its own pid. */
Test(record, forked_child_records_its_own_dlopen)
{
	long pids[16];
	size_t n;
	char *t;

	record_build();
	t = record_run("o:libdlr_b.so.1 k:libdlr_b.so.1 k:libdlr_c.so.1", pids, &n);
	cr_assert_eq(n, 3);
	cr_assert_str_eq(t,
		START("P1", "W/prog")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P2", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1")
		LOADED("P2", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P3", "W/prog", "dlopen", "W/prog", "libdlr_c.so.1")
		LOADED("P3", "W/prog", "dlopen", "W/prog", "libdlr_c.so.1", "libdlr_c.so.1", "W/libdlr_c.so.1"));
	free(t);
}

Test(record, command_status_and_streams_passed_through)
{
	struct cmd c;

	record_build();
	c = run("'%s' --record=trace -- ./prog e:3 > out", tool());
	cr_assert_eq(c.status, 3);
	cr_assert_str_eq(c.err, "to stderr\n");
	free(sh("grep -c '^pid [0-9]*$' out && test $(wc -l < out) = 1"));
	cmd_free(&c);
	/* A signal too: COMMAND runs as the tool's child, and the tool ends by the same signal. */
	c = run("'%s' --record=trace -- sh -c 'echo out; kill -TERM $$'", tool());
	cr_assert_eq(c.status, 128 + 15);
	cr_assert_str_eq(c.out, "out\n");
	cmd_free(&c);
	/* A TERM sent to the tool alone (a supervisor's) reaches COMMAND, which ends by it. */
	c = run("{ '%s' --record=trace -- sh -c 'trap \"echo got TERM; exit 7\" TERM; echo ready; while :; do sleep 0.1; done' "
		"> out & } ; t=$!; until grep -q ready out 2>/dev/null; do sleep 0.05; done; kill -TERM $t; wait $t; echo $?; cat out",
		tool());
	cr_assert_str_eq(c.out, "7\nready\ngot TERM\n", "%s", c.err);
	cmd_free(&c);
	/* The same TERM while the tool is between fork() and setting up its forwarding (a shim
	 * makes the parent sleep there, as a loaded machine may): it waits for the tool, still
	 * reaches COMMAND, and leaves no orphan.  (Until 2026-12-06 the tool died of it there and
	 * COMMAND ran on without it: seen as a flaky failure of the test above under load.) */
	put_file("slowfork.c", "#define _GNU_SOURCE\n#include <dlfcn.h>\n#include <unistd.h>\n"
		 "pid_t fork(void) { static pid_t (*real)(void); if (!real) real = (pid_t (*)(void))dlsym(RTLD_NEXT, \"fork\");\n"
		 "  pid_t p = real(); if (p > 0) usleep(300000); return p; }\n");
	free(sh("gcc -shared -fPIC -o slowfork.so slowfork.c -ldl"));
	/* (out2, not out: out holds the "ready" of the check above) */
	c = run("{ ASAN_OPTIONS=\"$ASAN_OPTIONS:verify_asan_link_order=0\" LD_PRELOAD=\"$PWD/slowfork.so\" '%s' --record=trace -- "
		"sh -c 'trap \"echo got TERM; exit 7\" TERM; echo $$ > pid; echo ready; while :; do sleep 0.1; done' > out2 & } ; "
		"t=$!; until grep -q ready out2 2>/dev/null; do sleep 0.01; done; kill -TERM $t; wait $t; echo $?; cat out2; "
		"if kill -0 $(cat pid) 2>/dev/null; then echo orphan; kill -9 $(cat pid); fi", tool());
	cr_assert_str_eq(c.out, "7\nready\ngot TERM\n", "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --record=trace -- ./no-such-program", tool());
	cr_assert_eq(c.status, 127);
	cr_assert_str_eq(c.err, "dlnote-inject: ./no-such-program: No such file or directory\n");
	cmd_free(&c);
	/* A module named in DLNOTE_AUDIT_MODULE that is not there: said so, not "set it". */
	c = run("DLNOTE_AUDIT_MODULE=/nonexistent.so '%s' --record=trace -- true", tool());
	cr_assert_eq(c.status, 125);
	cr_assert_str_eq(c.err, "dlnote-inject: /nonexistent.so: set in DLNOTE_AUDIT_MODULE, but cannot be read: No such file "
				"or directory\n");
	cmd_free(&c);
	c = run("'%s' --record=trace", tool());
	cr_assert_eq(c.status, 2);
	cr_assert(strstr(c.err, "--record needs a COMMAND"), "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --list --recorded=trace prog", tool());
	cr_assert_eq(c.status, 2);
	cr_assert(strstr(c.err, "dlnote-inject: --recorded is only for --check, --discover and the lists of symbols "
				"(--format=symbols, rpm, --rpm-generate)\n"),
		  "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --check --recorded=no-such-trace prog", tool());
	cr_assert_eq(c.status, 1);
	cr_assert_str_eq(c.err, "dlnote-inject: no-such-trace: No such file or directory\n");
	cmd_free(&c);
}
