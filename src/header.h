/* SPDX-License-Identifier: MIT */
/* header.h - --header: entries as a C header that gives every object compiled with it
 * (-include) the notes, as payload-keyed COMDAT groups. */
#ifndef DLNOTE_HEADER_H
#define DLNOTE_HEADER_H

#include "manifest.h"
#include "util.h"

/* The header's text (repeated entries once), appended to `out`. */
int header_render(const struct entries *es, struct buf *out, struct err *e);
/* Write it to `path` ("-": standard output), replacing the file by a rename, and only when its
 * bytes change. */
int header_write(const char *path, const struct entries *es, struct err *e);

#endif
