// SPDX-License-Identifier: MIT
// The khr strategy's partition, through the real loader and the layer in khr test-double mode
// (CTest sets ISG_STRATEGY=khr and ISG_KHR_TEST_NATIVE_SIZE=N): Intel sub-groups of size S are
// aligned runs of S lanes of the N-wide native sub-groups, and every answer (in-kernel ids and
// sizes, the host's clGetKernelSubGroupInfo) describes those partitioned sub-groups, not the
// native ones. S > N sends the program to the local strategy, with a note in the build log.
#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "cl_harness.h"

namespace {

using isgtest::deviceSubGroupSizes;
using isgtest::env;

// The native size the test double was started with.
unsigned nativeSize() {
  const char* v = std::getenv("ISG_KHR_TEST_NATIVE_SIZE");
  return v ? unsigned(std::strtoul(v, nullptr, 10)) : 0;
}

#define ISG_REQUIRE_KHR_DOUBLE()                                                              \
  do {                                                                                        \
    ISG_REQUIRE_ENV();                                                                        \
    ASSERT_GT(nativeSize(), 0u) << "run with ISG_STRATEGY=khr ISG_KHR_TEST_NATIVE_SIZE=N"; \
  } while (0)

const char* kFallbackNote = "the program uses the local sub-group strategy instead of khr";

// Per work-item: size, id, local id, count, max size, sub-group reduce_add(lid), and the
// shuffle_down(lid, 1000 + lid, 1) that crosses from `current` into `next` at the last member.
constexpr unsigned kOutputs = 7;
std::string idsKernel(const std::string& name, unsigned S) {
  std::string attr =
      S ? "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n" : "";
  return attr + "kernel void " + name +
         "(global uint* out) {\n"
         "  uint lid = get_local_id(0) + get_local_size(0) * get_local_id(1);\n"
         "  uint wi = get_global_id(0) + get_global_size(0) * get_global_id(1);\n"
         "  global uint* o = out + 7u * wi;\n"
         "  o[0] = get_sub_group_size();\n"
         "  o[1] = get_sub_group_id();\n"
         "  o[2] = get_sub_group_local_id();\n"
         "  o[3] = get_num_sub_groups();\n"
         "  o[4] = get_max_sub_group_size();\n"
         "  o[5] = sub_group_reduce_add(lid);\n"
         "  o[6] = intel_sub_group_shuffle_down(lid, 1000u + lid, 1u);\n"
         "}\n";
}

struct Layout {
  size_t local[2];
};

// Runs `kernel` over two work-groups of `l` and checks every output against the Intel layout
// for S (runs of S consecutive linear local ids, the last one partial).
void checkIds(cl_kernel kernel, unsigned S, const Layout& l) {
  const size_t items = l.local[0] * l.local[1];
  const size_t global[2] = {2 * l.local[0], l.local[1]};
  cl_int err = CL_SUCCESS;
  cl_mem out = clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, 2 * items * kOutputs * 4,
                              nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ISG_CL_CHECK(clSetKernelArg(kernel, 0, sizeof out, &out));
  ISG_CL_CHECK(
      clEnqueueNDRangeKernel(env().queue, kernel, 2, nullptr, global, l.local, 0, nullptr, nullptr));
  std::vector<cl_uint> got(2 * items * kOutputs);
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, got.size() * 4, got.data(), 0,
                                   nullptr, nullptr));
  clReleaseMemObject(out);

  // The host queries describe the same sub-groups.
  size_t reported = 0, count = 0;
  ISG_CL_CHECK(clGetKernelSubGroupInfo(kernel, env().device,
                                       CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof l.local,
                                       l.local, sizeof reported, &reported, nullptr));
  ISG_CL_CHECK(clGetKernelSubGroupInfo(kernel, env().device, CL_KERNEL_SUB_GROUP_COUNT_FOR_NDRANGE,
                                       sizeof l.local, l.local, sizeof count, &count, nullptr));
  EXPECT_EQ(reported, S);
  EXPECT_EQ(count, (items + S - 1) / S);

  size_t bad = 0;
  for (size_t x = 0; x < global[0]; ++x) {
    for (size_t y = 0; y < global[1]; ++y) {
      const size_t wi = x + global[0] * y;
      const uint32_t lid = uint32_t(x % l.local[0] + l.local[0] * y);
      const uint32_t base = lid / S * S, size = uint32_t(std::min<size_t>(S, items - base));
      const uint32_t sglid = lid - base;
      uint32_t sum = 0;
      for (uint32_t m = base; m < base + size; ++m) sum += m;
      const cl_uint* o = got.data() + kOutputs * wi;
      const uint32_t want[kOutputs] = {size,
                                       lid / S,
                                       sglid,
                                       uint32_t(count),
                                       S,
                                       sum,
                                       sglid + 1 < S ? lid + 1 : 1000u + base};
      for (unsigned k = 0; k < kOutputs; ++k) {
        if (k == 6 && sglid + 1 >= size && sglid + 1 < S) continue;  // reads a missing member
        if (o[k] != want[k] && ++bad <= 5)
          ADD_FAILURE() << "S=" << S << " local " << l.local[0] << "x" << l.local[1] << " lid "
                        << lid << " output " << k << ": got " << o[k] << " want " << want[k];
      }
    }
  }
  EXPECT_EQ(bad, 0u);
}

