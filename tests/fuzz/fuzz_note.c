/* SPDX-License-Identifier: MIT */
/* Fuzz the note walker and decoder on arbitrary note areas, both byte orders and alignments. */
#include <stdint.h>
#include <stdlib.h>

#include "note/note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct note_iter it;
	struct note n = {0}; /* GCC's LTO sees a read before the iterator's first write */
	struct err e;
	int big, align, r;

	if (size < 1)
		return 0;
	for (big = 0; big < 2; big++)
		for (align = 4; align <= 8; align += 4) {
			note_iter_init(&it, data + 1, size - 1, (uint64_t)align, big);
			while ((r = note_next(&it, &n, &e)) == 1) {
				struct entries es = { 0 };
				if (n.off + n.size > size - 1 || n.desc + n.descsz > data + size)
					abort();       /* a note never extends past its area */
				if (note_is_dlopen(&n))
					note_decode(&n, &es, &e);
				manifest_free(&es);
			}
		}
	return 0;
}
