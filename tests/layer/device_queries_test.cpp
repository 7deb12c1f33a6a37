// SPDX-License-Identifier: MIT
// clGetDeviceInfo through the loader with the layer: the device (PoCL, no native Intel
// sub-groups) must report what cl_intel_subgroups and cl_intel_required_subgroup_size promise.
#include <CL/cl_ext.h>

#include <algorithm>
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

TEST(DeviceQueries, UnrelatedQueriesAndErrorsAreTheDriversOwn) {
  ISG_REQUIRE_ENV();
  cl_uint units = 0;
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof units, &units, nullptr));
  EXPECT_GT(units, 0u);
  EXPECT_EQ(clGetDeviceInfo(env().device, 0x7fff0000, sizeof units, &units, nullptr),
            CL_INVALID_VALUE);
}

}  // namespace
