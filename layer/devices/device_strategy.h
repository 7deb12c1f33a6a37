// SPDX-License-Identifier: MIT
// Which strategy realises the sub-group builtins on a device, and what the rewriter and the
// queries must know about that device. Detected once per device and cached.
#pragma once

#include <CL/cl.h>

#include <vector>

#include "isg/rewriter.h"

namespace isg {

struct DeviceProfile {
  Strategy detected = Strategy::Local;  // what the device could do (before the library check)
  Strategy strategy = Strategy::Local;  // what the layer uses on it
  DeviceTraits traits;                  // traits.strategy == strategy
  size_t maxWorkGroupSize = 1;
  std::vector<size_t> maxWorkItemSizes;
  cl_ulong localMemSize = 0;
  // An NVIDIA device whose driver takes NVIDIA's build options (-cl-nv-maxrregcount).
  bool nvidiaCompilerOptions = false;
  // khr on a driver that splits multi-dimensional work-groups into sub-groups per row of
  // dimension 0 (Intel's CPU runtime), not into runs of linear ids: the khr library's sub-groups
  // are the driver's, so they match the layer's only where rows are a multiple of the native
  // size (the launch plan, launch_plan.cpp, refuses other launches of kernels that exchange data).
  bool khrRowSubGroups = false;
  // Programs from SPIR-V (docs/design.md): the highest SPIR-V version the driver's own IL
  // takes (CL_DEVICE_IL_VERSION; 0x00010200 = 1.2; 0: none), whether it takes SPIR bitcode
  // through clCreateProgramWithBinary (cl_khr_spir), or, neither, PTX text that way (NVIDIA:
  // the layer writes the PTX, ptx_backend.h; images are out of that path's reach).
  unsigned driverSpirvMax = 0;
  bool spirBitcode = false;
  bool spirvAsPtx = false;
  // The layer builds programs from SPIR-V for this device (served, the driver takes SPIR-V or
  // SPIR bitcode, the translator bridge loads): it advertises cl_khr_il_program, the SPIR-V
  // companions and CL_DEVICE_IL_VERSION.
  bool buildsSpirv = false;
  std::string spirvUnavailable;  // why buildsSpirv is false where the driver would take SPIR or PTX

  // Source programs may take the layer's own OpenCL C front end and PTX (ISG_NVIDIA_FRONTEND;
  // a served NVIDIA device with libclc's bitcode found).
  bool layerFrontEnd = false;
  // The layer offers cl_khr_fp16, which the driver lacks, through that front end (unless
  // ISG_NVIDIA_FRONTEND=driver): programs that use half build there.
  bool layerFp16 = false;
  // Likewise cl_khr_integer_dot_product (dp4a in the front end's PTX runtime).
  bool layerIntegerDot = false;

  // ISG_PRESENT_AS_GPU (presentation.h): a served CPU device that answers CL_DEVICE_TYPE_GPU,
  // and, its vendor id Intel's, cl_intel_device_attribute_query.
  bool presentedAsGpu = false;
  bool intelAttributes = false;

  // nvidia-ptx: its SMs and the CTAs one SM holds at once, which ISG_PACK_WORK_GROUPS=auto
  // weighs a launch's work-groups against (launch/packing_line.h); 0 elsewhere.
  unsigned sms = 0;
  unsigned ctasPerSm = 0;

  bool isNative() const { return strategy == Strategy::Native; }
  unsigned smallestSubGroupSize() const;
};

// An extension the layer offers through its OpenCL C front end where the driver lacks it
// (issue 34.4): where (`offered`), its version, which programs need that front end for it, and
// the trait a compile for it sets besides the extension's name (nullptr: none).
struct LayerExtension {
  const char* name;
  cl_version version;
  bool DeviceProfile::*offered;
  bool (*mayUse)(const RewriteInput&);
  bool DeviceTraits::*trait;
};
const std::vector<LayerExtension>& layerExtensions();

// The extensions the layer offers on every one of `devices` (layerExtensions), added to
// `traits` for a program it compiles to PTX itself there (the front end, or from SPIR-V).
void offerLayerExtensions(const std::vector<cl_device_id>& devices, DeviceTraits* traits);

// What a set of devices does with a program from SPIR-V (docs/design.md), from their profiles.
struct SpirvSupport {
  bool served = false;   // the layer serves some device (not native)
  bool allIl = true;     // every driver takes SPIR-V itself
  bool allSpir = true;   // every driver takes SPIR bitcode (cl_khr_spir)
  bool allPtx = true;    // every device takes the layer's PTX
  bool allBuild = true;  // every device builds SPIR-V, from its driver or through the layer
  unsigned version = kSpirvReadMax;  // the highest SPIR-V version every driver's IL takes
  std::string why;       // why the layer builds none for a device it would (its bridge)
};

class DeviceStrategy {
 public:
  // nullptr when the driver does not answer for the device (an invalid handle): callers forward
  // and let the driver report the error.
  static const DeviceProfile* of(cl_device_id device);

  // Traits to rewrite one program for all of `devices`. *allNative: every device is native, the
  // program must pass through untouched. Devices with different strategies get the local
  // strategy, which works on every device.
  static DeviceTraits traitsForBuild(const std::vector<cl_device_id>& devices, bool* allNative);

  // Whether every one of `devices` has `fact` (&DeviceProfile::layerFrontEnd, ...).
  static bool allHave(const std::vector<cl_device_id>& devices, bool DeviceProfile::*fact);

  // False when a device has no profile (an invalid handle).
  static bool spirvSupport(const std::vector<cl_device_id>& devices, SpirvSupport* out);
};

// Whether `device`'s driver takes NVIDIA's compiler options (-cl-nv-*).
inline bool takesNvidiaOptions(cl_device_id device) {
  const DeviceProfile* profile = DeviceStrategy::of(device);
  return profile && profile->nvidiaCompilerOptions;
}

}  // namespace isg
