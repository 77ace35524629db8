#!/bin/sh
# SPDX-License-Identifier: MIT
# check-layers.sh BUILD LAYER... - the source tree's one rule (docs/testing.md, "The
# repository"): a folder of src/ calls and includes only itself and the folders below it,
# listed lowest first, another folder only through its interface header (FOLDER/FOLDER.h), and
# no two files call each other in a circle.  Calls are read from the objects (nm -P: each
# undefined symbol is matched with the object that defines it), includes from the #include
# lines.  Prints one line per breach and exits 1; 0 and nothing when the tree keeps the rule.
set -eu
build=$1
shift
layers="$*"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "FOLDER/FILE D|U SYMBOL" for every object of every layer.
for layer in $layers; do
	for o in "$build/$layer"/*.o; do
		f=$layer/$(basename "$o" .o)
		[ -e "$o" ] && [ -e "src/$f.c" ] || continue  # an object whose source went away
		nm -P "$o" | awk -v f="$f" '$2 == "U" { print f, "U", $1; next }
			$2 ~ /^[TDBRCGSV]$/ { print f, "D", $1 }'
	done
done > "$tmp/syms"

# Calls between files: "CALLER CALLEE SYMBOL", one per pair of files.
awk '$2 == "D" { def[$3] = $1; next }
     $2 == "U" { use[++n] = $1 " " $3 }
     END { for (i = 1; i <= n; i++) { split(use[i], u, " "); d = def[u[2]];
             if (d != "" && d != u[1] && !((u[1], d) in seen)) { seen[u[1], d] = 1; print u[1], d, u[2] } } }' \
	"$tmp/syms" > "$tmp/calls"

# Includes: "FILE HEADER-FOLDER HEADER" for every #include "..." of src/.
for layer in $layers; do
	for s in src/"$layer"/*.[ch]; do
		[ -e "$s" ] || continue
		sed -n 's/^#include "\(.*\)".*/\1/p' "$s" | while read -r h; do
			h=${h#../}
			case $h in
			*/*) echo "$layer/$(basename "$s") ${h%%/*} $h" ;;
			*) echo "$layer/$(basename "$s") $layer $h" ;;
			esac
		done
	done
done > "$tmp/includes"

awk -v layers="$layers" '
	BEGIN { n = split(layers, l, " "); for (i = 1; i <= n; i++) rank[l[i]] = i }
	FILENAME ~ /calls$/ { split($1, a, "/"); split($2, b, "/");
		if (rank[b[1]] > rank[a[1]]) { print "upward call: " $1 ".c calls " $3 " of " $2 ".c"; bad = 1 } }
	FILENAME ~ /includes$/ { split($1, a, "/");
		if (!($2 in rank)) { print "unknown folder: " $1 " includes \"" $3 "\""; bad = 1 }
		else if (rank[$2] > rank[a[1]]) { print "upward include: " $1 " includes \"" $3 "\""; bad = 1 }
		else if ($2 != a[1] && $3 != $2 "/" $2 ".h") {
			print "private header: " $1 " includes \"" $3 "\" (other folders include only \"" $2 "/" $2 ".h\")"; bad = 1 } }
	END { exit bad }' "$tmp/calls" "$tmp/includes" || status=1

# Circles: tsort names the files of a loop on its standard error.
awk '{ print $1, $2 }' "$tmp/calls" | tsort >/dev/null 2>"$tmp/loops" || true
if [ -s "$tmp/loops" ]; then
	# Each loop in call order (each file calls the next, the last the first), from its first name.
	awk 'function flush(   i, m, line) { if (!n) return; m = 1
		for (i = 2; i <= n; i++) if (v[i] < v[m]) m = i
		line = "circle of calls:"; for (i = 0; i < n; i++) line = line " " v[(m - 1 + i) % n + 1] ".c"
		print line; n = 0 }
	     /input contains a loop/ { flush(); next }
	     { sub(/^tsort: /, ""); v[++n] = $0 } END { flush() }' "$tmp/loops"
	status=1
fi
exit ${status:-0}
