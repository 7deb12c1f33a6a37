// SPDX-License-Identifier: MIT
// SPIR bitcode (the module rewriter's output for NVIDIA) to PTX: steps 1 and 2 of ptx_steps.h.
// The SPIR-V reader writes SPIR's address spaces and calling conventions, which NVPTX numbers
// and names otherwise, and LLVM cannot retype a module in place: it is cloned into NVPTX's form
// here, after what the path cannot build is refused with a build log that says so.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "ptx/launch_shape.h"
#include "ptx/opencl_atomics.h"
#include "ptx/ptx_backend.h"
#include "ptx/ptx_images.h"
#include "ptx/ptx_printf.h"
#include "ptx/ptx_steps.h"
#include "common/llvm_compat.h"

namespace isg::detail {
namespace {

unsigned nvptxSpace(unsigned spir) {
  switch (spir) {
    case 1: return 1;  // global
    case 2: return 4;  // constant
    case 3: return 3;  // local: shared
    default: return 0;  // private and generic: generic
  }
}

// Maps every type that holds a pointer to the NVPTX address space of its SPIR one.
class SpaceMapper final : public llvm::ValueMapTypeRemapper {
 public:
  explicit SpaceMapper(llvm::LLVMContext& c) : c_(c) {}

  llvm::Type* remapType(llvm::Type* t) override {
    if (auto it = done_.find(t); it != done_.end()) return it->second;
    llvm::Type* r = t;
    if (auto* p = llvm::dyn_cast<llvm::PointerType>(t)) {
      r = llvm::PointerType::get(c_, nvptxSpace(p->getAddressSpace()));
    } else if (auto* v = llvm::dyn_cast<llvm::VectorType>(t)) {
      r = llvm::VectorType::get(remapType(v->getElementType()), v->getElementCount());
    } else if (auto* a = llvm::dyn_cast<llvm::ArrayType>(t)) {
      r = llvm::ArrayType::get(remapType(a->getElementType()), a->getNumElements());
    } else if (auto* f = llvm::dyn_cast<llvm::FunctionType>(t)) {
      std::vector<llvm::Type*> params;
      for (llvm::Type* p : f->params()) params.push_back(remapType(p));
      r = llvm::FunctionType::get(remapType(f->getReturnType()), params, f->isVarArg());
    } else if (auto* s = llvm::dyn_cast<llvm::StructType>(t); s && !s->isOpaque() && changes(s)) {
      llvm::StructType* fresh = s->isLiteral() ? nullptr : llvm::StructType::create(c_, s->getName().str() + ".nv");
      if (fresh) done_[t] = fresh;  // a member may point back at it
      std::vector<llvm::Type*> members;
      for (llvm::Type* m : s->elements()) members.push_back(remapType(m));
      if (fresh) fresh->setBody(members, s->isPacked());
      r = fresh ? fresh : llvm::StructType::get(c_, members, s->isPacked());
    }
    done_[t] = r;
    return r;
  }

 private:
  // Whether a struct holds (at any depth) a pointer whose address space changes.
  bool changes(llvm::Type* t) {
    if (auto it = changes_.find(t); it != changes_.end()) return it->second;
    changes_[t] = false;  // cycles only go through pointers, which answer for themselves
    bool c = false;
    if (auto* p = llvm::dyn_cast<llvm::PointerType>(t)) c = nvptxSpace(p->getAddressSpace()) != p->getAddressSpace();
    else
      for (llvm::Type* sub : t->subtypes()) c |= changes(sub);
    changes_[t] = c;
    return c;
  }

