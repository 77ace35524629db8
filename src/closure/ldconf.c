/* SPDX-License-Identifier: MIT */
/* ldconf.c - where the loader of a root looks: etc/ld.so.conf with its includes (what ldconfig
 * puts in ld.so.cache), the trusted directories of an ELF class and machine, and what $LIB and
 * $PLATFORM expand to (see closure_int.h, docs/closure.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "closure_int.h"

#define LDCONF_MAX_BYTES (1u << 20)

void dirlist_add(struct dirlist *l, const char *dir, size_t len)
{
	while (len > 1 && dir[len - 1] == '/')
		len--;
	buf_put(&l->text, dir, len);
	buf_putc(&l->text, 0);
	l->n++;
}

const char *dirlist_next(const struct dirlist *l, size_t *pos)
{
	const char *s;

	if (*pos >= l->text.len)
		return NULL;
	s = l->text.p + *pos;
	*pos += strlen(s) + 1;
	return s;
}

int dirlist_has(const struct dirlist *l, const char *dir)
{
	size_t pos = 0;
	const char *s;

	while ((s = dirlist_next(l, &pos)) != NULL)
		if (strcmp(s, dir) == 0)
			return 1;
	return 0;
}

/* ---- ld.so.conf ---- */

struct conf_read {
	struct root *r;
	struct dirlist *out;
	struct stat *seen; /* the files read, to cut include loops */
	size_t nseen, seen_cap;
	int verbose;
	struct err *e;
};

static int read_conf(struct conf_read *cr, const char *path, int depth);

static void conf_warn(struct conf_read *cr, const char *path, const char *why)
{
	print_text(stderr, PROGRAM_NAME ": %s%s: %s\n",
		   strcmp(cr->r->dir, "/") == 0 ? "" : cr->r->dir, path, why);
}

/* `include PATTERN`: a glob in its last component (as ldconfig's glob(3), sorted). */
static int conf_include(struct conf_read *cr, const char *from, const char *pat, size_t len,
			int depth)
{
	char full[ROOT_PATH_MAX], *slash;
	struct buf names = {0};
	struct root_found dir;
	long n;
	int rc;

	if (pat[0] == '/')
		rc = snprintf(full, sizeof full, "%.*s", (int)len, pat);
	else {
		const char *d = strrchr(from, '/');
		rc = snprintf(full, sizeof full, "%.*s/%.*s", (int)(d ? d - from : 0), from,
			      (int)len, pat);
	}
	if (rc < 0 || (size_t)rc >= sizeof full)
		return conf_warn(cr, from, "include: path too long"), 0;
	slash = strrchr(full, '/');
	if (!strpbrk(slash + 1, "*?["))
		return read_conf(cr, full, depth + 1);
	*slash = 0;
	rc = root_resolve(cr->r, "", *full ? full : "/", 0, NULL, &dir, cr->e);
	if (rc < 0)
		return conf_warn(cr, full, cr->e->msg), 0;
	if (rc > 0 || !S_ISDIR(dir.st.st_mode))
		return 0;
	n = root_glob_dir(cr->r, dir.path, slash + 1, &names, cr->e);
	if (n < 0)
		return buf_free(&names), -1;
	for (size_t off = 0; off < names.len && rc == 0; off += strlen(names.p + off) + 1) {
		char one[ROOT_PATH_MAX];
		if ((size_t)snprintf(one, sizeof one, "%s/%s", full, names.p + off) >= sizeof one)
			continue;
		rc = read_conf(cr, one, depth + 1);
	}
	buf_free(&names);
	return rc;
}

static int conf_line(struct conf_read *cr, const char *path, char *s, size_t len, int depth)
{
	len = strnlen(s, len); /* a NUL ends the line, as it ends ldconfig's C string */
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	if (!len)
		return 0;
	if (len > 8 && strncmp(s, "include", 7) == 0 && (s[7] == ' ' || s[7] == '\t')) {
		size_t i = 8;
		while (i < len) { /* several patterns may follow, as ldconfig reads them */
			size_t w;
			while (i < len && (s[i] == ' ' || s[i] == '\t'))
				i++;
			w = strcspn(s + i, " \t");
			w = w > len - i ? len - i : w;
			if (w && conf_include(cr, path, s + i, w, depth))
				return -1;
			i += w;
		}
		return 0;
	}
	if (strncmp(s, "hwcap", 5) == 0 && (s[5] == ' ' || s[5] == '\t'))
		return 0;
	if (s[0] == '/')
		dirlist_add(cr->out, s, len);
	return 0;
}

static int conf_seen(struct conf_read *cr, const struct stat *st)
{
	struct stat *v;

	for (size_t i = 0; i < cr->nseen; i++)
		if (cr->seen[i].st_dev == st->st_dev && cr->seen[i].st_ino == st->st_ino)
			return 1;
	v = xgrow(cr->seen, &cr->seen_cap, cr->nseen, sizeof *v);
	if (!v)
		return -1;
	cr->seen = v;
	v[cr->nseen++] = *st;
	return 0;
}

