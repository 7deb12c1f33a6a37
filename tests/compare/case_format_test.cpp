// SPDX-License-Identifier: MIT
// The tree's one JSON writer and reader (isg/json.h) and the case format built on them
// (capture/case_format.h): layout, quoting, and a case surviving write + read field by field.
#include <gtest/gtest.h>

#include "case_format.h"
#include "isg/json.h"

namespace {

using isg::json::Writer;

TEST(JsonWriter, LinesAndInlineLayouts) {
  Writer w;
  w.beginObject()
      .field("a", 1)
      .key("empty")
      .beginArray()
      .end()
      .key("list")
      .beginArray()
      .beginObject(Writer::Layout::Inline)
      .field("x", true)
      .field("y", "q\"\n")
      .end()
      .end()
      .key("nums")
      .array(std::vector<unsigned>{1, 2, 3})
      .key("none")
      .null()
      .field("half", 0.5)
      .field("nan", std::nan(""))
      .end();
  EXPECT_EQ(w.text(),
            "{\n"
            "  \"a\": 1,\n"
            "  \"empty\": [],\n"
            "  \"list\": [\n"
            "    {\"x\": true, \"y\": \"q\\\"\\n\"}\n"
            "  ],\n"
            "  \"nums\": [1, 2, 3],\n"
            "  \"none\": null,\n"
            "  \"half\": 0.5,\n"
            "  \"nan\": null\n"
            "}\n");
}

TEST(JsonWriter, ReaderTakesBackWhatTheWriterWrote) {
  std::string awkward;
  for (int c = 1; c < 128; ++c) awkward += static_cast<char>(c);
  awkward += "\xc3\xa9";  // UTF-8 passes through
  Writer w;
  w.beginObject().field("s", awkward).field("big", std::uint64_t{18446744073709551615u}).end();
  isg::json::Value v;
  std::string error;
  ASSERT_TRUE(isg::json::parse(w.text(), &v, &error)) << error;
  EXPECT_EQ(v.string("s"), awkward);
  ASSERT_NE(v.get("big"), nullptr);
  EXPECT_EQ(v.get("big")->text, "18446744073709551615");
}

TEST(CaseFormat, EveryFieldSurvivesWriteAndRead) {
  isg::capture::Case c;
  c.api = "clEnqueueNDRangeKernel";
  c.enqueueIndex = 7;
  c.pid = 4242;
  c.capturedAt = "2026-11-24T12:00:00Z";
  c.device = {{"name", "dev \"x\""}, {"vendor", "v"}};
  c.layerMode = "rewritten";
  c.strategy = "local";
  c.subGroupSize = 16;
  c.buildOptions = "-cl-std=CL2.0 -DX=\"a b\"";
  c.kernelName = "k";
  c.programForm = "spirv";
  c.sourceFile = "program.spv";
  c.ndrange.workDim = 2;
  c.ndrange.globalOffset = std::vector<std::uint64_t>{1, 2};
  c.ndrange.globalSize = {64, 4};
  isg::capture::MemoryObject buf;
  buf.id = 0;
  buf.kind = "buffer";
  buf.flags = 1;
  buf.size = 256;
  buf.before = "mem0.before.bin";
  buf.after = "mem0.after.bin";
  isg::capture::MemoryObject img;
  img.id = 1;
  img.kind = "image";
  img.size = 64;
  img.before = "mem1.before.bin";
  img.imageType = 0x10F1;
  img.channelOrder = 0x10B0;
  img.channelDataType = 0x10DA;
  img.width = 4;
  img.height = 4;
  img.elementSize = 4;
  c.memory = {buf, img};
  isg::capture::Argument a0, a1, a2;
  a0.index = 0;
  a0.kind = "buffer";
  a0.name = "out";
  a0.typeName = "uint*";
  a0.addressQualifier = "global";
  a0.accessQualifier = "none";
  a0.typeQualifiers = {"restrict"};
  a0.memory = 0;
  a0.subBuffer = true;
  a0.origin = 128;
  a0.size = 128;
  a0.writable = true;
  a1.index = 1;
  a1.kind = "scalar";
  a1.size = 4;
  a1.valueHex = "2a000000";
  a2.index = 2;
  a2.kind = "image";
  a2.memory = 1;
  c.args = {a0, a1, a2};
  c.notes = {"one", "two"};

  const std::string text = isg::capture::toJson(c);
  isg::capture::Case r;
  std::string error;
  ASSERT_TRUE(isg::capture::fromJson(text, &r, &error)) << error;
  EXPECT_EQ(isg::capture::toJson(r), text);
  EXPECT_EQ(r.device.at("name"), "dev \"x\"");
  EXPECT_EQ(r.buildOptions, c.buildOptions);
  EXPECT_EQ(r.strategy, "local");
  EXPECT_EQ(r.ndrange.globalOffset, c.ndrange.globalOffset);
  EXPECT_FALSE(r.ndrange.localSize.has_value());
  ASSERT_EQ(r.args.size(), 3u);
  EXPECT_TRUE(r.args[0].subBuffer);
  EXPECT_EQ(r.args[0].origin, 128u);
  EXPECT_EQ(r.args[1].valueHex, "2a000000");
  EXPECT_EQ(r.memory[1].channelDataType, 0x10DAu);
  EXPECT_TRUE(r.memory[1].after.empty());
  EXPECT_EQ(r.programForm, "spirv");
  EXPECT_EQ(r.sourceFile, "program.spv");
}

// Version 1 cases (before programs from SPIR-V) have no program form: they are all source; a form
// the reader does not know is refused.
TEST(CaseFormat, ReadsVersionOneCasesAsSourceAndRefusesUnknownForms) {
  isg::capture::Case c;
  std::string text = isg::capture::toJson(c);
  // The field, its comma and the space up to the next key.
  const std::size_t at = text.find("\"form\": \"source\"");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string form = text.substr(at, text.find('"', at + 16) - at);
  std::string v1 = text;
  v1.erase(at, form.size());
  const std::string version = "\"format_version\": " + std::to_string(isg::capture::kFormatVersion);
  v1.replace(v1.find(version), version.size(), "\"format_version\": 1");
  isg::capture::Case r;
  std::string error;
  ASSERT_TRUE(isg::capture::fromJson(v1, &r, &error)) << error;
  EXPECT_EQ(r.programForm, "source");
  std::string odd = text;
  odd.replace(at, form.size(), "\"form\": \"ptx\", ");
  EXPECT_FALSE(isg::capture::fromJson(odd, &r, &error));
  EXPECT_NE(error.find("ptx"), std::string::npos) << error;
}

TEST(CaseFormat, RefusesANewerVersionAndForeignFiles) {
  isg::capture::Case c;
  std::string text = isg::capture::toJson(c);
  const std::string version = "\"format_version\": " + std::to_string(isg::capture::kFormatVersion);
  ASSERT_NE(text.find(version), std::string::npos);
  std::string newer = text;
  newer.replace(newer.find(version), version.size(),
                "\"format_version\": " + std::to_string(isg::capture::kFormatVersion + 1));
  isg::capture::Case r;
  std::string error;
  EXPECT_FALSE(isg::capture::fromJson(newer, &r, &error));
  EXPECT_NE(error.find("not supported"), std::string::npos) << error;
  EXPECT_FALSE(isg::capture::fromJson("{\"format\": \"other\"}", &r, &error));
  EXPECT_FALSE(isg::capture::fromJson("{", &r, &error));
}

}  // namespace
