// SPDX-License-Identifier: MIT
#include "ptx/launch_shape.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "ptx/ptx_kernels.h"

namespace isg::detail {

namespace {

// The words of a packed launch's description (ptx-runtime/workitems.cl, __ISG_PACK_*).
constexpr unsigned kPackWords = 12;
constexpr unsigned kWarp = 32;

std::vector<llvm::Function*> definedKernels(llvm::Module& m) {
  std::vector<llvm::Function*> kernels;
  for (llvm::Function& f : m)
    if (f.getCallingConv() == llvm::CallingConv::PTX_Kernel && !f.isDeclaration()) kernels.push_back(&f);
  return kernels;
}

// f with one more parameter, a `type` by value (aligned to 8), named `name`; f is gone.
llvm::Function* withHiddenParameter(llvm::Function& f, llvm::Type* type, const char* name) {
  llvm::LLVMContext& c = f.getContext();
  const unsigned index = unsigned(f.arg_size());
  std::vector<llvm::Type*> types(f.getFunctionType()->param_begin(), f.getFunctionType()->param_end());
  types.push_back(llvm::PointerType::get(c, 0));
  llvm::Function* fresh = withParameters(f, types);
  fresh->addParamAttr(index, llvm::Attribute::getWithByValType(c, type));
  fresh->addParamAttr(index, llvm::Attribute::getWithAlignment(c, llvm::Align(8)));
  for (llvm::Argument& a : f.args()) {
    fresh->getArg(a.getArgNo())->takeName(&a);
    a.replaceAllUsesWith(fresh->getArg(a.getArgNo()));
  }
  fresh->getArg(index)->setName(name);
  replaceFunction(f, fresh);
  return fresh;
}

// The kernel's entry block cut after its allocas, which stay first (static stack slots, which
// SROA promotes; an image handle left in one is no .texref NVPTX can write): returns the entry,
// now without a terminator, for the code that decides whether the work-item goes on.
llvm::BasicBlock* splitEntry(llvm::Function& f, const std::string& what) {
  llvm::BasicBlock* entry = &f.getEntryBlock();
  std::vector<llvm::AllocaInst*> slots;
  for (llvm::Instruction& i : *entry)
    if (auto* a = llvm::dyn_cast<llvm::AllocaInst>(&i); a && llvm::isa<llvm::Constant>(a->getArraySize()))
      slots.push_back(a);
  for (auto it = slots.rbegin(); it != slots.rend(); ++it) (*it)->moveBefore(&entry->front());
  llvm::BasicBlock::iterator at = entry->begin();
  while (llvm::isa<llvm::AllocaInst>(*at)) ++at;
  entry->splitBasicBlock(at, what + ".inside");
  entry->getTerminator()->eraseFromParent();
  return entry;
}

// Ends the entry `b` builds in: the work-item returns where `leave` holds, else goes on into
// the block splitEntry cut off.
void leaveWhere(llvm::IRBuilder<>& b, llvm::Value* leave, const std::string& what) {
  llvm::BasicBlock* entry = b.GetInsertBlock();
  llvm::BasicBlock* body = entry->getNextNode();
  llvm::BasicBlock* out = llvm::BasicBlock::Create(b.getContext(), what + ".outside", entry->getParent(), body);
  llvm::IRBuilder<>(out).CreateRetVoid();
  b.CreateCondBr(leave, out, body);
}

// The functions that use a __local variable of the program (the layer's own launch words are
// per CTA, which is what they describe).
std::set<const llvm::Function*> localMemoryUsers(llvm::Module& m) {
  std::set<const llvm::Function*> users;
  for (llvm::GlobalVariable& g : m.globals()) {
    if (g.getAddressSpace() != 3 || g.getName() == "__isg_launch_shape") continue;
    std::vector<const llvm::User*> work(g.user_begin(), g.user_end());
    while (!work.empty()) {
      const llvm::User* u = work.back();
      work.pop_back();
      if (const auto* i = llvm::dyn_cast<llvm::Instruction>(u))
        users.insert(i->getFunction());
      else
        work.insert(work.end(), u->user_begin(), u->user_end());
    }
  }
  return users;
}

// Whether `kernel` can run packed (appendPackedLaunch).
bool canPack(llvm::Function& kernel, const std::vector<KernelManifest>& rewritten,
             const std::set<const llvm::Function*>& localUsers) {
  const llvm::MDNode* w = kernel.getMetadata("reqd_work_group_size");
  if (!w || w->getNumOperands() != 3) return false;
  uint64_t items = 1;
  for (unsigned d = 0; d < 3; ++d) {
    const auto* n = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(w->getOperand(d));
    if (!n || n->isZero()) return false;
    items *= n->getZExtValue();
  }
  if (items >= kWarp || kWarp % items != 0) return false;
  for (const KernelManifest& k : rewritten)
    if (k.name == kernel.getName() && !k.families.empty() &&
        (k.launchSubGroupSize || k.subGroupSize == 0 || items % k.subGroupSize != 0))
      return false;
  for (const llvm::Argument& a : kernel.args())
    if (auto* p = llvm::dyn_cast<llvm::PointerType>(a.getType()); p && p->getAddressSpace() == 3) return false;
  // Everything it calls: a call through a pointer (none in OpenCL C) keeps it as it is.
  std::set<const llvm::Function*> seen{&kernel};
  std::vector<const llvm::Function*> work{&kernel};
  while (!work.empty()) {
    const llvm::Function* f = work.back();
    work.pop_back();
    if (localUsers.count(f)) return false;
    for (const llvm::BasicBlock& bb : *f)
      for (const llvm::Instruction& i : bb) {
        const auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
        if (!call) continue;
        const llvm::Function* callee = call->getCalledFunction();
        if (!callee && !call->isInlineAsm()) return false;
        if (callee && seen.insert(callee).second) work.push_back(callee);
      }
  }
  return true;
}

}  // namespace

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

