/* SPDX-License-Identifier: MIT */
/* test_ldconf.c - where the loader of a root looks (src/closure/ldconf.c, docs/closure.md "How
 * a library is found" 5 and 6): etc/ld.so.conf read inside a real root, as ldconfig reads it
 * (comments, blank and hwcap lines, includes with globs relative to the including file, sorted,
 * several patterns on a line), include loops and nesting beyond 16 cut with a message, links
 * to the host taken from the root; and the trusted directories, $LIB and $PLATFORM of each ELF
 * class and machine. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure/closure_int.h"

#include "helpers.h"
#include "tree_fixtures.h"

/* ldconf.c reads no ld.so.conf file larger than this (docs/closure.md: 1 MiB). */
#define LDCONF_LIMIT (1u << 20)

struct fixture {
	struct tree t;
	struct root r;
	struct dirlist dirs;
	struct err e;
	char said[8192]; /* what ldconf_read wrote on standard error */
};

static struct fixture fx;

static void setup(void)
{
	memset(&fx, 0, sizeof fx);
	tree_make(&fx.t, "ldconf");
	tree_dir(fx.t.root, "etc");
	cr_assert_eq(root_open(&fx.r, fx.t.root, &fx.e), 0, "%s", fx.e.msg);
}

/* Run after each test, passed or failed: nothing is left behind. */
static void teardown(void)
{
	root_close(&fx.r);
	buf_free(&fx.dirs.text);
	tree_remove(&fx.t);
}

TestSuite(ldconf, .init = setup, .fini = teardown);

/* ldconf_read into fx.dirs, what it says on standard error into fx.said.  The directories are
 * returned as one string with '|' after each. */
static const char *read_conf(int verbose)
{
	static char dirs[4096];
	char cap[PATH_MAX];
	int saved, fd;
	ssize_t n;

	buf_free(&fx.dirs.text);
	memset(&fx.dirs, 0, sizeof fx.dirs);
	tree_path(cap, fx.t.top, "stderr");
	fflush(stderr);
	saved = dup(2);
	fd = open(cap, O_CREAT | O_TRUNC | O_RDWR, 0644);
	cr_assert(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	cr_assert_eq(ldconf_read(&fx.r, &fx.dirs, verbose, &fx.e), 0, "%s", fx.e.msg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	n = pread(fd, fx.said, sizeof fx.said - 1, 0);
	close(fd);
	unlink(cap);
	fx.said[n > 0 ? n : 0] = 0;
	cr_assert(fx.dirs.text.len < sizeof dirs);
	for (size_t i = 0; i < fx.dirs.text.len; i++)
		dirs[i] = fx.dirs.text.p[i] ? fx.dirs.text.p[i] : '|';
	dirs[fx.dirs.text.len] = 0;
	return dirs;
}

/* "dlnote-inject: ROOT" then `rest` (the message's path inside the root, and its reason). */
static const char *said_line(const char *rest)
{
	static char s[PATH_MAX + 256];

	snprintf(s, sizeof s, "dlnote-inject: %s%s\n", fx.t.root, rest);
	return s;
}

/* ld.so.conf gives the directories `dirs` ('|' after each) and says `said` ("": nothing). */
static void expect_conf(int verbose, const char *dirs, const char *said)
{
	T_STR_EQ(read_conf(verbose), dirs, "the directories");
	T_STR_EQ(fx.said, said, "what is said on standard error");
}

Test(ldconf, directory_lines_are_kept_in_order_comments_blanks_hwcap_and_relative_ones_not)
{
	tree_file(fx.t.root, "etc/ld.so.conf",
		  "# a comment line\n"
		  "/opt/a\n"
		  "\n"
		  "  \t/opt/b\t \r\n"
		  "/opt/c # a comment after the directory\n"
		  "#/opt/commented\n"
		  "hwcap 1 nosegneg\n"
		  "hwcap\t0 tls\n"
		  "relative/lib\n"
		  "/opt/d///\n"
		  "/\n"
		  "/opt/last without a newline");
	expect_conf(0, "/opt/a|/opt/b|/opt/c|/opt/d|/|/opt/last without a newline|", "");
	cr_assert_eq(fx.dirs.n, 6);
}

Test(ldconf, a_root_without_ld_so_conf_has_no_directories_and_says_nothing)
{
	expect_conf(0, "", "");
	cr_assert_eq(fx.dirs.n, 0);
}

Test(ldconf, an_include_glob_reads_the_matching_files_sorted_where_the_include_is)
{
	tree_file(fx.t.root, "etc/ld.so.conf",
		  "/opt/first\ninclude /etc/ld.so.conf.d/*.conf\n/opt/last\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/b.conf", "/opt/b\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/a.conf", "/opt/a1\n/opt/a2\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/B.conf", "/opt/B\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/c.txt", "/opt/not-a-conf\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/.hidden.conf", "/opt/hidden\n");
	expect_conf(0, "/opt/first|/opt/B|/opt/a1|/opt/a2|/opt/b|/opt/last|", "");
}

Test(ldconf, a_relative_include_is_taken_from_the_including_files_directory)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "include ld.so.conf.d/*.conf\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/a.conf", "/opt/a\ninclude sub/?.conf\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/sub/x.conf", "/opt/sub-x\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/sub/xx.conf", "/opt/sub-xx\n");
	tree_file(fx.t.root, "sub/x.conf", "/opt/wrong: from the root's top\n");
	expect_conf(0, "/opt/a|/opt/sub-x|", "");
}

