#!/bin/sh
# SPDX-License-Identifier: MIT
# Seed corpora for the fuzzers: small valid manifests, and small ELF files of every class, byte
# order and type (objects, programs, shared libraries; with and without notes; our own output).
# Archives for the archive fuzzer: GNU (with and without a long-name table, deterministic, a
# "/SYM64/" index), BSD, thin, with a non-ELF member and a big-endian member; our own output.
# Linked files for the dynamic, dynsym and code_id fuzzers: small libraries of real Debian
# packages of six architectures, both byte orders (tests/fuzz/debian-libs.sh, downloaded once
# into OUTDIR/../debian-libs), the host's, and built ones (.hash, .gnu.hash or both, version
# nodes, RPATH and RUNPATH, no section headers).  Roots (tests/fuzz/tree.h) for the ldconf and
# closure fuzzers: the host's ld.so.conf tree, and small roots of built programs with links,
# loops, `..` and links out of the root.  Traces for the trace fuzzer: real recordings by the
# tool (--record) of a program that dlopen()s by name and by path and looks a symbol up, and of
# a shell running Python's ctypes.  Policies: the docs' and hand-made ones.  Writers: a
# manifest and file names with controls, quotes, backslashes and bytes that are not UTF-8.
# Usage: seeds.sh TOOL OUTDIR
set -eu
tool=$1 out=$2
mkdir -p "$out/manifest" "$out/note" "$out/elf" "$out/archive" "$out/dynamic" "$out/dynsym" \
	"$out/code_id" "$out/ldconf" "$out/closure" "$out/trace" "$out/policy" "$out/writers"
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
printf '[{"soname":["libz.so.1"]}]' > "$out/manifest/one"
printf '[{"soname":["a.so.1","b.so.2"],"feature":"f","description":"d \\" \\\\ \\/ ✓","priority":"suggested","x":{"n":[1,-2.5e3,true,false,null]}}]' > "$out/manifest/full"
printf '[\n  {"soname": ["libfoo.so.1"], "priority": "required"}\n]\n' > "$out/manifest/pretty"
printf '[]' > "$out/manifest/empty"
cat > s.c <<'SRC'
void _start(void) { for (;;) ; }
SRC
cat > l.c <<'SRC'
int f(int x) { return x + 1; }
SRC
cat > n.c <<'SRC'
__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct { unsigned a, b, c; char n[4]; char j[28]; } v =
  { 4, 28, 0x407c0c0a, "FDO", "[{\"soname\":[\"libx.so.1\"]}]" };
int g(void) { return 0; }
SRC
# A note in a payload-keyed COMDAT group, as systemd's sd-dlopen.h writes it.
cat > g.c <<'SRC'
__asm__(".pushsection .note.dlopen,\"aGR\",%note,\"sd_dlopen:[{\\\"soname\\\":[\\\"libg.so.1\\\"]}]\",comdat\n"
	".balign 4\n.long 4\n.long 2f-1f\n.long 0x407c0c0a\n.asciz \"FDO\"\n1: .asciz \"[{\\\"soname\\\":[\\\"libg.so.1\\\"]}]\"\n2: .balign 4\n.popsection\n");
int h(void) { return 1; }
SRC
i=0
add() { i=$((i + 1)); { printf '\000'; cat "$1"; } > "$out/elf/$i-$(basename "$1")"; }
for cc in gcc i686-linux-gnu-gcc aarch64-linux-gnu-gcc powerpc64-linux-gnu-gcc s390x-linux-gnu-gcc mips-linux-gnu-gcc arm-linux-gnueabihf-gcc riscv64-linux-gnu-gcc; do
	command -v $cc >/dev/null || continue
	$cc -Os -c l.c -o l.o && add l.o
	$cc -Os -c n.c -o n.o && add n.o
	$cc -Os -c g.c -o g.o && add g.o
	$cc -Os -nostdlib -static -s -o s s.c 2>/dev/null && add s
	$cc -Os -nostdlib -shared -fPIC -s -o l.so l.c 2>/dev/null && add l.so
	$cc -Os -nostdlib -static -s -o sn s.c n.c 2>/dev/null && add sn
	if [ -x "$tool" ]; then
		cp s s2 && "$tool" --soname libz.so.1 s2 && add s2
		cp l.o l2.o && "$tool" --soname libz.so.1 l2.o && add l2.o
	fi
done
# Note areas for the note fuzzer: the raw .note.dlopen bytes of host objects (mode byte first).
gcc -Os -c n.c -o n.o && gcc -Os -c l.c -o l2.o && "$tool" -m "$out/manifest/full" l2.o
for f in n.o l2.o; do
	objcopy -O binary --only-section=.note.dlopen "$f" raw && { printf '\000'; cat raw; } > "$out/note/$f"
