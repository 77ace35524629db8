/* SPDX-License-Identifier: MIT */
int parse_value(void);
int codec_value(void);
int codec_value(void) { return 5 + parse_value(); }
