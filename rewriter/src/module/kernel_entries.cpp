// SPDX-License-Identifier: MIT
// The library linked into a SPIR-V module and every call rewired to it: functions that reach a
// builtin take the sub-group context first, and each such kernel becomes an entry with the
// strategy's hidden arguments that creates the context and calls the kernel's own body. Then
// what is marked goes inline and the module is checked (module_rewriter.cpp).
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>

#include "module/module_rewriter.h"
#include "common/llvm_compat.h"

namespace isg::detail {

// Links the compiled library in and rewires every call. False with the reason in *log.
bool ModuleRewriter::transform(std::unique_ptr<llvm::Module> library, std::string* log) {
  library->setDataLayout(m_.getDataLayout());
  library->setTargetTriple(m_.getTargetTriple());
  std::set<std::string> ours;
  for (llvm::Function& f : *library)
    if (!f.isDeclaration()) ours.insert(f.getName().str());
  // For SPIR-V the library goes into its callers: its barriers and fences then see the
  // constant flags they are called with (SPIR-V needs constant scopes and semantics). SPIR
  // bitcode keeps the calls: PoCL compiles inlined media and scan kernels several times
  // slower (measured: the media suite 3.3x).
  for (llvm::Function& f : *library) {
    if (f.isDeclaration() || in_.output != RewriteResult::Form::Spirv) continue;
    f.removeFnAttr(llvm::Attribute::NoInline);
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.addFnAttr(llvm::Attribute::AlwaysInline);
  }
  if (llvm::Linker::linkModules(m_, std::move(library))) {
    *log = "error: internal error: the sub-group library does not link with the module\n";
    return false;
  }
  for (const std::string& name : ours)
    if (llvm::Function* f = m_.getFunction(name)) f->setLinkage(llvm::GlobalValue::InternalLinkage);
  // The link appends the library's OpenCL versions to the module's; SPIR consumers (the
  // translator: "OCL version mismatch") want one, the module's own.
  for (const char* name : {"opencl.ocl.version", "opencl.spir.version"}) {
    llvm::NamedMDNode* versions = m_.getNamedMetadata(name);
    if (!versions || versions->getNumOperands() < 2) continue;
    llvm::MDNode* first = versions->getOperand(0);
    versions->clearOperands();
    versions->addOperand(first);
  }

  llvm::Function* anyPrologue = nullptr;
  for (std::size_t k = 0; k < kernels_.size() && !anyPrologue; ++k)
    anyPrologue = m_.getFunction("__isg_ir_prologue_" + std::to_string(k));
  llvm::Type* ctxPtr = nullptr;
  if (anyPrologue) ctxPtr = anyPrologue->getArg(0)->getType();
  else if (!overloads_.empty())
    if (llvm::Function* r = m_.getFunction(overloads_[0].replacement)) ctxPtr = r->getArg(0)->getType();
  if (contextual_.empty()) return finish(log);
  if (!ctxPtr) {
    *log = "error: internal error: the sub-group library has no context type\n";
    return false;
  }

  // Every function that reaches a builtin gets a twin that takes the context first.
  std::map<llvm::Function*, llvm::Function*> twin;
  for (llvm::Function* f : contextual_) twin[f] = withContext(f, ctxPtr);
  for (auto& [old, fresh] : twin) {
    for (llvm::BasicBlock& bb : *fresh)
      for (auto it = bb.begin(); it != bb.end();) {
        auto* call = llvm::dyn_cast<llvm::CallInst>(&*it++);
        if (!call || !call->getCalledFunction()) continue;
        llvm::Function* callee = call->getCalledFunction();
        llvm::Function* target = nullptr;
        if (auto t = firstMemberCall_.find(call); t != firstMemberCall_.end())
          target = m_.getFunction(overloads_[t->second].replacement);
        else if (auto o = overloadOf_.find(callee); o != overloadOf_.end())
          target = m_.getFunction(overloads_[o->second].replacement);
        else if (auto t = twin.find(callee); t != twin.end())
          target = t->second;
        if (!target) continue;
        if (!retarget(call, target, fresh->getArg(0), log)) return false;
      }
  }
  // Kernels: an entry with the hidden arguments that creates the context for the twin.
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    llvm::Function* kernel = m_.getFunction(kernels_[k].name);
    if (!kernel || !twin.count(kernel)) continue;
    llvm::Function* prologue = m_.getFunction("__isg_ir_prologue_" + std::to_string(k));
    if (!prologue || !makeEntry(kernel, twin[kernel], prologue, log)) {
      if (log->empty()) *log = "error: internal error: no context prologue for a kernel\n";
      return false;
    }
  }
  for (auto& [old, fresh] : twin) {
    if (!old->use_empty()) {
      *log = "error: internal error: '" + old->getName().str() + "' is still called\n";
      return false;
    }
    old->eraseFromParent();
  }
  return finish(log);
}

