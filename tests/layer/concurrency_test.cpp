// SPDX-License-Identifier: MIT
// 16 threads, each with its own queue, program and kernel, building and enqueueing at once.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
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
    std::vector<cl_int> out;
    const std::string failed = isgtest::tryRunIntKernel(k, in, &out, global, local, queue);
    if (!failed.empty()) return failed;
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

// A program whose kernels are made from the application's program itself (one from a
// rewritten program's binary) is freed by the driver when its last kernel goes, after the
// application's clReleaseProgram found the kernel's reference still there (or a finished
// launch's, which PoCL drops in the background). Its record must not attach to the next
// program the driver puts at that address: a plain program built there took the record's
// manifest and its launch failed setting a hidden argument (Misuse.ConcurrentBuildsOfOneProgram,
// once in CI).
TEST(Concurrency, AProgramFreedBehindTheLayersBackLeavesNoRecord) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_program original = isgtest::buildProgram(
      isgtest::rotateKernelSource("__attribute__((intel_reqd_sub_group_size(16)))"), "", &log);
  ASSERT_NE(original, nullptr) << log;
  const std::vector<unsigned char> binary = isgtest::programBinary(original);
  clReleaseProgram(original);
  // A plain kernel of the same name and arguments: the record's manifest would fit it.
  const char* plainSource =
      "kernel void rotate_lanes(global const int* in, global int* out) { out[0] = in[0] + 1; }\n";
  cl_program plainBuilt = isgtest::buildProgram(plainSource, "", &log);
  ASSERT_NE(plainBuilt, nullptr) << log;
  const std::vector<unsigned char> plainBinary = isgtest::programBinary(plainBuilt);
  clReleaseProgram(plainBuilt);
  cl_int err = CL_SUCCESS;
  cl_mem buf = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 64, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  int reused = 0;
  for (int round = 0; round < 20 && reused < 3; ++round) {
    cl_int status = CL_SUCCESS;
    cl_program fromBinary = isgtest::programFromBinary(binary, &err, &status);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_EQ(clBuildProgram(fromBinary, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS);
    cl_kernel k = clCreateKernel(fromBinary, "rotate_lanes", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    // The program first: the kernel still holds it, so the driver frees it only with the kernel.
    ASSERT_EQ(clReleaseProgram(fromBinary), CL_SUCCESS);
    ASSERT_EQ(clReleaseKernel(k), CL_SUCCESS);
    std::vector<cl_program> fresh;
    for (int i = 0; i < 4; ++i) {
      // From source and from the driver's own binary: both entries create programs.
      cl_program p = i % 2
                         ? isgtest::programFromBinary(plainBinary, &err, &status)
                         : clCreateProgramWithSource(env().context, 1, &plainSource, nullptr, &err);
      ASSERT_EQ(err, CL_SUCCESS);
      fresh.push_back(p);
      reused += p == fromBinary;
      ASSERT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS);
      cl_kernel plain = clCreateKernel(p, "rotate_lanes", &err);
      ASSERT_EQ(err, CL_SUCCESS);
      const std::string where =
          "round " + std::to_string(round) + (p == fromBinary ? ", at the freed address" : "");
      cl_uint args = 0;
      ISG_CL_CHECK(clGetKernelInfo(plain, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr));
      EXPECT_EQ(args, 2u) << where;
      const cl_int in = 41;
      ISG_CL_CHECK(
          clEnqueueWriteBuffer(env().queue, buf, CL_TRUE, 0, sizeof in, &in, 0, nullptr, nullptr));
      for (cl_uint a = 0; a < 2; ++a)
        EXPECT_EQ(clSetKernelArg(plain, a, sizeof buf, &buf), CL_SUCCESS)
            << where << ", argument " << a;
      const size_t one = 1;
      EXPECT_EQ(
          clEnqueueNDRangeKernel(env().queue, plain, 1, nullptr, &one, &one, 0, nullptr, nullptr),
          CL_SUCCESS)
          << where;
      cl_int out = 0;
      ISG_CL_CHECK(
          clEnqueueReadBuffer(env().queue, buf, CL_TRUE, 0, sizeof out, &out, 0, nullptr, nullptr));
      EXPECT_EQ(out, 42) << where;
      clReleaseKernel(plain);
    }
    ISG_CL_CHECK(clFinish(env().queue));
    for (cl_program p : fresh) clReleaseProgram(p);
  }
  clReleaseMemObject(buf);
  if (reused == 0)
    GTEST_SKIP() << "the driver put no new program at a freed one's address: nothing to see";
  std::printf("[concurrency] %d new programs at a freed program's address\n", reused);
}

}  // namespace

