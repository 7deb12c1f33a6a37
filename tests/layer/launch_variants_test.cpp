// SPDX-License-Identifier: MIT
// Launch variants (issue 52.1, layer/launch/launch_variants.h): a kernel without reqd_work_group_size
// runs, at launches whose work-groups are all one size, a build of its program written for that
// size. Every launch here is checked against a host model of the sub-groups; the layer's log
// (info) says which launches ran a variant. The process runs with ISG_LAUNCH_VARIANTS=wait
// unless the environment names a mode (layer.launch_variants_background runs it with "on").
#include <CL/cl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cl_harness.h"
#include "shape_kernels.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

// Before the loader loads the layer, which reads its controls once.
std::string g_logPath = [] {
  if (!std::getenv("ISG_LAUNCH_VARIANTS")) setenv("ISG_LAUNCH_VARIANTS", "wait", 1);
  char path[] = "/tmp/isg-launch-variants-XXXXXX";
  const int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  setenv("ISG_LOG", "info", 1);
  setenv("ISG_LOG_FILE", path, 1);
  return std::string(path);
}();
// The log goes with the test process (the layer appends to it until then).
const struct RemoveLogAtExit {
  ~RemoveLogAtExit() { std::remove(g_logPath.c_str()); }
} g_removeLog;

std::string mode() { return std::getenv("ISG_LAUNCH_VARIANTS"); }

