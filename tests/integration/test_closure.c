/* SPDX-License-Identifier: MIT */
/* test_closure.c - --closure on roots built here (docs/closure.md): $ORIGIN runpaths and a
 * dlopen() through them, run in a chroot made only from the listing; DT_RPATH of the loader
 * chain against DT_RUNPATH; an i386 program in a multiarch root ($LIB, files of the wrong class
 * skipped); ld.so.conf and its includes; hostile roots (links out of the root, `..`
 * escapes, link loops, include loops, DT_NEEDED cycles) that neither escape nor hang; and,
 * with the root's loader in a chroot as the oracle, ld.so.conf without ld.so.cache and the
 * loader's own search path. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* The host's C library and loader, copied into ROOT's /usr/lib/x86_64-linux-gnu, with a
 * merged-/usr /lib64 link for the loader (as Debian trixie lays them out). */
static void host_libc(const char *root)
{
	free(sh("mkdir -p %s/usr/lib/x86_64-linux-gnu %s/usr/lib64 && "
		"cp -L /lib/x86_64-linux-gnu/libc.so.6 /lib64/ld-linux-x86-64.so.2 %s/usr/lib/x86_64-linux-gnu/ && "
		"ln -s usr/lib64 %s/lib64 && ln -s ../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 %s/usr/lib64/",
		root, root, root, root, root));
}

/* A library NAME.so.1 (soname NAME.so.1) whose function NAME() returns VALUE, in DIR as
 * NAME.so.1.0 with the soname link; LINKFLAGS adds needed libraries and runpaths. */
static void library(const char *dir, const char *name, int value, const char *body, const char *flags)
{
	free(sh("mkdir -p %s && printf '%%s\\n' '#include <dlfcn.h>' 'int %s(void) { %s return %d; }' > %s.c && "
		"gcc -shared -fPIC -Wl,--no-as-needed -o %s/%s.so.1.0 -Wl,-soname,%s.so.1 %s.c %s && ln -sf %s.so.1.0 %s/%s.so.1",
		dir, name, body, value, name, dir, name, name, name, flags, name, dir, name));
}

static char *closure(const char *args, int want_status)
{
	struct cmd c = run("timeout 60 '%s' --closure %s", tool(), args);
	char *out = strdup(c.out);
	cr_expect_eq(c.status, want_status, "--closure %s exits %d: %s", args, c.status, c.err);
	cmd_free(&c);
	return out;
}

/* Run COMMAND in a chroot of DIR with /proc mounted (glibc reads the program's $ORIGIN from
 * /proc/self/exe), in a mount namespace of its own: nothing stays mounted. */
static char *in_chroot(const char *dir, const char *command)
{
	return sh("mkdir -p %s/proc && unshare -m --mount-proc=%s/%s/proc chroot %s %s", dir, workdir(), dir, dir, command);
}

/* Copy the listed paths of ROOT (and only them) into COPY, as a user of the listing would. */
static void copy_listed(const char *root, const char *list, const char *copy)
{
	free(sh("mkdir -p %s && (cd %s && sed 's|^/||' '%s/%s' | tar --no-recursion -T - -cf -) | tar -C %s -xf -",
		copy, root, workdir(), list, copy));
}

