// SPDX-License-Identifier: MIT
// The source analysis' phases (analysis_consumer.h), all but those of images and media IO
// (image_edits.cpp).
#include "source/analysis_consumer.h"

#include <algorithm>
#include <memory>

#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Lex/Lexer.h>

#include "common/arg_info.h"
#include "common/kernel_facts.h"
#include "isg/build_options.h"
#include "source/lockstep.h"
#include "source/predication.h"
#include "common/llvm_compat.h"

namespace isg::detail {

void AnalysisConsumer::HandleTranslationUnit(clang::ASTContext& ctx) {
  if (ctx.getDiagnostics().hasErrorOccurred()) return;
  Collector c(ctx, in_.traits);
  c.TraverseDecl(ctx.getTranslationUnitDecl());
  Editor ed(ctx.getSourceManager(), ctx.getLangOpts(), names_);
  checkIntelInternal(ctx, c, ed);
  defineDeclaredInternal(ctx, ed);
  checkMediaRegions(ctx, c, ed);
  findExternalContext(c);
  firstMemberPointers(ctx, c, ed);
  const Closure closure = contextClosure(ctx.getSourceManager(), c);
  summarise(c, closure);
  editCallSites(c, closure, ed);
  editBuiltinCalls(ctx, c, ed);
  followBlockImages(c);
  const ManifestIndex manifestOf = buildManifests(ctx, c, closure, ed);
  editDeclarations(ctx, c, closure, manifestOf, ed);
  emulateReadWriteImages(ctx, c, manifestOf, ed);
  passImageFacts(ctx, c, manifestOf, ed);
  alignLocalPointerArgs(ctx, c, ed);
  // Last: it must see every other edit, which its own may not overlap (predication.h).
  const std::set<const clang::FunctionDecl*> predicated =
      predicateDivergentFlow(ctx, c, closure, ed);
  if (in_.traits.strategy == Strategy::Local || in_.traits.refuseDivergent) warnDivergentCalls(ctx, c, predicated, ed);
  // After predication, whose kernels keep their own flow (their exchanges meet already).
  if (in_.traits.lockStep && in_.traits.strategy != Strategy::Native)
    for (const clang::FunctionDecl* canon : c.order)
      if (const Func& f = c.funcs.at(canon); f.kernel && f.definition && !predicated.count(canon))
        if (keepLockStep(ctx, f.definition, ed, assumedShape()).warned && !firstActiveStrategy())
          for (KernelManifest& km : out_.kernels)
            if (km.name == f.definition->getNameAsString()) km.shapeDependentResult = true;
  ed.checkSharedSites();

  if (!ed.errors.empty()) {
    out_.log = ed.errors;
    return;
  }
  out_.warnings = std::move(ed.warnings);
  out_.edits = std::move(ed.edits);
  out_.ok = true;
}

namespace {
// Calls of the Intel-internal builtins the program declares itself (no stand-in macro marks them).
class DeclaredInternalCalls : public clang::RecursiveASTVisitor<DeclaredInternalCalls> {
 public:
  explicit DeclaredInternalCalls(InternalUses& out) : out_(out) {}
  bool VisitCallExpr(clang::CallExpr* call) {
    const clang::FunctionDecl* f = call->getDirectCallee();
    if (f && f->getIdentifier() && startsWith(f->getName(), llvm::StringRef(kIntelInternalPrefix.data(), kIntelInternalPrefix.size())))
      out_.emplace_back(f->getName().str(), call->getBeginLoc());
    return true;
  }

