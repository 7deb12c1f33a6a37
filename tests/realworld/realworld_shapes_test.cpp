// SPDX-License-Identifier: MIT
// Intel-targeted code in the shapes real projects give it, built the way they build it, through
// the layer on the default device and checked against host models of the spec:
//  - oneDNN: its own prototypes of builtins, helpers defined by a macro that calls a builtin or
//    the project's own emulation through one macro parameter, -cl-std=CL1.2/2.0/3.0 with math
//    options, -Werror and -D;
//  - oneDNN's types_interop.h: typedefs under #ifdef __OPENCL_VERSION__, builtins reached only
//    under the driver's own predefines (version, extension and image macros);
//  - helper headers found through -I (SimpleOpenCLSamples, autotuners that rewrite a header
//    and build the same source again);
//  - a 16-wide vector shuffle in the largest work-group the kernel allows.
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "register_heavy.h"

namespace {

using isgtest::env;

// A buffer of uint32 that releases itself.
struct Words {
  cl_mem mem = nullptr;
  std::vector<uint32_t> host;
  explicit Words(std::vector<uint32_t> data) : host(std::move(data)) {
    cl_int err = CL_SUCCESS;
    mem = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                         host.size() * sizeof(uint32_t), host.data(), &err);
    EXPECT_EQ(err, CL_SUCCESS);
  }
  ~Words() {
    if (mem) clReleaseMemObject(mem);
  }
  Words(const Words&) = delete;
  Words& operator=(const Words&) = delete;
  std::vector<uint32_t> read() const {
    std::vector<uint32_t> out(host.size());
    EXPECT_EQ(clEnqueueReadBuffer(env().queue, mem, CL_TRUE, 0, out.size() * sizeof(uint32_t),
                                  out.data(), 0, nullptr, nullptr),
              CL_SUCCESS);
    return out;
  }
};

std::vector<uint32_t> randomWords(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = gen();
  return v;
}

struct Program {
  cl_program p = nullptr;
  ~Program() {
    if (p) clReleaseProgram(p);
  }
};
struct Kernel {
  cl_kernel k = nullptr;
  ~Kernel() {
    if (k) clReleaseKernel(k);
  }
};

void build(const std::string& src, const std::string& options, Program* out) {
  std::string log;
  cl_int status = CL_SUCCESS;
  out->p = isgtest::buildProgram(src, options, &log, &status);
  ASSERT_NE(out->p, nullptr) << "options '" << options << "': " << status << "\n" << log;
}

void kernel(const Program& p, const char* name, Kernel* out) {
  cl_int err = CL_SUCCESS;
  out->k = clCreateKernel(p.p, name, &err);
  ASSERT_EQ(err, CL_SUCCESS) << name;
}

void run(const Kernel& k, size_t global, size_t local) {
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k.k, 1, nullptr, &global, &local, 0, nullptr,
                                      nullptr));
  ISG_CL_CHECK(clFinish(env().queue));
}

// A 2-D image of `format`, width x height elements, holding `texels` (its bytes, row by row).
template <class T>
cl_mem image2d(cl_image_format format, size_t width, size_t height, const std::vector<T>& texels) {
  cl_image_desc desc = {};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = width;
  desc.image_height = height;
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateImage(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format,
                           &desc, const_cast<T*>(texels.data()), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return m;
}

// The image's bytes as T, width x height elements' worth.
template <class T>
std::vector<T> readImage(cl_mem img, size_t width, size_t height, size_t count) {
  std::vector<T> got(count);
  const size_t origin[3] = {0, 0, 0}, region[3] = {width, height, 1};
  EXPECT_EQ(clEnqueueReadImage(env().queue, img, CL_TRUE, origin, region, 0, 0, got.data(), 0,
                               nullptr, nullptr),
            CL_SUCCESS);
  return got;
}

size_t compiledSubGroupSize(const Kernel& k) {
  size_t s = 0;
  EXPECT_EQ(clGetKernelSubGroupInfo(k.k, env().device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0,
                                    nullptr, sizeof s, &s, nullptr),
            CL_SUCCESS);
  return s;
}

// The option sets real projects pass (ggml: -cl-std=CL<device> -cl-mad-enable
// -cl-unsafe-math-optimizations -cl-finite-math-only -cl-fast-relaxed-math; oneDNN: -cl-std=CL2.0,
// -D values, -Werror; OpenVINO: -cl-mad-enable, -cl-std=CL3.0), plus ISG_TEST_BUILD_OPTIONS.
std::vector<std::string> optionSets() {
  std::vector<std::string> sets = {
      "",
      "-cl-std=CL1.2",
      "-cl-std=CL2.0",
      "-cl-std=CL3.0",
      "-cl-std=CL2.0 -cl-mad-enable -cl-unsafe-math-optimizations -cl-finite-math-only "
      "-cl-fast-relaxed-math",
      "-cl-std=CL1.2 -cl-denorms-are-zero -Werror -DUSER_SCALE=3",
      "-cl-std=CL3.0 -w -cl-mad-enable -D USER_SCALE=(1+2)",
  };
  for (std::string& s : sets) s += " " + isgtest::extraBuildOptions();
  return sets;
}

// ---- oneDNN: prototypes and macro-defined block IO helpers ----------------------------------

const char* kOneDnnShapes = R"CLC(
#ifdef cl_intel_subgroups_char
void __attribute__((overloadable)) intel_sub_group_block_write_uc16(
        __global uchar *p, uchar16 data);
uchar16 __attribute__((overloadable)) intel_sub_group_block_read_uc16(
        const __global uchar *p);
#endif
#ifndef USER_SCALE
#define USER_SCALE 3
#endif
#define DECLARE_BLOCK_READ(suffix, func, data_type, addr_space, p_type) \
    data_type __attribute__((overloadable)) block_read##suffix( \
            const addr_space p_type *p) { \
        return func(p); \
    }
#define DECLARE_BLOCK_READ_EMU(suffix, data_type, addr_space, p_type) \
    data_type __attribute__((overloadable)) block_read##suffix##_emu( \
            const addr_space p_type *p) { \
        return p[get_sub_group_local_id()]; \
    }
DECLARE_BLOCK_READ_EMU(, uint, __local, uint)
DECLARE_BLOCK_READ(, intel_sub_group_block_read, uint, __global, uint)
DECLARE_BLOCK_READ(2, intel_sub_group_block_read2, uint2, __global, uint)
DECLARE_BLOCK_READ(, block_read_emu, uint, __local, uint)

#define SG 16
#define WG 64
__attribute__((intel_reqd_sub_group_size(SG))) __attribute__((reqd_work_group_size(WG, 1, 1)))
__kernel void onednn_shapes(__global uint *in, __global uint *out, __global uchar *bytes) {
    __local uint l[WG];
    const uint lid = get_local_id(0);
    l[lid] = in[get_global_id(0)] * USER_SCALE;
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint sg = get_sub_group_id();
    __global uint *base = in + get_group_id(0) * WG + sg * SG;
    const uint a = block_read(base);
    const uint2 b = block_read2(base);
    const uint c = block_read(l + sg * SG);
    out[4 * get_global_id(0) + 0] = a;
    out[4 * get_global_id(0) + 1] = b.x;
    out[4 * get_global_id(0) + 2] = b.y;
    out[4 * get_global_id(0) + 3] = c;
#ifdef cl_intel_subgroups_char
    __global uchar *bb = bytes + (get_group_id(0) * WG + sg * SG) * 16;
    intel_sub_group_block_write_uc16(bb, intel_sub_group_block_read_uc16(bb) + (uchar16)(1));
#endif
}
)CLC";

class OptionSets : public ::testing::TestWithParam<std::string> {};

