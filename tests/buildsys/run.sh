#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/buildsys/run.sh - the build-system helpers, proved on real builds.
#
# Builds tests/buildsys/sample (one project for both CMake and Meson) from scratch in a
# temporary directory, for every configuration the helpers promise: CMake with Ninja and with
# Makefiles, find_package / add_subdirectory / FetchContent, gcc+LTO, clang+lld+LTO, aarch64
# cross; Meson through the wrap, with clang+lld+LTO, cross, and with the installed tool.
# Every configuration also has a static library (CMake: and an object library) with entries,
# linked into programs and a shared library in every supported way; installed, it is linked
# by sample/consumer, a project without dlnote.
# It reads the results with `dlnote-inject --list --json` (and, where each entry must appear
# once, an independent PT_NOTE walker), runs them (qemu-aarch64 for the cross builds), compares
# ABI markers with twins linked without notes, and checks errors and rebuilds.
#
# One line per check: "PASS  name" or "FAIL  name (log: ...)" followed by the log's tail.
# Exit status 1 if any check failed.  Environment: DLNOTE (the tool that reads results, default
# <src>/build/dlnote-inject), DLNOTE_SRC (the source tree, default ../..), KEEP=1 keeps the
# temporary directory (it is always kept after a failure), ONLY=cmake, ONLY=meson or
# ONLY=autotools runs the common checks and that build system's only (make buildsys runs the
# three parts at once, each in its own temporary directory).
set -eu
ONLY=${ONLY:-}
case $ONLY in
'' | cmake | meson | autotools | real) ;;
*) echo "buildsys: ONLY=$ONLY: say cmake, meson, autotools or real" >&2; exit 2 ;;
esac

SRC=$(cd "${DLNOTE_SRC:-$(dirname "$0")/../..}" && pwd)
DLNOTE=$(realpath "${DLNOTE:-$SRC/build/dlnote-inject}")
SAMPLE=$SRC/tests/buildsys/sample
# The builds must not pick up the caller's compiler, flags or make variables.
unset CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS DESTDIR MAKEFLAGS MFLAGS MAKELEVEL PKG_CONFIG_PATH
export LC_ALL=C.UTF-8
T=$(mktemp -d "${TMPDIR:-/tmp}/dlnote-buildsys.XXXXXX")
mkdir "$T/logs"
QEMU=(qemu-aarch64 -L /usr/aarch64-linux-gnu)
passed=0
failed=0
ok=1          # did the last check pass
BROKEN=''     # set when a configuration's build failed: its other checks fail without running

# check NAME COMMAND...: run COMMAND with errexit on, its output in a log; report one line.
check() {
	local name=$1 log
	shift
	if [ -n "$BROKEN" ]; then
		failed=$((failed + 1))
		ok=0
		echo "FAIL  $name (not run: $BROKEN)"
		return
	fi
	log=$T/logs/$(printf '%03d' $((passed + failed + 1))).log
	set +e
	(set -e; "$@") >"$log" 2>&1
	local status=$?
	set -e
	if [ "$status" -eq 0 ]; then
		passed=$((passed + 1))
		ok=1
		echo "PASS  $name"
	else
		failed=$((failed + 1))
		ok=0
		echo "FAIL  $name (log: $log)"
		tail -n 15 "$log" | sed 's/^/      | /'
	fi
}

# ---------------------------------------------------------------------------------------------
# Helpers: every one fails (non-zero) with a message saying what differed.

json_equal() {   # json_equal ACTUAL EXPECTED (order of entries matters, order of keys not)
	/usr/bin/python3 -c 'import json,sys; a,b=(json.loads(x) for x in sys.argv[1:3]); sys.exit(a!=b)' "$1" "$2" ||
		{ printf 'got:      %s\nexpected: %s\n' "$1" "$2"; return 1; }
}

entries() {      # entries FILE EXPECTED_JSON: the dlopen entries dlnote-inject reads in FILE
	local got
	got=$("$DLNOTE" --list --json "$1")
	json_equal "$got" "$2" || { echo "in $1"; return 1; }
}

