// SPDX-License-Identifier: MIT
// Intel's execution model for SPIR-V modules (issue 64): the source pipeline lowers control flow
// that only some work-items take around an exchange (source/predication.h); the module pipeline
// does not yet, so a module whose exchange may be reached by only some work-items of its
// exchange group fails its build with an error that names the builtin and where (or, with
// ISG_REFUSE_DIVERGENT=0, is built as written with that text as a warning). Never a silent
// difference from Intel's driver.
//
// The question is the source pipeline's (divergence.h), asked of LLVM IR: a value is work-item
// dependent where it comes from a work-item id (a query, a SPIR-V BuiltIn variable), from such a
// value, from a private variable such a value (or a store under such control flow) wrote, from a
// helper's parameter a caller passes such a value, or from a phi where such control flow joins.
// A branch on such a value makes the blocks it reaches before its post-dominator divergent; an
// exchange there, or a call of a function that exchanges, is reached by only some.
#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/Analysis/PostDominators.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/DebugInfoMetadata.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>

#include "common/kernel_facts.h"
#include "common/llvm_compat.h"
#include "common/mangled_names.h"
#include "module/module_rewriter.h"

namespace isg::detail {

namespace {

// A SPIR-V BuiltIn variable the translator left as a global (`__spirv_BuiltInLocalInvocationId`).
bool idVariable(const llvm::Value* v, bool workGroup) {
  const auto* g = llvm::dyn_cast<llvm::GlobalVariable>(v);
  if (!g || !startsWith(g->getName(), "__spirv_BuiltIn")) return false;
  const llvm::StringRef n = g->getName().drop_front(15);
  if (n == "LocalInvocationId" || n == "GlobalInvocationId" || n == "LocalInvocationIndex" ||
      n == "GlobalLinearId" || n == "SubgroupLocalInvocationId")
    return true;
  return workGroup && (n == "SubgroupId" || n == "SubgroupSize");
}

std::string builtinName(const llvm::Function* f) {
  if (!f) return {};
  MangledFunction sig;
  if (demangleBuiltin(f->getName(), &sig)) return sig.name;
  return f->getName().str();
}

class Divergence {
 public:
  Divergence(llvm::Module& m, bool workGroup, std::set<const llvm::Function*> exchangeDecls,
             std::set<const llvm::Function*> uniformDecls)
      : m_(m), workGroup_(workGroup), exchangeDecls_(std::move(exchangeDecls)), uniformDecls_(std::move(uniformDecls)) {}

  // The work-item dependent values, the divergent blocks and the functions called there.
  void analyse() {
    findExchangingFunctions();
    for (bool grew = true; grew;) {
      grew = false;
      for (llvm::Function& f : m_)
        if (!f.isDeclaration()) grew = function(f) || grew;
      // A helper's parameter is work-item dependent where a caller passes such a value.
      for (llvm::Function& f : m_)
        for (llvm::Instruction& i : llvm::instructions(f))
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
            if (llvm::Function* callee = call->getCalledFunction(); callee && !callee->isDeclaration())
              for (unsigned a = 0; a < call->arg_size() && a < callee->arg_size(); ++a)
                if (divergent_.count(call->getArgOperand(a)) && divergent_.insert(callee->getArg(a)).second)
                  grew = true;
    }
    // A helper called where only some run runs so itself, with the branch of its first such call.
    for (bool grew = true; grew;) {
      grew = false;
      for (llvm::Function& f : m_)
        for (llvm::Instruction& i : llvm::instructions(f))
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i))
            if (llvm::Function* callee = call->getCalledFunction();
                callee && !callee->isDeclaration() && !calledUnder_.count(callee))
              if (const llvm::Instruction* b = branchOf(call)) grew = calledUnder_.emplace(callee, b).second || grew;
    }
  }

