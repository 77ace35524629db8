#!/bin/sh
# SPDX-License-Identifier: MIT
# make-dist.sh VERSION OUT.tar.gz - the release tarball, the same bytes on every run
# (docs/release.md).  It holds the files git tracks (in a tree unpacked from a tarball, every
# file but the build directories), under dlnote-VERSION/, sorted by name, owned by 0:0,
# dated SOURCE_DATE_EPOCH (default: the last commit's date, or the date of NEWS outside git),
# gzip without a name or time.  Refuses when a packaging file names another version.
set -eu
version=$1 out=$2
top=dlnote-$version

fail() { echo "make-dist.sh: $*" >&2; exit 1; }

[ "$(cat VERSION)" = "$version" ] || fail "VERSION says $(cat VERSION), not $version"
deb=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog 2>/dev/null | sed 's/-[^-]*$//' || true)
[ -z "$deb" ] || [ "$deb" = "$version" ] ||
	fail "debian/changelog's newest entry is $deb, not $version (dch -v $version-1)"
rpmv=$(sed -n 's/^Version:[[:space:]]*//p' packaging/rpm/dlnote.spec 2>/dev/null || true)
[ -z "$rpmv" ] || [ "$rpmv" = "$version" ] || fail "packaging/rpm/dlnote.spec has Version: $rpmv, not $version"
grep -q "^dlnote $version\b" NEWS || fail "NEWS has no section 'dlnote $version'"

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	list() { git ls-files; }
	: "${SOURCE_DATE_EPOCH:=$(git log -1 --format=%ct)}"
else
	# What the builds write (make, dpkg-buildpackage) is not the source.
	list() { find . -path ./build -prune -o -path './build-*' -prune -o -name '*.tar.gz' -prune -o \
		-path ./.git -prune -o -path ./debian/tmp -prune -o -path ./debian/.debhelper -prune -o \
		-path ./debian/dlnote-inject -prune -o -path ./debian/dh-dlnote -prune -o \
		-path './debian/*-dbgsym' -prune -o -path ./debian/files -prune -o \
		-path './debian/*.substvars' -prune -o -path './debian/*debhelper*' -prune -o \
		! -type d -print | sed 's|^\./||'; }
	: "${SOURCE_DATE_EPOCH:=$(stat -c %Y NEWS)}"
fi

tmp=$out.tmp.$$
trap 'rm -f "$tmp" "$tmp.list" "$tmp.gz"' EXIT
list | LC_ALL=C sort > "$tmp.list"
tar --create --file="$tmp" --format=gnu --owner=0 --group=0 --numeric-owner \
	--mode='u+rw,go=rX,a-s' --mtime="@$SOURCE_DATE_EPOCH" --transform="s|^|$top/|" \
	--no-recursion --verbatim-files-from --files-from="$tmp.list"
gzip -9 -n < "$tmp" > "$tmp.gz"
mv "$tmp.gz" "$out"
echo "$out"
