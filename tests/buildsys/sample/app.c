/* SPDX-License-Identifier: MIT */
#include <stdio.h>
int util_value(void);
int main(void)
{
	printf("app ok %d\n", util_value());
	return 0;
}
