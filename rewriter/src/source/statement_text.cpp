// SPDX-License-Identifier: MIT
#include "source/statement_text.h"

#include <clang/AST/Stmt.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

namespace isg::detail {

std::string_view StatementText::all() const {
  const llvm::StringRef b = sm_.getBufferData(file_);
  return {b.data(), b.size()};
}

std::optional<std::pair<unsigned, unsigned>> StatementText::bytes(clang::SourceRange r) const {
  const clang::CharSourceRange cr =
      clang::Lexer::makeFileCharRange(clang::CharSourceRange::getTokenRange(r), sm_, lo_);
  if (cr.isInvalid()) return std::nullopt;
  auto [fb, ob] = sm_.getDecomposedLoc(cr.getBegin());
  auto [fe, oe] = sm_.getDecomposedLoc(cr.getEnd());
  if (fb != file_ || fe != fb || oe < ob) return std::nullopt;
  return std::make_pair(ob, oe);
}

std::optional<unsigned> StatementText::end(const clang::Stmt* s) const {
  auto b = bytes(s->getSourceRange());
  if (!b) return std::nullopt;
  const unsigned e = b->second;
  const std::string_view text = all();
  // Blocks end at their '}'; expressions and jumps end before their ';' (declarations too, in
  // some forms).
  if (e > 0 && (text[e - 1] == '}' || text[e - 1] == ';')) return e;
  // Clang's range of an expression may end inside it (a vector literal `(float4)(0.0f)` ends
  // at its operand): the ';' that follows once the brackets it left open are closed.
  int depth = 0;
  for (unsigned i = e; i < text.size(); ++i) {
    const char ch = text[i];
    if (ch == '(' || ch == '[') ++depth;
    else if (ch == ')' || ch == ']') --depth;
    else if (ch == ';' && depth <= 0) return i + 1;
    else if (ch == '{' || ch == '}' || ch == '"' || ch == '\'' || ch == '#' || ch == '/') break;
  }
  return std::nullopt;
}

}  // namespace isg::detail
