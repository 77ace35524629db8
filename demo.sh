#!/bin/sh
# SPDX-License-Identifier: MIT
# A tour of dlnote-inject: declare optional dlopen() dependencies of an object and of an
# already-linked program, list them as packagers see them, and run the programs.
set -eu
TOOL=${DLNOTE:-$(dirname "$0")/build/dlnote-inject}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
cat > app.c <<'SRC'
#include <dlfcn.h>
#include <stdio.h>
int main(void)
{
	void *z = dlopen("libz.so.1", RTLD_NOW);
	printf("app: zlib is %s\n", z ? "available" : "missing (optional)");
	return 0;
}
SRC
cat > app-dlopen.json <<'JSON'
[
  {"soname": ["libz.so.1"], "feature": "compression", "description": "Compress saved files", "priority": "recommended"},
  {"soname": ["libqrencode.so.4", "libqrencode.so.3"], "feature": "qrcode", "description": "Show QR codes", "priority": "suggested"}
]
JSON
# Each command is printed as a shell reads it back: arguments with spaces or quotes are quoted.
quote() {
	case $1 in
	'' | *[!A-Za-z0-9_./=:,+@%-]*) printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}
run() {
	printf '$'
	for a in "$@"; do printf ' '; quote "$a"; done
	printf '\n'
	"$@"
}
echo "== 1. an object file gets the note before linking"
run cc -c app.c -o app.o
run "$TOOL" --manifest app-dlopen.json app.o
run cc app.o -o app -ldl
run "$TOOL" --list app
run ./app
echo
echo "== 2. an already-linked program gets it afterwards"
run cc app.c -o app2 -ldl
run "$TOOL" -v --feature compression --soname libz.so.1 --priority recommended app2
run "$TOOL" --merge --feature kmod --soname libkmod.so.2 --description "Load modules" --priority suggested app2
run "$TOOL" --list --json app2
run "$TOOL" --check app2
run ./app2
