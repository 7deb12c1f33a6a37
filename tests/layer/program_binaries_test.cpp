// SPDX-License-Identifier: MIT
// Issue 13.2: applications cache CL_PROGRAM_BINARIES and create the program from them on their
// next run. A rewritten program's binary must come back as a program whose kernels the layer
// serves (hidden arguments hidden and set, sub-group queries answered), on every strategy; a
// corrupted one must be refused with CL_INVALID_BINARY; pass-through programs' binaries stay the
// driver's.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;
using Binary = std::vector<unsigned char>;

// Two kernels with different required sizes and two families (shuffle, reduce).
std::string programSource() {
  return isgtest::rotateKernelSource("__attribute__((intel_reqd_sub_group_size(16)))") +
         "kernel __attribute__((intel_reqd_sub_group_size(8)))\n"
         "void sum_lanes(global const int* in, global int* out) {\n"
         "  size_t gid = get_global_id(0);\n"
         "  out[gid] = sub_group_reduce_add(in[gid]);\n"
         "}\n";
}

std::vector<cl_int> sumExpected(const std::vector<cl_int>& in, size_t global, size_t local,
                                size_t S) {
  std::vector<cl_int> expected(global);
  for (size_t g = 0; g < global; ++g) {
    const size_t groupStart = g / local * local;
    isgtest::SubGroupPosition p = isgtest::subGroupPosition(g - groupStart, local, S);
    cl_int sum = 0;
    for (size_t i = 0; i < p.size; ++i) sum += in[groupStart + p.first + i];
    expected[g] = sum;
  }
  return expected;
}

std::string options() { return "-cl-mad-enable " + isgtest::extraBuildOptions(); }

Binary binaryOf(cl_program p) { return isgtest::programBinary(p); }

cl_program fromBinary(const Binary& b, cl_int* err, cl_int* status) { return isgtest::programFromBinary(b, err, status); }

// Both kernels of `p` as the application sees them, run against the host model.
void expectServed(cl_program p) {
  cl_int err = CL_SUCCESS;
  for (auto [name, S] : {std::pair<const char*, size_t>{"rotate_lanes", 16}, {"sum_lanes", 8}}) {
    SCOPED_TRACE(name);
    cl_kernel k = clCreateKernel(p, name, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, p));
    EXPECT_EQ(clSetKernelArg(k, 2, 64, nullptr), CL_INVALID_ARG_INDEX);
    size_t compiled = 0, local = 64, max = 0;
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL,
                                         0, nullptr, sizeof compiled, &compiled, nullptr));
    EXPECT_EQ(compiled, S);
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                         sizeof local, &local, sizeof max, &max, nullptr));
    EXPECT_EQ(max, S);
    for (size_t groupSize : {64u, 44u}) {
      SCOPED_TRACE(groupSize);
      const size_t global = groupSize * 3;
      std::vector<cl_int> in = isgtest::iota(global), out;
      ASSERT_NO_FATAL_FAILURE(isgtest::runIntKernel(k, in, &out, global, groupSize));
      EXPECT_EQ(out, S == 16 ? isgtest::rotateExpected(in, global, groupSize, S)
                             : sumExpected(in, global, groupSize, S));
    }
    clReleaseKernel(k);
  }
}

class ProgramBinaries : public ::testing::Test {
 protected:
  void SetUp() override {
    ISG_REQUIRE_ENV();
    std::string log;
    program_ = isgtest::buildProgram(programSource(), options(), &log);
    ASSERT_NE(program_, nullptr) << log;
    binary_ = binaryOf(program_);
    ASSERT_FALSE(binary_.empty());
  }
  void TearDown() override {
    if (program_) clReleaseProgram(program_);
  }
  cl_program program_ = nullptr;
  Binary binary_;
};

TEST_F(ProgramBinaries, ProgramFromItsBinaryRunsWithTheSameKernels) {
  cl_int err = CL_SUCCESS, status = -1;
  cl_program p = fromBinary(binary_, &err, &status);
  ASSERT_EQ(err, CL_SUCCESS);
  EXPECT_EQ(status, CL_SUCCESS);
  ASSERT_NE(p, nullptr);
  err = clBuildProgram(p, 1, &env().device, options().c_str(), nullptr, nullptr);
  ASSERT_EQ(err, CL_SUCCESS) << isgtest::buildLog(p, env().device);
  // The build (no source to rewrite) keeps it the layer's. (A second build of a program made
  // from binaries aborts PoCL 3.1 in pocl_cache.c even without the layer, so it is not tried.)
  ASSERT_NO_FATAL_FAILURE(expectServed(p));

  // The binary of a program made from a binary is the same binary: caches stay valid.
  EXPECT_EQ(binaryOf(p), binary_);
  clReleaseProgram(p);
}

