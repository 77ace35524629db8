#!/bin/sh
# SPDX-License-Identifier: MIT
#
# get-source.sh - fetch and unpack a Debian source package without deb-src.
#
# Usage: get-source.sh [-u] PACKAGE DESTDIR
#
#   PACKAGE  source package name (e.g. glfw3, zlib)
#   DESTDIR  directory to create; it becomes the root of the unpacked tree
#            (it may exist only if it is empty)
#   -u       upstream only: unpack the .orig tarball with tar, without the
#            debian/ directory or Debian's patches (no dpkg-source needed)
#
# The chain of trust is the archive's: InRelease is checked with gpgv against
# the Debian archive keyring, Sources.xz against InRelease's SHA256, and each
# file of the source package against the SHA256 listed in Sources.  Nothing
# under /etc/apt is read or changed.
#
# Environment (defaults in brackets):
#   DEBIAN_MIRROR     [http://deb.debian.org/debian]
#   DEBIAN_SUITE      [VERSION_CODENAME from /etc/os-release, else bookworm]
#   DEBIAN_COMPONENT  [main]
#   DEBIAN_KEYRING    [/usr/share/keyrings/debian-archive-keyring.gpg]
#
# Needs: curl, gpgv, xz, awk, sha256sum, tar; dpkg-source (dpkg-dev) unless -u.
# Errors are one line on stderr, prefixed "get-source.sh:"; exit status 1.

set -eu

prog=get-source.sh
die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

upstream_only=0
while getopts u opt; do
	case $opt in
	u) upstream_only=1 ;;
	*) die "usage: $prog [-u] PACKAGE DESTDIR" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || die "usage: $prog [-u] PACKAGE DESTDIR"
pkg=$1
dest=$2

case $pkg in
'' | *[!a-z0-9.+-]* | [!a-z0-9]*) die "invalid source package name: '$pkg'" ;;
esac
[ -n "$dest" ] || die "empty DESTDIR"

if [ -z "${DEBIAN_SUITE:-}" ] && [ -r /etc/os-release ]; then
	# shellcheck disable=SC1091
	DEBIAN_SUITE=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
fi
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
mirror=${mirror%/}
suite=${DEBIAN_SUITE:-bookworm}
component=${DEBIAN_COMPONENT:-main}
keyring=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}

need() {
	command -v "$1" >/dev/null 2>&1 || die "$1 not found${2:+ (install $2)}"
}
need curl curl
need gpgv gpgv
need xz xz-utils
need awk
need sha256sum coreutils
need tar
[ "$upstream_only" = 1 ] || need dpkg-source dpkg-dev
[ -r "$keyring" ] || die "keyring not readable: $keyring (install debian-archive-keyring)"

if [ -e "$dest" ]; then
	[ -d "$dest" ] || die "DESTDIR exists and is not a directory: $dest"
	[ -z "$(ls -A "$dest")" ] || die "DESTDIR exists and is not empty: $dest"
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/get-source.XXXXXX") || die "mktemp failed"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# fetch URL FILE
fetch() {
	curl -fsSL --retry 3 --connect-timeout 20 -o "$2" "$1" 2>"$tmp/curl.err" ||
		die "download failed: $1: $(tail -n 1 "$tmp/curl.err")"
}

# check_sha256 FILE SHA256 SIZE
check_sha256() {
	size=$(wc -c <"$1" | tr -d ' ')
	[ "$size" = "$3" ] || die "size mismatch for ${1##*/}: got $size, want $3"
	sum=$(sha256sum "$1" | cut -d ' ' -f 1)
	[ "$sum" = "$2" ] || die "SHA256 mismatch for ${1##*/}"
}

# sha256_entries FILE FIELD: print "sha256 size name" lines of a
# Checksums-Sha256 (or SHA256) multi-line field.
sha256_entries() {
	awk -v field="$2" '
		/^[^ \t]/ { infield = (index($0, field ":") == 1); next }
		infield && NF == 3 { print $1, $2, $3 }
	' "$1"
}

