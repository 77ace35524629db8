/* SPDX-License-Identifier: MIT */
int intern_value(void);
int intern_value(void)
{
	return 34;
}
