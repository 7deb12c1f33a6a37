// SPDX-License-Identifier: MIT
#include "register_cap.h"

#include <CL/cl_ext.h>

#include <algorithm>
#include <string>
#include <vector>

#include "device_strategy.h"
#include "driver_queries.h"
#include "layer_api.h"
#include "logger.h"

namespace isg {
namespace {

constexpr const char* kCapOption = "-cl-nv-maxrregcount";

// The largest work-group `kernel` must launch at on `device`: its reqd_work_group_size, else
// the device's largest.
size_t targetWorkGroup(const ProgramRecord& record, cl_kernel kernel, const DeviceProfile& profile) {
  std::string name;
  kernelString(kernel, CL_KERNEL_FUNCTION_NAME, &name);
  if (const KernelManifest* m = record.findKernel(name))
    if (m->reqdWorkGroupSize[0] != 0)
      return m->reqdWorkGroupSize[0] * m->reqdWorkGroupSize[1] * m->reqdWorkGroupSize[2];
  return profile.maxWorkGroupSize;
}

// The devices the program was built for that the layer serves with nvidia-ptx and whose driver
// takes NVIDIA's compiler options.
std::vector<cl_device_id> nvidiaDevices(cl_program program) {
  std::vector<cl_device_id> devices, out;
  if (programDevices(program, &devices) != CL_SUCCESS) return out;
  for (cl_device_id d : devices) {
    cl_build_status status = CL_BUILD_NONE;
    if (!next().clGetProgramBuildInfo ||
        next().clGetProgramBuildInfo(program, d, CL_PROGRAM_BUILD_STATUS, sizeof status, &status,
                                     nullptr) != CL_SUCCESS ||
        status != CL_BUILD_SUCCESS)
      continue;
    const DeviceProfile* profile = DeviceStrategy::of(d);
    std::string extensions;
    if (profile && profile->strategy == Strategy::NvidiaPtx &&
        deviceString(d, CL_DEVICE_EXTENSIONS, &extensions) == CL_SUCCESS &&
        (" " + extensions + " ").find(" cl_nv_compiler_options ") != std::string::npos)
      out.push_back(d);
  }
  return out;
}

// The largest target work-group among the kernels that report less than theirs (0: none).
size_t largestShortfall(const ProgramRecord& record, cl_program program,
                        const std::vector<cl_device_id>& devices, std::string* example) {
  cl_uint n = 0;
  if (!next().clCreateKernelsInProgram ||
      next().clCreateKernelsInProgram(program, 0, nullptr, &n) != CL_SUCCESS || n == 0)
    return 0;
  std::vector<cl_kernel> kernels(n);
  if (next().clCreateKernelsInProgram(program, n, kernels.data(), nullptr) != CL_SUCCESS) return 0;
  size_t worst = 0;
  for (cl_kernel k : kernels) {
    for (cl_device_id d : devices) {
      const DeviceProfile* profile = DeviceStrategy::of(d);
      size_t reported = 0;
      if (!profile || kernelWorkGroupValue(k, d, CL_KERNEL_WORK_GROUP_SIZE, &reported) != CL_SUCCESS)
        continue;
      const size_t target = targetWorkGroup(record, k, *profile);
      if (reported >= target || target <= worst) continue;
      worst = target;
      std::string name;
      kernelString(k, CL_KERNEL_FUNCTION_NAME, &name);
      *example = "kernel '" + name + "' allows work-groups of " + std::to_string(reported) +
                 " work-items, not " + std::to_string(target);
    }
  }
  for (cl_kernel k : kernels) next().clReleaseKernel(k);
  return worst;
}

}  // namespace

void capRegistersForLargestWorkGroup(ProgramRecord& record) {
  if (record.kind != ProgramRecord::Kind::Shadowed) return;
  std::lock_guard<std::mutex> lock(record.launchMutex);
  if (record.launchChecked) return;
  record.launchChecked = true;
  cl_program shadow = record.shadow;
  if (!shadow || record.appOptions.find(kCapOption) != std::string::npos) return;
  if (!next().clCreateProgramWithSource || !next().clBuildProgram || !next().clReleaseKernel)
    return;
  const std::vector<cl_device_id> devices = nvidiaDevices(shadow);
  if (devices.empty()) return;
  std::string example;
  const size_t target = largestShortfall(record, shadow, devices, &example);
  if (target == 0) return;

  // Registers a work-group may use in all, shared by its work-items; allocation is per 8.
  cl_uint registers = 65536;
  for (cl_device_id d : devices) {
    cl_uint r = 0;
    if (deviceValue(d, CL_DEVICE_REGISTERS_PER_BLOCK_NV, &r) == CL_SUCCESS && r != 0)
      registers = std::min(registers, r);
  }
  const size_t cap = std::clamp<size_t>(registers / target / 8 * 8, 16, 255);
  const std::string options = record.rewrite.options + " " + kCapOption + "=" + std::to_string(cap);

  cl_context context = nullptr;
  cl_int err = programValue(shadow, CL_PROGRAM_CONTEXT, &context);
  if (err != CL_SUCCESS) return;
  const char* text = record.rewrite.source.c_str();
  const size_t length = record.rewrite.source.size();
  cl_program capped = next().clCreateProgramWithSource(context, 1, &text, &length, &err);
  if (!capped) return;
  err = next().clBuildProgram(capped, cl_uint(devices.size()), devices.data(), options.c_str(),
                              nullptr, nullptr);
  if (err != CL_SUCCESS) {
    ISG_LOG_WARNING(example << "; building it again with " << kCapOption << "=" << cap
                            << " failed (" << err << "), so larger enqueues will fail");
    next().clReleaseProgram(capped);
    return;
  }
  ISG_LOG_INFO(example << " (registers); built again with " << kCapOption << "=" << cap);
  record.retiredShadow = shadow;  // other threads may still be reading it
  record.shadow = capped;
}

}  // namespace isg
