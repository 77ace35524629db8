#!/bin/bash
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
# temporary directory (it is always kept after a failure), ONLY=cmake or ONLY=meson runs the
# common checks and that build system's only (make buildsys runs the two halves at once, each
# in its own temporary directory).
set -eu
ONLY=${ONLY:-}

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
	python3 -c 'import json,sys; a,b=(json.loads(x) for x in sys.argv[1:3]); sys.exit(a!=b)' "$1" "$2" ||
		{ printf 'got:      %s\nexpected: %s\n' "$1" "$2"; return 1; }
}

entries() {      # entries FILE EXPECTED_JSON: the dlopen entries dlnote-inject reads in FILE
	local got
	got=$("$DLNOTE" --list --json "$1")
	json_equal "$got" "$2" || { echo "in $1"; return 1; }
}

elf_id() {       # class, byte order, e_machine and e_flags of an ELF file
	python3 - "$1" <<-'EOF'
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

# entries_once FILE EXPECTED_JSON: the entries, read by dlnote-inject and by an independent
# PT_NOTE walker (tests/tools/readers.py), are exactly these: each once, in this order.
entries_once() {
	local got
	entries "$1" "$2"
	got=$(python3 "$SRC/tests/tools/readers.py" segments "$1")
	json_equal "$got" "$2" || { echo "PT_NOTE walker, in $1"; return 1; }
}

prints() {       # prints EXPECTED PROGRAM [via...]: the program runs and prints EXPECTED
	local out
	out=$("${@:3}" "$2")
	echo "$out"
	[ "$out" = "$1" ]
}

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
		only_rebuilt "$T/$C/rebuild.log" "$note_step" "$link_step"
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
check "tools are there: cmake ninja meson gcc clang ld.lld aarch64-linux-gnu-gcc qemu-aarch64 pkg-config ..." \
	have_tools cmake ninja meson gcc clang ld.lld aarch64-linux-gnu-gcc qemu-aarch64 pkg-config python3 readelf objcopy make file
check "tool under test runs: $DLNOTE --version" "$DLNOTE" --version

# ---------------------------------------------------------------------------------------------
# The source tree: CMakeLists.txt and meson.build read the sources from the Makefile; Meson
# cannot read the version before project(), so meson.build repeats it.
VERSION=$(sed -n 's/^VERSION *:= *//p' "$SRC/Makefile")
check "meson.build has the Makefile's version ($VERSION)" grep -q "version: '$VERSION'" "$SRC/meson.build"

# ---------------------------------------------------------------------------------------------
# make install: the tool, the CMake package, dlnote.pc, the Meson template.
PREFIX=$T/prefix
check "make install PREFIX=... installs" make -C "$SRC" install PREFIX="$PREFIX" DESTDIR= BUILD="$T/make-build"
if [ ! -x "$PREFIX/bin/dlnote-inject" ]; then   # keep going with what the helpers need
	make -C "$SRC" install-buildsys PREFIX="$PREFIX" DESTDIR= BUILD="$T/make-build" >/dev/null 2>&1 || true
	install -D -m 755 "$DLNOTE" "$PREFIX/bin/dlnote-inject"
fi
installed_files() {
	local f
	for f in bin/dlnote-inject lib/cmake/dlnote/dlnoteConfig.cmake \
		lib/cmake/dlnote/dlnoteConfigVersion.cmake lib/cmake/dlnote/dlnoteFunctions.cmake \
		lib/pkgconfig/dlnote.pc share/dlnote/dlnote-template.c share/dlnote/dlnote-note.py; do
		ls -l "$PREFIX/$f"
	done
}
check "installed: bin, lib/cmake/dlnote/{dlnoteConfig,dlnoteConfigVersion,dlnoteFunctions}.cmake, dlnote.pc, template, note maker" installed_files
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

if [ "$ONLY" != meson ]; then   # (ONLY=meson: the Meson checks only, while working on them)
# ---------------------------------------------------------------------------------------------
# The mechanism's premise, shown on plain objects: the note object must come from a template the
# target's compiler built with the target's ABI flags.
control_dir=$T/control
mkdir -p "$control_dir"
control() {      # control CC HARDENING PROPERTY [STACK_WITHOUT_GNU_STACK_NOTE]
	local cc=$1 flag=$2 property=$3 nostack=${4:-} d=$control_dir/$1
	mkdir -p "$d"
	cd "$d"
	cp "$SRC/meson/dlnote-template.c" "$SAMPLE/plug.c" .
	$cc -c dlnote-template.c -o plain-template.o
	$cc "$flag" -c dlnote-template.c -o hardened-template.o
	"$DLNOTE" -q --feature x --soname libx.so.1 -o plain-note.o plain-template.o
	"$DLNOTE" -q --feature x --soname libx.so.1 -o hardened-note.o hardened-template.o
	$cc "$flag" -fPIC -shared -nostdlib plug.c -o none.so
	$cc "$flag" -fPIC -shared -nostdlib plug.c hardened-note.o -o hardened.so
	$cc "$flag" -fPIC -shared -nostdlib plug.c plain-note.o -o plain.so
	has_property none.so "$property"
	same_abi hardened.so none.so
	if has_property plain.so "$property"; then echo "plain template kept the property"; return 1; fi
	[ -n "$nostack" ] || return 0
	"${cc%gcc}objcopy" --remove-section .note.GNU-stack hardened-note.o nostack-note.o
	$cc -fPIC -shared -nostdlib plug.c nostack-note.o -o nostack.so 2>/dev/null
	[ "$(stack_flags nostack.so)" = "$nostack" ] || { echo "nostack.so: GNU_STACK $(stack_flags nostack.so)"; return 1; }
}
# (GNU ld makes the stack executable when an x86 input lacks .note.GNU-stack; aarch64 does not.)
if [ "$(uname -m)" = x86_64 ]; then
	check "control (gcc): only a template built with $NATIVE_HARDENING keeps '$NATIVE_PROPERTY'; one without .note.GNU-stack makes the stack RWE" \
		control gcc "$NATIVE_HARDENING" "$NATIVE_PROPERTY" RWE
fi
check "control (aarch64): only a template built with -mbranch-protection=standard keeps 'AArch64 feature: BTI, PAC'" \
	control aarch64-linux-gnu-gcc -mbranch-protection=standard 'AArch64 feature: BTI, PAC'

# ---------------------------------------------------------------------------------------------
# CMake.
cmake_sample() {  # cmake_sample NAME CMAKE_ARGS...: copy the sample, configure, build
	local d=$T/$1
	shift
	mkdir -p "$d"
	cp -r "$SAMPLE" "$d/src"
	cmake -S "$d/src" -B "$d/b" -DCMAKE_PREFIX_PATH="$PREFIX" "$@"
	cmake --build "$d/b"
}

cmake_results() {  # cmake_results NAME LABEL [RUNNER...]: entries, ELF ids, ABI, running
	local d=$T/$1 label=$2
	shift 2
	check "$label: app has the entries of 3 calls (flags, manifest, flags from lib/)" entries "$d/b/app" "$APP"
	check "$label: shared library util (made in lib/, called on an alias from the top) has its entry" entries "$d/b/lib/libutil.so" "$UTIL"
	check "$label: module plug has its manifest's entry" entries "$d/b/libplug.so" "$PLUG"
	check "$label: note objects have the targets' class, byte order, e_machine, e_flags" all_same_id \
		"$d/b/CMakeFiles/app.dlnote/app-dlopen-note.o" "$d/b/app" \
		"$d/b/lib/CMakeFiles/util.dlnote/util-dlopen-note.o" "$d/b/lib/libutil.so" \
		"$d/b/CMakeFiles/plug.dlnote/plug-dlopen-note.o" "$d/b/libplug.so"
	check "$label: app and app_plain (no notes) have the same PT_GNU_STACK and GNU property note" same_abi "$d/b/app" "$d/b/app_plain"
	check "$label: plug keeps '${PLUG_PROPERTY:-its GNU properties}', same as plug_plain" \
		hardened "$d/b/libplug.so" "$d/b/libplug_plain.so"
	check "$label: util keeps '${PLUG_PROPERTY:-its GNU properties}' (from lib/'s CMAKE_C_FLAGS)" \
		hardened "$d/b/lib/libutil.so"
	check "$label: app runs" runs "$d/b/app" "$@"
	check "$label: tool (links static codec, object parse, shared front) has codec's and parse's entries once" \
		entries_once "$d/b/tool" "[$CODEC,$PARSE]"
	check "$label: shared library front (links static codec PUBLIC) has them once" \
		entries_once "$d/b/libfront.so" "[$CODEC,$PARSE]"
	check "$label: tool runs" prints "tool ok 7 2 70" "$d/b/tool" "$@"
}

cmake_install() {  # cmake_install NAME LABEL [RUNNER...]
	local d=$T/$1 label=$2
	shift 2
	check "$label: cmake --install" cmake --install "$d/b" --prefix "$d/inst"
	check "$label: installed app, util and plug have their entries" all_entries \
		"$d/inst/bin/app" "$APP" "$d/inst/lib/libutil.so" "$UTIL" "$d/inst/lib/libplug.so" "$PLUG"
	check "$label: installed app runs" runs "$d/inst/bin/app" "$@"
	check "$label: installed tool has codec's and parse's entries once" \
		entries_once "$d/inst/bin/tool" "[$CODEC,$PARSE]"
	[ ${#CONSUMER_ARGS[@]} -gt 0 ] || return 0   # (a consumer costs a configure: not everywhere)
	check "$label: a project without dlnote links the installed static codec (find_package)" \
		cmake_consumer "$d" "${CONSUMER_ARGS[@]}"
	check "$label: its program has codec's and parse's entries once" \
		entries_once "$d/consumer/consumer" "[$CODEC,$PARSE]"
	check "$label: its program runs" prints "consumer ok 7" "$d/consumer/consumer" "$@"
}

cmake_consumer() {  # cmake_consumer DIR CMAKE_ARGS...: build sample/consumer against DIR/inst
	local d=$1
	shift
	cmake -S "$d/src/consumer" -B "$d/consumer" -DCMAKE_PREFIX_PATH="$d/inst" "$@"
	cmake --build "$d/consumer"
}

# 1. Ninja, find_package, gcc with LTO (IPO), --gc-sections.
PLUG_PROPERTY=$NATIVE_PROPERTY
BROKEN=
C=cm-ninja
APP=$APP_CMAKE APP_EDITED=$APP_CMAKE_EDITED
L="cmake ninja package gcc-lto"
CONSUMER_ARGS=(-G Ninja -DCMAKE_C_COMPILER=gcc -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON)
check "$L: configure + build" cmake_sample $C "${CONSUMER_ARGS[@]}"
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: app's own objects are LTO objects" gcc_lto_object "$T/$C/b/CMakeFiles/app.dir/app.c.o"
cmake_results $C "$L"
check "$L: a second build does nothing" no_work cmake --build "$T/$C/b"
check "$L: reconfiguring unchanged rebuilds nothing" reconfigure_no_work "$T/$C/b"
manifest_checks "Generating dlopen note object for app" "Linking C executable app" "$T/$C/src/" \
	cmake --build "$T/$C/b"
check "$L: a call without SONAME fails at configure time" \
	fails_with "target_dlopen_notes(app): an entry needs at least one SONAME" cmake "$T/$C/b" -DBAD_CALL=ON
bad_priority() {
	cmake "$1" -DBAD_CALL=OFF -DBAD_PRIORITY=ON
	fails_with 'entry 2: "priority" must be "required", "recommended" or "suggested"' cmake --build "$1"
}
check "$L: a bad PRIORITY fails the build with the tool's message" bad_priority "$T/$C/b"
check "$L: back to good: configure + build" reconfigure_build "$T/$C/b" -DBAD_PRIORITY=OFF
cmake_install $C "$L"
CODEC_STEPS=("Generating dlopen note object for codec" "Linking C static library lib/libcodec.a"
	"Linking C shared library libfront.so" "Linking C executable tool")
UTIL_LINK="Linking C shared library lib/libutil.so" APP_LINK="Linking C executable app" APP_RELINKED=yes
UTIL_RELINKS=" and the programs that link it (CMake relinks after any library change)" UTIL_PATH=lib/libutil.so
TOOL_MORE=",$PARSE"
rebuild_checks CMakeLists.txt cmake --build "$T/$C/b"

# 2. Unix Makefiles, add_subdirectory(<dlnote source>), install relinks.
BROKEN=
C=cm-make
APP=$APP_CMAKE APP_EDITED=$APP_CMAKE_EDITED
L="cmake make subdirectory relink"
CONSUMER_ARGS=()
check "$L: configure + build" cmake_sample $C -G "Unix Makefiles" -DCMAKE_C_COMPILER=gcc \
	-DDLNOTE_VIA=subdirectory -DDLNOTE_SOURCE_DIR="$SRC" -DCMAKE_NO_BUILTIN_CHRPATH=ON
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: the tool was built in the project (dlnote/dlnote-inject)" test -x "$T/$C/b/dlnote/dlnote-inject"
cmake_results $C "$L"
manifest_checks "Generating dlopen note object for app" "Linking C executable app" "$T/$C/src/" \
	cmake --build "$T/$C/b"
relinks() {      # (no grep -q on the pipe: make would die of SIGPIPE before relinking all)
	local out
	out=$(cmake --build "$1" --target preinstall)
	echo "$out"
	grep -qF "Linking C executable CMakeFiles/CMakeRelink.dir/app" <<<"$out"
}
check "$L: install relinks app (make preinstall: CMakeRelink.dir/app)" relinks "$T/$C/b"
cmake_install $C "$L"

# 3. clang -flto, lld, --gc-sections.
BROKEN=
C=cm-clang
APP=$APP_CMAKE APP_EDITED=$APP_CMAKE_EDITED
L="cmake ninja package clang-lto-lld"
check "$L: configure + build" cmake_sample $C -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_C_FLAGS=-flto \
	-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_MODULE_LINKER_FLAGS=-fuse-ld=lld
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: app's own objects are LLVM bitcode, linked by lld" bitcode_and_lld "$T/$C/b/CMakeFiles/app.dir/app.c.o" "$T/$C/b/app"
cmake_results $C "$L"

# 4. aarch64 cross, FetchContent: the tool is built for the build machine.
PLUG_PROPERTY='AArch64 feature: BTI, PAC'
TOOLCHAIN=$SRC/tests/buildsys/aarch64-toolchain.cmake
BROKEN=
C=cm-cross-fetch
APP=$APP_CMAKE APP_EDITED=$APP_CMAKE_EDITED
L="cmake ninja aarch64 fetchcontent"
CONSUMER_ARGS=(-G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN")
check "$L: configure + build" cmake_sample $C -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN" \
	-DDLNOTE_VIA=fetchcontent -DFETCHCONTENT_SOURCE_DIR_DLNOTE="$SRC"
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: the tool was built for the build machine" same_id "$T/$C/b/_deps/dlnote-build/dlnote-inject" "$DLNOTE"
check "$L: app is aarch64" is_aarch64 "$T/$C/b/app"
cmake_results $C "$L" "${QEMU[@]}"
cmake_install $C "$L" "${QEMU[@]}"

# 5. aarch64 cross, find_package of the build machine's installed package.
BROKEN=
C=cm-cross-package
APP=$APP_CMAKE APP_EDITED=$APP_CMAKE_EDITED
L="cmake ninja aarch64 package"
check "$L: configure + build" cmake_sample $C -G Ninja -DCMAKE_TOOLCHAIN_FILE="$TOOLCHAIN"
[ "$ok" = 1 ] || BROKEN="$L: build failed"
cmake_results $C "$L" "${QEMU[@]}"
fi   # ONLY != meson

if [ "$ONLY" != cmake ]; then
# ---------------------------------------------------------------------------------------------
# Meson.
meson_sample() {  # meson_sample NAME MESON_SETUP_ARGS...: sample + subprojects/dlnote, setup, build
	local d=$T/$1
	shift
	mkdir -p "$d/src/subprojects/dlnote"
	cp -r "$SAMPLE"/. "$d/src"
	cp -r "$SRC/meson.build" "$SRC/meson_options.txt" "$SRC/Makefile" "$SRC/meson" "$SRC/src" "$d/src/subprojects/dlnote/"
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
		check "$label: $t (static codec through $(meson_how $t)) has codec's entry once" \
			entries_once "$d/b/$t" "[$CODEC]"
	done
	check "$label: tool_both (the static half of both_libraries(), plain link_with:) has bcodec's entry once" \
		entries_once "$d/b/tool_both" "[$BCODEC]"
	check "$label: libbcodec.so (the shared half) has it once" entries_once "$d/b/libbcodec.so" "[$BCODEC]"
	for t in tool tool_whole tool_objects tool_again tool_both; do
		check "$label: $t runs" prints "tool ok 7 2 70" "$d/b/$t" "$@"
	done
}

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

MESON_ENV=()   # VAR=VALUE... for meson commands after setup
meson_loss_checks() {  # meson_loss_checks NAME LABEL: each way to lose entries is refused
	local name=$1 label=$2
	check "$label: -Dlose=true (sample/lost/, five ways to lose entries): the build fails" \
		with_env "${MESON_ENV[@]}" meson_loses "$name"
	check "$label: dlopen_note in a static_library() (subdir) is refused" refused "$name" "$LOST_PLAIN_STATIC"
	check "$label: dlopen_note in both_libraries() is refused" refused "$name" "$LOST_PLAIN_BOTH"
	check "$label: dlopen_note in a shared library whose objects make a static library (kmod) is refused" \
		refused "$name" "$LOST_PLAIN_KMOD"
	check "$label: dlopen_note_static without the pull dependency, plain link_with:, is refused" \
		refused "$name" "$LOST_NO_PULL"
	check "$label: kmod's idiom without the pull dependency on the second library, added after the first build, is refused" \
		refused "$name" "$LOST_KMOD_NO_PULL"
	check "$label: -Dlose=false builds again" with_env "${MESON_ENV[@]}" meson_back "$T/$name/b"
	check "$label: tool still has codec's entry once" entries_once "$T/$name/b/tool" "[${TOOL_CODEC:-$CODEC}]"
	check "$label: then a second build does nothing" with_env "${MESON_ENV[@]}" no_work ninja -C "$T/$name/b"
}
meson_back() { meson configure "$1" -Dlose=false && ninja -C "$1"; }
LOST_PLAIN_STATIC='dlnote-note.py: lost/liblost_static.a.p/lost-dlopen-dlopen-note.o: the static library lost/liblost_static.a would hold this note object, which nothing pulls in: its entries would be lost; make it with dlopen_note_static and give the library its pull dependency (docs/build-systems.md'
LOST_PLAIN_BOTH='dlnote-note.py: lost/liblost_both.so.p/lost-dlopen-dlopen-note.o: the static library lost/liblost_both.a would hold this note object'
LOST_PLAIN_KMOD='dlnote-note.py: lost/liblost_so.so.p/lost-dlopen-dlopen-note.o: the static library lost/liblost_so_int.a would hold this note object'
LOST_NO_PULL="dlnote-note.py: lost/liblost_nopull.a.p/lost-dlopen-dlopen-note.o: lost/lost_tool links lost/liblost_nopull.a without -Wl,-u,dlnote_pull_lost_dlopen, and would lose these entries; give lost/liblost_nopull.a dependencies: declare_dependency(link_args: '-Wl,-u,dlnote_pull_lost_dlopen') (docs/build-systems.md"
LOST_KMOD_NO_PULL='dlnote-note.py: lost/libkept.a.p/kept-dlopen-dlopen-note.o: lost/kept_tool links lost/libkept_int.a without -Wl,-u,dlnote_pull_kept_dlopen'

meson_how() {
	case $1 in
	tool) echo "plain link_with:, the pull from codec's own dependency, and shared front" ;;
	tool_whole) echo "link_whole:" ;;
	tool_objects) echo "objects: extract_all_objects()" ;;
	tool_again) echo "static_library(objects: extract_all_objects(), the pull dependency), as kmod" ;;
	libfront.so) echo "plain link_with:" ;;
	esac
}

