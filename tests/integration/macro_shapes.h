/* SPDX-License-Identifier: MIT */
/* macro_shapes.h - the ways upstream code writes dlopen notes into its objects, written here
 * for the tests (the layouts are described in docs/background.md, "Notes written in code"):
 *
 *   sd-dlopen.h (systemd v261): each note its own .note.dlopen section, flags "aGR", type
 *   %note, in a COMDAT group whose signature is "sd_dlopen:" and the payload; DECL(json).
 *
 *   SDL_dlopennote.h (SDL 3.4): a static const C object, aligned 4, `used`, in section
 *   .note.dlopen (no group): a note header, "FDO", then the JSON, zero padded; every note of a
 *   translation unit in one section, each with a local symbol; SDLNOTE(json).
 *
 *   openal-soft 1.25's common/dlopennote.h (C++20): a namespace-scope `constexpr` object of a
 *   struct type aligned 4, [[gnu::used, gnu::section(".note.dlopen")]], no group.  GCC on
 *   x86-64 raises the alignment of such a variable of 32 bytes or more to 32: the section is
 *   aligned to 32 and each note after the first starts at a multiple of 32, zeros between
 *   (docs/layout.md, "Notes aligned beyond 8"); OALNOTE(json), OALNOTE_INLINE(name, json)
 *   (an inline variable: the same note in a COMDAT group of its own).
 *
 *   gnulib's sd-dlopen module (lib/sd-dlopen.h, systemd's header for GNU projects, 2026):
 *   SD_ELF_NOTE_DLOPEN's note as above but with an .equ guard and label arithmetic for the
 *   sizes, GNUNOTE(json); and SD_ELF_NOTE_DLOPEN_ANCHORED's: the note in section .note.dlopen,
 *   flags "aGo" (SHF_LINK_ORDER to a hidden weak anchor byte in .data.sd_dlopen_dummy.TAG), in a
 *   COMDAT group named "sd_dlopen_group_" TAG (not the payload), guarded by
 *   "sd_dlopen:emitted:" TAG, the anchor kept by an empty asm that uses its address (so
 *   --gc-sections drops the note with the function), GNUANCHORED(tag, json) inside a function. */
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

/* The text of a C++20 header defining OALNOTE(json) the way openal-soft's macro does: the
 * struct, its constructor from std::array, the variable named after __LINE__. */
static const char oal_note_h[] =
	"#include <array>\n#include <cstdint>\n"
	"template<std::size_t L> struct [[gnu::aligned(4)]] OalNote {\n"
	"  struct { std::uint32_t n_namesz{4}, n_descsz{L}, n_type{0x407C0C0Au}; } nhdr;\n"
	"  std::array<char, 4> name{'F', 'D', 'O', 0};\n"
	"  std::array<char, L> json;\n"
	"  explicit constexpr OalNote(std::array<char, L> const &j) : json{j} {}\n"
	"};\n"
	"template<std::size_t L> consteval auto oal_note(const char (&s)[L]) {\n"
	"  std::array<char, L> a{};\n"
	"  for (std::size_t i = 0; i < L; i++) a[i] = s[i];\n"
	"  return OalNote<L>{a};\n"
	"}\n"
	"#define OAL_JOIN2(a, b) a##b\n#define OAL_JOIN(a, b) OAL_JOIN2(a, b)\n"
	"#define OALNOTE(json) [[gnu::used, gnu::section(\".note.dlopen\")]] constexpr auto \\\n"
	"  OAL_JOIN(s_dlopen_note_, __LINE__) = oal_note(json)\n"
	"#define OALNOTE_INLINE(name, json) [[gnu::used, gnu::section(\".note.dlopen\")]] \\\n"
	"  inline constexpr auto name = oal_note(json)\n";

/* The text of a C header defining GNUNOTE(json) and GNUANCHORED(tag, json): json is a C string
 * literal of the payload with its quotes escaped for the assembler, as for DECL. */
static const char gnulib_sd_dlopen_h[] =
	"#define GNUNOTE(json) __asm__(\".ifndef \\\"sd_dlopen:\" json \"\\\"\\n\" \\\n"
	"  \".equ \\\"sd_dlopen:\" json \"\\\", 1\\n\" \\\n"
	"  \".pushsection .note.dlopen, \\\"aGR\\\", %note, \\\"sd_dlopen:\" json \"\\\", comdat\\n\" \\\n"
	"  \".balign 4\\n.long 884f - 883f\\n.long 882f - 881f\\n.long 0x407c0c0a\\n883:\\n.asciz \\\"FDO\\\"\\n884:\\n\" \\\n"
	"  \".balign 4\\n881:\\n.asciz \\\"\" json \"\\\"\\n882:\\n.balign 4\\n.popsection\\n.endif\\n\")\n"
	"#define GNUANCHORED(tag, json) \\\n"
	"  __attribute__((visibility(\"hidden\"))) extern volatile const char gnu_anchor_##tag \\\n"
	"    __asm__(\"__sd_dlopen_anchor_\" #tag); \\\n"
	"  __asm__(\".ifndef \\\"sd_dlopen:emitted:\" #tag \"\\\"\\n\" \\\n"
	"    \".equ \\\"sd_dlopen:emitted:\" #tag \"\\\", 1\\n\" \\\n"
	"    \".pushsection .data.sd_dlopen_dummy.\" #tag \", \\\"awG\\\", %progbits, sd_dlopen_group_\" #tag \", comdat\\n\" \\\n"
	"    \".weak __sd_dlopen_anchor_\" #tag \"\\n.hidden __sd_dlopen_anchor_\" #tag \"\\n\" \\\n"
	"    \".type __sd_dlopen_anchor_\" #tag \", %object\\n.balign 8\\n__sd_dlopen_anchor_\" #tag \":\\n.byte 0\\n.popsection\\n\" \\\n"
	"    \".pushsection .note.dlopen, \\\"aGo\\\", %note, __sd_dlopen_anchor_\" #tag \", sd_dlopen_group_\" #tag \", comdat\\n\" \\\n"
	"    \".balign 4\\n.long 884f - 883f\\n.long 882f - 881f\\n.long 0x407c0c0a\\n883:\\n.asciz \\\"FDO\\\"\\n884:\\n\" \\\n"
	"    \".balign 4\\n881:\\n.asciz \\\"\" json \"\\\"\\n882:\\n.balign 4\\n.popsection\\n.endif\\n\"); \\\n"
	"  __asm__ volatile(\"\" : : \"r\"(&gnu_anchor_##tag))\n";

#endif