 private:
  InternalUses& out_;
};
}  // namespace

void AnalysisConsumer::defineDeclaredInternal(clang::ASTContext& ctx, Editor& ed) {
  const clang::SourceManager& sm = ctx.getSourceManager();
  const llvm::StringRef prefix(kIntelInternalPrefix.data(), kIntelInternalPrefix.size());
  clang::PrintingPolicy policy(ctx.getLangOpts());
  for (const clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
    const auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
    if (!f || !f->getIdentifier() || !startsWith(f->getName(), prefix) || !f->isFirstDecl() || f->isDefined()) continue;
    const SourceLocation end = f->getEndLoc();
    if (end.isInvalid() || end.isMacroID() || FileNames::internal(sm.getFilename(end))) continue;
    const SourceLocation after = clang::Lexer::findLocationAfterToken(end, clang::tok::semi, sm, ctx.getLangOpts(), false);
    const clang::QualType ret = f->getReturnType();
    const bool isVoid = ret->isVoidType();
    if (after.isInvalid() || (!isVoid && !ret->isScalarType() && !ret->isVectorType())) continue;
    std::string params;
    for (unsigned i = 0; i < f->getNumParams(); ++i)
      params += (i ? ", " : "") + f->getParamDecl(i)->getType().getAsString(policy) + " __isg_a" + std::to_string(i);
    const std::string type = ret.getAsString(policy);
    ed.add(after, 0, 0,
           std::string(" ") + (f->getStorageClass() == clang::SC_Static ? "static " : "") +
               (f->hasAttr<clang::OverloadableAttr>() ? "__attribute__((overloadable)) " : "") + type + " " +
               f->getNameAsString() + "(" + (params.empty() ? "void" : params) + ") { " +
               (isVoid ? "" : "return (" + type + ")0; ") + "}",
           f->getLocation(), "the definition of '" + f->getNameAsString() + "'");
  }
}

void AnalysisConsumer::checkIntelInternal(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
  InternalUses uses = internalUses_;
  const llvm::StringRef prefix(kIntelInternalPrefix.data(), kIntelInternalPrefix.size());
  for (const clang::Decl* d : ctx.getTranslationUnitDecl()->decls())
    if (const auto* f = llvm::dyn_cast<clang::FunctionDecl>(d); f && f->getIdentifier() && startsWith(f->getName(), prefix)) {
      DeclaredInternalCalls(uses).TraverseDecl(ctx.getTranslationUnitDecl());
      break;
    }
  if (uses.empty()) return;
  const clang::SourceManager& sm = ctx.getSourceManager();
  std::map<const clang::FunctionDecl*, const clang::FunctionDecl*> kernelOf;  // reached -> a kernel
  std::vector<const clang::FunctionDecl*> work;
  for (const auto& [fd, f] : c.funcs)
    if (f.kernel || (in_.compiledObject && f.definition &&
                     f.definition->getStorageClass() != clang::SC_Static)) {
      kernelOf.emplace(fd, fd);
      work.push_back(fd);
    }
  while (!work.empty()) {
    const clang::FunctionDecl* fd = work.back();
    work.pop_back();
    auto it = c.funcs.find(fd);
    if (it == c.funcs.end()) continue;
    for (const Call& call : it->second.calls)
      if (kernelOf.emplace(call.callee, kernelOf[fd]).second) work.push_back(call.callee);
  }
  for (const auto& [name, loc] : uses) {
    const SourceLocation at = sm.getExpansionLoc(loc);
    if (FileNames::internal(sm.getFilename(at))) continue;
    const clang::FunctionDecl* within = nullptr;
    for (const auto& [fd, f] : c.funcs) {
      if (!f.definition) continue;
      const SourceLocation b = sm.getExpansionLoc(f.definition->getBeginLoc());
      const SourceLocation e = sm.getExpansionLoc(f.definition->getEndLoc());
      if (!sm.isBeforeInTranslationUnit(at, b) && !sm.isBeforeInTranslationUnit(e, at)) within = fd;
    }
    auto reached = within ? kernelOf.find(within) : kernelOf.end();
    if (!within || reached != kernelOf.end()) {
      const std::string by =
          !within ? "it is outside any function"
          : reached->second == within
              ? (c.funcs.at(within).kernel ? "kernel '" : "function '") +
                    within->getNameAsString() + "' calls it" +
                    (c.funcs.at(within).kernel ? "" : " and may serve another object's kernel")
              : "kernel '" + reached->second->getNameAsString() + "' reaches it through '" +
                    within->getNameAsString() + "'";
      ed.error(
          loc,
          "'" + name + "' is internal to Intel's GPU compiler and no other driver has it; " + by +
              ", so the layer cannot run this program (only code no kernel reaches may name it)");
      continue;
    }
    const std::string& builtin = name;  // C++17 lambdas cannot capture a structured binding
    auto same = [&](const std::pair<std::string, unsigned>& p) { return p.first == builtin; };
    if (std::none_of(out_.intelInternal.begin(), out_.intelInternal.end(), same))
      for (const auto& [n, arity] : internalBuiltins_)
        if (n == name) out_.intelInternal.emplace_back(n, arity);
  }
}

bool AnalysisConsumer::isKernel(const Collector& c, const clang::FunctionDecl* canon) {
  auto it = c.funcs.find(canon);
  return it != c.funcs.end() && it->second.kernel;
}

bool AnalysisConsumer::addAtBodyStart(clang::SourceManager& sm, const clang::FunctionDecl* fd,
                                      const std::string& text, Editor& ed) {
  if (!fd->doesThisDeclarationHaveABody()) return false;
  const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fd->getBody());
  if (!body) return false;
  ed.add(sm.getSpellingLoc(body->getLBracLoc()), 1, 0, text, fd->getLocation(),
         "the body of kernel '" + fd->getNameAsString() + "'");
  return true;
}

bool AnalysisConsumer::exchanges(const Builtin& b) {
  return b.family == "barrier" || exchangeBytes(b, 4) != 0;
}

namespace {
// The calls whose value every member of a sub-group shares: a sub-group scope check's uniform ones.
std::set<const clang::CallExpr*> subGroupUniformCalls(const Collector& c) {
  std::set<const clang::CallExpr*> uniform;
  for (const BuiltinCall& bc : c.builtinCalls)
    if (resultIsSubGroupUniform(*bc.builtin)) uniform.insert(bc.expr);
  return uniform;
}
}  // namespace

DivergenceCheck& AnalysisConsumer::divergenceCheck(clang::ASTContext& ctx, const Collector& c) const {
  if (divergence_) return *divergence_;
  // The khr test double exchanges through work-group barriers (builtins-cl/khr-test/).
  const bool workGroup = in_.traits.strategy == Strategy::Local || in_.traits.khrTestDouble;
  const std::set<const clang::CallExpr*> uniform =
      workGroup ? std::set<const clang::CallExpr*>() : subGroupUniformCalls(c);
  auto make = [&](std::set<const clang::VarDecl*> params) {
    DivergenceCheck check = workGroup ? DivergenceCheck(ctx, {}, false, assumedShape())
                                       : DivergenceCheck(ctx, uniform, true, assumedShape());
    check.setDivergentParams(std::move(params));
    return check;
  };
  // A helper's parameter is work-item dependent where a caller passes such a value (the call
  // graph of OpenCL C has no cycles: one more round per level of calls).
  std::set<const clang::VarDecl*> params;
  for (bool grew = true; grew;) {
    grew = false;
    DivergenceCheck check = make(params);
    for (const auto& [canon, f] : c.funcs) {
      if (!f.definition) continue;
      for (const Call& call : f.calls) {
        auto g = c.funcs.find(call.callee);
        if (g == c.funcs.end() || !g->second.definition) continue;
        const clang::FunctionDecl* def = g->second.definition;
        for (unsigned i = 0; i < std::min(call.expr->getNumArgs(), def->getNumParams()); ++i)
          if (!params.count(def->getParamDecl(i)) && check.dependsOnWorkItem(f.definition, call.expr->getArg(i)))
            grew = params.insert(def->getParamDecl(i)).second || grew;
      }
    }
  }
  return divergence_.emplace(make(std::move(params)));
}

