// SPDX-License-Identifier: MIT
// clGetDeviceInfo through the loader with the layer: the device (PoCL, no native Intel
// sub-groups) must report what cl_intel_subgroups and cl_intel_required_subgroup_size promise.
#include <CL/cl_ext.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::deviceSubGroupSizes;
using isgtest::env;

const char* const kIntelExtensions[] = {"cl_intel_subgroups", "cl_intel_required_subgroup_size",
                                        "cl_intel_subgroups_short", "cl_intel_subgroups_char",
                                        "cl_intel_subgroups_long"};

bool deviceHasImages() {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  return images == CL_TRUE;
}

std::vector<std::string> words(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

size_t maxWorkGroupSize() {
  size_t n = 0;
  clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof n, &n, nullptr);
  return n;
}

TEST(DeviceQueries, ExtensionStringListsIntelSubgroupsOnce) {
  ISG_REQUIRE_ENV();
  std::string ext = isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS);
  std::vector<std::string> list = words(ext);
  for (const char* name : kIntelExtensions)
    EXPECT_EQ(std::count(list.begin(), list.end(), name), 1) << name << " in '" << ext << "'";
  // The driver's own extensions are still there.
  EXPECT_NE(std::find(list.begin(), list.end(), "cl_khr_byte_addressable_store"), list.end());
  EXPECT_EQ(ext.find("subgroupscl_"), std::string::npos) << ext;
}

TEST(DeviceQueries, ExtensionStringSizeAndErrors) {
  ISG_REQUIRE_ENV();
  size_t size = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string text(size, 'x');
  size_t written = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS, size, text.data(), &written));
  EXPECT_EQ(written, size);
  EXPECT_EQ(text.back(), '\0');
  EXPECT_EQ(std::string(text.c_str()).size() + 1, size);
  EXPECT_EQ(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS, size - 1, text.data(), nullptr),
            CL_INVALID_VALUE);
}

TEST(DeviceQueries, ExtensionsWithVersionListIntelSubgroups) {
  ISG_REQUIRE_ENV();
  size_t size = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION, 0, nullptr, &size));
  ASSERT_EQ(size % sizeof(cl_name_version), 0u);
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION, size, list.data(), nullptr));
  for (const char* name : kIntelExtensions) {
    auto count = std::count_if(list.begin(), list.end(), [&](const cl_name_version& v) {
      return std::string(v.name) == name;
    });
    EXPECT_EQ(count, 1) << name;
    for (const cl_name_version& v : list)
      if (std::string(v.name) == name) {
        EXPECT_EQ(CL_VERSION_MAJOR(v.version), 1u) << name;
      }
  }
  // cl_intel_media_block_io (version 1, 2016: 1.0.0) exactly on devices with images, which
  // every one of its functions takes.
  auto media = std::count_if(list.begin(), list.end(), [](const cl_name_version& v) {
    return std::string(v.name) == "cl_intel_media_block_io";
  });
  EXPECT_EQ(media, deviceHasImages() ? 1 : 0);
  for (const cl_name_version& v : list)
    if (std::string(v.name) == "cl_intel_media_block_io") {
      EXPECT_EQ(v.version, CL_MAKE_VERSION(1, 0, 0));
    }
  // Both queries agree on the set of names.
  std::vector<std::string> fromString =
      words(isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS));
  std::vector<std::string> fromVersions;
  for (const cl_name_version& v : list) fromVersions.push_back(v.name);
  std::sort(fromString.begin(), fromString.end());
  std::sort(fromVersions.begin(), fromVersions.end());
  EXPECT_EQ(fromString, fromVersions);
  if (size > sizeof(cl_name_version)) {
    EXPECT_EQ(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS_WITH_VERSION,
                              size - sizeof(cl_name_version), list.data(), nullptr),
              CL_INVALID_VALUE);
  }
}

