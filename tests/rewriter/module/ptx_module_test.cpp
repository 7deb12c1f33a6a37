// SPDX-License-Identifier: MIT
// Programs from SPIR-V for NVIDIA's driver (rewriter/src/ptx/ptx_backend.h): the PTX the layer
// writes, checked for what NVIDIA's OpenCL driver needs of it (its own PTX for OpenCL C is the
// model: kernel parameters with their state spaces, the launch registers for the work-item
// functions) and for clear errors where the path cannot go. The GPU runs the same programs
// (tools/device/run-spirv.sh); this runs everywhere.
#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/child_process.h"
#include "isg/rewriter.h"
#include "module/spirv_bridge.h"
#include "spirv_cache.h"

namespace {

isg::RewriteResult toPtx(const std::string& source, const std::string& options = "",
                         isg::Strategy strategy = isg::Strategy::NvidiaPtx) {
  std::string module, why;
  EXPECT_TRUE(isgtest::compileToSpirv(source, options, &module, &why)) << why;
  isg::ModuleInput in;
  in.spirv = module;
  in.options = options;
  isg::applyStrategyDefaults(strategy, 32, &in.traits);
  in.traits.fp64 = true;
  in.traits.images = true;
  in.traits.nvidiaComputeCapability = 90;
  in.traits.openclCVersion = 300;
  in.output = isg::RewriteResult::Form::Ptx;
  in.bridgePath = ISG_TEST_SPIRV_BRIDGE;
  return isg::rewriteModule(in);
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

const char* kIntelKernel = R"CLC(
typedef struct { int a; float b; } Pair;
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void intel(__global float* out, __global const uint* in, __local float* scratch,
                    __constant float* table, Pair pair) {
  const size_t i = get_global_id(0);
  scratch[get_local_id(0)] = as_float(in[i]);
  barrier(CLK_LOCAL_MEM_FENCE);
  float x = intel_sub_group_shuffle(scratch[get_local_id(0)], (get_sub_group_local_id() + 1) % 16);
  x += sub_group_reduce_add(x) + as_float(intel_sub_group_block_read(in));
  out[i] = min(x, table[1]) + sin(x) + pair.a + pair.b;
}
__kernel void geometry(__global ulong* out) {
  out[0] = get_global_offset(0);
  out[1] = get_num_groups(1);
  out[2] = get_work_dim();
  out[3] = get_group_id(2);
}
)CLC";

TEST(PtxModules, KernelsTakeTheirParametersAsNvidiasOwnPtxDoes) {
  const isg::RewriteResult r = toPtx(kIntelKernel);
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  ASSERT_EQ(r.form, isg::RewriteResult::Form::Ptx);
  ASSERT_FALSE(r.binary.empty());
  EXPECT_EQ(r.binary.back(), '\0') << "NVIDIA reads the binary as a C string";
  const std::string ptx = r.binary.c_str();
  EXPECT_TRUE(has(ptx, ".target sm_86, texmode_independent")) << "LLVM 15's newest target";
  EXPECT_TRUE(has(ptx, ".address_size 64"));
  EXPECT_TRUE(has(ptx, ".entry intel("));
  EXPECT_TRUE(has(ptx, ".param .u64 .ptr .global .align 4 intel_param_0"));
  EXPECT_TRUE(has(ptx, ".param .u64 .ptr .shared .align 16 intel_param_2"))
      << "__local, at least 16-byte aligned: NVIDIA's driver places local arguments by this";
  EXPECT_TRUE(has(ptx, ".param .u64 .ptr .const .align 4 intel_param_3")) << "__constant";
  EXPECT_TRUE(has(ptx, ".param .align 4 .b8 intel_param_4[8]")) << "a struct by value";
  EXPECT_TRUE(has(ptx, "ld.const.f32")) << "__constant data is read from the constant bank";
  EXPECT_TRUE(has(ptx, "shfl.sync")) << "nvidia-ptx: warp shuffles";
  EXPECT_TRUE(has(ptx, "bar.sync")) << "barrier()";
  EXPECT_TRUE(has(ptx, "min.f32")) << "min of floats is the hardware's";
  EXPECT_FALSE(has(ptx, ".extern")) << "every builtin resolved in the module";
  EXPECT_TRUE(has(ptx, ".maxntid 1024, 1, 1")) << "launches at NVIDIA's largest work-group";
  // The manifest is the source path's: S, no scratch on nvidia-ptx; the launch shape last
  // (a module of OpenCL C 2.0 may be launched with non-uniform work-groups).
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].name, "intel");
  EXPECT_EQ(r.kernels[0].subGroupSize, 16u);
  ASSERT_EQ(r.kernels[0].hiddenArgs.size(), 1u);
  EXPECT_EQ(r.kernels[0].hiddenArgs[0].kind, isg::HiddenArg::Kind::LaunchShape);
  EXPECT_EQ(r.kernels[0].hiddenArgs[0].index, 5u);
  EXPECT_TRUE(has(ptx, ".param .align 8 .b8 intel_param_5[24]")) << "the launch shape, ulong[3] by value";
  EXPECT_EQ(r.kernels[0].numUserArgs, 5u);
}

