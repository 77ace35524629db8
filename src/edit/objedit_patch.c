/* SPDX-License-Identifier: MIT */
/* objedit_patch.c - how an object edit (objedit.c, objedit_sym.c) becomes patches of the plan:
 * new bytes gathered in runs, copies of the input merged while they continue each other. */
#include "objedit_int.h"

/* New bytes are gathered in a run while they follow each other, past a little padding: one
 * patch and one write for the new sections and the section headers.  The run grows
 * geometrically (an object may get 200,000 new sections). */
int objedit_patch_flush(struct oe *X)
{
	size_t len = X->run.len;

	if (!len)
		return 0;
	if (X->run.oom)
		return err_oom(X->e);
	if (len <= 256) { /* copied: the buffer stays for the next run */
		X->run.len = 0;
		return plan_patch(X->o->pl, X->run_off, len, X->run.p, 0, X->e);
	}
	return plan_patch_own(X->o->pl, X->run_off, len, (unsigned char *)buf_take(&X->run), X->e);
}

int objedit_patch(struct oe *X, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	static const char pad[64];
	struct plan *pl = X->o->pl;
	struct patch *p;

	if (data) {
		if (X->run.len && off >= X->run_off + X->run.len &&
		    off - (X->run_off + X->run.len) <= sizeof pad) {
			buf_put(&X->run, pad, (size_t)(off - (X->run_off + X->run.len)));
		} else if (objedit_patch_flush(X)) {
			return -1;
		} else {
			X->run_off = off;
		}
		buf_put(&X->run, data, (size_t)len);
		return X->run.oom ? err_oom(X->e) : 0;
	}
	if (objedit_patch_flush(X))
		return -1;
	/* A copy that continues the previous one at the same distance, past zeros only, is one
	 * copy: an object whose sections mostly stay costs a few patches, not one per section. */
	p = pl->n ? &pl->p[pl->n - 1] : NULL;
	if (p && !p->data && p->src != PATCH_ZERO && src != PATCH_ZERO &&
	    off - src == p->off - p->src && off >= p->off + p->len &&
	    off - (p->off + p->len) < 4096 &&
	    elf_range_is_zero(X->ef, p->src + p->len, off - (p->off + p->len))) {
		p->len = off + len - p->off;
		return 0;
	}
	return plan_patch(pl, off, len, data, src, X->e);
}
