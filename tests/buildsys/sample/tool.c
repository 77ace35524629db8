/* SPDX-License-Identifier: MIT */
#include <stdio.h>
int codec_value(void);
int parse_value(void);
int front_value(void);
int main(void)
{
	printf("tool ok %d %d %d\n", codec_value(), parse_value(), front_value());
	return 0;
}
