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
//       "reqdWorkGroupSize": [0, 0, 0],     // 0 = not given
//       "wholeSubGroups": false,            // every sub-group has S members
//       "blockImageArgs": [] } ],           // image arguments block IO reads or writes
//   "lineMap": [ { "rewrittenFile": "<source>", "rewrittenFirst": 120, "count": 30,
//                  "originalFile": "<source>", "originalFirst": 1 } ],
//   "log": "..."
// }
#include <string>

#include "isg/json_string.h"
#include "isg/rewriter.h"

namespace isg {
namespace {

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
  std::string o = "{\n  \"status\": " + jsonQuote(statusName(r.status)) + ",\n  \"kernels\": [";
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelManifest& k = r.kernels[i];
    o += i ? ",\n" : "\n";
    o += "    {\n      \"name\": " + jsonQuote(k.name) + ",\n";
    o += "      \"subGroupSize\": " + std::to_string(k.subGroupSize) + ",\n";
    o += "      \"requiredSubGroupSize\": " + std::string(k.requiredSubGroupSize ? "true" : "false") + ",\n";
    o += "      \"families\": [";
    for (std::size_t f = 0; f < k.families.size(); ++f) o += (f ? ", " : "") + jsonQuote(k.families[f]);
    o += "],\n      \"scratchBytesPerItem\": " + std::to_string(k.scratchBytesPerItem) + ",\n";
    o += "      \"numUserArgs\": " + std::to_string(k.numUserArgs) + ",\n";
    o += "      \"hiddenArgs\": [";
    for (std::size_t h = 0; h < k.hiddenArgs.size(); ++h)
      o += std::string(h ? ", " : "") + "{\"kind\": " + jsonQuote(hiddenKindName(k.hiddenArgs[h].kind)) +
           ", \"index\": " + std::to_string(k.hiddenArgs[h].index) + "}";
    o += "],\n      \"reqdWorkGroupSize\": [" + std::to_string(k.reqdWorkGroupSize[0]) + ", " +
         std::to_string(k.reqdWorkGroupSize[1]) + ", " + std::to_string(k.reqdWorkGroupSize[2]) +
         "],\n      \"wholeSubGroups\": " + (k.wholeSubGroups ? "true" : "false") +
         ",\n      \"blockImageArgs\": [";
    for (std::size_t i = 0; i < k.blockImageArgs.size(); ++i)
      o += (i ? ", " : "") + std::to_string(k.blockImageArgs[i]);
    o += "]\n    }";
  }
  o += r.kernels.empty() ? "],\n" : "\n  ],\n";
  o += "  \"lineMap\": [";
  for (std::size_t i = 0; i < r.lineMap.size(); ++i) {
    const LineMapEntry& e = r.lineMap[i];
    o += i ? ",\n" : "\n";
    o += "    {\"rewrittenFile\": " + jsonQuote(e.rewrittenFile) +
         ", \"rewrittenFirst\": " + std::to_string(e.rewrittenFirst) +
         ", \"count\": " + std::to_string(e.count) + ", \"originalFile\": " + jsonQuote(e.originalFile) +
         ", \"originalFirst\": " + std::to_string(e.originalFirst) + "}";
  }
  o += r.lineMap.empty() ? "],\n" : "\n  ],\n";
  o += "  \"log\": " + jsonQuote(r.log) + "\n}\n";
  return o;
}

}  // namespace isg
