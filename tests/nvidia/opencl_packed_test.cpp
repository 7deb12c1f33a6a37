// SPDX-License-Identifier: MIT
// Packed work-groups (docs/design.md, "Packed work-groups"): a kernel whose reqd_work_group_size
// is under a warp (Intel's SIMD16 kernels declare 1 x 16 x 1 or 16 x 1 x 1) runs, on the layer's
// PTX path on NVIDIA, as its packed copy: 32 / W work-groups to a warp. Every work-item
// function, the sub-group builtins and barriers (a loop of them whose trip count differs between
// work-groups, values through global memory across them) are checked against a host model of
// the spec: 1-D, 2-D and 3-D launches with and without a global offset, a number of work-groups
// no multiple of a warp's share, no local size given (which a driver may refuse), a wrong one
// refused, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, the program's kernels without the layer's copies;
// a kernel with local memory, which has no copy, in the same program. The model is the spec's:
// it runs on every device, packed on NVIDIA under ISG_PACK_WORK_GROUPS=1 (=auto: the launches of
// more work-groups than the GPU holds at once or than fill its SMs' warps packed) with
// ISG_NVIDIA_FRONTEND=layer (or for programs that need the layer's front end).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::env;

constexpr unsigned kFields = 16;

// BODY(S, W): what each work-item writes; `t` is where its work-group exchanges through
// global memory (W words a work-group).
const char* kPacked = R"(
#if __OPENCL_C_VERSION__ >= 200
#define LOCAL_LINEAR get_local_linear_id()
#define GLOBAL_LINEAR get_global_linear_id()
#define ENQUEUED(d) get_enqueued_local_size(d)
#else
#define LOCAL_LINEAR (get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * get_local_id(2)))
#define GLOBAL_LINEAR (x + get_global_size(0) * (y + get_global_size(1) * z))
#define ENQUEUED(d) get_local_size(d)
#endif
#define BODY(S, W)                                                                                 \
  const uint l = (uint)LOCAL_LINEAR;                                                                                 \
  const size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1), \
               z = get_global_id(2) - get_global_offset(2);                                         \
  global ulong* o = out + ((z * get_global_size(1) + y) * get_global_size(0) + x) * 16;            \
  o[0] = get_global_id(0) + 1000 * get_global_id(1) + 1000000 * get_global_id(2);                   \
  o[1] = get_local_id(0) + 100 * get_local_id(1) + 10000 * get_local_id(2);                         \
  o[2] = get_group_id(0) + 1000 * get_group_id(1) + 1000000 * get_group_id(2);                      \
  o[3] = get_num_groups(0) + 1000 * get_num_groups(1) + 1000000 * get_num_groups(2);                \
  o[4] = get_local_size(0) + 100 * get_local_size(1) + 10000 * get_local_size(2);                   \
  o[5] = get_global_size(0) + 1000 * get_global_size(1) + 1000000 * get_global_size(2);             \
  o[6] = get_global_offset(0) + 1000 * get_global_offset(1) + 1000000 * get_global_offset(2);       \
  o[7] = get_work_dim() + 10 * ENQUEUED(0) + 1000 * ENQUEUED(1);                                   \
  o[8] = GLOBAL_LINEAR;                                                                            \
  o[9] = get_sub_group_id() + 100 * get_sub_group_local_id() + 10000 * get_sub_group_size();       \
  o[10] = intel_sub_group_shuffle(l, (get_sub_group_local_id() + 1) % S);                          \
  o[11] = sub_group_reduce_add(l + 1);                                                             \
  const uint g = (uint)(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2))); \
  t[g * W + l] = (g * W + l) * 7 + 3;                                                              \
  barrier(CLK_GLOBAL_MEM_FENCE);                                                                   \
  o[12] = t[g * W + (l + 1) % W];                                                                  \
  o[13] = get_num_sub_groups() + 100 * get_max_sub_group_size();                                   \
  uint acc = 0;                                                                                    \
  for (uint i = 0; i < g % 3; ++i) {                                                               \
    acc += t[g * W + (l + i + 1) % W];                                                             \
    barrier(CLK_GLOBAL_MEM_FENCE);                                                                 \
  }                                                                                                \
  o[14] = acc;                                                                                     \
  /* votes over the warp's lanes of this sub-group only: the work-groups beside it differ */     \
  o[15] = sub_group_any((g & 1u) && get_sub_group_local_id() == 3u) + 2 * sub_group_all((g & 1u) != 0u);

__attribute__((reqd_work_group_size(2, 4, 2))) __attribute__((intel_reqd_sub_group_size(16)))
kernel void cube(global ulong* out, global uint* t) { BODY(16, 16) }

__attribute__((reqd_work_group_size(8, 1, 1))) __attribute__((intel_reqd_sub_group_size(8)))
kernel void row(global ulong* out, global uint* t) { BODY(8, 8) }

__attribute__((reqd_work_group_size(1, 16, 1))) __attribute__((intel_reqd_sub_group_size(16)))
kernel void column(global ulong* out, global uint* t) { BODY(16, 16) }

