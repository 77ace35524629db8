/* SPDX-License-Identifier: MIT */
/* Fuzz archives: walk every member of the input (index checked, ELF members scanned), then
 * write the edited archive.  When writing succeeds, the result must walk again with the same
 * members, a valid index, and every ELF member holding exactly the requested entries. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "archive/archive.h"
#include "elf/elf.h"
#include "edit/edit.h"
#include "note/note.h"
#include "report/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char payload[] = "[{\"soname\":[\"libz.so.1\"],\"feature\":\"z\"}]";

struct ctx {
	struct entries want;
	struct buf note[2];        /* little- and big-endian */
};

static int memfile(const void *data, size_t size)
{
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd >= 0 && size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return -1;
	}
	return fd;
}

static int open_member(const struct archive *ar, const struct archive_member *m, struct elf *ef, struct err *e)
{
	unsigned char magic[4];

	if (m->mem)
		return m->size >= 4 && memcmp(m->mem, "\177ELF", 4) == 0 ? elf_open_mem(ef, m->mem, "m", m->size, e) : 1;
	if (m->size < 4 || pread(ar->fd, magic, 4, (off_t)m->data) != 4 || memcmp(magic, "\177ELF", 4))
		return 1;
	return elf_open_at(ef, ar->fd, "m", m->data, m->size, e);
}

static int plan_member(void *vc, const struct archive *ar, const struct archive_member *m, struct plan *pl, struct err *e)
{
	struct ctx *c = vc;
	struct elf ef;
	struct scan sc;
	int r = open_member(ar, m, &ef, e);

	if (r)
		return r > 0 ? 0 : -1;
	r = scan_file(&ef, &sc, e);
	if (r == 0) {
		r = edit_plan(&ef, &sc, &c->want, 0, &c->note[ef.big], pl, NULL, e);
		scan_free(&sc);
	}
	elf_close(&ef);
	return r ? -1 : 1;
}

/* Walk an archive; returns the number of members, or -1.  check: each ELF member holds `want`.
 * Without `want` (the input), --check's view too: the index per member, where entries travel,
 * the report (to /dev/null). */
static long walk(int fd, uint64_t size, const struct entries *want)
{
	struct archive ar;
	struct archive_member m;
	struct travel t = { 0 };
	struct err e = { 0 };
	long n = 0;
	int r;

	if (archive_open(&ar, fd, "a", size, &e))
		return -1;
	while ((r = archive_next(&ar, &m, &e)) == 1) {
		struct elf ef;
		struct scan sc;
		struct entries got = { 0 };
		n++;
		if (m.kind == AR_INDEX && (want ? archive_check_index(&ar, &m, &e) : travel_index(&t, &ar, &m, &e))) {
			travel_free(&t);
			return -1;
		}
		if (m.kind != AR_MEMBER || open_member(&ar, &m, &ef, &e))
			continue;
		if (scan_file(&ef, &sc, &e) == 0) {
			if (!want) {
				struct err te = { 0 };
				travel_member(&t, &m, &ef, &sc, &te);
			} else if (scan_entries(&ef, &sc, &got, &e) || got.n != want->n) {
				abort();                  /* an edited member lost or gained entries */
			}
			manifest_free(&got);
			scan_free(&sc);
		}
		elf_close(&ef);
	}
	if (!want && r == 0) {
		FILE *null = fopen("/dev/null", "w");
		if (null) {
			travel_report(&t, NULL, 0, "a", null);
			fclose(null);
		}
	}
	travel_free(&t);
	return r < 0 ? -1 : n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctx c = { 0 };
	struct archive ar;
	struct err e = { 0 };
	char label[64];
	int in = memfile(data, size), out = memfile("", 0);
	long before, after;
	off_t outsz;

	if (in < 0 || out < 0 || manifest_parse(payload, sizeof payload - 1, &c.want, &e) ||
	    note_encode(&c.want, 0, &c.note[0], &e) || note_encode(&c.want, 1, &c.note[1], &e))
		goto done;
	before = walk(in, size, NULL);
	if (before < 0 || archive_open(&ar, in, "a", size, &e) || ar.thin)
		goto done;
	/* The 4 GiB line lowered to half the input, so that "/" indexes are widened to "/SYM64/",
	 * decided by planning first (odd sizes) or by writing again (even ones). */
	ar.offset32_max = size / 2, ar.plan_first = size & 1 ? 0 : UINT64_MAX;
	if (archive_write(&ar, out, plan_member, &c, label, sizeof label, &e) == 0) {
		outsz = lseek(out, 0, SEEK_END);
		after = walk(out, (uint64_t)outsz, &c.want);
		if (after != before)
			abort();                          /* the written archive does not walk the same */
	}
done:
	manifest_free(&c.want);
	buf_free(&c.note[0]);
	buf_free(&c.note[1]);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return 0;
}