std::string layerLog() {
  std::ifstream in(g_logPath);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A variant the layer made but could not launch (the general kernel then serves the size).
bool variantRefused(const std::string& kernel) {
  return layerLog().find("kernel " + kernel + ": its launch variant for work-groups of") !=
         std::string::npos;
}

bool ranVariant(const std::string& kernel, const std::string& shape) {
  return layerLog().find("kernel " + kernel + ": runs its launch variant for work-groups of " +
                         shape) != std::string::npos;
}

constexpr unsigned kS = 16;

// out = the sub-group's sum * 1000 + the next member's value (shuffle) + bias, indexed by the
// linear global id of a 1- or 2-D launch.
std::string source(const std::string& name) {
  return "__attribute__((intel_reqd_sub_group_size(16)))\n"
         "kernel void " +
         name +
         "(global const int* in, global int* out, int bias) {\n"
         "  const size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);\n"
         "  const int x = in[g];\n"
         "  const uint l = get_sub_group_local_id(), n = get_sub_group_size();\n"
         "  out[g] = sub_group_reduce_add(x) * 1000 + intel_sub_group_shuffle(x, (l + 1) % n) + "
         "bias;\n"
         "}\n";
}

// The host model: sub-groups are runs of S consecutive linear local ids of each work-group (the
// last one of a work-group may be partial, and so may the last work-group of a dimension).
std::vector<cl_int> expected(const std::vector<cl_int>& in, const size_t global[2],
                             const size_t local[2], int bias) {
  std::vector<cl_int> out(global[0] * global[1], 0);
  for (size_t gy = 0; gy < global[1]; gy += local[1]) {
    for (size_t gx = 0; gx < global[0]; gx += local[0]) {
      const size_t lx = std::min(local[0], global[0] - gx), ly = std::min(local[1], global[1] - gy);
      std::vector<size_t> items;  // global indexes in linear local order
      for (size_t y = 0; y < ly; ++y)
        for (size_t x = 0; x < lx; ++x) items.push_back((gy + y) * global[0] + gx + x);
      for (size_t b = 0; b < items.size(); b += kS) {
        const size_t n = std::min<size_t>(kS, items.size() - b);
        cl_int sum = 0;
        for (size_t i = 0; i < n; ++i) sum += in[items[b + i]];
        for (size_t i = 0; i < n; ++i)
          out[items[b + i]] = sum * 1000 + in[items[b + (i + 1) % n]] + bias;
      }
    }
  }
  return out;
}

class LaunchVariants : public ::testing::Test {
 protected:
  void SetUp() override {
    ISG_REQUIRE_ENV();
    // The device's strategy is in the log once a program has been built for it.
    cl_program probe = isgtest::buildProgram("kernel void probe(global int* o) { o[0] = 1; }");
    if (probe) clReleaseProgram(probe);
    if (layerLog().find("': strategy native") != std::string::npos)
      GTEST_SKIP() << "the device runs Intel's sub-groups natively: the layer rewrites nothing "
                      "for it, so there is nothing to vary";
  }
  void TearDown() override {
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    if (program_) clReleaseProgram(program_);
  }

  // Builds `text` with `options` into the test's program and makes its kernel `name` (released
  // after the test): *k stays null on failure.
  void build(const std::string& text, const std::string& options, const char* name, cl_kernel* k) {
    std::string log;
    program_ = isgtest::buildProgram(text, options, &log);
    ASSERT_NE(program_, nullptr) << log;
    ASSERT_NO_FATAL_FAILURE(kernel(name, k));
  }
  void kernel(const char* name, cl_kernel* k) {
    cl_int err = CL_SUCCESS;
    *k = clCreateKernel(program_, name, &err);
    ASSERT_EQ(err, CL_SUCCESS) << name;
    kernels_.push_back(*k);
  }

  cl_mem buffer(const std::vector<cl_int>& values) {
    cl_int err = CL_SUCCESS;
    cl_mem m =
        clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                       values.size() * sizeof(cl_int), const_cast<cl_int*>(values.data()), &err);
    EXPECT_EQ(err, CL_SUCCESS);
    buffers_.push_back(m);
    return m;
  }

  // Launches `k` (arguments set before) over global with local (nullptr: the driver picks) and
  // compares `out` with the host model of `in` and `bias`.
  void launchAndCheck(cl_kernel k, cl_uint dims, const size_t* global, const size_t* local,
                      cl_mem out, const std::vector<cl_int>& in, int bias) {
    ISG_CL_CHECK(
        clEnqueueNDRangeKernel(env().queue, k, dims, nullptr, global, local, 0, nullptr, nullptr));
    const size_t g[2] = {global[0], dims > 1 ? global[1] : 1};
    std::vector<cl_int> got(g[0] * g[1], -1);
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, got.size() * sizeof(cl_int),
                                     got.data(), 0, nullptr, nullptr));
    if (!local) return;  // the driver's work-group size is not known here
    const size_t l[2] = {local[0], dims > 1 ? local[1] : 1};
    const std::vector<cl_int> want = expected(in, g, l, bias);
    for (size_t i = 0; i < want.size(); ++i)
      ASSERT_EQ(got[i], want[i]) << "item " << i << " of " << g[0] << " x " << g[1] << " in "
                                 << l[0] << " x " << l[1];
  }

  std::vector<cl_mem> buffers_;
  cl_program program_ = nullptr;
  std::vector<cl_kernel> kernels_;
};

