// SPDX-License-Identifier: MIT
// Soak (docs/reliability.md): build, create, set, enqueue, query and release an Intel program
// over and over, and watch the process's resident memory. Sources cycle through more variants
// than the rewriter caches (64), so its cache keeps evicting. CTest runs it twice (tests/layer):
//   Soak.RecordTheDriverAlone   without the layer, the same cycles on a plain kernel: the
//                               driver's own growth, into ISG_SOAK_BASELINE
//   Soak.TheLayerStaysFlat      through the layer on the Intel kernel: its growth per cycle may
//                               exceed the driver's by at most kBoundBytesPerCycle
// Growth is measured on the bytes malloc has handed out and not taken back (a leak shows there
// byte for byte); resident memory, which the allocator's trimming and the driver's code caches
// move by megabytes either way, is printed beside it.
// ISG_SOAK_CYCLES sets the number of cycles (CTest: 300; docs/reliability.md: 10,000 by hand).
#include <CL/cl_ext.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

constexpr int kVariants = 100;                 // more than the rewriter's cache holds
constexpr double kBoundBytesPerCycle = 256.0;  // what the layer may add to the driver's growth

size_t liveHeapBytes() {
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

size_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

std::string source(bool intel, int variant) {
  const std::string body = intel ? "intel_sub_group_shuffle(v, 1) + (int)get_sub_group_local_id()"
                                 : "v + (int)get_local_id(0)";
  return "#define VARIANT " + std::to_string(variant) +
         "\nkernel void k(global int* out, int v) { out[get_global_id(0)] = " + body +
         " + VARIANT; }\n";
}

// One cycle; false (with the failing step in *why) on any error.
bool cycle(bool intel, int n, cl_mem out, std::string* why) {
  const isgtest::ClEnv& e = env();
  const std::string src = source(intel, n % kVariants);
  const char* text = src.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(e.context, 1, &text, nullptr, &err);
  if (!p) return *why = "clCreateProgramWithSource " + std::to_string(err), false;
  err = clBuildProgram(p, 1, &e.device, "", nullptr, nullptr);
  cl_kernel k = err == CL_SUCCESS ? clCreateKernel(p, "k", &err) : nullptr;
  const int v = n;
  const size_t global = 64, local = 16;
  if (k && err == CL_SUCCESS) err = clSetKernelArg(k, 0, sizeof out, &out);
  if (k && err == CL_SUCCESS) err = clSetKernelArg(k, 1, sizeof v, &v);
  if (k && err == CL_SUCCESS && intel) {
    size_t size = 0;
    err = clGetKernelSubGroupInfo(k, e.device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                  &local, sizeof size, &size, nullptr);
  }
  if (k && err == CL_SUCCESS)
    err = clEnqueueNDRangeKernel(e.queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr);
  if (err == CL_SUCCESS) err = clFinish(e.queue);
  if (k) clReleaseKernel(k);
  clReleaseProgram(p);
  if (err != CL_SUCCESS) *why = "cycle " + std::to_string(n) + ": " + std::to_string(err);
  return err == CL_SUCCESS;
}

// Bytes of resident memory gained per cycle after a warm-up (two rounds of every variant).
double growthPerCycle(bool intel, int cycles) {
  cl_int err = CL_SUCCESS;
  cl_mem out = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 64 * sizeof(int), nullptr, &err);
  EXPECT_NE(out, nullptr);
  const int warm = std::min(cycles / 2, 2 * kVariants);
  size_t atWarm = 0, heapAtWarm = 0;
  std::string why;
  for (int n = 0; n < cycles; ++n) {
    if (!cycle(intel, n, out, &why)) {
      ADD_FAILURE() << why;
      break;
    }
    if (n + 1 == warm) {
      atWarm = residentBytes();
      heapAtWarm = liveHeapBytes();
    }
    if ((n + 1) % 1000 == 0)
      std::printf("[soak] %d cycles, resident %.1f MiB\n", n + 1, residentBytes() / 1048576.0);
  }
  const size_t atEnd = residentBytes(), heapAtEnd = liveHeapBytes();
  clReleaseMemObject(out);
  const double growth = (double(heapAtEnd) - double(heapAtWarm)) / double(cycles - warm);
  std::printf("[soak] %s: %d cycles; after %d: heap %.2f MiB, resident %.1f MiB; at the end: heap %.2f MiB, "
              "resident %.1f MiB; heap growth %.1f bytes per cycle\n",
              intel ? "Intel kernel through the layer" : "plain kernel, driver alone", cycles, warm,
              heapAtWarm / 1048576.0, atWarm / 1048576.0, heapAtEnd / 1048576.0, atEnd / 1048576.0, growth);
  return growth;
}

int cycles() {
  const char* c = std::getenv("ISG_SOAK_CYCLES");
  return c ? std::max(10, std::atoi(c)) : 300;
}

std::string baselinePath() { return isgtest::baselinePath("ISG_SOAK_BASELINE", "soak-baseline.txt"); }

TEST(Soak, RecordTheDriverAlone) {
  ISG_REQUIRE_ENV();
  ASSERT_EQ(std::getenv("OPENCL_LAYERS"), nullptr) << "the baseline is the driver without the layer";
  const double growth = growthPerCycle(false, cycles());
  std::ofstream(baselinePath()) << growth << "\n";
}

TEST(Soak, TheLayerStaysFlat) {
  ISG_REQUIRE_ENV();
  double driver = 0;
  std::ifstream in(baselinePath());
  ASSERT_TRUE(in >> driver) << "no baseline at " << baselinePath() << " (Soak.RecordTheDriverAlone)";
  const double layer = growthPerCycle(true, cycles());
  EXPECT_LE(layer, std::max(driver, 0.0) + kBoundBytesPerCycle)
      << "the layer grows " << layer << " bytes per cycle, the driver alone " << driver;
}

}  // namespace
