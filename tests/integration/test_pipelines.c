/* SPDX-License-Identifier: MIT */
/* test_pipelines.c - injected files go through the distributions' debug pipelines exactly like
 * their uninjected twins: rpm's find-debuginfo (its steps one by one, and the real script on a
 * buildroot), Debian's dh_dwz and dh_strip (then gdb through the separate debug file), and
 * chains of two rewriters (objcopy, strip, eu-strip, dwz, patchelf) in both orders.
 *
 * Each input, built here with -g, is copied twice: the twin stays as it is, the other copy gets
 * a two-entry manifest from the tool.  Every step runs on both alike and must exit and complain
 * (stderr, file names normalized) the same on both.  Afterwards the program runs the same, the
 * injected file still carries the entries, through sections and through PT_NOTE, and eu-elflint
 * says of it what it says of the twin.  Inputs: gcc with bfd (PIE with separate code, without,
 * no-pie, static-pie), gold, lld and mold on x86_64; bfd for aarch64, i686 and powerpc64le,
 * run under qemu-user.  Programs, and shared libraries loaded by a program linked with them. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static const char prog_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n\n"
	"int main(void)\n{\n"
	"\tvoid *z = dlopen(\"libz.so.1\", RTLD_NOW);\n\n"
	"\tprintf(\"zlib %s\\n\", z && dlsym(z, \"zlibVersion\") ? \"found\" : \"missing\");\n"
	"\treturn 3;\n}\n";
static const char plug_c[] =
	"#include <dlfcn.h>\n\n"
	"int plug_zlib(void)\n{\n"
	"\tvoid *z = dlopen(\"libz.so.1\", RTLD_NOW);\n\n"
	"\treturn z && dlsym(z, \"zlibVersion\");\n}\n";
static const char use_c[] =
	"#include <stdio.h>\n\nint plug_zlib(void);\n\n"
	"int main(void)\n{\n"
	"\tprintf(\"plug zlib %s\\n\", plug_zlib() ? \"found\" : \"missing\");\n"
	"\treturn 3;\n}\n";
static const char manifest[] =
	"[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"description\":\"Read compressed input\","
	"\"priority\":\"recommended\"},\n"
	" {\"soname\":[\"libzstd.so.1\",\"libzstd.so.0\"],\"feature\":\"zstd\",\"priority\":\"suggested\"}]\n";

struct input {
	const char *name;
	const char *triplet;   /* cross toolchain, binutils and qemu-user root; "" natively */
	const char *qemu;      /* qemu-user program; "" natively */
	const char *flags;     /* the variant's compiler and linker flags */
	const char *linker;    /* the program the variant needs besides the compiler; "" for none */
	int lib;               /* a shared library, loaded by ./use */
};

/* A step runs in the directory of one side, with $F the file, $P the binutils prefix (cross
 * binutils, as dh_strip's cross_command uses them), $U --strip-unneeded for shared libraries
 * (as dh_strip adds it) and $B the build directory (where the sources were compiled). */
struct step {
	const char *what;
	const char *cmd;
};

/* rpm's find-debuginfo on each file (do_file, strip_to_debug), then its dwz run. */
static const struct step fd_steps[] = {
	{ "debugedit", "debugedit -b \"$B\" -d /usr/src/debug -i $F" },
	{ "objcopy --merge-notes", "${P}objcopy --merge-notes $F" },
	{ "eu-strip -f", "eu-strip --remove-comment -f $F.debug $F" },
	{ "dwz on the debug file", "dwz $F.debug" },
};

/* debhelper's dh_dwz, then dh_strip as it runs the tools for a dbgsym package. */
static const struct step dh_steps[] = {
	{ "dh_dwz: dwz", "dwz -- $F" },
	{ "dh_strip: objcopy --only-keep-debug",
	  "${P}objcopy --only-keep-debug --compress-debug-sections $F $F.dbg" },
	{ "dh_strip: strip", "${P}strip --remove-section=.comment --remove-section=.note $U $F" },
	{ "dh_strip: objcopy --add-gnu-debuglink", "${P}objcopy --add-gnu-debuglink $F.dbg $F" },
};

