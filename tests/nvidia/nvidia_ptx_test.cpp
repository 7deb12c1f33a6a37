// SPDX-License-Identifier: MIT
// nvidia-ptx strategy: what only a warp can do, checked on an NVIDIA GPU through the layer.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "subgroup_model.h"

namespace {

using isgtest::env;

bool onNvidiaPtx() {
  const char* forced = std::getenv("ISG_STRATEGY");
  return isgtest::nvidiaDevice() &&
         !(forced && std::string(forced) != "auto" && std::string(forced) != "nvidia-ptx");
}

#define ISG_REQUIRE_NVIDIA_PTX()                                                          \
  do {                                                                                    \
    ISG_REQUIRE_ENV();                                                                    \
    if (!onNvidiaPtx()) GTEST_SKIP() << "needs an NVIDIA GPU on the nvidia-ptx strategy"; \
  } while (0)

std::string programBinary(cl_program p) {
  const std::vector<unsigned char> binary = isgtest::programBinary(p);
  return std::string(binary.begin(), binary.end());
}

// NVIDIA's program binary is the PTX its compiler produced: the builtins must be warp
// instructions there, and the kernel must not have grown a scratch argument or shared memory.
TEST(NvidiaPtx, BinaryUsesWarpInstructionsAndNoScratch) {
  ISG_REQUIRE_NVIDIA_PTX();
  const std::string src = R"(
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void k(global const uint* in, global uint* out) {
      uint g = get_global_id(0);
      uint v = intel_sub_group_shuffle(in[g], 15u - get_sub_group_local_id());
      v += intel_sub_group_shuffle_xor(v, 1u) + sub_group_reduce_add(v) + sub_group_any(v & 1);
      out[g] = v;
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "", &log);
  ASSERT_NE(p, nullptr) << log;
  const std::string ptx = programBinary(p);
  EXPECT_NE(ptx.find("shfl.sync.idx.b32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("shfl.sync.bfly.b32"), std::string::npos) << ptx;
  EXPECT_NE(ptx.find("vote.sync.ballot.b32"), std::string::npos) << ptx;
  EXPECT_EQ(ptx.find(".shared"), std::string::npos) << "local memory slipped in:\n" << ptx;
  EXPECT_EQ(ptx.find("bar.sync"), std::string::npos) << "a work-group barrier slipped in";
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u));
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST(NvidiaPtx, SizesAWarpCannotHonourFailTheBuild) {
  ISG_REQUIRE_NVIDIA_PTX();
  const std::string src =
      "__attribute__((intel_reqd_sub_group_size(64)))\n"
      "kernel void k(global uint* o) { o[0] = get_sub_group_local_id(); }\n";
  std::string log;
  cl_int status = CL_SUCCESS;
  EXPECT_EQ(isgtest::buildProgram(src, "", &log, &status), nullptr);
  EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(log.find("64"), std::string::npos) << log;
  EXPECT_NE(log.find("8, 16, 32"), std::string::npos) << log;
}

// Shuffles "need not be encountered by all work items in a sub-group": each branch of an
// irregular split shuffles among its own members only. Indices are drawn on the host so that
// every source took the same branch (anything else is undefined by the spec).
// A kernel whose PTX the layer wrote (here: a program that uses half) launches at up to the
// device's largest work-group, and says so: NVIDIA's driver answers 256 for
// CL_KERNEL_WORK_GROUP_SIZE whatever the kernel, Intel's drivers their largest, and
// Intel-targeted code sizes its work-groups by the answer (ggml's cumsum).
TEST(NvidiaPtx, KernelsOfTheLayersPtxAnswerTheirLargestWorkGroup) {
  ISG_REQUIRE_NVIDIA_PTX();
  const char* frontEnd = std::getenv("ISG_NVIDIA_FRONTEND");
  if (frontEnd && std::string(frontEnd) == "driver") GTEST_SKIP() << "no half, no layer's PTX under driver";
  if (isgtest::spirvMode()) GTEST_SKIP() << "from source; a module from SPIR-V takes the same PTX path";
  const std::string src = R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    kernel void big(global float* out) {
      local float s[1024];
      const uint l = get_local_id(0);
      s[l] = (float)(half)1.0f * (float)l;
      barrier(CLK_LOCAL_MEM_FENCE);
      out[get_global_id(0)] = s[get_local_size(0) - 1 - l];
    }
    kernel __attribute__((reqd_work_group_size(64, 2, 1))) void fixed(global float* out) {
      out[get_global_id(0)] = (float)(half)2.0f;
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel big = clCreateKernel(p, "big", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel fixed = clCreateKernel(p, "fixed", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t deviceLargest = 0, largest = 0, reqd = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof deviceLargest, &deviceLargest, nullptr));
  ISG_CL_CHECK(clGetKernelWorkGroupInfo(big, env().device, CL_KERNEL_WORK_GROUP_SIZE, sizeof largest, &largest, nullptr));
  ISG_CL_CHECK(clGetKernelWorkGroupInfo(fixed, nullptr, CL_KERNEL_WORK_GROUP_SIZE, sizeof reqd, &reqd, nullptr));
  EXPECT_EQ(largest, deviceLargest);
  EXPECT_EQ(reqd, 128u) << "reqd_work_group_size(64, 2, 1)";
  const size_t global = 2 * largest;
  std::vector<float> out(global, -1.0f);
  cl_mem b = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, global * 4, out.data(), &err);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(big, b));
  ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, big, 1, nullptr, &global, &largest, 0, nullptr, nullptr), CL_SUCCESS);
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, b, CL_TRUE, 0, global * 4, out.data(), 0, nullptr, nullptr));
  for (size_t i = 0; i < global; ++i) ASSERT_EQ(out[i], float(largest - 1 - i % largest)) << i;
  clReleaseMemObject(b);
  clReleaseKernel(big);
  clReleaseKernel(fixed);
  clReleaseProgram(p);
}

