// SPDX-License-Identifier: MIT
// The layer's OpenCL C front end for NVIDIA (docs/design.md, "Build paths on NVIDIA"): programs,
// compiled objects and their links compiled by the in-process Clang for NVPTX. Clang writes
// NVPTX's address spaces and mangling itself, so no step 1 or 2 of ptx_steps.h; what differs is
// that Clang marks kernels in metadata, that C99 inline definitions and kernels called as
// functions need a body of their own, and that the kernels' argument information is read here,
// since their PTX carries none.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/ADT/STLExtras.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "common/clang_session.h"
#include "common/kernel_facts.h"
#include "common/llvm_compat.h"
#include "common/mangled_names.h"
#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "ptx/launch_shape.h"
#include "ptx/opencl_atomics.h"
#include "ptx/ptx_backend.h"
#include "ptx/ptx_images.h"
#include "ptx/ptx_kernels.h"
#include "ptx/ptx_printf.h"
#include "ptx/ptx_steps.h"

namespace isg::detail {
namespace {

// Clang marks the kernels of OpenCL C for NVPTX in nvvm.annotations; the path marks them by
// calling convention, as toNvptx does, and writes the annotations itself (writePtx).
void markKernels(llvm::Module& m) {
  llvm::NamedMDNode* annotations = m.getNamedMetadata("nvvm.annotations");
  if (!annotations) return;
  std::vector<llvm::Function*> kernels;
  for (const llvm::MDNode* op : annotations->operands()) {
    if (op->getNumOperands() < 2) continue;
    const auto* what = llvm::dyn_cast<llvm::MDString>(op->getOperand(1));
    if (what && what->getString() == "kernel")
      if (auto* f = llvm::mdconst::dyn_extract_or_null<llvm::Function>(op->getOperand(0))) kernels.push_back(f);
  }
  m.eraseNamedMetadata(annotations);
  // C99 `inline` without `static` (CLBlast's INLINE_FUNC) is an inline definition only, which
  // Clang emits as available_externally: the body of a call O3 leaves uninlined would be
  // dropped for an external definition no one provides (ptxas: "Unresolved extern function").
  // The module is the whole program (or object), as for NVIDIA's compiler: the body is its own.
  for (llvm::Function& f : m)
    if (f.hasAvailableExternallyLinkage()) f.setLinkage(llvm::GlobalValue::InternalLinkage);
  for (llvm::Function* f : kernels)
    if (!f->isDeclaration()) f->setCallingConv(llvm::CallingConv::PTX_Kernel);
}

// A kernel the program also calls as a function (in its own object or, once linked, from
// another) keeps a copy for those calls: a PTX entry is no callee.
void separateCalledKernels(llvm::Module& m) {
  for (llvm::Function& f : m) {
    if (f.getCallingConv() != llvm::CallingConv::PTX_Kernel || f.isDeclaration()) continue;
    if (llvm::none_of(f.users(), [](const llvm::User* u) { return llvm::isa<llvm::CallBase>(u); })) continue;
    llvm::ValueToValueMapTy vmap;
    llvm::Function* body = llvm::CloneFunction(&f, vmap);
    body->setName(f.getName() + ".function");
    body->setLinkage(llvm::GlobalValue::InternalLinkage);
    body->setCallingConv(llvm::CallingConv::C);
    f.replaceUsesWithIf(body, [](llvm::Use& u) { return llvm::isa<llvm::CallBase>(u.getUser()); });
  }
}

// A kernel as Clang's kernel_arg_* metadata (-cl-kernel-arg-info) describes its parameters:
// for kernels the rewriter left alone, whose PTX carries no argument information either.
KernelManifest describedKernel(const llvm::Function& f, const DeviceTraits& traits) {
  KernelManifest k;
  k.name = f.getName().str();
  k.subGroupSize = traits.defaultSubGroupSize;
  k.numUserArgs = unsigned(f.arg_size());
  if (const llvm::MDNode* w = f.getMetadata("reqd_work_group_size"); w && w->getNumOperands() == 3)
    for (unsigned d = 0; d < 3; ++d)
      if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(w->getOperand(d)))
        k.reqdWorkGroupSize[d] = std::size_t(c->getZExtValue());
  const llvm::MDNode* spaces = f.getMetadata("kernel_arg_addr_space");
  const std::vector<std::string> access = kernelArgStrings(f, "kernel_arg_access_qual"),
                                 types = kernelArgStrings(f, "kernel_arg_type"),
                                 quals = kernelArgStrings(f, "kernel_arg_type_qual"),
                                 names = kernelArgStrings(f, "kernel_arg_name");
  const std::size_t n = f.arg_size();
  if (!spaces || spaces->getNumOperands() != n || access.size() != n || types.size() != n || quals.size() != n ||
      names.size() != n)
    return k;  // no argument information: the driver's answer stands
  for (std::size_t i = 0; i < n; ++i) {
    ArgInfo a;
    if (const auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(spaces->getOperand(i)))
      a.address = static_cast<ArgInfo::Address>(std::min<uint64_t>(c->getZExtValue(), 3));
    a.access = access[i] == "read_only"    ? ArgInfo::Access::ReadOnly
               : access[i] == "write_only" ? ArgInfo::Access::WriteOnly
               : access[i] == "read_write" ? ArgInfo::Access::ReadWrite
                                           : ArgInfo::Access::None;
    a.typeName = types[i];
    const llvm::StringRef q(quals[i]);
    if (q.contains("const")) a.typeQualifiers |= ArgInfo::Const;
    if (q.contains("restrict")) a.typeQualifiers |= ArgInfo::Restrict;
    if (q.contains("volatile")) a.typeQualifiers |= ArgInfo::Volatile;
    if (q.contains("pipe")) a.typeQualifiers |= ArgInfo::Pipe;
    a.name = names[i];
    k.args.push_back(std::move(a));
  }
  return k;
}

}  // namespace

