# SPDX-License-Identifier: MIT
# tests/buildsys/meson.sh - the Meson half of tests/buildsys/run.sh, which sources it (its
# helpers, $T, $SRC, $PREFIX and check are run.sh's): every Meson configuration, the installed
# tool, and the ways to lose entries that must be refused.
# ---------------------------------------------------------------------------------------------
# Meson.
meson_sample() {  # meson_sample NAME MESON_SETUP_ARGS...: sample + subprojects/dlnote, setup, build
	local d=$T/$1
	shift
	mkdir -p "$d/src/subprojects/dlnote"
	cp -r "$SAMPLE"/. "$d/src"
	cp -r "$SRC/meson.build" "$SRC/meson_options.txt" "$SRC/Makefile" "$SRC/VERSION" "$SRC/meson" "$SRC/src" \
		"$d/src/subprojects/dlnote/"
	cp "$SRC/meson/dlnote.wrap" "$d/src/subprojects/dlnote.wrap"
	(cd "$d/src" && meson setup "$d/b" -Dpkgconfig.relocatable=true "$@") | tee "$d/setup.log"
	ninja -C "$d/b"
}

meson_results() {  # meson_results NAME LABEL [RUNNER...]
	local d=$T/$1 label=$2
	shift 2
	check "$label: app has its manifest's entry and the one from extra_args" entries "$d/b/app" "$APP"
	check "$label: shared library util has its entry from flags only (no JSON)" entries "$d/b/libutil.so" "$UTIL"
	check "$label: module plug has its manifest's entry" entries "$d/b/libplug.so" "$PLUG"
	check "$label: note objects have the targets' class, byte order, e_machine, e_flags" all_same_id \
		"$d/b/app.p/app-dlopen-dlopen-note.o" "$d/b/app" \
		"$d/b/util-dlopen-note.o" "$d/b/libutil.so" \
		"$d/b/libplug.so.p/plug-dlopen-dlopen-note.o" "$d/b/libplug.so"
	check "$label: app and app_plain (no notes) have the same PT_GNU_STACK and GNU property note" same_abi "$d/b/app" "$d/b/app_plain"
	check "$label: plug keeps '${PLUG_PROPERTY:-its GNU properties}', same as plug_plain" \
		hardened "$d/b/libplug.so" "$d/b/libplug_plain.so"
	check "$label: util keeps '${PLUG_PROPERTY:-its GNU properties}'" hardened "$d/b/libutil.so"
	check "$label: app runs" runs "$d/b/app" "$@"
	local t
	for t in tool tool_whole tool_objects tool_again libfront.so; do
		check "$label: $t (static codec through $(meson_how $t)) has codec's two manifests' entries once" \
			entries_once "$d/b/$t" "[$CODEC,$PARSE]"
	done
	check "$label: tool_both (the static half of both_libraries(), plain link_with:) has bcodec's entry once" \
		entries_once "$d/b/tool_both" "[$BCODEC]"
	check "$label: libbcodec.so (the shared half) has it once" entries_once "$d/b/libbcodec.so" "[$BCODEC]"
	for t in tool tool_whole tool_objects tool_again tool_both; do
		check "$label: $t runs" prints "tool ok 7 2 70" "$d/b/$t" "$@"
	done
	check "$label: --check on libcodec.a says: $ARCHIVE_SAYS" archive_says "$d/b/libcodec.a" "$ARCHIVE_SAYS"
	# (Archives of objects, not of LTO bytecode, made by GNU ar.)
	[ "$ARCHIVE_SAYS" = "$MESON_ARCHIVE_OK" ] || return 0
	check "$label: libintern.a (not installed) is thin, its member named as ar writes a 15-character name" \
		thin_15 "$d/b/libintern.a"
	check "$label: --check on it says: ok (1 dlopen entry in 1 ELF member" archive_says "$d/b/libintern.a" \
		"ok (1 dlopen entry in 1 ELF member"
	check "$label: libbundle.a (link_with: an uninstalled library built without the header): --check shows its member without the entry" \
		archive_says "$d/b/libbundle.a" 'in 1 of 2 ELF members (front.c.o); only a program that takes front.c.o carries it'
	check "$label: libbundle_ok.a (the inner library compiled with the header too): every member carries it" \
		archive_says "$d/b/libbundle_ok.a" 'in every ELF member (2)'
}
# thin_15 ARCHIVE: a thin archive with a name field "/N", spaces, "/" (then the date field, 0).
thin_15() { head -c 8 "$1" | grep -q '!<thin>' && LC_ALL=C grep -aqE '/[0-9]+ +/0 ' "$1"; }

