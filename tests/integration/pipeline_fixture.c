/* SPDX-License-Identifier: MIT */
/* pipeline_fixture.c - what the pipeline tests share (pipeline_fixture.h): the inputs built on
 * both sides, the steps run on both, and the checks that compare the injected file with its
 * twin. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "pipeline_fixture.h"

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

/* PROGRAM of the input's toolchain: "aarch64-linux-gnu-gcc", "gcc". */
static char *pipeline_cross(const struct input *in, const char *program)
{
	char *s;

	cr_assert(asprintf(&s, "%s%s%s", in->triplet, in->triplet[0] ? "-" : "", program) >= 0);
	return s;
}

/* What the program in DIR prints and its exit status; for a library, ./use loading it from DIR. */
char *pipeline_run_in(const struct ctx *x, const char *dir)
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
char *pipeline_replaced(const char *text, const char *from, const char *to)
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
char *pipeline_normalized(const char *text, const char *dir)
{
	char path[4200];

	snprintf(path, sizeof path, "%s/%s", workdir(), dir);
	return pipeline_replaced(text, path, "SIDE");
}

/* Build the input in orig/ and inject a copy in fresh/.  Returns 0 in check-all's sanitized
 * pass: there tool_edit checks that the sanitized tool writes the bytes the first pass checked. */
int pipeline_prepare(struct ctx *x, const struct input *in)
{
	static const char *const binutils[] = { "objcopy", "strip" };
	char *cc = pipeline_cross(in, "gcc"), *ran, path[64], orig[64];

	x->in = in;
	x->file = in->lib ? "libplug.so.1" : "prog";
	need(cc);
	for (size_t i = 0; i < sizeof binutils / sizeof binutils[0]; i++) {
		char *b = pipeline_cross(in, binutils[i]);

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
	ran = pipeline_run_in(x, "orig");
	cr_assert(strstr(ran, "exit 3"), "%s: the input itself does not run: %s", in->name, ran);
	free(ran);
	snprintf(path, sizeof path, "fresh/%s", x->file);
	snprintf(orig, sizeof orig, "orig/%s", x->file);
	copy_file(orig, path);
	free(tool_edit(path, "-m manifest.json"));
	if (plain_tool())
		return 0;
	x->entries = entries_by("tool", path);
	cr_assert(strcmp(x->entries, "[]") != 0, "%s: the injected file lists no entries", in->name);
	return 1;
}

/* DIR/twin and DIR/inj: a copy of the input and of the injected file. */
void pipeline_sides_in(const struct ctx *x, const char *dir, struct sides *sd)
{
	snprintf(sd->dir[0], sizeof sd->dir[0], "%s/twin", dir);
	snprintf(sd->dir[1], sizeof sd->dir[1], "%s/inj", dir);
	for (int i = 0; i < 2; i++) {
		char from[320], to[320];

		make_dirs(sd->dir[i]);
		snprintf(from, sizeof from, "%s/%s", i ? "fresh" : "orig", x->file);
		snprintf(to, sizeof to, "%s/%s", sd->dir[i], x->file);
		copy_file(from, to);
	}
}

/* Step S on the file in DIR. */
struct cmd pipeline_run_step(const struct ctx *x, const char *dir, const struct step *s)
{
	char *p = pipeline_cross(x->in, "");
	struct cmd c = run("cd %s && F=%s P=%s U=%s B='%s' && %s", dir, x->file, p,
			   x->in->lib ? "--strip-unneeded" : "''", workdir(), s->cmd);

	free(p);
	return c;
}

/* One step on both sides: the injected file must exit and complain as its twin does. */
static void pipeline_step_both(const struct ctx *x, const struct sides *sd, const struct step *s)
{
	struct cmd c[2];
	char *err[2];

	for (int i = 0; i < 2; i++) {
		c[i] = pipeline_run_step(x, sd->dir[i], s);
		err[i] = pipeline_normalized(c[i].err, sd->dir[i]);
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

void pipeline_steps_both(const struct ctx *x, const struct sides *sd, const struct step *steps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		pipeline_step_both(x, sd, &steps[i]);
}

/* The PT_NOTE walker (readers.py segments) on the freshly injected file, then on the injected
 * file of each of the N pairs of sides SD: one Python process for all. */
void pipeline_read_segments(const struct ctx *x, const struct sides *sd, size_t n, char **got)
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
void pipeline_check_sides(const struct ctx *x, const struct sides *sd, const char *after,
			const char *segments, const char *fresh)
{
	char f[2][300], *ran[2], *lint[2], *got;

	for (int i = 0; i < 2; i++) {
		snprintf(f[i], sizeof f[i], "%s/%s", sd->dir[i], x->file);
		ran[i] = pipeline_run_in(x, sd->dir[i]);
	}
	elflint_each(lint, (const char *const[]){ f[0], f[1] }, 2);
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
void pipeline_check_pipeline(const struct ctx *x, const struct sides *sd, const char *after)
{
	char *seg[2];

	pipeline_read_segments(x, sd, 1, seg);
	pipeline_check_sides(x, sd, after, seg[1], seg[0]);
	free(seg[0]);
	free(seg[1]);
}
