/* SPDX-License-Identifier: MIT */
/* test_record.c - `--record` and `--discover/--check --recorded` (issue "Record what programs
 * really dlopen()"): real programs, libraries and plugins built here, run under the recording,
 * and every trace line compared with what the program did (it prints each dlopen() result and
 * its process id).  Paths are shown relative to the work directory as "W", process ids as the
 * order in which the programs printed them ("P1", "P2"...). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* o:NAME dlopen(); n:NAME dlopen(RTLD_NOLOAD); p:PATH dlopen() a plugin and run it;
 * t:A,B,... one thread per name, all at once; f:N start N copies of ./child at once with the
 * remaining arguments; e:N write to both streams and exit N; k:NAME fork a child (no exec) that
 * dlopen()s NAME. */
static const char prog_c[] =
	"#include <dlfcn.h>\n#include <pthread.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n"
	"#include <sys/wait.h>\n#include <unistd.h>\n"
	"static void *opener(void *name) { return dlopen(name, RTLD_NOW); }\n"
	"int main(int argc, char **argv) {\n"
	"  printf(\"pid %d\\n\", (int)getpid()); fflush(stdout);\n"
	"  for (int i = 1; i < argc; i++) {\n"
	"    char *v = argv[i] + 2; void *h;\n"
	"    switch (argv[i][0]) {\n"
	"    case 'o': h = dlopen(v, RTLD_NOW); printf(\"%s %s\\n\", v, h ? \"loaded\" : \"missing\"); break;\n"
	"    case 'n': h = dlopen(v, RTLD_NOW | RTLD_NOLOAD); printf(\"%s %s\\n\", v, h ? \"loaded\" : \"not loaded\"); break;\n"
	"    case 'p': { h = dlopen(v, RTLD_NOW); void (*run)(void) = h ? (void (*)(void))dlsym(h, \"plugin_run\") : 0;\n"
	"      if (run) run(); break; }\n"
	"    case 't': { pthread_t t[8]; int n = 0; for (char *s = strtok(v, \",\"); s && n < 8; s = strtok(0, \",\"))\n"
	"        pthread_create(&t[n++], 0, opener, s);\n"
	"      for (int k = 0; k < n; k++) pthread_join(t[k], 0); break; }\n"
	"    case 'f': fflush(stdout); argv[i] = \"./child\";\n"
	"      for (int k = atoi(v); k > 0; k--) if (fork() == 0) { execv(\"./child\", argv + i); _exit(127); }\n"
	"      while (wait(0) > 0) ; return 0;\n"
	"    case 'e': fputs(\"to stderr\\n\", stderr); return atoi(v);\n"
	"    case 'k': if (fork() == 0) { printf(\"pid %d\\n\", (int)getpid()); h = dlopen(v, RTLD_NOW);\n"
	"        printf(\"child %s %s\\n\", v, h ? \"loaded\" : \"missing\"); fflush(stdout); _exit(0); }\n"
	"      wait(0); break;\n"
	"    }\n"
	"    fflush(stdout);\n"
	"  }\n"
	"  return 0;\n"
	"}\n";

static const char plugin_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n"
	"void plugin_run(void) { void *h = dlopen(\"libdlr_b.so.1\", RTLD_NOW);\n"
	"  printf(\"plugin: libdlr_b.so.1 %s\\n\", h ? \"loaded\" : \"missing\");\n"
	"#ifdef ALSO\n  printf(\"plugin: %s %s\\n\", ALSO, dlopen(ALSO, RTLD_NOW) ? \"loaded\" : \"missing\");\n#endif\n}\n";

static char wd[4096];

/* prog and child (a copy), plugin.so and plugin_noplt.so, libdlr_{a,b,c,t1..t4}.so.1; libdlr_a
 * needs libdlr_c, prog needs libdlr_t4.
 * Everything finds its libraries through RUNPATH $ORIGIN, which dlopen() uses for its caller. */
static void build(void)
{
	need("gcc");
	cr_assert(realpath(workdir(), wd));
	put_file("prog.c", prog_c);
	put_file("plugin.c", plugin_c);
	free(sh("for l in b c t1 t2 t3 t4; do echo \"int dlr_$l(void) { return 1; }\" > $l.c; "
		"gcc -shared -fPIC -Wl,-soname,libdlr_$l.so.1 -o libdlr_$l.so.1 $l.c || exit 1; done && "
		"echo 'int dlr_c(void); int dlr_a(void) { return dlr_c(); }' > a.c && "
		"gcc -shared -fPIC -Wl,-soname,libdlr_a.so.1 -Wl,-rpath,'$ORIGIN' -o libdlr_a.so.1 a.c ./libdlr_c.so.1 && "
		"gcc -shared -fPIC -Wl,-rpath,'$ORIGIN' -o plugin.so plugin.c && "
		"gcc -shared -fPIC -fno-plt -Wl,-z,now -DALSO='\"libdlr_t3.so.1\"' -Wl,-rpath,'$ORIGIN' -o plugin_noplt.so plugin.c && "
		"gcc -pthread -Wl,-rpath,'$ORIGIN' -o prog prog.c -Wl,--no-as-needed ./libdlr_t4.so.1 && cp prog child"));
}