# meson_loses NAME: with -Dlose=true (sample/lost/) the build fails; its output in NAME/lose.log
meson_loses() {
	local d=$T/$1
	meson configure "$d/b" -Dlose=true
	if ninja -C "$d/b" -k 0 >"$d/lose.log" 2>&1; then cat "$d/lose.log"; echo "unexpected success"; return 1; fi
	cat "$d/lose.log"
}

refused() {  # refused NAME TEXT: the -Dlose build said TEXT ("dlnote-note.py: NOTE_OBJECT: ..."), left no NOTE_OBJECT
	local d=$T/$1 object
	object=${2#dlnote-note.py: }
	object=${object%%: *}
	grep -qF -- "$2" "$d/lose.log" || { cat "$d/lose.log"; echo "missing: $2"; return 1; }
	if [ -e "$d/b/$object" ]; then echo "refused note object left behind: $object"; return 1; fi
}

said() {  # said NAME TEXT: the -Dlose build said TEXT
	grep -qF -- "$2" "$T/$1/lose.log" || { cat "$T/$1/lose.log"; echo "missing: $2"; return 1; }
}

MESON_ENV=()   # VAR=VALUE... for meson commands after setup
meson_loss_checks() {  # meson_loss_checks NAME LABEL: each way to lose entries is refused
	local name=$1 label=$2
	check "$label: -Dlose=true (sample/lost/, four ways to lose entries): the build fails" \
		with_env "${MESON_ENV[@]}" meson_loses "$name"
	check "$label: dlopen_note in a static_library() (subdir) is refused by the note maker" \
		refused "$name" "$LOST_PLAIN_STATIC"
	check "$label: dlopen_note in both_libraries(): the check of the static half fails the build" \
		said "$name" "$LOST_PLAIN_BOTH"
	check "$label: dlopen_note in a shared library whose objects make a static library (kmod): its check fails the build" \
		said "$name" "$LOST_PLAIN_KMOD"
	check "$label: dlnote 0.1's dlopen_note_static is refused, naming what replaces it" refused "$name" "$LOST_PULL"
	check "$label: -Dlose=false builds again" with_env "${MESON_ENV[@]}" meson_back "$T/$name/b"
	check "$label: tool still has codec's entries once" entries_once "$T/$name/b/tool" "[${TOOL_CODEC:-$CODEC},$PARSE]"
	check "$label: -Dmacro_too=true (xz, yaml also in the code, plain notes): each check fails the build in one line, naming the cause" \
		with_env "${MESON_ENV[@]}" macro_too "$T/$name/b"
	check "$label: then a second build does nothing" with_env "${MESON_ENV[@]}" no_work ninja -C "$T/$name/b"
}
meson_back() { meson configure "$1" -Dlose=false && ninja -C "$1"; }
# The entries also in the code, as plain notes (xz, yaml: SDL3's shape with its macros on): the
# checks fail the build with one line each, naming the cause and the fix: tool's, and codec's
# unless its objects are LTO bytecode (whose notes only the link shows).
macro_too() {
	local failed
	meson configure "$1" -Dmacro_too=true
	ninja -C "$1" build.ninja   # Meson's regeneration, out of the log
	if ninja -C "$1" -k 0 >"$1/macro-too.log" 2>&1; then
		cat "$1/macro-too.log"
		echo "unexpected success"
		return 1
	fi
	failed=$(grep -c '^FAILED: ' "$1/macro-too.log" || true)
	one_line_per_target "$1/macro-too.log" "$failed" \
		'dlnote-inject: tool: 2 errors in dlopen notes, the first: 2 entries of the manifest are also declared by the code' || return 1
	meson configure "$1" -Dmacro_too=false && ninja -C "$1"
}
LOST_PLAIN_STATIC="dlnote-note.py: lost/liblost_static.a.p/lost-dlopen-dlopen-note.o: the static library lost/liblost_static.a would hold this note object, which no link takes out of the archive: its entries would be lost; compile them into the library's objects with the notes header instead (docs/build-systems.md"
LOST_PLAIN_BOTH='dlnote-inject: lost/liblost_both.a: 1 dlopen entry that no link takes from this archive'
LOST_PLAIN_KMOD='dlnote-inject: lost/liblost_so_int.a: 1 dlopen entry that no link takes from this archive'
LOST_PULL='dlnote-note.py: lost/liblost_pull.a.p/lost-dlopen-dlopen-note.o: dlopen_note_static (a note object pulled by -Wl,-u) is gone'

meson_how() {
	case $1 in
	tool) echo "plain link_with:, and shared front" ;;
	tool_whole) echo "link_whole:" ;;
	tool_objects) echo "objects: extract_all_objects()" ;;
	tool_again) echo "static_library(objects: extract_all_objects()), as kmod" ;;
	libfront.so) echo "plain link_with:" ;;
	esac
}

