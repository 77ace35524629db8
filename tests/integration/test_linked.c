/* SPDX-License-Identifier: MIT */
/* test_linked.c - every mode on already-linked files (issue "Linked executables and shared
 * libraries"): each input is built here, then added to, grown, re-run unchanged, shrunk,
 * removed from and added to again.  After every step: all readers decode the same entries,
 * the layout invariants hold (tests/tools/readers.py validate), the program prints and exits
 * exactly as before, eu-elflint and readelf report nothing new, and copies stripped with GNU
 * strip and eu-strip still run and still carry the note. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "linked_inputs.h"

struct lcase {
	char name[48];
	char build[512];     /* shell commands that produce ./in from the sources in the work dir */
	char need[64];       /* a program the case needs (compiler), "" for none */
	char runner[96];     /* prefix to run a program (qemu), "" for native */
	char strip[48];      /* GNU strip for this architecture */
	char lib;            /* 1: a shared library, run through ./dl */
};

static const char prog_c[] =
	"#include <stdio.h>\n"
	"int main(int argc, char **argv) { printf(\"hello %d %s\\n\", argc, argc > 1 ? argv[1] : \"-\"); return 3; }\n";
static const char bss_c[] =
	"#include <stdio.h>\nstatic char big[64 << 20];\n"
	"int main(void) { big[12345678] = 7; printf(\"bss %d\\n\", big[12345678]); return 3; }\n";
static const char prog_cc[] =
	"#include <iostream>\n#include <stdexcept>\n"
	"int main() { try { throw std::runtime_error(\"unwound\"); } catch (const std::exception &e) { std::cout << e.what() << std::endl; } return 3; }\n";
static const char prog_rs[] =
	"fn main() { std::panic::set_hook(Box::new(|_| {})); let r = std::panic::catch_unwind(|| panic!(\"p\"));"
	" println!(\"rust {}\", r.is_err()); std::process::exit(3); }\n";
static const char lib_c[] = "int dlnote_answer(void) { return 42; }\n";
static const char dl_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n"
	"int main(int argc, char **argv) { void *h = dlopen(argv[1], RTLD_NOW); if (!h) { puts(dlerror()); return 1; }\n"
	"  int (*f)(void) = (int (*)(void))dlsym(h, \"dlnote_answer\"); printf(\"answer %d\\n\", f ? f() : -1); return 3; }\n";

/* An x32 case runs natively when the kernel has CONFIG_X86_X32_ABI; qemu-user has no x32 mode. */
#define X32_RUNNER "x32"

/* Every architecture: a program, and a shared library loaded by a program under qemu-user
 * (glibc maps libraries itself: issue "Real distribution files", item 2). */
#define CROSS_DYN(t, q)                                                                                             \
	{ t " dynamic", t "-gcc -O1 -o in prog.c", t "-gcc", "qemu-" q " -L /usr/" t, t "-strip", 0 },              \
	{ t " shared library", t "-gcc -O1 -shared -fPIC -o in lib.c && " t "-gcc -O1 -o dl dl.c -ldl", t "-gcc",    \
	  "qemu-" q " -L /usr/" t, t "-strip", 1 }
#define CROSS(t, q)                                                                                                 \
	CROSS_DYN(t, q),                                                                                            \
	{ t " static", t "-gcc -O1 -static -o in prog.c", t "-gcc", "qemu-" q " -L /usr/" t, t "-strip", 0 }

