// SPDX-License-Identifier: MIT
// The Intel builtin overloads a SPIR-V module calls, the functions and kernels that reach them,
// and the OpenCL C that replaces them: one small library function per overload that calls the
// builtin as rewritten source does (the prelude's macros) and one context prologue per kernel,
// so that both front ends run the same library code (module_rewriter.cpp).
#include <algorithm>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

#include "common/kernel_facts.h"
#include "common/program_facts.h"
#include "isg/build_options.h"
#include "module/module_rewriter.h"

namespace isg::detail {
namespace {

unsigned metadataInt(const llvm::MDNode* node, unsigned i) {
  if (!node || i >= node->getNumOperands()) return 0;
  if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(node->getOperand(i)))
    return unsigned(c->getZExtValue());
  return 0;
}

}  // namespace

// Finds the builtin calls, the functions that need the context and the kernels' manifests.
// False with result_.log set when the program cannot run on the device.
bool ModuleRewriter::analyse() {
  for (llvm::Function& f : m_) {
    if (!f.isDeclaration()) continue;
    detail::MangledFunction sig;
    if (!detail::demangleBuiltin(f.getName(), &sig)) continue;
    const Builtin* b = detail::findBuiltin(sig.name, traits_);
    if (!b) continue;
    Overload o;
    o.declaration = &f;
    o.builtin = b;
    o.signature = std::move(sig);
    unsigned typeBytes = 0;
    if (f.arg_size() > 0 && f.getArg(0)->getType()->isSized())
      typeBytes = unsigned(m_.getDataLayout().getTypeAllocSize(f.getArg(0)->getType()));
    o.exchangeBytes = detail::exchangeBytes(*b, typeBytes);
    o.replacement = "__isg_ir_" + std::to_string(overloads_.size());
    overloadOf_[&f] = overloads_.size();
    overloads_.push_back(std::move(o));
  }
  // Functions that reach a builtin: their callers' closure.
  std::vector<llvm::Function*> work;
  for (const Overload& o : overloads_)
    for (llvm::User* u : o.declaration->users())
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(u))
        if (llvm::Function* f = call->getFunction(); contextual_.insert(f).second) work.push_back(f);
  while (!work.empty()) {
    llvm::Function* f = work.back();
    work.pop_back();
    for (llvm::User* u : f->users()) {
      auto* call = llvm::dyn_cast<llvm::CallBase>(u);
      if (!call || call->getCalledFunction() != f) {
        result_.log += "error: function '" + f->getName().str() +
                       "' uses sub-group builtins and is used other than by a direct call, "
                       "which the layer cannot pass the sub-group context\n";
        return false;
      }
      if (llvm::Function* caller = call->getFunction(); contextual_.insert(caller).second)
        work.push_back(caller);
    }
  }
  firstMemberPointers();
  followBlockImages();
  followOtherImageUses();
  if (!findReadWriteImages()) return false;

  const bool uniformGroups = !allowsNonUniformWorkGroups(in_.options, /*fromSpirv=*/true);
  bool ok = true;
  for (llvm::Function& f : m_) {
    if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL || f.isDeclaration()) continue;
    KernelManifest km;
    km.name = f.getName().str();
    km.subGroupSize = traits_.defaultSubGroupSize;
    if (const llvm::MDNode* s = f.getMetadata("intel_reqd_sub_group_size")) {
      km.subGroupSize = metadataInt(s, 0);
      km.requiredSubGroupSize = true;
      usesSubGroups_ = true;
    }
    if (std::string why = detail::unsupportedSize(km, traits_); !why.empty()) {
      result_.log += "error: " + why + "\n";
      ok = false;
    }
    if (const llvm::MDNode* w = f.getMetadata("reqd_work_group_size")) {
      std::size_t items = 1;
      for (unsigned d = 0; d < 3; ++d) {
        km.reqdWorkGroupSize[d] = metadataInt(w, d);
        items *= km.reqdWorkGroupSize[d];
      }
      km.wholeSubGroups = uniformGroups && items != 0 && km.subGroupSize != 0 &&
                          items % km.subGroupSize == 0;
    }
    km.numUserArgs = unsigned(f.arg_size());
    for (unsigned i = 0; i < f.arg_size(); ++i)
      if (blockImages_.count({&f, i})) {
        km.blockImageArgs.push_back(i);
        if (otherImageUses_.count({&f, i})) km.mixedImageArgs.push_back(i);
      }
    if (contextual_.count(&f)) {
      std::set<const Builtin*> used;
      unsigned widest = 0;
      for (std::size_t o : overloadsReachedFrom(&f)) {
        used.insert(overloads_[o].builtin);
        widest = std::max(widest, overloads_[o].exchangeBytes);
      }
      detail::finishKernelManifest(used, widest, traits_, &km);
    }
    // The texel buffers come after the strategy's arguments (standInForReadWriteImages).
    if (auto rw = readWriteParams_.find(km.name); rw != readWriteParams_.end())
      for (unsigned i : rw->second) detail::addTexelBuffer(i, &km);
    kernels_.push_back(std::move(km));
  }
  usesSubGroups_ |= !overloads_.empty();
  return refuseDivergentExchanges() && ok;
}