std::string sourceUnsupported(const llvm::Module& m) {
  std::set<std::string> found;
  for (const llvm::Function& f : m) {
    const std::vector<std::string> access = kernelArgStrings(f, "kernel_arg_access_qual");
    for (const char* kind : {"kernel_arg_type", "kernel_arg_type_qual"}) {
      const std::vector<std::string> types = kernelArgStrings(f, kind);
      for (unsigned i = 0; i < types.size(); ++i) {
        const llvm::StringRef t = types[i];
        if (startsWith(t, "image") && !t.contains('*'))
          if (std::string what = imageLimit(t, i < access.size() ? access[i] : "read_only"); !what.empty())
            found.insert(what);
        if (t.contains("pipe")) found.insert("pipes");
        if (startsWith(t, "queue_t") || startsWith(t, "clk_event_t")) found.insert("device-side enqueue");
      }
    }
    if (!f.isDeclaration() || f.use_empty()) continue;
    const llvm::StringRef name = f.getName();
    MangledFunction sig;
    const std::string builtin = demangleBuiltin(name.str(), &sig) ? sig.name : name.str();
    const llvm::StringRef b(builtin);
    if (b.contains("_pipe")) found.insert("pipes");
    else if (startsWith(b, "__enqueue_kernel")) found.insert("device-side enqueue");
  }
  std::string log;
  for (const std::string& what : found)
    log += "error: the program uses " + what + ", which the layer's OpenCL C front end for NVIDIA devices "
           "cannot build yet (docs/design.md, \"Build paths on NVIDIA\")\n";
  return log;
}

