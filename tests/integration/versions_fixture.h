/* SPDX-License-Identifier: MIT */
/* versions_fixture.h - a program that dlopen()s real Debian libraries and looks symbols up in
 * them with dlsym(), and its twin, which links the same symbols: what dpkg-shlibdeps and rpm's
 * elfdeps give the twin is what the dlopen() program's dependencies must be (issue 38).  Shared
 * by test_symbols.c (the listing, rpm lines) and test_versions.c (the package builds).
 *
 * The libraries: liblzma5 (a symbols file, version nodes XZ_5.0 and XZ_5.4), libcap2 (a
 * symbols file, no version nodes), libsystemd0 (LIBSYSTEMD_240), zlib1g (ZLIB_1.2.2), libzstd1
 * (a shlibs file only), liblz4-1 as the first of two alternatives, libcrypt1 with no symbol
 * looked up, and libvhelper.so.1, built beside them (VHELPER_1.0; another binary package of
 * the same source in the package builds).  The twin links them but libcrypt. */
#ifndef DLNOTE_VERSIONS_FIXTURE_H
#define DLNOTE_VERSIONS_FIXTURE_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* Every lookup prints its result, so that the program fails when a symbol is missing.  One
 * name is built at run time ("lzma_" "version_string"): the read-only data does not hold it. */
static const char dlapp_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n#include <string.h>\n\n"
	"static int bad;\n"
	"static void *load(const char *soname)\n{\n"
	"\tvoid *h = dlopen(soname, RTLD_NOW);\n"
	"\tif (!h) { printf(\"%s: %s\\n\", soname, dlerror()); bad = 1; }\n\treturn h;\n}\n\n"
	"static void need(void *h, const char *name)\n{\n"
	"\tif (!h || !dlsym(h, name)) { printf(\"%s: missing\\n\", name); bad = 1; }\n}\n\n"
	"int main(void)\n{\n"
	"\tvoid *xz = load(\"liblzma.so.5\"), *h;\n"
	"\tchar built[64];\n"
	"\tneed(xz, \"lzma_code\");\n\tneed(xz, \"lzma_stream_decoder_mt\");\n"
	"\tsnprintf(built, sizeof built, \"%s_%s\", \"lzma\", \"version_string\");\n\tneed(xz, "
	"built);\n"
	"\tneed(load(\"libcap.so.2\"), \"cap_iab_get_proc\");\n"
	"\tneed(load(\"libsystemd.so.0\"), \"sd_device_get_devname\");\n"
	"\tneed(load(\"libz.so.1\"), \"inflateGetHeader\");\n"
	"\tneed(load(\"libzstd.so.1\"), \"ZSTD_decompress\");\n"
	"\tneed(load(\"libvhelper.so.1\"), \"vhelper_run\");\n"
	"\th = load(\"liblz4.so.1\");\n\tneed(h, \"LZ4_versionNumber\");\n"
	"\tload(\"libcrypt.so.1\");\n"
	"\tputs(bad ? \"dlapp: failed\" : \"dlapp: ok\");\n\treturn bad;\n}\n";

/* The same symbols, linked (and the run-time one, which the recording sees). */
static const char twin_c[] = "void lzma_code(void), lzma_stream_decoder_mt(void), "
			     "lzma_version_string(void), cap_iab_get_proc(void),\n"
			     "\tsd_device_get_devname(void), inflateGetHeader(void), "
			     "ZSTD_decompress(void), vhelper_run(void),\n"
			     "\tLZ4_versionNumber(void);\n"
			     "void (*volatile keep[])(void) = {lzma_code, lzma_stream_decoder_mt, "
			     "lzma_version_string, cap_iab_get_proc,\n"
			     "\tsd_device_get_devname, inflateGetHeader, ZSTD_decompress, "
			     "vhelper_run, LZ4_versionNumber};\n"
			     "int main(void) { return keep[0] == 0; }\n";

/* The twin's link: the libraries by path (their -dev packages need not be installed) and
 * libvhelper from the directory VHELPER_DIR. */
#define TWIN_LIBS(multiarch)                                                                       \
	"/lib/" multiarch "/liblzma.so.5 /lib/" multiarch "/libcap.so.2 /lib/" multiarch           \
	"/libsystemd.so.0 "                                                                        \
	"/lib/" multiarch "/libz.so.1 /lib/" multiarch "/libzstd.so.1 /lib/" multiarch             \
	"/liblz4.so.1"

static const char vhelper_c[] = "int vhelper_run(void) { return 0; }\n";
static const char vhelper_map[] = "VHELPER_1.0 { global: vhelper_run; local: *; };\n";

/* Every entry required, so that one field holds them all. */
#define N_DLAPP                                                                                    \
	"[{\"soname\":[\"liblzma.so.5\"],\"feature\":\"xz\",\"priority\":\"required\"},"           \
	"{\"soname\":[\"libcap.so.2\"],\"feature\":\"cap\",\"priority\":\"required\"},"            \
	"{\"soname\":[\"libsystemd.so.0\"],\"feature\":\"device\",\"priority\":\"required\"},"     \
	"{\"soname\":[\"libz.so.1\"],\"feature\":\"zlib\",\"priority\":\"required\"},"             \
	"{\"soname\":[\"libzstd.so.1\"],\"feature\":\"zstd\",\"priority\":\"required\"},"          \
	"{\"soname\":[\"libvhelper.so.1\"],\"feature\":\"helper\",\"priority\":\"required\"},"     \
	"{\"soname\":[\"liblz4.so.1\",\"liblzma.so.5\"],\"feature\":\"fast\",\"priority\":"        \
	"\"required\"},"                                                                           \
	"{\"soname\":[\"libcrypt.so.1\"],\"feature\":\"crypt\",\"priority\":\"required\"}]\n"

/* elfdeps' lines for one soname of the twin (the file TWIN), as one alternative of a rich
 * dependency: the line alone, or "(a and b ...)". */
static inline char *twin_rpm_alternative(const char *twin, const char *prefix)
{
	return sh("/usr/lib/rpm/elfdeps -R %s | grep '^%s' | LC_ALL=C sort | "
		  "awk '{ s = s (NR > 1 ? \" and \" : \"\") $0 } END { print (NR > 1 ? \"(\" s "
		  "\")\" : s) }'",
		  twin, prefix);
}

/* What dlapp's entry liblz4.so.1 | liblzma.so.5 gives in rpm: each alternative with the
 * version nodes elfdeps gives the twin. */
static inline char *twin_rpm_rich(const char *twin)
{
	char *lz4 = twin_rpm_alternative(twin, "liblz4"),
	     *xz = twin_rpm_alternative(twin, "liblzma"), *rich;
	size_t n = strlen(lz4) + strlen(xz) + 8;

	rich = malloc(n);
	cr_assert(rich);
	snprintf(rich, n, "(%s or %s)", lz4, xz);
	free(lz4);
	free(xz);
	return rich;
}

#endif