  llvm::LLVMContext& c_;
  std::map<llvm::Type*, llvm::Type*> done_;
  std::map<llvm::Type*, bool> changes_;
};

llvm::AttributeList remapAttributes(llvm::LLVMContext& c, llvm::AttributeList attrs, SpaceMapper& tm) {
  for (unsigned i = 0; i < attrs.getNumAttrSets(); ++i)
    for (int k = llvm::Attribute::FirstTypeAttr; k <= llvm::Attribute::LastTypeAttr; ++k) {
      auto kind = static_cast<llvm::Attribute::AttrKind>(k);
      if (llvm::Type* t = attrs.getAttributeAtIndex(i, kind).getValueAsType())
        attrs = attrs.replaceAttributeTypeAtIndex(c, i, kind, tm.remapType(t));
    }
  return attrs;
}

// The module again with NVPTX's address spaces and calling conventions.
std::unique_ptr<llvm::Module> toNvptx(llvm::Module& src, std::string* log) {
  llvm::LLVMContext& c = src.getContext();
  auto dst = std::make_unique<llvm::Module>(src.getModuleIdentifier(), c);
  dst->setSourceFileName(src.getSourceFileName());
  SpaceMapper tm(c);
  llvm::ValueToValueMapTy vmap;
  if (!src.alias_empty() || !src.ifunc_empty()) {
    *log = "error: the module has aliases, which the layer cannot move to NVPTX\n";
    return nullptr;
  }
  for (llvm::GlobalVariable& g : src.globals()) {
    auto* fresh = new llvm::GlobalVariable(*dst, tm.remapType(g.getValueType()), g.isConstant(), g.getLinkage(),
                                           nullptr, g.getName(), nullptr, g.getThreadLocalMode(),
                                           nvptxSpace(g.getAddressSpace()));
    fresh->copyAttributesFrom(&g);
    vmap[&g] = fresh;
  }
  for (llvm::Function& f : src) {
    auto* fresh = llvm::Function::Create(llvm::cast<llvm::FunctionType>(tm.remapType(f.getFunctionType())),
                                         f.getLinkage(), 0, f.getName(), dst.get());
    fresh->copyAttributesFrom(&f);
    fresh->setAttributes(remapAttributes(c, f.getAttributes(), tm));
    vmap[&f] = fresh;
  }
  for (llvm::GlobalVariable& g : src.globals())
    if (g.hasInitializer())
      llvm::cast<llvm::GlobalVariable>(vmap[&g])
          ->setInitializer(llvm::MapValue(g.getInitializer(), vmap, llvm::RF_None, &tm));
  for (llvm::Function& f : src) {
    if (f.isDeclaration()) continue;
    auto* fresh = llvm::cast<llvm::Function>(vmap[&f]);
    auto arg = fresh->arg_begin();
    for (llvm::Argument& a : f.args()) {
      arg->setName(a.getName());
      vmap[&a] = &*arg++;
    }
    llvm::SmallVector<llvm::ReturnInst*, 8> returns;
    llvm::CloneFunctionInto(fresh, &f, vmap, llvm::CloneFunctionChangeType::DifferentModule, returns, "",
                            nullptr, &tm);
    fresh->setAttributes(remapAttributes(c, f.getAttributes(), tm));
  }
  // SPIR's private and generic are both NVPTX's generic: casts between them are no casts.
  for (llvm::Function& f : *dst)
    for (llvm::BasicBlock& bb : f)
      for (auto it = bb.begin(); it != bb.end();) {
        auto* cast = llvm::dyn_cast<llvm::AddrSpaceCastInst>(&*it++);
        if (cast && cast->getSrcAddressSpace() == cast->getDestAddressSpace()) {
          cast->replaceAllUsesWith(cast->getPointerOperand());
          cast->eraseFromParent();
        }
      }
  for (llvm::NamedMDNode& named : src.named_metadata()) {
    if (named.getName() == "llvm.module.flags") continue;  // SPIR's; NVPTX's come with the target
    llvm::NamedMDNode* copy = dst->getOrInsertNamedMetadata(named.getName());
    for (llvm::MDNode* op : named.operands()) copy->addOperand(llvm::MapMetadata(op, vmap, llvm::RF_None, &tm));
  }
  // Intrinsic names spell their pointer types' address spaces (llvm.memcpy.p1.p4.i64).
  std::vector<llvm::Function*> intrinsics;
  for (llvm::Function& f : *dst)
    if (f.isIntrinsic()) intrinsics.push_back(&f);
  for (llvm::Function* f : intrinsics)
    if (auto renamed = llvm::Intrinsic::remangleIntrinsicFunction(f)) {
      f->replaceAllUsesWith(*renamed);
      f->eraseFromParent();
    }
  for (llvm::Function& f : *dst) {
    if (f.getCallingConv() == llvm::CallingConv::SPIR_KERNEL) f.setCallingConv(llvm::CallingConv::PTX_Kernel);
    else f.setCallingConv(llvm::CallingConv::C);
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) call->setCallingConv(llvm::CallingConv::C);
  }
  return dst;
}

}  // namespace

