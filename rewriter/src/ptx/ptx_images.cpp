// SPDX-License-Identifier: MIT
// Images and samplers on the layer's PTX path (ptx_images.h). NVIDIA's own OpenCL compiler
// writes a read_only image parameter as `.param .texref`, a write_only one as `.param
// .surfref`, a sampler as `.param .samplerref` and a sampler initialiser as a program-scope
// `.global .samplerref` (docs/design.md, "Build paths on NVIDIA"). LLVM's NVPTX back end writes
// the same for the nvcl driver interface from i64 kernel parameters and i64 globals annotated
// in nvvm.annotations, once every texture, surface and query intrinsic takes such a parameter
// or global directly (NVPTXReplaceImageHandles): hence the inlining below.
#include "ptx/ptx_images.h"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <llvm/ADT/StringRef.h>
#if __has_include(<llvm/IR/AttributeMask.h>)
#include <llvm/IR/AttributeMask.h>  // (16 moved it out of Attributes.h)
#endif
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "ptx/ptx_kernels.h"
#include "common/clang_session.h"
#include "common/embedded.h"
#include "isg/rewriter.h"
#include "common/llvm_compat.h"

namespace isg::detail {

std::string imageLimit(llvm::StringRef type, llvm::StringRef access) {
  if (type.contains("depth")) return "depth images";
  if (type.contains("msaa")) return "multi-sample images";
  if (access == "read_write") return "read_write images";
  return "";
}

namespace {

constexpr const char* kHandle = "_Z12__isg_handle";  // __isg_handle(image or sampler), overloaded
constexpr const char* kPrimitive = "__isg_nvvm_";    // __isg_nvvm_tex_2d_v4f32_s32 -> llvm.nvvm.tex.2d.v4f32.s32
// A write_only image1d_buffer_t: an i64 parameter without annotation, declared a surface
// pointer in the PTX text afterwards (bufferSurfaces).
constexpr const char* kBufferSurface = "buffer surface";
constexpr const char* kBufferSurfaces = "isg.buffer.surfaces";  // named metadata: {kernel, index}

// The kernel's image and sampler parameters, from Clang's (or the SPIR-V reader's) kernel_arg
// metadata: the nvvm.annotations kind of each, by parameter number.
std::map<unsigned, const char*> imageParameters(const llvm::Function& f) {
  std::map<unsigned, const char*> out;
  std::vector<std::string> types = kernelArgStrings(f, "kernel_arg_base_type");
  if (types.empty()) types = kernelArgStrings(f, "kernel_arg_type");
  const std::vector<std::string> access = kernelArgStrings(f, "kernel_arg_access_qual");
  for (unsigned i = 0; i < types.size(); ++i) {
    const llvm::StringRef name = types[i];
    if (name.contains('*')) continue;
    if (name == "sampler_t") {
      out[i] = "sampler";
    } else if (startsWith(name, "image")) {
      const bool write = i < access.size() && access[i] == "write_only";
      out[i] = write && startsWith(name, "image1d_buffer") ? kBufferSurface : write ? "wroimage" : "rdoimage";
    }
  }
  return out;
}

void annotate(llvm::Module& m, llvm::Metadata* what, const char* kind, unsigned value) {
  llvm::LLVMContext& c = m.getContext();
  m.getOrInsertNamedMetadata("nvvm.annotations")
      ->addOperand(llvm::MDNode::get(c, {what, llvm::MDString::get(c, kind),
                                         llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                             llvm::Type::getInt32Ty(c), value))}));
}

// The kernel again with an i64 for each image and sampler parameter, annotated; the body sees
// the pointers it had, made from the integers.
void retypeKernel(llvm::Module& m, llvm::Function& f, const std::map<unsigned, const char*>& params) {
  llvm::LLVMContext& c = m.getContext();
  llvm::Type* i64 = llvm::Type::getInt64Ty(c);
  std::vector<llvm::Type*> types;
  for (llvm::Argument& a : f.args()) types.push_back(params.count(a.getArgNo()) ? i64 : a.getType());
  llvm::Function* fresh = withParameters(f, types);
  for (const auto& [i, kind] : params) fresh->removeParamAttrs(i, llvm::AttributeFuncs::typeIncompatible(i64));
  llvm::IRBuilder<> b(&*fresh->getEntryBlock().getFirstInsertionPt());
  for (llvm::Argument& a : f.args()) {
    llvm::Argument* now = fresh->getArg(a.getArgNo());
    now->takeName(&a);
    a.replaceAllUsesWith(params.count(a.getArgNo()) ? b.CreateIntToPtr(now, a.getType()) : now);
  }
  replaceFunction(f, fresh);
  for (const auto& [i, kind] : params) {
    if (std::string(kind) != kBufferSurface) {
      annotate(m, llvm::ValueAsMetadata::get(fresh), kind, i);
      continue;
    }
    llvm::LLVMContext& c = m.getContext();
    m.getOrInsertNamedMetadata(kBufferSurfaces)
        ->addOperand(llvm::MDNode::get(c, {llvm::MDString::get(c, fresh->getName()),
                                           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                               llvm::Type::getInt32Ty(c), i))}));
  }
}

