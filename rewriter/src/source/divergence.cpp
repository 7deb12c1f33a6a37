// SPDX-License-Identifier: MIT
#include "source/divergence.h"

#include <algorithm>
#include <iterator>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>

#include "common/table.h"

namespace isg::detail {

// The parent of every statement in a function body. Not clang::ParentMap: its construction
// recurses once per level of nesting and took 5 s for a body of 2^20 macro-expanded tokens,
// 24 s for 2^21 (issue 54); this one walks the body with a stack of its own and costs time in
// proportion to the body's size, whatever its depth.
class ParentIndex {
 public:
  explicit ParentIndex(const clang::Stmt* root) {
    if (!root) return;
    std::vector<const clang::Stmt*> pending{root};
    while (!pending.empty()) {
      const clang::Stmt* s = pending.back();
      pending.pop_back();
      for (const clang::Stmt* child : s->children())
        if (child) {
          parents_.emplace(child, s);
          pending.push_back(child);
        }
    }
  }
  const clang::Stmt* getParent(const clang::Stmt* s) const {
    auto it = parents_.find(s);
    return it == parents_.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<const clang::Stmt*, const clang::Stmt*> parents_;
};

namespace {

// Whether `call` is get_global_id(d) or get_local_id(d) for a constant d in `singleDims` (bit d):
// one value across the work-group where its size in d is 1.
bool idInSingleDim(const clang::CallExpr* call, unsigned singleDims, const clang::ASTContext& ctx) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!singleDims || !callee || !callee->getIdentifier() || call->getNumArgs() != 1) return false;
  const llvm::StringRef name = callee->getName();
  if (name != "get_global_id" && name != "get_local_id") return false;
  const auto d = call->getArg(0)->getIntegerConstantExpr(ctx);  // llvm::Optional (15), std (16+)
  return d && d->getExtValue() >= 0 && d->getExtValue() < 3 && (singleDims >> d->getExtValue() & 1u);
}

// `singleDims`: the dimensions (bit d) in which the kernel's work-group size is 1, so
// that get_global_id(d) and get_local_id(d) are one value across its work-group (OpenVINO's
// convolutions: reqd_work_group_size(1, 16, 1), the output position from get_global_id(0)).
bool readsWorkItemId(const clang::CallExpr* call, bool subGroupScope, unsigned singleDims,
                     const clang::ASTContext& ctx) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee || !callee->getIdentifier()) return false;
  const llvm::StringRef name = callee->getName();
  if (idInSingleDim(call, singleDims, ctx)) return false;
  return queryVariesInExchangeGroup(std::string_view(name.data(), name.size()), !subGroupScope);
}

// The dimensions of kernel `fn` whose work-group size is 1 (bit d): its reqd_work_group_size's,
// else those of `assumed` where it is known; 0 for functions that are not kernels.
unsigned singleItemDims(const clang::FunctionDecl* fn, const AssumedWorkGroupSize& assumed) {
  if (!fn->hasAttr<clang::OpenCLKernelAttr>()) return 0;
  if (const auto* reqd = fn->getAttr<clang::ReqdWorkGroupSizeAttr>())
    return (reqd->getXDim() == 1 ? 1u : 0u) | (reqd->getYDim() == 1 ? 2u : 0u) | (reqd->getZDim() == 1 ? 4u : 0u);
  if (assumed[0] == 0) return 0;
  return (assumed[0] == 1 ? 1u : 0u) | (assumed[1] == 1 ? 2u : 0u) | (assumed[2] == 1 ? 4u : 0u);
}

// What a function body assigns to its local variables, and its early exits.
class BodyScan : public clang::RecursiveASTVisitor<BodyScan> {
 public:
  bool VisitVarDecl(clang::VarDecl* v) {
    if (const clang::Expr* init = v->getInit()) sources.push_back({v, init});
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    if (!op->isAssignmentOp()) return true;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(op->getLHS()->IgnoreParenImpCasts()))
      if (const auto* v = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()))
        sources.push_back({v, op->getRHS()});
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt* r) {
    returns.push_back(r);
    return true;
  }
  bool VisitBreakStmt(clang::BreakStmt* b) {
    jumps.push_back(b);
    return true;
  }
  bool VisitContinueStmt(clang::ContinueStmt* c) {
    jumps.push_back(c);
    return true;
  }
  bool VisitGotoStmt(clang::GotoStmt* g) {
    gotos.push_back(g);
    return true;
  }

  std::vector<std::pair<const clang::VarDecl*, const clang::Expr*>> sources;
  std::vector<const clang::ReturnStmt*> returns;
  std::vector<const clang::Stmt*> jumps;  // break and continue
  std::vector<const clang::Stmt*> gotos;
};

}  // namespace

