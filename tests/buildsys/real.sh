# SPDX-License-Identifier: MIT
# tests/buildsys/real.sh - `make check-buildsys-real` (ONLY=real of run.sh, never in make check):
# real projects from Debian 12's sources (tests/tools/get-source.sh -u: the upstream tarball,
# signatures and checksums checked), changed as docs/build-systems.md tells a new user:
#
#   xz-utils 5.4.1 (Autotools, libtool: liblzma shared and static, xz, xzdec, lzmainfo linked
#   against it): dlnote.m4 in m4/, DLNOTE_INIT([required]) in configure.ac, a manifest for
#   liblzma and one for xz, the Makefile.am lines of the page; autoreconf -fi, a VPATH
#   configure, make -j2, make check (xz's tests and the duplicate check), make install-strip
#   DESTDIR=, static consumers through pkg-config --static and liblzma.la, make distcheck.
#   (xz-utils loads nothing with dlopen(): its entries are the test's.)
#
#   libnl3 3.7.0 (Autotools, one non-recursive Makefile.am, libtool: libnl-3, -route, -genl,
#   -nf and libnl-cli-3, which dlopen()s its modules, shared and static, the nl-* programs
#   linked against them): the same steps but distcheck, the entry in libnl-cli-3 only.
#
#   elfutils 0.188 (Autotools, its own rules for libdw.so and libdw.a, no libtool; libdwfl
#   dlopen()s libdebuginfod.so.1): the -include in libdwfl/Makefile.am's AM_CPPFLAGS, as the
#   page says for projects with compile rules of their own; make check in libdw/ only (the
#   duplicate check: elfutils' own suite is long), make install-strip DESTDIR=, static programs
#   through pkg-config --static libdw (libdwfl's: the entry once; libdw's DWARF reader: none).
#
#   lua 5.4.4 (plain make; lua dlopen()s C modules): dlnote.mk included by src/Makefile, the
#   objects' -include and the check after each link, as the page shows.
#
# Every installed program and library carries exactly its entries once (dlnote-inject and the
# independent PT_NOTE walker; readelf counts the notes).  REAL="xz nl eu lua" (the default)
# names the projects to build.
# ---------------------------------------------------------------------------------------------
R=$T/real
RS=$SRC/tests/buildsys/real
# compact_json FILE: the manifest as one line, as entries_once compares it
compact_json() {
	/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$1"
}
for p in ${REAL:-xz nl eu lua}; do
	case $p in
	xz | nl | eu | lua) ;;
	*) echo "buildsys: REAL names $p: say xz, nl, eu or lua" >&2; exit 2 ;;
	esac
done
R_LZMA=$(compact_json "$RS/liblzma-dlopen.json")
R_XZ=$(compact_json "$RS/xz-dlopen.json")
R_NL=$(compact_json "$RS/libnl-cli-dlopen.json")
R_EU=$(compact_json "$RS/libdwfl-dlopen.json")
R_LUA=$(compact_json "$RS/lua-dlopen.json")
R_PATH=$PREFIX/bin:$PATH
# REAL="xz nl eu lua" (the default: all): the projects to build, by the prefix of their functions
real_wants() { case " ${REAL:-xz nl eu lua} " in *" $1 "*) return 0 ;; esac; return 1; }
# real_begin P SOURCE BUILD: the checks P_source and P_build, named "$L: SOURCE" and "$L: BUILD";
# when one fails, the project's other checks fail without running.
real_begin() {
	BROKEN=
	check "$L: $2" "$1_source"
	[ "$ok" = 1 ] || BROKEN="$L: source failed"
	check "$L: $3" "$1_build"
	[ "$ok" = 1 ] || BROKEN="$L: build failed"
}

