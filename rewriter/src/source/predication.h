// SPDX-License-Identifier: MIT
// Intel's execution model for builtins in control flow that not every work-item takes (issue 49,
// docs/design.md "Intel's execution model"). On Intel's runtimes a work-item that skips a branch
// still holds its values: a shuffle or broadcast inside the branch reads them, while reductions,
// scans and votes there combine only the work-items that took it (measured on Intel's CPU
// runtime). The layer's strategies need every member to reach each exchange: local exchanges
// through work-group barriers, nvidia-ptx reads only lanes that execute the shuffle. So inside
// each kernel the rewriter makes the work-items that skipped a branch, left a loop or returned
// early take part in every exchange without effects:
//
//   if (c) { A; x = shuffle(v, k); }   ->  { const bool p = (c); if (p) { A; }
//                                              T h = shuffle(v, k);   // every work-item
//                                              if (p) { x = h; } }
//   for (i = s; c; i += d) { ..reduce.. } ->  { i = s; bool c1 = (c); while (flow_any(c1)) {
//                                              ..reduce((c1) ? v : identity)..
//                                              if (c1) { i += d; c1 = (c); } } }
//   if (c) return; rest                  ->  bool live = true; if (c) live = false; rest under live
//
// The work-items outside give a shuffle the value of its operand where that is a value they hold
// (a variable, arithmetic of variables) and 0 where it needs memory or a call (Intel's value is
// then whatever their register held); reductions, scans and votes get the operation's identity
// from them. The loop goes on while any work-item that shares the exchange (the work-group on
// local, the sub-group elsewhere) still runs it (__isg_flow_any in each strategy's library).
// `break` and `continue` that only some work-items take in such a loop (for, while, do) clear
// its flag or the iteration's, and leave the statement around them by a goto to its end.
// What the rewrite cannot express in the program's own text (an exchange spelled inside a macro
// that also spells the rest of its statement, a switch) fails the build with an error at the line
// (DeviceTraits::refuseDivergent), or stays as it was with that text as a warning. A return
// before an exchange anywhere in the kernel clears a run flag that what follows runs under.
// Helper functions get the same walk: one that exchanges, called where only some work-items run,
// takes an execution mask after the sub-group context (`bool __isg_m`, every caller passes its
// predicate or 1) and runs its whole body under it, as a kernel under a branch.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTContext;
class CallExpr;
class FunctionDecl;
}  // namespace clang

namespace isg::detail {

struct Builtin;
class DivergenceCheck;
class Editor;

// One function's exchanging calls: builtins that need every member (DivergenceCheck's rule), and
// calls of the program's functions that reach one (`helpers`; `opaque`: those whose code is
// another object's, which cannot take a mask).
struct KernelExchanges {
  const clang::FunctionDecl* kernel = nullptr;  // a kernel or a helper function
  std::map<const clang::CallExpr*, const Builtin*> builtins;
  std::set<const clang::CallExpr*> helpers;
  std::set<const clang::CallExpr*> opaque;
  // Buffer block IO among `builtins` whose members may pass different pointers, in flow that
  // only some sub-groups take (local, the khr test double): only member 0's pointer is taken
  // out of the statement (`__isg_first_member_rd/_wr`, an exchange every work-item runs, those
  // outside giving a null pointer nobody reads); the call stays under its predicate.
  std::set<const clang::CallExpr*> pointerOnly;
  bool masked = false;  // the function runs under its caller's execution mask
};

// What the walk of one function found: the helper calls it moved before their statement, each
// given its predicate as the callee's mask (so their callees must take one).
struct MaskedCalls {
  std::set<const clang::CallExpr*> hoisted;
  std::set<const clang::FunctionDecl*> callees;  // canonical declarations
};

// Adds to `ed` the edits that give `k`'s exchanges in divergent control flow every member, or,
// where the function has a shape the rewrite cannot express, none, with an error (`refuse`,
// ISG_REFUSE_DIVERGENT) or a warning that says where and why. `ed` null: a trial that only
// fills `masks` (the callers' walk decides which helpers take a mask: AnalysisConsumer).
enum class Predication { NotNeeded, Rewritten, Refused };
Predication predicateKernel(clang::ASTContext& ctx, DivergenceCheck& check, const KernelExchanges& k, Editor* ed,
                            bool refuse, MaskedCalls* masks);

// The execution mask's parameter, as the function's code names it.
inline constexpr const char* kMaskParam = "__isg_m";

}  // namespace isg::detail
