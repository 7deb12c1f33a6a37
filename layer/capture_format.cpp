// SPDX-License-Identifier: MIT
// case.json writer and reader. The reader is a small JSON parser of its own: the format needs
// objects, arrays, strings, integers and booleans, and the layer must not pull in a JSON
// library the application may also link in another version.
#include "capture_format.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "isg/json.h"

namespace isg::capture {
namespace {

// ---- writing ---------------------------------------------------------------------------------

// Builds one JSON object with fields in insertion order, so case.json reads top-down.
class Obj {
 public:
  explicit Obj(int indent) : indent_(indent) {}
  Obj& raw(const std::string& key, const std::string& json) {
    fields_.push_back(jsonQuote(key) + ": " + json);
    return *this;
  }
  Obj& str(const std::string& key, const std::string& v) { return raw(key, jsonQuote(v)); }
  Obj& num(const std::string& key, std::uint64_t v) { return raw(key, std::to_string(v)); }
  Obj& boolean(const std::string& key, bool v) { return raw(key, v ? "true" : "false"); }
  std::string text() const {
    if (fields_.empty()) return "{}";
    std::string pad(indent_ + 2, ' ');
    std::string out = "{\n";
    for (size_t i = 0; i < fields_.size(); ++i)
      out += pad + fields_[i] + (i + 1 < fields_.size() ? ",\n" : "\n");
    return out + std::string(indent_, ' ') + "}";
  }

 private:
  int indent_;
  std::vector<std::string> fields_;
};

std::string numbers(const std::vector<std::uint64_t>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

std::string strings(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + jsonQuote(v[i]);
  return out + "]";
}

std::string list(const std::vector<std::string>& objects, int indent) {
  if (objects.empty()) return "[]";
  std::string pad(indent + 2, ' ');
  std::string out = "[\n";
  for (size_t i = 0; i < objects.size(); ++i)
    out += pad + objects[i] + (i + 1 < objects.size() ? ",\n" : "\n");
  return out + std::string(indent, ' ') + "]";
}

// ---- reading ---------------------------------------------------------------------------------

using json::Parser;
using json::Value;

// Typed field access; a missing or mistyped required field makes the whole read fail.
class Reader {
 public:
  explicit Reader(std::string* error) : error_(error) {}
  bool ok() const { return ok_; }
  void problem(const std::string& what) {
    if (ok_ && error_) *error_ = what;
    ok_ = false;
  }
  const Value* field(const Value& obj, const std::string& key, bool required) {
    const Value* v = obj.get(key);
    if (!v && required) problem("missing field '" + key + "'");
    return v;
  }
  std::string str(const Value& obj, const std::string& key, bool required = true) {
    const Value* v = field(obj, key, required);
    if (!v || v->type == Value::Type::Null) return {};
    if (v->type != Value::Type::String) problem("field '" + key + "' is not a string");
    return v->text;
  }
  std::uint64_t num(const Value& obj, const std::string& key, bool required = true) {
    const Value* v = field(obj, key, required);
    if (!v || v->type == Value::Type::Null) return 0;
    return number(*v, key);
  }
  std::uint64_t number(const Value& v, const std::string& what) {
    if (v.type != Value::Type::Number ||
        v.text.find_first_not_of("0123456789") != std::string::npos) {
      problem("'" + what + "' is not an unsigned integer");
      return 0;
    }
    return std::strtoull(v.text.c_str(), nullptr, 10);
  }
  bool boolean(const Value& obj, const std::string& key, bool required = true) {
    const Value* v = field(obj, key, required);
    if (!v || v->type == Value::Type::Null) return false;
    if (v->type != Value::Type::Bool) problem("field '" + key + "' is not a boolean");
    return v->b;
  }
  std::optional<std::vector<std::uint64_t>> numbers(const Value& obj, const std::string& key) {
    const Value* v = field(obj, key, true);
    if (!v || v->type == Value::Type::Null) return std::nullopt;
    std::vector<std::uint64_t> out;
    if (v->type != Value::Type::Array) {
      problem("field '" + key + "' is not an array");
      return out;
    }
    for (const Value& item : v->items) out.push_back(number(item, key));
    return out;
  }
  std::vector<std::string> strings(const Value& obj, const std::string& key) {
    std::vector<std::string> out;
    const Value* v = field(obj, key, false);
    if (!v || v->type != Value::Type::Array) return out;
    for (const Value& item : v->items) out.push_back(item.text);
    return out;
  }
  const std::vector<Value>& array(const Value& obj, const std::string& key) {
    static const std::vector<Value> kEmpty;
    const Value* v = field(obj, key, true);
    if (!v) return kEmpty;
    if (v->type != Value::Type::Array) {
      problem("field '" + key + "' is not an array");
      return kEmpty;
    }
    return v->items;
  }

 private:
  std::string* error_;
  bool ok_ = true;
};

}  // namespace

std::string toHex(const void* data, std::size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  const auto* bytes = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

bool fromHex(const std::string& hex, std::vector<unsigned char>* out) {
  if (hex.size() % 2) return false;
  out->clear();
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out->push_back(static_cast<unsigned char>(hi * 16 + lo));
  }
  return true;
}

std::string fileSafe(const std::string& name) {
  std::string out;
  for (char c : name)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.') ? c : '_';
  return out.substr(0, 64);
}

bool readFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream text;
  text << in.rdbuf();
  *out = text.str();
  return static_cast<bool>(in) || in.eof();
}

bool writeFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
  out.close();
  return static_cast<bool>(out);
}

