// SPDX-License-Identifier: MIT
// case.json writer and reader, on the tree's one JSON reader and writer (isg/json.h).
#include "case_format.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "isg/json.h"

namespace isg::capture {
namespace {

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
  json::Writer w;
  auto optionalNumbers = [&w](const char* key, const std::optional<std::vector<std::uint64_t>>& v) {
    w.key(key);
    if (v)
      w.array(*v);
    else
      w.null();
  };
  w.beginObject()
      .field("format", kFormatName)
      .field("format_version", c.formatVersion)
      .key("capture")
      .beginObject()
      .field("api", c.api)
      .field("enqueue_index", c.enqueueIndex)
      .field("pid", c.pid)
      .field("captured_at", c.capturedAt)
      .end();
  w.key("device").beginObject();
  for (const auto& [k, v] : c.device) w.field(k, v);
  w.end();
  w.key("layer")
      .beginObject()
      .field("mode", c.layerMode)
      .field("strategy", c.strategy)
      .field("sub_group_size", c.subGroupSize)
      .end();
  w.key("program")
      .beginObject()
      .field("form", c.programForm)
      .field("source", c.sourceFile)
      .field("options", c.buildOptions)
      .end();
  w.field("kernel", c.kernelName).key("ndrange").beginObject().field("work_dim", c.ndrange.workDim);
  optionalNumbers("global_offset", c.ndrange.globalOffset);
  w.key("global_size").array(c.ndrange.globalSize);
  optionalNumbers("local_size", c.ndrange.localSize);
  w.end();

  w.key("memory").beginArray();
  for (const MemoryObject& m : c.memory) {
    w.beginObject().field("id", m.id).field("kind", m.kind).field("flags", m.flags).field("size", m.size);
    if (m.kind == "image")
      w.field("image_type", m.imageType)
          .field("channel_order", m.channelOrder)
          .field("channel_data_type", m.channelDataType)
          .field("width", m.width)
          .field("height", m.height)
          .field("depth", m.depth)
          .field("array_size", m.arraySize)
          .field("element_size", m.elementSize);
    w.field("before", m.before).key("after");
    if (m.after.empty())
      w.null();
    else
      w.value(m.after);
    w.end();
  }
  w.end();

  w.key("args").beginArray();
  for (const Argument& a : c.args) {
    w.beginObject().field("index", a.index).field("kind", a.kind);
    w.field("name", a.name).field("type_name", a.typeName);
    w.field("address_qualifier", a.addressQualifier).field("access_qualifier", a.accessQualifier);
    w.key("type_qualifiers").array(a.typeQualifiers);
    if (a.kind == "scalar") w.field("size", a.size).field("value_hex", a.valueHex);
    if (a.kind == "local") w.field("size", a.size);
    if (a.kind == "buffer")
      w.field("memory", a.memory)
          .field("sub_buffer", a.subBuffer)
          .field("origin", a.origin)
          .field("size", a.size);
    if (a.kind == "image") w.field("memory", a.memory);
    if (a.kind == "buffer" || a.kind == "image") w.field("writable", a.writable);
    if (a.kind == "sampler")
      w.field("normalized_coords", a.normalizedCoords)
          .field("addressing_mode", a.addressingMode)
          .field("filter_mode", a.filterMode);
    w.end();
  }
  w.end().key("notes").array(c.notes);
  return w.end().text();
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
  c.programForm = r.str(program, "form", false);
  if (c.programForm.empty()) c.programForm = "source";
  if (r.ok() && c.programForm != "source" && c.programForm != "spirv")
    r.problem("program form '" + c.programForm + "' is neither source nor spirv");
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