TEST_P(OptionSets, OneDnnPrototypesAndMacroDefinedBlockHelpers) {
  ISG_REQUIRE_ENV();
  const std::string options = GetParam();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(kOneDnnShapes, options, &p));
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "onednn_shapes", &k));
  EXPECT_EQ(compiledSubGroupSize(k), 16u);
  const unsigned S = 16, WG = 64, groups = 4, n = WG * groups;
  Words in(randomWords(n + 2 * S, 11));  // block_read2 of the last sub-group reads past it
  Words out(std::vector<uint32_t>(4 * n, 0));
  std::vector<uint32_t> byteWords = randomWords(n * 16 / 4, 12);
  Words bytes(byteWords);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem, bytes.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, n, WG));
  const std::vector<uint32_t> got = out.read();
  unsigned bad = 0;
  for (unsigned i = 0; i < n && bad < 8; ++i) {
    // cl_intel_subgroups: block reads give member m the elements p[m + k * S].
    const unsigned block = i / S * S, m = i % S;
    const uint32_t want[4] = {in.host[block + m], in.host[block + m], in.host[block + S + m],
                              in.host[i] * 3u};
    for (unsigned j = 0; j < 4; ++j)
      if (got[4 * i + j] != want[j]) {
        ADD_FAILURE() << "work-item " << i << " value " << j << ": got " << got[4 * i + j]
                      << " want " << want[j] << " (options '" << options << "')";
        ++bad;
      }
  }
  // The uc16 read/write pair adds 1 to every byte of each sub-group's 16 * S bytes.
  const std::vector<uint32_t> after = bytes.read();
  const auto* b0 = reinterpret_cast<const uint8_t*>(byteWords.data());
  const auto* b1 = reinterpret_cast<const uint8_t*>(after.data());
  for (unsigned i = 0; i < n * 16 && bad < 16; ++i)
    if (b1[i] != uint8_t(b0[i] + 1)) {
      ADD_FAILURE() << "byte " << i << ": got " << unsigned(b1[i]) << " want "
                    << unsigned(uint8_t(b0[i] + 1));
      ++bad;
    }
}

// Kernels and helpers that one macro spells, some with sub-group or work-group functions and
// some with none (generated kernel families): the layer's edits to their parameter lists and
// prologues are text that every expansion shares, so each of them takes the context and, where
// one sharer's collective borrows it, the scratch. Intel's driver builds this; the layer failed
// it ("cannot pass the sub-group context through this macro") or gave `copy_k` a scratch
// parameter its manifest did not have, and the launch failed.
const char* kMacroFamilies = R"CLC(
#define HELPER(NAME, EXPR) int NAME(int x) { return EXPR; }
HELPER(first_of_sub_group, intel_sub_group_shuffle(x, 0u))
HELPER(plus_one, x + 1)
#define KERNEL(NAME, EXPR) __attribute__((intel_reqd_sub_group_size(16))) \
  kernel void NAME(global const int* in, global int* out) { \
    const int x = in[get_global_id(0)]; \
    out[get_global_id(0)] = EXPR; }
KERNEL(sum_k, work_group_reduce_add(x))
KERNEL(first_k, first_of_sub_group(x) * 3 + plus_one(x))
KERNEL(copy_k, plus_one(x))
)CLC";

TEST(MacroFamilies, KernelsAndHelpersOneMacroSpellsWithAndWithoutBuiltins) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(
      build(kMacroFamilies, "-cl-std=CL2.0 " + isgtest::extraBuildOptions(), &p));
  const unsigned S = 16, WG = 64, groups = 4, n = WG * groups;
  std::vector<uint32_t> values = randomWords(n, 61);
  for (uint32_t& v : values) v %= 1000;
  Words in(values);
  for (const char* name : {"sum_k", "first_k", "copy_k"}) {
    SCOPED_TRACE(name);
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(kernel(p, name, &k));
    Words out(std::vector<uint32_t>(n, 0));
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem));
    ASSERT_NO_FATAL_FAILURE(run(k, n, WG));
    const std::vector<uint32_t> got = out.read();
    for (unsigned i = 0; i < n; ++i) {
      uint32_t want = values[i] + 1;
      if (name[0] == 's') {
        want = 0;
        for (unsigned j = i / WG * WG; j < i / WG * WG + WG; ++j) want += values[j];
      } else if (name[0] == 'f') {
        want += 3 * values[i / S * S];
      }
      ASSERT_EQ(got[i], want) << "work-item " << i;
    }
  }
}

// ---- the driver's predefines decide which code the rewriter sees ---------------------------

const char* kPredefines = R"CLC(
#ifdef __OPENCL_VERSION__
typedef long int64_t;
typedef uint uint32_t;
#endif
#if __OPENCL_VERSION__ >= 120 && defined(__IMAGE_SUPPORT__) && \
    defined(cl_khr_byte_addressable_store) && defined(cl_intel_subgroups)
#define NEXT(x) intel_sub_group_shuffle_down((x), (x), 1u)
#else
#define NEXT(x) not_a_function_anywhere(x)
#endif
#define WIDE(x) ((int64_t)(x) << 1)
__attribute__((intel_reqd_sub_group_size(8)))
kernel void predefines(global int64_t *out, global const uint32_t *in) {
    const size_t i = get_global_id(0);
    out[i] = WIDE(NEXT(in[i]));
}
)CLC";

TEST_P(OptionSets, DriverPredefinesChooseTheBranch) {
  ISG_REQUIRE_ENV();
  if (isgtest::spirvMode())
    GTEST_SKIP() << "a module compiled to SPIR-V before the layer sees it took the compiler's "
                    "branches, not the driver's predefines";

  const std::string options = GetParam();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(kPredefines, options, &p));
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "predefines", &k));
  const unsigned n = 64, S = 8;
  Words in(randomWords(n, 21));
  Words out(std::vector<uint32_t>(2 * n, 0));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.mem, in.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, n, 32));
  const std::vector<uint32_t> got = out.read();
  for (unsigned i = 0; i < n; ++i) {
    // shuffle_down(x, x, 1): member m gets member (m + 1) of the sub-group, wrapping into the
    // second operand, which is the same x.
    const unsigned src = i / S * S + (i % S + 1) % S;
    const int64_t want = int64_t(in.host[src]) << 1;
    const int64_t v = int64_t(uint64_t(got[2 * i]) | uint64_t(got[2 * i + 1]) << 32);
    ASSERT_EQ(v, want) << "work-item " << i << " (options '" << options << "')";
  }
}

INSTANTIATE_TEST_SUITE_P(RealProjects, OptionSets, ::testing::ValuesIn(optionSets()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return "set" + std::to_string(info.index);
                         });

// ---- helper headers read from disk ----------------------------------------------------------

// A folder of headers for one test, removed when the test ends.
struct HeaderDir {
  HeaderDir() : path(::testing::TempDir() + "isg_headers_" + std::to_string(::getpid())) {
    EXPECT_EQ(std::system(("mkdir -p '" + path + "/detail'").c_str()), 0);
  }
  ~HeaderDir() { EXPECT_EQ(std::system(("rm -rf '" + path + "'").c_str()), 0); }
  HeaderDir(const HeaderDir&) = delete;
  HeaderDir& operator=(const HeaderDir&) = delete;
  const std::string path;
};

void writeFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_TRUE(f) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

// SimpleOpenCLSamples keeps its sub-group helpers in headers; autotuners rewrite a header and
// build the same source again (issue 13.1: the second build kept the first sub-group size).
TEST(DiskHeaders, HelpersInHeadersAndAHeaderThatChangesBetweenBuilds) {
  ISG_REQUIRE_ENV();
  if (isgtest::spirvMode())
    GTEST_SKIP() << "headers on disk: a module is compiled from them before the layer sees it";

  const HeaderDir headers;
  const std::string& dir = headers.path;
  const std::string source =
      "#include \"sg.h\"\n"
      "__attribute__((intel_reqd_sub_group_size(SG)))\n"
      "kernel void rotate_lanes(global uint* o, global const uint* in) {\n"
      "  o[get_global_id(0)] = rot(in[get_global_id(0)]);\n"
      "}\n";
  writeFile(dir + "/detail/rot.h",
            "#ifndef ROT_H\n#define ROT_H\n"
            "uint rot(uint v) {\n"
            "  return intel_sub_group_shuffle(v, (get_sub_group_local_id() + 1) % SG);\n"
            "}\n#endif\n");
  for (unsigned S : {16u, 8u}) {
    writeFile(dir + "/sg.h", "#define SG " + std::to_string(S) + "\n#include \"detail/rot.h\"\n");
    Program p;
    ASSERT_NO_FATAL_FAILURE(build(source, "-I " + dir + " " + isgtest::extraBuildOptions(), &p));
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(kernel(p, "rotate_lanes", &k));
    EXPECT_EQ(compiledSubGroupSize(k), S);
    const unsigned n = 64;
    Words in(randomWords(n, 31 + S));
    Words out(std::vector<uint32_t>(n, 0));
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.mem, in.mem));
    ASSERT_NO_FATAL_FAILURE(run(k, n, 32));
    const std::vector<uint32_t> got = out.read();
    for (unsigned i = 0; i < n; ++i)
      ASSERT_EQ(got[i], in.host[i / S * S + (i % S + 1) % S]) << "S=" << S << " work-item " << i;
  }
}

