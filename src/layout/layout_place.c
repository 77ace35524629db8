/* SPDX-License-Identifier: MIT */
/* layout_place.c - where our segments go in a linked file (ET_EXEC, ET_DYN): the page padding
 * after a non-writable PT_LOAD, or after the end of the file (docs/layout.md).  The consumers
 * that constrain it are listed in layout_linked.c; placement adds three more rules:
 *
 *  - glibc maps a shared object in one piece and makes the pages between its first and last
 *    PT_LOAD inaccessible when the segments do not tile; sharing a page with a neighbour must
 *    not make that an empty mprotect, which qemu-user 7.2 rejects (page_sharing_loads);
 *  - eu-elflint counts a relocation in the writable segment as touching [r_offset, r_offset +
 *    st_size): our read-only segment stays clear of that (reloc_reach);
 *  - a section header we did not create (a NOBITS .bss at the end of the file data) is never
 *    taken for ours, whatever its offset (room_free). */
#include <stdlib.h>
#include <string.h>

#include "layout_int.h"

/* Largest sparse gap we create before our segment (docs/background.md §4: the congruent trick). */
#define MAX_SPARSE_GAP (64ull << 30)
/* Largest symbol size taken into account for eu-elflint's text relocation check. */
#define MAX_SYMBOL_REACH (1ull << 30)

struct space {
	uint64_t bias;     /* first PT_LOAD's p_vaddr - p_offset */
	uint64_t vend;     /* end of the highest PT_LOAD in memory */
	uint64_t symsz;    /* largest st_size of a symbol that relocations refer to */
	uint64_t prev_end; /* end of the last PT_LOAD's file content: bfd's running offset */
	uint64_t align;
};

/* The largest st_size in the symbol tables that relocation sections use.  eu-elflint takes a
 * relocation at r_offset to modify [r_offset, r_offset + st_size): one that reaches a
 * read-only PT_LOAD is a text relocation ("read-only section modified but text relocation flag
 * not set").  Linkers never put a read-only segment above the writable one; ours keeps that
 * far away from it.  The tables are streamed. */
static uint64_t largest_reloc_symbol(const struct elf *ef)
{
	size_t es = elf_sym_size(ef), t, r, i, k, n;
	unsigned char chunk[128 * 24];
	uint64_t max = 0, nsym;
	struct elf_sym sym;
	struct err ignore;

	for (t = 1; t < ef->shnum; t++) {
		const struct elf_shdr *st = &ef->sh[t];
		if ((st->type != SHT_DYNSYM_ && st->type != SHT_SYMTAB_) || st->entsize != es)
			continue;
		for (r = 1; r < ef->shnum; r++)
			if ((ef->sh[r].type == SHT_RELA_ || ef->sh[r].type == SHT_REL_) &&
			    ef->sh[r].link == t)
				break;
		if (r == ef->shnum)
			continue;
		nsym = st->size / es;
		for (i = 0; i < nsym; i += n) {
			n = nsym - i < 128 ? (size_t)(nsym - i) : 128;
			if (elf_read(ef, st->offset + i * es, n * es, chunk, &ignore))
				break;
			for (k = 0; k < n; k++) {
				elf_decode_sym(ef, chunk + k * es, &sym);
				if (sym.size > max)
					max = sym.size;
			}
		}
	}
	return max;
}

static int survey(struct lay *lay, struct space *s)
{
	const struct elf *ef = lay->ef;
	const struct elf_phdr *first = NULL;
	size_t i;

	memset(s, 0, sizeof *s);
	s->align = elf_max_page(ef);
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_LOAD_ || lay->isown[i])
			continue;
		if (!first)
			first = p;
		if (p->vaddr + p->memsz > s->vend)
			s->vend = p->vaddr + p->memsz;
		if (p->offset + p->filesz > s->prev_end)
			s->prev_end = p->offset + p->filesz;
		if (p->align > s->align)
			s->align = p->align;
	}
	if (!first)
		return err_set(lay->e, "no PT_LOAD segment: cannot place the note in memory");
	if (s->align & (s->align - 1))
		return err_set(lay->e, "PT_LOAD alignment 0x%llx is not a power of two",
			       (unsigned long long)s->align);
	s->symsz = largest_reloc_symbol(ef);
	if (s->symsz > MAX_SYMBOL_REACH)
		s->symsz = 0; /* nonsense sizes: then only the loader's rules count */
	s->bias = first->vaddr - first->offset;
	if (s->bias % s->align)
		return err_set(lay->e,
			       "first PT_LOAD is not aligned to 0x%llx: cannot place a segment "
			       "congruently",
			       (unsigned long long)s->align);
	return 0;
}

