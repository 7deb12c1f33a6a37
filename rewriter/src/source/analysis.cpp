// SPDX-License-Identifier: MIT
// The source analysis (analysis.h): one parse through the Clang session (clang_session.h), a
// walk of the user's functions, the closure of those that need the sub-group context, the
// kernels' manifests, and the byte edits (editor.h) that thread the context through.
#include "source/analysis.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/FileSystem.h>

#include "common/arg_info.h"
#include "common/clang_session.h"
#include "source/divergence.h"
#include "source/editor.h"
#include "isg/build_options.h"
#include "common/kernel_facts.h"
#include "source/predication.h"
#include "common/prescan.h"
#include "common/table.h"

namespace isg::detail {
namespace {

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
const clang::ParmVarDecl* namedParam(const clang::Expr* e) {
  const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->IgnoreParenImpCasts());
  return ref ? llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl()) : nullptr;
}

const Builtin* builtinFor(const clang::FunctionDecl* fd) {
  const clang::IdentifierInfo* id = fd->getIdentifier();
  if (!id || fd->isDefined()) return nullptr;
  return findBuiltin(id->getName());
}

// Image queries a raw-bits view of the image answers as the image does (same width, height
// and element size); get_image_channel_* would not.
bool sizeQuery(llvm::StringRef name) {
  return name == "get_image_width" || name == "get_image_height" || name == "get_image_dim";
}

// Walks every user function body once: builtin calls, calls between user functions, and every
// declaration (each one may need the context parameter).
class Collector : public clang::RecursiveASTVisitor<Collector> {
  using Base = clang::RecursiveASTVisitor<Collector>;

 public:
  Collector(clang::ASTContext& ctx, bool readWriteImages)
      : ctx_(ctx), sm_(ctx.getSourceManager()), readWriteImages_(readWriteImages) {}

  bool internal(SourceLocation loc) const {
    if (loc.isInvalid()) return true;
    return FileNames::internal(sm_.getFilename(sm_.getExpansionLoc(loc)));
  }

  bool TraverseFunctionDecl(clang::FunctionDecl* fd) {
    if (internal(fd->getLocation())) return true;
    if (!fd->doesThisDeclarationHaveABody() && findBuiltin(fd->getName()))
      prototypes.push_back(fd);  // the program's own prototype of a builtin we declare
    declarations.push_back(fd);
    if (!fd->doesThisDeclarationHaveABody()) return Base::TraverseFunctionDecl(fd);
    const clang::FunctionDecl* canon = fd->getCanonicalDecl();
    Func& f = funcs[canon];
    f.definition = fd;
    f.kernel = fd->hasAttr<clang::OpenCLKernelAttr>();
    order.push_back(canon);
    if (findBuiltin(fd->getName())) userDefined.push_back(fd->getNameAsString());
    Func* saved = current_;
    current_ = &f;
    bool result = Base::TraverseFunctionDecl(fd);
    current_ = saved;
    return result;
  }