// A build error in a helper header names the header and its line.
TEST(DiskHeaders, ErrorsInAHelperHeaderNameTheHeader) {
  ISG_REQUIRE_ENV();
  if (isgtest::spirvMode())
    GTEST_SKIP() << "headers on disk: a module is compiled from them before the layer sees it";

  const HeaderDir headers;
  const std::string& dir = headers.path;
  writeFile(dir + "/bad.h",
            "uint lane_of(uint v) {\n"
            "  return intel_sub_group_shuffle(v, 0u) + get_sub_group_local_id();\n"
            "}\n"
            "#error from the header\n");
  std::string log;
  cl_int status = CL_SUCCESS;
  cl_program p = isgtest::buildProgram(
      "#include \"bad.h\"\nkernel void k(global uint* o) { o[0] = lane_of(o[0]); }\n",
      "-I " + dir, &log, &status);
  EXPECT_EQ(p, nullptr);
  if (p) clReleaseProgram(p);
  EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(log.find("bad.h:4:"), std::string::npos) << log;
}

// ---- vector shuffles in large work-groups ---------------------------------------------------

// The local strategy exchanges through local memory; a uint16 shuffle_down moved whole would
// need 128 bytes per work-item and half a MiB or more at PoCL's 4096 work-items.
TEST(LargeWorkGroups, SixteenWideShuffleAtTheKernelsLargestWorkGroup) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void wide(global uint16* o, global const uint16* a, global const uint16* b) {\n"
      "  size_t i = get_global_id(0);\n"
      "  o[i] = intel_sub_group_shuffle_down(a[i], b[i], 5u);\n"
      "}\n",
      isgtest::extraBuildOptions(), &p));
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "wide", &k));
  size_t wg = 0;
  ISG_CL_CHECK(clGetKernelWorkGroupInfo(k.k, env().device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg,
                                        &wg, nullptr));
  size_t maxItems[3] = {0, 0, 0};
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof maxItems,
                               maxItems, nullptr));
  wg = std::min(wg, maxItems[0]) / 16 * 16;
  ASSERT_GE(wg, 16u);
  const unsigned S = 16, groups = 2, n = unsigned(wg) * groups;
  Words a(randomWords(16 * n, 41)), b(randomWords(16 * n, 42));
  Words out(std::vector<uint32_t>(16 * n, 0));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.mem, a.mem, b.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, n, wg));
  const std::vector<uint32_t> got = out.read();
  for (unsigned i = 0; i < n; ++i) {
    const unsigned m = i % S, base = i - m, j = m + 5;
    const std::vector<uint32_t>& src = j < S ? a.host : b.host;
    const unsigned from = base + j % S;
    for (unsigned c = 0; c < 16; ++c)
      ASSERT_EQ(got[16 * i + c], src[16 * from + c])
          << "work-group size " << wg << ", work-item " << i << " component " << c;
  }
}

// OpenVINO's convolution_bfyx_f16: work-groups of one column (reqd_work_group_size(1, 16, 1)),
// the output row from get_global_id(0), and a filter loop under an unroll pragma whose
// iterations the rows at the edges skip with `continue`, a shuffle inside. get_global_id(0) is
// one value across such a work-group, so every work-item takes the same iterations: the layer
// must build it as written (it refused it as divergent, and OpenVINO's ResNets with it).
TEST(OpenVinoShapes, SkippedFilterRowsInWorkGroupsOfOneColumn) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "__attribute__((reqd_work_group_size(1, 16, 1)))\n"
      "kernel void conv(global const uint* in, global uint* out, int rows) {\n"
      "  const int y = (int)get_global_id(0) - 1;\n"
      "  const uint lane = get_sub_group_local_id();\n"
      "  uint acc = 0;\n"
      "  __attribute__((opencl_unroll_hint(3)))\n"
      "  for (int kh = 0; kh < 3; kh++) {\n"
      "    if (y + kh < 0 || y + kh >= rows) continue;\n"
      "    const uint v = in[(y + kh) * 32 + get_global_id(1)];\n"
      "    acc = acc * 3u + intel_sub_group_shuffle(v, (lane + 1u) % 16u);\n"
      "  }\n"
      "  out[get_global_id(0) * 32 + get_global_id(1)] = acc;\n"
      "}\n",
      isgtest::extraBuildOptions(), &p));
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "conv", &k));
  const int rows = 7;
  Words in(randomWords(rows * 32, 51));
  Words out(std::vector<uint32_t>(rows * 32, 0));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem, rows));
  const size_t global[2] = {size_t(rows), 32}, local[2] = {1, 16};
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k.k, 2, nullptr, global, local, 0, nullptr, nullptr));
  ISG_CL_CHECK(clFinish(env().queue));
  const std::vector<uint32_t> got = out.read();
  for (int r = 0; r < rows; ++r)
    for (unsigned c = 0; c < 32; ++c) {
      uint32_t acc = 0;
      for (int kh = 0; kh < 3; ++kh) {
        const int row = r - 1 + kh;
        if (row < 0 || row >= rows) continue;
        acc = acc * 3u + in.host[row * 32 + c / 16 * 16 + (c % 16 + 1) % 16];
      }
      ASSERT_EQ(got[r * 32 + c], acc) << "row " << r << ", column " << c;
    }
}

// OpenVINO's permute_f_y_axes (the path without block IO) writes a local tile and reads it
// transposed with no barrier, and warp-synchronous reductions halve in local memory under
// `if (lid < h)`: both rely on Intel's GPU running each statement for every work-item of the
// sub-group before the next. Other drivers run work-items apart; the layer keeps them in
// lock-step with barriers (docs/design.md, "Lock-step local memory"). The host model is Intel's
// GPU: every statement complete for the work-group before the next.
TEST(OpenVinoShapes, LocalMemorySharedWithoutBarriers) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(
      "#define TILE 16\n"
      "#define WRITE_VEC(v, o, p) vstore4(v, o, p)\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void rotate(global uint* o) {\n"
      "  o[get_global_id(0)] = intel_sub_group_shuffle(o[get_global_id(0)], (get_sub_group_local_id() + 1) % 16);\n"
      "}\n"
      "kernel void permute(global const uint* in, global uint* out) {\n"
      "  __local uint tile[TILE][TILE + 1];\n"
      "  const int l = get_local_id(2);\n"
      "  const int base = get_group_id(2) * TILE * TILE;\n"
      "  __attribute__((opencl_unroll_hint(4)))\n"
      "  for (int j = 0; j < TILE / 4; ++j) {\n"
      "    uint4 v = vload4(0, &in[base + l * TILE + j * 4]);\n"
      "    for (int k = 0; k < 4; ++k) tile[j * 4 + k][l] = v[k] * 3u;\n"
      "  }\n"
      "  for (int j = 0; j < TILE / 4; ++j)\n"
      "    WRITE_VEC(vload4(0, &tile[l][j * 4]), 0, &out[base + l * TILE + j * 4]);\n"
      "}\n"
      "kernel void halve(global const uint* in, global uint* out, local uint* s) {\n"
      "  const uint l = get_local_id(0);\n"
      "  s[l] = in[get_global_id(0)];\n"
      "  for (uint h = get_local_size(0) / 2; h > 0; h >>= 1)\n"
      "    if (l < h) s[l] += s[l + h];\n"
      "  out[get_global_id(0)] = s[l];\n"
      "}\n",
      isgtest::extraBuildOptions(), &p));
  const unsigned tile = 16, groups = 5;
  Words in(randomWords(tile * tile * groups, 67));
  {
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(kernel(p, "permute", &k));
    Words out(std::vector<uint32_t>(in.host.size(), 0));
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem));
    const size_t global[3] = {1, 1, tile * groups}, local[3] = {1, 1, tile};
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k.k, 3, nullptr, global, local, 0, nullptr, nullptr));
    ISG_CL_CHECK(clFinish(env().queue));
    const std::vector<uint32_t> got = out.read();
    for (unsigned g = 0; g < groups; ++g)
      for (unsigned r = 0; r < tile; ++r)
        for (unsigned c = 0; c < tile; ++c)
          ASSERT_EQ(got[g * tile * tile + r * tile + c], in.host[g * tile * tile + c * tile + r] * 3u)
              << "work-group " << g << ", row " << r << ", column " << c;
  }
  {
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(kernel(p, "halve", &k));
    const size_t n = 64;
    Words out(std::vector<uint32_t>(in.host.size(), 0));
    ISG_CL_CHECK(clSetKernelArg(k.k, 0, sizeof(cl_mem), &in.mem));
    ISG_CL_CHECK(clSetKernelArg(k.k, 1, sizeof(cl_mem), &out.mem));
    ISG_CL_CHECK(clSetKernelArg(k.k, 2, n * sizeof(cl_uint), nullptr));
    ASSERT_NO_FATAL_FAILURE(run(k, n * 4, n));
    const std::vector<uint32_t> got = out.read();
    for (size_t g = 0; g < 4; ++g) {
      std::vector<uint32_t> s(in.host.begin() + g * n, in.host.begin() + (g + 1) * n);
      for (size_t h = n / 2; h > 0; h /= 2)
        for (size_t l = 0; l < h; ++l) s[l] += s[l + h];
      for (size_t l = 0; l < n; ++l) ASSERT_EQ(got[g * n + l], s[l]) << "work-group " << g << ", work-item " << l;
    }
  }
}

