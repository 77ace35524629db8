#!/bin/sh
# SPDX-License-Identifier: MIT
#
# get-meson.sh DESTDIR - fetch Debian's meson .deb (default: trixie) without
# installing it, verify it, unpack it into DESTDIR and print its version.
#
# Environment (all optional):
#   DEBIAN_MIRROR  archive base URL     (default http://deb.debian.org/debian)
#   SUITE          Debian suite         (default trixie)
#   PKG            binary package name  (default meson)
#
# Trust chain: InRelease is checked with gpgv against the Debian archive keyring
# (DEBIAN_KEYRING), the Packages index against the SHA256 listed in it, and the
# .deb against the SHA256 listed in the Packages index.
#
# Afterwards run meson as:
#   PYTHONPATH=DESTDIR/usr/lib/python3/dist-packages python3 DESTDIR/usr/bin/meson
set -eu

prog=${0##*/}
die() { printf '%s: error: %s\n' "$prog" "$*" >&2; exit 1; }

[ $# -eq 1 ] || { printf 'usage: %s DESTDIR\n' "$prog" >&2; exit 2; }
dest=$1
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
suite=${SUITE:-trixie}
pkg=${PKG:-meson}

keyring=${DEBIAN_KEYRING:-/usr/share/keyrings/debian-archive-keyring.gpg}
[ -r "$keyring" ] || die "keyring not readable: $keyring (install debian-archive-keyring)"
for t in curl gpgv xz sha256sum dpkg-deb python3; do
	command -v "$t" >/dev/null 2>&1 || die "required tool '$t' not found in PATH"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/get-meson.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM

fetch() { # URL FILE
	rc=0
	curl -fsL --retry 3 --connect-timeout 20 -o "$2" "$1" || rc=$?
	[ "$rc" -eq 0 ] || die "download failed (curl exit $rc): $1"
}

# 1. InRelease lists the SHA256 of each index.
fetch "$mirror/dists/$suite/InRelease" "$tmp/InRelease.signed"
gpgv --keyring "$keyring" --output "$tmp/InRelease" "$tmp/InRelease.signed" >/dev/null 2>"$tmp/gpgv.err" ||
	die "bad signature on $mirror/dists/$suite/InRelease: $(tail -n 1 "$tmp/gpgv.err")"
sha_of() { # PATH-IN-SUITE -> SHA256 from InRelease's SHA256 section
	awk -v f="$1" '
		/^[^ ]/ { insha = ($1 == "SHA256:"); next }
		insha && $3 == f { print $1; exit }' "$tmp/InRelease"
}

# 2. A Packages index that matches InRelease.  Arch: all packages are also
# listed in each architecture's index; mirrors can lag behind InRelease for
# the plain file name, so try the by-hash name first, as apt does.
arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
idx=
for cand in "main/binary-$arch/Packages.xz" main/binary-all/Packages.xz; do
	want=$(sha_of "$cand")
	[ -n "$want" ] || continue
	for url in "$mirror/dists/$suite/${cand%/*}/by-hash/SHA256/$want" \
		"$mirror/dists/$suite/$cand"; do
		curl -fsSL --retry 3 --connect-timeout 20 -o "$tmp/Packages.xz" "$url" 2>/dev/null || continue
		got=$(sha256sum "$tmp/Packages.xz" | cut -d' ' -f1)
		if [ "$got" = "$want" ]; then idx=$cand; break 2; fi
	done
done
[ -n "$idx" ] || die "no Packages.xz index of $suite (binary-$arch, binary-all) matching the SHA256 in InRelease at $mirror"

# 3. The package's stanza: Filename, SHA256, Version.
xz -dc "$tmp/Packages.xz" >"$tmp/Packages" || die "cannot decompress $idx"
awk -v p="$pkg" '
	$0 == "Package: " p { on = 1 }
	on && /^$/ { exit }
	on && /^(Filename|SHA256|Version):/ { print }' "$tmp/Packages" >"$tmp/stanza"
field() { sed -n "s/^$1: *//p" "$tmp/stanza" | head -n 1; }
file=$(field Filename)
sum=$(field SHA256)
ver=$(field Version)
if [ -z "$file" ] || [ -z "$sum" ]; then
	die "package '$pkg' (Filename/SHA256) not found in $suite $idx"
fi
case $file in
	pool/*.deb) ;;
	*) die "unexpected Filename in index: $file" ;;
esac

# 4. The .deb, verified against the index.
deb=$tmp/${file##*/}
fetch "$mirror/$file" "$deb"
got=$(sha256sum "$deb" | cut -d' ' -f1)
[ "$got" = "$sum" ] || die "SHA256 mismatch for $file: expected $sum, got $got"

# 5. Unpack and report.
mkdir -p "$dest" || die "cannot create $dest"
dpkg-deb -x "$deb" "$dest" || die "dpkg-deb -x failed for ${file##*/}"
[ -f "$dest/usr/bin/meson" ] || die "unpacked package has no usr/bin/meson"
[ -d "$dest/usr/lib/python3/dist-packages/mesonbuild" ] ||
	die "unpacked package has no usr/lib/python3/dist-packages/mesonbuild"

v=$(PYTHONPATH="$dest/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}" \
	/usr/bin/python3 "$dest/usr/bin/meson" --version) ||
	die "unpacked meson ($ver) does not run with $(/usr/bin/python3 --version 2>&1)"
printf '%s %s (%s) unpacked in %s: meson %s\n' "$pkg" "$ver" "${file##*/}" "$dest" "$v"