# 1. Release file, signature-checked; only the signed text is used.
dist=$mirror/dists/$suite
fetch "$dist/InRelease" "$tmp/InRelease"
gpgv --keyring "$keyring" --output "$tmp/Release" "$tmp/InRelease" \
	>/dev/null 2>"$tmp/gpgv.err" ||
	die "bad signature on $dist/InRelease: $(tail -n 1 "$tmp/gpgv.err")"

# 2. Sources.xz, checked against Release.
idx=$component/source/Sources.xz
entry=$(sha256_entries "$tmp/Release" SHA256 | awk -v p="$idx" '$3 == p { print $1, $2; exit }')
[ -n "$entry" ] || die "$idx not listed in $dist/Release"
fetch "$dist/$idx" "$tmp/Sources.xz"
check_sha256 "$tmp/Sources.xz" "${entry% *}" "${entry#* }"

# 3. The package's stanza: the highest version, ignoring Extra-Source-Only
# entries (kept only for Built-Using).
xz -dc "$tmp/Sources.xz" |
	awk -v p="$pkg" '
		BEGIN { RS = "" }
		{
			n = split($0, line, "\n"); name = ""; extra = 0
			for (i = 1; i <= n; i++) {
				if (line[i] == "Package: " p) name = p
				if (line[i] == "Extra-Source-Only: yes") extra = 1
			}
			if (name != "" && !extra) printf "%s\n\n", $0
		}
	' >"$tmp/stanzas"
[ -s "$tmp/stanzas" ] || die "no source package '$pkg' in $suite/$component"

awk '/^Version:/ { print $2 }' "$tmp/stanzas" >"$tmp/versions"
best=
while read -r v; do
	if [ -z "$best" ]; then
		best=$v
	elif command -v dpkg >/dev/null 2>&1 && dpkg --compare-versions "$v" gt "$best"; then
		best=$v
	fi
done <"$tmp/versions"
awk -v v="$best" '
	BEGIN { RS = "" }
	{
		n = split($0, line, "\n")
		for (i = 1; i <= n; i++)
			if (line[i] == "Version: " v) { print; exit }
	}
' "$tmp/stanzas" >"$tmp/stanza"

directory=$(awk '/^Directory:/ { print $2 }' "$tmp/stanza")
[ -n "$directory" ] || die "no Directory field for $pkg $best"
sha256_entries "$tmp/stanza" Checksums-Sha256 >"$tmp/files"
[ -s "$tmp/files" ] || die "no Checksums-Sha256 field for $pkg $best"

# 4. Download and verify every file of the source package.
while read -r sum size name; do
	case $name in
	*/* | .*) die "unsafe file name in Sources: $name" ;;
	esac
	fetch "$mirror/$directory/$name" "$tmp/$name"
	check_sha256 "$tmp/$name" "$sum" "$size"
done <"$tmp/files"

dsc=$(awk '$3 ~ /\.dsc$/ { print $3; exit }' "$tmp/files")
[ -n "$dsc" ] || die "no .dsc for $pkg $best"

# 5. Unpack into DESTDIR.
[ ! -d "$dest" ] || rmdir "$dest"
mkdir -p "$(dirname "$dest")"
if [ "$upstream_only" = 1 ]; then
	orig=$(awk '$3 ~ /\.orig\.tar\.[a-z0-9]+$/ { print $3; exit }' "$tmp/files")
	if [ -z "$orig" ]; then # native package: its only tarball is the source
		orig=$(awk '$3 ~ /\.tar\.[a-z0-9]+$/ { print $3; exit }' "$tmp/files")
	fi
	[ -n "$orig" ] || die "no upstream tarball for $pkg $best"
	mkdir "$dest"
	tar -xf "$tmp/$orig" -C "$dest" --strip-components=1 --no-same-owner ||
		die "tar failed on $orig"
else
	dpkg-source --no-check -x "$tmp/$dsc" "$dest" >"$tmp/dpkg-source.log" 2>&1 ||
		die "dpkg-source -x failed: $(grep -i 'error' "$tmp/dpkg-source.log" | head -n 1)"
fi

printf '%s %s -> %s\n' "$pkg" "$best" "$dest"