notes_once() {   # notes_once FILE EXPECTED: both readers, and readelf sees as many notes
	local n want
	entries_once "$1" "$2" || return 1
	n=$(readelf -nW "$1" | grep -o 0x407c0c0a | wc -l)
	want=$(/usr/bin/python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])))' "$2")
	echo "readelf: $n dlopen notes, expected $want"
	[ "$n" -eq "$want" ]
}

# --- xz-utils, as docs/build-systems.md "Autotools" says -------------------------------------
xz_source() {
	local s=$R/xz/src
	mkdir -p "$R/xz"
	sh "$SRC/tests/tools/get-source.sh" -u xz-utils "$s"
	cp "$PREFIX/share/aclocal/dlnote.m4" "$s/m4/"
	cp "$RS/liblzma-dlopen.json" "$s/src/liblzma/"
	cp "$RS/xz-dlopen.json" "$s/src/xz/"
	sed -i 's/^LT_INIT(\[win32-dll\])$/&\nDLNOTE_INIT([required])/' "$s/configure.ac"
	grep -q '^DLNOTE_INIT' "$s/configure.ac"
	cat >>"$s/src/liblzma/Makefile.am" <<'EOF'

# dlopen notes (docs/build-systems.md, "Autotools")
liblzma_la_CPPFLAGS += -include liblzma-dlopen.h
BUILT_SOURCES = liblzma-dlopen.h
CLEANFILES += liblzma-dlopen.h
EXTRA_DIST += liblzma-dlopen.json
liblzma-dlopen.h: $(srcdir)/liblzma-dlopen.json $(DLNOTE_DEPS)
	$(AM_V_GEN)$(DLNOTE_HEADER) $@ $(srcdir)/liblzma-dlopen.json
check-local:
	@$(DLNOTE_CHECK) -m $(srcdir)/liblzma-dlopen.json liblzma.la
EOF
	cat >>"$s/src/xz/Makefile.am" <<'EOF'

# dlopen notes (docs/build-systems.md, "Autotools")
xz_CPPFLAGS += -include xz-dlopen.h
BUILT_SOURCES = xz-dlopen.h
CLEANFILES = xz-dlopen.h
EXTRA_DIST = xz-dlopen.json
xz-dlopen.h: $(srcdir)/xz-dlopen.json $(DLNOTE_DEPS)
	$(AM_V_GEN)$(DLNOTE_HEADER) $@ $(srcdir)/xz-dlopen.json
check-local:
	@$(DLNOTE_CHECK) -m $(srcdir)/xz-dlopen.json xz
EOF
	(cd "$s" && autoreconf -fi)
}
xz_build() {
	mkdir -p "$R/xz/b"
	(cd "$R/xz/b" && PATH=$R_PATH ../src/configure --prefix=/usr --disable-doc) >"$R/xz/configure.log" 2>&1 ||
		{ cat "$R/xz/configure.log"; return 1; }
	grep -F "checking whether to declare dlopen notes... yes" "$R/xz/configure.log"
	PATH=$R_PATH make -C "$R/xz/b" -j2
}
xz_installed() {
	local d=$R/xz/dest/usr f
	for f in "$d/lib/liblzma.so.5.4.1" "$d/lib/liblzma.a"; do
		if [ "${f%.a}" = "$f" ]; then notes_once "$f" "$R_LZMA" || return 1; else entries "$f" "$R_LZMA" || return 1; fi
	done
	# xz takes its own entry; xzdec and lzmainfo none of their own (liblzma's are in liblzma.so)
	notes_once "$d/bin/xz" "$R_XZ" && entries "$d/bin/xzdec" "[]" && entries "$d/bin/lzmainfo" "[]"
}
xz_consumer() {  # xz_consumer pkg-config|la: a program linked statically against the installed liblzma
	local d=$R/xz/dest/usr out=$R/xz/consumer-$1
	printf '#include <lzma.h>\n#include <stdio.h>\nint main(void) { printf("%%s\\n", lzma_version_string()); return 0; }\n' >"$R/xz/consumer.c"
	if [ "$1" = pkg-config ]; then
		# shellcheck disable=SC2046
		gcc -I"$d/include" "$R/xz/consumer.c" -Wl,-Bstatic \
			$(PKG_CONFIG_SYSROOT_DIR=$R/xz/dest PKG_CONFIG_LIBDIR=$d/lib/pkgconfig pkg-config --static --libs liblzma) \
			-Wl,-Bdynamic -o "$out"
	else
		# the installed .la names libdir=/usr/lib: a copy that names the staged one
		mkdir -p "$R/xz/la" && sed "s|^libdir=.*|libdir='$d/lib'|" "$d/lib/liblzma.la" >"$R/xz/la/liblzma.la"
		gcc -I"$d/include" -c "$R/xz/consumer.c" -o "$R/xz/consumer.o"
		"$R/xz/b/libtool" --mode=link gcc -static-libtool-libs -o "$out" "$R/xz/consumer.o" "$R/xz/la/liblzma.la"
	fi
	readelf -dW "$out" | grep -q liblzma && { echo "$out links liblzma.so"; return 1; }
	notes_once "$out" "$R_LZMA" && prints "5.4.1" "$out"
}
xz_tarball() {
	local list
	list=$(tar -tJf "$R/xz/b/xz-5.4.1.tar.xz" 2>/dev/null || tar -tzf "$R/xz/b/xz-5.4.1.tar.gz")
	grep -q 'src/liblzma/liblzma-dlopen.json$' <<<"$list" && grep -q 'm4/dlnote.m4$' <<<"$list" &&
		! grep -qE '(liblzma|xz)-dlopen\.h$' <<<"$list"
}