// Issue 35.1: in a kernel whose warps are all whole (reqd_work_group_size(64, 1, 1), uniform
// work-groups), the calls every work-item reaches together use the constant full member mask,
// and a call under a branch on the sub-group local id keeps the lanes active there. Results
// against a host model on every device (the local strategy elsewhere, without the branch,
// which that strategy cannot run: README, known limits); on NVIDIA the driver's
// PTX has fewer activemask reads than the same program with non-uniform work-groups allowed,
// where no call is known to be reached together, and still one for the branch.
TEST(NvidiaPtx, CallsReachedTogetherTakeTheFullMaskAndBranchesTheirLanes) {
  ISG_REQUIRE_ENV();
  const std::string src = R"(
    __attribute__((reqd_work_group_size(64, 1, 1))) __attribute__((intel_reqd_sub_group_size(SG)))
    kernel void together(global const uint* in, global uint* out, int rounds, int branch) {
      if (rounds < 0) return;
      const uint g = get_global_id(0);
      const uint x = in[g];
      uint acc = 0u;
      for (int r = 0; r < rounds; ++r) {
        acc += intel_sub_group_shuffle(x, (uint)r % SG);
        acc ^= intel_sub_group_shuffle_xor(x, 1u) << (r & 7);
      }
      sub_group_barrier(CLK_GLOBAL_MEM_FENCE);
      out[8 * g + 0] = acc;
      out[8 * g + 1] = sub_group_reduce_add(x);
      out[8 * g + 2] = sub_group_scan_inclusive_max(x);
      out[8 * g + 3] = sub_group_broadcast(x, 3u);
      out[8 * g + 4] = intel_sub_group_shuffle_down(x, x + 1u, 2u);
      out[8 * g + 5] = intel_sub_group_shuffle_up(x + 7u, x, 1u);
      /* The local strategy cannot exchange in divergent code (a documented limit): branch 0 there. */
      if (branch && (get_sub_group_local_id() & 1u) == 0u) out[8 * g + 6] = intel_sub_group_shuffle_xor(x, 2u);
    })";
  const bool nvidia = onNvidiaPtx();
  // Programs from SPIR-V keep activemask everywhere (the module rewriter has no UniformFlow;
  // docs/spirv.md): their results are checked, not their masks.
  const bool countMasks = nvidia && !isgtest::spirvMode();
  for (uint32_t S : {8u, 16u, 32u}) {
    size_t activemasks[2] = {0, 0};
    const char* const optionSets[2] = {"-cl-std=CL2.0 -cl-uniform-work-group-size", "-cl-std=CL2.0"};
    for (int variant = 0; variant < 2; ++variant) {
      const std::string options = std::string(optionSets[variant]) + " -DSG=" + std::to_string(S);
      SCOPED_TRACE(options);
      std::string log;
      cl_program p = isgtest::buildProgram(src, options, &log);
      ASSERT_NE(p, nullptr) << log;
      if (countMasks) {
        const std::string ptx = programBinary(p);
        for (size_t at = ptx.find("activemask.b32"); at != std::string::npos; at = ptx.find("activemask.b32", at + 1))
          ++activemasks[variant];
      }
      cl_int err = CL_SUCCESS;
      cl_kernel k = clCreateKernel(p, "together", &err);
      ASSERT_EQ(err, CL_SUCCESS);
      constexpr uint32_t kLocal = 64, kItems = 4 * kLocal;
      const cl_int rounds = 5;
      std::mt19937 rng(S);
      std::vector<cl_uint> in(kItems), out(8 * kItems, 0xdeadbeefu);
      for (auto& v : in) v = rng() & 0xffffu;
      cl_mem bin = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kItems * 4, in.data(), &err);
      cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data(), &err);
      const cl_int branch = nvidia ? 1 : 0;
      ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bin, bout, rounds, branch));
      const size_t global = kItems, local = kLocal;
      ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
      ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
      unsigned bad = 0;
      for (uint32_t g = 0; g < kItems && bad < 8; ++g) {
        const uint32_t m = g % S, base = g - m;  // sub-groups are runs of S work-items
        auto at = [&](uint32_t member) { return in[base + member]; };
        uint32_t want[8] = {0, 0, 0, 0, 0, 0, 0, 0xdeadbeefu};
        for (int r = 0; r < rounds; ++r) {
          want[0] += at(uint32_t(r) % S);
          want[0] ^= at(m ^ 1u) << (r & 7);
        }
        for (uint32_t i = 0; i < S; ++i) want[1] += at(i);
        for (uint32_t i = 0; i <= m; ++i) want[2] = std::max(want[2], at(i));
        want[3] = at(3);
        want[4] = m + 2 < S ? at(m + 2) : at(m + 2 - S) + 1u;
        want[5] = m >= 1 ? at(m - 1) : at(S - 1) + 7u;
        want[6] = nvidia && (m & 1u) == 0 ? at(m ^ 2u) : 0xdeadbeefu;
        for (int o = 0; o < 8; ++o)
          if (out[8 * g + o] != want[o] && ++bad <= 8)
            ADD_FAILURE() << "S=" << S << " work-item " << g << " output " << o << ": " << out[8 * g + o]
                          << ", the spec says " << want[o];
      }
      clReleaseMemObject(bin);
      clReleaseMemObject(bout);
      clReleaseKernel(k);
      clReleaseProgram(p);
    }
    if (countMasks) {
      SCOPED_TRACE("S=" + std::to_string(S));
      EXPECT_GE(activemasks[0], 1u) << "the branch's shuffle lost its activemask";
      EXPECT_LT(activemasks[0], activemasks[1]) << "no call took the full mask";
    }
  }
}

