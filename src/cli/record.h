/* SPDX-License-Identifier: MIT */
/* record.h - `--record=TRACE -- COMMAND [ARG]...`: run COMMAND with the rtld-audit module
 * (src/audit/) so that every dlopen() after start-up is appended to TRACE, in
 * COMMAND and in every child it starts.  See docs/recording.md. */
#ifndef DLNOTE_RECORD_H
#define DLNOTE_RECORD_H

/* Exit statuses of --record itself, as env(1) has them: COMMAND's own status when it ran. */
enum { RECORD_FAILED = 125, RECORD_CANNOT_RUN = 126, RECORD_NOT_FOUND = 127 };

/* Runs COMMAND (argv, NULL-terminated) as a child with the recording set and returns its exit
 * status; a COMMAND killed by a signal kills the tool by the same signal.  The tool's own failures
 * return a status above, the reason printed.  A COMMAND the module cannot audit still runs: TRACE
 * gets an "unauditable" line for it and standard error one message; the processes of the
 * recording the module found it could not follow get one line at the end, with their count. */
int record_run(const char *trace, char **argv);

#endif
