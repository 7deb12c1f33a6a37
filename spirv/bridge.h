// SPDX-License-Identifier: MIT
// The C interface of libIntelSubgroupsSpirv.so, the SPIR-V <-> LLVM bitcode bridge
// (docs/design.md, "Programs from SPIR-V"). Debian ships SPIRV-LLVM-Translator only as a shared
// library on the shared libLLVM-15, while the layer links its LLVM statically and hidden; the
// bridge therefore lives in its own library, loaded by the rewriter with dlmopen into a link
// namespace of its own, and the two sides exchange bytes only: SPIR-V words one way, LLVM 15
// bitcode (which the layer's own LLVM 15 reads and writes) the other.
//
// Memory the bridge returns belongs to the bridge's namespace (it has its own C library there)
// and goes back through isg_spirv_free.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ISG_SPIRV_BRIDGE_ABI 1

typedef struct isg_spirv_bytes {
  char* data;
  size_t size;
} isg_spirv_bytes;

// The bridge's ABI version (ISG_SPIRV_BRIDGE_ABI): the rewriter refuses a bridge of another.
int isg_spirv_abi(void);

// SPIR-V module (words in host byte order or swapped) -> LLVM bitcode whose builtins are calls of
// the OpenCL C functions by their Itanium-mangled names. Every SPIR-V extension the translator
// knows is accepted. Returns 0 and fills *bitcode, or non-zero and fills *error with the
// translator's message.
int isg_spirv_to_bitcode(const void* spirv, size_t size, isg_spirv_bytes* bitcode,
                         isg_spirv_bytes* error);

// LLVM bitcode -> SPIR-V of version at most `max_version` (0x00010000 = 1.0 ... 0x00010400 = 1.4)
// using only core and KHR capabilities (no vendor extension), for drivers that take SPIR-V but
// not Intel's extensions. Returns 0 and fills *spirv, or non-zero and fills *error.
int isg_bitcode_to_spirv(const void* bitcode, size_t size, unsigned max_version,
                         isg_spirv_bytes* spirv, isg_spirv_bytes* error);

void isg_spirv_free(isg_spirv_bytes* bytes);

#ifdef __cplusplus
}
#endif