// The program-scope .samplerref of an OpenCL sampler value (CLK_* bits as Clang's headers give
// them). NVPTX's initialiser encoding (cl_common_defines.h of its back end): addressing mode in
// bits 0-2 (0 wrap, 1 clamp_to_border, 2 clamp_to_edge, 4 mirror), normalised coordinates in
// bit 3, linear filtering in bit 4. CLK_ADDRESS_NONE becomes wrap, as in NVIDIA's compiler.
llvm::GlobalVariable* samplerGlobal(llvm::Module& m, uint64_t bits, std::string* log) {
  static const unsigned addressing[] = {0 /* none */, 2 /* clamp_to_edge */, 1 /* clamp */, 0 /* repeat */,
                                        4 /* mirrored_repeat */};
  const uint64_t mode = (bits >> 1) & 7;
  if (mode > 4 || (bits & 0x30) == 0x30) {
    *log += "error: a sampler initialiser (" + std::to_string(bits) + ") that is no OpenCL sampler\n";
    return nullptr;
  }
  const std::string name = "__isg_sampler_" + std::to_string(bits);
  if (llvm::GlobalVariable* g = m.getGlobalVariable(name, true)) return g;
  llvm::Type* i64 = llvm::Type::getInt64Ty(m.getContext());
  const uint64_t encoded = addressing[mode] | (bits & 1) << 3 | ((bits & 0x30) == 0x20 ? 1u << 4 : 0u);
  auto* g = new llvm::GlobalVariable(m, i64, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::ConstantInt::get(i64, encoded), name, nullptr,
                                     llvm::GlobalValue::NotThreadLocal, 1);
  annotate(m, llvm::ValueAsMetadata::get(g), "sampler", 1);
  return g;
}

// ptx-runtime/images.cl as bitcode for NVPTX, compiled once per process for each set of
// traits that changes it (half, 3D image writes).
bool imageLibrary(const DeviceTraits& traits, llvm::LLVMContext& context, std::unique_ptr<llvm::Module>* out,
                  std::string* log) {
  const EmbeddedFile* file = findEmbedded("ptx-runtime/images.cl");
  if (!file) {
    *log = "error: internal error: ptx-runtime/images.cl is not in the layer\n";
    return false;
  }
  static std::mutex mutex;
  static std::map<std::string, std::string> compiled;  // by the traits' effect: bitcode
  bool writes3d = false;
  for (const std::string& e : traits.deviceExtensions) writes3d |= e == "cl_khr_3d_image_writes";
  const std::string key = std::string(traits.fp16 ? "h" : "-") + (writes3d ? "3" : "-");
  std::string bitcode;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = compiled.find(key); it != compiled.end()) bitcode = it->second;
  }
  if (bitcode.empty()) {
    RewriteInput library;
    library.source = file->text();
    library.options = "-cl-std=CL2.0";
    library.traits = traits;
    library.traits.images = true;
    llvm::LLVMContext scratch;
    useOpaquePointers(scratch);
    std::string diagnostics;
    std::unique_ptr<llvm::Module> m = compileToModule(library, scratch, &diagnostics, CodegenTarget::Nvptx);
    if (!m) {
      *log = "error: internal error: the image functions do not compile for NVIDIA devices:\n" + diagnostics;
      return false;
    }
    llvm::raw_string_ostream os(bitcode);
    llvm::WriteBitcodeToFile(*m, os);
    os.flush();
    std::lock_guard<std::mutex> lock(mutex);
    compiled.emplace(key, bitcode);
  }
  auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "images"), context);
  if (!parsed) {
    *log = "error: internal error: " + llvm::toString(parsed.takeError()) + "\n";
    return false;
  }
  *out = std::move(*parsed);
  return true;
}

