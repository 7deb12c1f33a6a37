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
//       "blockImageArgs": [],               // image arguments block IO reads or writes
//       "mixedImageArgs": [],               // those other image functions use as well
//       "shapeDependentResult": false } ],  // results may differ from Intel's (its log says)
//   "lineMap": [ { "rewrittenFile": "<source>", "rewrittenFirst": 120, "count": 30,
//                  "originalFile": "<source>", "originalFirst": 1 } ],
//   "log": "..."
// }
#include <string>

#include "isg/json.h"
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
    case HiddenArg::Kind::RawImage:
      return "raw-image";
    case HiddenArg::Kind::LaunchShape:
      return "launch-shape";
    case HiddenArg::Kind::ImageFacts:
      return "image-facts";
    case HiddenArg::Kind::PackedLaunch:
      return "packed-launch";
  }
  return "unknown";
}

}  // namespace

std::string manifestToJson(const RewriteResult& r) {
  using json::Writer;
  constexpr auto kInline = Writer::Layout::Inline;
  Writer w;
  w.beginObject().field("status", statusName(r.status)).key("kernels").beginArray();
  for (const KernelManifest& k : r.kernels) {
    w.beginObject()
        .field("name", k.name)
        .field("subGroupSize", k.subGroupSize)
        .field("requiredSubGroupSize", k.requiredSubGroupSize)
        .key("families")
        .array(k.families)
        .field("scratchBytesPerItem", k.scratchBytesPerItem)
        .field("numUserArgs", k.numUserArgs)
        .key("hiddenArgs")
        .beginArray(kInline);
    for (const HiddenArg& h : k.hiddenArgs) {
      w.beginObject(kInline).field("kind", hiddenKindName(h.kind)).field("index", h.index);
      if (h.kind == HiddenArg::Kind::RawImage || h.kind == HiddenArg::Kind::ImageFacts)
        w.field("imageArg", h.imageArg);
      w.end();
    }
    w.end().key("reqdWorkGroupSize").array(k.reqdWorkGroupSize);
    w.field("wholeSubGroups", k.wholeSubGroups).key("blockImageArgs").array(k.blockImageArgs);
    w.key("mixedImageArgs").array(k.mixedImageArgs);
    w.field("shapeDependentResult", k.shapeDependentResult).end();
  }
  w.end().key("lineMap").beginArray();
  for (const LineMapEntry& e : r.lineMap)
    w.beginObject(kInline)
        .field("rewrittenFile", e.rewrittenFile)
        .field("rewrittenFirst", e.rewrittenFirst)
        .field("count", e.count)
        .field("originalFile", e.originalFile)
        .field("originalFirst", e.originalFirst)
        .end();
  return w.end().field("log", r.log).end().text();
}

}  // namespace isg
