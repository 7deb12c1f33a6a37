// SPDX-License-Identifier: MIT
#include "source/token_scan.h"

#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/Pragma.h>
#include <clang/Lex/Preprocessor.h>

#include "common/clang_session.h"

namespace isg::detail {

namespace {

using Match = std::function<bool(std::string_view)>;

// Every token is offered: no string is built for one.
std::string_view view(llvm::StringRef s) { return std::string_view(s.data(), s.size()); }

// `#pragma OPENCL EXTENSION name : state` in the program's own files: offers `name`.
class ExtensionPragma : public clang::PragmaHandler {
 public:
  ExtensionPragma(const Match& match, bool* found) : PragmaHandler("EXTENSION"), match_(match), found_(found) {}
  void HandlePragma(clang::Preprocessor& pp, clang::PragmaIntroducer, clang::Token& first) override {
    clang::Token tok;
    pp.LexUnexpandedToken(tok);
    if (tok.is(clang::tok::identifier) && ownFile(pp.getSourceManager(), first.getLocation()) &&
        match_(view(tok.getIdentifierInfo()->getName())))
      *found_ = true;
    while (tok.isNot(clang::tok::eod)) pp.LexUnexpandedToken(tok);
  }
  static bool ownFile(const clang::SourceManager& sm, clang::SourceLocation loc) {
    return !FileNames::internal(sm.getFilename(sm.getExpansionLoc(loc)));
  }

 private:
  const Match& match_;
  bool* found_;
};

class ScanAction : public clang::PreprocessorFrontendAction {
 public:
  ScanAction(const Match& match, bool* found) : match_(match), found_(found) {}

 protected:
  void ExecuteAction() override {
    clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
    const clang::SourceManager& sm = pp.getSourceManager();
    pp.AddPragmaHandler("OPENCL", new ExtensionPragma(match_, found_));
    pp.IgnorePragmas();
    pp.EnterMainSourceFile();
    clang::Token tok;
    do {
      pp.Lex(tok);
      // Keywords too: `half` is one in OpenCL C.
      const clang::IdentifierInfo* id = tok.getIdentifierInfo();
      if (id && match_(view(id->getName())) && ExtensionPragma::ownFile(sm, tok.getLocation()))
        *found_ = true;
    } while (!*found_ && tok.isNot(clang::tok::eof));  // the first one answers
  }

 private:
  const Match& match_;
  bool* found_;
};

}  // namespace

bool activeIdentifierMatches(const RewriteInput& input, const Match& match) {
  FileNames names(input);
  bool found = false;
  std::string log;
  const bool ok = runClang(input, /*codegen=*/false, CodegenTarget::Spir,
                           std::make_unique<ScanAction>(match, &found), names, &log);
  return found || !ok;
}

}  // namespace isg::detail