Test(closure, origin_runpaths_and_a_dlopen_through_them_run_in_a_chroot_of_the_listing)
{
	char *out;

	host_libc("root");
	/* libbar: what libfoo dlopen()s, declared by a note of libfoo, found through libfoo's
	 * own RUNPATH ($ORIGIN); libbaz: suggested only. */
	library("root/opt/app/lib", "libbar", 42, "", "");
	library("root/opt/app/lib", "libbaz", 7, "", "");
	library("root/opt/app/lib", "libfoo", 0,
		"void *h = dlopen(\"libbar.so.1\", RTLD_NOW); int (*f)(void) = h ? (int (*)(void))dlsym(h, \"libbar\") : 0; if (f) return f();",
		"-Wl,-rpath,\\$ORIGIN");
	free(sh("'%s' --soname libbar.so.1 --priority recommended --feature baz --soname libbaz.so.1 --priority suggested "
		"root/opt/app/lib/libfoo.so.1.0", tool()));
	free(sh("mkdir -p root/opt/app/bin && printf '%%s\\n' '#include <stdio.h>' 'int libfoo(void);' "
		"'int main(void) { return printf(\"%%d\", libfoo()) < 0; }' > app.c && "
		"gcc -o root/opt/app/bin/app app.c -Lroot/opt/app/lib -l:libfoo.so.1 -Wl,--enable-new-dtags,-rpath,\\$ORIGIN/../lib"));
	out = closure("--root=root /opt/app/bin/app > list", 0);
	free(out);
	out = get_file("list", NULL);
	cr_expect_str_eq(out, "/lib64\n/opt/app/bin/app\n/opt/app/lib/libbar.so.1\n/opt/app/lib/libbar.so.1.0\n"
			      "/opt/app/lib/libfoo.so.1\n/opt/app/lib/libfoo.so.1.0\n"
			      "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n/usr/lib/x86_64-linux-gnu/libc.so.6\n"
			      "/usr/lib64/ld-linux-x86-64.so.2\n");
	free(out);
	/* The copy runs, and libfoo's dlopen() finds libbar there. */
	copy_listed("root", "list", "copy");
	out = in_chroot("copy", "/opt/app/bin/app");
	cr_expect_str_eq(out, "42");
	free(out);
	/* At suggested, libbaz too; JSON says why each path is there. */
	out = closure("--root=root --min-priority=suggested /opt/app/bin/app", 0);
	cr_expect(strstr(out, "/opt/app/lib/libbaz.so.1.0\n"), "%s", out);
	free(out);
	out = closure("--root=root --format=json /opt/app/bin/app", 0);
	cr_expect(strstr(out, "{\"path\":\"/opt/app/lib/libbar.so.1\",\"type\":\"symlink\",\"reasons\":["
			      "{\"kind\":\"link\",\"on_the_way_to\":\"/opt/app/lib/libbar.so.1.0\"}]}"), "%s", out);
	cr_expect(strstr(out, "{\"path\":\"/opt/app/lib/libbar.so.1.0\",\"type\":\"file\",\"reasons\":["
			      "{\"kind\":\"dlopen\",\"name\":\"libbar.so.1\",\"priority\":\"recommended\",\"by\":\"/opt/app/lib/libfoo.so.1.0\"}]}"),
		  "%s", out);
	cr_expect(strstr(out, "{\"kind\":\"needed\",\"name\":\"libfoo.so.1\",\"by\":\"/opt/app/bin/app\"}"), "%s", out);
	cr_expect(strstr(out, "{\"kind\":\"interpreter\",\"by\":\"/opt/app/bin/app\"}"), "%s", out);
	free(out);
	/* Without libbar, the chroot's dlopen() fails and the tool names the entry. */
	free(sh("rm root/opt/app/lib/libbar.so.1*"));
	{
		struct cmd c = run("'%s' --closure --root=root /opt/app/bin/app", tool());
		cr_expect_eq(c.status, 0, "%s", c.err);
		cr_expect_str_eq(c.err, "dlnote-inject: root/opt/app/lib/libfoo.so.1.0: recommended (no feature) [\"libbar.so.1\"]: "
					"no soname of it is found (left out)\n");
		cmd_free(&c);
	}
}

Test(closure, rpath_of_the_loader_chain_applies_only_without_runpath)
{
	char *out;

	host_libc("root");
	library("root/r1", "libb", 2, "", "");
	library("root/r1", "liba", 1, "", "-Lroot/r1 -l:libb.so.1");
	/* DT_RPATH of the program serves its library's DT_NEEDED too. */
	free(sh("echo 'int liba(void); int main(void) { return liba(); }' > app.c && "
		"gcc -Wl,--no-as-needed -o root/app-rpath app.c -Lroot/r1 -l:liba.so.1 -Wl,--disable-new-dtags,-rpath,/r1 && "
		"gcc -o root/app-runpath app.c -Lroot/r1 -l:liba.so.1 -Wl,--enable-new-dtags,-rpath,/r1"));
	out = closure("--root=root /app-rpath", 0);
	cr_expect(strstr(out, "/r1/libb.so.1.0\n"), "%s", out);
	free(out);
	/* DT_RUNPATH serves only the program's own DT_NEEDED: libb is not found. */
	{
		struct cmd c = run("'%s' --closure --root=root /app-runpath", tool());
		cr_expect_eq(c.status, 1);
		cr_expect_str_eq(c.err, "dlnote-inject: root/r1/liba.so.1.0: libb.so.1 (DT_NEEDED) is not found in the root\n");
		cr_expect(strstr(c.out, "/r1/liba.so.1.0\n") && !strstr(c.out, "libb"), "%s", c.out);
		cmd_free(&c);
	}
	/* And the real loader agrees, in a chroot of the root. */
	out = in_chroot("root", "/app-rpath; echo $?");
	cr_expect_str_eq(out, "1");
	free(out);
	{
		struct cmd c = run("mkdir -p root/proc && unshare -m --mount-proc=%s/root/proc chroot root /app-runpath", workdir());
		cr_expect_neq(c.status, 0);
		cr_expect(strstr(c.err, "libb.so.1"), "%s", c.err);
		cmd_free(&c);
	}
}

