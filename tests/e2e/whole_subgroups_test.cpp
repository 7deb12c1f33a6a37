// SPDX-License-Identifier: MIT
// Kernels with reqd_work_group_size: when every work-group has the required size and it is a
// multiple of S, the rewriter hands the strategy the sizes as constants and tells it every
// sub-group is whole (its partial-sub-group handling drops out). These kernels check that the
// constant layout is the layout (1-D, 2-D and 3-D shapes, ids, collectives, exchanges, block
// reads) and that the cases the rule must leave alone still get their partial sub-group right:
// a required size that is not a multiple of S, and OpenCL C 2.0's smaller last work-group.
// Every result is checked against the host model (tests/reference/subgroup_model.h).
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "subgroup_model.h"

namespace {

using isgref::WorkGroup;

// What every kernel records per work-item, in this order.
enum Field : unsigned {
  kSgId, kSgLocalId, kSgSize, kNumSg, kMaxSize, kReduceAdd, kScanIncAdd, kScanExcMax, kReduceMaxF,
  kReduceAddF, kBroadcast1, kShuffleXor1, kShuffleDown1, kBlockRead, kFields
};

std::string kernelSource(const std::string& name, unsigned S, const size_t reqd[3]) {
  std::string r = std::to_string(reqd[0]) + ", " + std::to_string(reqd[1]) + ", " + std::to_string(reqd[2]);
  return "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) +
         "))) __attribute__((reqd_work_group_size(" + r + ")))\n"
         "kernel void " + name + "(global const int* in, global uint* out) {\n"
         "  uint wi = (uint)(get_global_id(0) + get_global_size(0) * (get_global_id(1) +\n"
         "                   get_global_size(1) * get_global_id(2)));\n"
         "  uint lid = (uint)(get_local_id(0) + get_local_size(0) * (get_local_id(1) +\n"
         "                    get_local_size(1) * get_local_id(2)));\n"
         "  uint group = (uint)get_group_id(0);\n"
         "  int x = in[wi];\n"
         "  float f = (float)x;\n"
         "  global uint* o = out + wi * " + std::to_string(kFields) + "u;\n"
         "  o[0] = get_sub_group_id(); o[1] = get_sub_group_local_id(); o[2] = get_sub_group_size();\n"
         "  o[3] = get_num_sub_groups(); o[4] = get_max_sub_group_size();\n"
         "  o[5] = (uint)sub_group_reduce_add(x); o[6] = (uint)sub_group_scan_inclusive_add(x);\n"
         "  o[7] = (uint)sub_group_scan_exclusive_max(x); o[8] = as_uint(sub_group_reduce_max(f));\n"
         "  o[9] = as_uint(sub_group_reduce_add(f)); o[10] = (uint)sub_group_broadcast(x, 1u);\n"
         "  o[11] = (uint)intel_sub_group_shuffle_xor(x, 1u);\n"
         "  o[12] = (uint)intel_sub_group_shuffle_down(x, -x, 1u);\n"
         "  const global uint* p = (const global uint*)in + (group * get_local_size(0) *\n"
         "      get_local_size(1) * get_local_size(2) + get_sub_group_id() * get_max_sub_group_size());\n"
         "  o[13] = (lid - get_sub_group_local_id()) + get_max_sub_group_size() <=\n"
         "          get_local_size(0) * get_local_size(1) * get_local_size(2)\n"
         "          ? intel_sub_group_block_read(p) : 0u;\n"
         "}\n";
}

struct Case {
  const char* name;
  unsigned S;
  size_t reqd[3];
  size_t lastGroupX;  // items along x in the last work-group (== reqd[0]: uniform)
};

// Runs `c` (already built into `program`) over two work-groups along x and checks every
// work-item against the model. The input is laid out by global linear id; block reads read it
// by work-group and sub-group, so both orders are written the same (1-D along x only).
void runAndCheck(cl_program program, const Case& c) {
  SCOPED_TRACE(c.name);
  const auto& e = isgtest::env();
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, c.name, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t global[3] = {c.reqd[0] + c.lastGroupX, c.reqd[1], c.reqd[2]};
  size_t items = global[0] * global[1] * global[2];
  std::vector<int32_t> in(items + 64);
  std::mt19937 rng(unsigned(c.S * 131 + c.reqd[0]));
  for (int32_t& v : in) v = int32_t(rng() % 61) - 30;
  cl_mem bin = clCreateBuffer(e.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * 4, in.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem bout = clCreateBuffer(e.context, CL_MEM_WRITE_ONLY, items * kFields * 4, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof bin, &bin));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof bout, &bout));
  ISG_CL_CHECK(clEnqueueNDRangeKernel(e.queue, k, 3, nullptr, global, c.reqd, 0, nullptr, nullptr));
  std::vector<uint32_t> out(items * kFields);
  ISG_CL_CHECK(clEnqueueReadBuffer(e.queue, bout, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr));
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseKernel(k);

  unsigned mismatches = 0;
  for (unsigned group = 0; group < 2; ++group) {
    WorkGroup g;
    g.S = c.S;
    g.local[0] = uint32_t(group == 0 ? c.reqd[0] : c.lastGroupX);
    g.local[1] = uint32_t(c.reqd[1]);
    g.local[2] = uint32_t(c.reqd[2]);
    auto wiOf = [&](uint32_t lid) {
      uint32_t x = lid % g.local[0], y = (lid / g.local[0]) % g.local[1], z = lid / (g.local[0] * g.local[1]);
      return size_t(group * c.reqd[0] + x) + global[0] * (y + global[1] * z);
    };
    std::vector<int32_t> xs(g.size());
    std::vector<float> fs(g.size());
    for (uint32_t lid = 0; lid < g.size(); ++lid) fs[lid] = float(xs[lid] = in[wiOf(lid)]);
    for (uint32_t lid = 0; lid < g.size(); ++lid) {
      const uint32_t* o = &out[wiOf(lid) * kFields];
      auto expect = [&](Field f, uint32_t want) {
        if (o[f] != want && ++mismatches <= 10)
          ADD_FAILURE() << "group " << group << " lid " << lid << " field " << f << ": got " << o[f]
                        << ", want " << want;
      };
      using isgref::Kind;
      using isgref::Op;
      expect(kSgId, g.subGroupId(lid));
      expect(kSgLocalId, g.subGroupLocalId(lid));
      expect(kSgSize, g.subGroupSize(lid));
      expect(kNumSg, g.numSubGroups());
      expect(kMaxSize, g.maxSubGroupSize());
      expect(kReduceAdd, uint32_t(isgref::integerCollective(g, lid, Kind::Reduce, Op::Add, xs)));
      expect(kScanIncAdd, uint32_t(isgref::integerCollective(g, lid, Kind::ScanInclusive, Op::Add, xs)));
      expect(kScanExcMax, uint32_t(isgref::integerCollective(g, lid, Kind::ScanExclusive, Op::Max, xs)));
      auto bits = [](float v) {
        uint32_t u;
        std::memcpy(&u, &v, 4);
        return u;
      };
      // Small integers: float sums are exact in any order.
      expect(kReduceMaxF, bits(float(isgref::floatCollective(g, lid, Kind::Reduce, Op::Max, fs, 0).value)));
      expect(kReduceAddF, bits(float(isgref::floatCollective(g, lid, Kind::Reduce, Op::Add, fs, 0).value)));
      if (auto s = isgref::broadcast(g, lid, 1)) expect(kBroadcast1, uint32_t(xs[s->lid]));
      if (auto s = isgref::shuffleXor(g, lid, 1)) expect(kShuffleXor1, uint32_t(xs[s->lid]));
      if (auto s = isgref::shuffleDown(g, lid, 1))
        expect(kShuffleDown1, uint32_t(s->which == 0 ? xs[s->lid] : -xs[s->lid]));
      if (auto i = isgref::blockBufferIndex(g, lid, 0))
        expect(kBlockRead, uint32_t(in[group * c.reqd[0] * c.reqd[1] * c.reqd[2] + g.subGroupBase(lid) + *i]));
    }
  }
  EXPECT_EQ(mismatches, 0u);
}