namespace {

// Issue 20: 16 threads in five roles on shared and private Intel programs at once, every result
// checked against the host model: builders (build, compile + link, launch, release their own
// programs), launchers (kernels of shared programs, created and released per launch), cloners
// (clones of shared kernels), queriers (sub-group and program queries on shared objects) and
// releasers (kernels and programs created and dropped in every order). A hang fails the test
// after its deadline instead of blocking CTest.
std::string twoKernelSource(size_t S) {
  return "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
         "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n"
         "kernel void rotate_lanes(global const int* in, global int* out) {\n"
         "  size_t gid = get_global_id(0);\n"
         "  uint lid = get_sub_group_local_id();\n"
         "  uint n = get_sub_group_size();\n"
         "  out[gid] = intel_sub_group_shuffle(in[gid], (lid + 1) % n) + 1000 * (int)n;\n"
         "}\n"
         "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n"
         "kernel void sum_lanes(global const int* in, global int* out) {\n"
         "  out[get_global_id(0)] = sub_group_reduce_add(in[get_global_id(0)]) + OFFSET;\n"
         "}\n";
}

std::vector<cl_int> sumExpected(const std::vector<cl_int>& in, size_t local, size_t S, int offset) {
  std::vector<cl_int> expected(in.size());
  for (size_t g = 0; g < in.size(); ++g) {
    size_t groupStart = g / local * local;
    isgtest::SubGroupPosition p = isgtest::subGroupPosition(g - groupStart, local, S);
    cl_int sum = 0;
    for (size_t j = 0; j < p.size; ++j) sum += in[groupStart + p.first + j];
    expected[g] = sum + offset;
  }
  return expected;
}

const size_t kSizes[] = {8, 16, 32};

struct Shared {
  cl_program programs[3] = {};   // twoKernelSource(kSizes[i]) built with -DOFFSET=7
  cl_kernel prototypes[3] = {};  // rotate_lanes of each, cloned by the cloners
};

// Launches `k` (one of the two kernels of a program for size S, offset `offset`) and compares
// with the host model; empty when right.
std::string launchAndCheck(cl_command_queue queue, cl_kernel k, size_t S, int offset, int seed) {
  char name[32] = {};
  clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, nullptr);
  const size_t local = 64, global = 128;
  std::vector<cl_int> in = isgtest::iota(global, seed), out;
  const std::string failed = isgtest::tryRunIntKernel(k, in, &out, global, local, queue);
  if (!failed.empty()) return std::string(name) + ": " + failed;
  std::vector<cl_int> expected = std::string(name) == "rotate_lanes"
                                     ? isgtest::rotateExpected(in, global, local, S)
                                     : sumExpected(in, local, S, offset);
  return out == expected ? "" : std::string(name) + ": wrong results (S=" + std::to_string(S) + ")";
}

std::string builder(int index, cl_command_queue queue) {
  for (int round = 0; round < 3; ++round) {
    const size_t S = kSizes[(index + round) % 3];
    const int offset = index * 10 + round;
    const std::string source = twoKernelSource(S), options = "-DOFFSET=" + std::to_string(offset);
    const char* text = source.c_str();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
    if (round == 1) {  // compile + link instead of build
      err = clCompileProgram(p, 1, &env().device, options.c_str(), 0, nullptr, nullptr, nullptr, nullptr);
      cl_program linked = err == CL_SUCCESS ? clLinkProgram(env().context, 1, &env().device, "", 1,
                                                            &p, nullptr, nullptr, &err)
                                            : nullptr;
      clReleaseProgram(p);
      p = linked;
    } else {
      err = clBuildProgram(p, 1, &env().device, options.c_str(), nullptr, nullptr);
    }
    if (err != CL_SUCCESS) return "build: " + std::to_string(err);
    cl_kernel k = clCreateKernel(p, round == 2 ? "rotate_lanes" : "sum_lanes", &err);
    clReleaseProgram(p);  // the kernel keeps it alive
    if (err != CL_SUCCESS) return "kernel: " + std::to_string(err);
    std::string problem = launchAndCheck(queue, k, S, offset, index + round);
    clReleaseKernel(k);
    if (!problem.empty()) return problem;
  }
  return "";
}

// 12 launches of kernels that `make` returns for a shared program (`which`) and a round; what
// went wrong, empty when all was right.
std::string launchRounds(int index, cl_command_queue queue,
                         const std::function<cl_kernel(int which, int round, cl_int* err)>& make) {
  for (int round = 0; round < 12; ++round) {
    const int which = (index + round) % 3;
    cl_int err = CL_SUCCESS;
    cl_kernel k = make(which, round, &err);
    if (err != CL_SUCCESS) return "kernel: " + std::to_string(err);
    std::string problem = launchAndCheck(queue, k, kSizes[which], 7, index * 100 + round);
    clReleaseKernel(k);
    if (!problem.empty()) return problem;
  }
  return "";
}