Test(closure, an_i386_program_in_a_multiarch_root_takes_i386_libraries)
{
	char *out;

	need("i686-linux-gnu-gcc");
	host_libc("root");
	/* Debian's multiarch layout: the i386 loader and libc beside the amd64 ones. */
	free(sh("mkdir -p root/usr/lib/i386-linux-gnu root/opt/wrong root/opt/lib/i386-linux-gnu root/etc/ld.so.conf.d && "
		"ln -s usr/lib root/lib && "
		"cp -L /usr/i686-linux-gnu/lib/libc.so.6 /usr/i686-linux-gnu/lib/ld-linux.so.2 root/usr/lib/i386-linux-gnu/ && "
		"ln -s i386-linux-gnu/ld-linux.so.2 root/usr/lib/ld-linux.so.2 && "
		"echo /usr/lib/i386-linux-gnu > root/etc/ld.so.conf.d/i386-linux-gnu.conf && "
		"echo 'include /etc/ld.so.conf.d/*.conf' > root/etc/ld.so.conf && "
		/* A 64-bit libq first in the search path: of the wrong class, skipped. */
		"echo 'int q(void) { return 5; }' > q.c && gcc -shared -fPIC -Wl,-soname,libq.so.1 -o root/opt/wrong/libq.so.1 q.c && "
		"i686-linux-gnu-gcc -shared -fPIC -Wl,-soname,libq.so.1 -o root/opt/lib/i386-linux-gnu/libq.so.1 q.c && "
		"echo 'int q(void); int main(void) { return q(); }' > app.c && "
		"i686-linux-gnu-gcc -o root/app32 app.c root/opt/lib/i386-linux-gnu/libq.so.1 "
		"-Wl,--enable-new-dtags,-rpath,/opt/wrong:/opt/\\$LIB && "
		"gcc -o root/app64 app.c root/opt/wrong/libq.so.1 -Wl,--enable-new-dtags,-rpath,/opt/wrong:/opt/\\$LIB"));
	out = closure("--root=root /app32", 0);
	/* Its interpreter through the /lib link; libc from ld.so.conf's directory. */
	cr_expect_str_eq(out, "/app32\n/lib\n/opt/lib/i386-linux-gnu/libq.so.1\n/usr/lib/i386-linux-gnu/ld-linux.so.2\n"
			      "/usr/lib/i386-linux-gnu/libc.so.6\n/usr/lib/ld-linux.so.2\n");
	free(out);
	out = closure("--root=root /app64", 0);
	/* libc through /lib/x86_64-linux-gnu, the first trusted directory, after the i386 one of
	 * ld.so.conf. */
	cr_expect_str_eq(out, "/app64\n/lib\n/lib64\n/opt/wrong/libq.so.1\n/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n"
			      "/usr/lib/x86_64-linux-gnu/libc.so.6\n/usr/lib64/ld-linux-x86-64.so.2\n");
	free(out);
}

