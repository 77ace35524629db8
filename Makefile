# SPDX-License-Identifier: MIT
# dlnote-inject - build, install, test.
#   make                      build/dlnote-inject (gcc; CC=clang works too)
#   make check                unit + integration tests (Criterion)
#   make check SANITIZE=1     the same with ASan + UBSan
#   make install PREFIX=/usr/local DESTDIR=
#   make uninstall            the same PREFIX/DESTDIR: removes what install wrote
#   make dist                 dlnote-VERSION.tar.gz, reproducible (docs/release.md)
# The version's one home is the file VERSION (CMakeLists.txt and meson.build read it too).
VERSION   := $(strip $(file < VERSION))
PREFIX    ?= /usr/local
BINDIR    ?= $(PREFIX)/bin
MANDIR    ?= $(PREFIX)/share/man
LIBDIR    ?= $(PREFIX)/lib
DATADIR   ?= $(PREFIX)/share
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
# rpm reads file attributes from /usr/lib/rpm/fileattrs only, and debhelper finds its sequence
# modules (Debian/Debhelper/Sequence/dlnote.pm) in Perl's vendor directory: there with
# PREFIX=/usr, as a package build installs; under PREFIX otherwise, so that an install
# elsewhere stays in its prefix (name the system directories to use them from there).
ifeq ($(PREFIX),/usr)
RPMFILEATTRSDIR ?= /usr/lib/rpm/fileattrs
PERL_VENDORLIB  ?= $(or $(shell perl -MConfig -e 'print $$Config{vendorlib}' 2>/dev/null),/usr/share/perl5)
else
RPMFILEATTRSDIR ?= $(LIBDIR)/rpm/fileattrs
PERL_VENDORLIB  ?= $(DATADIR)/perl5
endif
CC        ?= cc
BUILD     ?= build

WARN      := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 -Wvla
CFLAGS    ?= -O2 -g
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DVERSION='"$(VERSION)"' $(WARN) $(CFLAGS)
ifeq ($(SANITIZE),1)
ALL_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS    += -fsanitize=address,undefined
BUILD      := build-san
endif

# One line: CMakeLists.txt and meson.build read the sources from it.
CORE_SRC  := src/base/util.c src/base/json.c src/base/io.c src/base/sha256.c src/note/manifest.c src/note/identity.c src/note/note.c src/report/header.c src/elf/elf.c src/elf/elf_codec.c src/elf/magic.c src/elf/debugfile.c src/elf/code_id.c src/elf/dynamic.c src/elf/multiarch.c src/elf/dynsym.c src/archive/archive.c src/archive/archive_index.c src/archive/archive_write.c src/note/scan.c src/layout/layout.c src/plan/plan.c src/edit/edit.c src/layout/layout_facts.c src/layout/layout_sections.c src/layout/layout_linked.c src/layout/layout_place.c src/layout/layout_remove.c src/layout/layout_front.c src/layout/layout_tail.c src/objedit/objplan.c src/objedit/objedit.c src/objedit/objedit_sym.c src/objedit/objedit_patch.c src/plan/output.c src/cli/files.c src/cli/members.c src/cli/actions.c src/report/travel.c src/deps/deps.c src/report/report.c src/report/expect.c src/deps/pkgdeps.c src/deps/discover.c src/deps/libfind.c src/deps/symbols.c src/deps/policy.c src/report/sbom.c src/lint/trace.c src/lint/trace_match.c src/lint/trace_symbols.c src/closure/root.c src/closure/ldconf.c src/closure/ldso.c src/closure/strmap.c src/closure/search.c src/closure/object.c src/closure/closure.c src/closure/closure_out.c src/cli/record.c src/cli/run_closure.c src/cli/usage.c
CORE_OBJ  := $(CORE_SRC:src/%.c=$(BUILD)/%.o)
BIN       := $(BUILD)/dlnote-inject

.PHONY: all clean install uninstall dist release layers check-packaging check-installed check check-all check-sanitized sanitized-sample check-distro unit integration regress demo fuzz bench
all: $(BIN)

