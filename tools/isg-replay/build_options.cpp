// SPDX-License-Identifier: MIT
#include "build_options.h"

namespace isg::replay {

namespace {

bool takesValue(const std::string& word) { return word == "-D" || word == "-I"; }

// "-D X" -> "-DX": one spelling for comparing.
std::string normal(const std::string& option) {
  if (option.size() > 3 && (option.rfind("-D ", 0) == 0 || option.rfind("-I ", 0) == 0)) {
    const size_t value = option.find_first_not_of(' ', 2);
    return option.substr(0, 2) + option.substr(value);
  }
  return option;
}

}  // namespace

std::vector<std::string> splitOptions(const std::string& text) {
  std::vector<std::string> words;
  std::string word;
  bool quoted = false, any = false;
  for (char c : text) {
    if (c == '"') {
      quoted = !quoted;
      any = true;
      word += c;
    } else if (!quoted && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
      if (any) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
      any = true;
    }
  }
  if (any) words.push_back(word);
  std::vector<std::string> options;
  for (size_t i = 0; i < words.size(); ++i) {
    if (takesValue(words[i]) && i + 1 < words.size()) {
      options.push_back(words[i] + " " + words[i + 1]);
      ++i;
    } else
      options.push_back(words[i]);
  }
  return options;
}

std::string dropOption(const std::string& options, const std::string& drop,
                       std::vector<std::string>* dropped) {
  const std::vector<std::string> dropWords = splitOptions(drop);
  const std::string d = dropWords.empty() ? std::string() : normal(dropWords.front());
  const bool define = d.rfind("-D", 0) == 0;
  std::string out;
  for (const std::string& option : splitOptions(options)) {
    const std::string o = normal(option);
    const bool gone = !d.empty() && (o == d || ((d == "-D" || d == "-I") && o.rfind(d, 0) == 0) ||
                                     (define && d.find('=') == std::string::npos &&
                                      o.rfind(d + "=", 0) == 0));
    if (gone) {
      if (dropped) dropped->push_back(option);
      continue;
    }
    out += (out.empty() ? "" : " ") + option;
  }
  return out;
}

}  // namespace isg::replay
