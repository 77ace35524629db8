/* SPDX-License-Identifier: MIT */
int parse_value(void);
int codec_value(void);
int codec_value(void) { return 5 + parse_value(); }
#ifdef CODEC_MACRO_TOO
/* The entry the manifest declares, also in the code, as an older in-code macro writes it: a
 * plain note section, which does not fold with the manifest's COMDAT group. */
__attribute__((section(".note.dlopen"), used, aligned(4))) static const struct {
	unsigned namesz, descsz, type;
	char name[4], desc[104];
} codec_note = { 4, 104, 0x407c0c0a, "FDO",
	"[{\"feature\":\"xz\",\"description\":\"Decompress .xz files\",\"soname\":[\"liblzma.so.5\"]}]" };
#endif