elf_id() {       # class, byte order, e_machine and e_flags of an ELF file
	/usr/bin/python3 - "$1" <<-'EOF'
	import struct, sys
	d = open(sys.argv[1], 'rb').read(64)
	assert d[:4] == b'\x7fELF', sys.argv[1] + ': not ELF'
	bo = '<' if d[5] == 1 else '>'
	machine, = struct.unpack(bo + 'H', d[18:20])
	flags, = struct.unpack(bo + 'I', d[48:52] if d[4] == 2 else d[36:40])
	print(f'class={d[4]} data={d[5]} machine={machine} flags={flags:#x}')
	EOF
}

same_id() {      # same_id NOTE_OBJECT LINKED_FILE
	local a b
	a=$(elf_id "$1")
	b=$(elf_id "$2")
	echo "$1: $a"
	echo "$2: $b"
	[ "$a" = "$b" ]
}

stack_flags() { readelf -lW "$1" | awk '$1 == "GNU_STACK" { print $7 }'; }
gnu_property() { readelf -nW "$1" | awk '/\.note\.gnu\.property/ { p = 1; next } /^$/ { p = 0 } p'; }

same_abi() {     # same_abi WITH_NOTE WITHOUT: PT_GNU_STACK flags and GNU property notes agree
	local s1 s2 p1 p2
	s1=$(stack_flags "$1")
	s2=$(stack_flags "$2")
	p1=$(gnu_property "$1")
	p2=$(gnu_property "$2")
	printf '%s: GNU_STACK %s\n%s\n%s: GNU_STACK %s\n%s\n' "$1" "$s1" "$p1" "$2" "$s2" "$p2"
	[ -n "$s1" ] && [ "$s1" = "$s2" ] && [ "$p1" = "$p2" ]
}

has_property() { gnu_property "$1" | grep -q "$2" || { echo "$1 lacks '$2'"; gnu_property "$1"; return 1; }; }

runs() {         # runs PROGRAM [via...]: prints what the sample app prints
	local out
	out=$("${@:2}" "$1")
	echo "$out"
	[ "$out" = "app ok 42" ]
}

