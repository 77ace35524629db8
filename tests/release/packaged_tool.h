/* SPDX-License-Identifier: MIT */
/* packaged_tool.h - what the package tests check of the tool taken out of a package. */
#ifndef DLNOTE_PACKAGED_TOOL_H
#define DLNOTE_PACKAGED_TOOL_H

/* The tool extracted under ROOT (a directory in the work directory: ROOT/usr/bin/dlnote-inject,
 * ROOT/usr/lib/dlnote/) says VERSION; on a program compiled here it injects a manifest, lists it
 * back, and the program still runs; --record finds the packaged audit module through the
 * LIBDIR compiled in (../lib/dlnote from the tool's directory), the recording matches the note,
 * and --record fails once that module is moved away (so no other module served). */
void expect_packaged_tool_works(const char *root, const char *version);

#endif
