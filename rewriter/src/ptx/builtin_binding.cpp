// SPDX-License-Identifier: MIT
// Step 3 of ptx_steps.h: the module's OpenCL C builtin calls bound to what NVIDIA devices have.
// Neither front end's calls reach a definition as they stand: the SPIR-V reader's are under
// SPIR's mangling, and libclc 15 lacks or misserves some builtins for NVPTX (half, the integer
// dot products, native_*, min/max of floats). Each such call goes through a one-line OpenCL C
// shim compiled by the in-process Clang, then libclc itself is linked for the rest.
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/ADT/STLExtras.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include "common/clang_session.h"
#include "common/embedded.h"
#include "common/mangled_names.h"
#include "common/own_files.h"
#include "isg/rewriter.h"
#include "ptx/ptx_backend.h"
#include "ptx/ptx_printf.h"
#include "ptx/ptx_steps.h"

namespace isg::detail {
namespace {

// The OpenCL C spelling of a builtin's return type ("void", "float4", "long"), signed where
// signedness is not known; false for what no OpenCL C builtin the path binds returns.
bool spellReturn(llvm::Type* t, std::string* out) {
  if (t->isVoidTy() || t->isIntegerTy(1)) {  // bool: atomic_compare_exchange_*
    *out = t->isVoidTy() ? "void" : "bool";
    return true;
  }
  return spellValueType(t, out);
}

bool isHalf(const std::string& type) { return type.rfind("half", 0) == 0; }  // half, half4, ...

// "" for a scalar, else the vector width as spelled ("4").
std::string widthOf(const std::string& type) {
  const std::size_t digits = type.find_first_of("0123456789");
  return digits == std::string::npos ? "" : type.substr(digits);
}

// `expr` converted to `to` (a value type; vectors component-wise, same width).
std::string convertTo(const std::string& to, const std::string& expr) {
  return widthOf(to).empty() ? "((" + to + ")(" + expr + "))" : "__builtin_convertvector(" + expr + ", " + to + ")";
}

// The PTX rounding modifier of an OpenCL C rounding-mode suffix.
const char* ptxRounding(const std::string& mode) {
  return mode == "_rtz" ? "rz" : mode == "_rtp" ? "rp" : mode == "_rtn" ? "rm" : "rn";
}

// cvt's source type and asm constraint for a scalar OpenCL C type (8-bit values go as 16).
bool cvtSource(const std::string& scalar, std::string* ptxType, std::string* constraint, std::string* asType) {
  static const struct { const char* cl; const char* ptx; const char* c; const char* as; } kinds[] = {
      {"float", "f32", "f", "float"}, {"double", "f64", "d", "double"}, {"int", "s32", "r", "int"},
      {"uint", "u32", "r", "uint"},   {"long", "s64", "l", "long"},     {"ulong", "u64", "l", "ulong"},
      {"short", "s16", "h", "short"}, {"ushort", "u16", "h", "ushort"}, {"char", "s16", "h", "short"},
      {"uchar", "u16", "h", "ushort"}};
  for (const auto& k : kinds)
    if (scalar == k.cl) {
      *ptxType = k.ptx;
      *constraint = k.c;
      *asType = k.as;
      return true;
    }
  return false;
}

// cl_khr_fp16 through the layer's front end (issue 34.4): libclc 15 has no half functions for
// NVPTX but vload/vstore_half. A builtin of half computes on float, which holds every half
// exactly, and rounds its result to half once (cvt.rn): the spec's half accuracy bounds are
// wider than float's. convert_half* is one PTX cvt per component, with the call's rounding
// mode, from any source type (no double rounding). Functions that return through a half
// pointer are not provided (the build log names them). "" when `sig` is no half builtin.
std::string halfCall(const MangledFunction& sig, const std::string& ret, std::string* helpers) {
  bool any = isHalf(ret);
  for (const std::string& p : sig.params) {
    if (p.find('*') != std::string::npos) return "";
    any |= isHalf(p);
  }
  const std::string& name = sig.name;
  if (!any || name.rfind("vload", 0) == 0 || name.rfind("vstore", 0) == 0 || sig.params.empty()) return "";
  auto arg = [&](std::size_t i) {
    const std::string a = "a" + std::to_string(i);
    return isHalf(sig.params[i]) ? convertTo("float" + widthOf(sig.params[i]), a) : a;
  };
  if (name.rfind("convert_half", 0) == 0 && sig.params.size() == 1) {
    std::string mode = name.substr(std::string("convert_half").size() + widthOf(ret).size());
    if (mode.rfind("_sat", 0) == 0) mode = mode.substr(4);  // a half saturates to infinity anyway
    const std::string from = sig.params[0];
    const std::string fromScalar = from.substr(0, from.size() - widthOf(from).size());
    if (isHalf(from)) return "a0";
    std::string ptxType, constraint, asType;
    if (!cvtSource(fromScalar, &ptxType, &constraint, &asType)) return "";
    const std::string helper = std::string("__isg_cvt_h_") + ptxRounding(mode) + "_" + fromScalar;
    if (helpers->find(helper + "(") == std::string::npos)
      *helpers += "static half " + helper + "(" + fromScalar + " x) { ushort r; __asm__(\"cvt." +
                  ptxRounding(mode) + ".f16." + ptxType + " %0, %1;\" : \"=h\"(r) : \"" + constraint + "\"((" +
                  asType + ")x)); return as_half(r); }\n";
    const std::string width = widthOf(ret);
    if (width.empty()) return helper + "(a0)";
    const int n = std::stoi(width);
    std::string out = "(" + ret + ")(";
    for (int i = 0; i < n; ++i) {
      const char* hex = "0123456789abcdef";
      out += std::string(i ? ", " : "") + helper + "(a0.s" + hex[i] + ")";
    }
    return out + ")";
  }
  std::string callee = name;
  for (const char* prefix : {"native_", "half_"})
    if (callee.rfind(prefix, 0) == 0) callee = callee.substr(std::string(prefix).size());
  std::string expr;
  if (callee == "divide") {
    expr = "(" + arg(0) + " / " + arg(1) + ")";
  } else if (callee == "recip") {
    expr = "((float" + widthOf(sig.params[0]) + ")(1.0f) / " + arg(0) + ")";
  } else {
    std::string call = callee + "(";
    for (std::size_t i = 0; i < sig.params.size(); ++i) {
      std::string a = arg(i);
      // select(half, half, short) selects by the sign bit: as select(float, float, int).
      if (callee == "select" && i == 2 && !isHalf(sig.params[i]) && !widthOf(sig.params[i]).empty())
        a = convertTo("int" + widthOf(sig.params[i]), "a2");
      call += (i ? ", " : "") + a;
    }
    expr = call + ")";
  }
  return ret == "void" ? expr : convertTo(ret, expr);
}

// vloadN and vstoreN of half vectors (cl_khr_fp16), which libclc 15 lacks for NVPTX (it has
// vload_half): the load or store of N halves at p + offset * N they are, at the element's
// alignment, whatever the pointer's address space.
void lowerHalfVectorLoads(llvm::Module& m) {
  for (llvm::Function& f : llvm::make_early_inc_range(m)) {
    MangledFunction sig;
    if (!f.isDeclaration() || f.use_empty() || !demangleBuiltin(f.getName().str(), &sig)) continue;
    const bool load = sig.name.rfind("vload", 0) == 0, store = sig.name.rfind("vstore", 0) == 0;
    if ((!load && !store) || sig.name.find("half") != std::string::npos || sig.params.size() != (load ? 2u : 3u) ||
        sig.params.back().find("half*") == std::string::npos)
      continue;
    const std::string digits = sig.name.substr(load ? 5 : 6);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const unsigned width = unsigned(std::stoul(digits));
    auto* vector = llvm::FixedVectorType::get(llvm::Type::getHalfTy(m.getContext()), width);
    for (llvm::User* u : llvm::make_early_inc_range(f.users())) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(u);
      if (!call || call->getCalledFunction() != &f) continue;
      llvm::IRBuilder<> b(call);
      llvm::Value* offset = call->getArgOperand(load ? 0 : 1);
      llvm::Value* at = b.CreateGEP(b.getHalfTy(), call->getArgOperand(load ? 1 : 2),
                                    b.CreateMul(offset, llvm::ConstantInt::get(offset->getType(), width)));
      if (load) {
        if (call->getType() != vector) continue;
        call->replaceAllUsesWith(b.CreateAlignedLoad(vector, at, llvm::Align(2)));
      } else {
        b.CreateAlignedStore(call->getArgOperand(0), at, llvm::Align(2));
      }
      call->eraseFromParent();
    }
  }
}

// The half builtins that are one PTX instruction on half (f16 and f16x2 from sm_53, min and max
// from sm_80; the back end widens them to float below that), as LLVM's intrinsics instead of
// halfCall's round trip through float: Intel-targeted half kernels (OpenVINO's convolutions)
// are fma chains, where each float fma costs three conversions and one back, and conversions
// run at an eighth of fma's rate. fma is then correctly rounded in half, as the spec asks
// (float's fma of halves rounds twice); mad may fuse or not; fmin and fmax keep the non-NaN
// operand (min.f16); min and max of halves leave NaN undefined, so they are the same. fabs
// clears the sign bit (LLVM 15 widens llvm.fabs.f16 to float).
struct HalfIntrinsic {
  const char* name;
  unsigned operands;
  llvm::Intrinsic::ID id;
};
constexpr HalfIntrinsic kHalfIntrinsics[] = {
    {"fma", 3, llvm::Intrinsic::fma},       {"mad", 3, llvm::Intrinsic::fmuladd},
    {"fabs", 1, llvm::Intrinsic::not_intrinsic}, {"fmin", 2, llvm::Intrinsic::minnum},
    {"fmax", 2, llvm::Intrinsic::maxnum},   {"min", 2, llvm::Intrinsic::minnum},
    {"max", 2, llvm::Intrinsic::maxnum},
};

// Calls of kHalfIntrinsics on half or half vectors (a scalar half beside vectors, as fmax(half4,
// half) takes it, is splat) as the intrinsic.
void lowerHalfArithmetic(llvm::Module& m) {
  for (llvm::Function& f : llvm::make_early_inc_range(m)) {
    MangledFunction sig;
    if (!f.isDeclaration() || f.use_empty() || !demangleBuiltin(f.getName().str(), &sig)) continue;
    llvm::Type* type = f.getReturnType();
    if (!type->getScalarType()->isHalfTy()) continue;
    const HalfIntrinsic* row = nullptr;
    for (const HalfIntrinsic& r : kHalfIntrinsics)
      if (sig.name == r.name && f.arg_size() == r.operands) row = &r;
    if (!row) continue;
    bool fits = true;
    for (const llvm::Argument& a : f.args()) fits &= a.getType() == type || a.getType()->isHalfTy();
    if (!fits) continue;
    llvm::Function* intrinsic =
        row->id == llvm::Intrinsic::not_intrinsic ? nullptr : llvm::Intrinsic::getDeclaration(&m, row->id, {type});
    for (llvm::User* u : llvm::make_early_inc_range(f.users())) {
      auto* call = llvm::dyn_cast<llvm::CallInst>(u);
      if (!call || call->getCalledFunction() != &f) continue;
      llvm::IRBuilder<> b(call);
      llvm::Value* lowered = nullptr;
      if (!intrinsic) {
        llvm::Type* bits = llvm::Type::getInt16Ty(m.getContext());
        if (auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(type))
          bits = llvm::FixedVectorType::get(bits, vector->getNumElements());
        lowered = b.CreateBitCast(
            b.CreateAnd(b.CreateBitCast(call->getArgOperand(0), bits), llvm::ConstantInt::get(bits, 0x7fff)), type);
      } else {
        std::vector<llvm::Value*> args;
        for (llvm::Value* a : call->args())
          args.push_back(a->getType() == type
                             ? a
                             : b.CreateVectorSplat(llvm::cast<llvm::FixedVectorType>(type)->getNumElements(), a));
        llvm::CallInst* fused = b.CreateCall(intrinsic, args);
        fused->copyFastMathFlags(call);
        lowered = fused;
      }
      call->replaceAllUsesWith(lowered);
      call->eraseFromParent();
    }
  }
}

// How a shim calls the builtin `sig` on NVPTX (`args` its arguments, parenthesised). min and max
// of floating point leave NaN operands undefined, so they are fmin and fmax, the hardware's
// min/max (libclc's min is a compare and a select, two dependent instructions; NVIDIA's compiler
// emits one). native_* of a float are the runtime's hardware approximations
// (ptx-runtime/workitems.cl); of vectors, the full-precision functions (libclc's native_* are
// intrinsics the NVPTX back end cannot write).
// SPV_KHR_integer_dot_product's instructions as the SPIR-V reader writes them back
// (__spirv_{U,S,SU}Dot{,AccSat}KHR_R<result>), as the OpenCL C function of the same
// signedness: SPIR-V's 8-bit vectors come as char4 whatever their signedness, packed operands
// as 32-bit integers (with the packed-format operand last, ignored: 4x8 is the only format).
// Empty for anything else.
std::string spirvIntegerDotCall(const MangledFunction& sig) {
  std::string_view name = sig.name;
  auto eat = [&name](std::string_view part) {
    if (name.substr(0, part.size()) != part) return false;
    name.remove_prefix(part.size());
    return true;
  };
  if (!eat("__spirv_")) return {};
  const std::string kind = eat("SU") ? "SU" : eat("S") ? "S" : eat("U") ? "U" : "";
  if (kind.empty() || !eat("Dot")) return {};
  const bool accumulate = eat("AccSat");
  if (!eat("KHR_R") || (name != "int" && name != "uint")) return {};
  const std::string ret(name);
  const std::size_t operands = accumulate ? 3 : 2;
  if (sig.params.size() < operands) return {};
  const bool vectors = sig.params[0] == "char4" && sig.params[1] == "char4";
  const bool packed = (sig.params[0] == "int" || sig.params[0] == "uint") &&
                      (sig.params[1] == "int" || sig.params[1] == "uint");
  if ((!vectors && !packed) || sig.params.size() > operands + (packed ? 1 : 0)) return {};
  const char* a = kind == "U" ? "uchar4" : "char4";
  const char* b = kind == "S" ? "char4" : "uchar4";
  const std::string acc = accumulate ? ", as_" + ret + "(a2)" : "";
  if (vectors)
    return std::string(accumulate ? "dot_acc_sat" : "dot") + "(as_" + a + "(a0), as_" + b + "(a1)" + acc + ")";
  // dot_4x8packed_su_int reads a as signed and b as unsigned, as SUDot does.
  const std::string suffix = kind == "U" ? "uu" : kind == "S" ? "ss" : "su";
  return std::string(accumulate ? "dot_acc_sat_4x8packed_" : "dot_4x8packed_") + suffix + "_" + ret +
         "(as_uint(a0), as_uint(a1)" + acc + ")";
}

std::string nvptxCall(const MangledFunction& sig, const std::string& args) {
  if (std::string dot = spirvIntegerDotCall(sig); !dot.empty()) return dot;
  auto all = [&](std::initializer_list<const char*> prefixes) {
    for (const std::string& p : sig.params) {
      bool any = false;
      for (const char* prefix : prefixes) any |= p.rfind(prefix, 0) == 0;
      if (!any) return false;
    }
    return true;
  };
  if ((sig.name == "min" || sig.name == "max") && all({"float", "double"}))
    return "f" + sig.name + "(" + args + ")";
  if (sig.name.rfind("native_", 0) == 0) {
    bool scalar = true;
    for (const std::string& p : sig.params) scalar &= p == "float";
    if (scalar) return "__isg_" + sig.name + "(" + args + ")";
    const std::string full = sig.name.substr(7);
    if (full == "divide") return "(a0 / a1)";
    if (full == "recip") return "(1.0f / a0)";
    return full + "(" + args + ")";
  }
  return sig.name + "(" + args + ")";
}

}  // namespace