if real_wants xz; then
	L="real xz-utils 5.4.1 (Autotools, libtool)"
	real_begin xz "fetched (Debian 12's source), dlnote.m4 in m4/, DLNOTE_INIT and the Makefile.am lines, autoreconf -fi" \
		"VPATH configure (notes declared) + make -j2"
	check "$L: built liblzma.so.5 has its entry once" notes_once "$R/xz/b/src/liblzma/.libs/liblzma.so.5" "$R_LZMA"
	check "$L: make check (xz's tests, the duplicate check)" with_env PATH="$R_PATH" make -C "$R/xz/b" -j2 check
	check "$L: make install-strip DESTDIR=" make -C "$R/xz/b" install-strip DESTDIR="$R/xz/dest"
	check "$L: installed liblzma.so.5.4.1, liblzma.a, xz, xzdec, lzmainfo carry exactly their entries, once" xz_installed
	check "$L: a static program through pkg-config --static liblzma carries liblzma's entry once and runs" xz_consumer pkg-config
	check "$L: a static program through liblzma.la carries liblzma's entry once and runs" xz_consumer la
	check "$L: make distcheck" with_env PATH="$R_PATH" make -C "$R/xz/b" -j2 distcheck
	check "$L: the tarball holds the manifests and dlnote.m4, no generated header" xz_tarball
fi

