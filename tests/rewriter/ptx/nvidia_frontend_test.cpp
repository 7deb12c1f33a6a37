// SPDX-License-Identifier: MIT
// The layer's OpenCL C front end for NVIDIA (isg::compileForNvidia, docs/design.md "Build paths
// on NVIDIA"): Intel-targeted OpenCL C that NVIDIA's own compiler (driver 580) rejects, in the
// shapes real projects write it (oneDNN's variadic debug macros and as_long of pointers, OpenCL
// C 2.0's generic pointers, program-scope globals and atomics), compiled to PTX here; the GPU
// runs the same programs (tests/nvidia, ISG_NVIDIA_FRONTEND=layer).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "isg/rewriter.h"

namespace {

isg::RewriteInput nvidiaInput(const std::string& source, const std::string& options,
                              isg::Strategy strategy = isg::Strategy::NvidiaPtx) {
  isg::RewriteInput in;
  in.source = source;
  in.options = options;
  isg::applyStrategyDefaults(strategy, 32, &in.traits);
  in.traits.fp64 = true;
  in.traits.nvidiaComputeCapability = 90;
  in.traits.openclCVersion = 300;
  in.traits.alignLocalArgs = true;
  // What NVIDIA's driver 580 reports on an H100 (the parts that matter to the compile).
  in.traits.deviceOpenclVersion = 300;
  in.traits.deviceExtensions = {"cl_khr_global_int32_base_atomics", "cl_khr_global_int32_extended_atomics",
                                "cl_khr_local_int32_base_atomics", "cl_khr_local_int32_extended_atomics",
                                "cl_khr_fp64", "cl_khr_3d_image_writes", "cl_khr_byte_addressable_store",
                                "cl_nv_compiler_options", "cl_nv_pragma_unroll", "cl_khr_int64_base_atomics",
                                "cl_khr_int64_extended_atomics"};
  in.traits.openclCFeatures = {"__opencl_c_int64", "__opencl_c_fp64", "__opencl_c_images",
                               "__opencl_c_3d_image_writes"};
  in.traits.images = true;
  in.traits.readWriteImages = false;
  return in;
}

// ISG_TEST_PTX_DIR=<dir> keeps every PTX written here, for checking with ptxas where CUDA is
// installed (ptxas -arch=sm_90 <dir>/*.ptx); CI has no CUDA.
isg::RewriteResult keep(isg::RewriteResult r) {
  static int written = 0;
  if (const char* dir = std::getenv("ISG_TEST_PTX_DIR"); dir && r.status == isg::RewriteResult::Status::Rewritten)
    std::ofstream(std::string(dir) + "/frontend-" + std::to_string(++written) + ".ptx") << r.binary.c_str();
  return r;
}

isg::RewriteResult compile(const std::string& source, const std::string& options = "",
                           isg::Strategy strategy = isg::Strategy::NvidiaPtx) {
  return keep(isg::compileForNvidia(nvidiaInput(source, options, strategy)));
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// oneDNN's shapes (src/gpu/intel/include/utils.h, gemm/xe_hp_systolic_copy.cl): a variadic
// debug macro, a builtin inside a macro, as_long of a pointer, a helper that reaches the
// sub-group builtins.
const char* kOneDnnShapes = R"CLC(
#define DEBUG_PRINT(...) do { } while (0)
#define CONCAT2(a, b) a##b
#define BLOCK_READ(ptr) as_float(intel_sub_group_block_read((const __global uint*)(ptr)))
#define SHUFFLE(x, i) intel_sub_group_shuffle(x, i)

float sum_over(float x) { return sub_group_reduce_add(x); }

__attribute__((intel_reqd_sub_group_size(16)))
__kernel void onednn_like(__global float* dst, __global const float* src) {
  DEBUG_PRINT("%d", 1, 2);
  const long address = as_long(src);
  float v = BLOCK_READ(src + get_group_id(0) * 16);
  v = SHUFFLE(v, (get_sub_group_local_id() + 1) & 15) + sum_over(v);
  dst[get_global_id(0)] = v + (float)(address & 1);
}
)CLC";

TEST(NvidiaFrontEnd, OneDnnShapesBuildUnderEveryStandard) {
  for (const char* std : {"", "-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    const isg::RewriteResult r = compile(kOneDnnShapes, std);
    ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << std << ": " << r.log;
    ASSERT_EQ(r.form, isg::RewriteResult::Form::Ptx) << std;
    ASSERT_FALSE(r.binary.empty());
    EXPECT_EQ(r.binary.back(), '\0') << "NVIDIA reads PTX as a C string";
    const std::string ptx = r.binary.c_str();
    EXPECT_TRUE(has(ptx, ".entry onednn_like(")) << std;
    EXPECT_TRUE(has(ptx, ".reqntid") || has(ptx, ".maxntid 1024, 1, 1")) << std;
    EXPECT_TRUE(has(ptx, "shfl.sync")) << std << ": nvidia-ptx's warp shuffles";
    EXPECT_FALSE(has(ptx, ".extern")) << std << ": every builtin resolved";
    EXPECT_TRUE(has(ptx, "%envreg3")) << std << ": get_global_id includes the launch's global offset";
    // The manifest is the source rewriter's.
    ASSERT_EQ(r.kernels.size(), 1u);
    EXPECT_EQ(r.kernels[0].name, "onednn_like");
    EXPECT_EQ(r.kernels[0].subGroupSize, 16u);
    EXPECT_TRUE(r.kernels[0].requiredSubGroupSize);
    EXPECT_EQ(r.kernels[0].numUserArgs, 2u);
    EXPECT_FALSE(r.source.empty()) << "the rewritten source stays with the result";
  }
}

// OpenCL C 2.0 as Intel's compiler takes it: generic pointers, program-scope globals, 2.0
// atomics on them, a kernel called as a function by another kernel.
const char* kOpenCl20 = R"CLC(
global int counter = 0;
global float table[4] = {1.0f, 2.0f, 3.0f, 4.0f};

int load_any(int* generic_pointer) { return *generic_pointer; }

__kernel void inner(__global int* out) { out[get_global_id(0)] += 1; }

__kernel void outer(__global int* out, __local int* scratch) {
  scratch[get_local_id(0)] = (int)get_local_id(0);
  barrier(CLK_LOCAL_MEM_FENCE);
  int v = load_any(&scratch[get_local_id(0)]) + load_any(out);
  atomic_fetch_add_explicit((volatile global atomic_int*)&counter, 1, memory_order_relaxed);
  out[get_global_id(0)] = v + (int)table[get_local_id(0) & 3] +
                          intel_sub_group_shuffle(v, 0u);
  inner(out);
}
)CLC";

TEST(NvidiaFrontEnd, OpenClTwoFeaturesIntelCodeUses) {
  for (const char* std : {"-cl-std=CL2.0", "-cl-std=CL3.0 -cl-mad-enable"}) {
    const isg::RewriteResult r = compile(kOpenCl20, std);
    ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << std << ": " << r.log;
    const std::string ptx = r.binary.c_str();
    EXPECT_TRUE(has(ptx, ".entry inner(")) << std;
    EXPECT_TRUE(has(ptx, ".entry outer(")) << std;
    EXPECT_TRUE(has(ptx, ".global .align 4 .u32 counter")) << std << ": program-scope globals";
    EXPECT_TRUE(has(ptx, "atom.global.add.u32")) << std;
    EXPECT_FALSE(has(ptx, "call.uni")) << std << ": the called kernel is inlined, not called as an entry";
    EXPECT_FALSE(has(ptx, ".extern")) << std;
  }
}

// CLBlast's INLINE_FUNC is C99 `inline` without `static`: an inline definition only. A call
// the optimiser leaves uninlined (noinline here) still finds its body in the PTX.
TEST(NvidiaFrontEnd, InlineDefinitionsStayInTheProgram) {
  const isg::RewriteResult r = compile(R"CLC(
inline __attribute__((noinline)) float slice(float x) { return intel_sub_group_shuffle(x, 3u) * 2.0f; }
__kernel void k(__global float* o) { o[get_global_id(0)] = slice(o[get_global_id(0)]); }
)CLC", "-cl-std=CL1.2");
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  EXPECT_FALSE(has(r.binary.c_str(), ".extern")) << r.binary.c_str();
}

// The local strategy on NVIDIA (ISG_STRATEGY=local) takes the same path: its scratch is a
// shared parameter after the application's.
TEST(NvidiaFrontEnd, TheLocalStrategyTakesThePathToo) {
  const isg::RewriteResult r = compile(kOneDnnShapes, "-cl-std=CL2.0", isg::Strategy::Local);
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_EQ(r.kernels[0].hiddenArgs.size(), 2u) << "the scratch, then the launch shape";
  EXPECT_EQ(r.kernels[0].hiddenArgs[0].kind, isg::HiddenArg::Kind::LocalScratch);
  EXPECT_EQ(r.kernels[0].hiddenArgs[1].kind, isg::HiddenArg::Kind::LaunchShape);
  EXPECT_TRUE(has(r.binary.c_str(), ".param .u64 .ptr .shared")) << r.binary.c_str();
  EXPECT_FALSE(has(r.binary.c_str(), "shfl.sync"));
}

// Packed work-groups (rewriter/src/ptx/launch_shape.h): a kernel whose reqd_work_group_size is
// under a warp and a multiple of its sub-group size, and that reaches no local memory, gets a
// packed copy (its name plus kPackedKernelSuffix, .reqntid 32, the packed launch as its last
// parameter) and stays as it was (the GPU checks the launches: tests/nvidia/
// opencl_packed_test.cpp). Local memory (used through a helper), a work-group of a whole warp,
// a kernel without the attribute and one whose S exceeds its rows get none.
TEST(NvidiaFrontEnd, SmallWorkGroupsPackIntoAWarp) {
  const char* src = R"CLC(
__attribute__((reqd_work_group_size(1, 16, 1))) __attribute__((intel_reqd_sub_group_size(16)))
__kernel void conv(__global float* o) { o[get_global_id(1)] = intel_sub_group_shuffle(o[get_global_id(0)], 3u); }
__attribute__((reqd_work_group_size(8, 1, 1)))
__kernel void plain(__global float* o) { o[get_global_id(0)] += 1.0f; barrier(CLK_GLOBAL_MEM_FENCE); }
static void helper(__global float* o, __local float* t) {
  t[get_local_id(1)] = o[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  o[1] = t[0];
}
__attribute__((reqd_work_group_size(1, 16, 1))) __attribute__((intel_reqd_sub_group_size(16)))
__kernel void staged(__global float* o) {
  __local float t[16];
  helper(o, t);
  o[2] = intel_sub_group_shuffle(o[3], 1u);
}
__attribute__((reqd_work_group_size(32, 1, 1)))
__kernel void warp(__global float* o) { o[0] = intel_sub_group_shuffle(o[1], 1u); }
__attribute__((reqd_work_group_size(16, 1, 1)))
__kernel void rows(__global float* o) { o[0] = intel_sub_group_shuffle(o[1], 1u); }
__kernel void any_size(__global float* o) { o[0] = intel_sub_group_shuffle(o[1], 1u); }
)CLC";
  isg::RewriteInput in = nvidiaInput(src, "-cl-std=CL1.2");
  const isg::RewriteResult plain = isg::compileForNvidia(in);
  ASSERT_EQ(plain.status, isg::RewriteResult::Status::Rewritten) << plain.log;
  EXPECT_FALSE(has(plain.binary.c_str(), isg::kPackedKernelSuffix)) << "only where the layer asks";
  in.packWorkGroups = true;  // ISG_PACK_WORK_GROUPS=1
  const isg::RewriteResult r = keep(isg::compileForNvidia(in));
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  std::vector<std::string> packed;
  for (const isg::KernelManifest& k : r.kernels)
    for (const isg::HiddenArg& h : k.hiddenArgs)
      if (h.kind == isg::HiddenArg::Kind::PackedLaunch) {
        EXPECT_EQ(h.index, k.numUserArgs) << k.name << ": the copy's last parameter";
        packed.push_back(k.name);
      }
  std::sort(packed.begin(), packed.end());
  // rows: S 32 (nvidia-ptx's default: x is 16, not below it) over 16 work-items.
  EXPECT_EQ(packed, (std::vector<std::string>{"conv", "plain"}));
  const std::string ptx = r.binary.c_str();
  auto count = [&](const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = ptx.find(what); at != std::string::npos; at = ptx.find(what, at + 1)) ++n;
    return n;
  };
  const std::string suffix = isg::kPackedKernelSuffix;
  EXPECT_EQ(count(".entry conv" + suffix + "("), 1u) << ptx;
  EXPECT_EQ(count(".entry plain" + suffix + "("), 1u);
  EXPECT_EQ(count(suffix + "("), 2u) << "no other copies";
  EXPECT_TRUE(has(ptx, ".param .align 8 .b8 conv" + suffix + "_param_1[64]"));
  EXPECT_TRUE(has(ptx, ".entry conv(\n\t.param .u64 .ptr .global .align 4 conv_param_0\n)")) << "the kernel as it was";
  EXPECT_EQ(count(".reqntid 1, 16, 1"), 2u) << "conv and staged keep theirs";
  EXPECT_EQ(count(".reqntid 32, 1, 1"), 3u) << "warp and the two copies";
}

