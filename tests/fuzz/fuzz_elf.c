/* SPDX-License-Identifier: MIT */
/* Fuzz the whole read-plan-write path on an ELF image in memory.  The input's first byte picks
 * the mode; the rest is the file.  When planning succeeds, the written result must open and
 * hold exactly the requested entries, and writing it again must change nothing. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elf.h"
#include "edit/edit.h"
#include "note/note.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int memfile(const void *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd >= 0 && size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

static const char *const payloads[] = {
	"[{\"soname\":[\"libz.so.1\"]}]",
	"[{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"description\":\"Support zstd compression in journal and coredump files\",\"priority\":\"recommended\"},"
	"{\"soname\":[\"liblz4.so.1\",\"liblz4.so.0\"],\"feature\":\"lz4\",\"priority\":\"suggested\"}]",
	"[]",
};

static int same_bytes(int a, int b)
{
	unsigned char x[4096], y[4096];
	off_t sa = lseek(a, 0, SEEK_END), sb = lseek(b, 0, SEEK_END), pos;
	ssize_t n;

	if (sa != sb)
		return 0;
	for (pos = 0; pos < sa; pos += n) {
		n = pread(a, x, sizeof x, pos);
		if (n <= 0 || pread(b, y, (size_t)n, pos) != n || memcmp(x, y, (size_t)n))
			return 0;
	}
	return 1;
}

/* A PT_LOAD the program needs: writable, or holding the entry point.  Ours are neither. */
static int vital(const struct elf *ef, const struct elf_phdr *p)
{
	return p->type == PT_LOAD_ && p->memsz &&
	       ((p->flags & PF_W_) || (ef->entry >= p->vaddr && ef->entry - p->vaddr < p->memsz));
}

/* Every vital PT_LOAD of the input is in the output, unchanged. */
static int vital_kept(int in, uint64_t isize, const struct elf *out)
{
	struct elf ef;
	struct err e;
	size_t i, j;
	int ok = 1;

	if (elf_open(&ef, in, "in", isize, &e))
		return 1;
	for (i = 0; i < ef.phnum && ok; i++) {
		if (!vital(&ef, &ef.ph[i]))
			continue;
		for (j = 0; j < out->phnum && memcmp(&ef.ph[i], &out->ph[j], sizeof ef.ph[i]); j++)
			;
		ok = j < out->phnum;
	}
	elf_close(&ef);
	return ok;
}

/* Returns the result's fd, or -1 when the tool refused the input (fine) */
static int edit(int in, uint64_t size, const struct entries *want, struct plan *pl)
{
	struct elf ef;
	struct scan sc;
	struct buf note = { 0 };
	struct err e;
	int out = -1;

	if (elf_open(&ef, in, "fuzz", size, &e))
		return -1;
	if (scan_file(&ef, &sc, &e) == 0) {
		struct entries es = { 0 };
		struct buf report = { 0 };
		scan_entries(&ef, &sc, &es, &e);
		scan_check(&ef, &sc, 0, &report);
		manifest_free(&es);
		buf_free(&report);
		if (note_encode(want, ef.big, &note, &e) == 0 && edit_plan(&ef, &sc, want, 0, &note, pl, NULL, &e) == 0) {
			out = pl->unchanged ? dup(in) : memfd_create("out", MFD_CLOEXEC);
			if (out >= 0 && !pl->unchanged && output_apply(in, out, pl, &e)) {
				close(out);
				out = -2;      /* a write error on a memory file: a bug */
			}
		}
		scan_free(&sc);
	}
	buf_free(&note);
	elf_close(&ef);
	return out;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct entries want = { 0 }, got = { 0 };
	struct plan pl = { 0 }, pl2 = { 0 };
	struct elf ef;
	struct scan sc;
	struct err e;
	struct buf a = { 0 }, b = { 0 };
	int in, out, out2;
	off_t osize;

	if (size < 1)
		return 0;
	if (manifest_parse(payloads[data[0] % 3], strlen(payloads[data[0] % 3]), &want, &e))
		abort();
	in = memfile(data + 1, size - 1);
	if (in < 0)
		return 0;
	out = edit(in, size - 1, &want, &pl);
	if (out == -2)
		abort();
	if (out >= 0) {
		osize = lseek(out, 0, SEEK_END);
		/* The result opens, carries exactly the entries, and is a fixed point. */
		if (elf_open(&ef, out, "out", (uint64_t)osize, &e) || scan_file(&ef, &sc, &e))
			abort();
		if (scan_entries(&ef, &sc, &got, &e))
			abort();
		manifest_serialize(&want, &a);
		manifest_serialize(&got, &b);
		if (a.len != b.len || memcmp(a.p, b.p, a.len))
			abort();
		if (!vital_kept(in, size - 1, &ef))
			abort();
		scan_free(&sc);
		elf_close(&ef);
		/* The same command on its own output changes no byte (usually it writes nothing). */
		out2 = edit(out, (uint64_t)osize, &want, &pl2);
		if (out2 < 0 || (!pl2.unchanged && !same_bytes(out, out2)))
			abort();
		close(out2);
		close(out);
	}
	plan_free(&pl);
	plan_free(&pl2);
	manifest_free(&want);
	manifest_free(&got);
	buf_free(&a);
	buf_free(&b);
	close(in);
	return 0;
}
