/* SPDX-License-Identifier: MIT */
/* test_root.c - paths resolved inside a root directory (src/closure/root.c), the boundary of
 * --closure (docs/closure.md, "A root is hostile input"): in real trees with absolute links to
 * the host, `..` chains, loops, links to a file outside and directories that are links, what
 * is found is the file inside the root, by identity (st_dev, st_ino), never the marker file
 * beside the root; nothing outside is opened (an inotify watch sees every open there). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closure/closure_int.h"

#include "helpers.h"
#include "tree_fixtures.h"

struct fixture {
	struct tree t;
	struct root r;
	struct buf links;
	struct err e;
};

/* A merged-/usr root: /lib a relative link to usr/lib, /lib64 an absolute one to /usr/lib, a
 * soname link, and files named x at the top and in /usr/lib. */
static struct fixture fx;

static void setup(void)
{
	struct fixture *f = &fx;

	memset(f, 0, sizeof *f);
	tree_make(&f->t, "root");
	tree_file(f->t.root, "usr/lib/libz.so.1", "inside libz\n");
	tree_link(f->t.root, "usr/lib/libz.so", "libz.so.1");
	tree_link(f->t.root, "lib", "usr/lib");
	tree_link(f->t.root, "lib64", "/usr/lib");
	tree_file(f->t.root, "etc/ld.so.conf", "/opt/lib\n");
	tree_file(f->t.root, "x", "top x\n");
	tree_file(f->t.root, "usr/lib/x", "usr lib x\n");
	cr_assert_eq(root_open(&f->r, f->t.root, &f->e), 0, "%s", f->e.msg);
}

/* Run after each test, passed or failed: nothing is left behind. */
static void teardown(void)
{
	root_close(&fx.r);
	buf_free(&fx.links);
	tree_remove(&fx.t);
}

TestSuite(root, .init = setup, .fini = teardown);

static int resolve(struct fixture *f, const char *base, const char *path, struct root_found *out)
{
	f->links.len = 0;
	memset(&f->e, 0, sizeof f->e);
	return root_resolve(&f->r, base, path, ROOT_OPEN, &f->links, out, &f->e);
}

/* The links met, as one string with '|' for each NUL. */
static const char *links_text(struct fixture *f)
{
	static char s[1024];

	cr_assert(f->links.len < sizeof s);
	for (size_t i = 0; i < f->links.len; i++)
		s[i] = f->links.p[i] ? f->links.p[i] : '|';
	s[f->links.len] = 0;
	return s;
}

/* PATH resolves to `want` (a path inside the root without links); a regular file is opened,
 * and the descriptor is that file inside the root, with `text` in it. */
static void expect_file(struct fixture *f, const char *base, const char *path, const char *want,
			const char *text)
{
	struct root_found out;
	struct stat inside = tree_stat(f->t.root, want + 1), got;
	char buf[128] = {0};

	cr_assert_eq(resolve(f, base, path, &out), 0, "%s: not found (%s)", path, f->e.msg);
	T_STR_EQ(out.path, want, "%s from %s", path, base);
	cr_assert(tree_same(&out.st, &inside), "%s: stat is not that of the root's %s", path, want);
	cr_assert(out.fd >= 0, "%s: a regular file is opened", path);
	cr_assert_eq(fstat(out.fd, &got), 0);
	cr_assert(tree_same(&got, &inside), "%s: the descriptor is not the root's %s", path, want);
	cr_assert(read(out.fd, buf, sizeof buf - 1) > 0);
	T_STR_EQ(buf, text, "%s: contents", path);
	close(out.fd);
	tree_assert_outside_untouched(&f->t, path);
}

static void expect_missing(struct fixture *f, const char *base, const char *path)
{
	struct root_found out;

	cr_assert_eq(resolve(f, base, path, &out), 1, "%s: expected not there, got %s (%s)", path,
		     out.path, f->e.msg);
	cr_assert_eq(out.fd, -1, "%s: nothing is opened", path);
	cr_assert_eq(f->e.msg[0], 0, "%s: not there is no error: %s", path, f->e.msg);
	tree_assert_outside_untouched(&f->t, path);
}

