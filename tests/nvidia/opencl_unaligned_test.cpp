// SPDX-License-Identifier: MIT
// Vector loads and stores at addresses aligned to their elements but not to the vector: OpenCL C
// leaves them undefined, Intel's GPUs and CPU runtime perform them, and Intel-targeted code
// relies on that (ggml's rms_norm reads rows of 1025 floats through float4 pointers). PTX's
// vector accesses fault there; the layer's PTX path checks each access whose alignment it
// cannot prove (rewriter/src/ptx/ptx_unaligned.h). The program uses half, so on NVIDIA it builds
// through the layer's front end under auto too. Checked against a host model, on Intel's CPU
// runtime (native.intel_opencl_c) and on NVIDIA devices through the layer; other devices may
// fault (PoCL's x86 code for an aligned vector type does), so the test skips there.
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::env;

constexpr unsigned kRows = 8, kRowFloats = 1025, kVectors = 256;  // 1024 of each row's floats

const char* kSource = R"(
  #pragma OPENCL EXTENSION cl_khr_fp16 : enable
  kernel void rows(global const char* src, ulong rowBytes, global float* sums, global char* out,
                   global const half* h, global float* hsums, uint vectors) {
    const size_t row = get_global_id(0);
    global const float4* x = (global const float4*)(src + row * rowBytes);
    global float4* y = (global float4*)(out + row * rowBytes);
    float4 s = 0.0f;
    for (uint i = 0; i < vectors; ++i) {
      s += x[i];
      y[i] = x[i] * 2.0f;
    }
    sums[row] = s.x + s.y + s.z + s.w;
    global const half4* hv = (global const half4*)(h + row * 1025);
    float4 t = 0.0f;
    for (uint i = 0; i < vectors; ++i) t += convert_float4(hv[i]);
    hsums[row] = t.x + t.y + t.z + t.w;
  })";

// Intel's drivers by their platform (PoCL on an Intel CPU faults on such accesses too).
bool toleratesUnalignedVectors() { return isgtest::nvidiaDevice() || isgtest::onIntelsDriver(); }

TEST(OpenClLibrary, VectorsAtElementAlignedAddresses) {
  ISG_REQUIRE_ENV();
  if (!toleratesUnalignedVectors())
    GTEST_SKIP() << "only Intel's drivers and NVIDIA devices through the layer perform such accesses";
  if (isgtest::nvidiaCompilerOnly())
    GTEST_SKIP() << "ISG_NVIDIA_FRONTEND=driver: NVIDIA's compiler's vector accesses fault there (docs/design.md)";
  const std::string extensions = isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS);
  // The layer's front end offers half on every NVIDIA device; Intel's CPU runtime may not.
  if (!isgtest::nvidiaDevice() && extensions.find("cl_khr_fp16") == std::string::npos)
    GTEST_SKIP() << "the device offers no half (cl_khr_fp16), which the kernel reads";
  ASSERT_NE(extensions.find("cl_khr_fp16"), std::string::npos) << "the layer offers half on NVIDIA devices";
  // Small integers: every sum is exact in any order.
  std::vector<float> src(kRows * kRowFloats);
  for (size_t i = 0; i < src.size(); ++i) src[i] = float(int(i * 7 % 13) - 6);
  std::vector<cl_half> h(kRows * kRowFloats);
  std::vector<float> hf(h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    hf[i] = float(int(i * 5 % 11) - 5);
    const int v = int(hf[i]);  // |v| <= 6: sign, biased exponent and mantissa of a small integer
    cl_half bits = 0;
    if (v != 0) {
      const unsigned a = unsigned(v < 0 ? -v : v);
      unsigned e = 0;
      while ((2u << e) <= a) ++e;
      bits = cl_half((v < 0 ? 0x8000 : 0) | ((e + 15) << 10) | (((a << 10) >> e) & 0x3ff));
    }
    h[i] = bits;
  }
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    SCOPED_TRACE(std);
    std::string log;
    cl_program p = isgtest::buildProgram(kSource, std, &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "rows", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<float> out(src.size(), -100.0f), sums(kRows, -1.0f), hsums(kRows, -1.0f);
    auto buffer = [&](void* data, size_t bytes) {
      cl_mem b = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, data, &err);
      EXPECT_EQ(err, CL_SUCCESS);
      return b;
    };
    cl_mem bs = buffer(src.data(), src.size() * 4), bo = buffer(out.data(), out.size() * 4),
           bsum = buffer(sums.data(), kRows * 4), bh = buffer(h.data(), h.size() * 2),
           bhs = buffer(hsums.data(), kRows * 4);
    const cl_ulong rowBytes = kRowFloats * 4;
    const cl_uint vectors = kVectors;
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bs, rowBytes, bsum, bo, bh, bhs, vectors));
    const size_t global = kRows, local = 1;
    ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
    ASSERT_EQ(clFinish(env().queue), CL_SUCCESS) << "the queue died: a vector access faulted";
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bo, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bsum, CL_TRUE, 0, kRows * 4, sums.data(), 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bhs, CL_TRUE, 0, kRows * 4, hsums.data(), 0, nullptr, nullptr));
    for (unsigned r = 0; r < kRows; ++r) {
      float s = 0, t = 0;
      for (unsigned i = 0; i < kVectors * 4; ++i) {
        s += src[r * kRowFloats + i];
        t += hf[r * kRowFloats + i];
        ASSERT_EQ(out[r * kRowFloats + i], 2.0f * src[r * kRowFloats + i]) << "row " << r << " float " << i;
      }
      ASSERT_EQ(out[r * kRowFloats + kVectors * 4], -100.0f) << "row " << r << ": its last float is not written";
      EXPECT_EQ(sums[r], s) << "row " << r;
      EXPECT_EQ(hsums[r], t) << "row " << r << " (half4)";
    }
    for (cl_mem b : {bs, bo, bsum, bh, bhs}) clReleaseMemObject(b);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

}  // namespace
