// SPDX-License-Identifier: MIT
// JSON string quoting shared by the rewriter's manifest and the layer's case.json, so both files
// escape the same way. Header-only: the layer's capture code must not depend on where the
// rewriter's objects are linked.
#pragma once

#include <string>
#include <string_view>

namespace isg {

// `s` as a JSON string literal, quotes included. Bytes >= 0x80 pass through: the inputs are UTF-8
// (or opaque bytes the reader takes back as they were).
inline std::string jsonQuote(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          out += "\\u00";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += '"';
  return out;
}

}  // namespace isg
