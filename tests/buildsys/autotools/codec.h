/* SPDX-License-Identifier: MIT */
int codec_value(void);
