// SPDX-License-Identifier: MIT
// The PTX path's steps, shared by its files (private to ptx/; ptx_backend.h is the folder's
// interface). Each step is there because NVIDIA's driver or LLVM's NVPTX back end needs it:
//  1. Address spaces: SPIR numbers them private 0, global 1, constant 2, local 3, generic 4;
//     NVPTX generic 0, global 1, shared 3, const 4, and OpenCL private and generic are its
//     generic 0. The module is cloned with every type mapped (LLVM has no in-place retyping).
//  2. Calling conventions: spir_kernel becomes ptx_kernel (a `.entry`), spir_func C.
//  3. Builtins: the SPIR-V reader writes each OpenCL C builtin as a call by its SPIR-mangled
//     name, and NVPTX mangles address spaces differently (constant is AS4 there, generic and
//     private are unqualified). Each one becomes a one-line OpenCL C function compiled by the
//     in-process Clang for nvptx64-nvidia-nvcl, which calls the builtin under NVPTX's mangling:
//     libclc's definition, or the work-item functions of builtins-cl/ptx-runtime/.
//  4. Everything but the kernels is internalised and LLVM's O3 pipeline runs (the driver's JIT
//     sees PTX only: what LLVM leaves in local memory stays there), then the NVPTX back end with
//     the "nvcl" driver interface writes the PTX: `.ptr .global/.shared/.const` kernel
//     parameters, as NVIDIA's own OpenCL compiler writes them.
// Steps 1 and 2 are spir_to_ptx.cpp's (a module from source is in NVPTX's form already), step 3
// builtin_binding.cpp's, step 4 ptx_backend.cpp's; source_to_ptx.cpp is the OpenCL C front end.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace isg {
struct DeviceTraits;
}

namespace isg::detail {

constexpr const char* kTriple = "nvptx64-nvidia-nvcl";

// Where a module bound for PTX comes from: the SPIR-V reader (SPIR's mangling and address
// spaces, moved by toNvptx) or the layer's Clang compiling OpenCL C for NVPTX (NVPTX's own).
enum class Origin { Spirv, Source };

inline const char* originName(Origin origin) {
  return origin == Origin::Spirv ? "programs from SPIR-V" : "the layer's OpenCL C front end";
}

// Binds the module's OpenCL C builtin calls (step 3) and links the work-item
// functions. A module from source already calls the builtins under NVPTX's mangling: only
// those whose NVPTX call differs from libclc's (nvptxCall) get a shim. False with *log.
bool bindBuiltins(llvm::Module& m, const DeviceTraits& traits, Origin origin, std::string* log);

// Links what the module still declares from libclc's nvptx64--nvidiacl.bc; false with a build-log
// error for each builtin libclc does not define either.
bool linkLibclc(llvm::Module& m, Origin origin, std::string* log);

// The NVPTX target for `computeCapability` (0: sm_70) with the math of
// the application's `options`; null with *log.
std::unique_ptr<llvm::TargetMachine> targetMachine(unsigned computeCapability, const std::string& options,
                                                   std::string* log);

// Errors LLVM reports through the context (an inline asm the back end cannot take) go to
// *sink: without a handler LLVM prints them and ends the process.
void collectErrors(llvm::LLVMContext& context, std::string* sink);

// Step 4, for a module in NVPTX's spaces whose kernels are `ptx_kernel` and
// whose builtin calls are bound: libclc, the kernels' launch bounds, O3, and the PTX, written in
// a child. `diagnostics` is where the context collects the back end's errors.
bool writePtx(llvm::Module& m, llvm::TargetMachine& tm, const std::string& options, Origin origin,
              const std::string& diagnostics, std::string* ptx, std::string* log);

}  // namespace isg::detail