// The work-item functions read what NVIDIA's driver gives a launch (its own PTX does the same):
// %envreg0-2 the first group, %envreg3-5 the first global id, %envreg6-8 the number of groups,
// %envreg9 the work dimension.
TEST(PtxModules, WorkItemFunctionsReadTheDriversLaunchRegisters) {
  const isg::RewriteResult r = toPtx(kIntelKernel);
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::string ptx = r.binary.c_str();
  const std::string geometry = ptx.substr(ptx.find(".entry geometry("));
  for (const char* reg : {"%envreg0", "%envreg3", "%envreg7", "%envreg9", "%envreg2", "%ctaid.z"})
    EXPECT_TRUE(has(geometry, reg)) << reg;
  const std::string intel = ptx.substr(ptx.find(".entry intel("), ptx.find(".entry geometry(") - ptx.find(".entry intel("));
  EXPECT_TRUE(has(intel, "%envreg3")) << "get_global_id includes the global offset";
}

TEST(PtxModules, RequiredWorkGroupSizesAreTheCtasAndPlainModulesAreWrittenToo) {
  const isg::RewriteResult r = toPtx(R"CLC(
__attribute__((reqd_work_group_size(64, 2, 1)))
__kernel void plain(__global int* o) { o[get_global_id(0)] = (int)get_local_size(1); }
)CLC");
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::string ptx = r.binary.c_str();
  EXPECT_TRUE(has(ptx, ".reqntid 64, 2, 1")) << ptx;
  EXPECT_TRUE(has(ptx, ".minnctapersm 4")) << "an occupancy target of 512 work-items per SM";
  EXPECT_FALSE(has(ptx, ".maxntid"));
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_TRUE(r.kernels[0].families.empty());
}

// A `local char*` table read through a wider pointer (ggml's mxfp4 kernels): NVIDIA's driver
// places local arguments by their parameter's .align, so the layer's PTX says 16 (docs/design.md
// §5), as the source path's rewrite to `local uint4*` does.
TEST(PtxModules, LocalByteArgumentsAreSixteenByteAligned) {
  const isg::RewriteResult r = toPtx(R"CLC(
__kernel void lut(__global float* out, __local char* pad, __local char* table) {
  __local float* f = (__local float*)table;
  out[get_global_id(0)] = f[get_local_id(0) & 15] + pad[1];
}
)CLC");
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::string ptx = r.binary.c_str();
  EXPECT_TRUE(has(ptx, ".param .u64 .ptr .shared .align 16 lut_param_1")) << ptx;
  EXPECT_TRUE(has(ptx, ".param .u64 .ptr .shared .align 16 lut_param_2")) << ptx;
}

TEST(PtxModules, MathOptionsReachTheCodeGenerator) {
  const char* src = "__kernel void k(__global float* o) { o[0] = o[1] / o[2] + o[3]; }\n";
  const isg::RewriteResult precise = toPtx(src);
  const isg::RewriteResult fast = toPtx(src, "-cl-fast-relaxed-math");
  ASSERT_EQ(precise.status, isg::RewriteResult::Status::Rewritten) << precise.log;
  ASSERT_EQ(fast.status, isg::RewriteResult::Status::Rewritten) << fast.log;
  EXPECT_TRUE(has(precise.binary.c_str(), "div.rn.f32"));
  EXPECT_FALSE(has(precise.binary.c_str(), ".ftz"));
  EXPECT_TRUE(has(fast.binary.c_str(), ".ftz")) << fast.binary.c_str();
  EXPECT_FALSE(has(fast.binary.c_str(), "div.rn.f32"));
}

