/* SPDX-License-Identifier: MIT */
int util_value(void);
int util_value(void) { return 42; }
