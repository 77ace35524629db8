/* SPDX-License-Identifier: MIT */
/* travel.c - --check: entries a program would carry twice, and where an archive's entries
 * travel (report.h). */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../base/base.h"
#include "../note/note.h"
#include "../edit/edit.h"

/* How many entries one line names before "and N more". */
#define REPEAT_NAMES 3

/* The priorities of the entries of es with first[i] == f, in file order: "required, suggested". */
static void put_priorities(const struct entries *es, const size_t *first, size_t f, struct buf *b)
{
	struct buf tmp = {0};

	for (size_t i = f, n = 0; i < es->n; i++)
		if (first[i] == f)
			buf_printf(b, "%s%s", n++ ? ", " : "", entry_priority(&es->v[i], &tmp));
	buf_free(&tmp);
}

void travel_repeats_line(const struct entries *repeated, struct buf *out)
{
	size_t n = repeated->n;

	buf_printf(out,
		   "error: %zu entr%s of the manifest %s also declared by the code (an in-code "
		   "macro left on beside the helper?): ",
		   n, n == 1 ? "y" : "ies", n == 1 ? "is" : "are");
	for (size_t i = 0; i < n && i < REPEAT_NAMES; i++) {
		buf_puts(out, i ? ", " : "");
		manifest_entry_label(&repeated->v[i], out);
	}
	if (n > REPEAT_NAMES)
		buf_printf(out, " and %zu more", n - REPEAT_NAMES);
	/* No ';' in it: CMake's check splits lines into a list (dlnoteCheck.cmake). */
	buf_printf(out, ": a program lists %s twice, declare %s once (-v: each)\n",
		   n == 1 ? "it" : "each", n == 1 ? "it" : "each");
}

size_t travel_repeats(const struct entries *es, const struct entries *added, int verbose,
		      struct buf *report, struct entries *repeated)
{
	static const struct entries none;
	size_t *count = xcalloc(es->n + 1, sizeof *count),
	       *first = xcalloc(es->n + 1, sizeof *first);
	unsigned char *in_added = xcalloc(es->n + 1, 1);
	struct entries mine = {0}, *rep = repeated && !verbose ? repeated : &mine;
	size_t i, errors = 0, x, y;
	int oom = 0;

	if (!count || !first || !in_added ||
	    manifest_repeats(es, added ? added : &none, count, in_added, first)) {
		free(count), free(first), free(in_added);
		buf_puts(report, "error: " OOM_MESSAGE "\n");
		return 1;
	}
	for (i = 0; i < es->n; i++) {
		if (count[i] < 2 || (!in_added[i] && !verbose))
			continue;
		/* The file's own notes may repeat an entry (the spec forbids none of this, and
		 * every consumer takes the strongest): said under -v.  A manifest's entry beside
		 * the same entry in the code (the macro left on beside the helper) is an error:
		 * one line for all of them, each on its own under -v. */
		if (verbose) {
			buf_puts(report, in_added[i] ? "error: entry " : "entry ");
			manifest_entry_label(&es->v[i], report);
			buf_printf(report, " is declared %zu times (", count[i]);
			put_priorities(es, first, i, report);
			buf_puts(report, in_added[i]
						 ? "): the manifest adds it beside the same entry "
						   "in the code (an in-code macro left on beside "
						   "the helper?): declare it once\n"
						 : "): consumers take it once, at its strongest "
						   "priority\n");
		} else {
			struct entries one = {.v = &es->v[i], .n = 1};
			oom |= manifest_merge_identity(rep, &one, 1, NULL, &x, &y) != 0;
		}
		errors += in_added[i];
	}
	if (!verbose && !repeated && errors)
		travel_repeats_line(&mine, report);
	if (oom)
		buf_puts(report, "error: " OOM_MESSAGE "\n");
	manifest_free(&mine);
	free(count), free(first), free(in_added);
	return errors + (size_t)oom;
}

size_t travel_dev_names(const struct entries *es, struct buf *report)
{
	struct buf s = {0};
	size_t found = 0;

	for (size_t i = 0; i < es->n; i++) {
		const struct keyval *m = entry_find(&es->v[i], "soname");
		size_t pos = 0;
		while (m && json_array_next_string(m->val, m->vallen, &pos, &s) == 1) {
			if (soname_unversioned(s.p, s.len)) {
				buf_puts(report, "warning: soname ");
				buf_put(report, s.p, s.len);
				buf_puts(report, " has no version after .so: it names a "
						 "development symlink, which "
						 "packages ship for linking, not for running; "
						 "declare the versioned soname\n");
				found++;
			}
			s.len = 0;
		}
	}
	buf_free(&s);
	return found;
}