static struct lcase cases[] = {
	{ "gcc bfd pie", "gcc -O1 -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc bfd no-pie", "gcc -O1 -no-pie -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc static", "gcc -O1 -static -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc static-pie", "gcc -O1 -static-pie -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc -g3", "gcc -g3 -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc stripped", "gcc -O1 -s -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc noseparate-code", "gcc -O1 -Wl,-z,noseparate-code -o in prog.c", "gcc", "", "strip", 0 },
	{ "gcc max-page-size 64k", "gcc -O1 -Wl,-z,max-page-size=0x10000 -o in prog.c", "gcc", "", "strip", 0 },
	{ "gold pie", "gcc -O1 -fuse-ld=gold -o in prog.c", "ld.gold", "", "strip", 0 },
	{ "gold no-pie", "gcc -O1 -fuse-ld=gold -no-pie -o in prog.c", "ld.gold", "", "strip", 0 },
	{ "gold static", "gcc -O1 -fuse-ld=gold -static -o in prog.c", "ld.gold", "", "strip", 0 },
	{ "clang lld pie", "clang -O1 -fuse-ld=lld -o in prog.c", "ld.lld", "", "strip", 0 },
	{ "clang lld no-pie", "clang -O1 -fuse-ld=lld -no-pie -o in prog.c", "ld.lld", "", "strip", 0 },
	{ "clang lld static", "clang -O1 -fuse-ld=lld -static -o in prog.c", "ld.lld", "", "strip", 0 },
	{ "clang lld static-pie", "clang -O1 -fuse-ld=lld -static-pie -o in prog.c", "ld.lld", "", "strip", 0 },
	{ "mold pie", "gcc -O1 -fuse-ld=mold -o in prog.c", "mold", "", "strip", 0 },
	{ "mold no-pie", "gcc -O1 -fuse-ld=mold -no-pie -o in prog.c", "mold", "", "strip", 0 },
	{ "mold static", "gcc -O1 -fuse-ld=mold -static -o in prog.c", "mold", "", "strip", 0 },
	{ "mold static-pie", "gcc -O1 -fuse-ld=mold -static-pie -o in prog.c", "mold", "", "strip", 0 },
	{ "64 MiB bss pie", "gcc -O1 -o in bss.c", "gcc", "", "strip", 0 },
	{ "64 MiB bss no-pie", "gcc -O1 -no-pie -o in bss.c", "gcc", "", "strip", 0 },
	{ "C++ exceptions", "g++ -O1 -o in prog.cc", "g++", "", "strip", 0 },
	{ "Rust", "rustc -O -o in prog.rs", "rustc", "", "strip", 0 },
	{ "musl dynamic", "musl-gcc -O1 -o in prog.c", "musl-gcc", "", "strip", 0 },
	{ "musl static", "musl-gcc -O1 -static -o in prog.c", "musl-gcc", "", "strip", 0 },
	{ "macro note in shared PT_NOTE", "gcc -O1 -o in macro.c", "gcc", "", "strip", 0 },
	{ "free program header slots", "musl-gcc -O1 -static -o in prog.c && /usr/bin/python3 $DLNOTE_SRC/tests/tools/phdr_room.py in 4",
	  "musl-gcc", "", "strip", 0 },
	{ "no section headers", "gcc -O1 -o in prog.c && /usr/bin/python3 $DLNOTE_SRC/tests/tools/noshdr.py in", "gcc", "", "", 0 },
	{ "sstrip", "gcc -O1 -o in prog.c && /usr/bin/python3 $DLNOTE_SRC/tests/tools/noshdr.py --sstrip in", "gcc", "", "", 0 },
	{ "sstrip armhf shared library", "arm-linux-gnueabihf-gcc -O1 -shared -fPIC -o in lib.c && arm-linux-gnueabihf-gcc -O1 -o dl dl.c -ldl && "
	  "/usr/bin/python3 $DLNOTE_SRC/tests/tools/noshdr.py --sstrip in", "arm-linux-gnueabihf-gcc",
	  "qemu-arm -L /usr/arm-linux-gnueabihf", "", 1 },
	{ "bfd shared library", "gcc -O1 -shared -fPIC -o in lib.c", "gcc", "", "strip", 1 },
	{ "lld shared library", "clang -O1 -shared -fPIC -fuse-ld=lld -o in lib.c", "ld.lld", "", "strip", 1 },
	CROSS("aarch64-linux-gnu", "aarch64"),
	CROSS("arm-linux-gnueabihf", "arm"),
	CROSS("i686-linux-gnu", "i386"),
	CROSS("powerpc64-linux-gnu", "ppc64"),
	CROSS("s390x-linux-gnu", "s390x"),
	CROSS("mips-linux-gnu", "mips"),
	CROSS("riscv64-linux-gnu", "riscv64"),
	CROSS_DYN("powerpc64le-linux-gnu", "ppc64le"),
	CROSS_DYN("mips64el-linux-gnuabi64", "mips64el"),
	CROSS_DYN("arm-linux-gnueabi", "arm"),
	/* x32 runs nowhere here: qemu-user has no x32 mode and the kernel lacks CONFIG_X86_X32_ABI
	 * (checked at run time: the case then checks everything but running). */
	{ "x86_64-linux-gnux32 dynamic", "x86_64-linux-gnux32-gcc -O1 -o in prog.c", "x86_64-linux-gnux32-gcc", X32_RUNNER, "x86_64-linux-gnux32-strip", 0 },
	{ "x86_64-linux-gnux32 shared library", "x86_64-linux-gnux32-gcc -O1 -shared -fPIC -o in lib.c && x86_64-linux-gnux32-gcc -O1 -o dl dl.c -ldl",
	  "x86_64-linux-gnux32-gcc", X32_RUNNER, "x86_64-linux-gnux32-strip", 1 },
};