/* The rewriters chained two by two: X(arg, name, command). */
#define REWRITERS(X, arg)                                                                   \
	X(arg, objcopy, "${P}objcopy $F")                                                   \
	X(arg, strip, "${P}strip $F")                                                       \
	X(arg, strip_g, "${P}strip -g $F")                                                  \
	X(arg, eu_strip, "eu-strip $F")                                                     \
	X(arg, eu_strip_f, "eu-strip -f $F.debug $F")                                       \
	X(arg, debuglink,                                                                   \
	  "${P}objcopy --only-keep-debug $F $F.dbg && ${P}objcopy --add-gnu-debuglink=$F.dbg $F") \
	X(arg, compress_debug, "${P}objcopy --compress-debug-sections $F")                  \
	X(arg, dwz, "dwz $F")                                                               \
	X(arg, patchelf, "patchelf --set-rpath /opt/x $F")

#define REWRITER_ID(arg, name, cmd) RW_##name,
#define REWRITER_STEP(arg, name, cmd) { cmd, cmd },
enum { REWRITERS(REWRITER_ID, _) RW_COUNT };
static const struct step rewriters[] = { REWRITERS(REWRITER_STEP, _) };

/* The pairs run on every input but the two that run them all. */
static const int representative_pairs[][2] = {
	{ RW_objcopy, RW_eu_strip },
	{ RW_eu_strip, RW_objcopy },
	{ RW_dwz, RW_strip },
	{ RW_patchelf, RW_eu_strip },
};

/* The two copies a pipeline runs on: dir[0] holds the twin, dir[1] the injected file. */
struct sides {
	char dir[2][256];
};

struct ctx {
	const struct input *in;
	const char *file;      /* prog or libplug.so.1 */
	char *entries;         /* the freshly injected file's, by section (--list --json) */
};

/* PROGRAM of the input's toolchain: "aarch64-linux-gnu-gcc", "gcc". */
static char *cross(const struct input *in, const char *program)
{
	char *s;

	cr_assert(asprintf(&s, "%s%s%s", in->triplet, in->triplet[0] ? "-" : "", program) >= 0);
	return s;
}

/* What the program in DIR prints and its exit status; for a library, ./use loading it from DIR. */
static char *run_in(const struct ctx *x, const char *dir)
{
	char qemu[128] = "", *s;
	struct cmd c;

	if (x->in->qemu[0])
		snprintf(qemu, sizeof qemu, "%s -L /usr/%s ", x->in->qemu, x->in->triplet);
	if (x->in->lib)
		c = run("%s%sLD_LIBRARY_PATH=%s ./use 2>&1", qemu, qemu[0] ? "-E " : "env ", dir);
	else
		c = run("%s%s/prog 2>&1", qemu, dir);
	cr_assert(asprintf(&s, "%sexit %d", c.out, c.status) > 0);
	cmd_free(&c);
	return s;
}

/* TEXT with every FROM replaced by TO. */
static char *replaced(const char *text, const char *from, const char *to)
{
	size_t n = 0, lf = strlen(from), lt = strlen(to);
	const char *p;
	char *s, *o;

	for (p = text; (p = strstr(p, from)); p += lf)
		n++;
	o = s = malloc(strlen(text) + n * lt + 1);
	for (p = text; n--;) {
		const char *hit = strstr(p, from);

		memcpy(o, p, (size_t)(hit - p));
		o += hit - p;
		memcpy(o, to, lt);
		o += lt;
		p = hit + lf;
	}
	strcpy(o, p);
	return s;
}

/* TEXT with the absolute path of DIR (one side) written SIDE. */
static char *normalized(const char *text, const char *dir)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/%s", workdir(), dir);
	return replaced(text, path, "SIDE");
}

/* Build the input in orig/ and inject a copy in fresh/.  Returns 0 in check-all's sanitized
 * pass: there tool_edit checks that the sanitized tool writes the bytes the first pass checked. */
static int prepare(struct ctx *x, const struct input *in)
{
	static const char *const binutils[] = { "objcopy", "strip" };
	char *cc = cross(in, "gcc"), *ran, path[64];

	x->in = in;
	x->file = in->lib ? "libplug.so.1" : "prog";
	need(cc);
	for (size_t i = 0; i < sizeof binutils / sizeof binutils[0]; i++) {
		char *b = cross(in, binutils[i]);

		need(b);
		free(b);
	}
	if (in->linker[0])
		need(in->linker);
	if (in->qemu[0])
		need(in->qemu);
	need("eu-elflint");
	put_file("prog.c", prog_c);
	put_file("plug.c", plug_c);
	put_file("use.c", use_c);
	put_file("manifest.json", manifest);
	if (in->lib)
		free(sh("mkdir -p orig fresh && %s -g -O2 -fPIC -shared %s -Wl,-soname,libplug.so.1 "
			"-o orig/libplug.so.1 plug.c && %s -g -O2 -o use use.c -Lorig -l:libplug.so.1",
			cc, in->flags, cc));
	else
		free(sh("mkdir -p orig fresh && %s -g -O2 %s -o orig/prog prog.c", cc, in->flags));
	free(cc);
	ran = run_in(x, "orig");
	cr_assert(strstr(ran, "exit 3"), "%s: the input itself does not run: %s", in->name, ran);
	free(ran);
	snprintf(path, sizeof path, "fresh/%s", x->file);
	free(sh("cp orig/%s %s", x->file, path));
	free(tool_edit(path, "-m manifest.json"));
	if (plain_tool())
		return 0;
	x->entries = entries_by("tool", path);
	cr_assert(strcmp(x->entries, "[]") != 0, "%s: the injected file lists no entries", in->name);
	return 1;
}