// `f`'s body moved into a new internal function that takes the context first.
llvm::Function* ModuleRewriter::withContext(llvm::Function* f, llvm::Type* ctxPtr) {
  llvm::FunctionType* type = f->getFunctionType();
  std::vector<llvm::Type*> params{ctxPtr};
  params.insert(params.end(), type->param_begin(), type->param_end());
  auto* fresh = llvm::Function::Create(
      llvm::FunctionType::get(type->getReturnType(), params, type->isVarArg()),
      llvm::GlobalValue::InternalLinkage, f->getAddressSpace(), f->getName() + ".isg", &m_);
  fresh->setCallingConv(llvm::CallingConv::SPIR_FUNC);
  llvm::AttributeList attrs = f->getAttributes();
  std::vector<llvm::AttributeSet> paramAttrs{llvm::AttributeSet()};
  for (unsigned i = 0; i < f->arg_size(); ++i) paramAttrs.push_back(attrs.getParamAttrs(i));
  fresh->setAttributes(llvm::AttributeList::get(ctx_, attrs.getFnAttrs(), attrs.getRetAttrs(), paramAttrs));
  if (f->getCallingConv() == llvm::CallingConv::SPIR_KERNEL) {
    // The kernel's body: an ordinary function now; the entry keeps the kernel's attributes.
    // It goes back into the entry before the module is written (finish): drivers find a
    // kernel's local variables in the kernel function itself (PoCL makes them per work-group
    // only there; in a callee they stay one variable that concurrent work-groups share).
    fresh->removeFnAttr(llvm::Attribute::NoInline);
    fresh->removeFnAttr(llvm::Attribute::OptimizeNone);
    fresh->addFnAttr(llvm::Attribute::AlwaysInline);
  } else {
    llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 4> md;
    f->getAllMetadata(md);
    for (auto& [kind, node] : md) fresh->setMetadata(kind, node);
  }
  moveBlocks(*fresh, *f);
  for (unsigned i = 0; i < f->arg_size(); ++i) {
    f->getArg(i)->replaceAllUsesWith(fresh->getArg(i + 1));
    fresh->getArg(i + 1)->takeName(f->getArg(i));
  }
  fresh->getArg(0)->setName("__isg_ctx");
  return fresh;
}

// Replaces `call` by a call of `target` with the context first; pointer arguments are cast to
// the library's parameter types (address spaces, or image types the link renamed).
bool ModuleRewriter::retarget(llvm::CallInst* call, llvm::Function* target, llvm::Value* context,
                              std::string* log) {
  llvm::IRBuilder<> b(call);
  llvm::FunctionType* type = target->getFunctionType();
  if (type->getNumParams() != call->arg_size() + 1) {
    *log = "error: internal error: '" + target->getName().str() + "' takes " +
           std::to_string(type->getNumParams()) + " arguments\n";
    return false;
  }
  std::vector<llvm::Value*> args;
  auto fit = [&](llvm::Value* v, llvm::Type* t) -> llvm::Value* {
    if (v->getType() == t) return v;
    if (v->getType()->isPointerTy() && t->isPointerTy()) return b.CreatePointerBitCastOrAddrSpaceCast(v, t);
    if (v->getType()->getPrimitiveSizeInBits() == t->getPrimitiveSizeInBits() &&
        v->getType()->getPrimitiveSizeInBits() != 0)
      return b.CreateBitCast(v, t);
    return nullptr;
  };
  for (unsigned i = 0; i < type->getNumParams(); ++i) {
    llvm::Value* v = fit(i == 0 ? context : call->getArgOperand(i - 1), type->getParamType(i));
    if (!v) {
      *log = "error: internal error: argument " + std::to_string(i) + " of '" +
             target->getName().str() + "' has another type than the module's call\n";
      return false;
    }
    args.push_back(v);
  }
  llvm::CallInst* fresh = b.CreateCall(target, args);
  fresh->setCallingConv(target->getCallingConv());
  if (!call->getType()->isVoidTy()) {
    llvm::Value* r = fresh;
    if (r->getType() != call->getType()) r = fit(r, call->getType());
    if (!r) {
      *log = "error: internal error: '" + target->getName().str() + "' returns another type\n";
      return false;
    }
    call->replaceAllUsesWith(r);
  }
  call->eraseFromParent();
  return true;
}

