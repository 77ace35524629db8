/* SPDX-License-Identifier: MIT */
/* test_packaging_hostile.c - dh_dlnotedeps given what a hostile or broken source can put in a
 * build: symbols files that include files out of the build, a package tree whose DEBIAN/shlibs
 * is a link out of it, shlibs dependencies that are no dependency (shell words, a `: PATH`
 * that would forge a line of the soname map), sonames with dpkg-query's wildcards and shell
 * metacharacters.  It fails with a message naming the file, or ignores what dpkg ignores; it
 * never opens a file out of the build (strace), never runs a shell.  The script's functions
 * are loaded with require, as test_versions.c does, and run in deb/, the build directory. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* A secret beside the build that nothing may read, and the build directory deb/. */
static void build_beside_a_secret(void)
{
	make_dirs("host");
	make_dirs("deb/debian/libx1/DEBIAN");
	put_file("host/secret", "SECRET-OF-THE-HOST\n");
	put_file("host/shlibs", "libx 1 hostpkg (>= 9)\n");
}

/* Run PERL (an expression printing its result) with dh_dlnotedeps loaded, in deb/, under
 * strace: its output, and in *opened whether it opened anything under host/. */
static struct cmd in_build(const char *perl, int *opened)
{
	struct cmd c = run("cd deb && strace -f -qq -e trace=open,openat -o ../trace perl -w -e "
			   "'require \"%s/packaging/debhelper/dh_dlnotedeps\"; %s' 2>&1",
			   srcdir(), perl);
	char *seen = sh("grep -c 'host/' trace || true");

	*opened = strcmp(seen, "0") != 0;
	free(seen);
	return c;
}

Test(packaging_hostile, a_symbols_file_including_a_file_out_of_the_build_is_refused)
{
	static const char *const includes[] = {"../../../../host/secret", "/HOST/secret"};
	char text[512], call[256], *host = sh("pwd");
	int opened;

	need("strace");
	for (size_t i = 0; i < 2; i++) {
		build_beside_a_secret();
		snprintf(text, sizeof text,
			 "libx.so.1 libx1 #MINVER#\n#include \"%s%s\"\n f@Base 1\n",
			 strncmp(includes[i], "/HOST", 5) == 0 ? host : "",
			 strncmp(includes[i], "/HOST", 5) == 0 ? includes[i] + 5 : includes[i]);
		put_file("deb/debian/libx1/DEBIAN/symbols", text);
		snprintf(call, sizeof call,
			 "print main::symbols_dependency(\"libx.so.1\", "
			 "\"debian/libx1/DEBIAN/symbols\", \"f\\@Base\")");
		struct cmd c = in_build(call, &opened);
		cr_expect_neq(c.status, 0, "%s", c.out);
		cr_expect(strstr(c.out, "error: debian/libx1/DEBIAN/symbols: #include \"") &&
				  strstr(c.out, "leads out of the build directory"),
			  "no message naming the symbols file:\n%s", c.out);
		cr_expect(!strstr(c.out, "SECRET"), "the host's file is shown:\n%s", c.out);
		cr_expect(!opened, "the host's file was opened (%s)", includes[i]);
		cmd_free(&c);
	}
	free(host);
}

Test(packaging_hostile, a_tree_file_linked_out_of_the_build_is_refused)
{
	int opened;
	struct cmd c;

	need("strace");
	build_beside_a_secret();
	free(sh("ln -s ../../../../host/shlibs deb/debian/libx1/DEBIAN/shlibs && "
		"ln -s ../../../../host/secret deb/debian/libx1/DEBIAN/symbols"));
	c = in_build("print main::shlibs_dependency(\"libx.so.1\", \"debian/libx1/DEBIAN/shlibs\", "
		     "\"deb\") // \"none\"",
		     &opened);
	cr_expect_neq(c.status, 0, "%s", c.out);
	cr_expect(strstr(c.out, "error: debian/libx1/DEBIAN/shlibs: it leads out of the build "
				"directory (a link?), not read\n"),
		  "%s", c.out);
	cr_expect(!strstr(c.out, "hostpkg"), "the host's shlibs file gave a dependency:\n%s",
		  c.out);
	cr_expect(!opened, "the host's shlibs file was opened");
	cmd_free(&c);
	c = in_build(
		"print main::symbols_dependency(\"libx.so.1\", \"debian/libx1/DEBIAN/symbols\", "
		"\"f\\@Base\") // \"none\"",
		&opened);
	cr_expect_neq(c.status, 0, "%s", c.out);
	cr_expect(strstr(c.out, "error: debian/libx1/DEBIAN/symbols: it leads out of the build "
				"directory (a link?), not read\n"),
		  "%s", c.out);
	cr_expect(!strstr(c.out, "SECRET"), "the host's file is shown:\n%s", c.out);
	cr_expect(!opened, "the host's file was opened");
	cmd_free(&c);
}

/* A dependency dpkg-shlibdeps would refuse ("invalid dependency got generated") stops the
 * build naming the file; a line dpkg-shlibdeps skips as bad is skipped. */
