/* SPDX-License-Identifier: MIT */
#include <config.h>
#include <dlfcn.h>
#include <stdio.h>
#include "codec.h"
int parse_value(void);
int main(void)
{
	void *zstd = dlopen("libzstd.so.1", RTLD_NOW); /* optional: works without it */
	printf("app ok %d\n", codec_value() + parse_value());
	if (zstd)
		dlclose(zstd);
	return 0;
}