// ISG_SUB_GROUP_SIZE_FROM_LAUNCH (on by default): a kernel without intel_reqd_sub_group_size
// gets the sub-groups each launch's x size implies (16 x 2: rows of 16; 8 x 4: rows of 8; else
// 32), in the kernel (sizes, ids, a reduction per row against a host model) and in the queries.
// A run that turns the rule off (the control at 0, or ISG_SUB_GROUP_SIZE naming a size) says so.
TEST(NvidiaPtx, SubGroupSizeFollowsTheLaunchWhereAsked) {
  ISG_REQUIRE_NVIDIA_PTX();
  const char* asked = std::getenv("ISG_SUB_GROUP_SIZE_FROM_LAUNCH");
  const char* size = std::getenv("ISG_SUB_GROUP_SIZE");
  if ((asked && std::string(asked) == "0") || (size && std::string(size) != "0" && *size))
    GTEST_SKIP() << "the run turns the rows rule off (ISG_SUB_GROUP_SIZE_FROM_LAUNCH=0 or ISG_SUB_GROUP_SIZE)";
  const std::string src = R"(
    kernel void rows(global const uint* in, global uint* out) {
      const uint g = get_global_id(0) + get_global_id(1) * get_global_size(0);
      out[4 * g + 0] = get_sub_group_size();
      out[4 * g + 1] = get_sub_group_id();
      out[4 * g + 2] = get_sub_group_local_id();
      out[4 * g + 3] = sub_group_reduce_add(in[g]);
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "-cl-std=CL2.0", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "rows", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t shapes[][2] = {{16, 2}, {8, 4}, {32, 1}, {64, 1}};
  for (const auto& shape : shapes) {
    const size_t local[2] = {shape[0], shape[1]}, global[2] = {shape[0] * 4, shape[1] * 3};
    const uint32_t S = shape[0] == 8 || shape[0] == 16 ? uint32_t(shape[0]) : 32u;
    SCOPED_TRACE("local " + std::to_string(local[0]) + "x" + std::to_string(local[1]));
    size_t answered = 0;
    ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local, local,
                                         sizeof answered, &answered, nullptr));
    EXPECT_EQ(answered, S);
    const size_t n = global[0] * global[1];
    std::vector<cl_uint> in(n), out(4 * n, 0xdeadbeefu);
    for (size_t i = 0; i < n; ++i) in[i] = cl_uint(i * 7 + 3);
    cl_mem bin = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * 4, in.data(), &err);
    cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 4, out.data(), &err);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bin, bout));
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 2, nullptr, global, local, 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
    unsigned bad = 0;
    for (size_t y = 0; y < global[1]; ++y)
      for (size_t x = 0; x < global[0] && bad < 8; ++x) {
        const size_t g = x + y * global[0];
        const size_t lid = (x % local[0]) + (y % local[1]) * local[0];  // linear local id
        const size_t groupX = x / local[0] * local[0], groupY = y / local[1] * local[1];
        const uint32_t member = uint32_t(lid % S), id = uint32_t(lid / S);
        uint32_t sum = 0;
        for (uint32_t m = 0; m < S; ++m) {
          const size_t l = lid - member + m;
          sum += in[(groupX + l % local[0]) + (groupY + l / local[0]) * global[0]];
        }
        const uint32_t want[4] = {S, id, member, sum};
        for (int o = 0; o < 4; ++o)
          if (out[4 * g + o] != want[o] && ++bad <= 8)
            ADD_FAILURE() << "work-item (" << x << ", " << y << ") output " << o << ": " << out[4 * g + o]
                          << ", expected " << want[o];
      }
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
  }
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST(NvidiaPtx, ShufflesInsideBranchesThatSplitASubGroup) {
  ISG_REQUIRE_NVIDIA_PTX();
  const std::string src = R"(
    #define BRANCH(lid) ((((lid) * 7u + 3u) % 5u) < 2u)
    __attribute__((intel_reqd_sub_group_size(SG)))
    kernel void diverge(global const uint* in, global const uint* idx, global uint* out) {
      uint g = get_global_id(0);
      uint x = in[g];
      if (BRANCH(get_local_id(0))) {
        out[4 * g + 0] = intel_sub_group_shuffle(x, idx[4 * g + 0]);
        out[4 * g + 1] = intel_sub_group_shuffle_xor(x, idx[4 * g + 1]);
      } else {
        out[4 * g + 2] = intel_sub_group_shuffle_down(x, x + 1000u, idx[4 * g + 2]);
        out[4 * g + 3] = intel_sub_group_shuffle_up(x + 2000u, x, idx[4 * g + 3]);
      }
    })";
  for (uint32_t S : {8u, 16u, 32u}) {
    SCOPED_TRACE("S=" + std::to_string(S));
    std::string log;
    cl_program p = isgtest::buildProgram(src, "-DSG=" + std::to_string(S), &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "diverge", &err);
    ASSERT_EQ(err, CL_SUCCESS);

    isgref::WorkGroup wg;
    wg.S = S;
    wg.local[0] = 96;  // three warps; with S = 8/16 several sub-groups per warp
    const uint32_t n = wg.size() * 4;  // four work-groups
    auto branch = [](uint32_t lid) { return (lid * 7u + 3u) % 5u < 2u; };
    std::mt19937 rng(S);
    std::vector<cl_uint> in(n), idx(4 * n, 0), out(4 * n, 0xdeadbeefu);
    for (auto& v : in) v = rng() & 0xffffu;
    // For each work-item and operation, a parameter whose source member took the same branch.
    for (uint32_t g = 0; g < n; ++g) {
      const uint32_t lid = g % wg.size(), base = wg.subGroupBase(lid), me = lid - base;
      std::vector<uint32_t> mates;
      for (uint32_t m = 0; m < wg.subGroupSize(lid); ++m)
        if (branch(base + m) == branch(lid)) mates.push_back(m);
      const uint32_t mate = mates[rng() % mates.size()];
      idx[4 * g + 0] = mate;
      idx[4 * g + 1] = me ^ mate;
      idx[4 * g + 2] = mate >= me ? mate - me : mate + S - me;  // next[mate] when it wraps
      idx[4 * g + 3] = me >= mate ? me - mate : me + S - mate;  // previous[mate] when it wraps
    }
    cl_mem bin = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                n * 4, in.data(), &err);
    cl_mem bidx = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                                 idx.size() * 4, idx.data(), &err);
    cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                                 out.size() * 4, out.data(), &err);
    ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof bin, &bin));
    ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof bidx, &bidx));
    ISG_CL_CHECK(clSetKernelArg(k, 2, sizeof bout, &bout));
    const size_t global = n, local = wg.size();
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr,
                                        nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, out.size() * 4, out.data(),
                                     0, nullptr, nullptr));
    // Expected values from the reference model's index rules.
    unsigned bad = 0;
    for (uint32_t g = 0; g < n && bad < 10; ++g) {
      const uint32_t lid = g % wg.size(), group0 = g - lid;
      auto value = [&](std::optional<isgref::Source> s, uint32_t first, uint32_t second) {
        EXPECT_TRUE(s.has_value());
        const uint32_t v = in[group0 + s->lid];
        return s->which == 0 ? v + first : v + second;
      };
      uint32_t expect[4] = {0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu, 0xdeadbeefu};
      if (branch(lid)) {
        expect[0] = value(isgref::shuffle(wg, lid, idx[4 * g + 0]), 0, 0);
        expect[1] = value(isgref::shuffleXor(wg, lid, idx[4 * g + 1]), 0, 0);
      } else {
        expect[2] = value(isgref::shuffleDown(wg, lid, idx[4 * g + 2]), 0, 1000);
        expect[3] = value(isgref::shuffleUp(wg, lid, idx[4 * g + 3]), 2000, 0);
      }
      for (int op = 0; op < 4; ++op)
        if (out[4 * g + op] != expect[op]) {
          ++bad;
          ADD_FAILURE() << "work-item " << g << " op " << op << ": got " << out[4 * g + op]
                        << ", expected " << expect[op];
        }
    }
    clReleaseMemObject(bin);
    clReleaseMemObject(bidx);
    clReleaseMemObject(bout);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

}  // namespace

