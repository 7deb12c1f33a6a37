// SPDX-License-Identifier: MIT
// clGetKernelSubGroupInfo(KHR) answered from the kernel's manifest (or the device default for
// kernels that use no builtin), and the extension-address hooks that hand out the KHR entry.
#include <CL/cl_ext.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "core/param_util.h"
#include "devices/device_strategy.h"
#include "launch/kernel_records.h"

namespace isg {
namespace {

size_t ceilDiv(size_t a, size_t b) { return b ? (a + b - 1) / b : 0; }

enum class SubGroupEntry { Core, Khr };

cl_int kernelSubGroupInfo(SubGroupEntry entry, cl_kernel kernel, cl_device_id device,
                          cl_kernel_sub_group_info param_name, size_t input_value_size,
                          const void* input_value, size_t param_value_size, void* param_value,
                          size_t* param_value_size_ret) {
  auto forward = [&]() -> cl_int {
    auto fn = entry == SubGroupEntry::Core ? next().clGetKernelSubGroupInfo
                                           : next().clGetKernelSubGroupInfoKHR;
    if (!fn) return CL_INVALID_OPERATION;
    return fn(kernel, device, param_name, input_value_size, input_value, param_value_size,
              param_value, param_value_size_ret);
  };

  cl_context context = nullptr;
  if (kernelValue(kernel, CL_KERNEL_CONTEXT, &context) != CL_SUCCESS) return CL_INVALID_KERNEL;
  std::vector<cl_device_id> devices;
  cl_int err = contextDevices(context, &devices);
  if (err != CL_SUCCESS) return err;
  cl_device_id target = device;
  if (!target) {
    if (devices.size() != 1) return CL_INVALID_DEVICE;
    target = devices.front();
  } else if (std::find(devices.begin(), devices.end(), target) == devices.end()) {
    return CL_INVALID_DEVICE;
  }

  std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
  size_t subGroupSize = 0;
  bool required = false, fromLaunch = false;
  if (record) {
    subGroupSize = record->manifest.subGroupSize;
    required = record->manifest.requiredSubGroupSize;
    fromLaunch = record->manifest.launchSubGroupSize;
  } else {
    const DeviceProfile* profile = DeviceStrategy::of(target);
    if (!profile || profile->isNative()) return forward();
    subGroupSize = profile->traits.defaultSubGroupSize;  // a pass-through kernel
  }
  subGroupSize = std::max<size_t>(subGroupSize, 1);
  const unsigned defaultS = static_cast<unsigned>(subGroupSize);  // a launch kernel's manifest S

  // The work-group size the layer answers (its PTX's .maxntid, where NVIDIA's driver says 256),
  // so that the counts agree with it.
  size_t kernelWorkGroupSize = 0;
  err = clGetKernelWorkGroupInfo_layer(kernel, target, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernelWorkGroupSize,
                                       &kernelWorkGroupSize, nullptr);
  if (err != CL_SUCCESS) return err;

  auto ndrangeItems = [&](size_t* items) -> bool {
    if (!input_value || input_value_size == 0 || input_value_size % sizeof(size_t) != 0 ||
        input_value_size / sizeof(size_t) > 3)
      return false;
    const size_t* local = static_cast<const size_t*>(input_value);
    *items = 1;
    for (size_t d = 0; d < input_value_size / sizeof(size_t); ++d) *items *= local[d];
    if (fromLaunch) subGroupSize = launchSubGroupSize(local[0], defaultS);  // that launch's sub-groups
    return true;
  };
  // Kernels whose S follows the launch: the most sub-groups come from the smallest S.
  const size_t smallestS = fromLaunch ? launchSubGroupSize(8, defaultS) : subGroupSize;

  switch (param_name) {
    case CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE: {
      size_t items = 0;
      if (!ndrangeItems(&items)) return CL_INVALID_VALUE;
      return writeValue(param_value_size, param_value, param_value_size_ret, subGroupSize);
    }
    case CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE: {
      size_t items = 0;
      if (!ndrangeItems(&items)) return CL_INVALID_VALUE;
      return writeValue(param_value_size, param_value, param_value_size_ret,
                        ceilDiv(items, subGroupSize));
    }
    case CL_KERNEL_LOCAL_SIZE_FOR_SUB_GROUP_COUNT: {
      if (!input_value || input_value_size != sizeof(size_t)) return CL_INVALID_VALUE;
      size_t count = 0;
      std::memcpy(&count, input_value, sizeof count);
      // The number of dimensions is what the application made room for.
      size_t dims = param_value_size / sizeof(size_t);
      if (dims == 0) {
        if (param_value) return CL_INVALID_VALUE;
        dims = 3;  // a size query without room: report the usual three dimensions
      }
      std::vector<size_t> local(dims, 0);
      const size_t items = count * subGroupSize;
      if (count != 0 && count <= kernelWorkGroupSize / subGroupSize &&
          items <= kernelWorkGroupSize) {
        local.assign(dims, 1);
        local[0] = items;
      }
      return writeArray(param_value_size, param_value, param_value_size_ret, local);
    }
    case CL_KERNEL_MAX_NUM_SUB_GROUPS:
      return writeValue(param_value_size, param_value, param_value_size_ret,
                        ceilDiv(kernelWorkGroupSize, smallestS));
    case CL_KERNEL_COMPILE_NUM_SUB_GROUPS:
      return writeValue(param_value_size, param_value, param_value_size_ret, size_t{0});
    case CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL:
      return writeValue(param_value_size, param_value, param_value_size_ret,
                        required ? subGroupSize : size_t{0});
    default:
      return CL_INVALID_VALUE;
  }
}

}  // namespace

cl_int CL_API_CALL clGetKernelSubGroupInfo_layer(cl_kernel kernel, cl_device_id device,
                                                 cl_kernel_sub_group_info param_name,
                                                 size_t input_value_size, const void* input_value,
                                                 size_t param_value_size, void* param_value,
                                                 size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelSubGroupInfo", [&]() -> cl_int {
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    if (const cl_int wrong = notAProgramOrKernel(device, CL_INVALID_DEVICE)) return wrong;
    return kernelSubGroupInfo(SubGroupEntry::Core, kernel, device, param_name, input_value_size,
                              input_value, param_value_size, param_value, param_value_size_ret);
  });
}