$(BUILD)/%.o: src/%.c $(wildcard src/*/*.h) | $(BUILD)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD):
	mkdir -p $@

# Made anew: a member whose source went away must not stay.
$(BUILD)/libdlnote.a: $(CORE_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(BIN): $(BUILD)/cli/cli.o $(BUILD)/libdlnote.a
	$(CC) $(LDFLAGS) -o $@ $^

# --record's rtld-audit module runs inside other programs' loaders: libc only, position
# independent, and never built with a sanitizer (SANITIZE=1 builds only the tool with one).
# One module per value of $LIB, which glibc's loader expands in LD_AUDIT to its own library
# directory (lib/x86_64-linux-gnu on Debian, lib64 on Fedora): so every program, whatever its
# class and machine, loads the module built for it, under qemu-user too (docs/recording.md).
# This machine's, and one per cross compiler of AUDIT_CROSS that is installed (Debian's
# cross loaders expand $LIB to lib/TRIPLET, TRIPLET from `CC -print-multiarch`).  The tool
# looks for audit/ next to itself, then at $(LIBDIR)/dlnote relative to $(BINDIR).
AUDIT_CFLAGS = -std=c11 -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 $(WARN) $(CFLAGS) -fPIC -shared -Wl,-z,defs
# The packager's link flags (hardening: -z now, relro), never a sanitizer's.
AUDIT_LDFLAGS = $(filter-out -fsanitize=%,$(LDFLAGS))
# This machine's $LIB, as its loader expands it (asked with LD_DEBUG), else from the compiler.
AUDIT_LIB ?= $(or $(shell LD_LIBRARY_PATH='/nonexistent/$$LIB/@' LD_DEBUG=libs /bin/true 2>&1 | \
	sed -n 's|.*search path=/nonexistent/\([^@]*\)/@.*|\1|p' | head -n 1),$(patsubst %/,%,lib/$(shell $(CC) -print-multiarch 2>/dev/null)))
AUDIT_CROSS ?= i686-linux-gnu-gcc aarch64-linux-gnu-gcc arm-linux-gnueabihf-gcc arm-linux-gnueabi-gcc \
	powerpc64le-linux-gnu-gcc powerpc64-linux-gnu-gcc s390x-linux-gnu-gcc riscv64-linux-gnu-gcc \
	mips64el-linux-gnuabi64-gcc mips-linux-gnu-gcc
AUDIT_SRC := $(wildcard src/audit/*.c) $(wildcard src/audit/*.h)
AUDIT_NATIVE := $(BUILD)/audit/$(AUDIT_LIB)/dlnote-audit.so
AUDIT_MODULES := $(AUDIT_NATIVE)
$(AUDIT_NATIVE): $(AUDIT_SRC)
	mkdir -p $(@D)
	$(CC) $(AUDIT_CFLAGS) $(AUDIT_LDFLAGS) -o $@ $(filter %.c,$^)
define audit_cross
AUDIT_MODULES += $$(BUILD)/audit/lib/$(2)/dlnote-audit.so
$$(BUILD)/audit/lib/$(2)/dlnote-audit.so: $$(AUDIT_SRC)
	mkdir -p $$(@D)
	$(1) $$(AUDIT_CFLAGS) $$(AUDIT_LDFLAGS) -o $$@ $$(filter %.c,$$^)
endef
$(foreach cc,$(AUDIT_CROSS),$(if $(shell command -v $(cc)),$(eval $(call audit_cross,$(cc),$(shell $(cc) -print-multiarch)))))
# The module for i386 answers to lib32 too: the $LIB of Debian's libc6-i386 (the 32-bit libc
# of amd64 machines without multiarch, as gcc-multilib installs it).
ifneq ($(filter %/lib/i386-linux-gnu/dlnote-audit.so,$(AUDIT_MODULES)),)
ifneq ($(AUDIT_LIB),lib32)
AUDIT_LINKS := $(BUILD)/audit/lib32/dlnote-audit.so
$(AUDIT_LINKS): $(BUILD)/audit/lib/i386-linux-gnu/dlnote-audit.so
	mkdir -p $(@D)
	ln -sfn ../lib/i386-linux-gnu/dlnote-audit.so $@
endif
endif
$(BIN): | $(AUDIT_MODULES) $(AUDIT_LINKS)
RECORD_FROM_BINDIR = $(shell realpath -m --relative-to=$(BINDIR) $(LIBDIR)/dlnote)
$(BUILD)/cli/record.o: ALL_CFLAGS += -DRECORD_MODULE_FROM_BINDIR='"$(RECORD_FROM_BINDIR)"' -DRECORD_AUDIT_LIB='"$(AUDIT_LIB)"'

# ---- tests ----
FUZZ_TARGETS := manifest note elf archive dynamic dynsym code_id ldconf closure trace policy writers
UNIT_SRC  := $(wildcard tests/unit/*.c)
UNIT_BIN  := $(BUILD)/unit-tests

$(UNIT_BIN): $(UNIT_SRC) $(BUILD)/libdlnote.a tests/unit/*.h
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Isrc -o $@ $(UNIT_SRC) $(BUILD)/libdlnote.a $(LDFLAGS) -lcriterion

unit: $(UNIT_BIN)
	$(UNIT_BIN) --jobs 2

INTEG_SRC := $(wildcard tests/integration/*.c)
INTEG_BIN := $(BUILD)/integration-tests
JOBS      ?= 2

# tests/fuzz/tree.c: the roots of the closure fuzzer's corpus, which test_closure_corpus.c
# builds again to run the tool on them.
$(INTEG_BIN): $(INTEG_SRC) $(wildcard tests/integration/*.h) tests/fuzz/tree.c tests/fuzz/tree.h
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Itests/fuzz -o $@ $(INTEG_SRC) tests/fuzz/tree.c -lcriterion

# The CycloneDX validator of the SBOM tests (tests/sbom/package.json: the CycloneDX project's
# JSON schemas and strict validator, with ajv), installed once from the npm registry into the
# build directory, not per test.
SBOM_VALIDATOR := $(BUILD)/sbom-validator/.done
$(SBOM_VALIDATOR): tests/sbom/package.json
	mkdir -p $(@D)
	cp tests/sbom/package.json $(@D)/package.json
	cd $(@D) && npm install --no-audit --no-fund --no-package-lock --silent
	touch $@
.PHONY: sbom-validator
sbom-validator: $(SBOM_VALIDATOR)

# The integration tests build real inputs (compilers, linkers, cross toolchains), edit them
# with the tool and check them with independent readers, the loader and qemu-user.
integration: $(BIN) $(INTEG_BIN) $(SBOM_VALIDATOR)
	DLNOTE_SBOM_VALIDATOR=$(abspath $(BUILD))/sbom-validator DLNOTE=$(abspath $(BIN)) DLNOTE_SRC=$(CURDIR) DLNOTE_STRATEGY_REPORT=$(abspath $(BUILD))/strategies.txt $(if $(SANITIZE),DLNOTE_SANITIZED=1) \
		$(if $(DLNOTE_PLAIN),DLNOTE_PLAIN=$(DLNOTE_PLAIN)) $(if $(DLNOTE_SANITIZED_SHARE),DLNOTE_SANITIZED_SHARE=$(DLNOTE_SANITIZED_SHARE)) \
		$(INTEG_BIN) --jobs $(JOBS) $(CRITERION_ARGS)

# Every input the fuzzers ever crashed on, replayed without libFuzzer.
REGRESS_BIN := $(FUZZ_TARGETS:%=$(BUILD)/regress-%)

$(BUILD)/regress-%: tests/fuzz/fuzz_%.c tests/fuzz/standalone.c $(BUILD)/libdlnote.a
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -Isrc -o $@ $(filter %.c,$^) $(BUILD)/libdlnote.a $(LDFLAGS)

regress: $(REGRESS_BIN)
	for t in $(FUZZ_TARGETS); do $(BUILD)/regress-$$t tests/fuzz/regressions/$$t || exit 1; done

# The release: make install/uninstall, make dist, the version in every place (tests/release).
RELEASE_BIN := $(BUILD)/release-tests
HARNESS_SRC := tests/integration/harness.c tests/integration/readers.c
$(RELEASE_BIN): tests/release/test_release.c $(HARNESS_SRC) tests/integration/harness.h | $(BUILD)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Itests/integration -o $@ tests/release/test_release.c \
		$(HARNESS_SRC) -lcriterion

release: $(BIN) $(RELEASE_BIN)
	DLNOTE=$(abspath $(BIN)) DLNOTE_SRC=$(CURDIR) $(RELEASE_BIN) --jobs $(JOBS) $(CRITERION_ARGS)

check: layers unit regress integration buildsys release

# The layers of src/, lowest first: a folder calls and includes only itself and the folders
# before it, and no two files call each other in a circle (docs/testing.md, "The repository").  Read from the
# objects (nm) and the #include lines by tests/tools/check-layers.sh.
LAYERS := base elf note plan layout objedit edit archive deps lint report closure cli
layers: $(BIN)
	sh tests/tools/check-layers.sh $(BUILD) $(LAYERS)

# make check with version 0.0.0-installed of this tree installed under /usr and /usr/local,
# each dlnote-inject a tripwire: fails if a test runs an installed tool (docs/release.md).
check-installed:
	tests/release/check-installed.sh check

# The release tarball and the project's own packages, built as a distribution builds them:
# make check in the unpacked tarball (about ten minutes), dpkg-buildpackage of debian/ and
# rpmbuild -ta of the tarball (about a minute each; docs/release.md).  Not part of check-all.
PACKAGE_SRC := $(wildcard tests/release/test_package_*.c) tests/release/packaged_tool.c
PACKAGE_BIN := $(BUILD)/package-tests
$(PACKAGE_BIN): $(PACKAGE_SRC) tests/release/packaged_tool.h $(HARNESS_SRC) tests/integration/harness.h | $(BUILD)
	$(CC) -std=c11 -D_GNU_SOURCE -O1 -g -Wall -Wextra -Werror -Itests/integration -o $@ $(PACKAGE_SRC) \
		$(HARNESS_SRC) -lcriterion

check-packaging: $(BIN) $(PACKAGE_BIN)
	DLNOTE=$(abspath $(BIN)) DLNOTE_SRC=$(CURDIR) $(PACKAGE_BIN) --jobs 1 $(CRITERION_ARGS)

# Every ELF file of real Debian packages (tests/distro/packages.txt, several architectures),
# downloaded with apt-get into $(BUILD)/distro-cache: the matrix's steps and checks.  Not part
# of check (network, root for dpkg --add-architecture; about 15 minutes).  docs/distro.md.
check-distro: $(BIN)
	/usr/bin/python3 tests/distro/check_distro.py --tool $(abspath $(BIN)) --cache $(abspath $(BUILD))/distro-cache \
		--report $(abspath $(BUILD))/distro-report.txt

# What CI runs: the suite, with another build of the tool installed under /usr and /usr/local
# (check-installed: needs root or sudo; make check runs the same without it), and the unit,
# fuzz replay and integration tests again with ASan + UBSan, all at once (make -j2, each
# suite's output printed whole when it ends).  The sanitized integration tests are told where
# the first pass's binary is (DLNOTE_PLAIN): where a test checks a file the tool wrote with the
# independent readers, strip, the loader and qemu-user, the sanitized pass checks instead that
# the sanitized tool wrote the very same bytes (so the first pass's checks hold for them) and
# reads them back with the tool.  In check-all that pass runs each big matrix on one case in
# four (DLNOTE_SANITIZED_SHARE=4: the cases 0, 4, 8... of each, said on stderr) and the
# 100,000-entry scale test with 20,000; check-sanitized runs every case.  The build-system
# suite runs once: it tests the CMake and Meson helpers.
check-all:
	tests/release/check-installed.sh -j2 -k --output-sync=target sanitized-sample check

# The integration tests' own program is built without sanitizers either way: the plain one.
SANITIZED_SHARE ?= 4
sanitized-sample: $(BIN) $(INTEG_BIN)
	$(MAKE) unit regress integration SANITIZE=1 DLNOTE_PLAIN=$(abspath $(BIN)) DLNOTE_SANITIZED_SHARE=$(SANITIZED_SHARE) \
		INTEG_BIN=$(abspath $(INTEG_BIN))

check-sanitized:
	$(MAKE) sanitized-sample SANITIZED_SHARE=1

demo: $(BIN)
	DLNOTE=$(abspath $(BIN)) ./demo.sh

# Timings against cp and objcopy (not part of check: timings are noisy).
bench: $(BIN)
	/usr/bin/python3 tests/bench/bench.py $(abspath $(BIN)) $(or $(RUNS),7)

# ---- fuzzing (clang's libFuzzer with ASan + UBSan) ----
FUZZ_TIME ?= 60
FUZZ_DIR  := build-fuzz
FUZZ_FLAGS = -std=c11 -D_GNU_SOURCE -DVERSION='"$(VERSION)"' -O1 -g -Isrc -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
# The tool's code built once for every target (-fsanitize=fuzzer-no-link: instrumented, no main).
comma := ,
FUZZ_OBJ := $(CORE_SRC:src/%.c=$(FUZZ_DIR)/obj/%.o)

$(FUZZ_DIR)/obj/%.o: src/%.c $(wildcard src/*/*.h)
	@mkdir -p $(@D)
	clang $(subst fuzzer$(comma),fuzzer-no-link$(comma),$(FUZZ_FLAGS)) -c $< -o $@

