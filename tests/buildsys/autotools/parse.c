/* SPDX-License-Identifier: MIT */
int parse_value(void);
int parse_value(void) { return 37; }
