/* SPDX-License-Identifier: MIT */
/* ldso.c - the system search path of the root's own loader, read from its read-only data, never
 * by running it (a root is hostile input; see closure_int.h, docs/closure.md).
 *
 * glibc builds its system search path into ld.so (elf/dl-load.c, from gen-trusted-dirs.awk):
 *
 *	static const char system_dirs[] = SYSTEM_DIRS;   "/lib/x86_64-linux-gnu/\0/usr/lib/..."
 *	static const size_t system_dirs_len[] = { SYSTEM_DIRS_LEN };   22, 26, 5, 9
 *
 * `ld.so --help` lists the same directories as "system search path".  A run of NUL-terminated
 * strings that each start and end with '/', whose lengths are also found as consecutive size_t
 * words of the loader's class and byte order, is that path: the two together do not occur by
 * chance.  The work is bounded: at most LDSO_BYTES of data read, LDSO_RUNS runs looked at. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "closure_int.h"

#define LDSO_BYTES (4u << 20) /* glibc's ld.so has about 30 KiB of read-only data */
#define LDSO_REGIONS 8
#define LDSO_RUN_MAX 16 /* directories in one path (Debian's has 4) */
#define LDSO_RUNS 64
#define LDSO_DIR_MAX 256

struct region {
	unsigned char *p;
	size_t len;
};

struct ldso_read {
	const struct elf *ef;
	struct region rg[LDSO_REGIONS];
	size_t nrg, total;
	int oom;
	struct err *e;
};

static int region_add(struct ldso_read *lr, uint64_t off, uint64_t size)
{
	struct region *r = &lr->rg[lr->nrg];

	if (lr->nrg == LDSO_REGIONS || size == 0 || size > LDSO_BYTES - lr->total)
		return 0;
	r->p = malloc((size_t)size);
	if (!r->p)
		return lr->oom = 1, err_oom(lr->e);
	if (elf_read(lr->ef, off, size, r->p, lr->e))
		return free(r->p), r->p = NULL, -1;
	r->len = (size_t)size;
	lr->total += (size_t)size;
	lr->nrg++;
	return 0;
}

/* The read-only data: allocated PROGBITS sections neither writable nor executable; without
 * section headers, the PT_LOAD segments neither writable nor executable, else those only not
 * writable (older layouts keep read-only data beside the code). */
static int regions_read(struct ldso_read *lr)
{
	const struct elf *ef = lr->ef;
	int pass;

	for (size_t i = 0; i < ef->shnum; i++) {
		const struct elf_shdr *sh = &ef->sh[i];
		if (sh->type == SHT_PROGBITS_ && (sh->flags & SHF_ALLOC_) &&
		    !(sh->flags & (SHF_WRITE_ | SHF_EXECINSTR_)) &&
		    region_add(lr, sh->offset, sh->size))
			return -1;
	}
	for (pass = 0; pass < 2 && lr->nrg == 0; pass++)
		for (size_t i = 0; i < ef->phnum; i++) {
			const struct elf_phdr *ph = &ef->ph[i];
			unsigned no = pass == 0 ? PF_W_ | PF_X_ : PF_W_;
			if (ph->type == PT_LOAD_ && !(ph->flags & no) &&
			    region_add(lr, ph->offset, ph->filesz))
				return -1;
		}
	return 0;
}

/* A run of directory strings: where each starts, and its length with its '/'. */
struct run {
	const unsigned char *s[LDSO_RUN_MAX];
	size_t len[LDSO_RUN_MAX], n;
};

/* The directory string at p (at most `left` bytes there), its length, or 0 when it is not one:
 * printable, starting and ending with '/', NUL-terminated. */
static size_t dir_string(const unsigned char *p, size_t left)
{
	size_t n = 0;

	while (n < left && n < LDSO_DIR_MAX && p[n] > 0x20 && p[n] < 0x7f)
		n++;
	return n >= 2 && n < left && p[n] == 0 && p[0] == '/' && p[n - 1] == '/' ? n : 0;
}

/* The lengths of run items [from, from+n) as size_t words of the loader: found in its data? */
static int lengths_found(const struct ldso_read *lr, const struct run *run, size_t from, size_t n)
{
	unsigned char pat[LDSO_RUN_MAX * 8];
	size_t w = lr->ef->is64 ? 8 : 4;

	for (size_t i = 0; i < n; i++)
		for (size_t b = 0; b < w; b++) /* each word in the file's byte order */
			pat[i * w + b] = (unsigned char)(run->len[from + i] >>
							 (8 * (lr->ef->big ? w - 1 - b : b)));
	for (size_t r = 0; r < lr->nrg; r++) {
		const unsigned char *p = lr->rg[r].p, *end = p + lr->rg[r].len, *hit;
		while ((hit = memmem(p, (size_t)(end - p), pat, n * w)) != NULL) {
			if ((size_t)(hit - lr->rg[r].p) % w == 0)
				return 1;
			p = hit + 1;
		}
	}
	return 0;
}

/* The longest part of a run (at most two strings dropped at either end: another string may lie
 * beside the path) whose lengths are found: its first index and count, n 0 when none. */
static void run_verify(const struct ldso_read *lr, const struct run *run, size_t *from, size_t *n)
{
	*n = 0;
	for (size_t drop = 0; drop <= 4 && run->n >= 2 + drop; drop++)
		for (size_t front = 0; front <= drop; front++) {
			size_t back = drop - front;
			if (front > 2 || back > 2)
				continue;
			if (lengths_found(lr, run, front, run->n - drop)) {
				*from = front;
				*n = run->n - drop;
				return;
			}
		}
}