  // A kernel parameter of a read_write image on a device that has none (see DeviceTraits).
  bool VisitParmVarDecl(clang::ParmVarDecl* p) {
    if (!readWriteImages_ && !internal(p->getLocation()) && p->getType()->isImageType() &&
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
    if (const Builtin* b = builtinFor(callee)) {
      unsigned typeBytes = 0;
      if ((b->shape == Shape::T_T || b->shape == Shape::T_TU || b->shape == Shape::T_TTU) &&
          callee->getNumParams() > 0) {
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
  const bool readWriteImages_;
  Func* current_ = nullptr;
};

// Where the program expands the stand-in of an Intel-internal builtin (prescan.h).
using InternalUses = std::vector<std::pair<std::string, SourceLocation>>;
class InternalBuiltinUses : public clang::PPCallbacks {
 public:
  explicit InternalBuiltinUses(InternalUses& out) : out_(out) {}
  void MacroExpands(const clang::Token& name, const clang::MacroDefinition&, clang::SourceRange range,
                    const clang::MacroArgs*) override {
    const clang::IdentifierInfo* id = name.getIdentifierInfo();
    if (id && id->getName().startswith(llvm::StringRef(kIntelInternalPrefix.data(), kIntelInternalPrefix.size())))
      out_.emplace_back(id->getName().str(), range.getBegin());
  }

 private:
  InternalUses& out_;
};

class AnalysisConsumer : public clang::ASTConsumer {
 public:
  AnalysisConsumer(const RewriteInput& in, const FileNames& names, Analysis& out, const InternalUses& internal,
                   const IntelInternalBuiltins& builtins)
      : in_(in), names_(names), out_(out), internalUses_(internal), internalBuiltins_(builtins) {}

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ctx.getDiagnostics().hasErrorOccurred()) return;
    Collector c(ctx, in_.traits.readWriteImages);
    c.TraverseDecl(ctx.getTranslationUnitDecl());
    Editor ed(ctx.getSourceManager(), ctx.getLangOpts(), names_);
    checkIntelInternal(ctx, c, ed);
    checkMediaRegions(ctx, c, ed);
    findExternalContext(c);
    const Closure closure = contextClosure(c);
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
    const std::set<const clang::FunctionDecl*> predicated = predicateDivergentFlow(ctx, c, closure, ed);
    if (in_.traits.strategy == Strategy::Local) warnDivergentCalls(ctx, c, predicated, ed);
    ed.checkSharedSites();

    if (!ed.errors.empty()) {
      out_.log = ed.errors;
      return;
    }
    out_.warnings = std::move(ed.warnings);
    out_.edits = std::move(ed.edits);
    out_.ok = true;
  }

 private:
  // The phases of the analysis, in the order HandleTranslationUnit runs them.
  using Closure = std::set<const clang::FunctionDecl*>;
  using ManifestIndex = std::map<const clang::FunctionDecl*, std::size_t>;  // in out_.kernels

  // Intel-internal builtins (prescan.h): a call no kernel can reach keeps its stand-in (the
  // driver compiles the function and never runs it, as Intel's own compiler does); one a kernel
  // reaches, or one outside any function, fails the build at its line, since no other driver
  // has the builtin and a stand-in would compute something else. In a compiled object a
  // function with external linkage may serve another object's kernel: only static ones count
  // as unreachable there.
  void checkIntelInternal(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
    if (internalUses_.empty()) return;
    const clang::SourceManager& sm = ctx.getSourceManager();
    std::map<const clang::FunctionDecl*, const clang::FunctionDecl*> kernelOf;  // reached -> a kernel
    std::vector<const clang::FunctionDecl*> work;
    for (const auto& [fd, f] : c.funcs)
      if (f.kernel || (in_.compiledObject && f.definition && f.definition->getStorageClass() != clang::SC_Static)) {
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
    for (const auto& [name, loc] : internalUses_) {
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
        const std::string by = !within ? "it is outside any function"
                               : reached->second == within
                                   ? (c.funcs.at(within).kernel ? "kernel '" : "function '") +
                                         within->getNameAsString() + "' calls it" +
                                         (c.funcs.at(within).kernel ? "" : " and may serve another object's kernel")
                                   : "kernel '" + reached->second->getNameAsString() + "' reaches it through '" +
                                         within->getNameAsString() + "'";
        ed.error(loc, "'" + name + "' is internal to Intel's GPU compiler and no other driver has it; " + by +
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

  static bool isKernel(const Collector& c, const clang::FunctionDecl* canon) {
    auto it = c.funcs.find(canon);
    return it != c.funcs.end() && it->second.kernel;
  }

  // Inserts `text` right after the '{' of `fd`'s body, on the brace's line (the stand-ins a
  // kernel's parameters are declared under). False for a declaration without a body.
  static bool addAtBodyStart(clang::SourceManager& sm, const clang::FunctionDecl* fd,
                             const std::string& text, Editor& ed) {
    if (!fd->doesThisDeclarationHaveABody()) return false;
    const auto* body = llvm::dyn_cast_or_null<clang::CompoundStmt>(fd->getBody());
    if (!body) return false;
    ed.add(sm.getSpellingLoc(body->getLBracLoc()), 1, 0, text, fd->getLocation(),
           "the body of kernel '" + fd->getNameAsString() + "'");
    return true;
  }

  // read_write image2d_t parameters on a device without read-write images (NVIDIA): a kernel's
  // becomes write_only (the application's argument keeps its place) plus a hidden buffer of
  // its texels, wrapped at the kernel's start in the library's __isg_rw_image_t under the
  // parameter's own name; a helper's becomes __isg_rw_image_t. Block and media IO and the size
  // queries run on it (75-image.cl); other image functions cannot, and say so here.
  void emulateReadWriteImages(clang::ASTContext& ctx, const Collector& c,
                              const ManifestIndex& manifestOf, Editor& ed) {
    if (c.readWriteParams.empty()) return;
    clang::SourceManager& sm = ctx.getSourceManager();
    for (const clang::ParmVarDecl* p : c.readWriteParams) {
      const std::string name = p->getNameAsString();
      const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(p->getDeclContext());
      if (!fd || name.empty() || !p->getType()->isOCLImage2dRWType()) {
        ed.error(p->getLocation(), "parameter '" + name + "' is a read_write image, which this "
                                   "device does not support (CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS "
                                   "is 0); the layer stands in for named read_write image2d_t "
                                   "parameters only");
        continue;
      }
      auto f = c.funcs.find(fd->getCanonicalDecl());
      if (f != c.funcs.end() && f->second.otherImageUses.count(p)) {
        ed.error(p->getLocation(), "parameter '" + name + "' is a read_write image, which this "
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
        ed.error(p->getLocation(), "cannot rewrite " + what + ": its type is not spelled "
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

  // DeviceTraits::alignLocalArgs (NVIDIA): a kernel parameter pointing to local memory whose
  // pointee needs less than 16 bytes of alignment becomes `__local uint4* <name>__isg_local`, and
  // the body starts by declaring the parameter's own name and type from it. Parameters spelled
  // through macros keep the driver's layout.
  void alignLocalPointerArgs(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
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
        wrap += declared + name + " = (" +
                type.getUnqualifiedType().getAsString(policy) + ")" + name + "__isg_local; ";
      }
      if (!wrap.empty()) addAtBodyStart(sm, fd, wrap, ed);
    }
  }

  // cl_intel_media_block_io: "The width and height of the region must be compile-time
  // constants", from its Table 6.X (widths of 4 to 32 bytes, 4-byte aligned, each with a
  // tallest region). A call whose region is known here and breaks the table fails the build
  // at the user's call, instead of reading a region the spec never defined. "Compile-time
  // constant" is the compiler's notion, after constant propagation (Intel's conformance suite
  // writes `int bwidth = BLOCK_WIDTH;` and passes `bwidth`): what the parse cannot fold is not
  // refused, and the library computes such a region at run time.
  static std::optional<long long> foldRegionValue(clang::ASTContext& ctx, const clang::Expr* e) {
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
  // Whether `var` is never assigned, incremented or has its address taken after its
  // initialisation, within its function.
  static bool neverWritten(const clang::VarDecl* var) {
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
  static void checkMediaRegions(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
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

  // Whether every member of a sub-group must reach a call of `b` (an exchange, or a barrier).
  static bool exchanges(const Builtin& b) { return b.family == "barrier" || exchangeBytes(b, 4) != 0; }

  // Kernels whose exchanges in control flow that only some work-items take now give every
  // work-item a part in them (predication.h): the canonical declarations of those rewritten.
  std::set<const clang::FunctionDecl*> predicateDivergentFlow(clang::ASTContext& ctx, const Collector& c,
                                                              const Closure& closure, Editor& ed) const {
    std::set<const clang::FunctionDecl*> done;
    if (in_.traits.strategy == Strategy::Native) return done;
    DivergenceCheck check(ctx);
    for (const clang::FunctionDecl* canon : c.order) {
      const Func& f = c.funcs.at(canon);
      if (!f.kernel) continue;
      KernelExchanges k;
      k.kernel = f.definition;
      for (const BuiltinCall& bc : c.builtinCalls)
        if (bc.function == f.definition && exchanges(*bc.builtin)) k.builtins[bc.expr] = bc.builtin;
      for (const Call& call : f.calls)
        if (closure.count(call.callee)) k.helpers.insert(call.expr);
      if (predicateKernel(ctx, check, k, ed)) done.insert(canon);
    }
    return done;
  }

  // The local strategy exchanges through work-group barriers: a builtin that only some
  // work-items of a work-group reach, where predication could not give the others a part, breaks
  // there (divergence.h). One warning per call.
  void warnDivergentCalls(clang::ASTContext& ctx, const Collector& c,
                          const std::set<const clang::FunctionDecl*>& predicated, Editor& ed) const {
    DivergenceCheck check(ctx);
    std::set<unsigned> reported;
    for (const BuiltinCall& bc : c.builtinCalls) {
      const Builtin& b = *bc.builtin;
      if (!exchanges(b)) continue;  // needs no barrier
      if (bc.function && predicated.count(bc.function->getCanonicalDecl())) continue;
      const clang::Expr* guard = check.guardOf(bc.function, bc.expr);
      std::set<const clang::FunctionDecl*> visited;
      if (!guard && bc.function) guard = guardInCallers(check, c, bc.function->getCanonicalDecl(), &visited);
      if (!guard) continue;
      const SourceLocation at = ctx.getSourceManager().getSpellingLoc(bc.expr->getBeginLoc());
      if (!reported.insert(at.getRawEncoding()).second) continue;
      ed.warning(bc.expr->getBeginLoc(),
                 "'" + b.name + "' may be reached by only some work-items of a work-group (see " +
                     ed.where(guard->getBeginLoc()) + "); the local sub-group strategy "
                     "exchanges through work-group barriers, which every work-item must reach, "
                     "so such a launch may hang or give results that differ from Intel's (README, "
                     "known limits)");
    }
  }

  // The guard of a call of `fn` (or of its callers, up to the kernels) by a work-item dependent
  // condition.
  static const clang::Expr* guardInCallers(DivergenceCheck& check, const Collector& c,
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

  // The functions the program calls without defining them that another object of the link
  // gave the context (RewriteInput::externalContext).
  void findExternalContext(const Collector& c) {
    for (const auto& [fd, f] : c.funcs)
      for (const Call& call : f.calls) {
        if (c.funcs.count(call.callee)) continue;
        const std::string name = call.callee->getNameAsString();
        for (const ContextFunction& e : in_.externalContext)
          if (e.name == name) externalContext_[call.callee] = &e;
      }
  }

  // Functions that reach a builtin through any chain of calls: they take the sub-group context.
  Closure contextClosure(const Collector& c) const {
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
    }
    return closure;
  }

  // What `root` reaches through context-taking calls: the builtins and families (from other
  // objects' functions), and the widest value exchanged.
  struct Reach {
    std::set<const Builtin*> builtins;
    std::set<std::string> externalFamilies;
    unsigned widest = 0;
  };
  Reach reachFrom(const Collector& c, const Closure& closure, const clang::FunctionDecl* root) const {
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
    return r;
  }

  // The program-wide facts of the result: families used, user-defined and external functions.
  void summarise(const Collector& c, const Closure& closure) {
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

  // Calls of user functions: those that take the context get it as their first argument.
  void editCallSites(const Collector& c, const Closure& closure, Editor& ed) {
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
          if (threaded) ed.error(call.expr->getBeginLoc(), "cannot find the argument list of " + what);
          continue;
        }
        if (threaded)
          ed.addLeading(*paren, /*declaration=*/false, call.expr->getBeginLoc(), what);
        else
          ed.markPlain(*paren);
      }
    }
  }

  // Builtin calls reach the library through the prelude's macros, one arity per name. A
  // call whose '(' also serves a context-taking user function (a macro that calls its
  // argument, `#define DEF(f) ... f(p)`, expanded with a builtin and with a helper) already
  // gets the context there, so its name becomes the library function itself; a call with
  // another argument count than the name's macro gets a macro of its own.
  //
  // On nvidia-ptx, a call in a kernel whose warps are all whole (wholeWarps) that every
  // work-item of the work-group reaches together (UniformFlow) takes the converged context
  // instead, `__ISG_CV<count>_<name>`: its warp instructions use the constant full member mask,
  // which spares the activemask and lets ptxas schedule as for CUDA's __shfl_sync(0xffffffff).
  // A call spelled inside a macro keeps the ordinary one (the macro may expand elsewhere too).
  void editBuiltinCalls(clang::ASTContext& ctx, const Collector& c, Editor& ed) {
    UniformFlow flow(ctx);
    std::map<std::string, std::map<unsigned, unsigned>> counts;  // name -> arity -> calls
    for (const BuiltinCall& bc : c.builtinCalls) ++counts[bc.builtin->name][bc.expr->getNumArgs()];
    for (const auto& [name, byArity] : counts) {
      unsigned primary = usualArity(*findBuiltin(name));
      if (!byArity.count(primary)) primary = byArity.begin()->first;
      out_.macroArity.emplace_back(name, primary);
    }
    std::set<std::pair<std::string, unsigned>> extras, converged, facts;
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
      if (const clang::ParmVarDecl* image = factsImage(c, bc, nameLoc)) {
        ed.rename(nameLoc, name, "__ISG_IF" + std::to_string(n) + "_" + name, bc.expr->getBeginLoc(), what);
        facts.emplace(name, n);
        factsParams_.insert(image);
        continue;
      }
      if (nameLoc.isFileID() && wholeWarps(c, bc.function) && flow.reachedTogether(bc.function, bc.expr)) {
        ed.rename(nameLoc, name, "__ISG_CV" + std::to_string(n) + "_" + name, bc.expr->getBeginLoc(), what);
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
    // The program's own prototypes of builtins stay declarations of the names, which the
    // parentheses keep from expanding as the prelude's function-like macros.
    for (const clang::FunctionDecl* fd : c.prototypes) {
      std::string name = fd->getNameAsString();
      ed.rename(fd->getLocation(), name, "(" + name + ")", fd->getLocation(),
                "the declaration of '" + name + "'");
    }
  }

  // The kernel's image parameter a block or media IO call names as its image, spelled as the
  // bare parameter name in the kernel's own text (its macro pastes `<name>__isg_facts` from it),
  // when the kernel's parameter lists can take the facts: else null, and the call queries the
  // format (75-image.cl). Read_write images the layer stands in for carry their own header.
  const clang::ParmVarDecl* factsImage(const Collector& c, const BuiltinCall& bc,
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

  // The facts parameters factsImage chose, after every other hidden parameter of the kernel.
  void passImageFacts(clang::ASTContext& ctx, const Collector& c, const ManifestIndex& manifestOf,
                      Editor& ed) {
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

  // Whether `fn` is a kernel whose every warp is whole on nvidia-ptx: a required work-group
  // size of a multiple of 32 work-items, and work-groups that are all that size.
  bool wholeWarps(const Collector& c, const clang::FunctionDecl* fn) const {
    if (in_.traits.strategy != Strategy::NvidiaPtx || !fn || !isKernel(c, fn->getCanonicalDecl())) return false;
    const auto* w = fn->getAttr<clang::ReqdWorkGroupSizeAttr>();
    if (!w || allowsNonUniformWorkGroups(in_.options, /*fromSpirv=*/false)) return false;
    const std::size_t items = std::size_t(w->getXDim()) * w->getYDim() * w->getZDim();
    return items != 0 && items % 32 == 0;
  }

  // Image parameters that reach block IO, and those other image functions use, followed
  // through helper calls to the kernels.
  static void followBlockImages(Collector& c) {
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

  // Kernel manifests, and where each kernel's is.
  ManifestIndex buildManifests(clang::ASTContext& ctx, Collector& c, const Closure& closure,
                               Editor& ed) {
    ManifestIndex manifestOf;
    const bool uniformGroups = !allowsNonUniformWorkGroups(in_.options, /*fromSpirv=*/false);
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
      const auto* w = def->getAttr<clang::ReqdWorkGroupSizeAttr>();
      if (!km.requiredSubGroupSize && in_.traits.subGroupSizeFromLaunch) {
        // S from the rows: known now where the work-group size is, else at each launch where
        // the strategy's library can take it then.
        km.subGroupSize = launchSubGroupSize(w ? w->getXDim() : 0, in_.traits.defaultSubGroupSize);
        km.launchSubGroupSize = !w && factsOf(in_.traits.strategy).launchSubGroupSize;
      }
      if (std::string why = unsupportedSize(km, in_.traits); !why.empty())
        ed.error(def->getLocation(), why);
      if (w) {
        km.reqdWorkGroupSize[0] = w->getXDim();
        km.reqdWorkGroupSize[1] = w->getYDim();
        km.reqdWorkGroupSize[2] = w->getZDim();
        std::size_t items = km.reqdWorkGroupSize[0] * km.reqdWorkGroupSize[1] * km.reqdWorkGroupSize[2];
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
      }
      manifestOf[canon] = out_.kernels.size();
      out_.kernels.push_back(std::move(km));
    }
    return manifestOf;
  }

  // Declarations: helpers take the context first; kernels get the hidden arguments and the
  // prologue that creates the context.
  void editDeclarations(clang::ASTContext& ctx, const Collector& c, const Closure& closure,
                        const ManifestIndex& manifestOf, Editor& ed) {
    const std::vector<HiddenParam> hidden = hiddenParams(in_.traits);
    std::string hiddenText;
    for (const HiddenParam& h : hidden)
      hiddenText += (hiddenText.empty() ? "" : ", ") + std::string(h.declaration);
    clang::SourceManager& sm = ctx.getSourceManager();
    // Kernels by the spelling of their body's brace (several where a macro defines them), each
    // group's scratch slot widened to its widest.
    std::map<unsigned, std::vector<std::size_t>> prologueSharers;
    for (const auto& [canon, index] : manifestOf) {
      const clang::FunctionDecl* def = c.funcs.at(canon).definition;
      const auto* body = def ? llvm::dyn_cast_or_null<clang::CompoundStmt>(def->getBody()) : nullptr;
      if (body) prologueSharers[sm.getSpellingLoc(body->getLBracLoc()).getRawEncoding()].push_back(index);
    }
    for (const auto& [brace, group] : prologueSharers) {
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
          ed.error(fd->getLocation(), "cannot find the body of kernel '" + fd->getNameAsString() + "'");
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
          if (other.subGroupSize != km.subGroupSize || other.launchSubGroupSize != km.launchSubGroupSize) {
            ed.error(fd->getLocation(),
                     "kernels '" + km.name + "' (sub-group size " + std::to_string(km.subGroupSize) +
                         ") and '" + other.name + "' (" + std::to_string(other.subGroupSize) +
                         ") have their bodies in one macro: the layer writes one prologue there, "
                         "for one sub-group size; define them with separate macros");
            break;
          }
          sameShape &= other.wholeSubGroups == km.wholeSubGroups &&
                       std::equal(std::begin(other.reqdWorkGroupSize),
                                  std::end(other.reqdWorkGroupSize),
                                  std::begin(km.reqdWorkGroupSize));
        }
        std::string args = (km.launchSubGroupSize ? std::string("__ISG_LAUNCH_S((uint)get_local_size(0))")
                                                  : std::to_string(km.subGroupSize)) +
                           ", " + std::to_string(km.scratchBytesPerItem);
        for (std::size_t d : km.reqdWorkGroupSize)
          args += ", " + std::to_string(km.wholeSubGroups && sameShape ? d : 0);
        ed.add(brace, 1, 0, "__ISG_KERNEL_PROLOGUE(" + args + ") ",
               fd->getLocation(), "the body of kernel '" + fd->getNameAsString() + "'");
      }
    }
  }

 private:
  const RewriteInput& in_;
  const FileNames& names_;
  Analysis& out_;
  const InternalUses& internalUses_;
  const IntelInternalBuiltins& internalBuiltins_;  // every one the program's text names
  std::map<const clang::FunctionDecl*, const ContextFunction*> externalContext_;
  std::set<const clang::ParmVarDecl*> factsParams_;  // kernel images passed with their facts
};

// Records the program's #include directives and the files read from disk, for folding edited
// disk headers into the text the driver gets and for keying the cache on their contents.
class IncludeRecorder : public clang::PPCallbacks {
 public:
  IncludeRecorder(clang::SourceManager& sm, const FileNames& names, Analysis& out)
      : sm_(sm), names_(names), out_(out) {}

  // The name FileEdit uses for the file of `loc`, or "" for the layer's own files.
  std::string fileName(SourceLocation loc) const {
    clang::FileID fid = sm_.getFileID(sm_.getExpansionLoc(loc));
    if (fid == sm_.getMainFileID()) return names_.mainName();
    llvm::StringRef path = sm_.getFilename(sm_.getExpansionLoc(loc));
    if (const std::string* n = names_.editable(path)) return *n;
    if (path.empty() || FileNames::internal(path)) return {};
    return path.str();
  }

  void FileChanged(SourceLocation loc, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    if (reason != EnterFile || loc.isInvalid()) return;
    clang::FileID fid = sm_.getFileID(loc);
    if (fid == sm_.getMainFileID()) return;
    llvm::StringRef path = sm_.getFilename(loc);
    if (path.empty() || FileNames::internal(path) || names_.editable(path)) return;
    for (const SourceFile& f : out_.diskFiles)
      if (f.name == path) return;
    out_.diskFiles.push_back(SourceFile{path.str(), sm_.getBufferData(fid).str()});
  }

  void InclusionDirective(SourceLocation hash, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange, llvm::Optional<clang::FileEntryRef> file,
                          llvm::StringRef, llvm::StringRef, const clang::Module*,
                          clang::SrcMgr::CharacteristicKind) override {
    if (!file || hash.isMacroID()) return;
    IncludeDirective d;
    d.file = fileName(hash);
    if (d.file.empty()) return;
    auto [fid, offset] = sm_.getDecomposedLoc(hash);
    llvm::StringRef buffer = sm_.getBufferData(fid);
    std::size_t end = buffer.find('\n', offset);
    if (end == llvm::StringRef::npos) end = buffer.size();
    if (end > offset && buffer[end - 1] == '\r') --end;
    d.begin = offset;
    d.end = unsigned(end);
    llvm::StringRef path = file->getName();
    if (const std::string* n = names_.editable(path)) d.target = *n;
    else if (!FileNames::internal(path)) d.target = path.str();
    llvm::SmallString<256> absolute(file->getFileEntry().tryGetRealPathName());
    if (absolute.empty()) {
      absolute = path;
      llvm::sys::fs::make_absolute(absolute);
    }
    d.targetPath = std::string(absolute.str());
    d.entered = true;
    out_.includes.push_back(std::move(d));
    last_ = out_.includes.size();
  }

  void PragmaOpenCLExtension(SourceLocation nameLoc, const clang::IdentifierInfo*, SourceLocation,
                             unsigned) override {
    if (nameLoc.isMacroID()) return;  // _Pragma in a macro: no line of the program to blank
    std::string file = fileName(nameLoc);
    if (!file.empty()) out_.activeExtensionPragmas.emplace_back(file, sm_.getFileOffset(nameLoc));
  }

  void FileSkipped(const clang::FileEntryRef&, const clang::Token&,
                   clang::SrcMgr::CharacteristicKind) override {
    if (last_ != 0) out_.includes[last_ - 1].entered = false;
  }

 private:
  clang::SourceManager& sm_;
  const FileNames& names_;
  Analysis& out_;
  std::size_t last_ = 0;
};

class AnalysisAction : public clang::ASTFrontendAction {
 public:
  AnalysisAction(const RewriteInput& in, const FileNames& names, Analysis& out, const IntelInternalBuiltins& builtins)
      : in_(in), names_(names), out_(out), internalBuiltins_(builtins) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    ci.getPreprocessor().addPPCallbacks(
        std::make_unique<IncludeRecorder>(ci.getSourceManager(), names_, out_));
    ci.getPreprocessor().addPPCallbacks(std::make_unique<InternalBuiltinUses>(internalUses_));
    return std::make_unique<AnalysisConsumer>(in_, names_, out_, internalUses_, internalBuiltins_);
  }

 private:
  const RewriteInput& in_;
  const FileNames& names_;
  Analysis& out_;
  InternalUses internalUses_;
  const IntelInternalBuiltins& internalBuiltins_;
};

}  // namespace

Analysis analyzeProgram(const RewriteInput& in) {
  Analysis out;
  out.compiledObject = in.compiledObject;
  FileNames names(in);
  std::string log;
  const IntelInternalBuiltins internal = intelInternalBuiltins(in);  // read once: disk includes too
  bool ok = runClang(in, /*codegen=*/false, CodegenTarget::Spir,
                     std::make_unique<AnalysisAction>(in, names, out, internal), names, &log, &internal);
  if (!ok || !out.ok) {
    std::string diagnostics = log;
    if (!out.log.empty()) diagnostics += out.log;
    if (diagnostics.empty()) diagnostics = "error: the sub-group rewriter could not parse the program\n";
    out.ok = false;
    out.log = diagnostics;
    out.edits.clear();
    out.kernels.clear();
  }
  return out;
}

}  // namespace isg::detail