ParameterizedTestParameters(linked, every_mode)
{
	return cr_make_param_array(struct lcase, cases, sizeof cases / sizeof cases[0]);
}

struct ctx {
	const struct lcase *c;
	char *expect_run;      /* what the input prints, with its exit status */
	char *lint, *problems, *llvm; /* eu-elflint, readelf and llvm-readobj on the input */
	int norun;             /* nothing here can run it (x32 without kernel support) */
	int pht_end;           /* out's program header table is in a segment after all others */
	struct elf_counts in_counts; /* readelf's counts of the input */
	char kept[8][24];      /* each step's output, copied as chk.STEP for lints_of_steps() */
	size_t nkept;
};

static char *run_program(const struct ctx *x, const char *file)
{
	const char *prefix = strcmp(x->c->runner, X32_RUNNER) ? x->c->runner : "";

	if (x->norun)
		return strdup("not run: this kernel cannot execute x32 (no CONFIG_X86_X32_ABI)\nexit 3");
	if (x->c->lib)
		return sh("%s ./dl ./%s 2>&1; echo \"exit $?\"", prefix, file);
	return sh("%s ./%s arg 2>&1; echo \"exit $?\"", prefix, file);
}

/* Which layout the tool chose, for the record (issue: -v says what it did). */
static void record(const struct ctx *x, const char *step, const char *verbose)
{
	const char *report = getenv("DLNOTE_STRATEGY_REPORT");
	const char *line = strchr(verbose, ':');
	FILE *f;

	if (!report || !line)
		return;
	f = fopen(report, "a");
	if (!f)
		return;
	line = strchr(line + 1, ':');
	fprintf(f, "%-32s %-8s %.*s\n", x->c->name, step, (int)strcspn(line ? line + 2 : verbose, "\n"), line ? line + 2 : verbose);
	fclose(f);
}

/* GNU strip re-lays out the segment that holds the program headers.  When the tool had to
 * put it after the end of the file (no page padding to use: mips, lld and mold layouts), bfd
 * keeps its addresses but not p_vaddr - p_offset, so the result runs on kernels from 5.18 but
 * not under qemu-user or older kernels (documented in docs/layout.md).  There the test checks
 * what does hold: the notes, the layout invariants, and the program headers' addresses. */
static int gnu_strip_breaks_qemu(const struct ctx *x, const char *stripper)
{
	if (!x->c->runner[0] || strcmp(stripper, "eu-strip") == 0)
		return 0;
	return x->pht_end;   /* readers.py pht-placement out, read by step() */
}

