// SPDX-License-Identifier: MIT
#include "source/token_scan.h"

#include <algorithm>
#include <string>
#include <vector>

#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Frontend/PreprocessorOutputOptions.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/Pragma.h>
#include <clang/Lex/Preprocessor.h>

#include <llvm/Support/raw_ostream.h>

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

namespace {

// Clang's -E output with its definitions and includes (-dD -dI), GNU line markers, and the main
// file's name as those markers spell it.
class ExpandAction : public clang::PreprocessorFrontendAction {
 public:
  ExpandAction(std::string* out, std::string* mainName) : out_(out), mainName_(mainName) {}

 protected:
  void ExecuteAction() override {
    clang::Preprocessor& pp = getCompilerInstance().getPreprocessor();
    const clang::SourceManager& sm = pp.getSourceManager();
    *mainName_ = sm.getBufferName(sm.getLocForStartOfFile(sm.getMainFileID())).str();
    clang::PreprocessorOutputOptions opts;
    opts.ShowCPP = 1;
    opts.ShowLineMarkers = 1;
    opts.ShowMacros = 1;
    opts.ShowIncludeDirectives = 1;
    llvm::raw_string_ostream os(*out_);
    clang::DoPrintPreprocessedInput(pp, &os, opts);
  }

 private:
  std::string* out_;
  std::string* mainName_;
};

// `# 12 "name" 2` -> (12, name).
bool lineMarker(std::string_view t, unsigned* line, std::string* file) {
  if (t.size() < 4 || t[0] != '#' || t[1] != ' ' || t[2] < '0' || t[2] > '9') return false;
  std::size_t i = 2;
  unsigned n = 0;
  for (; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i) n = n * 10 + unsigned(t[i] - '0');
  if (i + 2 > t.size() || t[i] != ' ' || t[i + 1] != '"') return false;
  // The name as Clang escapes it: a backslash before '"' and '\\'.
  std::string name;
  for (i += 2; i < t.size() && t[i] != '"'; ++i) {
    if (t[i] == '\\' && i + 1 < t.size()) ++i;
    name.push_back(t[i]);
  }
  if (i == t.size()) return false;
  *line = n;
  *file = std::move(name);
  return true;
}

}  // namespace

bool expandMainText(const RewriteInput& input, std::string* expanded) {
  FileNames names(input);
  std::string out, mainName, log;
  if (!runClang(input, /*codegen=*/false, CodegenTarget::Spir, std::make_unique<ExpandAction>(&out, &mainName),
                names, &log))
    return false;
  const std::size_t count = static_cast<std::size_t>(std::count(input.source.begin(), input.source.end(), '\n')) + 1;
  std::vector<std::string> lines(count + 1);
  std::string file;
  unsigned line = 0;
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t end = out.find('\n', pos);
    if (end == std::string::npos) end = out.size();
    const std::string_view t(out.data() + pos, end - pos);
    pos = end + 1;
    if (lineMarker(t, &line, &file)) continue;
    if (file == mainName && !t.empty()) {
      if (line == 0 || line > count) return false;
      std::string& l = lines[line];
      // A directive keeps a line of its own (a `_Pragma` in the middle of one has none).
      const bool directive = t.find_first_not_of(" \t") != std::string_view::npos && t[t.find_first_not_of(" \t")] == '#';
      const std::size_t first = l.find_first_not_of(" \t");
      if (!l.empty() && (directive || (first != std::string::npos && l[first] == '#'))) return false;
      if (!l.empty()) l.push_back(' ');
      l.append(t);
    }
    ++line;
  }
  expanded->clear();
  for (std::size_t i = 1; i <= count; ++i) {
    expanded->append(lines[i]);
    if (i < count) expanded->push_back('\n');
  }
  return true;
}

}  // namespace isg::detail