std::string toJson(const Case& c) {
  Obj root(0);
  root.str("format", kFormatName)
      .num("format_version", static_cast<std::uint64_t>(c.formatVersion));
  Obj capture(2);
  capture.str("api", c.api)
      .num("enqueue_index", c.enqueueIndex)
      .num("pid", c.pid)
      .str("captured_at", c.capturedAt);
  root.raw("capture", capture.text());
  Obj device(2);
  for (const auto& [k, v] : c.device) device.str(k, v);
  root.raw("device", device.text());
  Obj layer(2);
  layer.str("mode", c.layerMode).str("strategy", c.strategy).num("sub_group_size", c.subGroupSize);
  root.raw("layer", layer.text());
  Obj program(2);
  program.str("source", c.sourceFile).str("options", c.buildOptions);
  root.raw("program", program.text());
  root.str("kernel", c.kernelName);
  Obj nd(2);
  nd.num("work_dim", c.ndrange.workDim)
      .raw("global_offset", c.ndrange.globalOffset ? numbers(*c.ndrange.globalOffset) : "null")
      .raw("global_size", numbers(c.ndrange.globalSize))
      .raw("local_size", c.ndrange.localSize ? numbers(*c.ndrange.localSize) : "null");
  root.raw("ndrange", nd.text());

  std::vector<std::string> memory;
  for (const MemoryObject& m : c.memory) {
    Obj o(4);
    o.num("id", m.id).str("kind", m.kind).num("flags", m.flags).num("size", m.size);
    if (m.kind == "image") {
      o.num("image_type", m.imageType)
          .num("channel_order", m.channelOrder)
          .num("channel_data_type", m.channelDataType)
          .num("width", m.width)
          .num("height", m.height)
          .num("depth", m.depth)
          .num("array_size", m.arraySize)
          .num("element_size", m.elementSize);
    }
    o.str("before", m.before).raw("after", m.after.empty() ? "null" : jsonQuote(m.after));
    memory.push_back(o.text());
  }
  root.raw("memory", list(memory, 2));

  std::vector<std::string> args;
  for (const Argument& a : c.args) {
    Obj o(4);
    o.num("index", a.index).str("kind", a.kind);
    o.str("name", a.name).str("type_name", a.typeName);
    o.str("address_qualifier", a.addressQualifier).str("access_qualifier", a.accessQualifier);
    o.raw("type_qualifiers", strings(a.typeQualifiers));
    if (a.kind == "scalar") o.num("size", a.size).str("value_hex", a.valueHex);
    if (a.kind == "local") o.num("size", a.size);
    if (a.kind == "buffer")
      o.num("memory", a.memory)
          .boolean("sub_buffer", a.subBuffer)
          .num("origin", a.origin)
          .num("size", a.size);
    if (a.kind == "image") o.num("memory", a.memory);
    if (a.kind == "buffer" || a.kind == "image") o.boolean("writable", a.writable);
    if (a.kind == "sampler")
      o.boolean("normalized_coords", a.normalizedCoords)
          .num("addressing_mode", a.addressingMode)
          .num("filter_mode", a.filterMode);
    args.push_back(o.text());
  }
  root.raw("args", list(args, 2));
  root.raw("notes", strings(c.notes));
  return root.text() + "\n";
}