/* DIR/twin and DIR/inj: a copy of the input and of the injected file. */
static void sides_in(const struct ctx *x, const char *dir, struct sides *sd)
{
	snprintf(sd->dir[0], sizeof sd->dir[0], "%s/twin", dir);
	snprintf(sd->dir[1], sizeof sd->dir[1], "%s/inj", dir);
	free(sh("mkdir -p %s %s && cp orig/%s %s/ && cp fresh/%s %s/", sd->dir[0], sd->dir[1], x->file,
		sd->dir[0], x->file, sd->dir[1]));
}

/* Step S on the file in DIR. */
static struct cmd run_step(const struct ctx *x, const char *dir, const struct step *s)
{
	char *p = cross(x->in, "");
	struct cmd c = run("cd %s && F=%s P=%s U=%s B='%s' && %s", dir, x->file, p,
			   x->in->lib ? "--strip-unneeded" : "''", workdir(), s->cmd);

	free(p);
	return c;
}

/* One step on both sides: the injected file must exit and complain as its twin does. */
static void step_both(const struct ctx *x, const struct sides *sd, const struct step *s)
{
	struct cmd c[2];
	char *err[2];

	for (int i = 0; i < 2; i++) {
		c[i] = run_step(x, sd->dir[i], s);
		err[i] = normalized(c[i].err, sd->dir[i]);
	}
	cr_expect_eq(c[1].status, c[0].status,
		     "%s: %s exits %d on the injected file, %d on its twin; it says\n%s\nand\n%s",
		     x->in->name, s->what, c[1].status, c[0].status, err[1], err[0]);
	cr_expect_str_eq(err[1], err[0], "%s: %s says on the injected file\n%s\nand on its twin\n%s",
			 x->in->name, s->what, err[1], err[0]);
	for (int i = 0; i < 2; i++) {
		cmd_free(&c[i]);
		free(err[i]);
	}
}

static void steps_both(const struct ctx *x, const struct sides *sd, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		step_both(x, sd, &steps[i]);
}

/* The PT_NOTE walker (readers.py segments) on the freshly injected file, then on the injected
 * file of each of the N pairs of sides SD: one Python process for all. */
static void read_segments(const struct ctx *x, const struct sides *sd, size_t n, char **got)
{
	char args[8192];
	size_t len = (size_t)snprintf(args, sizeof args, "segments fresh/%s", x->file);

	for (size_t i = 0; i < n && len < sizeof args; i++)
		len += (size_t)snprintf(args + len, sizeof args - len, " -- segments %s/%s", sd[i].dir[1],
					x->file);
	cr_assert(len < sizeof args);
	readers_batch(got, (int)n + 1, "%s", args);
	cr_expect_str_eq(got[0], x->entries, "%s: freshly injected, PT_NOTE gives %s, the sections %s",
			 x->in->name, got[0], x->entries);
}

/* The first line of `lint` (eu-elflint of the injected file) that the twin's `twin` lacks, or
 * NULL.  Section and symbol numbers are left out: the injected file's sections are renumbered. */
static char *lint_normalized(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	cr_assert(out);
	while (*s) {
		if (*s == '[') {            /* "[ 12]" -> "[N]" */
			const char *q = s + 1;
			while (*q == ' ')
				q++;
			if (*q >= '0' && *q <= '9') {
				while (*q >= '0' && *q <= '9')
					q++;
				if (*q == ']') {
					o += sprintf(o, "[N]");
					s = q + 1;
					continue;
				}
			}
		}
		if (strncmp(s, "symbol ", 7) == 0 && s[7] >= '0' && s[7] <= '9') {
			o += sprintf(o, "symbol N");
			for (s += 7; *s >= '0' && *s <= '9'; s++)
				;
			continue;
		}
		*o++ = *s++;
	}
	*o = '\0';
	return out;
}