Test(ldconf, a_relative_include_follows_the_name_included_not_the_links_target)
{
	/* ldconfig takes the directory of the name it opened (dirname of the glob's result). */
	tree_file(fx.t.root, "etc/ld.so.conf", "include /etc/ld.so.conf.d/*.conf\n");
	tree_link(fx.t.root, "etc/ld.so.conf.d/vendor.conf", "/opt/vendor/vendor.conf");
	tree_file(fx.t.root, "opt/vendor/vendor.conf", "/opt/vendor/lib\ninclude more.conf\n");
	tree_file(fx.t.root, "opt/vendor/more.conf", "/opt/wrong\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/more.conf", "/opt/right\n");
	/* more.conf is read once: through the include, then not again through the glob. */
	expect_conf(0, "/opt/right|/opt/vendor/lib|",
		    said_line("/etc/ld.so.conf.d/more.conf: included again (an include loop?), not "
			      "read"));
}

Test(ldconf, several_patterns_on_one_include_line_are_read_in_turn)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "include\tz.conf  a.conf\t/etc/m*.conf\n");
	tree_file(fx.t.root, "etc/z.conf", "/opt/z\n");
	tree_file(fx.t.root, "etc/a.conf", "/opt/a\n");
	tree_file(fx.t.root, "etc/m2.conf", "/opt/m2\n");
	tree_file(fx.t.root, "etc/m1.conf", "/opt/m1\n");
	expect_conf(0, "/opt/z|/opt/a|/opt/m1|/opt/m2|", "");
}

Test(ldconf, an_include_of_nothing_reads_nothing_and_says_nothing)
{
	tree_file(fx.t.root, "etc/ld.so.conf",
		  "include /etc/none.d/*.conf\ninclude /etc/none.conf\ninclude\n/opt/a\n");
	expect_conf(0, "/opt/a|", "");
}

Test(ldconf, a_glob_before_the_last_component_is_taken_literally)
{
	/* docs/closure.md: globs in the last component only. */
	tree_file(fx.t.root, "etc/ld.so.conf", "include /etc/*/x.conf\n");
	tree_file(fx.t.root, "etc/d/x.conf", "/opt/d\n");
	tree_file(fx.t.root, "etc/*/x.conf", "/opt/literal\n");
	expect_conf(0, "/opt/literal|", "");
}

Test(ldconf, an_include_loop_is_cut_and_said_once)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "/opt/a\ninclude ld.so.conf.d/*.conf\n/opt/z\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/loop.conf", "/opt/b\ninclude /etc/ld.so.conf\n");
	expect_conf(0, "/opt/a|/opt/b|/opt/z|",
		    said_line("/etc/ld.so.conf: included again (an include loop?), not read"));
}

Test(ldconf, an_include_loop_through_a_link_is_cut_by_the_files_identity)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "/opt/a\ninclude ld.so.conf.d/*.conf\n");
	tree_link(fx.t.root, "etc/ld.so.conf.d/again.conf", "../ld.so.conf");
	expect_conf(
		0, "/opt/a|",
		said_line("/etc/ld.so.conf.d/again.conf: included again (an include loop?), not "
			  "read"));
}

