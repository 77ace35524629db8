/* SPDX-License-Identifier: MIT */
/* macro_shapes.h - the ways upstream code writes dlopen notes into its objects, written here
 * for the tests (the layouts are described in docs/background.md, "Notes written in code"):
 *
 *   sd-dlopen.h (systemd v261): each note its own .note.dlopen section, flags "aGR", type
 *   %note, in a COMDAT group whose signature is "sd_dlopen:" and the payload; DECL(json).
 *
 *   SDL_dlopennote.h (SDL 3.4): a static const C object, aligned 4, `used`, in section
 *   .note.dlopen (no group): a note header, "FDO", then the JSON, zero padded; every note of a
 *   translation unit in one section, each with a local symbol; SDLNOTE(json). */
#ifndef DLNOTE_MACRO_SHAPES_H
#define DLNOTE_MACRO_SHAPES_H

/* The text of a C header defining DECL(json): json is a C string literal of the payload with
 * its quotes escaped for the assembler (\\\" in the literal). */
static const char sd_dlopen_h[] =
	"#define DECL(json) __asm__(\".ifndef \\\"sd_dlopen:\" json \"\\\"\\n\" \\\n"
	"  \".set \\\"sd_dlopen:\" json \"\\\", 1\\n\" \\\n"
	"  \".pushsection .note.dlopen,\\\"aGR\\\",%note,\\\"sd_dlopen:\" json \"\\\",comdat\\n\" \\\n"
	"  \".balign 4\\n.long 2f-1f\\n.long 4f-3f\\n.long 0x407c0c0a\\n1: .asciz \\\"FDO\\\"\\n2: .balign 4\\n\" \\\n"
	"  \"3: .asciz \\\"\" json \"\\\"\\n4: .balign 4\\n.popsection\\n.endif\\n\")\n";

/* The text of a C header defining SDLNOTE(json): json is a plain C string literal. */
static const char sdl_note_h[] =
	"#define SDLNOTE_CAT2(a, b) a##b\n"
	"#define SDLNOTE_CAT(a, b) SDLNOTE_CAT2(a, b)\n"
	"#define SDLNOTE(json) __attribute__((aligned(4), used, section(\".note.dlopen\"))) \\\n"
	"  static const struct { struct { unsigned int namesz, descsz, type; } h; char name[4]; \\\n"
	"    __attribute__((aligned(4))) char json_[sizeof(json)]; } \\\n"
	"  SDLNOTE_CAT(sdl_note_, __LINE__) = { { 4, sizeof(json), 0x407c0c0aU }, \"FDO\", json }\n";

#endif