// A kernel whose media IO takes its image's facts as a hidden argument (HiddenArg::Kind::
// ImageFacts) keeps them from its binary: the argument count, CL_INVALID_ARG_INDEX past it, and
// the facts set from each image the application gives it (two widths, one kernel object).
TEST(ProgramBinariesImages, ImageFactsComeBackWithTheBinary) {
  ISG_REQUIRE_ENV();
  if (!isgtest::programsTakeImages()) GTEST_SKIP() << "this run's programs take no images";
  const std::string src =
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void row(global uint* out, read_only image2d_t img) {\n"
      "  out[get_global_id(0)] = intel_sub_group_media_block_read_ui((int2)(0, 0), 8, 1, img);\n"
      "}\n";
  std::string log;
  cl_program built = isgtest::buildProgram(src, options(), &log);
  ASSERT_NE(built, nullptr) << log;
  const Binary binary = binaryOf(built);
  clReleaseProgram(built);
  cl_int err = CL_SUCCESS;
  cl_program p = fromBinary(binary, &err, nullptr);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clBuildProgram(p, 1, &env().device, options().c_str(), nullptr, nullptr));
  cl_kernel k = clCreateKernel(p, "row", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, p));
  cl_int4 notAnArgument = {};
  EXPECT_EQ(clSetKernelArg(k, 2, sizeof notAnArgument, &notAnArgument), CL_INVALID_ARG_INDEX);
  cl_mem out = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 8 * sizeof(cl_uint), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  for (size_t width : {size_t(8), size_t(5)}) {
    SCOPED_TRACE("width " + std::to_string(width));
    std::vector<cl_uint> texels(width);
    for (size_t i = 0; i < width; ++i) texels[i] = cl_uint(0x01020304u * (i + 1) + width);
    const cl_image_format format = {CL_R, CL_UNSIGNED_INT32};
    cl_image_desc desc = {};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = width;
    desc.image_height = 1;
    cl_mem img = clCreateImage(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format,
                               &desc, texels.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof out, &out));
    ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof img, &img));
    const size_t global = 8, local = 8;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    std::vector<cl_uint> got(8);
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, 8 * sizeof(cl_uint), got.data(),
                                     0, nullptr, nullptr));
    // Member i reads element i; past the right edge, the last element (the spec's clamp).
    for (size_t i = 0; i < 8; ++i) EXPECT_EQ(got[i], texels[std::min(i, width - 1)]) << i;
    clReleaseMemObject(img);
  }
  clReleaseMemObject(out);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST_F(ProgramBinaries, KernelsInProgramFromBinaryHideTheirArguments) {
  cl_int err = CL_SUCCESS;
  cl_program p = fromBinary(binary_, &err, nullptr);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clBuildProgram(p, 1, &env().device, options().c_str(), nullptr, nullptr));
  cl_kernel kernels[2] = {};
  cl_uint n = 0;
  ISG_CL_CHECK(clCreateKernelsInProgram(p, 2, kernels, &n));
  ASSERT_EQ(n, 2u);
  for (cl_kernel k : kernels) {
    ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, p));
    clReleaseKernel(k);
  }
  clReleaseProgram(p);
}

// The OpenCL query conventions hold for the enveloped binaries too.
TEST_F(ProgramBinaries, BinaryQueriesFollowTheSpec) {
  size_t bytes = 0;
  ISG_CL_CHECK(clGetProgramInfo(program_, CL_PROGRAM_BINARIES, 0, nullptr, &bytes));
  EXPECT_EQ(bytes, sizeof(unsigned char*));
  unsigned char* none = nullptr;  // a NULL entry: that device's binary is skipped
  EXPECT_EQ(clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof none, &none, nullptr),
            CL_SUCCESS);
  Binary b(binary_.size());
  unsigned char* data = b.data();
  EXPECT_EQ(clGetProgramInfo(program_, CL_PROGRAM_BINARIES, sizeof data - 1, &data, nullptr),
            CL_INVALID_VALUE);
  size_t size = 0;
  EXPECT_EQ(clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES, sizeof size - 1, &size, nullptr),
            CL_INVALID_VALUE);
}