namespace {

// One program or object of the front end compiled for NVPTX, its kernels marked; null with a
// build log in *log (Clang's, in `program`'s lines, or what the path cannot build).
std::unique_ptr<llvm::Module> compileForPtx(const RewriteInput& program, llvm::LLVMContext& context,
                                            std::vector<KernelManifest>* kernels, std::string* log) {
  if (std::string unknown = unknownBuildOptions(program.options); !unknown.empty()) {
    *log = unknown;
    return nullptr;
  }
  RewriteInput described = program;
  described.options += " -cl-kernel-arg-info";
  std::unique_ptr<llvm::Module> m = compileToModule(described, context, log, CodegenTarget::Nvptx);
  if (!m) {
    if (log->empty()) *log = "error: the layer's Clang did not compile the program\n";
    return nullptr;
  }
  log->clear();
  if (std::string why = sourceUnsupported(*m); !why.empty()) {
    *log = why;
    return nullptr;
  }
  markKernels(*m);
  for (const llvm::Function& f : *m)
    if (f.getCallingConv() == llvm::CallingConv::PTX_Kernel) kernels->push_back(describedKernel(f, program.traits));
  return m;
}

// Steps 2 to 4 of ptx_steps.h for what compileForPtx compiled (linked, for objects): atomics,
// images, printf and builtins bound, the launch shape (`uniform`: no non-uniform work-groups),
// then the PTX for the math `options`.
bool moduleToPtx(llvm::Module& m, const DeviceTraits& traits, const std::string& options, bool uniform,
                 const std::vector<KernelManifest>* rewritten, const std::string& diagnostics, std::string* ptx,
                 ShapedKernels* shaped, std::string* log) {
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine(traits.nvidiaComputeCapability, options, log);
  if (!tm) return false;
  m.setTargetTriple(kTriple);
  m.setDataLayout(tm->createDataLayout());
  separateCalledKernels(m);
  lowerOpenclAtomics(m);
  if (!lowerImages(m, traits, log) || !lowerPrintf(m, log)) return false;
  if (!bindBuiltins(m, traits, Origin::Source, log)) return false;
  *shaped = appendLaunchShape(m, uniform);
  appendPackedLaunch(m, rewritten, shaped);
  if (!writePtx(m, *tm, options, Origin::Source, diagnostics, ptx, log)) return false;
  declareBufferSurfaces(m, ptx);
  return true;
}

}  // namespace

bool sourceToPtx(const RewriteInput& program, const std::vector<KernelManifest>* rewritten, std::string* ptx,
                 std::vector<KernelManifest>* kernels, ShapedKernels* shaped, std::string* log) {
  llvm::LLVMContext context;
  useOpaquePointers(context);  // as libclc's bitcode
  std::string diagnostics;
  collectErrors(context, &diagnostics);
  std::unique_ptr<llvm::Module> m = compileForPtx(program, context, kernels, log);
  if (!m) return false;
  return moduleToPtx(*m, program.traits, program.options,
                     !allowsNonUniformWorkGroups(program.options, /*fromSpirv=*/false), rewritten, diagnostics,
                     ptx, shaped, log);
}

bool compilesForPtx(const RewriteInput& program, std::string* log) {
  llvm::LLVMContext context;
  useOpaquePointers(context);
  std::vector<KernelManifest> kernels;
  return compileForPtx(program, context, &kernels, log) != nullptr;
}

bool objectsToPtx(const std::vector<RewriteInput>& objects, const std::string& options,
                  const std::vector<KernelManifest>* rewritten, std::string* ptx,
                  std::vector<KernelManifest>* kernels, ShapedKernels* shaped, std::size_t* failed,
                  std::string* log) {
  *failed = objects.size();
  if (objects.empty()) {
    *log = "error: internal error: a link of no objects\n";
    return false;
  }
  llvm::LLVMContext context;
  useOpaquePointers(context);
  std::string diagnostics;
  collectErrors(context, &diagnostics);
  std::unique_ptr<llvm::Module> linked;
  // A kernel may launch with non-uniform work-groups only where every object's options allow them.
  bool uniform = false;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    std::unique_ptr<llvm::Module> m = compileForPtx(objects[i], context, kernels, log);
    if (!m) {
      *failed = i;
      return false;
    }
    uniform |= !allowsNonUniformWorkGroups(objects[i].options, /*fromSpirv=*/false);
    if (!linked) {
      linked = std::move(m);
      continue;
    }
    // Linker::linkModules reports through the context: a symbol defined twice, say.
    m->setDataLayout(linked->getDataLayout());
    if (llvm::Linker::linkModules(*linked, std::move(m))) {
      *log = "error: the objects do not link: " + (diagnostics.empty() ? std::string("LLVM's linker failed\n") : diagnostics);
      return false;
    }
  }
  return moduleToPtx(*linked, objects.front().traits, options, uniform, rewritten, diagnostics, ptx, shaped, log);
}

}  // namespace isg::detail