done
printf '\000\004\000\000\000\010\000\000\000\005\000\000\000GNU\000abcdefgh' > "$out/note/gnu"
# Archives: small members, so that the fuzzer's mutations reach their headers and index.
rm -f "$out/archive/"*
gcc -Os -c l.c -o l.o && gcc -Os -c n.c -o n.o && gcc -Os -c g.c -o a_member_with_a_long_name.o
printf 'not an object\n' > notes.txt
ar rc "$out/archive/gnu" l.o n.o
ar rcD "$out/archive/gnu-long-names-deterministic" l.o a_member_with_a_long_name.o notes.txt
if command -v llvm-ar >/dev/null; then
	llvm-ar --format=bsd rc "$out/archive/bsd" l.o a_member_with_a_long_name.o
	SYM64_THRESHOLD=0 llvm-ar --format=gnu rc "$out/archive/gnu-sym64" l.o n.o
fi
ar rcT "$out/archive/thin" l.o n.o
if command -v powerpc64-linux-gnu-gcc >/dev/null; then
	powerpc64-linux-gnu-gcc -Os -c l.c -o be.o && ar rc "$out/archive/big-endian-member" be.o l.o
fi
if [ -x "$tool" ]; then
	cp "$out/archive/gnu" edited.a && "$tool" --soname libz.so.1 edited.a && cp edited.a "$out/archive/edited"
fi

