#!/bin/sh
# SPDX-License-Identifier: MIT
# debian-root.sh CACHE SUITE LIST - a root made of real Debian packages of SUITE, for the
# closure tests (docs/closure.md).  The packages named in LIST (one a line, '#' comments) are
# downloaded with apt-get through a private configuration in CACHE (its own sources list, lists,
# package cache and an empty status), so that the machine's apt configuration and state stay
# untouched, then unpacked with dpkg-deb -x into CACHE/root.  Done once: a second run with the
# same LIST finds CACHE/root.done and does nothing.  The mirror is the one the machine's own
# sources use (deb.debian.org when it names none); the keys are debian-archive-keyring's.
# Prints the root's path.
set -eu
cache=$1 suite=$2 list=$3
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
sum=$({ cat "$list"; echo "${DEBIAN_ROOT_ARCHES:-}"; } | sha256sum | cut -c1-16)
root=$cache/root
if [ -e "$cache/root.done" ] && [ "$(cat "$cache/root.done")" = "$suite $sum" ]; then
	echo "$root"
	exit 0
fi
mkdir -p "$cache"
# One builder at a time (several test processes may ask at once).
exec 9>"$cache/lock"
flock 9
if [ -e "$cache/root.done" ] && [ "$(cat "$cache/root.done")" = "$suite $sum" ]; then
	echo "$root"
	exit 0
fi
mirror=$(sed -n 's|^URIs:[[:space:]]*\(http[^[:space:]]*/debian\)[[:space:]]*$|\1|p' \
	/etc/apt/sources.list.d/*.sources 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=$(sed -n 's|^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\(http[^[:space:]]*/debian\)[[:space:]].*|\2|p' \
	/etc/apt/sources.list 2>/dev/null | head -n 1)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "debian-root.sh: $keyring missing (tests/setup.sh installs debian-archive-keyring)" >&2; exit 1; }
apt=$cache/apt
mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$apt/state" "$apt/parts"
echo "deb [signed-by=$keyring] $mirror $suite main" > "$apt/sources.list"
: > "$apt/status"
set -- -o Dir::Etc::sourcelist="$apt/sources.list" -o Dir::Etc::sourceparts="$apt/parts" \
	-o Dir::Etc::preferences="$apt/parts/none" -o Dir::Etc::preferencesparts="$apt/parts" \
	-o Dir::State="$apt/state" -o Dir::State::Lists="$apt/lists" -o Dir::State::status="$apt/status" \
	-o Dir::Cache="$apt/cache" -o APT::Architecture="$(dpkg --print-architecture)" \
	-o APT::Architectures::="$(dpkg --print-architecture)" -o Acquire::Languages=none -o APT::Sandbox::User=root -q
# More architectures (packages of LIST then named PACKAGE:ARCH): DEBIAN_ROOT_ARCHES="i386 s390x".
for a in ${DEBIAN_ROOT_ARCHES:-}; do set -- "$@" -o APT::Architectures::="$a"; done
apt-get "$@" update >&2
pkgs=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$list")
# shellcheck disable=SC2086
(cd "$apt/debs" && rm -f ./*.deb && apt-get "$@" download $pkgs >&2)
rm -rf "$root"
mkdir -p "$root"
for d in "$apt/debs"/*.deb; do
	dpkg-deb -x "$d" "$root"
done
echo "$suite $sum" > "$cache/root.done"
echo "$root"
