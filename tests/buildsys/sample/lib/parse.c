/* SPDX-License-Identifier: MIT */
int parse_value(void);
int parse_value(void) { return 2; }
#ifdef CODEC_MACRO_TOO
/* parse's entry in its code too: with codec's, the archive gives two entries twice, and its
 * check must still fail the build in one line (tests/buildsys: SDL3's shape, its macros on). */
__attribute__((section(".note.dlopen"), used, aligned(4))) static const struct {
	unsigned namesz, descsz, type;
	char name[4], desc[52];
} parse_note = { 4, 52, 0x407c0c0a, "FDO", "[{\"feature\":\"yaml\",\"soname\":[\"libyaml-0.so.2\"]}]" };
#endif
