#!/bin/sh
# SPDX-License-Identifier: MIT
# Install everything the test suite needs on Debian 12 (run as root, or with sudo available).
# The suite fails, never skips, when one of these is missing.
set -eu
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y --no-install-recommends \
	build-essential make gcc g++ clang lld llvm binutils mold elfutils \
	libcriterion-dev python3 python3-pyelftools \
	qemu-user \
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf gcc-i686-linux-gnu gcc-powerpc64-linux-gnu \
	gcc-s390x-linux-gnu gcc-mips-linux-gnu gcc-riscv64-linux-gnu \
	gcc-powerpc64le-linux-gnu gcc-mips64el-linux-gnuabi64 gcc-arm-linux-gnueabi gcc-x86-64-linux-gnux32 \
	libc6-dev-arm64-cross libc6-dev-armhf-cross libc6-dev-i386-cross libc6-dev-ppc64-cross \
	libc6-dev-s390x-cross libc6-dev-mips-cross libc6-dev-riscv64-cross \
	libc6-dev-ppc64el-cross libc6-dev-mips64el-cross libc6-dev-armel-cross libc6-dev-x32-cross \
	libc6-i386 \
	golang-go gccgo \
	musl-tools rustc libllvm15 libsystemd0 zlib1g libpython3.11-dev \
	cmake ninja-build meson pkg-config \
	groff-base man-db util-linux coreutils time \
	rpm debhelper dpkg-dev fakeroot perl libgcc-s1-arm64-cross \
	debugedit dwz patchelf gdb cpio xz-utils rpm2cpio strace tar \
	libzstd1 liblz4-1 libcrypt1 \
	git libtool libtool-bin autoconf automake flex bison \
	lintian \
	curl gpgv debian-archive-keyring libx11-dev libxrandr-dev libxinerama-dev libxcursor-dev libxi-dev
# The SBOM tests validate with the CycloneDX project's validator from the npm registry (make
# sbom-validator): node and npm, from Debian unless another node with its npm is installed.
command -v npm >/dev/null 2>&1 || $SUDO apt-get install -y --no-install-recommends nodejs npm