TEST_F(LaunchVariants, UniformLaunchesRunTheVariantWithTheArgumentsSetLast) {
  if (mode() != "wait") GTEST_SKIP() << "runs with ISG_LAUNCH_VARIANTS=wait (now " << mode() << ")";
  std::string log;
  // OpenCL C 2.0: the program allows a smaller last work-group, which the general kernel serves
  // (where the device runs them; OpenCL C 1.2 elsewhere).
  cl_bool smallerLast = CL_FALSE;
  if (clGetDeviceInfo(env().device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof smallerLast,
                      &smallerLast, nullptr) != CL_SUCCESS)
    smallerLast = CL_FALSE;
  cl_program p = isgtest::buildProgram(source("mixed"), smallerLast ? "-cl-std=CL2.0" : "", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "mixed", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const std::vector<cl_int> a = isgtest::iota(256), b = isgtest::iota(256, 13);
  cl_mem inA = buffer(a), inB = buffer(b), out = buffer(std::vector<cl_int>(256, 0));
  int bias = 1;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, inA, out, bias));
  const size_t g128[1] = {128}, l64[1] = {64};
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g128, l64, out, a, bias));
  EXPECT_TRUE(ranVariant("mixed", "64 x 1 x 1")) << layerLog();
  // New values between launches of one size: the variant takes them.
  bias = 5;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, inB, out, bias));
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g128, l64, out, b, bias));
  // A work-group that ends in a partial sub-group, and a 2-D one.
  const size_t g120[1] = {120}, l40[1] = {40};
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g120, l40, out, b, bias));
  EXPECT_TRUE(ranVariant("mixed", "40 x 1 x 1"));
  const size_t g2[2] = {16, 16}, l2[2] = {8, 6};
  const size_t g2u[2] = {16, 12};
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 2, g2u, l2, out, b, bias));
  EXPECT_TRUE(ranVariant("mixed", "8 x 6 x 1"));
  // A smaller last work-group (OpenCL C 2.0) and a size the driver picks: the general kernel.
  const size_t g100[1] = {100};
  if (smallerLast) {
    ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g100, l64, out, b, bias));
    ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 2, g2, l2, out, b, bias));
  }
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g128, nullptr, out, b, bias));
  // The first size again, after the others: still the values set last.
  bias = -7;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, inA, out, bias));
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g128, l64, out, a, bias));
  // A clone runs variants of its own with the values it was cloned with.
  cl_kernel clone = clCloneKernel(k, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  clReleaseKernel(k);
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(clone, 1, g128, l64, out, a, bias));
  clReleaseKernel(clone);
  EXPECT_FALSE(variantRefused("mixed")) << layerLog();
  clReleaseProgram(p);
}

TEST_F(LaunchVariants, KernelsGivenExecInfoAndKernelsWithoutBuiltinsKeepTheGeneralKernel) {
  if (mode() != "wait") GTEST_SKIP() << "runs with ISG_LAUNCH_VARIANTS=wait (now " << mode() << ")";
  std::string log;
  cl_kernel k = nullptr, plain = nullptr;
  ASSERT_NO_FATAL_FAILURE(
      build(source("withInfo") + "kernel void plain(global int* o) { o[get_global_id(0)] = 3; }\n",
            "", "withInfo", &k));
  ASSERT_NO_FATAL_FAILURE(kernel("plain", &plain));
  cl_bool fineGrain = CL_FALSE;
  const cl_int info = clSetKernelExecInfo(k, CL_KERNEL_EXEC_INFO_SVM_FINE_GRAIN_SYSTEM,
                                          sizeof fineGrain, &fineGrain);
  const std::vector<cl_int> a = isgtest::iota(64);
  cl_mem in = buffer(a), out = buffer(std::vector<cl_int>(64, 0));
  const int bias = 2;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, in, out, bias));
  const size_t g[1] = {64}, l[1] = {32};
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g, l, out, a, bias));
  ISG_CL_CHECK(clSetKernelArg(plain, 0, sizeof out, &out));
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, plain, 1, nullptr, g, l, 0, nullptr, nullptr));
  ISG_CL_CHECK(clFinish(env().queue));
  EXPECT_FALSE(ranVariant("plain", "32 x 1 x 1"));
  if (info == CL_SUCCESS)
    EXPECT_FALSE(ranVariant("withInfo", "32 x 1 x 1")) << layerLog();
  else  // no SVM on this device: nothing to set, the variant runs
    EXPECT_TRUE(ranVariant("withInfo", "32 x 1 x 1")) << "clSetKernelExecInfo: " << info;
}

