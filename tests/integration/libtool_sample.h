/* SPDX-License-Identifier: MIT */
/* libtool_sample.h - a libtool package, shared by test_recipes.c and test_odd_files.c.
 *
 * Its Makefile runs libtool itself (libtool-bin's, the ltmain.sh that every autotools package's
 * configure copies): the same wrapper script, .la file and .libs/ an autotools build of jq
 * gives, in a second instead of the minute autoreconf and configure take. */
#ifndef LIBTOOL_SAMPLE_H
#define LIBTOOL_SAMPLE_H

/* The sample project, a libtool package: libapp.so.1 dlopen()s each name the program app is
 * given, and with CTOR=NAME its constructor dlopen()s NAME.  Libraries are installed 0755, as
 * packages install them (rpm's find-debuginfo strips only executable files).  Built with libtool (wrapper script, .la, .libs); `make check` builds the program
 * again with test flags, as zstd's tests do, then runs it; `make install` installs with
 * libtool. */
static const char libapp_c[] =
	"#include <dlfcn.h>\n#include <stdio.h>\n\n"
	"int app_load(const char *name)\n{\n"
	"\tvoid *h = dlopen(name, RTLD_NOW);\n"
	"\tprintf(\"%s: %s\\n\", name, h ? \"loaded\" : \"missing\");\n"
	"\treturn h ? 0 : 1;\n}\n"
	"#ifdef CTOR_LOAD\n"
	"__attribute__((constructor)) static void app_ctor(void)\n{\n\tdlopen(CTOR_LOAD, RTLD_NOW);\n}\n"
	"#endif\n";
static const char app_c[] =
	"int app_load(const char *name);\n\n"
	"int main(int argc, char **argv)\n{\n\tint r = 0;\n"
	"\tfor (int i = 1; i < argc; i++)\n\t\tr |= app_load(argv[i]);\n\treturn r;\n}\n";
static const char app_makefile[] =
	"PREFIX ?= /usr\nLIBDIR ?= $(PREFIX)/lib\nLIBTOOL = libtool --quiet --tag=CC\n"
	"LIBFLAGS = $(if $(CTOR),-DCTOR_LOAD='\"$(CTOR)\"')\n"
	"all: app\n"
	"libapp.la: libapp.c\n"
	"\t$(LIBTOOL) --mode=compile $(CC) $(CFLAGS) $(CPPFLAGS) $(LIBFLAGS) -c libapp.c\n"
	"\t$(LIBTOOL) --mode=link $(CC) $(CFLAGS) $(LDFLAGS) -shared -o libapp.la libapp.lo -rpath $(LIBDIR) "
	"-version-info 1:4:0 -ldl\n"
	"app: app.c libapp.la\n"
	"\t$(LIBTOOL) --mode=link $(CC) $(CFLAGS) $(CPPFLAGS) $(LDFLAGS) -o app app.c libapp.la\n"
	"check: libapp.la\n"
	"\t$(LIBTOOL) --mode=link $(CC) $(CFLAGS) $(CPPFLAGS) -DTESTING $(LDFLAGS) -o app app.c libapp.la\n"
	"\t./app libz.so.1 $(ALSO)\n"
	"install: app\n"
	"\tinstall -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(PREFIX)/bin\n"
	"\t$(LIBTOOL) --mode=install install -m 755 libapp.la $(DESTDIR)$(LIBDIR)/libapp.la\n"
	"\t$(LIBTOOL) --mode=install install -m 755 app $(DESTDIR)$(PREFIX)/bin/app\n"
	"\trm -f $(DESTDIR)$(LIBDIR)/libapp.la $(DESTDIR)$(LIBDIR)/libapp.so\n"
	".PHONY: all check install\n";

#endif
