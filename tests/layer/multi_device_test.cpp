// SPDX-License-Identifier: MIT
// One program for two devices: the rewritten program runs on each, and a kernel query with a
// NULL device is CL_INVALID_DEVICE. PoCL gives a second device when asked through
// POCL_DEVICES, set here before the process's first OpenCL call (other platforms ignore it).
#include <cstdlib>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

class TwoPoclDevices : public ::testing::Environment {
 public:
  void SetUp() override { setenv("POCL_DEVICES", "pthread pthread", 0); }
};
::testing::Environment* const kTwoDevices = ::testing::AddGlobalTestEnvironment(new TwoPoclDevices);

using isgtest::SubGroupInfoFn;

TEST(MultiDevice, BuildsRunsAndAnswersPerDevice) {
  ISG_REQUIRE_ENV();
  cl_platform_id platform = isgtest::env().platform;
  cl_uint n = 0;
  ISG_CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &n));
  // PoCL always gives two (POCL_DEVICES above); a GPU platform with one device cannot run this.
  if (n < 2) GTEST_SKIP() << "the platform has " << n << " device(s); the test needs two";
  std::vector<cl_device_id> devices(n);
  ISG_CL_CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, n, devices.data(), nullptr));
  devices.resize(2);
  cl_int err = CL_SUCCESS;
  cl_context context = clCreateContext(nullptr, 2, devices.data(), nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);

  const std::string source =
      isgtest::rotateKernelSource("__attribute__((intel_reqd_sub_group_size(8)))");
  const char* text = source.c_str();
  cl_program program = clCreateProgramWithSource(context, 1, &text, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clBuildProgram(program, 0, nullptr, "", nullptr, nullptr), CL_SUCCESS);
  cl_kernel kernel = clCreateKernel(program, "rotate_lanes", &err);
  ASSERT_EQ(err, CL_SUCCESS);

  std::vector<SubGroupInfoFn> entries = {
      &clGetKernelSubGroupInfo, reinterpret_cast<SubGroupInfoFn>(clGetExtensionFunctionAddressForPlatform(
                                    platform, "clGetKernelSubGroupInfoKHR"))};
  if (SubGroupInfoFn exported = isgtest::loaderKhrExport()) entries.push_back(exported);
  else EXPECT_TRUE(isgtest::onKhronosLoader()) << "the loader exports no clGetKernelSubGroupInfoKHR";
  size_t local = 32, value = 0;
  for (SubGroupInfoFn fn : entries) {
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(kernel, nullptr, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local, &local,
                 sizeof value, &value, nullptr),
              CL_INVALID_DEVICE);
    for (cl_device_id d : devices) {
      value = 0;
      EXPECT_EQ(fn(kernel, d, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local, &local,
                   sizeof value, &value, nullptr),
                CL_SUCCESS);
      EXPECT_EQ(value, 8u);
    }
  }

  for (cl_device_id d : devices) {
    cl_command_queue queue = clCreateCommandQueue(context, d, 0, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const size_t global = 96, groupSize = 32;
    std::vector<cl_int> in = isgtest::iota(global, 9), out(global, -1);
    cl_mem inBuf = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  global * sizeof(cl_int), in.data(), &err);
    cl_mem outBuf =
        clCreateBuffer(context, CL_MEM_WRITE_ONLY, global * sizeof(cl_int), nullptr, &err);
    ISG_CL_CHECK(clSetKernelArg(kernel, 0, sizeof inBuf, &inBuf));
    ISG_CL_CHECK(clSetKernelArg(kernel, 1, sizeof outBuf, &outBuf));
    ISG_CL_CHECK(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &groupSize, 0, nullptr,
                                        nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(queue, outBuf, CL_TRUE, 0, global * sizeof(cl_int), out.data(),
                                     0, nullptr, nullptr));
    EXPECT_EQ(out, isgtest::rotateExpected(in, global, groupSize, 8));
    clReleaseMemObject(inBuf);
    clReleaseMemObject(outBuf);
    clReleaseCommandQueue(queue);
  }
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseContext(context);
}

}  // namespace