  bool dependsOnWorkItem(const llvm::Value* v) const { return divergent_.count(v) != 0; }
  // The branch that decides whether `i` runs (its block's, or its function's callers'), or null
  // where every work-item that reaches the function runs it.
  const llvm::Instruction* branchOf(const llvm::Instruction* i) const {
    if (auto r = region_.find(i->getParent()); r != region_.end()) return r->second;
    auto c = calledUnder_.find(i->getFunction());
    return c == calledUnder_.end() ? nullptr : c->second;
  }

  // The calls that exchange and may be reached by only some members, each with the branch
  // that decides it.
  std::vector<std::pair<const llvm::CallBase*, const llvm::Instruction*>> run() {
    analyse();
    std::vector<std::pair<const llvm::CallBase*, const llvm::Instruction*>> found;
    for (llvm::Function& f : m_)
      for (llvm::Instruction& i : llvm::instructions(f))
        if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && exchanging(call->getCalledFunction()))
          if (auto r = region_.find(call->getParent()); r != region_.end()) found.push_back({call, r->second});
    return found;
  }

 private:
  bool exchanging(const llvm::Function* f) const { return f && (exchangeDecls_.count(f) || exchangingDefs_.count(f)); }

  void findExchangingFunctions() {
    for (bool grew = true; grew;) {
      grew = false;
      for (llvm::Function& f : m_) {
        if (f.isDeclaration() || exchangingDefs_.count(&f)) continue;
        for (llvm::Instruction& i : llvm::instructions(f))
          if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i); call && exchanging(call->getCalledFunction())) {
            exchangingDefs_.insert(&f);
            grew = true;
            break;
          }
      }
    }
  }

  // One pass over `f`: its work-item dependent values, private variables and divergent blocks.
  bool function(llvm::Function& f) {
    bool grew = false;
    auto mark = [&](const llvm::Value* v) { grew = divergent_.insert(v).second || grew; };
    for (llvm::Instruction& i : llvm::instructions(f)) {
      if (divergent_.count(&i)) continue;
      if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) {
        const llvm::Function* callee = call->getCalledFunction();
        if (callee && uniformDecls_.count(callee)) continue;
        if (callee && callee->isDeclaration() && queryVariesInExchangeGroup(builtinName(callee), workGroup_)) {
          mark(&i);
          continue;
        }
        // A helper that returns such a value.
        if (callee && !callee->isDeclaration())
          for (const llvm::Instruction& c : llvm::instructions(*callee))
            if (const auto* ret = llvm::dyn_cast<llvm::ReturnInst>(&c); ret && ret->getReturnValue() &&
                                                                     divergent_.count(ret->getReturnValue())) {
              mark(&i);
              break;
            }
        if (divergent_.count(&i)) continue;
      }
      if (auto* load = llvm::dyn_cast<llvm::LoadInst>(&i)) {
        const llvm::Value* base = llvm::getUnderlyingObject(load->getPointerOperand());
        if (idVariable(base, workGroup_) || divergentMemory_.count(base)) mark(&i);
      }
      if (auto* phi = llvm::dyn_cast<llvm::PHINode>(&i))
        for (const llvm::BasicBlock* pred : phi->blocks())
          if (region_.count(pred) || divergentBranch(pred->getTerminator())) mark(&i);
      for (const llvm::Value* op : i.operands())
        if (divergent_.count(op) && !llvm::isa<llvm::BasicBlock>(op) && !llvm::isa<llvm::Function>(op)) {
          mark(&i);
          break;
        }
    }
    // Private memory: written with such a value, at such an address or where only some run; or
    // handed to a call, which may do either.
    for (llvm::Instruction& i : llvm::instructions(f)) {
      const llvm::Value* base = nullptr;
      bool divergentWrite = false;
      if (auto* store = llvm::dyn_cast<llvm::StoreInst>(&i)) {
        base = llvm::getUnderlyingObject(store->getPointerOperand());
        divergentWrite = divergent_.count(store->getValueOperand()) || divergent_.count(store->getPointerOperand()) ||
                         region_.count(store->getParent());
      } else if (auto* call = llvm::dyn_cast<llvm::CallBase>(&i)) {
        for (const llvm::Value* a : call->args())
          if (a->getType()->isPointerTy())
            if (const auto* alloca = llvm::dyn_cast<llvm::AllocaInst>(llvm::getUnderlyingObject(a)))
              grew = divergentMemory_.insert(alloca).second || grew;
        continue;
      }
      if (base && llvm::isa<llvm::AllocaInst>(base) && divergentWrite) grew = divergentMemory_.insert(base).second || grew;
    }
    // The blocks a divergent branch reaches before its post-dominator.
    llvm::PostDominatorTree pdt(f);
    for (llvm::BasicBlock& b : f) {
      const llvm::Instruction* t = b.getTerminator();
      if (!t || !divergentBranch(t)) continue;
      const llvm::DomTreeNode* node = pdt.getNode(&b);
      const llvm::BasicBlock* join = node && node->getIDom() ? node->getIDom()->getBlock() : nullptr;
      std::deque<const llvm::BasicBlock*> work(llvm::succ_begin(&b), llvm::succ_end(&b));
      while (!work.empty()) {
        const llvm::BasicBlock* s = work.front();
        work.pop_front();
        if (s == join || region_.count(s)) continue;
        region_.emplace(s, t);
        grew = true;
        for (const llvm::BasicBlock* n : llvm::successors(s)) work.push_back(n);
      }
    }
    return grew;
  }

  bool divergentBranch(const llvm::Instruction* t) const {
    if (const auto* br = llvm::dyn_cast<llvm::BranchInst>(t))
      return br->isConditional() && divergent_.count(br->getCondition());
    if (const auto* sw = llvm::dyn_cast<llvm::SwitchInst>(t)) return divergent_.count(sw->getCondition());
    return false;
  }

  llvm::Module& m_;
  bool workGroup_;
  std::set<const llvm::Function*> exchangeDecls_, uniformDecls_, exchangingDefs_;
  std::set<const llvm::Value*> divergent_, divergentMemory_;
  std::map<const llvm::BasicBlock*, const llvm::Instruction*> region_;  // block -> its branch
  std::map<const llvm::Function*, const llvm::Instruction*> calledUnder_;  // helper -> a branch
};

