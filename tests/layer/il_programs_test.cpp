// SPDX-License-Identifier: MIT
// Programs created from SPIR-V (layer/programs/il_programs.cpp, docs/spirv.md): the layer checks each
// module's physical layout before a driver sees it (Intel's CPU runtime exits the host process
// when a build meets a truncated instruction) and answers CL_INVALID_VALUE for a malformed one;
// on devices it serves it validates the whole module too and builds it (PoCL has no IL: the
// layer gives it SPIR bitcode). Run on PoCL in CI and on Intel's CPU runtime, which takes SPIR-V
// natively, by tests/native.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "formats/spirv_module.h"

namespace {

using isgtest::env;

extern "C" const unsigned char isg_test_spirv_begin[], isg_test_spirv_end[];
extern "C" const unsigned char isg_test_spirv_us16_begin[], isg_test_spirv_us16_end[];

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

bool hasWord(const std::string& list, const std::string& word) {
  return (" " + list + " ").find(" " + word + " ") != std::string::npos;
}

// Whether the layer builds programs from SPIR-V here: it serves the device (the driver alone has
// no cl_intel_subgroups) and the driver takes SPIR-V, SPIR bitcode or (NVIDIA) PTX.
bool layerBuildsSpirv() {
  // A layer built without the SPIR-V bridge (cmake/llvm.cmake) builds none: the driver's IL
  // answers stand, and no cl_intel_spirv_* is advertised.
  if (!ISG_TEST_HAVE_SPIRV_BRIDGE && !std::getenv("ISG_TEST_NATIVE_DRIVER")) return false;
  const std::string ext = isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS);
  const std::string ils = isgtest::deviceString(env().device, CL_DEVICE_IL_VERSION);
  return hasWord(ext, "cl_khr_spir") || ils.find("SPIR-V") != std::string::npos;
}

// Skips a test of what the layer does with modules where it builds none.
#define ISG_REQUIRE_LAYER_SPIRV()                                                                  \
  do {                                                                                             \
    ISG_REQUIRE_ENV();                                                                             \
    if (!layerBuildsSpirv() ||                                                                     \
        !hasWord(isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS), "cl_intel_spirv_subgroups")) \
      GTEST_SKIP() << "the layer does not build SPIR-V for this device";                          \
  } while (0)

// What the layer advertises about SPIR-V is what it builds (cl_intel_spirv_subgroups: "requires
// OpenCL support for SPIR-V, either via OpenCL 2.1 or via the cl_khr_il_program extension").
TEST(ProgramsFromIL, TheSpirvExtensionsAreAdvertisedExactlyWhereTheyBuild) {
  ISG_REQUIRE_ENV();
  const std::string ext = isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS);
  const std::string ils = isgtest::deviceString(env().device, CL_DEVICE_IL_VERSION);
  if (!layerBuildsSpirv()) {
    EXPECT_FALSE(hasWord(ext, "cl_intel_spirv_subgroups")) << ext;
    EXPECT_FALSE(hasWord(ext, "cl_intel_spirv_media_block_io")) << ext;
    return;
  }
  EXPECT_TRUE(hasWord(ext, "cl_intel_spirv_subgroups")) << ext;
  EXPECT_TRUE(hasWord(ext, "cl_khr_il_program") || ils.find("SPIR-V_1.") != std::string::npos);
  // cl_intel_spirv_media_block_io "requires ... support for the cl_intel_media_block_io
  // extension": both or neither (NVIDIA's too: its SPIR-V path writes images in NVIDIA's forms).
  EXPECT_EQ(hasWord(ext, "cl_intel_spirv_media_block_io"), hasWord(ext, "cl_intel_media_block_io")) << ext;
  for (const char* v : {"SPIR-V_1.0", "SPIR-V_1.1", "SPIR-V_1.2"})
    EXPECT_NE(ils.find(v), std::string::npos) << v << " in '" << ils << "'";
  size_t size = 0;
  if (clGetDeviceInfo(env().device, CL_DEVICE_ILS_WITH_VERSION, 0, nullptr, &size) == CL_SUCCESS) {
    std::vector<cl_name_version> list(size / sizeof(cl_name_version));
    ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_ILS_WITH_VERSION, size, list.data(), nullptr));
    std::vector<cl_version> spirv;
    for (const cl_name_version& v : list)
      if (std::string(v.name) == "SPIR-V") spirv.push_back(v.version);
    EXPECT_FALSE(spirv.empty());
    // The layer lists every version it reads (Intel's runtime lists one entry for all).
    if (!std::getenv("ISG_TEST_NATIVE_DRIVER")) {
      for (unsigned minor = 0; minor <= 2; ++minor)
        EXPECT_NE(std::find(spirv.begin(), spirv.end(), CL_MAKE_VERSION(1, minor, 0)), spirv.end())
            << "SPIR-V 1." << minor;
    }
  }
  if (size_t n = 0; clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &n) ==
                    CL_SUCCESS) {
    std::vector<cl_name_version> list(n / sizeof(cl_name_version));
    ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION, n, list.data(), nullptr));
    bool listed = false;
    for (const cl_name_version& v : list) listed |= std::string(v.name) == "cl_intel_spirv_subgroups";
    EXPECT_TRUE(listed);
  }
}