only_rebuilt() { # only_rebuilt LOG LINE...: LOG shows exactly these build steps, in any order
	local log=$1 steps
	shift
	cat "$log"
	# ninja: "[1/2] Linking ..."; make: "[ 63%] Linking ...", not counting "Built target".
	steps=$(grep -E '^\[ *[0-9]+(/[0-9]+\]|%\])' "$log" | grep -cv 'Built target' || true)
	for line in "$@"; do grep -qF -- "$line" "$log" || { echo "missing step: $line"; return 1; }; done
	[ "$steps" -eq $# ] || { echo "$steps steps, expected $#"; return 1; }
}

fails_with() {   # fails_with TEXT COMMAND...: COMMAND fails and its output contains TEXT
	local out
	if out=$("${@:2}" 2>&1); then echo "$out"; echo "unexpected success"; return 1; fi
	echo "$out"
	grep -qF -- "$1" <<<"$out" || { echo "missing: $1"; return 1; }
}

# said_besides LOG: what a build printed in LOG besides the build tool's own lines: ninja's and
# make's progress, FAILED: and the command line ninja echoes, their last words, CMake's note on
# dependencies; Meson's "--- stderr ---" before a failed command's standard error; blank lines.
said_besides() {
	grep -vE '^(\[ *[0-9]+(/[0-9]+\]|%\]) |FAILED: |ninja: |g?make(\[[0-9]+\])?: |cd .* && |--- stderr ---$|Consolidate compiler generated dependencies|$)|--internal exe --capture ' "$1" || true
}
# one_line_per_target LOG N TEXT...: a failed build said N lines in LOG besides the build
# tool's (one per failing target: SDL3-static's check said 40), and each TEXT is in exactly one.
one_line_per_target() {
	local log=$1 n=$2 said lines text
	shift 2
	cat "$log"
	said=$(said_besides "$log")
	lines=$(grep -c . <<<"$said" || true)
	echo "--- $lines line(s) besides the build tool's, expected $n"
	[ "$lines" -eq "$n" ] || return 1
	for text in "$@"; do
		[ "$(grep -cF -- "$text" <<<"$said")" -eq 1 ] || { echo "not in exactly one line: $text"; return 1; }
	done
}

# entries_once FILE EXPECTED_JSON: the entries, read by dlnote-inject and by an independent
# PT_NOTE walker (tests/tools/readers.py), are exactly these, each once, in any order (a static
# library's entries come with its objects, in the order the link takes them).
entries_once() {
	local got
	got=$("$DLNOTE" --list --json "$1")
	same_set "$got" "$2" || { echo "dlnote-inject, in $1"; return 1; }
	got=$(/usr/bin/python3 "$SRC/tests/tools/readers.py" segments "$1")
	same_set "$got" "$2" || { echo "PT_NOTE walker, in $1"; return 1; }
}
same_set() {     # same_set ACTUAL EXPECTED: the same entries, as many times each, in any order
	/usr/bin/python3 -c 'import json,sys; k=lambda x: sorted(json.dumps(e, sort_keys=True) for e in json.loads(x)); sys.exit(k(sys.argv[1])!=k(sys.argv[2]))' "$1" "$2" ||
		{ printf 'got:      %s\nexpected: %s\n' "$1" "$2"; return 1; }
}

prints() {       # prints EXPECTED PROGRAM [via...]: the program runs and prints EXPECTED
	local out
	out=$("${@:3}" "$2")
	echo "$out"
	[ "$out" = "$1" ]
}

# plain_consumer DIR LIBDIR NAME HOW CC [LDFLAGS...]: sample/consumer/consumer.c linked against
# the installed static codec (in LIBDIR, with the sample's hand-written codec.pc) without CMake
# or Meson: HOW is pkg-config (`pkg-config --static --libs codec`) or archive (libcodec.a named
# on the command line).  The program is DIR/plain/NAME.
plain_consumer() {
	local d=$1 libdir=$2 name=$3 how=$4 cc=$5 libs
	shift 5
	mkdir -p "$d/plain"
	if [ "$how" = pkg-config ]; then
		libs=$(PKG_CONFIG_LIBDIR=$libdir/pkgconfig pkg-config --static --libs codec)
		grep -q -- "-lcodec" <<<"$libs" || { echo "pkg-config gave: $libs"; return 1; }
	else
		libs=$libdir/libcodec.a
	fi
	echo "$cc $* $SAMPLE/consumer/consumer.c $libs"
	# shellcheck disable=SC2086  # $cc may carry options, $libs is pkg-config's word list
	$cc "$@" "$SAMPLE/consumer/consumer.c" $libs -o "$d/plain/$name"
}
# plain_consumers DIR LIBDIR LABEL EXPECTED CONFIGS...: each CONFIG is "NAME|HOW|CC FLAGS..."; every
# program has the EXPECTED entries once (both readers) and runs (through $PLAIN_RUNNER, if set).
plain_consumers() {
	local d=$1 libdir=$2 label=$3 expected=$4 config name how cmd
	shift 4
	for config in "$@"; do
		IFS='|' read -r name how cmd <<<"$config"
		# shellcheck disable=SC2086
		check "$label: no CMake/Meson: $cmd links codec through $how" plain_consumer "$d" "$libdir" "$name" "$how" $cmd
		check "$label: ... $name has codec's entries once and runs" plain_result "$d/plain/$name" "$expected"
	done
}
# archive_says ARCHIVE TEXT: dlnote-inject --check on the archive passes and prints TEXT.
archive_says() {
	local out
	out=$("$DLNOTE" --check "$1")
	echo "$out"
	grep -qF -- "$2" <<<"$out"
}
# --check of linked files whose notes the linker laid out (the helper's object's note in the
# linker's one PT_NOTE): ok, and no warning (issue 43, item 2: that concerns OpenBSD files only).
checks_silently() {
	local out
	out=$("$DLNOTE" --check "$@" 2>&1)
	echo "$out"
	! grep -q warning <<<"$out" && [ "$(grep -c ': ok (' <<<"$out")" -eq $# ]
}
# codec's entry travels with codec's object, parse's with parse's (the object library's object,
# in codec's archive).
ARCHIVE_OK='"xz" ["liblzma.so.5"]: in 1 of 2 ELF members (codec.c.o); only a program that takes codec.c.o carries it'

# (mold 1.10 puts 4-aligned notes into the 8-aligned PT_NOTE of .note.gnu.property, where a
# walker padding to 8 misreads them, as it does the C macro's: mold's programs are read through
# their sections, and dlnote-inject --check warns about the segment.)
plain_result() {
	case $1 in
	*mold*) same_set "$("$DLNOTE" --list --json "$1")" "$2" && "$DLNOTE" --check "$1" | grep -q "in a PT_NOTE aligned to 8" ;;
	*) entries_once "$1" "$2" ;;
	esac && prints "consumer ok 7" "$1" "${PLAIN_RUNNER[@]}"
}
PLAIN_RUNNER=()
# Consumers of an installed archive made of ordinary objects: the four linkers, --gc-sections,
# LTO in the program, the archive on the command line.
PLAIN_ALL=("bfd|pkg-config|gcc" "bfd-gc|pkg-config|gcc -Wl,--gc-sections" "lto-gc|pkg-config|gcc -flto -O2 -Wl,--gc-sections"
	"gold-gc|pkg-config|gcc -fuse-ld=gold -Wl,--gc-sections" "lld-gc|pkg-config|clang -fuse-ld=lld -Wl,--gc-sections"
	"mold-gc|pkg-config|gcc -fuse-ld=mold -Wl,--gc-sections" "archive|archive|gcc -Wl,--gc-sections")