/* ---- archives ---- */

#define TRAVEL_NAMES 3

struct travel_entry {
	struct entries one; /* the entry, as first seen */
	char *id;
	size_t idlen;
	size_t members, taken;        /* ELF members carrying it; of those, members with symbols */
	size_t last_nth;              /* the member that counted it last */
	uint64_t fold;                /* identity of the first note seen: a group's payload hash */
	int conflict;                 /* carried by notes that do not fold with each other */
	char names[TRAVEL_NAMES][64]; /* the first members carrying it */
	size_t single;                /* carriers that define exactly one symbol */
	uint64_t single_sym;          /* the index position of the first one's symbol */
};

int travel_index(struct travel *t, const struct archive *ar, const struct archive_member *m,
		 struct err *e)
{
	free(t->idx);
	t->idx = NULL, t->nidx = 0;
	if (archive_index_members(ar, m, &t->idx, &t->nidx, e))
		return -1;
	t->ar = ar;
	t->index = *m;
	return 0;
}

static const struct archive_index_count *index_of(const struct travel *t, uint64_t hdr)
{
	size_t lo = 0, hi = t->nidx;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->idx[mid].off == hdr)
			return &t->idx[mid];
		if (t->idx[mid].off < hdr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static uint64_t fnv(const unsigned char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h | 1; /* never 0: 0 means "none yet" */
}

/* The slot of identity (id, len) in the open-addressing table: its entry's or a free one. */
static size_t *slot_of(const struct travel *t, const char *id, size_t len)
{
	size_t mask = t->nslots - 1, i = (size_t)fnv((const unsigned char *)id, len) & mask;

	for (;; i = (i + 1) & mask) {
		size_t k = t->slots[i];
		if (!k || (t->v[k - 1].idlen == len && memcmp(t->v[k - 1].id, id, len) == 0))
			return &t->slots[i];
	}
}

/* Room for one more entry: the table kept at most half full, so a look-up is O(1) whatever
 * the number of entries a hostile archive declares. */
static int slots_grow(struct travel *t)
{
	size_t n = t->nslots ? t->nslots * 2 : 64, *old = t->slots, oldn = t->nslots;

	if ((t->n + 1) * 2 <= t->nslots)
		return 0;
	if (!(t->slots = xcalloc(n, sizeof *t->slots))) {
		t->slots = old;
		return -1;
	}
	t->nslots = n;
	for (size_t i = 0; i < oldn; i++)
		if (old[i])
			*slot_of(t, t->v[old[i] - 1].id, t->v[old[i] - 1].idlen) = old[i];
	free(old);
	return 0;
}

static struct travel_entry *find_or_add(struct travel *t, const struct entry *en, struct err *e)
{
	struct buf id = {0};
	struct travel_entry *te, *v;
	size_t *slot;

	manifest_entry_identity(en, &id);
	if (id.oom || slots_grow(t)) {
		buf_free(&id);
		return err_oom(e), NULL;
	}
	slot = slot_of(t, id.p ? id.p : "", id.len);
	if (*slot) {
		buf_free(&id);
		return &t->v[*slot - 1];
	}
	v = xgrow(t->v, &t->cap, t->n, sizeof *v);
	if (!v) {
		buf_free(&id);
		return err_oom(e), NULL;
	}
	t->v = v;
	te = &t->v[t->n];
	memset(te, 0, sizeof *te);
	te->idlen = id.len;
	te->id = buf_take(&id);
	te->last_nth = (size_t)-1;
	if (!te->id || manifest_append_copy(&te->one, en)) {
		free(te->id);
		manifest_free(&te->one);
		return err_oom(e), NULL;
	}
	*slot = ++t->n;
	return te;
}

/* One entry of a note of member m: counted once per member; `fold` says which notes fold. */
static void count_entry(struct travel_entry *te, const struct archive_member *m,
			const struct archive_index_count *ix, uint64_t fold)
{
	if (te->fold && te->fold != fold)
		te->conflict = 1;
	if (!te->fold)
		te->fold = fold;
	if (te->last_nth == m->nth)
		return;
	te->last_nth = m->nth;
	if (te->members < TRAVEL_NAMES)
		str_cat(te->names[te->members], sizeof te->names[0], 0, m->name);
	te->members++;
	if (ix) /* the index lists only members that define symbols */
		te->taken++;
	if (ix && ix->nsyms == 1 && te->single++ == 0)
		te->single_sym = ix->first;
}

int travel_member(struct travel *t, const struct archive_member *m, const struct elf *ef,
		  const struct scan *sc, struct err *e)
{
	const struct archive_index_count *ix = index_of(t, m->hdr);
	const struct scan_item **items = NULL;
	size_t nitems = scan_dlopen_notes(sc, &items), *grp = NULL, carries = 0;
	int r = 0;

	t->elf_members++;
	if (ix && ix->nsyms)
		t->code_members++;
	if (elf_is_gcc_lto(ef) && t->lto_members++ == 0)
		str_cat(t->lto_first, sizeof t->lto_first, 0, m->name);
	if (!items && sc->nitems)
		return err_oom(e);
	if (nitems && ef->type == ET_REL_ && objedit_groups(ef, &grp, e))
		r = -1;
	for (size_t i = 0; i < nitems && r == 0; i++) {
		const struct scan_area *a =
			scan_area_of(sc, AREA_SECTION, items[i]->off, items[i]->size);
		struct entries es = {0};
		struct note nt = {.descsz = items[i]->descsz};
		unsigned char *desc = malloc(nt.descsz ? nt.descsz : 1);
		uint64_t fold;

		/* Read once: hashed (a note in a COMDAT group folds with every group of the same
		 * payload; any other note is one more copy for each member taken), then decoded. */
		if (!desc || elf_read(ef, items[i]->desc_off, nt.descsz, desc, e)) {
			free(desc);
			r = e->msg[0] ? -1 : err_oom(e);
			break;
		}
		if (grp && a && a->index < ef->shnum && grp[a->index])
			fold = fnv(desc, nt.descsz);
		else
			fold = ((uint64_t)m->nth << 24 ^ i) << 1; /* even: never a payload's hash */
		nt.desc = desc;
		if ((r = note_decode(&nt, &es, e)) != 0)
			err_prefix(e, "dlopen note at offset 0x%llx: ",
				   (unsigned long long)items[i]->off);
		for (size_t k = 0; k < es.n && r == 0; k++) {
			struct travel_entry *te = find_or_add(t, &es.v[k], e);
			if (!te)
				r = -1;
			else
				count_entry(te, m, ix, fold), carries++;
		}
		manifest_free(&es);
		free(desc);
	}
	/* A member a link may take that brings no entry (a bundled library's object compiled
	 * without them): what the summary names. */
	if (r == 0 && ix && ix->nsyms && !carries && t->bare_members++ == 0)
		str_cat(t->bare_first, sizeof t->bare_first, 0, m->name);
	free(grp);
	free(items);
	return r;
}

void travel_foreign(struct travel *t, const struct archive_member *m, const char *kind)
{
	if (kind && t->foreign_members++ == 0)
		str_cat(t->foreign_first, sizeof t->foreign_first, 0, m->name);
}

static void put_names(struct buf *b, const struct travel_entry *te)
{
	for (size_t i = 0; i < te->members && i < TRAVEL_NAMES; i++)
		buf_printf(b, "%s%s", i ? ", " : "", te->names[i]);
	if (te->members > TRAVEL_NAMES)
		buf_printf(b, " and %zu more", te->members - TRAVEL_NAMES);
}

/* The entry's carriers each define one symbol, and the first one's is a helper's pull symbol
 * (dlnote 0.1's static libraries): links need -Wl,-u,<it>. */
static const char *pull_symbol(struct travel *t, const struct travel_entry *te)
{
	struct err ignore = {0};

	/* The entries of one note member share its symbol: its name is read once. */
	if (!t->sym_read || t->sym_nth != te->single_sym) {
		t->sym_nth = te->single_sym;
		t->sym_read = 1;
		if (archive_index_name(t->ar, &t->index, te->single_sym, t->sym, sizeof t->sym,
				       &ignore))
			t->sym[0] = '\0';
	}
	return strncmp(t->sym, "dlnote_pull_", 12) == 0 ? t->sym : NULL;
}

/* The last line.  Entries that do not reach every program are not an error: an in-code note
 * rides with the object that calls dlopen(), as it should.  What matters is a member a program
 * may take alone without any entry (openal-soft's bundled fmt objects): named, with the fix. */
static void summary(const struct travel *t, const char *path, size_t everywhere, FILE *out)
{
	print_text(out,
		   "%s: ok (%zu dlopen entr%s in %zu ELF members; %zu of them reach%s every "
		   "program that takes a member",
		   path, t->n, t->n == 1 ? "y" : "ies", t->elf_members, everywhere,
		   everywhere == 1 ? "es" : "");
	if (everywhere < t->n && t->bare_members)
		print_text(out,
			   ": %zu member%s that define%s symbols carr%s none (%s%s), so a program "
			   "that takes only such members gets no entry; if it must, compile them "
			   "with the entries too (-include the notes header)",
			   t->bare_members, t->bare_members == 1 ? "" : "s",
			   t->bare_members == 1 ? "s" : "", t->bare_members == 1 ? "ies" : "y",
			   t->bare_first, t->bare_members > 1 ? ", ..." : "");
	else if (everywhere < t->n)
		print_text(out, ": the others come with the members that carry them, as a note "
				"written beside the code that calls dlopen() does");
	print_text(out, ")\n");
}

size_t travel_report(struct travel *t, const struct entries *added, int quiet, const char *path,
		     FILE *out)
{
	size_t errors = 0, everywhere = 0;
	struct buf b = {0};

	for (size_t i = 0; i < t->n; i++) {
		struct travel_entry *te = &t->v[i];
		unsigned char unnamed = 1;
		int error = 0, warn;
		const char *sym;

		/* Notes that do not fold give a program the entry twice: valid when they are the
		 * code's own (consumers take it once), a warning when a manifest the build added
		 * names it (the macro left on in some members, the helper's header in others). */
		if (te->conflict && added && added->n &&
		    manifest_unnamed(&te->one, added, &unnamed))
			unnamed = 1;
		warn = te->conflict && !unnamed;

		b.len = 0;
		manifest_entry_label(&te->one.v[0], &b);
		buf_puts(&b, ": in ");
		if (te->members == t->elf_members)
			buf_printf(&b, "every ELF member (%zu)", te->members);
		else {
			buf_printf(&b, "%zu of %zu ELF members (", te->members, t->elf_members);
			put_names(&b, te);
			buf_putc(&b, ')');
		}
		if (!t->ar) {
			buf_puts(&b, "; the archive has no symbol index, so links cannot say which "
				     "members they take");
			warn = 1;
		} else if (te->taken && te->single == te->taken &&
			   (sym = pull_symbol(t, te)) != NULL) {
			buf_printf(&b,
				   "; %s defines only the symbol %s: a link takes it only when "
				   "something needs that "
				   "symbol (a pull symbol: -Wl,-u,%s)",
				   te->names[0], sym, sym);
			warn = 1;
		} else if (te->taken == 0) {
			buf_puts(&b, "; no member carrying it defines a symbol: no link takes them "
				     "(but with "
				     "--whole-archive), the entry is lost");
			error = 1;
		} else if (te->taken == t->code_members) {
			buf_puts(&b,
				 "; every program that takes a member of this archive carries it");
			everywhere++;
		} else if (te->taken == 1 && te->members == 1) {
			buf_printf(&b, "; only a program that takes %s carries it", te->names[0]);
		} else {
			buf_printf(
				&b,
				"; only a program that takes one of these %zu members carries it",
				te->taken);
		}
		if (te->conflict && warn)
			buf_puts(&b, "; in notes that do not fold (not one COMDAT group of the "
				     "same payload): a program "
				     "that takes two of these members lists it twice");
		else if (te->conflict)
			buf_puts(&b, "; in notes that do not fold: a program that takes two of "
				     "these members lists it twice, which consumers take once");
		if (!b.oom && (!quiet || error))
			print_text(out, "%s: %s%.*s\n", path,
				   error  ? "error: "
				   : warn ? "warning: "
					  : "",
				   (int)b.len, b.p);
		errors += (size_t)error;
	}
	if (t->lto_members)
		print_text(out,
			   "%s: warning: %zu GCC LTO member%s (%s%s): a link uses what LTO "
			   "compiles from their bytecode, "
			   "whose notes this tool cannot read; notes added to them after compiling "
			   "are dropped\n",
			   path, t->lto_members, t->lto_members == 1 ? "" : "s", t->lto_first,
			   t->lto_members > 1 ? ", ..." : "");
	if (t->foreign_members)
		print_text(out,
			   "%s: warning: %zu LLVM bitcode member%s (%s%s): their notes cannot be "
			   "read here\n",
			   path, t->foreign_members, t->foreign_members == 1 ? "" : "s",
			   t->foreign_first, t->foreign_members > 1 ? ", ..." : "");
	if (!quiet && !errors)
		summary(t, path, everywhere, out);
	buf_free(&b);
	return errors;
}

void travel_free(struct travel *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].id);
		manifest_free(&t->v[i].one);
	}
	free(t->v);
	free(t->slots);
	free(t->idx);
	memset(t, 0, sizeof *t);
}