/* Two kinds of complaint are about mold's own output, whatever rewriters do to it, and
 * eu-elflint words them after the layout they meet: mold's `.relro_padding` (NOBITS in
 * PT_GNU_RELRO, which eu-elflint takes for a misnamed relocation section) and its 8-aligned
 * PT_NOTE holding 4-aligned notes (shared/REFERENCE.md §3: "extra bytes after last note" or
 * "cannot get content"). */
static int mold_quirk(const char *line, size_t n)
{
	char *l = strndup(line, n);
	int q = strstr(l, "'.relro_padding'") || (strncmp(l, "phdr[N]:", 8) == 0 && (strstr(l, "after last note") ||
										strstr(l, "cannot get content of note")));

	free(l);
	return q;
}

static char *new_complaint(const char *lint, const char *twin)
{
	char *norm_l = lint_normalized(lint), *norm_t = lint_normalized(twin), *line = norm_l, *found = NULL;
	int mold = strstr(norm_t, "'.relro_padding'") != NULL;

	while (line && *line) {
		char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char *dup = strndup(line, n), *hit = norm_t;
		int ok = mold && mold_quirk(line, n);
		while ((hit = strstr(hit, dup)) && !ok) {
			ok = (hit == norm_t || hit[-1] == '\n') && (hit[n] == '\n' || hit[n] == '\0');
			hit++;
		}
		if (!ok) {
			found = dup;
			break;
		}
		free(dup);
		line = end ? end + 1 : NULL;
	}
	free(norm_l);
	free(norm_t);
	return found;
}

/* After a pipeline (AFTER says which): the program runs as its twin does, eu-elflint says
 * nothing of it that it does not say of the twin, and the injected file still has the entries
 * it had when freshly injected, by
 * section and by PT_NOTE (SEGMENTS and FRESH: what read_segments found after and before). */
static void check_sides(const struct ctx *x, const struct sides *sd, const char *after,
			const char *segments, const char *fresh)
{
	char f[2][300], *ran[2], *lint[2], *got;

	for (int i = 0; i < 2; i++) {
		snprintf(f[i], sizeof f[i], "%s/%s", sd->dir[i], x->file);
		ran[i] = run_in(x, sd->dir[i]);
		lint[i] = elflint(f[i]);
	}
	cr_expect_str_eq(ran[1], ran[0], "%s: after %s the injected file runs as\n%s\nits twin as\n%s",
			 x->in->name, after, ran[1], ran[0]);
	got = new_complaint(lint[1], lint[0]);
	cr_expect(!got, "%s: after %s eu-elflint says of the injected file\n%s\n(%s)\nbut of its twin\n%s", x->in->name, after,
		  lint[1], got, lint[0]);
	free(got);
	cr_expect_str_eq(segments, fresh, "%s: after %s PT_NOTE gives %s, not %s", x->in->name, after,
			 segments, fresh);
	got = entries_by("tool", f[1]);
	cr_expect_str_eq(got, x->entries, "%s: after %s the sections give %s, not %s", x->in->name, after,
			 got, x->entries);
	free(got);
	for (int i = 0; i < 2; i++) {
		free(ran[i]);
		free(lint[i]);
	}
}

/* One pipeline's checks on one pair of sides. */
static void check_pipeline(const struct ctx *x, const struct sides *sd, const char *after)
{
	char *seg[2];

	read_segments(x, sd, 1, seg);
	check_sides(x, sd, after, seg[1], seg[0]);
	free(seg[0]);
	free(seg[1]);
}

/* rpm's dependency generators read detached debug files too (README, "For packagers"). */
static void expect_debug_file_entries(const struct ctx *x, const char *debug)
{
	char *got = entries_by("tool", debug);

	cr_expect_str_eq(got, x->entries, "%s: the debug file %s lists %s, not %s", x->in->name, debug, got,
			 x->entries);
	free(got);
}

static void find_debuginfo_steps(const struct input *in)
{
	char debug[300];
	struct sides sd;
	struct ctx x;

	need("debugedit");
	need("dwz");
	need("eu-strip");
	if (!prepare(&x, in))
		return;
	sides_in(&x, ".", &sd);
	steps_both(&x, &sd, fd_steps, sizeof fd_steps / sizeof fd_steps[0]);
	check_pipeline(&x, &sd, "find-debuginfo's steps");
	snprintf(debug, sizeof debug, "%s/%s.debug", sd.dir[1], x.file);
	expect_debug_file_entries(&x, debug);
	free(x.entries);
}

