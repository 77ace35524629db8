/* SPDX-License-Identifier: MIT */
/* test_closure_debian.c - --closure on a root of real Debian trixie packages (systemd 257,
 * whose libsystemd-shared carries dlopen notes; tests/closure/trixie-packages.txt), downloaded
 * once into the build directory by tests/closure/debian-root.sh.  For systemd-analyze at
 * `suggested` and `recommended`: a chroot made only from the listing runs it; every entry of
 * that priority or stronger that loads in the whole root loads in the copy too; `suggested`
 * libraries are left out at `recommended`; entries no alternative of which is in the root are
 * named; a deleted DT_NEEDED library makes exit 1. */
#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static char *debian_root(void)
{
	char build[4096];

	snprintf(build, sizeof build, "%s", tool());
	return sh("sh '%s/tests/closure/debian-root.sh' '%s/closure-cache' trixie '%s/tests/closure/trixie-packages.txt'",
		  srcdir(), dirname(build), srcdir());
}

/* The first of the space-separated NAMES that dlopen() loads inside DIR (a chroot with /proc),
 * "none" when none does. */
static char *first_loading(const char *dir, const char *names)
{
	struct cmd c = run("mkdir -p %s/proc && unshare -m --mount-proc=%s/%s/proc chroot %s /dlopen-first %s",
			   dir, workdir(), dir, dir, names);
	char *r = strdup(c.out);
	r[strcspn(r, "\n")] = 0;
	cmd_free(&c);
	return r;
}

/* The note entries of the listed files at priority P or stronger: "SONAME... PRIORITY" lines. */
static char *entries_at(const char *root, const char *list, const char *only)
{
	return sh("cd '%s' && while read -r p; do [ -L \".$p\" ] || printf '.%%s\\n' \"$p\"; done < '%s/%s' | "
		  "'%s' --list --format=sonames --only-priority=%s --skip-non-elf --files-from=-",
		  root, workdir(), list, tool(), only);
}

struct run_at {
	const char *prio, *only, *copy, *list;
};

/* One priority: the listing, the copy made from it, the program run there, each entry. */
static void closure_at(const char *root, const struct run_at *a, size_t *unavailable)
{
	struct cmd c = run("'%s' --closure --root='%s' --min-priority=%s /usr/bin/systemd-analyze > %s",
			   tool(), root, a->prio, a->list);
	char *out, *lines, *line, *save = NULL;

	cr_assert_eq(c.status, 0, "%s", c.err);
	free(sh("mkdir -p %s && (cd '%s' && sed 's|^/||' '%s/%s' | tar --no-recursion -T - -cf -) | tar -C %s -xf - && "
		"cp dlopen-first %s/", a->copy, root, workdir(), a->list, a->copy, a->copy));
	out = sh("mkdir -p %s/proc && unshare -m --mount-proc=%s/%s/proc chroot %s /usr/bin/systemd-analyze --version | head -n 1",
		 a->copy, workdir(), a->copy, a->copy);
	cr_expect(strncmp(out, "systemd 257", 11) == 0, "%s", out);
	free(out);
	*unavailable = 0;
	lines = entries_at(root, a->list, a->only);
	cr_expect(strstr(lines, "libzstd.so.1 recommended"), "%s", lines);
	for (line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *names = strdup(line), *in_whole, *in_copy;
		*strrchr(names, ' ') = 0;
		in_whole = first_loading("whole", names);
		in_copy = first_loading(a->copy, names);
		if (strcmp(in_whole, "none") == 0)
			(*unavailable)++;
		else
			cr_expect_str_eq(in_copy, in_whole, "%s at %s: loads in the root, not in the copy", names, a->prio);
		free(names);
		free(in_whole);
		free(in_copy);
	}
	/* Each entry none of whose sonames is in the root is named, once. */
	{
		size_t said = 0;
		for (const char *p = c.err; (p = strstr(p, "no soname of it is found")); p++)
			said++;
		cr_expect_eq(said, *unavailable, "%zu entries unavailable, %zu named: %s", *unavailable, said, c.err);
	}
	free(lines);
	cmd_free(&c);
}

