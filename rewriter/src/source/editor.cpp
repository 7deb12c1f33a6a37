// SPDX-License-Identifier: MIT
#include "source/editor.h"

#include <clang/AST/Expr.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include "common/clang_session.h"

namespace isg::detail {
namespace {

using clang::SourceLocation;

constexpr const char* kCtxParam = "__private __isg_ctx_t* __isg_ctx";
constexpr const char* kCtxArg = "__isg_ctx";

}  // namespace

std::string Editor::where(SourceLocation loc) const {
  clang::PresumedLoc p = sm_.getPresumedLoc(sm_.getExpansionLoc(loc));
  if (p.isInvalid()) return names_.mainName();
  return names_.display(p.getFilename()) + ":" + std::to_string(p.getLine()) + ":" +
         std::to_string(p.getColumn());
}

std::optional<clang::Token> Editor::tokenAt(SourceLocation fileLoc) const {
  clang::Token t;
  if (clang::Lexer::getRawToken(fileLoc, t, sm_, lo_, /*IgnoreWhiteSpace=*/true)) return {};
  return t;
}

std::optional<clang::Token> Editor::tokenAfter(SourceLocation fileLoc) const {
  auto t = clang::Lexer::findNextToken(fileLoc, sm_, lo_);
  if (!t) return {};
  return *t;
}

bool Editor::isVoid(const clang::Token& t) {
  return t.is(clang::tok::raw_identifier) && t.getRawIdentifier() == "void";
}

// Outward expansions are tried first (the common cases). A name produced by a macro invoked
// inside another macro's argument (`SUM(FUNC_CALL(f)(x))`) is only found by stepping from the
// outer argument back to where that argument was itself expanded, so those steps come after.
std::optional<SourceLocation> Editor::callParen(const clang::CallExpr* ce) const {
  std::vector<SourceLocation> pending{ce->getCallee()->getEndLoc()};
  for (int steps = 0; steps < 256 && !pending.empty(); ++steps) {
    SourceLocation l = pending.back();
    pending.pop_back();
    if (l.isInvalid()) continue;
    SourceLocation s = sm_.getSpellingLoc(l);
    if (!sm_.isWrittenInScratchSpace(s)) {
      auto t = tokenAfter(s);
      if (t && t->is(clang::tok::l_paren)) return t->getLocation();
    }
    if (!l.isMacroID()) continue;
    if (sm_.isMacroArgExpansion(l)) pending.push_back(sm_.getImmediateSpellingLoc(l));
    pending.push_back(sm_.getImmediateExpansionRange(l).getEnd());  // explored first
  }
  return {};
}

void Editor::addLeading(SourceLocation paren, bool declaration, SourceLocation userLoc,
                        const std::string& what) {
  auto next = tokenAfter(paren);
  if (!next) return error(userLoc, "cannot rewrite " + what);
  std::string text = declaration ? kCtxParam : kCtxArg;
  if (next->is(clang::tok::r_paren)) {
    add(paren, 1, 0, text, userLoc, what);
  } else if (declaration && isVoid(*next)) {
    auto after = tokenAfter(next->getLocation());
    if (after && after->is(clang::tok::r_paren))
      add(next->getLocation(), 0, 4, text, userLoc, what);
    else
      add(paren, 1, 0, text + ", ", userLoc, what);
  } else {
    add(paren, 1, 0, text + ", ", userLoc, what);
  }
  ctxSites_.insert(site(paren));
}

const char* Editor::contextArgument() { return kCtxArg; }

namespace {
// The edit of `edits` that addLeading made for the '(' at `offset` of `file`.
FileEdit* leadingIn(std::vector<FileEdit>& edits, const std::string& file, unsigned offset) {
  for (FileEdit& e : edits)
    if (e.file == file && e.offset == offset &&
        (e.text.rfind(kCtxArg, 0) == 0 || e.text.rfind(kCtxParam, 0) == 0))
      return &e;
  return nullptr;
}
}  // namespace

std::string Editor::fileName(SourceLocation at) const {
  if (sm_.getFileID(at) == sm_.getMainFileID()) return names_.mainName();
  if (const std::string* name = names_.editable(sm_.getFilename(at))) return *name;
  return sm_.getFilename(at).str();  // a header read from disk: folded into its includer
}

std::optional<std::pair<std::string, unsigned>> Editor::leadingEdit(SourceLocation paren) const {
  const unsigned offset = sm_.getDecomposedLoc(paren).second;
  const FileEdit* e = leadingIn(const_cast<std::vector<FileEdit>&>(edits), fileName(paren), offset + 1);
  if (!e || e->offset != offset + 1 || e->length != 0) return std::nullopt;
  return std::make_pair(e->file, e->offset);
}

bool Editor::amendLeading(SourceLocation paren, const std::string& extra) {
  const unsigned offset = sm_.getDecomposedLoc(paren).second;
  const std::string file = fileName(paren);
  // After the '(' (or in place of the `void` of an empty parameter list).
  FileEdit* e = leadingIn(edits, file, offset + 1);
  if (auto next = tokenAfter(paren); !e && next && isVoid(*next))
    e = leadingIn(edits, file, sm_.getDecomposedLoc(next->getLocation()).second);
  if (!e) return false;
  const std::size_t ctx = e->text.rfind(kCtxParam, 0) == 0 ? std::string(kCtxParam).size() : std::string(kCtxArg).size();
  e->text.insert(ctx, extra);
  return true;
}

void Editor::markPlain(SourceLocation paren) { plainSites_.emplace(site(paren), paren); }

bool Editor::isCtxSite(SourceLocation paren) const { return ctxSites_.count(site(paren)) != 0; }

void Editor::rename(SourceLocation loc, const std::string& name, const std::string& text,
                    SourceLocation userLoc, const std::string& what) {
  SourceLocation s = sm_.getSpellingLoc(loc);
  if (sm_.isWrittenInScratchSpace(s)) {
    error(userLoc, "cannot rewrite " + what + ": its name is formed by token pasting, and "
                   "this call needs its own spelling of the name (a macro that pastes it "
                   "is expanded for calls that differ in their number of arguments or in "
                   "whether the function around them takes the sub-group context)");
    return;
  }
  auto [it, fresh] = renamed_.emplace(site(s), text);
  if (!fresh) {
    if (it->second != text)
      error(userLoc, "cannot rewrite " + what + ": the name '" + name + "' is written once "
                     "for calls that need different rewrites (different numbers of "
                     "arguments, or inside and outside functions that take the sub-group "
                     "context); spell the name separately for each");
    return;
  }
  add(s, 0, unsigned(name.size()), text, userLoc, what);
}

void Editor::checkSharedSites() {
  for (const auto& [s, loc] : plainSites_)
    if (ctxSites_.count(s))
      error(loc, "cannot pass the sub-group context through this macro: it is expanded both "
                 "for functions that use sub-group builtins and for functions that do not");
}

void Editor::add(SourceLocation spelling, unsigned skip, unsigned length, const std::string& text,
                 SourceLocation userLoc, const std::string& what) {
  auto [fid, offset] = sm_.getDecomposedLoc(spelling);
  if (fid != sm_.getMainFileID()) {
    const llvm::StringRef path = sm_.getFilename(spelling);
    if (!names_.editable(path) && (path.empty() || FileNames::internal(path))) {
      std::string shown = path.empty() ? std::string("a macro expansion") : names_.display(path);
      return error(userLoc, "cannot rewrite " + what + ": the text to change is in '" + shown +
                                "', which is not part of the program");
    }
  }
  const std::string file = fileName(spelling);
  auto key = std::make_tuple(file, offset + skip, length, text);
  if (!seen_.insert(key).second) return;
  edits.push_back(FileEdit{file, offset + skip, length, text});
}

std::pair<unsigned, unsigned> Editor::site(SourceLocation l) const {
  auto d = sm_.getDecomposedLoc(l);
  return {d.first.getHashValue(), d.second};
}

bool Editor::overlapsEdit(const std::string& file, unsigned offset, unsigned length,
                          bool beforeReplacement, const std::function<bool(const FileEdit&)>& ignore) const {
  for (const FileEdit& other : edits) {
    if (other.file != file || (ignore && ignore(other))) continue;
    const bool overlaps =
        length == 0 ? other.length > 0 && offset < other.offset + other.length &&
                          (beforeReplacement ? other.offset < offset : other.offset <= offset)
                    : other.offset < offset + length && offset < other.offset + other.length;
    if (overlaps) return true;
  }
  return false;
}

}  // namespace isg::detail