// A variant is the same program: where a header the program includes from disk has changed
// since its build, no variant is built and the general kernel keeps running what was built.
TEST_F(LaunchVariants, AHeaderThatChangedOnDiskSinceTheBuildMakesNoVariant) {
  if (mode() != "wait") GTEST_SKIP() << "runs with ISG_LAUNCH_VARIANTS=wait (now " << mode() << ")";
  char dir[] = "/tmp/isg-variant-header-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string header = std::string(dir) + "/bias.h";
  auto writeHeader = [&](int value) {
    std::ofstream(header) << "#define HEADER_BIAS " << value << "\n";
  };
  writeHeader(1);
  std::string text = source("fromHeader");
  text.replace(text.find("+ bias;"), 7, "+ bias + HEADER_BIAS;");
  cl_kernel k = nullptr;
  ASSERT_NO_FATAL_FAILURE(
      build("#include \"bias.h\"\n" + text, std::string("-I ") + dir, "fromHeader", &k));
  writeHeader(2);
  const std::vector<cl_int> a = isgtest::iota(64);
  cl_mem in = buffer(a), out = buffer(std::vector<cl_int>(64, 0));
  const int bias = 3;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, in, out, bias));
  const size_t g[1] = {64}, l[1] = {32};
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g, l, out, a, bias + 1));
  EXPECT_FALSE(ranVariant("fromHeader", "32 x 1 x 1")) << layerLog();
  EXPECT_NE(layerLog().find("a header the program includes from disk changed since its build"),
            std::string::npos)
      << layerLog();
  std::remove(header.c_str());
  rmdir(dir);
}

// A kernel whose build log says its results may differ from Intel's where its flow depends on
// work-item ids (KernelManifest::shapeDependentResult) has a variant under every mode but off,
// on every strategy, and its launches wait for it: OpenVINO's attention's shape, each member's
// block-read pointer the first's plus its lane in a loop whose bound comes from get_global_id(1),
// in work-groups one work-item wide in y. Its variant takes member 0's pointer, as Intel's
// driver does (the host model); the program's other kernel varies only where variants pay
// (auto: nvidia-ptx). layer.launch_variants_auto runs it under the default mode.
TEST_F(LaunchVariants, KernelsWhoseResultsDependOnTheShapeWaitForTheirVariant) {
  const std::string rows = isgtest::rowBlocksKernel("shapeRows", 16);
  cl_kernel k = nullptr, plain = nullptr;
  ASSERT_NO_FATAL_FAILURE(build(rows + source("shapePlain"), "-cl-std=CL2.0", "shapeRows", &k));
  ASSERT_NO_FATAL_FAILURE(kernel("shapePlain", &plain));
  const size_t global[2] = {32, 4}, local[2] = {32, 1};
  const int n = 125;
  std::vector<cl_int> in(256);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<cl_int>((i * 7919 + 13) % 1009);
  cl_mem a = buffer(in), out = buffer(std::vector<cl_int>(128, 0));
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof a, &a));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof out, &out));
  ISG_CL_CHECK(clSetKernelArg(k, 2, sizeof n, &n));
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 2, nullptr, global, local, 0, nullptr, nullptr));
  std::vector<cl_int> got(128, 0);
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, got.size() * sizeof(cl_int), got.data(), 0,
                                   nullptr, nullptr));
  if (mode() == "off") {
    EXPECT_FALSE(ranVariant("shapeRows", "32 x 1 x 1")) << layerLog();
    return;
  }
  EXPECT_TRUE(ranVariant("shapeRows", "32 x 1 x 1")) << layerLog();
  // The host model: rows of 32, sub-groups of 16 along x; member 0's pointer for the whole
  // sub-group, the first sub-group of each row alone reading.
  for (size_t y = 0; y < 4; ++y) {
    const unsigned steps = std::min<unsigned>(static_cast<unsigned>(n - static_cast<int>(y) * 32) / 16u, 3u);
    for (size_t x = 0; x < 32; ++x) {
      cl_int want = -1;
      if (x / kS == 0) {
        want = 0;
        for (unsigned i = 0; i < steps; ++i)
          want += in[y * 32 + (x / kS) * kS + x % kS + 8 * i] ^ static_cast<cl_int>(i << 12);
      }
      ASSERT_EQ(got[y * 32 + x], want) << "row " << y << " item " << x;
    }
  }
  // The other kernel, whose result no size changes, varies where variants pay alone.
  cl_mem plainOut = buffer(std::vector<cl_int>(128, 0));
  const int bias = 3;
  ISG_CL_CHECK(clSetKernelArg(plain, 0, sizeof a, &a));
  ISG_CL_CHECK(clSetKernelArg(plain, 1, sizeof plainOut, &plainOut));
  ISG_CL_CHECK(clSetKernelArg(plain, 2, sizeof bias, &bias));
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(plain, 2, global, local, plainOut, std::vector<cl_int>(in.begin(), in.begin() + 128), bias));
  if (mode() == "auto" && layerLog().find("': strategy nvidia-ptx") == std::string::npos) {
    EXPECT_FALSE(ranVariant("shapePlain", "32 x 1 x 1")) << layerLog();
  }
}

