// SPDX-License-Identifier: MIT
// Step 4 of ptx_steps.h, the back-end driver both front ends end in: a module in NVPTX's form
// with its builtins bound gets libclc, the kernels' launch bounds, internalisation and O3, and
// LLVM's NVPTX back end writes its PTX. The back end ends its process on what it cannot write,
// so the module is checked for that first and the PTX is written in a child.
#include <algorithm>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <llvm/ADT/SmallString.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/IPO/Internalize.h>
#include <llvm/Transforms/Vectorize/LoadStoreVectorizer.h>

#include "common/child_process.h"
#include "common/llvm_compat.h"
#include "common/own_files.h"
#include "isg/build_options.h"
#include "ptx/launch_shape.h"
#include "ptx/ptx_images.h"
#include "ptx/ptx_steps.h"
#include "ptx/ptx_unaligned.h"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace isg::detail {
namespace {

constexpr unsigned kMaxWorkGroup = 1024;  // CL_DEVICE_MAX_WORK_GROUP_SIZE of NVIDIA's OpenCL

// Whether the application's build options name `option` (as the driver splits them).
bool has(const std::string& options, const char* option) {
  const std::vector<std::string> words = splitBuildOptions(options);
  return std::find(words.begin(), words.end(), option) != words.end();
}

}  // namespace

std::unique_ptr<llvm::TargetMachine> targetMachine(unsigned computeCapability, const std::string& options,
                                                   std::string* log) {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
  });
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(kTriple, error);
  if (!target) {
    *log = "error: internal error: no NVPTX back end: " + error + "\n";
    return nullptr;
  }
  // LLVM 15 writes PTX up to 7.5 for targets up to sm_86; the driver compiles that PTX for
  // newer GPUs. The library's own instructions follow traits.nvidiaComputeCapability.
  unsigned sm = computeCapability == 0 ? 70 : computeCapability;
  for (unsigned known : {86u, 80u, 75u, 72u, 70u})
    if (sm >= known) {
      sm = known;
      break;
    }
  llvm::TargetOptions to;
  const bool fast = has(options, "-cl-fast-relaxed-math") || has(options, "-cl-unsafe-math-optimizations");
  to.UnsafeFPMath = fast;
  to.NoInfsFPMath = fast || has(options, "-cl-finite-math-only");
  to.NoNaNsFPMath = to.NoInfsFPMath;
  to.AllowFPOpFusion = has(options, "-cl-mad-enable") || fast ? llvm::FPOpFusion::Fast : llvm::FPOpFusion::Standard;
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      kTriple, "sm_" + std::to_string(sm), "+ptx75", to, {}, {}, kAggressive));
}

namespace {

void optimise(llvm::Module& m, llvm::TargetMachine& tm) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(&tm);
  tm.registerPassBuilderCallbacks(pb);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cam, mam);
  llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  // The back end's own load/store vectorizer, run here so that the vector accesses it makes of
  // scalar ones (a float4 the optimiser took apart) are there for tolerateUnalignedVectors.
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::LoadStoreVectorizerPass()));
  mpm.run(m, mam);
}

// What the NVPTX back end would turn into a call of a C library function, which it cannot write
// and answers with a fatal error that ends the process: the transcendental intrinsics and frem
// (NVIDIA has no such instructions). The path binds every OpenCL C builtin to code without
// them; this is the guard that keeps anything else (an optimisation, an unforeseen builtin) a
// build error. "" when the module has none.
std::string unwritable(const llvm::Module& m, Origin origin) {
  static const llvm::Intrinsic::ID libcalls[] = {
      llvm::Intrinsic::exp,  llvm::Intrinsic::exp2, llvm::Intrinsic::log, llvm::Intrinsic::log2,
      llvm::Intrinsic::log10, llvm::Intrinsic::pow, llvm::Intrinsic::powi, llvm::Intrinsic::sin,
      llvm::Intrinsic::cos};
  std::set<std::string> found;
  for (const llvm::Function& f : m)
    for (const llvm::BasicBlock& bb : f)
      for (const llvm::Instruction& i : bb) {
        if (i.getOpcode() == llvm::Instruction::FRem) found.insert("frem (fmod)");
        if (const auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
          if (const llvm::Function* callee = call->getCalledFunction())
            for (llvm::Intrinsic::ID id : libcalls)
              if (callee->getIntrinsicID() == id) found.insert(callee->getName().str());
      }
  std::string log;
  for (const std::string& what : found)
    log += "error: the program needs " + what + ", which NVIDIA's PTX has no instruction for and "
           "the layer cannot yet provide for " + originName(origin) + " on NVIDIA devices\n";
  return log;
}

}  // namespace

// Errors LLVM reports through the context (an inline asm the back end cannot take) go to
// *sink: without a handler LLVM prints them and ends the process.
void collectErrors(llvm::LLVMContext& context, std::string* sink) {
  context.setDiagnosticHandlerCallBack(
      [](DiagnosticArg diagnostic, void* out) {
        const llvm::DiagnosticInfo& d = diagnosticOf(diagnostic);
        if (d.getSeverity() != llvm::DS_Error) return;
        std::string text;
        llvm::raw_string_ostream os(text);
        llvm::DiagnosticPrinterRawOStream printer(os);
        d.print(printer);
        os.flush();
        *static_cast<std::string*>(out) += "error: " + text + "\n";
      },
      sink);
}

