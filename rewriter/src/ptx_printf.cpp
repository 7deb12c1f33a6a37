// SPDX-License-Identifier: MIT
// printf on the layer's PTX path (ptx_printf.h).
#include "ptx_printf.h"

#include <map>
#include <vector>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace isg::detail {
namespace {

constexpr unsigned kGlobal = 1;

// A generic pointer for a pointer argument: a constant string (OpenCL C's are in the constant
// space) as a copy in global memory, where NVIDIA's compiler puts its printf strings; any other
// pointer cast to the generic space. nullptr for `required` strings that are no constant.
llvm::Value* genericString(llvm::IRBuilder<>& b, llvm::Value* v, bool required,
                           std::map<llvm::GlobalVariable*, llvm::GlobalVariable*>* copies) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  int64_t offset = 0;
  auto* base = llvm::dyn_cast<llvm::GlobalVariable>(
      llvm::GetPointerBaseWithConstantOffset(v, offset, m.getDataLayout()));
  llvm::PointerType* generic = llvm::PointerType::get(m.getContext(), 0);
  if (base && base->isConstant() && base->hasInitializer()) {
    llvm::GlobalVariable*& copy = (*copies)[base];
    if (!copy)
      copy = new llvm::GlobalVariable(m, base->getValueType(), true, llvm::GlobalValue::PrivateLinkage,
                                      base->getInitializer(), "__isg_printf_str", nullptr,
                                      llvm::GlobalValue::NotThreadLocal, kGlobal);
    llvm::Value* at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy, uint64_t(offset));
    return b.CreateAddrSpaceCast(at, generic);
  }
  if (required) return nullptr;
  return v->getType()->getPointerAddressSpace() == 0 ? v : b.CreateAddrSpaceCast(v, generic);
}

}  // namespace

bool lowerPrintf(llvm::Module& m, std::string* log) {
  llvm::Function* printf = m.getFunction("printf");
  if (!printf || printf->use_empty()) return true;
  llvm::LLVMContext& c = m.getContext();
  llvm::PointerType* generic = llvm::PointerType::get(c, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::FunctionCallee vprintf =
      m.getOrInsertFunction(kVprintf, llvm::FunctionType::get(i32, {generic, generic}, false));
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* u : printf->users())
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(u); call && call->getCalledFunction() == printf)
      calls.push_back(call);
  std::map<llvm::GlobalVariable*, llvm::GlobalVariable*> copies;
  for (llvm::CallInst* call : calls) {
    llvm::IRBuilder<> b(call);
    llvm::Value* format = call->arg_size() ? genericString(b, call->getArgOperand(0), true, &copies) : nullptr;
    if (!format) {
      *log += "error: a printf whose format is no constant string, which NVIDIA devices do not print\n";
      return false;
    }
    std::vector<llvm::Value*> args;
    for (unsigned i = 1; i < call->arg_size(); ++i) {
      llvm::Value* a = call->getArgOperand(i);
      // vprintf takes C's promoted arguments: float and half as double, which Clang gives
      // OpenCL C only where the device has doubles.
      if (a->getType()->isFloatTy() || a->getType()->isHalfTy()) a = b.CreateFPExt(a, b.getDoubleTy());
      args.push_back(a->getType()->isPointerTy() ? genericString(b, a, false, &copies) : a);
    }
    llvm::Value* buffer = llvm::ConstantPointerNull::get(generic);
    if (!args.empty()) {
      std::vector<llvm::Type*> types;
      for (llvm::Value* a : args) types.push_back(a->getType());
      llvm::StructType* layout = llvm::StructType::get(c, types);  // natural alignment, as NVIDIA's
      llvm::Function* f = call->getFunction();
      llvm::IRBuilder<> entry(&*f->getEntryBlock().getFirstInsertionPt());
      llvm::AllocaInst* slot = entry.CreateAlloca(layout, nullptr, "printf.args");
      for (unsigned i = 0; i < args.size(); ++i) b.CreateStore(args[i], b.CreateStructGEP(layout, slot, i));
      buffer = slot->getType()->getPointerAddressSpace() == 0 ? static_cast<llvm::Value*>(slot)
                                                              : b.CreateAddrSpaceCast(slot, generic);
    }
    llvm::Value* r = b.CreateCall(vprintf, {format, buffer});
    llvm::Value* status = b.CreateSelect(b.CreateICmpSLT(r, b.getInt32(0)), b.getInt32(-1), b.getInt32(0));
    call->replaceAllUsesWith(b.CreateSExtOrTrunc(status, call->getType()));
    call->eraseFromParent();
  }
  return true;
}

}  // namespace isg::detail