// Non-uniform work-groups (OpenCL C 2.0), which NVIDIA's driver lacks: a program that may be
// launched with them gets the launch shape as its kernels' last parameter, which the work-items
// past the application's global size leave at and get_global_size / get_local_size read. Not
// before OpenCL C 2.0, nor with -cl-uniform-work-group-size: every work-group is whole there.
TEST(NvidiaFrontEnd, NonUniformWorkGroupsTakeALaunchShape) {
  const char* src = R"CLC(
__kernel void k(__global float* o, __local float* t) {
  t[get_local_id(0)] = o[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  o[get_global_id(0)] = t[get_local_size(0) - 1 - get_local_id(0)] + get_global_size(0);
}
__kernel void plain(__global int* o) { o[get_global_id(0)] = 1; }
)CLC";
  for (const char* options : {"-cl-std=CL2.0", "-cl-std=CL3.0", "-cl-std=CL2.0 -cl-fast-relaxed-math"}) {
    SCOPED_TRACE(options);
    const isg::RewriteResult r = compile(src, options);
    ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
    ASSERT_EQ(r.kernels.size(), 2u);
    for (const isg::KernelManifest& k : r.kernels) {
      ASSERT_EQ(k.hiddenArgs.size(), 1u) << k.name;
      EXPECT_EQ(k.hiddenArgs[0].kind, isg::HiddenArg::Kind::LaunchShape);
      EXPECT_EQ(k.hiddenArgs[0].index, k.numUserArgs);
    }
    const std::string ptx = r.binary.c_str();
    EXPECT_TRUE(has(ptx, ".param .align 8 .b8 k_param_2[24]")) << ptx;
    EXPECT_TRUE(has(ptx, ".param .align 8 .b8 plain_param_1[24]"));
    EXPECT_TRUE(has(ptx, "ld.param.u64")) << "the shape is read at the entry";
    EXPECT_TRUE(has(ptx, "bar.sync")) << "work-items that leave early take no part in it";
  }
  for (const char* options : {"", "-cl-std=CL1.2", "-cl-std=CL2.0 -cl-uniform-work-group-size"}) {
    SCOPED_TRACE(options);
    const isg::RewriteResult r = compile(src, options);
    ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
    for (const isg::KernelManifest& k : r.kernels) EXPECT_TRUE(k.hiddenArgs.empty()) << k.name;
    EXPECT_FALSE(has(r.binary.c_str(), "[24]")) << r.binary.c_str();
  }
}

