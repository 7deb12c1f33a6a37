// SPDX-License-Identifier: MIT
#include "source/predication.h"

#include <algorithm>
#include <optional>
#include <tuple>
#include <unordered_map>
#include <string_view>

#include <clang/AST/ASTContext.h>
#include <clang/AST/Decl.h>
#include <clang/AST/Expr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/StringExtras.h>

#include "source/divergence.h"
#include "source/editor.h"
#include "source/statement_text.h"
#include "common/llvm_compat.h"
#include "common/table.h"

namespace isg::detail {

namespace {

using clang::SourceLocation;

// Why a kernel keeps its control flow: thrown out of the walk, reported as a warning.
struct Refusal {
  SourceLocation at;
  std::string why;
};

// A statement that leaves the construct around it: `return` anywhere, `break` / `continue` not
// inside a loop or switch of its own.
class Escapes : public clang::RecursiveASTVisitor<Escapes> {
 public:
  bool TraverseForStmt(clang::ForStmt* s) { return nested(s); }
  bool TraverseWhileStmt(clang::WhileStmt* s) { return nested(s); }
  bool TraverseDoStmt(clang::DoStmt* s) { return nested(s); }
  bool TraverseSwitchStmt(clang::SwitchStmt* s) { return nested(s, false); }
  bool VisitReturnStmt(clang::ReturnStmt* s) { return ignored(s) ? true : found(s); }
  bool VisitBreakStmt(clang::BreakStmt* s) { return depth_ || switches_ || ignored(s) ? true : found(s); }
  bool VisitContinueStmt(clang::ContinueStmt* s) { return depth_ || ignored(s) ? true : found(s); }
  bool VisitGotoStmt(clang::GotoStmt* s) { return found(s); }
  bool VisitLabelStmt(clang::LabelStmt* s) { return found(s); }

  const clang::Stmt* first = nullptr;
  const std::map<const clang::Stmt*, std::string>* handled = nullptr;  // jumps the rewrite replaces

 private:
  bool ignored(const clang::Stmt* s) const { return handled && handled->count(s); }
  // A switch holds its breaks, not the continues of the loop around it.
  template <class Loop>
  bool nested(Loop* s, bool loop = true) {
    ++(loop ? depth_ : switches_);
    const bool r = clang::RecursiveASTVisitor<Escapes>::WalkUpFromStmt(s) &&
                   std::all_of(s->child_begin(), s->child_end(), [&](clang::Stmt* c) { return TraverseStmt(c); });
    --(loop ? depth_ : switches_);
    return r;
  }
  bool found(const clang::Stmt* s) {
    if (!first) first = s;
    return false;
  }
  int depth_ = 0, switches_ = 0;
};

const clang::Stmt* escapeIn(const clang::Stmt* s, const std::map<const clang::Stmt*, std::string>* handled = nullptr) {
  Escapes e;
  e.handled = handled;
  e.TraverseStmt(const_cast<clang::Stmt*>(s));
  return e.first;
}

// Every break and continue inside `s`, at any depth.
class Jumps : public clang::RecursiveASTVisitor<Jumps> {
 public:
  bool VisitBreakStmt(clang::BreakStmt* s) { return found.push_back(s), true; }
  bool VisitContinueStmt(clang::ContinueStmt* s) { return found.push_back(s), true; }
  bool VisitReturnStmt(clang::ReturnStmt* s) { return found.push_back(s), true; }
  std::vector<const clang::Stmt*> found;
};

class Rewrite {
 public:
  Rewrite(clang::ASTContext& ctx, DivergenceCheck& check, const KernelExchanges& k)
      : ctx_(ctx), sm_(ctx.getSourceManager()), lo_(ctx.getLangOpts()), check_(check), k_(k),
        file_(sm_.getFileID(sm_.getExpansionLoc(k.kernel->getLocation()))), text_(sm_, lo_, file_) {
    for (const auto& [call, b] : k.builtins) markHot(call);
    for (const clang::CallExpr* call : k.helpers) markHot(call);
    for (const clang::CallExpr* call : k.opaque) markHot(call);
  }

  void run() {
    const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(k_.kernel->getBody());
    if (!body) return;
    // A return that only some work-items take before an exchange clears the work-item's run
    // flag (and the flags of the loops it leaves) instead; what follows runs under the flag. A
    // function's value waits in a variable for its end, where every work-item leaves together.
    Jumps jumps;
    jumps.TraverseStmt(const_cast<clang::CompoundStmt*>(body));
    const clang::QualType ret = k_.kernel->getReturnType();
    const bool early = std::any_of(jumps.found.begin(), jumps.found.end(), [&](const clang::Stmt* j) {
      return llvm::isa<clang::ReturnStmt>(j) && (body->body_empty() || j != body->body_back());
    });
    for (const clang::Stmt* j : jumps.found)
      if (const auto* r = llvm::dyn_cast<clang::ReturnStmt>(j); r && (!r->getRetValue() || early))
        handled_[r] = "";  // its text: returnText(), where it is replaced
    kernelBody_ = body;
    // Flow a goto takes is not structured: the walk cannot give every work-item its path.
    for (const clang::Stmt* g : check_.gotosOf(k_.kernel))
      if (check_.guardOf(k_.kernel, g)) refuse(g->getBeginLoc(), "a goto that only some work-items take");
    block(body, k_.masked ? kMaskParam : "", false);
    // A masked function's returns are its mask's: the work-items outside leave at its end.
    const unsigned end = bytesOr(body->getRBracLoc(), body->getRBracLoc(), "the function's '}'").first;
    if (valueDeclared_)
      insert(end, std::string(" return ") + kValue + "; ");
    else if (k_.masked && !ret->isVoidType())
      insert(end, " return (" + typeText(ret, k_.kernel->getLocation()) + ")0; ");
  }
  MaskedCalls masks;
  clang::FileID file() const { return file_; }

  struct Edit {
    unsigned offset, length;
    std::string text;
  };
  std::vector<Edit> edits;

 private:
  // ---- where the exchanges are ---------------------------------------------------------------
  void markHot(const clang::Stmt* s) {
    for (; s; s = parentOf(s)) hot_.insert(s);
  }
  // The divergence check's index of the kernel's body, which its questions have built already.
  const clang::Stmt* parentOf(const clang::Stmt* s) const { return check_.parentOf(k_.kernel, s); }
  bool hot(const clang::Stmt* s) const { return hot_.count(s) != 0; }
  // Whether a work-group function (builtins.def, work_group) is called inside `s`.
  bool reachesWorkGroupFunction(const clang::Stmt* s) const {
    const clang::SourceRange r = s->getSourceRange();
    for (const auto& [call, b] : k_.builtins) {
      if (!b->workGroup) continue;
      const SourceLocation at = sm_.getExpansionLoc(call->getBeginLoc());
      if (!sm_.isBeforeInTranslationUnit(at, sm_.getExpansionLoc(r.getBegin())) &&
          !sm_.isBeforeInTranslationUnit(sm_.getExpansionLoc(r.getEnd()), at))
        return true;
    }
    return false;
  }

  // ---- text --------------------------------------------------------------------------------
  [[noreturn]] void refuse(SourceLocation at, const std::string& why) const { throw Refusal{at, why}; }