TEST(DeviceQueries, SubGroupSizesArePowersOfTwoAndIncludeRequiredSizes) {
  ISG_REQUIRE_ENV();
  size_t size = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, nullptr, &size));
  ASSERT_GT(size, 0u);
  ASSERT_EQ(size % sizeof(size_t), 0u);
  std::vector<size_t> sizes(size / sizeof(size_t));
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, size, sizes.data(), nullptr));
  for (size_t s : sizes) EXPECT_TRUE(s != 0 && (s & (s - 1)) == 0) << s;
  for (size_t wanted : {8u, 16u, 32u})
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), wanted), sizes.end()) << wanted;
  EXPECT_EQ(clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, size - 1, sizes.data(),
                            nullptr),
            CL_INVALID_VALUE);
}

TEST(DeviceQueries, MaxNumSubGroupsCoversTheLargestWorkGroup) {
  ISG_REQUIRE_ENV();
  std::vector<size_t> sizes = deviceSubGroupSizes();
  ASSERT_FALSE(sizes.empty());
  size_t smallest = *std::min_element(sizes.begin(), sizes.end());
  cl_uint count = 0;
  size_t ret = 0;
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof count, &count, &ret));
  EXPECT_EQ(ret, sizeof(cl_uint));
  EXPECT_EQ(count, (maxWorkGroupSize() + smallest - 1) / smallest);
  EXPECT_EQ(clGetDeviceInfo(env().device, CL_DEVICE_MAX_NUM_SUB_GROUPS, 2, &count, nullptr),
            CL_INVALID_VALUE);
}

TEST(DeviceQueries, NoIndependentForwardProgress) {
  ISG_REQUIRE_ENV();
  cl_bool progress = CL_TRUE;
  size_t ret = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
                               sizeof progress, &progress, &ret));
  EXPECT_EQ(progress, static_cast<cl_bool>(CL_FALSE));
  EXPECT_EQ(ret, sizeof(cl_bool));
  ret = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS, 0,
                               nullptr, &ret));
  EXPECT_EQ(ret, sizeof(cl_bool));
}

// ISG_PRESENT_AS_INTEL (docs/controls.md): the device's name and vendor as Intel's drivers
// answer them, for applications that pick their Intel code by those strings; only when asked
// (CTest runs this case a second time with the control on: layer.present_as_intel).
TEST(DeviceQueries, PresentAsIntelOnlyWhenAsked) {
  ISG_REQUIRE_ENV();
  const char* asked = std::getenv("ISG_PRESENT_AS_INTEL");
  const bool on = asked && std::string(asked) == "1";
  const std::string prefix = "Intel(R) sub-group layer: ";
  auto query = [](cl_device_info what) {
    size_t size = 0;
    EXPECT_EQ(clGetDeviceInfo(env().device, what, 0, nullptr, &size), CL_SUCCESS);
    std::string text(size, '\0');
    EXPECT_EQ(clGetDeviceInfo(env().device, what, size, text.data(), nullptr), CL_SUCCESS);
    EXPECT_TRUE(!text.empty() && text.back() == '\0') << "size " << size << " counts the NUL";
    if (!text.empty()) text.pop_back();
    EXPECT_EQ(text.find('\0'), std::string::npos) << "one string, of the size answered";
    return text;
  };
  const std::string name = query(CL_DEVICE_NAME), vendor = query(CL_DEVICE_VENDOR);
  if (on) {
    ASSERT_EQ(name.rfind(prefix, 0), 0u) << name;
    EXPECT_GT(name.size(), prefix.size()) << "the driver's name follows";
    EXPECT_EQ(vendor, "Intel(R) Corporation");
    char small[4] = {};
    EXPECT_EQ(clGetDeviceInfo(env().device, CL_DEVICE_NAME, sizeof small, small, nullptr),
              CL_INVALID_VALUE);
  } else {
    EXPECT_NE(name.rfind(prefix, 0), 0u) << name;
    // The driver's own vendor: PoCL on an Intel CPU says "GenuineIntel", which is its own.
    if (!isgtest::onIntelsDriver()) {
      EXPECT_NE(vendor, "Intel(R) Corporation") << "the layer presents the device as Intel's unasked";
    }
  }
}

