/* SPDX-License-Identifier: MIT */
/* pipeline_fixture.h - what the pipeline tests (test_pipelines.c) share.
 * Each input, built here with -g, is copied twice: the twin stays as it is, the other copy gets
 * a two-entry manifest from the tool.  Every step runs on both alike and must exit and complain
 * (stderr, file names normalized) the same on both.  Afterwards the program runs the same, the
 * injected file still carries the entries, through sections and through PT_NOTE, and eu-elflint
 * says of it what it says of the twin. */
#ifndef PIPELINE_FIXTURE_H
#define PIPELINE_FIXTURE_H

#include <stddef.h>

#include "harness.h"

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

/* The two copies a pipeline runs on: dir[0] holds the twin, dir[1] the injected file. */
struct sides {
	char dir[2][256];
};

struct ctx {
	const struct input *in;
	const char *file;      /* prog or libplug.so.1 */
	char *entries;         /* the freshly injected file's, by section (--list --json) */
};


/* Builds the input in orig/ and injects a copy in fresh/.  Returns 0 in check-all's sanitized
 * pass: there tool_edit checks that the sanitized tool writes the bytes the first pass checked. */
int pipeline_prepare(struct ctx *x, const struct input *in);
/* DIR/twin and DIR/inj: a copy of the input and of the injected file. */
void pipeline_sides_in(const struct ctx *x, const char *dir, struct sides *sd);
/* Step S on the file in DIR. */
struct cmd pipeline_run_step(const struct ctx *x, const char *dir, const struct step *s);
/* The N STEPS on both sides, one after the other: the injected file must exit and complain as
 * its twin does. */
void pipeline_steps_both(const struct ctx *x, const struct sides *sd, const struct step *steps, size_t n);
/* The PT_NOTE walker on the freshly injected file (GOT[0], which must give the entries), then on
 * the injected file of each of the N pairs of sides SD (GOT[1..N]): one reader process for all. */
void pipeline_read_segments(const struct ctx *x, const struct sides *sd, size_t n, char **got);
/* After a pipeline (AFTER says which): the program runs as its twin does, eu-elflint says
 * nothing of it that it does not say of the twin, and the injected file still has the entries
 * it had when freshly injected, by section and by PT_NOTE (SEGMENTS and FRESH: what
 * pipeline_read_segments found after and before). */
void pipeline_check_sides(const struct ctx *x, const struct sides *sd, const char *after, const char *segments,
			  const char *fresh);
/* One pipeline's checks on one pair of sides. */
void pipeline_check_pipeline(const struct ctx *x, const struct sides *sd, const char *after);
/* TEXT with every FROM replaced by TO. */
char *pipeline_replaced(const char *text, const char *from, const char *to);
/* TEXT with the absolute path of DIR (one side) written SIDE. */
char *pipeline_normalized(const char *text, const char *dir);

#endif
