// SPDX-License-Identifier: MIT
// isg-demo: runs a kernel written for Intel GPUs (clDNN-style sub-group matrix-vector product)
// on whatever OpenCL device is the default, through the ICD loader. With the layer enabled
// (OPENCL_LAYERS=.../libIntelSubgroupsLayer.so) it builds and runs on devices that have no
// cl_intel_subgroups; without it, the build fails there. The result is checked against a
// plain host computation, and the exit status says whether it matched.
#include <CL/cl.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "build_log.h"

namespace {

// Each sub-group of 16 work-items computes 16 rows of y = A·x. The work-items load x in blocks
// of 16 and pass the elements around with intel_sub_group_shuffle, the way Intel-targeted
// kernels avoid local memory.
const char* kSource = R"CLC(
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
#define SIMD 16
#define SHUFFLE(v, i) intel_sub_group_shuffle(v, i)

float dot_block(__global const float* row, float x_lane) {
  float acc = 0.0f;
  for (uint k = 0; k < SIMD; ++k) acc += row[k] * SHUFFLE(x_lane, k);
  return acc;
}

__attribute__((intel_reqd_sub_group_size(SIMD)))
__kernel void sgemv(__global const float* A, __global const float* x, __global float* y,
                    uint n, __global uint* sg_info) {
  const uint row = get_global_id(0);
  const uint lane = get_sub_group_local_id();
  float acc = 0.0f;
  for (uint col = 0; col < n; col += SIMD)
    acc += dot_block(A + row * n + col, x[col + lane]);
  y[row] = acc;
  sg_info[row] = (get_sub_group_id() << 16) | (get_sub_group_size() << 8) | lane;
}
)CLC";

bool check(cl_int err, const char* what) {
  if (err == CL_SUCCESS) return true;
  std::fprintf(stderr, "isg-demo: %s failed: %d\n", what, err);
  return false;
}

std::string deviceText(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  clGetDeviceInfo(d, what, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

}  // namespace

constexpr const char* kUsage =
    "usage: isg-demo [--help | --version]\n"
    "Runs an Intel-targeted sub-group kernel (clDNN-style matrix-vector product) on the default\n"
    "OpenCL device and checks it against the host. Devices without cl_intel_subgroups need the\n"
    "layer: OPENCL_LAYERS=/path/to/libIntelSubgroupsLayer.so isg-demo\n";

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (a == "--version") {
      std::puts("isg-demo " ISG_VERSION);
      return 0;
    }
    std::fprintf(stderr, "isg-demo: unknown argument '%s' (isg-demo --help shows the usage)\n", a.c_str());
    return 2;
  }
  const cl_uint n = 256, simd = 16, local = 64;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  if (!check(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs") ||
      !check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_DEFAULT, 1, &device, nullptr),
             "clGetDeviceIDs"))
    return 2;
  const std::string extensions = deviceText(device, CL_DEVICE_EXTENSIONS);
  std::printf("device: %s\n", deviceText(device, CL_DEVICE_NAME).c_str());
  const bool advertised = extensions.find("cl_intel_subgroups") != std::string::npos;
  std::printf("cl_intel_subgroups advertised: %s\n", advertised ? "yes" : "no");
  if (!advertised)
    std::printf("(the device lacks Intel's sub-groups: run through the layer, "
                "OPENCL_LAYERS=/path/to/libIntelSubgroupsLayer.so isg-demo)\n");

  cl_int err = CL_SUCCESS;
  cl_context ctx = clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err);
  if (!check(err, "clCreateContext")) return 2;
  cl_command_queue queue = clCreateCommandQueue(ctx, device, 0, &err);
  if (!check(err, "clCreateCommandQueue")) return 2;
  cl_program program = clCreateProgramWithSource(ctx, 1, &kSource, nullptr, &err);
  if (!check(err, "clCreateProgramWithSource")) return 2;
  err = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "isg-demo: build failed (%d):\n%s\n", err,
                 isg::programBuildLog(program, device).c_str());
    return 1;
  }
  cl_kernel kernel = clCreateKernel(program, "sgemv", &err);
  if (!check(err, "clCreateKernel")) return 2;

  std::vector<float> A(n * n), x(n), y(n, 0.0f);
  for (cl_uint i = 0; i < n * n; ++i) A[i] = static_cast<float>((i * 7919u) % 17) - 8.0f;
  for (cl_uint i = 0; i < n; ++i) x[i] = static_cast<float>((i * 31u) % 13) * 0.25f;
  std::vector<cl_uint> info(n, 0);
  cl_mem bufA = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, A.size() * 4,
                               A.data(), &err);
  cl_mem bufX = clCreateBuffer(ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, x.size() * 4,
                               x.data(), &err);
  cl_mem bufY = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, y.size() * 4, nullptr, &err);
  cl_mem bufI = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, info.size() * 4, nullptr, &err);
  if (!check(err, "clCreateBuffer")) return 2;
  clSetKernelArg(kernel, 0, sizeof bufA, &bufA);
  clSetKernelArg(kernel, 1, sizeof bufX, &bufX);
  clSetKernelArg(kernel, 2, sizeof bufY, &bufY);
  clSetKernelArg(kernel, 3, sizeof n, &n);
  clSetKernelArg(kernel, 4, sizeof bufI, &bufI);
  const size_t global = n, localSize = local;
  if (!check(clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, &localSize, 0, nullptr,
                                    nullptr),
             "clEnqueueNDRangeKernel") ||
      !check(clEnqueueReadBuffer(queue, bufY, CL_TRUE, 0, y.size() * 4, y.data(), 0, nullptr,
                                 nullptr),
             "clEnqueueReadBuffer(y)") ||
      !check(clEnqueueReadBuffer(queue, bufI, CL_TRUE, 0, info.size() * 4, info.data(), 0,
                                 nullptr, nullptr),
             "clEnqueueReadBuffer(info)"))
    return 2;

  // Host reference: the plain product, and the sub-group layout the extension defines
  // (runs of 16 consecutive local ids).
  double worst = 0.0;
  unsigned layoutErrors = 0;
  for (cl_uint r = 0; r < n; ++r) {
    double ref = 0.0;
    for (cl_uint c = 0; c < n; ++c) ref += static_cast<double>(A[r * n + c]) * x[c];
    worst = std::fmax(worst, std::fabs(ref - y[r]) / std::fmax(1.0, std::fabs(ref)));
    const cl_uint lid = r % local;
    const cl_uint expect = ((lid / simd) << 16) | (simd << 8) | (lid % simd);
    layoutErrors += info[r] != expect;
  }
  const bool pass = worst < 1e-5 && layoutErrors == 0;
  std::printf("sgemv %ux%u, intel_reqd_sub_group_size(%u), local size %u\n", n, n, simd, local);
  std::printf("  y[0..3] = %.2f %.2f %.2f %.2f\n", y[0], y[1], y[2], y[3]);
  std::printf("  max relative error vs host: %.3g, sub-group layout mismatches: %u\n", worst,
              layoutErrors);
  std::printf("%s\n", pass ? "PASS: matches the host reference" : "FAIL");

  clReleaseMemObject(bufA);
  clReleaseMemObject(bufX);
  clReleaseMemObject(bufY);
  clReleaseMemObject(bufI);
  clReleaseKernel(kernel);
  clReleaseProgram(program);
  clReleaseCommandQueue(queue);
  clReleaseContext(ctx);
  return pass ? 0 : 1;
}