# ---- linked files: dynamic, dynsym, code_id ----
linked() { for t in dynamic dynsym code_id; do cp "$1" "$out/$t/$2"; done; }
if deb=$("$here/debian-libs.sh" "$out/../debian-libs"); then
	for f in "$deb"/lib/*/lib*.so.1 "$deb"/usr/lib/*/lib*.so.1; do
		a=${f%/*}
		linked "$f" "debian-${a##*/}-${f##*/}"
	done
else
	echo "seeds.sh: no Debian libraries (tests/fuzz/debian-libs.sh failed): host and built files only" >&2
fi
for f in libdl.so.2 libutil.so.1 librt.so.1 libanl.so.1; do
	[ -e "/usr/lib/x86_64-linux-gnu/$f" ] && linked "/usr/lib/x86_64-linux-gnu/$f" "host-$f"
done
cat > v.c <<'SRC'
int f(int x) { return x + 1; }
int g_old(void) { return 1; }
int g_new(void) { return 2; }
__asm__(".symver g_old,g@V1");
__asm__(".symver g_new,g@@V2");
static int hidden_one(void) { return 3; }
int use(void) { return hidden_one(); }
SRC
printf 'V1 { global: f; g; local: *; };\nV2 { global: g; use; } V1;\n' > v.map
small="-Os -nostdlib -shared -fPIC -s -Wl,-z,noseparate-code"
for m in -m64 -m32; do
	for h in gnu sysv both; do
		gcc $m $small -Wl,--hash-style=$h -Wl,-soname,libv.so.1 -Wl,--version-script=v.map \
			-Wl,-rpath,/opt/r -Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib' -o v.so v.c
		linked v.so "built$m-$h-versioned.so"
	done
	gcc $m $small -Wl,-soname,libl.so.1 -o l.so l.c && linked l.so "built$m-plain.so"
	gcc $m -Os -s -Wl,-z,noseparate-code -o prog n.c -Wl,--no-as-needed ./l.so 2>/dev/null ||
		gcc $m -Os -s -o prog s.c -nostdlib ./l.so
	linked prog "built$m-program"
done
# Without section headers: the dynamic table through PT_DYNAMIC only.
python3 - v.so nosh.so <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
if b[4] == 2: b[0x28:0x30] = bytes(8); b[0x3c:0x40] = bytes(4)
else: b[0x20:0x24] = bytes(4); b[0x30:0x34] = bytes(4)
open(sys.argv[2], 'wb').write(b)
PY
linked nosh.so built-no-section-headers.so

# ---- roots: ldconf, closure (records of tests/fuzz/tree.h) ----
rec_f() { printf 'f %s\t%s\n' "$1" "$(wc -c < "$2")"; cat "$2"; }
rec_text() { printf '%s' "$2" > rec.txt; rec_f "$1" rec.txt; }
{
	rec_f etc/ld.so.conf /etc/ld.so.conf
	for f in /etc/ld.so.conf.d/*.conf; do [ -e "$f" ] && rec_f "etc/ld.so.conf.d/${f##*/}" "$f"; done
} > "$out/ldconf/host"
{
	rec_text etc/ld.so.conf 'include /etc/ld.so.conf.d/*.conf
/usr/local/lib
include ld.so.conf  # a loop
'
	rec_text etc/ld.so.conf.d/a.conf '/opt/a/lib
include ../x/*.conf
'
	rec_text etc/x/b.conf 'hwcap 0 nosegneg
/opt/b
include /../../outside/etc/ld.so.conf
'
	printf 'l etc/ld.so.conf.d/up.conf\t../../../outside/etc/ld.so.conf\n'
	printf 'l etc/ld.so.conf.d/abs.conf\t/etc/ld.so.conf\n'
	printf 'l etc/x/loop.conf\tloop.conf\n'
	printf 'd lib64\n'
	printf 'l usr/lib64\t../lib64\n'
} > "$out/ldconf/includes-links-loops"
# A program that needs a library found through RUNPATH ($ORIGIN), one through ld.so.conf, and
# one its dlopen note names; links on the way, a loop, and links out of the root.
cat > needs.c <<'SRC'
int f(int x);
int b(void);
__attribute__((used, section(".note.dlopen"), aligned(4))) static const struct { unsigned a, b, c; char n[4]; char j[28]; } v =
  { 4, 28, 0x407c0c0a, "FDO", "[{\"soname\":[\"libd.so.1\"]}]" };
void _start(void) { f(b()); for (;;) ; }
SRC
echo 'int b(void) { return 0; }' > b.c
echo 'int d(void) { return 0; }' > d.c
gcc $small -Wl,-soname,libl.so.1 -o libl.so.1 l.c
gcc $small -Wl,-soname,libb.so.1 -o libb.so.1 b.c
gcc $small -Wl,-soname,libd.so.1 -o libd.so.1 d.c
gcc -Os -nostdlib -s -Wl,-z,noseparate-code -Wl,--no-as-needed -o app needs.c ./libl.so.1 ./libb.so.1 \
	-Wl,--enable-new-dtags,-rpath,'$ORIGIN/../lib:/esc:/dots' -Wl,--dynamic-linker,/lib64/ld-linux-x86-64.so.2
root_records() {
	rec_f usr/bin/app app
	rec_f usr/lib/libl.so.1 libl.so.1
	rec_f opt/b/libb.so.1 libb.so.1
	rec_f usr/lib/x86_64-linux-gnu/libd.so.1 libd.so.1
	rec_f usr/lib64/ld-linux-x86-64.so.2 libd.so.1
	printf 'l lib64\tusr/lib64\n'
	rec_text etc/ld.so.conf '/opt/b
include /etc/ld.so.conf.d/*.conf
'
	rec_text etc/ld.so.cache ''
	printf 'l lib\tusr/lib\n'
	printf 'l bin\tusr/bin\n'
	printf 'l esc\t../outside/usr/lib\n'
	printf 'l dots\t/../../../../outside/opt/b\n'
	printf 'l usr/lib32\t/lib/../../outside\n'
	printf 'l loop\tloop\n'
	printf 'x /usr/bin/app\n'
}
root_records > "$out/closure/program-runpath-conf-note"
{ root_records; printf 'x /bin/app\nx ../../outside/usr/lib/libl.so.1\nx /esc/libl.so.1\n'; } \
	> "$out/closure/files-through-links"
# Without the libraries in the root, only outside it: found nowhere.
{ rec_f usr/bin/app app; printf 'l usr/lib\t../../outside/usr/lib\nd outside\nx usr/bin/app\n'; } \
	> "$out/closure/libraries-only-outside"
cp "$out/ldconf/includes-links-loops" "$out/closure/conf-only"
printf 'x /etc/ld.so.conf\n' >> "$out/closure/conf-only"

# ---- traces, policies, writers ----
cat > dl.c <<'SRC'
#include <dlfcn.h>
int main(void)
{
	void *h = dlopen("libz.so.1", RTLD_NOW);
	if (h)
		dlsym(h, "zlibVersion");
	dlopen("libnotthere.so.3", RTLD_NOW);
	dlopen("/usr/lib/x86_64-linux-gnu/libdl.so.2", RTLD_NOW);
	return 0;
}
SRC
gcc -o dl dl.c -ldl
if [ -x "$tool" ]; then
	"$tool" --record="$out/trace/dlopen-dlsym" -- ./dl
	"$tool" --record="$out/trace/shell-python" -- sh -c \
		"./dl; python3 -c 'import ctypes; ctypes.CDLL(\"libz.so.1\")' || true"
fi
printf '{"event":"record","pid":1,"cwd":"/b","command":"x"}\n{"event":"unauditable","pid":2}\n' > "$out/trace/hand"
sed -n '/^```json$/,/^```$/p' "$here/../../docs/policy.md" | awk -v d="$out/policy" '
	/^```json$/ { n++; f = d "/docs-" n; next } /^```$/ { f = ""; next } f { print > f }'
printf '{"unknown":"error","features":[{"feature":"*","files":"*/lib/*","priority":"ignored"},{"feature":"[a-c]?","priority":"suggested"},{"feature":"","priority":"required"}]}' \
	> "$out/policy/globs"
printf '{"unknown":"accept"}' > "$out/policy/accept"
{ printf '[{"soname":["libz.so.1","libz.so"],"feature":"z","description":"d \\" \\\\ ✓","priority":"required","x":[1]}]\000'
	printf '/usr/lib/a\001b\033[31m.so\000/usr/bin/"q\\\\"\000bad\377\376utf8\000/x\n/y\000\302\205c1\000'; } > "$out/writers/hostile"
printf '\000/usr/bin/plain\000' > "$out/writers/fallback-manifest"