cl_int CL_API_CALL clGetKernelSubGroupInfoKHR_layer(cl_kernel kernel, cl_device_id device,
                                                    cl_kernel_sub_group_info param_name,
                                                    size_t input_value_size,
                                                    const void* input_value,
                                                    size_t param_value_size, void* param_value,
                                                    size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelSubGroupInfoKHR", [&]() -> cl_int {
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    if (const cl_int wrong = notAProgramOrKernel(device, CL_INVALID_DEVICE)) return wrong;
    return kernelSubGroupInfo(SubGroupEntry::Khr, kernel, device, param_name, input_value_size,
                              input_value, param_value_size, param_value, param_value_size_ret);
  });
}

namespace {

// Extension functions the layer provides itself, whatever the driver has.
void* layerExtensionFunction(const char* name) {
  if (name && std::strcmp(name, "clGetKernelSubGroupInfoKHR") == 0)
    return reinterpret_cast<void*>(&clGetKernelSubGroupInfoKHR_layer);
  return nullptr;
}

}  // namespace

void* CL_API_CALL clGetExtensionFunctionAddressForPlatform_layer(cl_platform_id platform,
                                                                 const char* func_name) {
  try {
    if (void* own = layerExtensionFunction(func_name)) return own;
    if (!next().clGetExtensionFunctionAddressForPlatform) return nullptr;
    void* driver = next().clGetExtensionFunctionAddressForPlatform(platform, func_name);
    if (void* own = ilExtensionFunction(func_name, driver != nullptr, platform)) return own;
    return driver;
  } catch (...) {
    return nullptr;
  }
}

void* CL_API_CALL clGetExtensionFunctionAddress_layer(const char* func_name) {
  try {
    if (void* own = layerExtensionFunction(func_name)) return own;
    if (!next().clGetExtensionFunctionAddress) return nullptr;
    void* driver = next().clGetExtensionFunctionAddress(func_name);
    if (void* own = ilExtensionFunction(func_name, driver != nullptr, nullptr)) return own;
    return driver;
  } catch (...) {
    return nullptr;
  }
}

}  // namespace isg
