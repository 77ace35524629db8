/* SPDX-License-Identifier: MIT */
/* objedit_patch.c - how an object edit (objedit.c, objedit_sym.c) becomes patches of the plan:
 * new bytes gathered in runs, copies of the input merged while they continue each other. */
#include "objedit_int.h"

/* New bytes are gathered in a run while they follow each other, past a little padding: one
 * patch and one write for the new sections and the section headers.  The run grows
 * geometrically (an object may get 200,000 new sections).  Padding is zeros, so a run only
 * pads past the end of everything planned before it: a gap inside bytes laid already (a patch
 * over a copied section) holds the input's bytes, which a zero would overwrite. */
static void laid(struct rewrite *rw, uint64_t off, uint64_t len)
{
	if (off + len > rw->laid_end)
		rw->laid_end = off + len;
}

int objedit_patch_flush(struct rewrite *rw)
{
	size_t len = rw->run.len;

	if (!len)
		return 0;
	laid(rw, rw->run_off, len);
	if (rw->run.oom)
		return err_oom(rw->e);
	if (len <= 256) { /* copied: the buffer stays for the next run */
		rw->run.len = 0;
		return plan_patch(rw->o->pl, rw->run_off, len, rw->run.p, 0, rw->e);
	}
	return plan_patch_own(rw->o->pl, rw->run_off, len, (unsigned char *)buf_take(&rw->run),
			      rw->e);
}

int objedit_patch(struct rewrite *rw, uint64_t off, uint64_t len, const void *data, uint64_t src)
{
	static const char pad[64];
	struct plan *pl = rw->o->pl;
	struct patch *p;

	if (data) {
		if (rw->run.len && off >= rw->run_off + rw->run.len &&
		    off - (rw->run_off + rw->run.len) <= sizeof pad &&
		    rw->run_off + rw->run.len >= rw->laid_end) {
			buf_put(&rw->run, pad, (size_t)(off - (rw->run_off + rw->run.len)));
		} else if (objedit_patch_flush(rw)) {
			return -1;
		} else {
			rw->run_off = off;
		}
		buf_put(&rw->run, data, (size_t)len);
		return rw->run.oom ? err_oom(rw->e) : 0;
	}
	if (objedit_patch_flush(rw))
		return -1;
	laid(rw, off, len);
	/* A copy that continues the previous one at the same distance, past zeros only, is one
	 * copy: an object whose sections mostly stay costs a few patches, not one per section. */
	p = pl->n ? &pl->p[pl->n - 1] : NULL;
	if (p && !p->data && p->src != PATCH_ZERO && src != PATCH_ZERO &&
	    off - src == p->off - p->src && off >= p->off + p->len &&
	    off - (p->off + p->len) < 4096 &&
	    elf_range_is_zero(rw->ef, p->src + p->len, off - (p->off + p->len))) {
		p->len = off + len - p->off;
		return 0;
	}
	return plan_patch(pl, off, len, data, src, rw->e);
}
