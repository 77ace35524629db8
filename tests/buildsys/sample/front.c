/* SPDX-License-Identifier: MIT */
int codec_value(void);
int front_value(void);
int front_value(void) { return 10 * codec_value(); }
