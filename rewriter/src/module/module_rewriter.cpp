// SPDX-License-Identifier: MIT
// The SPIR-V front end: the source rewriter's job done on LLVM IR (docs/design.md, "Programs
// from SPIR-V").
//
// The module comes back from SPIRV-LLVM-Translator with every builtin as a call of the OpenCL C
// function by its mangled name. Each Intel builtin overload the module calls becomes a small
// OpenCL C function of the strategy's library, `__isg_ir_<n>(ctx, params...)`, which calls the
// builtin exactly as rewritten source does (the prelude's macros), so both front ends run the
// same library code. Functions that reach a builtin take the sub-group context first, as the
// source rewriter's helpers do; each such kernel becomes an entry with the strategy's hidden
// arguments that creates the context (the library's kernel prologue, compiled per kernel) and
// calls the kernel's own body with it.
#include <unistd.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Transforms/IPO/AlwaysInliner.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "common/program_facts.h"
#include "common/clang_session.h"
#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "common/kernel_facts.h"
#include "common/mangled_names.h"
#include "ptx/opencl_atomics.h"
#include "ptx/ptx_backend.h"
#include "module/spirv_bridge.h"
#include "common/table.h"

namespace isg {
namespace {

using detail::Builtin;

using detail::errorResult;

// How the demangler spells the parameter the stand-in for read_write images replaces.
constexpr const char* kReadWriteImage2d = "read_write image2d_t";

// One Intel builtin overload the module calls (a declaration the driver's library would
// resolve), and the library function that replaces it.
struct Overload {
  llvm::Function* declaration = nullptr;
  const Builtin* builtin = nullptr;
  detail::MangledFunction signature;
  unsigned exchangeBytes = 0;
  std::string replacement;  // __isg_ir_<n>
};

// The argument of `f` that `v` is, looking through the store/load pair an unoptimised module
// keeps each parameter in; nullptr when it is something else.
llvm::Argument* parameterOf(llvm::Value* v) {
  v = v->stripPointerCasts();
  if (auto* a = llvm::dyn_cast<llvm::Argument>(v)) return a;
  auto* load = llvm::dyn_cast<llvm::LoadInst>(v);
  if (!load) return nullptr;
  auto* slot = llvm::dyn_cast<llvm::AllocaInst>(load->getPointerOperand()->stripPointerCasts());
  if (!slot) return nullptr;
  llvm::Argument* stored = nullptr;
  for (llvm::User* u : slot->users()) {
    if (auto* st = llvm::dyn_cast<llvm::StoreInst>(u)) {
      auto* a = llvm::dyn_cast<llvm::Argument>(st->getValueOperand()->stripPointerCasts());
      if (!a || (stored && stored != a)) return nullptr;
      stored = a;
    }
  }
  return stored;
}

unsigned metadataInt(const llvm::MDNode* node, unsigned i) {
  if (!node || i >= node->getNumOperands()) return 0;
  if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(node->getOperand(i)))
    return unsigned(c->getZExtValue());
  return 0;
}

class ModuleRewriter {
 public:
  ModuleRewriter(const ModuleInput& in, const DeviceTraits& traits, llvm::Module& m)
      : in_(in), traits_(traits), m_(m), ctx_(m.getContext()) {}

