// SPDX-License-Identifier: MIT
// Kernels of rewritten programs as the application sees them: their program, their arguments
// (the layer's hidden ones invisible), clones, lifetimes, launches without a local size, and a
// launch whose local memory cannot fit.
#include <cstdlib>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

class KernelObjects : public ::testing::Test {
 protected:
  void SetUp() override {
    ISG_REQUIRE_ENV();
    std::string log;
    program_ = isgtest::buildProgram(
        isgtest::rotateKernelSource("__attribute__((intel_reqd_sub_group_size(16)))"),
        "-cl-kernel-arg-info", &log);
    ASSERT_NE(program_, nullptr) << log;
    cl_int err = CL_SUCCESS;
    kernel_ = clCreateKernel(program_, "rotate_lanes", &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  void TearDown() override {
    if (kernel_) clReleaseKernel(kernel_);
    if (program_) clReleaseProgram(program_);
  }
  cl_program program_ = nullptr;
  cl_kernel kernel_ = nullptr;
};

TEST_F(KernelObjects, ProgramAndArgumentsAreTheApplicationsView) {
  cl_program owner = nullptr;
  ISG_CL_CHECK(clGetKernelInfo(kernel_, CL_KERNEL_PROGRAM, sizeof owner, &owner, nullptr));
  EXPECT_EQ(owner, program_);
  cl_uint args = 0;
  ISG_CL_CHECK(clGetKernelInfo(kernel_, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
  EXPECT_EQ(args, 2u);

  char name[64] = {0};
  ISG_CL_CHECK(clGetKernelArgInfo(kernel_, 1, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr));
  EXPECT_STREQ(name, "out");
  EXPECT_EQ(clGetKernelArgInfo(kernel_, 2, CL_KERNEL_ARG_NAME, sizeof name, name, nullptr),
            CL_INVALID_ARG_INDEX);
  cl_int value = 0;
  EXPECT_EQ(clSetKernelArg(kernel_, 2, 64, nullptr), CL_INVALID_ARG_INDEX);
  EXPECT_EQ(clSetKernelArg(kernel_, 2, sizeof value, &value), CL_INVALID_ARG_INDEX);

  size_t numKernels = 0;
  ISG_CL_CHECK(
      clGetProgramInfo(program_, CL_PROGRAM_NUM_KERNELS, sizeof numKernels, &numKernels, nullptr));
  EXPECT_EQ(numKernels, 1u);
  size_t namesSize = 0;
  ISG_CL_CHECK(clGetProgramInfo(program_, CL_PROGRAM_KERNEL_NAMES, 0, nullptr, &namesSize));
  std::string names(namesSize, '\0');
  ISG_CL_CHECK(
      clGetProgramInfo(program_, CL_PROGRAM_KERNEL_NAMES, namesSize, names.data(), nullptr));
  EXPECT_EQ(std::string(names.c_str()), "rotate_lanes");
  size_t binarySize = 0;
  ISG_CL_CHECK(
      clGetProgramInfo(program_, CL_PROGRAM_BINARY_SIZES, sizeof binarySize, &binarySize, nullptr));
  EXPECT_GT(binarySize, 0u);
  cl_context context = nullptr;
  ISG_CL_CHECK(clGetProgramInfo(program_, CL_PROGRAM_CONTEXT, sizeof context, &context, nullptr));
  EXPECT_EQ(context, env().context);
}

// Every query of clGetKernelArgInfo for a rewritten kernel answers what the driver answers for
// the same parameters of a kernel it builds alone (no Intel builtin): pointers in each address
// space with their qualifiers, typedefs, "unsigned int" as uint, vectors, images, samplers. On
// NVIDIA the rewritten kernel's driver program may be PTX (the layer's front end), which has
// no argument information, or take a local char* as local uint4*: the layer answers.
TEST(KernelArgInfo, RewrittenKernelsDescribeTheirArgumentsAsTheDriverDoes) {
  ISG_REQUIRE_ENV();
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  const std::string params = std::string(
      "global const float* restrict in, local char* table, constant int* lut, "
      "global volatile uint* flags, real4 scale, unsigned int count, long offset, "
      "global real* out") + (images ? ", read_only image2d_t src, write_only image2d_t dst, sampler_t s" : "");
  const std::string src = "typedef float real; typedef float4 real4;\n"
                          "kernel void plain(" + params + ") { out[0] = scale.x + in[0]; }\n"
                          "kernel void rewritten(" + params + ") {\n"
                          "  out[get_global_id(0)] = intel_sub_group_shuffle(in[0], 1u) + scale.x;\n}\n";
  std::string log;
  // Two programs: a program with a rewritten kernel goes to the driver rewritten as a whole.
  cl_program plainProgram = isgtest::buildProgram(src.substr(0, src.find("kernel void rewritten")),
                                                  "-cl-kernel-arg-info", &log);
  ASSERT_NE(plainProgram, nullptr) << log;
  cl_program rewrittenProgram = isgtest::buildProgram(src, "-cl-kernel-arg-info", &log);
  ASSERT_NE(rewrittenProgram, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel plain = clCreateKernel(plainProgram, "plain", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel rewritten = clCreateKernel(rewrittenProgram, "rewritten", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_uint args = 0;
  ISG_CL_CHECK(clGetKernelInfo(plain, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
  for (cl_uint i = 0; i < args; ++i) {
    SCOPED_TRACE("argument " + std::to_string(i));
    for (cl_kernel_arg_info what : {CL_KERNEL_ARG_ADDRESS_QUALIFIER, CL_KERNEL_ARG_ACCESS_QUALIFIER,
                                    CL_KERNEL_ARG_TYPE_NAME, CL_KERNEL_ARG_TYPE_QUALIFIER,
                                    CL_KERNEL_ARG_NAME}) {
      size_t expectedSize = 0, size = 0;
      ISG_CL_CHECK(clGetKernelArgInfo(plain, i, what, 0, nullptr, &expectedSize));
      ISG_CL_CHECK(clGetKernelArgInfo(rewritten, i, what, 0, nullptr, &size));
      std::vector<char> expected(expectedSize), got(size);
      ISG_CL_CHECK(clGetKernelArgInfo(plain, i, what, expectedSize, expected.data(), nullptr));
      ISG_CL_CHECK(clGetKernelArgInfo(rewritten, i, what, size, got.data(), nullptr));
      if (what == CL_KERNEL_ARG_TYPE_NAME || what == CL_KERNEL_ARG_NAME)
        EXPECT_STREQ(got.data(), expected.data()) << "query " << std::hex << what;
      else
        EXPECT_EQ(got, expected) << "query " << std::hex << what;
    }
  }
  size_t tooSmall = 0;
  char one = 0;
  EXPECT_EQ(clGetKernelArgInfo(rewritten, 0, CL_KERNEL_ARG_NAME, sizeof one, &one, &tooSmall), CL_INVALID_VALUE);
  EXPECT_EQ(clGetKernelArgInfo(rewritten, 0, 0x7fff, sizeof one, &one, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(clGetKernelArgInfo(rewritten, args, CL_KERNEL_ARG_NAME, 0, nullptr, &tooSmall), CL_INVALID_ARG_INDEX);
  clReleaseKernel(plain);
  clReleaseKernel(rewritten);
  clReleaseProgram(plainProgram);
  clReleaseProgram(rewrittenProgram);
}

TEST_F(KernelObjects, RunsWithSubGroupSemantics) {
  for (size_t groupSize : {16u, 48u, 50u, 7u}) {
    SCOPED_TRACE(groupSize);
    const size_t global = groupSize * 4;
    std::vector<cl_int> in = isgtest::iota(global, 3), out;
    isgtest::runIntKernel(kernel_, in, &out, global, groupSize);
    EXPECT_EQ(out, isgtest::rotateExpected(in, global, groupSize, 16));
  }
}

TEST_F(KernelObjects, NullLocalSizeRuns) {
  // With full work-groups whose size the layer picks, any multiple of 16 gives this result;
  // global sizes that are powers of two guarantee one.
  for (size_t global : {1024u, 8192u}) {
    std::vector<cl_int> in = isgtest::iota(global, 11), out;
    isgtest::runIntKernel(kernel_, in, &out, global, 0);
    EXPECT_EQ(out, isgtest::rotateExpected(in, global, 16, 16)) << global;
  }
}

// Issue 13.5: a zero in local_work_size is CL_INVALID_WORK_GROUP_SIZE, as the spec names it,
// not an error from sizing the layer's scratch for zero work-items.
TEST_F(KernelObjects, ZeroLocalSizeIsAnInvalidWorkGroupSize) {
  cl_int err = CL_SUCCESS;
  cl_mem buf = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clSetKernelArg(kernel_, 0, sizeof buf, &buf));
  ISG_CL_CHECK(clSetKernelArg(kernel_, 1, sizeof buf, &buf));
  const size_t global[2] = {64, 1}, zero[2] = {0, 1}, zeroY[2] = {16, 0};
  EXPECT_EQ(clEnqueueNDRangeKernel(env().queue, kernel_, 1, nullptr, global, zero, 0, nullptr,
                                   nullptr),
            CL_INVALID_WORK_GROUP_SIZE);
  EXPECT_EQ(clEnqueueNDRangeKernel(env().queue, kernel_, 2, nullptr, global, zeroY, 0, nullptr,
                                   nullptr),
            CL_INVALID_WORK_GROUP_SIZE);
  clReleaseMemObject(buf);
}

TEST_F(KernelObjects, TaskIsOneWorkItem) {
  cl_int err = CL_SUCCESS;
  std::vector<cl_int> in = {41};
  cl_mem inBuf = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                sizeof(cl_int), in.data(), &err);
  cl_mem outBuf = clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, sizeof(cl_int), nullptr, &err);
  ISG_CL_CHECK(clSetKernelArg(kernel_, 0, sizeof inBuf, &inBuf));
  ISG_CL_CHECK(clSetKernelArg(kernel_, 1, sizeof outBuf, &outBuf));
  ISG_CL_CHECK(clEnqueueTask(env().queue, kernel_, 0, nullptr, nullptr));
  cl_int out = 0;
  ISG_CL_CHECK(
      clEnqueueReadBuffer(env().queue, outBuf, CL_TRUE, 0, sizeof out, &out, 0, nullptr, nullptr));
  EXPECT_EQ(out, 41 + 1000 * 1);  // a sub-group of one work-item
  clReleaseMemObject(inBuf);
  clReleaseMemObject(outBuf);
}

TEST_F(KernelObjects, CloneKeepsTheApplicationsView) {
  cl_int err = CL_SUCCESS;
  std::vector<cl_int> in = isgtest::iota(64), out;
  isgtest::runIntKernel(kernel_, in, &out, 64, 32);  // leaves its arguments set
  cl_kernel clone = clCloneKernel(kernel_, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(clone, 2u, program_));
  EXPECT_EQ(clSetKernelArg(clone, 2, 64, nullptr), CL_INVALID_ARG_INDEX);
  size_t S = 0, local = 32;
  ISG_CL_CHECK(clGetKernelSubGroupInfo(clone, env().device,
                                       CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                       &local, sizeof S, &S, nullptr));
  EXPECT_EQ(S, 16u);
  std::vector<cl_int> in2 = isgtest::iota(96, 5), out2;
  isgtest::runIntKernel(clone, in2, &out2, 96, 48);
  EXPECT_EQ(out2, isgtest::rotateExpected(in2, 96, 48, 16));
  clReleaseKernel(clone);
}

TEST_F(KernelObjects, KernelKeepsItsProgramAlive) {
  cl_uint before = 0;
  ISG_CL_CHECK(
      clGetProgramInfo(program_, CL_PROGRAM_REFERENCE_COUNT, sizeof before, &before, nullptr));
  EXPECT_GE(before, 2u) << "the kernel holds a reference to the application's program";
  ISG_CL_CHECK(clReleaseProgram(program_));
  program_ = nullptr;
  cl_program owner = nullptr;
  ISG_CL_CHECK(clGetKernelInfo(kernel_, CL_KERNEL_PROGRAM, sizeof owner, &owner, nullptr));
  cl_uint after = 0;
  ISG_CL_CHECK(clGetProgramInfo(owner, CL_PROGRAM_REFERENCE_COUNT, sizeof after, &after, nullptr));
  EXPECT_EQ(after, before - 1);
  std::vector<cl_int> in = isgtest::iota(32), out;
  isgtest::runIntKernel(kernel_, in, &out, 32, 32);
  EXPECT_EQ(out, isgtest::rotateExpected(in, 32, 32, 16));
}

TEST_F(KernelObjects, CreateKernelsInProgramHidesArguments) {
  cl_kernel kernels[4] = {};
  cl_uint n = 0;
  ISG_CL_CHECK(clCreateKernelsInProgram(program_, 4, kernels, &n));
  ASSERT_EQ(n, 1u);
  cl_uint args = 0;
  ISG_CL_CHECK(clGetKernelInfo(kernels[0], CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
  EXPECT_EQ(args, 2u);
  cl_program owner = nullptr;
  ISG_CL_CHECK(clGetKernelInfo(kernels[0], CL_KERNEL_PROGRAM, sizeof owner, &owner, nullptr));
  EXPECT_EQ(owner, program_);
  std::vector<cl_int> in = isgtest::iota(64), out;
  isgtest::runIntKernel(kernels[0], in, &out, 64, 64);
  EXPECT_EQ(out, isgtest::rotateExpected(in, 64, 64, 16));
  clReleaseKernel(kernels[0]);
}

TEST_F(KernelObjects, RebuildWithKernelsIsRefusedAndRebuildReplacesTheProgram) {
  EXPECT_EQ(clBuildProgram(program_, 1, &env().device, "", nullptr, nullptr), CL_INVALID_OPERATION);
  ISG_CL_CHECK(clReleaseKernel(kernel_));
  kernel_ = nullptr;
  // The same program rebuilt with a different required size behaves as the new build.
  const std::string source =
      "kernel __attribute__((intel_reqd_sub_group_size(SIZE)))\n"
      "void size_of(global const int* in, global int* out) {\n"
      "  out[get_global_id(0)] = (int)get_sub_group_size() + 0 * in[0];\n"
      "}\n";
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
  for (int size : {8, 32}) {
    std::string options = "-DSIZE=" + std::to_string(size);
    ASSERT_EQ(clBuildProgram(p, 1, &env().device, options.c_str(), nullptr, nullptr), CL_SUCCESS)
        << isgtest::buildLog(p, env().device);
    cl_kernel k = clCreateKernel(p, "size_of", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<cl_int> in = isgtest::iota(64), out;
    isgtest::runIntKernel(k, in, &out, 64, 64);
    for (cl_int v : out) ASSERT_EQ(v, size);
    clReleaseKernel(k);
  }
  clReleaseProgram(p);
}

// The application's references decide when a kernel stops holding its program: a retained
// kernel keeps it after one release, and after the last one the program rebuilds even where the
// driver still counts references of its own (PoCL's commands keep a kernel a while after they
// complete, which made the rebuild above fail now and then under load).
TEST(KernelReferences, TheApplicationsLastReleaseLetsItsProgramRebuild) {
  ISG_REQUIRE_ENV();
  const char* src =
      "kernel void k(global const int* in, global int* out) {\n"
      "  out[get_global_id(0)] = in[get_global_id(0)] + intel_sub_group_shuffle(0, 0);\n"
      "}\n";
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(env().context, 1, &src, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr));
  for (int round = 0; round < 3; ++round) {
    cl_kernel k = clCreateKernel(p, "k", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<cl_int> in = isgtest::iota(64), out;
    isgtest::runIntKernel(k, in, &out, 64, 64);
    EXPECT_EQ(out, in);
    ISG_CL_CHECK(clRetainKernel(k));
    ISG_CL_CHECK(clReleaseKernel(k));
    EXPECT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_INVALID_OPERATION)
        << "the application still holds the kernel";
    // The last release while a launch of the kernel is still queued: the driver keeps it for
    // the launch, the application holds none.
    cl_mem b = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 64 * sizeof(cl_int), nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof b, &b));
    ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof b, &b));
    const size_t global = 64;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &global, 0, nullptr, nullptr));
    ISG_CL_CHECK(clReleaseKernel(k));
    ISG_CL_CHECK(clFinish(env().queue));
    EXPECT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS) << round;
    clReleaseMemObject(b);
  }
  clReleaseProgram(p);
}

// A kernel whose own __local array leaves less room than the sub-group scratch needs.
TEST(KernelLocalMemory, ScratchThatCannotFitIsOutOfResources) {
  ISG_REQUIRE_ENV();
  // Only the local strategy has a scratch area; NVIDIA exchanges in registers unless the local
  // strategy is forced (ISG_STRATEGY=local), as the GPU run does for this test too.
  const char* strategy = std::getenv("ISG_STRATEGY");
  if (isgtest::nvidiaDevice() &&
      !(strategy && std::string(strategy) == "local"))
    GTEST_SKIP() << "nvidia-ptx needs no scratch; run with ISG_STRATEGY=local to test this";
  cl_ulong localMem = 0;
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_LOCAL_MEM_SIZE, sizeof localMem, &localMem, nullptr));
  const std::string source =
      "kernel __attribute__((intel_reqd_sub_group_size(16)))\n"
      "void hog(global const int* in, global int* out) {\n"
      "  local int big[BIG];\n"
      "  size_t l = get_local_id(0);\n"
      "  big[l] = in[get_global_id(0)];\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = intel_sub_group_shuffle(big[(l + 1) % get_local_size(0)], 0u);\n"
      "}\n";
  const size_t local = 256;
  // 64 bytes short of the device limit: no scratch for 256 work-items fits. A small array is
  // the control: the same kernel then runs.
  for (cl_ulong bigInts : {(localMem - 64) / 4, cl_ulong{1024}}) {
    const bool fits = bigInts == 1024;
    SCOPED_TRACE(fits ? "small array" : "huge array");
    std::string log;
    cl_program p = isgtest::buildProgram(source, "-DBIG=" + std::to_string(bigInts), &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "hog", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<cl_int> in = isgtest::iota(local);
    cl_mem inBuf = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  local * sizeof(cl_int), in.data(), &err);
    cl_mem outBuf =
        clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, local * sizeof(cl_int), nullptr, &err);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof inBuf, &inBuf));
    ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof outBuf, &outBuf));
    err = clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &local, &local, 0, nullptr, nullptr);
    if (fits) {
      EXPECT_EQ(err, CL_SUCCESS);
      std::vector<cl_int> out(local);
      ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, outBuf, CL_TRUE, 0, local * sizeof(cl_int),
                                       out.data(), 0, nullptr, nullptr));
      for (size_t i = 0; i < local; ++i)  // lane 0 of each sub-group reads its right neighbour
        EXPECT_EQ(out[i], in[(i / 16 * 16 + 1) % local]) << i;
    } else {
      EXPECT_EQ(err, CL_OUT_OF_RESOURCES);
    }
    clFinish(env().queue);
    clReleaseMemObject(inBuf);
    clReleaseMemObject(outBuf);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

}  // namespace
