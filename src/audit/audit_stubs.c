/* SPDX-License-Identifier: MIT */
/* audit_stubs.c - the rtld-audit module's dlopen() wrapper and its per-object stubs (audit.h),
 * assembly for each machine that has them.
 *
 * The object whose PLT call reached the wrapper.  glibc takes dlopen()'s caller from the return
 * address; a tail call (`jmp dlopen@plt`, what gcc -O2 makes of a constructor that ends with a
 * dlopen()) returns into the caller's caller, the loader itself for a constructor or destructor,
 * so the return address names the wrong file.  la_symbind tells which object's PLT slot it binds
 * (refcook): each such object gets a stub of its own, which passes its number to the wrapper.
 * Stubs are code in the module (never written at run time); past DLOPEN_STUBS objects, the plain
 * wrapper (number -1) goes by the return address. */
#include "audit.h"

#ifdef DLOPEN_WRAPPER
/* Each wrapper keeps dlopen()'s arguments, calls dlnote_before_dlopen(return address, name,
 * stub number) with the stack aligned as the ABI wants, restores everything, and jumps (never
 * calls): the real dlopen() returns straight to the caller and sees the caller's return
 * address, from which glibc picks the namespace and the RUNPATH.  Each stub sets the number in
 * a register that is free between a call and its callee, and jumps to the common part. */
#define STUB_LOOP(align, set_number)                                                               \
	".p2align " #align "\n"                                                                    \
	".globl dlnote_dlopen_stubs\n.hidden dlnote_dlopen_stubs\n"                                \
	"dlnote_dlopen_stubs:\n"                                                                   \
	".set dlnote_stub_i, 0\n"                                                                  \
	".rept 64\n" set_number "\n"                                                               \
	"\tb_common\n"                                                                             \
	".p2align " #align "\n"                                                                    \
	".set dlnote_stub_i, dlnote_stub_i + 1\n"                                                  \
	".endr\n"
#if defined(__x86_64__)
/* Three pushes after the call's return address: 16-byte aligned.  r11 is free. */
__asm__(".text\n"
	".macro b_common\n\tjmp dlnote_dlopen_common\n.endm\n" STUB_LOOP(
		4, "\tmovl $dlnote_stub_i, %r11d") ".globl dlnote_dlopen_wrapper\n.hidden "
						   "dlnote_dlopen_wrapper\n"
						   ".type dlnote_dlopen_wrapper,@function\n"
						   "dlnote_dlopen_wrapper:\n"
						   "\tmovl $-1, %r11d\n"
						   "dlnote_dlopen_common:\n"
						   "\tpush %rdi\n\tpush %rsi\n\tpush %rdx\n"
						   "\tmov %rdi, %rsi\n\tmov 24(%rsp), %rdi\n"
						   "\tmovl %r11d, %edx\n"
						   "\tcall dlnote_before_dlopen\n"
						   "\tpop %rdx\n\tpop %rsi\n\tpop %rdi\n"
						   "\tjmp *dlnote_real_dlopen(%rip)\n"
						   ".size dlnote_dlopen_wrapper, "
						   ".-dlnote_dlopen_wrapper\n");
#elif defined(__i386__)
/* Arguments on the stack: the three arguments keep the call 16-byte aligned; ecx is free; the
 * real address is read position-independently from the next instruction. */
__asm__(".text\n"
	".macro b_common\n\tjmp dlnote_dlopen_common\n.endm\n" STUB_LOOP(
		4, "\tmovl $dlnote_stub_i, %ecx") ".globl dlnote_dlopen_wrapper\n.hidden "
						  "dlnote_dlopen_wrapper\n"
						  ".type dlnote_dlopen_wrapper,@function\n"
						  "dlnote_dlopen_wrapper:\n"
						  "\tmovl $-1, %ecx\n"
						  "dlnote_dlopen_common:\n"
						  "\tpushl %ecx\n"    /* the stub's number */
						  "\tpushl 8(%esp)\n" /* name */
						  "\tpushl 8(%esp)\n" /* the return address */
						  "\tcall dlnote_before_dlopen\n"
						  "\taddl $12, %esp\n"
						  "\tcall 1f\n"
						  "1:\tpopl %ecx\n"
						  "\tjmp *(dlnote_real_dlopen-1b)(%ecx)\n"
						  ".size dlnote_dlopen_wrapper, "
						  ".-dlnote_dlopen_wrapper\n");