// Every extension the device advertises answers for its entry points (cl_khr_il_program: the
// layer advertises it on PoCL and NVIDIA, whose drivers have no clCreateProgramWithILKHR), and
// a program created through it builds and runs.
TEST(ProgramsFromIL, EveryAdvertisedExtensionAnswersForItsEntryPoints) {
  ISG_REQUIRE_ENV();
  const std::string ext = isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS);
  cl_platform_id platform = nullptr;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr));
  if (hasWord(ext, "cl_khr_subgroups") || hasWord(ext, "cl_intel_subgroups")) {
    EXPECT_NE(clGetExtensionFunctionAddressForPlatform(platform, "clGetKernelSubGroupInfoKHR"),
              nullptr);
  }
  if (!hasWord(ext, "cl_khr_il_program")) return;
  auto khr = reinterpret_cast<CreateWithIL>(
      clGetExtensionFunctionAddressForPlatform(platform, "clCreateProgramWithILKHR"));
  ASSERT_NE(khr, nullptr) << "cl_khr_il_program is advertised";
  const auto m = module();
  cl_int err = CL_SUCCESS;
  cl_program p = khr(env().context, m.data(), m.size(), &err);
  ASSERT_NE(p, nullptr) << err;
  EXPECT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS);
  cl_uint kernels = 0;
  EXPECT_EQ(clCreateKernelsInProgram(p, 0, nullptr, &kernels), CL_SUCCESS);
  EXPECT_GT(kernels, 0u);
  clReleaseProgram(p);
}

// A module whose layout is whole but which the SPIR-V validator rejects (a capability operand no
// SPIR-V version defines): CL_INVALID_VALUE where the layer builds the module itself.
TEST(ProgramsFromIL, ModulesTheValidatorRejectsAreInvalidValue) {
  ISG_REQUIRE_LAYER_SPIRV();
  if (std::getenv("ISG_TEST_NATIVE_DRIVER"))
    GTEST_SKIP() << "a native Intel device gets modules untouched: the driver judges them";
  auto m = module();
  ASSERT_GE(m.size(), 40u);
  bool changed = false;
  for (size_t w = isg::spirv::kHeaderWords; w + 1 < m.size() / 4 && !changed; ++w) {
    uint32_t first = 0, operand = 0;
    std::memcpy(&first, &m[4 * w], 4);
    std::memcpy(&operand, &m[4 * w + 4], 4);
    if (first == ((2u << 16) | 17u) && operand == 11u) {  // OpCapability Int64
      setWord(&m, w + 1, 0x0000fff0u);
      changed = true;
    }
  }
  ASSERT_TRUE(changed) << "the test module has no OpCapability Int64";
  std::string why;
  ASSERT_TRUE(isg::spirv::wellFormed(m.data(), m.size(), nullptr, &why)) << why;
  for (const auto& [entryName, entry] : entries()) {
    cl_int err = CL_SUCCESS;
    cl_program p = entry(env().context, m.data(), m.size(), &err);
    EXPECT_EQ(p, nullptr) << entryName;
    EXPECT_EQ(err, CL_INVALID_VALUE) << entryName;
    if (p) clReleaseProgram(p);
  }
}