// The library and the calls into it, as OpenCL C.
std::string ModuleRewriter::librarySource() const {
  detail::Analysis a;
  for (const Builtin& b : detail::builtins()) {
    bool used = std::any_of(overloads_.begin(), overloads_.end(),
                            [&](const Overload& o) { return o.builtin->family == b.family; });
    // The stand-in for read_write images (75-image.cl) is the block family's code.
    used |= b.family == "block" && !readWriteParams_.empty();
    if (used && std::find(a.families.begin(), a.families.end(), b.family) == a.families.end())
      a.families.push_back(b.family);
  }
  a.kernels = kernels_;
  std::string body;
  std::set<std::pair<std::string, unsigned>> extra, firstMember;
  for (const Overload& o : overloads_) {
    const unsigned n = unsigned(o.signature.params.size());
    std::string callee = o.builtin->name;
    if (o.firstMember) {
      callee = "__ISG_L0_" + callee;
      firstMember.insert({o.builtin->name, n});
    } else if (n != detail::usualArity(*o.builtin)) {
      callee = "__ISG_A" + std::to_string(n) + "_" + callee;
      extra.insert({o.builtin->name, n});
    }
    llvm::Type* ret = o.declaration->getReturnType();
    std::string retType = "void";
    if (!ret->isVoidTy()) detail::spellValueType(ret, &retType);
    std::string params = "__isg_ctx_t* __isg_ctx", args;
    for (unsigned i = 0; i < n; ++i) {
      const std::string a = "a" + std::to_string(i);
      // A read_write image is its texel buffer here (standInForReadWriteImages).
      const bool texels = readWriteImage_ && o.signature.params[i] == kReadWriteImage2d;
      params += ", " + (texels ? std::string("__global uchar*") : o.signature.params[i]) + " " + a;
      args += (i ? ", " : "") + (texels ? "__isg_rw_image(" + a + ")" : a);
    }
    const std::string call = callee + "(" + args + ")";
    body += retType + " " + o.replacement + "(" + params + ") { " +
            (ret->isVoidTy() ? call : "return as_" + retType + "(" + call + ")") + "; }\n";
  }
  for (std::size_t k = 0; k < kernels_.size(); ++k) {
    const KernelManifest& km = kernels_[k];
    if (km.families.empty() && !contextualKernel(km.name)) continue;
    const std::string declared = detail::hiddenDeclarations(km);
    const std::string hidden = declared.empty() ? "" : ", " + declared;
    const char* prologue = detail::borrowsScratch(km, traits_) ? "__ISG_KERNEL_PROLOGUE_WG(" : "__ISG_KERNEL_PROLOGUE(";
    std::string args = std::to_string(km.subGroupSize) + ", " + std::to_string(km.scratchBytesPerItem);
    for (std::size_t d : km.reqdWorkGroupSize) args += ", " + std::to_string(km.wholeSubGroups ? d : 0);
    body += "void __isg_ir_prologue_" + std::to_string(k) + "(__isg_ctx_t* __isg_ir_out" + hidden +
            ") { " + prologue + args + ") *__isg_ir_out = *__isg_ctx; }\n";
  }
  a.extraArity.assign(extra.begin(), extra.end());
  a.firstMemberArity.assign(firstMember.begin(), firstMember.end());
  return detail::buildPrelude(traits_, a) + "\n" + body;
}

bool ModuleRewriter::contextualKernel(const std::string& name) const {
  llvm::Function* f = m_.getFunction(name);
  return f && contextual_.count(f);
}

// The overloads a function reaches through the functions it calls.
std::set<std::size_t> ModuleRewriter::overloadsReachedFrom(llvm::Function* root) const {
  std::set<std::size_t> found;
  std::set<llvm::Function*> seen{root};
  std::vector<llvm::Function*> stack{root};
  while (!stack.empty()) {
    llvm::Function* f = stack.back();
    stack.pop_back();
    for (llvm::Instruction& i : llvm::instructions(*f))
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
        if (llvm::Function* callee = call->getCalledFunction()) {
          if (auto t = firstMemberCall_.find(call); t != firstMemberCall_.end()) found.insert(t->second);
          else if (auto o = overloadOf_.find(callee); o != overloadOf_.end()) found.insert(o->second);
          else if (contextual_.count(callee) && seen.insert(callee).second) stack.push_back(callee);
        }
  }
  return found;
}

}  // namespace isg::detail
