// SPDX-License-Identifier: MIT
// OpenCL C printf on every build path, what it prints checked against the spec's words
// (OpenCL C 6.15.14): conversions with flags and precision, long, strings and characters, and
// printf's own result. (Not vectors: NVIDIA's driver 580 fails a kernel it builds itself that
// prints one, and prints them wrongly from PTX; docs/design.md.) The program also calls an Intel builtin, so the layer
// rewrites it: on NVIDIA it builds through NVIDIA's compiler (auto), the layer's own front end
// (ISG_NVIDIA_FRONTEND=layer, run-frontend.sh) or, from SPIR-V, the layer's PTX (run-spirv.sh).
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::env;

// What the process writes to its standard output while `run` runs (drivers print from their
// own threads or when the queue finishes, through stdio or straight to the descriptor).
std::string capturedStdout(const std::function<void()>& run) {
  std::fflush(stdout);
  char path[] = "/tmp/isg-printf-XXXXXX";
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
    const std::string printed = capturedStdout([&] {
      const size_t global = kItems, local = kItems;
      EXPECT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr),
                CL_SUCCESS);
      EXPECT_EQ(clFinish(env().queue), CL_SUCCESS);
    });
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, br, CL_TRUE, 0, r.size() * 4, r.data(), 0, nullptr, nullptr));
    // Work-items print in no particular order: each line once.
    std::vector<std::string> lines;
    std::istringstream split(printed);
    for (std::string line; std::getline(split, line);) lines.push_back(line);
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

}  // namespace
