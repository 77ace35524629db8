/* SPDX-License-Identifier: MIT */
/* audit_dlsym.c - what the rtld-audit module reads of a loaded object's dynamic section (its
 * soname, its symbols' version nodes), and its "symbol" lines: each dlsym() and dlvsym() result,
 * with the object that called (glibc finds it from the return address, as for dlopen()), the
 * library the symbol resolved in, and the version node it resolved at, so that the dependency on
 * that library can be versioned as a linked program's is (issue 38; docs/recording.md).
 *
 * glibc calls la_symbind for them with LA_SYMB_DLSYM: from 2.35 for every object the module
 * asked to audit (la_objopen's LA_FLG_BINDFROM | LA_FLG_BINDTO); before 2.35 only when the
 * caller or the library had a PLT bound lazily (l_audit_any_plt), which an object linked with
 * -z now (BIND_NOW, distributions' hardening) never has: older loaders mostly give no lines.
 * Each (caller, library, symbol) is written once per process.  libc only. */
#include <link.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"

#define DLSYM_SEEN_MAX 4096

static struct {
	pid_t pid; /* the set below is this process's: a forked child starts its own */
	uint64_t seen[DLSYM_SEEN_MAX];
	size_t nseen;
	struct line line;
} ds;

/* Under the lock. */
static int seen_before(const char *caller, const char *library, const char *symbol)
{
	if (ds.pid != getpid()) {
		ds.pid = getpid();
		ds.nseen = 0;
	}
	return seen_add(
		ds.seen, &ds.nseen, DLSYM_SEEN_MAX,
		fnv_end(fnv_str(fnv_end(fnv_str(fnv_end(fnv_str(FNV_START, caller)), library)),
				symbol)));
}

/* A dynamic-section address: glibc relocates the dynamic section's address entries in place when
 * the section is writable, and leaves them as link-time addresses when it is read-only: an
 * address below l_addr has not been relocated. */
static const char *dyn_ptr(const struct link_map *m, ElfW(Addr) a)
{
	return (const char *)(a && a < m->l_addr ? a + m->l_addr : a);
}

/* DT_SONAME of a mapped object, "" when it has none. */
const char *map_soname(struct link_map *m)
{
	ElfW(Addr) strtab = 0;
	ElfW(Xword) soname = 0;
	int have = 0;

	if (!m->l_ld)
		return "";
	for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_SONAME)
			soname = d->d_un.d_val, have = 1;
	}
	return have && strtab ? dyn_ptr(m, strtab) + soname : "";
}

/* The version node symbol ndx of m is defined at (.gnu.version, .gnu.version_d), "" when it has
 * none. */
static const char *symbol_version(const struct link_map *m, unsigned ndx)
{
	ElfW(Addr) strtab = 0, versym = 0, verdef = 0;
	const ElfW(Verdef) * vd;
	unsigned index;

	if (!m->l_ld)
		return "";
	for (const ElfW(Dyn) *d = m->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = d->d_un.d_ptr;
		else if (d->d_tag == DT_VERSYM)
			versym = d->d_un.d_ptr;
		else if (d->d_tag == DT_VERDEF)
			verdef = d->d_un.d_ptr;
	}
	if (!strtab || !versym || !verdef)
		return "";
	index = ((const ElfW(Half) *)dyn_ptr(m, versym))[ndx] & 0x7fff;
	if (index <= 1)
		return ""; /* local or global: no version */
	for (vd = (const ElfW(Verdef) *)dyn_ptr(m, verdef);;
	     vd = (const ElfW(Verdef) *)((const char *)vd + vd->vd_next)) {
		if (vd->vd_ndx == index && vd->vd_cnt) {
			const ElfW(Verdaux) *a =
				(const ElfW(Verdaux) *)((const char *)vd + vd->vd_aux);
			return dyn_ptr(m, strtab) + a->vda_name;
		}
		if (!vd->vd_next)
			return "";
	}
}

static const char *object_path(const struct link_map *m, char *buf)
{
	return m->l_name && m->l_name[0] ? absolute(m->l_name, buf) : out.exe;
}

void dlsym_record(unsigned ndx, struct link_map *caller, struct link_map *def, const char *symname)
{
	static char cbuf[PATH_MAX], lbuf[PATH_MAX];
	const char *cpath, *lpath;

	if (!out.trace || !caller || !def || !symname)
		return;
	if (lock())
		pairs_forget();
	cpath = object_path(caller, cbuf);
	lpath = object_path(def, lbuf);
	if (!seen_before(cpath, lpath, symname)) {
		line_start(&ds.line, "symbol");
		put_str(&ds.line, "by", "dlsym");
		put_str(&ds.line, "caller", cpath);
		put_str(&ds.line, "caller_build_id", build_id_of(cpath));
		put_str(&ds.line, "symbol", symname);
		put_str(&ds.line, "version", symbol_version(def, ndx));
		put_str(&ds.line, "soname", map_soname(def));
		put_str(&ds.line, "path", lpath);
		line_write(&ds.line);
	}
	unlock();
}