// The local strategy (ISG_STRATEGY=local on NVIDIA) goes the same way: the scratch is a
// `.ptr .shared` parameter after the application's.
TEST(PtxModules, TheLocalStrategyAddsItsScratchAsASharedParameter) {
  const isg::RewriteResult r = toPtx(kIntelKernel, "", isg::Strategy::Local);
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  ASSERT_EQ(r.kernels.size(), 2u);
  ASSERT_EQ(r.kernels[0].hiddenArgs.size(), 2u);
  EXPECT_EQ(r.kernels[0].hiddenArgs[0].index, 5u);
  EXPECT_EQ(r.kernels[0].hiddenArgs[1].kind, isg::HiddenArg::Kind::LaunchShape);
  EXPECT_EQ(r.kernels[0].hiddenArgs[1].index, 6u);
  EXPECT_TRUE(has(r.binary.c_str(), ".param .u64 .ptr .shared .align 128 intel_param_5"))
      << "aligned as its type, __local ulong16*: " << r.binary.c_str();
  EXPECT_FALSE(has(r.binary.c_str(), "shfl.sync")) << "local memory, not warp shuffles";
}

// Issue 64: modules get no execution model yet, so an exchange that only some work-items may
// reach (after a bounds check, a return of some, in a helper called so) fails the build with
// an error naming it, on every strategy; exchanges in control flow every member takes (a loop
// over a kernel argument, a branch on the sub-group's reduction on nvidia-ptx) build.
TEST(PtxModules, ExchangesOnlySomeWorkItemsReachAreRefused) {
  const std::string divergent = R"CLC(
int helper(int v) { return sub_group_reduce_add(v); }
__attribute__((intel_reqd_sub_group_size(16)))
kernel void k(global int* out, int n) {
  int g = get_global_id(0);
  int v = out[g];
  if (g < n) v = intel_sub_group_shuffle(v, 1u);
  out[g] = v;
}
__attribute__((intel_reqd_sub_group_size(16)))
kernel void h(global int* out, int n) {
  int g = get_global_id(0);
  if (get_sub_group_local_id() < 3) return;
  out[g] = helper(out[g]);
}
)CLC";
  const std::string uniform = R"CLC(
__attribute__((intel_reqd_sub_group_size(16)))
kernel void u(global int* out, int n) {
  int g = get_global_id(0);
  int v = out[g];
  for (int i = 0; i < n; ++i) v += intel_sub_group_shuffle(v, (uint)i % 16u);
  int total = sub_group_reduce_add(v);
  if (total > 100) v = sub_group_broadcast(v, 0u);
  out[g] = v;
}
)CLC";
  for (isg::Strategy s : {isg::Strategy::NvidiaPtx, isg::Strategy::Local}) {
    const isg::RewriteResult r = toPtx(divergent, "", s);
    EXPECT_EQ(r.status, isg::RewriteResult::Status::Error) << r.log;
    EXPECT_TRUE(has(r.log, "error: 'intel_sub_group_shuffle' in function 'k' may be reached by only some work-items"))
        << r.log;
    EXPECT_TRUE(has(r.log, "error: 'helper', which exchanges, in function 'h' may be reached by only some")) << r.log;
    EXPECT_TRUE(has(r.log, "ISG_REFUSE_DIVERGENT=0")) << r.log;
    const isg::RewriteResult u = toPtx(uniform, "", s);
    // The branch on the reduction decides per work-group on local (its barriers), not per warp.
    if (s == isg::Strategy::NvidiaPtx) {
      EXPECT_EQ(u.status, isg::RewriteResult::Status::Rewritten) << u.log;
    } else {
      EXPECT_TRUE(has(u.log, "'sub_group_broadcast' in function 'u' may be reached")) << u.log;
      EXPECT_FALSE(has(u.log, "intel_sub_group_shuffle")) << u.log;
    }
  }
}