# --- libnl3, the same way ---------------------------------------------------------------------
nl_source() {
	local s=$R/nl/src
	mkdir -p "$R/nl"
	sh "$SRC/tests/tools/get-source.sh" -u libnl3 "$s"
	cp "$PREFIX/share/aclocal/dlnote.m4" "$s/m4/"
	cp "$RS/libnl-cli-dlopen.json" "$s/"
	sed -i 's/^AM_PROG_LIBTOOL$/&\nDLNOTE_INIT([required])/' "$s/configure.ac"
	grep -q '^DLNOTE_INIT' "$s/configure.ac"
	cat >>"$s/Makefile.am" <<'EOF'

# dlopen notes (docs/build-systems.md, "Autotools")
src_lib_libnl_cli_3_la_CPPFLAGS += -include libnl-cli-dlopen.h
BUILT_SOURCES = libnl-cli-dlopen.h
CLEANFILES += libnl-cli-dlopen.h
EXTRA_DIST += libnl-cli-dlopen.json
libnl-cli-dlopen.h: $(srcdir)/libnl-cli-dlopen.json $(DLNOTE_DEPS)
	$(AM_V_GEN)$(DLNOTE_HEADER) $@ $(srcdir)/libnl-cli-dlopen.json
check-local:
	@$(DLNOTE_CHECK) -m $(srcdir)/libnl-cli-dlopen.json src/lib/libnl-cli-3.la lib/libnl-3.la src/nl-link-list
EOF
	(cd "$s" && autoreconf -fi)
}
nl_build() {
	mkdir -p "$R/nl/b"
	(cd "$R/nl/b" && PATH=$R_PATH ../src/configure --prefix=/usr) >"$R/nl/configure.log" 2>&1 ||
		{ cat "$R/nl/configure.log"; return 1; }
	grep -F "checking whether to declare dlopen notes... yes" "$R/nl/configure.log"
	PATH=$R_PATH make -C "$R/nl/b" -j2
}
nl_installed() {
	local d=$R/nl/dest/usr so
	so=$(ls "$d"/lib/libnl-cli-3.so.*.*.*)
	notes_once "$so" "$R_NL" && entries "$d/lib/libnl-cli-3.a" "$R_NL" &&
		entries "$(ls "$d"/lib/libnl-3.so.*.*.*)" "[]" && entries "$d/bin/nl-link-list" "[]"
}
nl_consumer() {  # a program linked statically against the installed libnl-cli-3 (pkg-config --static)
	local d=$R/nl/dest/usr out=$R/nl/consumer
	printf '#include <netlink/cli/utils.h>\n#include <stdio.h>\nint main(void) { struct nl_sock *s = nl_socket_alloc(); printf("%%d\\n", nl_cli_parse_u32("7") + (s != 0)); nl_socket_free(s); return 0; }\n' >"$R/nl/consumer.c"
	# shellcheck disable=SC2046
	gcc $(PKG_CONFIG_SYSROOT_DIR=$R/nl/dest PKG_CONFIG_LIBDIR=$d/lib/pkgconfig pkg-config --cflags libnl-cli-3.0) \
		"$R/nl/consumer.c" -Wl,-Bstatic \
		$(PKG_CONFIG_SYSROOT_DIR=$R/nl/dest PKG_CONFIG_LIBDIR=$d/lib/pkgconfig pkg-config --static --libs libnl-cli-3.0) \
		-Wl,-Bdynamic -o "$out"
	readelf -dW "$out" | grep -q 'libnl' && { echo "$out links a shared libnl"; return 1; }
	notes_once "$out" "$R_NL" && prints 8 "$out"
}

if real_wants nl; then
	BROKEN=
	L="real libnl3 3.7.0 (Autotools, libtool; libnl-cli dlopen()s)"
	check "$L: flex and bison, which its configure requires, are there" have_tools flex bison
	real_begin nl "fetched (Debian 12's source), dlnote.m4 in m4/, DLNOTE_INIT and the Makefile.am lines, autoreconf -fi" \
		"VPATH configure (notes declared) + make -j2"
	check "$L: make check (the duplicate check)" with_env PATH="$R_PATH" make -C "$R/nl/b" -j2 check
	check "$L: make install-strip DESTDIR=" make -C "$R/nl/b" install-strip DESTDIR="$R/nl/dest"
	check "$L: installed libnl-cli-3.so and .a carry the entry once; libnl-3.so and nl-link-list none" nl_installed
	check "$L: a static program through pkg-config --static libnl-cli-3.0 carries it once and runs" nl_consumer
fi