namespace {

// The OpenCL C library beside the sub-group builtins: atomics on global and local memory, math,
// conversions and the work-item functions of a launch with a global offset, against the host.
// Built from source it checks the driver; from SPIR-V on NVIDIA (ISG_TEST_SPIRV,
// tools/device/run-spirv.sh) it checks the layer's PTX: libclc, the launch registers, atomics.
// NVIDIA's driver lays out local-memory arguments from an odd address, each aligned only to its
// pointee (a `local char*` at 0x401), so a table passed as `local char*` and read through
// `local float*`, as ggml's mxfp4 kernels do, faults there without the layer (the queue dies:
// -36). The rewritten kernel takes such arguments as `local uint4*` (DeviceTraits::
// alignLocalArgs) on every strategy. A 2-D work-group of 16 x 2 as ggml launches it, a 3-byte
// local argument before the table.
TEST(OpenClLibrary, LocalCharArgumentsReadThroughWiderPointers) {
  ISG_REQUIRE_ENV();
  if (!isgtest::nvidiaDevice())
    GTEST_SKIP() << "the driver defect and its remedy are NVIDIA's";
  const std::string src = R"(
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void lut(global const uchar* idx, global float* out, local char* pad,
                    local char* table) {
      local float* f = (local float*)table;
      const uint l = get_local_id(1) * get_local_size(0) + get_local_id(0);
      if (l < 16) f[l] = (float)l * 0.25f - 1.0f;
      if (l < 3) pad[l] = (char)l;
      barrier(CLK_LOCAL_MEM_FENCE);
      const size_t g = get_global_id(1) * get_global_size(0) + get_global_id(0);
      out[g] = sub_group_reduce_add(f[idx[g] & 15]) + pad[2];
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "lut", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t global[2] = {64, 4}, local[2] = {16, 2}, n = 64 * 4;
  std::vector<uint8_t> idx(n);
  for (size_t i = 0; i < n; ++i) idx[i] = uint8_t((i * 7 + 3) % 251);
  std::vector<float> out(n, -1.0f);
  cl_mem bidx = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n,
                               idx.data(), &err);
  cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof bidx, &bidx));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof bout, &bout));
  ISG_CL_CHECK(clSetKernelArg(k, 2, 3, nullptr));
  ISG_CL_CHECK(clSetKernelArg(k, 3, 16 * sizeof(float), nullptr));
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 2, nullptr, global, local, 0, nullptr, nullptr));
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, n * 4, out.data(), 0, nullptr,
                                   nullptr));
  // Host model: a sub-group is 16 consecutive x of one row of the work-group.
  for (size_t y = 0; y < global[1]; ++y)
    for (size_t x0 = 0; x0 < global[0]; x0 += 16) {
      float sum = 0;
      for (size_t x = x0; x < x0 + 16; ++x) sum += float(idx[y * global[0] + x] & 15) * 0.25f - 1.0f;
      for (size_t x = x0; x < x0 + 16; ++x)
        EXPECT_FLOAT_EQ(out[y * global[0] + x], sum + 2.0f) << "x " << x << " y " << y;
    }
  clReleaseMemObject(bidx);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

// Intel-targeted OpenCL C that NVIDIA's compiler (driver 580) rejects, in oneDNN's shapes: a
// variadic debug macro (rejected below OpenCL C 3.0), as_long of a pointer, a generic pointer
// and program-scope globals (rejected under 3.0, where NVIDIA lists neither feature), 2.0
// atomics. Intel's compiler and PoCL build it; on NVIDIA the layer's own front end does
// (ISG_NVIDIA_FRONTEND=auto, or =layer), and the build log says so. Results against the host.
TEST(OpenClLibrary, IntelOpenClCThatNvidiasCompilerRejects) {
  ISG_REQUIRE_ENV();
  if (isgtest::spirvMode()) GTEST_SKIP() << "about OpenCL C source and its compilers";
  const std::string src = R"(
    #define DEBUG_PRINT(...) do { } while (0)
    #define BLOCK_READ(ptr) as_float(intel_sub_group_block_read((const __global uint*)(ptr)))
    global float bias[4] = {0.5f, 1.0f, 1.5f, 2.0f};
    global int calls = 0;
    float twice(float* p) { return *p * 2.0f; }
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void onednn_like(global float* dst, global const float* src, global long* low,
                            global int* count) {
      DEBUG_PRINT("%d %d", 1, 2);
      const size_t g = get_global_id(0);
      const size_t first = get_group_id(0) * get_local_size(0) + get_sub_group_id() * 16;
      float v = BLOCK_READ(src + first);
      float mine = v;
      v = intel_sub_group_shuffle(v, (get_sub_group_local_id() + 1) & 15) + twice(&mine) + bias[g & 3];
      dst[g] = v;
      if (g == 0) low[0] = as_long(src) & 3;
      volatile atomic_int* generic_calls = (volatile atomic_int*)&calls;
      volatile atomic_int* generic_count = (volatile atomic_int*)count;
      atomic_fetch_add_explicit(generic_calls, 1, memory_order_relaxed);
      atomic_fetch_add(generic_count, 1);
    })";
  const bool nvidia = isgtest::nvidiaDevice();
  const char* frontEnd = std::getenv("ISG_NVIDIA_FRONTEND");
  const bool layerFrontEnd = nvidia && !(frontEnd && std::string(frontEnd) == "driver");
  cl_bool generic = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_GENERIC_ADDRESS_SPACE_SUPPORT, sizeof generic, &generic, nullptr);
  if (!nvidia && !generic)
    GTEST_SKIP() << "the device's compiler has no generic address space (PoCL 3.1); Intel's runtime "
                    "(native.intel_opencl_c) and NVIDIA's through the layer run this";
  for (const char* std : {"-cl-std=CL2.0", "-cl-std=CL3.0 -cl-mad-enable"}) {
    SCOPED_TRACE(std);
    std::string log;
    cl_int status = CL_SUCCESS;
    cl_program p = isgtest::buildProgram(src, std, &log, &status);
    if (nvidia && !layerFrontEnd) {
      EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE) << "NVIDIA's compiler alone rejects it";
      if (p) clReleaseProgram(p);
      continue;
    }
    ASSERT_NE(p, nullptr) << log;
    // Straight to the layer's front end under layer and every; auto notes the fallback.
    if (nvidia && !(frontEnd && (std::string(frontEnd) == "layer" || std::string(frontEnd) == "every"))) {
      EXPECT_NE(log.find("the layer's own front end built it"), std::string::npos) << log;
    }
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "onednn_like", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    constexpr size_t kItems = 256, kLocal = 64;
    std::vector<float> in(kItems), out(kItems, -1.0f);
    for (size_t i = 0; i < kItems; ++i) in[i] = float(int(i * 37 % 101) - 50) * 0.125f;
    cl_long low = -1;
    cl_int count = 0;
    cl_mem bin = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kItems * 4, in.data(), &err);
    cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 4, nullptr, &err);
    cl_mem blow = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 8, &low, &err);
    cl_mem bcount = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, 4, &count, &err);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bout, bin, blow, bcount));
    const size_t global = kItems, local = kLocal;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, kItems * 4, out.data(), 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, blow, CL_TRUE, 0, 8, &low, 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bcount, CL_TRUE, 0, 4, &count, 0, nullptr, nullptr));
    const float bias[4] = {0.5f, 1.0f, 1.5f, 2.0f};
    for (size_t g = 0; g < kItems; ++g) {
      const size_t base = g & ~size_t(15), lane = g & 15;
      EXPECT_FLOAT_EQ(out[g], in[base + ((lane + 1) & 15)] + 2.0f * in[g] + bias[g & 3]) << g;
    }
    EXPECT_EQ(low, 0) << "as_long of a buffer's address: aligned";
    EXPECT_EQ(count, cl_int(kItems));
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    clReleaseMemObject(blow);
    clReleaseMemObject(bcount);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

