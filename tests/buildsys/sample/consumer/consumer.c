/* SPDX-License-Identifier: MIT */
#include <stdio.h>
int codec_value(void);
int main(void)
{
	printf("consumer ok %d\n", codec_value());
	return 0;
}
