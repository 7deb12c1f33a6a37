// SPDX-License-Identifier: MIT
// The byte edits of the source analysis (analysis.cpp), kept where Clang found them: it decides
// what changes, the Editor finds the bytes that spell it (through macros, in the program's own
// files only), keeps one edit per place and refuses what cannot be written once for every use.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <clang/Basic/SourceLocation.h>
#include <clang/Lex/Token.h>

#include "source/analysis.h"

namespace clang {
class CallExpr;
class LangOptions;
class SourceManager;
}  // namespace clang

namespace isg::detail {

class FileNames;

// Collects byte edits at spelling locations and refuses the ones it cannot make.
class Editor {
 public:
  Editor(clang::SourceManager& sm, const clang::LangOptions& lo, const FileNames& names)
      : sm_(sm), lo_(lo), names_(names) {}

  std::string where(clang::SourceLocation loc) const;

  void error(clang::SourceLocation loc, const std::string& message) {
    errors += where(loc) + ": error: " + message + "\n";
  }
  void warning(clang::SourceLocation loc, const std::string& message) {
    warnings += where(loc) + ": warning: " + message + "\n";
  }

  std::optional<clang::Token> tokenAt(clang::SourceLocation fileLoc) const;
  std::optional<clang::Token> tokenAfter(clang::SourceLocation fileLoc) const;
  static bool isVoid(const clang::Token& t);

  // The '(' that opens the argument list of `ce`, as written: next to the callee's spelling
  // (also inside a macro body), or after the macro invocation that produced the callee name.
  std::optional<clang::SourceLocation> callParen(const clang::CallExpr* ce) const;

  // Inserts the context as the first argument/parameter after the '(' at `paren`.
  void addLeading(clang::SourceLocation paren, bool declaration, clang::SourceLocation userLoc,
                  const std::string& what);

  // The sub-group context's argument, as addLeading writes it.
  static const char* contextArgument();
  // The name edits carry for the file that holds `at`: the program's, a header given with it,
  // or a header's path on disk.
  std::string fileName(clang::SourceLocation at) const;
  // The edit addLeading made at the '(' at `paren` (its file and offset), if there is one.
  std::optional<std::pair<std::string, unsigned>> leadingEdit(clang::SourceLocation paren) const;
  // Writes `extra` (", x") right after the context that addLeading put at `paren`.
  bool amendLeading(clang::SourceLocation paren, const std::string& extra);

  void markPlain(clang::SourceLocation paren);
  bool isCtxSite(clang::SourceLocation paren) const;

  // Replaces the identifier `name` where it is spelled for `loc` with `text`. One spelling (a
  // macro body, a macro argument) may serve several calls: they must all want the same text.
  void rename(clang::SourceLocation loc, const std::string& name, const std::string& text,
              clang::SourceLocation userLoc, const std::string& what);

  // A '(' in a macro body that both a context-taking and a plain function go through cannot be
  // edited for one without breaking the other.
  void checkSharedSites();

  void add(clang::SourceLocation spelling, unsigned skip, unsigned length, const std::string& text,
           clang::SourceLocation userLoc, const std::string& what);

  // Whether an edit of `length` bytes at `offset` of `file` (an insertion when 0) would change
  // bytes another edit already changes: a replacement overlapping them, or an insertion strictly
  // inside them. An insertion at the first byte another edit replaces overlaps it unless
  // `beforeReplacement` (the caller writes its text ahead of the replacement's: the composer
  // applies one edit per offset). Edits `ignore` names do not count.
  bool overlapsEdit(const std::string& file, unsigned offset, unsigned length, bool beforeReplacement,
                    const std::function<bool(const FileEdit&)>& ignore = {}) const;

  std::vector<FileEdit> edits;
  std::string errors;
  std::string warnings;

 private:
  std::pair<unsigned, unsigned> site(clang::SourceLocation l) const;

  clang::SourceManager& sm_;
  const clang::LangOptions& lo_;
  const FileNames& names_;
  std::set<std::tuple<std::string, unsigned, unsigned, std::string>> seen_;
  std::set<std::pair<unsigned, unsigned>> ctxSites_;
  std::map<std::pair<unsigned, unsigned>, std::string> renamed_;
  std::map<std::pair<unsigned, unsigned>, clang::SourceLocation> plainSites_;
};

}  // namespace isg::detail
