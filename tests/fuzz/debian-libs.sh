#!/bin/sh
# SPDX-License-Identifier: MIT
# debian-libs.sh CACHE - small shared libraries of real Debian packages (bookworm) for several
# architectures and both byte orders, for the fuzzers' seeds: zlib1g, libattr1 and libacl1 of
# i386, arm64, armhf, s390x (big-endian), mips64el and ppc64el, unpacked by
# tests/closure/debian-root.sh (a private apt configuration) into CACHE/root, each architecture
# under its multiarch directories.  Done once.  Prints the root's path.
set -eu
cache=$1
here=$(cd "$(dirname "$0")" && pwd)
export DEBIAN_ROOT_ARCHES="i386 arm64 armhf s390x mips64el ppc64el"
mkdir -p "$cache"
for a in $DEBIAN_ROOT_ARCHES; do for p in zlib1g libattr1 libacl1; do echo "$p:$a"; done; done \
	> "$cache/packages.txt"
exec sh "$here/../closure/debian-root.sh" "$cache" bookworm "$cache/packages.txt"
