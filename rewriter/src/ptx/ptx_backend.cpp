// SPDX-License-Identifier: MIT
// SPIR IR -> PTX for NVIDIA's OpenCL driver (ptx_backend.h).
//
// The steps, each because NVIDIA's driver or LLVM's NVPTX back end needs it:
//  1. Address spaces: SPIR numbers them private 0, global 1, constant 2, local 3, generic 4;
//     NVPTX generic 0, global 1, shared 3, const 4, and OpenCL private and generic are its
//     generic 0. The module is cloned with every type mapped (LLVM has no in-place retyping).
//  2. Calling conventions: spir_kernel becomes ptx_kernel (a `.entry`), spir_func C.
//  3. Builtins: the SPIR-V reader writes each OpenCL C builtin as a call by its SPIR-mangled
//     name, and NVPTX mangles address spaces differently (constant is AS4 there, generic and
//     private are unqualified). Each one becomes a one-line OpenCL C function compiled by the
//     in-process Clang for nvptx64-nvidia-nvcl, which calls the builtin under NVPTX's mangling:
//     libclc's definition, or the work-item functions of builtins-cl/ptx-runtime/.
//  4. Everything but the kernels is internalised and LLVM's O3 pipeline runs (the driver's JIT
//     sees PTX only: what LLVM leaves in local memory stays there), then the NVPTX back end with
//     the "nvcl" driver interface writes the PTX: `.ptr .global/.shared/.const` kernel
//     parameters, as NVIDIA's own OpenCL compiler writes them.
#include "ptx/ptx_backend.h"

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <llvm/ADT/STLExtras.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/Transforms/IPO/Internalize.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>
#include <llvm/Transforms/Vectorize/LoadStoreVectorizer.h>

#include "isg/build_options.h"
#include "common/clang_session.h"
#include "common/embedded.h"
#include "ptx/ptx_kernels.h"
#include "common/kernel_facts.h"
#include "isg/rewriter.h"
#include "common/mangled_names.h"
#include "ptx/opencl_atomics.h"
#include "ptx/launch_shape.h"
#include "ptx/ptx_images.h"
#include "ptx/ptx_printf.h"
#include "ptx/ptx_unaligned.h"
#include "module/spirv_bridge.h"

extern "C" {
void LLVMInitializeNVPTXTargetInfo();
void LLVMInitializeNVPTXTarget();
void LLVMInitializeNVPTXTargetMC();
void LLVMInitializeNVPTXAsmPrinter();
}

