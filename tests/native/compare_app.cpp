// SPDX-License-Identifier: MIT
// A small application for the whole-run compare test (compare_app.sh, issue 50.3): one program
// of three Intel-targeted kernels, each launched several times, on the default device.
//   scale     plain arithmetic, 4 launches: identical everywhere
//   sg_reduce a float sub-group reduction (S = 16), 2 launches: the same sums, perhaps in
//             another order (identical or within tolerance)
//   sg_rows   each work-item's sub-group size and id in a 5 x 7 work-group at S = 8, 2
//             launches: differs on purpose. Intel's runtimes start a sub-group with every row
//             (7 sub-groups of 5); the layer uses runs of 8 linear ids (4 of 8, one of 3), both
//             as docs/compare.md states ("Mapping of multi-dimensional work-groups").
// Exit status 0 when every call succeeded.
#include <CL/cl.h>

#include <cstdio>
#include <vector>

namespace {

const char* kSource = R"CLC(
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
__kernel void scale(__global const float* x, __global float* y, float a) {
  const size_t i = get_global_id(0);
  y[i] = a * x[i] + 1.0f;
}
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void sg_reduce(__global const float* x, __global float* sums) {
  const size_t i = get_global_id(0);
  const float s = sub_group_reduce_add(x[i] * (float)(1 + i % 7));
  sums[i] = s + intel_sub_group_shuffle(x[i], (get_sub_group_local_id() + 1) % 16);
}
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void sg_rows(__global uint* out) {
  const size_t i = get_global_id(1) * get_global_size(0) + get_global_id(0);
  out[i] = (get_sub_group_size() << 8) | get_sub_group_local_id();
}
)CLC";

bool ok(cl_int err, const char* what) {
  if (err != CL_SUCCESS) std::fprintf(stderr, "compare_app: %s failed: %d\n", what, err);
  return err == CL_SUCCESS;
}

}  // namespace

int main() {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_int err = clGetPlatformIDs(1, &platform, nullptr);
  if (!ok(err, "clGetPlatformIDs") ||
      !ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, nullptr), "clGetDeviceIDs"))
    return 1;
  cl_context context = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (!ok(err, "clCreateContext")) return 1;
  cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
  cl_program program = clCreateProgramWithSource(context, 1, &kSource, nullptr, &err);
  if (!ok(err, "clCreateProgramWithSource") ||
      !ok(clBuildProgram(program, 1, &device, "-cl-std=CL2.0", nullptr, nullptr), "clBuildProgram"))
    return 1;
  const size_t n = 256;
  std::vector<float> x(n);
  for (size_t i = 0; i < n; ++i) x[i] = 0.37f * static_cast<float>(i % 29) - 3.1f + 1e-3f * i;
  cl_mem in = clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(float),
                             x.data(), &err);
  cl_mem out = clCreateBuffer(context, CL_MEM_READ_WRITE, n * sizeof(float), nullptr, &err);
  cl_mem rows = clCreateBuffer(context, CL_MEM_READ_WRITE, 10 * 7 * sizeof(cl_uint), nullptr, &err);
  cl_kernel scale = clCreateKernel(program, "scale", &err);
  cl_kernel reduce = clCreateKernel(program, "sg_reduce", &err);
  cl_kernel sgRows = clCreateKernel(program, "sg_rows", &err);
  if (!ok(err, "clCreateKernel")) return 1;
  bool good = true;
  const size_t local = 64;
  for (int k = 1; k <= 4; ++k) {
    const float a = 0.5f * k;
    good = good && ok(clSetKernelArg(scale, 0, sizeof in, &in), "arg") &&
           ok(clSetKernelArg(scale, 1, sizeof out, &out), "arg") &&
           ok(clSetKernelArg(scale, 2, sizeof a, &a), "arg") &&
           ok(clEnqueueNDRangeKernel(queue, scale, 1, nullptr, &n, &local, 0, nullptr, nullptr),
              "enqueue scale");
  }
  for (int k = 0; k < 2; ++k)
    good = good && ok(clSetKernelArg(reduce, 0, sizeof in, &in), "arg") &&
           ok(clSetKernelArg(reduce, 1, sizeof out, &out), "arg") &&
           ok(clEnqueueNDRangeKernel(queue, reduce, 1, nullptr, &n, &local, 0, nullptr, nullptr),
              "enqueue sg_reduce");
  const size_t global2[2] = {10, 7}, local2[2] = {5, 7};
  for (int k = 0; k < 2; ++k)
    good = good && ok(clSetKernelArg(sgRows, 0, sizeof rows, &rows), "arg") &&
           ok(clEnqueueNDRangeKernel(queue, sgRows, 2, nullptr, global2, local2, 0, nullptr,
                                     nullptr),
              "enqueue sg_rows");
  good = good && ok(clFinish(queue), "clFinish");
  for (cl_kernel k : {scale, reduce, sgRows}) clReleaseKernel(k);
  for (cl_mem m : {in, out, rows}) clReleaseMemObject(m);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(context);
  std::printf("compare_app: %s\n", good ? "done" : "FAILED");
  return good ? 0 : 1;
}
