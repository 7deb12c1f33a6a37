// SPDX-License-Identifier: MIT
// The source analysis' phases for images and media IO (analysis_consumer.h): read-write images
// stood in for, local pointer arguments aligned, media regions checked, image facts passed.
#include <algorithm>

#include "common/kernel_facts.h"
#include "isg/build_options.h"
#include "source/analysis_consumer.h"

namespace isg::detail {

void AnalysisConsumer::emulateReadWriteImages(clang::ASTContext& ctx, const Collector& c,
                                              const ManifestIndex& manifestOf, Editor& ed) {
  if (c.readWriteParams.empty()) return;
  clang::SourceManager& sm = ctx.getSourceManager();
  for (const clang::ParmVarDecl* p : c.readWriteParams) {
    const std::string name = p->getNameAsString();
    const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(p->getDeclContext());
    if (!fd || name.empty() || !p->getType()->isOCLImage2dRWType()) {
      ed.error(p->getLocation(), "parameter '" + name +
                                     "' is a read_write image, which this "
                                     "device does not support (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS "
                                     "is 0); the layer stands in for named read_write image2d_t "
                                     "parameters only");
      continue;
    }
    auto f = c.funcs.find(fd->getCanonicalDecl());
    if (f != c.funcs.end() && f->second.otherImageUses.count(p)) {
      ed.error(p->getLocation(),
               "parameter '" + name +
                   "' is a read_write image, which this "
                   "device does not support; the layer stands in for it with "
                   "block and media IO (intel_sub_group_block_*, "
                   "intel_sub_group_media_block_*) and get_image_width/height/dim "
                   "only, and the kernel uses it otherwise");
      continue;
    }
    // The access qualifier and the type, spelled before the name.
    std::optional<clang::Token> qualifier, type;
    SourceLocation at = sm.getSpellingLoc(p->getBeginLoc());
    const SourceLocation nameLoc = sm.getSpellingLoc(p->getLocation());
    for (int n = 0; n < 8 && at.isValid() && at != nameLoc; ++n) {
      auto t = ed.tokenAt(at);
      if (!t) break;
      if (t->is(clang::tok::raw_identifier)) {
        const llvm::StringRef id = t->getRawIdentifier();
        if (id == "read_write" || id == "__read_write") qualifier = t;
        if (id == "image2d_t") type = t;
      }
      auto next = ed.tokenAfter(at);
      if (!next) break;
      at = next->getLocation();
    }
    const std::string what = "read_write image parameter '" + name + "'";
    if (qualifier && type &&
        (sm.getFileID(qualifier->getLocation()) != sm.getFileID(type->getLocation()) ||
         sm.getFileOffset(type->getLocation()) < sm.getFileOffset(qualifier->getLocation())))
      type.reset();  // spelled apart (macros): not one stretch of text to replace
    if (!qualifier || !type) {
      ed.error(p->getLocation(), "cannot rewrite " + what +
                                     ": its type is not spelled "
                                     "'read_write image2d_t' at the parameter");
      continue;
    }
    if (isKernel(c, fd->getCanonicalDecl())) {
      ed.add(qualifier->getLocation(), 0, qualifier->getLength(), "write_only", p->getLocation(),
             what);
      ed.add(nameLoc, 0, unsigned(name.size()), name + "__isg_img", p->getLocation(), what);
    } else {
      const unsigned length = unsigned(sm.getFileOffset(type->getLocation()) -
                                       sm.getFileOffset(qualifier->getLocation())) +
                              type->getLength();
      ed.add(qualifier->getLocation(), 0, length, "__isg_rw_image_t", p->getLocation(), what);
    }
  }
  // Kernels: the hidden buffers after every other argument, the wrappers at the start.
  for (const clang::FunctionDecl* fd : c.declarations) {
    const clang::FunctionDecl* canon = fd->getCanonicalDecl();
    if (!isKernel(c, canon) || !manifestOf.count(canon)) continue;
    KernelManifest& km = out_.kernels[manifestOf.at(canon)];
    std::string hidden, wrap;
    std::vector<unsigned> images;
    for (unsigned i = 0; i < fd->getNumParams(); ++i) {
      const clang::ParmVarDecl* p = fd->getParamDecl(i);
      if (std::find(c.readWriteParams.begin(), c.readWriteParams.end(), p) ==
          c.readWriteParams.end())
        continue;
      const std::string name = p->getNameAsString();
      hidden += ", __global uchar* " + name + "__isg_raw";
      wrap += "__isg_rw_image_t " + name + " = __isg_rw_image(" + name + "__isg_raw); ";
      images.push_back(i);
    }
    if (images.empty()) continue;
    clang::FunctionTypeLoc ftl = fd->getFunctionTypeLoc();
    if (!ftl) continue;  // editDeclarations has said why
    const std::string what = "the parameters of kernel '" + fd->getNameAsString() + "'";
    ed.add(sm.getSpellingLoc(ftl.getRParenLoc()), 0, 0, hidden, fd->getLocation(), what);
    if (!addAtBodyStart(sm, fd, wrap, ed)) continue;  // the manifest once, at the definition
    for (unsigned i : images) addTexelBuffer(i, &km);
  }
}

void AnalysisConsumer::alignLocalPointerArgs(clang::ASTContext& ctx, const Collector& c,
                                             Editor& ed) {
  if (!in_.traits.alignLocalArgs) return;
  clang::SourceManager& sm = ctx.getSourceManager();
  const clang::PrintingPolicy policy = ctx.getPrintingPolicy();
  for (const clang::FunctionDecl* fd : c.declarations) {
    if (!isKernel(c, fd->getCanonicalDecl())) continue;
    std::string wrap;
    for (const clang::ParmVarDecl* p : fd->parameters()) {
      const clang::QualType type = p->getType();
      if (!type->isPointerType()) continue;
      const clang::QualType pointee = type->getPointeeType();
      if (pointee.getAddressSpace() != clang::LangAS::opencl_local) continue;
      if (!pointee->isIncompleteType() && ctx.getTypeAlignInChars(pointee).getQuantity() >= 16)
        continue;
      const std::string name = p->getNameAsString();
      const SourceLocation begin = p->getBeginLoc(), nameLoc = p->getLocation();
      if (name.empty() || begin.isMacroID() || nameLoc.isMacroID() ||
          sm.getFileID(begin) != sm.getFileID(nameLoc))
        continue;
      const unsigned from = sm.getFileOffset(begin);
      const unsigned to = sm.getFileOffset(nameLoc) + unsigned(name.size());
      if (to <= from) continue;
      const llvm::StringRef spelled = sm.getBufferData(sm.getFileID(begin)).substr(from, to - from);
      // Every user line stays where it was (the line map).
      const std::string newlines(size_t(spelled.count('\n')), '\n');
      const std::string what = "local pointer parameter '" + name + "'";
      ed.add(begin, 0, to - from, "__local uint4* " + name + "__isg_local" + newlines,
             p->getLocation(), what);
      std::string declared = ctx.removeAddrSpaceQualType(type).getAsString(policy);
      if (!declared.empty() && declared.back() != '*' && declared.back() != ' ') declared += ' ';
      wrap += declared + name + " = (" + type.getUnqualifiedType().getAsString(policy) + ")" +
              name + "__isg_local; ";
    }
    if (!wrap.empty()) addAtBodyStart(sm, fd, wrap, ed);
  }
}

std::optional<long long> AnalysisConsumer::foldRegionValue(clang::ASTContext& ctx,
                                                           const clang::Expr* e) {
  if (e->isValueDependent()) return std::nullopt;
  clang::Expr::EvalResult r;
  if (e->EvaluateAsInt(r, ctx)) return r.Val.getInt().getExtValue();
  // A local initialised once and never written again: the compiler propagates its value.
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  const auto* var = ref ? llvm::dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
  if (!var || !var->isLocalVarDecl() || !var->getInit() ||
      !(var->getType().isConstQualified() || neverWritten(var)))
    return std::nullopt;
  return foldRegionValue(ctx, var->getInit());
}

bool AnalysisConsumer::neverWritten(const clang::VarDecl* var) {
  struct Finder : clang::RecursiveASTVisitor<Finder> {
    const clang::VarDecl* var;
    bool written = false;
    bool names(const clang::Expr* e) const {
      const auto* r = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
      return r && r->getDecl() == var;
    }
    bool VisitBinaryOperator(clang::BinaryOperator* b) {
      if (b->isAssignmentOp() && names(b->getLHS())) written = true;
      return !written;
    }
    bool VisitUnaryOperator(clang::UnaryOperator* u) {
      if ((u->isIncrementDecrementOp() || u->getOpcode() == clang::UO_AddrOf) &&
          names(u->getSubExpr()))
        written = true;
      return !written;
    }
  } finder;
  finder.var = var;
  const auto* fn = llvm::dyn_cast_or_null<clang::FunctionDecl>(var->getParentFunctionOrMethod());
  if (!fn || !fn->getBody()) return false;
  finder.TraverseStmt(fn->getBody());
  return !finder.written;
}

void AnalysisConsumer::checkMediaRegions(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
  for (const BuiltinCall& call : c.builtinCalls) {
    const Builtin& b = *call.builtin;
    if (b.shape != Shape::MediaRead && b.shape != Shape::MediaWrite) continue;
    if (call.expr->getNumArgs() < 3) continue;  // Clang has already refused the call
    const unsigned elementBytes = b.element == "uchar" ? 1 : b.element == "ushort" ? 2 : 4;
    const char* unit = elementBytes == 1 ? "bytes" : elementBytes == 2 ? "words" : "dwords";
    const auto width = foldRegionValue(ctx, call.expr->getArg(1));
    const auto height = foldRegionValue(ctx, call.expr->getArg(2));
    if (!width) {
      if (height && (*height < 1 || *height > table::mediaMaxHeight(4)))
        ed.error(call.expr->getArg(2)->getBeginLoc(),
                 b.name + ": a height of " + std::to_string(*height) + " rows is not allowed: " +
                     "the height must be 1 to " + std::to_string(table::mediaMaxHeight(4)) +
                     " (cl_intel_media_block_io, Table 6.X)");
      continue;
    }
    const long long widthBytes = *width * elementBytes;
    const unsigned most =
        widthBytes > 0 && widthBytes <= 32 ? table::mediaMaxHeight(unsigned(widthBytes)) : 0;
    if (most == 0) {
      ed.error(call.expr->getArg(1)->getBeginLoc(),
               b.name + ": a width of " + std::to_string(*width) + " " + unit +
                   (elementBytes == 1 ? "" : " (" + std::to_string(widthBytes) + " bytes)") +
                   " is not allowed: the width must be 4 to 32 bytes and a multiple of 4 "
                   "(cl_intel_media_block_io)");
    } else if (height && (*height < 1 || *height > most)) {
      ed.error(call.expr->getArg(2)->getBeginLoc(),
               b.name + ": a height of " + std::to_string(*height) + " rows is not allowed for " +
                   "a width of " + std::to_string(widthBytes) + " bytes: the height must be 1 to " +
                   std::to_string(most) + " (cl_intel_media_block_io, Table 6.X)");
    }
  }
}

const clang::ParmVarDecl* AnalysisConsumer::factsImage(const Collector& c, const BuiltinCall& bc,
                                                       SourceLocation nameLoc) const {
  const int at = imageArgPosition(*bc.builtin, bc.expr->getNumArgs());
  if (at < 0 || !nameLoc.isFileID() || !bc.function) return nullptr;
  const clang::Expr* arg = bc.expr->getArg(unsigned(at));
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(arg->IgnoreImpCasts());
  const auto* p = ref ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
  if (!p || !arg->getType()->isImageType() || !ref->getLocation().isFileID() ||
      p->getDeclContext() != bc.function || p->getName().empty())
    return nullptr;
  if (std::find(c.readWriteParams.begin(), c.readWriteParams.end(), p) != c.readWriteParams.end())
    return nullptr;
  const clang::FunctionDecl* canon = bc.function->getCanonicalDecl();
  if (!isKernel(c, canon)) return nullptr;
  for (const clang::FunctionDecl* fd : c.declarations) {
    if (fd->getCanonicalDecl() != canon) continue;
    const clang::FunctionTypeLoc ftl = fd->getFunctionTypeLoc();
    if (!ftl || !ftl.getRParenLoc().isFileID() || fd->getNumParams() == 0) return nullptr;
  }
  return p;
}

void AnalysisConsumer::passImageFacts(clang::ASTContext& ctx, const Collector& c,
                                      const ManifestIndex& manifestOf, Editor& ed) {
  if (factsParams_.empty()) return;
  clang::SourceManager& sm = ctx.getSourceManager();
  for (const clang::FunctionDecl* fd : c.declarations) {
    const clang::FunctionDecl* canon = fd->getCanonicalDecl();
    if (!isKernel(c, canon) || !manifestOf.count(canon)) continue;
    const clang::FunctionDecl* def = c.funcs.at(canon).definition;
    std::string hidden;
    std::vector<unsigned> images;
    for (unsigned i = 0; def && i < def->getNumParams(); ++i)
      if (factsParams_.count(def->getParamDecl(i))) {
        hidden += ", int4 " + def->getParamDecl(i)->getNameAsString() + "__isg_facts";
        images.push_back(i);
      }
    if (images.empty()) continue;
    ed.add(sm.getSpellingLoc(fd->getFunctionTypeLoc().getRParenLoc()), 0, 0, hidden,
           fd->getLocation(), "the parameters of kernel '" + fd->getNameAsString() + "'");
    if (fd == def)
      for (unsigned i : images) addImageFacts(i, &out_.kernels[manifestOf.at(canon)]);
  }
}

void AnalysisConsumer::followBlockImages(Collector& c) {
  for (auto& [fd, f] : c.funcs)
    for (const clang::DeclRefExpr* r : f.imageRefs)
      if (!f.passedImageRefs.count(r))
        f.otherImageUses.insert(llvm::cast<clang::ParmVarDecl>(r->getDecl()));
  for (bool grew = true; grew;) {
    grew = false;
    for (auto& [fd, f] : c.funcs)
      for (const Call& call : f.calls) {
        auto callee = c.funcs.find(call.callee);
        if (callee == c.funcs.end() || !callee->second.definition) continue;
        const clang::FunctionDecl* def = callee->second.definition;
        for (unsigned i = 0; i < def->getNumParams() && i < call.expr->getNumArgs(); ++i) {
          const clang::ParmVarDecl* p = namedParam(call.expr->getArg(i));
          if (!p) continue;
          if (callee->second.blockImages.count(def->getParamDecl(i)))
            grew |= f.blockImages.insert(p).second;
          if (callee->second.otherImageUses.count(def->getParamDecl(i)))
            grew |= f.otherImageUses.insert(p).second;
        }
      }
  }
}

}  // namespace isg::detail
