// SPDX-License-Identifier: MIT
#include "device_strategy.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>

#include "driver_queries.h"
#include "layer_api.h"

namespace isg {
namespace {

// Strategies the layer can use today: native needs no library, the others have their folder in
// builtins-cl/. A detected strategy outside this list falls back to local until its library lands.
constexpr Strategy kImplementedStrategies[] = {Strategy::Native, Strategy::NvidiaPtx,
                                               Strategy::Local};

bool isImplemented(Strategy s) {
  return std::find(std::begin(kImplementedStrategies), std::end(kImplementedStrategies), s) !=
         std::end(kImplementedStrategies);
}

bool hasExtension(const std::string& extensions, const char* name) {
  std::istringstream words(extensions);
  std::string word;
  while (words >> word)
    if (word == name) return true;
  return false;
}

// "OpenCL C 1.2 PoCL" -> 120
unsigned parseOpenclCVersion(const std::string& text) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "OpenCL C %u.%u", &major, &minor) != 2) return 120;
  return major * 100 + minor * 10;
}

Strategy detect(cl_device_id device, const std::string& extensions) {
  if (hasExtension(extensions, "cl_intel_subgroups")) return Strategy::Native;
  cl_uint vendor = 0, warp = 0, ccMajor = 0, ccMinor = 0;
  if (deviceValue(device, CL_DEVICE_VENDOR_ID, &vendor) == CL_SUCCESS && vendor == 0x10de &&
      hasExtension(extensions, "cl_nv_device_attribute_query") &&
      deviceValue(device, CL_DEVICE_WARP_SIZE_NV, &warp) == CL_SUCCESS && warp == 32 &&
      deviceValue(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, &ccMajor) == CL_SUCCESS &&
      deviceValue(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, &ccMinor) == CL_SUCCESS &&
      ccMajor * 10 + ccMinor >= 70)
    return Strategy::NvidiaPtx;
  if (hasExtension(extensions, "cl_khr_subgroups") &&
      hasExtension(extensions, "cl_khr_subgroup_shuffle") &&
      hasExtension(extensions, "cl_khr_subgroup_shuffle_relative"))
    return Strategy::Khr;
  return Strategy::Local;
}

Strategy fromChoice(StrategyChoice choice, Strategy detected) {
  switch (choice) {
    case StrategyChoice::Auto:
      return detected;
    case StrategyChoice::Native:
      return Strategy::Native;
    case StrategyChoice::NvidiaPtx:
      return Strategy::NvidiaPtx;
    case StrategyChoice::Khr:
      return Strategy::Khr;
    case StrategyChoice::Local:
      return Strategy::Local;
  }
  return detected;
}

// The strategy's sub-group sizes, before ISG_SUB_GROUP_SIZE.
void applyStrategy(Strategy strategy, DeviceTraits* traits) {
  DeviceTraits& t = *traits;
  t.strategy = strategy;
  switch (strategy) {
    case Strategy::NvidiaPtx:
      t.defaultSubGroupSize = 32;
      t.nativeSubGroupSize = 32;
      t.supportedSubGroupSizes = {8, 16, 32};
      break;
    case Strategy::Khr:
      // The native size needs a built kernel to measure; it is probed when the khr library
      // lands (until then khr devices use local, see kImplementedStrategies).
      t.defaultSubGroupSize = t.nativeSubGroupSize ? t.nativeSubGroupSize : 16;
      t.supportedSubGroupSizes = {1, 2, 4, 8, 16, 32, 64};
      break;
    case Strategy::Native:
    case Strategy::Local:
      t.defaultSubGroupSize = 16;
      t.nativeSubGroupSize = 0;
      t.supportedSubGroupSizes = {1, 2, 4, 8, 16, 32, 64};
      break;
  }
}

void applySubGroupSizeControl(DeviceTraits* traits, const std::string& deviceName) {
  unsigned wanted = config().SUB_GROUP_SIZE;
  if (wanted == 0) return;
  const auto& sizes = traits->supportedSubGroupSizes;
  if (std::find(sizes.begin(), sizes.end(), wanted) != sizes.end()) {
    traits->defaultSubGroupSize = wanted;
    return;
  }
  ISG_LOG_WARNING("ISG_SUB_GROUP_SIZE=" << wanted << " is not supported by strategy "
                                        << strategyName(traits->strategy) << " on '" << deviceName
                                        << "'; keeping " << traits->defaultSubGroupSize);
}

