// SPDX-License-Identifier: MIT
// The tree's one JSON reader (case.json for capture/replay, benchmark baselines) and one writer
// (the rewriter's manifest, case.json, benchmark results), so every file is quoted and laid out
// alike. Header-only and standard-library-only: every component includes it without linking
// another, and the layer pulls in no JSON library the application may link in another version.
#pragma once

#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

namespace isg::json {

struct Value {
  enum class Type { Null, Bool, Number, String, Array, Object } type = Type::Null;
  bool b = false;
  std::string text;  // String: the string; Number: the literal as written (exact integers)
  std::vector<Value> items;
  std::vector<std::pair<std::string, Value>> fields;

  const Value* get(const std::string& key) const {
    for (const auto& [k, v] : fields)
      if (k == key) return &v;
    return nullptr;
  }
  // A field's number or string, or `fallback` / "" when it is missing or of another type.
  double number(const std::string& key, double fallback = NAN) const {
    const Value* v = get(key);
    return v && v->type == Type::Number ? std::strtod(v->text.c_str(), nullptr) : fallback;
  }
  std::string string(const std::string& key) const {
    const Value* v = get(key);
    return v && v->type == Type::String ? v->text : std::string();
  }
};

class Parser {
 public:
  explicit Parser(const std::string& text) : s_(text) {}
  bool parse(Value* out, std::string* error) {
    bool ok = value(out, 0);
    ws();
    if (ok && pos_ != s_.size()) ok = fail("trailing characters");
    if (!ok && error) *error = error_ + " at offset " + std::to_string(pos_);
    return ok;
  }