/* check-all's sanitized pass compares the sanitized tool's bytes with the plain build's once
 * per input, in find_debuginfo_steps: the same input and command again would add nothing. */
static int compared_in_find_debuginfo_steps(void)
{
	return plain_tool() != NULL;
}

static void dh_dwz_dh_strip(const struct input *in)
{
	struct sides sd;
	struct ctx x;

	if (compared_in_find_debuginfo_steps())
		return;
	need("dwz");
	if (!prepare(&x, in))
		return;
	sides_in(&x, ".", &sd);
	steps_both(&x, &sd, dh_steps, sizeof dh_steps / sizeof dh_steps[0]);
	check_pipeline(&x, &sd, "dh_dwz and dh_strip");
	free(x.entries);
}

/* After dh_dwz and dh_strip (checked by dh_dwz_dh_strip_*: here they only run), the debug file
 * goes where dh_strip installs it (usr/lib/debug/.build-id/xx/rest.debug, named by the stripped
 * file's build ID), and gdb, pointed there, finds the source line of main (of the library's
 * function) as in the twin. */
static void gdb_finds_source_line(const struct input *in)
{
	char *out[2], *err[2];
	struct sides sd;
	struct cmd c[2];
	struct ctx x;

	if (compared_in_find_debuginfo_steps())
		return;
	need("dwz");
	need("gdb");
	if (!prepare(&x, in))
		return;
	sides_in(&x, ".", &sd);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < sizeof dh_steps / sizeof dh_steps[0]; k++) {
			c[i] = run_step(&x, sd.dir[i], &dh_steps[k]);
			cmd_free(&c[i]);
		}
		c[i] = run("cd %s && id=$(LC_ALL=C readelf -n %s | sed -n 's/^ *Build ID: //p') && "
			   "d=dbg/.build-id/$(echo $id | cut -c1-2) && mkdir -p $d && "
			   "mv %s.dbg $d/$(echo $id | cut -c3-).debug && "
			   "gdb -batch -nx -ex 'set debug-file-directory dbg' -ex 'file %s' -ex 'info line %s'",
			   sd.dir[i], x.file, x.file, x.file, in->lib ? "plug_zlib" : "main");
		out[i] = normalized(c[i].out, sd.dir[i]);
		err[i] = normalized(c[i].err, sd.dir[i]);
	}
	cr_expect(c[0].status == 0 && strstr(out[0], "Line ") && strstr(out[0], in->lib ? "\"plug.c\"" : "\"prog.c\""),
		  "%s: gdb finds no source line in the twin (the test is broken): %s%s", in->name, out[0], err[0]);
	cr_expect_eq(c[1].status, c[0].status, "%s: gdb exits %d on the injected file, %d on its twin",
		     in->name, c[1].status, c[0].status);
	cr_expect_str_eq(out[1], out[0], "%s: gdb says of the injected file\n%s\nof its twin\n%s", in->name,
			 out[1], out[0]);
	cr_expect_str_eq(err[1], err[0], "%s: gdb warns of the injected file\n%s\nof its twin\n%s", in->name,
			 err[1], err[0]);
	for (int i = 0; i < 2; i++) {
		cmd_free(&c[i]);
		free(out[i]);
		free(err[i]);
	}
	free(x.entries);
}

/* Each pair of rewriters, first then second, in a directory of its own.  All pairs run first,
 * then all are checked (one Python process reads every PT_NOTE). */
static void rewriter_pairs(const struct input *in, const int (*pairs)[2], size_t n)
{
	struct sides *sd;
	struct ctx x;
	char **seg;

	if (compared_in_find_debuginfo_steps())
		return;
	need("dwz");
	need("eu-strip");
	need("patchelf");
	if (!prepare(&x, in))
		return;
	sd = calloc(n, sizeof *sd);
	seg = calloc(n + 1, sizeof *seg);
	for (size_t i = 0; i < n; i++) {
		const struct step chain[2] = { rewriters[pairs[i][0]], rewriters[pairs[i][1]] };
		char dir[32];

		snprintf(dir, sizeof dir, "pair%zu", i);
		sides_in(&x, dir, &sd[i]);
		steps_both(&x, &sd[i], chain, 2);
	}
	read_segments(&x, sd, n, seg);
	for (size_t i = 0; i < n; i++) {
		char after[512];

		snprintf(after, sizeof after, "'%s' then '%s'", rewriters[pairs[i][0]].cmd,
			 rewriters[pairs[i][1]].cmd);
		check_sides(&x, &sd[i], after, seg[i + 1], seg[0]);
	}
	for (size_t i = 0; i <= n; i++)
		free(seg[i]);
	free(seg);
	free(sd);
	free(x.entries);
}

