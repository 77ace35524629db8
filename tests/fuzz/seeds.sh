#!/bin/sh
# SPDX-License-Identifier: MIT
# Seed corpora for the fuzzers: small valid manifests, and small ELF files of every class, byte
# order and type (objects, programs, shared libraries; with and without notes; our own output).
# Archives for the archive fuzzer: GNU (with and without a long-name table, deterministic, a
# "/SYM64/" index), BSD, thin, with a non-ELF member and a big-endian member; our own output.
# Usage: seeds.sh TOOL OUTDIR
set -eu
tool=$1 out=$2
mkdir -p "$out/manifest" "$out/note" "$out/elf" "$out/archive"
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