static void check_stripped(const struct ctx *x, const char *stripper, const char *json)
{
	struct cmd s;

	copy_file("out", "st");
	s = run("%s st", stripper);
	char *got, *ran;

	cr_assert_eq(s.status, 0, "%s: %s failed: %s", x->c->name, stripper, s.err);
	cr_expect_str_empty(s.err, "%s: %s complained: %s", x->c->name, stripper, s.err);
	cmd_free(&s);
	got = entries_by("tool", "st");
	cr_expect_str_eq(got, json, "%s: after %s the entries are %s", x->c->name, stripper, got);
	if (gnu_strip_breaks_qemu(x, stripper)) {
		char *val;

		copy_file("in", "in.st");
		free(sh("%s in.st", stripper));
		val = readers("validate in.st st");
		cr_expect_str_eq(val, "OK", "%s: after %s the layout is broken: %s", x->c->name, stripper, val);
		cr_log_info("%s: after %s the PHT segment is at bfd's offset: not run under qemu-user (docs/layout.md)",
			    x->c->name, stripper);
		free(val);
		free(got);
		return;
	}
	ran = run_program(x, "st");
	cr_expect_str_eq(ran, x->expect_run, "%s: after %s the program prints %s", x->c->name, stripper, ran);
	free(got);
	free(ran);
}

/* The tool run again on GNU strip's output finds its own segment where bfd re-laid it (the
 * table at bfd's offset, .dlnote.phdrs over the old one) and rebuilds it: no PT_LOAD is added
 * (one fewer when bfd shrank a segment and freed room in its page), the layout is valid again
 * and the program runs, under qemu-user too. */
static void check_rerun_after_strip(const struct ctx *x, const char *json)
{
	struct elf_counts k[2];
	char want[4096], *got, *val, *ran;
	int before, after;
	struct cmd r;

	if (strcmp(json, "[]") == 0)
		return;            /* nothing of ours is left to find after --remove */
	copy_file("out", "st");
	free(sh("%s st", x->c->strip));
	copy_file("st", "st0");
	snprintf(want, sizeof want, "%.*s,{\"soname\":[\"libafterstrip.so.1\"],\"priority\":\"suggested\"}]",
		 (int)strcspn(json, "\n") - 1, json);
	r = run("'%s' --merge --soname libafterstrip.so.1 --priority suggested st", tool());
	cr_expect_eq(r.status, 0, "%s: the tool on a GNU-stripped copy fails: %s", x->c->name, r.err);
	cmd_free(&r);
	/* st0: the stripped copy before the run */
	readelf_counts_each(k, (const char *const[]){ "st0", "st" }, 2);
	before = k[0].loads;
	after = k[1].loads;
	cr_expect(after <= before, "%s: after strip, a PT_LOAD was added (%d, then %d): our segment was not found",
		  x->c->name, before, after);
	got = entries_by("tool", "st");
	cr_expect_str_eq(got, want, "%s: after strip and a merge the entries are %s", x->c->name, got);
	/* Against the stripped copy: bfd may have shrunk a segment, which frees the bytes after it. */
	val = readers("validate st0 st");
	cr_expect_str_eq(val, "OK", "%s: after strip and a merge the layout is broken: %s", x->c->name, val);
	ran = run_program(x, "st");
	cr_expect_str_eq(ran, x->expect_run, "%s: after strip and a merge the program prints %s", x->c->name, ran);
	free(got);
	free(val);
	free(ran);
}

/* check-all's sanitized pass (plain_tool()): the bytes of every step, and of the tool's runs on
 * the stripped copies, are compared with the plain build's (tool_edit), which the first pass
 * checked with every reader, strip, the loader and qemu-user; the tool reads them back. */
static void step_sanitized(const struct ctx *x, const char *name, const char *json)
{
	char want[4096], *got, *line, *next;
	int n = 0;

	/* One run of the tool reads the step's output and its copies stripped by GNU strip and
	 * eu-strip: a JSON line per file, whose entries come last. */
	if (x->c->strip[0]) {
		copy_file("out", "st.gnu");
		copy_file("out", "st.eu");
		free(sh("%s st.gnu && eu-strip st.eu", x->c->strip));
	}
	got = sh("'%s' --list --format=jsonl out %s", tool(), x->c->strip[0] ? "st.gnu st.eu" : "");
	for (line = got; line && *line; line = next, n++) {
		const char *e = strstr(line, "\"entries\":");
		size_t len;
		next = strchr(line, '\n');
		len = next ? (size_t)(next - line) : strlen(line);
		if (next)
			next++;
		cr_assert(e && e < line + len && line[len - 1] == '}', "%s %s: not a JSON line: %.*s", x->c->name, name, (int)len, line);
		e += strlen("\"entries\":");
		cr_expect(strlen(json) == (size_t)(line + len - 1 - e) && strncmp(e, json, strlen(json)) == 0,
			  "%s %s: %.*s", x->c->name, name, (int)len, line);
	}
	cr_expect_eq(n, x->c->strip[0] ? 3 : 1, "%s %s: %d JSON lines: %s", x->c->name, name, n, got);
	free(got);
	if (!x->c->strip[0] || strcmp(json, "[]") == 0)
		return;
	free(tool_edit("st.gnu", "--merge --soname libafterstrip.so.1 --priority suggested"));
	snprintf(want, sizeof want, "%.*s,{\"soname\":[\"libafterstrip.so.1\"],\"priority\":\"suggested\"}]",
		 (int)strcspn(json, "\n") - 1, json);
	got = entries_by("tool", "st.gnu");
	cr_expect_str_eq(got, want, "%s %s: after strip and a merge the entries are %s", x->c->name, name, got);
	free(got);
}