Test(closure, ld_so_conf_includes_are_followed_inside_the_root_and_their_loop_cut)
{
	struct cmd c;

	host_libc("root");
	library("root/opt/a", "liba", 1, "", "");
	library("root/opt/c", "libc2", 2, "", "");
	library("root/opt/direct", "libd", 3, "", "");
	free(sh("mkdir -p root/etc/ld.so.conf.d root/etc/more && "
		"printf 'include ld.so.conf.d/*.conf\\n/opt/direct # a comment\\n' > root/etc/ld.so.conf && "
		"echo /opt/a > root/etc/ld.so.conf.d/a.conf && echo 'include /etc/more/*.conf' > root/etc/ld.so.conf.d/b.conf && "
		"echo /opt/nothing > root/etc/ld.so.conf.d/b.conf.disabled && "
		"printf '/opt/c\\ninclude /etc/ld.so.conf\\n' > root/etc/more/c.conf && : > root/etc/ld.so.cache && "
		"echo 'int liba(void), libc2(void), libd(void); int main(void) { return liba() + libc2() + libd(); }' > app.c && "
		"gcc -o root/app app.c -Lroot/opt/a -Lroot/opt/c -Lroot/opt/direct -l:liba.so.1 -l:libc2.so.1 -l:libd.so.1"));
	c = run("timeout 60 '%s' --closure --root=root /app", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.out, "/app\n/etc/ld.so.cache\n/lib64\n/opt/a/liba.so.1\n/opt/a/liba.so.1.0\n/opt/c/libc2.so.1\n"
				"/opt/c/libc2.so.1.0\n/opt/direct/libd.so.1\n/opt/direct/libd.so.1.0\n"
				"/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n/usr/lib/x86_64-linux-gnu/libc.so.6\n"
				"/usr/lib64/ld-linux-x86-64.so.2\n");
	cr_expect_str_eq(c.err, "dlnote-inject: root/etc/ld.so.conf: included again (an include loop?), not read\n");
	cmd_free(&c);
	/* Without the cache the root's loader does not search ld.so.conf's directories: those
	 * libraries are missing, and the copy would not start (found by review). */
	free(sh("rm root/etc/ld.so.cache"));
	c = run("timeout 60 '%s' --closure --root=root /app", tool());
	cr_expect_eq(c.status, 1, "%s", c.out);
	cr_expect(strstr(c.err, "dlnote-inject: root/opt/a: holds liba.so.1, but the root has no /etc/ld.so.cache") &&
			  strstr(c.err, "dlnote-inject: root/app: liba.so.1 (DT_NEEDED) is not found in the root\n"),
		  "%s", c.err);
	cmd_free(&c);
}

/* A DT_NEEDED whose name cannot be read (an offset past the string table) is not left out in
 * silence: what the file needs is not known, and the exit status says so (found by review). */
Test(closure, a_dynamic_name_that_cannot_be_read_is_missing_not_dropped)
{
	struct cmd c;

	host_libc("root");
	library("root/usr/lib/x86_64-linux-gnu", "libl", 1, "", "");
	free(sh("echo 'int libl(void); int main(void) { return libl(); }' > app.c && "
		"gcc -o root/app app.c -Lroot/usr/lib/x86_64-linux-gnu -l:libl.so.1"));
	/* the DT_NEEDED naming libl.so.1: its value becomes 0x100000 */
	free(sh("/usr/bin/python3 - root/app <<'EOF'\n"
		"import sys\nfrom elftools.elf.elffile import ELFFile\n"
		"f = open(sys.argv[1], 'r+b'); e = ELFFile(f); d = e.get_section_by_name('.dynamic')\n"
		"for i, t in enumerate(d.iter_tags()):\n"
		"    if t.entry.d_tag == 'DT_NEEDED' and t.needed == 'libl.so.1':\n"
		"        f.seek(d['sh_offset'] + i * d['sh_entsize'] + 8); f.write((0x100000).to_bytes(8, 'little'))\n"
		"f.close()\nEOF"));
	c = run("'%s' --closure --root=root /app", tool());
	cr_expect_eq(c.status, 1, "%s", c.out);
	cr_expect(strstr(c.err, "dlnote-inject: root/app: what it needs is not known: names of its dynamic table point outside "
				"its string table\n"),
		  "%s", c.err);
	cmd_free(&c);
}

/* The files of the host a run of the tool touched under `outside` (strace -y names every
 * descriptor's path, so a file reached through a directory descriptor is seen too). */
static char *touched(const char *args, const char *outside)
{
	return sh("timeout 60 strace -f -y -e trace=%%file,%%desc -o trace '%s' --closure %s >/dev/null 2>&1; "
		  "grep -F '%s' trace | grep -v -e '^[0-9]* execve' | head -n 5; true", tool(), args, outside);
}