// The OpenCL C library: atomics of either OpenCL C version (the reader writes them all as 2.0's
// atomic_*_explicit on generic pointers) become atom.* on the space the pointer is known to
// be in; native_* of float are the hardware's approximations.
TEST(PtxModules, AtomicsAndNativeMathBecomeNvidiasInstructions) {
  const char* src = R"CLC(
__kernel void a(__global int* o, __local int* l, __global float* f) {
  atomic_add(o, 1);
  atomic_inc(&l[0]);
  atomic_max(o + 2, (int)get_global_id(0));
  o[3] = atomic_cmpxchg(o + 4, 0, 1);
  o[5] = atomic_xchg(o + 6, 3);
  f[0] = native_exp(f[1]) + native_sin(f[2]) + native_recip(f[3]);
  vstore4(native_sqrt(vload4(1, f)), 2, f);
}
)CLC";
  for (const char* std : {"-cl-std=CL1.2", "-cl-std=CL2.0"}) {
    const isg::RewriteResult r = toPtx(src, std);
    ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << std << ": " << r.log;
    const std::string ptx = r.binary.c_str();
    for (const char* want : {"atom.global.add.u32", "atom.shared.add.u32", "atom.global.max.s32",
                             "atom.global.cas.b32", "atom.global.exch.b32", "ex2.approx.f32",
                             "sin.approx.f32", "div.approx.f32"})
      EXPECT_TRUE(has(ptx, want)) << std << ": " << want;
    EXPECT_FALSE(has(ptx, ".extern")) << std;
  }
}

// Half's fma, min, max and fabs from SPIR-V are the GPU's half instructions too, as from source
// (NvidiaFrontEnd.HalfArithmeticBuiltinsStayInHalf): the module binds the same builtins.
TEST(PtxModules, HalfArithmeticBuiltinsStayInHalf) {
  const char* src = R"CLC(
#pragma OPENCL EXTENSION cl_khr_fp16 : enable
__kernel void h(__global half* o, __global const half* a) {
  const size_t i = get_global_id(0);
  vstore8(fmax(fma(vload8(i, a), vload8(i + 1, a), vload8(i, o)), (half)0.0h), i, o);
  o[i] = fma(o[i], a[i], o[i + 1]) + min(a[i], a[i + 2]) + fabs(a[i + 3]);
}
)CLC";
  const isg::RewriteResult r = toPtx(src, "-cl-std=CL2.0");
  ASSERT_EQ(r.status, isg::RewriteResult::Status::Rewritten) << r.log;
  const std::string ptx = r.binary.c_str();
  for (const char* want : {"fma.rn.f16x2", "fma.rn.f16 ", "max.f16x2", "min.f16 "})
    EXPECT_TRUE(has(ptx, want)) << want << "\n" << ptx;
  for (const char* unwanted : {"cvt.f32.f16", "cvt.rn.f16.f32"}) EXPECT_FALSE(has(ptx, unwanted)) << unwanted;
}