cl_kernel kernelOf(cl_program p, const std::string& name) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, name.c_str(), &err);
  EXPECT_EQ(err, CL_SUCCESS) << name;
  return k;
}

class Partition : public ::testing::TestWithParam<unsigned> {};

// Ids, sizes, counts and exchanges of the partitioned sub-groups, and the host queries, for
// S < N (partition), S == N (native) and S > N (local fallback), full and partial.
TEST_P(Partition, IdsQueriesAndExchangesDescribeIntelSubGroups) {
  ISG_REQUIRE_KHR_DOUBLE();
  const unsigned S = GetParam(), N = nativeSize();
  std::string log;
  cl_program p = isgtest::buildProgram(idsKernel("ids", S), "", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(log.find(kFallbackNote) != std::string::npos, S > N) << log;
  cl_kernel k = kernelOf(p, "ids");
  ASSERT_NE(k, nullptr);
  for (const Layout& l : {Layout{{2 * N, 1}}, Layout{{2 * S + 3, 1}}, Layout{{5, 7}},
                          Layout{{N + S / 2 + 1, 2}}})
    checkIds(k, S, l);
  size_t compiled = 0;
  ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_COMPILE_SUB_GROUP_SIZE_INTEL, 0,
                                       nullptr, sizeof compiled, &compiled, nullptr));
  EXPECT_EQ(compiled, S);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

INSTANTIATE_TEST_SUITE_P(Khr, Partition, ::testing::Values(1u, 8u, 16u, 32u, 64u),
                         [](const auto& info) { return "S" + std::to_string(info.param); });

// Without intel_reqd_sub_group_size a kernel gets the native size.
TEST(PartitionDefault, KernelsWithoutARequiredSizeUseTheNativeSize) {
  ISG_REQUIRE_KHR_DOUBLE();
  const unsigned N = nativeSize();
  std::string log;
  cl_program p = isgtest::buildProgram(idsKernel("ids_default", 0), "", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(log.find(kFallbackNote), std::string::npos) << log;
  cl_kernel k = kernelOf(p, "ids_default");
  ASSERT_NE(k, nullptr);
  checkIds(k, N, Layout{{2 * N + 5, 1}});
  clReleaseKernel(k);
  clReleaseProgram(p);
}

// One kernel whose S does not divide N sends the whole program to local (helpers taking the
// sub-group context are shared between kernels); every kernel of it still answers for its S.
TEST(PartitionFallback, OneKernelLargerThanNativeSendsTheProgramToLocal) {
  ISG_REQUIRE_KHR_DOUBLE();
  const unsigned N = nativeSize();
  if (2 * N > 64) GTEST_SKIP() << "no sub-group size above N = " << N << " is supported";
  std::string log;
  cl_program p =
      isgtest::buildProgram(idsKernel("small", 8) + idsKernel("large", 2 * N), "", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_NE(log.find(kFallbackNote), std::string::npos) << log;
  EXPECT_NE(log.find("kernel 'large' needs sub-group size " + std::to_string(2 * N)),
            std::string::npos)
      << log;
  cl_kernel small = kernelOf(p, "small"), large = kernelOf(p, "large");
  ASSERT_NE(small, nullptr);
  ASSERT_NE(large, nullptr);
  checkIds(small, 8, Layout{{2 * N + 3, 1}});
  checkIds(large, 2 * N, Layout{{2 * N + 3, 1}});
  clReleaseKernel(small);
  clReleaseKernel(large);
  clReleaseProgram(p);
}

// A large required size on a kernel that calls no builtin does not matter: khr stays.
TEST(PartitionFallback, LargeSizeWithoutBuiltinsKeepsKhr) {
  ISG_REQUIRE_KHR_DOUBLE();
  const unsigned N = nativeSize();
  if (2 * N > 64) GTEST_SKIP() << "no sub-group size above N = " << N << " is supported";
  const std::string src = idsKernel("small", 8) +
                          "__attribute__((intel_reqd_sub_group_size(" + std::to_string(2 * N) +
                          ")))\nkernel void plain(global uint* out) { out[0] = 1u; }\n";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "", &log);
  ASSERT_NE(p, nullptr) << log;
  EXPECT_EQ(log.find(kFallbackNote), std::string::npos) << log;
  cl_kernel small = kernelOf(p, "small"), plain = kernelOf(p, "plain");
  ASSERT_NE(small, nullptr);
  ASSERT_NE(plain, nullptr);
  checkIds(small, 8, Layout{{2 * N + 3, 1}});
  size_t reported = 0, local = 2 * N;
  ISG_CL_CHECK(clGetKernelSubGroupInfo(plain, env().device,
                                       CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof local,
                                       &local, sizeof reported, &reported, nullptr));
  EXPECT_EQ(reported, 2 * N);
  clReleaseKernel(small);
  clReleaseKernel(plain);
  clReleaseProgram(p);
}

// The device advertises every size khr serves, partitioned or through the fallback.
TEST(PartitionDevice, AdvertisesEverySizeUpTo64) {
  ISG_REQUIRE_KHR_DOUBLE();
  std::vector<size_t> sizes = deviceSubGroupSizes();
  for (size_t s : {8, 16, 32, 64})
    EXPECT_NE(std::find(sizes.begin(), sizes.end(), s), sizes.end()) << s;
}

}  // namespace