// Math and the native_ functions: the hardware's approximations, as on the SPIR-V path; the
// application's math options reach the code generator.
TEST(NvidiaFrontEnd, MathBuiltinsAndMathOptions) {
  const char* src = R"CLC(
__kernel void m(__global float* f) {
  f[0] = native_exp(f[1]) + native_sin(f[2]) + min(f[3], f[4]) + sqrt(f[5]) + f[6] / f[7] +
         intel_sub_group_shuffle(f[8], 1u);
  f[9] = pow(f[10], f[11]) + exp(f[12]) + fmod(f[13], f[14]);
}
)CLC";
  const isg::RewriteResult precise = compile(src, "-cl-std=CL1.2");
  const isg::RewriteResult fast = compile(src, "-cl-std=CL1.2 -cl-fast-relaxed-math");
  ASSERT_EQ(precise.status, isg::RewriteResult::Status::Rewritten) << precise.log;
  ASSERT_EQ(fast.status, isg::RewriteResult::Status::Rewritten) << fast.log;
  for (const char* want : {"ex2.approx.f32", "sin.approx.f32", "min.f32", "div.rn.f32"})
    EXPECT_TRUE(has(precise.binary.c_str(), want)) << want;
  EXPECT_TRUE(has(fast.binary.c_str(), ".ftz"));
  EXPECT_FALSE(has(fast.binary.c_str(), "div.rn.f32"));
}

