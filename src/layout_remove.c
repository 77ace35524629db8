/* layout_remove.c - what --remove on a linked file can take away besides the notes. */
#include "layout_int.h"

/* A symbol of a symbol table refers to a section in [from, ef->shnum).  Tables are streamed. */
static int symbols_refer_to(const struct lay *L, size_t from)
{
	const struct elf *ef = L->ef;
	size_t es = elf_sym_size(ef), t, k, i, n;
	unsigned char chunk[256 * 24];
	struct elf_sym s;
	struct err ignore;

	for (t = 1; t < ef->shnum; t++) {
		const struct elf_shdr *st = &ef->sh[t];
		if (st->type != SHT_SYMTAB_ && st->type != SHT_DYNSYM_)
			continue;
		if (st->entsize != es)
			return 1;
		for (i = 0; i < st->size / es; i += n) {
			n = st->size / es - i < 256 ? (size_t)(st->size / es - i) : 256;
			if (elf_read(ef, st->offset + i * es, n * es, chunk, &ignore))
				return 1;
			for (k = 0; k < n; k++) {
				elf_decode_sym(ef, chunk + k * es, &s);
				if (s.shndx == SHN_XINDEX_ || (s.shndx >= from && s.shndx < SHN_LORESERVE_))
					return 1;      /* extended indexes: not worth reading for this */
			}
		}
	}
	return 0;
}

/* On --remove, dlopen sections left at the end of the table are dropped: that is where the tool
 * appends its own, so no other index changes.  Kept when anything still refers to them. */
size_t lay_trailing_cut(const struct lay *L)
{
	const struct elf *ef = L->ef;
	size_t k = ef->shnum, i;

	if (!L->linked || L->notesz || L->shnum != ef->shnum)
		return L->shnum;
	while (k > 1 && L->isd[k - 1] && k - 1 != ef->shstrndx && k - 1 != L->phsec)
		k--;
	if (k == ef->shnum)
		return L->shnum;
	for (i = 0; i < k; i++)
		if ((ef->sh[i].link >= k && ef->sh[i].link < ef->shnum) || (ef->sh[i].info >= k && ef->sh[i].info < ef->shnum && i))
			return L->shnum;
	return symbols_refer_to(L, k) ? L->shnum : k;
}
