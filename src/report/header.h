/* SPDX-License-Identifier: MIT */
/* header.h - --header: entries as a C header that gives every object compiled with it
 * (-include) the notes, as payload-keyed COMDAT groups. */
#ifndef DLNOTE_HEADER_H
#define DLNOTE_HEADER_H

#include "../note/note.h"
#include "../edit/edit.h"
#include "../base/base.h"

/* The header's text (repeated entries once), appended to `out`. */
int header_render(const struct entries *es, struct buf *out, struct err *e);
/* Write it to `path` ("-": standard output), only when its bytes change, replacing the file as
 * -o replaces one (output_replace: a temporary and a rename, --fsync honoured). */
int header_write(const char *path, const struct entries *es, const struct output_opts *o,
		 struct err *e);

#endif