std::set<const clang::FunctionDecl*> AnalysisConsumer::predicateDivergentFlow(
    clang::ASTContext& ctx, const Collector& c, const Closure& closure, Editor& ed) const {
  std::set<const clang::FunctionDecl*> done;
  if (in_.traits.strategy == Strategy::Native) return done;
  // The functions that exchange, themselves or through the functions they call.
  std::set<const clang::FunctionDecl*> exchanging;
  for (const BuiltinCall& bc : c.builtinCalls)
    if (bc.function && exchanges(*bc.builtin)) exchanging.insert(bc.function->getCanonicalDecl());
  for (const auto& [fd, e] : externalContext_) exchanging.insert(fd);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [fd, f] : c.funcs)
      if (!exchanging.count(fd))
        for (const Call& call : f.calls)
          if (exchanging.count(call.callee)) {
            grew = exchanging.insert(fd).second || grew;
            break;
          }
  }
  DivergenceCheck& check = divergenceCheck(ctx, c);
  // Block IO whose pointer is member 0's (firstMemberPointers), unless the walk of its kernel
  // cannot take it out of its statement: then it keeps each member's, with the warning.
  std::set<const clang::CallExpr*> hoisted;
  for (const auto& [call, flow] : hoistPointer_) hoisted.insert(call);
  auto exchangesOf = [&](const clang::FunctionDecl* canon, bool masked) {
    const Func& f = c.funcs.at(canon);
    KernelExchanges k;
    k.kernel = f.definition;
    k.masked = masked;
    for (const BuiltinCall& bc : c.builtinCalls)
      if (bc.function == f.definition && (exchanges(*bc.builtin) || hoisted.count(bc.expr))) {
        k.builtins[bc.expr] = bc.builtin;
        if (hoisted.count(bc.expr)) k.pointerOnly.insert(bc.expr);
      }
    for (const Call& call : f.calls)
      if (exchanging.count(call.callee) && closure.count(call.callee))
        (c.funcs.count(call.callee) && c.funcs.at(call.callee).definition ? k.helpers : k.opaque).insert(call.expr);
    return k;
  };
  auto walked = [&](const clang::FunctionDecl* canon) {
    const Func& f = c.funcs.at(canon);
    return f.definition && (f.kernel || exchanging.count(canon));
  };
  for (const clang::FunctionDecl* canon : c.order) {
    const Func& f = c.funcs.at(canon);
    if (!f.kernel || !f.definition) continue;
    KernelExchanges k = exchangesOf(canon, false);
    if (k.pointerOnly.empty()) continue;
    // Only a walk that rewrites the kernel takes the pointers out; any other answer leaves the
    // calls as written, each member on its own pointer, which the warning must then say.
    MaskedCalls trial;
    if (predicateKernel(ctx, check, k, nullptr, false, &trial) == Predication::Rewritten) continue;
    for (const clang::CallExpr* call : k.pointerOnly) {
      hoisted.erase(call);
      const Builtin& b = *k.builtins.at(call);
      ed.warning(call->getBeginLoc(),
                 eachMemberPointerWarning(b.name, in_.traits, true,
                                          "under flow only some work-items take (see " +
                                              ed.where(hoistPointer_.at(call)->getBeginLoc()) + ")"));
    }
  }
  // Which helpers take a mask: those a walk calls where only some work-items run, and, in
  // turn, those such a helper calls (its whole body runs under its mask). Trials until none
  // is added, then the walk that edits.
  std::set<const clang::FunctionDecl*> masked;
  for (bool grew = true; grew;) {
    grew = false;
    for (const clang::FunctionDecl* canon : c.order) {
      if (!walked(canon)) continue;
      MaskedCalls found;
      predicateKernel(ctx, check, exchangesOf(canon, masked.count(canon) != 0), nullptr, false, &found);
      for (const clang::FunctionDecl* callee : found.callees) grew = masked.insert(callee).second || grew;
    }
  }
  MaskedCalls moved;
  for (const clang::FunctionDecl* canon : c.order) {
    if (!walked(canon)) continue;
    // A refused function has its error; without ISG_REFUSE_DIVERGENT its calls get the local
    // strategy's warning too.
    const Predication how =
        predicateKernel(ctx, check, exchangesOf(canon, masked.count(canon) != 0), &ed, in_.traits.refuseDivergent, &moved);
    if (how == Predication::Rewritten || (how == Predication::Refused && in_.traits.refuseDivergent))
      done.insert(canon);
    if (how == Predication::Refused) out_.predicationRefused = true;
  }
  // The mask's parameter after the context in every declaration of such a helper; a call the
  // walks did not move passes 1 (every work-item that reaches it runs it).
  const clang::SourceManager& sm = ctx.getSourceManager();
  for (const clang::FunctionDecl* fd : c.declarations)
    if (masked.count(fd->getCanonicalDecl()))
      if (clang::FunctionTypeLoc ftl = fd->getFunctionTypeLoc();
          !ftl || !ed.amendLeading(sm.getSpellingLoc(ftl.getLParenLoc()), std::string(", bool ") + kMaskParam))
        ed.error(fd->getLocation(), "cannot give '" + fd->getNameAsString() + "' its execution mask");
  for (const auto& [fd, f] : c.funcs)
    for (const Call& call : f.calls)
      if (masked.count(call.callee) && !moved.hoisted.count(call.expr))
        if (auto paren = ed.callParen(call.expr); !paren || !ed.amendLeading(*paren, ", 1"))
          ed.error(call.expr->getBeginLoc(), "cannot pass '" + call.callee->getNameAsString() + "' its execution mask");
  return done;
}