bool fromJson(const std::string& text, Case* out, std::string* error) {
  Value root;
  if (!Parser(text).parse(&root, error)) return false;
  Reader r(error);
  if (root.type != Value::Type::Object) {
    r.problem("case.json is not an object");
    return false;
  }
  if (r.str(root, "format") != kFormatName) {
    r.problem(std::string("not an ") + kFormatName + " file");
    return false;
  }
  Case c;
  c.formatVersion = static_cast<int>(r.num(root, "format_version"));
  if (r.ok() && (c.formatVersion < 1 || c.formatVersion > kFormatVersion)) {
    r.problem("format version " + std::to_string(c.formatVersion) + " is not supported (this " +
              "reader knows 1.." + std::to_string(kFormatVersion) + ")");
    return false;
  }
  static const Value kEmpty;
  auto object = [&](const char* key) -> const Value& {
    const Value* v = r.field(root, key, true);
    return v && v->type == Value::Type::Object ? *v : kEmpty;
  };
  const Value& capture = object("capture");
  c.api = r.str(capture, "api");
  c.enqueueIndex = r.num(capture, "enqueue_index", false);
  c.pid = r.num(capture, "pid", false);
  c.capturedAt = r.str(capture, "captured_at", false);
  for (const auto& [k, v] : object("device").fields) c.device[k] = v.text;
  const Value& layer = object("layer");
  c.layerMode = r.str(layer, "mode", false);
  c.strategy = r.str(layer, "strategy", false);
  c.subGroupSize = static_cast<unsigned>(r.num(layer, "sub_group_size", false));
  const Value& program = object("program");
  c.sourceFile = r.str(program, "source");
  c.buildOptions = r.str(program, "options");
  c.kernelName = r.str(root, "kernel");
  const Value& nd = object("ndrange");
  c.ndrange.workDim = static_cast<unsigned>(r.num(nd, "work_dim"));
  c.ndrange.globalOffset = r.numbers(nd, "global_offset");
  c.ndrange.globalSize = r.numbers(nd, "global_size").value_or(std::vector<std::uint64_t>{});
  c.ndrange.localSize = r.numbers(nd, "local_size");
  for (const Value& v : r.array(root, "memory")) {
    MemoryObject m;
    m.id = static_cast<unsigned>(r.num(v, "id"));
    m.kind = r.str(v, "kind");
    m.flags = r.num(v, "flags");
    m.size = r.num(v, "size");
    if (m.kind == "image") {
      m.imageType = static_cast<std::uint32_t>(r.num(v, "image_type"));
      m.channelOrder = static_cast<std::uint32_t>(r.num(v, "channel_order"));
      m.channelDataType = static_cast<std::uint32_t>(r.num(v, "channel_data_type"));
      m.width = r.num(v, "width");
      m.height = r.num(v, "height");
      m.depth = r.num(v, "depth");
      m.arraySize = r.num(v, "array_size");
      m.elementSize = r.num(v, "element_size");
    }
    m.before = r.str(v, "before");
    m.after = r.str(v, "after", false);
    c.memory.push_back(std::move(m));
  }
  for (const Value& v : r.array(root, "args")) {
    Argument a;
    a.index = static_cast<unsigned>(r.num(v, "index"));
    a.kind = r.str(v, "kind");
    a.name = r.str(v, "name", false);
    a.typeName = r.str(v, "type_name", false);
    a.addressQualifier = r.str(v, "address_qualifier", false);
    a.accessQualifier = r.str(v, "access_qualifier", false);
    a.typeQualifiers = r.strings(v, "type_qualifiers");
    if (a.kind == "scalar" || a.kind == "local") a.size = r.num(v, "size");
    if (a.kind == "scalar") a.valueHex = r.str(v, "value_hex");
    if (a.kind == "buffer") {
      a.memory = static_cast<unsigned>(r.num(v, "memory"));
      a.subBuffer = r.boolean(v, "sub_buffer");
      a.origin = r.num(v, "origin");
      a.size = r.num(v, "size");
    }
    if (a.kind == "image") a.memory = static_cast<unsigned>(r.num(v, "memory"));
    if (a.kind == "buffer" || a.kind == "image") a.writable = r.boolean(v, "writable");
    if (a.kind == "sampler") {
      a.normalizedCoords = r.boolean(v, "normalized_coords");
      a.addressingMode = static_cast<std::uint32_t>(r.num(v, "addressing_mode"));
      a.filterMode = static_cast<std::uint32_t>(r.num(v, "filter_mode"));
    }
    c.args.push_back(std::move(a));
  }
  c.notes = r.strings(root, "notes");
  if (!r.ok()) return false;
  *out = std::move(c);
  return true;
}

}  // namespace isg::capture
