#define DECL(json) __asm__(".ifndef \"sd_dlopen:" json "\"\n" \
  ".set \"sd_dlopen:" json "\", 1\n" \
  ".pushsection .note.dlopen,\"aGR\",%note,\"sd_dlopen:" json "\",comdat\n" \
  ".balign 4\n.long 2f-1f\n.long 4f-3f\n.long 0x407c0c0a\n1: .asciz \"FDO\"\n2: .balign 4\n" \
  "3: .asciz \"" json "\"\n4: .balign 4\n.popsection\n.endif\n")
DECL("[{\\\"soname\\\":[\\\"libzstd.so.1\\\"],\\\"feature\\\":\\\"zstd\\\",\\\"description\\\":\\\"Zstandard\\\",\\\"priority\\\":\\\"recommended\\\"}]");
DECL("[{\\\"soname\\\":[\\\"liblz4.so.1\\\"],\\\"feature\\\":\\\"lz4\\\",\\\"priority\\\":\\\"suggested\\\"}]");
