// SPDX-License-Identifier: MIT
// cl_khr_integer_dot_product (OpenCL C 3.0 section 6.15.x): dot and dot_acc_sat of 4 x 8-bit
// vectors and of packed uints, in all four signednesses. Intel's drivers offer the extension and
// Intel-targeted code calls it (ggml's flash attention of q8_0, unconditionally); NVIDIA's driver
// (580) lacks it, and the layer offers it there through its front end, whose PTX runtime defines
// the functions with dp4a; the device queries of the extension must then say so. Each function is checked against a
// host model of the spec (products exact, the accumulation saturating) under every -cl-std, with
// the extension's pragma, and with -DINTEL through a program the layer rewrites. Devices without
// the extension skip, saying so (PoCL); Intel's CPU runtime runs it natively
// (native.intel_opencl_c).
#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::env;

constexpr unsigned kFunctions = 16;

const char* kSource = R"(
  #pragma OPENCL EXTENSION cl_khr_integer_dot_product : enable
  #ifdef INTEL
  #define VIA(x) (x + intel_sub_group_shuffle(0u, 0u))
  #else
  #define VIA(x) (x)
  #endif
  #if defined(__opencl_c_integer_dot_product_input_4x8bit) && defined(__opencl_c_integer_dot_product_input_4x8bit_packed)
  #define AVAILABLE 1
  #else
  #define AVAILABLE 0
  #endif
  kernel void available(global int* out) { out[0] = AVAILABLE; }
  kernel void dots(global const uint* a, global const uint* b, global const int* acc, global int* out) {
  #if AVAILABLE
    const size_t i = get_global_id(0);
    const uint x = VIA(a[i]), y = b[i];
    const int c = acc[i];
    const uchar4 ux = as_uchar4(x), uy = as_uchar4(y);
    const char4 sx = as_char4(x), sy = as_char4(y);
    global int* o = out + i * 16;
    o[0] = (int)dot(ux, uy);
    o[1] = dot(sx, sy);
    o[2] = dot(ux, sy);
    o[3] = dot(sx, uy);
    o[4] = (int)dot_acc_sat(ux, uy, (uint)c);
    o[5] = dot_acc_sat(sx, sy, c);
    o[6] = dot_acc_sat(ux, sy, c);
    o[7] = dot_acc_sat(sx, uy, c);
    o[8] = (int)dot_4x8packed_uu_uint(x, y);
    o[9] = dot_4x8packed_ss_int(x, y);
    o[10] = dot_4x8packed_us_int(x, y);
    o[11] = dot_4x8packed_su_int(x, y);
    o[12] = (int)dot_acc_sat_4x8packed_uu_uint(x, y, (uint)c);
    o[13] = dot_acc_sat_4x8packed_ss_int(x, y, c);
    o[14] = dot_acc_sat_4x8packed_us_int(x, y, c);
    o[15] = dot_acc_sat_4x8packed_su_int(x, y, c);
  #endif
  })";

// The spec's products of element i of a and b (element 0 the least significant byte of a
// packed uint), summed exactly.
int64_t dotModel(uint32_t a, uint32_t b, bool signedA, bool signedB) {
  int64_t sum = 0;
  for (unsigned i = 0; i < 4; ++i) {
    const uint32_t ea = (a >> (8 * i)) & 0xff, eb = (b >> (8 * i)) & 0xff;
    const int64_t va = signedA ? int64_t(int8_t(uint8_t(ea))) : int64_t(ea);
    const int64_t vb = signedB ? int64_t(int8_t(uint8_t(eb))) : int64_t(eb);
    sum += va * vb;
  }
  return sum;
}

int32_t saturatingInt(int64_t v) { return int32_t(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX)); }
uint32_t saturatingUint(int64_t v) { return uint32_t(std::clamp<int64_t>(v, 0, UINT32_MAX)); }

// One expected int per function, in the kernel's order.
std::vector<int32_t> model(uint32_t a, uint32_t b, int32_t acc) {
  const bool s[4][2] = {{false, false}, {true, true}, {false, true}, {true, false}};  // uu ss us su
  std::vector<int32_t> r(kFunctions);
  for (unsigned f = 0; f < 4; ++f) {
    const int64_t d = dotModel(a, b, s[f][0], s[f][1]);
    const int32_t plain = f == 0 ? int32_t(uint32_t(d)) : int32_t(d);
    const int32_t sat = f == 0 ? int32_t(saturatingUint(d + int64_t(uint32_t(acc)))) : saturatingInt(d + acc);
    r[f] = r[8 + f] = plain;
    r[4 + f] = r[12 + f] = sat;
  }
  return r;
}

