/* weft_jump_fcontext: Boost.Context 1.74's jump_fcontext for x86-64 SysV
   (src/asm/jump_x86_64_sysv_elf_gas.S), with one difference: it leaves
   through `ret` instead of `pop + jmp *%r8`.

   Same arguments and results (fcontext_t to, void* data -> transfer_t{from,
   data}), same 0x40-byte frame (MXCSR and x87 control word at 0x0/0x4,
   r12-r15, rbx, rbp at 0x8-0x30, the resume address at 0x38), so contexts
   made by Boost's make_fcontext and saved by either routine are
   interchangeable. See context_switch.hpp for why `ret`: a `call` that is
   never matched by a `ret` leaves the CPU's return-stack predictor one entry
   off, and every return the resumed ULT then makes up its call chain is
   mispredicted. */

#if defined(__x86_64__) && defined(__ELF__)

.text
.globl weft_jump_fcontext
.type weft_jump_fcontext,@function
.align 16
weft_jump_fcontext:
    /* the caller pushed the return address: the frame's 0x38 slot */
    leaq  -0x38(%rsp), %rsp
    stmxcsr  (%rsp)
    fnstcw   0x4(%rsp)
    movq  %r12, 0x8(%rsp)
    movq  %r13, 0x10(%rsp)
    movq  %r14, 0x18(%rsp)
    movq  %r15, 0x20(%rsp)
    movq  %rbx, 0x28(%rsp)
    movq  %rbp, 0x30(%rsp)

    /* the saved context is this frame; switch to the other one */
    movq  %rsp, %rax
    movq  %rdi, %rsp

    ldmxcsr  (%rsp)
    fldcw    0x4(%rsp)
    movq  0x8(%rsp), %r12
    movq  0x10(%rsp), %r13
    movq  0x18(%rsp), %r14
    movq  0x20(%rsp), %r15
    movq  0x28(%rsp), %rbx
    movq  0x30(%rsp), %rbp
    leaq  0x38(%rsp), %rsp

    /* transfer_t{from, data}: rax:rdx as a result, rdi:rsi as the first
       argument of a context entered for the first time */
    movq  %rsi, %rdx
    movq  %rax, %rdi
    ret
.size weft_jump_fcontext,.-weft_jump_fcontext

#endif

.section .note.GNU-stack,"",%progbits
