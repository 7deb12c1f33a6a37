// SPDX-License-Identifier: MIT
// The pre-scan (prescan.h).
#include "common/prescan.h"

#include "common/printf_format.h"

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <unordered_set>
#include <utility>
#include <vector>

#include "isg/build_options.h"
#include "common/kernel_facts.h"
#include "common/table.h"

namespace isg::detail {
namespace {

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isIdentChar(char c) { return isIdentStart(c) || (c >= '0' && c <= '9'); }

// The names of `#include "x"` / `#include <x>` lines.
std::vector<std::string> includedNames(std::string_view text) {
  std::vector<std::string> names;
  for (std::size_t pos = text.find("include"); pos != std::string_view::npos;
       pos = text.find("include", pos + 7)) {
    std::size_t b = pos;
    while (b > 0 && (text[b - 1] == ' ' || text[b - 1] == '\t')) --b;
    if (b == 0 || text[b - 1] != '#') continue;
    std::size_t q = pos + 7;
    while (q < text.size() && (text[q] == ' ' || text[q] == '\t')) ++q;
    if (q >= text.size() || (text[q] != '"' && text[q] != '<')) continue;
    char close = text[q] == '"' ? '"' : '>';
    std::size_t e = text.find_first_of(std::string{close, '\n'}, q + 1);
    if (e == std::string_view::npos || text[e] != close) continue;
    names.emplace_back(text.substr(q + 1, e - q - 1));
  }
  return names;
}

}  // namespace

namespace {

// Whether some identifier of `text` satisfies `match`.
template <class Match>
bool anyIdentifier(std::string_view text, const Match& match) {
  for (std::size_t i = 0; i < text.size();) {
    if (!isIdentStart(text[i])) {
      // skip the rest of a number/identifier-like run so "0x1sub_group" is not split oddly
      ++i;
      continue;
    }
    if (i > 0 && isIdentChar(text[i - 1])) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && isIdentChar(text[j])) ++j;
    if (match(text.substr(i, j - i))) return true;
    i = j;
  }
  return false;
}

}  // namespace

bool textMayNeedRewrite(std::string_view text) {
  static const std::unordered_set<std::string_view> words = [] {
    std::unordered_set<std::string_view> w;
    for (const std::string& s : detail::triggerWords()) w.insert(s);
    return w;
  }();
  return anyIdentifier(text, [&](std::string_view id) {
    return words.count(id) || id.find("sub_group") != std::string_view::npos ||
           id.rfind(kIntelInternalPrefix, 0) == 0;
  });
}

bool namesHalf(std::string_view identifier) {
  static const std::unordered_set<std::string_view> words = {"half",  "half2", "half3", "half4", "half8",
                                                             "half16", "cl_khr_fp16"};
  return words.count(identifier) != 0;
}

bool textMayUseHalf(std::string_view text) { return anyIdentifier(text, namesHalf); }

bool textMayUseIntegerDot(std::string_view text) {
  return anyIdentifier(text, [](std::string_view id) {
    return id.rfind("dot_4x8packed_", 0) == 0 || id.rfind("dot_acc_sat", 0) == 0 ||
           id == "cl_khr_integer_dot_product" || id.rfind("__opencl_c_integer_dot_product", 0) == 0;
  });
}

bool textMayPrintVectors(std::string_view text) {
  // Anywhere, not only in string literals: a '%' of the modulo operator reads as a conversion
  // without a 'v'. Each '%' is tried (the next search starts right after it, not after what
  // it took), so that the scan never misses one a format has.
  PrintfConversion c;
  for (std::size_t at = 0; nextPrintfConversion(text, &at, &c); at = c.begin + 1)
    if (c.vector && c.lanes != 0) return true;
  return false;
}

bool readSmallFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0 || size > (16 << 20)) return false;
  in.seekg(0);
  out->assign(std::size_t(size), '\0');
  in.read(out->data(), size);
  return bool(in);
}

namespace {

bool diskIncludesMatch(const RewriteInput& input, const TextMatch& textMatches, bool* unreadable) {
  std::vector<std::string> dirs;
  std::vector<std::string> args = splitBuildOptions(input.options);
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "-I" && i + 1 < args.size()) dirs.push_back(args[++i]);
    else if (args[i].size() > 2 && args[i].compare(0, 2, "-I") == 0) dirs.push_back(args[i].substr(2));
  }
  dirs.push_back(".");
  std::vector<std::string> pending = includedNames(input.source);
  for (const SourceFile& h : input.headers)
    for (std::string& n : includedNames(h.text)) pending.push_back(std::move(n));
  std::unordered_set<std::string> seen;
  for (const SourceFile& h : input.headers) seen.insert(h.name);
  for (std::size_t files = 0; !pending.empty() && files < 64;) {
    std::string name = std::move(pending.back());
    pending.pop_back();
    if (!seen.insert(name).second) continue;
    std::vector<std::string> candidates;
    if (!name.empty() && name[0] == '/') candidates.push_back(name);
    else
      for (const std::string& d : dirs) candidates.push_back(d + "/" + name);
    bool read = false;
    for (const std::string& path : candidates) {
      std::string text;
      if (!readSmallFile(path, &text)) continue;
      ++files;
      if (textMatches(text)) return true;
      for (std::string& n : includedNames(text)) pending.push_back(std::move(n));
      read = true;
      break;
    }
    if (!read && unreadable) *unreadable = true;
  }
  if (!pending.empty() && unreadable) *unreadable = true;  // past the 64 files
  return false;
}