# --- elfutils, the same way: libdw dlopen()s libdebuginfod.so.1 by soname -------------------
# elfutils builds libdw.so and libdw.a with rules of its own (no libtool): libdwfl's objects are
# compiled twice, as .o for libdwfl.a (then libdw.a) and by its own %.os rule for libdwfl_pic.a
# (then libdw.so), and the .os rule sees AM_CPPFLAGS but no per-target _CPPFLAGS.  So the
# -include goes into libdwfl/Makefile.am's AM_CPPFLAGS (its directory builds that library only),
# as the page says for such projects; the check is libdw's, where the two libraries are linked.
eu_source() {
	local s=$R/eu/src
	mkdir -p "$R/eu"
	sh "$SRC/tests/tools/get-source.sh" -u elfutils "$s"
	grep -q 'dlopen(DEBUGINFOD_SONAME' "$s/libdwfl/debuginfod-client.c"
	grep -q '#define DEBUGINFOD_SONAME "libdebuginfod.so.1"' "$s/debuginfod/debuginfod.h"
	cp "$PREFIX/share/aclocal/dlnote.m4" "$s/m4/"
	cp "$RS/libdwfl-dlopen.json" "$s/libdwfl/"
	sed -i 's/^AC_PROG_RANLIB$/&\nDLNOTE_INIT([required])/' "$s/configure.ac"
	grep -q '^DLNOTE_INIT' "$s/configure.ac"
	cat >>"$s/libdwfl/Makefile.am" <<'EOF'

# dlopen notes (docs/build-systems.md, "Autotools")
AM_CPPFLAGS += -include libdwfl-dlopen.h
BUILT_SOURCES = libdwfl-dlopen.h
CLEANFILES += libdwfl-dlopen.h
EXTRA_DIST = libdwfl-dlopen.json
libdwfl-dlopen.h: $(srcdir)/libdwfl-dlopen.json $(DLNOTE_DEPS)
	$(AM_V_GEN)$(DLNOTE_HEADER) $@ $(srcdir)/libdwfl-dlopen.json
EOF
	cat >>"$s/libdw/Makefile.am" <<'EOF'

# dlopen notes (docs/build-systems.md, "Autotools")
check-local:
	@$(DLNOTE_CHECK) -m $(top_srcdir)/libdwfl/libdwfl-dlopen.json libdw.so libdw.a
EOF
	(cd "$s" && autoreconf -fi)
}
eu_build() {
	# libcurl is not installed: libdebuginfod itself is the dummy one (libdw's code that
	# dlopen()s it is the same), and no debuginfod server
	mkdir -p "$R/eu/b"
	(cd "$R/eu/b" && PATH=$R_PATH ../src/configure --prefix=/usr --enable-libdebuginfod=dummy --disable-debuginfod) \
		>"$R/eu/configure.log" 2>&1 || { cat "$R/eu/configure.log"; return 1; }
	grep -F "checking whether to declare dlopen notes... yes" "$R/eu/configure.log"
	PATH=$R_PATH make -C "$R/eu/b" -j2
}
eu_installed() {
	local d=$R/eu/dest/usr
	notes_once "$d/lib/libdw.so.1" "$R_EU" && entries "$d/lib/libdw.a" "$R_EU" &&
		entries "$d/lib/libelf.so.1" "[]" && entries "$d/bin/eu-stack" "[]" && entries "$d/bin/eu-addr2line" "[]"
}
eu_consumer() {  # eu_consumer dwfl|dwarf: a program linked statically against the installed libdw
	local d=$R/eu/dest/usr out=$R/eu/consumer-$1 pc
	if [ "$1" = dwfl ]; then   # libdwfl with its standard callbacks: the debuginfod client comes in
		printf '%s\n' '#include <elfutils/libdwfl.h>' '#include <stdio.h>' \
			'static const Dwfl_Callbacks cb = {.find_elf = dwfl_build_id_find_elf, .find_debuginfo = dwfl_standard_find_debuginfo};' \
			'int main(void) { Dwfl *d = dwfl_begin(&cb); printf("%s\n", dwfl_version(d)); dwfl_end(d); return 0; }' >"$out.c"
	else                       # libdw's DWARF reader only: no libdwfl object, so no entry
		printf '%s\n' '#include <elfutils/libdw.h>' '#include <stdio.h>' \
			'int main(void) { Dwarf *d = dwarf_begin(-1, DWARF_C_READ); printf("%d\n", d == NULL); return 0; }' >"$out.c"
	fi
	# the staged libdw.pc and libelf.pc, and the system's zlib.pc and liblzma.pc they require
	pc="$d/lib/pkgconfig:$(pkg-config --variable pc_path pkg-config)"
	# shellcheck disable=SC2046
	gcc $(PKG_CONFIG_SYSROOT_DIR=$R/eu/dest PKG_CONFIG_LIBDIR=$pc pkg-config --cflags libdw) \
		"$out.c" -Wl,-Bstatic \
		$(PKG_CONFIG_SYSROOT_DIR=$R/eu/dest PKG_CONFIG_LIBDIR=$pc pkg-config --static --libs libdw) \
		-Wl,-Bdynamic -o "$out"
	readelf -dW "$out" | grep -qE 'lib(dw|elf)\.so' && { echo "$out links a shared libdw or libelf"; return 1; }
	if [ "$1" = dwfl ]; then   # the code that dlopen()s libdebuginfod.so.1 is in, the entry beside it
		nm "$out" | grep -q ' __libdwfl_debuginfod_init$' || { echo "$out lacks libdwfl's debuginfod client"; return 1; }
		notes_once "$out" "$R_EU" && prints "0.188" "$out"
	else
		nm "$out" | grep -q 'debuginfod' && { echo "$out has libdwfl's debuginfod client"; return 1; }
		notes_once "$out" "[]" && prints 1 "$out"
	fi
}

