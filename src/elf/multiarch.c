/* SPDX-License-Identifier: MIT */
/* multiarch.c - Debian's multiarch name of a file's architecture (see elf.h): the directories
 * /lib/TRIPLET and /usr/lib/TRIPLET that the loader, dpkg-shlibdeps and rpm's elfdeps search. */
#include "elf.h"

/* dpkg-architecture's DEB_HOST_MULTIARCH for a class, byte order, machine and e_flags. */
const char *elf_multiarch(int is64, int big, unsigned machine, unsigned long flags)
{
	switch (machine) {
	case EM_X86_64_: return is64 ? "x86_64-linux-gnu" : "x86_64-linux-gnux32";
	case EM_386_: return "i386-linux-gnu";
	case EM_AARCH64_: return big ? "aarch64_be-linux-gnu" : "aarch64-linux-gnu";
	/* EF_ARM_ABI_FLOAT_HARD: the hard-float ABI's libraries are another architecture */
	case EM_ARM_: return flags & 0x400 ? "arm-linux-gnueabihf" : "arm-linux-gnueabi";
	case EM_PPC64_: return big ? "powerpc64-linux-gnu" : "powerpc64le-linux-gnu";
	case EM_PPC_: return "powerpc-linux-gnu";
	case EM_S390_: return is64 ? "s390x-linux-gnu" : "s390-linux-gnu";
	case EM_RISCV_: return is64 ? "riscv64-linux-gnu" : NULL;
	case EM_LOONGARCH_: return is64 ? "loongarch64-linux-gnu" : NULL;
	case EM_SPARCV9_: return "sparc64-linux-gnu";
	case EM_ALPHA_: return "alpha-linux-gnu";
	case EM_MIPS_:
		return is64 ? (big ? "mips64-linux-gnuabi64" : "mips64el-linux-gnuabi64")
			    : (big ? "mips-linux-gnu" : "mipsel-linux-gnu");
	}
	return NULL;
}
