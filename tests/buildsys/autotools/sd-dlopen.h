/* SPDX-License-Identifier: MIT */
/* sd-dlopen.h - the notes gnulib's sd-dlopen module writes (its lib/sd-dlopen.h, systemd's
 * header for GNU projects), written again here for the sample with the same macros and the
 * same bytes: SD_ELF_NOTE_DLOPEN puts each entry in a COMDAT group keyed on its payload (as
 * dlnote-inject's header does: identical payloads fold); SD_ELF_NOTE_DLOPEN_ANCHORED, inside a
 * function, puts it in a group keyed on TAG, linked ("o") to an anchor byte, so that
 * --gc-sections drops the note with the function.  One to three sonames. */
#ifndef SAMPLE_SD_DLOPEN_H
#define SAMPLE_SD_DLOPEN_H

#define SD_ELF_NOTE_DLOPEN_PRIORITY_REQUIRED "required"
#define SD_ELF_NOTE_DLOPEN_PRIORITY_RECOMMENDED "recommended"
#define SD_ELF_NOTE_DLOPEN_PRIORITY_SUGGESTED "suggested"

#define SD_NOTE_BODY_(json)                                                                        \
	".balign 4\n.long 884f - 883f\n.long 882f - 881f\n.long 0x407c0c0a\n883:\n.asciz \"FDO\"\n" \
	"884:\n.balign 4\n881:\n.asciz \"" json "\"\n882:\n.balign 4\n.popsection\n.endif\n"

#define SD_NOTE_(json)                                                                             \
	__asm__(".ifndef \"sd_dlopen:" json "\"\n.equ \"sd_dlopen:" json "\", 1\n"                 \
		".pushsection .note.dlopen, \"aGR\", %note, \"sd_dlopen:" json "\", comdat\n"       \
		SD_NOTE_BODY_(json))

#define SD_NOTE_ANCHORED_(tag, json)                                                               \
	__attribute__((visibility("hidden"))) extern volatile const char sd_anchor_##tag          \
		__asm__("__sd_dlopen_anchor_" #tag);                                               \
	__asm__(".ifndef \"sd_dlopen:emitted:" #tag "\"\n.equ \"sd_dlopen:emitted:" #tag "\", 1\n"  \
		".pushsection .data.sd_dlopen_dummy." #tag ", \"awG\", %progbits, sd_dlopen_group_" #tag \
		", comdat\n.weak __sd_dlopen_anchor_" #tag "\n.hidden __sd_dlopen_anchor_" #tag "\n"  \
		".type __sd_dlopen_anchor_" #tag ", %object\n.balign 8\n__sd_dlopen_anchor_" #tag   \
		":\n.byte 0\n.popsection\n"                                                         \
		".pushsection .note.dlopen, \"aGo\", %note, __sd_dlopen_anchor_" #tag               \
		", sd_dlopen_group_" #tag ", comdat\n" SD_NOTE_BODY_(json));                        \
	__asm__ volatile("" : : "r"(&sd_anchor_##tag))

#define SD_Q_ "\\\""
#define SD_SONAMES1_(a) "[" SD_Q_ a SD_Q_ "]"
#define SD_SONAMES2_(a, b) "[" SD_Q_ a SD_Q_ "," SD_Q_ b SD_Q_ "]"
#define SD_SONAMES3_(a, b, c) "[" SD_Q_ a SD_Q_ "," SD_Q_ b SD_Q_ "," SD_Q_ c SD_Q_ "]"
#define SD_SONAMES_PICK_(_1, _2, _3, name, ...) name
#define SD_SONAMES_(...) SD_SONAMES_PICK_(__VA_ARGS__, SD_SONAMES3_, SD_SONAMES2_, SD_SONAMES1_)(__VA_ARGS__)
#define SD_JSON_(feature, description, priority, ...)                                              \
	"[{" SD_Q_ "feature" SD_Q_ ":" SD_Q_ feature SD_Q_ "," SD_Q_ "description" SD_Q_ ":" SD_Q_   \
	description SD_Q_ "," SD_Q_ "priority" SD_Q_ ":" SD_Q_ priority SD_Q_ "," SD_Q_ "soname"     \
	SD_Q_ ":" SD_SONAMES_(__VA_ARGS__) "}]"

#define SD_ELF_NOTE_DLOPEN(feature, description, priority, ...)                                    \
	SD_NOTE_(SD_JSON_(feature, description, priority, __VA_ARGS__))
#define SD_ELF_NOTE_DLOPEN_ANCHORED(tag, feature, description, priority, ...)                      \
	SD_NOTE_ANCHORED_(tag, SD_JSON_(feature, description, priority, __VA_ARGS__))

#endif