Test(ldconf, includes_nest_sixteen_deep_and_the_seventeenth_is_said_and_cut)
{
	char name[32], text[64];

	tree_file(fx.t.root, "etc/ld.so.conf", "/opt/d0\ninclude d1.conf\n");
	for (int i = 1; i <= LDCONF_MAX_DEPTH + 2; i++) {
		snprintf(name, sizeof name, "etc/d%d.conf", i);
		snprintf(text, sizeof text, "/opt/d%d\ninclude d%d.conf\n", i, i + 1);
		tree_file(fx.t.root, name, text);
	}
	expect_conf(
		0,
		"/opt/d0|/opt/d1|/opt/d2|/opt/d3|/opt/d4|/opt/d5|/opt/d6|/opt/d7|/opt/d8|/opt/d9|"
		"/opt/d10|/opt/d11|/opt/d12|/opt/d13|/opt/d14|/opt/d15|/opt/d16|",
		said_line("/etc/d17.conf: includes nested too deep, not read"));
	cr_assert_eq(LDCONF_MAX_DEPTH, 16);
}

Test(ldconf, includes_that_lead_to_the_host_are_taken_from_the_root)
{
	char line[2 * PATH_MAX];

	tree_file(fx.t.outside, "host.d/evil.conf", "/EVIL\n");
	tree_watch(&fx.t, "host.d");
	/* an absolute link to the host's directory, a climbing relative include, the host's path */
	tree_link(fx.t.root, "etc/host.d", fx.t.outside);
	snprintf(line, sizeof line,
		 "/opt/a\n"
		 "include /etc/host.d/host.d/*.conf\n"
		 "include ../../../outside/host.d/*.conf\n"
		 "include ../../outside/host.d/evil.conf\n"
		 "include %s/host.d/*.conf\n"
		 "/opt/z\n",
		 fx.t.outside);
	tree_file(fx.t.root, "etc/ld.so.conf", line);
	expect_conf(0, "/opt/a|/opt/z|", "");
	tree_assert_outside_untouched(&fx.t, "ld.so.conf");
	/* The root's own /outside/host.d, where `..` stops at the root's top, is read. */
	tree_file(fx.t.root, "outside/host.d/root.conf", "/opt/inside\n");
	expect_conf(0, "/opt/a|/opt/inside|/opt/z|", "");
	tree_assert_outside_untouched(&fx.t, "ld.so.conf");
}

Test(ldconf, a_directory_of_includes_that_is_a_link_is_followed_inside_the_root)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "include ld.so.conf.d/*.conf\n");
	tree_link(fx.t.root, "etc/ld.so.conf.d", "/usr/share/conf.d");
	tree_file(fx.t.root, "usr/share/conf.d/x.conf", "/opt/x\n");
	expect_conf(0, "/opt/x|", "");
}

Test(ldconf, a_link_loop_in_an_include_is_said_with_the_included_name)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "/opt/a\ninclude loop.conf\n/opt/z\n");
	tree_link(fx.t.root, "etc/loop.conf", "loop.conf");
	expect_conf(0, "/opt/a|/opt/z|",
		    said_line("/etc/loop.conf: more than 40 symbolic links (a loop?)"));
}

Test(ldconf, verbose_names_each_file_read_by_its_path_in_the_root)
{
	tree_file(fx.t.root, "etc/ld.so.conf", "include conf.d/*.conf\n");
	tree_link(fx.t.root, "etc/conf.d/a.conf", "../real/a.conf");
	tree_file(fx.t.root, "etc/real/a.conf", "/opt/a\n");
	expect_conf(1, "/opt/a|",
		    "dlnote-inject: reading /etc/ld.so.conf\n"
		    "dlnote-inject: reading /etc/real/a.conf\n");
}

Test(ldconf, dirlist_strips_trailing_slashes_and_finds_its_directories)
{
	struct dirlist l = {0};
	size_t pos = 0;

	dirlist_add(&l, "/usr/lib//", 10);
	dirlist_add(&l, "/", 1);
	dirlist_add(&l, "/opt/libXYZ", 8);
	cr_assert_eq(l.n, 3);
	T_STR_EQ(dirlist_next(&l, &pos), "/usr/lib", "first");
	T_STR_EQ(dirlist_next(&l, &pos), "/", "second");
	T_STR_EQ(dirlist_next(&l, &pos), "/opt/lib", "third: the length given");
	cr_assert_null(dirlist_next(&l, &pos));
	cr_assert(dirlist_has(&l, "/usr/lib"));
	cr_assert(dirlist_has(&l, "/opt/lib"));
	cr_assert_not(dirlist_has(&l, "/usr/lib/"));
	cr_assert_not(dirlist_has(&l, "/usr"));
	buf_free(&l.text);
}

