/* SPDX-License-Identifier: MIT */
/* linked_inputs.h - inputs the linked-file tests share (test_linked.c, test_linked_real.c):
 * the C macro of shared/seeds, and the manifests of the matrix's steps. */
#ifndef DLNOTE_LINKED_INPUTS_H
#define DLNOTE_LINKED_INPUTS_H

/* The macro from shared/seeds: the linker puts .note.dlopen in its shared PT_NOTE. */
static const char macro_c[] =
	"#include <stdint.h>\n#include <stdio.h>\n"
	"#define NOTE(json, v) __attribute__((used, section(\".note.dlopen\"))) _Alignas(4) static const struct {"
	" struct { uint32_t a, b, c; } h; char n[4]; _Alignas(4) char j[sizeof(json)]; } v = "
	"{ { 4, sizeof(json), 0x407c0c0a }, \"FDO\", json }\n"
	"NOTE(\"[{\\\"feature\\\":\\\"macro\\\",\\\"soname\\\":[\\\"libmacro.so.1\\\"]}]\", n1);\n"
	"int main(void) { puts(\"macro\"); return 3; }\n";

#define M_BODY "{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"description\":\"Support zstd compression in journal and coredump files\",\"priority\":\"recommended\"}," \
	"{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"description\":\"Support lz4 compression in journal and coredump files\",\"priority\":\"suggested\"}," \
	"{\"soname\":[\"libqrencode.so.4\",\"libqrencode.so.3\"],\"feature\":\"qrencode\",\"description\":\"Support for generating QR codes\",\"priority\":\"suggested\",\"x-extra\":{\"a\":[1,true,null]}}"
#define M_BIG "[" M_BODY "]"
#define M_GROWN "[" M_BODY ",{\"soname\":[\"libkmod.so.2\"],\"feature\":\"kmod\"}]"
#define M_SMALL "[{\"soname\":[\"libz.so.1\"]}]"

#endif