# Of an archive of GCC LTO objects: what the GCC plugin links (not lld, which cannot read them).
PLAIN_GCC_LTO=("bfd-gc|pkg-config|gcc -Wl,--gc-sections" "lto-gc|pkg-config|gcc -flto -O2 -Wl,--gc-sections"
	"gold-gc|pkg-config|gcc -fuse-ld=gold -Wl,--gc-sections" "mold-gc|pkg-config|gcc -fuse-ld=mold -Wl,--gc-sections"
	"archive|archive|gcc")

all_entries() { while [ $# -ge 2 ]; do entries "$1" "$2"; shift 2; done; }
all_same_id() { while [ $# -ge 2 ]; do same_id "$1" "$2"; shift 2; done; }
hardened() {     # hardened FILE [TWIN]: PLUG_PROPERTY if the arch has one, same ABI markers as TWIN
	[ $# -lt 2 ] || same_abi "$1" "$2"
	[ -z "$PLUG_PROPERTY" ] || has_property "$1" "$PLUG_PROPERTY"
}
is_aarch64() { elf_id "$1" | tee /dev/stderr | grep -q 'machine=183 '; }
gcc_lto_object() { readelf -SW "$1" | tee /dev/stderr | grep -q '\.gnu\.lto_'; }
bitcode_and_lld() { file "$1" | tee /dev/stderr | grep -q 'LLVM IR bitcode' && readelf -p .comment "$2" | tee /dev/stderr | grep -q LLD; }
with_env() { while [[ $1 == *=* ]]; do export "${1?}"; shift; done; "$@"; }   # in check's subshell
no_work() { "$@" | tee /dev/stderr | grep -q 'no work to do'; }
reconfigure_no_work() { cmake "$1" >/dev/null && no_work cmake --build "$1"; }
reconfigure_build() { cmake "$@" && cmake --build "$1"; }

edit_manifest() { sed -i 's/Graphical front end/GUI, edited/' "$1/app-dlopen.json"; }
break_manifest() { cp "$1/app-dlopen.json" "$1/app-dlopen.json.good"; printf '[{"soname": "libx.so"}]\n' >"$1/app-dlopen.json"; }
fix_manifest() { mv "$1/app-dlopen.json.good" "$1/app-dlopen.json"; }

# What relinks (docs/build-systems.md, "Rebuilds"): run BUILD... after editing, in $C.
edit_codec() { sed -i 's/Decompress .xz files/Decompress xz/' "$T/$C/src/codec-dlopen.json"; }
edit_util() { sed -i 's/liblz4.so.1/liblz4.so.9/' "$T/$C/src/$1"; }
rebuild_checks() {  # rebuild_checks UTIL_FILE BUILD... ; CODEC_STEPS, UTIL_LINK, APP_LINK, APP_RELINKED
	local util_file=$1
	shift
	edit_codec
	"$@" >"$T/$C/codec.log" 2>&1 || true
	check "$L: editing static codec's manifest rebuilds its note and archive, relinks what links it" \
		only_rebuilt "$T/$C/codec.log" "${CODEC_STEPS[@]}"
	check "$L: tool has the edited entry" entries_once "$T/$C/b/tool" "[${CODEC/.xz files/xz}${TOOL_MORE:-}]"
	edit_util "$util_file"
	"$@" >"$T/$C/util.log" 2>&1 || true
	check "$L: editing shared util's entry relinks util$UTIL_RELINKS" \
		relinked "$T/$C/util.log" "$UTIL_LINK" "$APP_LINK" "$APP_RELINKED"
	check "$L: util has the edited entry" entries "$T/$C/b/$UTIL_PATH" "${UTIL/liblz4.so.1/liblz4.so.9}"
}

relinked() {     # relinked LOG LIB_STEP APP_STEP yes|no: LOG links the library, and the app or not
	cat "$1"
	grep -qF -- "$2" "$1" || { echo "missing step: $2"; return 1; }
	# (anchored: "... app" is not "... app_plain")
	if grep -qE -- "$3\$" "$1"; then [ "$4" = yes ]; else [ "$4" = no ]; fi ||
		{ echo "'$3' should happen: $4"; return 1; }
}

manifest_checks() {  # manifest_checks NOTE_STEP LINK_STEP ERROR_PREFIX BUILD...: in configuration $C
	local note_step=$1 link_step=$2 error_prefix=$3
	shift 3
	edit_manifest "$T/$C/src"
	"$@" >"$T/$C/rebuild.log" 2>&1 || true
	check "$L: editing app's manifest regenerates app's note and relinks app only" \
		only_rebuilt "$T/$C/rebuild.log" "$note_step" "$link_step" "${APP_CHECK_STEP[@]}"
	APP=$APP_EDITED
	check "$L: app has the edited entry" entries "$T/$C/b/app" "$APP"
	break_manifest "$T/$C/src"
	check "$L: a bad manifest fails the build with the tool's message" \
		fails_with "dlnote-inject: $error_prefix$MANIFEST_ERROR" "$@"
	fix_manifest "$T/$C/src"
	check "$L: the fixed manifest builds again" "$@"
}

# ---------------------------------------------------------------------------------------------
# What the sample declares.
ZSTD='{"feature":"zstd","description":"Support \"zstd\"; fast — ünïcode, back\\slash, $PATH & spaces","priority":"recommended","soname":["libzstd.so.1"]}'
GUI='{"feature":"gui","description":"Graphical front end","priority":"suggested","soname":["libgtk-4.so.1","libgtk-3.so.0"]}'
GUI_EDITED=${GUI/Graphical front end/GUI, edited}
SUBDIR='{"feature":"subdir","priority":"suggested","soname":["libsub.so.2","libsub.so.1"]}'
APP_CMAKE="[$ZSTD,$GUI,$SUBDIR]"
APP_CMAKE_EDITED="[$ZSTD,$GUI_EDITED,$SUBDIR]"
APP_MESON="[$GUI,$ZSTD]"
APP_MESON_EDITED="[$GUI_EDITED,$ZSTD]"
UTIL='[{"feature":"lz4","priority":"suggested","soname":["liblz4.so.1"]}]'
PLUG='[{"feature":"tpm","soname":["libtss2-esys.so.0"],"priority":"required"}]'
CODEC='{"feature":"xz","description":"Decompress .xz files","priority":"recommended","soname":["liblzma.so.5"]}'
BCODEC='{"feature":"bzip2","priority":"suggested","soname":["libbz2.so.1.0"]}'
PARSE='{"feature":"yaml","priority":"suggested","soname":["libyaml-0.so.2"]}'
MANIFEST_ERROR='app-dlopen.json: line 1, column 13: entry 1: "soname" must be an array of strings'
case $(uname -m) in
x86_64) NATIVE_HARDENING=-fcf-protection=full NATIVE_PROPERTY='x86 feature: IBT, SHSTK' ;;
aarch64) NATIVE_HARDENING=-mbranch-protection=standard NATIVE_PROPERTY='AArch64 feature: BTI, PAC' ;;
*) NATIVE_HARDENING='' NATIVE_PROPERTY='' ;;
esac

echo "buildsys: source $SRC, tool $DLNOTE, work $T"

have_tools() { local p; for p in "$@"; do command -v "$p" || { echo "missing $p"; return 1; }; done; }
check "tools are there: cmake ninja meson gcc clang ld.lld ld.gold mold aarch64-linux-gnu-gcc qemu-aarch64 pkg-config ..." \
	have_tools cmake ninja meson gcc clang ld.lld ld.gold mold aarch64-linux-gnu-gcc qemu-aarch64 pkg-config python3 readelf objcopy make file \
	autoreconf automake libtoolize
check "tool under test runs: $DLNOTE --version" "$DLNOTE" --version

# ---------------------------------------------------------------------------------------------
# The source tree: CMakeLists.txt and meson.build read the sources from the Makefile and the
# version from the file VERSION (tests/release checks every place that shows it).
VERSION=$(cat "$SRC/VERSION")

# ---------------------------------------------------------------------------------------------
# make install: the tool, the CMake package, dlnote.pc, the Meson template.  From the build
# directory of the tool under test when it is this tree's (make buildsys: build/, up to date,
# so nothing is compiled again: each half used to build the tool and its eleven audit modules
# anew, two fifths of the suite's CPU time); else from a build of its own.  tests/release checks
# make install and uninstall from a fresh tree.
PREFIX=$T/prefix
MAKE_BUILD=$T/make-build
if [ "$(dirname "$DLNOTE")" = "$SRC/build" ] && [ -f "$SRC/build/libdlnote.a" ]; then
	MAKE_BUILD=$SRC/build
fi
check "make install PREFIX=... installs" make -C "$SRC" install PREFIX="$PREFIX" DESTDIR= BUILD="$MAKE_BUILD"
if [ ! -x "$PREFIX/bin/dlnote-inject" ]; then   # keep going with what the helpers need
	make -C "$SRC" install-buildsys PREFIX="$PREFIX" DESTDIR= BUILD="$MAKE_BUILD" >/dev/null 2>&1 || true
	install -D -m 755 "$DLNOTE" "$PREFIX/bin/dlnote-inject"
fi
installed_files() {
	local f
	for f in bin/dlnote-inject lib/cmake/dlnote/dlnoteConfig.cmake \
		lib/cmake/dlnote/dlnoteConfigVersion.cmake lib/cmake/dlnote/dlnoteFunctions.cmake \
		lib/cmake/dlnote/dlnoteCheck.cmake \
		lib/pkgconfig/dlnote.pc share/dlnote/dlnote-template.c share/dlnote/dlnote-note.py \
		share/aclocal/dlnote.m4 share/dlnote/dlnote.mk; do
		ls -l "$PREFIX/$f"
	done
}
check "installed: bin, lib/cmake/dlnote/{dlnoteConfig,dlnoteConfigVersion,dlnoteFunctions,dlnoteCheck}.cmake, dlnote.pc, template, note maker" installed_files
pc_names_tool() {
	local tool
	tool=$(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --variable=dlnote_inject dlnote)
	echo "$tool"
	[ "$tool" = "$PREFIX/bin/dlnote-inject" ] && "$tool" --version &&
		[ "$(PKG_CONFIG_PATH=$PREFIX/lib/pkgconfig pkg-config --modversion dlnote)" = "$VERSION" ]
}
check "dlnote.pc: variable dlnote_inject names the installed program; version $VERSION" pc_names_tool

# find_package(dlnote <REQ>) in a project without languages; prints the tool it found.
find_dlnote() {  # find_dlnote PREFIX REQUEST
	local dir=$T/find/$RANDOM
	mkdir -p "$dir"
	cat >"$dir/CMakeLists.txt" <<-'EOF'
	cmake_minimum_required(VERSION 3.25)
	project(find NONE)
	find_package(dlnote ${REQ} REQUIRED)
	get_target_property(loc dlnote::dlnote-inject IMPORTED_LOCATION)
	message(STATUS "found ${dlnote_VERSION} at ${loc}")
	if(NOT COMMAND target_dlopen_notes)
	  message(FATAL_ERROR "no target_dlopen_notes")
	endif()
	EOF
	cmake -S "$dir" -B "$dir/b" -DCMAKE_PREFIX_PATH="$1" "-DREQ=$2"
}
finds_tool() { find_dlnote "$1" "$2" | tee /dev/stderr | grep -qF "found $VERSION at $1/bin/dlnote-inject"; }
check "find_package(dlnote 0.1): imported dlnote::dlnote-inject + target_dlopen_notes" finds_tool "$PREFIX" 0.1
# (The sample versions assume 0.1.x.)
check "find_package(dlnote 0.1...<1.0) accepts $VERSION" find_dlnote "$PREFIX" "0.1...<1.0"
check "find_package(dlnote 0.2) rejects the $VERSION it finds" fails_with "dlnoteConfig.cmake, version: $VERSION" find_dlnote "$PREFIX" 0.2
check "find_package(dlnote 1) rejects the $VERSION it finds" fails_with "dlnoteConfig.cmake, version: $VERSION" find_dlnote "$PREFIX" 1
cp -a "$PREFIX" "$T/moved-prefix"
check "the installed package is relocatable (found through a moved prefix)" finds_tool "$T/moved-prefix" 0.1

# The parts: tests/buildsys/cmake.sh, meson.sh and autotools.sh (ONLY=NAME: that one only).
if [ -z "$ONLY" ] || [ "$ONLY" = cmake ]; then
	# shellcheck source=tests/buildsys/cmake.sh
	source "$SRC/tests/buildsys/cmake.sh"
fi
if [ -z "$ONLY" ] || [ "$ONLY" = meson ]; then
	# shellcheck source=tests/buildsys/meson.sh
	source "$SRC/tests/buildsys/meson.sh"
fi
if [ -z "$ONLY" ] || [ "$ONLY" = autotools ]; then
	# shellcheck source=tests/buildsys/autotools.sh
	source "$SRC/tests/buildsys/autotools.sh"
fi
if [ "$ONLY" = real ]; then   # make check-buildsys-real only: real projects, downloaded
	# shellcheck source=tests/buildsys/real.sh
	source "$SRC/tests/buildsys/real.sh"
fi

BROKEN=
# ---------------------------------------------------------------------------------------------
echo "buildsys: $passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
	echo "buildsys: work directory kept: $T"
	exit 1
fi
[ "${KEEP:-${DLNOTE_KEEP_TEST_DIRS:-0}}" = 1 ] && echo "buildsys: work directory kept: $T" || rm -rf "$T"
