/* SPDX-License-Identifier: MIT */
/* objplan.c - plan the edit of a relocatable object: which dlopen sections stay, which go,
 * which COMDAT groups are added (docs/layout.md, "Relocatable objects").
 *
 * A linker keeps the first COMDAT group of a signature it sees and drops every later one,
 * whatever they hold (docs/background.md §5).  So a group's content is never changed: a dlopen
 * section is either kept untouched or removed with its group, and every entry the tool writes
 * gets a group of its own keyed on its payload, like systemd's sd-dlopen.h does. */
#include <stdlib.h>
#include <string.h>

#include "objedit.h"
#include "../note/note.h"
#include "objedit_int.h"

/* area[i]: 1 + the scan area of section i, 0 when it has none (one pass, not one per section:
 * an object may hold a group per entry, 100,000 of them). */
static size_t *section_areas(const struct elf *ef, const struct scan *sc)
{
	size_t *area = xcalloc(ef->shnum + 1, sizeof *area);

	for (size_t i = 0; area && i < sc->nareas; i++)
		if (sc->areas[i].kind == AREA_SECTION && sc->areas[i].index < ef->shnum)
			area[sc->areas[i].index] = i + 1;
	return area;
}

/* A section of notes aligned beyond 8 (docs/layout.md) is never kept: readers cannot read it;
 * its entries, as far as they decode, are in `want` for --merge, written again. */
static int section_misaligned(const struct scan *sc, const size_t *area, size_t idx)
{
	return area[idx] && sc->areas[area[idx] - 1].nmisaligned;
}

static int section_entries(const struct elf *ef, const struct scan *sc, const size_t *area,
			   size_t idx, struct entries *out, struct err *e)
{
	const struct scan_area *a;

	if (!area[idx])
		return 0;
	a = &sc->areas[area[idx] - 1];
	for (size_t k = a->first; k < a->first + a->n; k++)
		if (sc->items[k].dlopen && scan_decode_item(ef, &sc->items[k], out, e))
			return -1;
	return 0;
}

/* Section idx is the only member of a COMDAT group: the form the header and this tool write. */
static int alone_in_comdat(const struct elf *ef, const size_t *grp, size_t idx)
{
	uint32_t *w;
	size_t n;
	struct err ignore;
	int ok;

	if (!grp[idx] || objedit_group_words(ef, grp[idx], &w, &n, &ignore))
		return 0;
	ok = n == 2 && (w[0] & GRP_COMDAT_);
	free(w);
	return ok;
}

/* Merge: a dlopen section stays when `want` still holds each of its entries: every one, but a
 * section holding an entry the merge replaced (another of the same feature and sonames took
 * its place), whose other entries are then added again.  One pass decodes every section, one
 * sort compares them all with `want`. */
static int choose_kept_merge(const struct elf *ef, const struct scan *sc, const size_t *area,
			     const struct entries *want, const unsigned char *isd,
			     unsigned char *drop, struct entries *present, struct err *e)
{
	struct entries all = {0};
	size_t *owner = NULL, cap = 0, i, k;
	unsigned char *in = NULL;
	int r = 0;

	for (i = 1; i < ef->shnum && r == 0; i++) {
		size_t before = all.n;
		if (!isd[i])
			continue;
		if (section_misaligned(sc, area, i)) {
			drop[i] = 1;
			continue;
		}
		if (section_entries(ef, sc, area, i, &all, e))
			r = err_prefix(e, "section [%zu]: ", i);
		else if (all.n > before && !(owner = xgrow(owner, &cap, all.n, sizeof *owner)))
			r = err_oom(e);
		for (k = before; r == 0 && k < all.n; k++)
			owner[k] = i;
	}
	if (r == 0 && all.n && (!(in = xcalloc(all.n, 1)) || manifest_mark_in(want, &all, in)))
		r = err_oom(e);
	for (k = 0; r == 0 && k < all.n; k++)
		drop[owner[k]] |= !in[k];
	for (k = 0; r == 0 && k < all.n; k++)
		if (!drop[owner[k]] && manifest_append_copy(present, &all.v[k]))
			r = err_oom(e);
	free(in);
	free(owner);
	manifest_free(&all);
	return r;
}

