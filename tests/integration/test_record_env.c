/* SPDX-License-Identifier: MIT */
/* test_record_env.c - `--record` where the audit module cannot run or runs elsewhere:
 * static, musl and other-machine programs, programs of other architectures under qemu-user,
 * children that change user, set-user-ID programs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "record_fixture.h"

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
	t = record_trace_norm("trace", &pid, 1);
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

	record_build();
	need("musl-gcc");
	need("x86_64-linux-gnux32-gcc");
	put_file("hi.c", record_hi_c);
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
	free(sh("printf '#!%s/static\\n' > script && chmod +x script", record_wd));
	c = run("'%s' --record=trace -- ./script", tool());
	cr_assert(strstr(c.err, "not auditable: statically linked program"), "%s", c.err);
	cmd_free(&c);
}

/* The lines of libdxc.so's constructor's dlopen("libdl.so.2") out of the normalized trace t:
 * its caller is the library (with a wrapper), else the library or the loader marked hidden. */
static void take_constructor_lines(char *t, int wrapper)
{
	char *line = t, *end = NULL, *next;

	for (; *line; line = end + 1) {
		end = strchr(line, '\n');
		cr_assert(end, "%s", t);
		*end = '\0';
		if (strstr(line, "\"event\":\"asked\"") && strstr(line, "\"name\":\"libdl.so.2\""))
			break;
		*end = '\n';
	}
	cr_assert(*line, "no dlopen() of libdl.so.2 in the trace:\n%s", t);
	if (wrapper)
		cr_assert(strstr(line, "\"caller\":\"W/libdxc.so\""), "the constructor's dlopen() is not the library's: %s", line);
	else
		cr_assert(strstr(line, "\"caller\":\"W/libdxc.so\"") || strstr(line, "\"hidden\":\"loader\""), "%s", line);
	/* that line and its "loaded" line go */
	next = end + 1;
	static const char loaded[] = "{\"event\":\"loaded\",";

	if (strncmp(next, loaded, sizeof loaded - 1) == 0 && strchr(next, '\n') &&
	    strstr(next, "\"name\":\"libdl.so.2\"") < strchr(next, '\n'))
		next = strchr(next, '\n') + 1;
	memmove(line, next, strlen(next) + 1);
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

	/* The tool's part, starting the program and reading its trace, is the native tests'; the
	 * audit modules have no sanitizer. */
	if (sanitized_pass_leaves("the tool's part is what the native tests run"))
		return;
	record_build();
	need(cc);
	need(qemu);
	if (sysroot)
		free(sh("test -d %s", sysroot));
	put_file("dx.c", "#include <dlfcn.h>\n#include <stdio.h>\n#include <unistd.h>\n"
		 "int main(void) { printf(\"pid %d\\n\", (int)getpid()); void *h = dlopen(\"libm.so.6\", RTLD_NOW);\n"
		 "  void *n = dlopen(\"libdlr_none.so.1\", RTLD_NOW); void *c = dlopen(\"libc.so.6\", RTLD_NOW);\n"
		 "  printf(\"%d %d %d\\n\", !!h, !!n, !!c); return 0; }\n");
	/* A library whose constructor ends with dlopen(): -O2 makes it a tail call, which returns
	 * into the loader; the module's per-object stub names the library (where there is a
	 * wrapper; elsewhere the loader, marked hidden, or the library when no tail call was made). */
	put_file("dxc.c", "#include <dlfcn.h>\n__attribute__((constructor)) static void dxc(void) { dlopen(\"libdl.so.2\", RTLD_NOW); }\n"
		 "int dxc_here(void) { return 1; }\n");
	free(sh("%s -O2 -fPIC -shared -o libdxc.so dxc.c && %s -o dx dx.c -Wl,--no-as-needed ./libdxc.so -Wl,-rpath,'$ORIGIN'", cc, cc));
	c = run("'%s' --record=trace -- %s %s %s%s ./dx", tool(), qemu, extra, sysroot ? "-L " : "", sysroot ? sysroot : "");
	cr_assert_eq(c.status, 0, "%s", c.err);
	cr_assert_str_eq(c.err, "");
	cr_assert_eq(sscanf(c.out, "pid %ld\n", &pid), 1, "%s", c.out);
	cr_assert(strstr(c.out, "\n1 0 1\n"), "%s", c.out);
	t = record_trace_norm("trace", &pid, 1);
	take_constructor_lines(t, wrapper);
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

	record_build();
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
		 "\"soname\":\"libdlr_b.so.1\"", record_wd, record_wd);
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

	record_build();
	put_file("hi.c", record_hi_c);
	free(sh("gcc -o suid hi.c && %schown nobody suid && %schmod u+s suid", root, root));
	c = run("'%s' --record=trace -- sh -c './suid; ./suid >/dev/null; exit 3'", tool());
	cr_assert_eq(c.status, 3);
	cr_assert(strstr(c.out, "\nhi\n"), "%s", c.out);
	snprintf(want, sizeof want, "dlnote-inject: trace: 2 processes could not be recorded (first: %s/suid: set-user-ID "
		 "or set-group-ID program: the loader ignores LD_AUDIT for it; see the trace's \"unauditable\" lines)\n", record_wd);
	cr_assert_str_eq(c.err, want);
	cmd_free(&c);
	dash = sh("realpath \"$(command -v sh)\"");
	t = get_file("trace", NULL);
	snprintf(want, sizeof want, "\"exe\":\"%s/suid\",\"reason\":\"set-user-ID or set-group-ID program: the loader "
		 "ignores LD_AUDIT for it\",\"caller\":\"%s\"}\n", record_wd, dash);
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

	record_build();
	if (geteuid() == 0) {
		/* Secure-execution mode ignores RUNPATH $ORIGIN too: a program without libraries of ours. */
		put_file("hi.c", record_hi_c);
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