// OpenVINO's fully_connected_gpu_bs_f_bsv16_b1 (batch 1) gives block IO each member's own
// pointer (`input_offset + 8 * sg_elem_offset` bytes); the spec asks for one pointer per
// sub-group and Intel's runtime reads and writes from the first member's. So does the layer
// (AnalysisConsumer::firstMemberPointers); before, each member read from its own, out of range.
TEST(OpenVinoShapes, BlockIoTakesTheFirstMembersPointer) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(
      "#define READ2(ptr, byte_offset) intel_sub_group_block_read2((const __global uint*)((const __global char*)(ptr) + (byte_offset)))\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void fc(global const uint* in, global uint* out, global uint* w) {\n"
      "  const uint lane = get_sub_group_local_id();\n"
      "  const uint base = get_group_id(0) * 64;\n"
      "  uint2 v = READ2(in, (base + 2 * lane) * 4);\n"
      "  uint s = intel_sub_group_block_read(in + base + 32 + lane);\n"
      "  out[get_global_id(0)] = v.x * 3u + v.y + s;\n"
      "  intel_sub_group_block_write(w + base + 3 * lane, v.y);\n"
      "}\n",
      isgtest::extraBuildOptions(), &p));
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "fc", &k));
  const unsigned groups = 3;
  Words in(randomWords(64 * groups + 64, 71));
  Words out(std::vector<uint32_t>(16 * groups, 0));
  Words w(std::vector<uint32_t>(64 * groups + 64, 0));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem, w.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, 16 * groups, 16));
  const std::vector<uint32_t> got = out.read(), written = w.read();
  for (unsigned g = 0; g < groups; ++g)
    for (unsigned l = 0; l < 16; ++l) {
      const uint32_t* first = &in.host[g * 64];  // member 0's pointers
      const uint32_t x = first[l], y = first[16 + l], s = first[32 + l];
      ASSERT_EQ(got[g * 16 + l], x * 3u + y + s) << "work-group " << g << ", member " << l;
      ASSERT_EQ(written[g * 64 + l], y) << "work-group " << g << ", member " << l;
    }
}

// OpenVINO's sdpa_opt spells its block reads in one macro, some of them under flow that only
// some members take. Intel's CPU runtime (measured) reads and writes from member 0's pointer at
// every call, under such flow too, even where member 0 skipped it; the spec asks for one pointer,
// so under such flow the layer cannot promise Intel's answer and must say so in the build log.
// Where it takes the first member's (nvidia-ptx; khr on a driver with cl_khr_subgroup_ballot),
// the call every member reaches must be right, and the one under the lane split reads from the
// first member that takes it; where it keeps each member's (local, a khr driver without the
// ballot) the log says so at the macro. Sub-group q's split starts at member 1 + 3q.
TEST(OpenVinoShapes, BlockIoInAMacroAlsoExpandedUnderALaneSplit) {
  ISG_REQUIRE_ENV();
  Program p;
  std::string log;
  cl_int status = CL_SUCCESS;
  p.p = isgtest::buildProgram(
      "#define LOAD(ptr) intel_sub_group_block_read(ptr)\n"
      "#define STORE(ptr, v) intel_sub_group_block_write(ptr, v)\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void sdpa_like(global const uint* in, global uint* out, global uint* w) {\n"
      "  const uint lane = get_sub_group_local_id();\n"
      "  const uint q = get_group_id(0) * get_num_sub_groups() + get_sub_group_id();\n"
      "  const uint base = q * 64;\n"
      "  const uint a = LOAD(in + base + 2 * lane);\n"
      "  STORE(w + base + 3 * lane, a ^ 0x5a5a5a5au);\n"
      "  uint b = 0xffffffffu;\n"
      "  if (lane >= 1 + 3 * q) b = LOAD(in + base + 32 + lane);\n"
      "  out[2 * get_global_id(0)] = a;\n"
      "  out[2 * get_global_id(0) + 1] = b;\n"
      "}\n",
      isgtest::extraBuildOptions(), &log, &status);
  ASSERT_NE(p.p, nullptr) << status << "\n" << log;
  const bool native = isgtest::onIntelsDriver() && !std::getenv("ISG_STRATEGY");
  // What the log says of the call under the split, and from source whether the macro's other
  // expansion keeps each member's pointer with it (from SPIR-V each call is its own).
  const bool firstTaker = log.find("strategy takes the first member's that takes that flow") != std::string::npos;
  const bool eachOwn = log.find("strategy each member's own") != std::string::npos;
  const bool macroKeepsOwn = eachOwn && log.find("in a macro also expanded under flow") != std::string::npos;
  ASSERT_TRUE(native || firstTaker || eachOwn) << "the layer's log says nothing of the call under the split:\n" << log;
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "sdpa_like", &k));
  const unsigned groups = 2, local = 32, subGroups = groups * local / 16;
  Words in(randomWords(64 * subGroups + 64, 79));
  Words out(std::vector<uint32_t>(2 * groups * local, 0));
  Words w(std::vector<uint32_t>(64 * subGroups + 64, 7u));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem, w.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, groups * local, local));
  if (macroKeepsOwn) return;  // each member's pointer in both calls, as the log says
  const std::vector<uint32_t> got = out.read(), written = w.read();
  for (unsigned q = 0; q < subGroups; ++q) {
    const unsigned first = native ? 0 : 1 + 3 * q;  // whose pointer the call under the split takes
    for (unsigned l = 0; l < 16; ++l) {
      const uint32_t a = in.host[q * 64 + l];
      ASSERT_EQ(got[2 * (q * 16 + l)], a) << "sub-group " << q << ", member " << l;
      ASSERT_EQ(written[q * 64 + l], a ^ 0x5a5a5a5au) << "sub-group " << q << ", member " << l;
      if (eachOwn) continue;  // the split's call keeps each member's pointer, as the log says
      const uint32_t b = l >= 1 + 3 * q ? in.host[q * 64 + 32 + first + l] : 0xffffffffu;
      ASSERT_EQ(got[2 * (q * 16 + l) + 1], b) << "sub-group " << q << ", member " << l << " (the split)";
    }
  }
}

// OpenVINO's sdpa_opt reads its keys in a loop that starts at the sub-group's id: flow whole
// sub-groups skip, where member 0 runs every call its sub-group does and Intel's runtimes read
// from its pointer, through the macro its other block reads use too. On local (exchanges are
// work-group barriers) the layer takes member 0's pointer out of the statement there, for every
// work-item, on the program after its preprocessor where a macro spells the call; before, each
// member read from its own. From SPIR-V the layer keeps each member's there and says so
// (docs/spirv.md).
TEST(OpenVinoShapes, BlockIoWhereWholeSubGroupsSkipTheFlowTakesMember0sPointer) {
  ISG_REQUIRE_ENV();
  Program p;
  std::string log;
  cl_int status = CL_SUCCESS;
  p.p = isgtest::buildProgram(
      "#define KEY(ptr) intel_sub_group_block_read(ptr)\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void keys(global const uint* in, global uint* out, global uint* w, uint n) {\n"
      "  const uint lane = get_sub_group_local_id(), sg = get_sub_group_id();\n"
      "  const uint base = (get_group_id(0) * get_num_sub_groups() + sg) * 64;\n"
      "  const uint k0 = KEY(in + base + 48 + lane);\n"
      "  uint r = 0xffffffffu;\n"
      "  if (sg < n) {\n"
      "    r = intel_sub_group_block_read(in + base + 2 * lane);\n"
      "    intel_sub_group_block_write(w + base + 3 * lane, r ^ 0x5a5a5a5au);\n"
      "  }\n"
      "  for (uint i = sg; i < 3; i += 2) r += KEY(in + base + 32 + i + lane);\n"
      "  out[get_global_id(0)] = r + k0;\n"
      "}\n",
      isgtest::extraBuildOptions(), &log, &status);
  ASSERT_NE(p.p, nullptr) << status << "\n" << log;
  const bool eachOwn = log.find("strategy each member's own") != std::string::npos;
  ASSERT_TRUE(!eachOwn || isgtest::spirvMode()) << log;
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "keys", &k));
  const unsigned groups = 2, local = 32, subGroups = groups * local / 16;
  const cl_uint n = 1;
  Words in(randomWords(64 * subGroups + 64, 83));
  Words out(std::vector<uint32_t>(groups * local, 0));
  Words w(std::vector<uint32_t>(64 * subGroups + 64, 7u));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem, w.mem, n));
  ASSERT_NO_FATAL_FAILURE(run(k, groups * local, local));
  if (eachOwn) return;  // each member's pointer, as the log says
  const std::vector<uint32_t> got = out.read(), written = w.read();
  for (unsigned q = 0; q < subGroups; ++q) {
    const unsigned sg = q % 2, base = q * 64;
    for (unsigned l = 0; l < 16; ++l) {
      uint32_t r = sg < n ? in.host[base + l] : 0xffffffffu;
      ASSERT_EQ(written[base + l], sg < n ? r ^ 0x5a5a5a5au : 7u) << "sub-group " << q << ", member " << l;
      for (unsigned i = sg; i < 3; i += 2) r += in.host[base + 32 + i + l];
      ASSERT_EQ(got[q * 16 + l], r + in.host[base + 48 + l]) << "sub-group " << q << ", member " << l;
    }
  }
}