// cl_khr_fp16 through the front end (issue 34.4): half arithmetic, conversions with every
// rounding mode, vload/vstore_half, math and relational builtins on half, and half through the
// Intel builtins. libclc has none of the half functions for NVPTX: the PTX holds them all.
TEST(NvidiaFrontEnd, HalfPrecisionBuildsWithItsBuiltins) {
  isg::RewriteInput in = nvidiaInput(R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void h(__global half* o, __global const float* f, __global short* flags) {
  const size_t i = get_global_id(0);
  half4 v = convert_half4(vload4(i, f)) + convert_half4(vload_half4(i, (const __global half*)o));
  half x = o[i] * (half)2.0f + sin(o[i]) + fma(o[i], o[i], o[i]) + native_exp(o[i]) + fmin(o[i], v.x);
  x += convert_half_rtz(f[i]) + convert_half_rtp(f[i] * 3.0f) + convert_half_rtn((int)i) +
       convert_half(f[i] * 2.0) + (half)convert_int_sat_rte(v.y);
  flags[i] = isnan(x) + isinf(v).z + (short)any(isgreater(v, (half4)(0.5h)));
  o[i] = intel_sub_group_shuffle(x, 1u) + dot(v, v) + sqrt(v).w + select(v, v * v, isless(v, (half4)(0.0h))).x;
  vstore_half_rtz((float)x, i, o);
  vstore4(vload4(i + 1, o) + vload4(0, (const __global half*)f), i + 2, o);  // half vectors (ggml)
}
)CLC", "-cl-std=CL2.0");
  in.traits.fp16 = true;
  in.traits.deviceExtensions.push_back("cl_khr_fp16");
  const isg::RewriteResult r = keep(isg::compileForNvidia(in));
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::string ptx = r.binary.c_str();
  EXPECT_FALSE(has(ptx, ".extern")) << ptx;
  for (const char* want : {"cvt.rz.f16.f32", "cvt.rp.f16.f32", "cvt.rm.f16.s32", "cvt.rn.f16.f64",
                           "cvt.f32.f16", "shfl.sync"})
    EXPECT_TRUE(has(ptx, want)) << want;
}

// fma, mad, fmin, fmax, min, max and fabs of halves are the GPU's half instructions, on
// vectors two halves at a time (fma.rn.f16x2), with no trip through float: OpenVINO's half
// convolutions are chains of fma over shuffled half8 (nvidia_ptx_test checks the results).
TEST(NvidiaFrontEnd, HalfArithmeticBuiltinsStayInHalf) {
  isg::RewriteInput in = nvidiaInput(R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void h(__global half* o, __global const half* a) {
  const size_t i = get_global_id(0);
  half8 acc = vload8(i, o);
  const half8 w = vload8(i, a);
#define STEP(k) acc = fma((half8)(w[k]), as_half8(intel_sub_group_shuffle(as_ushort8(w), k)), acc);
  STEP(0) STEP(1) STEP(2) STEP(3)
  vstore8(fmax(acc, (half)0.0h), i, o);
  o[i] = fma(o[i], a[i], o[i + 1]) + mad(o[i], a[i], a[i + 1]) + fmin(a[i], a[i + 2]) +
         max(a[i], a[i + 3]) + fabs(a[i + 4]) + min(o[i], a[i]);
}
)CLC", "-cl-std=CL2.0 -cl-mad-enable");
  in.traits.fp16 = true;
  in.traits.deviceExtensions.push_back("cl_khr_fp16");
  const isg::RewriteResult r = keep(isg::compileForNvidia(in));
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::string ptx = r.binary.c_str();
  for (const char* want : {"fma.rn.f16x2", "fma.rn.f16 ", "max.f16x2", "min.f16 ", "shfl.sync"})
    EXPECT_TRUE(has(ptx, want)) << want << "\n" << ptx;
  for (const char* unwanted : {"cvt.f32.f16", "cvt.rn.f16.f32", "fma.rn.f32"})
    EXPECT_FALSE(has(ptx, unwanted)) << unwanted << "\n" << ptx;
}

// Headers through -I and macros through -D, as projects build; the rewriter folds the header
// it edits into the program.
// Which programs need cl_khr_fp16 (under auto, the front end): those whose code, as the
// preprocessor keeps it with cl_khr_fp16 defined, names half. CLBlast's shape: half typedefs
// under #if PRECISION == 16 in every program, the single-precision ones for NVIDIA's compiler.
TEST(NvidiaFrontEnd, HalfIsWhatThePreprocessorKeeps) {
  const char* clblast =
      "#ifndef PRECISION\n#define PRECISION 32\n#endif\n"
      "#if PRECISION == 16\n#pragma OPENCL EXTENSION cl_khr_fp16: enable\ntypedef half real;\n"
      "#else\ntypedef float real;\n#endif\n"
      "__kernel void axpy(__global real* y, __global const real* x) { y[get_global_id(0)] += x[get_global_id(0)]; }\n";
  auto uses = [](const std::string& source, const std::string& options = "",
                 std::vector<isg::SourceFile> headers = {}) {
    isg::RewriteInput in;
    in.source = source;
    in.options = options;
    in.headers = std::move(headers);
    return isg::mayUseHalf(in);
  };
  EXPECT_FALSE(uses(clblast));
  EXPECT_TRUE(uses(clblast, "-DPRECISION=16"));
  EXPECT_TRUE(uses(std::string("#define PRECISION 16\n") + clblast));
  // Through a macro, in a header, behind the extension's own macro (defined: the layer offers it).
  EXPECT_TRUE(uses("#define REAL half\n__kernel void k(__global REAL* p) { p[0] = (REAL)1; }\n"));
  EXPECT_TRUE(uses("#include \"h.h\"\n__kernel void k(__global float* p) { p[0] = f(p[1]); }\n", "",
                   {{"h.h", "float f(float x) { return vload_half(0, (const half*)&x); }\n"}}));
  EXPECT_TRUE(uses("#ifdef cl_khr_fp16\ntypedef half T;\n#else\ntypedef float T;\n#endif\n"
                   "__kernel void k(__global T* p) { p[0] = 0; }\n"));
  // The pragma alone asks for the extension.
  EXPECT_TRUE(uses("#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n__kernel void k(__global float* p) { }\n"));
  // Comments, strings and skipped sections do not; a preprocessor that fails cannot tell: yes.
  EXPECT_FALSE(uses("// half precision\n__kernel void k(__global float* p) { printf(\"half\"); }\n"));
  EXPECT_FALSE(uses("#if 0\nhalf h;\n#endif\n__kernel void k(__global float* p) { }\n"));
  EXPECT_TRUE(uses("#error no\nhalf h;\n"));
}

