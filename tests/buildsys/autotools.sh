# SPDX-License-Identifier: MIT
# tests/buildsys/autotools.sh - the Autotools part of tests/buildsys/run.sh, which sources it
# (its helpers, $T, $SRC, $PREFIX and check are run.sh's): tests/buildsys/autotools/, built as
# docs/build-systems.md ("Autotools") says, with the installed dlnote.m4 copied into m4/:
# autoreconf, a VPATH configure, parallel make, make check (the duplicate check), make
# install-strip DESTDIR=, static consumers through pkg-config --static and the .la file, a
# manifest edit, make distcheck, the in-code macro left on (gnulib's anchored shape), no tool
# (auto and required), and an aarch64 cross build (--host) run under qemu.
# ---------------------------------------------------------------------------------------------
AT_SAMPLE=$SRC/tests/buildsys/autotools
AT=$T/at
AT_CODEC='[{"feature":"xz","description":"Decompress .xz files","priority":"recommended","soname":["liblzma.so.5"]}]'
AT_PARSE='{"feature":"yaml","priority":"suggested","soname":["libyaml-0.so.2"]}'
AT_APP='{"feature":"zstd","description":"Support zstd compression","priority":"recommended","soname":["libzstd.so.1"]}'
# Configure finds the tool under test first on PATH (never one installed in /usr).
AT_PATH=$PREFIX/bin:$PATH

at_source() {    # the sample, dlnote.m4 copied from the installed prefix into m4/, autoreconf -fi
	mkdir -p "$AT/src/m4"
	cp -r "$AT_SAMPLE"/. "$AT/src"
	cp "$PREFIX/share/aclocal/dlnote.m4" "$AT/src/m4/"
	(cd "$AT/src" && autoreconf -fi)
}
at_build() {     # at_build DIR CONFIGURE_ARGS...: a VPATH build in $AT/DIR with make -j2
	local d=$AT/$1
	shift
	mkdir -p "$d"
	(cd "$d" && PATH=$AT_PATH "$AT/src/configure" "$@") >"$d/configure.log" 2>&1 ||
		{ cat "$d/configure.log"; return 1; }
	cat "$d/configure.log"
	PATH=$AT_PATH make -C "$d" -j2
}
says() { grep -F -- "$2" "$1" || { cat "$1"; echo "missing: $2"; return 1; }; }
at_runs() {      # at_runs PROGRAM EXPECTED [via...]: runs with the build tree's libcodec
	local out
	out=$(LD_LIBRARY_PATH=$(dirname "$1")/../.libs:$(dirname "$1") "${@:3}" "$1")
	echo "$out"
	[ "$out" = "$2" ]
}
no_header_in_tarball() {
	local list
	list=$(tar -tzf "$1")
	echo "$list"
	grep -q 'codec-dlopen.json$' <<<"$list" && grep -q 'm4/dlnote.m4$' <<<"$list" &&
		! grep -qE -- '/(codec|parse|app)-dlopen\.h$' <<<"$list"
}
# The in-code macro left on: make check fails with one line besides make's, the tool's.
at_macro_too() {
	local d=$AT/b log=$AT/macro-too.log
	(cd "$d" && PATH=$AT_PATH "$AT/src/configure" --prefix="$AT/inst" --enable-macro-too) >/dev/null
	PATH=$AT_PATH make -C "$d" -j2 >/dev/null
	# (-s: no recursive make lines, which are make's own)
	if PATH=$AT_PATH make -s -C "$d" check >"$log" 2>&1; then cat "$log"; echo "unexpected success"; return 1; fi
	one_line_per_target "$log" 1 \
		'dlnote-inject: ./.libs/libcodec.so.1: 1 error in dlopen notes: 1 entry of the manifest is also declared by the code (an in-code macro left on beside the helper?): "xz" ["liblzma.so.5"]' \
		"(and 1 more line(s): $PREFIX/bin/dlnote-inject --check -m $AT/src/codec-dlopen.json ./.libs/libcodec.so.1 ./.libs/libcodec.a )" || return 1
	(cd "$d" && PATH=$AT_PATH "$AT/src/configure" --prefix="$AT/inst") >/dev/null
	PATH=$AT_PATH make -C "$d" -j2 check
}
# Static consumers of the installed library, without Automake: pkg-config --static, and libtool
# through the .la file (-static-libtool-libs: the archive, not the shared library).
at_consumer() {  # at_consumer HOW
	local inst=$AT/inst out=$AT/consumer-$1
	if [ "$1" = pkg-config ]; then
		# shellcheck disable=SC2046
		gcc "$AT_SAMPLE/consumer.c" $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --cflags codec) \
			-Wl,-Bstatic $(PKG_CONFIG_PATH=$inst/lib/pkgconfig pkg-config --static --libs codec) \
			-Wl,-Bdynamic -o "$out"
	else
		gcc -I"$inst/include" -c "$AT_SAMPLE/consumer.c" -o "$AT/consumer.o"
		"$AT/b/libtool" --mode=link gcc -static-libtool-libs -o "$out" "$AT/consumer.o" "$inst/lib/libcodec.la"
	fi
	readelf -dW "$out" | grep -q 'libcodec' && { echo "$out links libcodec.so"; return 1; }
	entries_once "$out" "$AT_CODEC" && prints "consumer ok 5" "$out"
}