cl_program build(const std::vector<Case>& cases, const std::string& options) {
  std::string src;
  for (const Case& c : cases) src += kernelSource(c.name, c.S, c.reqd);
  std::string log;
  cl_int status = CL_SUCCESS;
  cl_program p = isgtest::buildProgram(src, options, &log, &status);
  EXPECT_NE(p, nullptr) << "build failed (" << status << "):\n" << log << "\n" << src;
  return p;
}

TEST(WholeSubGroups, RequiredSizesOfWholeAndPartialSubGroups) {
  ISG_REQUIRE_ENV();
  // Whole: the layout is constants. Partial: 24 is not a multiple of 16, the rule stays off.
  std::vector<Case> cases = {{"whole_1d_s16", 16, {48, 1, 1}, 48},
                             {"whole_2d_s16", 16, {8, 4, 1}, 8},
                             {"whole_3d_s8", 8, {4, 2, 3}, 4},
                             {"partial_1d_s16", 16, {24, 1, 1}, 24}};
  cl_program p = build(cases, "");
  ASSERT_NE(p, nullptr);
  for (const Case& c : cases) runAndCheck(p, c);
  clReleaseProgram(p);
}

// OpenCL C 2.0 lets the last work-group along a dimension be smaller than the required size:
// its last sub-group is partial, so the rule must not apply without -cl-uniform-work-group-size.
TEST(WholeSubGroups, SmallerLastWorkGroupOfOpenCL20) {
  ISG_REQUIRE_ENV();
  const auto& e = isgtest::env();
  cl_bool nonUniform = CL_FALSE;
  std::string version = isgtest::deviceString(e.device, CL_DEVICE_OPENCL_C_VERSION);
  if (clGetDeviceInfo(e.device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof nonUniform, &nonUniform,
                      nullptr) != CL_SUCCESS ||
      !nonUniform)
    GTEST_SKIP() << "the device runs no non-uniform work-groups (" << version << ")";
  std::vector<Case> cases = {{"last_group_smaller_s16", 16, {32, 1, 1}, 8}};
  cl_program p = build(cases, "-cl-std=CL2.0");
  ASSERT_NE(p, nullptr);
  runAndCheck(p, cases[0]);
  clReleaseProgram(p);
}

}  // namespace
