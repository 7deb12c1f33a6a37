// SPDX-License-Identifier: MIT
// Helpers for the layer's tests: build a program, run a 1-D int kernel, and the host-side
// sub-group layout of docs/design.md (runs of S consecutive linear local ids, last one partial)
// that expected values are computed from.
#pragma once

#include <CL/cl.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace isgtest {

using SubGroupInfoFn = cl_int(CL_API_CALL*)(cl_kernel, cl_device_id, cl_kernel_sub_group_info,
                                            size_t, const void*, size_t, void*, size_t*);

// clGetKernelSubGroupInfoKHR as the loader exports it: ocl-icd does, the Khronos loader exports
// no extension function (applications take the address from
// clGetExtensionFunctionAddressForPlatform). nullptr only where ISG_TEST_LOADER=khronos says the
// run is on the Khronos loader (tests/native); anywhere else a missing export fails the test.
inline SubGroupInfoFn loaderKhrExport() {
  return reinterpret_cast<SubGroupInfoFn>(dlsym(RTLD_DEFAULT, "clGetKernelSubGroupInfoKHR"));
}
// Where a test that compares the layer with the driver alone keeps the driver's figures: the file
// `variable` names (CTest sets it, tests/layer/CMakeLists.txt), else `fallback` here.
inline std::string baselinePath(const char* variable, const char* fallback) {
  const char* p = std::getenv(variable);
  return p ? p : fallback;
}

inline bool onKhronosLoader() {
  const char* loader = std::getenv("ISG_TEST_LOADER");
  return loader && std::string(loader) == "khronos";
}

// Where work-item `linear` of a work-group of `groupSize` items sits, for sub-group size S.
struct SubGroupPosition {
  size_t first;  // linear local id of the sub-group's first item
  size_t size;   // items in this sub-group (the last one may be partial)
  size_t local;  // the item's sub-group local id
};
inline SubGroupPosition subGroupPosition(size_t linear, size_t groupSize, size_t S) {
  size_t first = linear / S * S;
  return {first, std::min(S, groupSize - first), linear - first};
}

inline std::vector<cl_int> iota(size_t n, cl_int start = 0) {
  std::vector<cl_int> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + static_cast<cl_int>(i * 7 % 101);
  return v;
}

// Runs kernel(global const int* in, global int* out) over `global` items with `local` items per
// group (0: the application passes NULL). Returns "" or which call failed with what; any thread
// may call it.
inline std::string tryRunIntKernel(cl_kernel kernel, const std::vector<cl_int>& in,
                                   std::vector<cl_int>* out, size_t global, size_t local,
                                   cl_command_queue queue = nullptr) {
  const ClEnv& e = env();
  if (!queue) queue = e.queue;
  out->assign(global, -1);
  std::string failed;
  auto call = [&](const char* what, cl_int err) {
    if (failed.empty() && err != CL_SUCCESS) failed = what + std::string(" returned ") + std::to_string(err);
    return failed.empty();
  };
  cl_int err = CL_SUCCESS;
  cl_mem inBuf = clCreateBuffer(e.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                in.size() * sizeof(cl_int), const_cast<cl_int*>(in.data()), &err);
  call("clCreateBuffer (in)", err);
  cl_mem outBuf =
      clCreateBuffer(e.context, CL_MEM_WRITE_ONLY, global * sizeof(cl_int), nullptr, &err);
  call("clCreateBuffer (out)", err) &&
      call("clSetKernelArg (in)", clSetKernelArg(kernel, 0, sizeof inBuf, &inBuf)) &&
      call("clSetKernelArg (out)", clSetKernelArg(kernel, 1, sizeof outBuf, &outBuf)) &&
      call("clEnqueueNDRangeKernel",
           clEnqueueNDRangeKernel(queue, kernel, 1, nullptr, &global, local ? &local : nullptr,
                                  0, nullptr, nullptr)) &&
      call("clEnqueueReadBuffer",
           clEnqueueReadBuffer(queue, outBuf, CL_TRUE, 0, global * sizeof(cl_int), out->data(), 0,
                               nullptr, nullptr));
  if (inBuf) clReleaseMemObject(inBuf);
  if (outBuf) clReleaseMemObject(outBuf);
  return failed;
}

// The same, failing the test on any OpenCL error.
inline void runIntKernel(cl_kernel kernel, const std::vector<cl_int>& in, std::vector<cl_int>* out,
                         size_t global, size_t local, cl_command_queue queue = nullptr) {
  const std::string failed = tryRunIntKernel(kernel, in, out, global, local, queue);
  ASSERT_TRUE(failed.empty()) << failed;
}

// Whether the layer has loaded its rewriter library (Clang and LLVM) into this process.
inline bool rewriterLibraryLoaded() {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("libIntelSubgroupsRewriter.so") != std::string::npos) return true;
  return false;
}

inline std::string programSource(cl_program p) {
  size_t n = 0;
  if (clGetProgramInfo(p, CL_PROGRAM_SOURCE, 0, nullptr, &n) != CL_SUCCESS) return "<error>";
  std::string s(n, '\0');
  clGetProgramInfo(p, CL_PROGRAM_SOURCE, n, s.data(), nullptr);
  if (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// A kernel that uses sub-group builtins: each item takes its right neighbour's value within its
// sub-group (wrapping), and adds the sub-group's size.
inline std::string rotateKernelSource(const std::string& attribute) {
  return "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
         "kernel " +
         attribute +
         " void rotate_lanes(global const int* in, global int* out) {\n"
         "  size_t gid = get_global_id(0);\n"
         "  uint lid = get_sub_group_local_id();\n"
         "  uint n = get_sub_group_size();\n"
         "  out[gid] = intel_sub_group_shuffle(in[gid], (lid + 1) % n) + 1000 * (int)n;\n"
         "}\n";
}

// What rotate() must produce (host computation of the spec's semantics).
inline std::vector<cl_int> rotateExpected(const std::vector<cl_int>& in, size_t global,
                                          size_t local, size_t S) {
  std::vector<cl_int> expected(global);
  for (size_t g = 0; g < global; ++g) {
    size_t groupStart = g / local * local;
    SubGroupPosition p = subGroupPosition(g - groupStart, local, S);
    size_t src = groupStart + p.first + (p.local + 1) % p.size;
    expected[g] = in[src] + 1000 * static_cast<cl_int>(p.size);
  }
  return expected;
}

}  // namespace isgtest