// Step 4 of ptx_steps.h, for a module in NVPTX's spaces whose kernels are `ptx_kernel` and
// whose builtin calls are bound: libclc, the kernels' launch bounds, O3, and the PTX, written in
// a child. `diagnostics` is where the context collects the back end's errors.
bool writePtx(llvm::Module& m, llvm::TargetMachine& tm, const std::string& options, Origin origin,
              const std::string& diagnostics, std::string* ptx, std::string* log) {
  if (!linkLibclc(m, origin, log)) return false;
  llvm::LLVMContext& context = m.getContext();
  // Kernels are the entries; everything else may go into them. Each launches at up to the
  // largest work-group NVIDIA's OpenCL has (1024, every GPU it serves): ptxas then keeps
  // registers within what 1024 work-items share, and no launch is refused for them.
  // reqd_work_group_size is exactly that size.
  llvm::NamedMDNode* annotations = m.getOrInsertNamedMetadata("nvvm.annotations");
  llvm::Type* i32 = llvm::Type::getInt32Ty(context);
  for (llvm::Function& f : m) {
    if (f.getCallingConv() != llvm::CallingConv::PTX_Kernel || f.isDeclaration()) continue;
    auto annotate = [&](const char* what, unsigned value) {
      annotations->addOperand(llvm::MDNode::get(
          context, {llvm::ValueAsMetadata::get(&f), llvm::MDString::get(context, what),
                    llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(i32, value))}));
    };
    annotate("kernel", 1);
    // NVIDIA's driver lays out local-memory arguments by the .align of their PTX parameter (a
    // `local char*` at .align 1 lands on shared address 0x401: docs/design.md §5), and
    // Intel-targeted code reads byte tables through wider pointers (ggml): at least 16.
    for (llvm::Argument& a : f.args())
      if (auto* p = llvm::dyn_cast<llvm::PointerType>(a.getType()); p && p->getAddressSpace() == 3) {
        const llvm::Align align = std::max(a.getParamAlign().valueOrOne(), llvm::Align(16));
        f.removeParamAttr(a.getArgNo(), llvm::Attribute::Alignment);
        f.addParamAttr(a.getArgNo(), llvm::Attribute::getWithAlignment(context, align));
      }
    unsigned reqd[3] = {0, 0, 0};
    if (const llvm::MDNode* w = f.getMetadata("reqd_work_group_size"); w && w->getNumOperands() == 3)
      for (unsigned d = 0; d < 3; ++d)
        if (auto* c = llvm::mdconst::dyn_extract_or_null<llvm::ConstantInt>(w->getOperand(d)))
          reqd[d] = unsigned(c->getZExtValue());
    if (f.hasFnAttribute(kPackedKernel)) {
      // The packed copy of a kernel (launch_shape.h): CTAs of one warp, at the occupancy
      // target below.
      annotate("reqntidx", 32);
      annotate("reqntidy", 1);
      annotate("reqntidz", 1);
      annotate("minctasm", kMaxWorkGroup / 2 / 32);
    } else if (reqd[0] && reqd[1] && reqd[2]) {
      annotate("reqntidx", reqd[0]);
      annotate("reqntidy", reqd[1]);
      annotate("reqntidz", reqd[2]);
      // An occupancy target: without one ptxas spends registers badly on a small work-group
      // (SGEMM's 64 x 2: 80 registers, 0.77x of NVIDIA's compiler), at a kernel's without the
      // attribute (1024 work-items per SM: 64 registers) a register-heavy kernel spills, and at
      // half that it runs best (128 registers: 1.03x at S = 8, 1.23x at S = 16; docs/performance.md).
      constexpr unsigned kReqdItemsPerSm = kMaxWorkGroup / 2;
      const unsigned items = reqd[0] * reqd[1] * reqd[2];
      if (items < kReqdItemsPerSm) annotate("minctasm", (kReqdItemsPerSm + items - 1) / items);
    } else {
      annotate("maxntidx", kMaxWorkGroup);
      annotate("maxntidy", 1);
      annotate("maxntidz", 1);
    }
  }
  const bool ftz = has(options, "-cl-denorms-are-zero") || has(options, "-cl-fast-relaxed-math");
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.removeFnAttr(llvm::Attribute::OptimizeNone);
    f.removeFnAttr(llvm::Attribute::NoInline);
    if (ftz) f.addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
    if (tm.Options.UnsafeFPMath) f.addFnAttr("unsafe-fp-math", "true");
  }
  llvm::internalizeModule(m, [](const llvm::GlobalValue& g) {
    const auto* f = llvm::dyn_cast<llvm::Function>(&g);
    return f && f->getCallingConv() == llvm::CallingConv::PTX_Kernel;
  });
  std::string problems;
  llvm::raw_string_ostream os(problems);
  if (llvm::verifyModule(m, &os)) {
    os.flush();
    *log = "error: internal error: the module for NVPTX is not valid LLVM IR:\n" + problems;
    return false;
  }
  optimise(m, tm);
  rematerialiseHandles(m);
  tolerateUnalignedVectors(m);
  if (std::string why = unwritable(m, origin); !why.empty()) {
    *log = why;
    return false;
  }

  // The back end answers what it cannot select or write with a fatal error that ends its
  // process: it runs in a child (as the translator does), so that such a module fails its build.
  std::string why;
  const bool written = runInChild(
      "LLVM's NVPTX back end",
      [&](std::string* out) {
        llvm::SmallString<0> text;
        llvm::raw_svector_ostream os(text);
        llvm::legacy::PassManager emit;
        if (tm.addPassesToEmitFile(emit, os, nullptr, kAssemblyFile)) {
          *out = "error: internal error: the NVPTX back end cannot write PTX\n";
          return false;
        }
        emit.run(m);
        *out = diagnostics.empty() ? std::string(text.str()) : diagnostics;
        return diagnostics.empty();
      },
      ptx, &why);
  if (!written) *log = why.rfind("error: ", 0) == 0 ? why : "error: " + why + "\n";
  return written;
}

}  // namespace isg::detail
