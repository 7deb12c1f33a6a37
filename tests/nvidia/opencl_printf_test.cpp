// SPDX-License-Identifier: MIT
// OpenCL C printf on every build path, what it prints checked against the spec's words
// (OpenCL C 6.15.14): conversions with flags and precision, long, strings and characters, and
// printf's own result; vector conversions, whose elements print with the conversion's flags,
// width and precision, separated by commas. The programs also call an Intel builtin, so the
// layer rewrites them: on NVIDIA the first builds through NVIDIA's compiler (auto), the layer's
// own front end (ISG_NVIDIA_FRONTEND=layer, run-frontend.sh) or, from SPIR-V, the layer's PTX
// (run-spirv.sh); the one with vectors through the layer's front end under auto too (NVIDIA's
// driver 580 fails a kernel it builds itself that prints one; docs/design.md).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::env;

// What the process writes to its standard output while `run` runs (drivers print from their
// own threads or when the queue finishes, through stdio or straight to the descriptor).
std::string capturedStdout(const std::function<void()>& run) {
  std::fflush(stdout);
  std::string pattern = ::testing::TempDir() + "isg-printf-XXXXXX";
  char* path = pattern.data();
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  const int saved = dup(1);
  dup2(fd, 1);
  run();
  std::fflush(stdout);
  dup2(saved, 1);
  close(saved);
  close(fd);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  unlink(path);
  return text;
}

// The lines `run` prints, each once.
std::vector<std::string> printedLines(const std::function<void()>& run) {
  std::vector<std::string> lines;
  std::istringstream split(capturedStdout(run));
  for (std::string line; std::getline(split, line);) lines.push_back(line);
  return lines;
}

TEST(OpenClLibrary, PrintfPrintsWhatTheSpecSays) {
  ISG_REQUIRE_ENV();
  const std::string src = R"(
    kernel void pf(global const float* f, global int* r) {
      const int i = get_global_id(0);
      const uint lane = intel_sub_group_shuffle(get_sub_group_local_id(), get_sub_group_local_id());
      r[i] = printf("item %d lane %u f=%.2f e=%+.3e l=%ld s=%s c=%c x=%#06x%%\n", i, lane, f[i], f[i] * 1000.0f,
                    (long)i * 10000000000L, "text", 'a' + i, 255 + i);
      if (i == 0) r[4] = printf("no arguments\n");
    })";
  constexpr int kItems = 4;
  for (const char* std : {"", "-cl-std=CL1.2", "-cl-std=CL2.0"}) {
    SCOPED_TRACE(std::string("options '") + std + "'");
    std::string log;
    cl_program p = isgtest::buildProgram(src, std, &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "pf", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    std::vector<float> f = {1.25f, -2.5f, 0.1f, 3.0f};  // no ties at two decimals
    std::vector<cl_int> r(kItems + 1, 99);
    cl_mem bf = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, f.size() * 4, f.data(), &err);
    cl_mem br = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, r.size() * 4, r.data(), &err);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bf, br));
    // Work-items print in no particular order: each line once.
    const std::vector<std::string> lines = printedLines([&] {
      const size_t global = kItems, local = kItems;
      EXPECT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
                CL_SUCCESS);
      EXPECT_EQ(clFinish(env().queue), CL_SUCCESS);
    });
    const std::string printed = ::testing::PrintToString(lines);
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, br, CL_TRUE, 0, r.size() * 4, r.data(), 0, nullptr, nullptr));
    for (int i = 0; i < kItems; ++i) {
      char e[32];
      std::snprintf(e, sizeof e, "%+.3e", double(f[i] * 1000.0f));
      char x[16];
      std::snprintf(x, sizeof x, "%#06x", 255 + i);
      std::ostringstream want;
      want << "item " << i << " lane " << i << " f=" << (i == 0 ? "1.25" : i == 1 ? "-2.50" : i == 2 ? "0.10" : "3.00")
           << " e=" << e << " l=" << i * 10000000000L << " s=text c=" << char('a' + i) << " x=" << x << "%";
      EXPECT_EQ(std::count(lines.begin(), lines.end(), want.str()), 1) << want.str() << "\nprinted:\n" << printed;
      // 0 on success, -1 otherwise, says the spec; Intel's CPU runtime returns the number of
      // characters printed, as C's printf does.
      EXPECT_GE(r[i], 0) << "printf's result, work-item " << i;
    }
    EXPECT_EQ(std::count(lines.begin(), lines.end(), "no arguments"), 1) << printed;
    EXPECT_GE(r[kItems], 0);
    EXPECT_EQ(lines.size(), size_t(kItems + 1)) << printed;
    clReleaseMemObject(bf);
    clReleaseMemObject(br);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