Test(packaging_hostile, a_shlibs_dependency_that_is_no_dependency_is_refused)
{
	static const char *const bad[] = {
		"evil: /usr/lib/libother.so.1", /* would forge a line of the soname map */
		"libx1 (>= 1",
		"$(touch pwned); libx1",
		"libx1 (>= 1) | `touch pwned`",
		"libx1 [amd64]",
	};
	char text[256];
	int opened;

	need("strace");
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		build_beside_a_secret();
		snprintf(text, sizeof text, "garbage\nlibx 1 %s\nliby 1 liby1 (>= 2)\n", bad[i]);
		put_file("deb/debian/libx1/DEBIAN/shlibs", text);
		struct cmd c = in_build("print main::shlibs_dependency(\"liby.so.1\", "
					"\"debian/libx1/DEBIAN/shlibs\", \"deb\"), \"\\n\"; "
					"print main::shlibs_dependency(\"libx.so.1\", "
					"\"debian/libx1/DEBIAN/shlibs\", \"deb\")",
					&opened);
		char want[512];
		snprintf(want, sizeof want,
			 "liby1 (>= 2)\ndh_dlnotedeps: error: debian/libx1/DEBIAN/shlibs: '%s' is "
			 "not "
			 "a valid dependency\n",
			 bad[i]);
		cr_expect_neq(c.status, 0, "%s", bad[i]);
		/* Dh_Lib names the tool after $0: -e when loaded with require */
		cr_expect(strstr(c.out, "liby1 (>= 2)\n") &&
				  strstr(c.out, strstr(want, ": error:") + 2),
			  "%s:\n%s", bad[i], c.out);
		cmd_free(&c);
		char *pwned = sh("ls deb/pwned pwned 2>/dev/null | wc -l");
		cr_expect_str_eq(pwned, "0", "a shell ran: %s", bad[i]);
		free(pwned);
	}
}

/* A soname is a name: dpkg-query's wildcards in it are escaped (else "lib*.so.1" asks for
 * every library of the system), shell metacharacters reach dpkg-query as they are (no shell),
 * and only a file of exactly that name counts. */
Test(packaging_hostile, sonames_with_wildcards_and_shell_words_are_names)
{
	char *got, *args;
	struct cmd c;

	make_dirs("deb/bin");
	put_file(
		"deb/bin/dpkg-query",
		"#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> ../dpkg-query.args\n"
		"echo 'libz1: /usr/lib/'\"$(dpkg-architecture -qDEB_HOST_MULTIARCH)\"'/libz.so.1'\n"
		"echo 'libq1: /usr/lib/'\"$(dpkg-architecture "
		"-qDEB_HOST_MULTIARCH)\"'/libq.so.1;touch "
		"pwned'\n");
	free(sh("chmod +x deb/bin/dpkg-query"));
	c = run("cd deb && PATH=\"$PWD/bin:$PATH\" perl -w -e 'require "
		"\"%s/packaging/debhelper/dh_dlnotedeps\"; print map { \"$_\\n\" } "
		"main::soname_search(Debian::Debhelper::Dh_Lib::hostarch(), "
		"\"lib*.so.1\", \"libq.so.1;touch pwned\", \"lib[z].so.1\", \"lib\\\\z.so.1\")' "
		"2>&1",
		srcdir());
	cr_expect_eq(c.status, 0, "%s", c.out);
	got = sh("cd deb && ls pwned 2>/dev/null | wc -l");
	cr_expect_str_eq(got, "0", "a shell ran");
	free(got);
	args = sh("cat dpkg-query.args");
	cr_expect_str_eq(args,
			 "--search\n--\n*/lib\\*.so.1\n*/libq.so.1;touch pwned\n*/lib\\[z].so.1\n"
			 "*/lib\\\\z.so.1",
			 "dpkg-query was asked:\n%s", args);
	free(args);
	/* libz.so.1 is none of the names asked; the one named with the shell words is. */
	cr_expect(!strstr(c.out, "libz1:"), "a pattern matched another library:\n%s", c.out);
	cr_expect(strstr(c.out, "libq1: /usr/lib/") && strstr(c.out, "/libq.so.1;touch pwned\n"),
		  "%s", c.out);
	cmd_free(&c);
}

/* debian/dlopen.policy.json, read by default, is a file of the source: a link out of it stops
 * dh_dlnotedeps before the tool would read it. */
Test(packaging_hostile, a_default_policy_linked_out_of_the_source_is_refused)
{
	struct cmd c;

	build_beside_a_secret();
	put_file("deb/debian/control", "Source: xx\nMaintainer: T <t@example.org>\n"
				       "Build-Depends: debhelper-compat (= 13)\n\n"
				       "Package: xx\nArchitecture: any\nDescription: x\n x\n");
	free(sh("ln -s ../../host/secret deb/debian/dlopen.policy.json"));
	c = run("cd deb && perl '%s/packaging/debhelper/dh_dlnotedeps' 2>&1", srcdir());
	cr_expect_neq(c.status, 0, "%s", c.out);
	cr_expect_str_eq(c.out,
			 "dh_dlnotedeps: error: debian/dlopen.policy.json: it leads out of the "
			 "build directory (a link?), not read\n");
	cmd_free(&c);
}