// What the path cannot build fails the build with a log that names it.
// Images take NVIDIA's own forms (ptx_images.h): a read_only image is a .texref parameter read
// with tex, a write_only one a .surfref written with sust.p after the channel order, a sampler
// a .samplerref; printf is the driver's vprintf. What LLVM 15 cannot write for NVIDIA
// (read_write images) and sizes a warp cannot honour are build errors that say why.
TEST(PtxModules, ImagesBuildAndWhatCannotIsABuildErrorThatSaysWhy) {
  const isg::RewriteResult images = toPtx(R"CLC(
__constant sampler_t edge = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
__kernel void k(read_only image2d_t im, write_only image2d_t out, sampler_t s, __global uint* o) {
  o[0] = intel_sub_group_block_read(im, (int2)(0, 0));
  o[1] = read_imageui(im, s, (int2)(1, 2)).x + read_imageui(im, edge, (int2)(3, 4)).y;
  intel_sub_group_block_write(out, (int2)(0, 0), o[2]);
  write_imagef(out, (int2)(1, 1), (float4)(0.5f));
}
)CLC");
  ASSERT_EQ(images.status, isg::RewriteResult::Status::Rewritten) << images.log;
  // Both images are also sampled or written otherwise: a raw-bits view cannot stand in for them.
  ASSERT_EQ(images.kernels.size(), 1u);
  EXPECT_EQ(images.kernels[0].blockImageArgs, (std::vector<unsigned>{0, 1}));
  EXPECT_EQ(images.kernels[0].mixedImageArgs, (std::vector<unsigned>{0, 1}));
  const std::string ptx = images.binary.c_str();
  for (const char* form : {".param .texref k_param_0", ".param .surfref k_param_1", ".param .samplerref k_param_2",
                           "filter_mode = nearest", "clamp_to_edge", "tex.2d.v4.u32.s32", "sust.p.2d.v4.b32.trap",
                           "suq.channel_order", "txq.width"})
    EXPECT_TRUE(has(ptx, form)) << form << "\n" << ptx;

  // The same decision as the source analysis (rewriter_tests.cpp, Manifest.MixedImageArguments):
  // images that other image functions also take, directly or through helpers, are mixed; the
  // size queries are not another use.
  const isg::RewriteResult mixed = toPtx(R"CLC(
uint4 texel(read_only image2d_t img) { return read_imageui(img, (int2)(0, 0)); }
uint row(read_only image2d_t img) { return intel_sub_group_block_read(img, (int2)(0, 0)); }
uint both(read_only image2d_t img) { return row(img) + texel(img).x; }
kernel void k(global uint* o, read_only image2d_t a, read_only image2d_t b,
              read_only image2d_t c, read_only image2d_t d) {
  o[0] = intel_sub_group_block_read(a, (int2)(0, 0)) + get_image_channel_order(a);
  o[2] = get_image_width(d) + get_image_dim(b).y + get_image_height(d);
  o[1] = row(b) + both(c) + row(d);
}
)CLC");
  ASSERT_EQ(mixed.status, isg::RewriteResult::Status::Rewritten) << mixed.log;
  ASSERT_EQ(mixed.kernels.size(), 1u);
  EXPECT_EQ(mixed.kernels[0].blockImageArgs, (std::vector<unsigned>{1, 2, 3, 4}));
  EXPECT_EQ(mixed.kernels[0].mixedImageArgs, (std::vector<unsigned>{1, 3}));

  // A block read and a sampled read of one image: the optimiser merges the sampler handles of
  // the library's reads into a phi, which LLVM 15's back end cannot trace (a crash in most runs
  // before rematerialiseHandles): every build succeeds.
  for (int run = 0; run < 4; ++run) {
    const isg::RewriteResult sampled = toPtx(R"CLC(
kernel void k(global uint* o, read_only image2d_t c) {
  o[2] = intel_sub_group_block_read(c, (int2)(0, 1));
  o[1] = read_imageui(c, (int2)(0, 0)).x;
}
)CLC");
    ASSERT_EQ(sampled.status, isg::RewriteResult::Status::Rewritten) << "run " << run << ": " << sampled.log;
  }

  // read_write image2d_t: NVIDIA has no read-write images, so the layer stands in for them as
  // for source programs (a write_only image in its place, the texels in a hidden buffer after
  // the other arguments) for block and media IO and the queries; other uses are build errors
  // that name the function.
  const isg::RewriteResult standIn = toPtx(R"CLC(
uint twice(read_write image2d_t im, int2 at) { return intel_sub_group_block_read(im, at) * 2u; }
__attribute__((intel_reqd_sub_group_size(8)))
__kernel void k(read_write image2d_t im, __global int* o) {
  const int2 at = (int2)(get_group_id(0) * 32, 0);
  intel_sub_group_block_write(im, at, twice(im, at) + get_image_width(im));
  o[0] = get_image_dim(im).y + get_image_channel_order(im) + get_image_channel_data_type(im);
  intel_sub_group_media_block_write_ui(at, 4, 2, intel_sub_group_media_block_read_ui(at, 4, 2, im), im);
}
__kernel void sizes(read_write image2d_t im, __global int* o) { o[0] = get_image_height(im); }
)CLC", "-cl-std=CL2.0");
  ASSERT_EQ(standIn.status, isg::RewriteResult::Status::Rewritten) << standIn.log;
  const std::string standInPtx = standIn.binary.c_str();
  for (const char* form : {".param .surfref k_param_0", ".param .u64 .ptr .global .align 1 k_param_2",
                           ".param .surfref sizes_param_0", ".param .u64 .ptr .global .align 1 sizes_param_2"})
    EXPECT_TRUE(has(standInPtx, form)) << form << "\n" << standInPtx;
  EXPECT_FALSE(has(standInPtx, "texref")) << standInPtx;
  ASSERT_EQ(standIn.kernels.size(), 2u);
  for (const isg::KernelManifest& km : standIn.kernels) {
    SCOPED_TRACE(km.name);
    ASSERT_FALSE(km.hiddenArgs.empty());
    const isg::HiddenArg& texels = km.hiddenArgs.front();  // before the launch shape
    EXPECT_EQ(texels.kind, isg::HiddenArg::Kind::RawImage);
    EXPECT_EQ(texels.index, 2u);
    EXPECT_EQ(texels.imageArg, 0u);
    EXPECT_EQ(km.blockImageArgs, std::vector<unsigned>{0});
  }
  const isg::RewriteResult readWrite = toPtx(R"CLC(
float first(read_write image2d_t im) { return read_imagef(im, (int2)(0, 0)).x; }
__kernel void k(read_write image2d_t im, __global float* o) {
  o[0] = intel_sub_group_shuffle(first(im), 1u) + intel_sub_group_block_read(im, (int2)(0, 0));
}
)CLC", "-cl-std=CL2.0");
  EXPECT_EQ(readWrite.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(readWrite.log, "error: function 'first' passes a read_write image2d_t to read_imagef")) << readWrite.log;
  EXPECT_TRUE(has(readWrite.log, "CL_DEVICE_MAX_READ_WRITE_IMAGE_ARGS is 0")) << readWrite.log;
  const isg::RewriteResult array = toPtx(R"CLC(
__kernel void k(read_write image2d_array_t im, __global float* o) { o[0] = get_image_width(im); }
)CLC", "-cl-std=CL2.0");
  EXPECT_EQ(array.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(array.log, "read_write images")) << array.log;

  // printf as NVIDIA's compiler writes it: vprintf, the format in global memory, the
  // arguments (float promoted to double) at their natural alignment.
  const isg::RewriteResult print =
      toPtx("__kernel void k(int x, float y) { printf(\"%d %f %s\\n\", x, y, \"text\"); }\n");
  ASSERT_EQ(print.status, isg::RewriteResult::Status::Rewritten) << print.log;
  for (const char* form : {"vprintf", ".global .align 1 .b8 __isg_printf_str", "st.local.f64", "cvta.global.u64"})
    EXPECT_TRUE(has(print.binary.c_str(), form)) << form << "\n" << print.binary.c_str();

  const isg::RewriteResult size = toPtx(R"CLC(
__attribute__((intel_reqd_sub_group_size(64)))
__kernel void k(__global uint* o) { o[0] = intel_sub_group_shuffle(o[1], 0u); }
)CLC");
  EXPECT_EQ(size.status, isg::RewriteResult::Status::Error);
  EXPECT_TRUE(has(size.log, "64")) << size.log;
}