meson_libdir() {
	meson introspect --buildoptions "$1/b" |
		python3 -c 'import json,sys; print(*[o["value"] for o in json.load(sys.stdin) if o["name"] == "libdir"])'
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
	check "$label: installed tool has codec's entry once" \
		entries_once "$d/inst/usr/local/bin/tool" "[$CODEC]"
	[ ${#CONSUMER_ARGS[@]} -gt 0 ] || return 0   # (a consumer costs a setup: not everywhere)
	check "$label: a project without dlnote links the installed static codec (pkg-config)" \
		meson_consumer "$d" "${CONSUMER_ARGS[@]}"
	check "$label: its program has codec's entry once" entries_once "$d/consumer/consumer" "[$CODEC]"
	check "$label: its program runs" prints "consumer ok 7" "$d/consumer/consumer" "$@"
}

# The wrap's [provide] is what finds the subproject, unless a dlnote-inject is installed.
if command -v dlnote-inject >/dev/null; then PROVIDED="Program dlnote-inject found: YES"; else PROVIDED="Fallback to subproject dlnote which provides program dlnote-inject"; fi

# 1. gcc, LTO, --gc-sections, the project's ABI flag in c_args.
PLUG_PROPERTY=$NATIVE_PROPERTY
BROKEN=
C=me-gcc
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson gcc-lto wrap"
CONSUMER_ARGS=(-Db_lto=true)
check "$L: setup + build" meson_sample $C -Db_lto=true ${NATIVE_HARDENING:+-Dc_args=$NATIVE_HARDENING}
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: find_program('dlnote-inject') is provided by the wrap" grep -qF "$PROVIDED" "$T/$C/setup.log"
check "$L: app's own objects are LTO objects" gcc_lto_object "$T/$C/b/app.p/app.c.o"
meson_results $C "$L"
check "$L: a second build does nothing" no_work ninja -C "$T/$C/b"
manifest_checks "Generating 'app.p/app-dlopen-dlopen-note.o'" "Linking target app" "../src/" ninja -C "$T/$C/b"
meson_install $C "$L"
CODEC_STEPS=("Generating 'libcodec.a.p/codec-dlopen-dlopen-note.o'" "Linking static target libcodec.a"
	"Linking static target libcodec_again.a" "Linking target libfront.so" "Generating symbol file libfront.so.p"
	"Linking target tool_whole" "Linking target tool_objects" "Linking target tool_again" "Linking target tool")
UTIL_LINK="Linking target libutil.so" APP_LINK="Linking target app" APP_RELINKED=no
UTIL_RELINKS=" only: Meson relinks programs only when a library's exported symbols change" UTIL_PATH=libutil.so
TOOL_MORE=
rebuild_checks meson.build ninja -C "$T/$C/b"
TOOL_CODEC=${CODEC/.xz files/xz}   # (edited by rebuild_checks)
meson_loss_checks $C "$L"
TOOL_CODEC=
meson_check_idiom() {  # meson test: the --check --expect test passes on tool, fails on app_plain
	local out
	out=$(meson test -C "$1" --verbose 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	grep -qF "tool: ok (1 dlopen entry)" <<<"$out" &&
		grep -qF "codec-dlopen.json: missing: liblzma.so.5 (feature xz, recommended): declared, in no FILE" <<<"$out"
}
check "$L: meson test: the documented --check --expect test passes on tool, fails on app_plain" \
	meson_check_idiom "$T/$C/b"

# 2. clang -flto, lld; the ABI flag from add_project_arguments, so passed on as template_args.
BROKEN=
C=me-clang
APP=$APP_MESON APP_EDITED=$APP_MESON_EDITED
L="meson clang-lto-lld"
check "$L: setup + build" with_env CC=clang CC_LD=lld meson_sample $C -Db_lto=true \
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
check "$L: setup + build" meson_sample $C --cross-file "$SRC/tests/buildsys/aarch64-cross.ini"
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
fi   # ONLY != cmake

BROKEN=
# ---------------------------------------------------------------------------------------------
echo "buildsys: $passed passed, $failed failed"
if [ "$failed" -ne 0 ]; then
	echo "buildsys: work directory kept: $T"
	exit 1
fi
[ "${KEEP:-0}" = 1 ] && echo "buildsys: work directory kept: $T" || rm -rf "$T"