namespace isg::detail {
namespace {

constexpr const char* kTriple = "nvptx64-nvidia-nvcl";
constexpr unsigned kMaxWorkGroup = 1024;  // CL_DEVICE_MAX_WORK_GROUP_SIZE of NVIDIA's OpenCL

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
    if (llvm::Optional<llvm::Function*> renamed = llvm::Intrinsic::remangleIntrinsicFunction(f)) {
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
  if ((sig.name == "min" || sig.name == "max") && all({"float", "double", "half"}))
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

// Where a module bound for PTX comes from: the SPIR-V reader (SPIR's mangling and address
// spaces, moved by toNvptx) or the layer's Clang compiling OpenCL C for NVPTX (NVPTX's own).
enum class Origin { Spirv, Source };

const char* originName(Origin origin) {
  return origin == Origin::Spirv ? "programs from SPIR-V" : "the layer's OpenCL C front end";
}

// Binds the module's OpenCL C builtin calls (ptx_backend.h, step 3) and links the work-item
// functions. A module from source already calls the builtins under NVPTX's mangling: only
// those whose NVPTX call differs from libclc's (nvptxCall) get a shim. False with *log.
bool bindBuiltins(llvm::Module& m, const DeviceTraits& traits, Origin origin, std::string* log) {
  lowerHalfVectorLoads(m);
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

// Whether the application's build options name `option` (as the driver splits them).
bool has(const std::string& options, const char* option) {
  const std::vector<std::string> words = splitBuildOptions(options);
  return std::find(words.begin(), words.end(), option) != words.end();
}

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
      kTriple, "sm_" + std::to_string(sm), "+ptx75", to, llvm::None, llvm::None, llvm::CodeGenOpt::Aggressive));
}

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


std::string ptxUnsupported(const llvm::Module& spir) {
  // Opaque OpenCL types keep their names in the SPIR module the reader writes
  // ("opencl.image2d_wo_t": the access qualifier in the name).
  static const std::pair<const char*, const char*> kinds[] = {
      {"opencl.pipe", "pipes"}, {"opencl.queue_t", "device-side enqueue"},
      {"opencl.clk_event_t", "device-side enqueue"}, {"opencl.reserve_id_t", "pipes"}};
  std::set<std::string> found;
  for (llvm::StructType* s : spir.getIdentifiedStructTypes()) {
    for (const auto& [prefix, what] : kinds)
      if (s->getName().startswith(prefix)) found.insert(what);
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

namespace {

// Errors LLVM reports through the context (an inline asm the back end cannot take) go to
// *sink: without a handler LLVM prints them and ends the process.
void collectErrors(llvm::LLVMContext& context, std::string* sink) {
  context.setDiagnosticHandlerCallBack(
      [](const llvm::DiagnosticInfo& d, void* out) {
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

// Step 4 of ptx_backend.h, for a module in NVPTX's spaces whose kernels are `ptx_kernel` and
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
    if (reqd[0] && reqd[1] && reqd[2]) {
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
        if (tm.addPassesToEmitFile(emit, os, nullptr, llvm::CGFT_AssemblyFile)) {
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
        if (t.startswith("image") && !t.contains('*'))
          if (std::string what = imageLimit(t, i < access.size() ? access[i] : "read_only"); !what.empty())
            found.insert(what);
        if (t.contains("pipe")) found.insert("pipes");
        if (t.startswith("queue_t") || t.startswith("clk_event_t")) found.insert("device-side enqueue");
      }
    }
    if (!f.isDeclaration() || f.use_empty()) continue;
    const llvm::StringRef name = f.getName();
    MangledFunction sig;
    const std::string builtin = demangleBuiltin(name.str(), &sig) ? sig.name : name.str();
    const llvm::StringRef b(builtin);
    if (b.contains("_pipe")) found.insert("pipes");
    else if (b.startswith("__enqueue_kernel")) found.insert("device-side enqueue");
  }
  std::string log;
  for (const std::string& what : found)
    log += "error: the program uses " + what + ", which the layer's OpenCL C front end for NVIDIA devices "
           "cannot build yet (docs/design.md, \"Build paths on NVIDIA\")\n";
  return log;
}

bool spirToPtx(const std::string& bitcode, const DeviceTraits& traits, const std::string& options,
               std::string* ptx, ShapedKernels* shaped, std::string* log) {
  llvm::LLVMContext context;
  context.setOpaquePointers(true);  // libclc's bitcode has them; the module's are upgraded
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
  if (!writePtx(*m, *tm, options, Origin::Spirv, diagnostics, ptx, log)) return false;
  declareBufferSurfaces(*m, ptx);
  return true;
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

// Steps 2 to 4 of ptx_backend.h for what compileForPtx compiled (linked, for objects): atomics,
// images, printf and builtins bound, the launch shape (`uniform`: no non-uniform work-groups),
// then the PTX for the math `options`.
bool moduleToPtx(llvm::Module& m, const DeviceTraits& traits, const std::string& options, bool uniform,
                 const std::string& diagnostics, std::string* ptx, ShapedKernels* shaped, std::string* log) {
  std::unique_ptr<llvm::TargetMachine> tm = targetMachine(traits.nvidiaComputeCapability, options, log);
  if (!tm) return false;
  m.setTargetTriple(kTriple);
  m.setDataLayout(tm->createDataLayout());
  separateCalledKernels(m);
  lowerOpenclAtomics(m);
  if (!lowerImages(m, traits, log) || !lowerPrintf(m, log)) return false;
  if (!bindBuiltins(m, traits, Origin::Source, log)) return false;
  *shaped = appendLaunchShape(m, uniform);
  if (!writePtx(m, *tm, options, Origin::Source, diagnostics, ptx, log)) return false;
  declareBufferSurfaces(m, ptx);
  return true;
}

}  // namespace

bool sourceToPtx(const RewriteInput& program, std::string* ptx, std::vector<KernelManifest>* kernels,
                 ShapedKernels* shaped, std::string* log) {
  llvm::LLVMContext context;
  context.setOpaquePointers(true);  // as libclc's bitcode
  std::string diagnostics;
  collectErrors(context, &diagnostics);
  std::unique_ptr<llvm::Module> m = compileForPtx(program, context, kernels, log);
  if (!m) return false;
  return moduleToPtx(*m, program.traits, program.options,
                     !allowsNonUniformWorkGroups(program.options, /*fromSpirv=*/false), diagnostics, ptx,
                     shaped, log);
}

bool compilesForPtx(const RewriteInput& program, std::string* log) {
  llvm::LLVMContext context;
  context.setOpaquePointers(true);
  std::vector<KernelManifest> kernels;
  return compileForPtx(program, context, &kernels, log) != nullptr;
}

bool objectsToPtx(const std::vector<RewriteInput>& objects, const std::string& options, std::string* ptx,
                  std::vector<KernelManifest>* kernels, ShapedKernels* shaped, std::size_t* failed,
                  std::string* log) {
  *failed = objects.size();
  if (objects.empty()) {
    *log = "error: internal error: a link of no objects\n";
    return false;
  }
  llvm::LLVMContext context;
  context.setOpaquePointers(true);
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
  return moduleToPtx(*linked, objects.front().traits, options, uniform, diagnostics, ptx, shaped, log);
}

}  // namespace isg::detail