// The same OpenCL C compiled separately (clCompileProgram of each object, clLinkProgram, and a
// library with -create-library), as projects that cache objects build it: a variadic debug
// macro (NVIDIA's compiler rejects it below OpenCL C 3.0), half where the device offers
// cl_khr_fp16 (NVIDIA's does only through the layer), a helper of one object that reaches a
// sub-group builtin called from another's kernel. On NVIDIA the objects compile and link on
// the layer's own front end (issue 34.6); Intel's runtime and PoCL compile them themselves.
// Results against the host.
TEST(OpenClLibrary, IntelOpenClCInSeparatelyCompiledObjects) {
  ISG_REQUIRE_ENV();
  if (isgtest::spirvMode()) GTEST_SKIP() << "about OpenCL C source and its compilers";
  const std::string helpers = R"(
    #define TRACE(...) do { } while (0)
    #ifdef cl_khr_fp16
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    float halved(float x) { half h = (half)x; return (float)(h * (half)0.5f); }
    #else
    float halved(float x) { return x * 0.5f; }
    #endif
    float next_lane(float v) {
      TRACE("%f", v, 1);
      return intel_sub_group_shuffle(v, (get_sub_group_local_id() + 1) & 15);
    })";
  const std::string kernels = R"(
    #define TRACE(...) do { } while (0)
    float halved(float x);
    float next_lane(float v);
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void combine(global float* dst, global const float* src) {
      TRACE("%d %d", 1, 2);
      const size_t g = get_global_id(0);
      dst[g] = next_lane(src[g]) + halved(src[g]) + (float)get_sub_group_size();
    })";
  const bool nvidia = isgtest::nvidiaDevice();
  const char* frontEnd = std::getenv("ISG_NVIDIA_FRONTEND");
  const bool layerFrontEnd = nvidia && !(frontEnd && std::string(frontEnd) == "driver");
  const bool fp16 = isgtest::deviceHasExtension("cl_khr_fp16");
  if (layerFrontEnd) {
    EXPECT_TRUE(fp16) << "the layer offers cl_khr_fp16 on NVIDIA";
  }
  auto compile = [&](const std::string& text, const char* options, std::string* log) {
    const char* t = text.c_str();
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(env().context, 1, &t, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS);
    err = clCompileProgram(p, 1, &env().device, options, 0, nullptr, nullptr, nullptr, nullptr);
    *log = isgtest::buildLog(p, env().device);
    if (nvidia && !layerFrontEnd) return p;  // NVIDIA's compiler alone: below
    EXPECT_EQ(err, CL_SUCCESS) << *log;
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    clGetProgramBuildInfo(p, env().device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, nullptr);
    EXPECT_EQ(type, cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_COMPILED_OBJECT));
    return p;
  };
  auto link = [&](std::vector<cl_program> inputs, const char* options) {
    cl_int err = CL_SUCCESS;
    cl_program p = clLinkProgram(env().context, 1, &env().device, options, cl_uint(inputs.size()), inputs.data(),
                                 nullptr, nullptr, &err);
    EXPECT_EQ(err, CL_SUCCESS) << options;
    return p;
  };
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL3.0 -cl-mad-enable"}) {
    SCOPED_TRACE(std);
    std::string helpersLog, kernelsLog;
    cl_program a = compile(helpers, std, &helpersLog);
    cl_program b = compile(kernels, std, &kernelsLog);
    if (nvidia && !layerFrontEnd) {
      // NVIDIA's compiler alone: the variadic macro below 3.0 (half is not offered there).
      if (std::string(std).find("CL1.2") != std::string::npos) {
        EXPECT_NE(kernelsLog.find("variadic"), std::string::npos) << kernelsLog;
      }
      clReleaseProgram(a);
      clReleaseProgram(b);
      continue;
    }
    cl_program library = link({a}, "-create-library");
    ASSERT_NE(library, nullptr);
    cl_program_binary_type type = CL_PROGRAM_BINARY_TYPE_NONE;
    clGetProgramBuildInfo(library, env().device, CL_PROGRAM_BINARY_TYPE, sizeof type, &type, nullptr);
    EXPECT_EQ(type, cl_program_binary_type(CL_PROGRAM_BINARY_TYPE_LIBRARY));
    // An object cached as a binary (CL_PROGRAM_BINARIES) links as the object did.
    const std::vector<unsigned char> binary = isgtest::programBinary(a);
    ASSERT_FALSE(binary.empty());
    cl_int status = CL_SUCCESS, err = CL_SUCCESS;
    cl_program cached = isgtest::programFromBinary(binary, &err, &status);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_program fromObjects = link({b, a}, "");
    cl_program fromLibrary = link({b, library}, "");
    cl_program fromCache = link({cached, b}, "");
    ASSERT_TRUE(fromObjects && fromLibrary && fromCache);
    constexpr size_t kItems = 256, kLocal = 64;
    std::vector<float> in(kItems);
    for (size_t i = 0; i < kItems; ++i) in[i] = float(int(i * 37 % 101) - 50) * 0.125f;
    cl_mem bin = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kItems * 4, in.data(), &err);
    cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 4, nullptr, &err);
    for (cl_program p : {fromObjects, fromLibrary, fromCache}) {
      cl_kernel k = clCreateKernel(p, "combine", &err);
      ASSERT_EQ(err, CL_SUCCESS);
      cl_uint args = 0;
      clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr);
      EXPECT_EQ(args, 2u);
      ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bout, bin));
      const size_t global = kItems, local = kLocal;
      ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
      std::vector<float> out(kItems, -1.0f);
      ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, kItems * 4, out.data(), 0, nullptr, nullptr));
      for (size_t g = 0; g < kItems; ++g) {
        const size_t base = g & ~size_t(15), lane = g & 15;
        // Every input is a multiple of 1/8 within +-6.25: exact in half, and so is its half.
        const float half = in[g] * 0.5f;
        EXPECT_FLOAT_EQ(out[g], in[base + ((lane + 1) & 15)] + half + 16.0f) << g;
      }
      clReleaseKernel(k);
    }
    clReleaseMemObject(bin);
    clReleaseMemObject(bout);
    for (cl_program p : {a, b, cached, library, fromObjects, fromLibrary, fromCache}) clReleaseProgram(p);
  }
}

