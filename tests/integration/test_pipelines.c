/* SPDX-License-Identifier: MIT */
/* test_pipelines.c - injected files go through the distributions' debug pipelines exactly like
 * their uninjected twins (pipeline_fixture.h compares them): rpm's find-debuginfo (its steps one
 * by one, and the real script on a buildroot), Debian's dh_dwz and dh_strip (then gdb through
 * the separate debug file), and chains of two rewriters (objcopy, strip, eu-strip, dwz,
 * patchelf) in both orders.  Inputs: gcc with bfd (PIE with separate code, without, no-pie,
 * static-pie), gold, lld and mold on x86_64; bfd for aarch64, i686 and powerpc64le, run under
 * qemu-user.  Programs, and shared libraries loaded by a program linked with them. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pipeline_fixture.h"

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
	if (!pipeline_prepare(&x, in))
		return;
	pipeline_sides_in(&x, ".", &sd);
	pipeline_steps_both(&x, &sd, fd_steps, sizeof fd_steps / sizeof fd_steps[0]);
	pipeline_check_pipeline(&x, &sd, "find-debuginfo's steps");
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
	if (!pipeline_prepare(&x, in))
		return;
	pipeline_sides_in(&x, ".", &sd);
	pipeline_steps_both(&x, &sd, dh_steps, sizeof dh_steps / sizeof dh_steps[0]);
	pipeline_check_pipeline(&x, &sd, "dh_dwz and dh_strip");
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
	if (!pipeline_prepare(&x, in))
		return;
	pipeline_sides_in(&x, ".", &sd);
	for (int i = 0; i < 2; i++) {
		for (size_t k = 0; k < sizeof dh_steps / sizeof dh_steps[0]; k++) {
			c[i] = pipeline_run_step(&x, sd.dir[i], &dh_steps[k]);
			cmd_free(&c[i]);
		}
		c[i] = run("cd %s && id=$(LC_ALL=C readelf -n %s | sed -n 's/^ *Build ID: //p') && "
			   "d=dbg/.build-id/$(echo $id | cut -c1-2) && mkdir -p $d && "
			   "mv %s.dbg $d/$(echo $id | cut -c3-).debug && "
			   "gdb -batch -nx -ex 'set debug-file-directory dbg' -ex 'file %s' -ex 'info line %s'",
			   sd.dir[i], x.file, x.file, x.file, in->lib ? "plug_zlib" : "main");
		out[i] = pipeline_normalized(c[i].out, sd.dir[i]);
		err[i] = pipeline_normalized(c[i].err, sd.dir[i]);
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
	if (!pipeline_prepare(&x, in))
		return;
	sd = calloc(n, sizeof *sd);
	seg = calloc(n + 1, sizeof *seg);
	for (size_t i = 0; i < n; i++) {
		const struct step chain[2] = { rewriters[pairs[i][0]], rewriters[pairs[i][1]] };
		char dir[32];

		snprintf(dir, sizeof dir, "pair%zu", i);
		pipeline_sides_in(&x, dir, &sd[i]);
		pipeline_steps_both(&x, &sd[i], chain, 2);
	}
	pipeline_read_segments(&x, sd, n, seg);
	for (size_t i = 0; i < n; i++) {
		char after[512];

		snprintf(after, sizeof after, "'%s' then '%s'", rewriters[pairs[i][0]].cmd,
			 rewriters[pairs[i][1]].cmd);
		pipeline_check_sides(&x, &sd[i], after, seg[i + 1], seg[0]);
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
	go = pipeline_prepare(&prog, &input_x86_64_bfd_pie);
	go &= pipeline_prepare(&lib, &input_x86_64_bfd_shlib);
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
		err[i] = pipeline_replaced(c[i].err, root, "ROOT");
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
		pipeline_check_pipeline(x, &sd, "find-debuginfo");
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