struct DivergenceCheck::FunctionFacts {
  explicit FunctionFacts(clang::Stmt* body) : parents(body) {}
  ParentIndex parents;
  std::set<const clang::VarDecl*> tainted;  // computed from a work-item id
  unsigned singleDims = 0;                  // a kernel's dimensions of one work-item (readsWorkItemId)
  std::vector<const clang::ReturnStmt*> returns;
  std::vector<const clang::Stmt*> jumps;
  std::vector<const clang::Stmt*> gotos;
};

DivergenceCheck::DivergenceCheck(clang::ASTContext& ctx, std::set<const clang::CallExpr*> subGroupUniform,
                                 bool subGroupScope, AssumedWorkGroupSize assumed)
    : ctx_(ctx), subGroupUniform_(subGroupScope ? std::move(subGroupUniform) : std::set<const clang::CallExpr*>{}),
      subGroupScope_(subGroupScope), assumed_(assumed) {}
DivergenceCheck::DivergenceCheck(DivergenceCheck&&) = default;
DivergenceCheck::~DivergenceCheck() = default;

DivergenceCheck::FunctionFacts& DivergenceCheck::factsOf(const clang::FunctionDecl* fn) {
  auto& slot = facts_[fn];
  if (slot) return *slot;
  clang::Stmt* body = fn->getBody();
  slot = std::make_unique<FunctionFacts>(body);
  slot->singleDims = singleItemDims(fn, assumed_);
  BodyScan scan;
  scan.TraverseStmt(body);
  slot->returns = std::move(scan.returns);
  slot->jumps = std::move(scan.jumps);
  slot->gotos = std::move(scan.gotos);
  for (const clang::ParmVarDecl* p : fn->parameters())
    if (divergentParams_.count(p)) slot->tainted.insert(p);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [var, source] : scan.sources)
      if (!slot->tainted.count(var) && dependent(source, slot->tainted, slot->singleDims)) {
        slot->tainted.insert(var);
        grew = true;
      }
  }
  return *slot;
}

bool DivergenceCheck::dependent(const clang::Expr* e, const std::set<const clang::VarDecl*>& tainted,
                                unsigned singleDims) const {
  if (!e) return false;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
    if (subGroupUniform_.count(call)) return false;
    if (readsWorkItemId(call, subGroupScope_, singleDims, ctx_)) return true;
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto* v = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()); v && tainted.count(v))
      return true;
  for (const clang::Stmt* child : e->children())
    if (const auto* sub = llvm::dyn_cast_or_null<clang::Expr>(child); sub && dependent(sub, tainted, singleDims))
      return true;
  return false;
}

const clang::Expr* DivergenceCheck::enclosingGuard(FunctionFacts& f, const clang::Stmt* s) const {
  auto guarded = [&](const clang::Expr* cond) { return dependent(cond, f.tainted, f.singleDims) ? cond : nullptr; };
  const clang::Stmt* child = s;
  for (const clang::Stmt* parent = f.parents.getParent(child); parent;
       child = parent, parent = f.parents.getParent(parent)) {
    const clang::Expr* cond = nullptr;
    if (const auto* i = llvm::dyn_cast<clang::IfStmt>(parent)) {
      if (child == i->getThen() || child == i->getElse()) cond = guarded(i->getCond());
    } else if (const auto* w = llvm::dyn_cast<clang::WhileStmt>(parent)) {
      if (child == w->getBody()) cond = guarded(w->getCond());
    } else if (const auto* fo = llvm::dyn_cast<clang::ForStmt>(parent)) {
      if (child == fo->getBody() || child == fo->getInc()) cond = guarded(fo->getCond());
    } else if (const auto* d = llvm::dyn_cast<clang::DoStmt>(parent)) {
      if (child == d->getBody()) cond = guarded(d->getCond());
    } else if (const auto* sw = llvm::dyn_cast<clang::SwitchStmt>(parent)) {
      if (child == sw->getBody()) cond = guarded(sw->getCond());
    } else if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(parent)) {
      if (child != c->getCond()) cond = guarded(c->getCond());
    } else if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
      if (b->isLogicalOp() && child == b->getRHS()) cond = guarded(b->getLHS());
    }
    if (cond) return cond;
  }
  return nullptr;
}