TEST(OpenClLibrary, IntegerDotProductMatchesTheSpec) {
  ISG_REQUIRE_ENV();
  if (!isgtest::deviceHasExtension("cl_khr_integer_dot_product"))
    GTEST_SKIP() << "the device does not offer cl_khr_integer_dot_product";
  {
    // A device with the extension answers its queries: both input forms (the functions below
    // use both), and OpenCL C 3.0 devices list their feature macros.
    cl_device_integer_dot_product_capabilities_khr caps = 0;
    ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_INTEGER_DOT_PRODUCT_CAPABILITIES_KHR, sizeof caps, &caps,
                                 nullptr));
    EXPECT_EQ(caps & (CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR),
              CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_PACKED_KHR | CL_DEVICE_INTEGER_DOT_PRODUCT_INPUT_4x8BIT_KHR);
    for (cl_device_info q : {CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_8BIT_KHR,
                             CL_DEVICE_INTEGER_DOT_PRODUCT_ACCELERATION_PROPERTIES_4x8BIT_PACKED_KHR}) {
      size_t size = 0;
      ISG_CL_CHECK(clGetDeviceInfo(env().device, q, 0, nullptr, &size));
      EXPECT_EQ(size, sizeof(cl_device_integer_dot_product_acceleration_properties_khr));
    }
    size_t size = 0;
    if (clGetDeviceInfo(env().device, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &size) == CL_SUCCESS) {
      std::vector<cl_name_version> features(size / sizeof(cl_name_version));
      ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_OPENCL_C_FEATURES, size, features.data(), nullptr));
      for (const char* want : {"__opencl_c_integer_dot_product_input_4x8bit",
                               "__opencl_c_integer_dot_product_input_4x8bit_packed"}) {
        bool found = false;
        for (const cl_name_version& f : features) found = found || std::string(f.name) == want;
        EXPECT_TRUE(found) << want << " is not among CL_DEVICE_OPENCL_C_FEATURES";
      }
    }
  }
  // Edge cases first (the extremes of each signedness, accumulators at the saturation bounds
  // for both the int and the uint reading), then a spread of byte patterns.
  std::vector<uint32_t> a = {0x80808080u, 0x7f7f7f7fu, 0xffffffffu, 0x80808080u, 0xffffffffu, 0x01ff7f80u,
                             0xffffffffu, 0x80808080u, 0u,          0x12345678u};
  std::vector<uint32_t> b = {0x80808080u, 0x7f7f7f7fu, 0xffffffffu, 0x7f7f7f7fu, 0x80808080u, 0x80ff017fu,
                             0xffffffffu, 0xffffffffu, 0xffffffffu, 0x9abcdef0u};
  std::vector<int32_t> acc = {INT32_MAX - 5, INT32_MIN + 3, -1, INT32_MAX, INT32_MIN, 0,
                              int32_t(0xfffc0000u), INT32_MIN + 70000, 42, -123456};
  uint32_t seed = 12345;
  auto next = [&seed] { return seed = seed * 1664525u + 1013904223u; };
  const size_t n = 256;
  while (a.size() < n) {
    a.push_back(next());
    b.push_back(next());
    acc.push_back(int32_t(next()) >> (next() % 20));
  }
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    for (const char* intel : {"", " -DINTEL"}) {
      const std::string options = std::string(std) + intel;
      SCOPED_TRACE(options);
      std::string log;
      cl_program p = isgtest::buildProgram(kSource, options, &log);
      ASSERT_NE(p, nullptr) << log;
      cl_int err = CL_SUCCESS;
      // OpenCL C 2.0 on, the extension's feature macros say the functions are there (Intel's
      // compilers have them from 2.0 only, as Clang's header; 1.2 may have them).
      cl_int available = -1;
      {
        cl_kernel probe = clCreateKernel(p, "available", &err);
        ASSERT_EQ(err, CL_SUCCESS);
        cl_mem f = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 4, nullptr, &err);
        ASSERT_EQ(err, CL_SUCCESS);
        ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(probe, f));
        const size_t one = 1;
        ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, probe, 1, nullptr, &one, &one, 0, nullptr, nullptr));
        ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, f, CL_TRUE, 0, 4, &available, 0, nullptr, nullptr));
        clReleaseMemObject(f);
        clReleaseKernel(probe);
      }
      if (std::string(std) != "-cl-std=CL1.2") {
        EXPECT_EQ(available, 1) << "the feature macros are missing";
      }
      if (available != 1) {
        clReleaseProgram(p);
        continue;
      }
      cl_kernel k = clCreateKernel(p, "dots", &err);
      ASSERT_EQ(err, CL_SUCCESS);
      std::vector<int32_t> out(n * kFunctions, 0x5a5a5a5a);
      auto buffer = [&](void* data, size_t bytes) {
        cl_mem m = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, data, &err);
        EXPECT_EQ(err, CL_SUCCESS);
        return m;
      };
      cl_mem ba = buffer(a.data(), n * 4), bb = buffer(b.data(), n * 4), bc = buffer(acc.data(), n * 4),
             bo = buffer(out.data(), out.size() * 4);
      ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, ba, bb, bc, bo));
      const size_t global = n, local = 32;
      ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
      ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bo, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
      const char* names[kFunctions] = {"dot uu", "dot ss", "dot us", "dot su", "dot_acc_sat uu", "dot_acc_sat ss",
                                       "dot_acc_sat us", "dot_acc_sat su", "packed uu", "packed ss", "packed us",
                                       "packed su", "acc_sat packed uu", "acc_sat packed ss", "acc_sat packed us",
                                       "acc_sat packed su"};
      unsigned wrong = 0;
      for (size_t i = 0; i < n && wrong < 8; ++i) {
        const std::vector<int32_t> want = model(a[i], b[i], acc[i]);
        for (unsigned f = 0; f < kFunctions; ++f)
          if (out[i * kFunctions + f] != want[f] && ++wrong <= 8)
            ADD_FAILURE() << names[f] << " of a=0x" << std::hex << a[i] << " b=0x" << b[i] << " acc=0x" << acc[i]
                          << std::dec << ": " << out[i * kFunctions + f] << ", the spec says " << want[f];
      }
      for (cl_mem m : {ba, bb, bc, bo}) clReleaseMemObject(m);
      clReleaseKernel(k);
      clReleaseProgram(p);
    }
  }
}

}  // namespace