// ISG_PRESENT_AS_GPU (docs/controls.md): a CPU device the layer serves answers, and is found
// as, a GPU, and with Intel's vendor id answers cl_intel_device_attribute_query as Xe-LP; only
// when asked (CTest runs this case a second time with the control on: layer.present_as_gpu).
// Whatever the control, clGetDeviceIDs and clCreateContextFromType agree with CL_DEVICE_TYPE.
TEST(DeviceQueries, PresentAsGpuOnlyWhenAsked) {
  ISG_REQUIRE_ENV();
  const char* asked = std::getenv("ISG_PRESENT_AS_GPU");
  const bool on = asked && std::string(asked) == "1";
  const bool served = !isgtest::onIntelsDriver();  // Intel's own driver is passed through
  const cl_platform_id platform = env().platform;
  auto typeOf = [](cl_device_id d) {
    cl_device_type t = 0;
    EXPECT_EQ(clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof t, &t, nullptr), CL_SUCCESS);
    return t;
  };
  auto devicesOf = [&](cl_device_type type) {
    cl_uint n = 0;
    const cl_int err = clGetDeviceIDs(platform, type, 0, nullptr, &n);
    std::vector<cl_device_id> out(n);
    if (err == CL_SUCCESS) EXPECT_EQ(clGetDeviceIDs(platform, type, n, out.data(), nullptr), CL_SUCCESS);
    else EXPECT_EQ(err, CL_DEVICE_NOT_FOUND);
    return out;
  };
  const cl_device_type type = typeOf(env().device);
  if (on && served) {
    EXPECT_TRUE(type & CL_DEVICE_TYPE_GPU) << "type " << type;
    EXPECT_FALSE(type & CL_DEVICE_TYPE_CPU) << "type " << type;
  }
  // Each type's list is the platform's devices that answer that type (the spec's contract, the
  // driver's alone as well as the layer's).
  const std::vector<cl_device_id> all = devicesOf(CL_DEVICE_TYPE_ALL);
  ASSERT_FALSE(all.empty());
  for (cl_device_type t : {CL_DEVICE_TYPE_CPU, CL_DEVICE_TYPE_GPU, CL_DEVICE_TYPE_ACCELERATOR}) {
    std::vector<cl_device_id> expected;
    for (cl_device_id d : all)
      if (typeOf(d) & t) expected.push_back(d);
    EXPECT_EQ(devicesOf(t), expected) << "type " << t;
  }
  cl_device_id one = nullptr;
  EXPECT_EQ(clGetDeviceIDs(platform, type, 0, &one, nullptr), CL_INVALID_VALUE);
  EXPECT_EQ(clGetDeviceIDs(platform, type, 1, nullptr, nullptr), CL_INVALID_VALUE);
  // A context of the type, given the platform, holds what clGetDeviceIDs lists for it.
  const cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
  cl_int err = CL_SUCCESS;
  const cl_device_type asType = type & CL_DEVICE_TYPE_GPU ? CL_DEVICE_TYPE_GPU : type;
  cl_context context = clCreateContextFromType(properties, asType, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t size = 0;
  ISG_CL_CHECK(clGetContextInfo(context, CL_CONTEXT_DEVICES, 0, nullptr, &size));
  std::vector<cl_device_id> inContext(size / sizeof(cl_device_id));
  ISG_CL_CHECK(clGetContextInfo(context, CL_CONTEXT_DEVICES, size, inContext.data(), nullptr));
  EXPECT_EQ(inContext, devicesOf(asType));
  clReleaseContext(context);

  // cl_intel_device_attribute_query, where the layer presents Intel's attributes.
  cl_uint vendor = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, nullptr));
  size = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size));
  std::string extensions(size, '\0');
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr));
  const bool offered = extensions.find("cl_intel_device_attribute_query") != std::string::npos;
  if (!served) return;  // Intel's driver answers for itself
  EXPECT_EQ(offered, on && vendor == 0x8086) << "vendor " << std::hex << vendor;
  if (!offered) return;
  auto uintOf = [](cl_device_info what) {
    cl_uint v = 0;
    size_t ret = 0;
    EXPECT_EQ(clGetDeviceInfo(env().device, what, 0, nullptr, &ret), CL_SUCCESS);
    EXPECT_EQ(ret, sizeof v);
    EXPECT_EQ(clGetDeviceInfo(env().device, what, sizeof v, &v, nullptr), CL_SUCCESS);
    return v;
  };
  EXPECT_EQ(uintOf(CL_DEVICE_IP_VERSION_INTEL), 12u << 22) << "Xe-LP, 12.0.0";
  cl_uint units = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr));
  EXPECT_EQ(uintOf(CL_DEVICE_NUM_SLICES_INTEL) * uintOf(CL_DEVICE_NUM_SUB_SLICES_PER_SLICE_INTEL) *
                uintOf(CL_DEVICE_NUM_EUS_PER_SUB_SLICE_INTEL),
            std::max(units, 1u));
  EXPECT_EQ(uintOf(CL_DEVICE_NUM_THREADS_PER_EU_INTEL), 1u);
  EXPECT_EQ(uintOf(CL_DEVICE_ID_INTEL), 0u);
  cl_device_feature_capabilities_intel features = ~0ull;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_FEATURE_CAPABILITIES_INTEL, sizeof features,
                               &features, nullptr));
  EXPECT_EQ(features & (CL_DEVICE_FEATURE_FLAG_DP4A_INTEL | CL_DEVICE_FEATURE_FLAG_DPAS_INTEL), 0u)
      << "no systolic arrays: the libraries' OpenCL C kernels";
  char small[2] = {};
  EXPECT_EQ(clGetDeviceInfo(env().device, CL_DEVICE_IP_VERSION_INTEL, sizeof small, small, nullptr),
            CL_INVALID_VALUE);
}