// SPIR-V newer than the layer reads (1.5: SPIRV-LLVM-Translator 15 reads 1.0 to 1.4, and ends
// the process on a newer one), and a valid module the translator cannot read (it aborts on a
// 16-element 16-bit block read): the first is CL_INVALID_VALUE at creation, the second fails the
// build with a log that says why, and the application lives on either way.
TEST(ProgramsFromIL, ModulesTheTranslatorCannotReadNeverEndTheApplication) {
  ISG_REQUIRE_LAYER_SPIRV();
  if (std::getenv("ISG_TEST_NATIVE_DRIVER"))
    GTEST_SKIP() << "a native Intel device gets modules untouched: the driver judges them";
  auto newer = module();
  ASSERT_GE(newer.size(), 40u);
  setWord(&newer, 1, 0x00010500u);
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithIL(env().context, newer.data(), newer.size(), &err);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(err, CL_INVALID_VALUE) << "SPIR-V 1.5";
  if (p) clReleaseProgram(p);

  const std::vector<unsigned char> us16(isg_test_spirv_us16_begin, isg_test_spirv_us16_end);
  ASSERT_GE(us16.size(), 40u) << ISG_SPIRV_US16_MODULE;
  p = clCreateProgramWithIL(env().context, us16.data(), us16.size(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << "a valid module is a program until its build";
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE);
  cl_build_status status = CL_BUILD_NONE;
  ISG_CL_CHECK(clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status, nullptr));
  EXPECT_EQ(status, CL_BUILD_ERROR);
  const std::string log = isgtest::buildLog(p, env().device);
  EXPECT_NE(log.find("SPIR-V"), std::string::npos) << log;
  EXPECT_NE(log.find("translator"), std::string::npos) << log;
  clReleaseProgram(p);
}

// A program from SPIR-V that uses Intel sub-groups answers every query as the same program from
// source does (hidden argument hidden, sub-group sizes of its own), and its binaries build a
// program that runs again with the hidden argument set by the layer.
TEST(ProgramsFromIL, AnIntelModuleAnswersQueriesAndRebuildsFromItsBinaries) {
  ISG_REQUIRE_LAYER_SPIRV();
  const char* source = R"CLC(
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void reverse8(__global const int* in, __global int* out) {
  const uint gid = get_global_id(0);
  out[gid] = intel_sub_group_shuffle(in[gid], 7u - get_sub_group_local_id()) + (int)get_sub_group_id();
}
)CLC";
  if (!isgtest::compilesSpirv()) GTEST_SKIP() << "this test binary compiles no OpenCL C to SPIR-V (no SPIR-V bridge)";
  std::string log;
  cl_int err = CL_SUCCESS;
  cl_program fromIl = isgtest::buildProgram(source, "", &log, &err, /*fromSpirv=*/true);
  ASSERT_NE(fromIl, nullptr) << err << ": " << log;
  ASSERT_EQ(err, CL_SUCCESS);

  // Its binaries: a second program, built from them.
  const std::vector<unsigned char> binary = isgtest::programBinary(fromIl);
  ASSERT_FALSE(binary.empty());
  cl_int binaryStatus = CL_SUCCESS;
  cl_program fromBinary = isgtest::programFromBinary(binary, &err, &binaryStatus);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(binaryStatus, CL_SUCCESS);
  ASSERT_EQ(clBuildProgram(fromBinary, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS);

  constexpr size_t kItems = 64, kLocal = 32;
  std::vector<cl_int> in(kItems);
  for (size_t i = 0; i < kItems; ++i) in[i] = cl_int(i * 3 + 1);
  for (cl_program p : {fromIl, fromBinary}) {
    cl_kernel k = clCreateKernel(p, "reverse8", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_uint args = 0;
    ISG_CL_CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
    EXPECT_EQ(args, 2u) << "the layer's hidden argument is not the application's";
    EXPECT_EQ(clSetKernelArg(k, 2, 64, nullptr), CL_INVALID_ARG_INDEX);
    size_t compiled = 0, maxSize = 0;
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0,
                                        nullptr, sizeof compiled, &compiled, nullptr));
    EXPECT_EQ(compiled, 8u);
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                        sizeof kLocal, &kLocal, sizeof maxSize, &maxSize, nullptr));
    EXPECT_EQ(maxSize, 8u);
    cl_mem inBuf = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  kItems * sizeof(cl_int), in.data(), &err);
    cl_mem outBuf = clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, kItems * sizeof(cl_int), nullptr, &err);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof inBuf, &inBuf));
    ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof outBuf, &outBuf));
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &kItems, &kLocal, 0, nullptr, nullptr));
    std::vector<cl_int> out(kItems);
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, outBuf, CL_TRUE, 0, kItems * sizeof(cl_int),
                                     out.data(), 0, nullptr, nullptr));
    // cl_intel_subgroups: member j of a sub-group of 8 reads member 7 - j; sub-groups are runs of
    // 8 consecutive local ids, numbered from 0 in each work-group.
    for (size_t i = 0; i < kItems; ++i) {
      const size_t lid = i % kLocal, base = i - i % 8;
      EXPECT_EQ(out[i], in[base + 7 - i % 8] + cl_int(lid / 8)) << i;
    }
    clReleaseMemObject(inBuf);
    clReleaseMemObject(outBuf);
    clReleaseKernel(k);
  }
  clReleaseProgram(fromBinary);
  clReleaseProgram(fromIl);
}

