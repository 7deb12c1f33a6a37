// SPDX-License-Identifier: MIT
// OpenCL set-up shared by the tests. Every helper fails the current test (never skips) when
// OpenCL misbehaves, so a broken environment cannot pass for green.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include <stdlib.h>  // mkdtemp
#include <unistd.h>  // access
#include <vector>

#include "spirv_cache.h"

namespace isgtest {

#define ISG_CL_CHECK(expr)                                                  \
  do {                                                                      \
    cl_int isg_err_ = (expr);                                               \
    ASSERT_EQ(isg_err_, CL_SUCCESS) << #expr << " returned " << isg_err_;  \
  } while (0)

struct ClEnv {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;
};

// The default device of the default platform (ISG_TEST_PLATFORM picks a platform whose name
// contains the given text, e.g. "NVIDIA" on the GPU machine). Created once per process.
inline const ClEnv& env() {
  static ClEnv e = [] {
    ClEnv r;
    cl_uint n = 0;
    clGetPlatformIDs(0, nullptr, &n);
    std::vector<cl_platform_id> ps(n);
    if (n) clGetPlatformIDs(n, ps.data(), nullptr);
    const char* want = std::getenv("ISG_TEST_PLATFORM");
    for (cl_platform_id p : ps) {
      char name[256] = {0};
      clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name, name, nullptr);
      if (!want || std::string(name).find(want) != std::string::npos) {
        r.platform = p;
        break;
      }
    }
    if (!r.platform) return r;
    if (clGetDeviceIDs(r.platform, CL_DEVICE_TYPE_DEFAULT, 1, &r.device, nullptr) != CL_SUCCESS)
      return r;
    cl_int err = CL_SUCCESS;
    r.context = clCreateContext(nullptr, 1, &r.device, nullptr, nullptr, &err);
    if (r.context)
      r.queue = clCreateCommandQueue(r.context, r.device, CL_QUEUE_PROFILING_ENABLE, &err);
    return r;
  }();
  return e;
}

// Fails the test unless the default device is usable.
#define ISG_REQUIRE_ENV()                                                  \
  do {                                                                     \
    ASSERT_NE(::isgtest::env().queue, nullptr) << "no usable OpenCL device"; \
  } while (0)

inline std::string deviceString(cl_device_id d, cl_device_info what) {
  size_t n = 0;
  if (clGetDeviceInfo(d, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  clGetDeviceInfo(d, what, n, s.data(), nullptr);
  if (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// CL_DEVICE_SUB_GROUP_SIZES_INTEL of the test device; empty when the query fails.
inline std::vector<size_t> deviceSubGroupSizes() {
  size_t bytes = 0;
  if (clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, 0, nullptr, &bytes) != CL_SUCCESS)
    return {};
  std::vector<size_t> sizes(bytes / sizeof(size_t));
  if (clGetDeviceInfo(env().device, CL_DEVICE_SUB_GROUP_SIZES_INTEL, bytes, sizes.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  return sizes;
}

// Intel's own drivers (the CPU runtime, the GPUs' NEO), told by their platform's name: PoCL on
// an Intel CPU answers the device vendor "GenuineIntel", and PoCL's vendor ID is 0x8086 on every
// CPU, so neither tells Intel's driver.
inline std::string platformName() {
  char name[256] = "";
  clGetPlatformInfo(env().platform, CL_PLATFORM_NAME, sizeof name, name, nullptr);
  return name;
}
inline bool onIntelsDriver() { return platformName().rfind("Intel(R) OpenCL", 0) == 0; }

// PoCL, by its platform's name (its devices are named by the host's CPU).
inline bool onPocl() { return platformName() == "Portable Computing Language"; }

// An NVIDIA GPU (PCI vendor ID), whichever driver or layer names it.
inline bool nvidiaDevice() {
  cl_uint vendor = 0;
  clGetDeviceInfo(env().device, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, nullptr);
  return vendor == 0x10de;
}

// An NVIDIA device whose programs NVIDIA's own compiler builds (ISG_NVIDIA_FRONTEND=driver):
// none of what the layer's front end adds (cl_khr_fp16, vector printf, element-aligned vectors).
inline bool nvidiaCompilerOnly() {
  const char* frontEnd = std::getenv("ISG_NVIDIA_FRONTEND");
  return frontEnd && std::string(frontEnd) == "driver" && nvidiaDevice();
}

// CL_PROGRAM_BINARIES of a program of one device (as applications cache it).
inline std::vector<unsigned char> programBinary(cl_program p) {
  size_t size = 0;
  EXPECT_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr), CL_SUCCESS);
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  EXPECT_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr), CL_SUCCESS);
  return binary;
}

// A program of env()'s device created from `binary`.
inline cl_program programFromBinary(const std::vector<unsigned char>& binary, cl_int* err, cl_int* status) {
  const unsigned char* data = binary.data();
  const size_t size = binary.size();
  return clCreateProgramWithBinary(env().context, 1, &env().device, &size, &data, status, err);
}

inline std::string buildLog(cl_program p, cl_device_id d) {
  size_t n = 0;
  if (clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, nullptr, &n) != CL_SUCCESS) return {};
  std::string s(n, '\0');
  clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, n, s.data(), nullptr);
  if (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}

