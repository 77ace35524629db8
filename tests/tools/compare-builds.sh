#!/bin/sh
# SPDX-License-Identifier: MIT
# compare-builds.sh OLD NEW [FILE]... - run two builds of dlnote-inject on the same inputs and
# compare what they print and write, byte for byte: listings, checks, discovery, and the files
# written by replace, merge and remove (-o), for each FILE (default: a set of this machine's
# programs, libraries, objects and archives, the test fixtures and the fuzzers' crash inputs).
# For refactors that must not change behaviour (docs/layout.md, "Refactoring").  Prints the
# first difference of each kind and exits 1 when there is one.
set -u
old=$1 new=$2
shift 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
here=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -eq 0 ]; then
	set -- /bin/ls /usr/bin/gcc /usr/lib/x86_64-linux-gnu/libz.so.1 \
		/usr/lib/x86_64-linux-gnu/libc_nonshared.a /usr/lib/x86_64-linux-gnu/crt1.o \
		"$here"/tests/fixtures/v1-bfd-pie "$here"/tests/fixtures/v1-lld-pie \
		"$here"/tests/fuzz/regressions/*/*
fi
cat > "$tmp/m.json" <<'J'
[{"soname":["libzstd.so.1"],"feature":"zstd","description":"compression","priority":"recommended"},
 {"soname":["libfoo.so.2","libfoo.so.1"],"feature":"foo","description":"foo support","priority":"suggested"}]
J
status=0
n=0
for f in "$@"; do
	[ -f "$f" ] || continue
	n=$((n + 1))
	for args in "--list" "--list --json" "--list --format=rpm-requires" "--check" "--discover" \
		"-m $tmp/m.json -o OUT" "--merge --feature x --soname libx.so.1 -o OUT" "--remove -o OUT" \
		"-m $tmp/m.json -vv -o OUT"; do
		for which in old new; do
			eval "tool=\$$which"
			rm -f "$tmp/OUT"
			# shellcheck disable=SC2086
			"$tool" $(echo "$args" | sed "s|OUT|$tmp/OUT|") "$f" >"$tmp/$which.out" 2>"$tmp/$which.err"
			echo "exit $?" >>"$tmp/$which.out"
			sed -i "s|$tmp|TMP|g" "$tmp/$which.out" "$tmp/$which.err"
			if [ -f "$tmp/OUT" ]; then mv "$tmp/OUT" "$tmp/$which.file"; else rm -f "$tmp/$which.file"; fi
		done
		for kind in out err file; do
			if [ -f "$tmp/old.$kind" ] || [ -f "$tmp/new.$kind" ]; then
				if ! cmp -s "$tmp/old.$kind" "$tmp/new.$kind"; then
					echo "differ: $args $f ($kind)"
					status=1
				fi
			fi
		done
	done
done
echo "compared $n files, 9 runs each: $([ $status = 0 ] && echo identical || echo DIFFERENT)"
exit $status
