// SPDX-License-Identifier: MIT
// Host plumbing shared by the real-world tests: read a kernel file, build it through the layer,
// move float buffers, launch. Every helper fails the test (never skips) on an OpenCL error.
#pragma once

#include <CL/cl.h>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace isgrw {

inline std::string readKernel(const std::string& file) {
  const std::string path = std::string(ISG_REALWORLD_KERNELS) + "/" + file;
  std::ifstream in(path, std::ios::binary);
  if (!in) ADD_FAILURE() << "cannot read " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::vector<float> randomFloats(std::size_t n, float lo, float hi, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

// A buffer that releases itself; `data` is copied in when given.
struct Buffer {
  cl_mem mem = nullptr;
  std::size_t count = 0;
  Buffer(std::size_t n, const std::vector<float>* data = nullptr) : count(n) {
    cl_int err = CL_SUCCESS;
    cl_mem_flags flags = CL_MEM_READ_WRITE | (data ? CL_MEM_COPY_HOST_PTR : 0);
    mem = clCreateBuffer(isgtest::env().context, flags, n * sizeof(float),
                         data ? const_cast<float*>(data->data()) : nullptr, &err);
  }
  explicit Buffer(const std::vector<float>& data) : Buffer(data.size(), &data) {}
  ~Buffer() {
    if (mem) clReleaseMemObject(mem);
  }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::vector<float> read() const {
    std::vector<float> out(count);
    cl_int err = clEnqueueReadBuffer(isgtest::env().queue, mem, CL_TRUE, 0, count * sizeof(float),
                                     out.data(), 0, nullptr, nullptr);
    EXPECT_EQ(err, CL_SUCCESS) << "clEnqueueReadBuffer";
    return out;
  }
};

// Owns a program and the kernels created from it.
struct Program {
  cl_program program = nullptr;
  std::vector<cl_kernel> kernels;
  ~Program() {
    for (cl_kernel k : kernels) clReleaseKernel(k);
    if (program) clReleaseProgram(program);
  }
  cl_kernel kernel(const std::string& name) {
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(program, name.c_str(), &err);
    EXPECT_EQ(err, CL_SUCCESS) << "clCreateKernel(" << name << ")";
    if (k) kernels.push_back(k);
    return k;
  }
};

template <typename T>
void setArg(cl_kernel k, cl_uint index, const T& value) {
  cl_int err = clSetKernelArg(k, index, sizeof(T), &value);
  ASSERT_EQ(err, CL_SUCCESS) << "clSetKernelArg(" << index << ")";
}

inline void run2d(cl_kernel k, std::size_t gx, std::size_t gy, std::size_t lx, std::size_t ly) {
  const std::size_t global[2] = {gx, gy}, local[2] = {lx, ly};
  ISG_CL_CHECK(clEnqueueNDRangeKernel(isgtest::env().queue, k, 2, nullptr, global, local, 0,
                                      nullptr, nullptr));
  ISG_CL_CHECK(clFinish(isgtest::env().queue));
}

}  // namespace isgrw