 private:
  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what;
    return false;
  }
  void ws() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\n' || s_[pos_] == '\t' || s_[pos_] == '\r'))
      ++pos_;
  }
  bool literal(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (s_.compare(pos_, n, word) != 0) return false;
    pos_ += n;
    return true;
  }
  bool string(std::string* out) {
    if (pos_ >= s_.size() || s_[pos_] != '"') return fail("expected a string");
    ++pos_;
    while (pos_ < s_.size() && s_[pos_] != '"') {
      char c = s_[pos_++];
      if (c != '\\') {
        *out += c;
        continue;
      }
      if (pos_ >= s_.size()) return fail("unterminated escape");
      char e = s_[pos_++];
      switch (e) {
        case '"':
          *out += '"';
          break;
        case '\\':
          *out += '\\';
          break;
        case '/':
          *out += '/';
          break;
        case 'b':
          *out += '\b';
          break;
        case 'f':
          *out += '\f';
          break;
        case 'n':
          *out += '\n';
          break;
        case 'r':
          *out += '\r';
          break;
        case 't':
          *out += '\t';
          break;
        case 'u': {
          if (pos_ + 4 > s_.size()) return fail("short \\u escape");
          unsigned cp =
              static_cast<unsigned>(std::strtoul(s_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
          // UTF-8; surrogate pairs are not needed by anything the layer writes.
          if (cp < 0x80) {
            *out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            *out += static_cast<char>(0xC0 | (cp >> 6));
            *out += static_cast<char>(0x80 | (cp & 0x3F));
          } else {
            *out += static_cast<char>(0xE0 | (cp >> 12));
            *out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
            *out += static_cast<char>(0x80 | (cp & 0x3F));
          }
          break;
        }
        default:
          return fail("bad escape");
      }
    }
    if (pos_ >= s_.size()) return fail("unterminated string");
    ++pos_;
    return true;
  }
  bool value(Value* v, int depth) {
    if (depth > 64) return fail("nesting too deep");
    ws();
    if (pos_ >= s_.size()) return fail("unexpected end");
    char c = s_[pos_];
    if (c == '{') {
      v->type = Value::Type::Object;
      ++pos_;
      ws();
      if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
      for (;;) {
        ws();
        std::string key;
        if (!string(&key)) return false;
        ws();
        if (pos_ >= s_.size() || s_[pos_] != ':') return fail("expected ':'");
        ++pos_;
        Value item;
        if (!value(&item, depth + 1)) return false;
        v->fields.emplace_back(std::move(key), std::move(item));
        ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') return ++pos_, true;
        return fail("expected ',' or '}'");
      }
    }
    if (c == '[') {
      v->type = Value::Type::Array;
      ++pos_;
      ws();
      if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
      for (;;) {
        Value item;
        if (!value(&item, depth + 1)) return false;
        v->items.push_back(std::move(item));
        ws();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') return ++pos_, true;
        return fail("expected ',' or ']'");
      }
    }
    if (c == '"') {
      v->type = Value::Type::String;
      return string(&v->text);
    }
    if (literal("true")) {
      v->type = Value::Type::Bool;
      v->b = true;
      return true;
    }
    if (literal("false")) {
      v->type = Value::Type::Bool;
      return true;
    }
    if (literal("null")) return true;
    size_t start = pos_;
    while (pos_ < s_.size() &&
           (std::isdigit(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '-' ||
            s_[pos_] == '+' || s_[pos_] == '.' || s_[pos_] == 'e' || s_[pos_] == 'E'))
      ++pos_;
    if (pos_ == start) return fail("unexpected character");
    v->type = Value::Type::Number;
    v->text = s_.substr(start, pos_ - start);
    return true;
  }

  const std::string& s_;
  size_t pos_ = 0;
  std::string error_;
};

// Parses `text` as one JSON value; false with *error (what and where) on malformed text.
inline bool parse(const std::string& text, Value* out, std::string* error) {
  return Parser(text).parse(out, error);
}

// Writes JSON text top-down. A container opened with Layout::Lines puts each member on a line of
// its own, indented two spaces per level; Layout::Inline keeps its members on one line. Empty
// containers are `{}` / `[]` either way. Members of objects are written as key(k) then a value.
class Writer {
 public:
  enum class Layout { Lines, Inline };

  Writer& beginObject(Layout layout = Layout::Lines) { return open('{', layout); }
  Writer& beginArray(Layout layout = Layout::Lines) { return open('[', layout); }
  Writer& end() {
    if (stack_.empty()) return *this;
    const Level level = stack_.back();
    stack_.pop_back();
    if (level.layout == Layout::Lines && level.count > 0) newline();
    out_ += level.close;
    return *this;
  }
  Writer& key(std::string_view k) {
    separate();
    out_ += jsonQuote(k) + ": ";
    afterKey_ = true;
    return *this;
  }
  Writer& value(std::string_view s) { return scalar(jsonQuote(s)); }
  Writer& value(const char* s) { return value(std::string_view(s)); }
  Writer& value(const std::string& s) { return value(std::string_view(s)); }
  Writer& value(bool b) { return scalar(b ? "true" : "false"); }
  Writer& value(std::uint64_t v) { return scalar(std::to_string(v)); }
  Writer& value(std::int64_t v) { return scalar(std::to_string(v)); }
  Writer& value(unsigned v) { return value(std::uint64_t{v}); }
  Writer& value(int v) { return value(std::int64_t{v}); }
  // Six significant digits; NaN and infinities (no JSON number) become null.
  Writer& value(double v) {
    if (!std::isfinite(v)) return null();
    char b[40];
    std::snprintf(b, sizeof b, "%.6g", v);
    return scalar(b);
  }
  Writer& null() { return scalar("null"); }
  template <class T>
  Writer& field(std::string_view k, const T& v) {
    return key(k).value(v);
  }
  // An inline array of `items`, each written with value().
  template <class Seq>
  Writer& array(const Seq& items) {
    beginArray(Layout::Inline);
    for (const auto& item : items) value(item);
    return end();
  }
  // The text written so far, closed containers and a final newline.
  std::string text() const { return out_ + "\n"; }

 private:
  struct Level {
    char close;
    Layout layout;
    std::size_t count;
  };
  void newline() {
    out_ += '\n';
    out_.append(2 * stack_.size(), ' ');
  }
  void separate() {
    if (afterKey_) {
      afterKey_ = false;
      return;
    }
    if (stack_.empty()) return;
    Level& level = stack_.back();
    if (level.count++ > 0) out_ += ',';
    if (level.layout == Layout::Lines)
      newline();
    else if (level.count > 1)
      out_ += ' ';
  }
  Writer& open(char bracket, Layout layout) {
    separate();
    out_ += bracket;
    stack_.push_back({bracket == '{' ? '}' : ']', layout, 0});
    return *this;
  }
  Writer& scalar(const std::string& text) {
    separate();
    out_ += text;
    return *this;
  }

  std::string out_;
  std::vector<Level> stack_;
  bool afterKey_ = false;
};

}  // namespace isg::json