// Truncated, from another format version, or carrying hidden arguments that are not the
// layer's: CL_INVALID_BINARY with the device's status, never a program that would run wrong.
TEST_F(ProgramBinaries, CorruptBinariesAreInvalid) {
  Binary versioned = binary_;
  versioned[8] ^= 0x40;  // the envelope version follows the 8-byte magic
  Binary noDriverBinary = binary_;
  uint64_t payloadSize = 0;
  for (int i = 0; i < 8; ++i) payloadSize |= uint64_t{binary_[12 + i]} << (8 * i);
  noDriverBinary.resize(20 + payloadSize);
  // rotate_lanes's record: its name, then S (u32), required, families, scratch, numUserArgs = 2,
  // the hidden argument count, and each hidden argument's kind and index (2 for the first).
  const std::string name = "rotate_lanes";
  auto at = std::search(binary_.begin(), binary_.end(), name.begin(), name.end());
  ASSERT_NE(at, binary_.end());
  const size_t sizeAt = static_cast<size_t>(at - binary_.begin()) + name.size();
  ASSERT_EQ(binary_[sizeAt], 16u);
  Binary zeroSubGroupSize = binary_;
  zeroSubGroupSize[sizeAt] = 0;
  // Strategies that need no scratch (nvidia-ptx, khr at its native size) have no hidden
  // argument to corrupt; the local strategy (PoCL's default) has one.
  Binary hiddenOverUserArg;
  const unsigned char hiddenRecord[13] = {2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2};
  auto hidden = std::search(at, std::min(at + 256, binary_.end()), std::begin(hiddenRecord),
                            std::end(hiddenRecord));
  if (hidden != std::min(at + 256, binary_.end())) {
    hiddenOverUserArg = binary_;
    hiddenOverUserArg[static_cast<size_t>(hidden - binary_.begin()) + 12] = 1;
  }

  const std::pair<const char*, Binary> cases[] = {
      {"truncated in the header", Binary(binary_.begin(), binary_.begin() + 14)},
      {"truncated in the payload", Binary(binary_.begin(), binary_.begin() + 40)},
      {"another format version", versioned},
      {"no driver binary", noDriverBinary},
      {"sub-group size 0", zeroSubGroupSize},
      {"a hidden argument over an application argument", hiddenOverUserArg}};
  for (const auto& [what, b] : cases) {
    SCOPED_TRACE(what);
    if (b.empty()) continue;  // no hidden argument on this strategy (above)
    cl_int err = CL_SUCCESS, status = CL_SUCCESS;
    cl_program p = fromBinary(b, &err, &status);
    EXPECT_EQ(p, nullptr);
    EXPECT_EQ(err, CL_INVALID_BINARY);
    EXPECT_EQ(status, CL_INVALID_BINARY);
    if (p) clReleaseProgram(p);
  }
}

// Programs that call no builtin pass through: their binaries are the driver's.
TEST(PassThroughBinaries, AreTheDriversOwn) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_program plain = isgtest::buildProgram(
      "kernel void copy(global const int* in, global int* out) {\n"
      "  out[get_global_id(0)] = in[get_global_id(0)];\n"
      "}\n",
      options(), &log);
  ASSERT_NE(plain, nullptr) << log;
  Binary b = binaryOf(plain);
  ASSERT_GE(b.size(), 8u);
  EXPECT_NE(std::memcmp(b.data(), "\x89ISGBIN\n", 8), 0);
  cl_int err = CL_SUCCESS;
  cl_program p = fromBinary(b, &err, nullptr);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clBuildProgram(p, 1, &env().device, options().c_str(), nullptr, nullptr));
  cl_kernel k = clCreateKernel(p, "copy", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<cl_int> in = isgtest::iota(32), out;
  ASSERT_NO_FATAL_FAILURE(isgtest::runIntKernel(k, in, &out, 32, 0));
  EXPECT_EQ(out, in);
  EXPECT_EQ(binaryOf(p), b);
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseProgram(plain);
}

