/* SPDX-License-Identifier: MIT */
/* The assembled test modules inside the test executable (the GPU machine runs staged copies of
   the executables, without the build tree beside them). */
  .section .rodata
  .p2align 4
  .globl isg_test_spirv_begin
  .hidden isg_test_spirv_begin
isg_test_spirv_begin:
  .incbin ISG_SPIRV_MODULE
  .globl isg_test_spirv_end
  .hidden isg_test_spirv_end
isg_test_spirv_end:
  .byte 0
  .p2align 4
  .globl isg_test_spirv_us16_begin
  .hidden isg_test_spirv_us16_begin
isg_test_spirv_us16_begin:
  .incbin ISG_SPIRV_US16_MODULE
  .globl isg_test_spirv_us16_end
  .hidden isg_test_spirv_us16_end
isg_test_spirv_us16_end:
  .byte 0
  .section .note.GNU-stack,"",@progbits