/* The step's output, as it is now, is linted with the others' at the end (lints_of_steps()):
 * copied here (not hard-linked: the tool writes through a file with several links, which
 * would change both names and the path under test), without starting a process. */
static void keep_for_lints(struct ctx *x, const char *name)
{
	cr_assert(x->nkept < sizeof x->kept / sizeof x->kept[0]);
	snprintf(x->kept[x->nkept], sizeof x->kept[0], "chk.%s", name);
	copy_file("out", x->kept[x->nkept]);
	x->nkept++;
}

/* eu-elflint, llvm-readobj and readelf report nothing new on any step's output: one run of
 * each for all the steps (they cost 50, 130 and 10 ms a start, five times a case). */
static void lints_of_steps(struct ctx *x)
{
	const char *files[8];
	char *lint[8], *llvm[8], *problems[8];

	if (!x->nkept)
		return;
	for (size_t i = 0; i < x->nkept; i++)
		files[i] = x->kept[i];
	elflint_each(lint, files, x->nkept);
	llvm_problems_each(llvm, files, x->nkept, "out");
	readelf_problems_each(problems, files, x->nkept);
	for (size_t i = 0; i < x->nkept; i++) {
		cr_expect_str_eq(lint[i], x->lint, "%s %s: eu-elflint now says\n%s\ninstead of\n%s", x->c->name, files[i] + 4,
				 lint[i], x->lint);
		cr_expect_str_eq(llvm[i], x->llvm, "%s %s: llvm-readobj now says\n%s\ninstead of\n%s", x->c->name, files[i] + 4,
				 llvm[i], x->llvm);
		cr_expect_str_eq(problems[i], x->problems, "%s %s: readelf now says\n%s\ninstead of\n%s", x->c->name,
				 files[i] + 4, problems[i], x->problems);
		free(lint[i]);
		free(llvm[i]);
		free(problems[i]);
	}
}

/* One step: run the tool on ./out, then check everything. */
static void step(struct ctx *x, const char *name, const char *args, const char *json, int full)
{
	char *verbose, *ran, *val, *got[3];

	verbose = tool_edit("out", "-v %s", args);
	record(x, name, verbose);
	if (strcmp(name, "repeat") == 0 && same_files("out", "again")) {
		free(verbose);     /* the bytes every check passed on after "add" */
		return;
	}
	if (plain_tool()) {
		step_sanitized(x, name, json);
		free(verbose);
		return;
	}
	if (full)
		expect_entries("out", json, 1);
	/* One Python process: the layout, where the table is (for check_stripped) and, when not
	 * every reader runs, the PT_NOTE walker. */
	readers_batch(got, full ? 2 : 3, "validate in out -- pht-placement out%s", full ? "" : " -- segments out");
	val = got[0];
	x->pht_end = strcmp(got[1], "end") == 0;
	free(got[1]);
	if (!full) {
		cr_expect_str_eq(got[2], json, "%s %s: PT_NOTE walker sees %s", x->c->name, name, got[2]);
		free(got[2]);
		got[2] = entries_by("tool", "out");
		cr_expect_str_eq(got[2], json, "%s %s: --list --json gives %s", x->c->name, name, got[2]);
		free(got[2]);
	}
	cr_expect_str_eq(val, "OK", "%s %s: layout: %s", x->c->name, name, val);
	ran = run_program(x, "out");
	cr_expect_str_eq(ran, x->expect_run, "%s %s: the program prints %s, not %s", x->c->name, name, ran, x->expect_run);
	keep_for_lints(x, name);
	if (x->c->strip[0]) {
		check_stripped(x, x->c->strip, json);
		check_stripped(x, "eu-strip", json);
		check_rerun_after_strip(x, json);
	}
	free(val);
	free(ran);
	free(verbose);
}

