// SPDX-License-Identifier: MIT
#include "common/printf_format.h"

namespace isg::detail {

bool nextPrintfConversion(std::string_view text, std::size_t* at, PrintfConversion* c) {
  std::size_t i = *at;
  for (;; ++i) {
    i = text.find('%', i);
    if (i == std::string_view::npos) {
      *at = text.size();
      return false;
    }
    if (i + 1 < text.size() && text[i + 1] == '%') {
      ++i;
      continue;
    }
    break;
  }
  *c = PrintfConversion{};
  c->begin = i++;
  c->spec = "%";
  auto take = [&](auto accept) {
    while (i < text.size() && accept(text[i])) c->spec += text[i++];
  };
  auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  take([](char ch) { return ch == '-' || ch == '+' || ch == ' ' || ch == '#' || ch == '0'; });
  auto number = [&] {
    if (i < text.size() && text[i] == '*') {
      ++c->stars;
      c->spec += text[i++];
    } else {
      take(digit);
    }
  };
  number();
  if (i < text.size() && text[i] == '.') {
    c->spec += text[i++];
    number();
  }
  if (i < text.size() && text[i] == 'v') {
    c->vector = true;
    for (++i; i < text.size() && digit(text[i]); ++i)
      c->lanes = c->lanes > 1000 ? c->lanes : c->lanes * 10 + unsigned(text[i] - '0');
  }
  while (i < text.size() && (text[i] == 'h' || text[i] == 'l')) c->length += text[i++];
  if (i < text.size()) c->conversion = text[i++];
  c->end = i;
  *at = i;
  return true;
}

}  // namespace isg::detail