TEST(DeviceQueries, UnrelatedQueriesAndErrorsAreTheDriversOwn) {
  ISG_REQUIRE_ENV();
  cl_uint units = 0;
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr));
  EXPECT_GT(units, 0u);
  EXPECT_EQ(clGetDeviceInfo(env().device, 0x7fff0000, sizeof units, &units, nullptr),
            CL_INVALID_VALUE);
}

namespace khr {

// Whether the device compiles OpenCL C 3.0 (CL_DEVICE_OPENCL_C_ALL_VERSIONS, OpenCL 3.0).
bool compilesOpenclC3() {
  size_t size = 0;
  if (clGetDeviceInfo(env().device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, 0, nullptr, &size) !=
      CL_SUCCESS)
    return false;
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  if (clGetDeviceInfo(env().device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, size, list.data(), nullptr) !=
      CL_SUCCESS)
    return false;
  return std::any_of(list.begin(), list.end(),
                     [](const cl_name_version& v) { return CL_VERSION_MAJOR(v.version) >= 3; });
}

std::vector<cl_name_version> nameVersions(cl_device_info what) {
  size_t size = 0;
  if (clGetDeviceInfo(env().device, what, 0, nullptr, &size) != CL_SUCCESS) return {};
  std::vector<cl_name_version> list(size / sizeof(cl_name_version));
  if (clGetDeviceInfo(env().device, what, size, list.data(), nullptr) != CL_SUCCESS) return {};
  return list;
}

cl_version versionOf(const std::vector<cl_name_version>& list, const std::string& name) {
  for (const cl_name_version& v : list)
    if (name == v.name) return v.version;
  return 0;
}

}  // namespace khr

