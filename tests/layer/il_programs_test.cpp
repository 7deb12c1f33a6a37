// SPDX-License-Identifier: MIT
// Programs created from SPIR-V (layer/il_programs.cpp): the layer checks each module's physical
// layout before a driver sees it (Intel's CPU runtime exits the host process when a build meets
// a truncated instruction) and answers CL_INVALID_VALUE for a malformed one; a well-formed module
// reaches the driver unchanged. Run on PoCL (no IL) in CI and on Intel's CPU runtime, which takes
// SPIR-V, by tests/native.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "spirv_module.h"

namespace {

using isgtest::env;

extern "C" const unsigned char isg_test_spirv_begin[], isg_test_spirv_end[];

// tests/layer/spirv/global_ids.spvasm as spirv-as wrote it, embedded (spirv/embed_module.S).
std::vector<unsigned char> module() {
  return std::vector<unsigned char>(isg_test_spirv_begin, isg_test_spirv_end);
}

// Word offsets where an instruction starts, and the end.
std::vector<size_t> instructionBoundaries(const std::vector<unsigned char>& m) {
  std::vector<size_t> at;
  for (size_t w = isg::spirv::kHeaderWords; w < m.size() / 4;) {
    at.push_back(w);
    uint32_t first = 0;
    std::memcpy(&first, &m[4 * w], 4);
    w += first >> 16;
  }
  at.push_back(m.size() / 4);
  return at;
}

void setWord(std::vector<unsigned char>* m, size_t w, uint32_t v) { std::memcpy(&(*m)[4 * w], &v, 4); }

TEST(SpirvLayout, TheTestModuleIsWellFormedInEitherByteOrder) {
  const auto m = module();
  ASSERT_GE(m.size(), 40u) << ISG_SPIRV_MODULE;
  ASSERT_EQ(m.size() % 4, 0u);
  isg::spirv::Header h;
  std::string why;
  ASSERT_TRUE(isg::spirv::wellFormed(m.data(), m.size(), &h, &why)) << why;
  EXPECT_EQ(h.major, 1u);
  EXPECT_EQ(h.minor, 0u);
  EXPECT_FALSE(h.byteSwapped);
  auto swapped = m;
  for (size_t i = 0; i < swapped.size(); i += 4) std::swap(swapped[i], swapped[i + 3]), std::swap(swapped[i + 1], swapped[i + 2]);
  ASSERT_TRUE(isg::spirv::wellFormed(swapped.data(), swapped.size(), &h, &why)) << why;
  EXPECT_TRUE(h.byteSwapped);
}

// Every prefix of the module: well-formed exactly when it ends at an instruction boundary after
// the header (physically complete; whether it is a useful module is the driver's question).
TEST(SpirvLayout, EveryTruncationInsideAnInstructionOrAWordIsRefused) {
  const auto m = module();
  ASSERT_GE(m.size(), 40u);
  const auto bounds = instructionBoundaries(m);
  for (size_t length = 0; length < m.size(); ++length) {
    const bool boundary =
        length % 4 == 0 && std::find(bounds.begin(), bounds.end(), length / 4) != bounds.end();
    std::string why;
    EXPECT_EQ(isg::spirv::wellFormed(m.data(), length, nullptr, &why), boundary)
        << "length " << length << ": " << why;
  }
}

TEST(SpirvLayout, EachHeaderDefectIsNamed) {
  const auto m = module();
  ASSERT_GE(m.size(), 40u);
  struct Defect {
    const char* what;
    size_t word;
    uint32_t value;
    const char* message;
  };
  const Defect defects[] = {
      {"magic", 0, 0x07230204u, "magic number"},
      {"version 2.0", 1, 0x00020000u, "not a SPIR-V 1.x version"},
      {"reserved version byte", 1, 0x01010000u, "not a SPIR-V 1.x version"},
      {"id bound 0", 3, 0u, "id bound is 0"},
      {"schema", 4, 7u, "schema word"},
      {"zero word count", 5, 0x00000011u, "word count of 0"},
  };
  for (const Defect& d : defects) {
    auto bad = m;
    setWord(&bad, d.word, d.value);
    std::string why;
    EXPECT_FALSE(isg::spirv::wellFormed(bad.data(), bad.size(), nullptr, &why)) << d.what;
    EXPECT_NE(why.find(d.message), std::string::npos) << d.what << ": " << why;
  }
  std::string why;
  EXPECT_FALSE(isg::spirv::wellFormed(nullptr, 20, nullptr, &why));
  EXPECT_FALSE(isg::spirv::wellFormed(m.data(), 0, nullptr, &why));
}

using CreateWithIL = cl_program(CL_API_CALL*)(cl_context, const void*, size_t, cl_int*);

// clCreateProgramWithIL, and clCreateProgramWithILKHR where the platform has it.
std::vector<std::pair<std::string, CreateWithIL>> entries() {
  std::vector<std::pair<std::string, CreateWithIL>> out{{"clCreateProgramWithIL", &clCreateProgramWithIL}};
  cl_platform_id platform = nullptr;
  clGetDeviceInfo(env().device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
  if (void* khr = clGetExtensionFunctionAddressForPlatform(platform, "clCreateProgramWithILKHR"))
    out.emplace_back("clCreateProgramWithILKHR", reinterpret_cast<CreateWithIL>(khr));
  return out;
}

TEST(ProgramsFromIL, MalformedModulesAreInvalidValueAndNothingElseHappens) {
  ISG_REQUIRE_ENV();
  const auto m = module();
  ASSERT_GE(m.size(), 40u);
  const auto bounds = instructionBoundaries(m);
  auto truncatedInside = std::vector<unsigned char>(m.begin(), m.begin() + 4 * bounds[bounds.size() / 2] + 4);
  auto version2 = m;
  setWord(&version2, 1, 0x00020000u);
  auto badMagic = m;
  setWord(&badMagic, 0, 0xdeadbeefu);
  const std::vector<std::pair<std::string, std::vector<unsigned char>>> bad = {
      {"a truncated instruction", truncatedInside},
      {"a length that is not whole words", std::vector<unsigned char>(m.begin(), m.end() - 2)},
      {"SPIR-V 2.0", version2},
      {"no magic number", badMagic},
  };
  for (const auto& [name, entry] : entries()) {
    for (const auto& [what, bytes] : bad) {
      cl_int err = CL_SUCCESS;
      cl_program p = entry(env().context, bytes.data(), bytes.size(), &err);
      EXPECT_EQ(p, nullptr) << name << ": " << what;
      EXPECT_EQ(err, CL_INVALID_VALUE) << name << ": " << what;
      if (p) clReleaseProgram(p);
      EXPECT_EQ(entry(env().context, bytes.data(), bytes.size(), nullptr), nullptr) << what;
    }
    cl_int err = CL_SUCCESS;
    EXPECT_EQ(entry(env().context, nullptr, m.size(), &err), nullptr);
    EXPECT_EQ(err, CL_INVALID_VALUE) << name << ": NULL module";
    EXPECT_EQ(entry(env().context, m.data(), 0, &err), nullptr);
    EXPECT_EQ(err, CL_INVALID_VALUE) << name << ": length 0";
  }
}

TEST(ProgramsFromIL, AWellFormedModuleReachesADriverThatTakesSpirvUnchanged) {
  ISG_REQUIRE_ENV();
  const std::string ils = isgtest::deviceString(env().device, CL_DEVICE_IL_VERSION);
  if (ils.find("SPIR-V") == std::string::npos)
    GTEST_SKIP() << "the device takes no SPIR-V (CL_DEVICE_IL_VERSION '" << ils
                 << "'); tests/native runs this on Intel's CPU runtime";
  const auto m = module();
  ASSERT_GE(m.size(), 40u);
  for (const auto& [name, entry] : entries()) {
    cl_int err = CL_SUCCESS;
    cl_program p = entry(env().context, m.data(), m.size(), &err);
    ASSERT_EQ(err, CL_SUCCESS) << name;
    ASSERT_NE(p, nullptr) << name;
    // CL_PROGRAM_IL is the application's module, byte for byte.
    size_t size = 0;
    ISG_CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_IL, 0, nullptr, &size));
    std::vector<unsigned char> il(size);
    ISG_CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_IL, size, il.data(), nullptr));
    EXPECT_EQ(il, m) << name;
    ASSERT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS) << name;
    cl_kernel k = clCreateKernel(p, "k", &err);
    ASSERT_EQ(err, CL_SUCCESS) << name;
    constexpr size_t kItems = 64;
    cl_mem out = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 4, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &kItems, nullptr, 0, nullptr,
                                        nullptr));
    std::vector<uint32_t> got(kItems);
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, kItems * 4, got.data(), 0,
                                     nullptr, nullptr));
    for (uint32_t i = 0; i < kItems; ++i) EXPECT_EQ(got[i], i) << name;
    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

}  // namespace
