// SPDX-License-Identifier: MIT
// The source analysis' one walk of the user's functions (analysis.h): builtin calls, calls
// between user functions, image parameters and every declaration, which the phases of
// analysis_consumer.h read.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/PPCallbacks.h>

#include "common/clang_session.h"
#include "common/table.h"
#include "isg/rewriter.h"

namespace isg::detail {

using clang::SourceLocation;

struct Use {
  const Builtin* builtin;
  unsigned bytes;
};

struct Call {
  const clang::CallExpr* expr;
  const clang::FunctionDecl* callee;  // canonical
};

struct BuiltinCall {
  const Builtin* builtin;
  const clang::CallExpr* expr;
  const clang::FunctionDecl* function;  // the definition it is written in
};

struct Func {
  const clang::FunctionDecl* definition = nullptr;
  bool kernel = false;
  std::vector<Use> uses;
  std::vector<Call> calls;
  std::set<const clang::ParmVarDecl*> blockImages;  // its image parameters block IO reaches
  // Its image parameters something other than block or media IO uses (read_image*, queries):
  // first the direct references that are neither such a call's image nor a helper's argument.
  std::set<const clang::ParmVarDecl*> otherImageUses;
  std::vector<const clang::DeclRefExpr*> imageRefs;      // every reference to an image parameter
  std::set<const clang::DeclRefExpr*> passedImageRefs;   // those given to block/media IO or helpers
};

// The parameter an argument names, if it is one (`img`, `(img)`).
inline const clang::ParmVarDecl* namedParam(const clang::Expr* e) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
}

inline const Builtin* builtinFor(const clang::FunctionDecl* fd, const DeviceTraits& traits) {
  const clang::IdentifierInfo* id = fd->getIdentifier();
  if (!id || fd->isDefined()) return nullptr;
  return findBuiltin(id->getName(), traits);
}

// Image queries a raw-bits view of the image answers as the image does (same width, height
// and element size); get_image_channel_* would not.
inline bool sizeQuery(llvm::StringRef name) {
  return name == "get_image_width" || name == "get_image_height" || name == "get_image_dim";
}

// Walks every user function body once: builtin calls, calls between user functions, and every
// declaration (each one may need the context parameter).
class Collector : public clang::RecursiveASTVisitor<Collector> {
  using Base = clang::RecursiveASTVisitor<Collector>;

 public:
  Collector(clang::ASTContext& ctx, const DeviceTraits& traits)
      : ctx_(ctx), sm_(ctx.getSourceManager()), traits_(traits) {}

  bool internal(SourceLocation loc) const {
    if (loc.isInvalid()) return true;
    return FileNames::internal(sm_.getFilename(sm_.getExpansionLoc(loc)));
  }

  bool TraverseFunctionDecl(clang::FunctionDecl* fd) {
    if (internal(fd->getLocation())) return true;
    if (!fd->doesThisDeclarationHaveABody() && findBuiltin(fd->getName(), traits_))
      prototypes.push_back(fd);  // the program's own prototype of a builtin we declare
    declarations.push_back(fd);
    if (!fd->doesThisDeclarationHaveABody()) return Base::TraverseFunctionDecl(fd);
    const clang::FunctionDecl* canon = fd->getCanonicalDecl();
    Func& f = funcs[canon];
    f.definition = fd;
    f.kernel = fd->hasAttr<clang::OpenCLKernelAttr>();
    order.push_back(canon);
    if (findBuiltin(fd->getName(), traits_)) userDefined.push_back(fd->getNameAsString());
    Func* saved = current_;
    current_ = &f;
    bool result = Base::TraverseFunctionDecl(fd);
    current_ = saved;
    return result;
  }

  // A kernel parameter of a read_write image on a device that has none (see DeviceTraits).
  bool VisitParmVarDecl(clang::ParmVarDecl* p) {
    if (!traits_.readWriteImages && !internal(p->getLocation()) && p->getType()->isImageType() &&
        p->getType().getAsString().find("__read_write") != std::string::npos)
      readWriteParams.push_back(p);
    return true;
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    if (!current_) return true;
    if (const auto* p = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl());
        p && p->getType()->isImageType())
      current_->imageRefs.push_back(ref);
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* ce) {
    if (!current_) return true;
    const clang::FunctionDecl* callee = ce->getDirectCallee();
    if (!callee) return true;
    auto passed = [this](const clang::Expr* arg) {
      if (const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(arg->IgnoreParenImpCasts()))
        current_->passedImageRefs.insert(r);
    };
    if (const Builtin* b = builtinFor(callee, traits_)) {
      unsigned typeBytes = 0;
      if (table::gentypeParameter(b->shape) && callee->getNumParams() > 0) {
        clang::QualType t = callee->getParamDecl(0)->getType();
        if (!t->isIncompleteType())
          typeBytes = unsigned(ctx_.getTypeSizeInChars(t).getQuantity());
      }
      current_->uses.push_back({b, exchangeBytes(*b, typeBytes)});
      builtinCalls.push_back({b, ce, current_->definition});
      // The image argument block and media IO reach (first for block IO, last for media IO).
      if (const int at = imageArgPosition(*b, ce->getNumArgs()); at >= 0) {
        const clang::Expr* image = ce->getArg(unsigned(at));
        if (image->getType()->isImageType())
          if (const clang::ParmVarDecl* p = namedParam(image)) {
            current_->blockImages.insert(p);
            passed(image);
          }
      }
    } else if (callee->isDefined()) {
      current_->calls.push_back({ce, callee->getCanonicalDecl()});
      for (const clang::Expr* arg : ce->arguments()) passed(arg);
    } else if (callee->getIdentifier() && sizeQuery(callee->getName()) && ce->getNumArgs() == 1) {
      passed(ce->getArg(0));  // a raw-bits view has the image's size: not another use
    } else if (!internal(callee->getLocation()) && callee->getIdentifier()) {
      // Defined by another object of a link: may take the context there.
      externals.insert(callee->getNameAsString());
      current_->calls.push_back({ce, callee->getCanonicalDecl()});
    }
    return true;
  }

  std::map<const clang::FunctionDecl*, Func> funcs;
  std::vector<const clang::FunctionDecl*> order;         // definitions in source order
  std::vector<const clang::FunctionDecl*> declarations;  // every user declaration
  std::vector<const clang::FunctionDecl*> prototypes;    // user redeclarations of builtins
  std::vector<BuiltinCall> builtinCalls;
  std::vector<std::string> userDefined;
  std::vector<const clang::ParmVarDecl*> readWriteParams;
  std::set<std::string> externals;  // called here, defined elsewhere

 private:
  clang::ASTContext& ctx_;
  clang::SourceManager& sm_;
  const DeviceTraits& traits_;
  Func* current_ = nullptr;
};

}  // namespace isg::detail