// Sub-groups the Khronos way (issue 53): on devices that compile OpenCL C 3.0, the core feature
// __opencl_c_subgroups with its limits; the cl_khr_subgroups string only where sub-groups make
// independent forward progress, which that extension promises (OpenCL-CTS ifp_ext) and the
// layer does not claim.
TEST(KhrSubgroups, TheCoreFeatureOnOpenclC3DevicesAndTheExtensionOnlyWithItsPromise) {
  ISG_REQUIRE_ENV();
  if (!std::getenv("OPENCL_LAYERS") || isgtest::onIntelsDriver())
    GTEST_SKIP() << "what the layer adds: it serves this device natively, or is not loaded";
  cl_bool progress = CL_FALSE;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS,
                               sizeof progress, &progress, nullptr));
  const std::vector<std::string> list =
      words(isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS));
  EXPECT_EQ(std::count(list.begin(), list.end(), "cl_khr_subgroups"), progress ? 1 : 0)
      << "cl_khr_subgroups promises independent forward progress";
  if (!khr::compilesOpenclC3())
    GTEST_SKIP() << "the device compiles no OpenCL C 3.0: no core feature";
  const auto features = khr::nameVersions(CL_DEVICE_OPENCL_C_FEATURES);
  EXPECT_EQ(khr::versionOf(features, "__opencl_c_subgroups"), CL_MAKE_VERSION(3, 0, 0));
  cl_uint count = 0;
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_MAX_NUM_SUB_GROUPS, sizeof count, &count, nullptr));
  EXPECT_GT(count, 0u) << "OpenCL 3.0: sub-groups are supported exactly where this is not 0";
  // The khr extensions built on sub-groups whose every function the layer provides.
  for (const char* name : {"cl_khr_subgroup_shuffle", "cl_khr_subgroup_shuffle_relative",
                           "cl_khr_subgroup_extended_types", "cl_khr_subgroup_rotate",
                           "cl_khr_subgroup_clustered_reduce"})
    EXPECT_EQ(std::count(list.begin(), list.end(), name), 1) << name;
  // Those of functions of the work-items that reach a call: where the strategy knows them
  // (nvidia-ptx, the default on NVIDIA GPUs), not on local (PoCL, or forced).
  const char* forced = std::getenv("ISG_STRATEGY");
  const bool activeSet =
      isgtest::nvidiaDevice() &&
      (!forced || std::string(forced) == "nvidia-ptx" || std::string(forced) == "auto");
  for (const char* name : {"cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_ballot",
                           "cl_khr_subgroup_non_uniform_arithmetic"})
    EXPECT_EQ(std::count(list.begin(), list.end(), name), activeSet ? 1 : 0) << name;
}

