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
#   lua 5.4.4 (plain make; lua dlopen()s C modules): dlnote.mk included by src/Makefile, the
#   objects' -include and the check after each link, as the page shows.
#
# Every installed program and library carries exactly its entries once (dlnote-inject and the
# independent PT_NOTE walker; readelf counts the notes).
# ---------------------------------------------------------------------------------------------
R=$T/real
RS=$SRC/tests/buildsys/real
R_LZMA=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$RS/liblzma-dlopen.json")
R_XZ=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$RS/xz-dlopen.json")
R_NL=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$RS/libnl-cli-dlopen.json")
R_LUA=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$RS/lua-dlopen.json")
R_PATH=$PREFIX/bin:$PATH

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

BROKEN=
L="real xz-utils 5.4.1 (Autotools, libtool)"
check "$L: fetched (Debian 12's source), dlnote.m4 in m4/, DLNOTE_INIT and the Makefile.am lines, autoreconf -fi" xz_source
[ "$ok" = 1 ] || BROKEN="$L: source failed"
check "$L: VPATH configure (notes declared) + make -j2" xz_build
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: built liblzma.so.5 has its entry once" notes_once "$R/xz/b/src/liblzma/.libs/liblzma.so.5" "$R_LZMA"
check "$L: make check (xz's tests, the duplicate check)" with_env PATH="$R_PATH" make -C "$R/xz/b" -j2 check
check "$L: make install-strip DESTDIR=" make -C "$R/xz/b" install-strip DESTDIR="$R/xz/dest"
check "$L: installed liblzma.so.5.4.1, liblzma.a, xz, xzdec, lzmainfo carry exactly their entries, once" xz_installed
check "$L: a static program through pkg-config --static liblzma carries liblzma's entry once and runs" xz_consumer pkg-config
check "$L: a static program through liblzma.la carries liblzma's entry once and runs" xz_consumer la
check "$L: make distcheck" with_env PATH="$R_PATH" make -C "$R/xz/b" -j2 distcheck
check "$L: the tarball holds the manifests and dlnote.m4, no generated header" xz_tarball

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

BROKEN=
L="real libnl3 3.7.0 (Autotools, libtool; libnl-cli dlopen()s)"
check "$L: flex and bison, which its configure requires, are there" have_tools flex bison
check "$L: fetched (Debian 12's source), dlnote.m4 in m4/, DLNOTE_INIT and the Makefile.am lines, autoreconf -fi" nl_source
[ "$ok" = 1 ] || BROKEN="$L: source failed"
check "$L: VPATH configure (notes declared) + make -j2" nl_build
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: make check (the duplicate check)" with_env PATH="$R_PATH" make -C "$R/nl/b" -j2 check
check "$L: make install-strip DESTDIR=" make -C "$R/nl/b" install-strip DESTDIR="$R/nl/dest"
check "$L: installed libnl-cli-3.so and .a carry the entry once; libnl-3.so and nl-link-list none" nl_installed
check "$L: a static program through pkg-config --static libnl-cli-3.0 carries it once and runs" nl_consumer

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

BROKEN=
L="real lua 5.4 (plain make)"
check "$L: fetched (Debian 12's source), dlnote.mk included, -include and the check in src/Makefile" lua_source
[ "$ok" = 1 ] || BROKEN="$L: source failed"
check "$L: make -j2 linux (the check after each link)" lua_build
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: lua runs" lua_runs
check "$L: installed lua, luac and liblua.a carry the entry once" lua_installed
check "$L: a program linked with the installed liblua.a carries it once and runs" lua_consumer
BROKEN=