// OpenVINO's fully connected kernels at f16 pick each half of a sub-group's input from another
// element of a private array, `lane < 8 ? SELECT(shuffle(v[k], ..)) : SELECT(shuffle(v[k'], ..))`:
// on Intel's GPU the work-items that skipped an arm still hold v[] in registers, and the shuffle
// reads them. The layer lets them evaluate v[k] there (a private array at an index every member
// computes alike); before, they gave 0, and half the outputs were wrong.
TEST(OpenVinoShapes, ShuffleOfAPrivateArrayUnderALaneSplit) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(
      "#define SEL(chunk, idx) ((idx) ? (chunk) + 1000u : (chunk))\n"
      "#define SGSEL(chunk, idx) SEL(intel_sub_group_shuffle(chunk, (idx) / 2), (idx) % 2)\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void split(global const uint* in, global uint* out) {\n"
      "  const uint lane = get_sub_group_local_id();\n"
      "  uint v[2]; v[0] = in[get_global_id(0)]; v[1] = in[64 + get_global_id(0)];\n"
      "  for (uint i = 0; i < 4; ++i) {\n"
      "    uint r = lane < 8 ? SGSEL(v[i / 4], i % 32) : SGSEL(v[(i + 1) / 4], (i + 1) % 32);\n"
      "    out[i * 64 + get_global_id(0)] = r;\n"
      "  }\n"
      "}\n",
      isgtest::extraBuildOptions(), &p));
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "split", &k));
  Words in(randomWords(128, 73));
  Words out(std::vector<uint32_t>(256, 0));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, in.mem, out.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, 64, 16));
  const std::vector<uint32_t> got = out.read();
  for (unsigned g = 0; g < 4; ++g)
    for (unsigned i = 0; i < 4; ++i)
      for (unsigned l = 0; l < 16; ++l) {
        const unsigned idx = l < 8 ? i : i + 1;  // the arm's (idx) of SGSEL
        const uint32_t src = in.host[(idx / 4) * 64 + g * 16 + (idx % 32) / 2];
        ASSERT_EQ(got[i * 64 + g * 16 + l], (idx % 32) % 2 ? src + 1000u : src)
            << "sub-group " << g << ", step " << i << ", member " << l;
      }
}

// cl_intel_subgroups' block IO on read_write images under OpenCL C 2.0 and 3.0: it works where
// the device has read-write images and, through the layer's stand-in, where it has none.
TEST(ReadWriteImages, BlockReadWriteOnAReadWriteImage) {
  ISG_REQUIRE_ENV();
  if (!isgtest::programsTakeImages())
    GTEST_SKIP() << "this run's programs take no images (the device has no image support)";
  // The run's own -cl-std comes last and wins over the versions this test builds with.
  if (isgtest::extraBuildOptions().find("-cl-std=CL1.") != std::string::npos)
    GTEST_SKIP() << "read_write images need OpenCL C 2.0 or newer (" << isgtest::extraBuildOptions()
                 << ")";

  const std::string src =
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void rw(read_write image2d_t img) {\n"
      "  uint2 v = intel_sub_group_block_read2(img, (int2)(0, 0));\n"
      "  intel_sub_group_block_write2(img, (int2)(0, 2), v + (uint2)(1u));\n"
      "}\n";
  for (const char* std : {"-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    std::string log;
    cl_int status = CL_SUCCESS;
    Program p;
    p.p = isgtest::buildProgram(src, std + (" " + isgtest::extraBuildOptions()), &log, &status);
    ASSERT_NE(p.p, nullptr) << std << ": " << status << "\n" << log;
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(kernel(p, "rw", &k));
    cl_image_format format = {CL_R, CL_UNSIGNED_INT32};
    cl_image_desc desc = {};
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 8;
    desc.image_height = 4;
    std::vector<uint32_t> data(32);
    for (uint32_t i = 0; i < 32; ++i) data[i] = 1000 + i;
    cl_int err = CL_SUCCESS;
    cl_mem img = clCreateImage(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &format,
                               &desc, data.data(), &err);
    ASSERT_EQ(err, CL_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, img));
    ASSERT_NO_FATAL_FAILURE(run(k, 8, 8));
    std::vector<uint32_t> got(32);
    size_t origin[3] = {0, 0, 0}, region[3] = {8, 4, 1};
    EXPECT_EQ(clEnqueueReadImage(env().queue, img, CL_TRUE, origin, region, 0, 0, got.data(), 0,
                                 nullptr, nullptr),
              CL_SUCCESS);
    clReleaseMemObject(img);
    // Member m reads row k's element m (4-byte elements); rows 2 and 3 get rows 0 and 1 + 1.
    for (uint32_t i = 0; i < 32; ++i)
      EXPECT_EQ(got[i], i < 16 ? 1000 + i : 1000 + (i - 16) + 1) << std << " element " << i;
  }
}

// Image block IO moves raw bits (cl_intel_subgroups), Intel's hardware for every format; through
// read_image*/write_image* the library recovers them exactly only for some formats. For the
// others (SNORM, as Intel's conformance suite uses) the layer hands the kernel a raw-bits view
// of the image at enqueue (layer/memory/image_views.h): reads and writes are exact, and the image holds
// the written bits afterwards. A kernel that also samples the same argument cannot take a view:
// refused with CL_IMAGE_FORMAT_NOT_SUPPORTED, never a silent approximation. Sampling alone runs.
TEST(ImageFormats, BlockAndMediaIOMoveTheRawBitsOfEveryFormat) {
  ISG_REQUIRE_ENV();
  cl_bool images = CL_FALSE;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr));
  ASSERT_TRUE(images) << "every device this project runs on has images";
  if (!isgtest::programsTakeImages())
    GTEST_SKIP() << "this run's programs take no images (the device has no image support)";

  Program p;
  ASSERT_NO_FATAL_FAILURE(build(
      "uint load(read_only image2d_t img) { return intel_sub_group_block_read_uc(img, (int2)(0, 0)); }\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void blocks(global uint* o, read_only image2d_t img) {\n"
      "  o[get_global_id(0)] = load(img);\n"
      "}\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void media(global uint* o, read_only image2d_t img) {\n"
      "  o[get_global_id(0)] = intel_sub_group_media_block_read_uc((int2)(0, 0), 8, 1, img);\n"
      "}\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void writes(global const uint* in, write_only image2d_t img) {\n"
      "  intel_sub_group_media_block_write_uc((int2)(0, 0), 4, 2, (uchar)in[get_global_id(0)], img);\n"
      "}\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void mixed(global float* o, read_only image2d_t img) {\n"
      "  o[get_global_id(0)] = read_imagef(img, (int2)(0, 0)).x + load(img);\n"
      "}\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void samples(global float* o, read_only image2d_t img) {\n"
      "  o[get_global_id(0)] = read_imagef(img, (int2)(get_global_id(0), 0)).x + get_sub_group_id();\n"
      "}\n",
      isgtest::extraBuildOptions(), &p));
  Kernel blocks, media, writes, mixed, samples;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "blocks", &blocks));
  ASSERT_NO_FATAL_FAILURE(kernel(p, "media", &media));
  ASSERT_NO_FATAL_FAILURE(kernel(p, "writes", &writes));
  ASSERT_NO_FATAL_FAILURE(kernel(p, "mixed", &mixed));
  ASSERT_NO_FATAL_FAILURE(kernel(p, "samples", &samples));
  auto image = [](cl_channel_type type, const std::vector<uint8_t>& bytes, size_t width) {
    return image2d(cl_image_format{CL_R, type}, width, bytes.size() / width, bytes);
  };
  auto readBytes = [](cl_mem img, size_t width, size_t height) {
    return readImage<uint8_t>(img, width, height, width * height);
  };
  std::vector<uint8_t> bytes(8);
  for (unsigned i = 0; i < 8; ++i) bytes[i] = uint8_t(0x80 + i);  // 0x80 is SNORM's -128
  const size_t global = 8, local = 8;
  for (cl_channel_type type : {cl_channel_type(CL_SNORM_INT8), cl_channel_type(CL_UNSIGNED_INT8),
                               cl_channel_type(CL_UNORM_INT8)}) {
    SCOPED_TRACE("channel type " + std::to_string(type));
    cl_mem img = image(type, bytes, 8);
    Words out(std::vector<uint32_t>(8, 0));
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(blocks.k, out.mem, img));
    ASSERT_NO_FATAL_FAILURE(run(blocks, global, local));
    std::vector<uint32_t> got = out.read();
    for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(got[i], bytes[i]) << "block, work-item " << i;
    // A clone takes the source's arguments (OpenCL 2.1), the image's format among them.
    {
      cl_int err = CL_SUCCESS;
      Kernel clone;
      clone.k = clCloneKernel(blocks.k, &err);
      ASSERT_EQ(err, CL_SUCCESS) << "clCloneKernel";
      Words cloneOut(std::vector<uint32_t>(8, 0));
      ISG_CL_CHECK(clSetKernelArg(clone.k, 0, sizeof cloneOut.mem, &cloneOut.mem));
      ASSERT_NO_FATAL_FAILURE(run(clone, global, local));
      got = cloneOut.read();
      for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(got[i], bytes[i]) << "clone, work-item " << i;
    }
    // A task (one work-item, a sub-group of one) takes the view as an ND-range does.
    {
      Words taskOut(std::vector<uint32_t>(8, 0));
      ISG_CL_CHECK(clSetKernelArg(blocks.k, 0, sizeof taskOut.mem, &taskOut.mem));
      ISG_CL_CHECK(clEnqueueTask(env().queue, blocks.k, 0, nullptr, nullptr));
      EXPECT_EQ(taskOut.read()[0], bytes[0]) << "task";
    }
    // Media block IO: a region of 8 bytes x 1 row gives member i byte i.
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(media.k, out.mem, img));
    ASSERT_NO_FATAL_FAILURE(run(media, global, local));
    got = out.read();
    for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(got[i], bytes[i]) << "media, work-item " << i;
    // The image keeps its bits through a launch that only reads it.
    EXPECT_EQ(readBytes(img, 8, 1), bytes);
    // Sampling alone is no block IO: it runs.
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(samples.k, out.mem, img));
    ASSERT_NO_FATAL_FAILURE(run(samples, global, local));
    // Sampling and block IO on one argument: a view cannot serve both.
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(mixed.k, out.mem, img));
    const cl_int mixedErr = clEnqueueNDRangeKernel(env().queue, mixed.k, 1, nullptr, &global,
                                                   &local, 0, nullptr, nullptr);
    if (type == CL_SNORM_INT8)
      EXPECT_EQ(mixedErr, CL_IMAGE_FORMAT_NOT_SUPPORTED);
    else
      EXPECT_EQ(mixedErr, CL_SUCCESS);
    clReleaseMemObject(img);

    // Writes: a 4-byte x 2-row region of a 6 x 3 image; the rest keeps its bits. An event the
    // application waits for covers the copy back.
    std::vector<uint8_t> before(18);
    for (unsigned i = 0; i < 18; ++i) before[i] = uint8_t(0x7f + 3 * i);
    cl_mem target = image(type, before, 6);
    Words in(std::vector<uint32_t>{0x80, 0x81, 0xff, 0x00, 0x7f, 0x01, 0x90, 0xa0});
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(writes.k, in.mem, target));
    cl_event done = nullptr;
    ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, writes.k, 1, nullptr, &global, &local, 0,
                                     nullptr, &done),
              CL_SUCCESS);
    ASSERT_EQ(clWaitForEvents(1, &done), CL_SUCCESS);
    clReleaseEvent(done);
    std::vector<uint8_t> want = before;
    for (unsigned i = 0; i < 8; ++i) want[(i / 4) * 6 + i % 4] = uint8_t(in.host[i]);
    EXPECT_EQ(readBytes(target, 6, 3), want);
    clReleaseMemObject(target);
  }
}