std::string launcher(int index, cl_command_queue queue, const Shared& shared) {
  return launchRounds(index, queue, [&](int which, int round, cl_int* err) {
    return clCreateKernel(shared.programs[which], round % 2 ? "rotate_lanes" : "sum_lanes", err);
  });
}

std::string cloner(int index, cl_command_queue queue, const Shared& shared) {
  return launchRounds(index, queue, [&](int which, int, cl_int* err) {
    return clCloneKernel(shared.prototypes[which], err);
  });
}

std::string querier(const Shared& shared) {
  for (int round = 0; round < 200; ++round) {
    const int which = round % 3;
    cl_kernel k = shared.prototypes[which];
    size_t local = 64, size = 0, count = 0, kernels = 0;
    cl_uint args = 0;
    cl_int err = clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                         sizeof local, &local, sizeof size, &size, nullptr);
    if (err == CL_SUCCESS)
      err = clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                    sizeof local, &local, sizeof count, &count, nullptr);
    if (err == CL_SUCCESS) err = clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr);
    if (err == CL_SUCCESS)
      err = clGetProgramInfo(shared.programs[which], CL_PROGRAM_NUM_KERNELS, sizeof kernels,
                             &kernels, nullptr);
    if (err != CL_SUCCESS) return "query: " + std::to_string(err);
    if (size != kSizes[which] || count != 64 / kSizes[which] || args != 2 || kernels != 2)
      return "query answers: size " + std::to_string(size) + " count " + std::to_string(count) +
             " args " + std::to_string(args) + " kernels " + std::to_string(kernels);
  }
  return "";
}

std::string releaser(int index, const Shared& shared) {
  for (int round = 0; round < 40; ++round) {
    const int which = (index + round) % 3;
    cl_kernel all[2] = {};
    cl_uint n = 0;
    cl_int err = clCreateKernelsInProgram(shared.programs[which], 2, all, &n);
    if (err != CL_SUCCESS || n != 2) return "kernels in program: " + std::to_string(err);
    clRetainKernel(all[0]);
    clReleaseKernel(all[0]);
    clReleaseKernel(all[1]);
    clReleaseKernel(all[0]);
    // A program dropped unbuilt, and one whose last reference goes before its kernel's.
    const std::string source = twoKernelSource(kSizes[which]);
    const char* text = source.c_str();
    cl_program p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
    clReleaseProgram(p);
    if (round % 10 == 0) {
      p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
      err = clBuildProgram(p, 1, &env().device, "-DOFFSET=7", nullptr, nullptr);
      cl_kernel k = err == CL_SUCCESS ? clCreateKernel(p, "rotate_lanes", &err) : nullptr;
      clReleaseProgram(p);
      if (!k) return "release-order build: " + std::to_string(err);
      clReleaseKernel(k);
    }
  }
  return "";
}

TEST(Concurrency, SixteenThreadsInMixedRolesOnSharedPrograms) {
  ISG_REQUIRE_ENV();
  Shared shared;
  std::string log;
  for (int i = 0; i < 3; ++i) {
    shared.programs[i] = isgtest::buildProgram(twoKernelSource(kSizes[i]), "-DOFFSET=7", &log);
    ASSERT_NE(shared.programs[i], nullptr) << log;
    cl_int err = CL_SUCCESS;
    shared.prototypes[i] = clCreateKernel(shared.programs[i], "rotate_lanes", &err);
    ASSERT_EQ(err, CL_SUCCESS);
  }
  constexpr int kThreads = 16;
  std::vector<std::string> problems(kThreads);
  std::atomic<int> finished{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([i, &shared, &problems, &finished] {
      cl_int err = CL_SUCCESS;
      cl_command_queue queue = clCreateCommandQueue(env().context, env().device, 0, &err);
      switch (i % 8) {
        case 0: case 1: problems[i] = builder(i, queue); break;
        case 2: case 3: case 4: problems[i] = launcher(i, queue, shared); break;
        case 5: problems[i] = cloner(i, queue, shared); break;
        case 6: problems[i] = querier(shared); break;
        default: problems[i] = releaser(i, shared); break;
      }
      clReleaseCommandQueue(queue);
      finished.fetch_add(1);
    });
  // A deadlock must fail the test, not hang CTest: the threads get ten minutes (TSan included).
  for (int waited = 0; finished.load() < kThreads; ++waited) {
    if (waited == 6000) {
      std::fprintf(stderr, "deadlock: %d of %d threads finished after 600 s\n", finished.load(), kThreads);
      std::abort();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(problems[i], "") << "thread " << i << " (role " << i % 8 << ")";
  for (int i = 0; i < 3; ++i) {
    clReleaseKernel(shared.prototypes[i]);
    clReleaseProgram(shared.programs[i]);
  }
}

}  // namespace
