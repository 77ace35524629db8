#!/bin/sh
# SPDX-License-Identifier: MIT
# check-installed.sh MAKE-TARGET... - run the suite with another build of the tool installed
# system-wide, as on a packager's machine (docs/release.md).  This tree is built again as
# version 0.0.0-installed and installed with `make install` under /usr and under /usr/local
# (the tool, rpm's attribute, the debhelper addon, the CMake package, dlnote.pc...); each
# installed dlnote-inject is then a tripwire that logs its command line before running the real
# one.  The targets run; then both installs are removed with `make uninstall`, and the run fails
# if a test ran an installed tool.  Needs root or sudo.  When a copy is installed already (a
# packaged one), it is left alone and the targets run with it.
set -eu
cd "$(dirname "$0")/../.."
[ "$(id -u)" = 0 ] && SUDO= || SUDO=sudo
for p in /usr /usr/local; do
	if [ -e "$p/bin/dlnote-inject" ]; then
		echo "check-installed: $p/bin/dlnote-inject is installed already: running the suite with it"
		exec make "$@"
	fi
done

build=build-installed
log=$(mktemp "${TMPDIR:-/tmp}/dlnote-installed-calls.XXXXXX")
chmod 666 "$log"
# The suite's build first (make check needs it anyway); the installed copy reuses its objects
# and audit modules (their times kept, so make finds them up to date) but cli/cli.o, the one
# that holds the version.
make -s >/dev/null
mkdir -p $build
(cd build && find . -path ./cli/cli.o -prune -o \( -name '*.o' -o -path './audit/*' \) -print | tar -cf - --no-recursion -T -) |
	tar -C $build -xf -
make -s BUILD=$build VERSION=0.0.0-installed >/dev/null
uninstall() {
	for p in /usr /usr/local; do
		$SUDO rm -f "$p/bin/dlnote-inject.real"
		$SUDO make -s BUILD=$build VERSION=0.0.0-installed PREFIX=$p uninstall
	done
}
trap 'uninstall; rm -f "$log"' EXIT
trap 'exit 130' INT TERM   # so that the EXIT trap uninstalls
for p in /usr /usr/local; do
	$SUDO make -s BUILD=$build VERSION=0.0.0-installed PREFIX=$p install >/dev/null
	$SUDO mv "$p/bin/dlnote-inject" "$p/bin/dlnote-inject.real"
	printf '#!/bin/sh\necho "$0 $* (in $PWD, from: $(tr "\\\\0" " " < /proc/$PPID/cmdline))" >> %s\nexec %s "$@"\n' \
		"$log" "$p/bin/dlnote-inject.real" > $build/tripwire
	$SUDO install -m 755 $build/tripwire "$p/bin/dlnote-inject"
done
echo "check-installed: dlnote-inject 0.0.0-installed is installed under /usr and /usr/local"
make "$@"
if [ -s "$log" ]; then
	echo "check-installed: tests ran an installed dlnote-inject instead of the build tree's:" >&2
	sort "$log" | uniq -c | sort -rn | head -20 >&2
	exit 1
fi
echo "check-installed: no test ran an installed dlnote-inject"
