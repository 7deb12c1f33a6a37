// SPDX-License-Identifier: MIT
// clGetKernelSubGroupInfo(KHR) against cl_intel_subgroups / cl_khr_subgroups: every query, and
// every error code, through the core entry, the KHR entry of the dispatch table and the address
// from clGetExtensionFunctionAddressForPlatform.
#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdlib>
#include <ostream>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::deviceSubGroupSizes;
using isgtest::env;

using isgtest::SubGroupInfoFn;

struct EntryPoint {
  const char* name;
  SubGroupInfoFn (*get)();
};

// Names the entry point in test output instead of dumping the struct's bytes.
void PrintTo(const EntryPoint& entry, std::ostream* os) { *os << entry.name; }

SubGroupInfoFn coreEntry() { return &clGetKernelSubGroupInfo; }
SubGroupInfoFn khrEntry() { return isgtest::loaderKhrExport(); }
SubGroupInfoFn extensionAddressEntry() {
  return reinterpret_cast<SubGroupInfoFn>(
      clGetExtensionFunctionAddressForPlatform(env().platform, "clGetKernelSubGroupInfoKHR"));
}

const EntryPoint kEntryPoints[] = {
    {"core", coreEntry}, {"khr", khrEntry}, {"extension_address", extensionAddressEntry}};

// Kernels that report their sub-group size at run time, with and without a required size.
const char* kSource = R"CLC(
kernel __attribute__((intel_reqd_sub_group_size(8)))
void k8(global const int* in, global int* out) { out[get_global_id(0)] = (int)get_max_sub_group_size() + 0 * in[0]; }
kernel __attribute__((intel_reqd_sub_group_size(16)))
void k16(global const int* in, global int* out) { out[get_global_id(0)] = (int)get_max_sub_group_size() + 0 * in[0]; }
kernel __attribute__((intel_reqd_sub_group_size(32)))
void k32(global const int* in, global int* out) { out[get_global_id(0)] = (int)get_max_sub_group_size() + 0 * in[0]; }
kernel void kdefault(global const int* in, global int* out) { out[get_global_id(0)] = (int)get_max_sub_group_size() + 0 * in[0]; }
)CLC";

// A program that names no sub-group builtin: it passes through the layer untouched.
const char* kPlainSource =
    "kernel void plain(global const int* in, global int* out) {\n"
    "  out[get_global_id(0)] = in[get_global_id(0)] * 2;\n"
    "}\n";

class KernelSubGroupInfo : public ::testing::TestWithParam<EntryPoint> {
 protected:
  void SetUp() override {
    ISG_REQUIRE_ENV();
    fn_ = GetParam().get();
    if (!fn_ && GetParam().get == khrEntry && isgtest::onKhronosLoader())
      GTEST_SKIP() << "the Khronos loader exports no clGetKernelSubGroupInfoKHR";
    ASSERT_NE(fn_, nullptr) << GetParam().name;
    std::string log;
    program_ = isgtest::buildProgram(kSource, "", &log);
    ASSERT_NE(program_, nullptr) << log;
    plainProgram_ = isgtest::buildProgram(kPlainSource, "", &log);
    ASSERT_NE(plainProgram_, nullptr) << log;
  }
  void TearDown() override {
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    if (program_) clReleaseProgram(program_);
    if (plainProgram_) clReleaseProgram(plainProgram_);
  }
  cl_kernel kernel(const char* name, cl_program from = nullptr) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(from ? from : program_, name, &err);
    EXPECT_EQ(err, CL_SUCCESS) << name;
    if (k) kernels_.push_back(k);
    return k;
  }
  size_t kernelWorkGroupSize(cl_kernel k) {
    size_t n = 0;
    EXPECT_EQ(
        clGetKernelWorkGroupInfo(k, env().device, CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, nullptr),
        CL_SUCCESS);
    return n;
  }
  size_t query(cl_kernel k, cl_kernel_sub_group_info what, const std::vector<size_t>& input,
               cl_device_id device = nullptr) {
    size_t value = 12345, ret = 0;
    cl_int err = fn_(k, device ? device : env().device, what, input.size() * sizeof(size_t),
                     input.empty() ? nullptr : input.data(), sizeof value, &value, &ret);
    EXPECT_EQ(err, CL_SUCCESS) << "query 0x" << std::hex << what;
    EXPECT_EQ(ret, sizeof(size_t));
    return value;
  }
  // Every query for a kernel whose sub-group size is S (required or not). `rows`: the kernel
  // takes S from each launch's rows (docs/design.md, "Intel's execution model": an x size of 8
  // or 16 below the default S is the sub-group), so a launch's answers follow its x size.
  void expectQueriesFor(cl_kernel k, size_t S, bool required, bool rows = false) {
    const size_t wg = kernelWorkGroupSize(k);
    ASSERT_GE(wg, S);
    auto sizeFor = [&](size_t x) { return rows && (x == 8 || x == 16) && x < S ? x : S; };
    for (const std::vector<size_t>& local :
         std::vector<std::vector<size_t>>{{64}, {10}, {8, 8}, {16, 2}, {5, 3, 2}, {1}}) {
      size_t items = 1;
      for (size_t l : local) items *= l;
      const size_t s = sizeFor(local[0]);
      EXPECT_EQ(query(k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, local), s) << local[0];
      EXPECT_EQ(query(k, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, local), (items + s - 1) / s) << local[0];
    }
    EXPECT_EQ(query(k, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, {}), required ? S : 0u);
    const size_t smallest = sizeFor(8);  // the most sub-groups any launch has
    EXPECT_EQ(query(k, CL_KERNEL_MAX_NUM_SUB_GROUPS, {}), (wg + smallest - 1) / smallest);
    EXPECT_EQ(query(k, CL_KERNEL_COMPILE_NUM_SUB_GROUPS, {}), 0u);

    // CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: the dimensions are what param_value holds.
    for (size_t dims : {1u, 2u, 3u}) {
      size_t count = 2;
      std::vector<size_t> local(dims, 777);
      size_t ret = 0;
      ASSERT_EQ(fn_(k, env().device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count, &count,
                    dims * sizeof(size_t), local.data(), &ret),
                CL_SUCCESS);
      EXPECT_EQ(ret, dims * sizeof(size_t));
      std::vector<size_t> expected(dims, 1);
      expected[0] = count * S;
      EXPECT_EQ(local, expected) << dims << " dimensions";
    }
    size_t tooMany = wg / S + 1;
    std::vector<size_t> local(3, 777);
    ASSERT_EQ(fn_(k, env().device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof tooMany,
                  &tooMany, sizeof(size_t) * 3, local.data(), nullptr),
              CL_SUCCESS);
    EXPECT_EQ(local, std::vector<size_t>(3, 0)) << "no work-group holds " << tooMany;
  }
  // The size the queries report is the one the kernel sees at run time.
  void expectRuntimeSize(cl_kernel k, size_t S) {
    std::vector<cl_int> in = isgtest::iota(64), out;
    isgtest::runIntKernel(k, in, &out, 64, 32);
    for (cl_int v : out) ASSERT_EQ(static_cast<size_t>(v), S);
  }

  SubGroupInfoFn fn_ = nullptr;
  cl_program program_ = nullptr;
  cl_program plainProgram_ = nullptr;
  std::vector<cl_kernel> kernels_;
};