/* Path b (bn directories from bf) lies inside path a: the same directories, in a row. */
static int path_within(const struct run *a, size_t af, size_t an, const struct run *b, size_t bf,
		       size_t bn)
{
	for (size_t at = af; bn <= an && at + bn <= af + an; at++) {
		size_t i = 0;
		while (i < bn && a->len[at + i] == b->len[bf + i] &&
		       memcmp(a->s[at + i], b->s[bf + i], a->len[at + i]) == 0)
			i++;
		if (i == bn)
			return 1;
	}
	return 0;
}

/* Each run of two directory strings or more in the read-only data; the path found in one, the
 * same in every run where one is found, or a part of it (ld.so keeps a copy for `--help`).  1 with
 * the reason in e when none is, or two differ. */
static int find_path(struct ldso_read *lr, struct run *best, size_t *bfrom, size_t *bn)
{
	size_t runs = 0;
	struct run run;

	*bn = 0;
	for (size_t r = 0; r < lr->nrg; r++) {
		const unsigned char *p = lr->rg[r].p;
		size_t len = lr->rg[r].len, i = 0;
		while (i < len) {
			size_t from, n, l;
			/* A path starts after a byte that is not text: a NUL, or the last byte of
			 * a big-endian length. */
			if (p[i] != '/' || (i && p[i - 1] > 0x20 && p[i - 1] < 0x7f) ||
			    !dir_string(p + i, len - i)) {
				i++;
				continue;
			}
			run.n = 0;
			while (i < len && (l = dir_string(p + i, len - i)) != 0) {
				if (run.n < LDSO_RUN_MAX)
					run.s[run.n] = p + i, run.len[run.n] = l;
				run.n++;
				i += l + 1;
			}
			if (run.n < 2 || run.n > LDSO_RUN_MAX)
				continue;
			if (++runs > LDSO_RUNS)
				return err_set(lr->e,
					       "more than %d runs of directory names in its "
					       "read-only data",
					       LDSO_RUNS),
				       1;
			run_verify(lr, &run, &from, &n);
			if (!n)
				continue;
			/* A copy's tail may be the tail of a longer string: its part that is a
			 * run is found too, and is inside the whole path. */
			if (*bn && path_within(best, *bfrom, *bn, &run, from, n))
				continue;
			if (*bn && !path_within(&run, from, n, best, *bfrom, *bn))
				return err_set(lr->e, "two different system search paths in its "
						      "read-only data"),
				       1;
			*best = run, *bfrom = from, *bn = n;
		}
	}
	if (!*bn)
		return err_set(lr->e, "no system search path in its read-only data (not glibc's "
				      "ld.so?)"),
		       1;
	return 0;
}

int ldso_system_dirs(int fd, const char *path, struct dirlist *out, struct err *e)
{
	struct ldso_read lr = {.e = e};
	struct stat st;
	struct elf ef;
	struct run best;
	size_t from = 0, n = 0;
	int rc;

	if (fstat(fd, &st))
		return err_set(e, "cannot read it"), 1;
	if (elf_open(&ef, fd, path, (uint64_t)st.st_size, e))
		return 1;
	lr.ef = &ef;
	rc = regions_read(&lr);
	if (rc == 0 && lr.nrg == 0)
		rc = (err_set(e, "no read-only data in it"), 1);
	if (rc == 0)
		rc = find_path(&lr, &best, &from, &n);
	for (size_t i = 0; rc == 0 && i < n; i++)
		dirlist_add(out, (const char *)best.s[from + i], best.len[from + i]);
	for (size_t i = 0; i < lr.nrg; i++)
		free(lr.rg[i].p);
	elf_close(&ef);
	if (rc == 0 && out->text.oom)
		lr.oom = 1, err_oom(e);
	return lr.oom ? -1 : rc < 0 ? 1 : rc;
}

const char *ldso_usual(int is64, int big, unsigned machine, unsigned long flags)
{
	switch (machine) {
	case EM_X86_64_: return is64 ? "/lib64/ld-linux-x86-64.so.2" : "/libx32/ld-linux-x32.so.2";
	case EM_386_: return "/lib/ld-linux.so.2";
	case EM_AARCH64_:
		return big ? "/lib/ld-linux-aarch64_be.so.1" : "/lib/ld-linux-aarch64.so.1";
	case EM_ARM_: return flags & 0x400 ? "/lib/ld-linux-armhf.so.3" : "/lib/ld-linux.so.3";
	case EM_PPC64_: return big ? "/lib64/ld64.so.1" : "/lib64/ld64.so.2";
	case EM_S390_: return is64 ? "/lib/ld64.so.1" : "/lib/ld.so.1";
	case EM_RISCV_: return is64 ? "/lib/ld-linux-riscv64-lp64d.so.1" : NULL;
	case EM_MIPS_: return is64 ? "/lib64/ld.so.1" : "/lib/ld.so.1";
	case EM_PPC_: return "/lib/ld.so.1";
	case EM_LOONGARCH_: return is64 ? "/lib64/ld-linux-loongarch-lp64d.so.1" : NULL;
	case EM_SPARCV9_: return "/lib64/ld-linux.so.2";
	}
	return NULL;
}
