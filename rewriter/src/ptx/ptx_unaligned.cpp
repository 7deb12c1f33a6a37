// SPDX-License-Identifier: MIT
#include "ptx/ptx_unaligned.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/Transforms/Utils/BasicBlockUtils.h>
#include <llvm/Transforms/Utils/Local.h>

#include <string>
#include <vector>

namespace isg::detail {
namespace {

constexpr unsigned kNvptxLocal = 5, kNvptxParam = 101;

// The element alignment a vector access at `ptr` with alignment `align` of type `v` needs, or
// nothing when the access is aligned already (provably, or private).
llvm::MaybeAlign elementAlignment(llvm::Value* ptr, llvm::Type* type, llvm::Align align, const llvm::DataLayout& dl) {
  auto* v = llvm::dyn_cast<llvm::FixedVectorType>(type);
  if (!v) return llvm::MaybeAlign();
  const uint64_t element = dl.getTypeStoreSize(v->getElementType());
  if (element == 0 || !llvm::isPowerOf2_64(element) || align.value() <= element) return llvm::MaybeAlign();
  const unsigned space = ptr->getType()->getPointerAddressSpace();
  if (space == kNvptxLocal || space == kNvptxParam) return llvm::MaybeAlign();
  if (llvm::isa<llvm::AllocaInst>(llvm::getUnderlyingObject(ptr))) return llvm::MaybeAlign();
  if (llvm::getKnownAlignment(ptr, dl) >= align) return llvm::MaybeAlign();
  return llvm::Align(element);
}

// Splits `at`'s block: `aligned` true runs the original access, false the per-element one
// built by `elements` (an IRBuilder positioned in that branch).
template <class Elements>
void branchOnAlignment(llvm::Instruction* at, llvm::Value* ptr, llvm::Align align, Elements elements) {
  llvm::IRBuilder<> b(at);
  // In PTX, on the pointer itself: an integer view of an address that a loop advances makes
  // loop strength reduction rebuild it in the widths of the bits tested, down to i1
  // arithmetic NVPTX cannot select. Every state space's addresses keep their low bits.
  auto* test = llvm::InlineAsm::get(
      llvm::FunctionType::get(b.getInt32Ty(), {ptr->getType()}, false),
      "{ .reg .b64 low; .reg .pred zero; and.b64 low, $1, " + std::to_string(align.value() - 1) +
          "; setp.eq.b64 zero, low, 0; selp.u32 $0, 1, 0, zero; }",
      "=r,l", false);
  llvm::Value* aligned = b.CreateICmpNE(b.CreateCall(test, {ptr}), b.getInt32(0));
  llvm::Instruction* whole = nullptr;
  llvm::Instruction* parts = nullptr;
  llvm::SplitBlockAndInsertIfThenElse(aligned, at, &whole, &parts);
  at->moveBefore(whole);
  llvm::IRBuilder<> e(parts);
  elements(e);
}

void splitLoad(llvm::LoadInst* load, llvm::Align element) {
  auto* v = llvm::cast<llvm::FixedVectorType>(load->getType());
  llvm::Value* ptr = load->getPointerOperand();
  llvm::BasicBlock* tail = nullptr;
  llvm::Value* assembled = nullptr;
  llvm::BasicBlock* from = nullptr;
  branchOnAlignment(load, ptr, load->getAlign(), [&](llvm::IRBuilder<>& b) {
    llvm::Value* r = llvm::PoisonValue::get(v);
    for (unsigned i = 0; i < v->getNumElements(); ++i) {
      llvm::LoadInst* part = b.CreateAlignedLoad(v->getElementType(), b.CreateConstInBoundsGEP1_32(v->getElementType(), ptr, i),
                                                 element, load->isVolatile());
      r = b.CreateInsertElement(r, part, i);
    }
    assembled = r;
    from = b.GetInsertBlock();
    tail = b.GetInsertBlock()->getTerminator()->getSuccessor(0);
  });
  llvm::PHINode* phi = llvm::PHINode::Create(v, 2, "", &tail->front());
  load->replaceAllUsesWith(phi);
  phi->addIncoming(load, load->getParent());
  phi->addIncoming(assembled, from);
}

void splitStore(llvm::StoreInst* store, llvm::Align element) {
  llvm::Value* value = store->getValueOperand();
  auto* v = llvm::cast<llvm::FixedVectorType>(value->getType());
  llvm::Value* ptr = store->getPointerOperand();
  branchOnAlignment(store, ptr, store->getAlign(), [&](llvm::IRBuilder<>& b) {
    for (unsigned i = 0; i < v->getNumElements(); ++i)
      b.CreateAlignedStore(b.CreateExtractElement(value, i),
                           b.CreateConstInBoundsGEP1_32(v->getElementType(), ptr, i), element, store->isVolatile());
  });
}

}  // namespace

void tolerateUnalignedVectors(llvm::Module& m) {
  const llvm::DataLayout& dl = m.getDataLayout();
  std::vector<std::pair<llvm::LoadInst*, llvm::Align>> loads;
  std::vector<std::pair<llvm::StoreInst*, llvm::Align>> stores;
  for (llvm::Function& f : m)
    for (llvm::BasicBlock& block : f)
      for (llvm::Instruction& i : block) {
        if (auto* l = llvm::dyn_cast<llvm::LoadInst>(&i); l && l->isSimple()) {
          if (llvm::MaybeAlign a = elementAlignment(l->getPointerOperand(), l->getType(), l->getAlign(), dl))
            loads.emplace_back(l, *a);
        } else if (auto* s = llvm::dyn_cast<llvm::StoreInst>(&i); s && s->isSimple()) {
          if (llvm::MaybeAlign a =
                  elementAlignment(s->getPointerOperand(), s->getValueOperand()->getType(), s->getAlign(), dl))
            stores.emplace_back(s, *a);
        }
      }
  for (auto& [l, a] : loads) splitLoad(l, a);
  for (auto& [s, a] : stores) splitStore(s, a);
}

}  // namespace isg::detail