TEST(NvidiaFrontEnd, HeadersAndDefinesFromTheOptions) {
  char dir[] = "/tmp/isg-frontend-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string header = std::string(dir) + "/helpers.h";
  std::ofstream(header) << "#define LANE() get_sub_group_local_id()\n"
                           "inline float rotate_lanes(float x) { return intel_sub_group_shuffle(x, (LANE() + 1) % 32); }\n";
  const isg::RewriteResult r = compile(
      "#include \"helpers.h\"\n__kernel void k(__global float* o) { o[get_global_id(0)] = rotate_lanes(o[0]) * SCALE; }\n",
      std::string("-I ") + dir + " -DSCALE=3.0f -cl-std=CL2.0");
  std::remove(header.c_str());
  rmdir(dir);
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  EXPECT_TRUE(has(r.binary.c_str(), "shfl.sync"));
  EXPECT_TRUE(has(r.binary.c_str(), "0f40400000")) << "SCALE = 3.0f reached the compile";
}

// Errors: Clang's diagnostics in the user's own lines (not the rewritten text's), and what the
// path cannot build yet named.
// Images in NVIDIA's own forms (docs/design.md, "Build paths on NVIDIA"): texture references
// read with tex for read_only images, surface references written with sust.p (the channel order
// applied first) for write_only ones, sampler arguments and sampler initialisers as
// .samplerref, every geometry, the queries, and the Intel image block and media IO on top.
TEST(NvidiaFrontEnd, ImagesTakeNvidiasForms) {
  const char* src = R"CLC(
__constant sampler_t wrapLinear = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;
__constant sampler_t border = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST;
float4 helper(read_only image2d_t im, sampler_t s, int2 c) { return read_imagef(im, s, c); }
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void k(read_only image2d_t im, write_only image2d_t out, sampler_t s, read_only image2d_array_t arr,
                read_only image3d_t vol, read_only image1d_buffer_t buf, read_only image1d_array_t arr1,
                write_only image2d_array_t warr, write_only image1d_t w1, write_only image1d_buffer_t wb,
                __global float4* o) {
  const int x = get_global_id(0);
  o[x] = helper(im, s, (int2)(x, 1)) + read_imagef(im, wrapLinear, (float2)(0.5f, 0.25f)) +
         read_imagef(im, border, (int2)(x, -1)) + read_imagef(arr, s, (float4)(1.5f, 2.5f, 1.4f, 0.0f)) +
         read_imagef(vol, s, (int4)(1, 2, 3, 0)) + read_imagef(buf, x) + read_imagef(arr1, (int2)(x, 1)) +
         convert_float4(read_imagei(im, (int2)(x, 0))) + convert_float4(read_imageui(im, s, (float2)(x, 0)));
  o[x + 64] = (float4)(get_image_width(im), get_image_height(out), get_image_channel_order(out),
                       get_image_array_size(arr) + get_image_depth(vol) + get_image_dim(arr).y);
  write_imagef(out, (int2)(x, 2), o[x]);
  write_imagei(warr, (int4)(x, 1, 1, 0), (int4)(x));
  write_imageui(w1, x, (uint4)(x));
  write_imagef(wb, x, o[x] * 2.0f);
  o[x + 128] = (float4)(get_image_width(wb));
  const uint v = intel_sub_group_block_read(im, (int2)(0, x));
  intel_sub_group_block_write(out, (int2)(0, x), v + 1u);
  intel_sub_group_media_block_write_ui(
      (int2)(0, 4), 8, 1, intel_sub_group_media_block_read_ui((int2)(0, 3), 8, 1, im), out);
}
)CLC";
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    const isg::RewriteResult r = compile(src, std);
    ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << std << "\n" << r.log;
    const std::string ptx = r.binary.c_str();
    for (const char* form :
         {".param .texref k_param_0", ".param .surfref k_param_1", ".param .samplerref k_param_2",
          ".param .texref k_param_5", ".param .surfref k_param_8",
          "addr_mode_0 = wrap, addr_mode_1 = wrap, addr_mode_2 = wrap, filter_mode = linear }",
          "addr_mode_0 = clamp_to_border", "force_unnormalized_coords = 1", "tex.2d.v4.f32.s32 ", "tex.2d.v4.f32.f32 ",
          "tex.a2d.v4.f32.f32 ", "tex.3d.v4.f32.s32 ", "tex.1d.v4.f32.s32 ", "tex.a1d.v4.f32.s32 ",
          "tex.2d.v4.s32.s32 ", "tex.2d.v4.u32.f32 ", "txq.width", "suq.height", "suq.channel_order",
          "txq.array_size", "txq.depth", "sust.p.2d.v4.b32.trap", "sust.p.a2d.v4.b32.trap", "sust.p.1d.v4.b32.trap",
          ".param .u64 .ptr .surfref k_param_9", "sust.p.1d_buffer.v4.b32.trap", "suq.width.b32"})
      EXPECT_TRUE(has(ptx, form)) << std << ": " << form;
    EXPECT_FALSE(has(ptx, ".func")) << "everything that takes an image is inlined into its kernel";
  }
}