meson_libdir() {
	meson introspect --buildoptions "$1/b" |
		/usr/bin/python3 -c 'import json,sys; print(*[o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"])'
}

meson_consumer() {  # meson_consumer DIR MESON_SETUP_ARGS...: sample/consumer against DIR/inst
	local d=$1 pc
	shift
	pc=$d/inst/usr/local/$(meson_libdir "$d")/pkgconfig
	cat "$pc/codec.pc"
	(cd "$d/src/consumer" && meson setup "$d/consumer" -Dpkg_config_path="$pc" "$@")
	ninja -C "$d/consumer"
}

meson_installed_entries() {  # meson_installed_entries DIR: the sample's default prefix and libdir
	local libdir
	libdir=$(meson_libdir "$1")
	all_entries "$1/inst/usr/local/bin/app" "$APP" "$1/inst/usr/local/$libdir/libutil.so" "$UTIL" \
		"$1/inst/usr/local/$libdir/libplug.so" "$PLUG"
}

meson_install() {  # meson_install NAME LABEL [RUNNER...]
	local d=$T/$1 label=$2
	shift 2
	check "$label: meson install" meson install -C "$d/b" --destdir "$d/inst"
	check "$label: installed app, util and plug have their entries" meson_installed_entries "$d"
	check "$label: installed app runs" runs "$d/inst/usr/local/bin/app" "$@"
	check "$label: installed tool has codec's entries once" \
		entries_once "$d/inst/usr/local/bin/tool" "[$CODEC,$PARSE]"
	check "$label: Meson's generated codec-generated.pc does not pass the header's -include on" \
		no_include "$d/inst/usr/local/$(meson_libdir "$d")/pkgconfig/codec-generated.pc"
	[ ${#PLAIN[@]} -eq 0 ] || plain_consumers "$d" "$d/inst/usr/local/$(meson_libdir "$d")" "$label" "[$CODEC,$PARSE]" "${PLAIN[@]}"
	[ ${#CONSUMER_ARGS[@]} -gt 0 ] || return 0   # (a consumer costs a setup: not everywhere)
	check "$label: a project without dlnote links the installed static codec (pkg-config)" \
		meson_consumer "$d" "${CONSUMER_ARGS[@]}"
	check "$label: its program has codec's entries once" entries_once "$d/consumer/consumer" "[$CODEC,$PARSE]"
	check "$label: its program runs" prints "consumer ok 7" "$d/consumer/consumer" "$@"
}
no_include() { cat "$1"; grep -q '^Libs:' "$1" && ! grep -q -- '-include' "$1"; }

# Every object of codec carries both manifests' entries.
MESON_ARCHIVE_OK="ok (2 dlopen entries in 2 ELF members; 2 of them reach every program that takes a member)"

# The wrap's [provide] is what finds the subproject.  --wrap-mode=forcefallback: also where a
# dlnote-inject is installed, which the tests must never run (tests/release/check-installed.sh).
PROVIDED="Fallback to subproject dlnote which provides program dlnote-inject"

# 1. gcc, LTO, --gc-sections, the project's ABI flag in c_args.
PLUG_PROPERTY=$NATIVE_PROPERTY
BROKEN=
C=me-gcc
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson gcc-lto wrap"
CONSUMER_ARGS=(-Db_lto=true)
PLAIN=("${PLAIN_GCC_LTO[@]}") PLAIN_RUNNER=() ARCHIVE_SAYS="warning: 2 GCC LTO members ("
check "$L: setup + build" meson_sample $C --wrap-mode=forcefallback -Db_lto=true ${NATIVE_HARDENING:+-Dc_args=$NATIVE_HARDENING}
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: find_program('dlnote-inject') is provided by the wrap" grep -qF "$PROVIDED" "$T/$C/setup.log"
check "$L: app's own objects are LTO objects" gcc_lto_object "$T/$C/b/app.p/app.c.o"
meson_results $C "$L"
check "$L: a second build does nothing" no_work ninja -C "$T/$C/b"
APP_CHECK_STEP=()
manifest_checks "Generating 'app.p/app-dlopen-dlopen-note.o'" "Linking target app" "../src/" ninja -C "$T/$C/b"
meson_install $C "$L"
CODEC_STEPS=("Generating codec-dlopen-notes with a custom command" "Compiling C object libcodec.a.p/lib_codec.c.o"
	"Compiling C object libcodec.a.p/lib_parse.c.o" "Linking static target libcodec.a" "Linking static target libcodec_again.a"
	"Generating codec-dlnote-check with a custom command" "Linking target libfront.so"
	"Generating symbol file libfront.so.p/libfront.so.symbols" "Linking target tool_whole" "Linking target tool_objects"
	"Linking target tool_again" "Linking target tool" "Generating tool-dlnote-check with a custom command")
UTIL_LINK="Linking target libutil.so" APP_LINK="Linking target app" APP_RELINKED=no
UTIL_RELINKS=" only: Meson relinks programs only when a library's exported symbols change" UTIL_PATH=libutil.so
TOOL_MORE=",$PARSE"
rebuild_checks meson.build ninja -C "$T/$C/b"
TOOL_CODEC=${CODEC/.xz files/xz}   # (edited by rebuild_checks)
meson_loss_checks $C "$L"
TOOL_CODEC=
meson_check_idiom() {  # meson test: the --check --expect test passes on tool, fails on app_plain
	local out
	out=$(meson test -C "$1" --verbose 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	grep -qF "tool: ok (2 dlopen entries)" <<<"$out" &&
		grep -qE "tool-expected.json: missing: [^ ]*app_plain lacks .*liblzma\.so\.5 \(feature xz\)" <<<"$out"
}
check "$L: meson test: the documented --check --expect test passes on tool, fails on app_plain" \
	meson_check_idiom "$T/$C/b"

# 2. clang -flto, lld; the ABI flag from add_project_arguments, so passed on as template_args.
BROKEN=
C=me-clang
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson clang-lto-lld"
ARCHIVE_SAYS="warning: 2 LLVM bitcode members ("
check "$L: setup + build" with_env CC=clang CC_LD=lld meson_sample $C --wrap-mode=forcefallback -Db_lto=true \
	${NATIVE_HARDENING:+-Dproject_args=$NATIVE_HARDENING -Ddlnote:template_args=$NATIVE_HARDENING}
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: app's own objects are LLVM bitcode, linked by lld" bitcode_and_lld "$T/$C/b/app.p/app.c.o" "$T/$C/b/app"
meson_results $C "$L"

# 3. aarch64 cross: the tool is built for the build machine.
PLUG_PROPERTY='AArch64 feature: BTI, PAC'
BROKEN=
C=me-cross
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson aarch64"
# The sample's cross file with a pkg-config for the consumer (Meson 1.0 reads the key pkgconfig).
sed "s/^pkg-config = 'false'/pkgconfig = 'pkg-config'/" "$SRC/tests/buildsys/aarch64-cross.ini" >"$T/cross-pc.ini"
CONSUMER_ARGS=(--cross-file "$T/cross-pc.ini")
PLAIN=("aarch64|pkg-config|aarch64-linux-gnu-gcc -Wl,--gc-sections" "aarch64-archive|archive|aarch64-linux-gnu-gcc")
PLAIN_RUNNER=("${QEMU[@]}") ARCHIVE_SAYS=$MESON_ARCHIVE_OK
check "$L: setup + build" meson_sample $C --wrap-mode=forcefallback --cross-file "$SRC/tests/buildsys/aarch64-cross.ini"
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: the tool was built for the build machine" same_id "$T/$C/b/subprojects/dlnote/dlnote-inject" "$DLNOTE"
check "$L: app is aarch64" is_aarch64 "$T/$C/b/app"
meson_results $C "$L" "${QEMU[@]}"
meson_install $C "$L" "${QEMU[@]}"
# (The refusals do not depend on the machine: sample/lost/ is checked natively, with the
# subproject and with the installed tool, which costs a reconfiguration each.)

# 4. The installed tool: find_program() and dlnote.pc, no subproject.
PLUG_PROPERTY=$NATIVE_PROPERTY
BROKEN=
C=me-system
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson installed tool"
CONSUMER_ARGS=()
PLAIN=() PLAIN_RUNNER=() ARCHIVE_SAYS=$MESON_ARCHIVE_OK
check "$L: setup + build" with_env PATH="$PREFIX/bin:$PATH" PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig" \
	meson_sample $C -Dtool=system ${NATIVE_HARDENING:+-Dc_args=$NATIVE_HARDENING}
[ "$ok" = 1 ] || BROKEN="$L: build failed"
installed_maker() {
	grep -F "$PREFIX/share/dlnote/dlnote-note.py app.p/app-dlopen-dlopen-note.o --depfile app.p/app-dlopen-dlopen-note.d -m ../src/app-dlopen.json" "$T/$C/b/build.ninja" &&
		grep -F "TOOL = \"$PREFIX/bin/dlnote-inject\"" "$PREFIX/share/dlnote/dlnote-note.py"
}
check "$L: notes were made by the installed note maker, which runs the installed tool" installed_maker
meson_results $C "$L"
meson_install $C "$L"
MESON_ENV=(PATH="$PREFIX/bin:$PATH" PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig")   # as at setup
meson_loss_checks $C "$L"
MESON_ENV=()

# 5. Debian 13's Meson 1.7.0, unpacked from its package (not installed) and run with PYTHONPATH:
# the same sample, idiom and refusals as with Debian 12's 1.0.1.
PLUG_PROPERTY=$NATIVE_PROPERTY
BROKEN=
C=me-17
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson 1.7 (Debian 13's package)"
CONSUMER_ARGS=(-Dbuildtype=plain)
# (The four linkers on an archive of ordinary objects: CMake's Makefiles configuration.)
PLAIN=("bfd-gc|pkg-config|gcc -Wl,--gc-sections" "archive|archive|gcc") PLAIN_RUNNER=() ARCHIVE_SAYS=$MESON_ARCHIVE_OK
M17=$T/meson-1.7
check "$L: download, verify (gpgv, SHA256) and unpack meson from trixie" sh "$SRC/tests/tools/get-meson.sh" "$M17"
[ "$ok" = 1 ] || BROKEN="$L: no Meson 1.7"
# Ninja's regeneration and Meson's wrapped commands run this meson again: they need PYTHONPATH.
export PYTHONPATH=$M17/usr/lib/python3/dist-packages
meson() { /usr/bin/python3 "$M17/usr/bin/meson" "$@"; }
meson_is() { local v; v=$(meson --version); echo "$v"; [ "${v%.*}" = "$1" ]; }
check "$L: meson --version is 1.7.x" meson_is 1.7
check "$L: setup + build" meson_sample $C --wrap-mode=forcefallback ${NATIVE_HARDENING:+-Dc_args=$NATIVE_HARDENING}
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: built by Meson 1.7" grep -qF '"meson_version": {"full": "1.7.' "$T/$C/b/meson-info/meson-info.json"
meson_results $C "$L"
check "$L: a second build does nothing" no_work ninja -C "$T/$C/b"
meson_install $C "$L"
meson_loss_checks $C "$L"
unset -f meson
unset PYTHONPATH

# ---------------------------------------------------------------------------------------------
# Meson's precompiled headers (c_pch, b_pch on): Meson puts the PCH's -include before c_args,
# so the notes header that docs/build-systems.md adds to c_args comes after it, and GCC uses
# the PCH (gcc -H marks it "!"); the objects carry the entries.
C=meson-pch
L="Meson, c_pch"
meson_pch_build() {
	local d=$T/$C
	mkdir -p "$d/src/pch"
	"$DLNOTE" --header --feature zstd --soname libzstd.so.1 -o "$d/src/notes.h"
	printf '#include <stdio.h>\n' >"$d/src/pch/p_pch.h"
	echo 'int a(void) { return 1; }' >"$d/src/a.c"
	printf "project('p', 'c')\nstatic_library('s', 'a.c', c_pch: 'pch/p_pch.h',\n  c_args: ['-include', meson.current_source_dir() / 'notes.h'])\n" >"$d/src/meson.build"
	(cd "$d/src" && meson setup "$d/b") && ninja -C "$d/b"
}
meson_pch_used() {
	local d=$T/$C line
	line=$(ninja -C "$d/b" -t commands libs.a.p/a.c.o | tail -n 1)
	(cd "$d/b" && eval "${line/ -c / -H -c }") 2>&1 | head -n 1 | tee /dev/stderr | grep -q '^! .*\.gch$'
}
check "$L: build a static library with c_pch and the notes header in c_args" meson_pch_build
check "$L: a.c.o is compiled with the PCH" meson_pch_used
check "$L: a.c.o has the entry" entries "$T/$C/b/libs.a.p/a.c.o" '[{"feature":"zstd","soname":["libzstd.so.1"]}]'