/* Bytes a segment starting at `off` needs, and where its parts go inside it: the carried
 * block first (at its own alignment, so that its inner layout holds), or copy A of the PHT,
 * then B, then the note. */
struct seg_parts {
	uint64_t carry, b, note,
		first; /* offsets from the segment's start; first: of its first part */
};

static uint64_t seg_layout(const struct lay *lay, const struct seg *g, uint64_t off,
			   struct seg_parts *sp)
{
	uint64_t pos = 0, a = lay->carry.align ? lay->carry.align : 1;

	memset(sp, 0, sizeof *sp);
	if (g->carry) {
		sp->carry = (lay->carry.off % a + a - off % a) % a;
		pos = sp->carry + (lay->carry.end - lay->carry.off);
	}
	if (g->pht) {
		sp->b = align_up(off + pos + lay->phsz, lay_word(lay->ef)) -
			off; /* A at pos, then B aligned */
		pos = sp->b + lay->phsz;
	}
	if (g->note) {
		sp->note = align_up(off + pos, 4) - off;
		pos = sp->note + lay->notesz;
	}
	sp->first = g->carry ? sp->carry : g->pht ? 0 : sp->note;
	return pos;
}

/* Is [off, off+size) in the file and [vaddr, vaddr+size) in memory free?  Our old segments
 * count as free; the file bytes must be zero (page padding). */
static int room_free(struct lay *lay, uint64_t off, uint64_t vaddr, uint64_t size, int upto)
{
	const struct elf *ef = lay->ef;
	unsigned char buf[4096];
	struct err ignore;
	/* What follows the allocated part moves away when our segment lands there (layout_tail.c):
	 * from there on, nothing is in the way, and the file may end before the segment does. */
	uint64_t from = lay->tail_moves ? lay->tail_from : UINT64_MAX,
		 inside = off + size > from ? (from > off ? from - off : 0) : size;
	uint64_t pos, n, k;
	size_t i;
	int j;

	if (!range_ok(off, inside, ef->size))
		return 0;
	/* The table rewritten where it is may have grown into free slots after it, or shrunk,
	 * and then its old extent is zeroed. */
	if (!lay->pht_in_seg &&
	    lay_overlaps(ef->phoff,
			 lay->phsz > lay_phdr_bytes(ef, ef->phnum) ? lay->phsz
								   : lay_phdr_bytes(ef, ef->phnum),
			 off, size))
		return 0;
	for (j = 0; j < upto; j++)
		if (lay_overlaps(lay->seg[j].off, lay->seg[j].size, off, size) ||
		    lay_overlaps(lay->seg[j].vaddr, lay->seg[j].size, vaddr, size))
			return 0;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_NULL_ || lay->isown[i] ||
		    (p->type != PT_LOAD_ && lay_in_own(lay, p->offset)))
			continue;
		if (lay_overlaps(p->offset, p->filesz, off, size) ||
		    (p->type == PT_LOAD_ && lay_overlaps(p->vaddr, p->memsz, vaddr, size)))
			return 0;
	}
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *s = &ef->sh[i];
		if (lay_in_own(lay, s->offset) &&
		    (lay->isd[i] || i == lay->phsec || (lay->carry.in && lay->carry.in[i])))
			continue; /* ours, rebuilt; a NOBITS section there is not */
		if (!(s->flags & SHF_ALLOC_) && s->offset >= from)
			continue; /* moves with the tail */
		if ((s->type != SHT_NOBITS_ && lay_overlaps(s->offset, s->size, off, size)) ||
		    ((s->flags & SHF_ALLOC_) && lay_overlaps(s->addr, s->size, vaddr, size)))
			return 0;
	}
	if (ef->shnum && ef->shoff < from &&
	    lay_overlaps(ef->shoff, ef->shnum * elf_shent_size(ef), off, size))
		return 0;
	for (pos = off; pos < off + inside; pos += n) {
		n = off + inside - pos < sizeof buf ? off + inside - pos : sizeof buf;
		if (elf_read(ef, pos, n, buf, &ignore))
			return 0;
		for (k = 0; k < n; k++)
			if (buf[k] && !lay_in_own(lay, pos + k))
				return 0;
	}
	return 1;
}