/* ---- the trusted directories, $LIB and $PLATFORM ---- */

static const char *flavour(int is64, int big, unsigned machine, unsigned long flags,
			   struct ldflavour *f)
{
	static char s[512];

	cr_assert_eq(ldconf_flavour(&fx.r, is64, big, machine, flags, f, &fx.e), 0, "%s", fx.e.msg);
	cr_assert(f->defaults.text.len < sizeof s);
	for (size_t i = 0; i < f->defaults.text.len; i++)
		s[i] = f->defaults.text.p[i] ? f->defaults.text.p[i] : '|';
	s[f->defaults.text.len] = 0;
	return s;
}

Test(ldconf, x86_64_searches_multiarch_then_lib64_then_lib_and_lib_names_the_multiarch_dir)
{
	struct ldflavour f;

	tree_dir(fx.t.root, "usr/lib/x86_64-linux-gnu");
	T_STR_EQ(flavour(1, 0, EM_X86_64_, 0, &f),
		 "/lib/x86_64-linux-gnu|/usr/lib/x86_64-linux-gnu|/lib64|/usr/lib64|/lib|/usr/lib|",
		 "trusted directories");
	cr_assert_eq(f.defaults.n, 6);
	T_STR_EQ(f.lib, "lib/x86_64-linux-gnu", "$LIB");
	T_STR_EQ(f.platform, "x86_64", "$PLATFORM");
	T_STR_EQ(f.triplet, "x86_64-linux-gnu", "multiarch");
	ldconf_flavour_free(&f);
}

Test(ldconf, lib_is_lib64_in_a_root_without_the_multiarch_directory)
{
	struct ldflavour f;

	tree_dir(fx.t.root, "lib/x86_64-linux-gnu"); /* /usr/lib/TRIPLET decides, not /lib */
	tree_link(fx.t.root, "usr/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu");
	flavour(1, 0, EM_X86_64_, 0, &f);
	T_STR_EQ(f.lib, "lib64", "$LIB (the multiarch link is a loop in the root)");
	ldconf_flavour_free(&f);
}

Test(ldconf, lib_follows_a_multiarch_link_inside_the_root_but_not_to_the_host)
{
	struct ldflavour f;
	char link[PATH_MAX];

	/* The host has /usr/lib/x86_64-linux-gnu; the root has it only through this link. */
	tree_dir(fx.t.root, "usr/lib64");
	tree_link(fx.t.root, "usr/lib/x86_64-linux-gnu", "../lib64");
	flavour(1, 0, EM_X86_64_, 0, &f);
	T_STR_EQ(f.lib, "lib/x86_64-linux-gnu", "$LIB through a link inside the root");
	ldconf_flavour_free(&f);
	tree_path(link, fx.t.root, "usr/lib/x86_64-linux-gnu");
	cr_assert_eq(unlink(link), 0);
	tree_link(fx.t.root, "usr/lib64/x86_64-linux-gnu", fx.t.outside);
	tree_link(fx.t.root, "usr/lib/x86_64-linux-gnu", "../lib64/x86_64-linux-gnu");
	flavour(1, 0, EM_X86_64_, 0, &f);
	T_STR_EQ(f.lib, "lib64", "$LIB: the host's directory is not the root's");
	ldconf_flavour_free(&f);
}

Test(ldconf, i386_searches_its_multiarch_dirs_then_lib_and_expands_platform_to_i686)
{
	struct ldflavour f;

	tree_dir(fx.t.root, "usr/lib/i386-linux-gnu");
	T_STR_EQ(flavour(0, 0, EM_386_, 0, &f),
		 "/lib/i386-linux-gnu|/usr/lib/i386-linux-gnu|/lib|/usr/lib|",
		 "trusted directories");
	T_STR_EQ(f.lib, "lib/i386-linux-gnu", "$LIB");
	T_STR_EQ(f.platform, "i686", "$PLATFORM");
	ldconf_flavour_free(&f);
}

Test(ldconf, x32_has_libx32_and_no_platform)
{
	struct ldflavour f;

	T_STR_EQ(flavour(0, 0, EM_X86_64_, 0, &f),
		 "/lib/x86_64-linux-gnux32|/usr/lib/x86_64-linux-gnux32|/libx32|/usr/libx32|/lib|/"
		 "usr/lib|",
		 "trusted directories");
	T_STR_EQ(f.lib, "libx32", "$LIB");
	cr_assert_null(f.platform, "$PLATFORM is not known");
	ldconf_flavour_free(&f);
}

