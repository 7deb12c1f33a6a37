// SPDX-License-Identifier: MIT
// Separate compilation: clCompileProgram with an input header whose helper calls a builtin,
// then clLinkProgram; the linked program's kernels run with the sub-group semantics.
#include <string>
#include <vector>

#include "cl_harness.h"
#include "layer_test_util.h"

namespace {

using isgtest::env;

const char* kHeader =
    "int rotate_in_sub_group(int v) {\n"
    "  uint lid = get_sub_group_local_id();\n"
    "  uint n = get_sub_group_size();\n"
    "  return intel_sub_group_shuffle(v, (lid + 1) % n);\n"
    "}\n";

const char* kMain =
    "#include \"sub_group_helpers.h\"\n"
    "kernel __attribute__((intel_reqd_sub_group_size(16)))\n"
    "void rotate_lanes(global const int* in, global int* out) {\n"
    "  size_t gid = get_global_id(0);\n"
    "  out[gid] = rotate_in_sub_group(in[gid]) + 1000 * (int)get_sub_group_size();\n"
    "}\n";

// A second unit without builtins; the kernel above does not call it, but it is linked in.
const char* kPlainUnit =
    "kernel void copy(global const int* in, global int* out) {\n"
    "  out[get_global_id(0)] = in[get_global_id(0)];\n"
    "}\n";

cl_program create(const char* text) {
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(env().context, 1, &text, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return p;
}

TEST(CompileLink, HeaderHelperWithBuiltinRunsAfterLink) {
  ISG_REQUIRE_ENV();
  cl_program header = create(kHeader);
  cl_program main = create(kMain);
  cl_program plain = create(kPlainUnit);
  ASSERT_TRUE(header && main && plain);
  const char* names[] = {"sub_group_helpers.h"};
  cl_int err = clCompileProgram(main, 1, &env().device, "", 1, &header, names, nullptr, nullptr);
  ASSERT_EQ(err, CL_SUCCESS) << isgtest::buildLog(main, env().device);
  ISG_CL_CHECK(
      clCompileProgram(plain, 1, &env().device, "", 0, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(isgtest::programSource(main), kMain);

  cl_program inputs[] = {main, plain};
  cl_program linked =
      clLinkProgram(env().context, 1, &env().device, "", 2, inputs, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS) << (linked ? isgtest::buildLog(linked, env().device) : "");
  ASSERT_NE(linked, nullptr);

  cl_kernel k = clCreateKernel(linked, "rotate_lanes", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_NO_FATAL_FAILURE(isgtest::expectKernelInfo(k, 2u, linked));
  size_t S = 0, local = 64;
  ISG_CL_CHECK(clGetKernelSubGroupInfo(k, env().device, CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE,
                                       sizeof local, &local, sizeof S, &S, nullptr));
  EXPECT_EQ(S, 16u);

  for (size_t groupSize : {64u, 40u}) {
    SCOPED_TRACE(groupSize);
    const size_t global = groupSize * 3;
    std::vector<cl_int> in = isgtest::iota(global), out;
    isgtest::runIntKernel(k, in, &out, global, groupSize);
    EXPECT_EQ(out, isgtest::rotateExpected(in, global, groupSize, 16));
  }

  cl_kernel copy = clCreateKernel(linked, "copy", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<cl_int> in = isgtest::iota(32), out;
  isgtest::runIntKernel(copy, in, &out, 32, 0);
  EXPECT_EQ(out, in);

  clReleaseKernel(copy);
  clReleaseKernel(k);
  clReleaseProgram(linked);
  clReleaseProgram(plain);
  clReleaseProgram(main);
  clReleaseProgram(header);
}

// Two units that both use builtins: each carries the strategy's library, and they still link.
TEST(CompileLink, TwoRewrittenUnitsLinkTogether) {
  ISG_REQUIRE_ENV();
  const std::string second =
      "kernel __attribute__((intel_reqd_sub_group_size(8)))\n"
      "void sg_size(global const int* in, global int* out) {\n"
      "  out[get_global_id(0)] = (int)get_sub_group_size() + 0 * in[0];\n"
      "}\n";
  cl_program header = create(kHeader);
  cl_program a = create(kMain);
  cl_program b = create(second.c_str());
  const char* names[] = {"sub_group_helpers.h"};
  ISG_CL_CHECK(clCompileProgram(a, 1, &env().device, "", 1, &header, names, nullptr, nullptr));
  ISG_CL_CHECK(clCompileProgram(b, 1, &env().device, "", 0, nullptr, nullptr, nullptr, nullptr));
  cl_program inputs[] = {a, b};
  cl_int err = CL_SUCCESS;
  cl_program linked =
      clLinkProgram(env().context, 1, &env().device, "", 2, inputs, nullptr, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS) << (linked ? isgtest::buildLog(linked, env().device) : "");
  cl_kernel k = clCreateKernel(linked, "sg_size", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  std::vector<cl_int> in = isgtest::iota(20), out;
  isgtest::runIntKernel(k, in, &out, 20, 20);
  for (size_t i = 0; i < 20; ++i) EXPECT_EQ(out[i], i < 16 ? 8 : 4) << i;
  clReleaseKernel(k);
  clReleaseProgram(linked);
  clReleaseProgram(a);
  clReleaseProgram(b);
  clReleaseProgram(header);
}

}  // namespace

namespace {

// Issue 13.3: object C defines a helper that uses a builtin (the layer gives it the sub-group
// context), object D only declares and calls it. The link cannot give D's call the context, and
// PoCL aborted the process at the first enqueue; the link now fails with
// CL_LINK_PROGRAM_FAILURE instead.
TEST(CompileLink, CallIntoAnotherObjectsContextHelperFailsTheLink) {
  ISG_REQUIRE_ENV();
  cl_program c = create(
      "uint rot(uint v) { return intel_sub_group_shuffle(v, (get_sub_group_local_id() + 1) % 16); }\n");
  cl_program d = create(
      "uint rot(uint);\n"
      "kernel __attribute__((intel_reqd_sub_group_size(16)))\n"
      "void use_rot(global uint* o) { o[get_global_id(0)] = rot(o[get_global_id(0)]); }\n");
  ASSERT_TRUE(c && d);
  ISG_CL_CHECK(clCompileProgram(c, 1, &env().device, "", 0, nullptr, nullptr, nullptr, nullptr));
  ISG_CL_CHECK(clCompileProgram(d, 1, &env().device, "", 0, nullptr, nullptr, nullptr, nullptr));
  cl_program inputs[] = {c, d};
  cl_int err = CL_SUCCESS;
  cl_program linked =
      clLinkProgram(env().context, 1, &env().device, "", 2, inputs, nullptr, nullptr, &err);
  EXPECT_EQ(err, CL_LINK_PROGRAM_FAILURE);
  EXPECT_EQ(linked, nullptr);
  if (linked) clReleaseProgram(linked);
  clReleaseProgram(c);
  clReleaseProgram(d);
}

}  // namespace