TEST(NvidiaFrontEnd, ErrorsPointAtTheUsersLinesAndNameWhatThePathLacks) {
  const isg::RewriteResult typo = compile(
      "__kernel void k(__global float* o) {\n"
      "  float x = intel_sub_group_shuffle(o[0], 1u);\n"
      "  o[0] = x + undeclared_thing;\n"
      "}\n",
      "-cl-std=CL2.0");
  ASSERT_EQ(typo.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(typo.log, "<source>:3:")) << typo.log;
  EXPECT_TRUE(has(typo.log, "undeclared_thing")) << typo.log;

  // What of images LLVM 15 cannot write in NVIDIA's forms is named as such.
  for (const auto& [param, what] : {std::pair<const char*, const char*>{"read_only image2d_depth_t im", "depth images"}}) {
    const isg::RewriteResult images = compile(std::string("__kernel void k(") + param +
                                                  ", __global float* o) {\n  o[0] = intel_sub_group_shuffle(o[1], 1u);\n}\n",
                                              "-cl-std=CL2.0");
    ASSERT_EQ(images.status, isg::RewriteResult::Status::Error) << param;
    EXPECT_TRUE(has(images.log, std::string("uses ") + what + ", which the layer's OpenCL C front end")) << images.log;
  }
  // A read_write image2d_t on NVIDIA (no read-write images) is the library's stand-in, a
  // write_only image and a hidden buffer, even where the kernel hands it to no block IO.
  const isg::RewriteResult readWrite = compile(
      "__kernel void k(read_write image2d_t im, __global float* o) { o[0] = intel_sub_group_shuffle(o[1], 1u); }\n",
      "-cl-std=CL2.0");
  ASSERT_EQ(readWrite.status, isg::RewriteResult::Status::Rewritten) << readWrite.log;
  EXPECT_TRUE(has(readWrite.binary.c_str(), ".param .surfref k_param_0")) << readWrite.binary.c_str();

  // printf builds (the driver's vprintf); a format that is no constant string is an error.
  const isg::RewriteResult print = compile(
      "__kernel void k(__global float* o) { printf(\"%f %v2hlf\\n\", intel_sub_group_shuffle(o[0], 1u), (float2)(o[1])); }\n");
  ASSERT_EQ(print.status, isg::RewriteResult::Status::Rewritten) << print.log;
  EXPECT_TRUE(has(print.binary.c_str(), "vprintf"));
}

// The strings of a PTX module's printf formats (`.global .align 1 .b8 __isg_printf_str...[n] =
// {b, ...}`), decoded.
std::vector<std::string> printfFormats(const std::string& ptx) {
  std::vector<std::string> out;
  for (std::size_t at = ptx.find("__isg_printf_str"); at != std::string::npos;
       at = ptx.find("__isg_printf_str", at + 1)) {
    const std::size_t open = ptx.find("= {", at), close = ptx.find('}', at), line = ptx.find('\n', at);
    if (open == std::string::npos || open > line) continue;
    std::string text;
    std::istringstream bytes(ptx.substr(open + 3, close - open - 3));
    for (std::string b; std::getline(bytes, b, ',');)
      if (int v = std::stoi(b); v != 0) text += char(v);
    out.push_back(text);
  }
  return out;
}

// printf's vector conversions (OpenCL C 6.15.14.2: the elements with the conversion's flags,
// width and precision, separated by commas) are written out element by element for the
// driver's vprintf, which misprints them; the prescan that routes such programs to the front
// end under auto finds them.
TEST(NvidiaFrontEnd, PrintfVectorsAreWrittenOutElementByElement) {
  const isg::RewriteResult r = compile(R"CLC(
__kernel void k(__global float4* f, __global int2* i, __global uchar4* c, __global short8* s, __global long2* l) {
  printf("f=%v4hlf i=%v2hld c=%#v4hhx s=%+5v8hd l=%v2lu %d%% %s\n", f[0], i[0], c[0], s[0], l[0],
         intel_sub_group_shuffle(7, 0u), "end");
  printf("%.2v3hlf|%5v2hli\n", f[0].xyz, i[0]);
}
)CLC",
                                       "-cl-std=CL2.0");
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::vector<std::string> formats = printfFormats(r.binary.c_str());
  auto printed = [&](const std::string& f) { return std::count(formats.begin(), formats.end(), f) == 1; };
  EXPECT_TRUE(printed("f=%f,%f,%f,%f i=%d,%d c=%#hhx,%#hhx,%#hhx,%#hhx "
                      "s=%+5hd,%+5hd,%+5hd,%+5hd,%+5hd,%+5hd,%+5hd,%+5hd l=%lu,%lu %d%% %s\n"))
      << ::testing::PrintToString(formats);
  EXPECT_TRUE(printed("%.2f,%.2f,%.2f|%5i,%5i\n")) << ::testing::PrintToString(formats);

  auto scans = [](const char* source) {
    isg::RewriteInput in;
    in.source = source;
    return isg::mayPrintVectors(in);
  };
  EXPECT_TRUE(scans("printf(\"%v4hlf\", v);"));
  EXPECT_TRUE(scans("#define FMT \"%#-8.3v16hhx\"\n"));
  EXPECT_FALSE(scans("printf(\"%f %5.2f %%v4 %s\", a, b, c);"));
  EXPECT_FALSE(scans("float4 v = vload4(0, p); // 40% of v\n"));
}

