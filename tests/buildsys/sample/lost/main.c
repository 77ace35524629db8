/* SPDX-License-Identifier: MIT */
int lost_value(void);
int main(void) { return lost_value() - 3; }