TEST_P(KernelSubGroupInfo, RequiredSizes) {
  for (auto [name, S] : {std::pair<const char*, size_t>{"k8", 8}, {"k16", 16}, {"k32", 32}}) {
    SCOPED_TRACE(name);
    cl_kernel k = kernel(name);
    ASSERT_NE(k, nullptr);
    expectQueriesFor(k, S, true);
    expectRuntimeSize(k, S);
  }
}

// Whether kernels without intel_reqd_sub_group_size take S from their rows in this run: the
// default (ISG_SUB_GROUP_SIZE_FROM_LAUNCH on, no size named by ISG_SUB_GROUP_SIZE) on the
// strategies whose library takes a run-time S (not khr: docs/controls.md), for programs from
// OpenCL C.
bool rowsRule() {
  auto set = [](const char* name) {
    const char* v = std::getenv(name);
    return v ? std::string(v) : std::string();
  };
  const std::string size = set("ISG_SUB_GROUP_SIZE"), fromLaunch = set("ISG_SUB_GROUP_SIZE_FROM_LAUNCH");
  const bool off = fromLaunch == "0" || fromLaunch == "no" || fromLaunch == "false" || fromLaunch == "off";
  // Programs from SPIR-V keep the default S (docs/spirv.md).
  return (size.empty() || size == "0") && !off && set("ISG_STRATEGY") != "khr" && !isgtest::spirvMode();
}

TEST_P(KernelSubGroupInfo, DefaultSizeIsADeviceSize) {
  cl_kernel k = kernel("kdefault");
  ASSERT_NE(k, nullptr);
  size_t local = 64;
  size_t S = query(k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, {local});
  std::vector<size_t> sizes = deviceSubGroupSizes();
  EXPECT_NE(std::find(sizes.begin(), sizes.end(), S), sizes.end()) << S;
  expectQueriesFor(k, S, false, rowsRule());
  expectRuntimeSize(k, S);
}

TEST_P(KernelSubGroupInfo, PassThroughKernelAnswersWithADeviceSize) {
  cl_kernel k = kernel("plain", plainProgram_);
  ASSERT_NE(k, nullptr);
  size_t S = query(k, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, {64});
  std::vector<size_t> sizes = deviceSubGroupSizes();
  EXPECT_NE(std::find(sizes.begin(), sizes.end(), S), sizes.end()) << S;
  expectQueriesFor(k, S, false);
}