// Binds the module's OpenCL C builtin calls (ptx_steps.h, step 3) and links the work-item
// functions. A module from source already calls the builtins under NVPTX's mangling: only
// those whose NVPTX call differs from libclc's (nvptxCall) get a shim. False with *log.
bool bindBuiltins(llvm::Module& m, const DeviceTraits& traits, Origin origin, std::string* log) {
  lowerHalfVectorLoads(m);
  lowerHalfArithmetic(m);
  // The module's declarations are renamed out of the way first: most names are the same under
  // both manglings, and the shims' own calls must reach libclc's or the runtime's definition.
  struct Call {
    llvm::Function* declaration;
    std::string shim;
  };
  std::vector<Call> calls;
  std::string source, helpers, shimCode;
  if (traits.fp16) source = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  for (const char* file : {"ptx-runtime/workitems.cl", "ptx-runtime/integer_dot.cl"})
    if (const EmbeddedFile* runtime = findEmbedded(file)) source += runtime->text();
  for (llvm::Function& f : m) {
    if (!f.isDeclaration() || f.isIntrinsic() || f.use_empty() || f.getName() == kVprintf) continue;
    const std::string name = f.getName().str();
    const bool mangled = name.rfind("_Z", 0) == 0;
    MangledFunction sig;
    std::string ret;
    const bool known = mangled && demangleBuiltin(name, &sig) && spellReturn(f.getReturnType(), &ret);
    // A module from source names what libclc and the runtime define as they do; the rest (an
    // unknown name) is linkLibclc's to report.
    if (origin == Origin::Source && !known) continue;
    if (name.rfind("__spirv_", 0) == 0 || !mangled) {
      *log += "error: the module calls '" + name + "', which the layer cannot provide on NVIDIA devices\n";
      continue;
    }
    if (!known) {
      *log += "error: the module calls '" + name + "', an OpenCL C builtin the layer cannot yet provide on "
              "NVIDIA devices for " + originName(origin) + "\n";
      continue;
    }
    if (sig.params.size() == 1 && sig.params[0] == "void") sig.params.clear();  // f(void)
    std::string params, args;
    for (std::size_t i = 0; i < sig.params.size(); ++i) {
      params += (i ? ", " : "") + sig.params[i] + " a" + std::to_string(i);
      args += (i ? ", a" : "a") + std::to_string(i);
    }
    std::string invoke = halfCall(sig, ret, &helpers);
    // From source, only the calls whose NVPTX form differs from libclc's get a shim.
    if (invoke.empty()) {
      invoke = nvptxCall(sig, args);
      if (origin == Origin::Source && invoke == sig.name + "(" + args + ")") continue;
    }
    Call call{&f, "__isg_cl_" + std::to_string(calls.size())};
    shimCode += ret + " " + call.shim + "(" + (params.empty() ? "void" : params) + ") { " +
              (ret == "void" ? invoke : ret == "bool" ? "return " + invoke : "return as_" + ret + "(" + invoke + ")") + "; }\n";
    calls.push_back(call);
  }
  if (!log->empty()) return false;
  for (const Call& call : calls) call.declaration->setName("__isg_spir." + call.declaration->getName());
  RewriteInput shims;
  shims.source = source + helpers + shimCode;  // the half conversions before their callers
  shims.options = "-cl-std=CL2.0";
  shims.traits = traits;
  std::string diagnostics;
  std::unique_ptr<llvm::Module> compiled = compileToModule(shims, m.getContext(), &diagnostics, CodegenTarget::Nvptx);
  if (!compiled) {
    *log = "error: the OpenCL C builtins this module calls do not compile for NVIDIA devices:\n" + diagnostics;
    return false;
  }
  compiled->setDataLayout(m.getDataLayout());
  if (llvm::Linker::linkModules(m, std::move(compiled))) {
    *log = "error: internal error: the NVIDIA work-item functions do not link with the module\n";
    return false;
  }
  for (const Call& call : calls) {
    llvm::Function* shim = m.getFunction(call.shim);
    if (!shim || shim->getFunctionType() != call.declaration->getFunctionType()) {
      *log += "error: internal error: '" + call.declaration->getName().str() +
              "' has another type for NVPTX than the module's call\n";
      return false;
    }
    call.declaration->replaceAllUsesWith(shim);
    call.declaration->eraseFromParent();
  }
  return true;
}