bool DivergenceCheck::dependsOnWorkItem(const clang::FunctionDecl* fn, const clang::Expr* e) {
  if (!fn || !fn->getBody()) return false;
  const FunctionFacts& f = factsOf(fn);
  return dependent(e, f.tainted, f.singleDims);
}

const clang::Expr* DivergenceCheck::guardOf(const clang::FunctionDecl* fn, const clang::Stmt* call) {
  if (!fn || !fn->getBody()) return nullptr;
  FunctionFacts& f = factsOf(fn);
  if (const clang::Expr* g = enclosingGuard(f, call)) return g;
  // Work-items that returned early never reach what follows.
  const clang::SourceManager& sm = ctx_.getSourceManager();
  for (const clang::ReturnStmt* r : f.returns)
    if (sm.isBeforeInTranslationUnit(r->getBeginLoc(), call->getBeginLoc()))
      if (const clang::Expr* g = enclosingGuard(f, r)) return g;
  // Work-items that left a loop or switch around the call, or went on with the loop's next
  // iteration, miss the call while the others reach it.
  for (const clang::Stmt* j : f.jumps) {
    const clang::Stmt* target = jumpTarget(fn, j);
    if (!target) continue;
    bool inside = false;
    for (const clang::Stmt* p = f.parents.getParent(call); p && !inside; p = f.parents.getParent(p)) inside = p == target;
    if (inside)
      if (const clang::Expr* g = enclosingGuard(f, j)) return g;
  }
  // A goto that only some work-items take may skip any call of the function, or repeat it.
  for (const clang::Stmt* j : f.gotos)
    if (const clang::Expr* g = enclosingGuard(f, j)) return g;
  return nullptr;
}

const clang::Stmt* DivergenceCheck::jumpTarget(const clang::FunctionDecl* fn, const clang::Stmt* j) {
  const bool isBreak = llvm::isa<clang::BreakStmt>(j);
  for (const clang::Stmt* p = parentOf(fn, j); p; p = parentOf(fn, p))
    if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt>(p) || (isBreak && llvm::isa<clang::SwitchStmt>(p)))
      return p;
  return nullptr;
}

const std::vector<const clang::Stmt*>& DivergenceCheck::gotosOf(const clang::FunctionDecl* fn) {
  return factsOf(fn).gotos;
}

const clang::Stmt* DivergenceCheck::parentOf(const clang::FunctionDecl* fn, const clang::Stmt* s) {
  return fn && fn->getBody() ? factsOf(fn).parents.getParent(s) : nullptr;
}

// ---------------------------------------------------------------------------------------------
// UniformFlow

namespace {

// Work-group-wide queries: the same for every work-item of a work-group.
bool uniformQuery(std::string_view name) {
  static const char* const kNames[] = {"get_group_id", "get_local_size", "get_enqueued_local_size",
                                       "get_global_size", "get_num_groups", "get_work_dim",
                                       "get_global_offset", "get_max_sub_group_size",
                                       "get_num_sub_groups", "get_enqueued_num_sub_groups"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

// Builtins whose result depends on their arguments alone.
bool pureBuiltin(std::string_view name) {
  static const char* const kNames[] = {"min", "max", "clamp", "abs", "abs_diff", "mul24", "mad24",
                                       "mad", "fma", "fmin", "fmax", "floor", "ceil", "select"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames) ||
         name.rfind("convert_", 0) == 0 || name.rfind("as_", 0) == 0;
}

// A variable an expression names directly (`v`, `v.x`, `v.field`), if any.
const clang::VarDecl* namedVar(const clang::Expr* e) {
  e = e->IgnoreParenImpCasts();
  while (true) {
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e); m && !m->isArrow()) {
      e = m->getBase()->IgnoreParenImpCasts();
    } else if (const auto* v = llvm::dyn_cast<clang::ExtVectorElementExpr>(e)) {
      e = v->getBase()->IgnoreParenImpCasts();
    } else {
      break;
    }
  }
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) return llvm::dyn_cast<clang::VarDecl>(ref->getDecl());
  return nullptr;
}

}  // namespace

struct UniformFlow::Facts {
  explicit Facts(clang::Stmt* body) : parents(body) {}
  ParentIndex parents;
  bool jumps = false;                      // a goto or a label: the flow is not followed
  std::vector<const clang::Stmt*> exits;   // return, break, continue
  struct Source {
    const clang::VarDecl* var;
    const clang::Expr* value;  // nullptr: ++/--, which depend on the variable alone
    const clang::Stmt* site;
  };
  std::vector<Source> sources;
  std::set<const clang::VarDecl*> vars;    // the uniform locals and parameters
  bool flowUniform = false;                // every exit is reached together
  unsigned singleDims = 0;                 // the kernel's dimensions of one work-item (idInSingleDim)
};