void AnalysisConsumer::warnDivergentCalls(clang::ASTContext& ctx, const Collector& c,
                                          const std::set<const clang::FunctionDecl*>& predicated,
                                          Editor& ed) const {
  DivergenceCheck& check = divergenceCheck(ctx, c);
  std::set<unsigned> reported;
  for (const BuiltinCall& bc : c.builtinCalls) {
    const Builtin& b = *bc.builtin;
    if (!exchanges(b)) continue;  // needs no barrier
    if (bc.function && predicated.count(bc.function->getCanonicalDecl())) continue;
    const clang::Expr* guard = check.guardOf(bc.function, bc.expr);
    std::set<const clang::FunctionDecl*> visited;
    if (!guard && bc.function)
      guard = guardInCallers(check, c, bc.function->getCanonicalDecl(), &visited);
    if (!guard) continue;
    const SourceLocation at = ctx.getSourceManager().getSpellingLoc(bc.expr->getBeginLoc());
    if (!reported.insert(at.getRawEncoding()).second) continue;
    if (in_.traits.refuseDivergent)
      ed.error(bc.expr->getBeginLoc(),
               "'" + b.name + "' may be reached by only some work-items (see " + ed.where(guard->getBeginLoc()) +
                   "), through a call the layer cannot give an execution mask (its exchanges must be reached by "
                   "every work-item of the sub-group, and of the work-group on the local strategy), so it refuses "
                   "the kernel: its results would differ from Intel's (ISG_REFUSE_DIVERGENT=0 builds it as written)");
    else
      ed.warning(bc.expr->getBeginLoc(),
                 "'" + b.name + "' may be reached by only some work-items of a work-group (see " +
                     ed.where(guard->getBeginLoc()) +
                     "); the local sub-group strategy "
                     "exchanges through work-group barriers, which every work-item must reach, "
                     "so such a launch may hang or give results that differ from Intel's (README, "
                     "known limits)");
  }
}

const clang::Expr* AnalysisConsumer::guardInCallers(DivergenceCheck& check, const Collector& c,
                                                    const clang::FunctionDecl* fn,
                                                    std::set<const clang::FunctionDecl*>* visited) {
  if (!visited->insert(fn).second) return nullptr;
  for (const auto& [caller, f] : c.funcs)
    for (const Call& call : f.calls) {
      if (call.callee != fn) continue;
      if (const clang::Expr* g = check.guardOf(f.definition, call.expr)) return g;
      if (const clang::Expr* g = guardInCallers(check, c, caller, visited)) return g;
    }
  return nullptr;
}

void AnalysisConsumer::findExternalContext(const Collector& c) {
  for (const auto& [fd, f] : c.funcs)
    for (const Call& call : f.calls) {
      if (c.funcs.count(call.callee)) continue;
      const std::string name = call.callee->getNameAsString();
      for (const ContextFunction& e : in_.externalContext)
        if (e.name == name) externalContext_[call.callee] = &e;
    }
}

AnalysisConsumer::Closure AnalysisConsumer::contextClosure(const clang::SourceManager& sm,
                                                          const Collector& c) const {
  // The places the layer edits a definition (its parameter list, the opening of its body) by
  // where they are spelled: one place for every function a macro spells there.
  std::map<unsigned, std::vector<const clang::FunctionDecl*>> sharers;
  for (const auto& [fd, f] : c.funcs) {
    const clang::FunctionDecl* def = f.definition;
    if (!def) continue;
    if (clang::FunctionTypeLoc ftl = def->getFunctionTypeLoc())
      sharers[sm.getSpellingLoc(ftl.getLParenLoc()).getRawEncoding()].push_back(fd);
    if (const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(def->getBody()))
      sharers[sm.getSpellingLoc(body->getLBracLoc()).getRawEncoding()].push_back(fd);
  }
  for (auto site = sharers.begin(); site != sharers.end();)
    site = site->second.size() < 2 ? sharers.erase(site) : std::next(site);

  Closure closure;
  for (const auto& [fd, f] : c.funcs)
    if (!f.uses.empty()) closure.insert(fd);
  for (const auto& [fd, e] : externalContext_) closure.insert(fd);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [fd, f] : c.funcs) {
      if (closure.count(fd)) continue;
      for (const Call& call : f.calls)
        if (closure.count(call.callee)) {
          closure.insert(fd);
          grew = true;
          break;
        }
    }
    for (const auto& [site, fns] : sharers)
      if (std::any_of(fns.begin(), fns.end(), [&](const auto* fd) { return closure.count(fd); }))
        for (const clang::FunctionDecl* fd : fns) grew |= closure.insert(fd).second;
  }
  return closure;
}

AnalysisConsumer::Reach AnalysisConsumer::reachFrom(const Collector& c, const Closure& closure,
                                                    const clang::FunctionDecl* root) const {
  Reach r;
  std::set<const clang::FunctionDecl*> reached{root};
  std::vector<const clang::FunctionDecl*> stack{root};
  while (!stack.empty()) {
    const clang::FunctionDecl* fd = stack.back();
    stack.pop_back();
    if (auto e = externalContext_.find(fd); e != externalContext_.end()) {
      r.externalFamilies.insert(e->second->families.begin(), e->second->families.end());
      r.widest = std::max(r.widest, e->second->widestBytes);
      continue;
    }
    auto g = c.funcs.find(fd);
    if (g == c.funcs.end()) continue;
    for (const Use& u : g->second.uses) {
      r.builtins.insert(u.builtin);
      r.widest = std::max(r.widest, u.bytes);
    }
    for (const Call& call : g->second.calls)
      if (closure.count(call.callee) && reached.insert(call.callee).second)
        stack.push_back(call.callee);
  }
  // Families in table order, whichever object's code reaches them.
  for (const Builtin& b : builtins())
    if (r.externalFamilies.count(b.family)) r.builtins.insert(&b);
  r.functions = std::move(reached);
  return r;
}