// Media block IO on each unsigned-integer channel order an element of the function's width can
// have (the library's per-channel-count paths: R, A; RG, RA; RGBA, BGRA, ARGB), read past the
// right edge and written across it, with one kernel object given images of two widths in turn:
// the format and size the kernel sees follow its image argument (on every strategy the layer
// passes them as hidden arguments, HiddenArg::Kind::ImageFacts). Every element holds distinct
// bytes, so a wrong channel order, width or edge shows.
TEST(ImageFormats, MediaIOOnEveryUnsignedChannelOrderFollowsTheImageArgument) {
  ISG_REQUIRE_ENV();
  if (!isgtest::programsTakeImages())
    GTEST_SKIP() << "this run's programs take no images (the device has no image support)";
  Program p;
  // Region: 8 elements x 1 row at row 1 of the source, and at row 0 of the destination; member
  // i has element i.
  std::string src;
  for (const char* f : {"uc", "us", "ui"})
    src += std::string("__attribute__((intel_reqd_sub_group_size(8)))\n") +
           "kernel void read_" + f + "(global uint* o, read_only image2d_t img) {\n"
           "  o[get_global_id(0)] = intel_sub_group_media_block_read_" + f + "((int2)(0, 1), 8, 1, img);\n"
           "}\n"
           "__attribute__((intel_reqd_sub_group_size(8)))\n"
           "kernel void write_" + f + "(global const uint* in, write_only image2d_t img) {\n"
           "  intel_sub_group_media_block_write_" + f + "((int2)(0, 0), 8, 1, in[get_global_id(0)], img);\n"
           "}\n";
  ASSERT_NO_FATAL_FAILURE(build(src, isgtest::extraBuildOptions(), &p));
  struct Order {
    cl_channel_order order;
    cl_channel_type type;
    unsigned elementBytes;
    const char* name;
  };
  const Order orders[] = {
      {CL_R, CL_UNSIGNED_INT8, 1, "R8UI"},      {CL_A, CL_UNSIGNED_INT8, 1, "A8UI"},
      {CL_R, CL_UNSIGNED_INT16, 2, "R16UI"},    {CL_A, CL_UNSIGNED_INT16, 2, "A16UI"},
      {CL_RG, CL_UNSIGNED_INT8, 2, "RG8UI"},    {CL_RA, CL_UNSIGNED_INT8, 2, "RA8UI"},
      {CL_R, CL_UNSIGNED_INT32, 4, "R32UI"},    {CL_RG, CL_UNSIGNED_INT16, 4, "RG16UI"},
      {CL_RA, CL_UNSIGNED_INT16, 4, "RA16UI"},  {CL_RGBA, CL_UNSIGNED_INT8, 4, "RGBA8UI"},
      {CL_BGRA, CL_UNSIGNED_INT8, 4, "BGRA8UI"}, {CL_ARGB, CL_UNSIGNED_INT8, 4, "ARGB8UI"},
  };
  cl_uint count = 0;
  ISG_CL_CHECK(clGetSupportedImageFormats(env().context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                          0, nullptr, &count));
  std::vector<cl_image_format> supported(count);
  ISG_CL_CHECK(clGetSupportedImageFormats(env().context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D,
                                          count, supported.data(), nullptr));
  unsigned ran = 0;
  std::string unsupported;
  for (const Order& o : orders) {
    SCOPED_TRACE(o.name);
    bool has = false;
    for (const cl_image_format& f : supported)
      has |= f.image_channel_order == o.order && f.image_channel_data_type == o.type;
    if (!has) {
      unsupported += std::string(" ") + o.name;
      continue;
    }
    ++ran;
    const char* fn = o.elementBytes == 1 ? "uc" : o.elementBytes == 2 ? "us" : "ui";
    Kernel reads, writes;
    ASSERT_NO_FATAL_FAILURE(kernel(p, (std::string("read_") + fn).c_str(), &reads));
    ASSERT_NO_FATAL_FAILURE(kernel(p, (std::string("write_") + fn).c_str(), &writes));
    const unsigned eb = o.elementBytes;
    auto element = [eb](const std::vector<uint8_t>& bytes, size_t at) {
      uint32_t v = 0;
      std::memcpy(&v, bytes.data() + at * eb, eb);
      return v;
    };
    // The same kernel objects on a 6- and then a 3-element-wide image: reads replicate the
    // current image's last element, writes drop what falls past it.
    for (size_t width : {size_t(6), size_t(3)}) {
      SCOPED_TRACE("width " + std::to_string(width));
      std::vector<uint8_t> bytes(width * 2 * eb);
      for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(0x11 * (i % 15 + 1) + width);
      cl_mem img = image2d(cl_image_format{o.order, o.type}, width, 2, bytes);
      Words out(std::vector<uint32_t>(8, 0));
      ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(reads.k, out.mem, img));
      ASSERT_NO_FATAL_FAILURE(run(reads, 8, 8));
      const std::vector<uint32_t> got = out.read();
      for (size_t i = 0; i < 8; ++i)
        EXPECT_EQ(got[i], element(bytes, width + std::min(i, width - 1))) << "read, member " << i;
      Words in(randomWords(8, unsigned(width * 131 + eb)));
      ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(writes.k, in.mem, img));
      ASSERT_NO_FATAL_FAILURE(run(writes, 8, 8));
      std::vector<uint8_t> want = bytes;
      for (size_t i = 0; i < width; ++i) std::memcpy(want.data() + i * eb, &in.host[i], eb);
      EXPECT_EQ(readImage<uint8_t>(img, width, 2, bytes.size()), want) << "write";
      clReleaseMemObject(img);
    }
  }
  // Every device this project runs on has the core formats (CL 1.2's minimum list includes
  // RGBA8UI; PoCL and NVIDIA list R and RG too); the rest are optional.
  EXPECT_GE(ran, 5u) << "formats the device lacks:" << unsupported;
  if (!unsupported.empty()) std::cout << "[ note ] formats the device lacks:" << unsupported << "\n";
}

