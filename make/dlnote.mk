# SPDX-License-Identifier: MIT
# dlnote.mk - declare a program's or library's dlopen() dependencies (FDO .note.dlopen) in a
# handwritten GNU Makefile (docs/build-systems.md, "Plain make").  Installed as
# $(datadir)/dlnote/dlnote.mk; copy it into your project so that it builds where the tool is
# not installed.
#
#   include dlnote.mk
#   app-dlopen.h: app-dlopen.json          # the header: the manifest's entries as __asm__
#   app.o: CPPFLAGS += -include app-dlopen.h
#   app.o: app-dlopen.h                     # compile after the header, again when it changes
#   app: app.o
#   	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
#   	$(DLNOTE_CHECK) -m app-dlopen.json $@   # no entry of it in the code too (macro left on)
#
# A header is made by the pattern rule %-dlopen.h: %-dlopen.json from every prerequisite
# ending in .json (add more manifests as prerequisites: `app-dlopen.h: zstd-dlopen.json'),
# and remade when one changes.  Compiled with `-include' into every object of a program or
# library, the entries go wherever the objects go: the linked program, a shared library, a
# static archive's members (so every program that links it, by pkg-config or by name).
#
# Variables you may set, before or after the include, or on make's command line:
#   DLNOTE_INJECT  the tool [dlnote-inject from PATH]
#   DLNOTE         yes: notes, and fail without the tool; no: a build without notes;
#                  auto (default): notes when the tool is there, else a warning and none
# Without notes the headers hold only a comment, and DLNOTE_CHECK does nothing.

DLNOTE_INJECT ?= $(shell command -v dlnote-inject 2>/dev/null)
DLNOTE ?= auto

ifeq ($(DLNOTE),no)
dlnote_on :=
else ifneq ($(DLNOTE_INJECT),)
dlnote_on := yes
else ifeq ($(DLNOTE),yes)
$(error dlnote.mk: DLNOTE=yes, but dlnote-inject was not found: install it or set DLNOTE_INJECT=PATH)
else
dlnote_on :=
$(warning dlnote.mk: dlnote-inject was not found: building without dlopen notes (DLNOTE=yes makes this an error))
endif

ifeq ($(dlnote_on),yes)
# (touch: the tool leaves an unchanged header as it is, and make would remake it each time)
DLNOTE_HEADER = $(DLNOTE_INJECT) -q --header -o $@ $(filter %.json,$^) && touch $@
DLNOTE_CHECK = $(DLNOTE_INJECT) --check -q --skip-non-elf
else
DLNOTE_HEADER = echo '/* built without dlopen notes */' >$@
DLNOTE_CHECK = :
endif

%-dlopen.h: %-dlopen.json
	$(DLNOTE_HEADER)