// The translator and the NVPTX back end run in children (isg::detail::runInChild): whatever
// ends the child (LLVM's fatal error, a failed assertion) is an error of the call with the
// child's words, and the process goes on.
TEST(ChildProcesses, WhatEndsTheChildIsAnErrorThatQuotesIt) {
  std::string out, why;
  EXPECT_TRUE(isg::detail::runInChild("the test's child", [](std::string* o) { *o = "PTX"; return true; },
                                      &out, &why));
  EXPECT_EQ(out, "PTX");
  EXPECT_FALSE(isg::detail::runInChild("the test's child", [](std::string* o) { *o = "no"; return false; },
                                       &out, &why));
  EXPECT_EQ(why, "no");
  EXPECT_FALSE(isg::detail::runInChild(
      "the test's child",
      [](std::string*) -> bool {
        std::fputs("LLVM ERROR: Undefined external symbol \"expf\"\n", stderr);
        std::abort();
      },
      &out, &why));
  EXPECT_TRUE(has(why, "the test's child failed on this module (signal " + std::to_string(SIGABRT))) << why;
  EXPECT_TRUE(has(why, "LLVM ERROR: Undefined external symbol")) << why;
  EXPECT_FALSE(isg::detail::runInChild("the test's child", [](std::string*) -> bool { std::_Exit(1); }, &out, &why));
  EXPECT_TRUE(has(why, "ended with status 1")) << why;
}

}  // namespace
