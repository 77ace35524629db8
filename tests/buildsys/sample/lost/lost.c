/* SPDX-License-Identifier: MIT */
int lost_value(void);
int lost_value(void) { return 3; }
