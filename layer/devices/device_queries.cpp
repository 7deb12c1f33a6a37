// SPDX-License-Identifier: MIT
// clGetDeviceInfo: a device the layer emulates on reports the Intel extensions and the
// sub-group limits the emulation gives it.
#include <CL/cl_ext.h>

#include <string>
#include <utility>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "core/param_util.h"
#include "devices/device_strategy.h"
#include "devices/presentation.h"

// The advertised extensions come from the builtins table, not from a list of our own.
#include "builtin_table.h"

namespace isg {
namespace {

// ISG_PRESENT_AS_INTEL: what Intel's own drivers answer for the vendor; the name keeps the
// driver's after the prefix, so that people still see which device it is.
constexpr const char* kIntelNamePrefix = "Intel(R) sub-group layer: ";
constexpr const char* kIntelVendor = "Intel(R) Corporation";

constexpr unsigned kSpirvMaxMinor = (kSpirvReadMax >> 8) & 0xff;

bool containsWord(const std::string& list, const std::string& word) {
  size_t pos = 0;
  while ((pos = list.find(word, pos)) != std::string::npos) {
    bool startOk = pos == 0 || list[pos - 1] == ' ';
    bool endOk = pos + word.size() == list.size() || list[pos + word.size()] == ' ';
    if (startOk && endOk) return true;
    pos += word.size();
  }
  return false;
}

// The extensions the layer adds to the driver's on `profile`'s device, with their versions.
std::vector<std::pair<std::string, cl_version>> addedExtensions(const DeviceProfile& profile) {
  std::vector<std::pair<std::string, cl_version>> out;
  for (const table::Extension& e : table::extensions())
    if (e.offeredTo(profile.traits.images, profile.buildsSpirv, profile.traits.openclCVersion,
                    factsOf(profile.traits.strategy).activeSet))
      out.emplace_back(e.name, CL_MAKE_VERSION(e.major, e.minor, e.patch));
  for (const LayerExtension& e : layerExtensions())
    if (profile.*e.offered) out.emplace_back(e.name, e.version);
  if (profile.intelAttributes)
    out.emplace_back("cl_intel_device_attribute_query", CL_MAKE_VERSION(1, 0, 0));
  return out;
}

// Keeps the driver's convention: if its list ends with a space, so does ours.
std::string extendedExtensionString(const std::string& driver, const DeviceProfile& profile) {
  std::string out = driver;
  const bool trailingSpace = !out.empty() && out.back() == ' ';
  for (const auto& [name, version] : addedExtensions(profile)) {
    if (containsWord(out, name)) continue;
    if (!out.empty() && out.back() != ' ') out += ' ';
    out += name;
    if (trailingSpace) out += ' ';
  }
  return out;
}

cl_int answerExtensions(cl_device_id device, const DeviceProfile& profile, size_t size,
                        void* value, size_t* size_ret) {
  std::string driver;
  cl_int err = deviceString(device, CL_DEVICE_EXTENSIONS, &driver);
  if (err != CL_SUCCESS) return err;
  return writeString(size, value, size_ret, extendedExtensionString(driver, profile));
}

// Adds `name` at `version` to a driver's name-version list, unless the driver has it already.
void addNameVersion(std::vector<cl_name_version>* list, const std::string& name, cl_version version) {
  for (const cl_name_version& v : *list)
    if (std::string(v.name) == name) return;
  cl_name_version entry{};
  entry.version = version;
  std::snprintf(entry.name, sizeof entry.name, "%s", name.c_str());
  list->push_back(entry);
}

cl_int answerExtensionsWithVersion(cl_device_id device, const DeviceProfile& profile,
                                   size_t size, void* value, size_t* size_ret) {
  std::vector<cl_name_version> list;
  cl_int err = deviceArray(device, CL_DEVICE_EXTENSIONS_WITH_VERSION, &list);
  if (err != CL_SUCCESS) return err;  // an OpenCL 1.x device does not know the query
  for (const auto& [name, version] : addedExtensions(profile)) addNameVersion(&list, name, version);
  return writeArray(size, value, size_ret, list);
}

// OpenCL C 3.0 devices list the feature macros of the extensions the layer adds
// (cl_khr_integer_dot_product's two input features) and the features it adds itself
// (__opencl_c_subgroups: builtins.def says why not cl_khr_subgroups).
cl_int answerOpenclCFeatures(cl_device_id device, const DeviceProfile& profile, size_t size,
                             void* value, size_t* size_ret) {
  std::vector<cl_name_version> list;
  cl_int err = deviceArray(device, CL_DEVICE_OPENCL_C_FEATURES, &list);
  if (err != CL_SUCCESS) return err;
  for (const auto& [name, version] : addedExtensions(profile))
    for (const std::string& feature : openclCFeaturesOf(name)) addNameVersion(&list, feature, CL_MAKE_VERSION(3, 0, 0));
  if (table::featuresOfferedTo(profile.traits.openclCVersion))
    for (const std::string& feature : table::features()) addNameVersion(&list, feature, CL_MAKE_VERSION(3, 0, 0));
  return writeArray(size, value, size_ret, list);
}

}  // namespace

cl_int CL_API_CALL clGetDeviceInfo_layer(cl_device_id device, cl_device_info param_name,
                                         size_t param_value_size, void* param_value,
                                         size_t* param_value_size_ret) {
  return guardedEntry("clGetDeviceInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetDeviceInfo);
    if (const cl_int wrong = notAProgramOrKernel(device, CL_INVALID_DEVICE)) return wrong;
    auto forward = [&] {
      return next().clGetDeviceInfo(device, param_name, param_value_size, param_value,
                                    param_value_size_ret);
    };
    const DeviceProfile* profile = DeviceStrategy::of(device);
    if (!profile || profile->isNative()) return forward();
    cl_int answered = CL_SUCCESS;
    if (profile->intelAttributes && intelAttribute(device, param_name, param_value_size,
                                                   param_value, param_value_size_ret, &answered))
      return answered;
    switch (param_name) {
      // ISG_PRESENT_AS_GPU: a CPU device standing in for a GPU.
      case CL_DEVICE_TYPE: {
        if (!profile->presentedAsGpu) return forward();
        cl_device_type type = 0;
        if (cl_int err = deviceValue(device, CL_DEVICE_TYPE, &type)) return err;
        return writeValue(param_value_size, param_value, param_value_size_ret,
                          presentedType(*profile, type));
      }
      case CL_DEVICE_EXTENSIONS:
        return answerExtensions(device, *profile, param_value_size, param_value,
                                param_value_size_ret);
      case CL_DEVICE_EXTENSIONS_WITH_VERSION:
        return answerExtensionsWithVersion(device, *profile, param_value_size, param_value,
                                           param_value_size_ret);
      // Programs from SPIR-V (docs/spirv.md): the versions the layer reads, whatever the driver's.
      case CL_DEVICE_IL_VERSION: {
        if (!profile->buildsSpirv) return forward();
        std::string list;
        for (unsigned minor = 0; minor <= kSpirvMaxMinor; ++minor)
          list += (minor ? " SPIR-V_1." : "SPIR-V_1.") + std::to_string(minor);
        return writeString(param_value_size, param_value, param_value_size_ret, list);
      }
      case CL_DEVICE_ILS_WITH_VERSION: {
        if (!profile->buildsSpirv) return forward();
        std::vector<cl_name_version> list;
        for (unsigned minor = 0; minor <= kSpirvMaxMinor; ++minor) {
          cl_name_version v{};
          v.version = CL_MAKE_VERSION(1, minor, 0);
          std::snprintf(v.name, sizeof v.name, "SPIR-V");
          list.push_back(v);
        }
        return writeArray(param_value_size, param_value, param_value_size_ret, list);
      }
      // cl_khr_fp16 through the layer's front end: half computes in float rounded once to
      // half (round to nearest even, infinities and NaNs), one lane per vector element.
      case CL_DEVICE_HALF_FP_CONFIG:
        if (!profile->layerFp16) return forward();
        return writeValue(param_value_size, param_value, param_value_size_ret,
                          cl_device_fp_config{CL_FP_ROUND_TO_NEAREST | CL_FP_INF_NAN});
      case CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF:
      case CL_DEVICE_NATIVE_VECTOR_WIDTH_HALF:
        if (!profile->layerFp16) return forward();
        return writeValue(param_value_size, param_value, param_value_size_ret, cl_uint{1});
      case CL_DEVICE_OPENCL_C_FEATURES:
        return answerOpenclCFeatures(device, *profile, param_value_size, param_value,
                                     param_value_size_ret);
      // cl_khr_integer_dot_product through the layer's front end: both input forms, each a dp4a
      // (signed, unsigned and mixed); the saturating accumulation adds an add_sat.
      case CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR:
        if (!profile->layerIntegerDot) return forward();
        return writeValue(param_value_size, param_value, param_value_size_ret,
                          cl_device_integer_dot_product_capabilities_khr{
                              CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR |
                              CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR});
      case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR:
      case CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR: {
        if (!profile->layerIntegerDot) return forward();
        cl_device_integer_dot_product_acceleration_properties_khr p{};
        p.signed_accelerated = p.unsigned_accelerated = p.mixed_signedness_accelerated = CL_TRUE;
        return writeValue(param_value_size, param_value, param_value_size_ret, p);
      }
      case CL_DEVICE_SUB_GROUP_SIZES_INTEL: {
        std::vector<size_t> sizes(profile->traits.supportedSubGroupSizes.begin(),
                                  profile->traits.supportedSubGroupSizes.end());
        return writeArray(param_value_size, param_value, param_value_size_ret, sizes);
      }
      case CL_DEVICE_MAX_NUM_SUB_GROUPS: {
        size_t smallest = profile->smallestSubGroupSize();
        cl_uint count = static_cast<cl_uint>((profile->maxWorkGroupSize + smallest - 1) / smallest);
        return writeValue(param_value_size, param_value, param_value_size_ret, count);
      }
      // ISG_PRESENT_AS_INTEL: the strings applications choose their Intel code paths by.
      case CL_DEVICE_NAME: {
        if (!config().PRESENT_AS_INTEL) return forward();
        std::string name;
        if (cl_int err = deviceString(device, CL_DEVICE_NAME, &name)) return err;
        return writeString(param_value_size, param_value, param_value_size_ret,
                           kIntelNamePrefix + name);
      }
      case CL_DEVICE_VENDOR:
        if (!config().PRESENT_AS_INTEL) return forward();
        return writeString(param_value_size, param_value, param_value_size_ret,
                           std::string(kIntelVendor));
      case CL_DEVICE_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS: {
        // Local-memory exchanges need every work-item of the group at each barrier.
        cl_bool independent = CL_FALSE;
        return writeValue(param_value_size, param_value, param_value_size_ret, independent);
      }
      default:
        return forward();
    }
  });
}

}  // namespace isg