// `format` (one C conversion) applied to each of `values`, joined by commas: a vector
// conversion as the spec prints it.
template <class T>
std::string elements(const char* format, const std::vector<T>& values) {
  std::string out;
  for (size_t k = 0; k < values.size(); ++k) {
    char text[64];
    std::snprintf(text, sizeof text, format, values[k]);
    out += (k ? "," : "") + std::string(text);
  }
  return out;
}

TEST(OpenClLibrary, PrintfPrintsVectorsElementByElement) {
  ISG_REQUIRE_ENV();
  if (isgtest::spirvMode() && isgtest::onPocl() && !isgtest::nvidiaDevice())
    GTEST_SKIP() << "PoCL 3.1 misprints the char, short and long vectors of a SPIR module's printf (the layer "
                    "hands it the module as the SPIR-V reader writes it; docs/spirv.md, known limits)";
  if (isgtest::nvidiaCompilerOnly())
    GTEST_SKIP() << "ISG_NVIDIA_FRONTEND=driver: NVIDIA's compiler and its vprintf misprint vectors (docs/design.md)";
  const std::string src = R"(
    kernel void pv(global const float4* f, global const int2* n, global const uchar4* c, global const short8* s,
                   global const ulong2* l) {
      const int i = get_global_id(0);
      const uint lane = intel_sub_group_shuffle(get_sub_group_local_id(), get_sub_group_local_id());
      printf("item %d lane %u f=%.2v4hlf n=%v2hld c=%#v4hhx s=%+4v8hd l=%v2lu\n", i, lane, f[i], n[i], c[i], s[i],
             l[i]);
    })";
  constexpr int kItems = 4;
  std::vector<cl_float> f(kItems * 4);
  std::vector<cl_int> n(kItems * 2);
  std::vector<cl_uchar> c(kItems * 4);
  std::vector<cl_short> s(kItems * 8);
  std::vector<cl_ulong> l(kItems * 2);
  for (size_t k = 0; k < f.size(); ++k) f[k] = float(int(k * 37 % 23) - 11) * 0.25f;  // no ties at two decimals
  for (size_t k = 0; k < n.size(); ++k) n[k] = int(k * 1000003 % 2000) - 1000;
  for (size_t k = 0; k < c.size(); ++k) c[k] = cl_uchar(k * 53 + 1);
  for (size_t k = 0; k < s.size(); ++k) s[k] = cl_short(int(k * 997 % 600) - 300);
  for (size_t k = 0; k < l.size(); ++k) l[k] = 10000000000ull * (k + 1) + k;
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL2.0"}) {
    SCOPED_TRACE(std::string("options '") + std + "'");
    std::string log;
    cl_program p = isgtest::buildProgram(src, std, &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "pv", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    auto buffer = [&](auto& host) {
      cl_mem m = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                host.size() * sizeof(host[0]), host.data(), &err);
      EXPECT_EQ(err, CL_SUCCESS);
      return m;
    };
    cl_mem bf = buffer(f), bn = buffer(n), bc = buffer(c), bs = buffer(s), bl = buffer(l);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bf, bn, bc, bs, bl));
    const std::vector<std::string> lines = printedLines([&] {
      const size_t global = kItems, local = kItems;
      EXPECT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
                CL_SUCCESS);
      EXPECT_EQ(clFinish(env().queue), CL_SUCCESS);
    });
    for (int i = 0; i < kItems; ++i) {
      auto part = [i](const auto& v, size_t lanes) {
        return std::vector<std::decay_t<decltype(v[0])>>(v.begin() + i * lanes, v.begin() + (i + 1) * lanes);
      };
      std::vector<double> fd;
      for (float x : part(f, 4)) fd.push_back(x);
      std::vector<int> ci, si;
      for (cl_uchar x : part(c, 4)) ci.push_back(x);
      for (cl_short x : part(s, 8)) si.push_back(x);
      const std::string want = "item " + std::to_string(i) + " lane " + std::to_string(i) +
                               " f=" + elements("%.2f", fd) + " n=" + elements("%d", part(n, 2)) +
                               " c=" + elements("%#hhx", ci) + " s=" + elements("%+4hd", si) +
                               " l=" + elements("%llu", part(l, 2));
      EXPECT_EQ(std::count(lines.begin(), lines.end(), want), 1)
          << want << "\nprinted:\n" << ::testing::PrintToString(lines);
    }
    EXPECT_EQ(lines.size(), size_t(kItems)) << ::testing::PrintToString(lines);
    for (cl_mem m : {bf, bn, bc, bs, bl}) clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

}  // namespace