  // The program's own bytes of `r` (tokens included): one range of the main file, or none.
  std::optional<std::pair<unsigned, unsigned>> bytes(clang::SourceRange r) const { return text_.bytes(r); }
  std::pair<unsigned, unsigned> bytesOr(clang::SourceRange r, SourceLocation at, const char* what) const {
    auto b = bytes(r);
    if (!b) refuse(at, std::string(what) + " is spelled inside a macro or a header");
    return *b;
  }
  std::string_view text(unsigned b, unsigned e) const { return text_.text(b, e); }
  // Text copied to another place of the line: one line, and no comment that would swallow the rest.
  std::string flat(unsigned b, unsigned e, SourceLocation at) const {
    std::string t(text(b, e));
    if (t.find("//") != std::string::npos || t.find("/*") != std::string::npos || t.find('#') != std::string::npos)
      refuse(at, "the text to repeat holds a comment or a preprocessor directive");
    for (char& c : t)
      if (c == '\n' || c == '\r') c = ' ';
    return t;
  }
  static std::string newlinesOf(std::string_view t) {
    return std::string(static_cast<size_t>(std::count(t.begin(), t.end(), '\n')), '\n');
  }
  void insert(unsigned at, std::string t) { edits.push_back({at, 0, std::move(t)}); }
  // Replaces bytes [b, e) with `t`, keeping their line breaks (the line map needs every line).
  void replace(unsigned b, unsigned e, std::string t) { edits.push_back({b, e - b, t + newlinesOf(text(b, e))}); }

  // Where text may go before statement `s`. A loop hint written as a `#pragma` line must stay
  // alone on its line, right before its loop: where the rewrite puts text before such a loop,
  // the hint's line is blanked (a hint, not a meaning) and the text goes before the loop itself.
  unsigned insertionPoint(const clang::Stmt* s) {
    const unsigned b = bytesOr(s->getSourceRange(), s->getBeginLoc(), "the statement").first;
    const auto* a = llvm::dyn_cast<clang::AttributedStmt>(s);
    const std::string_view all = text_.all();
    if (!a || b >= all.size() || all[b] != '#') return b;
    std::size_t e = all.find('\n', b);
    if (e == std::string_view::npos) e = all.size();
    if (e > b && all[e - 1] == '\\') refuse(s->getBeginLoc(), "a pragma line continued on the next");
    if (blankedPragmas_.insert(b).second) replace(b, unsigned(e), std::string(e - b, ' '));
    return insertionPoint(a->getSubStmt());
  }

  // Where a statement's text ends: after its ';' or its '}'.
  unsigned stmtEnd(const clang::Stmt* s) const {
    bytesOr(s->getSourceRange(), s->getBeginLoc(), "the statement");
    if (auto e = text_.end(s)) return *e;
    refuse(s->getBeginLoc(), "the end of the statement is not where the rewrite can find it");
  }

  std::string typeText(clang::QualType t, SourceLocation at) const {
    t = t.getUnqualifiedType();
    if (t->isPointerType() || t->isBuiltinType() || t->isExtVectorType() || t->isEnumeralType()) {
      clang::PrintingPolicy policy(lo_);
      std::string s = t.getAsString(policy);
      if (s.find("__attribute__") == std::string::npos && s.find('(') == std::string::npos) return s;
      if (const auto* v = t->getAs<clang::ExtVectorType>())
        return v->getElementType().getUnqualifiedType().getAsString(policy) + std::to_string(v->getNumElements());
    }
    refuse(at, "a value of type '" + t.getAsString() + "' cannot be given to the work-items outside");
  }

