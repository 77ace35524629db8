/* SPDX-License-Identifier: MIT */
/* Fuzz the policy reader (src/deps/policy.c, --policy): any input either fails with a
 * positioned message, or gives rules by which every entry gets a priority, "ignored" or
 * "unknown", and an entry given its priority stays a valid manifest entry. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "deps/deps.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char entries[] =
		"[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"},"
		"{\"soname\":[\"liba.so.1\"],\"priority\":\"required\"},"
		"{\"soname\":[\"libb.so.1\"],\"feature\":\"[*?\\\\\",\"priority\":\"suggested\"},"
		"{\"soname\":[\"libc.so.1\"],\"feature\":\"tpm-é\",\"description\":\"d\"}]";
	static const char *const files[] = {"/usr/bin/x", "", "/usr/lib/x86_64-linux-gnu/libq.so.1",
					    "a/*/b"};
	struct policy p = {0};
	struct entries es = {0};
	struct err e = {0};

	if (policy_parse((const char *)data, size, &p, &e) != 0) {
		if (strncmp(e.msg, "line ", 5) && strcmp(e.msg, "out of memory"))
			abort(); /* every policy error carries its position */
		policy_free(&p);
		return 0;
	}
	if (manifest_parse(entries, sizeof entries - 1, &es, &e))
		abort();
	for (size_t i = 0; i < es.n; i++)
		for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
			int rank = policy_rank(&p, &es.v[i], files[k]);
			struct entries one = {0}, back = {0};
			struct buf s = {0};
			if (rank != POLICY_IGNORED && rank != POLICY_UNKNOWN &&
			    (rank < 0 || rank >= RANKS))
				abort();
			if (rank < 0)
				continue;
			if (manifest_parse(entries, sizeof entries - 1, &one, &e) ||
			    policy_set_priority(&one.v[i], rank))
				abort();
			manifest_serialize(&one, &s);
			if (manifest_parse(s.p, s.len, &back, &e) != 0)
				abort(); /* the entry with its priority is still a manifest */
			buf_free(&s);
			manifest_free(&one);
			manifest_free(&back);
		}
	manifest_free(&es);
	policy_free(&p);
	return 0;
}
