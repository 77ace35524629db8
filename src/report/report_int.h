/* SPDX-License-Identifier: MIT */
/* report_int.h - private to src/report/: what its files share beyond report.h: sbom.c's
 * document (report.c). */
#ifndef DLNOTE_REPORT_INT_H
#define DLNOTE_REPORT_INT_H

#include <stdio.h>

#include "report.h"

/* sbom.c: --format=cyclonedx: a CycloneDX 1.6 JSON document: each file of the listing a
 * component of type file, each distinct dependency of their notes (a soname with its entry's
 * feature, description and priority) a component of type library, scope required or optional,
 * and the files' dependencies.  Returns -1 when out of memory. */
int sbom_cyclonedx(const struct listing *l, FILE *out);

#endif