// A program written for cl_khr_subgroups alone, as portable code is: it picks its sub-group
// path by the extension's macro (or, in OpenCL C 3.0, the feature's), enables the extension,
// and calls the khr builtins. Under each -cl-std it must see the macros the device advertises
// and compute what the spec says, against a host model of the sub-groups the kernel reports.
TEST(KhrSubgroups, ProgramsThatAskForTheExtensionGetItUnderEveryStd) {
  ISG_REQUIRE_ENV();
  const char* source = R"CLC(
#ifdef cl_khr_subgroups
#pragma OPENCL EXTENSION cl_khr_subgroups : enable
#endif
kernel void khr(global const int* in, global int* out, global uint* facts) {
  const size_t i = get_global_id(0);
  uint seen = 0;
#ifdef cl_khr_subgroups
  seen |= 1;
#endif
#ifdef __opencl_c_subgroups
  seen |= 2;
#endif
#if defined(cl_khr_subgroups) || defined(__opencl_c_subgroups)
  const int v = in[i];
  out[4 * i + 0] = sub_group_reduce_add(v);
  out[4 * i + 1] = sub_group_scan_exclusive_max(v);
  out[4 * i + 2] = sub_group_broadcast(v, 1u);
  out[4 * i + 3] = sub_group_any(v == 7) + 2 * sub_group_all(v >= 0);
  if (i == 0) { facts[1] = get_sub_group_size(); facts[2] = get_num_sub_groups(); }
#endif
  if (i == 0) { facts[0] = seen; facts[3] = __OPENCL_C_VERSION__; }
}
)CLC";
  const size_t n = 128, local = 64;
  std::vector<cl_int> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<cl_int>((i * 37) % 29);
  const bool c3 = khr::compilesOpenclC3();
  // What the device advertises decides what a program sees: the layer's, or a driver's own.
  const bool extension = isgtest::deviceHasExtension("cl_khr_subgroups");
  const bool feature =
      CL_VERSION_MAJOR(khr::versionOf(khr::nameVersions(CL_DEVICE_OPENCL_C_FEATURES),
                                      "__opencl_c_subgroups")) == 3;
  for (const std::string std : {"", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    SCOPED_TRACE(std.empty() ? "no -cl-std" : std);
    if (std == "-cl-std=CL3.0" && !c3) continue;
    std::string log;
    cl_program p = isgtest::buildProgram(source, std + " " + isgtest::extraBuildOptions(), &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "khr", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_mem a = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              n * sizeof(cl_int), in.data(), &err);
    cl_mem b =
        clCreateBuffer(env().context, CL_MEM_READ_WRITE, 4 * n * sizeof(cl_int), nullptr, &err);
    cl_mem f = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 4 * sizeof(cl_uint), nullptr, &err);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, a, b, f));
    ISG_CL_CHECK(
        clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &n, &local, 0, nullptr, nullptr));
    std::vector<cl_int> out(4 * n);
    cl_uint facts[4] = {};
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, b, CL_TRUE, 0, out.size() * sizeof(cl_int),
                                     out.data(), 0, nullptr, nullptr));
    ISG_CL_CHECK(
        clEnqueueReadBuffer(env().queue, f, CL_TRUE, 0, sizeof facts, facts, 0, nullptr, nullptr));
    // OpenCL C 3.0 compiles (by -cl-std, or the compiler's default) see the feature exactly
    // where they see the extension.
    // Without -cl-std the spec's default is OpenCL C 1.2 (no feature macros), which the layer's
    // parse follows; PoCL compiles 3.0 then, so there the feature is checked with -cl-std only.
    const unsigned expected = (extension ? 1u : 0u) | (facts[3] >= 300 && feature ? 2u : 0u);
    const unsigned checked = std.empty() ? 1u : 3u;
    EXPECT_EQ(facts[0] & checked, expected & checked)
        << "1: cl_khr_subgroups, 2: __opencl_c_subgroups; __OPENCL_C_VERSION__ " << facts[3];
    if (std == "-cl-std=CL3.0") {
      EXPECT_EQ(facts[3], 300u);
    }
    if (facts[0] == 0) continue;  // the program took its path without sub-groups
    // The sub-group size the kernel reports, as the query answers it for this launch.
    size_t s = 0;
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                         sizeof local, &local, sizeof s, &s, nullptr));
    ASSERT_EQ(facts[1], s);
    ASSERT_GT(s, 1u);
    ASSERT_EQ(local % s, 0u) << "the host model below takes whole sub-groups";
    EXPECT_EQ(facts[2], local / s);
    for (size_t i = 0; i < n; ++i) {
      const size_t first = i / s * s;
      int sum = 0, prefix = INT_MIN, any = 0, all = 1;
      for (size_t j = first; j < first + s; ++j) {
        sum += in[j];
        if (j < i) prefix = std::max(prefix, in[j]);
        any |= in[j] == 7;
        all &= in[j] >= 0;
      }
      EXPECT_EQ(out[4 * i + 0], sum) << "reduce_add at " << i;
      EXPECT_EQ(out[4 * i + 1], prefix) << "scan_exclusive_max at " << i;
      EXPECT_EQ(out[4 * i + 2], in[first + 1]) << "broadcast at " << i;
      EXPECT_EQ(out[4 * i + 3], (any ? 1 : 0) + 2 * all) << "any/all at " << i;
    }
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(f);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

}  // namespace