static void expect_error(struct fixture *f, const char *base, const char *path, const char *msg)
{
	struct root_found out;

	cr_assert_eq(resolve(f, base, path, &out), -1, "%s: expected an error: %s", path, msg);
	T_STR_EQ(f->e.msg, msg, "%s", path);
	cr_assert_eq(out.fd, -1);
	tree_assert_outside_untouched(&f->t, path);
}

Test(root, a_plain_path_is_the_file_inside_the_root_opened_for_reading)
{
	struct fixture *f = &fx;

	expect_file(f, "", "/usr/lib/libz.so.1", "/usr/lib/libz.so.1", "inside libz\n");
	cr_assert_eq(f->links.len, 0, "no link on the way");
	expect_file(f, "", "//usr///lib/./libz.so.1", "/usr/lib/libz.so.1", "inside libz\n");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, an_absolute_link_is_taken_from_the_root_and_listed)
{
	struct fixture *f = &fx;

	expect_file(f, "", "/lib64/libz.so.1", "/usr/lib/libz.so.1", "inside libz\n");
	T_STR_EQ(links_text(f), "/lib64|", "the link met");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, every_link_met_is_listed_in_order_the_last_one_too)
{
	struct fixture *f = &fx;

	expect_file(f, "", "/lib/libz.so", "/usr/lib/libz.so.1", "inside libz\n");
	T_STR_EQ(links_text(f), "/lib|/usr/lib/libz.so|", "links of /lib/libz.so");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, an_absolute_link_to_a_host_file_finds_the_roots_copy_or_nothing)
{
	struct fixture *f = &fx;
	char host_secret[PATH_MAX];

	/* The marker's real path on this machine: the root has no such path. */
	tree_path(host_secret, f->t.outside, "secret");
	tree_link(f->t.root, "usr/lib/libevil.so", host_secret);
	tree_link(f->t.root, "etc/host-name", "/etc/hostname");
	expect_missing(f, "", "/usr/lib/libevil.so");
	expect_missing(f, "", "/etc/host-name");
	/* The same path inside the root is what the link names there. */
	tree_file(f->t.root, host_secret + 1, "the root's own copy\n");
	expect_file(f, "", "/usr/lib/libevil.so", host_secret, "the root's own copy\n");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, dotdot_never_climbs_above_the_root)
{
	struct fixture *f = &fx;

	/* From the root's top, top/root/../outside/secret is the marker. */
	tree_link(f->t.root, "usr/lib/up", "../../../../../outside/secret");
	tree_link(f->t.root, "rel", "../outside/secret");
	expect_missing(f, "", "/../outside/secret");
	expect_missing(f, "", "/usr/../../../outside/secret");
	expect_missing(f, "/usr/lib", "../../../outside/secret");
	expect_missing(f, "", "/usr/lib/up");
	expect_missing(f, "", "/rel");
	/* At the root, `..` is the root: the same names find the root's /outside/secret. */
	tree_file(f->t.root, "outside/secret", "the root's outside/secret\n");
	expect_file(f, "", "/../outside/secret", "/outside/secret", "the root's outside/secret\n");
	expect_file(f, "/usr/lib", "../../../outside/secret", "/outside/secret",
		    "the root's outside/secret\n");
	expect_file(f, "", "/usr/lib/up", "/outside/secret", "the root's outside/secret\n");
	expect_file(f, "", "/rel", "/outside/secret", "the root's outside/secret\n");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, a_directory_that_is_a_link_out_of_the_root_leads_inside_it)
{
	struct fixture *f = &fx;

	tree_link(f->t.root, "usr/share", f->t.outside); /* absolute, to the host's directory */
	tree_link(f->t.root, "opt", "../../outside");    /* relative, climbing */
	tree_link(f->t.root, "srv", "..");
	expect_missing(f, "", "/usr/share/secret");
	expect_missing(f, "", "/opt/secret");
	expect_missing(f, "", "/srv/outside/secret");
	expect_missing(f, "", "/usr/share");
	/* /srv is the root itself, /opt the root's /outside. */
	expect_file(f, "", "/srv/srv/srv/x", "/x", "top x\n");
	tree_file(f->t.root, "outside/secret", "inside\n");
	expect_file(f, "", "/opt/secret", "/outside/secret", "inside\n");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, dotdot_after_a_link_is_the_parent_of_its_target_as_the_kernel_has_it)
{
	struct fixture *f = &fx;

	tree_link(f->t.root, "usr/lib/etclink", "/etc");
	/* /etc/.. is /, not /usr/lib: the file x at the top. */
	expect_file(f, "", "/usr/lib/etclink/../x", "/x", "top x\n");
	expect_file(f, "", "/usr/lib/etclink/../usr/lib/x", "/usr/lib/x", "usr lib x\n");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, a_link_loop_is_an_error_naming_the_limit)
{
	struct fixture *f = &fx;

	tree_link(f->t.root, "loop1", "loop2");
	tree_link(f->t.root, "loop2", "/loop1");
	tree_link(f->t.root, "usr/lib/self", "self");
	tree_link(f->t.root, "usr/lib/dir", "../lib/dir/x");
	expect_error(f, "", "/loop1", "more than 40 symbolic links (a loop?)");
	expect_error(f, "", "/usr/lib/self", "more than 40 symbolic links (a loop?)");
	expect_error(f, "", "/usr/lib/dir", "more than 40 symbolic links (a loop?)");
	tree_assert_outside_untouched(&f->t, "after the test");
}