// half, IEEE binary16, on the host: `f` rounded to nearest even, toward zero or toward +inf.
enum class HalfRounding { Nearest, TowardZero, Up };
uint16_t toHalf(float f, HalfRounding mode) {
  const _Float16 nearest = static_cast<_Float16>(f);
  uint16_t bits;
  std::memcpy(&bits, &nearest, 2);
  const float back = static_cast<float>(nearest);
  if (std::isnan(f) || back == f || mode == HalfRounding::Nearest) return bits;
  const bool away = std::fabs(back) > std::fabs(f);  // rounded away from zero
  if (mode == HalfRounding::TowardZero && away) return uint16_t(bits - 1);
  if (mode == HalfRounding::Up && back < f) return uint16_t(f > 0 ? bits + 1 : bits - 1);
  return bits;
}
float fromHalf(uint16_t bits) {
  _Float16 h;
  std::memcpy(&h, &bits, 2);
  return static_cast<float>(h);
}
float roundHalf(float f) { return fromHalf(toHalf(f, HalfRounding::Nearest)); }
// Why a test of half in OpenCL C source cannot run here, or nullptr.
const char* whyNoHalfFromSource() {
  if (isgtest::spirvMode()) return "about OpenCL C source and its compilers";
  if (!isgtest::deviceHasExtension("cl_khr_fp16"))
    return "the device offers no cl_khr_fp16 (PoCL 3.1; NVIDIA unless ISG_NVIDIA_FRONTEND=layer)";
  return nullptr;
}

// cl_khr_fp16 (issue 34.4): NVIDIA's driver offers none; through the layer's front end
// (ISG_NVIDIA_FRONTEND=layer) an NVIDIA device has it, and so do drivers that have it
// themselves (Intel's: native.intel_opencl_c). Arithmetic,
// conversions in three rounding modes, vstore_half, math and relational builtins, and half
// through an Intel builtin, against a host model of binary16.
TEST(OpenClLibrary, HalfPrecisionWhereTheDeviceOffersIt) {
  ISG_REQUIRE_ENV();
  if (const char* why = whyNoHalfFromSource()) GTEST_SKIP() << why;
  cl_device_fp_config config = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_HALF_FP_CONFIG, sizeof config, &config, nullptr));
  EXPECT_NE(config & CL_FP_INF_NAN, 0u);
  const std::string src = R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void hk(global const float* in, global half* out, global float* shuffled,
                   global short* flags) {
      const size_t i = get_global_id(0);
      const half x = convert_half(in[i]);
      out[i * 6 + 0] = x * (half)2.0h + (half)0.5h;
      out[i * 6 + 1] = fmax(x, (half)0.25h);
      out[i * 6 + 2] = sqrt(fabs(x));
      out[i * 6 + 3] = convert_half_rtz(in[i]);
      out[i * 6 + 4] = convert_half_rtp(in[i]);
      vstore_half_rtz(in[i] * 3.0f, i * 6 + 5, out);
      shuffled[i] = (float)intel_sub_group_shuffle(x, (get_sub_group_local_id() + 1) % 16);
      flags[i] = (short)(isnan(x / x) * 2 + isinf(x * (half)60000.0h));
    })";
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL2.0"}) {
    SCOPED_TRACE(std);
    std::string log;
    cl_program p = isgtest::buildProgram(src, std, &log);
    ASSERT_NE(p, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel k = clCreateKernel(p, "hk", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    constexpr size_t kItems = 128;
    std::vector<float> in(kItems);
    for (size_t i = 0; i < kItems; ++i) in[i] = (float(i) - 40.0f) * 0.3712f + (i % 7 == 0 ? 0.0f : 1e-4f);
    in[40] = 0.0f;
    std::vector<uint16_t> out(kItems * 6);
    std::vector<float> shuffled(kItems);
    std::vector<cl_short> flags(kItems);
    cl_mem bin = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kItems * 4, in.data(), &err);
    cl_mem bout = clCreateBuffer(env().context, CL_MEM_READ_WRITE, out.size() * 2, nullptr, &err);
    cl_mem bsh = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 4, nullptr, &err);
    cl_mem bflags = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 2, nullptr, &err);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bin, bout, bsh, bflags));
    const size_t global = kItems, local = 32;
    ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bout, CL_TRUE, 0, out.size() * 2, out.data(), 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bsh, CL_TRUE, 0, kItems * 4, shuffled.data(), 0, nullptr, nullptr));
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bflags, CL_TRUE, 0, kItems * 2, flags.data(), 0, nullptr, nullptr));
    for (size_t i = 0; i < kItems; ++i) {
      SCOPED_TRACE("item " + std::to_string(i) + ", input " + std::to_string(in[i]));
      const float x = roundHalf(in[i]);
      EXPECT_EQ(fromHalf(out[i * 6 + 0]), roundHalf(x * 2.0f + 0.5f));
      EXPECT_EQ(fromHalf(out[i * 6 + 1]), std::fmax(x, 0.25f));
      EXPECT_NEAR(fromHalf(out[i * 6 + 2]), std::sqrt(std::fabs(x)), std::sqrt(std::fabs(x)) * 0x1p-10f);
      EXPECT_EQ(out[i * 6 + 3], toHalf(in[i], HalfRounding::TowardZero));
      EXPECT_EQ(out[i * 6 + 4], toHalf(in[i], HalfRounding::Up));
      EXPECT_EQ(out[i * 6 + 5], toHalf(in[i] * 3.0f, HalfRounding::TowardZero));
      const size_t partner = (i & ~size_t(15)) | ((i + 1) & 15);
      EXPECT_EQ(shuffled[i], roundHalf(in[partner]));
      EXPECT_EQ(flags[i], (x == 0.0f ? 2 : 0) + (std::isinf(roundHalf(x * 60000.0f)) ? 1 : 0));
    }
    for (cl_mem m : {bin, bout, bsh, bflags}) clReleaseMemObject(m);
    clReleaseKernel(k);
    clReleaseProgram(p);
  }
}