// The kernel becomes an entry: its parameters, then the strategy's hidden ones; it creates the
// context with the library's prologue and calls the kernel's body (`twin`).
bool ModuleRewriter::makeEntry(llvm::Function* kernel, llvm::Function* twin, llvm::Function* prologue,
                               std::string* log) {
  llvm::FunctionType* type = kernel->getFunctionType();
  std::vector<llvm::Type*> params(type->param_begin(), type->param_end());
  for (unsigned i = 1; i < prologue->arg_size(); ++i) params.push_back(prologue->getArg(i)->getType());
  // The hidden scratch (`__local ulong16*`) is aligned as its type: NVIDIA's driver places a
  // local argument as its PTX parameter's .align says.
  std::vector<llvm::AttributeSet> hiddenAttrs;
  for (unsigned i = kernel->arg_size(); i < params.size(); ++i)
    hiddenAttrs.push_back(params[i]->isPointerTy()
                              ? llvm::AttributeSet::get(ctx_, {llvm::Attribute::getWithAlignment(ctx_, llvm::Align(128))})
                              : llvm::AttributeSet());
  llvm::Function* entry = replacementKernel(kernel, params, hiddenAttrs);
  entry->removeFnAttr(llvm::Attribute::OptimizeNone);
  entry->removeFnAttr(llvm::Attribute::NoInline);
  extendArgMetadata(entry, 3, "ulong16*",
                    std::vector<std::string>(params.size() - kernel->arg_size(), "__isg_scratch"));
  for (unsigned i = 0; i < kernel->arg_size(); ++i) entry->getArg(i)->setName(twin->getArg(i + 1)->getName());

  llvm::BasicBlock* bb = llvm::BasicBlock::Create(ctx_, "entry", entry);
  llvm::IRBuilder<> b(bb);
  llvm::Type* ctxPtr = prologue->getArg(0)->getType();
  llvm::Type* ctxType = llvm::StructType::getTypeByName(ctx_, "struct.__isg_ctx_t");
  if (!ctxType) {
    *log = "error: internal error: the sub-group library has no context type\n";
    return false;
  }
  llvm::AllocaInst* slot = b.CreateAlloca(ctxType, m_.getDataLayout().getAllocaAddrSpace(), nullptr, "__isg_ctx_v");
  llvm::Value* context = b.CreatePointerBitCastOrAddrSpaceCast(slot, ctxPtr);
  std::vector<llvm::Value*> pargs{context};
  for (unsigned i = 1; i < prologue->arg_size(); ++i) pargs.push_back(entry->getArg(kernel->arg_size() + i - 1));
  b.CreateCall(prologue, pargs)->setCallingConv(prologue->getCallingConv());
  std::vector<llvm::Value*> args{context};
  for (unsigned i = 0; i < kernel->arg_size(); ++i) args.push_back(entry->getArg(i));
  if (twin->getArg(0)->getType() != ctxPtr) {
    *log = "error: internal error: the context types of the library disagree\n";
    return false;
  }
  b.CreateCall(twin, args)->setCallingConv(twin->getCallingConv());
  b.CreateRetVoid();
  // Calls of the kernel from other kernels go to its body (they were retargeted already).
  kernel->replaceAllUsesWith(llvm::UndefValue::get(kernel->getType()));
  return true;
}

