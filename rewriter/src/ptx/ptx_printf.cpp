// SPDX-License-Identifier: MIT
// printf on the layer's PTX path (ptx_printf.h).
#include "ptx/ptx_printf.h"

#include "common/printf_format.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>

namespace isg::detail {
namespace {

constexpr unsigned kGlobal = 1;

// A generic pointer for a pointer argument: a constant string (OpenCL C's are in the constant
// space) as a copy in global memory, where NVIDIA's compiler puts its printf strings; any other
// pointer cast to the generic space. nullptr for `required` strings that are no constant.
llvm::Value* genericString(llvm::IRBuilder<>& b, llvm::Value* v, bool required,
                           std::map<llvm::GlobalVariable*, llvm::GlobalVariable*>* copies) {
  llvm::Module& m = *b.GetInsertBlock()->getModule();
  int64_t offset = 0;
  auto* base = llvm::dyn_cast<llvm::GlobalVariable>(
      llvm::GetPointerBaseWithConstantOffset(v, offset, m.getDataLayout()));
  llvm::PointerType* generic = llvm::PointerType::get(m.getContext(), 0);
  if (base && base->isConstant() && base->hasInitializer()) {
    llvm::GlobalVariable*& copy = (*copies)[base];
    if (!copy)
      copy = new llvm::GlobalVariable(m, base->getValueType(), true, llvm::GlobalValue::PrivateLinkage,
                                      base->getInitializer(), "__isg_printf_str", nullptr,
                                      llvm::GlobalValue::NotThreadLocal, kGlobal);
    llvm::Value* at = b.CreateConstInBoundsGEP1_64(b.getInt8Ty(), copy, uint64_t(offset));
    return b.CreateAddrSpaceCast(at, generic);
  }
  if (required) return nullptr;
  return v->getType()->getPointerAddressSpace() == 0 ? v : b.CreateAddrSpaceCast(v, generic);
}

// One conversion of a printf format that consumes arguments.
struct Conversion {
  std::size_t begin = 0, end = 0;  // the text, '%' to the conversion character
  unsigned stars = 0;              // `*` widths and precisions, an int argument each
  unsigned lanes = 0;              // a vector conversion's element count; 0 for a scalar one
  std::string element;             // a vector conversion: the C conversion of one element
  bool isSigned = false;           // d or i
};

// The conversions of `format`; false where it is no OpenCL C format the layer can read.
bool readConversions(const std::string& format, std::vector<Conversion>* out) {
  PrintfConversion p;
  for (std::size_t at = 0; nextPrintfConversion(format, &at, &p);) {
    if (!p.conversion) return false;
    if (p.vector && p.lanes != 2 && p.lanes != 3 && p.lanes != 4 && p.lanes != 8 && p.lanes != 16) return false;
    Conversion c;
    c.begin = p.begin;
    c.end = p.end;
    c.stars = p.stars;
    c.lanes = p.vector ? p.lanes : 0;
    const char conv = p.conversion;
    c.isSigned = conv == 'd' || conv == 'i';
    const bool integer = c.isSigned || conv == 'o' || conv == 'u' || conv == 'x' || conv == 'X';
    const bool real = std::string("fFeEgGaA").find(conv) != std::string::npos;
    if (c.lanes) {
      // OpenCL C requires a length for vectors: hh char, h short or half, hl int or float, l long
      // or double. Each element goes to vprintf as C promotes it: integers as int or long
      // (C's own hh and h then narrow them back), reals as double.
      const std::string& length = p.length;
      if (!(integer || real) || (length != "hh" && length != "h" && length != "hl" && length != "l")) return false;
      c.element = p.spec + (integer ? (length == "hl" ? "" : length) : "") + conv;
    }
    out->push_back(c);
  }
  return true;
}

// The constant string a pointer argument points at (from its start), if it is one.
bool constantString(llvm::Value* v, const llvm::DataLayout& layout, std::string* out) {
  int64_t offset = 0;
  auto* base = llvm::dyn_cast<llvm::GlobalVariable>(llvm::GetPointerBaseWithConstantOffset(v, offset, layout));
  auto* data = base && base->isConstant() && base->hasInitializer()
                   ? llvm::dyn_cast<llvm::ConstantDataSequential>(base->getInitializer())
                   : nullptr;
  if (!data || !data->isString() || offset < 0) return false;
  llvm::StringRef text = data->getAsString();
  if (uint64_t(offset) > text.size()) return false;
  text = text.drop_front(uint64_t(offset));
  *out = text.substr(0, text.find('\0')).str();
  return true;
}

// A call's format with every vector conversion written out element by element (`%v4hlf` as
// `%f,%f,%f,%f`; driver 580's vprintf misprints vectors), and its arguments to match: the
// vectors' elements, promoted as C promotes them. False, and nothing written, where the format
// has no vector conversion or the format and the arguments do not agree.
bool expandVectors(llvm::IRBuilder<>& b, std::string* format, std::vector<llvm::Value*>* args) {
  std::vector<Conversion> conversions;
  if (!readConversions(*format, &conversions)) return false;
  // The arguments each conversion takes, checked before any instruction is written.
  std::size_t next = 0;
  bool vectors = false;
  for (const Conversion& c : conversions) {
    next += c.stars;
    if (next >= args->size()) return false;
    llvm::Type* t = (*args)[next++]->getType();
    if (!c.lanes) continue;
    auto* vector = llvm::dyn_cast<llvm::FixedVectorType>(t);
    if (!vector || vector->getNumElements() != c.lanes) return false;
    vectors = true;
  }
  if (!vectors || next != args->size()) return false;
  std::string text;
  std::vector<llvm::Value*> out;
  std::size_t copied = 0;
  next = 0;
  for (const Conversion& c : conversions) {
    for (unsigned s = 0; s < c.stars; ++s) out.push_back((*args)[next++]);
    llvm::Value* a = (*args)[next++];
    text += format->substr(copied, c.begin - copied);
    copied = c.end;
    if (!c.lanes) {
      text += format->substr(c.begin, c.end - c.begin);
      out.push_back(a);
      continue;
    }
    for (unsigned e = 0; e < c.lanes; ++e) {
      llvm::Value* element = b.CreateExtractElement(a, e);
      llvm::Type* t = element->getType();
      if (t->isFloatingPointTy()) element = b.CreateFPExt(element, b.getDoubleTy());
      else if (t->isIntegerTy() && t->getIntegerBitWidth() < 32)
        element = c.isSigned ? b.CreateSExt(element, b.getInt32Ty()) : b.CreateZExt(element, b.getInt32Ty());
      text += (e ? "," : "") + c.element;
      out.push_back(element);
    }
  }
  *format = text + format->substr(copied);
  *args = std::move(out);
  return true;
}

}  // namespace

bool lowerPrintf(llvm::Module& m, std::string* log) {
  llvm::Function* printf = m.getFunction("printf");
  if (!printf || printf->use_empty()) return true;
  llvm::LLVMContext& c = m.getContext();
  llvm::PointerType* generic = llvm::PointerType::get(c, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(c);
  llvm::FunctionCallee vprintf =
      m.getOrInsertFunction(kVprintf, llvm::FunctionType::get(i32, {generic, generic}, false));
  std::vector<llvm::CallInst*> calls;
  for (llvm::User* u : printf->users())
    if (auto* call = llvm::dyn_cast<llvm::CallInst>(u); call && call->getCalledFunction() == printf)
      calls.push_back(call);
  std::map<llvm::GlobalVariable*, llvm::GlobalVariable*> copies;
  for (llvm::CallInst* call : calls) {
    llvm::IRBuilder<> b(call);
    // The format in global memory: the call's own, or one with its vectors written out.
    std::vector<llvm::Value*> given(call->arg_begin() + std::min(call->arg_size(), 1u), call->arg_end());
    std::string text;
    llvm::Value* format = nullptr;
    if (call->arg_size() && constantString(call->getArgOperand(0), m.getDataLayout(), &text) &&
        expandVectors(b, &text, &given)) {
      auto* expanded = new llvm::GlobalVariable(m, llvm::ArrayType::get(b.getInt8Ty(), text.size() + 1), true,
                                                llvm::GlobalValue::PrivateLinkage,
                                                llvm::ConstantDataArray::getString(c, text), "__isg_printf_str",
                                                nullptr, llvm::GlobalValue::NotThreadLocal, kGlobal);
      format = b.CreateAddrSpaceCast(expanded, generic);
    } else if (call->arg_size()) {
      format = genericString(b, call->getArgOperand(0), true, &copies);
    }
    if (!format) {
      *log += "error: a printf whose format is no constant string, which NVIDIA devices do not print\n";
      return false;
    }
    std::vector<llvm::Value*> args;
    for (llvm::Value* a : given) {
      // vprintf takes C's promoted arguments: float and half as double, which Clang gives
      // OpenCL C only where the device has doubles.
      if (a->getType()->isFloatTy() || a->getType()->isHalfTy()) a = b.CreateFPExt(a, b.getDoubleTy());
      args.push_back(a->getType()->isPointerTy() ? genericString(b, a, false, &copies) : a);
    }
    llvm::Value* buffer = llvm::ConstantPointerNull::get(generic);
    if (!args.empty()) {
      std::vector<llvm::Type*> types;
      for (llvm::Value* a : args) types.push_back(a->getType());
      llvm::StructType* layout = llvm::StructType::get(c, types);  // natural alignment, as NVIDIA's
      llvm::Function* f = call->getFunction();
      llvm::IRBuilder<> entry(&*f->getEntryBlock().getFirstInsertionPt());
      llvm::AllocaInst* slot = entry.CreateAlloca(layout, nullptr, "printf.args");
      for (unsigned i = 0; i < args.size(); ++i) b.CreateStore(args[i], b.CreateStructGEP(layout, slot, i));
      buffer = slot->getType()->getPointerAddressSpace() == 0 ? static_cast<llvm::Value*>(slot)
                                                              : b.CreateAddrSpaceCast(slot, generic);
    }
    llvm::Value* r = b.CreateCall(vprintf, {format, buffer});
    llvm::Value* status = b.CreateSelect(b.CreateICmpSLT(r, b.getInt32(0)), b.getInt32(-1), b.getInt32(0));
    call->replaceAllUsesWith(b.CreateSExtOrTrunc(status, call->getType()));
    call->eraseFromParent();
  }
  return true;
}

}  // namespace isg::detail
