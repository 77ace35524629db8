/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <codec.h>
int main(void)
{
	printf("consumer ok %d\n", codec_value());
	return 0;
}