void AnalysisConsumer::summarise(const Collector& c, const Closure& closure) {
  std::set<const Builtin*> usedAnywhere;
  for (const auto& [fd, f] : c.funcs)
    for (const Use& u : f.uses) usedAnywhere.insert(u.builtin);
  out_.usesSubGroups = !usedAnywhere.empty();
  for (const Builtin& b : builtins())
    if (usedAnywhere.count(&b) &&
        std::find(out_.families.begin(), out_.families.end(), b.family) == out_.families.end())
      out_.families.push_back(b.family);
  // The stand-in for read_write images (75-image.cl) is part of the block family's code: a
  // kernel that only takes such an image, and uses no block IO, needs its type all the same.
  if (!c.readWriteParams.empty() && out_.usesSubGroups &&
      std::find(out_.families.begin(), out_.families.end(), "block") == out_.families.end())
    out_.families.push_back("block");
  out_.userDefined = c.userDefined;
  out_.externalFunctions.assign(c.externals.begin(), c.externals.end());
  // A call into another object's context-taking function makes the program the layer's.
  out_.usesSubGroups |= !externalContext_.empty();
  for (const clang::FunctionDecl* fd : c.order) {
    if (!closure.count(fd) || isKernel(c, fd)) continue;
    const Reach r = reachFrom(c, closure, fd);
    ContextFunction cf;
    cf.name = fd->getNameAsString();
    for (const Builtin& b : builtins())
      if (r.builtins.count(&b) &&
          std::find(cf.families.begin(), cf.families.end(), b.family) == cf.families.end())
        cf.families.push_back(b.family);
    cf.widestBytes = r.widest;
    out_.contextFunctions.push_back(std::move(cf));
  }
}

void AnalysisConsumer::editCallSites(const Collector& c, const Closure& closure, Editor& ed) {
  for (const auto& [fd, f] : c.funcs) {
    for (const Call& call : f.calls) {
      std::string what = "the call to '" + call.callee->getNameAsString() + "'";
      auto paren = ed.callParen(call.expr);
      bool threaded = closure.count(call.callee) != 0;
      if (threaded && isKernel(c, call.callee)) {
        ed.error(call.expr->getBeginLoc(),
                 "kernel '" + call.callee->getNameAsString() +
                     "' uses sub-group builtins and is also called as a function; "
                     "call a helper function from both instead");
        continue;
      }
      if (!paren) {
        if (threaded)
          ed.error(call.expr->getBeginLoc(), "cannot find the argument list of " + what);
        continue;
      }
      if (threaded)
        ed.addLeading(*paren, /*declaration=*/false, call.expr->getBeginLoc(), what);
      else
        ed.markPlain(*paren);
    }
  }
}

void AnalysisConsumer::editBuiltinCalls(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
  UniformFlow flow(ctx, {}, false, assumedShape());
  std::map<std::string, std::map<unsigned, unsigned>> counts;  // name -> arity -> calls
  for (const BuiltinCall& bc : c.builtinCalls) ++counts[bc.builtin->name][bc.expr->getNumArgs()];
  for (const auto& [name, byArity] : counts) {
    unsigned primary = usualArity(*findBuiltin(name));
    if (!byArity.count(primary)) primary = byArity.begin()->first;
    out_.macroArity.emplace_back(name, primary);
  }
  std::set<std::pair<std::string, unsigned>> extras, converged, facts, firstMember;
  for (const BuiltinCall& bc : c.builtinCalls) {
    const std::string& name = bc.builtin->name;
    const unsigned n = bc.expr->getNumArgs();
    const clang::Expr* callee = bc.expr->getCallee()->IgnoreParenImpCasts();
    SourceLocation nameLoc = callee->getExprLoc();
    std::string what = "the call to '" + name + "'";
    auto paren = ed.callParen(bc.expr);
    if (paren && ed.isCtxSite(*paren)) {
      ed.rename(nameLoc, name, "__isg_" + name, bc.expr->getBeginLoc(), what);
      continue;
    }
    if (firstMember_.count(bc.expr)) {
      ed.rename(nameLoc, name, "__ISG_L0_" + name, bc.expr->getBeginLoc(), what);
      firstMember.emplace(name, n);
      continue;
    }
    if (const clang::ParmVarDecl* image = factsImage(c, bc, nameLoc)) {
      ed.rename(nameLoc, name, "__ISG_IF" + std::to_string(n) + "_" + name, bc.expr->getBeginLoc(),
                what);
      facts.emplace(name, n);
      factsParams_.insert(image);
      continue;
    }
    if (nameLoc.isFileID() && wholeWarps(c, bc.function) &&
        flow.reachedTogether(bc.function, bc.expr)) {
      ed.rename(nameLoc, name, "__ISG_CV" + std::to_string(n) + "_" + name, bc.expr->getBeginLoc(),
                what);
      converged.emplace(name, n);
      continue;
    }
    unsigned primary = 0;
    for (const auto& [m, k] : out_.macroArity)
      if (m == name) primary = k;
    if (n == primary) continue;
    std::string macro = "__ISG_A" + std::to_string(n) + "_" + name;
    ed.rename(nameLoc, name, macro, bc.expr->getBeginLoc(), what);
    extras.emplace(name, n);
  }
  out_.extraArity.assign(extras.begin(), extras.end());
  out_.convergedArity.assign(converged.begin(), converged.end());
  out_.factsArity.assign(facts.begin(), facts.end());
  out_.firstMemberArity.assign(firstMember.begin(), firstMember.end());
  // The program's own prototypes of builtins stay declarations of the names, which the
  // parentheses keep from expanding as the prelude's function-like macros.
  for (const clang::FunctionDecl* fd : c.prototypes) {
    std::string name = fd->getNameAsString();
    ed.rename(fd->getLocation(), name, "(" + name + ")", fd->getLocation(),
              "the declaration of '" + name + "'");
  }
}