$(FUZZ_DIR)/libdlnote.a: $(FUZZ_OBJ)
	rm -f $@
	$(AR) rcs $@ $^

$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_DIR)/libdlnote.a | $(FUZZ_DIR)
	clang $(FUZZ_FLAGS) -o $@ $(filter %.c,$^) $(FUZZ_DIR)/libdlnote.a

# The targets that take a tree build it with tests/fuzz/tree.c.
FUZZ_TREE_TARGETS := ldconf closure
$(FUZZ_TREE_TARGETS:%=$(FUZZ_DIR)/fuzz_%) $(FUZZ_TREE_TARGETS:%=$(BUILD)/regress-%): tests/fuzz/tree.c tests/fuzz/tree.h

$(FUZZ_DIR):
	mkdir -p $@

$(FUZZ_DIR)/seeds/.done: tests/fuzz/seeds.sh tests/fuzz/debian-libs.sh $(BIN) | $(FUZZ_DIR)
	tests/fuzz/seeds.sh $(abspath $(BIN)) $(abspath $(FUZZ_DIR))/seeds && touch $@

# Each target runs FUZZ_TIME seconds; findings go to build-fuzz/crash-*.  The targets that
# build a root per input (ldconf, closure) build it under TMPDIR: a tmpfs when there is one
# (six times the runs of a disk).
FUZZ_TMPDIR ?= $(if $(wildcard /dev/shm/.),/dev/shm,/tmp)
fuzz: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%) $(FUZZ_DIR)/seeds/.done
	for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/corpus/$$t; \
		TMPDIR=$(FUZZ_TMPDIR) $(FUZZ_DIR)/fuzz_$$t -max_total_time=$(FUZZ_TIME) -timeout=30 -print_final_stats=1 -artifact_prefix=$(FUZZ_DIR)/crash-$$t- \
			$(FUZZ_DIR)/corpus/$$t $(FUZZ_DIR)/seeds/$$t tests/fuzz/regressions/$$t || exit 1; \
	done