  // Whether every work-item may evaluate `e` whatever branch it took: values it holds and
  // arithmetic on them, no memory, no division, no call but the work-item queries. `again`: `e`
  // is one the work-item evaluates anyway (a side's condition), now once more, earlier: it must
  // only have no effects (memory, division and pure builtins allowed).
  bool safe(const clang::Expr* e, bool again = false) const {
    e = e->IgnoreParens();
    auto sub = [&](const clang::Expr* x) { return safe(x, again); };
    if (llvm::isa<clang::IntegerLiteral, clang::FloatingLiteral, clang::CharacterLiteral, clang::ImplicitValueInitExpr>(e))
      return true;
    if (const auto* l = llvm::dyn_cast<clang::InitListExpr>(e))
      return std::all_of(l->begin(), l->end(), [&](const clang::Stmt* x) { return sub(llvm::cast<clang::Expr>(x)); });
    if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e)) {
      const auto* v = llvm::dyn_cast<clang::VarDecl>(r->getDecl());
      return (v && (again || (v->hasLocalStorage() && !v->getType()->isArrayType()))) ||
             llvm::isa<clang::EnumConstantDecl>(r->getDecl());
    }
    if (const auto* c = llvm::dyn_cast<clang::CastExpr>(e)) return sub(c->getSubExpr());
    if (const auto* v = llvm::dyn_cast<clang::ExtVectorElementExpr>(e)) return sub(v->getBase());
    if (const auto* m = llvm::dyn_cast<clang::MemberExpr>(e)) return (again || !m->isArrow()) && sub(m->getBase());
    if (const auto* a = llvm::dyn_cast<clang::ArraySubscriptExpr>(e))
      return (again && sub(a->getBase()) && sub(a->getIdx())) || privateElement(a);
    if (const auto* u = llvm::dyn_cast<clang::UnaryOperator>(e))
      return !u->isIncrementDecrementOp() &&
             (again || (u->getOpcode() != clang::UO_Deref && u->getOpcode() != clang::UO_AddrOf)) && sub(u->getSubExpr());
    if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(e))
      return !b->isAssignmentOp() && b->getOpcode() != clang::BO_Comma &&
             (again || (b->getOpcode() != clang::BO_Div && b->getOpcode() != clang::BO_Rem) || nonZeroConstant(b->getRHS())) &&
             sub(b->getLHS()) && sub(b->getRHS());
    if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(e))
      return sub(c->getCond()) && sub(c->getTrueExpr()) && sub(c->getFalseExpr());
    if (const auto* c = llvm::dyn_cast<clang::CallExpr>(e)) {
      const clang::FunctionDecl* f = c->getDirectCallee();
      if (!f || !f->getIdentifier()) return false;
      static const char* const kQueries[] = {"get_local_id", "get_global_id", "get_group_id", "get_local_size",
                                             "get_global_size", "get_num_groups", "get_sub_group_local_id",
                                             "get_sub_group_id", "get_sub_group_size", "get_max_sub_group_size",
                                             "get_num_sub_groups", "get_local_linear_id", "get_global_linear_id"};
      static const char* const kPure[] = {"min", "max", "clamp", "abs", "fabs", "fmin", "fmax", "select", "isnan",
                                          "isinf", "isfinite", "any", "all"};
      const llvm::StringRef n = f->getName();
      auto named = [&](const auto& list) { return std::any_of(std::begin(list), std::end(list), [&](const char* q) { return n == q; }); };
      if (!named(kQueries) && !(again && (named(kPure) || startsWith(n, "convert_") || startsWith(n, "as_")))) return false;
      return std::all_of(c->arg_begin(), c->arg_end(), [&](const clang::Expr* a) { return sub(a); });
    }
    return false;
  }

  // A divisor that cannot trap: an integer constant other than 0 (and -1, whose quotient of the
  // smallest integer overflows).
  bool nonZeroConstant(const clang::Expr* e) const {
    clang::Expr::EvalResult r;
    if (!e->isValueDependent() && e->EvaluateAsInt(r, ctx_)) return r.Val.getInt() != 0 && r.Val.getInt() != -1;
    return false;
  }

  // An element of the function's own array (registers on Intel's GPU, which the work-items that
  // skipped the branch still hold: OpenVINO's fully connected kernels shuffle `input_val[k]` under
  // `lane < 8 ? .. : ..`) at an index every work-item of the sub-group computes alike, so in
  // bounds wherever one work-item runs the branch.
  bool privateElement(const clang::ArraySubscriptExpr* a) const {
    const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(a->getBase()->IgnoreParenImpCasts());
    const auto* v = r ? llvm::dyn_cast<clang::VarDecl>(r->getDecl()) : nullptr;
    if (!v || !v->hasLocalStorage() || !ctx_.getAsConstantArrayType(v->getType()) ||
        v->getType().getAddressSpace() == clang::LangAS::opencl_local)
      return false;
    return safe(a->getIdx()) && !check_.dependsOnWorkItem(k_.kernel, a->getIdx());
  }

  // The bytes of argument `i` of `call`: from its first token to the comma before the next one
  // or the call's ')' (Clang ends some expressions early, a vector literal's among them).
  std::pair<unsigned, unsigned> argumentBytes(const clang::CallExpr* call, unsigned i) const {
    const SourceLocation at = call->getBeginLoc();
    const unsigned b = bytesOr(call->getArg(i)->getSourceRange(), at, "an argument of the exchange").first;
    unsigned e = i + 1 < call->getNumArgs()
                     ? bytesOr(call->getArg(i + 1)->getSourceRange(), at, "an argument of the exchange").first
                     : bytesOr(clang::SourceRange(call->getRParenLoc(), call->getRParenLoc()), at, "the call's ')'").first;
    const std::string_view all = text_.all();
    if (i + 1 < call->getNumArgs()) {
      while (e > b && all[e - 1] != ',') --e;
      if (e == b) refuse(at, "the arguments of the exchange are not where the rewrite can find them");
      --e;
    }
    while (e > b && (all[e - 1] == ' ' || all[e - 1] == '\t' || all[e - 1] == '\n' || all[e - 1] == '\r')) --e;
    return {b, e};
  }

  // What a work-item outside gives the exchange for argument `i` of `call`.
  std::string argumentText(const clang::CallExpr* call, const Builtin& b, unsigned i, const std::string& pred) const {
    const clang::Expr* a = call->getArg(i);
    auto [ab, ae] = argumentBytes(call, i);
    const std::string own = flat(ab, ae, call->getBeginLoc());
    const std::string name = b.name;
    auto with = [&](const std::string& outside) { return "(" + pred + ") ? (" + own + ") : (" + outside + ")"; };
    // shuffle_down/up(cur, next, delta); a work-group broadcast's other arguments are local ids.
    const bool data = i == 0 || (i == 1 && call->getNumArgs() == 3 && !b.workGroup);
    // The work-group functions (builtins.def, work_group) take the rules of their sub-group
    // namesakes: the work-items outside give a reduction or scan its identity and a vote its
    // neutral answer, so those that reach the call combine alone.
    const Collective wg = collectiveOf(name);
    const std::string kind = !b.workGroup                          ? b.family
                             : wg.kind == Collective::Reduce    ? "reduce"
                             : wg.kind == Collective::Broadcast ? "broadcast"
                             : wg.kind == Collective::Vote      ? "vote"
                                                                : "scan";
    if (kind == "reduce" || kind == "scan") return with(identity(name, a->getType(), call->getBeginLoc()));
    if (kind == "vote") return with(wg.op == "all" ? "1" : "0");
    if (kind == "barrier") return own;
    if ((kind == "shuffle" || kind == "broadcast") && data)
      return safe(a) ? own : with("(" + typeText(a->getType(), call->getBeginLoc()) + ")0");
    if (kind == "shuffle" || kind == "broadcast") return safe(a) ? own : with("0u");
    refuse(call->getBeginLoc(), "'" + name + "' has no rule for the work-items outside");
  }

  // What a work-item outside gives argument `i` of a helper that takes a mask: its own value
  // where it holds it, else 0 (the helper runs nothing of it under the mask).
  std::string helperArgumentText(const clang::CallExpr* call, unsigned i, const std::string& pred) const {
    const clang::Expr* a = call->getArg(i);
    auto [ab, ae] = argumentBytes(call, i);
    const std::string own = flat(ab, ae, call->getBeginLoc());
    if (safe(a)) return own;
    return "(" + pred + ") ? (" + own + ") : (" + typeText(a->getType(), call->getBeginLoc()) + ")0";
  }

  // The identity of a reduction or scan of `name` over values of type `t`.
  std::string identity(const std::string& name, clang::QualType t, SourceLocation at) const {
    const std::string type = typeText(t, at);
    const std::string op = collectiveOf(name).op;
    if (op == "add") return "(" + type + ")0";
    const bool min = op == "min";
    const auto* bt = t.getCanonicalType()->getAs<clang::BuiltinType>();
    if (!bt) refuse(at, "no identity for '" + name + "' over '" + type + "'");
    using K = clang::BuiltinType::Kind;
    switch (bt->getKind()) {
      case K::Int: return min ? "INT_MAX" : "INT_MIN";
      case K::UInt: return min ? "UINT_MAX" : "0u";
      case K::Long: return min ? "LONG_MAX" : "LONG_MIN";
      case K::ULong: return min ? "ULONG_MAX" : "0ul";
      case K::Short: return min ? "(short)SHRT_MAX" : "(short)SHRT_MIN";
      case K::UShort: return min ? "(ushort)USHRT_MAX" : "(ushort)0";
      case K::Char_S:
      case K::SChar: return min ? "(char)SCHAR_MAX" : "(char)SCHAR_MIN";
      case K::Char_U:
      case K::UChar: return min ? "(uchar)UCHAR_MAX" : "(uchar)0";
      case K::Float: return min ? "INFINITY" : "-INFINITY";
      case K::Double: return min ? "(double)INFINITY" : "-(double)INFINITY";
      case K::Half: return min ? "(half)INFINITY" : "-(half)INFINITY";
      default: refuse(at, "no identity for '" + name + "' over '" + type + "'");
    }
  }

  // ---- the walk -----------------------------------------------------------------------------
  static std::string both(const std::string& a, const std::string& b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    return "(" + a + ") && " + b;
  }
  std::string fresh(const char* stem) { return std::string("__isg_") + stem + std::to_string(next_++); }
  bool divergent(const clang::Expr* cond) const { return check_.dependsOnWorkItem(k_.kernel, cond); }

  // `later`: an exchange follows the block (in a block around it, or the next iteration of a loop
  // around it), which a work-item that leaves early would miss.
  void block(const clang::CompoundStmt* b, std::string pred, bool later) {
    const bool top = b == k_.kernel->getBody();
    for (auto it = b->body_begin(); it != b->body_end(); ++it) {
      const clang::Stmt* s = *it;
      // An early return that part of the work-items takes, before an exchange: they stay, without
      // effects, as `live` false (in the kernel's own block: deeper, they would also have to
      // skip what follows the blocks around it).
      if (const auto* i = llvm::dyn_cast<clang::IfStmt>(s); i && top && !hot(s) && anyHotAfter(it, b)) {
        if (const clang::ReturnStmt* r = earlyReturn(i); r && (divergent(i->getCond()) || !pred.empty())) {
          const std::string live = fresh("live");
          const unsigned sb = bytesOr(s->getSourceRange(), s->getBeginLoc(), "the early return").first;
          auto [rb, re] = bytesOr(clang::SourceRange(r->getReturnLoc(), r->getReturnLoc()), r->getReturnLoc(), "the return");
          insert(sb, "bool " + live + " = true; " + (pred.empty() ? "" : "if (" + pred + ") { "));
          replace(rb, re, live + " = false");
          if (!pred.empty()) insert(stmtEnd(s), " }");
          pred = both(pred, live);
          continue;
        }
      }
      // Any other way out that only some work-items take, before an exchange.
      const bool after = later || anyHotAfter(it, b);
      if (!hot(s) && after)
        if (const clang::Stmt* e = escapeIn(s, &handled_); e && (!pred.empty() || check_.guardOf(k_.kernel, e)))
          refuseEscape(e);
      const unsigned before = returnsReplaced_;
      statement(s, pred, after);
      if (returnsReplaced_ != before && pred.find(kRun) == std::string::npos) pred = both(pred, kRun);
    }
  }

  [[noreturn]] void refuseEscape(const clang::Stmt* e) const {
    refuse(e->getBeginLoc(), llvm::isa<clang::GotoStmt, clang::LabelStmt>(e)
                                 ? "a goto or label where only some work-items run, before an exchange"
                                 : "a return, break or continue that only some work-items take, before an exchange");
  }
  static constexpr const char* kRun = "__isg_run";
  static constexpr const char* kValue = "__isg_value";
  // The function's value, declared once at its first statement, for the returns the rewrite
  // replaces.
  std::string value() {
    if (!valueDeclared_) {
      valueDeclared_ = true;
      const std::string t = typeText(k_.kernel->getReturnType(), k_.kernel->getLocation());
      insert(insertionPoint(kernelBody_->body_front()), t + " " + kValue + " = (" + t + ")0; ");
    }
    return kValue;
  }
  // Whether `s` holds a return that only some work-items take (those all take stay returns).
  bool holdsReturn(const clang::Stmt* s) const {
    Jumps j;
    j.TraverseStmt(const_cast<clang::Stmt*>(s));
    return std::any_of(j.found.begin(), j.found.end(), [&](const clang::Stmt* x) {
      return llvm::isa<clang::ReturnStmt>(x) && handled_.count(x) && check_.guardOf(k_.kernel, x);
    });
  }
  // What a return before an exchange becomes: the work-item stops running (declared once, at the
  // kernel's first statement) and leaves every lowered loop around it.
  std::string returnText() {
    if (returnsReplaced_++ == 0 && !kernelBody_->body_empty())
      insert(insertionPoint(kernelBody_->body_front()), std::string("bool ") + kRun + " = true; ");
    std::string t = std::string(kRun) + " = false;";
    for (const std::string& f : loopFlags_) t += " " + f + " = false;";
    return t;
  }
  bool anyHotAfter(clang::CompoundStmt::const_body_iterator it, const clang::CompoundStmt* b) const {
    for (++it; it != b->body_end(); ++it)
      if (hot(*it)) return true;
    return false;
  }
  // `if (c) return;` or `if (c) { ...; return; }` with no other way out and no else.
  const clang::ReturnStmt* earlyReturn(const clang::IfStmt* i) const {
    if (i->getElse()) return nullptr;
    const clang::Stmt* t = i->getThen();
    if (const auto* c = llvm::dyn_cast<clang::CompoundStmt>(t)) {
      if (c->body_empty()) return nullptr;
      const auto* r = llvm::dyn_cast<clang::ReturnStmt>(c->body_back());
      if (!r || r->getRetValue()) return nullptr;
      for (const clang::Stmt* s : c->body())
        if (s != r && escapeIn(s)) return nullptr;
      return r;
    }
    const auto* r = llvm::dyn_cast<clang::ReturnStmt>(t);
    return r && !r->getRetValue() ? r : nullptr;
  }

  void statement(const clang::Stmt* s, const std::string& pred, bool later) {
    if (!hot(s)) {
      if (!pred.empty() || (later && holdsReturn(s))) guard(s, pred, later);
      return;
    }
    if (const auto* c = llvm::dyn_cast<clang::CompoundStmt>(s)) return block(c, pred, later);
    // A loop hint (`#pragma unroll`): the loop as it is, if every work-item runs it alike.
    if (const auto* a = llvm::dyn_cast<clang::AttributedStmt>(s)) {
      const clang::Stmt* inner = a->getSubStmt();
      hot_.insert(inner);
      attributed_.insert(inner);
      return statement(inner, pred, later);
    }
    if (const auto* i = llvm::dyn_cast<clang::IfStmt>(s)) return branch(i, pred, later);
    if (llvm::isa<clang::ForStmt, clang::WhileStmt, clang::DoStmt>(s)) return loop(s, pred);
    if (llvm::isa<clang::DeclStmt, clang::Expr, clang::ReturnStmt>(s)) return leaf(s, pred, later);
    if (const auto* sw = llvm::dyn_cast<clang::SwitchStmt>(s)) return switchCases(sw, pred);
    refuse(s->getBeginLoc(), "an exchange inside this kind of statement");
  }

  // A branch's or loop's statement: in braces of its own, since the rewrite may put statements
  // before it.
  void body(const clang::Stmt* s, const std::string& pred, bool later) {
    if (llvm::isa<clang::CompoundStmt>(s) || (!hot(s) && pred.empty())) return statement(s, pred, later);
    insert(insertionPoint(s), "{ ");
    statement(s, pred, later);
    insert(stmtEnd(s), " }");
  }

  // Where the initializer that begins at `b` ends: before the ',' or ';' that closes its
  // declarator. Clang's range of an expression may end early (a vector literal `(float4)(0.0f)`
  // ends at its last operand), so the text is read, brackets counted.
  unsigned initializerEnd(unsigned b, SourceLocation at) const {
    const std::string_view all = text_.all();
    int depth = 0;
    unsigned e = b;
    for (; e < all.size(); ++e) {
      const char ch = all[e];
      if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if (ch == ')' || ch == ']' || ch == '}') --depth;
      else if (ch == '"' || ch == '\'' || ch == '#' || (ch == '/' && e + 1 < all.size() && (all[e + 1] == '/' || all[e + 1] == '*')))
        refuse(at, "the initializer holds a literal, a comment or a directive the rewrite does not read");
      if (depth < 0 || (depth == 0 && (ch == ',' || ch == ';'))) break;
    }
    if (depth != 0 || e == all.size()) refuse(at, "the end of the initializer is not where the rewrite can find it");
    while (e > b && (all[e - 1] == ' ' || all[e - 1] == '\t' || all[e - 1] == '\n' || all[e - 1] == '\r')) --e;
    return e;
  }

  // A statement without exchanges that only the work-items of `pred` run; `later` as block's.
  void guard(const clang::Stmt* s, const std::string& pred, bool later) {
    if (llvm::isa<clang::NullStmt>(s)) return;
    if (const clang::Stmt* e = escapeIn(s, &handled_); e && later)
      refuseEscape(e);
    if (const auto* d = llvm::dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* decl : d->decls()) {
        const auto* v = llvm::dyn_cast<clang::VarDecl>(decl);
        if (!v) continue;
        const clang::Expr* init = v->getInit();
        if (!init) continue;
        // An aggregate whose initializer every work-item may evaluate is initialized by all of
        // them as written (only those of `pred` read it); another cannot be given a default.
        if (v->getType()->isArrayType() || v->getType()->isRecordType() || llvm::isa<clang::InitListExpr>(init)) {
          if (!safe(init)) refuse(v->getLocation(), "an aggregate declared where only some work-items run, its initializer reading memory or calling");
          continue;
        }
        const unsigned ib = bytesOr(init->getSourceRange(), v->getLocation(), "the initializer").first;
        const unsigned ie = initializerEnd(ib, v->getLocation());
        insert(ib, "(" + pred + ") ? (");
        insert(ie, ") : (" + typeText(v->getType(), v->getLocation()) + ")0");
      }
      return;
    }
    // A break or continue of a loop the rewrite runs for every work-item (loop()) clears the
    // work-item's flags and leaves the statement, whose end the jump names.
    std::string label;
    Jumps jumps;
    jumps.TraverseStmt(const_cast<clang::Stmt*>(s));
    for (const clang::Stmt* j : jumps.found) {
      if (llvm::isa<clang::ReturnStmt>(j) && !later) continue;  // no exchange follows: it stays
      auto h = handled_.find(j);
      if (h == handled_.end()) continue;
      if (label.empty()) label = fresh("skip");
      auto [jb, je] = bytesOr(clang::SourceRange(j->getBeginLoc(), j->getBeginLoc()), j->getBeginLoc(), "the jump");
      const std::string clears = llvm::isa<clang::ReturnStmt>(j) ? returnText() : h->second;
      if (const auto* r = llvm::dyn_cast<clang::ReturnStmt>(j); r && r->getRetValue()) {
        // `return e;`: `do { value = (e); <flags> goto skip; } while (0);`
        const unsigned vb = bytesOr(r->getRetValue()->getSourceRange(), r->getBeginLoc(), "the returned value").first;
        const unsigned ve = stmtEnd(r) - 1;
        replace(jb, vb, "do { " + value() + " = (");
        insert(ve, "); " + clears + " goto " + label + "; } while (0)");
        continue;
      }
      replace(jb, je, "do { " + clears + " goto " + label + "; } while (0)");
    }
    insert(insertionPoint(s), "if (" + (pred.empty() ? std::string("1") : pred) + ") { ");
    insert(stmtEnd(s), label.empty() ? " }" : " " + label + ": ; }");
  }

  const clang::Stmt* jumpTarget(const clang::Stmt* j) const { return check_.jumpTarget(k_.kernel, j); }

  void branch(const clang::IfStmt* i, const std::string& pred, bool later) {
    if (!divergent(i->getCond()) && pred.empty()) {
      statement(i->getThen(), pred, later);
      if (i->getElse()) statement(i->getElse(), pred, later);
      return;
    }
    const SourceLocation at = i->getBeginLoc();
    if (hot(i->getCond()) && !pred.empty()) refuse(at, "an exchange in the condition of a branch only some work-items reach");
    const std::string p = fresh("p"), q = fresh("q");
    const unsigned ib = bytesOr(i->getSourceRange(), at, "the if").first;
    const unsigned lp = bytesOr(clang::SourceRange(i->getLParenLoc(), i->getLParenLoc()), at, "the if's '('").first;
    const unsigned rp = bytesOr(clang::SourceRange(i->getRParenLoc(), i->getRParenLoc()), at, "the if's ')'").first;
    const unsigned tb = bytesOr(i->getThen()->getSourceRange(), at, "the branch").first;
    // `if (` ... `)`: the condition, once, into a flag every work-item computes.
    replace(ib, lp + 1, "{ const bool " + p + " = " + (pred.empty() ? "" : "(" + pred + ") && ") + "(");
    replace(rp, tb, ")" + std::string(i->getElse() ? "; const bool " + q + " = " + both(pred, "!" + p) : "") + "; ");
    // The else's exchanges come after the then's: a work-item leaving early from the then would
    // miss them.
    // A break or continue inside the branch clears the loop's flag after `p` was taken.
    body(i->getThen(), both(p, loopLive_), later || (i->getElse() && hot(i->getElse())));
    if (const clang::Stmt* e = i->getElse()) {
      auto [eb, ee] = bytesOr(clang::SourceRange(i->getElseLoc(), i->getElseLoc()), i->getElseLoc(), "the else");
      replace(eb, ee, std::string(ee - eb, ' '));
      body(e, both(q, loopLive_), later);
    }
    insert(stmtEnd(i), " }");
  }

  // A switch around exchanges. Where only some work-items take a case (the value decides per
  // work-item, only some reach the switch, or a jump in it is taken per work-item), every
  // work-item of the group walks every case in order: `f` says it is inside (it entered at its
  // label or fell through to here, and took no break since); break, continue and return clear it.
  void switchCases(const clang::SwitchStmt* sw, const std::string& pred) {
    const SourceLocation at = sw->getBeginLoc();
    const auto* c = llvm::dyn_cast<clang::CompoundStmt>(sw->getBody());
    if (!c) refuse(at, "a switch without braces");
    Jumps all;
    all.TraverseStmt(const_cast<clang::Stmt*>(sw->getBody()));
    const bool divergentJump = std::any_of(all.found.begin(), all.found.end(), [&](const clang::Stmt* j) {
      return (!llvm::isa<clang::BreakStmt>(j) || jumpTarget(j) == sw) && check_.guardOf(k_.kernel, j);
    });
    auto labelled = [](const clang::Stmt* s) {
      while (const auto* l = llvm::dyn_cast<clang::SwitchCase>(s)) s = l->getSubStmt();
      return s;
    };
    if (!divergent(sw->getCond()) && pred.empty() && !divergentJump) {
      for (const clang::Stmt* child : c->body()) statement(labelled(child), pred, true);
      return;
    }
    if (hot(sw->getCond())) refuse(at, "an exchange in the value of a switch that work-items take apart");
    // Every label where the walk finds it: in the switch's own braces.
    unsigned direct = 0, labels = 0;
    for (const clang::Stmt* child : c->body())
      for (const clang::Stmt* s = child; llvm::isa<clang::SwitchCase>(s); s = llvm::cast<clang::SwitchCase>(s)->getSubStmt())
        ++direct;
    for (const clang::SwitchCase* l = sw->getSwitchCaseList(); l; l = l->getNextSwitchCase()) ++labels;
    if (direct != labels) refuse(at, "a case label inside a statement of the switch");
    const clang::QualType type = sw->getCond()->getType();
    const std::string t = typeText(type, at), v = fresh("v"), f = fresh("f");
    auto constant = [&](const clang::Expr* e) {
      const llvm::APSInt x = e->EvaluateKnownConstInt(ctx_);
      return "(" + t + ")(" + llvm::toString(x, 10, x.isSigned()) + (x.isSigned() ? "L" : "UL") + ")";
    };
    auto matches = [&](const clang::CaseStmt* cs) {
      if (!cs->getRHS()) return "(" + v + " == " + constant(cs->getLHS()) + ")";
      return "(" + v + " >= " + constant(cs->getLHS()) + " && " + v + " <= " + constant(cs->getRHS()) + ")";
    };
    std::string anyCase;
    for (const clang::SwitchCase* l = sw->getSwitchCaseList(); l; l = l->getNextSwitchCase())
      if (const auto* cs = llvm::dyn_cast<clang::CaseStmt>(l)) anyCase += (anyCase.empty() ? "" : " || ") + matches(cs);
    const unsigned lp = bytesOr(clang::SourceRange(sw->getLParenLoc(), sw->getLParenLoc()), at, "the switch's '('").first;
    const unsigned rp = bytesOr(clang::SourceRange(sw->getRParenLoc(), sw->getRParenLoc()), at, "the switch's ')'").first;
    const std::string value = flat(lp + 1, rp, at);
    const unsigned sb = bytesOr(sw->getSourceRange(), at, "the switch").first;
    const unsigned lb = bytesOr(c->getLBracLoc(), at, "the switch's '{'").first;
    replace(sb, lb + 1, "{ const " + t + " " + v + " = " +
                            (pred.empty() ? "(" + value + ")" : "(" + pred + ") ? (" + value + ") : (" + t + ")0") +
                            "; bool " + f + " = false;");
    for (const clang::Stmt* j : all.found) {
      if (llvm::isa<clang::BreakStmt>(j) && jumpTarget(j) == sw) handled_[j] = f + " = false;";
      else if (llvm::isa<clang::ContinueStmt>(j) && handled_.count(j)) handled_[j] += " " + f + " = false;";
    }
    const std::string outer = loopLive_;
    loopLive_ = f;
    loopFlags_.push_back(f);
    for (const clang::Stmt* child : c->body()) {
      const clang::Stmt* s = labelled(child);
      if (s != child) {
        std::string enters;
        for (const clang::Stmt* l = child; l != s; l = llvm::cast<clang::SwitchCase>(l)->getSubStmt())
          enters += (enters.empty() ? "" : " || ") +
                    (llvm::isa<clang::DefaultStmt>(l) ? (anyCase.empty() ? std::string("1") : "!(" + anyCase + ")")
                                                       : matches(llvm::cast<clang::CaseStmt>(l)));
        if (llvm::isa<clang::AttributedStmt>(s)) refuse(s->getBeginLoc(), "a statement with a pragma right after a case label");
        const unsigned b = bytesOr(child->getSourceRange(), child->getBeginLoc(), "the case label").first;
        const unsigned e = bytesOr(s->getSourceRange(), s->getBeginLoc(), "the case's statement").first;
        replace(b, e, f + " = " + f + " || (" + both(pred, "(" + enters + ")") + "); ");
      }
      statement(s, f, true);
    }
    loopLive_ = outer;
    loopFlags_.pop_back();
  }

  // Exchanges of the next iteration follow every statement of the body, whatever follows the loop.
  // A loop that work-items leave at different times (its condition, or a break or continue that
  // only some take) runs while any of them is in it: `k` says a work-item is, `kl` that it has
  // not yet taken a continue in this iteration; break and continue clear them.
  void loop(const clang::Stmt* s, const std::string& pred) {
    const auto* f = llvm::dyn_cast<clang::ForStmt>(s);
    const auto* w = llvm::dyn_cast<clang::WhileStmt>(s);
    const auto* d = llvm::dyn_cast<clang::DoStmt>(s);
    const clang::Expr* cond = f ? f->getCond() : w ? w->getCond() : d->getCond();
    const clang::Stmt* body = f ? f->getBody() : w ? w->getBody() : d->getBody();
    Jumps all;
    all.TraverseStmt(const_cast<clang::Stmt*>(body));
    std::vector<const clang::Stmt*> jumps;
    bool divergentJump = false, anyContinue = false;
    for (const clang::Stmt* j : all.found)
      if (llvm::isa<clang::ReturnStmt>(j)) {
        divergentJump = divergentJump || (handled_.count(j) && (!pred.empty() || check_.guardOf(k_.kernel, j)));
      } else if (jumpTarget(j) == s) {
        jumps.push_back(j);
        divergentJump = divergentJump || !pred.empty() || check_.guardOf(k_.kernel, j);
        anyContinue = anyContinue || llvm::isa<clang::ContinueStmt>(j);
      }
    if (!divergent(cond) && !divergentJump) {
      // Every work-item runs the loop alike; its body under the same predicate. The next
      // iteration's exchanges follow each statement of it.
      this->body(body, pred, true);
      return;
    }
    const auto* c = llvm::dyn_cast<clang::CompoundStmt>(body);
    if (d && !c) refuse(s->getBeginLoc(), "a do loop without braces");
    if (cond && hot(cond)) refuse(s->getBeginLoc(), "an exchange in the condition of a loop that work-items leave at different times");
    if ((f && f->getInit() && hot(f->getInit())) || (f && f->getInc() && hot(f->getInc())))
      refuse(s->getBeginLoc(), "an exchange in the start or step of a loop that work-items leave at different times");
    if (attributed_.count(s)) refuse(s->getBeginLoc(), "a loop with a pragma, which work-items leave at different times");
    // Such a loop goes on while a work-item of the exchange's group still runs it: a sub-group
    // on nvidia-ptx and khr, so sub-groups would leave it apart and miss each other's barriers.
    if (check_.subGroupScope() && reachesWorkGroupFunction(s))
      refuse(s->getBeginLoc(), "a work-group function in a loop that work-items leave at different times "
                               "(its sub-groups would leave it apart)");
    const std::string k = fresh("c");
    const std::string kl = anyContinue ? fresh("l") : std::string();
    for (const clang::Stmt* j : jumps)
      handled_[j] = llvm::isa<clang::BreakStmt>(j) ? k + " = false;" + (kl.empty() ? "" : " " + kl + " = false;")
                                                   : kl + " = false;";
    if (const clang::Stmt* e = escapeIn(body, &handled_))
      refuse(e->getBeginLoc(), "a return in a loop that work-items leave at different times");
    const unsigned sb = bytesOr(s->getSourceRange(), s->getBeginLoc(), "the loop").first;
    // A while's condition between its parentheses; a for's between its two ';'; a do's after
    // its `while (`.
    unsigned cb = 0, ce = 0;
    if (w) {
      cb = bytesOr(clang::SourceRange(w->getLParenLoc(), w->getLParenLoc()), s->getBeginLoc(), "the loop's '('").first + 1;
      ce = bytesOr(clang::SourceRange(w->getRParenLoc(), w->getRParenLoc()), s->getBeginLoc(), "the loop's ')'").first;
    } else if (d) {
      const unsigned wb = bytesOr(clang::SourceRange(d->getWhileLoc(), d->getWhileLoc()), s->getBeginLoc(), "the loop's while").first;
      ce = bytesOr(clang::SourceRange(d->getRParenLoc(), d->getRParenLoc()), s->getBeginLoc(), "the loop's ')'").first;
      const std::string_view all = text_.all();
      cb = wb + 5;
      while (cb < ce && all[cb] != '(') ++cb;
      if (cb == ce) refuse(s->getBeginLoc(), "the condition of the do loop is not where the rewrite can find it");
      ++cb;
    } else if (cond) {
      std::tie(cb, ce) = bytesOr(cond->getSourceRange(), s->getBeginLoc(), "the loop's condition");
    }
    const std::string condText = cond ? flat(cb, ce, s->getBeginLoc()) : "1";  // `for (;;)`
    std::string init, inc;
    if (f && f->getInit()) {
      auto [b, e] = bytesOr(f->getInit()->getSourceRange(), s->getBeginLoc(), "the loop's start");
      init = flat(b, e, s->getBeginLoc());
      if (init.empty() || init.back() != ';') init += ';';
      if (!pred.empty() && !llvm::isa<clang::DeclStmt>(f->getInit())) init = "if (" + pred + ") { " + init + " }";
    }
    if (f && f->getInc()) {
      auto [b, e] = bytesOr(f->getInc()->getSourceRange(), s->getBeginLoc(), "the loop's step");
      inc = flat(b, e, s->getBeginLoc());
    }
    // The body's own braces, or a pair the rewrite adds around a single statement.
    const unsigned open = c ? bytesOr(c->getLBracLoc(), s->getBeginLoc(), "the loop's brace").first
                            : bytesOr(body->getSourceRange(), s->getBeginLoc(), "the loop's body").first;
    const unsigned close = c ? bytesOr(c->getRBracLoc(), s->getBeginLoc(), "the loop's brace").first : stmtEnd(body);
    // A do loop's first iteration is every work-item's that reaches it.
    const std::string first = d ? (pred.empty() ? "true" : pred) : (pred.empty() ? "" : "(" + pred + ") && ") + "(" + condText + ")";
    replace(sb, open, "{ " + init + " bool " + k + " = " + first + "; while (__isg_flow_any(__isg_ctx, " + k + ")) " +
                          (c ? "" : "{ "));
    const std::string live = kl.empty() ? k : kl;
    if (!kl.empty()) insert(open + (c ? 1 : 0), " bool " + kl + " = " + k + "; ");
    const std::string outer = loopLive_;
    const bool anyReturn = std::any_of(all.found.begin(), all.found.end(),
                                       [](const clang::Stmt* j) { return llvm::isa<clang::ReturnStmt>(j); });
    loopLive_ = jumps.empty() && !anyReturn ? std::string() : live;
    loopFlags_.push_back(k);
    if (!kl.empty()) loopFlags_.push_back(kl);
    if (c) {
      for (const clang::Stmt* child : c->body()) statement(child, live, true);
    } else {
      statement(body, live, true);
    }
    loopLive_ = outer;
    loopFlags_.resize(loopFlags_.size() - (kl.empty() ? 1 : 2));
    insert(close, (f ? " if (" + k + ") { " + inc + "; " + k + " = (" + condText + "); } "
                     : " if (" + k + ") " + k + " = (" + condText + "); ") + (c ? "" : " }"));
    if (d) {
      replace(close + 1, stmtEnd(s), " }");
    } else {
      insert(stmtEnd(s), " }");
    }
  }

  // A declaration or expression statement holding exchanges, under `pred`. An exchange on one
  // side of ?:, && or || is taken by the work-items that evaluate that side: the condition of
  // the side joins its predicate (read twice, so it must be one every work-item may evaluate).
  void leaf(const clang::Stmt* s, const std::string& pred, bool later) {
    // The conditions on the way from `call` up to the statement, and whether one decides per
    // work-item.
    auto sides = [&](const clang::CallExpr* call, bool* divergentSide) {
      std::string side;
      for (const clang::Stmt* p = parentOf(call), *child = call; p && child != s; child = p, p = parentOf(p)) {
        const clang::Expr* cond = nullptr;
        bool negate = false;
        if (const auto* c = llvm::dyn_cast<clang::ConditionalOperator>(p); c && c->getCond() != child) {
          cond = c->getCond();
          negate = child == c->getFalseExpr();
        } else if (const auto* b = llvm::dyn_cast<clang::BinaryOperator>(p); b && b->isLogicalOp() && b->getRHS() == child) {
          cond = b->getLHS();
          negate = b->getOpcode() == clang::BO_LOr;
        }
        if (!cond) continue;
        *divergentSide = *divergentSide || divergent(cond);
        if (!safe(cond, true))
          refuse(call->getBeginLoc(), "an exchange on one side of ?:, && or || whose condition has effects");
        auto [b, e] = bytesOr(cond->getSourceRange(), call->getBeginLoc(), "the condition of the side");
        // Outermost first: each condition is read only where the ones around it hold, as written.
        const std::string mine = (negate ? "!(" : "(") + flat(b, e, call->getBeginLoc()) + ")";
        side = side.empty() ? mine : mine + " && " + side;
      }
      return side;
    };
    for (const clang::CallExpr* call : k_.opaque)
      if (within(call, s)) {
        bool divergentSide = false;
        sides(call, &divergentSide);
        if (!pred.empty() || divergentSide)
          refuse(call->getBeginLoc(), "a function of another object that exchanges, called where only some "
                                      "work-items run (its code cannot take an execution mask)");
      }
    // The exchanges to take out of the statement, in order, with their predicates: every one
    // under `pred`, else those on a side that decides per work-item. A helper that exchanges
    // goes with them, its predicate as its mask.
    std::vector<std::pair<const clang::CallExpr*, std::string>> calls;
    auto take = [&](const clang::CallExpr* call) {
      if (!within(call, s)) return;
      bool divergentSide = false;
      std::string side = sides(call, &divergentSide);
      if (pred.empty() && !divergentSide) return;
      calls.emplace_back(call, both(pred, side));
    };
    for (const auto& [call, b] : k_.builtins) take(call);
    for (const clang::CallExpr* call : k_.helpers) take(call);
    if (calls.empty()) return;
    const unsigned sb = bytesOr(s->getSourceRange(), s->getBeginLoc(), "the statement").first;
    std::sort(calls.begin(), calls.end(), [&](const auto& a, const auto& b) {
      return sm_.isBeforeInTranslationUnit(a.first->getBeginLoc(), b.first->getBeginLoc());
    });
    std::string hoisted;
    for (const auto& [call, callPred] : calls) {
      for (const clang::Stmt* p = parentOf(call); p && p != s; p = parentOf(p))
        if (const auto* outer = llvm::dyn_cast<clang::CallExpr>(p); outer && (k_.builtins.count(outer) || k_.helpers.count(outer)))
          refuse(call->getBeginLoc(), "an exchange inside the arguments of another");
      if (k_.pointerOnly.count(call)) {
        auto [ab, ae] = argumentBytes(call, 0);
        const std::string type = typeText(call->getArg(0)->getType(), call->getBeginLoc());
        const bool write = k_.builtins.at(call)->shape == Shape::BlockWrite;
        const std::string h = fresh("h");
        hoisted += type + " " + h + " = (" + type + ")" + (write ? "__isg_first_member_wr(" : "__isg_first_member_rd(") +
                   std::string(Editor::contextArgument()) + ", (" + callPred + ") ? (" + flat(ab, ae, call->getBeginLoc()) +
                   ") : 0); ";
        replace(ab, ae, h);
        continue;
      }
      auto [cb, ce] = bytesOr(call->getSourceRange(), call->getBeginLoc(), "the exchange");
      const auto* callee = call->getCallee()->IgnoreParenImpCasts();
      auto [nb, ne] = bytesOr(callee->getSourceRange(), call->getBeginLoc(), "the exchange's name");
      if (nb != cb) refuse(call->getBeginLoc(), "the exchange's name is not where its call begins");
      std::string args;
      if (auto b = k_.builtins.find(call); b != k_.builtins.end()) {
        for (unsigned i = 0; i < call->getNumArgs(); ++i) args += (i ? ", " : "") + argumentText(call, *b->second, i, callPred);
      } else {
        // The helper's context, then its mask, then what the work-items outside may compute.
        args = std::string(Editor::contextArgument()) + ", (" + callPred + ")";
        for (unsigned i = 0; i < call->getNumArgs(); ++i) args += ", " + helperArgumentText(call, i, callPred);
        masks.hoisted.insert(call);
        masks.callees.insert(call->getDirectCallee()->getCanonicalDecl());
      }
      const std::string h = fresh("h");
      const bool isVoid = call->getType()->isVoidType();
      hoisted += (isVoid ? "" : typeText(call->getType(), call->getBeginLoc()) + " " + h + " = ") +
                 std::string(text(nb, ne)) + "(" + args + "); ";
      replace(cb, ce, isVoid ? "(void)0" : h);
    }
    insert(sb, hoisted);
    if (!pred.empty()) guard(s, pred, later);  // its exchanges are out of it now
  }
  bool within(const clang::Stmt* inner, const clang::Stmt* outer) const {
    for (const clang::Stmt* p = inner; p; p = parentOf(p))
      if (p == outer) return true;
    return false;
  }

  clang::ASTContext& ctx_;
  const clang::SourceManager& sm_;
  const clang::LangOptions& lo_;
  DivergenceCheck& check_;
  const KernelExchanges& k_;
  const clang::FileID file_;  // the file that spells the function: the program's or a header
  const StatementText text_;
  std::set<const clang::Stmt*> hot_;
  std::map<const clang::Stmt*, std::string> handled_;  // break/continue -> the flags it clears
  std::set<const clang::Stmt*> attributed_;  // loops under a pragma
  std::set<unsigned> blankedPragmas_;
  std::vector<std::string> loopFlags_;  // the flags of the lowered loops around the walk
  const clang::CompoundStmt* kernelBody_ = nullptr;
  unsigned returnsReplaced_ = 0;
  bool valueDeclared_ = false;
  std::string loopLive_;  // the flag of the innermost lowered loop that a jump may clear
  unsigned next_ = 0;
};

}  // namespace