bool AnalysisConsumer::firstActiveStrategy() const {
  return in_.traits.strategy == Strategy::NvidiaPtx || khrTakesFirstActive(in_.traits);
}

void AnalysisConsumer::firstMemberPointers(clang::ASTContext& ctx, Collector& c, Editor& ed) {
  if (in_.traits.strategy == Strategy::Native) return;
  // nvidia-ptx takes the first active member's pointer in every call (__isg_block_pointer: two
  // shuffles over the active lanes, legal in any flow, so also where a macro site is shared), and
  // khr does through __ISG_L0_ where the driver has cl_khr_subgroup_ballot.
  const bool nvidia = in_.traits.strategy == Strategy::NvidiaPtx;
  const bool firstActive = firstActiveStrategy();
  const clang::SourceManager& sm = ctx.getSourceManager();
  DivergenceCheck& check = divergenceCheck(ctx, c);
  struct Site {
    bool differs = false;                  // one call there needs the first member's pointer
    const clang::Expr* guard = nullptr;    // work-item dependent flow around one call there
  };
  std::map<unsigned, Site> sites;  // by the spelling of the call's name
  struct Candidate {
    const BuiltinCall* call;
    unsigned site;
    const clang::Expr* guard;  // its own
  };
  std::vector<Candidate> candidates;
  for (const BuiltinCall& bc : c.builtinCalls) {
    const Shape shape = bc.builtin->shape;
    if ((shape != Shape::BlockRead && shape != Shape::BlockWrite) || !bc.function || bc.expr->getNumArgs() == 0 ||
        bc.expr->getNumArgs() != usualArity(*bc.builtin) || !bc.expr->getArg(0)->getType()->isPointerType())
      continue;
    const unsigned at = sm.getSpellingLoc(bc.expr->getCallee()->IgnoreParenImpCasts()->getExprLoc()).getRawEncoding();
    Site& site = sites[at];
    std::set<const clang::FunctionDecl*> visited;
    const clang::Expr* guard = check.guardOf(bc.function, bc.expr);
    if (!guard) guard = guardInCallers(check, c, bc.function->getCanonicalDecl(), &visited);
    if (!site.guard) site.guard = guard;
    if (check.dependsOnWorkItem(bc.function, bc.expr->getArg(0))) site.differs = true;
    candidates.push_back({&bc, at, guard});
  }
  // Where a site stays as written, a pointer that may differ within a sub-group (by a check of
  // that scope: on local, the sub-group's id and its reductions are not such a difference)
  // gets a warning: the spec's one pointer per sub-group is the user's promise, which the
  // rewriter cannot check, and it cannot refuse what may keep it (`p + gid - lane`). Where the
  // program's check has work-group scope, the one made here takes helpers' parameters as
  // uniform (no fixed point over the call graph for a warning): it says less, never more.
  std::unique_ptr<DivergenceCheck> withinSubGroup;
  std::unique_ptr<UniformFlow> sameSubGroup;
  std::set<unsigned> warned;
  // Its function then exchanges 8 bytes for the first member's pointer.
  auto exchangesPointer = [&c](const BuiltinCall& bc) {
    c.funcs[bc.function->getCanonicalDecl()].uses.push_back({bc.builtin, 8});
  };
  for (const auto& [bc, at, own] : candidates) {
    const Site& site = sites[at];
    if (!site.differs) continue;
    if (firstActive) {
      if (!nvidia) {
        firstMember_.insert(bc->expr);
        exchangesPointer(*bc);
      }
      // Under flow that only some members of a sub-group take (this check has that scope
      // here), Intel's runtimes need not agree on whose pointer: its CPU runtime reads from
      // member 0's even where member 0 skipped the flow (measured), which no member here holds.
      if (!own || !check.dependsOnWorkItem(bc->function, bc->expr->getArg(0)) || !warned.insert(at).second)
        continue;
      ed.warning(bc->expr->getBeginLoc(),
                 eachMemberPointerWarning(bc->builtin->name, in_.traits, false,
                                          "under flow only some members of a sub-group take (see " +
                                              ed.where(own->getBeginLoc()) + ")"));
      continue;
    }
    if (!site.guard) {
      firstMember_.insert(bc->expr);
      exchangesPointer(*bc);
      continue;
    }
    if (!withinSubGroup && !check.subGroupScope())
      withinSubGroup =
          std::make_unique<DivergenceCheck>(ctx, subGroupUniformCalls(c), /*subGroupScope=*/true, assumedShape());
    DivergenceCheck& scoped = check.subGroupScope() ? check : *withinSubGroup;
    if (!scoped.dependsOnWorkItem(bc->function, bc->expr->getArg(0))) continue;
    // Where only whole sub-groups skip the flow, member 0 runs the call whenever its sub-group
    // does, so the predication can take its pointer (every work-item at the exchange, those
    // outside giving a null one that nobody reads). A call a macro spells keeps its own here
    // (the macro's other expansions share its text): the program after its preprocessor, where
    // each call is its own, may give it member 0's (analyzeForExecutionModel).
    if (!check.subGroupScope() && own && c.funcs[bc->function->getCanonicalDecl()].kernel) {
      if (!sameSubGroup)
        sameSubGroup =
            std::make_unique<UniformFlow>(ctx, subGroupUniformCalls(c), /*subGroupScope=*/true, assumedShape());
      if (sameSubGroup->reachedTogether(bc->function, bc->expr)) {
        if (!bc->expr->getBeginLoc().isFileID() || !bc->expr->getEndLoc().isFileID()) {
          out_.firstMemberInMacro = true;
        } else {
          hoistPointer_.emplace(bc->expr, own);
          exchangesPointer(*bc);
          continue;
        }
      }
    }
    shapeWarned_.insert(bc->function->getCanonicalDecl());
    if (!warned.insert(at).second) continue;
    ed.warning(bc->expr->getBeginLoc(),
               eachMemberPointerWarning(bc->builtin->name, in_.traits, true,
                                        own ? "under flow only some work-items take (see " + ed.where(own->getBeginLoc()) + ")"
                                            : "in a macro also expanded under flow only some work-items take (see " +
                                                  ed.where(site.guard->getBeginLoc()) + ")"));
  }
}