# Every file install writes, by the variable naming its directory; uninstall removes exactly
# these (and the directories that are dlnote's own), for the same PREFIX and DESTDIR.
INSTALLED = $(BINDIR)/dlnote-inject $(BINDIR)/dh_dlnote $(BINDIR)/dh_dlnotedeps \
	$(MANDIR)/man1/dlnote-inject.1 $(MANDIR)/man1/dh_dlnote.1 $(MANDIR)/man1/dh_dlnotedeps.1 \
	$(BASHCOMPDIR)/dlnote-inject $(RPMFILEATTRSDIR)/dlnote.attr \
	$(PERL_VENDORLIB)/Debian/Debhelper/Sequence/dlnote.pm \
	$(CMAKEDIR)/dlnoteConfig.cmake $(CMAKEDIR)/dlnoteConfigVersion.cmake $(CMAKEDIR)/dlnoteFunctions.cmake \
	$(CMAKEDIR)/dlnoteCheck.cmake \
	$(PKGCONFIGDIR)/dlnote.pc $(DATADIR)/dlnote/dlnote-template.c $(DATADIR)/dlnote/dlnote-note.py \
	$(ACLOCALDIR)/dlnote.m4 $(DATADIR)/dlnote/dlnote.mk
SET_VERSION = sed 's|@VERSION@|$(VERSION)|g'

