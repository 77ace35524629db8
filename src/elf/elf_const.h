/* SPDX-License-Identifier: MIT */
/* elf_const.h - every ELF constant the tool uses, in one place, with the values of the gABI
 * (System V ABI, "Object Files") and of the processor and GNU/LLVM supplements that define
 * them.  Own names (a trailing '_') so that the model never depends on the host's <elf.h>,
 * which may lack the newer ones.  Included by elf.h: nothing else defines ELF numbers. */
#ifndef DLNOTE_ELF_CONST_H
#define DLNOTE_ELF_CONST_H

enum {
	/* e_type */
	ET_REL_ = 1, ET_EXEC_ = 2, ET_DYN_ = 3, ET_CORE_ = 4,
	/* p_type, p_flags */
	PT_NULL_ = 0, PT_LOAD_ = 1, PT_DYNAMIC_ = 2, PT_INTERP_ = 3, PT_NOTE_ = 4, PT_PHDR_ = 6,
	PT_TLS_ = 7, PT_GNU_PROPERTY_ = 0x6474e553, PT_MIPS_REGINFO_ = 0x70000000, PT_MIPS_ABIFLAGS_ = 0x70000003,
	PF_X_ = 1, PF_W_ = 2, PF_R_ = 4,
	/* sh_type */
	SHT_NULL_ = 0, SHT_PROGBITS_ = 1, SHT_SYMTAB_ = 2, SHT_STRTAB_ = 3, SHT_RELA_ = 4, SHT_HASH_ = 5,
	SHT_DYNAMIC_ = 6, SHT_NOTE_ = 7, SHT_NOBITS_ = 8, SHT_REL_ = 9, SHT_DYNSYM_ = 11, SHT_GROUP_ = 17,
	SHT_SYMTAB_SHNDX_ = 18, SHT_LLVM_ADDRSIG_ = 0x6fff4c03, SHT_LLVM_CALL_GRAPH_PROFILE_ = 0x6fff4c09,
	SHT_GNU_HASH_ = 0x6ffffff6, SHT_GNU_VERDEF_ = 0x6ffffffd, SHT_GNU_VERNEED_ = 0x6ffffffe,
	SHT_GNU_VERSYM_ = 0x6fffffff, SHT_MIPS_REGINFO_ = 0x70000006, SHT_MIPS_ABIFLAGS_ = 0x7000002a,
	/* sh_flags */
	SHF_WRITE_ = 1, SHF_ALLOC_ = 2, SHF_EXECINSTR_ = 4, SHF_INFO_LINK_ = 0x40, SHF_LINK_ORDER_ = 0x80,
	SHF_GROUP_ = 0x200, SHF_TLS_ = 0x400, SHF_GNU_RETAIN_ = 0x200000,
	/* special section indexes, e_phnum escape, group flags */
	SHN_UNDEF_ = 0, SHN_LORESERVE_ = 0xff00, SHN_ABS_ = 0xfff1, SHN_XINDEX_ = 0xffff, PN_XNUM_ = 0xffff,
	GRP_COMDAT_ = 1,
	/* symbols */
	STB_WEAK_ = 2, STT_SECTION_ = 3, STV_HIDDEN_ = 2,
	/* d_tag */
	DT_NULL_ = 0, DT_NEEDED_ = 1, DT_PLTGOT_ = 3, DT_HASH_ = 4, DT_STRTAB_ = 5, DT_SYMTAB_ = 6, DT_RELA_ = 7,
	DT_STRSZ_ = 10, DT_INIT_ = 12, DT_FINI_ = 13, DT_SONAME_ = 14, DT_REL_ = 17, DT_DEBUG_ = 21,
	DT_JMPREL_ = 23, DT_INIT_ARRAY_ = 25, DT_FINI_ARRAY_ = 26, DT_PREINIT_ARRAY_ = 32,
	DT_ADDRRNGLO_ = 0x6ffffe00, DT_ADDRRNGHI_ = 0x6ffffeff, DT_VERSYM_ = 0x6ffffff0, DT_VERDEF_ = 0x6ffffffc,
	DT_VERNEED_ = 0x6ffffffe, DT_LOPROC_ = 0x70000000, DT_HIPROC_ = 0x7fffffff,
	/* e_machine */
	EM_SPARC_ = 2, EM_386_ = 3, EM_MIPS_ = 8, EM_SPARC32PLUS_ = 18, EM_PPC_ = 20, EM_PPC64_ = 21,
	EM_S390_ = 22, EM_ARM_ = 40, EM_FAKE_ALPHA_ = 41, EM_SPARCV9_ = 43, EM_X86_64_ = 62,
	EM_AARCH64_ = 183, EM_RISCV_ = 243, EM_LOONGARCH_ = 258, EM_ALPHA_ = 0x9026,
};

#endif