std::array<std::size_t, 3> AnalysisConsumer::workGroupShape(const clang::FunctionDecl* fn,
                                                            bool* uniform) const {
  if (const auto* w = fn->getAttr<clang::ReqdWorkGroupSizeAttr>()) {
    *uniform = !allowsNonUniformWorkGroups(in_.options, /*fromSpirv=*/false);
    return {w->getXDim(), w->getYDim(), w->getZDim()};
  }
  *uniform = in_.assumedWorkGroupSize[0] != 0;
  return {in_.assumedWorkGroupSize[0], in_.assumedWorkGroupSize[1], in_.assumedWorkGroupSize[2]};
}

bool AnalysisConsumer::wholeWarps(const Collector& c, const clang::FunctionDecl* fn) const {
  if (in_.traits.strategy != Strategy::NvidiaPtx || !fn || !isKernel(c, fn->getCanonicalDecl()))
    return false;
  bool uniform = false;
  const std::array<std::size_t, 3> w = workGroupShape(fn, &uniform);
  const std::size_t items = w[0] * w[1] * w[2];
  return uniform && items != 0 && items % 32 == 0;
}

AnalysisConsumer::ManifestIndex AnalysisConsumer::buildManifests(clang::ASTContext& ctx,
                                                                 Collector& c,
                                                                 const Closure& closure,
                                                                 Editor& ed) {
  ManifestIndex manifestOf;
  for (const clang::FunctionDecl* canon : c.order) {
    const Func& f = c.funcs[canon];
    if (!f.kernel) continue;
    const clang::FunctionDecl* def = f.definition;
    KernelManifest km;
    km.name = def->getNameAsString();
    km.subGroupSize = in_.traits.defaultSubGroupSize;
    if (const auto* a = def->getAttr<clang::OpenCLIntelReqdSubGroupSizeAttr>()) {
      km.subGroupSize = a->getSubGroupSize();
      km.requiredSubGroupSize = true;
      out_.usesSubGroups = true;
    }
    bool uniformGroups = false;
    const std::array<std::size_t, 3> w = workGroupShape(def, &uniformGroups);
    if (!km.requiredSubGroupSize && in_.traits.subGroupSizeFromLaunch) {
      // S from the rows: known now where the work-group size is, else at each launch where
      // the strategy's library can take it then. A launch variant's size is the launch's, so
      // it gives S only where the general kernel takes S from the launch too (not on khr).
      const bool fromLaunch = factsOf(in_.traits.strategy).launchSubGroupSize;
      const bool declared = def->hasAttr<clang::ReqdWorkGroupSizeAttr>();
      km.subGroupSize = launchSubGroupSize(declared || fromLaunch ? unsigned(w[0]) : 0u,
                                           in_.traits.defaultSubGroupSize);
      km.launchSubGroupSize = !w[0] && fromLaunch;
    }
    if (std::string why = unsupportedSize(km, in_.traits); !why.empty())
      ed.error(def->getLocation(), why);
    if (w[0]) {
      std::copy(w.begin(), w.end(), km.reqdWorkGroupSize);
      std::size_t items = w[0] * w[1] * w[2];
      km.wholeSubGroups = uniformGroups && items != 0 && items % km.subGroupSize == 0;
    }
    km.numUserArgs = def->getNumParams();
    for (const clang::ParmVarDecl* p : def->parameters()) km.args.push_back(argInfoOf(*p, ctx));
    for (unsigned i = 0; i < def->getNumParams(); ++i)
      if (f.blockImages.count(def->getParamDecl(i))) {
        km.blockImageArgs.push_back(i);
        if (f.otherImageUses.count(def->getParamDecl(i))) km.mixedImageArgs.push_back(i);
      }
    if (closure.count(canon)) {
      const Reach r = reachFrom(c, closure, canon);
      finishKernelManifest(r.builtins, r.widest, in_.traits, &km);
      km.shapeDependentResult = std::any_of(r.functions.begin(), r.functions.end(),
                                            [&](const clang::FunctionDecl* fd) { return shapeWarned_.count(fd); });
    }
    manifestOf[canon] = out_.kernels.size();
    out_.kernels.push_back(std::move(km));
  }
  return manifestOf;
}

