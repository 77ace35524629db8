/* report.h - printing entries for people and for tools (--list). */
#ifndef DLNOTE_REPORT_H
#define DLNOTE_REPORT_H

#include <stdio.h>

#include "manifest.h"

/* A table like systemd-analyze's: FEATURE, DESCRIPTION, SONAME, PRIORITY.  Alternatives are
 * joined with ", ".  Absent values print as "-". */
void report_table(const struct entries *es, FILE *out);
/* The entries as one compact JSON array and a newline: exactly the note's payload. */
void report_json(const struct entries *es, FILE *out);

#endif
