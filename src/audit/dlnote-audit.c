/* SPDX-License-Identifier: MIT */
/* dlnote-audit.c - the glibc rtld-audit module behind `dlnote-inject --record` (rtld-audit(7)).
 *
 * Loaded through LD_AUDIT into every dynamically linked glibc process started under the
 * recording, it appends one JSON line to the trace named by DLNOTE_RECORD_TRACE for each object
 * the program asks the loader for after start-up:
 *
 *   la_objsearch(name, loader, LA_SER_ORIG) is the name as asked, before any search.  For a
 *   dlopen() the loader is the object that called dlopen() (glibc's dl-open.c finds it from the
 *   return address); for a DT_NEEDED entry it is the object that needs it.  The two are told
 *   apart by la_activity: a dlopen() asks while the namespace is consistent, the DT_NEEDED
 *   entries of what it maps are asked after LA_ACT_ADD.
 *   la_objopen(map) follows the search of each object actually mapped, so it completes the
 *   last name asked with the path and the soname.
 *
 * What the loader answers without a search never reaches those callbacks: a dlopen() of an
 * object already loaded (by name or soname).  On x86-64, i386, aarch64, arm and riscv64 the
 * module also sees those calls: la_symbind binds every PLT call of dlopen() to
 * dlnote_dlopen_wrapper, which notes the caller (from its return address) and the name, then jumps
 * to the real dlopen() with the stack as the caller left it, so that glibc still sees the caller's
 * return address (it picks the namespace and the RUNPATH from it).  When the name is that of an
 * object already loaded, the wrapper writes the lines the loader will not cause.  A call through a
 * GOT entry (-fno-plt) or a pointer from dlsym() is not bound through la_symbind and is seen only
 * when it loads something. Either way each (caller, name) is written once per process, so repeated
 * dlopen() and RTLD_NOLOAD of a loaded object are recorded once.  A name searched but never mapped
 * (missing, or RTLD_NOLOAD of an object not loaded) has an "asked" line and no "loaded" line.
 *
 * The loader serialises its callbacks under its load lock; the wrapper runs outside it, so the
 * state both use (the loaded objects, the pairs written, the trace) is under a lock of ours,
 * always taken after the loader's.  Each line is written by one write() on a descriptor opened with
 * O_APPEND for it alone: Linux serialises O_APPEND writes to a regular file on local filesystems,
 * so lines from concurrent processes never interleave (not so on NFS).  The descriptor is closed at
 * once, so a program that closes every descriptor it does not know loses nothing.
 *
 * libc only, and never built with a sanitizer: it runs inside other programs' loaders. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sched.h>
#include <unistd.h>

#include "audit.h"

#define SEEN_MAX 1024
#define MAPS_MAX 1024
#define ASKED_MAX 256

enum kind { ASK_DLOPEN, ASK_NEEDED };

static struct {
	int started; /* the start-up objects are all loaded */
	int adding;  /* between LA_ACT_ADD and LA_ACT_CONSISTENT */
	struct link_map *main_map;
	/* The last name asked, until its object is mapped or another name is asked; write: its
	 * lines are written (the pair is new). */
	int pending, write;
	enum kind kind;
	char name[PATH_MAX], caller[PATH_MAX];
	/* The last path the loader was about to try for it (la_objsearch after LA_SER_ORIG): when
	 * the ask ends with no object mapped, the loader either failed or found that file already
	 * loaded under another name (a symlink, a merged-/usr twin), and returned that object. */
	char candidate[PATH_MAX];
	/* (caller, name) pairs already written, as hashes: once per process. */
	uint64_t seen[SEEN_MAX];
	size_t nseen;
	/* Objects loaded, for the wrapper: the name each was asked by, if it was recorded. */
	struct loaded {
		struct link_map *map;
		Lmid_t lmid;
		char asked[ASKED_MAX];
	} maps[MAPS_MAX];
	size_t nmaps;
	/* The line being written: here, not on the stack of a thread that may have a small one;
	 * used under the lock. */
	struct line line;
} st;

static void settle(void);

/* The lock, and a forked child's own set of pairs written. */
static void lock_pairs(void)
{
	if (lock())
		pairs_forget();
}

void pairs_forget(void)
{
	st.nseen = 0;
}
static void put_loaded(struct line *l, const char *by, const char *caller, const char *name,
		       struct link_map *map);

static const char *const kind_names[] = {"dlopen", "needed"};

static const char *map_path(struct link_map *m, char *buf)
{
	return m == st.main_map || !m->l_name || !m->l_name[0] ? out.exe : absolute(m->l_name, buf);
}

static int seen_before(const char *caller, const char *name)
{
	return seen_add(st.seen, &st.nseen, SEEN_MAX,
			fnv_end(fnv_str(fnv_end(fnv_str(FNV_START, caller)), name)));
}