std::string ptxUnsupported(const llvm::Module& spir) {
  // Opaque OpenCL types keep their names in the SPIR module the reader writes
  // ("opencl.image2d_wo_t": the access qualifier in the name).
  static const std::pair<const char*, const char*> kinds[] = {
      {"opencl.pipe", "pipes"}, {"opencl.queue_t", "device-side enqueue"},
      {"opencl.clk_event_t", "device-side enqueue"}, {"opencl.reserve_id_t", "pipes"}};
  std::set<std::string> found;
  for (llvm::StructType* s : spir.getIdentifiedStructTypes()) {
    for (const auto& [prefix, what] : kinds)
      if (startsWith(s->getName(), prefix)) found.insert(what);
    llvm::StringRef image = s->getName();
    if (!image.consume_front("opencl.image") || !image.consume_back("_t")) continue;
    llvm::StringRef access = "read_only";
    if (image.consume_back("_wo")) access = "write_only";
    else if (image.consume_back("_rw")) access = "read_write";
    else image.consume_back("_ro");
    if (access == "read_write" && image == "2d") continue;  // the module rewriter stands in for it
    if (std::string what = imageLimit(("image" + image + "_t").str(), access); !what.empty()) found.insert(what);
  }
  for (const char* f : {"__enqueue_kernel_basic", "__enqueue_kernel_varargs"})
    if (const llvm::Function* fn = spir.getFunction(f); fn && !fn->use_empty()) found.insert("device-side enqueue");
  std::string log;
  for (const std::string& what : found)
    log += "error: the module uses " + what + ", which programs from SPIR-V cannot use on NVIDIA devices "
           "yet (docs/spirv.md); build the program from OpenCL C source for this device\n";
  return log;
}

bool spirToPtx(const std::string& bitcode, const DeviceTraits& traits, const std::string& options,
               std::string* ptx, ShapedKernels* shaped, std::string* log) {
  llvm::LLVMContext context;
  useOpaquePointers(context);  // libclc's bitcode has them; the module's are upgraded
  std::string diagnostics;
  collectErrors(context, &diagnostics);
  auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "module"), context);
  if (!parsed) {
    *log = "error: internal error: " + llvm::toString(parsed.takeError()) + "\n";
    return false;
  }
  const bool uniform = !allowsNonUniformWorkGroups(options, /*fromSpirv=*/true);
  std::unique_ptr<llvm::Module> m = toNvptx(**parsed, log);
  if (!m) return false;
  parsed->reset();
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine(traits.nvidiaComputeCapability, options, log);
  if (!tm) return false;
  m->setTargetTriple(kTriple);
  m->setDataLayout(tm->createDataLayout());
  lowerOpenclAtomics(*m);
  if (!lowerImages(*m, traits, log) || !lowerPrintf(*m, log)) return false;
  if (!bindBuiltins(*m, traits, Origin::Spirv, log)) return false;
  *shaped = appendLaunchShape(*m, uniform);
  appendPackedLaunch(*m, nullptr, shaped);  // the module rewriter's manifests name no S per kernel
  if (!writePtx(*m, *tm, options, Origin::Spirv, diagnostics, ptx, log)) return false;
  declareBufferSurfaces(*m, ptx);
  return true;
}

}  // namespace isg::detail