// A call of an __isg_nvvm_ primitive as its intrinsic: vector operands spread into scalars, a
// struct result gathered into the call's vector.
bool bindPrimitive(llvm::Module& m, llvm::CallInst* call, std::string* log) {
  const std::string name = call->getCalledFunction()->getName().str();
  std::string intrinsic = "llvm.nvvm." + name.substr(std::string(kPrimitive).size());
  for (std::size_t i = std::string("llvm.nvvm.").size(); i < intrinsic.size(); ++i)
    if (intrinsic[i] == '_') intrinsic[i] = '.';
  const llvm::Intrinsic::ID id = llvm::Function::lookupIntrinsicID(intrinsic);
  if (id == llvm::Intrinsic::not_intrinsic || llvm::Intrinsic::isOverloaded(id)) {
    *log += "error: internal error: no intrinsic " + intrinsic + "\n";
    return false;
  }
  llvm::Function* target = llvm::Intrinsic::getDeclaration(&m, id);
  llvm::IRBuilder<> b(call);
  std::vector<llvm::Value*> args;
  for (llvm::Value* a : call->args()) {
    if (auto* v = llvm::dyn_cast<llvm::FixedVectorType>(a->getType())) {
      for (unsigned i = 0; i < v->getNumElements(); ++i) args.push_back(b.CreateExtractElement(a, i));
    } else {
      args.push_back(a);
    }
  }
  llvm::FunctionType* type = target->getFunctionType();
  bool fits = type->getNumParams() == args.size();
  for (std::size_t i = 0; fits && i < args.size(); ++i) fits = type->getParamType(unsigned(i)) == args[i]->getType();
  llvm::Type* want = call->getType();
  auto* parts = llvm::dyn_cast<llvm::StructType>(type->getReturnType());
  auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(want);
  fits = fits && (parts ? vector && vector->getNumElements() == parts->getNumElements() : type->getReturnType() == want);
  if (!fits) {
    *log += "error: internal error: " + name + " does not match " + intrinsic + "\n";
    return false;
  }
  llvm::Value* r = b.CreateCall(target, args);
  if (parts) {
    llvm::Value* gathered = llvm::UndefValue::get(want);
    for (unsigned i = 0; i < parts->getNumElements(); ++i)
      gathered = b.CreateInsertElement(gathered, b.CreateExtractValue(r, i), i);
    r = gathered;
  }
  if (!want->isVoidTy()) call->replaceAllUsesWith(r);
  call->eraseFromParent();
  return true;
}

bool isImageIntrinsic(const llvm::Function& f) {
  const llvm::StringRef n = f.getName();
  for (const char* p : {"llvm.nvvm.tex.", "llvm.nvvm.sust.", "llvm.nvvm.suld.", "llvm.nvvm.txq.",
                        "llvm.nvvm.suq.", "llvm.nvvm.texsurf."})
    if (startsWith(n, p)) return true;
  return false;
}

}  // namespace

void rematerialiseHandles(llvm::Module& m) {
  auto handleCall = [](llvm::Value* v) -> llvm::CallInst* {
    auto* call = llvm::dyn_cast<llvm::CallInst>(v);
    const llvm::Function* f = call ? call->getCalledFunction() : nullptr;
    return f && startsWith(f->getName(), "llvm.nvvm.texsurf.handle") ? call : nullptr;
  };
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    // One handle call per global, at the top of the function: every other becomes it.
    std::map<llvm::Value*, llvm::CallInst*> first;
    std::vector<llvm::CallInst*> calls;
    for (llvm::Instruction& i : llvm::instructions(f))
      if (llvm::CallInst* h = handleCall(&i)) calls.push_back(h);
    for (llvm::CallInst* h : calls) {
      llvm::CallInst*& one = first[h->getArgOperand(0)];
      if (!one) {
        one = h;
        h->moveBefore(&*f.getEntryBlock().getFirstInsertionPt());
      } else {
        h->replaceAllUsesWith(one);
        h->eraseFromParent();
      }
    }
    // The phis and selects that merged them now merge one value: their users take it.
    for (llvm::Instruction& i : llvm::instructions(f)) {
      auto* use = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
      if (!use || handleCall(use)) continue;
      for (unsigned a = 0; a < use->arg_size(); ++a) {
        llvm::Value* v = use->getArgOperand(a);
        if (!llvm::isa<llvm::PHINode>(v) && !llvm::isa<llvm::SelectInst>(v)) continue;
        std::vector<llvm::Value*> work{v};
        std::set<llvm::Value*> seen;
        llvm::Value* leaf = nullptr;
        bool one = true;
        while (!work.empty() && one) {
          llvm::Value* x = work.back();
          work.pop_back();
          if (!seen.insert(x).second) continue;
          if (auto* phi = llvm::dyn_cast<llvm::PHINode>(x)) {
            for (llvm::Value* in : phi->incoming_values()) work.push_back(in);
          } else if (auto* select = llvm::dyn_cast<llvm::SelectInst>(x)) {
            work.push_back(select->getTrueValue());
            work.push_back(select->getFalseValue());
          } else {
            one = (handleCall(x) || llvm::isa<llvm::Argument>(x)) && (!leaf || leaf == x);
            leaf = x;
          }
        }
        if (one && leaf) use->setArgOperand(a, leaf);
      }
    }
  }
}