/* FIRST, then each other rewriter. */
static void every_pair_from(const struct input *in, int first)
{
	int pairs[RW_COUNT - 1][2], n = 0;

	for (int second = 0; second < RW_COUNT; second++)
		if (second != first) {
			pairs[n][0] = first;
			pairs[n++][1] = second;
		}
	rewriter_pairs(in, (const int (*)[2])pairs, (size_t)n);
}

/* The inputs: X(id, triplet, qemu, flags, linker, lib).  The first two run every pair of
 * rewriters, the others the representative pairs. */
#define FULL_INPUTS(X)                                                                      \
	X(x86_64_bfd_pie, "", "", "", "", 0)                                                \
	X(x86_64_bfd_shlib, "", "", "", "", 1)
#define OTHER_INPUTS(X)                                                                     \
	X(x86_64_bfd_noseparate_code_pie, "", "", "-Wl,-z,noseparate-code", "", 0)         \
	X(x86_64_bfd_no_pie, "", "", "-no-pie", "", 0)                                      \
	X(x86_64_bfd_static_pie, "", "", "-static-pie", "", 0)                              \
	X(x86_64_gold_pie, "", "", "-fuse-ld=gold", "ld.gold", 0)                           \
	X(x86_64_lld_pie, "", "", "-fuse-ld=lld", "ld.lld", 0)                              \
	X(x86_64_mold_pie, "", "", "-fuse-ld=mold", "mold", 0)                              \
	X(x86_64_bfd_noseparate_code_shlib, "", "", "-Wl,-z,noseparate-code", "", 1)        \
	X(x86_64_gold_shlib, "", "", "-fuse-ld=gold", "ld.gold", 1)                         \
	X(x86_64_lld_shlib, "", "", "-fuse-ld=lld", "ld.lld", 1)                            \
	X(x86_64_mold_shlib, "", "", "-fuse-ld=mold", "mold", 1)                            \
	X(aarch64_bfd_pie, "aarch64-linux-gnu", "qemu-aarch64", "", "", 0)                  \
	X(aarch64_bfd_shlib, "aarch64-linux-gnu", "qemu-aarch64", "", "", 1)                \
	X(i686_bfd_pie, "i686-linux-gnu", "qemu-i386", "", "", 0)                           \
	X(i686_bfd_shlib, "i686-linux-gnu", "qemu-i386", "", "", 1)                         \
	X(ppc64le_bfd_pie, "powerpc64le-linux-gnu", "qemu-ppc64le", "", "", 0)              \
	X(ppc64le_bfd_shlib, "powerpc64le-linux-gnu", "qemu-ppc64le", "", "", 1)