#elif defined(__aarch64__)
/* The return address is in x30; x16 and x17 are free between a call and its callee. */
__asm__(".text\n"
	".macro b_common\n\tb dlnote_dlopen_common\n.endm\n" STUB_LOOP(
		3, "\tmov x17, dlnote_stub_i") ".globl dlnote_dlopen_wrapper\n.hidden "
					       "dlnote_dlopen_wrapper\n"
					       ".type dlnote_dlopen_wrapper,%function\n"
					       "dlnote_dlopen_wrapper:\n"
					       "\tmov x17, -1\n"
					       "dlnote_dlopen_common:\n"
					       "\tstp x29, x30, [sp, -32]!\n"
					       "\tmov x29, sp\n"
					       "\tstp x0, x1, [sp, 16]\n"
					       "\tmov x1, x0\n\tmov x0, x30\n\tmov w2, w17\n"
					       "\tbl dlnote_before_dlopen\n"
					       "\tldp x0, x1, [sp, 16]\n"
					       "\tldp x29, x30, [sp], 32\n"
					       "\tadrp x16, dlnote_real_dlopen\n"
					       "\tldr x16, [x16, :lo12:dlnote_real_dlopen]\n"
					       "\tbr x16\n"
					       ".size dlnote_dlopen_wrapper, "
					       ".-dlnote_dlopen_wrapper\n");
#elif defined(__arm__)
/* ARM state whatever the C code's (the PLT's ldr pc interworks): the return address is in lr,
 * four registers keep the stack 8-byte aligned, ip (r12) is free between call and callee. */
__asm__(".text\n"
	".arm\n"
	".macro b_common\n\tb dlnote_dlopen_common\n.endm\n" STUB_LOOP(
		3, "\tmov ip, #dlnote_stub_i") ".globl dlnote_dlopen_wrapper\n.hidden "
					       "dlnote_dlopen_wrapper\n"
					       ".type dlnote_dlopen_wrapper,%function\n"
					       "dlnote_dlopen_wrapper:\n"
					       "\tmvn ip, #0\n"
					       "dlnote_dlopen_common:\n"
					       "\tpush {r0, r1, r2, lr}\n"
					       "\tmov r2, ip\n\tmov r1, r0\n\tmov r0, lr\n"
					       "\tbl dlnote_before_dlopen\n"
					       "\tpop {r0, r1, r2, lr}\n"
					       "\tldr ip, 2f\n"
					       "1:\tadd ip, pc, ip\n"
					       "\tldr ip, [ip]\n"
					       "\tbx ip\n"
					       "2:\t.word dlnote_real_dlopen-(1b+8)\n"
					       ".size dlnote_dlopen_wrapper, "
					       ".-dlnote_dlopen_wrapper\n");
#else
/* RISC-V 64: the return address is in ra; t0 and t1 are free between call and callee.  No
 * compressed instructions in the stubs: each is two 4-byte instructions. */
__asm__(".text\n"
	".option push\n.option norvc\n"
	".macro b_common\n\tj dlnote_dlopen_common\n.endm\n" STUB_LOOP(
		3,
		"\tli t0, dlnote_stub_i") ".option pop\n"
					  ".globl dlnote_dlopen_wrapper\n.hidden "
					  "dlnote_dlopen_wrapper\n"
					  ".type dlnote_dlopen_wrapper,@function\n"
					  "dlnote_dlopen_wrapper:\n"
					  "\tli t0, -1\n"
					  "dlnote_dlopen_common:\n"
					  "\taddi sp, sp, -32\n"
					  "\tsd ra, 0(sp)\n\tsd a0, 8(sp)\n\tsd a1, 16(sp)\n"
					  "\tmv a2, t0\n\tmv a1, a0\n\tmv a0, ra\n"
					  "\tcall dlnote_before_dlopen\n"
					  "\tld ra, 0(sp)\n\tld a0, 8(sp)\n\tld a1, 16(sp)\n"
					  "\taddi sp, sp, 32\n"
					  "1:\tauipc t1, %pcrel_hi(dlnote_real_dlopen)\n"
					  "\tld t1, %pcrel_lo(1b)(t1)\n"
					  "\tjr t1\n"
					  ".size dlnote_dlopen_wrapper, .-dlnote_dlopen_wrapper\n");
#endif
#else
/* No wrapper on this machine: an empty translation unit is not ISO C. */
typedef int audit_stubs_unused;
#endif