/* c0 -> c1 -> ... -> cN, cN a file. */
static void chain(struct fixture *f, int n)
{
	char name[32], target[32];

	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "c/c%d", i);
		snprintf(target, sizeof target, "c%d", i + 1);
		tree_link(f->t.root, name, target);
	}
	snprintf(name, sizeof name, "c/c%d", n);
	tree_file(f->t.root, name, "end of the chain\n");
}

Test(root, forty_links_are_followed_and_the_forty_first_is_refused_as_the_kernel_does)
{
	struct fixture *f = &fx;
	char host[PATH_MAX], want[512] = "";
	int fd;

	chain(f, 40);
	tree_link(f->t.root, "c/d", "c0"); /* one more */
	/* The kernel's own count, on the same (relative) links. */
	tree_path(host, f->t.root, "c/c0");
	fd = open(host, O_RDONLY);
	cr_assert(fd >= 0, "the kernel follows 40 links");
	close(fd);
	tree_path(host, f->t.root, "c/d");
	cr_assert(open(host, O_RDONLY) < 0 && errno == ELOOP, "the kernel refuses 41");

	expect_file(f, "", "/c/c0", "/c/c40", "end of the chain\n");
	for (int i = 0; i < 40; i++) {
		char one[16];
		snprintf(one, sizeof one, "/c/c%d|", i);
		strcat(want, one);
	}
	T_STR_EQ(links_text(f), want, "the 40 links, in order");
	expect_error(f, "", "/c/d", "more than 40 symbolic links (a loop?)");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, a_file_where_a_directory_is_expected_is_not_there)
{
	struct fixture *f = &fx;

	tree_link(f->t.root, "usr/lib/dirlink", "libz.so.1/");
	expect_missing(f, "", "/usr/lib/libz.so.1/x");
	expect_missing(f, "", "/usr/lib/libz.so.1/");
	expect_missing(f, "", "/usr/lib/libz.so.1/..");
	expect_missing(f, "", "/usr/lib/dirlink");
	expect_missing(f, "", "/nothing");
	expect_missing(f, "", "/nothing/x");
	expect_missing(f, "", "/nothing/..");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, a_directory_is_found_with_its_identity_and_not_opened)
{
	struct fixture *f = &fx;
	struct root_found out;
	struct stat want;

	want = tree_stat(f->t.root, "usr/lib");
	cr_assert_eq(resolve(f, "", "/lib/", &out), 0, "%s", f->e.msg);
	T_STR_EQ(out.path, "/usr/lib", "/lib/");
	cr_assert(S_ISDIR(out.st.st_mode) && tree_same(&out.st, &want));
	cr_assert_eq(out.fd, -1, "a directory is not opened");
	want = tree_stat(f->t.root, ".");
	cr_assert_eq(resolve(f, "/usr/lib", "../..", &out), 0, "%s", f->e.msg);
	T_STR_EQ(out.path, "/", "the root itself");
	cr_assert(tree_same(&out.st, &want));
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, a_fifo_is_found_but_not_opened)
{
	struct fixture *f = &fx;
	struct root_found out;
	char p[PATH_MAX];

	tree_path(p, f->t.root, "usr/lib/libpipe.so");
	cr_assert_eq(mkfifo(p, 0644), 0);
	cr_assert_eq(resolve(f, "", "/lib/libpipe.so", &out), 0, "%s", f->e.msg);
	T_STR_EQ(out.path, "/usr/lib/libpipe.so", "the fifo");
	cr_assert(S_ISFIFO(out.st.st_mode));
	cr_assert_eq(out.fd, -1, "only a regular file is opened (a fifo would block)");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, relative_paths_start_at_the_base_and_absolute_ones_at_the_root)
{
	struct fixture *f = &fx;

	expect_file(f, "/usr/lib", "libz.so.1", "/usr/lib/libz.so.1", "inside libz\n");
	expect_file(f, "/usr/lib", "x", "/usr/lib/x", "usr lib x\n");
	expect_file(f, "/usr/lib", "/x", "/x", "top x\n");
	expect_file(f, "/", "x", "/x", "top x\n");
	expect_file(f, "", "usr/lib/x", "/usr/lib/x", "usr lib x\n");
	expect_file(f, NULL, "x", "/x", "top x\n");
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, a_name_longer_than_name_max_is_an_error)
{
	struct fixture *f = &fx;
	char path[300] = "/usr/";

	memset(path + 5, 'n', 256);
	expect_error(f, "", path, "a name longer than 255 bytes");
	path[5 + 255] = 0; /* 255 bytes: a name, not there */
	expect_missing(f, "", path);
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, directory_descriptors_stay_few_and_root_close_closes_them_all)
{
	struct fixture *f = &fx;
	int before = tree_open_fds(), during; /* the watch and the root among them */
	char rel[64];

	for (int i = 0; i < 3 * ROOT_DIR_CACHE; i++) {
		snprintf(rel, sizeof rel, "d/%d/sub/f", i);
		tree_file(f->t.root, rel, "f\n");
	}
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 3 * ROOT_DIR_CACHE; i++) {
			char want[64], path[64];
			snprintf(rel, sizeof rel, "/d/%d/sub/f", i);
			snprintf(path, sizeof path, "/d/%d/sub/../sub/f", i);
			snprintf(want, sizeof want, "/d/%d/sub/f", i);
			expect_file(f, "", round ? path : rel, want, "f\n");
		}
	during = tree_open_fds();
	cr_assert(during <= before + ROOT_DIR_CACHE, "%d descriptors open, %d before", during,
		  before);
	root_close(&f->r);
	cr_assert_eq(tree_open_fds(), before - 1, "root_close closes the root and its directories");
	cr_assert_eq(root_open(&f->r, f->t.root, &f->e), 0);
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, root_open_of_a_missing_directory_or_a_file_says_why)
{
	struct fixture *f = &fx;
	struct root r;
	struct err e = {0};
	char p[PATH_MAX];

	tree_path(p, f->t.top, "nothing");
	cr_assert_eq(root_open(&r, p, &e), -1);
	T_STR_EQ(e.msg, "cannot open the root: No such file or directory", "a missing root");
	root_close(&r);
	tree_path(p, f->t.root, "x");
	cr_assert_eq(root_open(&r, p, &e), -1);
	T_STR_EQ(e.msg, "cannot open the root: Not a directory", "a file as the root");
	root_close(&r);
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, read_text_reads_a_file_through_links_whole_and_refuses_a_large_one)
{
	struct fixture *f = &fx;
	struct root_found found;
	struct buf text = {0};

	tree_link(f->t.root, "etc/conf-link", "/etc/../etc/ld.so.conf");
	cr_assert_eq(root_read_text(&f->r, "/etc/conf-link", 64, &text, &found, &f->e), 0, "%s",
		     f->e.msg);
	T_STR_EQ(text.p, "/opt/lib\n", "contents");
	cr_assert_eq(text.len, 9);
	T_STR_EQ(found.path, "/etc/ld.so.conf", "the file read");
	cr_assert_eq(found.fd, -1, "closed after reading");
	text.len = 0;
	cr_assert_eq(root_read_text(&f->r, "/etc/ld.so.conf", 8, &text, &found, &f->e), -1);
	T_STR_EQ(f->e.msg, "larger than 8 bytes", "a file over the limit (the caller names it)");
	cr_assert_eq(text.len, 0, "nothing read");
	cr_assert_eq(root_read_text(&f->r, "/usr/lib", 64, &text, &found, &f->e), -1);
	T_STR_EQ(f->e.msg, "not a regular file", "a directory");
	cr_assert_eq(root_read_text(&f->r, "/etc/none", 64, &text, &found, &f->e), 1);
	buf_free(&text);
	tree_assert_outside_untouched(&f->t, "after the test");
}