unsigned la_version(unsigned version)
{
	out_init();
	return version < LAV_CURRENT ? version : LAV_CURRENT;
}

void la_activity(uintptr_t *cookie, unsigned flag)
{
	(void)cookie;
	if (flag == LA_ACT_ADD) {
		st.adding = 1;
	} else if (flag == LA_ACT_CONSISTENT) {
		st.adding = 0;
		settle();
		st.pending = 0;
		if (!st.started && out.trace) {
			lock_pairs();
			line_start(&st.line, "start");
			line_write(&st.line);
			unlock();
		}
		st.started = 1;
	}
}

/* The ask that mapped no object of its own: if its last candidate is a file already loaded
 * (same device and inode), the dlopen() returned that object: write its "loaded" line.  Called
 * when the next ask starts, when the namespace is consistent again, and when an object is
 * closed (at exit too: the loader's _dl_fini reports every object closed). */
static void settle(void)
{
	static char buf[PATH_MAX];
	struct stat want, have;

	if (!st.pending || !st.write || st.kind != ASK_DLOPEN || !st.candidate[0] || !out.trace ||
	    stat(st.candidate, &want) != 0) {
		st.candidate[0] = '\0';
		return;
	}
	st.candidate[0] = '\0';
	lock_pairs();
	for (size_t i = 0; i < st.nmaps; i++) {
		struct link_map *m = st.maps[i].map;
		if (!m->l_name || !m->l_name[0] || stat(absolute(m->l_name, buf), &have) != 0 ||
		    have.st_dev != want.st_dev || have.st_ino != want.st_ino)
			continue;
		put_loaded(&st.line, kind_names[st.kind], st.caller, st.name, m);
		line_write(&st.line);
		break;
	}
	unlock();
}

static struct link_map *handoff_take(const char *name);

static int is_loader(const struct link_map *m)
{
	return m->l_addr == (ElfW(Addr))getauxval(AT_BASE);
}

/* The loader named as dlopen()'s caller: the return address is in it, so a function it called
 * (a constructor, destructor, DT_INIT function) ended with a tail call through a GOT entry
 * (-fno-plt), which no PLT stub saw.  The name asked for is then, as a rule, a string of that
 * function's own object (its read-only data): that object is the caller, and the line says
 * how it was found.  A name built at run time (on the stack, the heap) says nothing: the
 * caller stays hidden (1).  The loader itself never asks for a name this way. */
static int by_name(const char *name, struct link_map **caller)
{
	struct link_map *owner = NULL;
	Dl_info info;

	if (!dladdr1(name, &info, (void **)&owner, RTLD_DL_LINKMAP) || !owner || is_loader(owner))
		return 1;
	*caller = owner;
	return 2;
}

/* How the caller of an asked line was found, when the loader was named (by_name). */
static void put_how(struct line *l, int how)
{
	if (how == 1)
		put_str(l, "hidden", "loader");
	else if (how == 2)
		put_str(l, "caller_from", "name");
}

char *la_objsearch(const char *name, uintptr_t *cookie, unsigned flag)
{
	struct link_map *loader = (struct link_map *)*cookie;
	static char buf[PATH_MAX];
	const char *caller;
	int hidden;

	if (flag != LA_SER_ORIG && st.pending && st.kind == ASK_DLOPEN &&
	    strlen(name) < sizeof st.candidate)
		strcpy(st.candidate, name);
	if (flag != LA_SER_ORIG || !st.started || !out.trace || !loader)
		return (char *)name;
	settle();
	st.pending = 0;
	st.kind = st.adding ? ASK_NEEDED : ASK_DLOPEN;
	hidden = 0;
	if (st.kind == ASK_DLOPEN) {
		struct link_map *by_plt;
		lock_pairs();
		by_plt = handoff_take(name);
		unlock();
		if (by_plt)
			loader = by_plt;
		else if (is_loader(loader))
			hidden = by_name(name, &loader);
	}
	caller = map_path(loader, buf);
	if (strlen(name) >= sizeof st.name || strlen(caller) >= sizeof st.caller)
		return (char *)name;
	strcpy(st.name, name);
	strcpy(st.caller, caller);
	st.pending = 1;
	lock_pairs();
	st.write = !seen_before(caller, name);
	if (st.write) {
		line_start(&st.line, "asked");
		put_str(&st.line, "by", kind_names[st.kind]);
		put_str(&st.line, "caller", st.caller);
		put_str(&st.line, "name", st.name);
		put_str(&st.line, "caller_build_id", build_id_of(st.caller));
		put_how(&st.line, hidden);
		line_write(&st.line);
	}
	unlock();
	return (char *)name;
}