/* Which dlopen sections stay: with keep_all (merge), see choose_kept_merge; else those alone in a
 * COMDAT group holding exactly one entry, the next wanted one: the entries keep the requested order
 * (kept groups come first in the output, added ones after).  `present` receives the kept
 * entries. */
static int choose_kept(const struct elf *ef, const struct scan *sc, const struct entries *want,
		       int keep_all, const unsigned char *isd, const size_t *grp,
		       const unsigned char *dup, unsigned char *drop, struct entries *present,
		       struct err *e)
{
	size_t *area = section_areas(ef, sc);
	size_t i, next = 0;
	int r = 0;

	if (!area)
		return err_oom(e);
	if (keep_all) {
		r = choose_kept_merge(ef, sc, area, want, isd, drop, present, e);
		free(area);
		return r;
	}
	for (i = 1; i < ef->shnum; i++) {
		struct entries es = {0};
		int keep;
		if (!isd[i])
			continue;
		if (section_misaligned(sc, area, i)) {
			drop[i] = 1;
			continue;
		}
		if (section_entries(ef, sc, area, i, &es, e)) {
			manifest_free(&es);
			r = err_prefix(e, "section [%zu]: ", i);
			break;
		}
		keep = es.n == 1 && alone_in_comdat(ef, grp, i) && next < want->n &&
		       manifest_entry_equal(&want->v[next], &es.v[0]);
		while (keep && ++next < want->n &&
		       (dup[next] || manifest_entry_equal(&want->v[next], &es.v[0])))
			; /* a repeated entry is written once (kept: want[0..next) and repeats) */
		if (keep && manifest_merge_all(present, &es)) {
			manifest_free(&es);
			r = err_oom(e);
			break;
		}
		drop[i] = !keep;
		manifest_free(&es);
	}
	free(area);
	return r;
}

static void forget_groups(struct objplan_memo *m)
{
	for (size_t i = 0; m->g && i < m->n; i++) {
		buf_free(&m->g[i].note);
		buf_free(&m->g[i].sig);
	}
	free(m->g);
	free(m->dup);
	m->g = NULL, m->dup = NULL, m->n = 0, m->ready = 0;
}

/* Which wanted entries repeat an earlier one; room for each entry's note and signature,
 * encoded when first needed (memo_group). */
static int memo_fill(struct objplan_memo *m, const struct elf *ef, const struct entries *want,
		     struct err *e)
{
	static const struct entries none;

	if (m->ready && m->want == want && m->big == ef->big)
		return 0;
	forget_groups(m);
	m->want = want, m->big = ef->big, m->n = want->n;
	m->dup = xcalloc(want->n + 1, 1);
	m->g = xcalloc(want->n + 1, sizeof *m->g);
	if (!m->dup || !m->g || manifest_mark_seen(&none, want, m->dup))
		return err_oom(e);
	m->ready = 1;
	return 0;
}

/* Entry i's group: the note holds that entry alone, the signature is NOTE_GROUP_PREFIX followed by
 * the note's payload (what sd-dlopen.h's macro gives, as gas decodes it). */
static const struct objedit_group *memo_group(struct objplan_memo *m, size_t i, struct err *e)
{
	struct objedit_group *g = &m->g[i];
	struct entries one = {.v = &m->want->v[i], .n = 1};

	if (g->sig.len)
		return g;
	if (note_encode(&one, m->big, &g->note, e)) {
		buf_free(&g->note);
		return NULL;
	}
	buf_puts(&g->sig, NOTE_GROUP_PREFIX);
	manifest_serialize(&one, &g->sig);
	return g->sig.oom ? (err_oom(e), NULL) : g;
}

void objplan_memo_free(struct objplan_memo *m)
{
	forget_groups(m);
	buf_free(&m->whole);
	memset(m, 0, sizeof *m);
}