/* root_glob_dir gives the names `want` ('|' after each), n of them. */
static void expect_glob(struct fixture *f, const char *dir, const char *pattern, const char *want,
			long n)
{
	char s[256];
	struct buf out = {0};
	long got = root_glob_dir(&f->r, dir, pattern, &out, &f->e);

	cr_assert(out.len < sizeof s);
	for (size_t i = 0; i < out.len; i++)
		s[i] = out.p[i] ? out.p[i] : '|';
	s[out.len] = 0;
	buf_free(&out);
	T_STR_EQ(s, want, "%s in %s", pattern, dir);
	cr_assert_eq(got, n, "%s in %s: %ld names", pattern, dir, got);
	tree_assert_outside_untouched(&f->t, dir);
}

Test(root, glob_dir_lists_matching_names_sorted_without_dot_files)
{
	struct fixture *f = &fx;

	tree_file(f->t.root, "etc/ld.so.conf.d/b.conf", "");
	tree_file(f->t.root, "etc/ld.so.conf.d/a.conf", "");
	tree_file(f->t.root, "etc/ld.so.conf.d/.hidden.conf", "");
	tree_file(f->t.root, "etc/ld.so.conf.d/c.txt", "");
	tree_dir(f->t.root, "etc/ld.so.conf.d/sub.conf");
	tree_link(f->t.root, "etc/ld.so.conf.d/link.conf", "/nowhere");
	expect_glob(f, "/etc/ld.so.conf.d", "*.conf", "a.conf|b.conf|link.conf|sub.conf|", 4);
	expect_glob(f, "/etc/ld.so.conf.d", "[ab].*", "a.conf|b.conf|", 2);
	expect_glob(f, "/", "l*", "lib|lib64|", 2);
	expect_glob(f, "/etc/none", "*", "", 0);
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, glob_dir_never_follows_a_link_given_as_the_directory)
{
	struct fixture *f = &fx;

	tree_link(f->t.root, "conf.d", f->t.outside);
	/* The caller gives resolved directories: a link there is not one, and is not read. */
	expect_glob(f, "/conf.d", "*", "", 0);
	expect_glob(f, "/lib", "*", "", 0);
	tree_assert_outside_untouched(&f->t, "after the test");
}

