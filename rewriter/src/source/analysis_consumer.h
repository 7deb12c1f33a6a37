// SPDX-License-Identifier: MIT
// The phases of the source analysis over one parse (analysis.h), in the order
// HandleTranslationUnit runs them: Intel-internal builtins, the context closure, the edits of
// calls and declarations, the manifests, predication (analysis_consumer.cpp), and what images
// and media IO need (image_edits.cpp).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/clang_session.h"
#include "common/llvm_compat.h"
#include "common/prescan.h"
#include "common/program_facts.h"
#include "source/collector.h"
#include "source/divergence.h"
#include "source/editor.h"

namespace isg::detail {

// Where the program expands the stand-in of an Intel-internal builtin (prescan.h).
using InternalUses = std::vector<std::pair<std::string, SourceLocation>>;
class InternalBuiltinUses : public clang::PPCallbacks {
 public:
  explicit InternalBuiltinUses(InternalUses& out) : out_(out) {}
  void MacroExpands(const clang::Token& name, const clang::MacroDefinition&, clang::SourceRange range,
                    const clang::MacroArgs*) override {
    const clang::IdentifierInfo* id = name.getIdentifierInfo();
    if (id && startsWith(id->getName(), llvm::StringRef(kIntelInternalPrefix.data(), kIntelInternalPrefix.size())))
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

  void HandleTranslationUnit(clang::ASTContext& ctx) override;

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
  // Definitions of the Intel-internal builtins the program declares itself, beside their
  // prototypes: drivers link every function a program defines (PoCL fails on the symbol), and
  // only functions no kernel reaches call them (checkIntelInternal refuses the rest).
  static void defineDeclaredInternal(clang::ASTContext& ctx, Editor& ed);
  void checkIntelInternal(clang::ASTContext& ctx, const Collector& c, Editor& ed);

  static bool isKernel(const Collector& c, const clang::FunctionDecl* canon);

  // Inserts `text` right after the '{' of `fd`'s body, on the brace's line (the stand-ins a
  // kernel's parameters are declared under). False for a declaration without a body.
  static bool addAtBodyStart(clang::SourceManager& sm, const clang::FunctionDecl* fd,
                             const std::string& text, Editor& ed);

  // read_write image2d_t parameters on a device without read-write images (NVIDIA): a kernel's
  // becomes write_only (the application's argument keeps its place) plus a hidden buffer of
  // its texels, wrapped at the kernel's start in the library's __isg_rw_image_t under the
  // parameter's own name; a helper's becomes __isg_rw_image_t. Block and media IO and the size
  // queries run on it (75-image.cl); other image functions cannot, and say so here.
  void emulateReadWriteImages(clang::ASTContext& ctx, const Collector& c,
                              const ManifestIndex& manifestOf, Editor& ed);

  // DeviceTraits::alignLocalArgs (NVIDIA): a kernel parameter pointing to local memory whose
  // pointee needs less than 16 bytes of alignment becomes `__local uint4* <name>__isg_local`, and
  // the body starts by declaring the parameter's own name and type from it. Parameters spelled
  // through macros keep the driver's layout.
  void alignLocalPointerArgs(clang::ASTContext& ctx, const Collector& c, Editor& ed);

  // cl_intel_media_block_io: "The width and height of the region must be compile-time
  // constants", from its Table 6.X (widths of 4 to 32 bytes, 4-byte aligned, each with a
  // tallest region). A call whose region is known here and breaks the table fails the build
  // at the user's call, instead of reading a region the spec never defined. "Compile-time
  // constant" is the compiler's notion, after constant propagation (Intel's conformance suite
  // writes `int bwidth = BLOCK_WIDTH;` and passes `bwidth`): what the parse cannot fold is not
  // refused, and the library computes such a region at run time.
  static std::optional<long long> foldRegionValue(clang::ASTContext& ctx, const clang::Expr* e);
  // Whether `var` is never assigned, incremented or has its address taken after its
  // initialisation, within its function.
  static bool neverWritten(const clang::VarDecl* var);
  static void checkMediaRegions(clang::ASTContext& ctx, const Collector& c, Editor& ed);

  // Whether every member of a sub-group must reach a call of `b` (an exchange, or a barrier).
  static bool exchanges(const Builtin& b);

  // Kernels whose exchanges in control flow that only some work-items take now give every
  // work-item a part in them (predication.h): the canonical declarations of those rewritten.
  // The divergence question of the strategy: within a work-group (local) or a sub-group. Built
  // on first use and kept for the program (its facts are the AST's, which edits do not change).
  DivergenceCheck& divergenceCheck(clang::ASTContext& ctx, const Collector& c) const;
  // The launch variant's work-group size (RewriteInput::assumedWorkGroupSize) for the checks.
  bool firstActiveStrategy() const;
  AssumedWorkGroupSize assumedShape() const {
    return {in_.assumedWorkGroupSize[0], in_.assumedWorkGroupSize[1], in_.assumedWorkGroupSize[2]};
  }
  std::set<const clang::FunctionDecl*> predicateDivergentFlow(clang::ASTContext& ctx, const Collector& c,
                                                              const Closure& closure, Editor& ed) const;

  // The local strategy exchanges through work-group barriers: a builtin that only some
  // work-items of a work-group reach, where predication could not give the others a part, breaks
  // there (divergence.h). One warning per call.
  void warnDivergentCalls(clang::ASTContext& ctx, const Collector& c,
                          const std::set<const clang::FunctionDecl*>& predicated, Editor& ed) const;

  // The guard of a call of `fn` (or of its callers, up to the kernels) by a work-item dependent
  // condition.
  static const clang::Expr* guardInCallers(DivergenceCheck& check, const Collector& c,
                                           const clang::FunctionDecl* fn,
                                           std::set<const clang::FunctionDecl*>* visited);

  // The functions the program calls without defining them that another object of the link
  // gave the context (RewriteInput::externalContext).
  void findExternalContext(const Collector& c);

  // Functions that reach a builtin through any chain of calls: they take the sub-group context.
  // So do the functions whose parameter list or body opening one macro spells with such a
  // function's (the layer's edits there are text every expansion shares).
  Closure contextClosure(const clang::SourceManager& sm, const Collector& c) const;

  // What `root` reaches through context-taking calls: the builtins and families (from other
  // objects' functions), and the widest value exchanged.
  struct Reach {
    std::set<const Builtin*> builtins;
    std::set<std::string> externalFamilies;
    unsigned widest = 0;
    std::set<const clang::FunctionDecl*> functions;  // root and the program's functions it calls
  };
  Reach reachFrom(const Collector& c, const Closure& closure, const clang::FunctionDecl* root) const;

  // The program-wide facts of the result: families used, user-defined and external functions.
  void summarise(const Collector& c, const Closure& closure);

  // Calls of user functions: those that take the context get it as their first argument.
  void editCallSites(const Collector& c, const Closure& closure, Editor& ed);

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
  void editBuiltinCalls(clang::ASTContext& ctx, const Collector& c, Editor& ed);

  // Buffer block IO takes one pointer for the whole sub-group, and the spec asks every member to
  // pass the same; OpenVINO's fully connected kernels pass each member's own (`p + 4 * lane`
  // bytes), and Intel's runtime reads from the first member's. nvidia-ptx's library takes the
  // first active member's in every call. Elsewhere, where a call's pointer depends on the
  // work-item and every member reaches it, the call becomes `__ISG_L0_<name>`, whose pointer
  // is the first member's (one exchange of 8 bytes: a use of that size in its function). Calls
  // spelled at one place of a macro body are all changed or none (none where one of them is
  // under work-item dependent flow, which an exchange there would hang on the local strategy:
  // a pointer there that may differ within a sub-group gets a warning, since each member then
  // reads from its own where Intel's driver reads from the first member's). On local and the
  // khr test double a call in a kernel's own text under flow that only some sub-groups take,
  // which every member of its sub-group reaches together (UniformFlow at sub-group scope),
  // goes to the predication instead (hoistPointer_).
  void firstMemberPointers(clang::ASTContext& ctx, Collector& c, Editor& ed);

  // The kernel's image parameter a block or media IO call names as its image, spelled as the
  // bare parameter name in the kernel's own text (its macro pastes `<name>__isg_facts` from it),
  // when the kernel's parameter lists can take the facts: else null, and the call queries the
  // format (75-image.cl). Read_write images the layer stands in for carry their own header.
  const clang::ParmVarDecl* factsImage(const Collector& c, const BuiltinCall& bc,
                                       SourceLocation nameLoc) const;

  // The facts parameters factsImage chose, after every other hidden parameter of the kernel.
  void passImageFacts(clang::ASTContext& ctx, const Collector& c, const ManifestIndex& manifestOf,
                      Editor& ed);

  // Whether `fn` is a kernel whose every warp is whole on nvidia-ptx: a required work-group
  // size of a multiple of 32 work-items, and work-groups that are all that size.
  bool wholeWarps(const Collector& c, const clang::FunctionDecl* fn) const;

  // The work-group size kernel `fn` declares, else the one a launch variant assumes for it
  // (RewriteInput::assumedWorkGroupSize), else {0, 0, 0}; *uniform: whether every work-group
  // is that size (a declared one under the program's non-uniform rule, an assumed one always).
  std::array<std::size_t, 3> workGroupShape(const clang::FunctionDecl* fn, bool* uniform) const;

  // Image parameters that reach block IO, and those other image functions use, followed
  // through helper calls to the kernels.
  static void followBlockImages(Collector& c);

  // Kernel manifests, and where each kernel's is.
  ManifestIndex buildManifests(clang::ASTContext& ctx, Collector& c, const Closure& closure,
                               Editor& ed);

  // Declarations: helpers take the context first; kernels get the hidden arguments and the
  // prologue that creates the context.
  void editDeclarations(clang::ASTContext& ctx, const Collector& c, const Closure& closure,
                        const ManifestIndex& manifestOf, Editor& ed);

 private:
  const RewriteInput& in_;
  const FileNames& names_;
  Analysis& out_;
  const InternalUses& internalUses_;
  const IntelInternalBuiltins& internalBuiltins_;  // every one the program's text names
  std::map<const clang::FunctionDecl*, const ContextFunction*> externalContext_;
  std::set<const clang::ParmVarDecl*> factsParams_;  // kernel images passed with their facts
  std::set<const clang::CallExpr*> firstMember_;     // firstMemberPointers' calls
  // Functions (canonical) where firstMemberPointers warned that the call keeps each member's
  // pointer under flow that depends on work-item ids (KernelManifest::shapeDependentResult).
  // Strategies that take the first active member's pointer (nvidia-ptx; khr with ballot) mark
  // nothing, nor their kernels out of lock-step: they match Intel's GPUs there already (on the
  // H200, OpenVINO's models), and a variant costs the launches it serves.
  std::set<const clang::FunctionDecl*> shapeWarned_;
  // Its calls under flow only some sub-groups take (local, the khr test double) that every
  // member of a sub-group reaches together: the predication takes member 0's pointer out of
  // the statement (KernelExchanges::pointerOnly). Each with the flow, for the warning where
  // the walk cannot (predicateDivergentFlow).
  std::map<const clang::CallExpr*, const clang::Expr*> hoistPointer_;
  mutable std::optional<DivergenceCheck> divergence_;  // divergenceCheck's
};

}  // namespace isg::detail