// With capture on (layer.launch_variants_capture), every argument takes the noted path: a NULL
// SVM pointer is kept as an SVM pointer, so the variant gets it as one.
TEST_F(LaunchVariants, ANullSvmPointerReachesTheVariantAsAnSvmPointer) {
  if (mode() != "wait" || !std::getenv("ISG_CAPTURE_DIR"))
    GTEST_SKIP() << "runs with ISG_LAUNCH_VARIANTS=wait and capture on (ctest: "
                    "layer.launch_variants_capture)";
  cl_device_svm_capabilities svm = 0;
  if (clGetDeviceInfo(env().device, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, nullptr) !=
          CL_SUCCESS ||
      svm == 0)
    GTEST_SKIP() << "the device has no shared virtual memory";
  std::string text = source("nullSvm");
  text.replace(text.find("int bias)"), 9, "int bias, global int* unused)");
  text.replace(text.find("  const int x"), 0, "  if (bias == 12345) unused[0] = 1;\n");
  cl_kernel k = nullptr;
  ASSERT_NO_FATAL_FAILURE(build(text, "-cl-std=CL2.0", "nullSvm", &k));
  const std::vector<cl_int> a = isgtest::iota(64);
  cl_mem in = buffer(a), out = buffer(std::vector<cl_int>(64, 0));
  const int bias = 4;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, in, out, bias));
  ISG_CL_CHECK(clSetKernelArgSVMPointer(k, 3, nullptr));
  const size_t g[1] = {64}, l[1] = {16};
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g, l, out, a, bias));
  EXPECT_TRUE(ranVariant("nullSvm", "16 x 1 x 1")) << layerLog();
  EXPECT_FALSE(variantRefused("nullSvm")) << layerLog();
}

// ISG_LAUNCH_VARIANTS=on: the variant is built in the background while launches run the general
// kernel; every launch's result is exact before, during and after the switch. The process then
// ends with another build under way and its program released.
TEST_F(LaunchVariants, BackgroundBuildsSwitchOverWithoutChangingAResult) {
  if (mode() != "on")
    GTEST_SKIP() << "runs with ISG_LAUNCH_VARIANTS=on (ctest: layer.launch_variants_background)";
  std::string log;
  cl_program p = isgtest::buildProgram(source("background"), "", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "background", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const std::vector<cl_int> a = isgtest::iota(256);
  cl_mem in = buffer(a), out = buffer(std::vector<cl_int>(256, 0));
  const size_t g[1] = {256}, l64[1] = {64}, l32[1] = {32};
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  int launches = 0;
  while (!ranVariant("background", "64 x 1 x 1") && std::chrono::steady_clock::now() < until) {
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, in, out, launches));
    ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g, l64, out, a, launches));
    ++launches;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(ranVariant("background", "64 x 1 x 1")) << launches << " launches\n" << layerLog();
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, in, out, launches));
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g, l64, out, a, launches));
  // Another size's build starts; the application lets go of everything at once.
  ASSERT_NO_FATAL_FAILURE(launchAndCheck(k, 1, g, l32, out, a, launches));
  EXPECT_FALSE(variantRefused("background")) << layerLog();
  clReleaseKernel(k);
  clReleaseProgram(p);
}

}  // namespace