/* Where bfd thinks a segment's content ends: the ELF header, the program headers if they stay
 * in it, and its sections.  bfd continues laying out from there. */
static uint64_t bfd_content_end(const struct lay *lay, const struct elf_phdr *p)
{
	const struct elf *ef = lay->ef;
	uint64_t end = p->offset, pht = lay_phdr_bytes(ef, ef->phnum);
	size_t i;

	if (!ef->shnum)
		return p->offset + p->filesz;
	if (p->offset == 0 && p->filesz >= elf_ehdr_size(ef))
		end = elf_ehdr_size(ef);
	if (!lay->pht_in_seg && ef->phoff >= p->offset &&
	    ef->phoff + pht <= p->offset + p->filesz && ef->phoff + pht > end)
		end = ef->phoff + pht;
	for (i = 1; i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if (sh->type != SHT_NOBITS_ && (sh->flags & SHF_ALLOC_) && sh->size &&
		    sh->offset >= p->offset && sh->offset + sh->size <= p->offset + p->filesz &&
		    sh->offset + sh->size > end)
			end = sh->offset + sh->size;
	}
	return end;
}

/* glibc maps a shared object in one piece and, when its PT_LOADs do not tile the pages, makes
 * the range from the first PT_LOAD's last page to the last PT_LOAD's first page inaccessible
 * with mprotect (glibc 2.36 elf/dl-map-segments.h).  A segment sharing a page with its
 * neighbour is such a case; if the range is then empty, the kernel accepts mprotect(addr, 0)
 * but qemu-user 7.2 fails ("cannot change memory protections").  So a shared object shares a
 * page only when that range is not empty at every page size up to the alignment (it shrinks
 * as pages grow).  Programs are mapped by the kernel or qemu, and ET_EXEC files never take
 * that path in glibc; a PIE started through ld.so under qemu is the documented exception
 * (docs/layout.md: the padding is what keeps it running under qemu after GNU strip). */
static int page_sharing_loads(const struct lay *lay, const struct space *s, uint64_t vaddr)
{
	const struct elf *ef = lay->ef;
	uint64_t first_end = 0, last = vaddr, first = UINT64_MAX;
	size_t i;

	for (i = 0; i < ef->phnum; i++)
		if (ef->ph[i].type == PT_INTERP_)
			return 1;
	if (ef->type != ET_DYN_)
		return 1;
	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type != PT_LOAD_ || lay->isown[i])
			continue;
		if (p->vaddr < first)
			first = p->vaddr, first_end = p->vaddr + p->memsz;
		if (p->vaddr > last)
			last = p->vaddr;
	}
	return last / s->align * s->align > align_up(first_end, s->align);
}

/* Where relocations in writable segments below vaddr may reach, for eu-elflint (see
 * largest_reloc_symbol): our read-only segment starts at or after it. */
static uint64_t reloc_reach(const struct lay *lay, const struct space *s, uint64_t vaddr)
{
	const struct elf *ef = lay->ef;
	uint64_t reach = 0;
	size_t i;

	for (i = 0; i < ef->phnum; i++) {
		const struct elf_phdr *p = &ef->ph[i];
		if (p->type == PT_LOAD_ && (p->flags & PF_W_) && p->vaddr < vaddr &&
		    p->vaddr + p->memsz + s->symsz > reach)
			reach = p->vaddr + p->memsz + s->symsz;
	}
	return reach;
}

/* The page padding right after a non-writable PT_LOAD with the first load's bias: there, bfd's
 * running offset is exactly our p_offset, so strip and objcopy keep the layout as it is, and
 * sharing that last page is harmless (same bytes, same permissions).  Read-only neighbours
 * first; an R+X one only for the PHT's segment, whose section can carry SHF_EXECINSTR. */
