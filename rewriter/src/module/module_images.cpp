// SPDX-License-Identifier: MIT
// Image parameters in a SPIR-V module: which ones block and media IO take (a raw-bits view may
// stand in for them at enqueue, unless something else takes them too), and the stand-in for
// read_write image2d_t on devices that have none, as the source rewriter decides both.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/ADT/STLExtras.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Metadata.h>

#include "common/kernel_facts.h"
#include "module/module_rewriter.h"
#include "common/llvm_compat.h"

namespace isg::detail {
namespace {

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

}  // namespace

// Image parameters that reach block or media IO, followed from callee to caller.
void ModuleRewriter::followBlockImages() {
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
void ModuleRewriter::followOtherImageUses() {
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

bool ModuleRewriter::isImage(llvm::Type* t) {
#if ISG_LLVM_TYPED_POINTERS
  if (!t->isPointerTy() || t->isOpaquePointerTy()) return false;
  auto* s = llvm::dyn_cast<llvm::StructType>(t->getNonOpaquePointerElementType());
  return s && s->hasName() && startsWith(s->getName(), "opencl.image");
#else
  (void)t;
  return false;  // unreachable: no module pipeline without typed pointers (kTypedPointers)
#endif
}

// get_image_width/height/dim: a raw-bits view has the image's size, so these are no other use.
bool ModuleRewriter::sizeQuery(const llvm::Function& f) {
  detail::MangledFunction sig;
  return detail::demangleBuiltin(f.getName(), &sig) && sig.params.size() == 1 &&
         (sig.name == "get_image_width" || sig.name == "get_image_height" || sig.name == "get_image_dim");
}


// A read_write image2d_t where the device has none (detail::emulatesReadWriteImages), as the
// source rewriter stands in for it (analysis.cpp): inside the module every value of that type
// is the buffer of the image's texels after a header (layer/memory/image_views.h), which each kernel
// takes after its other arguments (HiddenArg::Kind::RawImage) while the application's image
// goes to a write_only image in its place. Block and media IO take the buffer through their
// wrappers (librarySource), the queries read the header; whatever else could take the image
// is refused here, at the build, with the function that does it.
bool ModuleRewriter::findReadWriteImages() {
  if (traits_.readWriteImages) return true;
  bool ok = true;
  for (llvm::StructType* s : m_.getIdentifiedStructTypes()) {
    llvm::StringRef name = s->getName();
    if (!name.consume_front("opencl.") || !name.consume_back("_rw_t") || !startsWith(name, "image")) continue;
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

bool ModuleRewriter::isReadWriteImage(llvm::Type* t) const {
#if ISG_LLVM_TYPED_POINTERS
  return readWriteImage_ && t->isPointerTy() && !t->isOpaquePointerTy() &&
         t->getNonOpaquePointerElementType() == readWriteImage_;
#else
  (void)t;
  return false;  // as isImage
#endif
}

// Which header word (layer/memory/image_views.h: width, height, channel order, channel data type) a
// query of a read_write image2d_t reads; 4 for get_image_dim (width and height); -1 otherwise.
int ModuleRewriter::headerField(const llvm::Function& f) {
  detail::MangledFunction sig;
  if (!detail::demangleBuiltin(f.getName(), &sig) || sig.params != std::vector<std::string>{kReadWriteImage2d})
    return -1;
  static const std::map<std::string, int> fields{{"get_image_width", 0}, {"get_image_height", 1},
                                                 {"get_image_channel_order", 2},
                                                 {"get_image_channel_data_type", 3}, {"get_image_dim", 4}};
  auto it = fields.find(sig.name);
  return it == fields.end() ? -1 : it->second;
}

bool ModuleRewriter::standInForReadWriteImages(std::string* log) {
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
    moveBlocks(*entry, *kernel);
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

}  // namespace isg::detail
