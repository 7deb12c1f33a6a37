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
//
// The steps are ModuleRewriter's (module_rewriter.h); this file drives them and writes the
// result in the form the driver takes.
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "common/llvm_compat.h"
#include "common/clang_session.h"
#include "common/kernel_facts.h"
#include "common/table.h"
#include "isg/build_options.h"
#include "isg/rewriter.h"
#include "module/module_rewriter.h"
#include "module/spirv_bridge.h"
#include "ptx/opencl_atomics.h"
#include "ptx/ptx_backend.h"

namespace isg {
namespace {

using detail::errorResult;
using detail::ModuleRewriter;

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
  if (!detail::kTypedPointers)
    return errorResult("error: programs from SPIR-V need the layer built with LLVM 15 or 16 (this one has LLVM " +
                       std::to_string(LLVM_VERSION_MAJOR) + ", without the typed pointers the SPIR-V translator writes)");
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
#if ISG_LLVM_TYPED_POINTERS
    context.setOpaquePointers(false);
#endif
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
    r.log += rewriter.takeLog();  // its warnings (block IO pointers; ISG_REFUSE_DIVERGENT=0)
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