Test(ldconf, each_machines_multiarch_name_and_own_directory)
{
	static const struct {
		int is64, big;
		unsigned machine;
		unsigned long flags;
		const char *dirs, *lib, *platform;
	} m[] = {
		{1, 0, EM_AARCH64_, 0,
		 "/lib/aarch64-linux-gnu|/usr/lib/aarch64-linux-gnu|/lib64|/usr/lib64|/lib|/usr/"
		 "lib|",
		 "lib64", "aarch64"},
		{1, 1, EM_S390_, 0,
		 "/lib/s390x-linux-gnu|/usr/lib/s390x-linux-gnu|/lib64|/usr/lib64|/lib|/usr/lib|",
		 "lib64", "s390x"},
		{1, 1, EM_PPC64_, 0,
		 "/lib/powerpc64-linux-gnu|/usr/lib/powerpc64-linux-gnu|/lib64|/usr/lib64|/lib|/"
		 "usr/"
		 "lib|",
		 "lib64", NULL},
		{0, 0, EM_ARM_, 0x400,
		 "/lib/arm-linux-gnueabihf|/usr/lib/arm-linux-gnueabihf|/lib|/usr/lib|", "lib",
		 NULL},
		{0, 0, EM_ARM_, 0,
		 "/lib/arm-linux-gnueabi|/usr/lib/arm-linux-gnueabi|/lib|/usr/lib|", "lib", NULL},
		{1, 0, 0x1234, 0, "/lib|/usr/lib|", "lib", NULL}, /* a machine nobody knows */
	};

	for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
		struct ldflavour f;
		T_STR_EQ(flavour(m[i].is64, m[i].big, m[i].machine, m[i].flags, &f), m[i].dirs,
			 "machine %u", m[i].machine);
		T_STR_EQ(f.lib, m[i].lib, "$LIB of machine %u", m[i].machine);
		if (m[i].platform)
			T_STR_EQ(f.platform, m[i].platform, "$PLATFORM of machine %u",
				 m[i].machine);
		else
			cr_assert_null(f.platform, "$PLATFORM of machine %u", m[i].machine);
		cr_assert_eq(f.machine, m[i].machine);
		cr_assert_eq(f.is64, m[i].is64);
		cr_assert_eq(f.big, m[i].big);
		ldconf_flavour_free(&f);
	}
}

Test(ldconf, a_file_that_cannot_be_read_is_said_with_its_name_once)
{
	/* GUIDE: one line, "dlnote-inject: PATH: reason". */
	size_t size = LDCONF_LIMIT + 1;
	char *big = malloc(size + 1), said[2 * PATH_MAX + 256];

	cr_assert(big);
	memset(big, '#', size);
	big[size] = 0;
	tree_file(fx.t.root, "etc/ld.so.conf", "include ld.so.conf.d/*.conf\n/opt/z\n");
	tree_file(fx.t.root, "etc/ld.so.conf.d/big.conf", big);
	tree_dir(fx.t.root, "etc/ld.so.conf.d/dir.conf");
	free(big);
	snprintf(said, sizeof said, "%s",
		 said_line("/etc/ld.so.conf.d/big.conf: larger than 1048576 bytes"));
	strcat(said, said_line("/etc/ld.so.conf.d/dir.conf: not a regular file"));
	expect_conf(0, "/opt/z|", said);
}

/* A NUL byte ends a line's text, as it ends the C string ldconfig reads with getline(): an
 * `include` line with one after a pattern looped for ever (the pattern scan stopped at the NUL
 * and never moved: found by the ldconf fuzzer, issue 45), and a directory line kept the NUL
 * and what follows it inside the NUL-separated list. */
Test(ldconf, a_nul_byte_ends_the_line, .timeout = 10)
{
	static const char conf[] = "include a.conf\0 b.conf\n/opt/x\0/opt/y\n/opt/z\n";
	char path[PATH_MAX];
	FILE *f;

	tree_path(path, fx.t.root, "etc/ld.so.conf");
	cr_assert((f = fopen(path, "wb")));
	cr_assert_eq(fwrite(conf, 1, sizeof conf - 1, f), sizeof conf - 1);
	fclose(f);
	tree_file(fx.t.root, "etc/a.conf", "/opt/a\n");
	tree_file(fx.t.root, "etc/b.conf", "/opt/b\n");
	expect_conf(0, "/opt/a|/opt/x|/opt/z|", "");
}
