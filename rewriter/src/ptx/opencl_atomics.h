// SPDX-License-Identifier: MIT
// OpenCL C 2.0's atomics as LLVM's atomic instructions, for modules that go on as SPIR bitcode
// or as PTX (module_rewriter.cpp, ptx_backend.cpp): their consumers have no library for them.
#pragma once

namespace llvm {
class Module;
}

namespace isg::detail {

// The SPIR-V reader writes every atomic instruction as a call of OpenCL C 2.0's atomics
// (atomic_fetch_add_explicit, ... on generic pointers), which neither libclc 15 nor PoCL's
// library for SPIR input has: each such call becomes LLVM's atomic instruction (atomicrmw,
// cmpxchg, atomic load/store) with the call's order (sequentially consistent when the order is
// not a constant or not given) at system scope. For SPIR bitcode and for PTX.
void lowerOpenclAtomics(llvm::Module& m);

}  // namespace isg::detail