namespace {

class FlowScan : public clang::RecursiveASTVisitor<FlowScan> {
 public:
  bool VisitVarDecl(clang::VarDecl* v) {
    if (!v->hasLocalStorage() || v->getType().isVolatileQualified()) return true;
    candidates.insert(v);
    if (const clang::Expr* init = v->getInit()) sources.push_back({v, init, v->getInit()});
    return true;
  }
  bool VisitUnaryOperator(clang::UnaryOperator* op) {
    const clang::VarDecl* v = namedVar(op->getSubExpr());
    if (!v) return true;
    if (op->getOpcode() == clang::UO_AddrOf) escaped.insert(v);
    else if (op->isIncrementDecrementOp()) sources.push_back({v, nullptr, op});
    return true;
  }
  bool VisitBinaryOperator(clang::BinaryOperator* op) {
    if (!op->isAssignmentOp()) return true;
    if (const clang::VarDecl* v = namedVar(op->getLHS())) sources.push_back({v, op->getRHS(), op});
    return true;
  }
  bool VisitImplicitCastExpr(clang::ImplicitCastExpr* c) {
    if (c->getCastKind() == clang::CK_ArrayToPointerDecay)
      if (const clang::VarDecl* v = namedVar(c->getSubExpr())) escaped.insert(v);
    return true;
  }
  bool VisitReturnStmt(clang::ReturnStmt* s) { return exit(s); }
  bool VisitBreakStmt(clang::BreakStmt* s) { return exit(s); }
  bool VisitContinueStmt(clang::ContinueStmt* s) { return exit(s); }
  bool VisitGotoStmt(clang::GotoStmt*) { return jump(); }
  bool VisitIndirectGotoStmt(clang::IndirectGotoStmt*) { return jump(); }
  bool VisitLabelStmt(clang::LabelStmt*) { return jump(); }
  bool VisitBlockExpr(clang::BlockExpr*) { return jump(); }

  std::set<const clang::VarDecl*> candidates, escaped;
  std::vector<UniformFlow::Facts::Source> sources;
  std::vector<const clang::Stmt*> exits;
  bool jumps = false;

 private:
  bool exit(const clang::Stmt* s) {
    exits.push_back(s);
    return true;
  }
  bool jump() {
    jumps = true;
    return true;
  }
};

}  // namespace

UniformFlow::UniformFlow(clang::ASTContext& ctx, std::set<const clang::CallExpr*> subGroupUniform, bool subGroupScope,
                         AssumedWorkGroupSize assumed)
    : ctx_(ctx), subGroupUniform_(std::move(subGroupUniform)), subGroupScope_(subGroupScope), assumed_(assumed) {}
UniformFlow::~UniformFlow() = default;

UniformFlow::Facts& UniformFlow::factsOf(const clang::FunctionDecl* fn) {
  auto& slot = facts_[fn];
  if (slot) return *slot;
  clang::Stmt* body = fn->getBody();
  slot = std::make_unique<Facts>(body);
  Facts& f = *slot;
  f.singleDims = singleItemDims(fn, assumed_);
  FlowScan scan;
  scan.TraverseStmt(body);
  f.jumps = scan.jumps;
  f.exits = std::move(scan.exits);
  f.sources = std::move(scan.sources);
  // Parameters hold the same value in every work-item until the body assigns them.
  for (const clang::ParmVarDecl* p : fn->parameters()) scan.candidates.insert(p);
  for (const clang::VarDecl* v : scan.candidates)
    if (!scan.escaped.count(v)) f.vars.insert(v);
  // The greatest set of variables whose every value is uniform and assigned where the whole
  // work-group is together.
  for (bool shrank = true; shrank;) {
    shrank = false;
    for (const Facts::Source& src : f.sources) {
      if (!f.vars.count(src.var)) continue;
      if ((src.value && !uniform(f, src.value, f.vars)) || !together(f, src.site, f.vars)) {
        f.vars.erase(src.var);
        shrank = true;
      }
    }
  }
  f.flowUniform = !f.jumps;
  for (const clang::Stmt* e : f.exits) f.flowUniform = f.flowUniform && together(f, e, f.vars);
  return f;
}

