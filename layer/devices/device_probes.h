// SPDX-License-Identifier: MIT
// What the layer asks of a driver beyond its extension string, and what it measures by running
// kernels on it, once per device (device_strategy.cpp caches the profile): OpenCL C features,
// the khr strategy's native sub-group size and how the driver maps work-groups to sub-groups.
#pragma once

#include <CL/cl.h>

#include <string>

namespace isg {

// Whether the device names OpenCL C feature `name` (OpenCL C 3.0 devices may offer sub-groups
// as the optional feature instead of the extension).
bool hasOpenclCFeature(cl_device_id device, const char* name);

// What the khr probe learns of the driver's own sub-groups.
struct KhrProbe {
  unsigned nativeSize = 0;  // 0: the driver did not answer
  bool rowSubGroups = false;
};

// The driver's own native sub-group size, measured on a probe kernel that shuffles (drivers may
// size sub-groups per kernel; a shuffling kernel is what the khr library compiles to), and how
// it maps 2-D work-groups to sub-groups. nativeSize 0 when the driver does not answer; the
// device then uses local. `khrSubgroupsExtension`: the device reports cl_khr_subgroups (else
// only the OpenCL C 3.0 feature). Runs once per device (profiles are cached).
KhrProbe probeKhrDriver(cl_device_id device, bool khrSubgroupsExtension, const std::string& name);

}  // namespace isg
