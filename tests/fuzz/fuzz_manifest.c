/* SPDX-License-Identifier: MIT */
/* Fuzz the manifest parser and validator: any input either fails with a positioned message
 * or parses into entries whose serialization parses back to the same entries. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "note/note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct entries a = { 0 }, b = { 0 };
	struct buf s1 = { 0 }, s2 = { 0 };
	struct err e = { 0 };

	if (manifest_parse((const char *)data, size, &a, &e) == 0) {
		manifest_serialize(&a, &s1);
		if (manifest_parse(s1.p, s1.len, &b, &e) != 0)
			abort();               /* our own output must be a valid manifest */
		manifest_serialize(&b, &s2);
		if (s1.len != s2.len || memcmp(s1.p, s2.p, s1.len))
			abort();               /* and serialization is canonical */
	} else if (strncmp(e.msg, "line ", 5) && strcmp(e.msg, "out of memory")) {
		abort();                       /* every manifest error carries its position */
	}
	manifest_free(&a);
	manifest_free(&b);
	buf_free(&s1);
	buf_free(&s2);
	return 0;
}