Test(closure_debian, systemd_analyze_runs_from_its_closure_and_loads_its_noted_libraries, .timeout = 600)
{
	char *root = debian_root(), *left_out = NULL, *lines, *line, *save = NULL;
	struct run_at sug = {"suggested", "suggested,recommended,required", "copy-sug", "list-sug"},
		      rec = {"recommended", "recommended,required", "copy-rec", "list-rec"};
	size_t unavailable, unavailable_rec, shown = 0;
	struct cmd c;

	free(sh("gcc -o dlopen-first '%s/tests/closure/dlopen-first.c' && cp -al '%s' whole && cp dlopen-first whole/",
		srcdir(), root));
	closure_at(root, &sug, &unavailable);
	cr_expect(unavailable > 0, "the root leaves some suggested libraries out on purpose");
	closure_at(root, &rec, &unavailable_rec);
	cr_expect_eq(unavailable_rec, 0);
	/* At recommended, the suggested-only libraries that load in the root are not in the copy. */
	lines = entries_at(root, "list-sug", "suggested");
	for (line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *names = strdup(line), *in_whole, *in_rec;
		*strrchr(names, ' ') = 0;
		in_whole = first_loading("whole", names);
		in_rec = first_loading("copy-rec", names);
		if (strcmp(in_whole, "none") != 0 && strcmp(in_rec, "none") == 0) {
			shown++;
			if (strstr(names, "libqrencode"))
				left_out = strdup(names);
		}
		free(names);
		free(in_whole);
		free(in_rec);
	}
	cr_expect(shown >= 3 && left_out, "%zu suggested libraries left out at recommended: %s", shown, lines);
	free(left_out);
	free(lines);
	/* A deleted DT_NEEDED library: exit 1, naming it and the file that needs it. */
	free(sh("rm \"copy-rec$(readlink -f copy-rec/usr/lib/x86_64-linux-gnu/libacl.so.1 | sed 's|^%s/copy-rec||')\"", workdir()));
	c = run("'%s' --closure --root=copy-rec /usr/bin/systemd-analyze", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(strstr(c.err, "libacl.so.1 (DT_NEEDED) is not found in the root"), "%s", c.err);
	cmd_free(&c);
	free(root);
}

/* Debian 13's own loader as the oracle (issue 43, items 6a and 6b): it searches /lib/x86_64-linux-gnu,
 * /usr/lib/x86_64-linux-gnu, /lib and /usr/lib by itself, never /usr/lib64.  A program whose
 * note requires libzstd.so.1 finds trixie's libzstd1 in its multiarch directory, and the tool
 * lists it; moved to /usr/lib64 (in a copy of the root), the loader does not find it, and the
 * tool neither lists it nor exits 0 (it used to list /usr/lib64/libzstd.so.1.5.7). */
Test(closure_debian, libraries_outside_the_loaders_own_directories_are_found_as_trixies_loader_finds_them, .timeout = 600)
{
	char *root = debian_root(), *out;
	struct cmd c;

	free(sh("gcc -o dlopen-first '%s/tests/closure/dlopen-first.c' && "
		"echo '[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"}]' > zstd.json && "
		"'%s' --manifest zstd.json dlopen-first && cp -al '%s' r64 && cp dlopen-first r64/ && "
		"mkdir -p r64/usr/lib64 && mv r64/usr/lib/x86_64-linux-gnu/libzstd.so.1* r64/usr/lib64/ && "
		"cp -al '%s' whole && cp dlopen-first whole/",
		srcdir(), tool(), root, root));
	out = first_loading("whole", "libzstd.so.1");
	cr_expect_str_eq(out, "/lib/x86_64-linux-gnu/libzstd.so.1", "%s", out);
	free(out);
	out = sh("'%s' --closure --root=whole /dlopen-first", tool());
	cr_expect(strstr(out, "/usr/lib/x86_64-linux-gnu/libzstd.so.1.5.7\n"), "%s", out);
	free(out);
	out = first_loading("r64", "libzstd.so.1");
	cr_expect_str_eq(out, "none", "trixie's loader finds libzstd.so.1 in /usr/lib64: %s", out);
	free(out);
	c = run("'%s' --closure --root=r64 /dlopen-first", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(!strstr(c.out, "zstd"), "%s", c.out);
	cr_expect(strstr(c.err, "dlnote-inject: r64/dlopen-first: required \"zstd\" [\"libzstd.so.1\"]: no soname of it is found\n"),
		  "%s", c.err);
	cmd_free(&c);
	/* Item 6a: in /usr/local/lib, which trixie's ld.so.conf names, it is found through
	 * ld.so.cache only: not in this root without one (the tool neither lists it nor exits 0),
	 * then with the cache ldconfig writes (listed with the cache, and the copy loads it). */
	free(sh("mkdir -p r64/usr/local/lib && mv r64/usr/lib64/libzstd.so.1* r64/usr/local/lib/"));
	out = first_loading("r64", "libzstd.so.1");
	cr_expect_str_eq(out, "none", "trixie's loader finds /usr/local/lib without ld.so.cache: %s", out);
	free(out);
	c = run("'%s' --closure --root=r64 --format=json /dlopen-first", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(!strstr(c.out, "zstd"), "%s", c.out);
	cr_expect(strstr(c.err, "dlnote-inject: r64/usr/local/lib: holds libzstd.so.1, but the root has no /etc/ld.so.cache"),
		  "%s", c.err);
	cmd_free(&c);
	free(sh("ldconfig -X -r r64"));
	out = first_loading("r64", "libzstd.so.1");
	cr_expect_str_eq(out, "/usr/local/lib/libzstd.so.1", "%s", out);
	free(out);
	c = run("'%s' --closure --root=r64 /dlopen-first > list-local", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cmd_free(&c);
	out = get_file("list-local", NULL);
	cr_expect(strstr(out, "/etc/ld.so.cache\n") && strstr(out, "/usr/local/lib/libzstd.so.1.5.7\n"), "%s", out);
	free(out);
	free(sh("mkdir -p local-copy && (cd r64 && sed 's|^/||' '%s/list-local' | tar --no-recursion -T - -cf -) | tar -C local-copy -xf - && "
		"cp dlopen-first local-copy/", workdir()));
	out = first_loading("local-copy", "libzstd.so.1");
	cr_expect_str_eq(out, "/usr/local/lib/libzstd.so.1", "%s", out);
	free(out);
	free(root);
}
