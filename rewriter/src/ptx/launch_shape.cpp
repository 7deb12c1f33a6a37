// SPDX-License-Identifier: MIT
#include "ptx/launch_shape.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <vector>

#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "ptx/ptx_kernels.h"

namespace isg::detail {

ShapedKernels appendLaunchShape(llvm::Module& m, bool uniform) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::ArrayType* shape = llvm::ArrayType::get(i64, 3);
  llvm::Function* reader = m.getFunction("__isg_launch_global");
  llvm::Function* outside = m.getFunction("__isg_launch_outside");
  if (!outside || outside->isDeclaration()) uniform = true;
  // Shared memory: a kernel parameter is the entry's alone, and the work-item functions may be
  // called from any function. Every work-item stores the same values.
  llvm::GlobalVariable* shared =
      uniform ? nullptr
              : new llvm::GlobalVariable(m, shape, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(shape), "__isg_launch_shape", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  if (reader && reader->isDeclaration()) {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(c, "", reader));
    if (!shared) {
      b.CreateRet(llvm::ConstantInt::get(i64, 0));
    } else {
      llvm::Value* d = reader->getArg(0);
      llvm::Value* inside = b.CreateICmpULT(d, b.getInt32(3));
      llvm::Value* at = b.CreateInBoundsGEP(shape, shared, {b.getInt32(0), b.CreateSelect(inside, d, b.getInt32(0))});
      b.CreateRet(b.CreateSelect(inside, b.CreateLoad(i64, at), llvm::ConstantInt::get(i64, 0)));
    }
    reader->setLinkage(llvm::GlobalValue::InternalLinkage);
  }
  ShapedKernels shaped;
  if (uniform) return shaped;

  std::vector<llvm::Function*> kernels;
  for (llvm::Function& f : m)
    if (f.getCallingConv() == llvm::CallingConv::PTX_Kernel && !f.isDeclaration()) kernels.push_back(&f);
  for (llvm::Function* f : kernels) {
    const unsigned index = unsigned(f->arg_size());
    std::vector<llvm::Type*> types(f->getFunctionType()->param_begin(), f->getFunctionType()->param_end());
    types.push_back(llvm::PointerType::get(c, 0));
    llvm::Function* fresh = withParameters(*f, types);
    fresh->addParamAttr(index, llvm::Attribute::getWithByValType(c, shape));
    fresh->addParamAttr(index, llvm::Attribute::getWithAlignment(c, llvm::Align(8)));
    for (llvm::Argument& a : f->args()) {
      fresh->getArg(a.getArgNo())->takeName(&a);
      a.replaceAllUsesWith(fresh->getArg(a.getArgNo()));
    }
    fresh->getArg(index)->setName("__isg_launch");
    replaceFunction(*f, fresh);

    // The entry's allocas stay in the entry block, first (static stack slots, which SROA
    // promotes; an image handle left in one is no .texref NVPTX can write); the check follows.
    llvm::BasicBlock* entry = &fresh->getEntryBlock();
    std::vector<llvm::AllocaInst*> slots;
    for (llvm::Instruction& i : *entry)
      if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&i); a && llvm::isa<llvm::Constant>(a->getArraySize()))
        slots.push_back(a);
    for (auto it = slots.rbegin(); it != slots.rend(); ++it) (*it)->moveBefore(&entry->front());
    llvm::BasicBlock::iterator at = entry->begin();
    while (llvm::isa<llvm::AllocaInst>(*at)) ++at;
    llvm::BasicBlock* body = entry->splitBasicBlock(at, "launch.inside");
    entry->getTerminator()->eraseFromParent();
    llvm::BasicBlock* leave = llvm::BasicBlock::Create(c, "launch.outside", fresh, body);
    llvm::IRBuilder<>(leave).CreateRetVoid();
    llvm::IRBuilder<> b(entry);
    llvm::Value* global[3];
    for (unsigned d = 0; d < 3; ++d) {
      global[d] = b.CreateLoad(i64, b.CreateConstInBoundsGEP2_32(shape, fresh->getArg(index), 0, d));
      b.CreateStore(global[d], b.CreateConstInBoundsGEP2_32(shape, shared, 0, d));
    }
    b.CreateCondBr(b.CreateCall(outside, {global[0], global[1], global[2]}), leave, body);
    shaped.emplace_back(fresh->getName().str(), index);
  }
  return shaped;
}

void recordLaunchShape(const ShapedKernels& shaped, std::vector<KernelManifest>* kernels) {
  for (const auto& [name, index] : shaped)
    for (KernelManifest& k : *kernels)
      if (k.name == name) k.hiddenArgs.push_back({HiddenArg::Kind::LaunchShape, index, 0});
}

}  // namespace isg::detail
