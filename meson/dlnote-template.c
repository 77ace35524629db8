/* SPDX-License-Identifier: MIT */
/* dlnote-template.c - compiled with the target's compiler and ABI options (never with LTO) into
 * the object dlnote-inject copies into a note object.  It defines nothing: only the compiler's
 * ELF header (class, byte order, e_machine, e_flags) and ABI marker sections (.note.GNU-stack,
 * .note.gnu.property, .ARM.attributes...) matter, so linking the note object changes nothing
 * else in the target. */
typedef int dlnote_template_unused;
