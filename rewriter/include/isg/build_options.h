// SPDX-License-Identifier: MIT
// Build options split into words, the one way everything here splits them (the rewriter's
// parse, the PTX back end, the layer's NVIDIA options and register cap): as drivers and Clang's
// driver do, words are separated by whitespace, single and double quotes group, and a backslash
// takes the next character as it is (inside double quotes too, not inside single ones).
#pragma once

#include <string>
#include <vector>

namespace isg {

inline std::vector<std::string> splitBuildOptions(const std::string& options) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;  // a word has begun, possibly empty ("")
  char quote = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    char c = options[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < options.size()) cur += options[++i];
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      if (c == '\\' && i + 1 < options.size()) c = options[++i];
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

}  // namespace isg