#define INPUT_TESTS(id, triplet, qemu, flags, linker, lib)                                  \
	static const struct input input_##id = { #id, triplet, qemu, flags, linker, lib }; \
	Test(pipelines, find_debuginfo_steps_##id, .timeout = 120)                          \
	{                                                                                   \
		find_debuginfo_steps(&input_##id);                                          \
	}                                                                                   \
	Test(pipelines, dh_dwz_dh_strip_##id, .timeout = 120)                               \
	{                                                                                   \
		dh_dwz_dh_strip(&input_##id);                                               \
	}                                                                                   \
	Test(pipelines, gdb_finds_source_line_after_dh_strip_##id, .timeout = 120)          \
	{                                                                                   \
		gdb_finds_source_line(&input_##id);                                         \
	}
#define REPRESENTATIVE_PAIRS_TEST(id, triplet, qemu, flags, linker, lib)                    \
	Test(pipelines, rewriter_pairs_##id, .timeout = 120)                                \
	{                                                                                   \
		rewriter_pairs(&input_##id, representative_pairs,                           \
			       sizeof representative_pairs / sizeof representative_pairs[0]); \
	}
#define EVERY_PAIR_TEST(id, first, cmd)                                                     \
	Test(pipelines, first##_then_each_rewriter_##id, .timeout = 120)                    \
	{                                                                                   \
		every_pair_from(&input_##id, RW_##first);                                   \
	}

FULL_INPUTS(INPUT_TESTS)
OTHER_INPUTS(INPUT_TESTS)
OTHER_INPUTS(REPRESENTATIVE_PAIRS_TEST)
REWRITERS(EVERY_PAIR_TEST, x86_64_bfd_pie)
REWRITERS(EVERY_PAIR_TEST, x86_64_bfd_shlib)

/* The real find-debuginfo on a buildroot holding the program and the library, invoked as
 * rpmbuild does (rpm's %__debug_install_post, with the options Fedora's redhat-rpm-config
 * sets: dwz, mini debug info, gdb index, debug sources), once on the twins and once on the
 * injected files. */
Test(pipelines, rpm_find_debuginfo_on_a_buildroot_x86_64_bfd, .timeout = 120)
{
	static const char *const sides[] = { "twin", "inj" };
	static const char *const dirs[] = { "usr/bin", "usr/lib64" };
	char *err[2], *tree[2], *diff, *base;
	struct ctx prog, lib;
	struct cmd c[2];
	int go;

	need("find-debuginfo");
	need("rpm");
	need("debugedit");
	need("dwz");
	need("eu-strip");
	need("gdb-add-index");
	need("xz");
	need("cpio");
	go = prepare(&prog, &input_x86_64_bfd_pie);
	go &= prepare(&lib, &input_x86_64_bfd_shlib);
	if (!go)
		return;
	/* The build directory is the work directory, where the sources were compiled. */
	base = sh("dirname '%s'", workdir());
	free(sh("rpm --define '_builddir %s' --define 'buildsubdir %s' --define 'name pipelines' "
		"--define 'VERSION 1' --define 'RELEASE 1' --define '_find_debuginfo_dwz_opts --run-dwz "
		"--dwz-low-mem-die-limit 10000000 --dwz-max-die-limit 110000000' "
		"--define '_include_minidebuginfo 1' --define '_include_gdb_index 1' "
		"--define '_debugsource_packages 1' --eval '%%__debug_install_post' > find-debuginfo.sh",
		base, strrchr(workdir(), '/') + 1));
	for (int i = 0; i < 2; i++) {
		const char *from = i ? "fresh" : "orig";
		char root[300];

		snprintf(root, sizeof root, "%s/root-%s", workdir(), sides[i]);
		free(sh("mkdir -p %s/usr/bin %s/usr/lib64 && cp %s/prog %s/usr/bin/ && cp %s/libplug.so.1 %s/usr/lib64/",
			root, root, from, root, from, root));
		c[i] = run("RPM_BUILD_ROOT='%s' RPM_BUILD_DIR='%s' RPM_PACKAGE_NAME=pipelines RPM_PACKAGE_VERSION=1 "
			   "RPM_PACKAGE_RELEASE=1 RPM_ARCH=x86_64 sh ./find-debuginfo.sh 2>stderr-%s",
			   root, base, sides[i]);
		/* Its file lists go to the build directory: moved aside for the other side's run. */
		free(sh("mkdir lists-%s && (mv *.list lists-%s/ || true)", sides[i], sides[i]));
		/* -j2: the two files are done in parallel, so their lines come in either order; objcopy
		 * names its temporary files at random. */
		free(c[i].err);
		c[i].err = sh("sed -E 's#/st[A-Za-z0-9]{6}:#/stXXXXXX:#' stderr-%s | LC_ALL=C sort", sides[i]);
		err[i] = replaced(c[i].err, root, "ROOT");
		tree[i] = sh("cd %s && find . | LC_ALL=C sort", root);
	}
	cr_expect_eq(c[1].status, c[0].status,
		     "find-debuginfo exits %d on the injected files, %d on their twins; it says\n%s\nand\n%s",
		     c[1].status, c[0].status, err[1], err[0]);
	cr_expect_str_eq(err[1], err[0], "find-debuginfo says on the injected files\n%s\nand on their twins\n%s",
			 err[1], err[0]);
	cr_expect_str_eq(tree[1], tree[0],
			 "find-debuginfo leaves the buildroot\n%s\nwith the injected files, with their twins\n%s",
			 tree[1], tree[0]);
	/* Their lines too come in either order (debugsources.list: NUL-separated). */
	diff = sh("for d in lists-twin lists-inj; do (cd $d && for f in *; do echo \"== $f\"; tr '\\0' '\\n' < $f "
		  "| LC_ALL=C sort; done) > $d.sorted; done; diff lists-twin.sorted lists-inj.sorted; true");
	cr_expect_str_empty(diff, "find-debuginfo's file lists differ: %s", diff);
	free(diff);
	for (size_t k = 0; k < 2; k++) {
		const struct ctx *x = k ? &lib : &prog;
		char debug[300];
		struct sides sd;

		for (int i = 0; i < 2; i++)
			snprintf(sd.dir[i], sizeof sd.dir[i], "root-%s/%s", sides[i], dirs[k]);
		check_pipeline(x, &sd, "find-debuginfo");
		snprintf(debug, sizeof debug, "root-inj/usr/lib/debug/%s/%s-1-1.x86_64.debug", dirs[k], x->file);
		expect_debug_file_entries(x, debug);
	}
	for (int i = 0; i < 2; i++) {
		cmd_free(&c[i]);
		free(err[i]);
		free(tree[i]);
	}
	free(base);
	free(prog.entries);
	free(lib.entries);
}

/* Inputs patchelf already edited (NixOS, conda, AppImage): patchelf 0.14 grows the program
 * header table over the sections after it, moves them, .dynstr and .dynamic into a PT_LOAD of
 * its own and, for a bfd PIE, leaves PT_GNU_PROPERTY inside the table.  The tool takes them
 * with today's guarantees: the layout rules of readers.py validate against the patchelf'd
 * input, the entries by every reader, and the program running as the input does, before and
 * after objcopy then eu-strip. */
struct pinput {
	char name[24];
	char flags[40];
	char linker[12];
	int lib;
};

static struct pinput pinputs[] = {
	{ "bfd pie", "", "", 0 },
	{ "bfd shlib", "", "", 1 },
	{ "gold pie", "-fuse-ld=gold", "ld.gold", 0 },
	{ "gold shlib", "-fuse-ld=gold", "ld.gold", 1 },
	{ "lld pie", "-fuse-ld=lld", "ld.lld", 0 },
	{ "lld shlib", "-fuse-ld=lld", "ld.lld", 1 },
	{ "mold pie", "-fuse-ld=mold", "mold", 0 },
	{ "mold shlib", "-fuse-ld=mold", "mold", 1 },
};

ParameterizedTestParameters(pipelines, inputs_patchelf_edited_are_accepted)
{
	return cr_make_param_array(struct pinput, pinputs, sizeof pinputs / sizeof pinputs[0]);
}

ParameterizedTest(struct pinput *p, pipelines, inputs_patchelf_edited_are_accepted, .timeout = 60)
{
	if (sanitized_sample_skips(PARAM_INDEX(p, pinputs), "pipelines::inputs_patchelf_edited_are_accepted"))
		return;
	static const char entries[] = "[{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"recommended\"}]";
	const char *file = p->lib ? "libp.so" : "prog", *runner = p->lib ? "./use" : "./prog";
	char *v, *want;

	need("patchelf");
	if (p->linker[0])
		need(p->linker);
	put_file("prog.c", "#include <stdio.h>\n#include <dlfcn.h>\nint f(void);\nint main(void) { void *h = "
		 "dlopen(\"libz.so.1\", RTLD_NOW); printf(\"zlib %s %d\\n\", h ? \"loaded\" : \"missing\", f()); return 0; }\n");
	put_file("lib.c", "int f(void) { return 42; }\n");
	put_file("m.json", entries);
	if (p->lib)
		free(sh("gcc -g -O1 -shared -fPIC %s -o libp.so lib.c && gcc -o use prog.c -L. -lp -Wl,-rpath,'$ORIGIN'", p->flags));
	else
		free(sh("gcc -g -O1 %s -o prog prog.c lib.c", p->flags));
	free(sh("patchelf --set-rpath /a/rpath/long/enough/to/move/the/dynamic/string/table/somewhere/else %s && cp %s in",
		file, file));
	want = sh("%s", runner);
	cr_assert_str_eq(want, "zlib loaded 42", "%s: patchelf's output prints %s", p->name, want);
	free(sh("'%s' -m m.json %s", tool(), file));
	v = readers("validate in %s", file);
	cr_expect_str_eq(v, "OK", "%s: %s", p->name, v);
	free(v);
	expect_entries(file, entries, 1);
	v = sh("%s", runner);
	cr_expect_str_eq(v, want, "%s: the injected file prints %s", p->name, v);
	free(v);
	v = sh("objcopy %s && eu-strip %s && %s", file, file, runner);
	cr_expect_str_eq(v, want, "%s: after objcopy then eu-strip the injected file prints %s", p->name, v);
	free(v);
	free(want);
}