BROKEN=
L="autotools libtool gcc"
check "$L: autoreconf -fi with the installed dlnote.m4 in m4/" at_source
[ "$ok" = 1 ] || BROKEN="$L: autoreconf failed"
check "$L: VPATH configure + make -j2" at_build b --prefix="$AT/inst"
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: configure says it declares the notes" says "$AT/b/configure.log" "checking whether to declare dlopen notes... yes"
check "$L: shared libcodec.so.1 has codec's entry once" entries_once "$AT/b/.libs/libcodec.so.1" "$AT_CODEC"
check "$L: static libcodec.a has it in its member" entries "$AT/b/.libs/libcodec.a" "$AT_CODEC"
check "$L: static libparse.a (_LIBRARIES) has parse's entry" entries "$AT/b/libparse.a" "[$AT_PARSE]"
check "$L: app (libtool's .libs/app) has its entry and libparse's, once each, not libcodec's" \
	entries_once "$AT/b/.libs/app" "[$AT_APP,$AT_PARSE]"
check "$L: app runs" at_runs "$AT/b/.libs/app" "app ok 42"
check "$L: make check (the duplicate check) passes" make -C "$AT/b" check
check "$L: make install-strip DESTDIR= (libtool relinks app)" \
	make -C "$AT/b" install-strip DESTDIR="$AT/dest"
check "$L: installed, stripped libcodec.so.1.0.0 has codec's entry once" \
	entries_once "$AT/dest$AT/inst/lib/libcodec.so.1.0.0" "$AT_CODEC"
check "$L: installed libcodec.a has it" entries "$AT/dest$AT/inst/lib/libcodec.a" "$AT_CODEC"
check "$L: installed, stripped app has its entries once" entries_once "$AT/dest$AT/inst/bin/app" "[$AT_APP,$AT_PARSE]"
check "$L: make install (the consumers' prefix)" make -C "$AT/b" install
check "$L: a static consumer through pkg-config --static carries codec's entry once and runs" at_consumer pkg-config
check "$L: a static consumer through libcodec.la carries codec's entry once and runs" at_consumer la
edit_at_codec() {
	sed -i 's/Decompress .xz files/Decompress xz/' "$AT/src/codec-dlopen.json"
	PATH=$AT_PATH make -C "$AT/b" -j2 >"$AT/edit.log" 2>&1 || { cat "$AT/edit.log"; return 1; }
	cat "$AT/edit.log"
	entries_once "$AT/b/.libs/libcodec.so.1" "${AT_CODEC/.xz files/xz}"
}
check "$L: editing codec-dlopen.json remakes the header, recompiles and relinks libcodec" edit_at_codec
check "$L: make distcheck (manifests and m4/dlnote.m4 distributed, headers rebuilt)" \
	with_env PATH="$AT_PATH" make -C "$AT/b" -j2 distcheck
check "$L: the tarball holds the manifests and dlnote.m4, no generated header" \
	no_header_in_tarball "$AT/b/atsample-1.0.tar.gz"
check "$L: --enable-macro-too (gnulib's SD_ELF_NOTE_DLOPEN_ANCHORED beside the manifest): make check fails in one line" \
	at_macro_too

# Without the tool (ac_cv_path_DLNOTE_INJECT= hides any on PATH): a warning and a build
# without notes; DLNOTE_INIT's notes required (--enable-dlopen-notes) fail at configure time.
BROKEN=
L="autotools without dlnote-inject"
check "$L: configure warns, make -j2 and make check pass" \
	with_env ac_cv_path_DLNOTE_INJECT= at_build none --prefix="$AT/inst"
check "$L: configure says why" says "$AT/none/configure.log" \
	"WARNING: building without dlopen notes: dlnote-inject was not found"
check "$L: the program has no entries" entries "$AT/none/.libs/app" "[]"
# make check passes (there is nothing to check) and says so
nothing_to_check() {
	local out
	out=$(make -C "$AT/none" check 2>&1) || { echo "$out"; echo "make check failed"; return 1; }
	echo "$out"
	grep -qF "dlnote: built without dlopen notes, nothing to check" <<<"$out"
}
check "$L: make check passes and says there was nothing to check" nothing_to_check
no_tool_required() {
	mkdir -p "$AT/req"
	cd "$AT/req" && ac_cv_path_DLNOTE_INJECT='' "$AT/src/configure" --enable-dlopen-notes
}
check "$L: --enable-dlopen-notes fails at configure time, saying why and what to do" \
	fails_with "configure: error: dlopen notes are required, but dlnote-inject was not found (install it, or name it with DLNOTE_INJECT=PATH); or configure with --disable-dlopen-notes" \
	no_tool_required

# aarch64 cross build: the tool runs on the build machine, the header goes to the cross compiler.
BROKEN=
L="autotools aarch64 --host"
check "$L: configure + make -j2" at_build cross --host=aarch64-linux-gnu --prefix="$AT/inst-cross"
[ "$ok" = 1 ] || BROKEN="$L: build failed"
at_cross_lib() { is_aarch64 "$1" && entries_once "$1" "${AT_CODEC/.xz files/xz}"; }   # (edited above)
check "$L: libcodec.so.1 is aarch64 and has codec's entry once" at_cross_lib "$AT/cross/.libs/libcodec.so.1"
check "$L: app has its entries once" \
	entries_once "$AT/cross/.libs/app" "[$AT_APP,$AT_PARSE]"
check "$L: ... app runs under qemu" at_runs "$AT/cross/.libs/app" "app ok 42" "${QEMU[@]}"
check "$L: make check (the duplicate check on aarch64 files) passes" make -C "$AT/cross" check
BROKEN=
