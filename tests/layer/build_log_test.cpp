// SPDX-License-Identifier: MIT
// Build results of rewritten programs: the log points at the user's lines, a program the
// rewriter rejects fails like a driver build failure, and asynchronous builds call back with
// the application's own handle and user_data.
#include <cctype>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <string>

#include <unistd.h>  // getpid

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

// Line 4 has the error; the builtin on line 3 forces a rewrite (with a prelude before line 1).
const char* kBrokenSource =
    "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"           // 1
    "kernel void broken(global int* out) {\n"                          // 2
    "  int v = intel_sub_group_shuffle((int)get_global_id(0), 0u);\n"  // 3
    "  out[get_global_id(0)] = v + undeclared_variable_xyz;\n"         // 4
    "}\n";                                                             // 5

// The line number of a `FILE:LINE:COL: error` diagnostic, "" when `line` is none. Written out
// rather than with <regex>: GCC 12 warns inside <regex> (-Wmaybe-uninitialized) in sanitizer
// builds, which -Werror turns into a failed build (issue 13.8).
std::string errorLineNumber(const std::string& line) {
  auto digits = [&line](std::size_t p) {
    std::size_t e = p;
    while (e < line.size() && std::isdigit(static_cast<unsigned char>(line[e]))) ++e;
    return e;
  };
  for (std::size_t c = line.find(':'); c != std::string::npos; c = line.find(':', c + 1)) {
    std::size_t lineEnd = digits(c + 1);
    if (lineEnd == c + 1 || lineEnd >= line.size() || line[lineEnd] != ':') continue;
    std::size_t colEnd = digits(lineEnd + 1);
    if (colEnd == lineEnd + 1 || colEnd >= line.size() || line[colEnd] != ':') continue;
    std::size_t s = colEnd + 1;
    while (s < line.size() && std::isspace(static_cast<unsigned char>(line[s]))) ++s;
    if (line.compare(s, 5, "error") == 0) return line.substr(c + 1, lineEnd - c - 1);
  }
  return "";
}

cl_program createProgram(const std::string& source) {
  const char* text = source.c_str();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return p;
}

cl_build_status buildStatus(cl_program p) {
  cl_build_status status = CL_BUILD_NONE;
  EXPECT_EQ(clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_STATUS, sizeof status, &status,
                                  nullptr),
            CL_SUCCESS);
  return status;
}

std::string buildOptions(cl_program p) {
  size_t n = 0;
  clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_OPTIONS, 0, nullptr, &n);
  std::string s(n, '\0');
  clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BUILD_OPTIONS, n, s.data(), nullptr);
  return s.c_str();
}

TEST(BuildLog, DriverErrorNamesTheUsersLine) {
  ISG_REQUIRE_ENV();
  cl_program p = createProgram(kBrokenSource);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(clBuildProgram(p, 1, &env().device, "", nullptr, nullptr), CL_BUILD_PROGRAM_FAILURE);
  EXPECT_EQ(buildStatus(p), CL_BUILD_ERROR);
  std::string log = isgtest::buildLog(p, env().device);
  // Every diagnostic about the undeclared name must carry line 4, and none a prelude line.
  std::istringstream lines(log);
  bool found = false;
  for (std::string line; std::getline(lines, line);) {
    if (line.find("undeclared_variable_xyz") == std::string::npos) continue;
    const std::string number = errorLineNumber(line);
    if (number.empty()) continue;
    found = true;
    EXPECT_EQ(number, "4") << line;
  }
  EXPECT_TRUE(found) << "no error naming the undeclared identifier in:\n" << log;
  clReleaseProgram(p);
}

TEST(BuildLog, RewriterRejectionFailsTheBuild) {
  ISG_REQUIRE_ENV();
  const std::string source =
      "kernel __attribute__((intel_reqd_sub_group_size(3)))\n"
      "void odd(global int* out) { out[get_global_id(0)] = (int)get_sub_group_local_id(); }\n";
  cl_program p = createProgram(source);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(clBuildProgram(p, 1, &env().device, "-DSOMETHING=1", nullptr, nullptr),
            CL_BUILD_PROGRAM_FAILURE);
  EXPECT_EQ(buildStatus(p), CL_BUILD_ERROR);
  EXPECT_EQ(buildOptions(p), "-DSOMETHING=1");
  std::string log = isgtest::buildLog(p, env().device);
  EXPECT_NE(log.find('3'), std::string::npos) << log;
  EXPECT_TRUE(log.find("sub_group_size") != std::string::npos ||
              log.find("sub-group size") != std::string::npos)
      << log;
  cl_int err = CL_SUCCESS;
  EXPECT_EQ(clCreateKernel(p, "odd", &err), nullptr);
  EXPECT_EQ(err, CL_INVALID_PROGRAM_EXECUTABLE);
  clReleaseProgram(p);

  // clCompileProgram's failure has its own code.
  cl_program object = createProgram(source);
  ASSERT_NE(object, nullptr);
  EXPECT_EQ(clCompileProgram(object, 1, &env().device, "", 0, nullptr, nullptr, nullptr, nullptr),
            CL_COMPILE_PROGRAM_FAILURE);
  EXPECT_EQ(buildStatus(object), CL_BUILD_ERROR);
  log = isgtest::buildLog(object, env().device);
  EXPECT_TRUE(log.find("sub_group_size") != std::string::npos || log.find("sub-group size") != std::string::npos)
      << log;
  clReleaseProgram(object);
}