// Issue 35.1 on the front end's PTX: the calls a whole warp reaches together use the constant
// full member mask (no activemask), a shuffle under a branch on a work-item id keeps its own.
TEST(NvidiaFrontEnd, CallsReachedTogetherUseTheFullMaskInThePtx) {
  const std::string src = R"CLC(
__attribute__((reqd_work_group_size(64, 1, 1)))
__kernel void k(__global float* o, int n) {
  float x = o[get_global_id(0)];
  for (int i = 0; i < n; ++i) x += intel_sub_group_shuffle(x, (uint)i);
  x = sub_group_reduce_add(x) + sub_group_scan_exclusive_add(x) + sub_group_broadcast(x, 1u);
  BRANCH
  o[get_global_id(0)] = x;
}
)CLC";
  auto activemasks = [&](const std::string& branch) {
    std::string text = src;
    text.replace(text.find("BRANCH"), 6, branch);
    const isg::RewriteResult r = keep(isg::compileForNvidia(nvidiaInput(text, "-cl-std=CL1.2")));
    EXPECT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
    const std::string ptx = r.binary.c_str();
    EXPECT_NE(ptx.find("shfl.sync"), std::string::npos);
    std::size_t n = 0;
    for (std::size_t at = ptx.find("activemask.b32"); at != std::string::npos; at = ptx.find("activemask.b32", at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(activemasks(""), 0u);
  EXPECT_EQ(activemasks("if (get_local_id(0) & 1) x = intel_sub_group_shuffle_xor(x, 2u);"), 1u);
}

// ISG_SUB_GROUP_SIZE_FROM_LAUNCH: the sub-group size is computed in the kernel from the launch,
// and every family builds with it (ptxas checks the PTX where ISG_TEST_PTX_DIR is set).
TEST(NvidiaFrontEnd, SubGroupSizeFromTheLaunchBuildsEveryFamily) {
  isg::RewriteInput in = nvidiaInput(R"CLC(
__kernel void k(__global uint* o, __global const uint* in) {
  const size_t g = get_global_id(0);
  uint x = in[g];
  x += intel_sub_group_shuffle(x, 3u) + intel_sub_group_shuffle_down(x, x, 1u) + sub_group_broadcast(x, 0u);
  x += sub_group_reduce_add(x) + sub_group_scan_exclusive_max(x) + (uint)sub_group_any(x > 7u);
  x += intel_sub_group_block_read(in + get_group_id(0) * get_local_size(0));
  intel_sub_group_block_write(o + get_group_id(0) * get_local_size(0), x + get_sub_group_size());
}
)CLC",
                                     "-cl-std=CL2.0");
  in.traits.subGroupSizeFromLaunch = true;
  const isg::RewriteResult r = keep(isg::compileForNvidia(in));
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_TRUE(r.kernels[0].launchSubGroupSize);
  EXPECT_TRUE(has(r.binary.c_str(), "%ntid.x")) << "S is not read from the launch";
}

// cl_khr_integer_dot_product where the device offers it (the layer adds it on NVIDIA, whose
// driver lacks it): ggml's flash attention of q8_0 calls dot_acc_sat_4x8packed_ss_int without a
// guard. The functions are dp4a; the feature macros are defined; the text scan that sends such
// programs to this front end under auto finds them by name.
TEST(NvidiaFrontEnd, IntegerDotProductIsDp4aWhereTheDeviceOffersIt) {
  const char* src = R"CLC(
#if !defined(__opencl_c_integer_dot_product_input_4x8bit_packed) || !defined(cl_khr_integer_dot_product)
#error the extension's macros are missing
#endif
__kernel void q8(__global const int* q, __global const int* k, __global int* o) {
  const size_t i = get_global_id(0);
  int sum = dot_acc_sat_4x8packed_ss_int(q[i], k[i], o[i]);
  o[i] = sum + (int)dot(as_uchar4(q[i]), as_uchar4(k[i])) + intel_sub_group_shuffle(sum, 3u);
}
)CLC";
  isg::RewriteInput in = nvidiaInput(src, "-cl-std=CL3.0");
  EXPECT_EQ(isg::compileForNvidia(in).status, isg::RewriteResult::Status::Error) << "without the extension";
  in.traits.deviceExtensions.push_back("cl_khr_integer_dot_product");
  const isg::RewriteResult r = keep(isg::compileForNvidia(in));
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  EXPECT_TRUE(has(r.binary.c_str(), "dp4a.s32.s32")) << r.binary.c_str();
  EXPECT_TRUE(has(r.binary.c_str(), "dp4a.u32.u32")) << r.binary.c_str();

  auto scans = [](const char* source) {
    isg::RewriteInput scanned;
    scanned.source = source;
    return isg::mayUseIntegerDot(scanned);
  };
  EXPECT_TRUE(scans("s = dot_acc_sat_4x8packed_ss_int(a, b, s);"));
  EXPECT_TRUE(scans("#define DOT dot_4x8packed_uu_uint\n"));
  EXPECT_TRUE(scans("#ifdef cl_khr_integer_dot_product\n#endif\n"));
  EXPECT_FALSE(scans("float d = dot(a, b); int my_dot_4x8packed = 0;"));
}

// A program with no Intel builtin compiles as it is (PassThrough in, PTX out), and results are
// cached per input.
TEST(NvidiaFrontEnd, ProgramsTheRewriterLeavesAloneCompileAsTheyAre) {
  const isg::RewriteInput in = nvidiaInput(
      "#define LOG(...)\n__kernel void plain(__global int* o) { LOG(1, 2); o[get_global_id(0)] = 7; }\n",
      "-cl-std=CL1.2");
  ASSERT_EQ(isg::rewriteProgram(in).status, isg::RewriteResult::Status::PassThrough);
  const isg::RewriteResult r = isg::compileForNvidia(in);
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  EXPECT_TRUE(has(r.binary.c_str(), ".entry plain("));
  // PTX carries no argument information: the manifest has Clang's.
  ASSERT_EQ(r.kernels.size(), 1u);
  ASSERT_EQ(r.kernels[0].args.size(), 1u);
  EXPECT_EQ(r.kernels[0].args[0].name, "o");
  EXPECT_EQ(r.kernels[0].args[0].typeName, "int*");
  EXPECT_EQ(r.kernels[0].args[0].address, isg::ArgInfo::Address::Global);
  EXPECT_TRUE(r.kernels[0].hiddenArgs.empty());
  const isg::RewriteResult again = isg::compileForNvidia(in);
  EXPECT_EQ(again.binary, r.binary);
}

}  // namespace

