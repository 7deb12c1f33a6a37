// SPDX-License-Identifier: MIT
#include "devices/device_strategy.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <cstring>
#include <sstream>
#include <string>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "devices/device_probes.h"
#include "devices/presentation.h"
#include "isg/rewriter_library.h"

namespace isg {
namespace {

// The names of a space-separated extension string.
std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string word; in >> word;) out.push_back(std::move(word));
  return out;
}

bool hasExtension(const std::string& extensions, const char* name) {
  const std::vector<std::string> names = words(extensions);
  return std::find(names.begin(), names.end(), name) != names.end();
}

// "OpenCL C 1.2 PoCL" -> 120
unsigned parseOpenclCVersion(const std::string& text) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "OpenCL C %u.%u", &major, &minor) != 2) return 120;
  return major * 100 + minor * 10;
}

// "OpenCL 3.0 CUDA" -> 300, the value drivers give __OPENCL_VERSION__.
unsigned parseOpenclVersion(const std::string& text) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(text.c_str(), "OpenCL %u.%u", &major, &minor) != 2) return 0;
  return major * 100 + minor * 10;
}

// The names both lists hold, in `a`'s order.
std::vector<std::string> common(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const std::string& s : a)
    if (std::find(b.begin(), b.end(), s) != b.end()) out.push_back(s);
  return out;
}

// The khr builtins the khr strategy compiles to. Intel's drivers have them beside their native
// cl_intel_subgroups, so ISG_STRATEGY=khr can run there on a real khr implementation.
bool hasKhrShuffles(cl_device_id device, const std::string& extensions) {
  return (hasExtension(extensions, "cl_khr_subgroups") ||
          hasOpenclCFeature(device, "__opencl_c_subgroups")) &&
         hasExtension(extensions, "cl_khr_subgroup_shuffle") &&
         hasExtension(extensions, "cl_khr_subgroup_shuffle_relative");
}

// *nvidiaCc: the compute capability (major * 10 + minor) of an NVIDIA device it read, else 0.
Strategy detect(cl_device_id device, const std::string& extensions, unsigned* nvidiaCc) {
  *nvidiaCc = 0;
  if (hasExtension(extensions, "cl_intel_subgroups")) return Strategy::Native;
  cl_uint vendor = 0, warp = 0, ccMajor = 0, ccMinor = 0;
  if (deviceValue(device, CL_DEVICE_VENDOR_ID, &vendor) == CL_SUCCESS && vendor == 0x10de &&
      hasExtension(extensions, "cl_nv_device_attribute_query") &&
      deviceValue(device, CL_DEVICE_WARP_SIZE_NV, &warp) == CL_SUCCESS && warp == 32 &&
      deviceValue(device, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, &ccMajor) == CL_SUCCESS &&
      deviceValue(device, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, &ccMinor) == CL_SUCCESS) {
    *nvidiaCc = ccMajor * 10 + ccMinor;
    if (*nvidiaCc >= 70) return Strategy::NvidiaPtx;  // shfl.sync
  }
  if (hasKhrShuffles(device, extensions)) return Strategy::Khr;
  return Strategy::Local;
}

bool isPowerOfTwo(size_t v) { return v != 0 && (v & (v - 1)) == 0; }

// The CTAs one SM holds at once, by compute capability (NVIDIA's CUDA occupancy tables: "maximum
// number of resident blocks per SM"); 16, the fewest from sm_70 on, for one not listed.
unsigned ctasPerSm(unsigned cc) {
  switch (cc) {
    case 70: case 72: case 80: case 90: return 32;
    case 89: return 24;
    default: return 16;  // 75, 86, 87 and the unknown
  }
}