// Where `i` is: the source line the module's debug information names, else its function.
std::string where(const llvm::Instruction* i) {
  if (const llvm::DebugLoc& d = i->getDebugLoc())
    return d->getFilename().str() + ":" + std::to_string(d.getLine()) + ":" + std::to_string(d.getCol());
  return "";
}

}  // namespace

bool ModuleRewriter::refuseDivergentExchanges() {
  if (traits_.strategy == Strategy::Native) return true;
  const bool workGroup = traits_.strategy == Strategy::Local || traits_.khrTestDouble;
  std::set<const llvm::Function*> exchange, uniform;
  for (const Overload& o : overloads_) {
    if (o.firstMember) continue;  // called only where every member runs (firstMemberPointers)
    if (o.builtin->family == "barrier" || o.exchangeBytes != 0) exchange.insert(o.declaration);
    if (!workGroup && resultIsSubGroupUniform(*o.builtin)) uniform.insert(o.declaration);
  }
  if (exchange.empty()) return true;
  Divergence d(m_, workGroup, std::move(exchange), std::move(uniform));
  std::set<std::string> said;
  for (const auto& [call, branch] : d.run()) {
    const llvm::Function* callee = call->getCalledFunction();
    const std::string name = builtinName(callee) + (callee->isDeclaration() ? "'" : "', which exchanges,");
    const std::string at = where(call), decided = where(branch);
    const std::string text = (at.empty() ? "" : at + ": ") + (traits_.refuseDivergent ? "error" : "warning") + ": '" +
                             name + " in function '" + call->getFunction()->getName().str() +
                             "' may be reached by only some work-items (" +
                             (decided.empty() ? "a branch there" : "the branch at " + decided) +
                             " decides per work-item), and the layer does not give SPIR-V modules Intel's execution "
                             "model in such control flow (programs from OpenCL C source get it)";
    if (!said.insert(text).second) continue;
    result_.log += text + (traits_.refuseDivergent ? ", so it refuses the module: its results would differ from "
                                                     "Intel's (ISG_REFUSE_DIVERGENT=0 builds it as written)\n"
                                                   : "; results may differ from Intel's\n");
  }
  return !traits_.refuseDivergent || said.empty();
}