// fma of halves is correctly rounded (the spec's half accuracy table), scalar and in vectors:
// the layer's front end gives NVIDIA devices fma.rn.f16 and fma.rn.f16x2 (OpenVINO's half
// convolutions are chains of them). The first triple is one where float's fma rounded to half
// differs from the correct result (rounding twice lands on a tie). fmin, fmax, min, max and
// fabs are exact, the vector forms too, with a scalar beside a vector; mad may fuse or not.
TEST(OpenClLibrary, HalfFmaRoundsOnceAndMinMaxAreExact) {
  ISG_REQUIRE_ENV();
  if (const char* why = whyNoHalfFromSource()) GTEST_SKIP() << why;
  const std::string src = R"(
    #pragma OPENCL EXTENSION cl_khr_fp16 : enable
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void hm(global const half* a, global const half* b, global const half* c,
                   global half* scalar, global half* vfma, global half* vmax, global half* vmin) {
      const size_t i = get_global_id(0);
      const half x = a[i * 8], y = b[i * 8], z = c[i * 8];
      scalar[i * 6 + 0] = fma(x, y, z);
      scalar[i * 6 + 1] = mad(x, y, z);
      scalar[i * 6 + 2] = fmin(x, z);
      scalar[i * 6 + 3] = fmax(y, z);
      scalar[i * 6 + 4] = min(x, y) + max(y, z);
      scalar[i * 6 + 5] = fabs(z);
      const half8 va = vload8(i, a), vb = vload8(i, b), vc = vload8(i, c);
      // A sub-group shuffle between, as in the convolutions: the operand comes from a neighbour.
      const half8 vs = as_half8(intel_sub_group_shuffle(as_ushort8(va), get_sub_group_local_id()));
      vstore8(fma(vs, vb, vc), i, vfma);
      vstore8(fmax(va, z), i, vmax);
      vstore8(min(va, vb), i, vmin);
    })";
  constexpr size_t kItems = 64, kLanes = 8, kN = kItems * kLanes;
  // Multiples of 2^-8 within +-4: a * b + c is exact in double; the double converts to half once.
  std::vector<uint16_t> a(kN), b(kN), c(kN);
  uint32_t seed = 12345;
  auto next = [&seed] { seed = seed * 1664525u + 1013904223u; return seed >> 8; };
  auto halfOf = [](double v) {
    const _Float16 h = static_cast<_Float16>(v);
    uint16_t bits;
    std::memcpy(&bits, &h, 2);
    return bits;
  };
  for (size_t j = 0; j < kN; ++j) {
    a[j] = halfOf((int(next() % 2049) - 1024) / 256.0);
    b[j] = halfOf((int(next() % 2049) - 1024) / 256.0);
    c[j] = halfOf((int(next() % 2049) - 1024) / 256.0 * (j % 3 == 0 ? 0x1p-6 : 1.0));
  }
  for (size_t j : {size_t(0), size_t(5 * kLanes + 3)}) {
    a[j] = halfOf(1.5185546875);
    b[j] = halfOf(1.5390625);
    c[j] = halfOf(-0.00023639202117919922);
  }
  auto exactFma = [&](uint16_t x, uint16_t y, uint16_t z) {
    return halfOf(double(fromHalf(x)) * double(fromHalf(y)) + double(fromHalf(z)));
  };
  ASSERT_NE(exactFma(a[0], b[0], c[0]), halfOf(double(float(double(fromHalf(a[0])) * fromHalf(b[0]) + fromHalf(c[0])))))
      << "the first triple no longer tells one rounding from two";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "-cl-std=CL2.0 -cl-mad-enable", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "hm", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<cl_mem> in;
  for (std::vector<uint16_t>* v : {&a, &b, &c})
    in.push_back(clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, kN * 2, v->data(), &err));
  std::vector<uint16_t> scalar(kItems * 6), vfma(kN), vmax(kN), vmin(kN);
  std::vector<cl_mem> out;
  for (std::vector<uint16_t>* v : {&scalar, &vfma, &vmax, &vmin})
    out.push_back(clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, v->size() * 2, nullptr, &err));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, in[0], in[1], in[2], out[0], out[1], out[2], out[3]));
  const size_t global = kItems, local = 32;
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr));
  std::vector<std::vector<uint16_t>*> results{&scalar, &vfma, &vmax, &vmin};
  for (size_t r = 0; r < out.size(); ++r)
    ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out[r], CL_TRUE, 0, results[r]->size() * 2, results[r]->data(), 0,
                                     nullptr, nullptr));
  auto h = [](uint16_t bits) { return double(fromHalf(bits)); };
  for (size_t i = 0; i < kItems; ++i) {
    const size_t j = i * kLanes;
    SCOPED_TRACE("item " + std::to_string(i) + ": " + std::to_string(h(a[j])) + ", " + std::to_string(h(b[j])) +
                 ", " + std::to_string(h(c[j])));
    EXPECT_EQ(scalar[i * 6 + 0], exactFma(a[j], b[j], c[j])) << "fma";
    const uint16_t unfused = halfOf(h(halfOf(h(a[j]) * h(b[j]))) + h(c[j]));
    EXPECT_TRUE(scalar[i * 6 + 1] == exactFma(a[j], b[j], c[j]) || scalar[i * 6 + 1] == unfused) << "mad";
    EXPECT_EQ(scalar[i * 6 + 2], halfOf(std::fmin(h(a[j]), h(c[j])))) << "fmin";
    EXPECT_EQ(scalar[i * 6 + 3], halfOf(std::fmax(h(b[j]), h(c[j])))) << "fmax";
    EXPECT_EQ(scalar[i * 6 + 4], halfOf(std::fmin(h(a[j]), h(b[j])) + std::fmax(h(b[j]), h(c[j])))) << "min + max";
    EXPECT_EQ(scalar[i * 6 + 5], halfOf(std::fabs(h(c[j])))) << "fabs";
    for (size_t l = 0; l < kLanes; ++l) {
      SCOPED_TRACE("lane " + std::to_string(l));
      EXPECT_EQ(vfma[j + l], exactFma(a[j + l], b[j + l], c[j + l])) << "fma of half8";
      EXPECT_EQ(vmax[j + l], halfOf(std::fmax(h(a[j + l]), h(c[j])))) << "fmax(half8, half)";
      EXPECT_EQ(vmin[j + l], halfOf(std::fmin(h(a[j + l]), h(b[j + l])))) << "min of half8";
    }
  }
  for (cl_mem m : in) clReleaseMemObject(m);
  for (cl_mem m : out) clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST(OpenClLibrary, AtomicsMathConversionsAndWorkItemsMatchTheHost) {
  ISG_REQUIRE_ENV();
  const std::string src = R"(
    __attribute__((intel_reqd_sub_group_size(16)))
    kernel void lib(global int* counters, global float* f, global int* conv, global ulong* geo,
                    local int* l) {
      const size_t gid = get_global_id(0), lid = get_local_id(0);
      if (lid == 0) l[0] = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_inc(&l[0]);
      atomic_add(&counters[0], 1);
      atomic_max(&counters[1], (int)gid);
      atomic_min(&counters[2], (int)gid);
      atomic_cmpxchg(&counters[3], 0, 7);
      atomic_add(&counters[5], sub_group_reduce_add(1));
      barrier(CLK_LOCAL_MEM_FENCE);
      if (lid == 0) atomic_add(&counters[4], l[0]);
      const size_t i = gid - get_global_offset(0);
      const float x = (float)i * 0.01f;
      f[i * 4 + 0] = sin(x);
      f[i * 4 + 1] = exp(x);
      f[i * 4 + 2] = sqrt(x);
      f[i * 4 + 3] = native_exp(x);
      conv[i] = convert_int_sat_rte(x * 1e9f);
      if (i == 0) {
        geo[0] = get_global_offset(0);
        geo[1] = get_global_size(0);
        geo[2] = get_num_groups(0);
        geo[3] = get_work_dim();
        geo[4] = get_group_id(0);
        geo[5] = get_local_size(0);
        geo[6] = get_enqueued_local_size(0) + get_global_linear_id() * 1000;
      }
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "-cl-std=CL2.0", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "lib", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr size_t kOffset = 64, kItems = 256, kLocal = 64;
  std::vector<cl_int> counters = {0, -1, 0x7fffffff, 0, 0, 0};
  cl_mem c = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                            counters.size() * 4, counters.data(), &err);
  cl_mem f = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 16, nullptr, &err);
  cl_mem conv = clCreateBuffer(env().context, CL_MEM_READ_WRITE, kItems * 4, nullptr, &err);
  cl_mem geo = clCreateBuffer(env().context, CL_MEM_READ_WRITE, 7 * 8, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof c, &c));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof f, &f));
  ISG_CL_CHECK(clSetKernelArg(k, 2, sizeof conv, &conv));
  ISG_CL_CHECK(clSetKernelArg(k, 3, sizeof geo, &geo));
  ISG_CL_CHECK(clSetKernelArg(k, 4, sizeof(cl_int), nullptr));
  const size_t offset = kOffset, global = kItems, local = kLocal;
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, &offset, &global, &local, 0, nullptr, nullptr));
  std::vector<float> fs(kItems * 4);
  std::vector<cl_int> convs(kItems);
  std::vector<cl_ulong> geos(7);
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, c, CL_TRUE, 0, counters.size() * 4, counters.data(), 0, nullptr, nullptr));
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, f, CL_TRUE, 0, fs.size() * 4, fs.data(), 0, nullptr, nullptr));
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, conv, CL_TRUE, 0, convs.size() * 4, convs.data(), 0, nullptr, nullptr));
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, geo, CL_TRUE, 0, geos.size() * 8, geos.data(), 0, nullptr, nullptr));
  EXPECT_EQ(counters[0], int(kItems)) << "atomic_add";
  EXPECT_EQ(counters[1], int(kOffset + kItems - 1)) << "atomic_max";
  EXPECT_EQ(counters[2], int(kOffset)) << "atomic_min";
  EXPECT_EQ(counters[3], 7) << "atomic_cmpxchg";
  EXPECT_EQ(counters[4], int(kItems)) << "atomic_inc on local memory";
  EXPECT_EQ(counters[5], int(kItems * 16)) << "sub_group_reduce_add(1) of every sub-group of 16";
  for (size_t i = 0; i < kItems; ++i) {
    const float x = float(i) * 0.01f;
    EXPECT_NEAR(fs[i * 4 + 0], std::sin(x), 1e-6f + 4e-7f * std::fabs(std::sin(x))) << "sin " << x;
    EXPECT_NEAR(fs[i * 4 + 1], std::exp(x), 4e-7f * std::exp(x)) << "exp " << x;
    EXPECT_NEAR(fs[i * 4 + 2], std::sqrt(x), 4e-7f * std::sqrt(x) + 1e-30f) << "sqrt " << x;
    EXPECT_NEAR(fs[i * 4 + 3], std::exp(x), 1e-3f * std::exp(x)) << "native_exp " << x;
    const float scaled = x * 1e9f;
    const double r = std::nearbyint(double(scaled));
    const cl_int want = r >= 2147483647.0 ? 2147483647 : r <= -2147483648.0 ? int(-2147483647 - 1) : cl_int(r);
    EXPECT_EQ(convs[i], want) << "convert_int_sat_rte(" << scaled << ")";
  }
  EXPECT_EQ(geos[0], kOffset) << "get_global_offset";
  EXPECT_EQ(geos[1], kItems) << "get_global_size";
  EXPECT_EQ(geos[2], kItems / kLocal) << "get_num_groups";
  EXPECT_EQ(geos[3], 1u) << "get_work_dim";
  EXPECT_EQ(geos[4], 0u) << "get_group_id of the first work-item";
  EXPECT_EQ(geos[5], kLocal) << "get_local_size";
  EXPECT_EQ(geos[6], kLocal) << "get_enqueued_local_size, and get_global_linear_id 0 for the first";
  for (cl_mem m : {c, f, conv, geo}) clReleaseMemObject(m);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

}  // namespace