// Local memory keeps a work-group to its CTA: the same answers, as launched.
__attribute__((reqd_work_group_size(1, 16, 1))) __attribute__((intel_reqd_sub_group_size(16)))
kernel void staged(global ulong* out, global uint* t) {
  local uint mine[16];
  mine[get_local_id(1)] = 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint one = mine[15 - get_local_id(1)];
  BODY(16, 16)
  o[0] *= one;
}
)";

struct Shape {
  const char* kernel;
  cl_uint dims;
  std::array<size_t, 3> global, local, offset;
  bool passLocal, passOffset;
  unsigned S;
};

// The spec's answer for field f of the work-item at (x, y, z), offsets left out.
cl_ulong want(const Shape& s, size_t x, size_t y, size_t z, unsigned f) {
  const auto& G = s.global;
  const auto& L = s.local;
  const auto& O = s.offset;
  const size_t W = L[0] * L[1] * L[2], S = s.S;
  const size_t n[3] = {G[0] / L[0], G[1] / L[1], G[2] / L[2]};
  const size_t l = x % L[0] + L[0] * (y % L[1] + L[1] * (z % L[2]));
  const size_t g = x / L[0] + n[0] * (y / L[1] + n[1] * (z / L[2]));
  const size_t base = l / S * S;
  auto value = [&](size_t lane) { return cl_ulong((g * W + lane) * 7 + 3); };
  switch (f) {
    case 0: return (x + O[0]) + 1000 * (y + O[1]) + 1000000 * (z + O[2]);
    case 1: return x % L[0] + 100 * (y % L[1]) + 10000 * (z % L[2]);
    case 2: return x / L[0] + 1000 * (y / L[1]) + 1000000 * (z / L[2]);
    case 3: return n[0] + 1000 * n[1] + 1000000 * n[2];
    case 4: return L[0] + 100 * L[1] + 10000 * L[2];
    case 5: return G[0] + 1000 * G[1] + 1000000 * G[2];
    case 6: return O[0] + 1000 * O[1] + 1000000 * O[2];
    case 7: return s.dims + 10 * L[0] + 1000 * L[1];
    case 8: return (z * G[1] + y) * G[0] + x;
    case 9: return l / S + 100 * (l % S) + 10000 * S;
    case 10: return base + (l % S + 1) % S;
    case 11: return S * (base + 1) + S * (S - 1) / 2;
    case 12: return value((l + 1) % W);
    case 13: return W / S + 100 * S;
    case 14: {
      cl_ulong acc = 0;
      for (size_t i = 0; i < g % 3; ++i) acc += value((l + i + 1) % W);
      return acc;
    }
    default: return 3 * (g & 1);
  }
}

void checkLaunch(cl_program program, const Shape& s) {
  SCOPED_TRACE(std::string(s.kernel) + ", global " + std::to_string(s.global[0]) + " x " +
               std::to_string(s.global[1]) + " x " + std::to_string(s.global[2]) +
               (s.passLocal ? "" : ", no local size") + (s.passOffset ? ", offset" : ""));
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, s.kernel, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  size_t compiled[3] = {0, 0, 0};
  ISG_CL_CHECK(clGetKernelWorkGroupInfo(k, env().device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof compiled,
                                        compiled, nullptr));
  EXPECT_EQ(compiled[0] * 10000 + compiled[1] * 100 + compiled[2], s.local[0] * 10000 + s.local[1] * 100 + s.local[2])
      << "CL_KERNEL_COMPILE_WORK_GROUP_SIZE";
  const size_t items = s.global[0] * s.global[1] * s.global[2];
  const size_t groups = items / (s.local[0] * s.local[1] * s.local[2]);
  std::vector<cl_ulong> out(items * kFields, ~0ull);
  std::vector<cl_uint> t(items, 0);
  cl_mem bo = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * 8, out.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem bt = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, t.size() * 4, t.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bo, bt));
  // A local size other than the required one is refused, as the spec says.
  std::array<size_t, 3> wrong = s.local, wider = s.global;
  wrong[0] *= 2;
  wider[0] *= 2;
  EXPECT_EQ(clEnqueueNDRangeKernel(env().queue, k, s.dims, nullptr, wider.data(), wrong.data(), 0, nullptr, nullptr),
            CL_INVALID_WORK_GROUP_SIZE);
  err = clEnqueueNDRangeKernel(env().queue, k, s.dims, s.passOffset ? s.offset.data() : nullptr, s.global.data(),
                               s.passLocal ? s.local.data() : nullptr, 0, nullptr, nullptr);
  // No local size for a kernel that requires one: OpenCL 1.2 refuses it, later versions leave it
  // out (NVIDIA's driver refuses it for the programs its compiler builds, not for PTX); where it
  // runs, it runs the required size.
  const bool refused = !s.passLocal && err == CL_INVALID_WORK_GROUP_SIZE;
  if (!refused) {
    ASSERT_EQ(err, CL_SUCCESS);
  }
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, bo, CL_TRUE, 0, out.size() * 8, out.data(), 0, nullptr, nullptr));
  if (refused) {
    clReleaseMemObject(bo);
    clReleaseMemObject(bt);
    clReleaseKernel(k);
    return;
  }
  Shape model = s;
  if (!s.passOffset) model.offset = {0, 0, 0};
  unsigned bad = 0;
  for (size_t z = 0; z < s.global[2]; ++z)
    for (size_t y = 0; y < s.global[1]; ++y)
      for (size_t x = 0; x < s.global[0]; ++x)
        for (unsigned f = 0; f < kFields; ++f) {
          const cl_ulong got = out[((z * s.global[1] + y) * s.global[0] + x) * kFields + f];
          const cl_ulong w = want(model, x, y, z, f);
          if (got != w && ++bad <= 8)
            ADD_FAILURE() << "work-item (" << x << ", " << y << ", " << z << ") field " << f << ": " << got
                          << ", want " << w << " (" << groups << " work-groups)";
        }
  EXPECT_EQ(bad, 0u);
  clReleaseMemObject(bo);
  clReleaseMemObject(bt);
  clReleaseKernel(k);
}