install: $(BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 $(BIN) $(DESTDIR)$(BINDIR)/dlnote-inject
	for m in $(AUDIT_MODULES); do \
		d=$(DESTDIR)$(LIBDIR)/dlnote/$${m#$(BUILD)/audit/}; d=$${d%/*}; \
		install -d $$d && install -m 644 $$m $$d/dlnote-audit.so || exit 1; \
	done
	for l in $(AUDIT_LINKS); do \
		d=$(DESTDIR)$(LIBDIR)/dlnote/$${l#$(BUILD)/audit/}; \
		install -d $${d%/*} && cp -P $$l $$d || exit 1; \
	done
	$(SET_VERSION) docs/dlnote-inject.1 > $(DESTDIR)$(MANDIR)/man1/dlnote-inject.1
	install -d $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 completion/dlnote-inject.bash $(DESTDIR)$(BASHCOMPDIR)/dlnote-inject
	install -d $(DESTDIR)$(RPMFILEATTRSDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' packaging/rpm/dlnote.attr.in > $(DESTDIR)$(RPMFILEATTRSDIR)/dlnote.attr
	for h in dh_dlnote dh_dlnotedeps; do \
		$(SET_VERSION) packaging/debhelper/$$h > $(DESTDIR)$(BINDIR)/$$h && chmod 755 $(DESTDIR)$(BINDIR)/$$h && \
		pod2man --section=1 --center=Debhelper --release='dlnote-inject $(VERSION)' \
			--name=$$(echo $$h | tr a-z A-Z) \
			--date='$(shell sed -n 's/^.TH [^"]*"\([^"]*\)".*/\1/p' docs/dlnote-inject.1)' \
			packaging/debhelper/$$h > $(DESTDIR)$(MANDIR)/man1/$$h.1 || exit 1; \
	done
	install -d $(DESTDIR)$(PERL_VENDORLIB)/Debian/Debhelper/Sequence
	install -m 644 packaging/debhelper/Debian/Debhelper/Sequence/dlnote.pm $(DESTDIR)$(PERL_VENDORLIB)/Debian/Debhelper/Sequence/dlnote.pm
	chmod 644 $(DESTDIR)$(MANDIR)/man1/dlnote-inject.1 $(DESTDIR)$(MANDIR)/man1/dh_dlnote.1 \
		$(DESTDIR)$(MANDIR)/man1/dh_dlnotedeps.1 $(DESTDIR)$(RPMFILEATTRSDIR)/dlnote.attr

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED)) $(DESTDIR)$(LIBDIR)/dlnote/*/dlnote-audit.so \
		$(DESTDIR)$(LIBDIR)/dlnote/*/*/dlnote-audit.so
	for d in $(DESTDIR)$(LIBDIR)/dlnote/*/* $(DESTDIR)$(LIBDIR)/dlnote/* $(DESTDIR)$(LIBDIR)/dlnote \
		$(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(DATADIR)/dlnote; do \
		if [ -d "$$d" ]; then rmdir --ignore-fail-on-non-empty "$$d" || exit 1; fi; \
	done

# ---- release: dlnote-VERSION.tar.gz, the same bytes on every run (docs/release.md) ----
DIST      := dlnote-$(VERSION)
dist:
	packaging/make-dist.sh $(VERSION) $(or $(DIST_OUT),$(DIST).tar.gz)

clean:
	rm -rf build build-san build-clang build-fuzz

# ---- build-system helpers: CMake package, pkg-config file, Meson template (docs/build-systems.md) ----
CMAKEDIR     ?= $(LIBDIR)/cmake/dlnote
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
# Autoconf's macro (aclocal searches here) and the plain-make include file.
ACLOCALDIR   ?= $(DATADIR)/aclocal
# The CMake package finds the tool relative to itself; dlnote.pc uses ${prefix} where it can.
BUILDSYS_SED  = -e 's|@VERSION@|$(VERSION)|g' \
                -e "s|@BINDIR_FROM_CMAKEDIR@|$$(realpath -m --relative-to=$(CMAKEDIR) $(BINDIR))|g" \
                -e 's|@PREFIX@|$(PREFIX)|g' \
                -e 's|@BINDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(BINDIR))|g' \
                -e 's|@DATADIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(DATADIR))|g'
BUILDSYS_TEST = $(BUILD)/buildsys-tests

.PHONY: install-buildsys buildsys
install: install-buildsys

install-buildsys:
	install -d $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(PKGCONFIGDIR) $(DESTDIR)$(DATADIR)/dlnote
	sed $(BUILDSYS_SED) cmake/dlnoteConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/dlnoteConfig.cmake
	sed $(BUILDSYS_SED) cmake/dlnoteConfigVersion.cmake.in > $(DESTDIR)$(CMAKEDIR)/dlnoteConfigVersion.cmake
	sed $(BUILDSYS_SED) meson/dlnote.pc.in > $(DESTDIR)$(PKGCONFIGDIR)/dlnote.pc
	chmod 644 $(DESTDIR)$(CMAKEDIR)/dlnoteConfig*.cmake $(DESTDIR)$(PKGCONFIGDIR)/dlnote.pc
	install -m 644 cmake/dlnoteFunctions.cmake $(DESTDIR)$(CMAKEDIR)/dlnoteFunctions.cmake
	install -m 644 cmake/dlnoteCheck.cmake $(DESTDIR)$(CMAKEDIR)/dlnoteCheck.cmake
	install -m 644 meson/dlnote-template.c $(DESTDIR)$(DATADIR)/dlnote/dlnote-template.c
	sed 's|@DLNOTE_INJECT@|$(BINDIR)/dlnote-inject|' meson/dlnote-note.py > $(DESTDIR)$(DATADIR)/dlnote/dlnote-note.py
	chmod 755 $(DESTDIR)$(DATADIR)/dlnote/dlnote-note.py
	install -d $(DESTDIR)$(ACLOCALDIR)
	install -m 644 autotools/dlnote.m4 $(DESTDIR)$(ACLOCALDIR)/dlnote.m4
	install -m 644 make/dlnote.mk $(DESTDIR)$(DATADIR)/dlnote/dlnote.mk

$(BUILDSYS_TEST): tests/buildsys/test_buildsys.c | $(BUILD)
	$(CC) $(ALL_CFLAGS) -Wno-missing-prototypes -o $@ $< $(LDFLAGS) -lcriterion

# Builds sample CMake, Meson and Autotools projects (native, clang/lld/LTO, aarch64 cross).
buildsys: $(BIN) $(BUILDSYS_TEST)
	DLNOTE=$(abspath $(BIN)) DLNOTE_SRC=$(CURDIR) $(BUILDSYS_TEST)

# Real projects from Debian's sources (network): xz-utils and libnl3 with Autotools and libtool,
# elfutils with Autotools and its own library rules, lua with plain make, declared as
# docs/build-systems.md says (tests/buildsys/real.sh; REAL="xz nl eu lua" picks).  Not in check.
.PHONY: check-buildsys-real
check-buildsys-real: $(BIN)
	ONLY=real DLNOTE=$(abspath $(BIN)) DLNOTE_SRC=$(CURDIR) bash tests/buildsys/run.sh
