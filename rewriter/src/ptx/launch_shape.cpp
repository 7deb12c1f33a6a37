// SPDX-License-Identifier: MIT
#include "ptx/launch_shape.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/Cloning.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "ptx/ptx_kernels.h"

namespace isg::detail {

namespace {

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

// A work-item function (and nvidia-ptx's warp lane) of the module and its packed form.
using PackedForms = std::map<llvm::Function*, llvm::Function*>;

// What `kernel` reaches through its calls: itself first, then every callee, defined or not,
// but not what the functions in `stops` call. `indirect`: a call through a pointer.
struct Reach {
  std::vector<llvm::Function*> functions;
  bool indirect = false;
};
Reach reachable(llvm::Function& kernel, const PackedForms& stops) {
  Reach r{{&kernel}};
  std::set<llvm::Function*> seen{&kernel};
  for (std::size_t n = 0; n < r.functions.size(); ++n) {
    if (stops.count(r.functions[n])) continue;
    for (llvm::BasicBlock& bb : *r.functions[n])
      for (llvm::Instruction& i : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) {
          llvm::Function* callee = call->getCalledFunction();
          if (!callee && !call->isInlineAsm()) r.indirect = true;
          if (callee && seen.insert(callee).second) r.functions.push_back(callee);
        }
  }
  return r;
}

// Whether `kernel` can run packed (appendPackedLaunch).
bool canPack(llvm::Function& kernel, const std::vector<KernelManifest>& rewritten,
             const std::set<const llvm::Function*>& localUsers, const PackedForms& forms) {
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
  // A call through a pointer (none in OpenCL C) keeps it as it is.
  const Reach reach = reachable(kernel, forms);
  if (reach.indirect) return false;
  return std::none_of(reach.functions.begin(), reach.functions.end(),
                      [&](const llvm::Function* f) { return localUsers.count(f) != 0; });
}

// The functions whose packed form (ptx-runtime/workitems.cl) a packed copy calls, by the name
// OpenCL C gives them (mangled, as workitems.cl defines them), and nvidia-ptx's warp lane.
const std::pair<const char*, const char*> kPackedForms[] = {
    {"get_local_id", "__isg_pk_local_id"},
    {"get_local_size", "__isg_pk_local_size"},
    {"get_enqueued_local_size", "__isg_pk_local_size"},
    {"get_group_id", "__isg_pk_group_id"},
    {"get_num_groups", "__isg_pk_num_groups"},
    {"get_global_id", "__isg_pk_global_id"},
    {"get_global_size", "__isg_pk_global_size"},
    {"get_global_offset", "__isg_pk_global_offset"},
    {"get_work_dim", "__isg_pk_work_dim"},
    {"get_local_linear_id", "__isg_pk_local_linear_id"},
    {"get_global_linear_id", "__isg_pk_global_linear_id"},
    {"__isg_warp_lane", "__isg_pk_warp_lane"},
};

// The plain name of an Itanium-mangled function (_Z12get_local_idj: get_local_id).
std::string demangledName(llvm::StringRef mangled) {
  std::size_t at = 2, length = 0;
  while (at < mangled.size() && mangled[at] >= '0' && mangled[at] <= '9') length = length * 10 + (mangled[at++] - '0');
  return at + length <= mangled.size() ? mangled.substr(at, length).str() : std::string();
}

// `kernel` and the functions it calls that call, themselves or through others, one of `forms`.
std::set<llvm::Function*> workItemReaders(llvm::Function& kernel, const PackedForms& forms) {
  std::vector<llvm::Function*> reach;
  for (llvm::Function* f : reachable(kernel, forms).functions)
    if (!f->isDeclaration() && !forms.count(f)) reach.push_back(f);
  std::set<llvm::Function*> readers;
  for (bool grew = true; grew;) {
    grew = false;
    for (llvm::Function* f : reach) {
      if (readers.count(f)) continue;
      bool reads = false;
      for (llvm::BasicBlock& bb : *f)
        for (llvm::Instruction& i : bb)
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
            if (llvm::Function* callee = call->getCalledFunction())
              reads = reads || forms.count(callee) || readers.count(callee);
      if (reads) grew = readers.insert(f).second || grew;
    }
  }
  readers.insert(&kernel);
  return readers;
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
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  llvm::ArrayType* words = llvm::ArrayType::get(i64, kPackedLaunchWords);
  llvm::Function* reader = m.getFunction("__isg_pack");
  if (!reader || !reader->isDeclaration()) return;  // no work-item functions: nothing to pack
  // The work-item functions (and nvidia-ptx's warp lane) and their packed forms, which take the
  // work-group's shape after the function's own parameters.
  PackedForms packedForm;
  for (const auto& [name, form] : kPackedForms) {
    llvm::Function* general = nullptr;
    for (llvm::Function& f : m)
      if (f.getName() == name || (f.getName().substr(0, 2) == "_Z" && demangledName(f.getName()) == name)) general = &f;
    llvm::Function* packed = m.getFunction(form);
    if (general && packed && !packed->isDeclaration()) packedForm[general] = packed;
  }
  llvm::Function* outside = m.getFunction("__isg_pk_outside");
  std::vector<llvm::Function*> packable;
  if (rewritten && outside && !outside->isDeclaration()) {
    const std::set<const llvm::Function*> local = localMemoryUsers(m);
    for (llvm::Function* f : definedKernels(m))
      if (canPack(*f, *rewritten, local, packedForm)) packable.push_back(f);
  }
  llvm::IRBuilder<> r(llvm::BasicBlock::Create(c, "", reader));
  reader->setLinkage(llvm::GlobalValue::InternalLinkage);
  if (packable.empty()) {
    r.CreateRet(llvm::ConstantInt::get(i64, 0));
    return;
  }
  // Shared memory, as the launch shape (every work-item stores the same values).
  auto* store = new llvm::GlobalVariable(m, words, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(words), "__isg_pack_launch", nullptr,
                                         llvm::GlobalValue::NotThreadLocal, 3);
  llvm::Value* i = reader->getArg(0);
  llvm::Value* inside = r.CreateICmpULT(i, r.getInt32(kPackedLaunchWords));
  llvm::Value* at = r.CreateInBoundsGEP(words, store, {r.getInt32(0), r.CreateSelect(inside, i, r.getInt32(0))});
  r.CreateRet(r.CreateSelect(inside, r.CreateLoad(i64, at), llvm::ConstantInt::get(i64, 0)));
  for (llvm::Function* kernel : packable) {
    unsigned shape[3] = {1, 1, 1};
    const llvm::MDNode* w = kernel->getMetadata("reqd_work_group_size");
    for (unsigned d = 0; d < 3; ++d)
      shape[d] = unsigned(llvm::mdconst::extract<llvm::ConstantInt>(w->getOperand(d))->getZExtValue());
    // The packed copy: the kernel and what it calls that reads the work-item functions, copied,
    // each such call made to the packed form with the shape as constants.
    std::set<llvm::Function*> readers = workItemReaders(*kernel, packedForm);
    llvm::ValueToValueMapTy vmap;
    std::vector<std::pair<llvm::Function*, llvm::Function*>> copies;
    for (llvm::Function* f : readers) {
      if (f == kernel) continue;
      auto* copy = llvm::Function::Create(f->getFunctionType(), llvm::GlobalValue::InternalLinkage,
                                          f->getName() + ".isg.packed." + kernel->getName(), &m);
      vmap[f] = copy;
      copies.emplace_back(f, copy);
    }
    llvm::Function* packed = llvm::CloneFunction(kernel, vmap);
    for (auto& [f, copy] : copies) {
      auto arg = copy->arg_begin();
      for (llvm::Argument& a : f->args()) vmap[&a] = &*arg++;
      llvm::SmallVector<llvm::ReturnInst*, 4> returns;
      llvm::CloneFunctionInto(copy, f, vmap, llvm::CloneFunctionChangeType::LocalChangesOnly, returns);
      copy->setLinkage(llvm::GlobalValue::InternalLinkage);
    }
    packed->setName(kernel->getName() + kPackedKernelSuffix);
    std::vector<llvm::Function*> body{packed};
    for (auto& [f, copy] : copies) body.push_back(copy);
    for (llvm::Function* f : body) {
      std::vector<llvm::CallInst*> calls;
      for (llvm::BasicBlock& bb : *f)
        for (llvm::Instruction& inst : bb)
          if (auto* call = llvm::dyn_cast<llvm::CallInst>(&inst); call && packedForm.count(call->getCalledFunction()))
            calls.push_back(call);
      for (llvm::CallInst* call : calls) {
        llvm::Function* form = packedForm[call->getCalledFunction()];
        std::vector<llvm::Value*> args(call->arg_begin(), call->arg_end());
        for (unsigned d = 0; d < 3; ++d) args.push_back(llvm::ConstantInt::get(i32, shape[d]));
        llvm::IRBuilder<> b(call);
        llvm::Value* v = b.CreateCall(form, args);
        if (v->getType() != call->getType()) v = b.CreateZExtOrTrunc(v, call->getType());
        call->replaceAllUsesWith(v);
        call->eraseFromParent();
      }
    }
    const unsigned index = unsigned(packed->arg_size());
    llvm::Function* fresh = withHiddenParameter(*packed, words, "__isg_pack_launch");
    fresh->addFnAttr(kPackedKernel);
    // First in the entry: the launch shape's check (appendLaunchShape) reads the work-item
    // functions, which read this.
    llvm::IRBuilder<> b(splitEntry(*fresh, "pack"));
    for (unsigned k = 0; k < kPackedLaunchWords; ++k)
      b.CreateStore(b.CreateLoad(i64, b.CreateConstInBoundsGEP2_32(words, fresh->getArg(index), 0, k)),
                    b.CreateConstInBoundsGEP2_32(words, store, 0, k));
    leaveWhere(b, b.CreateCall(outside, {b.getInt32(shape[0]), b.getInt32(shape[1]), b.getInt32(shape[2])}), "pack");
    shaped->push_back({kernel->getName().str(), {HiddenArg::Kind::PackedLaunch, index, 0}});
  }
}

void recordLaunchShape(const ShapedKernels& shaped, std::vector<KernelManifest>* kernels) {
  for (const auto& [name, arg] : shaped)
    for (KernelManifest& k : *kernels)
      if (k.name == name) k.hiddenArgs.push_back(arg);
}

}  // namespace isg::detail