void declareBufferSurfaces(const llvm::Module& m, std::string* ptx) {
  const llvm::NamedMDNode* list = m.getNamedMetadata(kBufferSurfaces);
  if (!list) return;
  for (const llvm::MDNode* op : list->operands()) {
    const auto* kernel = llvm::dyn_cast<llvm::MDString>(op->getOperand(0));
    const auto* index = llvm::mdconst::dyn_extract<llvm::ConstantInt>(op->getOperand(1));
    if (!kernel || !index) continue;
    const std::string param = kernel->getString().str() + "_param_" + std::to_string(index->getZExtValue());
    for (const char* end : {",", "\n"}) {
      const std::string plain = ".param .u64 " + param + end;
      if (const std::size_t at = ptx->find(plain); at != std::string::npos)
        ptx->replace(at, plain.size(), ".param .u64 .ptr .surfref " + param + end);
    }
  }
}

bool lowerImages(llvm::Module& m, const DeviceTraits& traits, std::string* log) {
  std::map<llvm::Function*, std::map<unsigned, const char*>> kernels;
  for (llvm::Function& f : m)
    if (f.getCallingConv() == llvm::CallingConv::PTX_Kernel && !f.isDeclaration())
      if (auto params = imageParameters(f); !params.empty()) kernels[&f] = std::move(params);
  bool calls = false;
  for (const llvm::Function& f : m) {
    if (!f.isDeclaration() || f.use_empty()) continue;
    const llvm::StringRef n = f.getName();
    calls |= n == "__translate_sampler_initializer" || n.contains("_image");
  }
  if (kernels.empty() && !calls) return true;

  std::unique_ptr<llvm::Module> library;
  if (!imageLibrary(traits, m.getContext(), &library, log)) return false;
  library->setDataLayout(m.getDataLayout());
  library->setTargetTriple(m.getTargetTriple());
  if (llvm::Linker::linkModules(m, std::move(library), llvm::Linker::LinkOnlyNeeded)) {
    *log = "error: internal error: the image functions do not link with the module\n";
    return false;
  }

  std::vector<llvm::CallInst*> work;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& bb : f)
      for (llvm::Instruction& i : bb)
        if (auto* call = llvm::dyn_cast<llvm::CallInst>(&i))
          if (const llvm::Function* callee = call->getCalledFunction())
            if (startsWith(callee->getName(), kHandle) || startsWith(callee->getName(), kPrimitive) ||
                callee->getName() == "__translate_sampler_initializer")
              work.push_back(call);
  llvm::Type* i64 = llvm::Type::getInt64Ty(m.getContext());
  for (llvm::CallInst* call : work) {
    const llvm::StringRef callee = call->getCalledFunction()->getName();
    if (startsWith(callee, kPrimitive)) {
      if (!bindPrimitive(m, call, log)) return false;
      continue;
    }
    llvm::IRBuilder<> b(call);
    llvm::Value* r = nullptr;
    if (startsWith(callee, kHandle)) {
      r = b.CreatePtrToInt(call->getArgOperand(0), i64);
    } else {
      const auto* bits = llvm::dyn_cast<llvm::ConstantInt>(call->getArgOperand(0));
      if (!bits) {
        *log += "error: a sampler made from a value that is not constant, which NVIDIA devices do not have\n";
        return false;
      }
      llvm::GlobalVariable* g = samplerGlobal(m, bits->getZExtValue(), log);
      if (!g) return false;
      llvm::Function* handle =
          llvm::Intrinsic::getDeclaration(&m, llvm::Intrinsic::nvvm_texsurf_handle_internal, {g->getType()});
      r = b.CreateIntToPtr(b.CreateCall(handle, {g}), call->getType());
    }
    call->replaceAllUsesWith(r);
    call->eraseFromParent();
  }
  for (auto& [f, params] : kernels) retypeKernel(m, *f, params);

  // Everything that reaches an image intrinsic goes into its kernel.
  std::set<llvm::Function*> reach;
  std::vector<llvm::Function*> todo;
  for (llvm::Function& f : m)
    if (f.isDeclaration() && isImageIntrinsic(f)) todo.push_back(&f);
  while (!todo.empty()) {
    llvm::Function* f = todo.back();
    todo.pop_back();
    for (llvm::User* u : f->users())
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(u))
        if (reach.insert(call->getFunction()).second) todo.push_back(call->getFunction());
  }
  for (llvm::Function* f : reach) {
    if (f->getCallingConv() == llvm::CallingConv::PTX_Kernel) continue;
    f->removeFnAttr(llvm::Attribute::NoInline);
    f->removeFnAttr(llvm::Attribute::OptimizeNone);
    f->addFnAttr(llvm::Attribute::AlwaysInline);
    // The SPIR-V reader marks the calls of functions declared DontInline too.
    for (llvm::User* u : f->users())
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(u)) call->removeFnAttr(llvm::Attribute::NoInline);
  }
  return true;
}

}  // namespace isg::detail
