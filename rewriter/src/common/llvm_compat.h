// SPDX-License-Identifier: MIT
// What differs between the LLVM/Clang versions the rewriter builds against (15 to 19,
// cmake/llvm.cmake), in one place: each helper is the one spelling the rest of the code uses.
#pragma once

#include <llvm/ADT/StringRef.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>  // (16's SROA.h needs LoadInst complete)
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/CodeGen.h>
#include <llvm/Transforms/Scalar/SROA.h>

// Typed pointers (a context's choice until 16; 17 removed them): the module pipeline reads the
// translator's with them, so a layer built with a later LLVM has no SPIR-V bridge
// (cmake/llvm.cmake). The preprocessor's spelling, for code that names typed-pointer API.
#define ISG_LLVM_TYPED_POINTERS (LLVM_VERSION_MAJOR < 17)

namespace isg::detail {

// StringRef's startswith became starts_with in 16; 19 has only the new name.
inline bool startsWith(llvm::StringRef s, llvm::StringRef prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

// Moves every block of `from` to the start of `to` (16 made the block list private).
inline void moveBlocks(llvm::Function& to, llvm::Function& from) {
#if LLVM_VERSION_MAJOR >= 16
  to.splice(to.begin(), &from);
#else
  to.getBasicBlockList().splice(to.begin(), from.getBasicBlockList());
#endif
}

// Opaque pointers, which libclc's bitcode and the NVPTX path assume.
inline void useOpaquePointers([[maybe_unused]] llvm::LLVMContext& context) {
#if ISG_LLVM_TYPED_POINTERS
  context.setOpaquePointers(true);
#endif
}

// SROA, allowed to change the control flow (16 made that a choice).
inline llvm::SROAPass sroa() {
#if LLVM_VERSION_MAJOR >= 16
  return llvm::SROAPass(llvm::SROAOptions::ModifyCFG);
#else
  return llvm::SROAPass();
#endif
}

constexpr bool kTypedPointers = ISG_LLVM_TYPED_POINTERS;

// The code generator's enumerations, renamed in 18.
#if LLVM_VERSION_MAJOR >= 18
constexpr llvm::CodeGenFileType kAssemblyFile = llvm::CodeGenFileType::AssemblyFile;
constexpr llvm::CodeGenOptLevel kAggressive = llvm::CodeGenOptLevel::Aggressive;
#else
constexpr llvm::CodeGenFileType kAssemblyFile = llvm::CGFT_AssemblyFile;
constexpr llvm::CodeGenOpt::Level kAggressive = llvm::CodeGenOpt::Aggressive;
#endif

// The diagnostic handler's callback takes the diagnostic by pointer since 19 (by reference before).
#if LLVM_VERSION_MAJOR >= 19
using DiagnosticArg = const llvm::DiagnosticInfo*;
inline const llvm::DiagnosticInfo& diagnosticOf(DiagnosticArg d) { return *d; }
#else
using DiagnosticArg = const llvm::DiagnosticInfo&;
inline const llvm::DiagnosticInfo& diagnosticOf(DiagnosticArg d) { return d; }
#endif

}  // namespace isg::detail
