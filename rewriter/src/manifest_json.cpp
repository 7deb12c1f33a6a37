// SPDX-License-Identifier: MIT
// manifestToJson. The format is part of the tool's interface (isg-rewrite --manifest,
// ISG_DUMP_DIR): keys always appear, in this order, and new keys are only ever appended.
//
// {
//   "status": "pass-through" | "rewritten" | "error",
//   "kernels": [ {
//       "name": "k",
//       "subGroupSize": 16,                  // S
//       "requiredSubGroupSize": true,        // S came from intel_reqd_sub_group_size
//       "families": ["identity", "shuffle"], // builtins.def families, table order
//       "scratchBytesPerItem": 4,
//       "numUserArgs": 2,
//       "hiddenArgs": [ { "kind": "local-scratch", "index": 2 } ],
//       "reqdWorkGroupSize": [0, 0, 0] } ],  // 0 = not given
//   "lineMap": [ { "rewrittenFile": "<source>", "rewrittenFirst": 120, "count": 30,
//                  "originalFile": "<source>", "originalFirst": 1 } ],
//   "log": "..."
// }
#include <string>

#include "isg/rewriter.h"

namespace isg {
namespace {

std::string quote(const std::string& s) {
  std::string out = "\"";
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
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (c < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out += hex[c >> 4];
          out += hex[c & 15];
        } else {
          out += char(c);
        }
    }
  }
  return out + "\"";
}

const char* statusName(RewriteResult::Status s) {
  switch (s) {
    case RewriteResult::Status::PassThrough:
      return "pass-through";
    case RewriteResult::Status::Rewritten:
      return "rewritten";
    case RewriteResult::Status::Error:
      return "error";
  }
  return "error";
}

const char* hiddenKindName(HiddenArg::Kind k) {
  switch (k) {
    case HiddenArg::Kind::LocalScratch:
      return "local-scratch";
  }
  return "unknown";
}

}  // namespace

std::string manifestToJson(const RewriteResult& r) {
  std::string o = "{\n  \"status\": " + quote(statusName(r.status)) + ",\n  \"kernels\": [";
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelManifest& k = r.kernels[i];
    o += i ? ",\n" : "\n";
    o += "    {\n      \"name\": " + quote(k.name) + ",\n";
    o += "      \"subGroupSize\": " + std::to_string(k.subGroupSize) + ",\n";
    o += "      \"requiredSubGroupSize\": " + std::string(k.requiredSubGroupSize ? "true" : "false") + ",\n";
    o += "      \"families\": [";
    for (std::size_t f = 0; f < k.families.size(); ++f) o += (f ? ", " : "") + quote(k.families[f]);
    o += "],\n      \"scratchBytesPerItem\": " + std::to_string(k.scratchBytesPerItem) + ",\n";
    o += "      \"numUserArgs\": " + std::to_string(k.numUserArgs) + ",\n";
    o += "      \"hiddenArgs\": [";
    for (std::size_t h = 0; h < k.hiddenArgs.size(); ++h)
      o += std::string(h ? ", " : "") + "{\"kind\": " + quote(hiddenKindName(k.hiddenArgs[h].kind)) +
           ", \"index\": " + std::to_string(k.hiddenArgs[h].index) + "}";
    o += "],\n      \"reqdWorkGroupSize\": [" + std::to_string(k.reqdWorkGroupSize[0]) + ", " +
         std::to_string(k.reqdWorkGroupSize[1]) + ", " + std::to_string(k.reqdWorkGroupSize[2]) +
         "]\n    }";
  }
  o += r.kernels.empty() ? "],\n" : "\n  ],\n";
  o += "  \"lineMap\": [";
  for (std::size_t i = 0; i < r.lineMap.size(); ++i) {
    const LineMapEntry& e = r.lineMap[i];
    o += i ? ",\n" : "\n";
    o += "    {\"rewrittenFile\": " + quote(e.rewrittenFile) +
         ", \"rewrittenFirst\": " + std::to_string(e.rewrittenFirst) +
         ", \"count\": " + std::to_string(e.count) + ", \"originalFile\": " + quote(e.originalFile) +
         ", \"originalFirst\": " + std::to_string(e.originalFirst) + "}";
  }
  o += r.lineMap.empty() ? "],\n" : "\n  ],\n";
  o += "  \"log\": " + quote(r.log) + "\n}\n";
  return o;
}

}  // namespace isg
