// SPDX-License-Identifier: MIT
// nvidia-ptx strategy: what only a warp can do, checked on an NVIDIA GPU through the layer.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "subgroup_model.h"

namespace {

using isgtest::env;

bool onNvidiaPtx() {
  const std::string vendor = isgtest::deviceString(env().device, CL_DEVICE_VENDOR);
  const char* forced = std::getenv("ISG_STRATEGY");
  return vendor.find("NVIDIA") != std::string::npos &&
         !(forced && std::string(forced) != "auto" && std::string(forced) != "nvidia-ptx");
}

#define ISG_REQUIRE_NVIDIA_PTX()                                                          \
  do {                                                                                    \
    ISG_REQUIRE_ENV();                                                                    \
    if (!onNvidiaPtx()) GTEST_SKIP() << "needs an NVIDIA GPU on the nvidia-ptx strategy"; \
  } while (0)

std::string programBinary(cl_program p) {
  size_t size = 0;
  EXPECT_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, nullptr),
            CL_SUCCESS);
  std::string bin(size, '\0');
  unsigned char* ptr = reinterpret_cast<unsigned char*>(bin.data());
  EXPECT_EQ(clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof ptr, &ptr, nullptr), CL_SUCCESS);
  return bin;
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
