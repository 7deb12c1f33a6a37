// SPDX-License-Identifier: MIT
// 16 threads, each with its own queue, program and kernel, building and enqueueing at once.
#include <atomic>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

// One thread's work; returns what went wrong, empty when all was right.
std::string buildAndRun(int index) {
  std::ostringstream problem;
  const size_t S = (index % 3 == 0) ? 8 : (index % 3 == 1) ? 16 : 32;
  const std::string source = isgtest::rotateKernelSource(
      "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))");
  cl_int err = CL_SUCCESS;
  cl_command_queue queue = clCreateCommandQueue(env().context, env().device, 0, &err);
  if (err != CL_SUCCESS) return "queue: " + std::to_string(err);
  const char* text = source.c_str();
  cl_program p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
  err = clBuildProgram(p, 1, &env().device, ("-DTHREAD=" + std::to_string(index)).c_str(), nullptr,
                       nullptr);
  if (err != CL_SUCCESS)
    return "build: " + std::to_string(err) + isgtest::buildLog(p, env().device);
  cl_kernel k = clCreateKernel(p, "rotate_lanes", &err);
  if (err != CL_SUCCESS) return "kernel: " + std::to_string(err);
  for (int round = 0; round < 4; ++round) {
    const size_t local = 64, global = 64 * (round + 1);
    std::vector<cl_int> in = isgtest::iota(global, index * 1000 + round);
    std::vector<cl_int> out(global, -1);
    cl_mem inBuf = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                  global * sizeof(cl_int), in.data(), &err);
    cl_mem outBuf =
        clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, global * sizeof(cl_int), nullptr, &err);
    clSetKernelArg(k, 0, sizeof inBuf, &inBuf);
    clSetKernelArg(k, 1, sizeof outBuf, &outBuf);
    err = clEnqueueNDRangeKernel(queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
    if (err == CL_SUCCESS)
      err = clEnqueueReadBuffer(queue, outBuf, CL_TRUE, 0, global * sizeof(cl_int), out.data(), 0,
                                nullptr, nullptr);
    clReleaseMemObject(inBuf);
    clReleaseMemObject(outBuf);
    if (err != CL_SUCCESS) return "enqueue: " + std::to_string(err);
    if (out != isgtest::rotateExpected(in, global, local, S))
      problem << "thread " << index << " round " << round << ": wrong results (S=" << S << ")";
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
  clReleaseCommandQueue(queue);
  return problem.str();
}

TEST(Concurrency, SixteenThreadsBuildAndEnqueue) {
  ISG_REQUIRE_ENV();
  constexpr int kThreads = 16;
  std::vector<std::string> problems(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([i, &problems] { problems[i] = buildAndRun(i); });
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(problems[i], "") << "thread " << i;
}

}  // namespace

namespace {

// Issue 13.4: two threads dropping the last two references of a rewritten kernel at once. The
// layer read the driver's count and then released, so both threads could read 2 and the
// kernel's record stayed behind; a plain kernel the driver later put at the same address then
// inherited it (its argument 2 looked hidden: CL_INVALID_ARG_INDEX).
TEST(Concurrency, TwoThreadsReleasingOneKernelDropItsRecord) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_program rewritten = isgtest::buildProgram(
      isgtest::rotateKernelSource("__attribute__((intel_reqd_sub_group_size(16)))"), "", &log);
  ASSERT_NE(rewritten, nullptr) << log;
  cl_program plain = isgtest::buildProgram(
      "kernel void three(global int* a, global int* b, global int* c) { c[0] = a[0] + b[0]; }\n",
      "", &log);
  ASSERT_NE(plain, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_mem buf = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  int stale = 0;
  for (int round = 0; round < 200 && stale == 0; ++round) {
    cl_kernel k = clCreateKernel(rewritten, "rotate_lanes", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clRetainKernel(k), CL_SUCCESS);
    std::atomic<int> ready{0};
    auto release = [&] {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
      clReleaseKernel(k);
    };
    std::thread a(release), b(release);
    a.join();
    b.join();
    // New plain kernels, some at the freed address: all three arguments are theirs.
    std::vector<cl_kernel> fresh;
    for (int i = 0; i < 4; ++i) {
      fresh.push_back(clCreateKernel(plain, "three", &err));
      ASSERT_EQ(err, CL_SUCCESS);
      if (clSetKernelArg(fresh.back(), 2, sizeof buf, &buf) != CL_SUCCESS) ++stale;
    }
    for (cl_kernel f : fresh) clReleaseKernel(f);
  }
  EXPECT_EQ(stale, 0) << "a released kernel's record attached to a new kernel";
  clReleaseMemObject(buf);
  clReleaseProgram(plain);
  clReleaseProgram(rewritten);
}

}  // namespace
