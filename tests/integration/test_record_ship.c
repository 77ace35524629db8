/* SPDX-License-Identifier: MIT */
/* test_record_ship.c - the recorded lint on the files a package ships (issue 37): the tests run
 * in the build tree, the distribution rewrites the installed copies (find-debuginfo gives each
 * a new GNU build-id, as Fedora builds: unique build-ids; strip, dwz, objcopy, patchelf), and
 * the lint must still see what each file dlopen()ed, never take one file for another, say what
 * it could not match, fail when it matched nothing, and blame the library whose constructor,
 * destructor or DT_INIT function called dlopen(). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* libship.so.1: ship_load(name) dlopen()s a name; its constructor dlopen()s liblzma.so.5, its
 * DT_INIT function libbz2.so.1.0 and its destructor libzstd.so.1, each as the function's last
 * call: gcc -O2 makes them tail calls (jmp dlopen@plt), which return into the loader.  app calls
 * ship_load() for each argument. */
static const char ship_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n"
	"#ifndef SALT\n#define SALT 1\n#endif\n"
	"int ship_load(const char *n) { void *h = dlopen(n, RTLD_NOW); printf(\"%s %s %d\\n\", n, h ? \"loaded\" : \"missing\", SALT);"
	" return !h; }\n"
	"void ship_init(void) { dlopen(\"libbz2.so.1.0\", RTLD_NOW); }\n"
	"__attribute__((constructor)) static void ship_ctor(void) { dlopen(\"liblzma.so.5\", RTLD_NOW); }\n"
	"__attribute__((destructor)) static void ship_dtor(void) { dlopen(\"libzstd.so.1\", RTLD_NOW); }\n";
static const char app_c[] = "int ship_load(const char *);\n"
			    "int main(int argc, char **argv) { int r = 0; for (int i = 1; i < argc; i++) r |= ship_load(argv[i]);"
			    " return r; }\n";

#define ALL_FOUR                                                                                                       \
	"[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"priority\":\"required\"},"                                   \
	"{\"soname\":[\"liblzma.so.5\"],\"feature\":\"xz\",\"priority\":\"recommended\"},"                             \
	"{\"soname\":[\"libbz2.so.1.0\"],\"feature\":\"bz2\",\"priority\":\"suggested\"},"                             \
	"{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"suggested\"}]\n"

/* The build tree in build/ (CFLAGS: the library's compile flags), and its tests recorded there:
 * `app libz.so.1`. */
static void build_and_record(const char *cflags)
{
	need("gcc");
	make_dirs("build");
	put_file("build/ship.c", ship_c);
	put_file("build/app.c", app_c);
	free(sh("cd build && gcc -g -O2 -fPIC -shared %s -Wl,-init,ship_init -Wl,-soname,libship.so.1 -o libship.so.1 ship.c && "
		"gcc -g -O2 -o app app.c ./libship.so.1 -Wl,-rpath,'$ORIGIN' && "
		"'%s' --record=../trace -- ./app libz.so.1 > out && grep -q 'libz.so.1 loaded' out",
		cflags, tool()));
}

/* make install into ROOT (0755, as packages install libraries), the notes of MANIFEST injected
 * at the end of %install, then rpm's find-debuginfo as rpmbuild runs it with rpm's defaults
 * (unique build-ids: --build-id-seed VERSION-RELEASE). */
static void package(const char *root, const char *manifest)
{
	free(sh("mkdir -p %s/usr/bin %s/usr/lib64 && install -m 755 build/app %s/usr/bin/app && "
		"install -m 755 build/libship.so.1 %s/usr/lib64/libship.so.1 && "
		"'%s' --manifest %s %s/usr/bin/app %s/usr/lib64/libship.so.1",
		root, root, root, root, tool(), manifest, root, root));
	free(sh("rpm --define '_builddir %s' --define 'buildsubdir build' --define 'name ship' --define 'VERSION 1.0' "
		"--define 'RELEASE 1' --eval '%%__debug_install_post' > find-debuginfo.sh && "
		"RPM_BUILD_ROOT=$PWD/%s RPM_BUILD_DIR='%s' RPM_PACKAGE_NAME=ship RPM_PACKAGE_VERSION=1.0 "
		"RPM_PACKAGE_RELEASE=1 RPM_ARCH=x86_64 sh ./find-debuginfo.sh > find-debuginfo.log 2>&1",
		workdir(), root, workdir()));
}