// Compiled objects cached as binaries link as the objects did, and the link still refuses a
// call into another object's helper that takes the sub-group context (issue 13.3).
TEST(ObjectBinaries, CompiledObjectFromBinaryLinks) {
  ISG_REQUIRE_ENV();
  const char* helper =
      "int rotate_in_sub_group(int v) {\n"
      "  return intel_sub_group_shuffle(v, (get_sub_group_local_id() + 1) % get_sub_group_size());\n"
      "}\n"
      "kernel __attribute__((intel_reqd_sub_group_size(16)))\n"
      "void rotate_lanes(global const int* in, global int* out) {\n"
      "  size_t gid = get_global_id(0);\n"
      "  out[gid] = rotate_in_sub_group(in[gid]) + 1000 * (int)get_sub_group_size();\n"
      "}\n";
  const char* caller =
      "int rotate_in_sub_group(int v);\n"
      "kernel void use_it(global const int* in, global int* out) {\n"
      "  size_t gid = get_global_id(0);\n"
      "  out[gid] = rotate_in_sub_group(in[gid]) + 1000 * (int)get_sub_group_size();\n"
      "}\n";
  cl_int err = CL_SUCCESS;
  cl_program object = clCreateProgramWithSource(env().context, 1, &helper, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const std::string opts = options();
  err = clCompileProgram(object, 1, &env().device, opts.c_str(), 0, nullptr, nullptr, nullptr,
                         nullptr);
  ASSERT_EQ(err, CL_SUCCESS) << isgtest::buildLog(object, env().device);
  Binary b = binaryOf(object);
  cl_program cached = fromBinary(b, &err, nullptr);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_program_binary_type type = 0;
  ISG_CL_CHECK(clGetProgramBuildInfo(cached, env().device, CL_PROGRAM_BINARY_TYPE, sizeof type,
                                     &type, nullptr));
  EXPECT_EQ(type, static_cast<cl_program_binary_type>(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT));

  cl_program linked = clLinkProgram(env().context, 1, &env().device, "", 1, &cached, nullptr,
                                    nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS) << (linked ? isgtest::buildLog(linked, env().device) : "");
  cl_kernel k = clCreateKernel(linked, "rotate_lanes", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, linked));
  std::vector<cl_int> in = isgtest::iota(128), out;
  ASSERT_NO_FATAL_FAILURE(isgtest::runIntKernel(k, in, &out, 128, 64));
  EXPECT_EQ(out, isgtest::rotateExpected(in, 128, 64, 16));
  clReleaseKernel(k);

  // The linked executable's binary comes back as a program too.
  Binary linkedBinary = binaryOf(linked);
  cl_program again = fromBinary(linkedBinary, &err, nullptr);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clBuildProgram(again, 1, &env().device, "", nullptr, nullptr));
  k = clCreateKernel(again, "rotate_lanes", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::runIntKernel(k, in, &out, 128, 32));
  EXPECT_EQ(out, isgtest::rotateExpected(in, 128, 32, 16));
  clReleaseKernel(k);
  clReleaseProgram(again);
  clReleaseProgram(linked);

  // Issue 31.7: an object from source calling the cached object's helper, and the same caller
  // cached too (its binary carries how to compile it again for the link), link and run.
  cl_program use = clCreateProgramWithSource(env().context, 1, &caller, nullptr, &err);
  ISG_CL_CHECK(clCompileProgram(use, 1, &env().device, opts.c_str(), 0, nullptr, nullptr, nullptr,
                                nullptr));
  cl_program useCached = fromBinary(binaryOf(use), &err, nullptr);
  ASSERT_EQ(err, CL_SUCCESS);
  for (cl_program callerObject : {use, useCached}) {
    SCOPED_TRACE(callerObject == use ? "caller from source" : "caller from its binary");
    cl_program both[] = {cached, callerObject};
    cl_program linkedBoth =
        clLinkProgram(env().context, 1, &env().device, "", 2, both, nullptr, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    k = clCreateKernel(linkedBoth, "use_it", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    size_t used = 0, local = 64;
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                         sizeof local, &local, sizeof used, &used, nullptr));
    ASSERT_GT(used, 0u);
    ASSERT_NO_FATAL_FAILURE(isgtest::runIntKernel(k, in, &out, 128, 64));
    EXPECT_EQ(out, isgtest::rotateExpected(in, 128, 64, used));
    clReleaseKernel(k);
    clReleaseProgram(linkedBoth);
  }
  clReleaseProgram(useCached);
  clReleaseProgram(use);
  clReleaseProgram(cached);
  clReleaseProgram(object);
}

}  // namespace