static int place_in_gap(struct lay *lay, const struct space *s, int k)
{
	const struct elf *ef = lay->ef;
	struct seg *g = &lay->seg[k];
	struct seg_parts sp;
	uint64_t off, size;
	size_t i, pass;

	for (pass = 0; pass < 2 * ef->phnum; pass++) {
		const struct elf_phdr *p = &ef->ph[pass % ef->phnum];
		i = pass % ef->phnum;
		if (p->type != PT_LOAD_ || lay->isown[i] || (p->flags & PF_W_) ||
		    p->filesz != p->memsz || p->vaddr - p->offset != s->bias ||
		    (p->flags & ~(uint32_t)(PF_R_ | PF_X_)))
			continue;
		if (!(p->flags & PF_X_) != (pass < ef->phnum) || ((p->flags & PF_X_) && !g->pht))
			continue;
		off = p->offset + p->filesz;
		if (bfd_content_end(lay, p) != off)
			continue;
		size = seg_layout(lay, g, off, &sp);
		if (!g->pht)
			off += sp.first, size -= sp.first;
		if (!room_free(lay, off, off + s->bias, size, k) ||
		    !page_sharing_loads(lay, s, off + s->bias) ||
		    reloc_reach(lay, s, off + s->bias) > off + s->bias)
			continue;
		g->off = off;
		g->vaddr = off + s->bias;
		g->size = size;
		g->align = s->align; /* the file's largest; bias is a multiple of it */
		g->flags = p->flags;
		g->placement = p->flags & PF_X_ ? "in the page padding after an R+X segment"
						: "in the page padding after a read-only segment";
		return 1;
	}
	return 0;
}

/* After the end of the file (and after segment 0 when that is there too).  With the PHT
 * inside: p_vaddr - p_offset = bias, and p_vaddr = bfd's running offset (mod align), so that a
 * bfd re-layout keeps the addresses. */
static int place_at_end(struct lay *lay, const struct space *s, int k)
{
	const struct elf *ef = lay->ef;
	struct seg *g = &lay->seg[k];
	/* No rounding: copy A may start anywhere (bfd puts it at its running offset), and
	 * seg_layout aligns B and the note inside the segment. */
	uint64_t vend = s->vend, start = lay->keep, limit = ef->is64 ? UINT64_MAX : UINT32_MAX;
	uint64_t vmin, vaddr, off, a = lay->carry.align ? lay->carry.align : 1;
	struct seg_parts sp;

	if (k && lay->seg[0].vaddr + lay->seg[0].size > vend)
		vend = lay->seg[0].vaddr + lay->seg[0].size;
	if (reloc_reach(lay, s, UINT64_MAX) > vend)
		vend = reloc_reach(lay, s, UINT64_MAX);
	if (k && lay->seg[0].off + lay->seg[0].size > start)
		start = lay->seg[0].off + lay->seg[0].size;
	vmin = align_up(vend, s->align);
	if (g->pht) {
		vaddr = vmin + (s->prev_end - vmin) % s->align;
		if (vaddr - s->bias < start)
			vaddr += align_up(start - (vaddr - s->bias), s->align);
		off = vaddr - s->bias;
	} else {
		/* a segment without the PHT starts with its first part: the carried block, at its
		 * alignment, or the note */
		off = g->carry ? start + (lay->carry.off % a + a - start % a) % a
			       : align_up(start, 4);
		vaddr = vmin + off % s->align;
	}
	g->size = seg_layout(lay, g, off, &sp);
	if (vaddr < vend || vaddr > limit || g->size > limit - vaddr)
		return err_set(lay->e,
			       "no room in the address space for a new segment above 0x%llx",
			       (unsigned long long)vend);
	/* The gap is sparse, so it costs no I/O, but a file must still be writable and copyable. */
	if (off > ef->size + MAX_SPARSE_GAP)
		return err_set(lay->e,
			       "the new segment would need a %llu GiB hole in the file (memory "
			       "ends at 0x%llx)",
			       (unsigned long long)((off - ef->size) >> 30),
			       (unsigned long long)vend);
	g->off = off;
	g->vaddr = vaddr;
	g->align = s->align;
	g->flags = PF_R_;
	g->placement = "after the end of the file";
	return 0;
}