  for (llvm::Function* f : definedKernels(m)) {
    const unsigned index = unsigned(f->arg_size());
    llvm::Function* fresh = withHiddenParameter(*f, shape, "__isg_launch");
    llvm::IRBuilder<> b(splitEntry(*fresh, "launch"));
    llvm::Value* global[3];
    for (unsigned d = 0; d < 3; ++d) {
      global[d] = b.CreateLoad(i64, b.CreateConstInBoundsGEP2_32(shape, fresh->getArg(index), 0, d));
      b.CreateStore(global[d], b.CreateConstInBoundsGEP2_32(shape, shared, 0, d));
    }
    leaveWhere(b, b.CreateCall(outside, {global[0], global[1], global[2]}), "launch");
    shaped.push_back({fresh->getName().str(), {HiddenArg::Kind::LaunchShape, index, 0}});
  }
  return shaped;
}

void appendPackedLaunch(llvm::Module& m, const std::vector<KernelManifest>* rewritten, ShapedKernels* shaped) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::ArrayType* words = llvm::ArrayType::get(i64, kPackWords);
  llvm::Function* reader = m.getFunction("__isg_pack");
  llvm::Function* outside = m.getFunction("__isg_pack_outside");
  if (!reader || !reader->isDeclaration()) return;  // no work-item functions: nothing to pack
  std::vector<llvm::Function*> packed;
  if (rewritten && outside && !outside->isDeclaration()) {
    const std::set<const llvm::Function*> local = localMemoryUsers(m);
    for (llvm::Function* f : definedKernels(m))
      if (canPack(*f, *rewritten, local)) packed.push_back(f);
  }
  llvm::IRBuilder<> r(llvm::BasicBlock::Create(c, "", reader));
  reader->setLinkage(llvm::GlobalValue::InternalLinkage);
  if (packed.empty()) {
    r.CreateRet(llvm::ConstantInt::get(i64, 0));
    return;
  }
  // Shared memory, as the launch shape (every work-item stores the same values).
  auto* store = new llvm::GlobalVariable(m, words, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(words), "__isg_pack_launch", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  llvm::Value* i = reader->getArg(0);
  llvm::Value* inside = r.CreateICmpULT(i, r.getInt32(kPackWords));
  llvm::Value* at = r.CreateInBoundsGEP(words, store, {r.getInt32(0), r.CreateSelect(inside, i, r.getInt32(0))});
  r.CreateRet(r.CreateSelect(inside, r.CreateLoad(i64, at), llvm::ConstantInt::get(i64, 0)));
  // The module's other kernels run as launched: they say so where the work-item functions read.
  for (llvm::Function* f : definedKernels(m)) {
    if (std::find(packed.begin(), packed.end(), f) != packed.end()) continue;
    llvm::BasicBlock& entry = f->getEntryBlock();
    llvm::BasicBlock::iterator at = entry.begin();
    while (llvm::isa<llvm::AllocaInst>(*at)) ++at;
    llvm::IRBuilder<> b(&entry, at);
    b.CreateStore(llvm::ConstantInt::get(i64, 0), b.CreateConstInBoundsGEP2_32(words, store, 0, 0));
  }
  for (llvm::Function* f : packed) {
    const unsigned index = unsigned(f->arg_size());
    llvm::Function* fresh = withHiddenParameter(*f, words, "__isg_pack_launch");
    fresh->addFnAttr(kPackedKernel);
    // First in the entry: the launch shape's check (appendLaunchShape) reads the work-item
    // functions, which read this.
    llvm::IRBuilder<> b(splitEntry(*fresh, "pack"));
    for (unsigned w = 0; w < kPackWords; ++w)
      b.CreateStore(b.CreateLoad(i64, b.CreateConstInBoundsGEP2_32(words, fresh->getArg(index), 0, w)),
                    b.CreateConstInBoundsGEP2_32(words, store, 0, w));
    leaveWhere(b, b.CreateCall(outside), "pack");
    shaped->push_back({fresh->getName().str(), {HiddenArg::Kind::PackedLaunch, index, 0}});
  }
}

void recordLaunchShape(const ShapedKernels& shaped, std::vector<KernelManifest>* kernels) {
  for (const auto& [name, arg] : shaped)
    for (KernelManifest& k : *kernels)
      if (k.name == name) k.hiddenArgs.push_back(arg);
}

}  // namespace isg::detail
