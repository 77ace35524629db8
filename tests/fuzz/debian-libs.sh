#!/bin/sh
# SPDX-License-Identifier: MIT
# debian-libs.sh CACHE - small shared libraries of real Debian packages (bookworm) for several
# architectures and both byte orders, for the fuzzers' seeds: zlib1g, libattr1 and libacl1 of
# i386, arm64, armhf, s390x (big-endian), mips64el and ppc64el.  Downloaded with apt-get through
# a private configuration in CACHE (its own sources list, lists, package cache and an empty
# status, as tests/closure/debian-root.sh does), unpacked with dpkg-deb -x into CACHE/ARCH.
# Done once (CACHE/libs.done).  Prints nothing; fails when the packages cannot be had.
set -eu
cache=$1
arches="i386 arm64 armhf s390x mips64el ppc64el"
pkgs="zlib1g libattr1 libacl1"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
[ -e "$cache/libs.done" ] && [ "$(cat "$cache/libs.done")" = "$arches $pkgs" ] && exit 0
mirror=$(sed -n 's|^URIs:[[:space:]]*\(http[^[:space:]]*/debian\)[[:space:]]*$|\1|p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
apt=$cache/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$apt/state" "$apt/parts"
echo "deb [signed-by=$keyring] $mirror bookworm main" > "$apt/sources.list"
: > "$apt/status"
set -- -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts="$apt/parts" \
	-o Dir::Etc::preferences="$apt/parts/none" -o Dir::Etc::preferencesparts="$apt/parts" \
	-o Dir::State="$apt/state" -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status" \
	-o Dir::Cache="$apt/cache" -o APT::Architecture=amd64 -o Acquire::Languages=none \
	-o APT::Sandbox::User=root -q
for a in $arches; do set -- "$@" -o APT::Architectures::="$a"; done
apt-get "$@" update >&2
want=
for a in $arches; do for p in $pkgs; do want="$want $p:$a"; done; done
# shellcheck disable=SC2086
(cd "$apt/debs" && rm -f ./*.deb && apt-get "$@" download $want >&2)
for a in $arches; do
	rm -rf "${cache:?}/$a"
	mkdir -p "$cache/$a"
	for d in "$apt/debs"/*_"$a".deb; do dpkg-deb -x "$d" "$cache/$a"; done
done
echo "$arches $pkgs" > "$cache/libs.done"