// read_write image2d_t arguments with block and media IO, as Intel's conformance suite and
// in-place Intel kernels use them. Devices without read-write images (NVIDIA) get the layer's
// stand-in, a buffer of the texels (layer/memory/image_views.h), from source and from SPIR-V alike; CI
// runs this suite again with ISG_EMULATE_READ_WRITE_IMAGES=1, from source and from SPIR-V, so
// that path runs on PoCL too. Formats with exact and with
// inexact read_image* conversions; a write, an image fence and a neighbour's read.
TEST(ReadWriteImages, BlockAndMediaIOInPlaceAndAcrossAFence) {
  ISG_REQUIRE_ENV();
  if (!isgtest::programsTakeImages())
    GTEST_SKIP() << "this run's programs take no images (the device has no image support)";
  std::string options = isgtest::extraBuildOptions();
  if (options.find("-cl-std=CL1.") != std::string::npos)
    GTEST_SKIP() << "read_write images need OpenCL C 2.0 or newer (" << options << ")";
  if (options.find("-cl-std=") == std::string::npos) options += " -cl-std=CL2.0";
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(R"CLC(
uint twice(read_write image2d_t im, int2 at) { return intel_sub_group_block_read(im, at) * 2u; }
__attribute__((intel_reqd_sub_group_size(8)))
kernel void rw_block(read_write image2d_t img) {
  const int2 at = (int2)(get_group_id(0) * 32, get_global_id(1));
  const uint v = twice(img, at);
  intel_sub_group_block_write(img, at, v + (uint)get_image_width(img));
}
__attribute__((intel_reqd_sub_group_size(8)))
kernel void rw_media(read_write image2d_t img) {
  int bwidth = 4, bheight = 2;
  const int2 off = (int2)(get_group_id(0) * 16, get_group_id(1) * 2);
  const uint v = intel_sub_group_media_block_read_ui(off, bwidth, bheight, img);
  intel_sub_group_media_block_write_ui(off, bwidth, bheight, v + 1u, img);
}
__attribute__((intel_reqd_sub_group_size(8)))
kernel void rw_fence(read_write image2d_t img, global uint* out) {
  const int sg = (int)get_sub_group_id();
  const int base = (int)get_group_id(0) * 64;
  intel_sub_group_block_write(img, (int2)(base + sg * 32, 0), (uint)get_global_id(0) * 7u + 1u);
  barrier(CLK_IMAGE_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  out[get_global_id(0)] = intel_sub_group_block_read(img, (int2)(base + (1 - sg) * 32, 0));
}
)CLC", options, &p));
  Kernel block, media, fence;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "rw_block", &block));
  ASSERT_NO_FATAL_FAILURE(kernel(p, "rw_media", &media));
  ASSERT_NO_FATAL_FAILURE(kernel(p, "rw_fence", &fence));
  constexpr size_t W = 32, H = 4;  // texels of 4 bytes
  const cl_image_format formats[] = {{CL_R, CL_UNSIGNED_INT32},
                                     {CL_RGBA, CL_UNORM_INT8},
                                     {CL_RGBA, CL_SNORM_INT8}};
  for (const cl_image_format& format : formats) {
    SCOPED_TRACE("format 0x" + std::to_string(format.image_channel_data_type));
    std::vector<uint32_t> texels = randomWords(W * H, 77);
    for (uint32_t& t : texels) t |= 0x80808080u;  // every SNORM byte negative, -128 included
    cl_mem img = image2d(format, W, H, texels);
    ASSERT_NE(img, nullptr);
    auto readBack = [&] { return readImage<uint32_t>(img, W, H, W * H); };
    // Block IO in place: every texel doubled plus the width.
    ISG_CL_CHECK(clSetKernelArg(block.k, 0, sizeof img, &img));
    const size_t blockGlobal[2] = {W, H}, blockLocal[2] = {8, 1};
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, block.k, 2, nullptr, blockGlobal, blockLocal,
                                        0, nullptr, nullptr));
    std::vector<uint32_t> want = texels;
    for (uint32_t& t : want) t = t * 2u + uint32_t(W);
    EXPECT_EQ(readBack(), want) << "block IO";
    // Media IO in place: regions of 4 texels x 2 rows, each plus one.
    ISG_CL_CHECK(clSetKernelArg(media.k, 0, sizeof img, &img));
    const size_t mediaGlobal[2] = {8 * (W / 4), H / 2}, mediaLocal[2] = {8, 1};
    cl_event done = nullptr;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, media.k, 2, nullptr, mediaGlobal, mediaLocal,
                                        0, nullptr, &done));
    ISG_CL_CHECK(clWaitForEvents(1, &done));  // the event covers the copy back
    clReleaseEvent(done);
    for (uint32_t& t : want) t += 1u;
    EXPECT_EQ(readBack(), want) << "media IO";
    // A write, a fence, and the other sub-group's values.
    Words out(std::vector<uint32_t>(W, 0));
    ISG_CL_CHECK(clSetKernelArg(fence.k, 0, sizeof img, &img));
    ISG_CL_CHECK(clSetKernelArg(fence.k, 1, sizeof out.mem, &out.mem));
    const size_t fenceGlobal = W, fenceLocal = 16;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, fence.k, 1, nullptr, &fenceGlobal,
                                        &fenceLocal, 0, nullptr, nullptr));
    ISG_CL_CHECK(clFinish(env().queue));
    const std::vector<uint32_t> got = out.read();
    for (uint32_t g = 0; g < W; ++g) {
      const uint32_t group = g / 16, sg = (g % 16) / 8, lane = g % 8;
      const uint32_t other = group * 16 + (1 - sg) * 8 + lane;
      EXPECT_EQ(got[g], other * 7u + 1u) << "work-item " << g;
    }
    clReleaseMemObject(img);
  }
}

// Intel-targeted programs launch at the device's largest work-group, whatever
// CL_KERNEL_WORK_GROUP_SIZE says (NVIDIA's driver 580 answers 256 for every kernel, a plain one
// without the layer included, and launches 1024). A rewritten kernel that keeps many shuffled
// vectors in private arrays must launch there, with the same results.