/* After --remove nothing of ours that can go is left (docs/layout.md, "Remove"): no
 * .note.dlopen section header, the input's program headers and sections but its dlopen ones,
 * and no growth.  An input without a dlopen note comes back byte for byte, after add, grow,
 * shrink and remove. */
static void check_removed(const struct ctx *x, long long before_remove)
{
	const struct elf_counts *in = &x->in_counts;
	struct elf_counts out = readelf_counts("out");
	long long size = file_size("out");

	cr_expect_eq(out.dlopen_sections, 0, "%s: --remove left a .note.dlopen section", x->c->name);
	cr_expect_eq(out.sections, in->sections ? in->sections - in->dlopen_sections : 0,
		     "%s: after --remove %d sections, the input had %d (%d dlopen)", x->c->name, out.sections, in->sections,
		     in->dlopen_sections);
	cr_expect_eq(out.phdrs, in->phdrs, "%s: after --remove %d program headers, the input had %d", x->c->name, out.phdrs,
		     in->phdrs);
	cr_expect(size <= before_remove, "%s: --remove made the file larger (%lld bytes, %lld before)", x->c->name, size,
		  before_remove);
	if (in->dlopen_sections == 0)
		cr_expect(same_files("in", "out"), "%s: add, grow, shrink and remove do not give the input back", x->c->name);
}

/* --remove on a GNU-stripped copy of the file with our segment (bfd re-laid it out): the
 * result is valid against that copy, carries no note, and runs (where bfd's layout runs:
 * see gnu_strip_breaks_qemu). */
static void check_remove_after_strip(const struct ctx *x)
{
	const struct elf_counts *in = &x->in_counts;
	struct elf_counts st;
	char *v, *where;

	if (plain_tool()) {   /* the sanitized pass: the plain build's bytes, read back by the tool */
		copy_file("pre_rm", "st");
		free(sh("%s st", x->c->strip));
		free(tool_edit("st", "--remove"));
		v = entries_by("tool", "st");
		cr_expect_str_eq(v, "[]", "%s: --remove after GNU strip leaves %s", x->c->name, v);
		free(v);
		return;
	}
	where = readers("pht-placement pre_rm");
	copy_file("pre_rm", "st");
	free(sh("%s st", x->c->strip));
	copy_file("st", "st0");
	free(sh("'%s' --remove st", tool()));
	v = entries_by("tool", "st");
	cr_expect_str_eq(v, "[]", "%s: --remove after GNU strip leaves %s", x->c->name, v);
	free(v);
	v = entries_by("segments", "st");
	cr_expect_str_eq(v, "[]", "%s: --remove after GNU strip leaves %s for the PT_NOTE walker", x->c->name, v);
	free(v);
	st = readelf_counts("st");
	cr_expect_eq(st.dlopen_sections, 0, "%s: --remove after GNU strip left a .note.dlopen section", x->c->name);
	/* The input's PT_NULL entries (mips binutils ends its table with one) stay through the add
	 * wherever the table goes (where it is, or into our segment: the fallback, as mips64's
	 * .MIPS.options cannot move), GNU strip keeps them, and so --remove leaves the input's
	 * count.  (Until 2026-12-05 a table moved into our segment dropped them, and this count
	 * was short of them.) */
	cr_expect_eq(st.phdrs, in->phdrs,
		     "%s: --remove after GNU strip leaves %d program headers, the input had %d (%d PT_NULL, table %s)",
		     x->c->name, st.phdrs, in->phdrs, in->nulls, where);
	cr_expect_eq(st.nulls, in->nulls, "%s: --remove after GNU strip leaves %d PT_NULL entries, the input had %d",
		     x->c->name, st.nulls, in->nulls);
	v = readers("validate st0 st");
	cr_expect_str_eq(v, "OK", "%s: --remove after GNU strip: layout: %s", x->c->name, v);
	free(v);
	if (!(x->c->runner[0] && strcmp(where, "end") == 0)) {
		v = run_program(x, "st");
		cr_expect_str_eq(v, x->expect_run, "%s: --remove after GNU strip: the program prints %s", x->c->name, v);
		free(v);
	}
	free(where);
}