static char *build_id(const char *file)
{
	return sh("readelf -nW %s | sed -n 's/.*Build ID: //p'", file);
}

Test(record_ship, the_lint_sees_the_build_tree_through_find_debuginfo_unique_build_ids, .timeout = 120)
{
	struct cmd c;
	char *a, *b, *out;

	need("find-debuginfo");
	need("rpm");
	build_and_record("");
	put_file("z.json", "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\",\"priority\":\"required\"}]\n");
	package("root", "z.json");
	/* The scenario: every shipped file has another build-id than the one that ran. */
	a = build_id("build/libship.so.1");
	b = build_id("root/usr/lib64/libship.so.1");
	cr_assert(strlen(a) == 40 && strlen(b) == 40 && strcmp(a, b) != 0, "build-ids: %s and %s", a, b);
	free(a);
	free(b);
	c = run("find root -type f | LC_ALL=C sort | '%s' --check --skip-non-elf --recorded=trace --files-from -", tool());
	cr_expect_eq(c.status, 1, "%s%s", c.out, c.err);
	/* Each dlopen() of the library's constructor, DT_INIT function and destructor is the
	 * library's, not the loader's; the .debug files are not what runs. */
	cr_expect_str_eq(c.out,
		"root/usr/bin/app: ok (1 dlopen entry; no dlopen() by it in the recording)\n"
		"root/usr/lib/debug/usr/bin/app-1.0-1.x86_64.debug: ok (1 dlopen entry; a detached debug file: not what runs, "
		"not linted against the recording)\n"
		"root/usr/lib/debug/usr/lib64/libship.so.1-1.0-1.x86_64.debug: ok (1 dlopen entry; a detached debug file: not "
		"what runs, not linted against the recording)\n"
		"root/usr/lib64/libship.so.1: undeclared: libbz2.so.1.0: dlopen()ed during the recording\n"
		"root/usr/lib64/libship.so.1: undeclared: liblzma.so.5: dlopen()ed during the recording\n"
		"root/usr/lib64/libship.so.1: undeclared: libzstd.so.1: dlopen()ed during the recording\n");
	cr_expect_str_eq(c.err, "dlnote-inject: root/usr/lib64/libship.so.1: 3 undeclared dlopen() dependencies in trace\n");
	cmd_free(&c);
	/* In a build log (both streams in one pipe) the summary comes after the lines it sums up. */
	out = sh("'%s' --check --recorded=trace root/usr/lib64/libship.so.1 2>&1 | cat", tool());
	cr_expect(strstr(out, "undeclared: libzstd.so.1") && strstr(out, "3 undeclared dlopen() dependencies") &&
			  strstr(out, "undeclared: libzstd.so.1") < strstr(out, "3 undeclared dlopen() dependencies"),
		  "%s", out);
	free(out);
	out = sh("'%s' --check -v --recorded=trace root/usr/lib64/libship.so.1 | grep 'in the recording (' || true", tool());
	cr_expect(strstr(out, "root/usr/lib64/libship.so.1: is ") &&
			  strstr(out, "/build/libship.so.1 in the recording (the same code, another build-id)"),
		  "%s", out);
	free(out);
	/* Declared, the same build passes, and says what it checked. */
	put_file("all.json", ALL_FOUR);
	package("root2", "all.json");
	c = run("'%s' --check --recorded=trace root2/usr/bin/app root2/usr/lib64/libship.so.1", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect_str_eq(c.out, "root2/usr/bin/app: ok (4 dlopen entries; no dlopen() by it in the recording)\n"
				"root2/usr/lib64/libship.so.1: ok (4 dlopen entries; recorded: 4 libraries dlopen()ed, none "
				"undeclared)\n");
	cr_expect_str_eq(c.err, "");
	cmd_free(&c);
}

/* Every rewriter a distribution runs after the injection keeps the code identity; a new build-id
 * (debugedit --build-id-seed) makes the build-id useless, so only the identity can match.  A
 * library built from other source, or with other flags, is never taken for it. */
Test(record_ship, the_same_code_survives_every_rewriter_and_other_code_is_never_taken_for_it, .timeout = 120)
{
	static const char *const chains[] = {
		/* dh_dwz, dh_strip */
		"dwz $F && objcopy --only-keep-debug --compress-debug-sections $F $F.dbg && "
		"strip --remove-section=.comment --remove-section=.note --strip-unneeded $F && objcopy --add-gnu-debuglink=$F.dbg $F",
		"eu-strip --remove-comment -f $F.debug $F",
		"objcopy --merge-notes $F",
		"patchelf --set-rpath /opt/a/runpath/long/enough/to/move/the/dynamic/string/table $F",
		"strip $F && patchelf --set-rpath /opt/x $F && eu-strip $F",
	};
	struct cmd c;
	char *out;

	need("debugedit");
	need("dwz");
	need("eu-strip");
	need("patchelf");
	build_and_record("");
	put_file("all.json", ALL_FOUR);
	for (size_t i = 0; i < sizeof chains / sizeof chains[0]; i++) {
		free(sh("F=c%zu/libship.so.1 && mkdir -p c%zu && install -m 755 build/libship.so.1 $F && '%s' -m all.json $F && "
			"debugedit --build-id --build-id-seed=rewritten-%zu $F >/dev/null && %s",
			i, i, tool(), i, chains[i]));
		out = sh("'%s' --check -v --recorded=trace c%zu/libship.so.1", tool(), i);
		cr_expect(strstr(out, "/build/libship.so.1 in the recording (the same code, another build-id)") &&
				  strstr(out, "ok (4 dlopen entries; recorded: 4 libraries dlopen()ed, none undeclared)"),
			  "after %s:\n%s", chains[i], out);
		free(out);
	}
	/* One constant changed, or other flags: another file, which dlopen()ed nothing recorded. */
	free(sh("mkdir other && cd other && gcc -g -O2 -fPIC -shared -DSALT=2 -Wl,-init,ship_init -Wl,-soname,libship.so.1 "
		"-o salt.so ../build/ship.c && gcc -g -O1 -fPIC -shared -Wl,-init,ship_init -Wl,-soname,libship.so.1 "
		"-o o1.so ../build/ship.c && '%s' -m ../all.json salt.so o1.so", tool()));
	c = run("'%s' --check -v --recorded=trace other/salt.so other/o1.so", tool());
	cr_expect_eq(c.status, 1, "nothing matched, yet: %s", c.out);
	cr_expect(!strstr(c.out, "in the recording ("), "another library was taken for the recorded one:\n%s", c.out);
	cr_expect(strstr(c.out, "other/salt.so: ok (4 dlopen entries; no dlopen() by it in the recording)\n"), "%s", c.out);
	cmd_free(&c);
}

/* What the lint reads and what ran differ: a traced file of the build tree that no file checked
 * is, is said in one line (the program rebuilt since the recording too); when no file checked is
 * one that ran, the lint fails; a file outside the build tree (the shell, a system program) is
 * not the package's and is not said. */
Test(record_ship, traced_files_the_lint_does_not_read_are_said, .timeout = 120)
{
	struct cmd c;

	build_and_record("");
	put_file("all.json", ALL_FOUR);
	put_file("build/helper.c", "#include <dlfcn.h>\nint main(void) { return !dlopen(\"libz.so.1\", RTLD_NOW); }\n");
	free(sh("cd build && gcc -o t-helper helper.c && '%s' --record=../trace -- sh -c './t-helper && ./t-helper' && "
		"cp libship.so.1 ../lib.so && '%s' -m ../all.json ../lib.so", tool(), tool()));
	c = run("'%s' --check --recorded=trace lib.so", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect(strstr(c.err, "dlnote-inject: trace: 1 file of the build tree dlopen()ed during the recording and matches no "
				"file checked: ") &&
			  strstr(c.err, "/build/t-helper (-v lists them); what it dlopen()ed is not linted\n"),
		  "%s", c.err);
	cmd_free(&c);
	/* -v names each, and the program rebuilt since the recording is said to be */
	put_file("build/helper.c", "#include <dlfcn.h>\nint main(void) { return !dlopen(\"libz.so.1\", RTLD_LAZY); }\n");
	free(sh("cd build && gcc -o t-helper helper.c"));
	c = run("'%s' --check -v --recorded=trace lib.so", tool());
	cr_expect_eq(c.status, 0, "%s%s", c.out, c.err);
	cr_expect(strstr(c.err, "/build/t-helper (rebuilt since the recording) (-v lists them)") &&
			  strstr(c.err, "/build/t-helper: dlopen()ed during the recording, matches no file checked: rebuilt "
					"since the recording\n"),
		  "%s", c.err);
	cmd_free(&c);
	/* Only files that ran nothing of the recording: nothing was linted. */
	c = run("'%s' --check --recorded=trace build/app", tool());
	cr_expect_eq(c.status, 1, "%s%s", c.out, c.err);
	cr_expect(strstr(c.err, "dlnote-inject: trace: no file checked is one that dlopen()ed during the recording (2 of the "
				"build tree did: "),
		  "%s", c.err);
	cmd_free(&c);
	/* A trace that recorded nothing: the lint cannot check, and fails. */
	put_file("empty.trace", "");
	c = run("'%s' --check --recorded=empty.trace lib.so", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_eq(c.err, "dlnote-inject: empty.trace: the trace records no process: run the tests under --record=TRACE "
				"before the lint\n");
	cmd_free(&c);
}

/* A dlopen() through a GOT entry (-fno-plt) is not bound by la_symbind: as a tail call from a
 * constructor, destructor or DT_INIT function, the return address is the loader's.  The name
 * asked for is then a string of the calling library's own read-only data: the module names
 * that library (and says so); the lint sees those calls.  A name built at run time (here from
 * the environment) leaves the caller hidden: the lint cannot check it and fails, where it said
 * ok with -fno-plt before (found by QA on zstd built with Arch's -fno-plt). */
Test(record_ship, a_dlopen_the_loader_hides_is_the_name_owners_or_fails_the_lint)
{
	struct cmd c;
	char *out;

	build_and_record("-fno-plt");
	out = sh("grep -c '\"caller\":\"[^\"]*/build/libship.so.1\",\"name\":\"liblzma.so.5\",\"caller_build_id\":\"[0-9a-f]*\","
		 "\"caller_from\":\"name\"' trace");
	cr_expect_str_eq(out, "1");
	free(out);
	put_file("z.json", "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}]\n");
	free(sh("cp build/libship.so.1 lib.so && '%s' -m z.json lib.so", tool()));
	c = run("'%s' --check --recorded=trace lib.so", tool());
	cr_expect_eq(c.status, 1, "%s", c.out);
	cr_expect(strstr(c.out, "lib.so: undeclared: liblzma.so.5: dlopen()ed during the recording\n"), "%s", c.out);
	cmd_free(&c);
	/* the name from the environment */
	put_file("envl.c", "#include <dlfcn.h>\n#include <stdlib.h>\n"
		 "__attribute__((constructor)) static void c(void) { dlopen(getenv(\"SHIP_DLOPEN\"), RTLD_NOW); }\n");
	put_file("m.c", "int main(void) { return 0; }\n");
	free(sh("gcc -O2 -fPIC -fno-plt -shared -o libenvl.so envl.c && gcc -o envapp m.c -Wl,--no-as-needed ./libenvl.so "
		"-Wl,-rpath,'$ORIGIN' && SHIP_DLOPEN=libz.so.1 '%s' --record=env.trace -- ./envapp && cp libenvl.so l2.so && "
		"'%s' -m z.json l2.so", tool(), tool()));
	out = sh("grep -c '\"name\":\"libz.so.1\",\"caller_build_id\":\"[0-9a-f]*\",\"hidden\":\"loader\"' env.trace");
	cr_expect_str_eq(out, "1");
	free(out);
	c = run("'%s' --check --recorded=env.trace l2.so", tool());
	cr_expect_eq(c.status, 1, "the lint passed without knowing who made a dlopen(): %s", c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: env.trace: 1 dlopen() call named the dynamic loader as its caller (libz.so.1: a tail "
				"call through a GOT entry, -fno-plt, from a constructor or destructor, of a name built at run time): "
				"no file can be linted for it; record a build without -fno-plt (docs/recording.md)\n");
	cmd_free(&c);
}

/* A library rebuilt at the same path after the recording (here without its dlopen() calls) is
 * another file: its build-id differs from the one the module recorded, so the old trace lines
 * are not its own, and the lint says the traced file is not there any more (found by a
 * newcomer following docs/recording.md, who recorded into the same trace again). */
Test(record_ship, a_file_rebuilt_at_the_traced_path_is_not_the_traced_file)
{
	struct cmd c;

	build_and_record("");
	put_file("all.json", "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}]\n");
	free(sh("cd build && printf 'int ship_load(const char *n) { (void)n; return 0; }\\n' > ship2.c && "
		"gcc -g -O2 -fPIC -shared -Wl,-soname,libship.so.1 -o libship.so.1 ship2.c && '%s' -m ../all.json libship.so.1",
		tool()));
	c = run("'%s' --check --recorded=trace build/libship.so.1", tool());
	cr_expect_eq(c.status, 1, "nothing of the recording is this file, yet: %s%s", c.out, c.err);
	cr_expect_str_eq(c.out, "build/libship.so.1: ok (1 dlopen entry; no dlopen() by it in the recording)\n");
	cr_expect(strstr(c.err, "/build/libship.so.1 (rebuilt since the recording)): nothing was linted against it"), "%s", c.err);
	cmd_free(&c);
}

/* Past the module's 64 stubs, objects share the plain wrapper, which goes by the return address:
 * a constructor's tail call then names the loader again, and the hidden-caller rules must hold
 * there too (the caller is the name's owner; a name built at run time fails the lint), where it
 * said ok before (found by review).  66 libraries bind dlopen at start-up (-z now); the
 * program then dlopen()s libctor.so, whose constructors' tail calls through its PLT reach the
 * plain wrapper. */
Test(record_ship, past_the_stubs_a_hidden_caller_is_still_found_or_fails_the_lint, .timeout = 120)
{
	struct cmd c;
	char *out;

	need("gcc");
	put_file("f.c", "#include <dlfcn.h>\nvoid *f(const char *n) { return dlopen(n, RTLD_LAZY | RTLD_NOLOAD); }\n");
	put_file("ctor.c", "#include <dlfcn.h>\n#include <stdlib.h>\n"
		 "__attribute__((constructor)) static void c1(void) { dlopen(\"liblzma.so.5\", RTLD_NOW); }\n"
		 "__attribute__((constructor)) static void c2(void) { dlopen(getenv(\"SHIP_DLOPEN\"), RTLD_NOW); }\n");
	put_file("m.c", "#include <dlfcn.h>\n#include <stdio.h>\n"
		 "int main(void) { printf(\"%d\\n\", !!dlopen(\"./libctor.so\", RTLD_NOW)); return 0; }\n");
	free(sh("gcc -c -fPIC -O2 f.c && libs= && for i in $(seq 1 66); do "
		"gcc -shared -Wl,-z,now -Wl,-soname,libn$i.so -o libn$i.so f.o || exit 1; libs=\"$libs ./libn$i.so\"; done && "
		"gcc -O2 -fPIC -shared -o libctor.so ctor.c && "
		"gcc -Wl,-z,now -o m m.c -Wl,--no-as-needed $libs -Wl,-rpath,'$ORIGIN' && "
		"SHIP_DLOPEN=libz.so.1 '%s' --record=trace -- ./m | grep -qx 1", tool()));
	out = sh("grep -c '\"caller\":\"[^\"]*/libctor.so\",\"name\":\"liblzma.so.5\",\"caller_build_id\":\"[0-9a-f]*\","
		 "\"caller_from\":\"name\"' trace");
	cr_expect_str_eq(out, "1");
	free(out);
	out = sh("grep -c '\"name\":\"libz.so.1\",\"caller_build_id\":\"[0-9a-f]*\",\"hidden\":\"loader\"' trace");
	cr_expect_str_eq(out, "1");
	free(out);
	c = run("'%s' --check --recorded=trace libctor.so", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.out, "libctor.so: undeclared: liblzma.so.5: dlopen()ed during the recording\n"), "%s", c.out);
	cr_expect(strstr(c.err, "1 dlopen() call named the dynamic loader as its caller (libz.so.1: "), "%s", c.err);
	cmd_free(&c);
}