TEST_P(KernelSubGroupInfo, ErrorCodes) {
  cl_kernel k = kernel("k16");
  ASSERT_NE(k, nullptr);
  size_t local[4] = {16, 1, 1, 1};
  size_t value = 0;

  // CL_INVALID_KERNEL
  EXPECT_EQ(fn_(nullptr, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof(size_t),
                local, sizeof value, &value, nullptr),
            CL_INVALID_KERNEL);

  // CL_INVALID_VALUE: the query name
  EXPECT_EQ(fn_(k, env().device, 0x7fff, sizeof(size_t), local, sizeof value, &value, nullptr),
            CL_INVALID_VALUE);
  // ... param_value too small
  for (cl_kernel_sub_group_info what :
       {CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE}) {
    EXPECT_EQ(fn_(k, env().device, what, sizeof(size_t), local, sizeof value - 1, &value, nullptr),
              CL_INVALID_VALUE);
    // ... input_value_size not 1-3 size_t, or input_value NULL
    for (size_t bad : {size_t{0}, sizeof(size_t) * 4, sizeof(size_t) + 1, size_t{3}})
      EXPECT_EQ(fn_(k, env().device, what, bad, local, sizeof value, &value, nullptr),
                CL_INVALID_VALUE)
          << "input size " << bad;
    EXPECT_EQ(fn_(k, env().device, what, sizeof(size_t), nullptr, sizeof value, &value, nullptr),
              CL_INVALID_VALUE);
  }
  for (cl_kernel_sub_group_info what : std::vector<cl_kernel_sub_group_info>{
           CL_KERNEL_MAX_NUM_SUB_GROUPS, CL_KERNEL_COMPILE_NUM_SUB_GROUPS,
           CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL})
    EXPECT_EQ(fn_(k, env().device, what, 0, nullptr, sizeof value - 1, &value, nullptr),
              CL_INVALID_VALUE);
  // ... CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT wants exactly one size_t in
  size_t count = 1;
  size_t out[3];
  EXPECT_EQ(fn_(k, env().device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof(size_t) * 2,
                local, sizeof out, out, nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(fn_(k, env().device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count, nullptr,
                sizeof out, out, nullptr),
            CL_INVALID_VALUE);
  EXPECT_EQ(fn_(k, env().device, CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT, sizeof count, &count,
                sizeof(size_t) - 1, out, nullptr),
            CL_INVALID_VALUE);

  // A size query with param_value NULL is fine.
  size_t ret = 0;
  EXPECT_EQ(fn_(k, env().device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE, sizeof(size_t), local, 0,
                nullptr, &ret),
            CL_SUCCESS);
  EXPECT_EQ(ret, sizeof(size_t));
  // With one device in the context, device may be NULL.
  EXPECT_EQ(fn_(k, nullptr, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof(size_t), local,
                sizeof value, &value, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(value, 16u);
}

// CL_INVALID_DEVICE for a device outside the kernel's context: a sub-device of the default
// device. (NULL with several devices: multi_device_test.cpp.)
TEST_P(KernelSubGroupInfo, InvalidDevice) {
  const cl_device_partition_property equally[] = {CL_DEVICE_PARTITION_EQUALLY, 1, 0};
  cl_uint n = 0;
  // A device outside the context needs a partitionable device (PoCL is; NVIDIA's GPUs are not).
  cl_uint maxSubDevices = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_PARTITION_MAX_SUB_DEVICES,
                               sizeof maxSubDevices, &maxSubDevices, nullptr));
  if (maxSubDevices < 2) GTEST_SKIP() << "the device cannot be partitioned into sub-devices";
  ISG_CL_CHECK(clCreateSubDevices(env().device, equally, 0, nullptr, &n));
  ASSERT_GE(n, 2u) << "the test needs a device that partitions into two sub-devices";
  std::vector<cl_device_id> subs(n);
  ISG_CL_CHECK(clCreateSubDevices(env().device, equally, n, subs.data(), nullptr));

  size_t local = 16, value = 0;
  // A device outside the kernel's context.
  cl_kernel k = kernel("k16");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(fn_(k, subs[0], CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local, &local,
                sizeof value, &value, nullptr),
            CL_INVALID_DEVICE);

  for (cl_device_id d : subs) clReleaseDevice(d);
}

INSTANTIATE_TEST_SUITE_P(AllEntryPoints, KernelSubGroupInfo, ::testing::ValuesIn(kEntryPoints),
                         [](const ::testing::TestParamInfo<EntryPoint>& info) {
                           return std::string(info.param.name);
                         });

TEST(ExtensionFunctionAddress, ReturnsTheLayersKhrEntry) {
  ISG_REQUIRE_ENV();
  void* forPlatform =
      clGetExtensionFunctionAddressForPlatform(env().platform, "clGetKernelSubGroupInfoKHR");
  EXPECT_NE(forPlatform, nullptr);
  // Unknown names still reach the driver, which knows none of these.
  EXPECT_EQ(clGetExtensionFunctionAddressForPlatform(env().platform, "clNoSuchFunctionISG"),
            nullptr);
}

}  // namespace