ParameterizedTest(struct lcase *c, linked, every_mode, .timeout = 300)
{
	if (sanitized_sample_skips(PARAM_INDEX(c, cases), "linked::every_mode"))
		return;
	struct ctx x = { .c = c };
	long long before_remove;

	need("eu-elflint");
	need("llvm-readobj");
	if (c->need[0])
		need(c->need);
	if (c->runner[0] && strcmp(c->runner, X32_RUNNER)) {
		char prog[96];
		snprintf(prog, sizeof prog, "%.*s", (int)strcspn(c->runner, " "), c->runner);
		need(prog);
	}
	cr_log_info("case: %s", c->name);
	sanitized_skip_leak_scan();
	put_file("prog.c", prog_c);
	put_file("bss.c", bss_c);
	put_file("prog.cc", prog_cc);
	put_file("prog.rs", prog_rs);
	put_file("lib.c", lib_c);
	put_file("macro.c", macro_c);
	put_file("dl.c", dl_c);
	put_file("big.json", M_BIG);
	free(sh("%s", c->build));
	if (c->lib)
		free(sh("test -e dl || gcc -o dl dl.c"));
	if (strcmp(c->runner, X32_RUNNER) == 0) {
		char *probe = sh("./%s >/dev/null 2>&1; echo $?", c->lib ? "dl" : "in");
		x.norun = strcmp(probe, "3") != 0;
		free(probe);
		/* Said on stderr, not as a Criterion warning (which fails the run). */
		if (x.norun)
			fprintf(stderr, "%s: not run: the kernel cannot execute x32 and qemu-user has no x32 mode\n", c->name);
	}
	if (plain_tool()) {   /* the first pass ran and read the input */
		x.expect_run = x.lint = x.problems = x.llvm = NULL;
	} else {
		x.expect_run = run_program(&x, "in");
		cr_assert(strstr(x.expect_run, "exit 3"), "%s: the input itself does not run: %s", c->name, x.expect_run);
		x.lint = elflint("in");
		x.problems = readelf_problems("in");
		x.llvm = llvm_problems("in");
	}
	copy_file("in", "out");
	x.in_counts = readelf_counts("in");

	step(&x, "add", "-m big.json", M_BIG, 1);
	/* The same command again changes nothing (idempotence) and gives the same bytes; the
	 * checks then run only when it did change them. */
	copy_file("out", "again");
	step(&x, "repeat", "-m big.json", M_BIG, 0);
	cr_expect(same_files("out", "again"), "%s: running the same command twice changed the file", c->name);
	step(&x, "grow", "--merge --feature kmod --soname libkmod.so.2", M_GROWN, 0);
	step(&x, "shrink", "--soname libz.so.1", M_SMALL, 0);
	before_remove = file_size("out");
	copy_file("out", "pre_rm");
	step(&x, "remove", "--remove", "[]", 0);
	check_removed(&x, before_remove);
	if (c->strip[0])
		check_remove_after_strip(&x);
	step(&x, "re-add", "-m big.json", M_BIG, 1);
	lints_of_steps(&x);
	/* Reproducible: the same input and entries give the same bytes. */
	copy_file("in", "again");
	copy_file("in", "again2");
	free(sh("'%s' -m big.json again && '%s' -m big.json again2", tool(), tool()));
	cr_expect(same_files("again", "again2"), "%s: two runs on the same input differ", c->name);
	free(x.expect_run);
	free(x.lint);
	free(x.problems);
	free(x.llvm);
}
