/* SPDX-License-Identifier: MIT */
#include <config.h>
#include <dlfcn.h>
#include "codec.h"
#include "sd-dlopen.h"

int codec_value(void)
{
#ifdef CODEC_MACRO_TOO
	SD_ELF_NOTE_DLOPEN_ANCHORED(xz_recommended, "xz", "Decompress .xz files",
				    SD_ELF_NOTE_DLOPEN_PRIORITY_RECOMMENDED, "liblzma.so.5");
#endif
	void *lzma = dlopen("liblzma.so.5", RTLD_NOW); /* optional */
	if (lzma)
		dlclose(lzma);
	return 5;
}