Test(root, dirname_is_the_directory_of_an_absolute_path)
{
	char *d;

	T_STR_EQ(d = root_dirname("/usr/lib/libz.so.1"), "/usr/lib", "a file in /usr/lib");
	free(d);
	T_STR_EQ(d = root_dirname("/x"), "/", "a file at the top");
	free(d);
	T_STR_EQ(d = root_dirname("/"), "/", "the root");
	free(d);
}

Test(root, a_directory_moved_out_of_the_root_after_a_resolution_is_not_looked_into)
{
	struct fixture *f = &fx;
	char from[PATH_MAX], to[PATH_MAX];

	tree_file(f->t.root, "usr/lib/plugins/libp.so", "inside plugin\n");
	expect_file(f, "", "/usr/lib/plugins/libp.so", "/usr/lib/plugins/libp.so",
		    "inside plugin\n");
	/* The root changes under the tool (it is another's tree): the directory goes out of the
	 * root, and an empty one takes its name. */
	tree_path(from, f->t.root, "usr/lib/plugins");
	tree_path(to, f->t.outside, "plugins");
	cr_assert_eq(rename(from, to), 0);
	tree_dir(f->t.root, "usr/lib/plugins");
	tree_watch(&f->t, "plugins");
	expect_missing(f, "", "/usr/lib/plugins/libp.so");
	tree_assert_outside_untouched(&f->t, "after the test");
}