std::unique_ptr<DeviceProfile> profile(cl_device_id device) {
  std::string extensions, cVersion, name;
  if (deviceString(device, CL_DEVICE_EXTENSIONS, &extensions) != CL_SUCCESS) return nullptr;
  deviceString(device, CL_DEVICE_NAME, &name);
  auto p = std::make_unique<DeviceProfile>();
  p->detected = detect(device, extensions);

  Strategy wanted = fromChoice(config().STRATEGY, p->detected);
  if (wanted == Strategy::Native && p->detected != Strategy::Native) {
    ISG_LOG_WARNING("ISG_STRATEGY=native ignored for '"
                    << name << "': it does not report cl_intel_subgroups");
    wanted = p->detected;
  }
  // Hardware strategies compile to that hardware's instructions (inline PTX, khr builtins): on
  // any other device the program could not build, so the request falls back to detection.
  if ((wanted == Strategy::NvidiaPtx || wanted == Strategy::Khr) && p->detected != wanted) {
    ISG_LOG_WARNING("ISG_STRATEGY=" << strategyName(wanted) << " ignored for '" << name
                                    << "': the device does not qualify for it");
    wanted = p->detected;
  }
  if (wanted != Strategy::Native && p->detected == Strategy::Native)
    ISG_LOG_INFO("'" << name << "' reports cl_intel_subgroups; emulating anyway as ISG_STRATEGY="
                     << strategyName(wanted) << " asks");
  p->strategy = wanted;
  if (!isImplemented(p->strategy)) {
    ISG_LOG_INFO("'" << name << "': strategy " << strategyName(p->strategy)
                     << " has no builtins library yet; using local");
    p->strategy = Strategy::Local;
  }
  applyStrategy(p->strategy, &p->traits);
  if (!p->isNative()) applySubGroupSizeControl(&p->traits, name);

  DeviceTraits& t = p->traits;
  t.fp16 = hasExtension(extensions, "cl_khr_fp16");
  t.fp64 = hasExtension(extensions, "cl_khr_fp64");
  cl_bool images = CL_FALSE;
  t.images = deviceValue(device, CL_DEVICE_IMAGE_SUPPORT, &images) == CL_SUCCESS && images;
  t.openclCVersion = 120;
  if (deviceString(device, CL_DEVICE_OPENCL_C_VERSION, &cVersion) == CL_SUCCESS)
    t.openclCVersion = parseOpenclCVersion(cVersion);
  std::vector<cl_name_version> allC;
  if (deviceArray(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &allC) == CL_SUCCESS) {
    for (const cl_name_version& v : allC)
      t.openclCVersion = std::max<unsigned>(
          t.openclCVersion, CL_VERSION_MAJOR(v.version) * 100 + CL_VERSION_MINOR(v.version) * 10);
  }

  deviceValue(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, &p->maxWorkGroupSize);
  deviceArray(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, &p->maxWorkItemSizes);
  deviceValue(device, CL_DEVICE_LOCAL_MEM_SIZE, &p->localMemSize);
  ISG_LOG_INFO("'" << name << "': strategy " << strategyName(p->strategy) << " (detected "
                   << strategyName(p->detected) << "), default sub-group size "
                   << t.defaultSubGroupSize);
  return p;
}

struct ProfileCache {
  std::mutex mutex;
  std::map<cl_device_id, std::unique_ptr<DeviceProfile>> profiles;
};

// Never destroyed: profiles are handed out as plain pointers for the life of the process.
ProfileCache& cache() {
  static ProfileCache* c = new ProfileCache;
  return *c;
}

}  // namespace

unsigned DeviceProfile::smallestSubGroupSize() const {
  const auto& sizes = traits.supportedSubGroupSizes;
  return sizes.empty() ? 1 : *std::min_element(sizes.begin(), sizes.end());
}

const DeviceProfile* DeviceStrategy::of(cl_device_id device) {
  ProfileCache& c = cache();
  {
    std::lock_guard<std::mutex> lock(c.mutex);
    auto it = c.profiles.find(device);
    if (it != c.profiles.end()) return it->second.get();
  }
  // Detection talks to the driver; it runs outside the lock, and the first result wins.
  std::unique_ptr<DeviceProfile> fresh = profile(device);
  if (!fresh) return nullptr;
  std::lock_guard<std::mutex> lock(c.mutex);
  auto& slot = c.profiles[device];
  if (!slot) slot = std::move(fresh);
  return slot.get();
}

DeviceTraits DeviceStrategy::traitsForBuild(const std::vector<cl_device_id>& devices,
                                            bool* allNative) {
  *allNative = true;
  std::vector<const DeviceProfile*> profiles;
  for (cl_device_id d : devices) {
    const DeviceProfile* p = of(d);
    if (!p) continue;
    profiles.push_back(p);
    if (!p->isNative()) *allNative = false;
  }
  if (profiles.empty()) return DeviceTraits{};
  DeviceTraits traits = profiles.front()->traits;
  bool mixed = false;
  for (const DeviceProfile* p : profiles) {
    mixed = mixed || p->strategy != profiles.front()->strategy;
    traits.fp16 = traits.fp16 && p->traits.fp16;
    traits.fp64 = traits.fp64 && p->traits.fp64;
    traits.images = traits.images && p->traits.images;
    traits.openclCVersion = std::min(traits.openclCVersion, p->traits.openclCVersion);
  }
  if (mixed || traits.strategy == Strategy::Native) {
    if (mixed)
      ISG_LOG_INFO(
          "the devices of one build use different strategies; rewriting for local, "
          "which works on all of them");
    applyStrategy(Strategy::Local, &traits);
    applySubGroupSizeControl(&traits, "the build's devices");
  }
  return traits;
}

}  // namespace isg