// Modules compiled at -O0 (clang's default for SPIR-V; the translator keeps each function's and
// each call's noinline) whose helpers read the work-item and work-group ids, with and without
// Intel builtins: PoCL compiled the helpers as separate functions, which cannot reach the
// work-group's ids (its kernel library failed to load, and PoCL ended the process).
TEST(ProgramsFromIL, HelpersCompiledAtO0ReadTheWorkGroupIds) {
  ISG_REQUIRE_LAYER_SPIRV();
  const char* source = R"CLC(
int offset(int x) { return x + (int)get_group_id(0) * 100; }
__kernel void plain(__global int* out) { out[get_global_id(0)] = offset((int)get_local_id(0)); }
int shuffled(int x) { return intel_sub_group_shuffle(x, 0u) + (int)get_group_id(0) * 100; }
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void intel(__global int* out) { out[get_global_id(0)] = shuffled((int)get_local_id(0)); }
)CLC";
  if (!isgtest::compilesSpirv()) GTEST_SKIP() << "this test binary compiles no OpenCL C to SPIR-V (no SPIR-V bridge)";
  std::string log;
  cl_int err = CL_SUCCESS;
  cl_program p = isgtest::buildProgram(source, "", &log, &err, /*fromSpirv=*/true);
  ASSERT_NE(p, nullptr) << err << ": " << log;
  constexpr size_t kItems = 64, kLocal = 16;
  for (const char* name : {"plain", "intel"}) {
    SCOPED_TRACE(name);
    cl_kernel k = clCreateKernel(p, name, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem out = clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, kItems * sizeof(cl_int), nullptr, &err);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &kItems, &kLocal, 0, nullptr, nullptr));
    std::vector<cl_int> got(kItems);
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, kItems * sizeof(cl_int), got.data(), 0,
                                     nullptr, nullptr));
    for (size_t i = 0; i < kItems; ++i) {
      const size_t lid = i % kLocal, group = i / kLocal;
      const size_t x = std::string(name) == "plain" ? lid : lid - lid % 8;  // member 0 of its sub-group
      EXPECT_EQ(got[i], cl_int(x + group * 100)) << i;
    }
    clReleaseMemObject(out);
    clReleaseKernel(k);
  }
  clReleaseProgram(p);
}

TEST(ProgramsFromIL, AWellFormedModuleReachesADriverThatTakesSpirvUnchanged) {
  ISG_REQUIRE_ENV();
  const std::string ils = isgtest::deviceString(env().device, CL_DEVICE_IL_VERSION);
  if (ils.find("SPIR-V") == std::string::npos)
    GTEST_SKIP() << "neither the device nor the layer takes SPIR-V here (CL_DEVICE_IL_VERSION '"
                 << ils << "'); tests/native runs this on Intel's CPU runtime";
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
    // A program from IL has no source (a placeholder's text must not show).
    size_t sourceSize = 0;
    ISG_CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, nullptr, &sourceSize));
    EXPECT_LE(sourceSize, 1u) << name;
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
