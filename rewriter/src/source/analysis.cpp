// SPDX-License-Identifier: MIT
// The source analysis (analysis.h): one parse through the Clang session (clang_session.h) that
// records includes and Intel-internal builtins as the preprocessor meets them, then the walk
// (collector.h) and the phases (analysis_consumer.h) over the AST.
#include "source/analysis.h"

#include <memory>
#include <string>

#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Lex/Preprocessor.h>
#include <llvm/Support/FileSystem.h>

#include "common/clang_session.h"
#include "common/llvm_compat.h"
#include "common/prescan.h"
#include "source/analysis_consumer.h"

namespace isg::detail {
namespace {

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

#if LLVM_VERSION_MAJOR >= 19
  void InclusionDirective(SourceLocation hash, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef file,
                          llvm::StringRef, llvm::StringRef, const clang::Module*, bool,
                          clang::SrcMgr::CharacteristicKind) override {
#elif LLVM_VERSION_MAJOR >= 16
  void InclusionDirective(SourceLocation hash, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef file,
                          llvm::StringRef, llvm::StringRef, const clang::Module*,
                          clang::SrcMgr::CharacteristicKind) override {
#else
  void InclusionDirective(SourceLocation hash, const clang::Token&, llvm::StringRef, bool,
                          clang::CharSourceRange, llvm::Optional<clang::FileEntryRef> file,
                          llvm::StringRef, llvm::StringRef, const clang::Module*,
                          clang::SrcMgr::CharacteristicKind) override {
#endif
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
