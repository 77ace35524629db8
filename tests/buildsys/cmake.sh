# SPDX-License-Identifier: MIT
# tests/buildsys/cmake.sh - the CMake half of tests/buildsys/run.sh, which sources it (its
# helpers, $T, $SRC, $PREFIX and check are run.sh's): the template's premise on plain objects,
# then every CMake configuration.
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

# dlnoteCheck.cmake keeps the tool's line whole: openal-soft's fmt objects hold a note section
# aligned 32, and the tool's line "...alignment 32; the spec requires 4" was cut at its ';' (a
# CMake list separator), with a "1 more line" that did not exist.  (The tool now names that
# cause itself, "... cannot read them; turn the code's notes off ...": a ';' still.)
check_wrapper_line() {
	local d=$T/check-wrapper out
	mkdir -p "$d"
	cat >"$d/aligned32.c" <<-'EOF'
	__attribute__((used, aligned(32), section(".note.dlopen"))) static const struct {
		unsigned namesz, descsz, type; char name[4]; char json[32];
	} note = {4, 32, 0x407c0c0a, "FDO", "[{\"soname\":[\"libfoo.so.1\"]}]"};
	int f(void) { return 0; }
	EOF
	gcc -c "$d/aligned32.c" -o "$d/aligned32.o"
	out=$(cmake -DTOOL="$DLNOTE" -DTARGET=al -DREPORT="$d/check.txt" -DSTAMP="$d/stamp" \
		-P "$SRC/cmake/dlnoteCheck.cmake" -- "$d/aligned32.o" 2>&1)
	echo "$out"
	[ ! -e "$d/stamp" ] && [ "$(grep -c . <<<"$out")" -eq 1 ] &&
		grep -qF "cannot read them; turn the code's notes off" <<<"$out" &&
		grep -qF "or --remove; target al, every line of the check: $d/check.txt" <<<"$out" &&
		! grep -q 'more line' <<<"$out"
}
check "dlnoteCheck.cmake: the tool's line reaches the build log whole, ';' included, and no 'more line' that is not there" \
	check_wrapper_line

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
	check "$label: --check on installed app, util, plug and tool: ok, no warning" \
		checks_silently "$d/inst/bin/app" "$d/inst/lib/libutil.so" "$d/inst/lib/libplug.so" \
		"$d/inst/bin/tool"
	check "$label: installed tool has codec's and parse's entries once" \
		entries_once "$d/inst/bin/tool" "[$CODEC,$PARSE]"
	check "$label: --check on the installed libcodec.a says: $ARCHIVE_SAYS" \
		archive_says "$d/inst/lib/libcodec.a" "$ARCHIVE_SAYS"
	[ ${#PLAIN[@]} -eq 0 ] || plain_consumers "$d" "$d/inst/lib" "$label" "[$CODEC,$PARSE]" "${PLAIN[@]}"
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

# target_dlopen_notes() checks each target after it is built (<target>-dlnote-check).
APP_CHECK_STEP=("Checking the dlopen notes of app")
# 1. Ninja, find_package, gcc with LTO (IPO), --gc-sections.
PLUG_PROPERTY=$NATIVE_PROPERTY
BROKEN=
C=cm-ninja
APP=$APP_CMAKE APP_EDITED=$APP_CMAKE_EDITED
L="cmake ninja package gcc-lto"
CONSUMER_ARGS=(-G Ninja -DCMAKE_C_COMPILER=gcc -DCMAKE_INTERPROCEDURAL_OPTIMIZATION=ON)
PLAIN=("${PLAIN_GCC_LTO[@]}") PLAIN_RUNNER=()
ARCHIVE_SAYS="warning: 2 GCC LTO members ("
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
CODEC_STEPS=("Generating dlopen notes header for codec" "Building C object lib/CMakeFiles/codec.dir/codec.c.o"
	"Linking C static library lib/libcodec.a" "Checking the dlopen notes of codec"
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
PLAIN=("${PLAIN_ALL[@]}") PLAIN_RUNNER=()
ARCHIVE_SAYS=$ARCHIVE_OK
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
# The entries also in the code, as plain notes (xz in codec's, yaml in parse's: SDL3's shape with
# its macros on): each check fails the build with one line that names the cause, the fix and
# the file with every line of the check.
macro_too() {
	local b=$1
	cmake "$b" -DMACRO_TOO=ON
	if cmake --build "$b" -- -k >"$b/macro-too.log" 2>&1; then
		cat "$b/macro-too.log"
		echo "unexpected success"
		return 1
	fi
	one_line_per_target "$b/macro-too.log" 2 \
		"dlnote-inject: $b/lib/libcodec.a: 1 error in the dlopen notes of 1 of its 2 ELF members, the first: 1 entry of the manifest is also declared by the code (an in-code macro left on beside the helper?): \"xz\" [\"liblzma.so.5\"]" \
		"declare it once (-v: each) (-v names each member); target codec, every line of the check: $b/lib/CMakeFiles/codec.dlnote/check.txt" \
		'parse.c.o: 1 error in dlopen notes: 1 entry of the manifest is also declared by the code (an in-code macro left on beside the helper?): "yaml" ["libyaml-0.so.2"]' \
		"declare it once (-v: each); target parse, every line of the check: $b/lib/CMakeFiles/parse.dlnote/check.txt" || return 1
	# One line for the cause (before: one per entry).  Each target's check knows its own
	# manifests: codec's names xz (yaml, which parse's objects bring, is parse's check's).
	[ "$(grep -c 'error' "$b/lib/CMakeFiles/codec.dlnote/check.txt")" -eq 2 ] || return 1
	grep -F "$b/lib/libcodec.a[codec.c.o]: error: 1 entry of the manifest is also declared by the code (an in-code macro left on beside the helper?): \"xz\" [\"liblzma.so.5\"]" \
		"$b/lib/CMakeFiles/codec.dlnote/check.txt" || return 1
	cmake "$b" -DMACRO_TOO=OFF && cmake --build "$b"
}
check "$L: -DMACRO_TOO=ON (xz, yaml also in the code, plain notes): each check fails the build in one line, naming the cause, the fix and its file" \
	macro_too "$T/$C/b"
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
PLAIN=("aarch64|pkg-config|aarch64-linux-gnu-gcc -Wl,--gc-sections" "aarch64-archive|archive|aarch64-linux-gnu-gcc")
PLAIN_RUNNER=("${QEMU[@]}")
ARCHIVE_SAYS=$ARCHIVE_OK
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

# 6. A real upstream project: GLFW 3.3 from Debian 12's source package (the upstream tarball:
# Debian's patch removes Requires.private from glfw3.pc, which breaks static links), a static
# library by default, with a pkg-config file it writes by hand.  Two lines appended to its
# src/CMakeLists.txt give it 13 entries; programs linked through glfw3.pc know nothing of dlnote.
BROKEN=
C=glfw
L="cmake upstream GLFW static"
GLFW_JSON=$SRC/tests/buildsys/glfw/glfw-dlopen.json
GLFW=$(/usr/bin/python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$GLFW_JSON")
glfw_build() {
	local d=$T/$C
	mkdir -p "$d"
	sh "$SRC/tests/tools/get-source.sh" -u glfw3 "$d/src"
	printf 'find_package(dlnote 0.1 REQUIRED)\ntarget_dlopen_notes(glfw MANIFEST "%s")\n' "$GLFW_JSON" >>"$d/src/src/CMakeLists.txt"
	cmake -S "$d/src" -B "$d/b" -G Ninja -DCMAKE_PREFIX_PATH="$PREFIX" -DCMAKE_INSTALL_PREFIX="$d/inst" \
		-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGLFW_BUILD_EXAMPLES=OFF -DGLFW_BUILD_TESTS=OFF -DGLFW_BUILD_DOCS=OFF
	cmake --build "$d/b"
	cmake --install "$d/b"
}
glfw_app() {     # glfw_app NAME CC...: tests/buildsys/glfw/app.c through glfw3.pc
	local d=$T/$C libs
	libs=$(PKG_CONFIG_PATH=$d/inst/lib/pkgconfig pkg-config --static --cflags --libs glfw3)
	echo "$* $libs"
	# shellcheck disable=SC2086
	"${@:2}" "$SRC/tests/buildsys/glfw/app.c" $libs -o "$d/$1"
}
check "$L: download, two lines in src/CMakeLists.txt, configure, build, install" glfw_build
[ "$ok" = 1 ] || BROKEN="$L: build failed"
check "$L: --check on the installed libglfw3.a: the 13 entries reach every program that takes a member" \
	archive_says "$T/$C/inst/lib/libglfw3.a" "ok (13 dlopen entries in 16 ELF members; 13 of them reach every program"
for cfg in "app-bfd gcc -Wl,--gc-sections" "app-lld clang -fuse-ld=lld -Wl,--gc-sections" "app-lto gcc -flto -O2"; do
	# shellcheck disable=SC2086
	check "$L: cc app.c \$(pkg-config --static --libs glfw3): ${cfg#* }" glfw_app $cfg
	check "$L: ... ${cfg%% *} has the 13 entries once" entries_once "$T/$C/${cfg%% *}" "$GLFW"
	check "$L: ... ${cfg%% *} runs (no display needed for the version)" \
		sh -c '"$1" | tee /dev/stderr | grep -q "^3\.3\.[0-9]* X11"' sh "$T/$C/${cfg%% *}"
done

# ---------------------------------------------------------------------------------------------
# Precompiled headers (SDL3's target_precompile_headers): the notes header goes into the PCH,
# which GCC then still uses (gcc -H marks it "!"), for C and C++; a source that skips the PCH
# and a target reusing another's PCH get -include; the reused target's PCH keeps no entries.
C=pch
L="CMake, precompiled headers"
pch_build() {
	local d=$T/$C
	mkdir -p "$d/src"
	cat >"$d/src/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.19)
project(pch C CXX)
find_package(dlnote REQUIRED)
add_library(s STATIC a.c b.cpp skip.c)
target_precompile_headers(s PRIVATE <stdio.h> <string.h>)
set_source_files_properties(skip.c PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
target_dlopen_notes(s FEATURE zstd SONAME libzstd.so.1)
add_library(t STATIC t.c)
target_precompile_headers(t PRIVATE <stdio.h>)
add_library(r STATIC r.c)
target_precompile_headers(r REUSE_FROM t)
target_dlopen_notes(t FEATURE lz4 SONAME liblz4.so.1)
target_dlopen_notes(r FEATURE x SONAME libx.so.1)
EOF
	for f in a skip t r; do echo "int $f(void) { return 1; }" >"$d/src/$f.c"; done
	echo 'int bpp() { return 2; }' >"$d/src/b.cpp"
	cmake -S "$d/src" -B "$d/b" -DCMAKE_PREFIX_PATH="$PREFIX" 2>&1 | tee "$d/configure.log"
	cmake --build "$d/b" -- VERBOSE=1 | tee "$d/build.log"
}
pch_used() {     # pch_used OBJECT: the compile line of OBJECT, run again with -H, reads a .gch first
	local d=$T/$C line
	line=$(grep -- "-o CMakeFiles/[^ ]*/$1 -c" "$d/build.log" | head -n 1)
	[ -n "$line" ] || { echo "no compile line for $1"; return 1; }
	(cd "$d/b" && eval "${line/ -c / -H -c }") 2>&1 | head -n 1 | tee /dev/stderr | grep -q '^! .*\.gch$'
}
check "$L: configure and build (a warning names r, which reuses t's PCH)" pch_build
check "$L: ... the warning" grep -q 'target_dlopen_notes(t): r reuse its precompiled header' "$T/$C/configure.log"
check "$L: a.c.o (C) is compiled with the PCH" pch_used a.c.o
check "$L: b.cpp.o (C++) is compiled with the PCH" pch_used b.cpp.o
for o in s.dir/a.c.o s.dir/b.cpp.o s.dir/skip.c.o; do
	check "$L: $o has s's entry" entries "$T/$C/b/CMakeFiles/$o" '[{"feature":"zstd","soname":["libzstd.so.1"]}]'
done
check "$L: t.c.o has t's entry" entries "$T/$C/b/CMakeFiles/t.dir/t.c.o" '[{"feature":"lz4","soname":["liblz4.so.1"]}]'
check "$L: r.c.o (reusing t's PCH) has r's entry only" entries "$T/$C/b/CMakeFiles/r.dir/r.c.o" '[{"feature":"x","soname":["libx.so.1"]}]'