static void put_loaded(struct line *l, const char *by, const char *caller, const char *name,
		       struct link_map *map)
{
	static char buf[PATH_MAX];

	line_start(l, "loaded");
	put_str(l, "by", by);
	put_str(l, "caller", caller);
	put_str(l, "name", name);
	put_str(l, "soname", map_soname(map));
	put_str(l, "path", map->l_name ? absolute(map->l_name, buf) : "");
}

unsigned la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
	*cookie = (uintptr_t)map;
	if (!st.main_map)
		st.main_map = map; /* the first object reported is the program */
	lock_pairs();
	if (st.nmaps < MAPS_MAX) {
		struct loaded *m = &st.maps[st.nmaps++];
		m->map = map;
		m->lmid = lmid;
		m->asked[0] = '\0';
		if (st.pending && strlen(st.name) < sizeof m->asked)
			strcpy(m->asked, st.name);
	}
	if (st.started && out.trace && st.pending && st.write) {
		put_loaded(&st.line, kind_names[st.kind], st.caller, st.name, map);
		line_write(&st.line);
	}
	st.pending = 0;
	st.candidate[0] = '\0';
	unlock();
	return out.trace ? LA_FLG_BINDTO | LA_FLG_BINDFROM : 0;
}

unsigned la_objclose(uintptr_t *cookie)
{
	settle(); /* dlclose(), or the end of the process: _dl_fini closes every object */
	lock_pairs();
	for (size_t i = 0; i < st.nmaps; i++)
		if (st.maps[i].map == (struct link_map *)*cookie) {
			st.maps[i] = st.maps[--st.nmaps];
			break;
		}
	unlock();
	return 0;
}

#ifdef DLOPEN_WRAPPER
/* The dlopen() the program's PLT calls were bound to (one definition: an interposer's is left
 * alone).  The wrapper's asm (audit_stubs.c) is all that uses dlnote_real_dlopen and
 * dlnote_before_dlopen: `used` keeps them under LTO, which does not read top-level asm (rpm
 * distributions build with -flto). */
__attribute__((visibility("hidden"), used)) void *dlnote_real_dlopen;

/* The objects the stubs stand for: set once each, under the lock, before the stub is bound. */
static struct link_map *stub_map[DLOPEN_STUBS];
static size_t nstubs;

/* The stub for the object whose PLT slot is being bound, or the plain wrapper. */
static uintptr_t stub_for(struct link_map *ref)
{
	size_t i;

	/* A program that is not position-independent gives dlopen's address to every object that
	 * takes it (its PLT entry is canonical): a call through that pointer from a library would
	 * go through the program's stub.  The plain wrapper goes by the return address. */
	if (!ref || (ref == st.main_map && ref->l_addr == 0))
		return (uintptr_t)dlnote_dlopen_wrapper;
	lock_pairs();
	for (i = 0; i < nstubs && stub_map[i] != ref; i++)
		;
	if (i == nstubs && nstubs < DLOPEN_STUBS)
		__atomic_store_n(&stub_map[nstubs++], ref, __ATOMIC_RELEASE);
	unlock();
	return i < DLOPEN_STUBS ? (uintptr_t)(dlnote_dlopen_stubs + i * STUB_SIZE)
				: (uintptr_t)dlnote_dlopen_wrapper;
}

/* glibc's _dl_name_match_p: the name the object was loaded by, its path, its soname. */
static struct loaded *find_loaded(const char *name, Lmid_t lmid)
{
	for (size_t i = 0; i < st.nmaps; i++) {
		struct loaded *m = &st.maps[i];
		if (m->lmid == lmid && ((m->asked[0] && strcmp(m->asked, name) == 0) ||
					(m->map->l_name && strcmp(m->map->l_name, name) == 0) ||
					strcmp(map_soname(m->map), name) == 0))
			return m;
	}
	return NULL;
}

/* Only a dlopen() the loader will answer from a loaded object is written here; any other is
 * written by la_objsearch, which sees the same caller. */
/* A dlopen() that the loader will search for: la_objsearch, which sees glibc's caller (from the
 * return address), takes the wrapper's instead, from the same thread and for the same name. */
#define HANDOFFS 16
static struct handoff {
	pid_t tid;
	uint64_t name;
	struct link_map *caller;
} handoff[HANDOFFS];

static void handoff_put(const char *name, struct link_map *caller)
{
	pid_t tid = gettid();
	size_t i, free_slot = HANDOFFS;

	for (i = 0; i < HANDOFFS && handoff[i].tid != tid; i++)
		if (!handoff[i].tid && free_slot == HANDOFFS)
			free_slot = i;
	if (i == HANDOFFS)
		i = free_slot < HANDOFFS ? free_slot : (size_t)tid % HANDOFFS;
	handoff[i] = (struct handoff){tid, fnv_str(FNV_START, name), caller};
}

