# dlnote.m4 - declare a project's dlopen() dependencies (FDO .note.dlopen) from Automake
# serial 2
dnl SPDX-License-Identifier: MIT
dnl This file is free software; its authors give unlimited permission to copy and/or
dnl distribute it, with or without modifications, as long as this notice is preserved.
dnl
dnl Installed by dlnote-inject's `make install` into $(datadir)/aclocal; copy it into your
dnl project's m4/ directory (`aclocal --install` does) so that the project builds where the
dnl tool is not installed.  docs/build-systems.md, "Autotools", shows a whole project.
dnl
dnl DLNOTE_INIT([DEFAULT])
dnl
dnl   DEFAULT is `auto' (the default: notes when dlnote-inject works, else a warning and a
dnl   build without them) or `required' (configure fails without a working dlnote-inject).
dnl   The builder overrides it with --enable-dlopen-notes[=yes|no|auto] and names the tool
dnl   with DLNOTE_INJECT=PATH.  dlnote-inject is a build-machine program: in a cross build
dnl   (--host) it is looked up by its own name, never as HOST-dlnote-inject; the header it
dnl   writes is compiled by the cross compiler.
dnl
dnl   Substitutes, for Makefile.am:
dnl     DLNOTE_HEADER   a command: `$(DLNOTE_HEADER) HEADER MANIFEST...' writes HEADER, the
dnl                     entries of the manifests as top-level __asm__ statements (compiled
dnl                     into every object with `-include HEADER'); without notes, a header
dnl                     that only says so, so the same Makefile.am builds either way
dnl     DLNOTE_DEPS     what every such header also depends on (config.status: reconfiguring
dnl                     with or without notes remakes the headers)
dnl     DLNOTE_CHECK    a command: `$(DLNOTE_CHECK) [-m MANIFEST]... FILE...' runs
dnl                     `dlnote-inject --check' on built programs and libraries (libtool's
dnl                     .la files and wrappers are followed to the ELF files in .libs/): one
dnl                     line per failing FILE.  Name the manifests the FILEs' headers came
dnl                     from: an entry of theirs that the code declares too (an in-code macro
dnl                     left on) fails; without them, a file's own entry repeated (at one
dnl                     priority or several, as systemd's programs do) is valid
dnl     DLNOTE_INJECT   the tool (empty without notes)
dnl     DLNOTE_ENABLED  yes or no
dnl   and the Automake conditional DLNOTE_ENABLED.
AC_DEFUN([DLNOTE_INIT],
[AC_REQUIRE([AC_PROG_CC])dnl
m4_if(m4_default([$1], [auto]), [auto], [],
      m4_default([$1], [auto]), [required], [],
      [m4_fatal([DLNOTE_INIT: the argument is auto or required, not `$1'])])dnl
AC_ARG_VAR([DLNOTE_INJECT], [the dlnote-inject program, which writes the dlopen notes])dnl
AC_ARG_ENABLE([dlopen-notes],
  [AS_HELP_STRING([--enable-dlopen-notes@<:@=yes|no|auto@:>@],
    [declare the dlopen() dependencies in .note.dlopen ELF notes with dlnote-inject
     @<:@default=]m4_if(m4_default([$1], [auto]), [required], [yes], [auto])[@:>@])],
  [AS_CASE([$enableval], [yes|no|auto], [],
    [AC_MSG_ERROR([--enable-dlopen-notes=$enableval: say yes, no or auto])])],
  [enable_dlopen_notes=m4_if(m4_default([$1], [auto]), [required], [yes], [auto])])
DLNOTE_ENABLED=no
dlnote_why='--disable-dlopen-notes'
AS_IF([test "x$enable_dlopen_notes" != xno],
  [AC_PATH_PROG([DLNOTE_INJECT], [dlnote-inject])
   dlnote_why='dlnote-inject was not found (install it, or name it with DLNOTE_INJECT=PATH)'
   AS_IF([test -n "$DLNOTE_INJECT"],
     [AC_CACHE_CHECK([whether $CC compiles the notes of a dlnote-inject header],
        [dlnote_cv_header],
        [dlnote_cv_header=no
         rm -f conftest-dlnote.h
         AS_IF(["$DLNOTE_INJECT" -q --header --feature conftest --soname libconftest.so.1 dnl
                 -o conftest-dlnote.h >&AS_MESSAGE_LOG_FD 2>&1],
           [dlnote_save_CPPFLAGS=$CPPFLAGS
            CPPFLAGS="$CPPFLAGS -include conftest-dlnote.h"
            AC_COMPILE_IFELSE([AC_LANG_SOURCE([[int conftest_dlnote (void) { return 0; }]])],
              [AS_IF(["$DLNOTE_INJECT" --list --format=sonames conftest.$ac_objext dnl
                       2>&AS_MESSAGE_LOG_FD | grep libconftest.so.1 >/dev/null],
                 [dlnote_cv_header=yes])])
            CPPFLAGS=$dlnote_save_CPPFLAGS])
         rm -f conftest-dlnote.h])
      AS_IF([test "x$dlnote_cv_header" = xyes],
        [DLNOTE_ENABLED=yes],
        [dlnote_why="$CC does not compile dlnote-inject's notes (not an ELF target, or not GCC or Clang: see config.log)"])])])
AC_MSG_CHECKING([whether to declare dlopen notes])
AC_MSG_RESULT([$DLNOTE_ENABLED])
AS_IF([test $DLNOTE_ENABLED = no],
  [AS_CASE([$enable_dlopen_notes],
    [yes], [AC_MSG_ERROR([dlopen notes are required, but $dlnote_why; or configure with --disable-dlopen-notes])],
    [auto], [AC_MSG_WARN([building without dlopen notes: $dlnote_why])])
   DLNOTE_INJECT=
   DLNOTE_HEADER='$(SHELL) -c '\''echo "/* configure: built without dlopen notes */" >"@S|@@S|@0"'\'''
   DLNOTE_CHECK='$(SHELL) -c '\''echo "dlnote: built without dlopen notes, nothing to check" >&2'\'''],
  [DLNOTE_HEADER='$(SHELL) -c '\''out=@S|@@S|@1; shift; "@S|@@S|@0" -q --header -o "$$out" "@S|@@S|@@" && touch "$$out"'\'' "$(DLNOTE_INJECT)"'
   dnl (touch: the tool keeps an unchanged header as it is, and make would remake it each time)
   dnl One line per failing FILE, the tool's first (a libtool library is two files, and a
   dnl program may be a wrapper script in front of .libs/PROGRAM, which is checked instead)
   DLNOTE_CHECK='$(SHELL) -c '\''ms=; while test "x@S|@@S|@1" = x-m; do ms="$$ms -m @S|@@S|@2"; shift 2; done; status=0; for f; do case $$f in /*) ;; *) f=./$$f;; esac; d=$$(dirname "$$f"); b=$$(basename "$$f"); case $$b in *.la) files=$$(. "$$f"; for x in $$dlname $$old_library; do echo "$$d/.libs/$$x"; done | tr "\n" " ");; *) files=$$f; if test -f "$$d/.libs/$$b"; then files=$$d/.libs/$$b; fi;; esac; if out=$$("@S|@@S|@0" --check -q --skip-non-elf $$ms $$files 2>&1 >/dev/null); then :; else status=1; n=$$(echo "$$out" | grep -c .); more=; if test "$$n" -gt 1; then more=" (and $$((n - 1)) more line(s): @S|@@S|@0 --check$$ms $$files)"; fi; echo "$$(echo "$$out" | sed -n 1p)$$more" >&2; fi; done; exit $$status'\'' "$(DLNOTE_INJECT)"'])
DLNOTE_DEPS='$(top_builddir)/config.status'
AC_SUBST([DLNOTE_ENABLED])dnl
AC_SUBST([DLNOTE_HEADER])dnl
AC_SUBST([DLNOTE_CHECK])dnl
AC_SUBST([DLNOTE_DEPS])dnl
m4_ifdef([AM_CONDITIONAL],
  [AM_CONDITIONAL([DLNOTE_ENABLED], [test $DLNOTE_ENABLED = yes])])dnl
])