// Whether the identifier at `at` is the name of a declaration: a type name before it (an
// identifier other than a keyword that begins an expression), outside a preprocessor directive.
// `return f(x)`, `= f(x)`, `(int)f(x)` and a macro body's `f(x)` are uses.
bool declaresName(std::string_view text, std::size_t at) {
  std::size_t lineStart = text.rfind('\n', at);
  lineStart = lineStart == std::string_view::npos ? 0 : lineStart + 1;
  std::size_t first = text.find_first_not_of(" \t", lineStart);
  if (first != std::string_view::npos && first < at && text[first] == '#') return false;
  std::size_t i = at;
  while (i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t' || text[i - 1] == '\n' || text[i - 1] == '\r')) --i;
  if (i == 0 || !isIdentChar(text[i - 1])) return false;
  std::size_t b = i;
  while (b > 0 && isIdentChar(text[b - 1])) --b;
  if (!isIdentStart(text[b])) return false;  // a number
  static const std::unordered_set<std::string_view> kExpressionKeywords = {"return", "case", "else", "do", "sizeof"};
  return kExpressionKeywords.count(text.substr(b, i - b)) == 0;
}

}  // namespace

bool programTextMatches(const RewriteInput& input, const TextMatch& textMatches, bool* unreadable) {
  if (textMatches(input.source) || textMatches(input.options)) return true;
  for (const SourceFile& h : input.headers)
    if (textMatches(h.text)) return true;
  return diskIncludesMatch(input, textMatches, unreadable);
}

IntelInternalBuiltins intelInternalBuiltins(const RewriteInput& input) {
  IntelInternalBuiltins found;
  std::unordered_set<std::string> declared;
  programTextMatches(input, [&](std::string_view text) {
    for (std::size_t at = text.find(kIntelInternalPrefix); at != std::string_view::npos;
         at = text.find(kIntelInternalPrefix, at + 1)) {
      if (at > 0 && isIdentChar(text[at - 1])) continue;
      std::size_t end = at;
      while (end < text.size() && isIdentChar(text[end])) ++end;
      const std::string name(text.substr(at, end - at));
      // The arguments of the call, if one follows: top-level commas up to the matching ')'.
      std::size_t i = end;
      while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r')) ++i;
      unsigned arity = 0;
      if (i < text.size() && text[i] == '(') {
        int depth = 0;
        bool any = false;
        for (++i; i < text.size(); ++i) {
          const char c = text[i];
          if (c == '(' || c == '[' || c == '{') ++depth;
          else if ((c == ')' || c == ']' || c == '}') && depth > 0) --depth;
          else if (c == ')') break;
          else if (c == ',' && depth == 0) ++arity;
          if (c != ' ' && c != '\t' && c != '\n' && c != '\r') any = true;
        }
        arity = any ? arity + 1 : 0;
      }
      if (declaresName(text, at)) declared.insert(name);
      auto same = [&](const auto& f) { return f.first == name; };
      if (std::find_if(found.begin(), found.end(), same) == found.end()) found.emplace_back(name, arity);
    }
    return false;  // every file
  });
  // A name the program declares itself (oneDNN's conversion.h: `short __builtin_IB_ftobf_1(float
  // a) __attribute__((const));`) needs no stand-in: its calls parse against the prototype, and a
  // function-like macro would turn the prototype into `short 0 ...`, a syntax error.
  found.erase(std::remove_if(found.begin(), found.end(), [&](const auto& f) { return declared.count(f.first) != 0; }),
              found.end());
  return found;
}

// The stand-in for an Intel-internal builtin (intelInternalBuiltins): a macro of its argument
// count (OpenCL C before 3.0 has no variadic macros) whose value converts to any scalar,
// vector or pointer the call's result is used as, in code no kernel runs.
std::string intelInternalStandIn(const std::string& name, unsigned arity) {
  std::string params;
  for (unsigned i = 0; i < arity; ++i) params += (i ? ",a" : "a") + std::to_string(i);
  return name + "(" + params + ")";
}

const char* namedIdentifier(std::string_view text, const std::vector<const char*>& names) {
  const char* found = nullptr;
  anyIdentifier(text, [&](std::string_view id) {
    for (const char* n : names)
      if (id == n) found = n;
    return found != nullptr;
  });
  return found;
}

}  // namespace isg::detail