void runRegisterHeavy(const Program& p) {
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernel(p, "heavy", &k));
  size_t deviceMax = 0, kernelMax = 0;
  size_t maxItems[3] = {0, 0, 0};
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof deviceMax,
                               &deviceMax, nullptr));
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof maxItems,
                               maxItems, nullptr));
  ISG_CL_CHECK(clGetKernelWorkGroupInfo(k.k, env().device, CL_KERNEL_WORK_GROUP_SIZE,
                                        sizeof kernelMax, &kernelMax, nullptr));
  EXPECT_GT(kernelMax, 0u);
  size_t wg = std::min(deviceMax, maxItems[0]) / 16 * 16;
  // PoCL's CPU work-group functions keep every work-item's private arrays on one thread's
  // stack across barriers: at 4096 work-items this kernel's 3.75 KiB each overflow it (a crash
  // inside PoCL's compiled kernel, with or without the layer's code in it). CPUs run it at
  // ISG_TEST_CPU_WORK_GROUP (default 1024); the GPU at the full size.
  cl_device_type type = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_TYPE, sizeof type, &type, nullptr));
  if (type & CL_DEVICE_TYPE_CPU) {
    const char* cap = std::getenv("ISG_TEST_CPU_WORK_GROUP");
    wg = std::min<size_t>(wg, cap ? std::strtoul(cap, nullptr, 10) : 1024);
  }
  const unsigned n = unsigned(wg) * 2;
  Words in(randomWords(n, 51));
  Words out(std::vector<uint32_t>(n, 0));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.mem, in.mem));
  ASSERT_NO_FATAL_FAILURE(run(k, n, wg));
  const std::vector<uint32_t> got = out.read();
  for (unsigned i = 0; i < n; ++i) {
    ASSERT_EQ(got[i], isgref::registerHeavyExpected(in.host, i)) << "work-group " << wg << ", work-item " << i;
  }
}

TEST(LargeWorkGroups, RegisterHeavyKernelAtTheDevicesLargestWorkGroup) {
  ISG_REQUIRE_ENV();
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(isgref::registerHeavyKernel(), isgtest::extraBuildOptions(), &p));
  runRegisterHeavy(p);
}

// Intel's conformance suite keeps each shuffle's result in a private array of 32 vectors and
// launches 2-D and 3-D work-groups of the device's largest size: on NVIDIA's driver such a
// kernel refuses 1024 work-items unless its registers are capped, with no hidden argument in
// it (the default nvidia-ptx strategy). Every member of every full sub-group gets each
// member's value: `S` per work-item when all match, 0 otherwise.
TEST(LargeWorkGroups, PrivateArraysOfShuffledVectorsIn2DAnd3DWorkGroups) {
  ISG_REQUIRE_ENV();
  // Three kernels share one macro body (their scratch slots differ: the layer widens the
  // shared prologue's), the required-size one is written out.
  const char* src = R"CLC(
#define SAME(a, b) all((a) == (b))
#define SAME_SCALAR(a, b) ((a) == (b))
#define KERNEL(NAME, T, CMP)                                                              \
  kernel void NAME(global uint* out) {                                                    \
    const size_t tid = get_global_id(0) + get_global_size(0) *                            \
                       (get_global_id(1) + get_global_size(1) * get_global_id(2));        \
    const uint n = get_sub_group_size();                                                  \
    T results[32];                                                                        \
    for (uint i = 0; i < 32; ++i) results[i] = (T)0x7eadbeef;                             \
    const T mine = (T)(get_sub_group_local_id() * 3 + 1);                                 \
    for (uint i = 0; i < n; ++i) results[i] = intel_sub_group_shuffle(mine, i);           \
    uint passed = 1;                                                                      \
    for (uint i = 0; i < n; ++i)                                                          \
      if (!CMP(results[i], (T)(i * 3 + 1))) passed = 0;                                   \
    out[tid] = passed ? n : 0u;                                                           \
  }
KERNEL(shuffle_int8, int8, SAME)
KERNEL(shuffle_float4, float4, SAME)
KERNEL(shuffle_long, long, SAME_SCALAR)
__attribute__((intel_reqd_sub_group_size(16)))
kernel void shuffle_uint16_s16(global uint* out) {
  const size_t tid = get_global_id(0) + get_global_size(0) *
                     (get_global_id(1) + get_global_size(1) * get_global_id(2));
  const uint n = get_sub_group_size();
  uint16 results[32];
  for (uint i = 0; i < 32; ++i) results[i] = (uint16)0x7eadbeef;
  const uint16 mine = (uint16)(get_sub_group_local_id() * 3 + 1);
  for (uint i = 0; i < n; ++i) results[i] = intel_sub_group_shuffle(mine, i);
  uint passed = 1;
  for (uint i = 0; i < n; ++i)
    if (!SAME(results[i], (uint16)(i * 3 + 1))) passed = 0;
  out[tid] = passed ? n : 0u;
}
// shuffle_down hands over two int4 per work-item: on the local strategy 1024 work-items once
// needed 64 KiB of exchange scratch, more than an H100's 48 KiB (CL_OUT_OF_RESOURCES).
kernel void shuffle_down_int4(global uint* out) {
  const size_t tid = get_global_id(0) + get_global_size(0) *
                     (get_global_id(1) + get_global_size(1) * get_global_id(2));
  const uint n = get_sub_group_size(), lid = get_sub_group_local_id();
  int4 results[32];
  const int4 mine = (int4)(lid * 3 + 1), next = mine + 500;
  for (uint i = 0; i < n; ++i) results[i] = intel_sub_group_shuffle_down(mine, next, i);
  uint passed = 1;
  for (uint i = 0; i < n; ++i) {
    const uint j = lid + i;
    if (!SAME(results[i], (int4)(j < n ? j * 3 + 1 : (j - n) * 3 + 501))) passed = 0;
  }
  out[tid] = passed ? n : 0u;
}
)CLC";
  Program p;
  ASSERT_NO_FATAL_FAILURE(build(src, isgtest::extraBuildOptions(), &p));
  size_t deviceMax = 0;
  size_t maxItems[3] = {0, 0, 0};
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof deviceMax,
                               &deviceMax, nullptr));
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof maxItems,
                               maxItems, nullptr));
  // 1024 work-items as Intel's suite launches them (or the device's largest, if smaller):
  // 32 x 32 and 16 x 8 x 8.
  const size_t items = std::min<size_t>(deviceMax, 1024);
  std::vector<std::vector<size_t>> shapes;
  if (items == 1024 && maxItems[1] >= 32 && maxItems[2] >= 8) {
    shapes = {{32, 32}, {16, 8, 8}};
  } else {
    shapes = {{items / 2, 2}, {items / 4, 2, 2}};
  }
  for (const char* name : {"shuffle_int8", "shuffle_float4", "shuffle_long", "shuffle_uint16_s16",
                           "shuffle_down_int4"}) {
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(kernel(p, name, &k));
    for (const auto& local : shapes) {
      const cl_uint dims = cl_uint(local.size());
      std::vector<size_t> global(local);
      global[0] *= 2;  // two work-groups
      size_t total = 1;
      for (size_t g : global) total *= g;
      size_t S = 0;
      ISG_CL_CHECK(clGetKernelSubGroupInfo(k.k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                           dims * sizeof(size_t), local.data(), sizeof S, &S,
                                           nullptr));
      Words out(std::vector<uint32_t>(total, 0));
      ISG_CL_CHECK(clSetKernelArg(k.k, 0, sizeof out.mem, &out.mem));
      ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, k.k, dims, nullptr, global.data(),
                                       local.data(), 0, nullptr, nullptr),
                CL_SUCCESS)
          << name << " at " << local[0] << " x " << local[1] << (dims == 3 ? " x 8" : "");
      ISG_CL_CHECK(clFinish(env().queue));
      const std::vector<uint32_t> got = out.read();
      size_t bad = 0;
      for (size_t i = 0; i < total; ++i)
        if (got[i] != S && ++bad <= 3)
          ADD_FAILURE() << name << " " << dims << "-D work-item " << i << ": " << got[i]
                        << ", want " << S;
    }
  }
}

// The same kernel from the program's cached binary (issue 13.2): on NVIDIA the register cap
// must still be able to build it again, from the rewritten source the binary carries.
TEST(LargeWorkGroups, RegisterHeavyKernelFromItsBinary) {
  ISG_REQUIRE_ENV();
  Program source;
  ASSERT_NO_FATAL_FAILURE(
      build(isgref::registerHeavyKernel(), isgtest::extraBuildOptions(), &source));
  size_t size = 0;
  ISG_CL_CHECK(clGetProgramInfo(source.p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr));
  std::vector<unsigned char> binary(size);
  unsigned char* data = binary.data();
  ISG_CL_CHECK(clGetProgramInfo(source.p, CL_PROGRAM_BINARIES, sizeof data, &data, nullptr));
  const unsigned char* bytes = binary.data();
  cl_int err = CL_SUCCESS;
  Program p;
  p.p = clCreateProgramWithBinary(env().context, 1, &env().device, &size, &bytes, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const std::string options = isgtest::extraBuildOptions();
  ISG_CL_CHECK(clBuildProgram(p.p, 1, &env().device, options.c_str(), nullptr, nullptr));
  runRegisterHeavy(p);
}

}  // namespace