namespace {

// Separately compiled objects in the shapes of OpenClLibrary.IntelOpenClCInSeparatelyCompiledObjects:
// a helper object with half and a variadic macro whose function reaches a sub-group builtin, and
// a kernel object that declares and calls it.
const char* kHelperObject = R"CLC(#define TRACE(...) do { } while (0)
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
float halved(float x) { half h = (half)x; return (float)(h * (half)0.5f); }
float next_lane(float v) {
  TRACE("%f", v, 1);
  return intel_sub_group_shuffle(v, (get_sub_group_local_id() + 1) & 15);
}
)CLC";

const char* kKernelObject = R"CLC(float halved(float x);
float next_lane(float v);
__attribute__((intel_reqd_sub_group_size(16)))
kernel void combine(global float* dst, global const float* src) {
  const size_t g = get_global_id(0);
  dst[g] = next_lane(src[g]) + halved(src[g]);
}
kernel void plain(global float* dst) { dst[get_global_id(0)] = halved(1.0f); }
)CLC";

isg::RewriteInput objectInput(const std::string& source, const std::string& options) {
  isg::RewriteInput in = nvidiaInput(source, options);
  in.compiledObject = true;
  in.traits.fp16 = true;
  in.traits.deviceExtensions.push_back("cl_khr_fp16");
  return in;
}

}  // namespace

// clCompileProgram and clLinkProgram on the front end (issue 34.6): each object compiles alone
// (its errors at compile time, in its own lines), the link compiles them again, the caller with
// the context of the helper it calls, and writes one PTX with every object's kernels.
TEST(NvidiaFrontEnd, ObjectsCompileAndLinkIntoOnePtx) {
  for (const char* options : {"-cl-std=CL1.2", "-cl-std=CL2.0"}) {
    SCOPED_TRACE(options);
    isg::RewriteInput helpers = objectInput(kHelperObject, options);
    isg::RewriteInput kernels = objectInput(kKernelObject, options);
    const isg::RewriteResult a = isg::compileObjectForNvidia(helpers);
    ASSERT_EQ(a.status, isg::RewriteResult::Status::Rewritten) << a.log;
    EXPECT_EQ(a.form, isg::RewriteResult::Form::Object);
    ASSERT_EQ(a.contextFunctions.size(), 1u);
    EXPECT_EQ(a.contextFunctions[0].name, "next_lane");
    const isg::RewriteResult b = isg::compileObjectForNvidia(kernels);
    ASSERT_EQ(b.status, isg::RewriteResult::Status::Rewritten) << b.log;
    EXPECT_EQ(b.form, isg::RewriteResult::Form::Object);
    EXPECT_TRUE(std::count(b.externalFunctions.begin(), b.externalFunctions.end(), "next_lane")) << b.source;

    kernels.externalContext = a.contextFunctions;
    const isg::RewriteResult linked = keep(isg::linkForNvidia({kernels, helpers}, "-cl-fast-relaxed-math"));
    ASSERT_EQ(linked.status, isg::RewriteResult::Status::Rewritten) << linked.log;
    ASSERT_EQ(linked.form, isg::RewriteResult::Form::Ptx);
    const std::string ptx = linked.binary.c_str();
    for (const char* want : {".entry combine", ".entry plain", "shfl.sync", "cvt.rn.f16.f32"})
      EXPECT_TRUE(has(ptx, want)) << want << "\n" << ptx;
    EXPECT_FALSE(has(ptx, ".extern")) << ptx;
    std::vector<std::string> names;
    for (const isg::KernelManifest& k : linked.kernels) names.push_back(k.name);
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"combine", "plain"}));
    for (const isg::KernelManifest& k : linked.kernels) {
      EXPECT_EQ(k.numUserArgs, k.name == "combine" ? 2u : 1u) << k.name;
      if (k.name == "combine") {
        EXPECT_EQ(k.subGroupSize, 16u);
      }
    }
  }

  // A compile error is the object's, at compile time, in its own lines.
  const isg::RewriteResult typo =
      isg::compileObjectForNvidia(objectInput("float f(float x) {\n  return x +\n    missing_name;\n}\n", ""));
  ASSERT_EQ(typo.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(typo.log, "<source>:3:")) << typo.log;
  EXPECT_TRUE(has(typo.log, "missing_name")) << typo.log;
  // A function defined by two objects fails the link, naming it.
  const isg::RewriteResult twice = isg::linkForNvidia(
      {objectInput(kHelperObject, ""), objectInput("float halved(float x) { return x; }\n", "")}, "");
  ASSERT_EQ(twice.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(twice.log, "do not link")) << twice.log;
  EXPECT_TRUE(has(twice.log, "halved")) << twice.log;
}

// An option no OpenCL C compiler takes fails the front end's build as it fails NVIDIA's and
// Intel's compilers (the misuse table's "BuildProgram(unknown option)" on NVIDIA); the spec's
// options, Clang's, NVIDIA's -cl-nv-* and Intel's -cl-intel-* (oneDNN passes some) build.
TEST(NvidiaFrontEnd, UnknownBuildOptionsFailAsADriversCompilerFailsThem) {
  const char* source = "__kernel void k(__global float* o) { o[0] = intel_sub_group_shuffle(o[1], 1u); }\n";
  const isg::RewriteResult unknown = compile(source, "-cl-mad-enable -cl-isg-no-such-option");
  ASSERT_EQ(unknown.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(unknown.log, "unknown build option '-cl-isg-no-such-option'")) << unknown.log;
  const isg::RewriteResult object =
      isg::compileObjectForNvidia(objectInput(source, "-cl-isg-no-such-option"));
  ASSERT_EQ(object.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(object.log, "unknown build option")) << object.log;
  const isg::RewriteResult known = compile(
      source, "-cl-std=CL2.0 -cl-fast-relaxed-math -cl-kernel-arg-info -w -Werror -DX=1 -cl-nv-verbose "
              "-cl-nv-maxrregcount=64 -cl-intel-greater-than-4GB-buffer-required -cl-intel-256-GRF-per-thread");
  EXPECT_EQ(known.status, isg::RewriteResult::Status::Rewritten) << known.log;
}