static int read_conf(struct conf_read *cr, const char *path, int depth)
{
	struct buf text = {0};
	struct root_found f;
	char *p, *end;
	int rc, seen;

	if (depth > LDCONF_MAX_DEPTH)
		return conf_warn(cr, path, "includes nested too deep, not read"), 0;
	rc = root_read_text(cr->r, path, LDCONF_MAX_BYTES, &text, &f, cr->e);
	if (rc) {
		int oom = text.oom;
		buf_free(&text);
		if (oom)
			return err_oom(cr->e);
		if (rc < 0)
			conf_warn(cr, path, cr->e->msg);
		return 0;
	}
	seen = conf_seen(cr, &f.st);
	if (seen)
		return buf_free(&text),
		       seen < 0 ? err_oom(cr->e)
				: (conf_warn(cr, path,
					     "included again (an include loop?), not read"),
				   0);
	if (cr->verbose)
		print_text(stderr, PROGRAM_NAME ": reading %s\n", f.path);
	for (p = text.p, rc = 0; p && p < text.p + text.len && rc == 0; p = end ? end + 1 : NULL) {
		char *hash;
		end = memchr(p, '\n', (size_t)(text.p + text.len - p));
		hash = memchr(p, '#', (size_t)((end ? end : text.p + text.len) - p));
		rc = conf_line(cr, path, p,
			       (size_t)((hash  ? hash
					 : end ? end
					       : text.p + text.len) -
					p),
			       depth);
	}
	buf_free(&text);
	return rc;
}

int ldconf_read(struct root *r, struct dirlist *out, int verbose, struct err *e)
{
	struct conf_read cr = {.r = r, .out = out, .verbose = verbose, .e = e};
	int rc = read_conf(&cr, "/etc/ld.so.conf", 0);

	free(cr.seen);
	return rc < 0 || out->text.oom ? -1 : 0;
}

/* ---- the trusted directories, $LIB and $PLATFORM ---- */

/* AT_PLATFORM as the kernel gives it to a process of this machine (what glibc substitutes). */
static const char *platform(int is64, unsigned machine)
{
	switch (machine) {
	case EM_X86_64_: return is64 ? "x86_64" : NULL;
	case EM_386_: return "i686";
	case EM_AARCH64_: return "aarch64";
	case EM_S390_: return is64 ? "s390x" : "s390";
	}
	return NULL;
}

/* The machines whose 64-bit glibc has its libraries in lib64 (slibdir). */
static int lib64_machine(unsigned machine)
{
	return machine == EM_X86_64_ || machine == EM_PPC64_ || machine == EM_S390_ ||
	       machine == EM_SPARCV9_ || machine == EM_MIPS_ || machine == EM_AARCH64_ ||
	       machine == EM_RISCV_ || machine == EM_LOONGARCH_;
}

static int is_dir(struct root *r, const char *path, struct err *e)
{
	struct root_found f;
	return root_resolve(r, "", path, 0, NULL, &f, e) == 0 && S_ISDIR(f.st.st_mode);
}

int ldconf_flavour(struct root *r, int is64, int big, unsigned machine, unsigned long flags,
		   struct ldflavour *f, struct err *e)
{
	const char *own = is64 && lib64_machine(machine)   ? "lib64"
			  : machine == EM_X86_64_ && !is64 ? "libx32"
							   : "lib";
	char d[128];

	memset(f, 0, sizeof *f);
	f->is64 = is64;
	f->big = big;
	f->machine = machine;
	f->flags = flags;
	f->triplet = elf_multiarch(is64, big, machine, flags);
	f->platform = platform(is64, machine);
	/* Debian's glibc looks in its multiarch directories first, and its $LIB names them. */
	if (f->triplet) {
		snprintf(d, sizeof d, "/lib/%s", f->triplet);
		dirlist_add(&f->defaults, d, strlen(d));
		snprintf(d, sizeof d, "/usr/lib/%s", f->triplet);
		dirlist_add(&f->defaults, d, strlen(d));
	}
	if (f->triplet && is_dir(r, d, e))
		snprintf(f->lib, sizeof f->lib, "lib/%s", f->triplet);
	else
		snprintf(f->lib, sizeof f->lib, "%s", own);
	snprintf(d, sizeof d, "/%s", own);
	dirlist_add(&f->defaults, d, strlen(d));
	snprintf(d, sizeof d, "/usr/%s", own);
	dirlist_add(&f->defaults, d, strlen(d));
	if (strcmp(own, "lib") != 0) {
		dirlist_add(&f->defaults, "/lib", 4);
		dirlist_add(&f->defaults, "/usr/lib", 8);
	}
	return f->defaults.text.oom ? err_oom(e) : 0;
}

void ldconf_flavour_free(struct ldflavour *f)
{
	free(f->interp);
	buf_free(&f->defaults.text);
}