void ModuleRewriter::firstMemberPointers() {
  if (traits_.strategy == Strategy::Native) return;
  // Whether a pointer may differ within a sub-group: a check of that scope, whose uniform
  // values include the sub-group's id and its reductions' results. Where the strategy's
  // exchanges are work-group barriers (local, the khr test double) the flow is another's.
  std::set<const llvm::Function*> uniform;
  for (const Overload& o : overloads_)
    if (resultIsSubGroupUniform(*o.builtin)) uniform.insert(o.declaration);
  Divergence sub(m_, /*workGroup=*/false, {}, uniform);
  sub.analyse();
  const bool workGroup = traits_.strategy == Strategy::Local || traits_.khrTestDouble;
  std::unique_ptr<Divergence> group;
  if (workGroup) {
    group = std::make_unique<Divergence>(m_, /*workGroup=*/true, std::set<const llvm::Function*>(),
                                         std::set<const llvm::Function*>());
    group->analyse();
  }
  const Divergence& flow = workGroup ? *group : sub;
  // nvidia-ptx's library takes the first active member's pointer in every call; khr does
  // through __ISG_L0_ where the driver has cl_khr_subgroup_ballot.
  const bool nvidia = traits_.strategy == Strategy::NvidiaPtx;
  const bool firstActive = nvidia || khrTakesFirstActive(traits_);
  std::set<std::string> said;
  auto warn = [&](const llvm::CallBase* call, const Overload& o, bool eachOwn, const llvm::Instruction* branch) {
    const std::string at = where(call), decided = where(branch);
    const std::string flowText = std::string(eachOwn ? "under flow only some work-items take"
                                                     : "under flow only some members of a sub-group take") +
                                 " (" + (decided.empty() ? "a branch in function '" + branch->getFunction()->getName().str() + "'"
                                                         : "the branch at " + decided) +
                                 " decides per work-item)";
    const std::string text = (at.empty() ? "" : at + ": ") + "warning: " +
                             eachMemberPointerWarning(o.builtin->name, traits_, eachOwn, flowText) + "\n";
    if (said.insert(text).second) result_.log += text;
  };
  for (std::size_t i = 0, n = overloads_.size(); i < n; ++i) {
    const table::Shape shape = overloads_[i].builtin->shape;
    llvm::Function* decl = overloads_[i].declaration;
    if ((shape != table::Shape::BlockRead && shape != table::Shape::BlockWrite) || decl->arg_size() == 0 ||
        !decl->getArg(0)->getType()->isPointerTy() || decl->arg_size() != usualArity(*overloads_[i].builtin))
      continue;
    std::size_t twin = 0;  // its first-member twin, once made
    for (llvm::User* u : decl->users()) {
      auto* call = llvm::dyn_cast<llvm::CallBase>(u);
      if (!call || call->getCalledFunction() != decl || !sub.dependsOnWorkItem(call->getArgOperand(0))) continue;
      const llvm::Instruction* split = sub.branchOf(call);
      const llvm::Instruction* branch = firstActive ? nullptr : flow.branchOf(call);
      if (branch) {
        warn(call, overloads_[i], true, branch);
        continue;
      }
      if (firstActive && split) warn(call, overloads_[i], false, split);
      if (nvidia) continue;
      if (!twin) {
        Overload t = overloads_[i];
        t.firstMember = true;
        t.exchangeBytes = std::max(t.exchangeBytes, 8u);
        t.replacement += "_l0";
        twin = overloads_.size();
        overloads_.push_back(std::move(t));
      }
      firstMemberCall_[call] = twin;
    }
  }
}

}  // namespace isg::detail
