// SPDX-License-Identifier: MIT
// How a device the layer serves presents itself to applications that choose devices by type and
// Intel architecture (OpenVINO's GPU plugin, oneDNN): ISG_PRESENT_AS_GPU (docs/controls.md), for
// CPU devices that stand in for a GPU in tests. Nothing changes unless it is asked for.
#pragma once

#include <CL/cl.h>

namespace isg {

struct DeviceProfile;

// Sets the profile's presentation of `device` (DeviceProfile::presentedAsGpu, intelAttributes)
// from the control, the driver's type and vendor id, and whether the driver itself offers
// cl_intel_device_attribute_query (then its answers stand).
void presentDevice(cl_device_id device, bool driverHasAttributes, DeviceProfile* profile);

// The type `device` answers for CL_DEVICE_TYPE, given the driver's.
cl_device_type presentedType(const DeviceProfile& profile, cl_device_type driverType);

// cl_intel_device_attribute_query's answers for a device that presents Intel's attributes;
// false where `param` is none of its queries (then the driver answers).
bool intelAttribute(cl_device_id device, cl_device_info param, size_t size, void* value,
                    size_t* size_ret, cl_int* err);

}  // namespace isg