/* Under the lock. */
static struct link_map *handoff_take(const char *name)
{
	pid_t tid = gettid();

	for (size_t i = 0; i < HANDOFFS; i++)
		if (handoff[i].tid == tid) {
			struct link_map *m = handoff[i].name == fnv_str(FNV_START, name)
						     ? handoff[i].caller
						     : NULL;
			handoff[i].tid = 0;
			return m;
		}
	return NULL;
}

/* The caller is the object of the stub (its PLT slot), else the return address's.  Only a
 * dlopen() the loader will answer from a loaded object is written here; any other is written by
 * la_objsearch, told the caller through the hand-off. */
__attribute__((used)) void dlnote_before_dlopen(void *ret, const char *name, int stub)
{
	static char buf[PATH_MAX];
	struct link_map *caller = NULL, *by_ret = NULL;
	struct loaded *m;
	Lmid_t lmid = LM_ID_BASE;
	Dl_info info;
	int how = 0;

	if (!st.started || !out.trace || !name)
		return;
	if (!dladdr1(ret, &info, (void **)&by_ret, RTLD_DL_LINKMAP))
		by_ret = NULL;
	if (stub >= 0 && stub < DLOPEN_STUBS)
		caller = __atomic_load_n(&stub_map[stub], __ATOMIC_ACQUIRE);
	if (!caller) { /* the plain wrapper: by the return address, as la_objsearch goes */
		if (!(caller = by_ret))
			return;
		if (is_loader(caller))
			how = by_name(name, &caller);
	}
	lock_pairs();
	/* glibc looks the name up in the namespace of the return address's object */
	for (size_t i = 0; i < st.nmaps; i++)
		if (st.maps[i].map == (by_ret ? by_ret : caller))
			lmid = st.maps[i].lmid;
	m = find_loaded(name, lmid);
	if (!m && stub >= 0)
		handoff_put(name, caller); /* what only the stub knows */
	else if (m && !seen_before(map_path(caller, buf), name)) {
		line_start(&st.line, "asked");
		put_str(&st.line, "by", kind_names[ASK_DLOPEN]);
		put_str(&st.line, "caller", map_path(caller, buf));
		put_str(&st.line, "name", name);
		put_str(&st.line, "caller_build_id", build_id_of(map_path(caller, buf)));
		put_how(&st.line, how);
		line_write(&st.line);
		put_loaded(&st.line, kind_names[ASK_DLOPEN], map_path(caller, buf), name, m->map);
		line_write(&st.line);
	}
	unlock();
}

static uintptr_t dlopen_bind(uintptr_t value, struct link_map *ref)
{
	void *real = (void *)value;

	if (!__atomic_load_n(&dlnote_real_dlopen, __ATOMIC_ACQUIRE))
		__atomic_store_n(&dlnote_real_dlopen, real, __ATOMIC_RELEASE);
	return real == dlnote_real_dlopen ? stub_for(ref) : value;
}
#endif

#ifndef DLOPEN_WRAPPER
static struct link_map *handoff_take(const char *name)
{
	(void)name;
	return NULL;
}
#endif

/* Every PLT binding (lazy, or at load time with BIND_NOW: glibc 2.35 and later) of the objects
 * la_objopen asked about: dlopen() to its wrapper where there is one, exec and spawn functions to
 * their watchers (audit_exec.c) everywhere; and every dlsym() result, written down. */
#if __ELF_NATIVE_CLASS == 64
uintptr_t la_symbind64(ElfW(Sym) * sym, unsigned ndx, uintptr_t *refcook, uintptr_t *defcook,
		       unsigned *flags, const char *symname)
#else
uintptr_t la_symbind32(ElfW(Sym) * sym, unsigned ndx, uintptr_t *refcook, uintptr_t *defcook,
		       unsigned *flags, const char *symname)
#endif
{
	if (!out.trace)
		return sym->st_value;
	/* A dlsym() or dlvsym() result (audit_dlsym.c): glibc >= 2.35 reports every one.  Before
	 * start-up is done, the loader's own (its malloc's) are no program's. */
	if (*flags & LA_SYMB_DLSYM) {
		if (st.started)
			dlsym_record(ndx, (struct link_map *)*refcook, (struct link_map *)*defcook,
				     symname);
		return sym->st_value;
	}
#ifdef DLOPEN_WRAPPER
	if (strcmp(symname, "dlopen") == 0)
		return dlopen_bind(sym->st_value, (struct link_map *)*refcook);
#endif
	return exec_bind(symname, sym->st_value);
}
