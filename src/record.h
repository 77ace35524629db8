/* SPDX-License-Identifier: MIT */
/* record.h - `--record=TRACE -- COMMAND [ARG]...`: run COMMAND with the rtld-audit module
 * (src/audit/dlnote-audit.c) so that every dlopen() after start-up is appended to TRACE, in
 * COMMAND and in every child it starts.  See docs/recording.md. */
#ifndef DLNOTE_RECORD_H
#define DLNOTE_RECORD_H

/* Exit statuses of --record itself, as env(1) has them: COMMAND's own status when it ran. */
enum { RECORD_FAILED = 125, RECORD_CANNOT_RUN = 126, RECORD_NOT_FOUND = 127 };

/* Execs COMMAND (argv, NULL-terminated) and so returns only on failure, with a status above; the reason
 * is printed.  A COMMAND the module cannot audit still runs: TRACE gets an "unauditable" line for
 * it and standard error one message. */
int record_run(const char *trace, char **argv);

#endif
