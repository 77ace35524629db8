/* SPDX-License-Identifier: MIT */
/* record_fixture.c - what the `--record` tests share (record_fixture.h): the programs and
 * libraries they run, and the trace's normalization. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "record_fixture.h"

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

char record_wd[4096];

/* prog and child (a copy), plugin.so and plugin_noplt.so, libdlr_{a,b,c,t1..t4}.so.1; libdlr_a
 * needs libdlr_c, prog needs libdlr_t4.
 * Everything finds its libraries through RUNPATH $ORIGIN, which dlopen() uses for its caller. */
void record_build(void)
{
	need("gcc");
	cr_assert(realpath(workdir(), record_wd));
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
 * them against readelf) and the tool's own "record" lines (checked by
 * each_dlopen_attributed_to_its_caller_with_needed_and_missing). */
char *record_trace_norm(const char *trace, const long *pids, size_t npids)
{
	static const char bid[] = ",\"caller_build_id\":\"", rec[] = "{\"event\":\"record\",";
	size_t len, wl = strlen(record_wd);
	char *t = get_file(trace, &len), *out = malloc(len + 1), *o = out;

	for (const char *p = t; *p;) {
		if ((p == t || p[-1] == '\n') && strncmp(p, rec, sizeof rec - 1) == 0 && strchr(p, '\n')) {
			p = strchr(p, '\n') + 1;
		} else if (strncmp(p, bid, sizeof bid - 1) == 0 && strchr(p + sizeof bid - 1, '"')) {
			p = strchr(p + sizeof bid - 1, '"') + 1;
		} else if (strncmp(p, record_wd, wl) == 0) {
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

/* The lines of text, sorted, joined again. */
char *record_sorted(const char *text)
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
	s = record_sorted(copy);
	free(copy);
	return s;
}

/* Run prog under the recording; its output must be what it prints without it. */
char *record_run(const char *args, long *pids, size_t *npids)
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
	return record_trace_norm("trace", pids, *npids);
}

const char record_hi_c[] = "#include <stdio.h>\n#include <unistd.h>\n"
	"int main(void) { printf(\"pid %d\\nhi\\n\", (int)getpid()); return 0; }\n";
