// SPDX-License-Identifier: MIT
// Where a sub-group builtin may be reached by only some work-items of a work-group. Intel's
// hardware runs such code (a builtin under `if (get_local_id(0) < 16)`); the local strategy
// exchanges through work-group barriers, which every work-item must reach, so there it hangs.
// The rewriter cannot make it work, but it can say so in the build log, at the user's line.
//
// A condition is work-item dependent when it reads a work-item id (get_local_id, get_global_id,
// the sub-group ids, the linear ids) directly or through local variables computed from one.
// A call is divergent when such a condition guards it (if, loops, ?:, && and ||, switch),
// guards an earlier `return` of its function, or guards a `break` or `continue` of a loop around
// it. Parameters and memory are taken as uniform: the
// check warns where it sees the dependence and stays silent where it cannot.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
}  // namespace clang

namespace isg::detail {

// The work-group size every launch of the program's kernels has where the rewriter knows it
// beyond a kernel's own reqd_work_group_size: a launch variant's (RewriteInput::
// assumedWorkGroupSize); {0, 0, 0}: none. A kernel's attribute, where it has one, comes first.
using AssumedWorkGroupSize = std::array<std::size_t, 3>;

class DivergenceCheck {
 public:
  // `subGroupUniform`: calls whose value is the same for every work-item of a sub-group (its
  // reductions, broadcasts, votes). With `subGroupScope` the question is whether a value can
  // differ within a sub-group (where exchanges are sub-group-wide: nvidia-ptx, khr), so those
  // calls and the sub-group's id are not work-item dependent; else within a work-group (local,
  // whose exchanges are work-group barriers).
  // `assumed`: where a kernel's work-group is one work-item wide in a dimension, its
  // get_global_id and get_local_id there are one value across the work-group.
  explicit DivergenceCheck(clang::ASTContext& ctx, std::set<const clang::CallExpr*> subGroupUniform = {},
                           bool subGroupScope = false, AssumedWorkGroupSize assumed = {});
  DivergenceCheck(DivergenceCheck&&);
  ~DivergenceCheck();

  // Whether exchanges are sub-group-wide (nvidia-ptx, khr) rather than work-group barriers.
  bool subGroupScope() const { return subGroupScope_; }

  // Parameters of helper functions that some caller passes a work-item dependent value.
  void setDivergentParams(std::set<const clang::VarDecl*> params) { divergentParams_ = std::move(params); }

  // The work-item dependent condition that guards `call` inside `fn` (a definition), or nullptr.
  const clang::Expr* guardOf(const clang::FunctionDecl* fn, const clang::Stmt* call);
  // Whether `e`, inside `fn` (a definition), depends on a work-item id by this check's rule.
  bool dependsOnWorkItem(const clang::FunctionDecl* fn, const clang::Expr* e);
  // The loop (or, for a break, switch) that break or continue `j` in `fn` leaves or goes on with.
  const clang::Stmt* jumpTarget(const clang::FunctionDecl* fn, const clang::Stmt* j);
  // The goto statements of `fn`'s body (a definition).
  const std::vector<const clang::Stmt*>& gotosOf(const clang::FunctionDecl* fn);
  // The statement that holds `s` in `fn`'s body (a definition); nullptr for the body itself.
  const clang::Stmt* parentOf(const clang::FunctionDecl* fn, const clang::Stmt* s);

 private:
  struct FunctionFacts;
  FunctionFacts& factsOf(const clang::FunctionDecl* fn);
  bool dependent(const clang::Expr* e, const std::set<const clang::VarDecl*>& tainted, unsigned singleDims) const;
  const clang::Expr* enclosingGuard(FunctionFacts& f, const clang::Stmt* s) const;

  clang::ASTContext& ctx_;
  std::set<const clang::CallExpr*> subGroupUniform_;
  bool subGroupScope_;
  AssumedWorkGroupSize assumed_;
  std::set<const clang::VarDecl*> divergentParams_;
  std::map<const clang::FunctionDecl*, std::unique_ptr<FunctionFacts>> facts_;
};

// Where a call is reached by every work-item of its work-group together (issue 35.1): the
// opposite, conservative question. No condition on the way to the call may differ between
// the work-items of a work-group, nor one that guards a return, break or continue of the
// function (a goto anywhere answers no). A value is uniform only where it provably is:
// literals, constants, the kernel's parameters (their values, not what they point to),
// work-group-wide queries (get_group_id, get_local_size, ...), a kernel's get_global_id and
// get_local_id in a dimension its work-group is one work-item wide (its reqd_work_group_size, else
// `assumed`), a few pure builtins of uniform arguments, and local variables that only ever take uniform values at uniform points (the
// greatest such set). Memory is never uniform.
//
// With `subGroupScope` the question is the sub-group's: the sub-group's id and size, and the
// calls of `subGroupUniform` (its reductions, broadcasts, votes), count as uniform too.
class UniformFlow {
 public:
  explicit UniformFlow(clang::ASTContext& ctx, std::set<const clang::CallExpr*> subGroupUniform = {},
                       bool subGroupScope = false, AssumedWorkGroupSize assumed = {});
  ~UniformFlow();

  // Whether every work-item of a work-group (with subGroupScope: of a sub-group) reaches `call`
  // inside kernel `kernel` together.
  bool reachedTogether(const clang::FunctionDecl* kernel, const clang::Stmt* call);

  struct Facts;  // what divergence.cpp finds in a function body

 private:
  Facts& factsOf(const clang::FunctionDecl* fn);
  bool uniform(const Facts& f, const clang::Expr* e, const std::set<const clang::VarDecl*>& vars) const;
  bool together(const Facts& f, const clang::Stmt* s, const std::set<const clang::VarDecl*>& vars) const;

  std::map<const clang::FunctionDecl*, std::unique_ptr<Facts>> facts_;
  clang::ASTContext& ctx_;
  std::set<const clang::CallExpr*> subGroupUniform_;
  bool subGroupScope_;
  AssumedWorkGroupSize assumed_;
};

}  // namespace isg::detail
