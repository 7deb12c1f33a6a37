// SPDX-License-Identifier: MIT
// OpenCL C 2.0's atomics to LLVM's atomic instructions (opencl_atomics.h).
#include "ptx/opencl_atomics.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

#include "common/mangled_names.h"

namespace isg::detail {
namespace {

// OpenCL C 2.0's atomics (opencl_atomics.h) become LLVM's atomic
// instructions, which the NVPTX back end writes as atom/ld/st. The forms without _explicit are
// sequentially consistent, as OpenCL C defines them; an order that is not a constant is taken
// as sequentially consistent. The scope is the system's, which covers every narrower one.
llvm::AtomicOrdering ordering(llvm::Value* v, bool load, bool store) {
  auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(v);
  llvm::AtomicOrdering o = llvm::AtomicOrdering::SequentiallyConsistent;
  if (c) switch (c->getZExtValue()) {  // memory_order_relaxed, _acquire, _release, _acq_rel
      case 0: o = llvm::AtomicOrdering::Monotonic; break;
      case 2: o = llvm::AtomicOrdering::Acquire; break;
      case 3: o = llvm::AtomicOrdering::Release; break;
      case 4: o = llvm::AtomicOrdering::AcquireRelease; break;
      default: break;
    }
  if (load && (o == llvm::AtomicOrdering::Release || o == llvm::AtomicOrdering::AcquireRelease))
    o = llvm::AtomicOrdering::Acquire;
  if (store && (o == llvm::AtomicOrdering::Acquire || o == llvm::AtomicOrdering::AcquireRelease))
    o = llvm::AtomicOrdering::Release;
  return o;
}

// Replaces the calls of `f` when it is one of those atomics; false when it is not.
bool lowerAtomic(llvm::Function& f, const MangledFunction& sig) {
  std::string op = sig.name;
  if (op.rfind("atomic_", 0) != 0 || sig.params.empty() || sig.params[0].find("atomic_") == std::string::npos)
    return false;
  op = op.substr(7);
  if (op.size() > 9 && op.compare(op.size() - 9, 9, "_explicit") == 0) op.resize(op.size() - 9);
  const bool isUnsigned = sig.params[0].find("atomic_u") != std::string::npos;
  static const std::map<std::string, std::pair<llvm::AtomicRMWInst::BinOp, llvm::AtomicRMWInst::BinOp>> rmw = {
      {"fetch_add", {llvm::AtomicRMWInst::Add, llvm::AtomicRMWInst::Add}},
      {"fetch_sub", {llvm::AtomicRMWInst::Sub, llvm::AtomicRMWInst::Sub}},
      {"fetch_or", {llvm::AtomicRMWInst::Or, llvm::AtomicRMWInst::Or}},
      {"fetch_xor", {llvm::AtomicRMWInst::Xor, llvm::AtomicRMWInst::Xor}},
      {"fetch_and", {llvm::AtomicRMWInst::And, llvm::AtomicRMWInst::And}},
      {"fetch_min", {llvm::AtomicRMWInst::Min, llvm::AtomicRMWInst::UMin}},
      {"fetch_max", {llvm::AtomicRMWInst::Max, llvm::AtomicRMWInst::UMax}},
      {"exchange", {llvm::AtomicRMWInst::Xchg, llvm::AtomicRMWInst::Xchg}}};
  const auto r = rmw.find(op);
  const bool cmpxchg = op == "compare_exchange_strong" || op == "compare_exchange_weak";
  if (r == rmw.end() && !cmpxchg && op != "load" && op != "store" && op != "init") return false;
  // Fewer operands than the builtin has: not OpenCL's (the shim's compile then says so).
  if (sig.params.size() < (cmpxchg ? 3u : op == "load" ? 1u : 2u)) return false;
  std::vector<llvm::CallBase*> calls;
  for (llvm::User* u : f.users())
    if (auto* call = llvm::dyn_cast<llvm::CallBase>(u); call && call->getCalledFunction() == &f) calls.push_back(call);
  if (calls.size() != f.getNumUses()) return false;
  const llvm::DataLayout& dl = f.getParent()->getDataLayout();
  for (llvm::CallBase* call : calls) {
    llvm::IRBuilder<> b(call);
    auto arg = [&](unsigned i) { return i < call->arg_size() ? call->getArgOperand(i) : nullptr; };
    llvm::Value* result = nullptr;
    if (r != rmw.end()) {
      llvm::Value* v = arg(1);
      llvm::AtomicRMWInst::BinOp bin = isUnsigned ? r->second.second : r->second.first;
      if (v->getType()->isFloatingPointTy() && bin == llvm::AtomicRMWInst::Add) bin = llvm::AtomicRMWInst::FAdd;
      result = b.CreateAtomicRMW(bin, arg(0), v, dl.getABITypeAlign(v->getType()), ordering(arg(2), false, false));
    } else if (op == "load") {
      llvm::LoadInst* l = b.CreateAlignedLoad(call->getType(), arg(0), dl.getABITypeAlign(call->getType()));
      l->setAtomic(ordering(arg(1), true, false));
      result = l;
    } else if (op == "store" || op == "init") {
      llvm::StoreInst* st = b.CreateAlignedStore(arg(1), arg(0), dl.getABITypeAlign(arg(1)->getType()));
      if (op == "store") st->setAtomic(ordering(arg(2), false, true));
    } else {  // compare_exchange: *expected gets the value found (C11), the result says whether it was equal
      llvm::Value* desired = arg(2);
      llvm::Type* t = desired->getType();
      llvm::Value* expected = b.CreateAlignedLoad(t, arg(1), dl.getABITypeAlign(t));
      llvm::AtomicOrdering success = ordering(arg(3), false, false);
      llvm::AtomicOrdering failure = ordering(arg(4) ? arg(4) : arg(3), true, false);
      if (failure == llvm::AtomicOrdering::SequentiallyConsistent && success != failure) failure = llvm::AtomicOrdering::Acquire;
      auto* x = b.CreateAtomicCmpXchg(arg(0), expected, desired, dl.getABITypeAlign(t), success, failure);
      x->setWeak(op == "compare_exchange_weak");
      b.CreateAlignedStore(b.CreateExtractValue(x, 0), arg(1), dl.getABITypeAlign(t));
      result = b.CreateExtractValue(x, 1);
      if (result->getType() != call->getType()) result = b.CreateZExt(result, call->getType());
    }
    if (result && !call->getType()->isVoidTy()) call->replaceAllUsesWith(result);
    call->eraseFromParent();
  }
  return true;
}

}  // namespace

void lowerOpenclAtomics(llvm::Module& m) {
  for (auto it = m.begin(); it != m.end();) {
    llvm::Function& f = *it++;
    MangledFunction sig;
    if (f.isDeclaration() && !f.isIntrinsic() && demangleBuiltin(f.getName(), &sig) && lowerAtomic(f, sig) &&
        f.use_empty())
      f.eraseFromParent();
  }
}

}  // namespace isg::detail