# The in-code macro left on beside the manifest (gnulib's SD_ELF_NOTE_DLOPEN, another
# description): make check in libdw fails, one line for libdw.so and one for libdw.a; without it
# again, it passes.
eu_macro_too() {
	local s=$R/eu/src/libdwfl log=$R/eu/macro-too.log
	cp "$SRC/tests/buildsys/autotools/sd-dlopen.h" "$s/"
	cp "$s/debuginfod-client.c" "$R/eu/debuginfod-client.c.orig"
	printf '%s\n' '#include "sd-dlopen.h"' \
		'SD_ELF_NOTE_DLOPEN("debuginfod", "debuginfod client", SD_ELF_NOTE_DLOPEN_PRIORITY_SUGGESTED, "libdebuginfod.so.1");' \
		>>"$s/debuginfod-client.c"
	PATH=$R_PATH make -C "$R/eu/b" -j2 >/dev/null
	if PATH=$R_PATH make -s -C "$R/eu/b/libdw" check >"$log" 2>&1; then cat "$log"; echo "unexpected success"; return 1; fi
	one_line_per_target "$log" 2 \
		'./libdw.so: 1 error in dlopen notes: 1 entry of the manifest is also declared by the code' \
		'./libdw.a' || return 1
	cp "$R/eu/debuginfod-client.c.orig" "$s/debuginfod-client.c"
	rm "$s/sd-dlopen.h"
	PATH=$R_PATH make -C "$R/eu/b" -j2 >/dev/null
	PATH=$R_PATH make -C "$R/eu/b/libdw" check && notes_once "$R/eu/b/libdw/libdw.so" "$R_EU"
}