// cl_intel_media_block_io regions must come from the spec's table: a width outside it, through
// a helper header found with -I, fails the build with a log line at the header's own line, and
// the program keeps the application's options.
TEST(BuildLog, MediaRegionOutsideTheTableNamesTheHeaderLine) {
  ISG_REQUIRE_ENV();
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) GTEST_SKIP() << "no images: cl_intel_media_block_io is not advertised";
  // Per process: layer.* and khronos_loader.* run this side by side.
  const std::string dir = ::testing::TempDir() + "isg_media_inc_" + std::to_string(getpid());
  std::string mk = "mkdir -p '" + dir + "'";
  ASSERT_EQ(std::system(mk.c_str()), 0);
  {
    std::FILE* f = std::fopen((dir + "/media_helpers.h").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("// helpers\n"
               "uint row(read_only image2d_t img, int n) {\n"
               "  return intel_sub_group_media_block_read_ui((int2)(0, 0), 9, n, img);\n"
               "}\n",
               f);
    std::fclose(f);
  }
  const std::string source =
      "#include \"media_helpers.h\"\n"
      "kernel void k(read_only image2d_t img, int n, global uint* o) {\n"
      "  o[get_global_id(0)] = row(img, n);\n"
      "}\n";
  cl_program p = createProgram(source);
  ASSERT_NE(p, nullptr);
  const std::string options = "-I " + dir;
  EXPECT_EQ(clBuildProgram(p, 1, &env().device, options.c_str(), nullptr, nullptr),
            CL_BUILD_PROGRAM_FAILURE);
  EXPECT_EQ(buildStatus(p), CL_BUILD_ERROR);
  EXPECT_EQ(buildOptions(p), options);
  const std::string log = isgtest::buildLog(p, env().device);
  EXPECT_NE(log.find("media_helpers.h:3:60: error: intel_sub_group_media_block_read_ui: a "
                     "width of 9 dwords (36 bytes) is not allowed"),
            std::string::npos)
      << log;
  clReleaseProgram(p);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST(BuildLog, OptionsAreTheApplicationsOwn) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_program p = isgtest::buildProgram(isgtest::rotateKernelSource(""), "-DUNUSED_OPTION=7", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(buildOptions(p), "-DUNUSED_OPTION=7");
  EXPECT_EQ(buildStatus(p), CL_BUILD_SUCCESS);
  clReleaseProgram(p);
}

struct Notification {
  std::mutex mutex;
  std::condition_variable cv;
  int calls = 0;
  cl_program program = nullptr;
  void* userData = nullptr;
};

void CL_CALLBACK onBuilt(cl_program program, void* data) {
  auto* n = static_cast<Notification*>(data);
  std::lock_guard<std::mutex> lock(n->mutex);
  n->calls++;
  n->program = program;
  n->userData = data;
  n->cv.notify_all();
}

void expectNotified(Notification& n, cl_program app) {
  std::unique_lock<std::mutex> lock(n.mutex);
  ASSERT_TRUE(n.cv.wait_for(lock, std::chrono::seconds(120), [&] { return n.calls > 0; }))
      << "pfn_notify was never called";
  EXPECT_EQ(n.calls, 1);
  EXPECT_EQ(n.program, app);
  EXPECT_EQ(n.userData, &n);
}

// clBuildProgram of `source` with a callback: the callback comes once, with the application's
// handle, and the build ends in `status`.
void expectAsyncBuild(const std::string& source, cl_build_status status) {
  cl_program p = createProgram(source);
  ASSERT_NE(p, nullptr);
  Notification n;
  cl_int err = clBuildProgram(p, 1, &env().device, "", onBuilt, &n);
  if (status == CL_BUILD_SUCCESS)
    EXPECT_EQ(err, CL_SUCCESS);
  else
    EXPECT_TRUE(err == CL_SUCCESS || err == CL_BUILD_PROGRAM_FAILURE) << err;
  expectNotified(n, p);
  EXPECT_EQ(buildStatus(p), status);
  clReleaseProgram(p);
}

TEST(AsyncBuild, SuccessCallsBackWithTheApplicationsHandle) {
  ISG_REQUIRE_ENV();
  expectAsyncBuild(isgtest::rotateKernelSource(""), CL_BUILD_SUCCESS);
}

TEST(AsyncBuild, DriverFailureCallsBackWithTheApplicationsHandle) {
  ISG_REQUIRE_ENV();
  expectAsyncBuild(kBrokenSource, CL_BUILD_ERROR);
}

TEST(AsyncBuild, RewriterFailureCallsBackWithTheApplicationsHandle) {
  ISG_REQUIRE_ENV();
  expectAsyncBuild(
      "kernel __attribute__((intel_reqd_sub_group_size(3)))\n"
      "void odd(global int* out) { out[0] = (int)get_sub_group_size(); }\n",
      CL_BUILD_ERROR);
}

}  // namespace