Test(closure, hostile_roots_neither_escape_nor_hang)
{
	char outside[4096], *out, *seen;
	struct cmd c;

	host_libc("root");
	/* The host's copy of a library the program needs: a tool that escaped would find it. */
	snprintf(outside, sizeof outside, "%s/host", workdir());
	library("host", "libesc", 1, "", "");
	library("root/opt/build", "libesc", 1, "", "");
	free(sh("echo 'int libesc(void); int main(void) { return libesc(); }' > app.c && "
		"gcc -o root/app app.c -Lhost -l:libesc.so.1 -Wl,--enable-new-dtags,-rpath,/abs:/dots:/deep/x:/loop:/self && "
		"rm -r root/opt/build && "
		"ln -s %s root/abs && ln -s ../../../../../../../../../%s root/dots && "
		"mkdir -p root/deep && ln -s ../../host root/deep/x && "
		"ln -s loop2 root/loop && ln -s loop root/loop2 && ln -s self/self root/self && "
		"mkdir -p root/etc && echo 'include /etc/ld.so.conf' > root/etc/ld.so.conf",
		outside, outside));
	c = run("timeout 60 '%s' --closure --root=root /app", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(!strstr(c.out, "libesc"), "%s", c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: root/loop/libesc.so.1: more than 40 symbolic links (a loop?)\n"
				"dlnote-inject: root/self/libesc.so.1: more than 40 symbolic links (a loop?)\n"
				"dlnote-inject: root/etc/ld.so.conf: included again (an include loop?), not read\n"
				"dlnote-inject: root/app: libesc.so.1 (DT_NEEDED) is not found in the root\n");
	/* (each looping directory once, not once per library searched there) */
	cmd_free(&c);
	seen = touched("--root=root /app", outside);
	cr_expect_str_empty(seen, "the tool touched the host's files:\n%s", seen);
	free(seen);
	/* FILE itself through a link out of the root, and a `..` escape in FILE. */
	free(sh("ln -s %s/libesc.so.1.0 root/escape", outside));
	c = run("'%s' --closure --root=root /escape ../../host/libesc.so.1.0", tool());
	cr_expect_eq(c.status, 1);
	cr_expect_str_empty(c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: root/escape: no such file in the root (FILE names a path inside it)\n"
				"dlnote-inject: root/../../host/libesc.so.1.0: no such file in the root (FILE names a path inside it)\n");
	cmd_free(&c);
	/* A DT_NEEDED cycle ends. */
	free(sh("mkdir -p root/usr/lib/x86_64-linux-gnu && cd root/usr/lib/x86_64-linux-gnu && "
		"echo 'int y(void) { return 0; }' > %s/y.c && echo 'int x(void) { return 0; }' > %s/x.c && "
		"gcc -shared -fPIC -Wl,-soname,liby.so.1 -o liby.so.1 %s/y.c && "
		"gcc -shared -fPIC -Wl,--no-as-needed -Wl,-soname,libx.so.1 -o libx.so.1 %s/x.c -L. -l:liby.so.1 && "
		"gcc -shared -fPIC -Wl,--no-as-needed -Wl,-soname,liby.so.1 -o liby.so.1 %s/y.c -L. -l:libx.so.1",
		workdir(), workdir(), workdir(), workdir(), workdir()));
	out = closure("--root=root /usr/lib/x86_64-linux-gnu/libx.so.1", 0);
	cr_expect_str_eq(out, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2\n/usr/lib/x86_64-linux-gnu/libc.so.6\n"
			      "/usr/lib/x86_64-linux-gnu/libx.so.1\n"
			      "/usr/lib/x86_64-linux-gnu/liby.so.1\n");
	free(out);
}

Test(closure, a_name_with_a_newline_is_listed_by_json_only)
{
	struct cmd c;

	host_libc("root");
	free(sh("echo 'int main(void) { return 0; }' > app.c && gcc -o \"root/a$(printf '\\nb')\" app.c"));
	c = run("'%s' --closure --root=root \"/a$(printf '\\nb')\"", tool());
	cr_expect_eq(c.status, 1);
	cr_expect(!strstr(c.out, "/a\n"), "%s", c.out);
	cr_expect(strstr(c.err, "root/a\\nb: a name with a newline: listed by --format=json only"), "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --closure --format=json --root=root \"/a$(printf '\\nb')\"", tool());
	cr_expect_eq(c.status, 0);
	cr_expect(strstr(c.out, "{\"path\":\"/a\\\\nb\",\"type\":\"file\""), "%s", c.out);
	cmd_free(&c);
}

/* A DT_NEEDED name is the file's bytes: a control character, a quote, a backslash and a byte
 * that is not UTF-8 in it, and --format=json still writes JSON, naming it as the messages do
 * (buf_put_text: \001 and \xff C-style, the quote and the backslash as they are).  It wrote the
 * name raw: no JSON reader took the document (issue 45, the writers' escaping). */
Test(closure, a_hostile_needed_name_is_json_text)
{
	char *got;

	host_libc("root");
	free(sh("printf 'int f(void) { return 0; }' > f.c && "
		"name=$(printf 'lib\\001\"\\\\\\377x.so') && "
		"gcc -shared -fPIC -o \"root/usr/lib/x86_64-linux-gnu/$name\" -Wl,-soname,\"$name\" f.c && "
		"printf 'int f(void); int main(void) { return f(); }' > a.c && "
		"gcc -o root/app a.c \"root/usr/lib/x86_64-linux-gnu/$name\""));
	got = sh("'%s' --closure --format=json --root=root /app > out.json; "
		 "/usr/bin/python3 -c 'import json\n"
		 "for p in json.load(open(\"out.json\", \"rb\")):\n"
		 "    for r in p[\"reasons\"]:\n"
		 "        if r[\"kind\"] == \"needed\" and \"x.so\" in r[\"name\"]: print(p[\"path\"], r[\"name\"])' "
		 "2>&1",
		 tool());
	cr_expect_str_eq(got, "/usr/lib/x86_64-linux-gnu/lib\\001\"\\\\xffx.so lib\\001\"\\\\xffx.so", "%s", got);
	free(got);
}

Test(closure, usage_errors)
{
	struct cmd c = run("'%s' --root=/ --list x", tool());
	cr_expect_eq(c.status, 2);
	cr_expect(strstr(c.err, "--root is only for --closure"), "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --closure --min-priority=high x", tool());
	cr_expect_eq(c.status, 2);
	cr_expect(strstr(c.err, "--min-priority: 'high' is not required, recommended or suggested"), "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --closure --format=rpm x", tool());
	cr_expect_eq(c.status, 2);
	cmd_free(&c);
}

/* ---- the root's own loader as the oracle (issue 43, item 6) ---- */

/* tests/closure/dlopen-first.c, built into ROOT/app with a note of ENTRIES (a manifest): it
 * dlopen()s the names it is given and prints the path of the first that loads, "none" else. */
static void dlopen_program(const char *root, const char *entries)
{
	put_file("entries.json", entries);
	free(sh("gcc -o %s/app '%s/tests/closure/dlopen-first.c' && '%s' --manifest entries.json %s/app", root, srcdir(),
		tool(), root));
}

/* What the loader of DIR loads for NAMES, in a chroot of DIR. */
static char *loads_in(const char *dir, const char *names)
{
	char cmd[512];

	snprintf(cmd, sizeof cmd, "/app %s || true", names);
	return in_chroot(dir, cmd);
}

/* A library that only ld.so.conf names, in a root without ld.so.cache: the loader does not find
 * it, so it is neither listed nor followed; with the cache ldconfig writes, it is both (the
 * listing used to hold the library with "reasons": [], while stderr said it was left out). */
Test(closure, a_library_of_ld_so_conf_without_the_cache_is_not_listed_as_the_loader_agrees)
{
	struct cmd c;
	char *out;

	host_libc("root");
	library("root/opt/n", "libn", 1, "", "");
	free(sh("mkdir -p root/etc && echo /opt/n > root/etc/ld.so.conf"));
	dlopen_program("root", "[{\"soname\":[\"libn.so.1\"],\"feature\":\"n\"}]");
	out = loads_in("root", "libn.so.1");
	cr_expect_str_eq(out, "none", "the root's loader finds libn.so.1 without ld.so.cache: %s", out);
	free(out);
	c = run("'%s' --closure --root=root /app > list", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: root/opt/n: holds libn.so.1, but the root has no /etc/ld.so.cache") &&
			  strstr(c.err, "dlnote-inject: root/app: recommended \"n\" [\"libn.so.1\"]: no soname of it is found (left out)\n"),
		  "%s", c.err);
	cmd_free(&c);
	out = get_file("list", NULL);
	cr_expect(!strstr(out, "/opt/n"), "listed although the loader does not find it:\n%s", out);
	free(out);
	out = closure("--root=root --format=json /app", 0);
	cr_expect(!strstr(out, "/opt/n") && !strstr(out, "\"reasons\":[]"), "%s", out);
	free(out);
	/* The cache that ldconfig writes: the loader finds the library, and so does the tool. */
	free(sh("ldconfig -r root"));
	out = loads_in("root", "libn.so.1");
	cr_expect_str_eq(out, "/opt/n/libn.so.1", "%s", out);
	free(out);
	out = closure("--root=root /app > list2", 0);
	free(out);
	out = get_file("list2", NULL);
	cr_expect(strstr(out, "/etc/ld.so.cache\n") && strstr(out, "/opt/n/libn.so.1.0\n"), "%s", out);
	free(out);
	copy_listed("root", "list2", "copy");
	out = loads_in("copy", "libn.so.1");
	cr_expect_str_eq(out, "/opt/n/libn.so.1", "%s", out);
	free(out);
}

/* The directories a Debian loader searches by itself are its own (`ld.so --help`: /lib/TRIPLET,
 * /usr/lib/TRIPLET, /lib, /usr/lib), read from the root's loader: not /usr/lib64.  A required
 * library only there is missing, and a 64-bit copy there is not taken where the multiarch
 * directory holds a 32-bit one, as the loader in a chroot shows (both used to be listed, exit
 * 0).  The same library in /usr/lib is found by both, and the copy of the listing runs. */
Test(closure, the_trusted_directories_are_the_root_loaders_own)
{
	struct cmd c;
	char *out;

	need("i686-linux-gnu-gcc");
	host_libc("root");
	out = sh("/lib64/ld-linux-x86-64.so.2 --help | grep -c 'lib64 (system search path)'; true");
	cr_assert_str_eq(out, "0", "this host's loader searches a lib64 directory: the test needs Debian's");
	free(out);
	library("root/usr/lib64", "libr", 1, "", "");
	dlopen_program("root", "[{\"soname\":[\"libr.so.1\"],\"feature\":\"r\",\"priority\":\"required\"}]");
	out = loads_in("root", "libr.so.1");
	cr_expect_str_eq(out, "none", "the root's loader finds /usr/lib64/libr.so.1: %s", out);
	free(out);
	c = run("'%s' --closure --root=root /app", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(!strstr(c.out, "libr"), "%s", c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: root/app: required \"r\" [\"libr.so.1\"]: no soname of it is found\n");
	cmd_free(&c);
	/* A 32-bit libq in the multiarch directory, a 64-bit one in /usr/lib64. */
	free(sh("echo 'int q(void) { return 0; }' > q.c && "
		"i686-linux-gnu-gcc -shared -fPIC -Wl,-soname,libq.so.1 -o root/usr/lib/x86_64-linux-gnu/libq.so.1 q.c && "
		"gcc -shared -fPIC -Wl,-soname,libq.so.1 -o root/usr/lib64/libq.so.1 q.c && "
		"echo 'int q(void); int main(void) { return q(); }' > appq.c && gcc -o root/appq appq.c root/usr/lib64/libq.so.1"));
	c = run("mkdir -p root/proc && unshare -m --mount-proc=%s/root/proc chroot root /appq", workdir());
	cr_expect_neq(c.status, 0, "the root's loader runs /appq");
	cr_expect(strstr(c.err, "libq.so.1"), "%s", c.err);
	cmd_free(&c);
	c = run("'%s' --closure --root=root /appq", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(!strstr(c.out, "libq"), "%s", c.out);
	cr_expect_str_eq(c.err, "dlnote-inject: root/appq: libq.so.1 (DT_NEEDED) is not found in the root\n");
	cmd_free(&c);
	/* In /usr/lib, a directory of the loader's own, both find it. */
	free(sh("mkdir -p root/usr/lib && mv root/usr/lib64/libq.so.1 root/usr/lib/"));
	out = in_chroot("root", "/appq; echo $?");
	cr_expect_str_eq(out, "0");
	free(out);
	out = closure("--root=root /appq > list", 0);
	free(out);
	out = get_file("list", NULL);
	cr_expect(strstr(out, "/usr/lib/libq.so.1\n"), "%s", out);
	free(out);
	copy_listed("root", "list", "copy");
	out = in_chroot("copy", "/appq; echo $?");
	cr_expect_str_eq(out, "0");
	free(out);
}

/* A loader whose search path cannot be read (here not glibc's: a copy of libz in its place)
 * leaves the usual directories, said once, with the loader's path; -v names a path read. */
Test(closure, a_loader_without_a_readable_search_path_is_said_and_the_usual_directories_searched)
{
	struct cmd c;
	char *help = sh("/lib64/ld-linux-x86-64.so.2 --help | sed -n 's/^  *\\(.*\\) (system search path)$/\\1/p' | paste -sd:"),
	     want[1024];

	host_libc("root");
	free(sh("echo 'int main(void) { return 0; }' > app.c && gcc -o root/app app.c && gcc -o root/app2 app.c"));
	c = run("'%s' -v --closure --root=root /app", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	snprintf(want, sizeof want, "dlnote-inject: root/lib64/ld-linux-x86-64.so.2: its system search path: %s\n", help);
	cr_expect(help[0] && strstr(c.err, want), "%s", c.err);
	free(help);
	cmd_free(&c);
	free(sh("cp -L --remove-destination /lib/x86_64-linux-gnu/libz.so.1 root/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"));
	c = run("'%s' --closure --root=root /app /app2", tool());
	cr_expect_eq(c.status, 0, "%s", c.err);
	cr_expect_str_eq(c.err, "dlnote-inject: root/lib64/ld-linux-x86-64.so.2: no system search path in its read-only data "
				"(not glibc's ld.so?): searching /lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
				"/lib:/usr/lib instead\n");
	cr_expect(strstr(c.out, "/usr/lib/x86_64-linux-gnu/libc.so.6\n"), "%s", c.out);
	cmd_free(&c);
}

/* A note the file carries with an entry of an invalid priority ("optional", after a valid
 * entry): every mode that reads the notes takes none of the file's entries and exits 1 naming
 * the note (--list, --format=sonames), and so does --closure, which used to follow the valid
 * entry while it said the file's needs were not known.  The root's loader loads liba.so.1 in the
 * whole root, not in the copy of the listing: the exit status says the copy may lack it. */
Test(closure, a_note_with_an_invalid_entry_is_followed_for_none_of_its_entries_as_list_reads_it)
{
	struct cmd c, l;
	char *out;

	host_libc("root");
	library("root/usr/lib/x86_64-linux-gnu", "liba", 1, "", "");
	library("root/usr/lib/x86_64-linux-gnu", "libb", 2, "", "");
	put_file("note.s", "\t.section .note.dlopen,\"a\",%note\n\t.balign 4\n\t.long 4\n\t.long 2f-1f\n\t.long 0x407c0c0a\n"
			   "\t.asciz \"FDO\"\n1:\t.asciz \"[{\\\"soname\\\":[\\\"liba.so.1\\\"],\\\"feature\\\":\\\"a\\\"},"
			   "{\\\"soname\\\":[\\\"libb.so.1\\\"],\\\"feature\\\":\\\"b\\\",\\\"priority\\\":\\\"optional\\\"}]\"\n"
			   "2:\t.balign 4\n\t.section .note.GNU-stack,\"\",%progbits\n");
	free(sh("gcc -o root/app '%s/tests/closure/dlopen-first.c' note.s", srcdir()));
	l = run("'%s' --list --format=sonames root/app", tool());
	cr_expect_eq(l.status, 1);
	cr_expect_str_empty(l.out, "--list takes entries of the note: %s", l.out);
	c = run("'%s' --closure --root=root /app > list", tool());
	cr_expect_eq(c.status, 1, "%s", c.err);
	cr_expect(strstr(c.err, "dlnote-inject: root/app: what it needs is not known: ") &&
			  strstr(c.err, "\"priority\" must be \"required\", \"recommended\" or \"suggested\""),
		  "%s", c.err);
	cmd_free(&c);
	cmd_free(&l);
	out = get_file("list", NULL);
	cr_expect(!strstr(out, "liba") && !strstr(out, "libb"), "a note entry followed:\n%s", out);
	free(out);
	copy_listed("root", "list", "copy");
	out = loads_in("root", "liba.so.1");
	cr_expect_str_eq(out, "/usr/lib/x86_64-linux-gnu/liba.so.1");
	free(out);
	out = loads_in("copy", "liba.so.1");
	cr_expect_str_eq(out, "none");
	free(out);
}