/* Keep PT_LOAD entries sorted by address (the gABI requires it): ours goes before the first
 * earlier PT_LOAD above it, whatever other entries lie between. */
static void sort_segment_entry(struct lay *lay, int k)
{
	struct elf_phdr me = lay->ph[lay->seg[k].ph];
	size_t cur = (size_t)lay->seg[k].ph, at = cur, i;
	int j;

	for (i = 0; i < cur; i++)
		if (lay->ph[i].type == PT_LOAD_ && lay->ph[i].vaddr > me.vaddr) {
			at = i;
			break;
		}
	for (i = cur; i > at; i--) {
		lay->ph[i] = lay->ph[i - 1];
		for (j = 0; j < lay->nseg; j++)
			if (lay->seg[j].ph == (long)i - 1)
				lay->seg[j].ph++;
		if (lay->note_ph == (long)i - 1)
			lay->note_ph++;
	}
	lay->ph[at] = me;
	lay->seg[k].ph = (long)at;
}

/* Segment 0 with everything, in the padding; else the PHT there and the note in a segment of
 * its own; else segment 0 after the end of the file. */
static int place_segments(struct lay *lay, const struct space *s)
{
	int note = lay->where == NOTE_SEGMENT;

	lay->seg[0].pht = lay->pht_in_seg;
	lay->seg[0].note = note;
	lay->seg[0].carry = lay->carry.present; /* a block going back home needs no segment */
	if (place_in_gap(lay, s, 0))
		return 0;
	if (lay->pht_in_seg && note) {
		lay->nseg = 2;
		lay->seg[0].note = 0;
		lay->seg[1].note = 1;
		if (lay_build_phdrs(lay))
			return -1;
		if (place_in_gap(lay, s, 0))
			return place_in_gap(lay, s, 1) ? 0 : place_at_end(lay, s, 1);
		lay->nseg = 1;
		lay->seg[0].note = 1;
		if (lay_build_phdrs(lay))
			return -1;
	}
	return place_at_end(lay, s, 0);
}

int lay_place_linked(struct lay *lay)
{
	struct elf_phdr *p;
	struct space s;
	struct seg_parts sp;
	size_t i;
	int k;

	if (lay->nseg) {
		if (survey(lay, &s) || place_segments(lay, &s))
			return -1;
		for (k = 0; k < lay->nseg; k++) {
			struct seg *g = &lay->seg[k];
			p = &lay->ph[g->ph];
			p->offset = g->off;
			p->vaddr = p->paddr = g->vaddr;
			p->filesz = p->memsz = g->size;
			p->align = g->align;
			p->flags = g->flags;
			seg_layout(lay, g, g->off, &sp);
			if (g->carry) {
				lay->carry.new_off = g->off + sp.carry;
				lay->carry.new_vaddr = g->vaddr + sp.carry;
			}
			if (g->pht)
				lay->pht_b = g->off + sp.b;
			if (g->note) {
				lay->note_off = g->off + sp.note;
				lay->note_vaddr = g->vaddr + (lay->note_off - g->off);
			}
		}
		for (k = 0; k < lay->nseg; k++)
			sort_segment_entry(lay, k);
	}
	lay_carry_phdrs(lay);
	if (lay->note_ph >= 0) {
		p = &lay->ph[lay->note_ph];
		p->offset = lay->note_off;
		p->vaddr = p->paddr = lay->note_vaddr;
		p->filesz = p->memsz = lay->notesz;
	}
	for (i = 0; i < lay->phnum; i++) {
		p = &lay->ph[i];
		if (p->type != PT_PHDR_)
			continue;
		if (lay->pht_in_seg) {
			p->offset = lay->pht_b;
			p->vaddr = p->paddr = lay->seg[0].vaddr + (lay->pht_b - lay->seg[0].off);
		} else if (lay->pht_home) {
			p->offset = lay->home_off;
			p->vaddr = p->paddr = lay->home_vaddr;
		} else if (p->offset != lay->ef->phoff) {
			continue; /* it did not describe the table: left as it was */
		}
		p->filesz = p->memsz = lay->phsz;
	}
	return 0;
}
