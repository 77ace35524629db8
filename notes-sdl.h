#define SDLNOTE_CAT2(a, b) a##b
#define SDLNOTE_CAT(a, b) SDLNOTE_CAT2(a, b)
#define SDLNOTE(json) __attribute__((aligned(4), used, section(".note.dlopen"))) \
  static const struct { struct { unsigned int namesz, descsz, type; } h; char name[4]; \
    __attribute__((aligned(4))) char json_[sizeof(json)]; } \
  SDLNOTE_CAT(sdl_note_, __LINE__) = { { 4, sizeof(json), 0x407c0c0aU }, "FDO", json }
SDLNOTE("[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"description\":\"Zstandard\",\"priority\":\"recommended\"}]");
SDLNOTE("[{\"soname\":[\"liblz4.so.1\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}]");