Strategy fromChoice(StrategyChoice choice, Strategy detected) {
  return choice == StrategyChoice::Auto ? detected : forcedStrategy(choice);
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

// Controls the user set that this device's strategy does not use: a word instead of silence.
void noteControlsThatDoNotApply(const DeviceProfile& p, const std::string& name) {
  const Config& c = config();
  if (c.isNamed("ISG_NVIDIA_FRONTEND") && (p.detected != Strategy::NvidiaPtx || p.isNative()))
    ISG_LOG_WARNING("'" << name << "': ISG_NVIDIA_FRONTEND does not apply: it chooses the compiler of "
                    << "programs the layer rewrites for NVIDIA devices, and the layer "
                    << (p.isNative() ? "passes this device's programs through" : "serves this one with strategy ")
                    << (p.isNative() ? "" : strategyName(p.strategy)));
  if (c.isNamed("ISG_SUB_GROUP_SIZE_FROM_LAUNCH") && c.SUB_GROUP_SIZE_FROM_LAUNCH) {
    if (p.isNative())
      ISG_LOG_WARNING("'" << name << "': ISG_SUB_GROUP_SIZE_FROM_LAUNCH does not apply: the driver has "
                      << "Intel's sub-groups and picks their size itself");
    else if (c.SUB_GROUP_SIZE != 0)
      ISG_LOG_WARNING("'" << name << "': ISG_SUB_GROUP_SIZE_FROM_LAUNCH does not apply: ISG_SUB_GROUP_SIZE="
                      << c.SUB_GROUP_SIZE << " names every kernel's sub-group size");
    else if (!factsOf(p.strategy).launchSubGroupSize)
      ISG_LOG_WARNING("'" << name << "': ISG_SUB_GROUP_SIZE_FROM_LAUNCH applies to kernels with "
                      << "reqd_work_group_size only: strategy " << strategyName(p.strategy)
                      << " cannot take the size from each launch");
  }
}

std::unique_ptr<DeviceProfile> profile(cl_device_id device) {
  std::string extensions, cVersion, name;
  if (deviceString(device, CL_DEVICE_EXTENSIONS, &extensions) != CL_SUCCESS) return nullptr;
  deviceString(device, CL_DEVICE_NAME, &name);
  auto p = std::make_unique<DeviceProfile>();
  unsigned nvidiaCc = 0;
  p->detected = detect(device, extensions, &nvidiaCc);

  Strategy wanted = fromChoice(config().STRATEGY, p->detected);
  // The khr test double stands in for the driver's khr builtins, so any device qualifies.
  const unsigned testNative = config().KHR_TEST_NATIVE_SIZE;
  bool khrTestDouble = false;
  if (testNative != 0) {
    if (wanted != Strategy::Khr)
      ISG_LOG_WARNING("ISG_KHR_TEST_NATIVE_SIZE is used only with ISG_STRATEGY=khr; ignored for '"
                      << name << "'");
    else if (!isPowerOfTwo(testNative) || testNative > 1024)
      ISG_LOG_WARNING("ISG_KHR_TEST_NATIVE_SIZE=" << testNative
                                                  << " is not a power of two up to 1024; ignored");
    else
      khrTestDouble = true;
  }
  if (wanted == Strategy::Native && p->detected != Strategy::Native) {
    ISG_LOG_WARNING("ISG_STRATEGY=native ignored for '"
                    << name << "': it does not report cl_intel_subgroups; using "
                    << strategyName(p->detected) << " instead");
    wanted = p->detected;
  }
  // Hardware strategies compile to that hardware's instructions (inline PTX, khr builtins): on
  // any other device the program could not build, so the request falls back to detection.
  const bool qualifies = p->detected == wanted || khrTestDouble ||
                         (wanted == Strategy::Khr && hasKhrShuffles(device, extensions));
  if ((wanted == Strategy::NvidiaPtx || wanted == Strategy::Khr) && !qualifies) {
    ISG_LOG_WARNING("ISG_STRATEGY=" << strategyName(wanted) << " ignored for '" << name
                                    << "': the device does not qualify for it; using "
                                    << strategyName(p->detected) << " instead");
    wanted = p->detected;
  }
  if (wanted != Strategy::Native && p->detected == Strategy::Native)
    ISG_LOG_INFO("'" << name << "' reports cl_intel_subgroups; emulating anyway as ISG_STRATEGY="
                     << strategyName(wanted) << " asks");
  // Every strategy but native rewrites, which needs the rewriter library: without it the device
  // is left to its driver rather than offered builtins whose programs would all fail.
  if (wanted != Strategy::Native) {
    std::string why;
    if (!rewriterInstalled(&why)) {
      ISG_LOG_WARNING("'" << name << "' is left to its driver: " << why);
      wanted = Strategy::Native;
    }
  }
  p->strategy = wanted;
  if (p->strategy == Strategy::Khr) {
    if (khrTestDouble) {
      p->traits.khrTestDouble = true;
      p->traits.khrTestMinimal = config().KHR_TEST_MINIMAL;
      p->traits.nativeSubGroupSize = testNative;
      ISG_LOG_INFO("'" << name << "': khr test double with native sub-group size " << testNative
                       << (p->traits.khrTestMinimal ? " (minimal: no clustered reduce, no extended types)" : ""));
    } else {
      const KhrProbe probe = probeKhrDriver(device, hasExtension(extensions, "cl_khr_subgroups"), name);
      const unsigned n = probe.nativeSize;
      if (!isPowerOfTwo(n)) {
        ISG_LOG_INFO("'" << name << "': native sub-group size " << n
                         << " unknown or not a power of two; using local instead of khr");
        p->strategy = Strategy::Local;
      } else {
        p->traits.nativeSubGroupSize = n;
        p->khrRowSubGroups = probe.rowSubGroups;
        if (p->khrRowSubGroups)
          ISG_LOG_INFO("'" << name << "': the driver makes sub-groups per row of a work-group; "
                           "multi-dimensional work-groups need rows of a multiple of " << n);
      }
    }
  }
  applyStrategyDefaults(p->strategy, p->traits.nativeSubGroupSize, &p->traits);
  if (!p->isNative()) applySubGroupSizeControl(&p->traits, name);
  if (p->strategy == Strategy::NvidiaPtx) {
    p->traits.nvidiaComputeCapability = nvidiaCc;
    cl_uint sms = 0;
    if (deviceValue(device, CL_DEVICE_MAX_COMPUTE_UNITS, &sms) == CL_SUCCESS) {
      p->sms = sms;
      p->ctasPerSm = ctasPerSm(nvidiaCc);
    }
  }
  // A size the user named is every such kernel's: the rows decide only where none is named.
  p->traits.subGroupSizeFromLaunch =
      !p->isNative() && config().SUB_GROUP_SIZE_FROM_LAUNCH && config().SUB_GROUP_SIZE == 0;
  p->traits.refuseDivergent = config().REFUSE_DIVERGENT;
  p->traits.lockStep = config().LOCK_STEP;
  noteControlsThatDoNotApply(*p, name);

  DeviceTraits& t = p->traits;
  t.fp16 = hasExtension(extensions, "cl_khr_fp16");
  t.fp64 = hasExtension(extensions, "cl_khr_fp64");
  cl_bool images = CL_FALSE;
  t.images = deviceValue(device, CL_DEVICE_IMAGE_SUPPORT, &images) == CL_SUCCESS && images;
  cl_uint readWriteImages = 0;
  t.readWriteImages = t.images &&
                      deviceValue(device, CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS, &readWriteImages) ==
                          CL_SUCCESS &&
                      readWriteImages > 0 && !config().EMULATE_READ_WRITE_IMAGES;
  t.openclCVersion = 120;
  if (deviceString(device, CL_DEVICE_OPENCL_C_VERSION, &cVersion) == CL_SUCCESS)
    t.openclCVersion = parseOpenclCVersion(cVersion);
  // OpenCL C 2.x makes the work-group collective functions core; 3.0 makes them a feature.
  auto isTwo = [](unsigned c) { return c >= 200 && c < 300; };
  t.workGroupCollectives = isTwo(t.openclCVersion);
  std::vector<cl_name_version> allC;
  if (deviceArray(device, CL_DEVICE_OPENCL_C_ALL_VERSIONS, &allC) == CL_SUCCESS) {
    for (const cl_name_version& v : allC) {
      const unsigned c = CL_VERSION_MAJOR(v.version) * 100 + CL_VERSION_MINOR(v.version) * 10;
      t.openclCVersion = std::max(t.openclCVersion, c);
      t.workGroupCollectives = t.workGroupCollectives || isTwo(c);
    }
  }

  // The driver's own predefines for this device (the rewriter parses as the driver will).
  std::string version;
  if (deviceString(device, CL_DEVICE_VERSION, &version) == CL_SUCCESS)
    t.deviceOpenclVersion = parseOpenclVersion(version);
  t.deviceExtensions = words(extensions);
  std::vector<cl_name_version> features;
  if (deviceArray(device, CL_DEVICE_OPENCL_C_FEATURES, &features) == CL_SUCCESS)
    for (const cl_name_version& f : features)
      t.openclCFeatures.emplace_back(f.name, strnlen(f.name, CL_NAME_VERSION_MAX_NAME_SIZE));
  t.workGroupCollectives =
      t.workGroupCollectives ||
      std::find(t.openclCFeatures.begin(), t.openclCFeatures.end(),
                "__opencl_c_work_group_collective_functions") != t.openclCFeatures.end();

  p->nvidiaCompilerOptions =
      p->detected == Strategy::NvidiaPtx && hasExtension(extensions, "cl_nv_compiler_options");
  t.alignLocalArgs = p->detected == Strategy::NvidiaPtx;
  // "SPIR-V_1.0 SPIR-V_1.2": the highest minor version listed.
  std::string ilVersion;
  if (deviceString(device, CL_DEVICE_IL_VERSION, &ilVersion) == CL_SUCCESS)
    for (std::size_t at = 0; (at = ilVersion.find("SPIR-V_1.", at)) != std::string::npos;) {
      at += 9;
      unsigned minor = unsigned(std::strtoul(ilVersion.c_str() + at, nullptr, 10));
      p->driverSpirvMax = std::max(p->driverSpirvMax, 0x00010000u | (minor << 8));
    }
  p->spirBitcode = hasExtension(extensions, "cl_khr_spir");
  p->spirvAsPtx = p->driverSpirvMax == 0 && !p->spirBitcode && p->detected == Strategy::NvidiaPtx;
  if (p->strategy != Strategy::Native && (p->driverSpirvMax != 0 || p->spirBitcode || p->spirvAsPtx)) {
    std::string why;
    // Whether the bridge is installed, not loaded: only a program from SPIR-V loads it.
    p->buildsSpirv = spirvInstalled("", &why) && (!p->spirvAsPtx || ptxAvailable(&why));
    if (!p->buildsSpirv) {
      ISG_LOG_INFO("'" << name << "': programs from SPIR-V cannot be built: " << why);
      p->spirvUnavailable = why;
    }
  }

  if (p->detected == Strategy::NvidiaPtx && p->strategy != Strategy::Native) {
    std::string why;
    p->layerFrontEnd = ptxAvailable(&why);
    if (!p->layerFrontEnd) ISG_LOG_INFO("'" << name << "': the layer's OpenCL C front end is unavailable: " << why);
    // Programs that use these build through the front end (build_plan.cpp, needsLayerFrontEnd),
    // which NVIDIA_FRONTEND=driver turns off.
    for (const LayerExtension& e : layerExtensions())
      (*p).*e.offered = p->layerFrontEnd && config().NVIDIA_FRONTEND != FrontEndChoice::Driver &&
                      !hasExtension(extensions, e.name);
  }

  presentDevice(device, hasExtension(extensions, "cl_intel_device_attribute_query"), p.get());
  deviceValue(device, CL_DEVICE_MAX_WORK_GROUP_SIZE, &p->maxWorkGroupSize);
  deviceArray(device, CL_DEVICE_MAX_WORK_ITEM_SIZES, &p->maxWorkItemSizes);
  deviceValue(device, CL_DEVICE_LOCAL_MEM_SIZE, &p->localMemSize);
  ISG_LOG_INFO("'" << name << "': strategy " << strategyName(p->strategy) << " (detected "
                   << strategyName(p->detected) << "), default sub-group size "
                   << t.defaultSubGroupSize
                   << (p->strategy == Strategy::Khr
                           ? ", native sub-group size " + std::to_string(t.nativeSubGroupSize)
                           : std::string()));
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

const std::vector<LayerExtension>& layerExtensions() {
  static const std::vector<LayerExtension> kExtensions = {
      {"cl_khr_fp16", CL_MAKE_VERSION(1, 0, 0), &DeviceProfile::layerFp16, mayUseHalf, &DeviceTraits::fp16},
      {"cl_khr_integer_dot_product", CL_MAKE_VERSION(2, 0, 0), &DeviceProfile::layerIntegerDot, mayUseIntegerDot,
       nullptr},
  };
  return kExtensions;
}

void offerLayerExtensions(const std::vector<cl_device_id>& devices, DeviceTraits* traits) {
  for (const LayerExtension& e : layerExtensions()) {
    if (!DeviceStrategy::allHave(devices, e.offered)) continue;
    if (e.trait) traits->*e.trait = true;
    traits->deviceExtensions.push_back(e.name);
  }
}

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
    traits.readWriteImages = traits.readWriteImages && p->traits.readWriteImages;
    traits.alignLocalArgs = traits.alignLocalArgs || p->traits.alignLocalArgs;
    traits.openclCVersion = std::min(traits.openclCVersion, p->traits.openclCVersion);
    traits.deviceOpenclVersion = std::min(traits.deviceOpenclVersion, p->traits.deviceOpenclVersion);
    traits.deviceExtensions = common(traits.deviceExtensions, p->traits.deviceExtensions);
    traits.openclCFeatures = common(traits.openclCFeatures, p->traits.openclCFeatures);
    traits.workGroupCollectives = traits.workGroupCollectives && p->traits.workGroupCollectives;
    // Native sizes are powers of two: a size that divides the smallest divides them all.
    traits.nativeSubGroupSize = std::min(traits.nativeSubGroupSize, p->traits.nativeSubGroupSize);
    // One PTX text for all: only instructions every device has.
    traits.nvidiaComputeCapability =
        std::min(traits.nvidiaComputeCapability, p->traits.nvidiaComputeCapability);
  }
  if (mixed || traits.strategy == Strategy::Native) {
    if (mixed)
      ISG_LOG_INFO(
          "the devices of one build use different strategies; rewriting for local, "
          "which works on all of them");
    applyStrategyDefaults(Strategy::Local, 0, &traits);
    applySubGroupSizeControl(&traits, "the build's devices");
  }
  return traits;
}

bool DeviceStrategy::allHave(const std::vector<cl_device_id>& devices, bool DeviceProfile::*fact) {
  if (devices.empty()) return false;
  for (cl_device_id d : devices) {
    const DeviceProfile* p = of(d);
    if (!p || !(p->*fact)) return false;
  }
  return true;
}

bool DeviceStrategy::spirvSupport(const std::vector<cl_device_id>& devices, SpirvSupport* out) {
  for (cl_device_id d : devices) {
    const DeviceProfile* p = of(d);
    if (!p) return false;
    out->served |= !p->isNative();
    out->allIl &= p->driverSpirvMax != 0;
    out->allSpir &= p->spirBitcode;
    out->allPtx &= p->spirvAsPtx && p->buildsSpirv;
    out->allBuild &= p->driverSpirvMax != 0 || p->buildsSpirv;
    if (!p->driverSpirvMax && !p->buildsSpirv && out->why.empty()) out->why = p->spirvUnavailable;
    if (p->driverSpirvMax) out->version = std::min(out->version, p->driverSpirvMax);
  }
  return true;
}

}  // namespace isg
