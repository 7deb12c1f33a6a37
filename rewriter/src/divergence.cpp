// SPDX-License-Identifier: MIT
#include "divergence.h"

#include <string_view>
#include <vector>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ParentMap.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>

namespace isg::detail {

namespace {

bool readsWorkItemId(const clang::CallExpr* call) {
  const clang::FunctionDecl* callee = call->getDirectCallee();
  if (!callee || !callee->getIdentifier()) return false;
  const std::string_view name = callee->getName();
  return name == "get_local_id" || name == "get_global_id" || name == "get_local_linear_id" ||
         name == "get_global_linear_id" || name == "get_sub_group_local_id" ||
         name == "get_sub_group_id";
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

  std::vector<std::pair<const clang::VarDecl*, const clang::Expr*>> sources;
  std::vector<const clang::ReturnStmt*> returns;
};

}  // namespace

struct DivergenceCheck::FunctionFacts {
  explicit FunctionFacts(clang::Stmt* body) : parents(body) {}
  clang::ParentMap parents;
  std::set<const clang::VarDecl*> tainted;  // computed from a work-item id
  std::vector<const clang::ReturnStmt*> returns;
};

DivergenceCheck::DivergenceCheck(clang::ASTContext& ctx) : ctx_(ctx) {}
DivergenceCheck::~DivergenceCheck() = default;

DivergenceCheck::FunctionFacts& DivergenceCheck::factsOf(const clang::FunctionDecl* fn) {
  auto& slot = facts_[fn];
  if (slot) return *slot;
  clang::Stmt* body = fn->getBody();
  slot = std::make_unique<FunctionFacts>(body);
  BodyScan scan;
  scan.TraverseStmt(body);
  slot->returns = std::move(scan.returns);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [var, source] : scan.sources)
      if (!slot->tainted.count(var) && dependent(source, slot->tainted)) {
        slot->tainted.insert(var);
        grew = true;
      }
  }
  return *slot;
}

bool DivergenceCheck::dependent(const clang::Expr* e,
                                const std::set<const clang::VarDecl*>& tainted) const {
  if (!e) return false;
  if (const auto* call = llvm::dyn_cast<clang::CallExpr>(e); call && readsWorkItemId(call))
    return true;
  if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e))
    if (const auto* v = llvm::dyn_cast<clang::VarDecl>(ref->getDecl()); v && tainted.count(v))
      return true;
  for (const clang::Stmt* child : e->children())
    if (const auto* sub = llvm::dyn_cast_or_null<clang::Expr>(child); sub && dependent(sub, tainted))
      return true;
  return false;
}

const clang::Expr* DivergenceCheck::enclosingGuard(FunctionFacts& f, const clang::Stmt* s) const {
  auto guarded = [&](const clang::Expr* cond) { return dependent(cond, f.tainted) ? cond : nullptr; };
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

const clang::Expr* DivergenceCheck::guardOf(const clang::FunctionDecl* fn, const clang::Stmt* call) {
  if (!fn || !fn->getBody()) return nullptr;
  FunctionFacts& f = factsOf(fn);
  if (const clang::Expr* g = enclosingGuard(f, call)) return g;
  // Work-items that returned early never reach what follows.
  const clang::SourceManager& sm = ctx_.getSourceManager();
  for (const clang::ReturnStmt* r : f.returns)
    if (sm.isBeforeInTranslationUnit(r->getBeginLoc(), call->getBeginLoc()))
      if (const clang::Expr* g = enclosingGuard(f, r)) return g;
  return nullptr;
}

}  // namespace isg::detail