if real_wants eu; then
	L="real elfutils 0.188 (Autotools, own library rules; libdw dlopen()s libdebuginfod.so.1)"
	real_begin eu "fetched (Debian 12's source), dlnote.m4 in m4/, DLNOTE_INIT and the Makefile.am lines, autoreconf -fi" \
		"VPATH configure (notes declared) + make -j2"
	check "$L: built libdw.so has its entry once" notes_once "$R/eu/b/libdw/libdw.so" "$R_EU"
	check "$L: make check in libdw (the duplicate check; not elfutils' own test suite)" with_env PATH="$R_PATH" make -C "$R/eu/b/libdw" -j2 check
	check "$L: make install-strip DESTDIR=" make -C "$R/eu/b" install-strip DESTDIR="$R/eu/dest"
	check "$L: installed libdw.so.1 and libdw.a carry the entry once; libelf.so.1, eu-stack, eu-addr2line none" eu_installed
	check "$L: a static libdwfl program through pkg-config --static libdw carries it once and runs" eu_consumer dwfl
	check "$L: a static program of libdw's DWARF reader only carries no entry (nor the dlopen() code) and runs" eu_consumer dwarf
	check "$L: the in-code macro left on beside the manifest: make check in libdw fails in one line per library" eu_macro_too
fi

# --- lua, as docs/build-systems.md "Plain make" says ------------------------------------------
lua_source() {
	local s=$R/lua/src
	mkdir -p "$R/lua"
	sh "$SRC/tests/tools/get-source.sh" -u lua5.4 "$s"
	cp "$PREFIX/share/dlnote/dlnote.mk" "$RS/lua-dlopen.json" "$s/src/"
	# The include, the objects' flag and prerequisite, the check after each link.
	# (at the end: ALL_O is defined by then, and the first target stays the default)
	printf '\n# dlopen notes (docs/build-systems.md, "Plain make")\ninclude dlnote.mk\n%s\n%s\n' \
		'$(ALL_O): CPPFLAGS += -include lua-dlopen.h' '$(ALL_O): lua-dlopen.h' >>"$s/src/Makefile"
	sed -i '/^\t$(CC) -o $@ $(LDFLAGS) $(LUA_O) $(LUA_A) $(LIBS)$/a\\t$(DLNOTE_CHECK) -m lua-dlopen.json $@' "$s/src/Makefile"
	sed -i '/^\t$(CC) -o $@ $(LDFLAGS) $(LUAC_O) $(LUA_A) $(LIBS)$/a\\t$(DLNOTE_CHECK) -m lua-dlopen.json $@' "$s/src/Makefile"
	[ "$(grep -c 'DLNOTE_CHECK' "$s/src/Makefile")" -eq 2 ] && grep -q '^include dlnote.mk' "$s/src/Makefile"
}
lua_build() { PATH=$R_PATH make -C "$R/lua/src" -j2 linux DLNOTE=yes; }
lua_runs() { local out; out=$("$R/lua/src/src/lua" -e 'print(2 + 3)'); echo "$out"; [ "$out" = 5 ]; }
lua_installed() {
	local d=$R/lua/dest
	make -C "$R/lua/src" install INSTALL_TOP="$d" &&
		notes_once "$d/bin/lua" "$R_LUA" && notes_once "$d/bin/luac" "$R_LUA" && entries "$d/lib/liblua.a" "$R_LUA"
}
lua_consumer() {
	local d=$R/lua/dest
	printf '#include <lua.h>\n#include <lauxlib.h>\n#include <stdio.h>\nint main(void) { lua_State *L = luaL_newstate(); printf("%%d\\n", L != 0); lua_close(L); return 0; }\n' >"$R/lua/consumer.c"
	gcc -I"$d/include" "$R/lua/consumer.c" "$d/lib/liblua.a" -lm -o "$R/lua/consumer" &&
		notes_once "$R/lua/consumer" "$R_LUA" && prints 1 "$R/lua/consumer"
}

if real_wants lua; then
	L="real lua 5.4 (plain make)"
	real_begin lua "fetched (Debian 12's source), dlnote.mk included, -include and the check in src/Makefile" \
		"make -j2 linux (the check after each link)"
	check "$L: lua runs" lua_runs
	check "$L: installed lua, luac and liblua.a carry the entry once" lua_installed
	check "$L: a program linked with the installed liblua.a carries it once and runs" lua_consumer
fi
BROKEN=