/* One group per wanted entry not present and not repeating an earlier one. */
static int groups_to_add(struct objplan_memo *m, const struct entries *want,
			 const struct entries *present, struct objedit_group **out, size_t *nout,
			 struct err *e)
{
	unsigned char *seen = xcalloc(want->n + 1, 1); /* present, or wanted earlier */
	size_t i;

	*out = xcalloc(want->n ? want->n : 1, sizeof **out);
	*nout = 0;
	if (!*out || !seen ||
	    (present->n ? manifest_mark_seen(present, want, seen)
			: (memcpy(seen, m->dup, want->n), 0)))
		goto oom;
	for (i = 0; i < want->n; i++) {
		struct objedit_group *g = &(*out)[*nout];
		const struct objedit_group *mg;
		if (seen[i])
			continue;
		(*nout)++;
		if (!(mg = memo_group(m, i, e))) {
			free(seen);
			return -1;
		}
		buf_put(&g->note, mg->note.p, mg->note.len);
		buf_put(&g->sig, mg->sig.p, mg->sig.len);
		if (g->note.oom || g->sig.oom)
			goto oom;
	}
	free(seen);
	return 0;
oom:
	free(seen);
	return err_oom(e);
}

int objplan(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all,
	    struct plan *pl, struct objplan_memo *memo, struct err *e)
{
	struct objplan_memo own = {0}, *m = memo ? memo : &own;
	struct entries present = {0};
	struct objedit o = {.ef = ef, .pl = pl, .e = e};
	unsigned char *isd = NULL;
	size_t *grp = NULL, i, ndrop = 0;
	int r = -1;

	plan_reset(pl);
	if (ef->type != ET_REL_)
		return err_set(e, "cannot edit a %s as an object", elf_type_name(ef));
	if (!ef->shnum)
		return err_set(e, "relocatable object without section headers");
	isd = xcalloc(ef->shnum, 1);
	o.drop = xcalloc(ef->shnum, 1);
	if (!isd || !o.drop) {
		err_oom(e);
		goto out;
	}
	if (elf_check_layout(ef, e) || scan_dlopen_sections(ef, sc, isd, e) ||
	    objedit_groups(ef, &grp, e) || memo_fill(m, ef, want, e) ||
	    choose_kept(ef, sc, want, keep_all, isd, grp, m->dup, o.drop, &present, e) ||
	    groups_to_add(m, want, &present, &o.add, &o.nadd, e))
		goto out;
	for (i = 1; i < ef->shnum; i++) {
		ndrop += o.drop[i];
		o.had_dlopen |= isd[i];
	}
	if (!ndrop && !o.nadd) {
		pl->unchanged = 1;
		pl->keep = pl->out_size = ef->size;
		pl->strategy = "unchanged";
		plan_log(pl, "note: already present as requested; nothing to write\n");
		r = 0;
		goto out;
	}
	pl->strategy = !want->n ? "removed"
		       : ndrop  ? "section groups replaced"
				: "section groups added";
	r = objedit_plan(&o);
	if (r == 0) {
		for (i = 1; i < ef->shnum; i++)
			if (o.drop[i]) {
				char name[64];
				elf_section_name(ef, i, name, sizeof name);
				plan_log(pl, "section [%zu] %s: removed\n", i, name);
			}
		for (i = 0; i < o.nadd; i++)
			plan_log(pl, "group added: %.*s (%zu bytes of note)\n",
				 (int)o.add[i].sig.len, o.add[i].sig.p, o.add[i].note.len);
		plan_log(pl, "output: %llu bytes (input %llu)\n", (unsigned long long)pl->out_size,
			 (unsigned long long)ef->size);
	}
out:
	for (i = 0; o.add && i < o.nadd; i++) {
		buf_free(&o.add[i].note);
		buf_free(&o.add[i].sig);
	}
	free(o.add);
	free(o.drop);
	free(isd);
	free(grp);
	manifest_free(&present);
	objplan_memo_free(&own);
	if (r)
		plan_free(pl);
	return r;
}