Predication predicateKernel(clang::ASTContext& ctx, DivergenceCheck& check, const KernelExchanges& k, Editor* edp,
                            bool refuse, MaskedCalls* masks) {
  if (!k.kernel || (k.builtins.empty() && k.helpers.empty() && k.opaque.empty())) return Predication::NotNeeded;
  // Most kernels reach every exchange together: nothing to walk.
  bool guarded = k.masked;
  for (const clang::CallExpr* call : k.opaque) guarded = guarded || check.guardOf(k.kernel, call);
  for (const auto& [call, b] : k.builtins) guarded = guarded || check.guardOf(k.kernel, call);
  for (const clang::CallExpr* call : k.helpers) guarded = guarded || check.guardOf(k.kernel, call);
  if (!guarded) return Predication::NotNeeded;
  auto report = [&](SourceLocation at, const std::string& why) {
    if (!edp) return Predication::Refused;
    Editor& ed = *edp;
    const std::string what = "an exchange here may be reached by only some work-items, and the layer cannot give the "
                             "others a part in it (" + why + ")";
    if (refuse)
      ed.error(at, what + ", so it refuses the kernel: its results would differ from Intel's (ISG_REFUSE_DIVERGENT=0 "
                          "builds it as written)");
    else
      ed.warning(at, what + "; results may differ from Intel's");
    return Predication::Refused;
  };
  Rewrite r(ctx, check, k);
  try {
    r.run();
  } catch (const Refusal& no) {
    return report(no.at, no.why);
  }
  if (r.edits.empty()) return Predication::NotNeeded;
  if (masks) {
    masks->hoisted.insert(r.masks.hoisted.begin(), r.masks.hoisted.end());
    masks->callees.insert(r.masks.callees.begin(), r.masks.callees.end());
  }
  if (!edp) return Predication::Rewritten;
  Editor& ed = *edp;
  // Every byte this rewrite replaces must be free of the other edits (a renamed builtin inside
  // a repeated condition, say): else the kernel keeps its flow. A helper call the rewrite moved
  // carries its context in the moved text: the context's own edit goes.
  const clang::SourceManager& sm = ctx.getSourceManager();
  std::set<std::pair<std::string, unsigned>> moved;
  for (const clang::CallExpr* call : r.masks.hoisted) {
    auto paren = ed.callParen(call);
    auto at = paren ? ed.leadingEdit(*paren) : std::nullopt;
    if (!at) return report(call->getBeginLoc(), "the call's sub-group context is not where the rewrite can move it");
    moved.insert(*at);
  }
  const SourceLocation start = sm.getLocForStartOfFile(r.file());
  const std::string file = ed.fileName(start);
  const auto movedAway = [&](const FileEdit& e) { return e.length == 0 && moved.count({e.file, e.offset}); };
  for (const Rewrite::Edit& mine : r.edits)
    if (ed.overlapsEdit(file, mine.offset, mine.length, /*beforeReplacement=*/false, movedAway))
      return report(sm.getComposedLoc(r.file(), mine.offset), "another rewrite changes the same text");
  // One edit per offset: the insertions there in the order they were made, then what replaces
  // the bytes from there (the Editor keeps one copy of equal edits, and the composer needs an
  // insertion before a replacement at the same place).
  std::stable_sort(r.edits.begin(), r.edits.end(), [](const Rewrite::Edit& a, const Rewrite::Edit& b) {
    return a.offset != b.offset ? a.offset < b.offset : (a.length == 0) > (b.length == 0);
  });
  std::vector<Rewrite::Edit> merged;
  for (const Rewrite::Edit& e : r.edits) {
    if (!merged.empty() && merged.back().offset == e.offset && merged.back().length == 0) {
      merged.back().text += e.text;
      merged.back().length = e.length;
    } else {
      merged.push_back(e);
    }
  }
  ed.edits.erase(std::remove_if(ed.edits.begin(), ed.edits.end(), movedAway), ed.edits.end());
  for (const Rewrite::Edit& e : merged)
    ed.add(start, e.offset, e.length, e.text, k.kernel->getLocation(),
           "the control flow around the exchanges of kernel '" + k.kernel->getNameAsString() + "'");
  return Predication::Rewritten;
}

}  // namespace isg::detail
