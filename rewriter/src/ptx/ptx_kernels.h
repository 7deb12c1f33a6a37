// SPDX-License-Identifier: MIT
// Kernels on the PTX path: Clang's (and the SPIR-V reader's) per-argument metadata, and a kernel
// rebuilt with other parameters (LLVM has no in-place change of a function's type).
#pragma once

#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <string>
#include <vector>

#include "common/llvm_compat.h"

namespace isg::detail {

// The strings of `kind` for each of f's arguments ("" where an operand is no string); empty when
// the kernel has none or not one per argument.
inline std::vector<std::string> kernelArgStrings(const llvm::Function& f, const char* kind) {
  std::vector<std::string> out;
  const llvm::MDNode* node = f.getMetadata(kind);
  if (!node || node->getNumOperands() != f.arg_size()) return out;
  for (const llvm::MDOperand& op : node->operands()) {
    const auto* text = llvm::dyn_cast_or_null<llvm::MDString>(op.get());
    out.push_back(text ? text->getString().str() : std::string());
  }
  return out;
}

// A function of `params` (and f's return type) that takes over f's name, attributes, calling
// convention, metadata and body; the caller maps f's arguments onto its own and then calls
// replaceFunction.
inline llvm::Function* withParameters(llvm::Function& f, const std::vector<llvm::Type*>& params) {
  auto* fresh = llvm::Function::Create(llvm::FunctionType::get(f.getReturnType(), params, false), f.getLinkage(),
                                       f.getAddressSpace(), "", f.getParent());
  fresh->takeName(&f);
  fresh->copyAttributesFrom(&f);
  fresh->setCallingConv(f.getCallingConv());
  fresh->copyMetadata(&f, 0);
  moveBlocks(*fresh, f);
  return fresh;
}

// `fresh` (withParameters) in f's place everywhere, metadata included; f is gone.
inline void replaceFunction(llvm::Function& f, llvm::Function* fresh) {
  f.replaceAllUsesWith(fresh);
  f.eraseFromParent();
}

}  // namespace isg::detail