namespace {

// libclc's bitcode, read once per process (8 MB; parsed lazily per build).
const std::string* libclcBitcode(std::string* why) {
  static std::once_flag once;
  static std::string* bytes = nullptr;
  static std::string error;
  std::call_once(once, [] {
    const std::string path = libclcPath(&error);
    if (path.empty()) return;
    auto buffer = llvm::MemoryBuffer::getFile(path);
    if (!buffer) {
      error = "cannot read " + path + ": " + buffer.getError().message();
      return;
    }
    bytes = new std::string((*buffer)->getBuffer().str());
  });
  if (!bytes) *why = error;
  return bytes;
}

}  // namespace

bool linkLibclc(llvm::Module& m, Origin origin, std::string* log) {
  std::string why;
  const std::string* bytes = libclcBitcode(&why);
  if (!bytes) {
    *log = "error: " + why + "\n";
    return false;
  }
  auto lazy = llvm::getLazyBitcodeModule(llvm::MemoryBufferRef(*bytes, "nvptx64--nvidiacl.bc"), m.getContext());
  if (!lazy) {
    *log = "error: libclc's bitcode does not load: " + llvm::toString(lazy.takeError()) + "\n";
    return false;
  }
  (*lazy)->setDataLayout(m.getDataLayout());
  (*lazy)->setTargetTriple(m.getTargetTriple());
  if (llvm::Linker::linkModules(m, std::move(*lazy), llvm::Linker::LinkOnlyNeeded)) {
    *log = "error: internal error: libclc does not link with the module\n";
    return false;
  }
  std::set<std::string> missing;
  for (llvm::Function& f : m)
    if (f.isDeclaration() && !f.isIntrinsic() && !f.use_empty() && f.getName() != kVprintf)
      missing.insert(f.getName().str());
  for (const std::string& name : missing) {
    MangledFunction sig;
    *log += "error: the OpenCL C builtin '" + (demangleBuiltin(name, &sig) ? sig.name : name) +
            "' is not available for " + originName(origin) + " on NVIDIA devices (libclc has no " + name + ")\n";
  }
  return missing.empty();
}

}  // namespace isg::detail
