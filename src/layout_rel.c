/* layout_rel.c - plan the edit of a relocatable object: which dlopen sections stay, which go,
 * which COMDAT groups are added (docs/layout.md, "Relocatable objects").
 *
 * A linker keeps the first COMDAT group of a signature it sees and drops every later one,
 * whatever they hold (shared/REFERENCE.md §5).  So a group's content is never changed: a dlopen
 * section is either kept untouched or removed with its group, and every entry the tool writes
 * gets a group of its own keyed on its payload, like systemd's sd-dlopen.h does. */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "note.h"
#include "objedit.h"

#define SIG_PREFIX "sd_dlopen:"

enum { SHT_GROUP_ = 17, GRP_COMDAT_ = 1 };

static int section_entries(const struct elf *ef, const struct scan *sc, size_t idx, struct entries *out, struct err *e)
{
	size_t i, k;

	for (i = 0; i < sc->nareas; i++) {
		const struct scan_area *a = &sc->areas[i];
		if (a->kind != AREA_SECTION || a->index != idx)
			continue;
		for (k = a->first; k < a->first + a->n; k++)
			if (sc->items[k].dlopen && scan_decode_item(ef, &sc->items[k], out, e))
				return -1;
	}
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

static int has_entry(const struct entries *es, const struct entry *en)
{
	size_t i;

	for (i = 0; i < es->n; i++)
		if (manifest_entry_equal(&es->v[i], en))
			return 1;
	return 0;
}

/* Which dlopen sections stay: with keep_all (merge), every one; else those alone in a COMDAT
 * group holding exactly one entry, the next wanted one: the entries keep the requested order
 * (kept groups come first in the output, added ones after).  `present` receives the kept
 * entries. */
static int choose_kept(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all,
		       const unsigned char *isd, const size_t *grp, unsigned char *drop, struct entries *present, struct err *e)
{
	size_t i, next = 0;

	for (i = 1; i < ef->shnum; i++) {
		struct entries es = { 0 };
		int keep;
		if (!isd[i])
			continue;
		if (section_entries(ef, sc, i, &es, e)) {
			manifest_free(&es);
			return err_prefix(e, "section [%zu]: ", i);
		}
		keep = keep_all || (es.n == 1 && alone_in_comdat(ef, grp, i) && next < want->n && manifest_entry_equal(&want->v[next], &es.v[0]));
		while (keep && !keep_all && ++next < want->n &&
		       (has_entry(present, &want->v[next]) || manifest_entry_equal(&want->v[next], &es.v[0])))
			;          /* a repeated entry is written once */
		if (keep && manifest_merge_all(present, &es)) {
			manifest_free(&es);
			return err_set(e, EXIT_BAD_INPUT, "out of memory");
		}
		drop[i] = !keep;
		manifest_free(&es);
	}
	return 0;
}

/* One group per wanted entry not present: the note holds that entry alone, the signature is
 * SIG_PREFIX followed by the note's payload (what sd-dlopen.h's macro gives, as gas decodes it). */
static int groups_to_add(const struct elf *ef, const struct entries *want, const struct entries *present,
			 struct objedit_group **out, size_t *nout, struct err *e)
{
	struct entries done = { 0 };
	size_t i;

	*out = xcalloc(want->n ? want->n : 1, sizeof **out);
	*nout = 0;
	if (!*out)
		return err_set(e, EXIT_BAD_INPUT, "out of memory");
	for (i = 0; i < want->n; i++) {
		struct entries one = { .v = &want->v[i], .n = 1 };
		struct objedit_group *g = &(*out)[*nout];
		if (has_entry(present, &want->v[i]) || has_entry(&done, &want->v[i]))
			continue;
		if (manifest_append_copy(&done, &want->v[i]))
			goto oom;
		(*nout)++;
		if (note_encode(&one, ef->big, &g->note, e))
			goto fail;
		buf_puts(&g->sig, SIG_PREFIX);
		manifest_serialize(&one, &g->sig);
		if (g->sig.oom)
			goto oom;
	}
	manifest_free(&done);
	return 0;
oom:
	err_set(e, EXIT_BAD_INPUT, "out of memory");
fail:
	manifest_free(&done);
	return -1;
}

int layout_plan_rel(const struct elf *ef, const struct scan *sc, const struct entries *want, int keep_all, struct plan *pl,
		    struct err *e)
{
	struct entries present = { 0 };
	struct objedit o = { .ef = ef, .pl = pl, .e = e };
	unsigned char *isd = NULL;
	size_t *grp = NULL, i, ndrop = 0;
	int r = -1;

	memset(pl, 0, sizeof *pl);
	if (ef->type != ET_REL_)
		return err_set(e, EXIT_BAD_INPUT, "cannot edit a %s as an object", elf_type_name(ef));
	if (!ef->shnum)
		return err_set(e, EXIT_BAD_INPUT, "relocatable object without section headers");
	isd = xcalloc(ef->shnum, 1);
	o.drop = xcalloc(ef->shnum, 1);
	if (!isd || !o.drop) {
		err_set(e, EXIT_BAD_INPUT, "out of memory");
		goto out;
	}
	if (elf_check_layout(ef, e) || scan_dlopen_sections(ef, sc, isd, e) || objedit_groups(ef, &grp, e) ||
	    choose_kept(ef, sc, want, keep_all, isd, grp, o.drop, &present, e) ||
	    groups_to_add(ef, want, &present, &o.add, &o.nadd, e))
		goto out;
	for (i = 1; i < ef->shnum; i++)
		ndrop += o.drop[i];
	if (!ndrop && !o.nadd) {
		pl->unchanged = 1;
		pl->keep = pl->out_size = ef->size;
		pl->strategy = "unchanged";
		buf_printf(&pl->log, "note: already present as requested; nothing to write\n");
		r = 0;
		goto out;
	}
	pl->strategy = !want->n ? "removed" : ndrop ? "section groups replaced" : "section groups added";
	r = objedit_plan(&o);
	if (r == 0) {
		for (i = 1; i < ef->shnum; i++)
			if (o.drop[i]) {
				char name[64];
				elf_section_name(ef, i, name, sizeof name);
				buf_printf(&pl->log, "section [%zu] %s: removed\n", i, name);
			}
		for (i = 0; i < o.nadd; i++)
			buf_printf(&pl->log, "group added: %.*s (%zu bytes of note)\n", (int)o.add[i].sig.len, o.add[i].sig.p, o.add[i].note.len);
		buf_printf(&pl->log, "output: %llu bytes (input %llu)\n", (unsigned long long)pl->out_size, (unsigned long long)ef->size);
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
	if (r)
		layout_free(pl);
	return r;
}

/* The entries of an encoded note (layout_plan's interface gives a note). */
int layout_plan_rel_note(const struct elf *ef, const struct scan *sc, const struct buf *note, struct plan *pl, struct err *e)
{
	struct entries want = { 0 };
	struct note_iter it;
	struct note n;
	int r = 0;

	note_iter_init(&it, note->p, note->len, 4, ef->big);
	while (r == 0 && (r = note_next(&it, &n, e)) == 1)
		r = note_decode(&n, &want, e);
	if (r == 0)
		r = layout_plan_rel(ef, sc, &want, 0, pl, e);
	manifest_free(&want);
	return r;
}