void AnalysisConsumer::editDeclarations(clang::ASTContext& ctx, const Collector& c,
                                        const Closure& closure, const ManifestIndex& manifestOf,
                                        Editor& ed) {
  // A kernel declared without a definition here (its manifest is another object's) takes its
  // strategy's hidden parameters.
  std::string strategyHidden;
  for (const HiddenParam& h : hiddenParams(in_.traits, false))
    strategyHidden += (strategyHidden.empty() ? "" : ", ") + std::string(h.declaration);
  clang::SourceManager& sm = ctx.getSourceManager();
  // Kernels by the spelling of their body's brace (several where a macro defines them), each
  // group's scratch slot widened to its widest.
  std::map<unsigned, std::vector<std::size_t>> prologueSharers;
  for (const auto& [canon, index] : manifestOf) {
    const clang::FunctionDecl* def = c.funcs.at(canon).definition;
    const auto* body = def ? llvm::dyn_cast_or_null<clang::CompoundStmt>(def->getBody()) : nullptr;
    if (body)
      prologueSharers[sm.getSpellingLoc(body->getLBracLoc()).getRawEncoding()].push_back(index);
  }
  for (const auto& [brace, group] : prologueSharers) {
    // One prologue text hands the scratch over to work-group collectives or not: where one
    // sharer needs that, every sharer gets the scratch.
    if (std::any_of(group.begin(), group.end(),
                    [&](std::size_t i) { return borrowsScratch(out_.kernels[i], in_.traits); }))
      for (std::size_t i : group) lendScratch(&out_.kernels[i]);
    unsigned widest = 0;
    for (std::size_t i : group) widest = std::max(widest, out_.kernels[i].scratchBytesPerItem);
    for (std::size_t i : group) out_.kernels[i].scratchBytesPerItem = widest;
  }
  for (const clang::FunctionDecl* fd : c.declarations) {
    const clang::FunctionDecl* canon = fd->getCanonicalDecl();
    std::string what = "the declaration of '" + fd->getNameAsString() + "'";
    clang::FunctionTypeLoc ftl = fd->getFunctionTypeLoc();
    if (!closure.count(canon)) {
      if (ftl) ed.markPlain(sm.getSpellingLoc(ftl.getLParenLoc()));
      continue;
    }
    if (!ftl) {
      ed.error(fd->getLocation(), "cannot find the parameter list of " + what);
      continue;
    }
    SourceLocation lparen = sm.getSpellingLoc(ftl.getLParenLoc());
    if (!isKernel(c, canon)) {
      ed.addLeading(lparen, /*declaration=*/true, fd->getLocation(), what);
      continue;
    }
    const auto manifest = manifestOf.find(canon);
    const std::string hiddenText = manifest != manifestOf.end()
                                       ? hiddenDeclarations(out_.kernels[manifest->second])
                                       : strategyHidden;
    if (!hiddenText.empty()) {
      auto next = ed.tokenAfter(lparen);
      if (fd->getNumParams() == 0 && next && next->is(clang::tok::r_paren)) {
        ed.add(lparen, 1, 0, hiddenText, fd->getLocation(), what);
      } else if (fd->getNumParams() == 0 && next && Editor::isVoid(*next)) {
        ed.add(next->getLocation(), 0, 4, hiddenText, fd->getLocation(), what);
      } else {
        SourceLocation rparen = sm.getSpellingLoc(ftl.getRParenLoc());
        ed.add(rparen, 0, 0, ", " + hiddenText, fd->getLocation(), what);
      }
    }
    if (fd->doesThisDeclarationHaveABody()) {
      const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fd->getBody());
      if (!body) {
        ed.error(fd->getLocation(),
                 "cannot find the body of kernel '" + fd->getNameAsString() + "'");
        continue;
      }
      // S, SLOT and, when every sub-group is whole, the required work-group size (else 0s).
      // Kernels whose bodies one macro spells share the prologue's text: the widest scratch
      // slot of them all, and whole-sub-group sizes only where they all agree.
      const SourceLocation brace = sm.getSpellingLoc(body->getLBracLoc());
      const std::vector<std::size_t>& sharing = prologueSharers[brace.getRawEncoding()];
      const KernelManifest& km = out_.kernels[manifestOf.at(canon)];
      bool sameShape = true;
      for (std::size_t i : sharing) {
        const KernelManifest& other = out_.kernels[i];
        if (other.subGroupSize != km.subGroupSize ||
            other.launchSubGroupSize != km.launchSubGroupSize) {
          ed.error(fd->getLocation(),
                   "kernels '" + km.name + "' (sub-group size " + std::to_string(km.subGroupSize) +
                       ") and '" + other.name + "' (" + std::to_string(other.subGroupSize) +
                       ") have their bodies in one macro: the layer writes one prologue there, "
                       "for one sub-group size; define them with separate macros");
          break;
        }
        sameShape &=
            other.wholeSubGroups == km.wholeSubGroups &&
            std::equal(std::begin(other.reqdWorkGroupSize), std::end(other.reqdWorkGroupSize),
                       std::begin(km.reqdWorkGroupSize));
      }
      std::string args =
          (km.launchSubGroupSize ? std::string("__ISG_LAUNCH_S((uint)get_local_size(0))")
                                 : std::to_string(km.subGroupSize)) +
          ", " + std::to_string(km.scratchBytesPerItem);
      for (std::size_t d : km.reqdWorkGroupSize)
        args += ", " + std::to_string(km.wholeSubGroups && sameShape ? d : 0);
      const bool borrows = borrowsScratch(km, in_.traits);
      ed.add(brace, 1, 0,
             std::string(borrows ? "__ISG_KERNEL_PROLOGUE_WG(" : "__ISG_KERNEL_PROLOGUE(") + args + ") ",
             fd->getLocation(),
             "the body of kernel '" + fd->getNameAsString() + "'");
      // A launch variant tells the driver its shape too (the registers a work-group of that
      // size leaves each work-item). A kernel spelled in a macro keeps the macro's text, which
      // other kernels share: it runs that shape anyway.
      if (in_.assumedWorkGroupSize[0] && !fd->hasAttr<clang::ReqdWorkGroupSizeAttr>() &&
          fd->getBeginLoc().isFileID()) {
        const std::size_t* w = in_.assumedWorkGroupSize;
        ed.add(fd->getBeginLoc(), 0, 0,
               "__attribute__((reqd_work_group_size(" + std::to_string(w[0]) + ", " +
                   std::to_string(w[1]) + ", " + std::to_string(w[2]) + "))) ",
               fd->getLocation(), what);
      }
    }
  }
}

}  // namespace isg::detail