TEST(OpenClLibrary, PackedWorkGroupsMatchTheSpec) {
  ISG_REQUIRE_ENV();
  const std::vector<size_t> sizes = isgtest::deviceSubGroupSizes();
  for (size_t S : {8, 16})
    if (std::find(sizes.begin(), sizes.end(), S) == sizes.end())
      GTEST_SKIP() << "the device has no sub-groups of " << S << " (its kernels require them)";
  for (const char* options : {"-cl-std=CL1.2", "-cl-std=CL2.0 -cl-fast-relaxed-math"}) {
    SCOPED_TRACE(options);
    std::string log;
    cl_program p = isgtest::buildProgram(kPacked, std::string(options) + " " + isgtest::extraBuildOptions(), &log);
    ASSERT_NE(p, nullptr) << log;
    // The program's kernels are the application's four, whatever copies the layer made.
    size_t count = 0;
    ISG_CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_NUM_KERNELS, sizeof count, &count, nullptr));
    EXPECT_EQ(count, 4u);
    char names[256] = {};
    ISG_CL_CHECK(clGetProgramInfo(p, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, nullptr));
    std::string list = names;
    std::sort(list.begin(), list.end());
    std::string want = "column;cube;row;staged";
    std::sort(want.begin(), want.end());
    EXPECT_EQ(list, want) << names;
    cl_kernel all[8] = {};
    cl_uint made = 0;
    ISG_CL_CHECK(clCreateKernelsInProgram(p, 8, all, &made));
    EXPECT_EQ(made, 4u);
    for (cl_uint i = 0; i < made; ++i) clReleaseKernel(all[i]);
    EXPECT_EQ(clCreateKernelsInProgram(p, 3, all, &made), CL_INVALID_VALUE) << "room for three of four";
    cl_int err = CL_SUCCESS;
    EXPECT_EQ(clCreateKernel(p, "cube__isg_packed", &err), nullptr);
    EXPECT_EQ(err, CL_INVALID_KERNEL_NAME);
    // 18 work-groups of 16, 9 warps' worth when packed.
    checkLaunch(p, {"cube", 3, {6, 12, 4}, {2, 4, 2}, {1, 2, 3}, true, true, 16});
    checkLaunch(p, {"cube", 3, {2, 4, 6}, {2, 4, 2}, {0, 0, 0}, false, false, 16});
    // 13 work-groups of 8: the last warp holds one.
    checkLaunch(p, {"row", 1, {104, 1, 1}, {8, 1, 1}, {5, 0, 0}, true, true, 8});
    checkLaunch(p, {"row", 1, {8, 1, 1}, {8, 1, 1}, {0, 0, 0}, false, false, 8});
    // 8,192 work-groups, more than an H200 (4,224 CTAs) or a B200 holds at once as given: packed
    // under ISG_PACK_WORK_GROUPS=auto too, where the launches above run as given.
    checkLaunch(p, {"row", 1, {65536, 1, 1}, {8, 1, 1}, {3, 0, 0}, true, true, 8});
    // OpenVINO's convolution shape: 5 x 3 work-groups of 1 x 16.
    checkLaunch(p, {"column", 2, {5, 48, 1}, {1, 16, 1}, {7, 16, 0}, true, true, 16});
    checkLaunch(p, {"column", 2, {5, 48, 1}, {1, 16, 1}, {0, 0, 0}, false, false, 16});
    // 56 x 56 work-groups of 1 x 16, as oneDNN's convolutions launch at batch 32: fewer than the
    // H200 holds at once, yet packed under auto too (more than 8 packed warps an SM).
    checkLaunch(p, {"column", 2, {56, 896, 1}, {1, 16, 1}, {0, 16, 0}, true, true, 16});
    checkLaunch(p, {"staged", 2, {3, 32, 1}, {1, 16, 1}, {2, 0, 0}, true, true, 16});
    clReleaseProgram(p);
  }
}

}  // namespace