/* The pids a run printed ("pid N" lines), in order. */
static size_t pids_of(const char *out, long *pids, size_t max)
{
	size_t n = 0;

	for (const char *p = strstr(out, "pid "); p && n < max; p = strstr(p + 1, "pid "))
		if (p == out || p[-1] == '\n')
			pids[n++] = strtol(p + 4, NULL, 10);
	return n;
}

/* The trace with the work directory as "W" and each pid as "Pk" (k: its rank in pids), without
 * the callers' build-ids (a_trace_of_the_build_tree_lints_packaged_copies_by_build_id checks
 * them against readelf). */
static char *trace_norm(const char *trace, const long *pids, size_t npids)
{
	static const char bid[] = ",\"caller_build_id\":\"";
	size_t len, wl = strlen(wd);
	char *t = get_file(trace, &len), *out = malloc(len + 1), *o = out;

	for (const char *p = t; *p;) {
		if (strncmp(p, bid, sizeof bid - 1) == 0 && strchr(p + sizeof bid - 1, '"')) {
			p = strchr(p + sizeof bid - 1, '"') + 1;
		} else if (strncmp(p, wd, wl) == 0) {
			*o++ = 'W';
			p += wl;
		} else if (strncmp(p, "\"pid\":", 6) == 0) {
			char *end;
			long pid = strtol(p + 6, &end, 10);
			size_t k;
			for (k = 0; k < npids && pids[k] != pid; k++)
				;
			o += sprintf(o, "\"pid\":\"P%zu\"", k < npids ? k + 1 : 0);
			p = end;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	free(t);
	return out;
}

#define START(P, E) "{\"event\":\"start\",\"pid\":\"" P "\",\"exe\":\"" E "\"}\n"
#define ASKED(P, E, BY, C, N) "{\"event\":\"asked\",\"pid\":\"" P "\",\"exe\":\"" E "\",\"by\":\"" BY "\",\"caller\":\"" C \
	"\",\"name\":\"" N "\"}\n"
#define LOADED(P, E, BY, C, N, S, F) "{\"event\":\"loaded\",\"pid\":\"" P "\",\"exe\":\"" E "\",\"by\":\"" BY "\",\"caller\":\"" \
	C "\",\"name\":\"" N "\",\"soname\":\"" S "\",\"path\":\"" F "\"}\n"

/* The lines of text, sorted, joined again. */
static char *sorted(const char *text)
{
	char *copy = strdup(text), *v[64], *out = calloc(1, strlen(text) + 2);
	size_t n = 0;

	for (char *s = strtok(copy, "\n"); s && n < 64; s = strtok(NULL, "\n"))
		v[n++] = s;
	qsort(v, n, sizeof *v, line_cmp);
	for (size_t i = 0; i < n; i++)
		strcat(strcat(out, v[i]), "\n");
	free(copy);
	return out;
}

/* Output without the "pid N" lines, sorted (children print at the same time). */
static char *without_pids(const char *out)
{
	char *copy = strdup(out), *p, *s;

	while ((p = strstr(copy, "pid ")) && (p == copy || p[-1] == '\n')) {
		s = strchr(p, '\n');
		memmove(p, s + 1, strlen(s + 1) + 1);
	}
	s = sorted(copy);
	free(copy);
	return s;
}

/* Run prog under the recording; its output must be what it prints without it. */
static char *record(const char *args, long *pids, size_t *npids)
{
	struct cmd plain = run("./prog %s", args), rec = run("'%s' --record=trace -- ./prog %s", tool(), args);
	char *a = without_pids(plain.out), *b = without_pids(rec.out);

	cr_assert_eq(rec.status, plain.status);
	cr_assert_str_eq(rec.err, plain.err);
	cr_assert_str_eq(b, a);
	*npids = pids_of(rec.out, pids, 16);
	free(a);
	free(b);
	cmd_free(&plain);
	cmd_free(&rec);
	return trace_norm("trace", pids, *npids);
}

Test(record, each_dlopen_attributed_to_its_caller_with_needed_and_missing)
{
	long pids[16];
	size_t n;
	char *t;

	build();
	t = record("o:libdlr_a.so.1 p:./plugin.so o:libdlr_missing.so.2", pids, &n);
	cr_assert_eq(n, 1);
	cr_assert_str_eq(t,
		START("P1", "W/prog")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_a.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_a.so.1", "libdlr_a.so.1", "W/libdlr_a.so.1")
		ASKED("P1", "W/prog", "needed", "W/libdlr_a.so.1", "libdlr_c.so.1")
		LOADED("P1", "W/prog", "needed", "W/libdlr_a.so.1", "libdlr_c.so.1", "libdlr_c.so.1", "W/libdlr_c.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so", "", "W/plugin.so")
		ASKED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_missing.so.2"));
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

	build();
	t = record("o:libdlr_b.so.1 o:libdlr_b.so.1 n:libdlr_b.so.1 o:libdlr_b.so.1 o:libdlr_nope.so.1 o:libdlr_nope.so.1 "
		   "n:libdlr_c.so.1 p:./plugin.so o:libdlr_t4.so.1 p:./plugin_noplt.so", pids, &n);
	cr_assert_str_eq(t,
		START("P1", "W/prog")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_nope.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_c.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "./plugin.so", "", "W/plugin.so")
		ASKED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/plugin.so", "libdlr_b.so.1", "libdlr_b.so.1", "W/libdlr_b.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t4.so.1")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "libdlr_t4.so.1", "libdlr_t4.so.1", "W/libdlr_t4.so.1")
		ASKED("P1", "W/prog", "dlopen", "W/prog", "./plugin_noplt.so")
		LOADED("P1", "W/prog", "dlopen", "W/prog", "./plugin_noplt.so", "", "W/plugin_noplt.so")
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

	build();
	t = record("t:libdlr_t1.so.1,libdlr_t2.so.1,libdlr_t3.so.1,libdlr_t4.so.1", pids, &n);
	for (p = strstr(t, "\"asked\""); p; p = strstr(p + 1, "\"asked\"")) {
		char *name = strstr(p, "\"name\":"), *next = strchr(p, '\n') + 1;
		cr_assert(strncmp(next, "{\"event\":\"loaded\"", 17) == 0, "%s", t);
		cr_assert(strncmp(strstr(next, "\"name\":"), name, (size_t)(strchr(name, '}') - name)) == 0, "%s", t);
	}
	s = sorted(t);
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

	build();
	t = record("o:libdlr_a.so.1 f:3 o:libdlr_b.so.1 o:libdlr_t1.so.1", pids, &n);
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
	s = sorted(t);
	cr_assert_str_eq(s, sorted(want));
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

	build();
	t = record("o:libdlr_b.so.1 k:libdlr_b.so.1 k:libdlr_c.so.1", pids, &n);
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

	build();
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
	cr_assert(strstr(c.err, "dlnote-inject: --recorded is only for --check and --discover\n"), "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --check --recorded=no-such-trace prog", tool());
	cr_assert_eq(c.status, 1);
	cr_assert_str_eq(c.err, "dlnote-inject: no-such-trace: No such file or directory\n");
	cmd_free(&c);
}

static const char hi_c[] = "#include <stdio.h>\n#include <unistd.h>\n"
	"int main(void) { printf(\"pid %d\\nhi\\n\", (int)getpid()); return 0; }\n";

/* What the module cannot run in: one message, one trace line (with the process's pid), and
 * the program runs as it would without the tool. */
static void expect_unauditable(const char *file, const char *reason)
{
	char want[1024], *t, *out;
	long pid;
	struct cmd c = run("'%s' --record=trace -- ./%s", tool(), file);

	cr_assert_eq(c.status, 0, "%s", c.err);
	snprintf(want, sizeof want, "dlnote-inject: ./%s: not auditable: %s; what it dlopen()s is not recorded\n", file, reason);
	cr_assert_str_eq(c.err, want);
	cr_assert_eq(sscanf(c.out, "pid %ld\nhi\n", &pid), 1, "%s", c.out);
	cr_assert(strstr(c.out, "\nhi\n"), "%s", c.out);
	t = trace_norm("trace", &pid, 1);
	out = sh("rm trace");
	free(out);
	snprintf(want, sizeof want, "{\"event\":\"unauditable\",\"pid\":\"P1\",\"exe\":\"W/%s\",\"reason\":\"%s\"}\n", file, reason);
	cr_assert_str_eq(t, want);
	free(t);
	cmd_free(&c);
}

Test(record, static_musl_and_other_machine_programs_not_auditable)
{
	struct cmd c;
	char *t;

	build();
	need("musl-gcc");
	need("x86_64-linux-gnux32-gcc");
	put_file("hi.c", hi_c);
	free(sh("gcc -static -o static hi.c && musl-gcc -o musl hi.c && x86_64-linux-gnux32-gcc -o x32 hi.c"));
	expect_unauditable("static", "statically linked program: no dynamic loader runs in it");
	expect_unauditable("musl", "musl program: its loader /lib/ld-musl-x86_64.so.1 has no rtld-audit interface");
	/* x32 is built for no module (this kernel may not run it either: what execvp() then does is
	 * its business): the message comes first, and LD_AUDIT is not set, so no loader complains
	 * about the module. */
	c = run("'%s' --record=trace -- ./x32", tool());
	cr_assert(strncmp(c.err, "dlnote-inject: ./x32: not auditable: ELFCLASS32 x86-64 program: no audit module of "
			  "that class and machine; what it dlopen()s is not recorded\n", 141) == 0, "%s", c.err);
	cmd_free(&c);
	t = get_file("trace", NULL);
	cr_assert(strstr(t, "\"reason\":\"ELFCLASS32 x86-64 program: no audit module of that class and machine\"}\n"), "%s", t);
	free(t);
	/* A script is judged by its interpreter. */
	free(sh("printf '#!%s/static\\n' > script && chmod +x script", wd));
	c = run("'%s' --record=trace -- ./script", tool());
	cr_assert(strstr(c.err, "not auditable: statically linked program"), "%s", c.err);
	cmd_free(&c);
}

/* A program of another class or machine gets the module built for it through $LIB in
 * LD_AUDIT, which its own loader expands (Debian's: lib/TRIPLET).  This kernel runs none of
 * them: qemu-user does (itself recorded with the x86_64 module), with the cross libc as its
 * sysroot (-L), as Debian cross builds run test suites; without a sysroot, through the host's
 * loader of the program's PT_INTERP path. */
static void record_under_qemu(const char *cc, const char *qemu, const char *sysroot, const char *extra,
			      const char *machine, int wrapper)
{
	char *t, *guest, *p;
	long pid;
	struct cmd c;

	build();
	need(cc);
	need(qemu);
	if (sysroot)
		free(sh("test -d %s", sysroot));
	put_file("dx.c", "#include <dlfcn.h>\n#include <stdio.h>\n#include <unistd.h>\n"
		 "int main(void) { printf(\"pid %d\\n\", (int)getpid()); void *h = dlopen(\"libm.so.6\", RTLD_NOW);\n"
		 "  void *n = dlopen(\"libdlr_none.so.1\", RTLD_NOW); void *c = dlopen(\"libc.so.6\", RTLD_NOW);\n"
		 "  printf(\"%d %d %d\\n\", !!h, !!n, !!c); return 0; }\n");
	free(sh("%s -o dx dx.c", cc));
	c = run("'%s' --record=trace -- %s %s %s%s ./dx", tool(), qemu, extra, sysroot ? "-L " : "", sysroot ? sysroot : "");
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_assert_str_eq(c.err, "");
	cr_assert_eq(sscanf(c.out, "pid %ld\n", &pid), 1, "%s", c.out);
	cr_assert(strstr(c.out, "\n1 0 1\n"), "%s", c.out);
	t = trace_norm("trace", &pid, 1);
	/* The guest's lines, then the path its loader found libm.so.6 at (an object of its machine). */
	guest = strstr(t, "{\"event\":\"start\",\"pid\":\"P1\",\"exe\":\"W/dx\"}\n");
	cr_assert(guest, "%s", t);
	p = strstr(guest, ",\"path\":\"");
	cr_assert(p, "%s", t);
	*p = '\0';
	cr_assert_str_eq(guest, START("P1", "W/dx")
		ASKED("P1", "W/dx", "dlopen", "W/dx", "libm.so.6")
		"{\"event\":\"loaded\",\"pid\":\"P1\",\"exe\":\"W/dx\",\"by\":\"dlopen\",\"caller\":\"W/dx\","
		"\"name\":\"libm.so.6\",\"soname\":\"libm.so.6\"");
	p += 9;
	*strchr(p, '"') = '\0';
	/* A path of the guest: qemu looks it up under the sysroot first. */
	free(sh("f='%s%s'; [ -e \"$f\" ] || f='%s'; readelf -h \"$f\" | grep -q 'Machine: *%s$'", sysroot ? sysroot : "", p, p,
		machine));
	p += strlen(p) + 1;
	static const char none_line[] = "}\n" ASKED("P1", "W/dx", "dlopen", "W/dx", "libdlr_none.so.1");
	cr_assert(strncmp(p, none_line, sizeof none_line - 1) == 0, "%s", p);
	p += sizeof none_line - 1;
	/* libc.so.6, loaded at start-up as DT_NEEDED: the loader answers that dlopen() without a
	 * search; only the module's PLT wrapper of dlopen() sees it (not on every architecture). */
	if (wrapper) {
		static const char libc_lines[] = ASKED("P1", "W/dx", "dlopen", "W/dx", "libc.so.6")
			"{\"event\":\"loaded\",\"pid\":\"P1\",\"exe\":\"W/dx\",\"by\":\"dlopen\",\"caller\":\"W/dx\","
			"\"name\":\"libc.so.6\",\"soname\":\"libc.so.6\",\"path\":\"";
		cr_assert(strncmp(p, libc_lines, sizeof libc_lines - 1) == 0, "%s", p);
	} else {
		cr_assert_str_eq(p, "");
	}
	free(t);
	cmd_free(&c);
}

#define RECORD_UNDER_QEMU(name, triplet, qemu, extra, machine, wrapper)                                       \
	Test(record, name##_program_recorded_under_qemu)                                                      \
	{                                                                                                     \
		record_under_qemu(triplet "-gcc", qemu, "/usr/" triplet, extra, machine, wrapper);            \
	}
RECORD_UNDER_QEMU(i386, "i686-linux-gnu", "qemu-i386", "", "Intel 80386", 1)
RECORD_UNDER_QEMU(aarch64, "aarch64-linux-gnu", "qemu-aarch64", "", "AArch64", 1)
RECORD_UNDER_QEMU(armhf, "arm-linux-gnueabihf", "qemu-arm", "", "ARM", 1)
RECORD_UNDER_QEMU(armel, "arm-linux-gnueabi", "qemu-arm", "", "ARM", 1)
RECORD_UNDER_QEMU(ppc64el, "powerpc64le-linux-gnu", "qemu-ppc64le", "", "PowerPC64", 0)
RECORD_UNDER_QEMU(ppc64, "powerpc64-linux-gnu", "qemu-ppc64", "", "PowerPC64", 0)
RECORD_UNDER_QEMU(s390x, "s390x-linux-gnu", "qemu-s390x", "", "IBM S/390", 0)
RECORD_UNDER_QEMU(riscv64, "riscv64-linux-gnu", "qemu-riscv64", "", "RISC-V", 1)
/* Debian's mips64el cross sysroot has its loader only in lib64/, where a real system has it in
 * lib/mips64el-linux-gnuabi64/ too: the module's libc, loaded in the audit namespace, asks for
 * ld.so.1 by name and the loader does not look in lib64/ unless told. */
RECORD_UNDER_QEMU(mips64el, "mips64el-linux-gnuabi64", "qemu-mips64el", "-E LD_LIBRARY_PATH=/lib64", "MIPS R3000", 0)
RECORD_UNDER_QEMU(mips, "mips-linux-gnu", "qemu-mips", "", "MIPS R3000", 0)

/* Without -L, qemu-i386 runs the program through the host's /lib/ld-linux.so.2, libc6-i386's,
 * whose $LIB is lib32: the i386 module answers there too. */
Test(record, i386_program_recorded_through_libc6_i386)
{
	need("/lib32/ld-linux.so.2");
	record_under_qemu("i686-linux-gnu-gcc", "qemu-i386", NULL, "", "Intel 80386", 1);
}

/* A child that drops to another user (setpriv, su as root) cannot open a trace the recording
 * user created 0644: it writes through the descriptor the tool left open for the recording
 * (DLNOTE_RECORD_FD).  The trace stays the recording user's, mode 0644.  Without the
 * descriptor the same run loses that child's lines, which is what the test guards. */
Test(record, a_child_that_changes_user_is_recorded)
{
	const char *root = geteuid() == 0 ? "" : "sudo -n ";
	char want[2 * 4096 + 256], *t, *out;
	struct cmd c;

	build();
	need("setpriv");
	need("su");
	if (*root)
		need("sudo");
	/* nobody must be able to read the module too: the build tree may sit in a private
	 * directory (the tarball test unpacks it under a 0700 one).  A copy here, named in
	 * DLNOTE_AUDIT_MODULE (this test is about the descriptor, not about finding modules). */
	free(sh("chmod 755 . && for f in \"$(dirname '%s')\"/audit/*/*/dlnote-audit.so \"$(dirname '%s')\"/audit/*/dlnote-audit.so; do "
		"[ -f \"$f\" ] && readelf -h \"$f\" | grep -q 'Machine: *Advanced Micro Devices X86-64' && cp \"$f\" mod.so; done; "
		"chmod 644 mod.so", tool(), tool()));
	c = run("%senv DLNOTE_AUDIT_MODULE=mod.so '%s' --record=trace -- setpriv --reuid=nobody --regid=nogroup --clear-groups ./prog o:libdlr_b.so.1",
		root, tool());
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_assert(strstr(c.out, "libdlr_b.so.1 loaded\n"), "%s", c.out);
	cmd_free(&c);
	t = get_file("trace", NULL);
	snprintf(want, sizeof want, "\"exe\":\"%s/prog\",\"by\":\"dlopen\",\"caller\":\"%s/prog\",\"name\":\"libdlr_b.so.1\","
		 "\"soname\":\"libdlr_b.so.1\"", wd, wd);
	cr_assert(strstr(t, want), "%s", t);
	free(t);
	out = sh("stat -c '%%a %%u' trace; %senv DLNOTE_AUDIT_MODULE=mod.so '%s' --record=trace.su -- su -s /bin/sh nobody -c './prog o:libdlr_b.so.1' "
		 ">/dev/null && grep -c '\"name\":\"libdlr_b.so.1\",\"soname\"' trace.su", root, tool());
	cr_assert_str_eq(out, "644 0\n1");
	free(out);
	/* The guard: the same child, the descriptor's variable removed. */
	out = sh("%senv DLNOTE_AUDIT_MODULE=mod.so '%s' --record=trace.nofd -- env -u DLNOTE_RECORD_FD setpriv --reuid=nobody --regid=nogroup "
		 "--clear-groups ./prog o:libdlr_b.so.1 >/dev/null && grep -c '\"start\"' trace.nofd; "
		 "grep -c 'libdlr_b' trace.nofd || true", root, tool());
	cr_assert_str_eq(out, "2\n0");
	free(out);
}

/* A set-user-ID program started by a recorded process runs in secure-execution mode: it and
 * everything it starts go unrecorded.  The module's exec watchers write an "unauditable" line
 * for each such program, and the tool says at the end, in one line with a count. */
Test(record, set_user_id_children_counted_at_the_end)
{
	const char *root = geteuid() == 0 ? "" : "sudo -n ";
	char want[2 * 4096 + 256], *t, *dash;
	struct cmd c;

	build();
	put_file("hi.c", hi_c);
	free(sh("gcc -o suid hi.c && %schown nobody suid && %schmod u+s suid", root, root));
	c = run("'%s' --record=trace -- sh -c './suid; ./suid >/dev/null; exit 3'", tool());
	cr_assert_eq(c.status, 3);
	cr_assert(strstr(c.out, "\nhi\n"), "%s", c.out);
	snprintf(want, sizeof want, "dlnote-inject: trace: 2 processes could not be recorded (first: %s/suid: set-user-ID "
		 "or set-group-ID program: the loader ignores LD_AUDIT for it; see the trace's \"unauditable\" lines)\n", wd);
	cr_assert_str_eq(c.err, want);
	cmd_free(&c);
	dash = sh("realpath \"$(command -v sh)\"");
	t = get_file("trace", NULL);
	snprintf(want, sizeof want, "\"exe\":\"%s/suid\",\"reason\":\"set-user-ID or set-group-ID program: the loader "
		 "ignores LD_AUDIT for it\",\"caller\":\"%s\"}\n", wd, dash);
	cr_assert(strstr(t, want) && strstr(strstr(t, want) + 1, want), "%s", t);
	free(t);
	free(dash);
	/* Through posix_spawnp() (Python's subprocess on Debian 12), and checked as the lint sees it. */
	c = run("'%s' --record=trace2 -- /usr/bin/python3 -c 'import subprocess; subprocess.run([\"./suid\"])' >/dev/null", tool());
	cr_assert(strstr(c.err, ": 1 process could not be recorded (first: "), "%s", c.err);
	cmd_free(&c);
}

/* A set-user-ID program the loader runs in secure-execution mode (it changes the effective
 * user: root running one owned by nobody) ignores LD_AUDIT.  Set-user-ID to oneself changes
 * nothing, and is recorded. */
Test(record, setuid_program)
{
	struct cmd c;
	char *t;

	build();
	if (geteuid() == 0) {
		/* Secure-execution mode ignores RUNPATH $ORIGIN too: a program without libraries of ours. */
		put_file("hi.c", hi_c);
		free(sh("gcc -o suid hi.c && chown nobody suid && chmod u+s suid"));
		c = run("'%s' --record=trace -- ./suid", tool());
		cr_assert_str_eq(c.err, "dlnote-inject: ./suid: not auditable: set-user-ID or set-group-ID program: "
				 "the loader ignores LD_AUDIT for it; what it dlopen()s is not recorded\n");
		t = get_file("trace", NULL);
		cr_assert(strstr(t, "\"event\":\"unauditable\"") && !strstr(t, "\"start\""), "%s", t);
	} else {
		free(sh("cp prog suid && chmod u+s suid"));
		c = run("'%s' --record=trace -- ./suid o:libdlr_b.so.1", tool());
		cr_assert_str_eq(c.err, "");
		t = get_file("trace", NULL);
		cr_assert(strstr(t, "\"name\":\"libdlr_b.so.1\",\"soname\"") && !strstr(t, "unauditable"), "%s", t);
	}
	cr_assert_eq(c.status, 0);
	free(t);
	cmd_free(&c);
}

/* The maintainer's loop: record, the lint fails and names what is undeclared, --discover
 * drafts it (libdlr_t2.so.2 tried first and missing, then libdlr_t2.so.1: alternatives), the
 * draft is completed and injected with the tool, the lint passes. */
Test(record, lint_fails_then_passes_after_the_note_is_added)
{
	struct cmd c;
	char *out;

	build();
	free(sh("'%s' --record=trace -- ./prog o:libdlr_t2.so.2 o:libdlr_t2.so.1 o:libdlr_a.so.1 o:libdlr_t4.so.1 p:./plugin.so "
		">/dev/null && grep -q '\"caller\":\"%s/prog\",\"name\":\"libdlr_t4.so.1\",\"soname' trace",
		tool(), wd));
	/* libdlr_t4.so.1, which prog links (DT_NEEDED), is recorded but adds no dependency. */
	c = run("'%s' --check --recorded=trace prog plugin.so", tool());
	cr_assert_eq(c.status, 1);
	/* No "ok" before a failure; alternatives tried in a row are one dependency, as --discover
	 * drafts them (below): the counts agree. */
	cr_assert_str_eq(c.out,
		"prog: undeclared: libdlr_t2.so.2 or libdlr_t2.so.1 (tried in that order): dlopen()ed during the recording\n"
		"prog: undeclared: libdlr_a.so.1: dlopen()ed during the recording\n"
		"plugin.so: undeclared: libdlr_b.so.1: dlopen()ed during the recording\n");
	cr_assert_str_eq(c.err,
		"dlnote-inject: prog: 2 undeclared dlopen() dependencies in trace\n"
		"dlnote-inject: plugin.so: 1 undeclared dlopen() dependency in trace\n");
	cmd_free(&c);

	c = run("'%s' --discover --recorded=trace prog", tool());
	cr_expect_str_eq(c.err, "dlnote-inject: trace: 2 undeclared dlopen() dependencies recorded; describe each feature\n");
	cmd_free(&c);
	out = sh("'%s' --discover --recorded=trace -q prog", tool());
	cr_assert_str_eq(out, "[\n"
		"  {\"soname\":[\"libdlr_a.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: dlopen()ed by prog during "
		"dlnote-inject --record; describe the feature\",\"priority\":\"recommended\"},\n"
		"  {\"soname\":[\"libdlr_t2.so.2\",\"libdlr_t2.so.1\"],\"feature\":\"FIXME\",\"description\":\"FIXME: dlopen()ed by "
		"prog during dlnote-inject --record; describe the feature\",\"priority\":\"recommended\"}\n"
		"]");
	free(out);
	free(sh("'%s' --discover --recorded=trace -q prog | sed -e 's/FIXME: [^\"]*/Loaded at run time/' "
		"-e '0,/FIXME/s/FIXME/a/' -e 's/FIXME/b/' > prog.json && "
		"'%s' -m prog.json prog && '%s' --feature b --soname libdlr_b.so.1 plugin.so", tool(), tool(), tool()));
	/* The edited program still runs, and the lint passes: no more recording needed. */
	free(sh("./prog o:libdlr_b.so.1 | grep -q 'libdlr_b.so.1 loaded'"));
	out = sh("'%s' --check --recorded=trace prog plugin.so", tool());
	cr_assert_str_eq(out, "prog: ok (2 dlopen entries)\nplugin.so: ok (1 dlopen entry)");
	free(out);
	c = run("'%s' --discover --recorded=trace prog plugin.so", tool());
	cr_expect_str_eq(c.out, "[]\n");
	cr_expect_str_eq(c.err, "dlnote-inject: trace: no undeclared dlopen() dependency recorded for these files: nothing to "
				"draft\n");
	cmd_free(&c);
	/* A declared entry never loaded is information, not a failure. */
	free(sh("'%s' --merge --feature never --soname libdlr_never.so.1 prog", tool()));
	out = sh("'%s' --check --recorded=trace prog", tool());
	cr_assert_str_eq(out, "prog: not loaded: libdlr_never.so.1: declared, not dlopen()ed during the recording\n"
		"prog: ok (3 dlopen entries)");
	free(out);
}

/* The installed tool finds the installed modules: $(LIBDIR)/dlnote relative to $(BINDIR). */
Test(record, installed_tool_finds_its_module)
{
	char *out;

	build();
	free(sh("make -s -C '%s' install DESTDIR='%s/stage' PREFIX=/usr >/dev/null", srcdir(), wd));
	out = sh("cd stage/usr/lib/dlnote && find . -name dlnote-audit.so -printf '%%P %%y\\n' | LC_ALL=C sort && cd - >/dev/null && "
		 "env -u DLNOTE_AUDIT_MODULE "
		 "stage/usr/bin/dlnote-inject --record=trace -- ./prog o:libdlr_b.so.1 >/dev/null && "
		 "grep -c '\"event\":\"loaded\"' trace");
	/* One module per $LIB (tests/setup.sh installs every cross compiler the Makefile builds for). */
	cr_assert_str_eq(out, "lib/aarch64-linux-gnu/dlnote-audit.so f\nlib/arm-linux-gnueabi/dlnote-audit.so f\n"
		"lib/arm-linux-gnueabihf/dlnote-audit.so f\nlib/i386-linux-gnu/dlnote-audit.so f\n"
		"lib/mips-linux-gnu/dlnote-audit.so f\nlib/mips64el-linux-gnuabi64/dlnote-audit.so f\n"
		"lib/powerpc64-linux-gnu/dlnote-audit.so f\nlib/powerpc64le-linux-gnu/dlnote-audit.so f\n"
		"lib/riscv64-linux-gnu/dlnote-audit.so f\nlib/s390x-linux-gnu/dlnote-audit.so f\n"
		"lib/x86_64-linux-gnu/dlnote-audit.so f\nlib32/dlnote-audit.so l\n1");
	free(out);
}

/* A library with a versioned soname and an unversioned development symlink (libdlr_dev.so ->
 * libdlr_dev.so.1), dlopen()ed by the symlink's name, as a program does on a build machine with
 * the -dev package: the draft declares the soname that was loaded, the name asked for follows as
 * an alternative and the description says so; the lint names the soname; a declared development
 * name is warned about. */
Test(record, a_development_symlink_drafts_the_loaded_soname)
{
	struct cmd c;
	char *out;

	build();
	free(sh("echo 'int dlr_dev(void) { return 1; }' > dev.c && "
		"gcc -shared -fPIC -Wl,-soname,libdlr_dev.so.1 -o libdlr_dev.so.1 dev.c && ln -s libdlr_dev.so.1 libdlr_dev.so && "
		"'%s' --record=trace -- ./prog o:libdlr_dev.so | grep -q 'libdlr_dev.so loaded'", tool()));
	out = sh("'%s' --discover --recorded=trace -q prog", tool());
	cr_expect_str_eq(out, "[\n"
		"  {\"soname\":[\"libdlr_dev.so.1\",\"libdlr_dev.so\"],\"feature\":\"FIXME\",\"description\":\"FIXME: dlopen()ed by "
		"prog during dlnote-inject --record, asked for as libdlr_dev.so (a development name: keep it as an alternative, "
		"or drop it); describe the feature\",\"priority\":\"recommended\"}\n"
		"]");
	free(out);
	c = run("'%s' --check --recorded=trace prog", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.out, "prog: undeclared: libdlr_dev.so.1 (asked for as libdlr_dev.so, a development name): "
				"dlopen()ed during the recording\n");
	cmd_free(&c);
	/* Declared by its soname: the lint passes.  Declared by the symlink's name: a warning. */
	free(sh("cp prog prog2 && '%s' --feature dev --soname libdlr_dev.so.1 prog && "
		"'%s' --feature dev --soname libdlr_dev.so prog2", tool(), tool()));
	out = sh("'%s' --check --recorded=trace prog", tool());
	cr_expect_str_eq(out, "prog: ok (1 dlopen entry)");
	free(out);
	out = sh("'%s' --check prog2", tool());
	cr_expect_str_eq(out, "prog2: warning: soname libdlr_dev.so has no version after .so: it names a development "
			      "symlink, which packages ship for linking, not for running; declare the versioned soname\n"
			      "prog2: ok (1 dlopen entry)");
	free(out);
}

/* One object under two names: dlopen("libdlr_t1.so.1") then dlopen() of a symlink to it, which
 * the loader answers with the object already loaded (no object mapped, no audit callback of its
 * own).  The second is "loaded" too, with the object's soname: declared by that soname, the lint
 * passes; before, it said "asked for with dlopen(), not found". */
Test(record, one_object_under_two_names_is_loaded_under_both)
{
	struct cmd c;
	char *out;

	build();
	free(sh("ln -s libdlr_t1.so.1 libdlr_alias.so.7 && "
		"'%s' --record=trace -- ./prog o:libdlr_t1.so.1 o:libdlr_alias.so.7 > out && "
		"grep -q 'libdlr_alias.so.7 loaded' out", tool()));
	out = sh("grep -c '\"event\":\"loaded\".*\"name\":\"libdlr_alias.so.7\",\"soname\":\"libdlr_t1.so.1\"' trace");
	cr_expect_str_eq(out, "1", "no loaded line for the alias:\n%s", get_file("trace", NULL));
	free(out);
	c = run("'%s' --check --recorded=trace prog", tool());
	cr_expect_str_eq(c.out, "prog: undeclared: libdlr_t1.so.1: dlopen()ed during the recording\n");
	cmd_free(&c);
	free(sh("'%s' --feature t1 --soname libdlr_t1.so.1 prog", tool()));
	out = sh("'%s' --check --recorded=trace prog", tool());
	cr_expect_str_eq(out, "prog: ok (1 dlopen entry)");
	free(out);
	/* a name that is no file stays "not found" */
	free(sh("'%s' --record=trace2 -- ./prog o:libdlr_t1.so.1 o:libdlr_nosuch.so.1 > out2", tool()));
	c = run("'%s' --check --recorded=trace2 prog", tool());
	cr_expect_str_eq(c.out, "prog: undeclared: libdlr_nosuch.so.1: asked for with dlopen(), not found, during the "
				"recording\n");
	cmd_free(&c);
}

/* A trace of the build tree lints the packaged files: the module writes each caller's GNU
 * build-id, and a FILE matches the trace by build-id first, then by path.  The program is
 * recorded where it was built, then checked as a copy at another path and as a stripped copy
 * (strip keeps the build-id note). */
Test(record, a_trace_of_the_build_tree_lints_packaged_copies_by_build_id)
{
	struct cmd c;
	char *out, *id;

	build();
	free(sh("'%s' --record=trace -- ./prog o:libdlr_a.so.1 >/dev/null && mkdir -p pkg/usr/bin && cp prog pkg/usr/bin/prog && "
		"strip -o pkg/usr/bin/prog-stripped prog", tool()));
	id = sh("readelf -nW prog | sed -n 's/.*Build ID: //p'");
	cr_assert(strlen(id) >= 16, "no build-id in prog: %s", id);
	out = sh("grep -c '\"name\":\"libdlr_a.so.1\",\"caller_build_id\":\"%s\"' trace", id);
	cr_expect_str_eq(out, "1");
	free(out);
	for (const char *const *f = (const char *const[]){ "pkg/usr/bin/prog", "pkg/usr/bin/prog-stripped", NULL }; *f; f++) {
		c = run("'%s' --check --recorded=trace %s", tool(), *f);
		cr_expect_eq(c.status, 1, "%s", *f);
		cr_expect(strstr(c.out, ": undeclared: libdlr_a.so.1: dlopen()ed during the recording"), "%s: %s", *f, c.out);
		cmd_free(&c);
		out = sh("'%s' --discover --recorded=trace -q %s | grep -c libdlr_a.so.1", tool(), *f);
		cr_expect_str_eq(out, "1", "%s: not drafted", *f);
		free(out);
	}
	/* a file of another build-id at a path the trace does not name: nothing recorded for it */
	c = run("'%s' --check --recorded=trace libdlr_b.so.1", tool());
	cr_expect_eq(c.status, 0, "%s", c.out);
	cmd_free(&c);
	free(id);
}
