// SPDX-License-Identifier: MIT
// The bytes that spell a statement in one file of the program's own text, for the rewrites that
// put text around whole statements (predication.cpp, lockstep.cpp): a range that a macro or a
// header spells elsewhere has none.
#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include <clang/Basic/SourceLocation.h>

namespace clang {
class LangOptions;
class SourceManager;
class Stmt;
}  // namespace clang

namespace isg::detail {

class StatementText {
 public:
  StatementText(const clang::SourceManager& sm, const clang::LangOptions& lo, clang::FileID file)
      : sm_(sm), lo_(lo), file_(file) {}

  clang::FileID file() const { return file_; }
  std::string_view all() const;
  std::string_view text(unsigned b, unsigned e) const { return all().substr(b, e - b); }
  // [begin, end) of `r` (tokens included) in the file, or none.
  std::optional<std::pair<unsigned, unsigned>> bytes(clang::SourceRange r) const;
  // Where `s`'s text ends: after its ';' or its '}'; none where that is not in the file.
  std::optional<unsigned> end(const clang::Stmt* s) const;

 private:
  const clang::SourceManager& sm_;
  const clang::LangOptions& lo_;
  clang::FileID file_;
};

}  // namespace isg::detail