bool UniformFlow::uniform(const Facts& f, const clang::Expr* e,
                          const std::set<const clang::VarDecl*>& vars) const {
  if (!e) return false;
  e = e->IgnoreParens();
  auto children = [&](const clang::Stmt* s) {
    for (const clang::Stmt* child : s->children()) {
      const auto* sub = llvm::dyn_cast_or_null<clang::Expr>(child);
      if (!sub || !uniform(f, sub, vars)) return false;
    }
    return true;
  };
  if (llvm::isa<clang::IntegerLiteral, clang::FloatingLiteral, clang::CharacterLiteral,
                clang::UnaryExprOrTypeTraitExpr, clang::ImplicitValueInitExpr>(e))
    return true;
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
    const clang::ValueDecl* d = ref->getDecl();
    if (llvm::isa<clang::EnumConstantDecl>(d)) return true;
    const auto* v = llvm::dyn_cast<clang::VarDecl>(d);
    if (!v) return false;
    if (vars.count(v)) return true;
    // A constant of the program: the same everywhere.
    return v->hasGlobalStorage() && v->hasInit() &&
           (v->getType().isConstQualified() || v->getType().getAddressSpace() == clang::LangAS::opencl_constant);
  }
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e)) {
    if (subGroupScope_ && subGroupUniform_.count(call)) return true;
    if (idInSingleDim(call, f.singleDims, ctx_)) return true;
    const clang::FunctionDecl* callee = call->getDirectCallee();
    if (!callee || callee->hasBody() || !callee->getIdentifier()) return false;
    const std::string_view name = callee->getName();
    const bool subGroupQuery = subGroupScope_ && (name == "get_sub_group_id" || name == "get_sub_group_size");
    if (!uniformQuery(name) && !pureBuiltin(name) && !subGroupQuery) return false;
    for (const clang::Expr* arg : call->arguments())
      if (!uniform(f, arg, vars)) return false;
    return true;
  }
  if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e)) {
    if (u->getOpcode() == clang::UO_Deref || u->getOpcode() == clang::UO_AddrOf || u->isIncrementDecrementOp())
      return false;
    return uniform(f, u->getSubExpr(), vars);
  }
  if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e)) {
    if (b->isAssignmentOp()) return false;
    return uniform(f, b->getLHS(), vars) && uniform(f, b->getRHS(), vars);
  }
  if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) return !m->isArrow() && uniform(f, m->getBase(), vars);
  if (llvm::isa<clang::CastExpr, clang::ConditionalOperator, clang::ExtVectorElementExpr, clang::InitListExpr,
                clang::ParenListExpr, clang::CompoundLiteralExpr>(e))
    return children(e);
  return false;  // memory (subscripts, ->), assignments, calls of the program's own functions, ...
}

bool UniformFlow::together(const Facts& f, const clang::Stmt* s,
                           const std::set<const clang::VarDecl*>& vars) const {
  auto ok = [&](const clang::Expr* cond) { return !cond || uniform(f, cond, vars); };
  const clang::Stmt* child = s;
  for (const clang::Stmt* parent = f.parents.getParent(child); parent;
       child = parent, parent = f.parents.getParent(parent)) {
    bool fine = true;
    if (const auto* i = llvm::dyn_cast<clang::IfStmt>(parent)) {
      if (i->getInit() || i->getConditionVariable()) fine = false;
      else if (child == i->getThen() || child == i->getElse()) fine = ok(i->getCond());
    } else if (const auto* w = llvm::dyn_cast<clang::WhileStmt>(parent)) {
      fine = !w->getConditionVariable() && ok(w->getCond());
    } else if (const auto* fo = llvm::dyn_cast<clang::ForStmt>(parent)) {
      if (child != fo->getInit()) fine = !fo->getConditionVariable() && ok(fo->getCond());
    } else if (const auto* d = llvm::dyn_cast<clang::DoStmt>(parent)) {
      fine = ok(d->getCond());
    } else if (const auto* sw = llvm::dyn_cast<clang::SwitchStmt>(parent)) {
      if (child != sw->getCond()) fine = !sw->getInit() && !sw->getConditionVariable() && ok(sw->getCond());
    } else if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(parent)) {
      if (child != c->getCond()) fine = ok(c->getCond());
    } else if (llvm::isa<clang::BinaryConditionalOperator>(parent)) {
      fine = false;
    } else if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(parent)) {
      if (b->isLogicalOp() && child == b->getRHS()) fine = ok(b->getLHS());
    }
    if (!fine) return false;
  }
  return true;
}

bool UniformFlow::reachedTogether(const clang::FunctionDecl* kernel, const clang::Stmt* call) {
  if (!kernel || !kernel->getBody()) return false;
  const Facts& f = factsOf(kernel);
  return f.flowUniform && together(f, call, f.vars);
}

}  // namespace isg::detail