// Build options every test adds to its own (ISG_TEST_BUILD_OPTIONS): CI and the GPU suite run
// the suites again under the -cl-std and math options real projects use.
inline std::string extraBuildOptions() {
  const char* o = std::getenv("ISG_TEST_BUILD_OPTIONS");
  return o ? o : "";
}

// ISG_TEST_SPIRV=1: every program of buildProgram is compiled to SPIR-V first, the way SYCL and
// offline-compiled OpenCL ship it (clang-15 + llvm-spirv-15 with the Intel SPIR-V extensions,
// the table's declarations for the builtins clang lacks), and created with
// clCreateProgramWithIL; the suites then run unchanged. On failure *log says why.
inline bool spirvMode() {
  const char* s = std::getenv("ISG_TEST_SPIRV");
  return s && *s == '1';
}

// Whether the default device lists `name` among its extensions (a whole word).
inline bool deviceHasExtension(const std::string& name) {
  const std::string all = " " + deviceString(env().device, CL_DEVICE_EXTENSIONS) + " ";
  return all.find(" " + name + " ") != std::string::npos;
}

// Whether this run's programs may take images: the device has them and, for programs from
// SPIR-V, the layer builds image code for it (it then offers cl_intel_spirv_media_block_io
// beside cl_intel_media_block_io).
inline bool programsTakeImages() {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) return false;
  if (!spirvMode()) return true;
  return !deviceHasExtension("cl_intel_media_block_io") || deviceHasExtension("cl_intel_spirv_media_block_io");
}

// Creates and builds a program on the default device. On failure returns nullptr and puts the
// build log into *log (when given); the caller asserts.
// `fromSpirv`: compiled to SPIR-V and created with clCreateProgramWithIL (by default in
// ISG_TEST_SPIRV runs only).
inline cl_program buildProgram(const std::string& src, const std::string& options = "",
                               std::string* log = nullptr, cl_int* status = nullptr,
                               bool fromSpirv = spirvMode()) {
  const ClEnv& e = env();
  const char* text = src.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = nullptr;
  if (fromSpirv) {
    std::string module, why;
    if (!compileToSpirv(src, options, &module, &why)) {
      if (log) *log = why;
      if (status) *status = CL_BUILD_PROGRAM_FAILURE;
      return nullptr;
    }
    p = clCreateProgramWithIL(e.context, module.data(), module.size(), &err);
  } else {
    p = clCreateProgramWithSource(e.context, 1, &text, nullptr, &err);
  }
  if (!p) {
    if (status) *status = err;
    return nullptr;
  }
  err = clBuildProgram(p, 1, &e.device, options.c_str(), nullptr, nullptr);
  if (status) *status = err;
  if (log) *log = buildLog(p, e.device);
  if (err != CL_SUCCESS) {
    clReleaseProgram(p);
    return nullptr;
  }
  return p;
}

// Sets arguments 0, 1, ... of `k` to `args`, each by value with its own size (cl_mem, cl_uint,
// ...). Fails the test on an error: call it inside ASSERT_NO_FATAL_FAILURE.
template <class... Args>
void setKernelArgs(cl_kernel k, const Args&... args) {
  cl_uint index = 0;
  auto set = [&](const void* value, size_t size) {
    cl_int err = clSetKernelArg(k, index, size, value);
    ASSERT_EQ(err, CL_SUCCESS) << "clSetKernelArg(" << index << ")";
    ++index;
  };
  (set(&args, sizeof args), ...);
}

// What the application sees of kernel `k`: `args` arguments and, when given, `owner` as its
// program (the application's handle, never one the layer made).
inline void expectKernelInfo(cl_kernel k, cl_uint args, cl_program owner = nullptr) {
  cl_uint n = 0;
  ISG_CL_CHECK(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof n, &n, nullptr));
  EXPECT_EQ(n, args);
  if (!owner) return;
  cl_program p = nullptr;
  ISG_CL_CHECK(clGetKernelInfo(k, CL_KERNEL_PROGRAM, sizeof p, &p, nullptr));
  EXPECT_EQ(p, owner);
}

}  // namespace isgtest