  // Finds the builtin calls, the functions that need the context and the kernels' manifests.
  // False with result_.log set when the program cannot run on the device.
  bool analyse() {
    for (llvm::Function& f : m_) {
      if (!f.isDeclaration()) continue;
      detail::MangledFunction sig;
      if (!detail::demangleBuiltin(f.getName(), &sig)) continue;
      const Builtin* b = detail::findBuiltin(sig.name);
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
    return ok;
  }

  bool usesSubGroups() const { return usesSubGroups_; }
  // A module that needs no library may still need the read_write image stand-in.
  bool standsInForImages() const { return !readWriteParams_.empty(); }
  bool finishWithoutLibrary(std::string* log) { return readWriteParams_.empty() || finish(log); }
  const std::vector<KernelManifest>& kernels() const { return kernels_; }
  std::string takeLog() { return std::move(result_.log); }

  // The library and the calls into it, as OpenCL C.
  std::string librarySource() const {
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
    std::set<std::pair<std::string, unsigned>> extra;
    for (const Overload& o : overloads_) {
      const unsigned n = unsigned(o.signature.params.size());
      std::string callee = o.builtin->name;
      if (n != detail::usualArity(*o.builtin)) {
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
    std::string hidden;
    for (const detail::HiddenParam& h : detail::hiddenParams(traits_))
      hidden += std::string(", ") + h.declaration;
    for (std::size_t k = 0; k < kernels_.size(); ++k) {
      const KernelManifest& km = kernels_[k];
      if (km.families.empty() && !contextualKernel(km.name)) continue;
      std::string args = std::to_string(km.subGroupSize) + ", " + std::to_string(km.scratchBytesPerItem);
      for (std::size_t d : km.reqdWorkGroupSize) args += ", " + std::to_string(km.wholeSubGroups ? d : 0);
      body += "void __isg_ir_prologue_" + std::to_string(k) + "(__isg_ctx_t* __isg_ir_out" + hidden +
              ") { __ISG_KERNEL_PROLOGUE(" + args + ") *__isg_ir_out = *__isg_ctx; }\n";
    }
    a.extraArity.assign(extra.begin(), extra.end());
    return detail::buildPrelude(traits_, a) + "\n" + body;
  }

  // Links the compiled library in and rewires every call. False with the reason in *log.
  bool transform(std::unique_ptr<llvm::Module> library, std::string* log) {
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
          if (auto o = overloadOf_.find(callee); o != overloadOf_.end())
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

 private:
  bool contextualKernel(const std::string& name) const {
    llvm::Function* f = m_.getFunction(name);
    return f && contextual_.count(f);
  }

  // The overloads a function reaches through the functions it calls.
  std::set<std::size_t> overloadsReachedFrom(llvm::Function* root) const {
    std::set<std::size_t> found;
    std::set<llvm::Function*> seen{root};
    std::vector<llvm::Function*> stack{root};
    while (!stack.empty()) {
      llvm::Function* f = stack.back();
      stack.pop_back();
      for (llvm::Instruction& i : llvm::instructions(*f))
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
          if (llvm::Function* callee = call->getCalledFunction()) {
            if (auto o = overloadOf_.find(callee); o != overloadOf_.end()) found.insert(o->second);
            else if (contextual_.count(callee) && seen.insert(callee).second) stack.push_back(callee);
          }
    }
    return found;
  }

  // Image parameters that reach block or media IO, followed from callee to caller.
  void followBlockImages() {
    for (const Overload& o : overloads_) {
      const table::Shape s = o.builtin->shape;
      const bool block = s == table::Shape::BlockRead || s == table::Shape::BlockWrite;
      const bool media = s == table::Shape::MediaRead || s == table::Shape::MediaWrite;
      if (!block && !media) continue;
      for (llvm::User* u : o.declaration->users()) {
        auto* call = llvm::dyn_cast<llvm::CallBase>(u);
        if (!call || call->arg_size() == 0 || call->arg_size() != o.signature.params.size()) continue;
        const unsigned at = block ? 0 : unsigned(call->arg_size()) - 1;
        if (o.signature.params[at].find("image") == std::string::npos) continue;
        if (llvm::Argument* a = parameterOf(call->getArgOperand(at)))
          blockImages_.insert({a->getParent(), a->getArgNo()});
      }
    }
    for (bool grew = true; grew;) {
      grew = false;
      for (llvm::Function& f : m_)
        for (llvm::User* u : f.users()) {
          auto* call = llvm::dyn_cast<llvm::CallBase>(u);
          if (!call || call->getCalledFunction() != &f) continue;
          for (unsigned i = 0; i < call->arg_size() && i < f.arg_size(); ++i)
            if (blockImages_.count({&f, i}))
              if (llvm::Argument* a = parameterOf(call->getArgOperand(i)))
                grew |= blockImages_.insert({a->getParent(), a->getArgNo()}).second;
        }
    }
  }

  // Image parameters that something other than block and media IO and the size queries may
  // take (read_image*, a format query, a store elsewhere, an indirect call), followed from
  // callee to caller: a raw-bits view cannot stand in for those at enqueue
  // (KernelManifest::mixedImageArgs), as the source analysis decides it.
  void followOtherImageUses() {
    std::map<std::pair<llvm::Function*, unsigned>, std::set<std::pair<llvm::Function*, unsigned>>> passedTo;
    for (llvm::Function& f : m_) {
      if (f.isDeclaration()) continue;
      for (llvm::Argument& a : f.args()) {
        if (!isImage(a.getType())) continue;
        const std::pair<llvm::Function*, unsigned> param{&f, a.getArgNo()};
        // The parameter, its pointer casts, and the loads of the slot an unoptimised module
        // keeps it in (the store/load pair parameterOf looks through).
        std::vector<llvm::Value*> values{&a};
        bool other = false;
        for (std::size_t v = 0; v < values.size() && !other; ++v)
          for (llvm::User* u : values[v]->users()) {
            if (auto* cast = llvm::dyn_cast<llvm::BitCastInst>(u)) {
              values.push_back(cast);
            } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(u);
                       store && store->getValueOperand() == values[v]) {
              auto* slot = llvm::dyn_cast<llvm::AllocaInst>(store->getPointerOperand()->stripPointerCasts());
              if (!slot) {
                other = true;
                break;
              }
              for (llvm::User* su : slot->users()) {
                if (auto* load = llvm::dyn_cast<llvm::LoadInst>(su)) values.push_back(load);
                else if (su != store) other = true;  // anything else may put another image there
              }
            } else if (auto* call = llvm::dyn_cast<llvm::CallBase>(u)) {
              llvm::Function* callee = call->getCalledFunction();
              if (callee && (overloadOf_.count(callee) || sizeQuery(*callee))) continue;
              if (!callee || callee->isDeclaration()) {
                other = true;
                continue;
              }
              for (unsigned i = 0; i < call->arg_size(); ++i)
                if (call->getArgOperand(i) == values[v]) passedTo[param].insert({callee, i});
            } else {
              other = true;
            }
            if (other) break;
          }
        if (other) otherImageUses_.insert(param);
      }
    }
    for (bool grew = true; grew;) {
      grew = false;
      for (const auto& [param, callees] : passedTo)
        if (!otherImageUses_.count(param))
          for (const auto& callee : callees)
            if (otherImageUses_.count(callee)) {
              grew = otherImageUses_.insert(param).second;
              break;
            }
    }
  }

  static bool isImage(llvm::Type* t) {
    if (!t->isPointerTy() || t->isOpaquePointerTy()) return false;
    auto* s = llvm::dyn_cast<llvm::StructType>(t->getNonOpaquePointerElementType());
    return s && s->hasName() && s->getName().startswith("opencl.image");
  }

  // get_image_width/height/dim: a raw-bits view has the image's size, so these are no other use.
  static bool sizeQuery(const llvm::Function& f) {
    detail::MangledFunction sig;
    return detail::demangleBuiltin(f.getName(), &sig) && sig.params.size() == 1 &&
           (sig.name == "get_image_width" || sig.name == "get_image_height" || sig.name == "get_image_dim");
  }

  // `f`'s body moved into a new internal function that takes the context first.
  llvm::Function* withContext(llvm::Function* f, llvm::Type* ctxPtr) {
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
    fresh->getBasicBlockList().splice(fresh->begin(), f->getBasicBlockList());
    for (unsigned i = 0; i < f->arg_size(); ++i) {
      f->getArg(i)->replaceAllUsesWith(fresh->getArg(i + 1));
      fresh->getArg(i + 1)->takeName(f->getArg(i));
    }
    fresh->getArg(0)->setName("__isg_ctx");
    return fresh;
  }

  // Replaces `call` by a call of `target` with the context first; pointer arguments are cast to
  // the library's parameter types (address spaces, or image types the link renamed).
  bool retarget(llvm::CallInst* call, llvm::Function* target, llvm::Value* context, std::string* log) {
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
  bool makeEntry(llvm::Function* kernel, llvm::Function* twin, llvm::Function* prologue, std::string* log) {
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
  llvm::Function* replacementKernel(llvm::Function* kernel, const std::vector<llvm::Type*>& params,
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
  void extendArgMetadata(llvm::Function* entry, unsigned addressSpace, const char* type,
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

  // A read_write image2d_t where the device has none (detail::emulatesReadWriteImages), as the
  // source rewriter stands in for it (analysis.cpp): inside the module every value of that type
  // is the buffer of the image's texels after a header (layer/image_views.h), which each kernel
  // takes after its other arguments (HiddenArg::Kind::RawImage) while the application's image
  // goes to a write_only image in its place. Block and media IO take the buffer through their
  // wrappers (librarySource), the queries read the header; whatever else could take the image
  // is refused here, at the build, with the function that does it.
  bool findReadWriteImages() {
    if (traits_.readWriteImages) return true;
    bool ok = true;
    for (llvm::StructType* s : m_.getIdentifiedStructTypes()) {
      llvm::StringRef name = s->getName();
      if (!name.consume_front("opencl.") || !name.consume_back("_rw_t") || !name.startswith("image")) continue;
      if (name == "image2d" && detail::emulatesReadWriteImages(traits_)) {
        readWriteImage_ = s;
        continue;
      }
      result_.log += "error: the module uses read_write " + name.str() + "_t, which this device does not "
                     "support (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0); the layer stands in for "
                     "read_write image2d_t only\n";
      ok = false;
    }
    if (!readWriteImage_) return ok;
    for (llvm::Function& f : m_) {
      if (f.isDeclaration()) continue;
      for (llvm::Instruction& i : llvm::instructions(f)) {
        auto* call = llvm::dyn_cast<llvm::CallBase>(&i);
        if (!call || std::none_of(call->arg_begin(), call->arg_end(),
                                  [&](const llvm::Use& a) { return isReadWriteImage(a->getType()); }))
          continue;
        llvm::Function* callee = call->getCalledFunction();
        if (callee && (!callee->isDeclaration() || overloadOf_.count(callee) || headerField(*callee) >= 0))
          continue;
        detail::MangledFunction sig;
        const std::string what = !callee ? "an indirect call"
                                 : detail::demangleBuiltin(callee->getName(), &sig) ? sig.name
                                                                                     : callee->getName().str();
        result_.log += "error: function '" + f.getName().str() + "' passes a read_write image2d_t to " +
                       what + ", which this device cannot do: without read-write images "
                       "(CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0) the layer stands in for them with "
                       "a buffer of their texels, which block and media IO (intel_sub_group_block_*, "
                       "intel_sub_group_media_block_*) and get_image_width/height/dim/"
                       "channel_order/channel_data_type use; pass the image as another, read_only "
                       "or write_only, argument for other image functions\n";
        ok = false;
      }
    }
    for (llvm::Function& f : m_) {
      if (f.getCallingConv() != llvm::CallingConv::SPIR_KERNEL || f.isDeclaration()) continue;
      for (llvm::Argument& a : f.args())
        if (isReadWriteImage(a.getType())) readWriteParams_[f.getName().str()].push_back(a.getArgNo());
      if (readWriteParams_.count(f.getName().str()) && !f.use_empty()) {
        result_.log += "error: kernel '" + f.getName().str() + "' takes a read_write image2d_t and "
                       "another kernel calls it, which the layer's stand-in for read_write images "
                       "does not follow\n";
        ok = false;
      }
    }
    return ok;
  }

  bool isReadWriteImage(llvm::Type* t) const {
    return readWriteImage_ && t->isPointerTy() && !t->isOpaquePointerTy() &&
           t->getNonOpaquePointerElementType() == readWriteImage_;
  }

  // Which header word (layer/image_views.h: width, height, channel order, channel data type) a
  // query of a read_write image2d_t reads; 4 for get_image_dim (width and height); -1 otherwise.
  static int headerField(const llvm::Function& f) {
    detail::MangledFunction sig;
    if (!detail::demangleBuiltin(f.getName(), &sig) || sig.params != std::vector<std::string>{kReadWriteImage2d})
      return -1;
    static const std::map<std::string, int> fields{{"get_image_width", 0}, {"get_image_height", 1},
                                                   {"get_image_channel_order", 2},
                                                   {"get_image_channel_data_type", 3}, {"get_image_dim", 4}};
    auto it = fields.find(sig.name);
    return it == fields.end() ? -1 : it->second;
  }

  bool standInForReadWriteImages(std::string* log) {
    if (readWriteParams_.empty()) return true;
    llvm::Type* i32 = llvm::Type::getInt32Ty(ctx_);
    // The queries: loads of the header.
    for (llvm::Function& f : m_) {
      const int field = f.isDeclaration() ? headerField(f) : -1;
      if (field < 0) continue;
      for (llvm::User* u : llvm::make_early_inc_range(f.users())) {
        auto* call = llvm::dyn_cast<llvm::CallInst>(u);
        if (!call || call->getCalledFunction() != &f) continue;
        llvm::IRBuilder<> b(call);
        llvm::Value* header = b.CreatePointerCast(call->getArgOperand(0), llvm::PointerType::get(i32, 1));
        auto word = [&](unsigned w) {
          return b.CreateAlignedLoad(i32, b.CreateConstInBoundsGEP1_32(i32, header, w), llvm::Align(4));
        };
        llvm::Value* v = nullptr;
        if (field < 4) {
          v = word(unsigned(field));
        } else {
          v = b.CreateInsertElement(llvm::UndefValue::get(llvm::FixedVectorType::get(i32, 2)), word(0), uint64_t(0));
          v = b.CreateInsertElement(v, word(1), uint64_t(1));
        }
        if (v->getType() != call->getType()) {
          *log = "error: internal error: '" + f.getName().str() + "' returns another type\n";
          return false;
        }
        call->replaceAllUsesWith(v);
        call->eraseFromParent();
      }
    }
    // The kernels: the image write_only in its place, the texels after every other argument.
    llvm::StructType* writeOnly = llvm::StructType::getTypeByName(ctx_, "opencl.image2d_wo_t");
    if (!writeOnly) writeOnly = llvm::StructType::create(ctx_, "opencl.image2d_wo_t");
    llvm::Type* bytes = llvm::PointerType::get(llvm::Type::getInt8Ty(ctx_), 1);
    for (const auto& [name, images] : readWriteParams_) {
      llvm::Function* kernel = m_.getFunction(name);
      if (!kernel) continue;
      llvm::FunctionType* type = kernel->getFunctionType();
      std::vector<llvm::Type*> params(type->param_begin(), type->param_end());
      for (unsigned i : images) params[i] = llvm::PointerType::get(writeOnly, 1);
      params.insert(params.end(), images.size(), bytes);
      llvm::Function* entry = replacementKernel(kernel, params, std::vector<llvm::AttributeSet>(images.size()));
      if (llvm::MDNode* access = entry->getMetadata("kernel_arg_access_qual")) {
        std::vector<llvm::Metadata*> ops(access->op_begin(), access->op_end());
        for (unsigned i : images)
          if (i < ops.size()) ops[i] = llvm::MDString::get(ctx_, "write_only");
        entry->setMetadata("kernel_arg_access_qual", llvm::MDNode::get(ctx_, ops));
      }
      std::vector<std::string> names;
      for (unsigned i : images) names.push_back(kernel->getArg(i)->getName().str() + "__isg_raw");
      extendArgMetadata(entry, 1, "uchar*", names);
      entry->getBasicBlockList().splice(entry->begin(), kernel->getBasicBlockList());
      llvm::IRBuilder<> b(&*entry->getEntryBlock().getFirstInsertionPt());
      for (unsigned i = 0; i < kernel->arg_size(); ++i) {
        llvm::Argument* old = kernel->getArg(i);
        auto at = std::find(images.begin(), images.end(), i);
        if (at == images.end()) {
          old->replaceAllUsesWith(entry->getArg(i));
          entry->getArg(i)->takeName(old);
          continue;
        }
        llvm::Argument* texels = entry->getArg(unsigned(kernel->arg_size() + (at - images.begin())));
        texels->setName(names[std::size_t(at - images.begin())]);
        entry->getArg(i)->setName(old->getName() + "__isg_img");
        old->replaceAllUsesWith(b.CreatePointerCast(texels, old->getType()));
      }
      kernel->eraseFromParent();
    }
    return true;
  }

  // Inlines what is marked always-inline: the kernels' bodies into their entries and, for
  // SPIR-V, the library into its callers, whose memory it then promotes (the library's flags
  // and sizes become constants again); nothing else of LLVM's pipeline, so the module keeps
  // only instructions and intrinsics the translator and drivers already met in it.
  void inlineMarked() {
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
      fpm.addPass(llvm::SROAPass());
      fpm.addPass(llvm::EarlyCSEPass());
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(fpm)));
    }
    mpm.run(m_, mam);
  }

  // Drops what nothing uses any more and checks the module.
  bool finish(std::string* log) {
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

  const ModuleInput& in_;
  const DeviceTraits& traits_;
  llvm::Module& m_;
  llvm::LLVMContext& ctx_;
  std::vector<Overload> overloads_;
  std::map<llvm::Function*, std::size_t> overloadOf_;
  std::set<llvm::Function*> contextual_;
  std::set<std::pair<llvm::Function*, unsigned>> blockImages_;
  std::set<std::pair<llvm::Function*, unsigned>> otherImageUses_;
  llvm::StructType* readWriteImage_ = nullptr;                       // opencl.image2d_rw_t, stood in for
  std::map<std::string, std::vector<unsigned>> readWriteParams_;      // kernel -> its such parameters
  std::vector<KernelManifest> kernels_;
  bool usesSubGroups_ = false;
  RewriteResult result_;
};

// A module compiled at -O0 (clang's default for SPIR-V) marks every function noinline and
// optnone. PoCL compiles SPIR bitcode as it comes, and a function it does not inline cannot
// reach the work-group's ids (`_group_id_x`: the kernel's library fails to load and PoCL ends
// the process at the launch). What the driver inlines is its own choice for source programs;
// so it is for these.
void letDriverInline(llvm::Module& m) {
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    for (llvm::Instruction& i : llvm::instructions(f))  // the translator marks the calls too
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) call->removeFnAttr(llvm::Attribute::NoInline);
  }
}

std::string clStd(const DeviceTraits& t) {
  return t.openclCVersion >= 300 ? "-cl-std=CL3.0" : t.openclCVersion >= 200 ? "-cl-std=CL2.0" : "-cl-std=CL1.2";
}

// The rewritten module `m` in the form the driver takes (`in.output`) into *binary: SPIR bitcode,
// SPIR-V, or PTX (NUL-terminated: NVIDIA's clCreateProgramWithBinary reads it as a C string).
// The OpenCL C 2.0 atomics go to LLVM's first where no SPIR-V consumer follows
// (opencl_atomics.h). False with the build log in *log.
bool writeModule(const ModuleInput& in, const DeviceTraits& traits, llvm::Module& m, std::string* binary,
                 std::vector<KernelManifest>* kernels, std::string* log) {
  if (in.output != RewriteResult::Form::Spirv) detail::lowerOpenclAtomics(m);
  std::string bitcode;
  llvm::raw_string_ostream os(bitcode);
  llvm::WriteBitcodeToFile(m, os);
  os.flush();
  std::string why;
  switch (in.output) {
    case RewriteResult::Form::Spirv:
      if (detail::bitcodeToSpirv(in.bridgePath, bitcode, in.spirvVersion, binary, &why)) return true;
      *log = "error: the rewritten module cannot be written as SPIR-V: " + why;
      return false;
    case RewriteResult::Form::Ptx: {
      detail::ShapedKernels shaped;
      if (!detail::spirToPtx(bitcode, traits, in.options, binary, &shaped, log)) return false;
      detail::recordLaunchShape(shaped, kernels);
      binary->push_back('\0');
      return true;
    }
    default:
      *binary = std::move(bitcode);
      return true;
  }
}

RewriteResult rewriteModuleUncached(const ModuleInput& in) {
  std::string why;
  if (!detail::validateSpirv(in.spirv, &why))
    return errorResult("error: the SPIR-V module is not valid: " + why);
  std::string bitcode;
  if (!detail::spirvToBitcode(in.bridgePath, in.spirv, &bitcode, &why))
    return errorResult("error: the SPIR-V module cannot be read: " + why);

  DeviceTraits traits = in.traits;
  // PTX has no read-write image form: NVIDIA's devices report none, and the stand-in serves.
  if (in.output == RewriteResult::Form::Ptx) traits.readWriteImages = false;
  std::string note;
  for (int attempt = 0; attempt < 2; ++attempt) {
    llvm::LLVMContext context;
    // Typed pointers, as the translator reads and writes them (and the library is compiled).
    context.setOpaquePointers(false);
    auto parsed = llvm::parseBitcodeFile(
        llvm::MemoryBufferRef(llvm::StringRef(bitcode.data(), bitcode.size()), "module"), context);
    if (!parsed) return errorResult("error: internal error: " + llvm::toString(parsed.takeError()));
    llvm::Module& m = **parsed;
    if (in.output == RewriteResult::Form::Ptx)
      if (std::string why = detail::ptxUnsupported(m); !why.empty()) return errorResult(why);
    if (in.output == RewriteResult::Form::Bitcode) letDriverInline(m);
    ModuleRewriter rewriter(in, traits, m);
    if (!rewriter.analyse()) return errorResult(rewriter.takeLog());
    if (attempt == 0 && traits.strategy == Strategy::Khr) {
      note = detail::khrMisfit(traits, rewriter.kernels());
      if (!note.empty()) {
        traits.strategy = Strategy::Local;
        traits.khrTestDouble = false;
        continue;
      }
    }
    RewriteResult r;
    r.status = RewriteResult::Status::Rewritten;
    r.form = in.output;
    r.strategy = traits.strategy;
    if (!note.empty()) r.log = note + "\n";
    if (!rewriter.usesSubGroups()) {
      if (in.output == RewriteResult::Form::Spirv && !rewriter.standsInForImages())
        return RewriteResult{};  // the driver takes it as it is
      if (!rewriter.finishWithoutLibrary(&why)) return errorResult(why);
      r.kernels = rewriter.kernels();
      if (!writeModule(in, traits, m, &r.binary, &r.kernels, &why)) return errorResult(why);
      return r;
    }
    RewriteInput library;
    library.source = rewriter.librarySource();
    library.options = clStd(traits);
    library.traits = traits;
    // Bound for PTX (OpenCL C 2.0: memory_scope and the generic space, whatever features the
    // device lists): the library's inline PTX needs NVPTX's constraints ("l"), so it is compiled
    // for NVPTX, whose global, local and private/generic spaces the SPIR module shares (the
    // move to NVPTX maps SPIR's generic onto private). Its image functions take images, which
    // both put in the global space, and no samplers (whose spaces differ).
    const bool ptx = in.output == RewriteResult::Form::Ptx;
    if (ptx) library.options = "-cl-std=CL2.0";
    std::string log;
    std::unique_ptr<llvm::Module> compiled = detail::compileToModule(
        library, context, &log, ptx ? detail::CodegenTarget::NvptxTyped : detail::CodegenTarget::Spir);
    if (!compiled)
      return errorResult("error: internal error: the sub-group library does not compile for this "
                         "module:\n" + log);
    if (!rewriter.transform(std::move(compiled), &log)) return errorResult(log);
    r.kernels = rewriter.kernels();
    if (!writeModule(in, traits, m, &r.binary, &r.kernels, &why)) return errorResult(why);
    return r;
  }
  return errorResult("error: internal error: no strategy fits the module");
}

}  // namespace

std::string builtinDeclarations(const DeviceTraits& traits) {
  return detail::declarationsHeader(traits);
}

bool spirvAvailable(const std::string& bridgePath, std::string* why) {
  return detail::bridgeLoads(bridgePath, why);
}

bool validateModule(const std::string& spirv, std::string* why) {
  return detail::validateSpirv(spirv, why);
}

RewriteResult rewriteModule(const ModuleInput& input) {
  try {
    return rewriteModuleUncached(input);
  } catch (const std::exception& e) {
    return errorResult(std::string("error: the SPIR-V front end failed: ") + e.what());
  } catch (...) {
    return errorResult("error: the SPIR-V front end failed");
  }
}

}  // namespace isg
