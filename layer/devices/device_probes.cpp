// SPDX-License-Identifier: MIT
// The probes of a driver's own sub-groups (device_probes.h).
#include "devices/device_probes.h"

#include <cstring>
#include <vector>

#include "core/driver_queries.h"
#include "core/layer_api.h"

namespace isg {
namespace {

// Whether the driver splits a 3 x 2 work-group per row (work-item (0, 1) starts sub-group 1)
// instead of into runs of linear ids (a native sub-group of 3 or more then holds it too).
bool probeRowSubGroups(cl_context context, cl_device_id device, cl_program program) {
  const cl_icd_dispatch& d = next();
  if (!d.clCreateCommandQueue || !d.clCreateBuffer || !d.clSetKernelArg ||
      !d.clEnqueueNDRangeKernel || !d.clEnqueueReadBuffer || !d.clReleaseMemObject ||
      !d.clReleaseCommandQueue)
    return false;
  cl_int err = CL_SUCCESS;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  cl_command_queue queue = d.clCreateCommandQueue(context, device, 0, &err);
#pragma GCC diagnostic pop
  if (!queue) return false;
  cl_kernel kernel = d.clCreateKernel(program, "isg_khr_rows", &err);
  cl_mem out = d.clCreateBuffer(context, CL_MEM_WRITE_ONLY, 6 * sizeof(cl_uint), nullptr, &err);
  cl_uint ids[6] = {0, 0, 0, 0, 0, 0};
  bool rows = false;
  if (kernel && out && d.clSetKernelArg(kernel, 0, sizeof out, &out) == CL_SUCCESS) {
    const size_t size[2] = {3, 2};
    if (d.clEnqueueNDRangeKernel(queue, kernel, 2, nullptr, size, size, 0, nullptr, nullptr) ==
            CL_SUCCESS &&
        d.clEnqueueReadBuffer(queue, out, CL_TRUE, 0, sizeof ids, ids, 0, nullptr, nullptr) ==
            CL_SUCCESS)
      rows = ids[3] != ids[0];
  }
  if (out) d.clReleaseMemObject(out);
  if (kernel) d.clReleaseKernel(kernel);
  d.clReleaseCommandQueue(queue);
  return rows;
}

}  // namespace

KhrProbe probeKhrDriver(cl_device_id device, bool khrSubgroupsExtension, const std::string& name) {
  KhrProbe probe;
  const cl_icd_dispatch& d = next();
  if (!d.clCreateContext || !d.clCreateProgramWithSource || !d.clBuildProgram ||
      !d.clCreateKernel || !d.clReleaseKernel || !d.clReleaseProgram || !d.clReleaseContext)
    return probe;
  cl_platform_id platform = nullptr;
  if (deviceValue(device, CL_DEVICE_PLATFORM, &platform) != CL_SUCCESS) return probe;
  const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                         reinterpret_cast<cl_context_properties>(platform), 0};
  cl_int err = CL_SUCCESS;
  cl_context context = d.clCreateContext(props, 1, &device, nullptr, nullptr, &err);
  if (!context || err != CL_SUCCESS) return probe;
  const char* source =
      "kernel void isg_khr_probe(global uint* out) {\n"
      "  uint v = get_sub_group_local_id();\n"
      "  out[get_global_id(0)] = sub_group_shuffle(v, 0u) + sub_group_shuffle_up(v, 1u);\n"
      "}\n"
      "kernel void isg_khr_rows(global uint* out) {\n"
      "  out[get_local_id(0) + 3 * get_local_id(1)] = get_sub_group_id();\n"
      "}\n";
  // A device with only the OpenCL C 3.0 feature declares the builtins only in 3.0 mode.
  const char* options = khrSubgroupsExtension ? "" : "-cl-std=CL3.0";
  cl_program program = d.clCreateProgramWithSource(context, 1, &source, nullptr, &err);
  if (program && err == CL_SUCCESS &&
      d.clBuildProgram(program, 1, &device, options, nullptr, nullptr) == CL_SUCCESS) {
    cl_kernel kernel = d.clCreateKernel(program, "isg_khr_probe", &err);
    if (kernel && err == CL_SUCCESS) {
      size_t local = 0;
      if (kernelWorkGroupValue(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, &local) != CL_SUCCESS ||
          local == 0)
        local = 64;
      size_t size = 0;
      cl_int q = CL_INVALID_OPERATION;
      // The core entry answers on 2.1+ drivers, the extension's on 1.2/2.0 ones.
      if (d.clGetKernelSubGroupInfo)
        q = d.clGetKernelSubGroupInfo(kernel, device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                      sizeof local, &local, sizeof size, &size, nullptr);
      if (q != CL_SUCCESS && d.clGetKernelSubGroupInfoKHR)
        q = d.clGetKernelSubGroupInfoKHR(kernel, device,
                                         CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE_KHR, sizeof local,
                                         &local, sizeof size, &size, nullptr);
      if (q == CL_SUCCESS && size <= 1024) probe.nativeSize = unsigned(size);
      d.clReleaseKernel(kernel);
    }
    if (probe.nativeSize >= 6) probe.rowSubGroups = probeRowSubGroups(context, device, program);
  } else if (program) {
    ISG_LOG_INFO("'" << name << "': the khr probe kernel did not build");
  }
  if (program) d.clReleaseProgram(program);
  d.clReleaseContext(context);
  return probe;
}

bool hasOpenclCFeature(cl_device_id device, const char* name) {
  std::vector<cl_name_version> features;
  if (deviceArray(device, CL_DEVICE_OPENCL_C_FEATURES, &features) != CL_SUCCESS) return false;
  for (const cl_name_version& f : features)
    if (std::strncmp(f.name, name, CL_NAME_VERSION_MAX_NAME_SIZE) == 0) return true;
  return false;
}

}  // namespace isg
