// SPDX-License-Identifier: MIT
// ISG_PRESENT_AS_GPU (presentation.h): a CPU device the layer serves answers CL_DEVICE_TYPE_GPU,
// and clGetDeviceIDs and clCreateContextFromType find it by that type; where its vendor id is
// Intel's it also answers cl_intel_device_attribute_query as a GPU without systolic arrays, so
// that Intel's libraries take their OpenCL C kernels for it (not their binaries for DPAS).
#include "devices/presentation.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <vector>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "core/param_util.h"
#include "devices/device_strategy.h"

namespace isg {
namespace {

constexpr cl_uint kIntelVendorId = 0x8086;
// Intel's IP version of Xe-LP (Gen12LP: 12.0.0, architecture << 22): the newest architecture
// without DPAS, whose kernels are OpenCL C with sub-groups of 8, 16 or 32.
constexpr cl_version kXeLpIpVersion = 12u << 22;
// Every device type an application may ask clGetDeviceIDs for, besides DEFAULT and ALL.
constexpr cl_device_type kKnownTypes =
    CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_ACCELERATOR | CL_DEVICE_TYPE_CUSTOM;

// The devices of `platform` the application sees for `type`, presentation applied: the
// driver's answer for DEFAULT and ALL, else each device of the driver's whose presented type
// has a bit of `type`.
cl_int presentedDevices(cl_platform_id platform, cl_device_type type,
                        std::vector<cl_device_id>* out) {
  cl_uint count = 0;
  cl_int err = next().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count);
  if (err != CL_SUCCESS) return err;
  std::vector<cl_device_id> all(count);
  if ((err = next().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, all.data(), nullptr)))
    return err;
  for (cl_device_id d : all) {
    cl_device_type driverType = 0;
    if ((err = deviceValue(d, CL_DEVICE_TYPE, &driverType))) return err;
    const DeviceProfile* profile = DeviceStrategy::of(d);
    const cl_device_type shown = profile ? presentedType(*profile, driverType) : driverType;
    if (shown & type) out->push_back(d);
  }
  return out->empty() ? CL_DEVICE_NOT_FOUND : CL_SUCCESS;
}

// Whether a request for `type` may find devices the driver alone would not: the control is on
// and the type names GPU (or CPU, which a presented device no longer answers).
bool presentationDecides(cl_device_type type) {
  return config().PRESENT_AS_GPU && (type & (CL_DEVICE_TYPE_GPU | CL_DEVICE_TYPE_CPU)) &&
         (type & ~kKnownTypes) == 0;
}

}  // namespace

void presentDevice(cl_device_id device, bool driverHasAttributes, DeviceProfile* p) {
  if (!config().PRESENT_AS_GPU || p->isNative()) return;
  cl_device_type type = 0;
  cl_uint vendor = 0;
  p->presentedAsGpu = deviceValue(device, CL_DEVICE_TYPE, &type) == CL_SUCCESS &&
                      (type & CL_DEVICE_TYPE_CPU) != 0;
  p->intelAttributes = p->presentedAsGpu &&
                       deviceValue(device, CL_DEVICE_VENDOR_ID, &vendor) == CL_SUCCESS &&
                       vendor == kIntelVendorId && !driverHasAttributes;
}

cl_device_type presentedType(const DeviceProfile& profile, cl_device_type driverType) {
  if (!profile.presentedAsGpu) return driverType;
  return (driverType & ~cl_device_type{CL_DEVICE_TYPE_CPU}) | CL_DEVICE_TYPE_GPU;
}

bool intelAttribute(cl_device_id device, cl_device_info param, size_t size, void* value,
                    size_t* size_ret, cl_int* err) {
  cl_uint units = 0;
  switch (param) {
    case CL_DEVICE_IP_VERSION_INTEL:
      *err = writeValue(size, value, size_ret, kXeLpIpVersion);
      return true;
    case CL_DEVICE_ID_INTEL:  // no PCI device stands behind it
      *err = writeValue(size, value, size_ret, cl_uint{0});
      return true;
    // The device's compute units as the sub-slices of one slice, one EU of one thread each.
    case CL_DEVICE_NUM_SLICES_INTEL:
    case CL_DEVICE_NUM_EUS_PER_SUB_SLICE_INTEL:
    case CL_DEVICE_NUM_THREADS_PER_EU_INTEL:
      *err = writeValue(size, value, size_ret, cl_uint{1});
      return true;
    case CL_DEVICE_NUM_SUB_SLICES_PER_SLICE_INTEL:
      if ((*err = deviceValue(device, CL_DEVICE_MAX_COMPUTE_UNITS, &units))) return true;
      *err = writeValue(size, value, size_ret, std::max(units, cl_uint{1}));
      return true;
    case CL_DEVICE_FEATURE_CAPABILITIES_INTEL:  // neither DP4A nor DPAS
      *err = writeValue(size, value, size_ret, cl_device_feature_capabilities_intel{0});
      return true;
    default:
      return false;
  }
}

cl_int CL_API_CALL clGetDeviceIDs_layer(cl_platform_id platform, cl_device_type device_type,
                                        cl_uint num_entries, cl_device_id* devices,
                                        cl_uint* num_devices) {
  return guardedEntry("clGetDeviceIDs", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetDeviceIDs);
    if (!presentationDecides(device_type))
      return next().clGetDeviceIDs(platform, device_type, num_entries, devices, num_devices);
    if ((num_entries == 0 && devices) || (!devices && !num_devices)) return CL_INVALID_VALUE;
    std::vector<cl_device_id> found;
    if (const cl_int err = presentedDevices(platform, device_type, &found)) return err;
    if (devices)
      std::copy_n(found.begin(), std::min<size_t>(num_entries, found.size()), devices);
    if (num_devices) *num_devices = static_cast<cl_uint>(found.size());
    return CL_SUCCESS;
  });
}

// The driver's context of the devices clGetDeviceIDs presents for `device_type`, where the
// properties name the platform (without one the driver's own choice stands).
cl_context CL_API_CALL clCreateContextFromType_layer(const cl_context_properties* properties,
                                                     cl_device_type device_type,
                                                     void(CL_CALLBACK* pfn_notify)(const char*,
                                                                                   const void*,
                                                                                   size_t, void*),
                                                     void* user_data, cl_int* errcode_ret) {
  return guardedCreate<cl_context>("clCreateContextFromType", errcode_ret, [&]() -> cl_context {
    ISG_REQUIRE_NEXT_CREATE(clCreateContextFromType, errcode_ret);
    cl_platform_id platform = nullptr;
    for (const cl_context_properties* p = properties; p && *p; p += 2)
      if (p[0] == CL_CONTEXT_PLATFORM) platform = reinterpret_cast<cl_platform_id>(p[1]);
    if (!presentationDecides(device_type) || !platform || !next().clCreateContext)
      return next().clCreateContextFromType(properties, device_type, pfn_notify, user_data,
                                            errcode_ret);
    std::vector<cl_device_id> found;
    if (const cl_int err = presentedDevices(platform, device_type, &found)) {
      if (errcode_ret) *errcode_ret = err;
      return nullptr;
    }
    return next().clCreateContext(properties, static_cast<cl_uint>(found.size()), found.data(),
                                  pfn_notify, user_data, errcode_ret);
  });
}

}  // namespace isg