// A kernel of `params` (the kernel's own, then appended ones with `appended` attributes) in
// place of `kernel`, with its name, calling convention, linkage, attributes and metadata.
llvm::Function* ModuleRewriter::replacementKernel(llvm::Function* kernel, const std::vector<llvm::Type*>& params,
                                                  const std::vector<llvm::AttributeSet>& appended) {
  llvm::FunctionType* type = kernel->getFunctionType();
  auto* entry = llvm::Function::Create(llvm::FunctionType::get(type->getReturnType(), params, false),
                                       kernel->getLinkage(), kernel->getAddressSpace(), "", &m_);
  entry->takeName(kernel);
  entry->setCallingConv(kernel->getCallingConv());
  const llvm::AttributeList attrs = kernel->getAttributes();
  std::vector<llvm::AttributeSet> paramAttrs;
  for (unsigned i = 0; i < kernel->arg_size(); ++i) paramAttrs.push_back(attrs.getParamAttrs(i));
  paramAttrs.insert(paramAttrs.end(), appended.begin(), appended.end());
  entry->setAttributes(llvm::AttributeList::get(ctx_, attrs.getFnAttrs(), attrs.getRetAttrs(), paramAttrs));
  llvm::SmallVector<std::pair<unsigned, llvm::MDNode*>, 8> md;
  kernel->getAllMetadata(md);
  for (auto& [kind, node] : md) entry->setMetadata(kind, node);
  return entry;
}

// kernel_arg_* metadata for arguments appended to `entry`'s, one per name, each a pointer in
// `addressSpace` to `type` (the scratch: `__local ulong16*`), named as the source rewriter
// names it.
void ModuleRewriter::extendArgMetadata(llvm::Function* entry, unsigned addressSpace, const char* type,
                                       const std::vector<std::string>& names) {
  if (names.empty()) return;
  auto str = [&](const std::string& s) -> llvm::Metadata* { return llvm::MDString::get(ctx_, s); };
  const std::pair<const char*, std::function<llvm::Metadata*(unsigned)>> extra[] = {
      {"kernel_arg_addr_space",
       [&](unsigned) -> llvm::Metadata* {
         return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx_), addressSpace));
       }},
      {"kernel_arg_access_qual", [&](unsigned) { return str("none"); }},
      {"kernel_arg_type", [&](unsigned) { return str(type); }},
      {"kernel_arg_base_type", [&](unsigned) { return str(type); }},
      {"kernel_arg_type_qual", [&](unsigned) { return str(""); }},
      {"kernel_arg_name", [&](unsigned i) { return str(names[i]); }},
  };
  for (const auto& [kind, make] : extra) {
    llvm::MDNode* old = entry->getMetadata(kind);
    if (!old) continue;
    std::vector<llvm::Metadata*> ops(old->op_begin(), old->op_end());
    for (unsigned i = 0; i < names.size(); ++i) ops.push_back(make(i));
    entry->setMetadata(kind, llvm::MDNode::get(ctx_, ops));
  }
}

// Inlines what is marked always-inline: the kernels' bodies into their entries and, for
// SPIR-V, the library into its callers, whose memory it then promotes (the library's flags
// and sizes become constants again); nothing else of LLVM's pipeline, so the module keeps
// only instructions and intrinsics the translator and drivers already met in it.
void ModuleRewriter::inlineMarked() {
  const bool promote = in_.output == RewriteResult::Form::Spirv;
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  if (promote) {
    llvm::FunctionPassManager fpm;
    fpm.addPass(sroa());
    fpm.addPass(llvm::EarlyCSEPass());
    mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
  }
  mpm.run(m_, mam);
}

// Drops what nothing uses any more and checks the module.
bool ModuleRewriter::finish(std::string* log) {
  if (!standInForReadWriteImages(log)) return false;
  inlineMarked();
  for (bool erased = true; erased;) {
    erased = false;
    for (auto it = m_.begin(); it != m_.end();) {
      llvm::Function& f = *it++;
      if ((f.hasLocalLinkage() || f.isDeclaration()) && f.use_empty() && !f.isIntrinsic()) {
        f.eraseFromParent();
        erased = true;
      }
    }
  }
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(m_, &os)) {
    os.flush();
    *log = "error: internal error: the rewritten module is not valid LLVM IR:\n" + problems;
    return false;
  }
  return true;
}

}  // namespace isg::detail
