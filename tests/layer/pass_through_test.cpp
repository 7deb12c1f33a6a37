// SPDX-License-Identifier: MIT
// Programs that name no sub-group builtin reach the driver untouched and behave as without the
// layer; programs that are rewritten still show the application its own source.
#include <cstdlib>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

const char* kPlainSource =
    "// a plain kernel: no sub-group builtin anywhere\n"
    "kernel void scale(global const int* in, global int* out) {\n"
    "  size_t i = get_global_id(0);\n"
    "  out[i] = in[i] * 3 + FACTOR;\n"
    "}\n";

// The options the program reports it was built with.
std::string buildOptionsOf(cl_program p) {
  size_t size = 0;
  EXPECT_EQ(clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &size), CL_SUCCESS);
  std::string options(size, '\0');
  EXPECT_EQ(clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_OPTIONS, size, options.data(), nullptr), CL_SUCCESS);
  return options.c_str();
}

// Runs kPlainSource's kernel of `p` (FACTOR 5) over n work-items and checks every result.
void expectScale(cl_program p, size_t n) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "scale", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<cl_int> in = isgtest::iota(n), out;
  isgtest::runIntKernel(k, in, &out, n, 0);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3 + 5) << i;
  clReleaseKernel(k);
}

TEST(PassThrough, PlainProgramKeepsSourceAndComputes) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_program p = isgtest::buildProgram(kPlainSource, "-DFACTOR=5", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(isgtest::programSource(p), kPlainSource);
  // Nothing here needs Clang: the layer leaves its rewriter library unloaded (the first test of
  // this executable; a module from SPIR-V is validated by the library, and
  // ISG_NVIDIA_FRONTEND=every compiles every program with it).
  const char* frontEnd = std::getenv("ISG_NVIDIA_FRONTEND");
  if (!isgtest::spirvMode() && !(frontEnd && std::string(frontEnd) == "every")) {
    EXPECT_FALSE(isgtest::rewriterLibraryLoaded());
  }

  EXPECT_EQ(buildOptionsOf(p), "-DFACTOR=5");

  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "scale", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, p));
  clReleaseKernel(k);
  ASSERT_NO_FATAL_FAILURE(expectScale(p, 1000));
  clReleaseProgram(p);
}

// A program whose only Intel feature is the extension's pragma reaches the driver byte for byte
// (issue 67): the driver gets the application's options, not the layer's. (With -Werror its
// pragma lines are blanked: a driver that does not know the extension would fail the build.)
TEST(PassThrough, PragmaOnlyProgramReachesTheDriverAsWritten) {
  ISG_REQUIRE_ENV();
  const std::string source = std::string("#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n") + kPlainSource;
  std::string log;
  cl_program p = isgtest::buildProgram(source, "-DFACTOR=5", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(isgtest::programSource(p), source);
  EXPECT_EQ(buildOptionsOf(p), "-DFACTOR=5");
  ASSERT_NO_FATAL_FAILURE(expectScale(p, 64));
  clReleaseProgram(p);
}

TEST(PassThrough, PlainProgramBuildErrorIsTheDriversOwn) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_int status = CL_SUCCESS;
  cl_program p = isgtest::buildProgram(kPlainSource, "", &log, &status);  // FACTOR undefined
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(log.find("FACTOR"), std::string::npos) << log;
}

// Options that only Intel's compiler takes (issue 49.4): Intel-targeted projects pass them to
// every build (oneDNN: -cl-no-subgroup-ifp; register-file and buffer-size options), and other
// drivers refuse them (PoCL "Invalid build option", NVIDIA "Don't understand command line
// argument"). Through the layer the build succeeds and computes, for a plain program and for a
// rewritten one, with the options real projects pass beside them; the application still reads
// its own options back from a rewritten program. On Intel's own driver the layer leaves them to
// it (its CPU runtime takes -cl-no-subgroup-ifp only: the GPU options are not its).
TEST(PassThrough, OptionsOnlyIntelsCompilerTakesDoNotFailTheBuild) {
  ISG_REQUIRE_ENV();
  const bool intelsDriver = isgtest::onIntelsDriver();
  const std::string options =
      std::string("-cl-std=CL1.2 -cl-mad-enable -DFACTOR=5 -cl-no-subgroup-ifp") +
      (intelsDriver ? "" : " -cl-intel-256-GRF-per-thread -cl-intel-greater-than-4GB-buffer-required "
                           "-cl-intel-enable-auto-large-GRF-mode -cl-intel-no-prera-scheduling");
  const std::string intelSource =
      "kernel void scale(global const int* in, global int* out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = intel_sub_group_shuffle(in[i], get_sub_group_local_id()) * 3 + FACTOR;\n"
      "}\n";
  for (const std::string& source : {std::string(kPlainSource), intelSource}) {
    std::string log;
    cl_program p = isgtest::buildProgram(source, options, &log);
    ASSERT_NE(p, nullptr) << options << "\n" << log;
    if (source == intelSource) {
      const std::string seen = buildOptionsOf(p);
      EXPECT_NE(seen.find("-cl-no-subgroup-ifp"), std::string::npos) << seen;
    }
    ASSERT_NO_FATAL_FAILURE(expectScale(p, 256));
    clReleaseProgram(p);
  }
  // A program the rewriter refuses fails as the driver's build would, and still reads back the
  // application's options, Intel's own among them.
  if (!intelsDriver) {
    const char* wrong = "kernel void w(global int* o) { o[0] = intel_sub_group_shuffle(o[0]); }\n";
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(env().context, 1, &wrong, nullptr, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    EXPECT_EQ(clBuildProgram(p, 1, &env().device, options.c_str(), nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE);
    size_t size = 0;
    ISG_CL_CHECK(clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &size));
    std::string seen(size, '\0');
    ISG_CL_CHECK(clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_OPTIONS, size, seen.data(), nullptr));
    EXPECT_EQ(seen.c_str(), options);
    clReleaseProgram(p);
  }
}

TEST(PassThrough, RewrittenProgramStillShowsTheUsersSource) {
  ISG_REQUIRE_ENV();
  const std::string source = isgtest::rotateKernelSource("");
  std::string log;
  cl_program p = isgtest::buildProgram(source, "", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(isgtest::programSource(p), source);
  clReleaseProgram(p);
}

}  // namespace

namespace {

// Issue 13.6, decided: a program that calls no builtin but carries intel_reqd_sub_group_size
// or a cl_intel_subgroups pragma is rewritten, not passed through. The attribute is what
// CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL reports, so the layer needs the kernel's manifest; the
// pragma names an extension the driver does not know, which it warns about, and -Werror (which
// oneDNN builds with) would turn that into a failed build. Neither adds anything the driver runs.
TEST(PassThrough, AttributeOrPragmaWithoutBuiltinsIsRewrittenForQueriesAndWarnings) {
  ISG_REQUIRE_ENV();
  const char* source =
      "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void scale(global const int* in, global int* out) {\n"
      "  size_t i = get_global_id(0);\n"
      "  out[i] = in[i] * 3;\n"
      "}\n";
  std::string log;
  cl_program p = isgtest::buildProgram(source, "-Werror", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(isgtest::programSource(p), source);
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "scale", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t s = 0;
  ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0,
                                       nullptr, sizeof s, &s, nullptr));
  EXPECT_EQ(s, 8u);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, p));
  const size_t n = 64;
  std::vector<cl_int> in = isgtest::iota(n), out;
  isgtest::runIntKernel(k, in, &out, n, 0);
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i] * 3) << i;
  clReleaseKernel(k);
  clReleaseProgram(p);
}

}  // namespace
