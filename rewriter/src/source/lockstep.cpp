// SPDX-License-Identifier: MIT
#include "source/lockstep.h"

#include <set>
#include <string>
#include <string_view>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>

#include "source/divergence.h"
#include "source/editor.h"
#include "source/statement_text.h"

namespace isg::detail {

namespace {

constexpr const char* kBarrier = " barrier(CLK_LOCAL_MEM_FENCE);";

// The author's own ordering of work-items: a kernel that reaches one of these chose where the
// work-items meet, and keeps its text.
bool synchronises(std::string_view name) {
  static const std::set<std::string_view> names = {
      "barrier",         "work_group_barrier",     "sub_group_barrier", "mem_fence",
      "read_mem_fence",  "write_mem_fence",        "atomic_work_item_fence", "wait_group_events",
      "intel_sub_group_barrier"};
  return names.count(name) || name.rfind("work_group_", 0) == 0;
}

bool inLocal(const clang::ASTContext& ctx, clang::QualType t) {
  while (const clang::ArrayType* a = ctx.getAsArrayType(t)) t = a->getElementType();
  return t.getAddressSpace() == clang::LangAS::opencl_local;
}

// Whether a statement reads or writes local memory: an lvalue there, or a pointer to it handed on
// (to vload, to a helper).
class Touches : public clang::RecursiveASTVisitor<Touches> {
 public:
  explicit Touches(const clang::ASTContext& ctx) : ctx_(ctx) {}
  bool VisitExpr(clang::Expr* e) {
    const clang::QualType t = e->getType();
    if (t.isNull()) return true;
    if ((e->isGLValue() && inLocal(ctx_, t)) || (t->isPointerType() && inLocal(ctx_, t->getPointeeType()))) {
      found = true;
      return false;
    }
    return true;
  }
  bool found = false;

 private:
  const clang::ASTContext& ctx_;
};

// Whether `fn` or a function of the program it calls synchronises.
class Synchronises : public clang::RecursiveASTVisitor<Synchronises> {
 public:
  bool VisitCallExpr(clang::CallExpr* c) {
    const clang::FunctionDecl* callee = c->getDirectCallee();
    if (!callee) return true;
    if (const clang::FunctionDecl* def = callee->getDefinition(); def && def->hasBody()) {
      if (seen_.insert(def).second) TraverseStmt(def->getBody());
    } else if (callee->getIdentifier() && synchronises(callee->getName())) {
      found = true;
    }
    return !found;
  }
  bool found = false;

 private:
  std::set<const clang::FunctionDecl*> seen_;
};

class LockStep {
 public:
  LockStep(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, Editor& ed, AssumedWorkGroupSize assumed)
      : ctx_(ctx), sm_(ctx.getSourceManager()), kernel_(kernel), ed_(ed), flow_(ctx, {}, false, assumed),
        text_(sm_, ctx.getLangOpts(), sm_.getFileID(sm_.getExpansionLoc(kernel->getLocation()))) {}

  LockStepResult run() {
    walk(kernel_->getBody());
    return {placed_, warned_};
  }

 private:
  // Whether `s` touches local memory with no barrier after its last touch yet: the statement
  // around it places one.
  bool walk(const clang::Stmt* s) {
    if (!s) return false;
    if (const auto* c = llvm::dyn_cast<clang::CompoundStmt>(s)) {
      // The kernel's last touches need no barrier: nothing after them reads local memory.
      const clang::Stmt* last = nullptr;
      if (c == kernel_->getBody())
        for (const clang::Stmt* child : c->body())
          if (touches(child)) last = child;
      bool pending = false;
      for (const clang::Stmt* child : c->body())
        if (walk(child) && child != last && !place(child, false)) pending = true;
      return pending;
    }
    if (!llvm::isa<clang::IfStmt, clang::ForStmt, clang::WhileStmt, clang::DoStmt, clang::SwitchStmt,
                   clang::AttributedStmt, clang::LabelStmt, clang::SwitchCase>(s)) {
      return touches(s);
    }
    bool pending = false;
    for (const clang::Stmt* child : s->children()) {
      if (!child) continue;
      const bool leafBody = isBody(s, child) && !llvm::isa<clang::CompoundStmt>(child);
      if (walk(child) && !(leafBody && place(child, true))) pending = true;
    }
    if (pending && llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt>(s) && !warned_) {
      warned_ = true;
      ed_.warning(s->getBeginLoc(),
                  "kernel '" + kernel_->getNameAsString() +
                      "' shares local memory with no barrier, as Intel's GPUs run a sub-group in lock-step; "
                      "in this loop its work-items may run apart, so the layer orders their local memory "
                      "only after the loop, and results may differ from Intel's");
    }
    return pending;
  }

  bool touches(const clang::Stmt* s) const {
    Touches t(ctx_);
    t.TraverseStmt(const_cast<clang::Stmt*>(s));
    return t.found;
  }

  static bool isBody(const clang::Stmt* parent, const clang::Stmt* child) {
    if (const auto* i = llvm::dyn_cast<clang::IfStmt>(parent)) return child == i->getThen() || child == i->getElse();
    if (const auto* f = llvm::dyn_cast<clang::ForStmt>(parent)) return child == f->getBody();
    if (const auto* w = llvm::dyn_cast<clang::WhileStmt>(parent)) return child == w->getBody();
    if (const auto* d = llvm::dyn_cast<clang::DoStmt>(parent)) return child == d->getBody();
    return false;
  }

  // A barrier right after `s` (`brace`: `s` is a branch's or loop's body without braces, which
  // get them), where the whole work-group runs `s` together and its text is the program's.
  bool place(const clang::Stmt* s, bool brace) {
    if (!flow_.reachedTogether(kernel_, s)) return false;
    const auto range = text_.bytes(s->getSourceRange());
    const auto end = text_.end(s);
    if (!range || !end || (brace && !free(range->first)) || !free(*end)) return false;
    if (brace) insert(range->first, "{ ");
    insert(*end, brace ? std::string(kBarrier) + " }" : kBarrier);
    ++placed_;
    return true;
  }

  // Whether text may go in at `offset`: not inside bytes another edit replaces (insert puts it
  // ahead of a replacement that starts there).
  bool free(unsigned offset) const {
    return !ed_.overlapsEdit(ed_.fileName(sm_.getLocForStartOfFile(text_.file())), offset, 0,
                             /*beforeReplacement=*/true);
  }
  // Before a replacement at the same place (the composer applies one edit per offset in order).
  void insert(unsigned offset, const std::string& t) {
    const clang::SourceLocation start = sm_.getLocForStartOfFile(text_.file());
    const std::string file = ed_.fileName(start);
    for (FileEdit& e : ed_.edits)
      if (e.file == file && e.offset == offset && e.length > 0) {
        e.text = t + e.text;
        return;
      }
    ed_.add(start, offset, 0, t, kernel_->getLocation(),
            "the barriers that keep kernel '" + kernel_->getNameAsString() + "' in lock-step");
  }

  clang::ASTContext& ctx_;
  const clang::SourceManager& sm_;
  const clang::FunctionDecl* kernel_;
  Editor& ed_;
  UniformFlow flow_;
  const StatementText text_;
  unsigned placed_ = 0;
  bool warned_ = false;
};

}  // namespace

LockStepResult keepLockStep(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, Editor& ed,
                            AssumedWorkGroupSize assumed) {
  if (!kernel || !kernel->hasBody()) return {};
  Synchronises sync;
  sync.TraverseStmt(kernel->getBody());
  if (sync.found) return {};
  return LockStep(ctx, kernel, ed, assumed).run();
}

}  // namespace isg::detail
