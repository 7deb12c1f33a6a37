// SPDX-License-Identifier: MIT
// Golden tests of the rewriter, all in memory: program text in, the user part of the driver's
// source (after the prelude) and the manifest out. The strategy library text is deliberately
// not compared; builtins-cl has its own tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "builtin_table.h"
#include "isg/build_options.h"
#include "isg/rewriter.h"

namespace {

using isg::RewriteResult;
using Status = isg::RewriteResult::Status;

isg::DeviceTraits localTraits() {
  isg::DeviceTraits t;
  t.strategy = isg::Strategy::Local;
  t.defaultSubGroupSize = 16;
  t.supportedSubGroupSizes = {8, 16, 32};
  return t;
}

// `assumed`: a launch variant's work-group size (RewriteInput::assumedWorkGroupSize).
RewriteResult rewrite(const std::string& source, const std::string& options = "",
                      std::vector<isg::SourceFile> headers = {},
                      isg::DeviceTraits traits = localTraits(),
                      std::array<std::size_t, 3> assumed = {0, 0, 0}) {
  isg::RewriteInput in;
  in.source = source;
  in.options = options;
  in.headers = std::move(headers);
  in.traits = traits;
  std::copy(assumed.begin(), assumed.end(), in.assumedWorkGroupSize);
  return isg::rewriteProgram(in);
}

// The edited user text: everything from the line the line map says the user's line 1 is at.
// The traits of strategy `s` at default sub-group size `size`, on the test's device.
isg::DeviceTraits strategyTraits(isg::Strategy s, unsigned size) {
  isg::DeviceTraits t = localTraits();
  isg::applyStrategyDefaults(s, size, &t);
  return t;
}

std::string userPart(const RewriteResult& r) {
  for (const isg::LineMapEntry& e : r.lineMap) {
    if (e.rewrittenFile != "<source>") continue;
    std::size_t pos = 0;
    for (unsigned line = 1; line < e.rewrittenFirst; ++line) pos = r.source.find('\n', pos) + 1;
    return r.source.substr(pos);
  }
  return "<no line map>";
}

const isg::KernelManifest* kernel(const RewriteResult& r, const std::string& name) {
  for (const isg::KernelManifest& k : r.kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::size_t lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }

#define EXPECT_REWRITTEN(r) \
  ASSERT_EQ((r).status, Status::Rewritten) << (r).log

// `r` is an error whose log contains `text`.
#define EXPECT_REWRITE_ERROR(r, text)                            \
  do {                                                           \
    ASSERT_EQ((r).status, Status::Error) << (r).log;             \
    EXPECT_NE((r).log.find(text), std::string::npos) << (r).log; \
  } while (0)

// ---- pass-through --------------------------------------------------------------------------

// NVIDIA's driver aligns local-memory arguments only to their pointee (DeviceTraits::
// alignLocalArgs): kernel parameters pointing to local memory with less than 16-byte alignment
// become `__local uint4*`, and the body declares the parameter's own name and type from it, on
// the user's lines. Others, helpers, and devices without the trait keep theirs.
TEST(Rewrite, LocalPointerArgumentsGetSixteenByteAlignmentOnNvidia) {
  const std::string src =
      "float helper(local char* lut) { return ((local float*)lut)[1]; }\n"
      "kernel void k(global float* o, local char* lut,\n"
      "              local const uchar* restrict tab, local float4* wide, local void* raw) {\n"
      "  o[0] = helper(lut) + intel_sub_group_shuffle(o[1], 0u) + tab[0] + wide[0].x;\n"
      "}\n";
  isg::DeviceTraits t = localTraits();
  t.strategy = isg::Strategy::NvidiaPtx;
  t.defaultSubGroupSize = 32;
  t.supportedSubGroupSizes = {8, 16, 32};
  t.nativeSubGroupSize = 32;
  t.alignLocalArgs = true;
  auto r = rewrite(src, "-cl-std=CL2.0", {}, t);
  EXPECT_REWRITTEN(r);
  const std::string user = userPart(r);
  EXPECT_EQ(lines(user), lines(src)) << user;
  EXPECT_NE(user.find("__local uint4* lut__isg_local,\n"), std::string::npos) << user;
  EXPECT_NE(user.find("__local uint4* tab__isg_local,"), std::string::npos) << user;
  EXPECT_NE(user.find("__local uint4* raw__isg_local"), std::string::npos) << user;
  EXPECT_NE(user.find("local float4* wide"), std::string::npos) << "16 bytes already: " << user;
  EXPECT_NE(user.find("__local char *lut = (__local char *)lut__isg_local;"), std::string::npos)
      << user;
  EXPECT_NE(user.find("const __local uchar *restrict tab = (const __local uchar *)tab__isg_local;"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("float helper(local char* lut)"), std::string::npos) << "helpers keep theirs";
  const auto* k = kernel(r, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->numUserArgs, 5u);
  t.alignLocalArgs = false;
  r = rewrite(src, "-cl-std=CL2.0", {}, t);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r).find("__isg_local"), std::string::npos) << userPart(r);
}

// The one tokenizer of build options (isg/build_options.h), as drivers split them.
TEST(BuildOptions, SplitAsDriversDo) {
  using V = std::vector<std::string>;
  EXPECT_EQ(isg::splitBuildOptions(""), V{});
  EXPECT_EQ(isg::splitBuildOptions(" \t\n "), V{});
  EXPECT_EQ(isg::splitBuildOptions("-cl-std=CL2.0  -DA=1\t-I inc"),
            (V{"-cl-std=CL2.0", "-DA=1", "-I", "inc"}));
  // Quotes group and are removed; an empty quoted word is a word.
  EXPECT_EQ(isg::splitBuildOptions("-I \"dir with space\" -DX='a b' \"\""),
            (V{"-I", "dir with space", "-DX=a b", ""}));
  EXPECT_EQ(isg::splitBuildOptions("-DS=\"x\"y"), (V{"-DS=xy"}));
  // A backslash takes the next character, outside quotes and inside double quotes only.
  EXPECT_EQ(isg::splitBuildOptions("-DQ=\\\"q\\\" a\\ b"), (V{"-DQ=\"q\"", "a b"}));
  EXPECT_EQ(isg::splitBuildOptions("\"a\\\"b\" 'c\\d'"), (V{"a\"b", "c\\d"}));
  EXPECT_EQ(isg::splitBuildOptions("-cl-nv-maxrregcount=64 -cl-nv-verbose"),
            (V{"-cl-nv-maxrregcount=64", "-cl-nv-verbose"}));
}

// clLinkProgram's options (the layer's front-end link answers CL_INVALID_LINKER_OPTIONS for
// words no implementation takes): the spec's, NVIDIA's and Intel's own, and compile options.
TEST(BuildOptions, LinkOptionsAreTheSpecsList) {
  EXPECT_EQ(isg::invalidLinkOptions(""), "");
  EXPECT_EQ(isg::invalidLinkOptions("-create-library -enable-link-options -cl-fast-relaxed-math "
                                    "-cl-denorms-are-zero -cl-nv-verbose -cl-intel-no-prera-scheduling"),
            "");
  EXPECT_EQ(isg::invalidLinkOptions("-cl-mad-enable -DX=1 -no-such-linker-option -cl-no-signed-zeros -O3"),
            "'-no-such-linker-option', '-O3'");
}

// The spec's rule for non-uniform work-groups, from the options alone (isg/build_options.h).
TEST(BuildOptions, NonUniformWorkGroupsFollowTheOpenClCVersion) {
  using isg::allowsNonUniformWorkGroups;
  EXPECT_FALSE(allowsNonUniformWorkGroups("", false)) << "OpenCL C 1.2 without -cl-std";
  for (const char* v : {"CL1.0", "CL1.1", "CL1.2", "cl1.2"})
    EXPECT_FALSE(allowsNonUniformWorkGroups(std::string("-DX=1 -cl-std=") + v, false)) << v;
  for (const char* v : {"CL2.0", "CL3.0", "cl3.0", "CLC++", "clc++2021"})
    EXPECT_TRUE(allowsNonUniformWorkGroups(std::string("-cl-std=") + v + " -cl-mad-enable", false)) << v;
  EXPECT_FALSE(allowsNonUniformWorkGroups("-cl-std=CL2.0 -cl-uniform-work-group-size", false));
  EXPECT_FALSE(allowsNonUniformWorkGroups("-cl-uniform-work-group-size -cl-std=CL3.0", false));
  EXPECT_TRUE(allowsNonUniformWorkGroups("", true)) << "a program from SPIR-V";
  EXPECT_TRUE(allowsNonUniformWorkGroups("-cl-std=CL1.2", true)) << "SPIR-V: -cl-std does not apply";
  EXPECT_FALSE(allowsNonUniformWorkGroups("-cl-uniform-work-group-size", true));
  EXPECT_TRUE(allowsNonUniformWorkGroups("-DNAME=-cl-uniform-work-group-size -cl-std=CL2.0", false))
      << "a macro's value is no option";
}

// The textual scan the layer's launches in parts use (isg::namedIdentifier): whole identifiers
// of the source, options, headers and included files, and whether an include was not read.
TEST(PreScan, NamedIdentifierFollowsIncludesAndSaysWhatItCouldNotRead) {
  const std::vector<const char*> names = {"get_group_id", "get_num_groups"};
  isg::RewriteInput in;
  in.source = "kernel void k(global int* p) { p[0] = my_get_group_id_x + get_group_idx; }\n";
  bool unreadable = false;
  EXPECT_EQ(isg::namedIdentifier(in, names, &unreadable), nullptr);
  EXPECT_FALSE(unreadable);
  in.options = "-DG=get_num_groups(0)";
  EXPECT_STREQ(isg::namedIdentifier(in, names), "get_num_groups");
  in.options.clear();
  in.source = "#include \"h.h\"\n";
  in.headers.push_back({"h.h", "#define G get_group_id(0)\n"});
  EXPECT_STREQ(isg::namedIdentifier(in, names, &unreadable), "get_group_id");
  in.headers.clear();
  in.source = "#include \"isg-no-such-file.h\"\nkernel void k() {}\n";
  EXPECT_EQ(isg::namedIdentifier(in, names, &unreadable), nullptr);
  EXPECT_TRUE(unreadable);
}

TEST(PassThrough, PlainProgram) {
  auto r = rewrite("kernel void k(global int* x) { x[get_global_id(0)] = 1; }\n");
  EXPECT_EQ(r.status, Status::PassThrough);
  EXPECT_TRUE(r.source.empty());
  EXPECT_TRUE(r.kernels.empty());
}

TEST(PassThrough, UnparseableWithoutBuiltins) {
  auto r = rewrite("kernel void k(global int* x) { x[0] = ; this is not C }\n");
  EXPECT_EQ(r.status, Status::PassThrough);
}

TEST(PassThrough, NativeStrategy) {
  auto t = localTraits();
  t.strategy = isg::Strategy::Native;
  auto r = rewrite("kernel void k(global uint* x) { x[0] = get_sub_group_local_id(); }\n", "", {}, t);
  EXPECT_EQ(r.status, Status::PassThrough);
}

TEST(PassThrough, ExtensionCheckOnly) {
  // Names the extension but uses nothing from it: nothing to change.
  auto r = rewrite("#ifdef cl_intel_subgroups\n#define HAVE 1\n#endif\nkernel void k(global int* x) { x[0] = 1; }\n");
  EXPECT_EQ(r.status, Status::PassThrough) << r.log;
}

// CLBlast's shape: the pragma and the shuffle helpers sit under an #if the host defines only for
// devices it gives shuffles. Skipped, they change nothing; defined, they are a rewrite; a pragma
// the preprocessor acts on (here in a header) with no builtin call goes to the driver as written
// (issue 67), unless the driver's warning about it would fail the build (-Werror).
TEST(PassThrough, PragmaInASkippedSection) {
  const std::string src =
      "#if USE_SUBGROUP_SHUFFLING == 1\n"
      "  #pragma OPENCL EXTENSION cl_intel_subgroups: enable\n"
      "inline float shuffle(float v, int src) { return intel_sub_group_shuffle(v, src); }\n"
      "#endif\n"
      "kernel void k(global float* x) { x[0] = 1.0f; }\n";
  auto skipped = rewrite(src);
  EXPECT_EQ(skipped.status, Status::PassThrough) << skipped.log;
  EXPECT_REWRITTEN(rewrite(src, "-DUSE_SUBGROUP_SHUFFLING=1"));
  const std::string pragmas = "#if USE_SUBGROUP_SHUFFLING == 1\n"
                              "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
                              "#endif\n"
                              "#include \"h.h\"\n"
                              "kernel void k(global float* x) { x[0] = 1.0f; }\n";
  const std::vector<isg::SourceFile> header = {{"h.h", "#pragma OPENCL EXTENSION cl_intel_subgroups_short : enable\n"}};
  auto forwarded = rewrite(pragmas, "-DUSE_SUBGROUP_SHUFFLING=1 -cl-std=CL2.0", header);
  EXPECT_EQ(forwarded.status, Status::PassThrough) << forwarded.log;
  auto pragmaOnly = rewrite(pragmas, "-cl-std=CL2.0 -Werror", header);
  EXPECT_REWRITTEN(pragmaOnly);
  EXPECT_EQ(pragmaOnly.headers.at(0).text, "\n");
  // Only the pragma lines change: no library, no extension macros, the application's options.
  EXPECT_EQ(pragmaOnly.source, "#if USE_SUBGROUP_SHUFFLING == 1\n\n#endif\n#include \"h.h\"\n"
                               "kernel void k(global float* x) { x[0] = 1.0f; }\n");
  EXPECT_EQ(pragmaOnly.options, "-cl-std=CL2.0 -Werror");
}

TEST(MayNeedRewrite, IdentifierBoundaries) {
  isg::RewriteInput in;
  in.source = "kernel void k() { my_intel_sub_group_shufflex(); }";
  EXPECT_TRUE(isg::mayNeedRewrite(in));  // carries the sub_group stem (token pasting)
  in.source = "kernel void k() { int subgroup = 0; }";
  EXPECT_FALSE(isg::mayNeedRewrite(in));
  in.source = "kernel void k() { int cl_intel_subgroupsX = 0; }";
  EXPECT_FALSE(isg::mayNeedRewrite(in));
  in.source = "kernel void k() { }";
  in.options = "-DSG=intel_reqd_sub_group_size";
  EXPECT_TRUE(isg::mayNeedRewrite(in));
  in.options = "";
  in.headers = {{"h.h", "#pragma OPENCL EXTENSION cl_intel_subgroups : enable"}};
  EXPECT_TRUE(isg::mayNeedRewrite(in));
}

// ---- threading the context -----------------------------------------------------------------

TEST(Rewrite, DirectCalls) {
  auto r = rewrite(
      "kernel void k(global float* o) {\n"
      "  uint lid = get_sub_group_local_id();\n"
      "  o[lid] = intel_sub_group_shuffle(o[lid], lid ^ 1);\n"
      "}\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "kernel void k(global float* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0) \n"
            "  uint lid = get_sub_group_local_id();\n"
            "  o[lid] = intel_sub_group_shuffle(o[lid], lid ^ 1);\n"
            "}\n");
  EXPECT_EQ(r.options, "-D cl_intel_subgroups=1 -D cl_intel_required_subgroup_size=1 "
            "-D cl_intel_subgroups_short=1 -D cl_intel_subgroups_char=1 "
            "-D cl_intel_subgroups_long=1");
  // The prelude maps the builtins onto the library and declares what the program uses.
  EXPECT_NE(r.source.find("#define ISG_NEED_identity 1\n"), std::string::npos);
  EXPECT_NE(r.source.find("#define ISG_NEED_shuffle 1\n"), std::string::npos);
  EXPECT_EQ(r.source.find("#define ISG_NEED_reduce"), std::string::npos);
  // One arity per macro: OpenCL C before 3.0 has no variadic macros.
  EXPECT_NE(r.source.find("#define intel_sub_group_shuffle(__isg_a, __isg_b) "
                          "__isg_intel_sub_group_shuffle(__isg_ctx, __isg_a, __isg_b)\n"),
            std::string::npos);
  EXPECT_EQ(r.source.find("__VA_ARGS__"), std::string::npos);
  EXPECT_NE(r.source.find("#define get_sub_group_local_id() "
                          "__isg_get_sub_group_local_id(__isg_ctx)\n"),
            std::string::npos);
}

TEST(Rewrite, MacroInProgram) {
  auto r = rewrite(
      "#define SHUF(x, i) intel_sub_group_shuffle(x, i)\n"
      "kernel void k(global int* o) { o[0] = SHUF(o[0], 3u); }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "#define SHUF(x, i) intel_sub_group_shuffle(x, i)\n"
            "kernel void k(global int* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)  o[0] = SHUF(o[0], 3u); }\n");
}

TEST(Rewrite, MacroFromOptions) {
  auto r = rewrite("kernel void k(global int* o) { o[0] = SHUF(o[0], 3u); }\n",
                   "-cl-mad-enable -DSHUF=intel_sub_group_shuffle -cl-nv-verbose");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "kernel void k(global int* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)  o[0] = SHUF(o[0], 3u); }\n");
  // Vendor options stay for the driver even though Clang never saw them.
  EXPECT_EQ(r.options,
            "-cl-mad-enable -DSHUF=intel_sub_group_shuffle -cl-nv-verbose "
            "-D cl_intel_subgroups=1 -D cl_intel_required_subgroup_size=1 "
            "-D cl_intel_subgroups_short=1 -D cl_intel_subgroups_char=1 "
            "-D cl_intel_subgroups_long=1");
  // cl_intel_media_block_io: every function takes an image, so only devices with images have it.
  isg::DeviceTraits images = localTraits();
  images.images = true;
  EXPECT_EQ(isg::extensionMacroOptions(images),
            "-D cl_intel_subgroups=1 -D cl_intel_required_subgroup_size=1 "
            "-D cl_intel_subgroups_short=1 -D cl_intel_subgroups_char=1 "
            "-D cl_intel_subgroups_long=1 -D cl_intel_media_block_io=1");
}

TEST(Rewrite, TokenPasting) {
  auto r = rewrite(
      "#define SG(op) intel_sub_group_##op\n"
      "kernel void k(global uint* o) { o[0] = SG(shuffle_xor)(o[0], 1u); }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "#define SG(op) intel_sub_group_##op\n"
            "kernel void k(global uint* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)  o[0] = SG(shuffle_xor)(o[0], 1u); }\n");
  EXPECT_EQ(kernel(r, "k")->families, std::vector<std::string>{"shuffle"});
}

TEST(Rewrite, HelpersAndPrototypes) {
  auto r = rewrite(
      "float leaf(float v);\n"
      "float mid(float v) { return leaf(v) * 2.0f; }\n"
      "float leaf(float v) { return sub_group_reduce_add(v); }\n"
      "uint lane(void) { return get_sub_group_local_id(); }\n"
      "uint lane2() { return lane(); }\n"
      "float pure(float v) { return v + 1.0f; }\n"
      "kernel void k(global float* o) { o[lane2()] = pure(mid(o[0])); }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "float leaf(__private __isg_ctx_t* __isg_ctx, float v);\n"
            "float mid(__private __isg_ctx_t* __isg_ctx, float v) { return leaf(__isg_ctx, v) * 2.0f; }\n"
            "float leaf(__private __isg_ctx_t* __isg_ctx, float v) { return sub_group_reduce_add(v); }\n"
            "uint lane(__private __isg_ctx_t* __isg_ctx) { return get_sub_group_local_id(); }\n"
            "uint lane2(__private __isg_ctx_t* __isg_ctx) { return lane(__isg_ctx); }\n"
            "float pure(float v) { return v + 1.0f; }\n"
            "kernel void k(global float* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)  o[lane2(__isg_ctx)] = pure(mid(__isg_ctx, o[0])); }\n");
  EXPECT_EQ(kernel(r, "k")->families, (std::vector<std::string>{"identity", "reduce"}));
}

// Separate compilation (issue 31.7): a link gives the rewrite the context functions of other
// objects. Calls of them and declarations get the context, the kernel gets the families and the
// scratch slot they need, and the program's own helpers that reach them take the context with
// those facts.
TEST(Rewrite, OtherObjectsContextFunctionsAreCalledWithTheContext) {
  isg::RewriteInput in;
  in.source =
      "int rot(int);\n"
      "int plain(int);\n"
      "int via(int v) { return rot(v) + plain(v); }\n"
      "kernel void k(global int* o) { o[0] = via(o[0]); }\n";
  in.traits = localTraits();
  in.compiledObject = true;
  EXPECT_EQ(isg::rewriteProgram(in).status, RewriteResult::Status::PassThrough);
  in.externalContext = {isg::ContextFunction{"rot", {"shuffle"}, 16}};
  RewriteResult r = isg::rewriteProgram(in);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "int rot(__private __isg_ctx_t* __isg_ctx, int);\n"
            "int plain(int);\n"
            "int via(__private __isg_ctx_t* __isg_ctx, int v) { return rot(__isg_ctx, v) + plain(v); }\n"
            "kernel void k(global int* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 16, 0, 0, 0)  o[0] = via(__isg_ctx, o[0]); }\n");
  EXPECT_EQ(kernel(r, "k")->families, std::vector<std::string>{"shuffle"});
  EXPECT_EQ(kernel(r, "k")->scratchBytesPerItem, 16u);
  ASSERT_EQ(r.contextFunctions.size(), 1u);
  EXPECT_EQ(r.contextFunctions[0].name, "via");
  EXPECT_EQ(r.contextFunctions[0].families, std::vector<std::string>{"shuffle"});
  EXPECT_EQ(r.contextFunctions[0].widestBytes, 16u);
  EXPECT_EQ(r.externalFunctions, (std::vector<std::string>{"plain", "rot"}));
}

// A compiled object's helpers may serve kernels of other objects: khr must not fix S to its own
// kernels' size there (__ISG_KHR_ONLY_S); a whole program may.
TEST(Rewrite, CompiledObjectsWithHelpersKeepTheSubGroupSizeDynamic) {
  isg::DeviceTraits khr = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::Khr, 32, &khr);
  const std::string source =
      "int rot(int v) { return intel_sub_group_shuffle(v, 0u); }\n"
      "kernel __attribute__((intel_reqd_sub_group_size(16))) void k(global int* o) { o[0] = rot(o[0]); }\n";
  isg::RewriteInput in;
  in.source = source;
  in.traits = khr;
  EXPECT_NE(isg::rewriteProgram(in).source.find("#define __ISG_KHR_ONLY_S 16u"), std::string::npos);
  in.compiledObject = true;
  RewriteResult object = isg::rewriteProgram(in);
  EXPECT_REWRITTEN(object);
  EXPECT_EQ(object.source.find("__ISG_KHR_ONLY_S 16u"), std::string::npos);
}

// Issue 32.4, then 49: on the local strategy a builtin reached by only some work-items of a
// work-group breaks its barrier. Branches and early returns in the kernel are rewritten so that
// every work-item reaches it (predication.h): no warning there. What the rewrite cannot express
// (a helper that exchanges, called under a case label nested in its switch) keeps its flow, and the build log says so
// at the user's line and names the condition. Uniform control flow gets no warning.
TEST(Rewrite, DivergentBuiltinsOnTheLocalStrategyAreWarnedAbout) {
  isg::DeviceTraits warn = localTraits();
  warn.refuseDivergent = false;  // ISG_REFUSE_DIVERGENT=0; the default refuses (below)
  const std::string source = 
      "kernel void direct(global float* o) {\n"
      "  float x = o[get_global_id(0)];\n"
      "  if (get_local_id(0) < 16) x = sub_group_reduce_add(x);\n"
      "  o[get_global_id(0)] = x;\n"
      "}\n"
      "kernel void through_variable(global float* o, int n) {\n"
      "  const uint lid = get_local_id(0) % 32;\n"
      "  float x = o[lid];\n"
      "  for (int i = 0; i < n; ++i) x += intel_sub_group_shuffle(x, 1u);\n"
      "  if (lid > 3) { x = sub_group_broadcast(x, 0u); }\n"
      "  o[lid] = x;\n"
      "}\n"
      "kernel void early_exit(global float* o, uint n) {\n"
      "  size_t gid = get_global_id(0);\n"
      "  if (gid >= n) return;\n"
      "  o[gid] = sub_group_scan_inclusive_add(o[gid]);\n"
      "}\n"
      "float helper(float x) { return sub_group_reduce_max(x); }\n"
      "kernel void via_helper(global float* o) {\n"
      "  float x = o[0];\n"
      "  switch (get_sub_group_local_id()) { case 0: if (x > 0) { case 1: x = helper(x); } break; default: break; }\n"
      "  o[0] = x + (float)get_sub_group_local_id();\n"
      "}\n";
  auto r = rewrite(source, "", {}, warn);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(r.log.find("<source>:3:"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("<source>:10:"), std::string::npos) << r.log;
  EXPECT_EQ(r.log.find("intel_sub_group_shuffle"), std::string::npos) << r.log;  // a uniform loop
  EXPECT_EQ(r.log.find("<source>:16:"), std::string::npos) << r.log;
  EXPECT_NE(r.log.find("<source>:21:3: warning: an exchange here may be reached by only some work-items, and "
                       "the layer cannot give the others a part in it (a case label inside a statement of the switch); "
                       "results "
                       "may differ from Intel's"),
            std::string::npos) << r.log;
  EXPECT_NE(r.log.find("<source>:18:32: warning: 'sub_group_reduce_max' may be reached by only "
                       "some work-items of a work-group (see <source>:21:11); the local sub-group strategy "
                       "exchanges through work-group barriers, which every work-item must reach, so such a "
                       "launch may hang or give results that differ from Intel's"),
            std::string::npos) << r.log;
  EXPECT_EQ(std::count(r.log.begin(), r.log.end(), '\n'), 2) << r.log;
  // By default the layer refuses what it cannot make right (issue 64): the build fails, and the
  // log says where and why, at the kernel and at the helper's exchange.
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx}) {
    isg::DeviceTraits t = strategyTraits(s, 32);
    const RewriteResult refused = rewrite(source, "", {}, t);
    EXPECT_EQ(refused.status, RewriteResult::Status::Error);
    EXPECT_NE(refused.log.find("<source>:21:3: error: an exchange here may be reached by only some work-items, and "
                               "the layer cannot give the others a part in it (a case label inside a statement of the "
                               "switch), so it "
                               "refuses the kernel"),
              std::string::npos) << refused.log;
    EXPECT_NE(refused.log.find("<source>:18:32: error: 'sub_group_reduce_max' may be reached by only some "
                               "work-items (see <source>:21:11), through a call the layer cannot give an execution "
                               "mask"),
              std::string::npos) << refused.log;
    EXPECT_NE(refused.log.find("ISG_REFUSE_DIVERGENT=0"), std::string::npos) << refused.log;
  }

  isg::DeviceTraits nvidia = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 0, &nvidia);
  isg::RewriteInput in;
  in.source = "kernel void k(global float* o) {\n"
              "  if (get_local_id(0) < 16) o[0] = sub_group_reduce_add(o[0]);\n}\n";
  in.traits = nvidia;
  RewriteResult onWarps = isg::rewriteProgram(in);
  EXPECT_REWRITTEN(onWarps);
  EXPECT_EQ(onWarps.log.find("warning"), std::string::npos) << onWarps.log;
}

// OpenCL C 2.0's work-group functions where the rewriter cannot prove every work-item reaches
// them (OpenVINO's dynamic softmax: its branch reads get_global_id(1), one value in each of its
// work-groups at run time): under a branch, the work-items outside give the identity (a vote its
// neutral answer) on every strategy; in a loop that work-items leave at different times they
// are taken only where the loop's exchange group is the work-group (local): elsewhere its
// sub-groups would leave it apart, and the build fails at the loop.
TEST(Rewrite, WorkGroupFunctionsInBranchesTakeTheirNamesakesRules) {
  const std::string branch =
      "kernel void k(global float* o, global int* v) {\n"
      "  float x = o[get_global_id(0)];\n"
      "  if (get_global_id(1) == 0) {\n"
      "    x = work_group_reduce_max(x) + work_group_scan_exclusive_add(x);\n"
      "    v[0] = work_group_all(v[1]) + work_group_broadcast(v[2], 1, 0);\n"
      "  }\n"
      "  o[get_global_id(0)] = x;\n"
      "}\n";
  const std::string loop =
      "kernel void k(global float* o) {\n"
      "  float x = o[get_global_id(0)];\n"
      "  for (uint i = 0; i < get_global_id(1); ++i) x = work_group_reduce_add(x);\n"
      "  o[get_global_id(0)] = x;\n"
      "}\n";
  isg::DeviceTraits nvidia = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 0, &nvidia);
  for (const isg::DeviceTraits& t : {localTraits(), nvidia}) {
    SCOPED_TRACE(isg::strategyName(t.strategy));
    RewriteResult r = rewrite(branch, "-cl-std=CL2.0", {}, t);
    EXPECT_REWRITTEN(r);
    EXPECT_NE(r.source.find(": (-INFINITY)"), std::string::npos) << r.source.substr(r.source.size() - 800);
    RewriteResult l = rewrite(loop, "-cl-std=CL2.0", {}, t);
    if (t.strategy == isg::Strategy::Local) {
      EXPECT_REWRITTEN(l);
    } else {
      EXPECT_EQ(l.status, RewriteResult::Status::Error);
      EXPECT_NE(l.log.find("<source>:3:"), std::string::npos) << l.log;
      EXPECT_NE(l.log.find("its sub-groups would leave it apart"), std::string::npos) << l.log;
    }
  }
}

// cl_khr_subgroup_non_uniform_vote, _ballot and _non_uniform_arithmetic: functions of the
// work-items that reach the call. nvidia-ptx (which knows them: the warp's member mask) declares
// and rewrites them, and leaves them in their branch when it makes the branch's exchanges run by
// every work-item; local neither declares nor rewrites them: a program of them passes through
// untouched where the driver has them, and fails its build at the call where it has not, as
// the driver alone would fail it.
TEST(Rewrite, FunctionsOfTheActiveWorkItemsOnlyWhereTheStrategyKnowsThem) {
  const std::string mixed =
      "kernel void k(global float* o, global int* p) {\n"
      "  float x = o[get_global_id(0)];\n"
      "  if (p[get_global_id(0)] > 0) {\n"
      "    x = intel_sub_group_shuffle(x, 0u);\n"
      "    o[get_global_id(0)] = sub_group_non_uniform_reduce_add(x) + (float)sub_group_elect();\n"
      "  }\n"
      "}\n";
  isg::DeviceTraits nvidia = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 0, &nvidia);
  const RewriteResult onWarps = rewrite(mixed, "", {}, nvidia);
  EXPECT_REWRITTEN(onWarps);
  EXPECT_EQ(onWarps.log.find("warning"), std::string::npos) << onWarps.log;
  EXPECT_NE(onWarps.source.find("__isg_sub_group_non_uniform_reduce_add(__isg_ctx"),
            std::string::npos);
  EXPECT_NE(onWarps.source.find("__isg_sub_group_elect(__isg_ctx"), std::string::npos);
  // The shuffle leaves the branch (every work-item runs it); the store with the functions of the
  // active work-items stays under the branch's flag.
  const std::string user = userPart(onWarps);
  const size_t shuffle = user.find("intel_sub_group_shuffle"),
               reduce = user.find("sub_group_non_uniform_reduce_add");
  ASSERT_NE(shuffle, std::string::npos) << user;
  ASSERT_NE(reduce, std::string::npos) << user;
  const std::string beforeReduce = user.substr(0, reduce);
  EXPECT_NE(beforeReduce.rfind("if ("), std::string::npos) << user;

  const RewriteResult onLocal = rewrite(mixed);
  EXPECT_REWRITE_ERROR(onLocal, "<source>:5:");
  EXPECT_NE(onLocal.log.find("sub_group_non_uniform_reduce_add"), std::string::npos) << onLocal.log;
  const std::string alone =
      "kernel void k(global uint4* o) { if (get_local_id(0) & 1) o[0] = sub_group_ballot(1); }\n";
  EXPECT_REWRITE_ERROR(rewrite(alone), "<source>:1:");
  isg::DeviceTraits hasThem = localTraits();  // a driver with the functions natively
  hasThem.openclCVersion = 300;
  hasThem.deviceOpenclVersion = 300;
  hasThem.deviceExtensions = {"cl_khr_subgroups", "cl_khr_subgroup_ballot"};
  hasThem.openclCFeatures = {"__opencl_c_subgroups"};
  const RewriteResult served = rewrite(alone, "-cl-std=CL3.0", {}, hasThem);
  EXPECT_EQ(served.status, Status::PassThrough) << served.log;
}

// Issue 35.1: on nvidia-ptx, a call that every work-item of a work-group reaches together, in a
// kernel whose warps are all whole (a required work-group size of a multiple of 32, uniform
// work-groups), takes the converged context (__ISG_CV<n>_<name>: the constant full member
// mask). Every other call keeps the ordinary macro, whose mask is the lanes active there.
TEST(Rewrite, CallsTheWholeWorkGroupReachesTogetherTakeTheConvergedContext) {
  const std::string body =
      "#define SHUF(x, i) intel_sub_group_shuffle(x, i)\n"                               // 1
      "constant int kSteps = 3;\n"                                                       // 2
      "float helper(float x) { return sub_group_reduce_max(x); }\n"                      // 3
      "REQD kernel void k(global float* o, global const int* flag, int n) {\n"           // 4
      "  const uint lid = get_local_id(0);\n"                                            // 5
      "  float x = o[get_global_id(0)];\n"                                               // 6
      "  int steps = n * kSteps + (int)get_group_id(0);\n"                               // 7
      "  for (int i = 0; i < steps; ++i) x += intel_sub_group_shuffle(x, (uint)i);\n"    // 8  together
      "  if (lid < 5) x = intel_sub_group_shuffle_xor(x, 1u);\n"                         // 9  divergent
      "  if (flag[0] > 0) x = sub_group_broadcast(x, 0u);\n"                             // 10 memory
      "  int m = n;\n"                                                                   // 11
      "  if (x > 0.0f) m = 0;\n"                                                         // 12 m diverges
      "  if (m > 2) x = sub_group_reduce_add(x);\n"                                      // 13 divergent
      "  x = SHUF(x, 2u) + helper(x);\n"                                                 // 14 macro, helper
      "  x = max(n, 4) > 3 ? sub_group_scan_inclusive_add(x) : x;\n"                     // 15 together
      "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"                                      // 16 together
      "  o[get_global_id(0)] = x;\n"                                                     // 17
      "}\n"
      "REQD kernel void exits(global float* o, global const int* flag) {\n"
      "  for (int i = 0; i < 4; ++i) { if (flag[i]) break; o[i] = intel_sub_group_shuffle(o[i], 0u); }\n"
      "  o[9] = sub_group_reduce_add(o[9]);\n"
      "}\n";
  auto rewriteWith = [&](const std::string& reqd, const std::string& options, isg::Strategy strategy) {
    isg::DeviceTraits t = localTraits();
    isg::applyStrategyDefaults(strategy, strategy == isg::Strategy::NvidiaPtx ? 32 : 0, &t);
    if (strategy == isg::Strategy::NvidiaPtx) t.nvidiaComputeCapability = 90;
    return rewrite("#define REQD " + reqd + "\n" + body, options, {}, t);
  };
  auto converged = [](const RewriteResult& r) {
    const std::string user = userPart(r);
    std::vector<std::string> names;
    for (std::size_t at = user.find("__ISG_CV"); at != std::string::npos; at = user.find("__ISG_CV", at + 1))
      names.push_back(user.substr(at, user.find('(', at) - at));
    return names;
  };
  const std::string reqd64 = "__attribute__((reqd_work_group_size(64, 1, 1)))";
  const RewriteResult r = rewriteWith(reqd64, "", isg::Strategy::NvidiaPtx);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(converged(r), (std::vector<std::string>{"__ISG_CV2_intel_sub_group_shuffle",
                                                    "__ISG_CV1_sub_group_scan_inclusive_add",
                                                    "__ISG_CV1_sub_group_barrier"}))
      << userPart(r);
  // The converged macros route to the library with the converged context.
  EXPECT_NE(r.source.find("#define __ISG_CV2_intel_sub_group_shuffle(__isg_a, __isg_b) "
                          "__isg_intel_sub_group_shuffle(__isg_cctx, __isg_a, __isg_b)"),
            std::string::npos);
  // Whole warps are not known: no converged call.
  EXPECT_TRUE(converged(rewriteWith("__attribute__((reqd_work_group_size(48, 1, 1)))", "", isg::Strategy::NvidiaPtx)).empty());
  EXPECT_TRUE(converged(rewriteWith("", "", isg::Strategy::NvidiaPtx)).empty());
  EXPECT_TRUE(converged(rewriteWith(reqd64, "-cl-std=CL2.0", isg::Strategy::NvidiaPtx)).empty());
  EXPECT_EQ(converged(rewriteWith(reqd64, "-cl-std=CL2.0 -cl-uniform-work-group-size", isg::Strategy::NvidiaPtx)).size(), 3u);
  EXPECT_EQ(converged(rewriteWith("__attribute__((reqd_work_group_size(16, 2, 2)))", "", isg::Strategy::NvidiaPtx)).size(), 3u);
  // Other strategies have no warps.
  EXPECT_TRUE(converged(rewriteWith(reqd64, "", isg::Strategy::Local)).empty());
}

// Buffer block IO whose pointer depends on the work-item: where every member reaches the call,
// local and khr take the first member's (`__ISG_L0_<name>`), as Intel's driver does; where the
// call, or another spelled at the same place of a macro, is under work-item dependent flow, the
// call keeps each member's pointer, and the log says so where that pointer may differ within a
// sub-group (not for one that differs only between sub-groups). nvidia-ptx takes the first
// active member's everywhere and says nothing.
TEST(Rewrite, BlockIoPointersThatMayDifferWithinASubGroupAreTheFirstMembersOrWarnedAbout) {
  const std::string source =
      "#define READ(p) intel_sub_group_block_read((const global uint*)(p))\n"                  // 1
      "__attribute__((intel_reqd_sub_group_size(16)))\n"                                      // 2
      "kernel void k(global uint* in, global uint* out, uint n) {\n"                          // 3
      "  const uint lane = get_sub_group_local_id();\n"                                       // 4
      "  const uint sg = get_sub_group_id();\n"                                               // 5
      "  uint x = READ(in + 16 * lane);\n"                                                    // 6
      "  uint y = intel_sub_group_block_read(in + 4 * lane);\n"                               // 7
      "  if (get_local_id(0) < n) x += READ(in + 32);\n"                                      // 8
      "  if (get_local_id(0) < n) y += intel_sub_group_block_read(in + 16 * sg);\n"           // 9
      "  if (get_local_id(0) < n) intel_sub_group_block_write(out + lane, x + y);\n"          // 10
      "  out[64 + get_global_id(0)] = x + y;\n"                                               // 11
      "}\n";
  const std::string tail = "' may be given a different pointer by each member of a sub-group, ";
  auto firstMembers = [](const std::string& user) {
    std::size_t n = 0;
    for (std::size_t at = user.find("__ISG_L0_"); at != std::string::npos; at = user.find("__ISG_L0_", at + 1)) ++n;
    return n;
  };
  // The first member's that takes the flow in every call (nvidia-ptx in its library; khr on a
  // driver with cl_khr_subgroup_ballot through __ISG_L0_): only line 10's split is worth a word.
  for (bool ballot : {false, true}) {
    const isg::Strategy s = ballot ? isg::Strategy::Khr : isg::Strategy::NvidiaPtx;
    isg::DeviceTraits t = strategyTraits(s, ballot ? 16 : 32);
    if (ballot) t.deviceExtensions = {"cl_khr_subgroups", "cl_khr_subgroup_ballot"};
    else t.nvidiaComputeCapability = 90;
    const std::string name = isg::strategyName(s);
    const RewriteResult r = rewrite(source, "", {}, t);
    EXPECT_REWRITTEN(r);
    const std::string user = userPart(r);
    EXPECT_EQ(firstMembers(user), ballot ? 3u : 0u) << name << ": " << user;
    EXPECT_EQ(r.source.find("#define __ISG_KHR_FIRST_ACTIVE 1") != std::string::npos, ballot) << name;
    EXPECT_NE(r.log.find("<source>:10:28: warning: 'intel_sub_group_block_write" + tail +
                         "under flow only some members of a sub-group take (see <source>:10:7): "
                         "cl_intel_subgroups asks every member for the same pointer; where they differ, the " +
                         name + " strategy takes the first member's that takes that flow and Intel's CPU runtime "
                         "member 0's, even where member 0 skipped it, so the results may differ from Intel's"),
              std::string::npos) << name << ": " << r.log;
    EXPECT_EQ(std::count(r.log.begin(), r.log.end(), '\n'), 1) << name << ": " << r.log;
  }
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::Khr}) {
    isg::DeviceTraits t = strategyTraits(s, 16);
    const std::string name = isg::strategyName(s);
    const RewriteResult r = rewrite(source, "", {}, t);
    EXPECT_REWRITTEN(r);
    const std::string user = userPart(r);
    EXPECT_EQ(r.source.find("#define __ISG_KHR_FIRST_ACTIVE 1"), std::string::npos) << name;
    // Line 7 alone takes the first member's pointer; the macro's site is shared with line 8's.
    EXPECT_EQ(firstMembers(user), 1u) << name << ": " << user;
    EXPECT_NE(user.find("uint y = __ISG_L0_intel_sub_group_block_read(in + 4 * lane);"), std::string::npos)
        << name << ": " << user;
    EXPECT_NE(r.log.find("<source>:6:12: warning: 'intel_sub_group_block_read" + tail +
                         "in a macro also expanded under flow only some work-items take (see <source>:8:7): "
                         "cl_intel_subgroups asks every member for the same pointer; where they differ, Intel's "
                         "driver takes the first member's and the " + name + " strategy each member's own, so "
                         "the results may differ from Intel's"),
              std::string::npos) << name << ": " << r.log;
    EXPECT_NE(r.log.find("<source>:10:28: warning: 'intel_sub_group_block_write" + tail +
                         "under flow only some work-items take (see <source>:10:7)"),
              std::string::npos) << name << ": " << r.log;
    EXPECT_EQ(std::count(r.log.begin(), r.log.end(), '\n'), 2) << name << ": " << r.log;
  }
}

// OpenVINO's attention (sdpa_opt): each member's pointer is the first's plus its lane, under a
// test of the sub-group's id and a loop whose bound comes from get_global_id(1). Launched with
// work-groups one work-item wide in y (its reqd_work_group_size, or a launch variant's size),
// that bound is one value across the work-group and every member of a sub-group reaches the
// call together: local takes member 0's pointer, as Intel's driver does, and says nothing.
// Where the size is not known the log warns, and the manifest marks the kernel for a variant
// (shapeDependentResult); so too a loop over local memory that lock-step cannot order.
TEST(Rewrite, AWorkGroupOneWorkItemWideMakesItsIdsInThatDimensionUniform) {
  const std::string source =
      "#define READ(p, o) intel_sub_group_block_read((const global uint*)(p) + (o))\n"       // 1
      "REQD __attribute__((intel_reqd_sub_group_size(16)))\n"                                // 2
      "kernel void k(global uint* in, global uint* out) {\n"                                 // 3
      "  const uint end = min(100u - (uint)get_global_id(1) * 16u, 16u);\n"                  // 4
      "  uint off = get_global_id(1) * 64 + get_local_id(2);\n"                              // 5
      "  uint acc = 0;\n"                                                                    // 6
      "  if (get_sub_group_id() * 16 < 48) {\n"                                              // 7
      "    for (uint s = 0; s < end; ++s) {\n"                                               // 8
      "      acc += READ(in, off);\n"                                                        // 9
      "      off += 64;\n"                                                                   // 10
      "    }\n"                                                                              // 11
      "  }\n"                                                                                // 12
      "  out[get_global_id(2) + 64 * get_global_id(1)] = acc;\n"                             // 13
      "}\n"
      "REQD kernel void rows(global uint* o, local uint* tile) {\n"
      "  const uint end = min(40u - (uint)get_global_id(1), 8u);\n"
      "  const uint b = intel_sub_group_block_read(o);\n"
      "  for (uint s = 0; s < end; ++s) tile[(get_local_id(2) + s) % 64] = o[s] + b;\n"
      "  o[get_global_id(2)] = tile[63 - get_local_id(2)];\n"
      "}\n";
  const std::string reqd = "__attribute__((reqd_work_group_size(1, 1, 64)))";
  const std::string pointer = "may be given a different pointer by each member of a sub-group";
  const std::string lockStep = "in this loop its work-items may run apart";
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::Khr}) {
    const isg::DeviceTraits t = strategyTraits(s, 16);
    const std::string name = isg::strategyName(s);
    for (const std::string& attribute : {reqd, std::string()}) {
      for (bool variant : {false, true}) {
        if (variant && !attribute.empty()) continue;
        const RewriteResult r = rewrite("#define REQD " + attribute + "\n" + source, "-cl-std=CL2.0", {}, t,
                                        variant ? std::array<std::size_t, 3>{1, 1, 64} : std::array<std::size_t, 3>{});
        EXPECT_REWRITTEN(r);
        const bool known = variant || !attribute.empty();
        SCOPED_TRACE(name + (known ? " with the size" : " without the size"));
        EXPECT_EQ(r.log.find(pointer) == std::string::npos, known) << r.log;
        EXPECT_EQ(r.log.find("<source>:10:14: warning: 'intel_sub_group_block_read' " + pointer) !=
                      std::string::npos, !known) << r.log;
        EXPECT_EQ(kernel(r, "k")->shapeDependentResult, !known);
        EXPECT_EQ(r.log.find(lockStep) == std::string::npos, known) << r.log;
        EXPECT_EQ(kernel(r, "rows")->shapeDependentResult, !known);
      }
    }
  }
}

// Issue 52.1: a launch variant (RewriteInput::assumedWorkGroupSize) writes every kernel that
// declares no work-group size as if it declared the launch's, with uniform work-groups under
// every -cl-std: the prologue's constant layout, the converged context on nvidia-ptx, and the
// attribute for the driver. A kernel's own reqd_work_group_size stands; a kernel spelled in a
// macro gets the layout but not the attribute (the macro's text is shared).
TEST(Rewrite, LaunchVariantWritesKernelsAsIfTheyDeclaredTheLaunchShape) {
  const std::string src =
      "#define K(name) kernel void name(global float* o) { o[0] = sub_group_reduce_add(o[0]); }\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void plain(global float* o) { o[0] = intel_sub_group_shuffle(o[0], 1u); }\n"
      "__attribute__((reqd_work_group_size(32, 1, 1))) kernel void own(global float* o) {\n"
      "  o[0] = intel_sub_group_shuffle(o[0], 1u); }\n"
      "K(viaMacro)\n"
      "kernel void noBuiltins(global float* o) { o[0] = 1.0f; }\n";
  isg::DeviceTraits t = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 32, &t);
  t.nvidiaComputeCapability = 90;
  for (const char* options : {"", "-cl-std=CL2.0", "-cl-std=CL3.0 -cl-fast-relaxed-math"}) {
    SCOPED_TRACE(options);
    const RewriteResult general = rewrite(src, options, {}, t);
    const RewriteResult r = rewrite(src, options, {}, t, {64, 2, 1});
    EXPECT_REWRITTEN(r);
    const std::string user = userPart(r);
    EXPECT_NE(user.find("__attribute__((reqd_work_group_size(64, 2, 1))) __attribute__((intel_reqd_sub_group_size(16)))\nkernel void plain"),
              std::string::npos) << user;
    EXPECT_NE(user.find("__ISG_KERNEL_PROLOGUE(16, 4, 64, 2, 1)  o[0] = __ISG_CV2_intel_sub_group_shuffle"),
              std::string::npos) << user;
    EXPECT_EQ(user.find("reqd_work_group_size(64, 2, 1))) __attribute__((reqd_work_group_size(32"),
              std::string::npos) << user;
    const std::size_t own = user.find("kernel void own");
    EXPECT_EQ(user.substr(own, user.find('\n', own) - own).find("64, 2, 1"), std::string::npos) << user;
    EXPECT_NE(user.find("#define K(name) kernel void name(global float* o) {__ISG_KERNEL_PROLOGUE(32, 4, 64, 2, 1)"),
              std::string::npos) << user;
    EXPECT_EQ(kernel(r, "plain")->reqdWorkGroupSize[0], 64u);
    EXPECT_TRUE(kernel(r, "plain")->wholeSubGroups);
    EXPECT_TRUE(kernel(r, "viaMacro")->wholeSubGroups);
    EXPECT_EQ(kernel(r, "own")->reqdWorkGroupSize[0], 32u);
    // The general program is another text (the result cache keys on the assumption).
    EXPECT_EQ(kernel(general, "plain")->reqdWorkGroupSize[0], 0u);
    EXPECT_EQ(userPart(general).find("reqd_work_group_size(64"), std::string::npos);
    EXPECT_EQ(r.options, general.options);
  }
  // S from the launch: the variant's size gives the S the launch would (local, nvidia-ptx), and
  // none where the general kernel keeps the default (khr).
  const std::string fromLaunch =
      "kernel void k(global float* o) { o[0] = intel_sub_group_shuffle(o[0], 1u); }\n";
  for (isg::Strategy strategy : {isg::Strategy::Local, isg::Strategy::NvidiaPtx, isg::Strategy::Khr}) {
    isg::DeviceTraits traits = localTraits();
    isg::applyStrategyDefaults(strategy, strategy == isg::Strategy::Local ? 0 : 32, &traits);
    traits.subGroupSizeFromLaunch = true;
    const unsigned general = kernel(rewrite(fromLaunch, "", {}, traits), "k")->subGroupSize;
    const RewriteResult r = rewrite(fromLaunch, "", {}, traits, {16, 8, 8});
    EXPECT_REWRITTEN(r);
    EXPECT_EQ(kernel(r, "k")->subGroupSize,
              strategy == isg::Strategy::Khr ? general : isg::launchSubGroupSize(16, traits.defaultSubGroupSize))
        << isg::strategyName(strategy);
  }
}

// ISG_SUB_GROUP_SIZE_FROM_LAUNCH: a kernel without intel_reqd_sub_group_size takes its S from
// each launch's x size (isg::launchSubGroupSize), or from its reqd_work_group_size.
TEST(Rewrite, SubGroupSizeFromTheLaunch) {
  EXPECT_EQ(isg::launchSubGroupSize(8, 32), 8u);
  EXPECT_EQ(isg::launchSubGroupSize(16, 32), 16u);
  EXPECT_EQ(isg::launchSubGroupSize(32, 32), 32u);
  EXPECT_EQ(isg::launchSubGroupSize(64, 32), 32u);
  EXPECT_EQ(isg::launchSubGroupSize(12, 32), 32u);
  EXPECT_EQ(isg::launchSubGroupSize(1, 32), 32u);
  EXPECT_EQ(isg::launchSubGroupSize(4, 16), 16u);
  EXPECT_EQ(isg::launchSubGroupSize(8, 16), 8u);
  EXPECT_EQ(isg::launchSubGroupSize(16, 16), 16u);
  EXPECT_EQ(isg::launchSubGroupSize(8, 8), 8u);
  EXPECT_EQ(isg::launchSubGroupSize(16, 64), 16u);
  isg::DeviceTraits t = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 32, &t);
  t.nvidiaComputeCapability = 90;
  t.subGroupSizeFromLaunch = true;
  const RewriteResult r = rewrite(
      "kernel void rows(global float* o) { o[get_global_id(0)] = sub_group_reduce_add(o[0]); }\n"
      "__attribute__((reqd_work_group_size(16, 2, 1)))\n"
      "kernel void fixed(global float* o) { o[get_global_id(0)] = sub_group_reduce_add(o[0]); }\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void asked(global float* o) { o[get_global_id(0)] = sub_group_reduce_add(o[0]); }\n",
      "", {}, t);
  EXPECT_REWRITTEN(r);
  const isg::KernelManifest* rows = kernel(r, "rows");
  const isg::KernelManifest* fixed = kernel(r, "fixed");
  const isg::KernelManifest* asked = kernel(r, "asked");
  ASSERT_TRUE(rows && fixed && asked);
  EXPECT_TRUE(rows->launchSubGroupSize);
  EXPECT_EQ(rows->subGroupSize, 32u);
  EXPECT_FALSE(fixed->launchSubGroupSize);
  EXPECT_EQ(fixed->subGroupSize, 16u);
  EXPECT_FALSE(asked->launchSubGroupSize);
  EXPECT_EQ(asked->subGroupSize, 8u);
  EXPECT_NE(userPart(r).find("__ISG_KERNEL_PROLOGUE(__ISG_LAUNCH_S((uint)get_local_size(0)), "), std::string::npos)
      << userPart(r);
  EXPECT_NE(r.source.find("#define __ISG_LAUNCH_S(x) ((x) == 8u ? 8u : (x) == 16u ? 16u : 32u)"), std::string::npos);
  // Without the trait, the default.
  t.subGroupSizeFromLaunch = false;
  const RewriteResult plain = rewrite("kernel void rows(global float* o) { o[0] = sub_group_reduce_add(o[0]); }\n", "", {}, t);
  EXPECT_REWRITTEN(plain);
  EXPECT_FALSE(plain.kernels[0].launchSubGroupSize);
  EXPECT_EQ(plain.source.find("__ISG_LAUNCH_S"), std::string::npos);
}

// Issue 32.7: a call no overload matches gets the builtin's signature and types, once, instead
// of clang's list of every overload in the layer's declarations.
TEST(Rewrite, NoMatchingBuiltinOverloadNamesTheSignature) {
  auto r = rewrite("kernel void k(global int* o) {\n  o[0] = intel_sub_group_shuffle(o[0]);\n}\n");
  ASSERT_EQ(r.status, RewriteResult::Status::Error);
  EXPECT_NE(r.log.find("<source>:2:10: error: no matching function for call to 'intel_sub_group_shuffle'"),
            std::string::npos) << r.log;
  EXPECT_NE(r.log.find("note: intel_sub_group_shuffle is T intel_sub_group_shuffle(T, uint) with T "
                       "one of float, float2"),
            std::string::npos) << r.log;
  auto block = rewrite("kernel void k(global uint* o) { o[0] = intel_sub_group_block_read_us2(o, 1); }\n");
  ASSERT_EQ(block.status, RewriteResult::Status::Error);
  EXPECT_NE(block.log.find("note: intel_sub_group_block_read_us2 is ushort2 "
                           "intel_sub_group_block_read_us2(const __global ushort*)"),
            std::string::npos) << block.log;
  EXPECT_EQ(block.log.find("candidate"), std::string::npos) << block.log;
}

TEST(Rewrite, HelperCalledFromMacroBodyTwice) {
  auto r = rewrite(
      "int bcast(int v) { return sub_group_broadcast(v, 0u); }\n"
      "#define B(x) bcast(x)\n"
      "kernel void k(global int* o) {\n"
      "  o[0] = B(o[1]) + B(o[2]);\n"
      "}\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "int bcast(__private __isg_ctx_t* __isg_ctx, int v) { return sub_group_broadcast(v, 0u); }\n"
            "#define B(x) bcast(__isg_ctx, x)\n"
            "kernel void k(global int* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0) \n"
            "  o[0] = B(o[1]) + B(o[2]);\n"
            "}\n");
}

TEST(Rewrite, MacroSharedByPlainAndThreadedHelpersIsAnError) {
  auto r = rewrite(
      "int a(int v) { return sub_group_broadcast(v, 0u); }\n"
      "int b(int v) { return v; }\n"
      "#define CALL(f, x) f(x)\n"
      "kernel void k(global int* o) { o[0] = CALL(a, o[1]) + CALL(b, o[2]); }\n");
  EXPECT_REWRITE_ERROR(r, "cannot pass the sub-group context through this macro");
}

// ---- shapes of real Intel-targeted code (oneDNN, OpenVINO, ggml) ----------------------------

// The parse must take the #if branches the driver takes: __OPENCL_VERSION__ is the device's
// version, every extension the driver reports has its macro, OpenCL C 3.0 features are the
// device's (oneDNN's types_interop.h, int64 atomics guards, program-scope variables).
TEST(RealWorld, ParseSeesTheDriversPredefines) {
  isg::DeviceTraits t = localTraits();
  t.deviceOpenclVersion = 300;
  t.deviceExtensions = {"cl_khr_fp64", "cl_khr_int64_base_atomics", "cl_vendor_thing"};
  t.openclCFeatures = {"__opencl_c_fp64", "__opencl_c_int64", "__opencl_c_images"};
  t.fp64 = true;
  t.images = true;
  const std::string src =
      "#ifdef __OPENCL_VERSION__\n"
      "typedef long int64_t;\n"
      "#endif\n"
      "#if __OPENCL_VERSION__ >= 200 && defined(cl_khr_int64_base_atomics) && "
      "defined(cl_vendor_thing)\n"
      "#define SUM(x) sub_group_reduce_add(x)\n"
      "#endif\n"
      "kernel void k(global int64_t* o) { o[0] = SUM(o[1]); }\n";
  auto r = rewrite(src, "", {}, t);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(kernel(r, "k")->families, (std::vector<std::string>{"reduce"}));
  // Without the device's facts the same program does not parse (int64_t, SUM are unknown).
  EXPECT_EQ(rewrite(src).status, Status::Error);

  // OpenCL C 3.0 without the device's program-scope-variable feature: the error the driver
  // would give; with it, the variable parses.
  const std::string globals =
      "global int counter = 0;\n"
      "kernel void k(global int* o) { o[0] = sub_group_reduce_add(counter); }\n";
  EXPECT_REWRITE_ERROR(rewrite(globals, "-cl-std=CL3.0", {}, t), "program scope variable");
  t.openclCFeatures.push_back("__opencl_c_program_scope_global_variables");
  t.openclCFeatures.push_back("__opencl_c_generic_address_space");
  EXPECT_REWRITTEN(rewrite(globals, "-cl-std=CL3.0", {}, t));
  // A device without images: __IMAGE_SUPPORT__ is not defined.
  t.images = false;
  auto noImages = rewrite(
      "#ifdef __IMAGE_SUPPORT__\n#error images\n#endif\n"
      "kernel void k(global int* o) { o[0] = sub_group_reduce_add(o[0]); }\n", "", {}, t);
  EXPECT_REWRITTEN(noImages);
  t.images = true;
  auto withImages = rewrite(
      "#ifndef __IMAGE_SUPPORT__\n#error no images\n#endif\n"
      "kernel void k(global int* o) { o[0] = sub_group_reduce_add(o[0]); }\n", "", {}, t);
  EXPECT_REWRITTEN(withImages);
}

// NVIDIA's OpenCL C 3.0 reports no atomics features yet takes atomic_fetch_add (Intel's
// conformance suite calls it): the parse declares every builtin the driver may accept, while
// the macros of features that change the language stay the device's.
TEST(RealWorld, BuiltinsADriverTakesWithoutTheirFeatureAreDeclared) {
  isg::DeviceTraits t = localTraits();
  t.deviceOpenclVersion = 300;
  t.deviceExtensions = {"cl_khr_fp64", "cl_khr_global_int32_base_atomics"};
  t.openclCFeatures = {"__opencl_c_fp64", "__opencl_c_int64", "__opencl_c_images"};
  t.fp64 = true;
  t.images = true;
  const std::string src =
      "#if defined(__opencl_c_generic_address_space) || defined(__opencl_c_pipes)\n"
      "#error the device has neither\n"
      "#endif\n"
      "kernel void k(global atomic_int* counter, global uint* o) {\n"
      "  o[get_global_id(0)] = atomic_fetch_add(counter, 1) + get_sub_group_local_id();\n"
      "  atomic_store_explicit(counter, 0, memory_order_relaxed, memory_scope_device);\n"
      "}\n";
  EXPECT_REWRITTEN(rewrite(src, "-cl-std=CL3.0", {}, t));
  EXPECT_REWRITTEN(rewrite(src, "-cl-std=CL3.0 -cl-fast-relaxed-math -DX=1", {}, t));
}

// Kernels whose bodies one macro spells share the layer's prologue: the widest scratch slot of
// them all; different sub-group sizes cannot share it, and say so at the kernels.
TEST(RealWorld, KernelsDefinedByOneMacro) {
  const std::string body =
      "#define KERNEL(NAME, T, ATTR) ATTR kernel void NAME(global T* o) {\\\n"
      "  o[0] = intel_sub_group_shuffle(o[1], 0u); }\n";
  auto r = rewrite(body + "KERNEL(a, int, )\nKERNEL(b, int8, )\nKERNEL(c, char, )\n");
  EXPECT_REWRITTEN(r);
  ASSERT_NE(kernel(r, "a"), nullptr);
  EXPECT_EQ(kernel(r, "a")->scratchBytesPerItem, kernel(r, "b")->scratchBytesPerItem);
  EXPECT_EQ(kernel(r, "c")->scratchBytesPerItem, kernel(r, "b")->scratchBytesPerItem);
  auto alone = rewrite(body + "KERNEL(b, int8, )\n");
  auto narrow = rewrite(body + "KERNEL(c, char, )\n");
  ASSERT_NE(kernel(alone, "b"), nullptr);
  ASSERT_NE(kernel(narrow, "c"), nullptr);
  EXPECT_LT(kernel(narrow, "c")->scratchBytesPerItem, kernel(alone, "b")->scratchBytesPerItem);
  EXPECT_EQ(kernel(r, "c")->scratchBytesPerItem, kernel(alone, "b")->scratchBytesPerItem);
  auto sizes = rewrite(body + "KERNEL(a, int, )\n"
                              "KERNEL(b, int, __attribute__((intel_reqd_sub_group_size(8))))\n");
  EXPECT_REWRITE_ERROR(sizes, "have their bodies in one macro");

  // A sharer without builtins takes the context and the scratch its text now declares, in its
  // manifest too; one sharer's work-group collective lends every sharer the scratch on the
  // strategies without one of their own, behind one prologue that hands it over.
  const std::string mixed =
      "#define K(NAME, EXPR) kernel void NAME(global int* o) { o[get_local_id(0)] = EXPR; }\n"
      "K(wg, work_group_reduce_add(o[0]))\nK(sg, intel_sub_group_shuffle(o[1], 0u))\nK(none, o[2])\n";
  isg::DeviceTraits khr = localTraits(), nvidia = localTraits();
  isg::applyStrategyDefaults(isg::Strategy::Khr, 32, &khr);
  isg::applyStrategyDefaults(isg::Strategy::NvidiaPtx, 0, &nvidia);
  for (const isg::DeviceTraits& t : {localTraits(), khr, nvidia}) {
    SCOPED_TRACE(isg::strategyName(t.strategy));
    auto m = rewrite(mixed, "-cl-std=CL2.0", {}, t);
    EXPECT_REWRITTEN(m);
    for (const char* name : {"wg", "sg", "none"}) {
      const auto* k = kernel(m, name);
      ASSERT_NE(k, nullptr) << name;
      ASSERT_EQ(k->hiddenArgs.size(), 1u) << name;
      EXPECT_EQ(k->hiddenArgs[0].kind, isg::HiddenArg::Kind::LocalScratch) << name;
      EXPECT_EQ(k->hiddenArgs[0].index, 1u) << name;
      EXPECT_EQ(k->scratchBytesPerItem, kernel(m, "wg")->scratchBytesPerItem) << name;
      // Only the shuffle moves values within sub-groups (how a driver cuts rows into them
      // matters to it alone: the layer's khr launches check rows for it).
      EXPECT_EQ(isg::exchangesWithinSubGroups(*k), std::string(name) == "sg") << name;
    }
    const std::string user = userPart(m);
    EXPECT_NE(user.find("(global int* o, __local ulong16* __isg_scratch) {" +
                        std::string(t.strategy == isg::Strategy::Local ? "__ISG_KERNEL_PROLOGUE("
                                                                       : "__ISG_KERNEL_PROLOGUE_WG(")),
              std::string::npos)
        << user;
  }
  // Helpers too: a helper without builtins spelled where one with them is takes the context,
  // and so do its callers.
  auto helpers = rewrite(
      "#define H(NAME, EXPR) int NAME(int x) { return EXPR; }\n"
      "H(h1, intel_sub_group_shuffle(x, 0u))\nH(h2, x + 1)\n"
      "kernel void k(global int* o) { o[0] = h1(o[0]) + h2(o[1]); }\n"
      "kernel void k2(global int* o) { o[0] = h2(o[1]); }\n");
  EXPECT_REWRITTEN(helpers);
  EXPECT_NE(userPart(helpers).find("o[0] = h2(__isg_ctx, o[1]); }"), std::string::npos)
      << userPart(helpers);
}

// OpenCL C 2.0 makes read_write images core, yet NVIDIA's driver takes -cl-std=CL2.0 with no
// read-write image support: such a kernel fails at the rewrite with a log that says why.
TEST(RealWorld, ReadWriteImageOnADeviceWithoutThem) {
  isg::DeviceTraits t = localTraits();
  t.images = true;
  const std::string src =
      "uint row(read_write image2d_t im, int y) { return intel_sub_group_block_read(im, (int2)(0, y)); }\n"
      "kernel void k(global uint* o, read_write image2d_t img) {\n"
      "  intel_sub_group_block_write(img, (int2)(0, 0), row(img, 1) + get_image_width(img));\n"
      "}\n";
  EXPECT_REWRITTEN(rewrite(src, "-cl-std=CL2.0", {}, t));
  // Without read-write images (NVIDIA) the layer stands in for them: the kernel takes the image
  // write_only in its place and a hidden buffer of its texels after every other argument;
  // helpers take the library's stand-in type. Under every -cl-std that has read_write.
  t.readWriteImages = false;
  for (const char* std : {"-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    SCOPED_TRACE(std);
    auto r = rewrite(src, std, {}, t);
    EXPECT_REWRITTEN(r);
    const auto* k = kernel(r, "k");
    ASSERT_NE(k, nullptr);
    EXPECT_EQ(k->numUserArgs, 2u);
    ASSERT_FALSE(k->hiddenArgs.empty());
    const isg::HiddenArg& h = k->hiddenArgs.back();
    EXPECT_EQ(h.kind, isg::HiddenArg::Kind::RawImage);
    EXPECT_EQ(h.imageArg, 1u);
    EXPECT_EQ(h.index, k->numUserArgs + k->hiddenArgs.size() - 1);
    EXPECT_EQ(k->blockImageArgs, (std::vector<unsigned>{1}));
    const std::string user = userPart(r);
    EXPECT_NE(user.find("__isg_rw_image_t im, int y)"), std::string::npos) << user;
    EXPECT_NE(user.find("write_only image2d_t img__isg_img"), std::string::npos) << user;
    EXPECT_NE(user.find("__global uchar* img__isg_raw)"), std::string::npos) << user;
    EXPECT_NE(user.find("__isg_rw_image_t img = __isg_rw_image(img__isg_raw);"), std::string::npos)
        << user;
    EXPECT_EQ(user.find("read_write"), std::string::npos) << user;
  }
  // Other image functions cannot run on the stand-in: said at the parameter.
  const std::string sampled =
      "kernel void k(global uint* o, read_write image2d_t img) {\n"
      "  o[0] = intel_sub_group_block_read(img, (int2)(0, 0)) + read_imageui(img, (int2)(0, 0)).x;\n"
      "}\n";
  EXPECT_REWRITE_ERROR(rewrite(sampled, "-cl-std=CL2.0", {}, t),
                       "<source>:1:52: error: parameter 'img' is a read_write image, which this "
                       "device does not support; the layer stands in for it with block and media "
                       "IO");
}

// The manifest names the image arguments block IO reaches, through helpers too, so that the
// layer can check their formats; an image only sampled is not among them.
TEST(Manifest, BlockImageArguments) {
  auto r = rewrite(
      "uint4 fetch(read_only image2d_t src, int2 at) { return intel_sub_group_block_read4(src, at); }\n"
      "kernel void k(global uint* o, read_only image2d_t a, read_only image2d_t b,\n"
      "              write_only image2d_t c, read_only image2d_t sampled) {\n"
      "  uint v = intel_sub_group_block_read(a, (int2)(0, 0)) + fetch(b, (int2)(4, 0)).x;\n"
      "  intel_sub_group_block_write(c, (int2)(0, 0), v + read_imageui(sampled, (int2)(0, 0)).x);\n"
      "}\n"
      "kernel void plain(global uint* o, read_only image2d_t a) { o[0] = read_imageui(a, (int2)(0, 0)).x; }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(kernel(r, "k")->blockImageArgs, (std::vector<unsigned>{1, 2, 3}));
  EXPECT_TRUE(kernel(r, "k")->mixedImageArgs.empty());
  EXPECT_TRUE(kernel(r, "plain")->blockImageArgs.empty());
}

// Block and media IO calls that name their kernel's own image parameter get its facts (channel
// order, data type, width, height: HiddenArg::Kind::ImageFacts) as a hidden argument after the
// others, instead of querying them per call; through a helper, in parentheses, inside the
// program's own macro, in a kernel whose parameter list a macro closes, or on a read_write
// image the layer stands in for, a call keeps querying.
TEST(Manifest, ImageFactsForTheKernelsOwnImages) {
  isg::DeviceTraits t = localTraits();
  t.images = true;
  auto r = rewrite(
      "#define READ(img) intel_sub_group_media_block_read_ui((int2)(0, 0), 4, 1, img)\n"
      "uint helper(read_only image2d_t h) { return intel_sub_group_block_read(h, (int2)(0, 0)); }\n"
      "kernel void k(global uint* o, read_only image2d_t a, read_only image2d_t b,\n"
      "              write_only image2d_t c, read_only image2d_t d, read_only image2d_t e) {\n"
      "  uint v = intel_sub_group_media_block_read_ui((int2)(0, 0), 4, 1, a) + helper(b);\n"
      "  v += intel_sub_group_block_read((d), (int2)(0, 0)) + READ(e);\n"
      "  intel_sub_group_block_write(c, (int2)(0, 0), v + intel_sub_group_block_read(a, (int2)(4, 0)));\n"
      "  intel_sub_group_media_block_write_ui((int2)(0, 0), 4, 1, v, c);\n"
      "}\n"
      "#define KERNEL(name) kernel void name(global uint* o, read_only image2d_t a)\n"
      "KERNEL(m) { o[0] = intel_sub_group_block_read(a, (int2)(0, 0)); }\n"
      "#define PARAMS global uint* o, read_only image2d_t a\n"
      "kernel void p(PARAMS) { o[0] = intel_sub_group_block_read(a, (int2)(0, 0)); }\n",
      "", {}, t);
  EXPECT_REWRITTEN(r);
  const auto* k = kernel(r, "k");
  ASSERT_NE(k, nullptr);
  ASSERT_EQ(k->hiddenArgs.size(), 3u);
  EXPECT_EQ(k->hiddenArgs[0].kind, isg::HiddenArg::Kind::LocalScratch);
  for (unsigned i : {1u, 2u}) {
    EXPECT_EQ(k->hiddenArgs[i].kind, isg::HiddenArg::Kind::ImageFacts);
    EXPECT_EQ(k->hiddenArgs[i].index, 6 + i);
  }
  EXPECT_EQ(k->hiddenArgs[1].imageArg, 1u);
  EXPECT_EQ(k->hiddenArgs[2].imageArg, 3u);
  EXPECT_EQ(k->blockImageArgs, (std::vector<unsigned>{1, 2, 3, 4, 5}));
  const std::string user = userPart(r);
  EXPECT_NE(user.find("read_only image2d_t e, __local ulong16* __isg_scratch, int4 a__isg_facts, "
                      "int4 c__isg_facts)"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("__ISG_IF4_intel_sub_group_media_block_read_ui((int2)(0, 0), 4, 1, a)"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("__ISG_IF2_intel_sub_group_block_read(a, (int2)(4, 0))"), std::string::npos)
      << user;
  EXPECT_NE(user.find("__ISG_IF3_intel_sub_group_block_write(c,"), std::string::npos) << user;
  EXPECT_NE(user.find("__ISG_IF5_intel_sub_group_media_block_write_ui("), std::string::npos) << user;
  EXPECT_NE(user.find("intel_sub_group_block_read((d)"), std::string::npos) << user;
  EXPECT_NE(user.find("#define READ(img) intel_sub_group_media_block_read_ui("), std::string::npos)
      << user;
  EXPECT_NE(r.source.find("#define __ISG_IF4_intel_sub_group_media_block_read_ui(__isg_a, __isg_b, "
                          "__isg_c, __isg_d) __isg_intel_sub_group_media_block_read_ui(__isg_ctx, "
                          "__isg_a, __isg_b, __isg_c, __isg_d, __isg_d##__isg_facts)"),
            std::string::npos);
  const auto* m = kernel(r, "m");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->hiddenArgs.size(), 1u);
  EXPECT_EQ(m->hiddenArgs[0].kind, isg::HiddenArg::Kind::LocalScratch);
  // Parameters from a macro, the list's ')' in the kernel's text: the facts go after it.
  const auto* pk = kernel(r, "p");
  ASSERT_NE(pk, nullptr);
  ASSERT_EQ(pk->hiddenArgs.size(), 2u);
  EXPECT_EQ(pk->hiddenArgs[1].kind, isg::HiddenArg::Kind::ImageFacts);
  EXPECT_NE(user.find("kernel void p(PARAMS, __local ulong16* __isg_scratch, int4 a__isg_facts)"),
            std::string::npos)
      << user;

  // A read_write image the layer stands in for has its header; the other image its facts.
  t.readWriteImages = false;
  r = rewrite("kernel void rw(global uint* o, read_write image2d_t x, read_only image2d_t y) {\n"
              "  o[0] = intel_sub_group_block_read(x, (int2)(0, 0)) + intel_sub_group_block_read(y, (int2)(0, 0));\n"
              "}\n",
              "-cl-std=CL2.0", {}, t);
  EXPECT_REWRITTEN(r);
  const auto* rw = kernel(r, "rw");
  ASSERT_NE(rw, nullptr);
  ASSERT_EQ(rw->hiddenArgs.size(), 3u);
  EXPECT_EQ(rw->hiddenArgs[1].kind, isg::HiddenArg::Kind::RawImage);
  EXPECT_EQ(rw->hiddenArgs[1].imageArg, 1u);
  EXPECT_EQ(rw->hiddenArgs[2].kind, isg::HiddenArg::Kind::ImageFacts);
  EXPECT_EQ(rw->hiddenArgs[2].imageArg, 2u);
  EXPECT_EQ(rw->hiddenArgs[2].index, 5u);
}

// Block IO images that other image functions use too, directly or through helpers, cannot take
// the layer's raw-bits view of an image: the manifest names them.
TEST(Manifest, MixedImageArguments) {
  auto r = rewrite(
      "uint4 texel(read_only image2d_t img) { return read_imageui(img, (int2)(0, 0)); }\n"
      "uint row(read_only image2d_t img) { return intel_sub_group_block_read(img, (int2)(0, 0)); }\n"
      "uint both(read_only image2d_t img) { return row(img) + texel(img).x; }\n"
      "kernel void k(global uint* o, read_only image2d_t a, read_only image2d_t b,\n"
      "              read_only image2d_t c, read_only image2d_t d) {\n"
      "  o[0] = intel_sub_group_block_read(a, (int2)(0, 0)) + get_image_channel_order(a);\n"
      "  o[2] = get_image_width(d) + get_image_dim(b).y + get_image_height(d);\n"
      "  o[1] = row(b) + both(c) + row(d);\n"
      "}\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(kernel(r, "k")->blockImageArgs, (std::vector<unsigned>{1, 2, 3, 4}));
  EXPECT_EQ(kernel(r, "k")->mixedImageArgs, (std::vector<unsigned>{1, 3}));
}

TEST(RealWorld, ProgramsOwnPrototypesOfBuiltins) {
  // oneDNN declares the char block IO itself; the prototype must stay a declaration, not turn
  // into a call of the prelude's function-like macro.
  auto r = rewrite(
      "#ifdef cl_intel_subgroups_char\n"
      "void __attribute__((overloadable)) intel_sub_group_block_write_uc16(\n"
      "        __global uchar *p, uchar16 data);\n"
      "uchar16 __attribute__((overloadable)) intel_sub_group_block_read_uc16(\n"
      "        const __global uchar *p);\n"
      "#endif\n"
      "kernel void k(global uchar* p) {\n"
      "  intel_sub_group_block_write_uc16(p, intel_sub_group_block_read_uc16(p));\n"
      "}\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "#ifdef cl_intel_subgroups_char\n"
            "void __attribute__((overloadable)) (intel_sub_group_block_write_uc16)(\n"
            "        __global uchar *p, uchar16 data);\n"
            "uchar16 __attribute__((overloadable)) (intel_sub_group_block_read_uc16)(\n"
            "        const __global uchar *p);\n"
            "#endif\n"
            "kernel void k(global uchar* p, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 0, 0, 0, 0) \n"
            "  intel_sub_group_block_write_uc16(p, intel_sub_group_block_read_uc16(p));\n"
            "}\n");
}

TEST(RealWorld, MacroDefinedHelpersCallingABuiltinOrAHelper) {
  // oneDNN's DECLARE_BLOCK_READ: one macro body calls `func(p)` with func a builtin for global
  // memory and the program's own emulation (which needs the context) for local memory. The
  // '(' gets the context for the emulation, so the builtin's name there becomes the library
  // function that takes it.
  auto r = rewrite(
      "uint block_read_emu(const __local uint* p) {\n"
      "  return p[get_sub_group_local_id()];\n"
      "}\n"
      "#define DECLARE_BLOCK_READ(suffix, func, data_type, addr_space, p_type) \\\n"
      "  data_type __attribute__((overloadable)) block_read##suffix( \\\n"
      "      const addr_space p_type *p) { return func(p); }\n"
      "DECLARE_BLOCK_READ(, intel_sub_group_block_read, uint, __global, uint)\n"
      "DECLARE_BLOCK_READ(2, intel_sub_group_block_read2, uint2, __global, uint)\n"
      "DECLARE_BLOCK_READ(, block_read_emu, uint, __local, uint)\n"
      "kernel void k(global uint* g) {\n"
      "  local uint l[64];\n"
      "  g[get_global_id(0)] = block_read(g) + block_read(l) + block_read2(g).y;\n"
      "}\n");
  EXPECT_REWRITTEN(r);
  const std::string user = userPart(r);
  EXPECT_NE(user.find("uint block_read_emu(__private __isg_ctx_t* __isg_ctx, const __local uint* p)"),
            std::string::npos) << user;
  EXPECT_NE(user.find("block_read##suffix(__private __isg_ctx_t* __isg_ctx,  \\\n"), std::string::npos) << user;
  EXPECT_NE(user.find("return func(__isg_ctx, p); }"), std::string::npos) << user;
  EXPECT_NE(user.find("DECLARE_BLOCK_READ(, __isg_intel_sub_group_block_read, uint, __global"),
            std::string::npos) << user;
  EXPECT_NE(user.find("DECLARE_BLOCK_READ(2, __isg_intel_sub_group_block_read2, uint2"),
            std::string::npos) << user;
  EXPECT_NE(user.find("DECLARE_BLOCK_READ(, block_read_emu, uint, __local, uint)"),
            std::string::npos) << user;
}

TEST(RealWorld, OneMacroPerBuiltinWithTheArityOfItsCalls) {
  // No variadic macros (NVIDIA rejects them before OpenCL C 3.0): each builtin's macro takes
  // the argument count of its calls; a second count gets a macro of its own, and the calls
  // with it are renamed where their name is written.
  auto r = rewrite(
      "#define READ(img) intel_sub_group_block_read_us2(img, (int2)(0, 0))\n"
      "kernel void k(global ushort* p, read_only image2d_t img) {\n"
      "  sub_group_barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  vstore2(intel_sub_group_block_read_us2(p) + READ(img), 0, p);\n"
      "  intel_sub_group_block_write_us(p, intel_sub_group_block_read_us(img, (int2)(1, 0)));\n"
      "}\n", "-cl-std=CL2.0");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(r.source.find("__VA_ARGS__"), std::string::npos);
  EXPECT_NE(r.source.find("#define sub_group_barrier(__isg_a) "
                          "__isg_sub_group_barrier(__isg_ctx, __isg_a)\n"), std::string::npos);
  EXPECT_NE(r.source.find("#define intel_sub_group_block_read_us2(__isg_a) "), std::string::npos);
  EXPECT_NE(r.source.find("#define __ISG_A2_intel_sub_group_block_read_us2(__isg_a, __isg_b) "
                          "__isg_intel_sub_group_block_read_us2(__isg_ctx, __isg_a, __isg_b)\n"),
            std::string::npos);
  // A name called with one count only keeps its name, whatever the count.
  EXPECT_NE(r.source.find("#define intel_sub_group_block_read_us(__isg_a, __isg_b) "),
            std::string::npos);
  const std::string user = userPart(r);
  EXPECT_NE(user.find("#define READ(img) __ISG_A2_intel_sub_group_block_read_us2(img, "),
            std::string::npos) << user;
  EXPECT_NE(user.find("vstore2(intel_sub_group_block_read_us2(p) + READ(img)"), std::string::npos)
      << user;
}

TEST(RealWorld, PastedNameCalledWithTwoAritiesIsAClearError) {
  auto r = rewrite(
      "#define R(n) intel_sub_group_block_read##n\n"
      "kernel void k(global uint* p, read_only image2d_t img) {\n"
      "  p[0] = R(2)(p).x + R(2)(img, (int2)(0, 0)).y;\n"
      "}\n");
  EXPECT_REWRITE_ERROR(r, "<source>:3:");
  EXPECT_REWRITE_ERROR(r, "formed by token pasting");
}

TEST(Rewrite, TwoKernelsWithRequiredSizes) {
  auto r = rewrite(
      "#define SGS(n) __attribute__((intel_reqd_sub_group_size(n)))\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "__attribute__((reqd_work_group_size(64, 2, 1)))\n"
      "kernel void k16(global uint* o) { o[0] = intel_sub_group_shuffle(o[0], 1u); }\n"
      "SGS(8) kernel void k8(global ulong* o, int n) { o[0] = sub_group_scan_inclusive_add(o[n]); }\n"
      "kernel void none(global int* o) { o[0] = 0; }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "#define SGS(n) __attribute__((intel_reqd_sub_group_size(n)))\n"
            "__attribute__((intel_reqd_sub_group_size(16)))\n"
            "__attribute__((reqd_work_group_size(64, 2, 1)))\n"
            "kernel void k16(global uint* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 64, 2, 1)  o[0] = intel_sub_group_shuffle(o[0], 1u); }\n"
            "SGS(8) kernel void k8(global ulong* o, int n, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(8, 8, 0, 0, 0)  o[0] = sub_group_scan_inclusive_add(o[n]); }\n"
            "kernel void none(global int* o) { o[0] = 0; }\n");
  ASSERT_EQ(r.kernels.size(), 3u);
  const auto* k16 = kernel(r, "k16");
  EXPECT_EQ(k16->subGroupSize, 16u);
  EXPECT_TRUE(k16->requiredSubGroupSize);
  EXPECT_EQ(k16->reqdWorkGroupSize[0], 64u);
  EXPECT_EQ(k16->reqdWorkGroupSize[1], 2u);
  EXPECT_EQ(k16->reqdWorkGroupSize[2], 1u);
  const auto* k8 = kernel(r, "k8");
  EXPECT_EQ(k8->subGroupSize, 8u);
  EXPECT_TRUE(k8->requiredSubGroupSize);
  EXPECT_EQ(k8->scratchBytesPerItem, 8u);
  EXPECT_EQ(k8->numUserArgs, 2u);
  ASSERT_EQ(k8->hiddenArgs.size(), 1u);
  EXPECT_EQ(k8->hiddenArgs[0].index, 2u);
  EXPECT_EQ(k8->reqdWorkGroupSize[0], 0u);
  const auto* none = kernel(r, "none");
  EXPECT_EQ(none->subGroupSize, 16u);
  EXPECT_FALSE(none->requiredSubGroupSize);
  EXPECT_TRUE(none->families.empty());
  EXPECT_TRUE(none->hiddenArgs.empty());
  EXPECT_EQ(none->scratchBytesPerItem, 0u);
}

TEST(Rewrite, NamedHeaderWithHelper) {
  std::vector<isg::SourceFile> headers = {
      {"inc/sg.h",
       "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
       "inline uint lane(void) { return get_sub_group_local_id(); }\n"}};
  auto r = rewrite("#include \"inc/sg.h\"\nkernel void k(global uint* o) { o[lane()] = 1; }\n", "",
                   headers);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "#include \"inc/sg.h\"\n"
            "kernel void k(global uint* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 0, 0, 0, 0)  o[lane(__isg_ctx)] = 1; }\n");
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].name, "inc/sg.h");
  EXPECT_EQ(r.headers[0].text,
            "\n"
            "inline uint lane(__private __isg_ctx_t* __isg_ctx) { return get_sub_group_local_id(); }\n");
}

void writeFile(const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_TRUE(f) << path;
  std::fputs(text.c_str(), f);
  std::fclose(f);
}

std::string tempDir(const std::string& name) {
  std::string dir = ::testing::TempDir() + name;
  std::string cmd = "mkdir -p '" + dir + "/sub'";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  return dir;
}

// Helpers in headers found through -I (SimpleOpenCLSamples, oneDNN): the edited header text
// replaces its #include line, the headers around it come along with their own includes pointed
// at absolute paths, and the line map still names the header and line for build logs.
TEST(DiskHeaders, EditedHeadersAreFoldedIntoTheProgram) {
  const std::string dir = tempDir("isg_rw_fold");
  writeFile(dir + "/sub/plain.h", "#define TWO 2\n");
  writeFile(dir + "/sub/inner.h",
            "#ifndef INNER_H\n#define INNER_H\n"
            "uint lane(void) { return get_sub_group_local_id(); }\n"
            "#endif\n");
  writeFile(dir + "/outer.h", "#include \"sub/plain.h\"\n#include \"sub/inner.h\"\n");
  auto r = rewrite(
      "#include \"outer.h\"\n"
      "#include \"sub/inner.h\"\n"
      "kernel void k(global uint* o) { o[lane()] = TWO; }\n",
      "-I " + dir);
  EXPECT_REWRITTEN(r);
  const std::string user = userPart(r);
  EXPECT_EQ(user,
            "#include \"" + dir + "/sub/plain.h\"\n"
            "#ifndef INNER_H\n#define INNER_H\n"
            "uint lane(__private __isg_ctx_t* __isg_ctx) { return get_sub_group_local_id(); }\n"
            "#endif\n"
            "\n"
            "kernel void k(global uint* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 0, 0, 0, 0)  o[lane(__isg_ctx)] = TWO; }\n");
  // A driver diagnostic at the helper's line names the header and its line; the kernel line
  // keeps the driver's own name for the program.
  unsigned helperLine = 0, kernelLine = 0, n = 1;
  for (std::size_t p = 0; p < r.source.size(); p = r.source.find('\n', p) + 1, ++n) {
    if (r.source.compare(p, 9, "uint lane") == 0) helperLine = n;
    if (r.source.compare(p, 13, "kernel void k") == 0) kernelLine = n;
    if (r.source.find('\n', p) == std::string::npos) break;
  }
  ASSERT_NE(helperLine, 0u);
  std::string log = "<kernel>:" + std::to_string(helperLine) + ":6: error: boom\n<kernel>:" +
                    std::to_string(kernelLine) + ":13: warning: bang\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            dir + "/sub/inner.h:3:6: error: boom\n<kernel>:3:13: warning: bang\n");
  ASSERT_EQ(r.diskFiles.size(), 3u);
}

// Issue 13.1: the cache must notice that a header read from disk changed.
TEST(DiskHeaders, CacheFollowsTheHeadersItRead) {
  const std::string dir = tempDir("isg_rw_cache");
  const std::string src =
      "#include \"sg.h\"\n"
      "__attribute__((intel_reqd_sub_group_size(SG)))\n"
      "kernel void k(global uint* o) { o[0] = intel_sub_group_shuffle(o[0], 1u); }\n";
  writeFile(dir + "/sg.h", "#define SG 16\n");
  auto first = rewrite(src, "-I " + dir);
  EXPECT_REWRITTEN(first);
  EXPECT_EQ(kernel(first, "k")->subGroupSize, 16u);
  writeFile(dir + "/sg.h", "#define SG 8\n");
  auto second = rewrite(src, "-I " + dir);
  EXPECT_REWRITTEN(second);
  EXPECT_EQ(kernel(second, "k")->subGroupSize, 8u);
  auto third = rewrite(src, "-I " + dir);  // now cached with the new text
  EXPECT_EQ(kernel(third, "k")->subGroupSize, 8u);
}

TEST(Rewrite, PragmaLinesAreBlanked) {
  std::string src =
      "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\r\n"
      "  #  pragma OPENCL EXTENSION cl_intel_required_subgroup_size: enable\n"
      "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
      "kernel void k(global uint* o) { o[0] = get_sub_group_size(); }\n";
  auto r = rewrite(src);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "\r\n"
            "\n"
            "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
            "kernel void k(global uint* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 0, 0, 0, 0)  o[0] = get_sub_group_size(); }\n");
}

TEST(Rewrite, GnuAsmParses) {
  auto r = rewrite(
      "kernel void k(global uint* o) {\n"
      "  uint v = get_sub_group_local_id();\n"
      "  asm volatile(\"mov.u32 %0, %0;\" : \"+r\"(v));\n"
      "  o[0] = v;\n"
      "}\n");
  EXPECT_REWRITTEN(r);
}

TEST(Rewrite, LineCountPreserved) {
  std::string src =
      "// a comment\n"
      "float h(float v)\n{\n  return intel_sub_group_shuffle_up(v, v, 1u);\n}\n\n"
      "kernel void\nk(global float* o,\n  int n)\n{\n  o[n] = h(o[n]);\n}\n";
  auto r = rewrite(src);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(lines(userPart(r)), lines(src));
  ASSERT_EQ(r.lineMap.size(), 1u);
  EXPECT_EQ(r.lineMap[0].originalFirst, 1u);
  EXPECT_EQ(lines(r.source), r.lineMap[0].rewrittenFirst - 1 + lines(src));
}

TEST(Rewrite, OtherStrategiesHaveNoHiddenArguments) {
  auto t = localTraits();
  t.strategy = isg::Strategy::NvidiaPtx;
  t.supportedSubGroupSizes = {8, 16, 32};
  auto r = rewrite("kernel void k(global uint* o) { o[0] = intel_sub_group_shuffle(o[0], 1u); }\n",
                   "", {}, t);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "kernel void k(global uint* o) {__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)  o[0] = "
            "intel_sub_group_shuffle(o[0], 1u); }\n");
  EXPECT_TRUE(r.kernels[0].hiddenArgs.empty());
}

TEST(Rewrite, KernelWithoutParameters) {
  auto r = rewrite("kernel void a(void) { sub_group_barrier(CLK_LOCAL_MEM_FENCE); }\n"
                   "kernel void b() { sub_group_barrier(CLK_LOCAL_MEM_FENCE); }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "kernel void a(__local ulong16* __isg_scratch) {__ISG_KERNEL_PROLOGUE(16, 0, 0, 0, 0)  "
            "sub_group_barrier(CLK_LOCAL_MEM_FENCE); }\n"
            "kernel void b(__local ulong16* __isg_scratch) {__ISG_KERNEL_PROLOGUE(16, 0, 0, 0, 0)  "
            "sub_group_barrier(CLK_LOCAL_MEM_FENCE); }\n");
  EXPECT_EQ(r.kernels[0].hiddenArgs[0].index, 0u);
}

TEST(Rewrite, BlockReadsAndHalfWhenSupported) {
  auto t = localTraits();
  t.fp16 = true;
  auto r = rewrite(
      "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
      "kernel void k(global uint* p, global half* h, read_only image2d_t img) {\n"
      "  uint4 v = intel_sub_group_block_read4(p) + intel_sub_group_block_read4(img, (int2)(0, 0));\n"
      "  intel_sub_group_block_write4(p, v);\n"
      "  h[0] = intel_sub_group_shuffle(h[0], 1u);\n"
      "}\n",
      "", {}, t);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(kernel(r, "k")->families, (std::vector<std::string>{"shuffle", "block"}));
  EXPECT_EQ(kernel(r, "k")->scratchBytesPerItem, 4u);  // 2-byte half, at least 4
  // Without fp16 the same program does not resolve.
  auto e = rewrite(
      "kernel void k(global half* h) { h[0] = intel_sub_group_shuffle(h[0], 1u); }\n");
  EXPECT_EQ(e.status, Status::Error);
}

// The image overloads the rewriter declares are exactly those the library defines: block reads
// from read_only and read_write images, block writes to write_only and read_write ones.
TEST(Rewrite, BlockImageAccessQualifiers) {
  auto ok = rewrite(
      "kernel void k(read_only image2d_t r, write_only image2d_t w, image2d_t plain) {\n"
      "  ushort4 v = intel_sub_group_block_read_us4(r, (int2)(0, 0));\n"
      "  v += intel_sub_group_block_read_us4(plain, (int2)(0, 0));\n"
      "  intel_sub_group_block_write_us4(w, (int2)(0, 0), v);\n"
      "}\n");
  EXPECT_REWRITTEN(ok);
  EXPECT_EQ(kernel(ok, "k")->families, (std::vector<std::string>{"block"}));
  EXPECT_EQ(kernel(ok, "k")->scratchBytesPerItem, 0u);

  auto rw = rewrite(
      "kernel void k(read_write image2d_t img) {\n"
      "  intel_sub_group_block_write_ul2(img, (int2)(0, 0), intel_sub_group_block_read_ul2(img, "
      "(int2)(0, 1)));\n"
      "}\n",
      "-cl-std=CL2.0");
  EXPECT_REWRITTEN(rw);

  auto readFromWriteOnly = rewrite(
      "kernel void k(write_only image2d_t w, global uchar* o) {\n"
      "  o[0] = intel_sub_group_block_read_uc(w, (int2)(0, 0));\n"
      "}\n");
  EXPECT_REWRITE_ERROR(readFromWriteOnly, "<source>:2:10: error: no matching function for call to "
                                          "'intel_sub_group_block_read_uc'");

  auto writeToReadOnly = rewrite(
      "kernel void k(read_only image2d_t r) {\n"
      "  intel_sub_group_block_write(r, (int2)(0, 0), 1u);\n"
      "}\n");
  EXPECT_REWRITE_ERROR(writeToReadOnly, "<source>:2:3: error: no matching function for call to "
                                        "'intel_sub_group_block_write'");
}

// cl_intel_subgroups_short/_char/_long: the 8/16-bit collectives and shuffles and the _us/_uc/_ul
// block functions resolve, and a name with rows in several extensions gets one prelude macro.
TEST(Rewrite, ShortCharLongBuiltins) {
  auto r = rewrite(
      "kernel void k(global ushort* p, global char16* c, global short* s, global ulong* l,\n"
      "              global uchar* u) {\n"
      "  s[0] = intel_sub_group_reduce_add(s[0]) + intel_sub_group_scan_inclusive_max(s[1]);\n"
      "  u[0] = intel_sub_group_broadcast(u[0], 1u);\n"
      "  c[0] = intel_sub_group_shuffle_down(c[0], c[1], 1u);\n"
      "  intel_sub_group_block_write_us16(p, intel_sub_group_block_read_us16(p));\n"
      "  intel_sub_group_block_write_uc8(u, intel_sub_group_block_read_uc8(u));\n"
      "  intel_sub_group_block_write_ul8(l, intel_sub_group_block_read_ul8(l));\n"
      "  global uint* q = (global uint*)p;\n"
      "  intel_sub_group_block_write_ui2(q, intel_sub_group_block_read_ui2(q));\n"
      "}\n");
  EXPECT_REWRITTEN(r);
  // In table order of each name's first row: the shuffles' is in cl_intel_subgroups.
  EXPECT_EQ(kernel(r, "k")->families,
            (std::vector<std::string>{"shuffle", "broadcast", "reduce", "scan", "block"}));
  EXPECT_EQ(kernel(r, "k")->scratchBytesPerItem, 16u);  // char16 current + next, in chunks
  const std::string macro = "#define intel_sub_group_shuffle_down(__isg_a, __isg_b, __isg_c) ";
  const std::size_t first = r.source.find(macro);
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(r.source.find(macro, first + 1), std::string::npos);
  // The specs add no vector forms of the intel_-prefixed collectives.
  auto e = rewrite(
      "kernel void k(global short2* s) { s[0] = intel_sub_group_reduce_add(s[0]); }\n");
  EXPECT_EQ(e.status, Status::Error);
}

TEST(Rewrite, KernelPrototypeGetsTheHiddenArgumentToo) {
  auto r = rewrite(
      "kernel void k(global int* o);\n"
      "kernel void k(global int* o) { o[0] = sub_group_all(o[0]); }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(userPart(r),
            "kernel void k(global int* o, __local ulong16* __isg_scratch);\n"
            "kernel void k(global int* o, __local ulong16* __isg_scratch) {"
            "__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)  o[0] = sub_group_all(o[0]); }\n");
}

TEST(Rewrite, OpenCL30WithDoubles) {
  auto t = localTraits();
  t.fp64 = true;
  const std::string src =
      "kernel void k(global double* o, read_write image2d_t img, global uint* p) {\n"
      "  o[0] = sub_group_reduce_add(o[0]) + intel_sub_group_shuffle(o[1], 2u);\n"
      "  p[0] = intel_sub_group_block_read2(img, (int2)(0, 0)).x;\n"
      "  sub_group_barrier(CLK_LOCAL_MEM_FENCE, memory_scope_sub_group);\n"
      "}\n";
  auto r = rewrite(src, "-cl-std=CL3.0", {}, t);
  EXPECT_REWRITTEN(r);
  EXPECT_EQ(r.kernels[0].scratchBytesPerItem, 8u);
  EXPECT_EQ(r.kernels[0].families,
            (std::vector<std::string>{"barrier", "reduce", "shuffle", "block"}));
  t.fp64 = false;  // a device without doubles: the driver would refuse it as well
  EXPECT_EQ(rewrite(src, "-cl-std=CL3.0", {}, t).status, Status::Error);
}

TEST(Rewrite, ConcurrentCallers) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 4; ++i) {
        std::string src = "kernel void k" + std::to_string(t * 10 + i) +
                          "(global int* o) { o[0] = sub_group_broadcast(o[0], 1u); }\n";
        auto r = rewrite(src);
        if (r.status != Status::Rewritten || r.kernels.size() != 1 ||
            r.kernels[0].name != "k" + std::to_string(t * 10 + i))
          ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

// ---- manifest ------------------------------------------------------------------------------

TEST(Manifest, ScratchBytesAndArguments) {
  auto r = rewrite(
      "kernel void u(global uint* a, global uint* b, int n) { a[0] = intel_sub_group_shuffle(b[n], 1u); }\n"
      "kernel void f4(global float4* a) { a[0] = intel_sub_group_shuffle_down(a[0], a[1], 1u); }\n"
      "kernel void f3(global float3* a) { a[0] = intel_sub_group_shuffle(a[0], 1u); }\n"
      "kernel void v(global int* a) { a[0] = sub_group_any(a[0]); }\n");
  EXPECT_REWRITTEN(r);
  const auto* u = kernel(r, "u");
  EXPECT_EQ(u->scratchBytesPerItem, 4u);
  EXPECT_EQ(u->numUserArgs, 3u);
  ASSERT_EQ(u->hiddenArgs.size(), 1u);
  EXPECT_EQ(u->hiddenArgs[0].kind, isg::HiddenArg::Kind::LocalScratch);
  EXPECT_EQ(u->hiddenArgs[0].index, 3u);
  // shuffle_down hands over two values, 16 bytes per work-item at a time: a float4 pair moves
  // in two exchanges, so 1,024 work-items need 32 KiB of local memory, not 64 KiB.
  EXPECT_EQ(kernel(r, "f4")->scratchBytesPerItem, 16u);
  EXPECT_EQ(kernel(r, "f3")->scratchBytesPerItem, 16u);  // vec3 is sized as vec4
  // Wider values go 16 bytes per exchange: a float16 shuffle_down's slot is that of a float4's.
  // A long pair (8 + 8 bytes) still moves in one.
  auto w = rewrite(
      "kernel void f16(global float16* a) { a[0] = intel_sub_group_shuffle_down(a[0], a[1], 1u); }\n"
      "kernel void l8(global long* a) { a[0] = intel_sub_group_shuffle(a[0], 1u); }\n");
  EXPECT_REWRITTEN(w);
  EXPECT_EQ(kernel(w, "f16")->scratchBytesPerItem, 16u);
  EXPECT_EQ(kernel(w, "l8")->scratchBytesPerItem, 8u);
  EXPECT_EQ(kernel(r, "v")->scratchBytesPerItem, 4u);
  EXPECT_EQ(kernel(r, "v")->families, std::vector<std::string>{"vote"});
}

// A required work-group size that is a multiple of S makes every sub-group whole, but only
// where every work-group has that size: OpenCL C 2.0 and later allow a smaller last
// work-group unless the program is built with -cl-uniform-work-group-size.
TEST(Rewrite, WholeSubGroupsOnlyWhereEveryWorkGroupHasTheRequiredSize) {
  const std::string src =
      "__attribute__((intel_reqd_sub_group_size(16))) __attribute__((reqd_work_group_size(8, 4, 1)))\n"
      "kernel void whole(global int* o) { o[0] = sub_group_reduce_add(o[0]); }\n"
      "__attribute__((intel_reqd_sub_group_size(16))) __attribute__((reqd_work_group_size(24, 1, 1)))\n"
      "kernel void partial(global int* o) { o[0] = sub_group_reduce_add(o[0]); }\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void unknown(global int* o) { o[0] = sub_group_reduce_add(o[0]); }\n";
  struct Case {
    const char* options;
    bool whole;
  } cases[] = {{"", true},
               {"-cl-std=CL1.2", true},
               {"-cl-std=CL2.0", false},
               {"-cl-std=CL3.0", false},
               {"-cl-std=CL2.0 -cl-uniform-work-group-size", true}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.options);
    auto r = rewrite(src, c.options);
    EXPECT_REWRITTEN(r);
    EXPECT_EQ(kernel(r, "whole")->wholeSubGroups, c.whole);
    EXPECT_FALSE(kernel(r, "partial")->wholeSubGroups);
    EXPECT_FALSE(kernel(r, "unknown")->wholeSubGroups);
    auto count = [&](const std::string& what) {
      std::size_t n = 0;
      for (std::size_t at = r.source.find(what); at != std::string::npos; at = r.source.find(what, at + 1)) ++n;
      return n;
    };
    EXPECT_EQ(count("__ISG_KERNEL_PROLOGUE(16, 4, 8, 4, 1)"), c.whole ? 1u : 0u);
    EXPECT_EQ(count("__ISG_KERNEL_PROLOGUE(16, 4, 0, 0, 0)"), c.whole ? 2u : 3u);
  }
}

TEST(Manifest, Json) {
  auto r = rewrite(
      "__attribute__((reqd_work_group_size(32, 1, 1)))\n"
      "kernel void k(global uint* a) { a[0] = intel_sub_group_shuffle(a[0], 1u); }\n");
  EXPECT_REWRITTEN(r);
  std::string json = isg::manifestToJson(r);
  std::string first = std::to_string(r.lineMap[0].rewrittenFirst);
  EXPECT_EQ(json,
            "{\n"
            "  \"status\": \"rewritten\",\n"
            "  \"kernels\": [\n"
            "    {\n"
            "      \"name\": \"k\",\n"
            "      \"subGroupSize\": 16,\n"
            "      \"requiredSubGroupSize\": false,\n"
            "      \"families\": [\"shuffle\"],\n"
            "      \"scratchBytesPerItem\": 4,\n"
            "      \"numUserArgs\": 1,\n"
            "      \"hiddenArgs\": [{\"kind\": \"local-scratch\", \"index\": 1}],\n"
            "      \"reqdWorkGroupSize\": [32, 1, 1],\n"
            "      \"wholeSubGroups\": true,\n"
            "      \"blockImageArgs\": [],\n"
            "      \"mixedImageArgs\": [],\n"
            "      \"shapeDependentResult\": false\n"
            "    }\n"
            "  ],\n"
            "  \"lineMap\": [\n"
            "    {\"rewrittenFile\": \"<source>\", \"rewrittenFirst\": " + first +
                ", \"count\": 3, \"originalFile\": \"<source>\", \"originalFirst\": 1}\n"
            "  ],\n"
            "  \"log\": \"\"\n"
            "}\n");
  EXPECT_EQ(isg::manifestToJson(RewriteResult{}),
            "{\n  \"status\": \"pass-through\",\n  \"kernels\": [],\n  \"lineMap\": [],\n"
            "  \"log\": \"\"\n}\n");
}

// ---- errors --------------------------------------------------------------------------------

TEST(Errors, UnsupportedSubGroupSize) {
  auto r = rewrite(
      "\n"
      "__attribute__((intel_reqd_sub_group_size(4)))\n"
      "kernel void k(global uint* o) { o[0] = get_sub_group_local_id(); }\n");
  ASSERT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.log,
            "<source>:3:13: error: kernel 'k' needs sub-group size 4, which this device does not "
            "support (supported sizes: 8, 16, 32)\n");
}

TEST(Errors, SyntaxErrorPointsAtUserLine) {
  auto r = rewrite(
      "// line 1\n"
      "kernel void k(global uint* o) {\n"
      "  o[0] = intel_sub_group_shuffle(o[0] 1u);\n"
      "}\n");
  ASSERT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.log.rfind("<source>:3:39: error: expected ')'\n", 0), 0u) << r.log;
  EXPECT_EQ(r.source, "");
}

TEST(Errors, ShuffleOfStruct) {
  auto r = rewrite(
      "struct S { int a; };\n"
      "kernel void k(global struct S* o) { o[0] = intel_sub_group_shuffle(o[0], 1u); }\n");
  EXPECT_REWRITE_ERROR(r, "<source>:2:44: error: no matching function for call to "
                          "'intel_sub_group_shuffle'");
  // The candidate list points into the rewriter's own declarations; users need none of it.
  EXPECT_EQ(r.log.find("candidate"), std::string::npos) << r.log;
}

// cl_intel_media_block_io: "The width and height of the region must be compile-time
// constants", from Table 6.X (4 to 32 bytes, 4-byte aligned; 64/32/16/8 rows at most). Constants
// may come from macros, -D options and constant expressions, as real code writes them.
isg::DeviceTraits imageTraits() {
  isg::DeviceTraits t = localTraits();
  t.images = true;
  return t;
}

TEST(Media, ConstantRegionsFromMacrosOptionsAndExpressionsRewrite) {
  auto r = rewrite(
      "#define ROWS 8\n"
      "#define MEDIA_READ(T, w, h, img) intel_sub_group_media_block_read_##T((int2)(0, 0), w, h, img)\n"
      "ushort4 helper(read_only image2d_t img) { return MEDIA_READ(us4, 2 * COLS, ROWS, img); }\n"
      "kernel void k(read_only image2d_t src, write_only image2d_t dst) {\n"
      "  ushort4 v = helper(src);\n"
      "  intel_sub_group_media_block_write_us4((int2)(0, 0), 16, 2, v, dst);\n"
      "  uint x = intel_sub_group_media_block_read_ui((int2)(4, 0), 1, 64, src);\n"
      "  uchar16 y = intel_sub_group_media_block_read_uc16((int2)(0, 0), sizeof(uint) * 8, 8, src);\n"
      "}\n",
      "-DCOLS=8", {}, imageTraits());
  EXPECT_REWRITTEN(r);
  const auto* k = kernel(r, "k");
  ASSERT_NE(k, nullptr);
  EXPECT_EQ(k->families, std::vector<std::string>{"media"});
  // Both image parameters: the layer checks their formats at clSetKernelArg as for block IO.
  EXPECT_EQ(k->blockImageArgs, (std::vector<unsigned>{0, 1}));
}

// "Compile-time constant" as a compiler sees it: Intel's conformance suite writes
// `int bwidth = BLOCK_WIDTH;` and passes the variable. Values the parse can fold are checked
// against the table; values it cannot (a kernel argument) go to the library's run-time path.
TEST(Media, RegionsACompilerFoldsAreCheckedAndOthersRunAsGiven) {
  auto ok = rewrite(
      "#define BLOCK_WIDTH 12\n"
      "kernel void k(read_only image2d_t src, int n, global uint* o) {\n"
      "  int bwidth = BLOCK_WIDTH;\n"
      "  const int bheight = 4 * 4;\n"
      "  int changed = 36;\n"
      "  changed -= 32;\n"
      "  o[0] = intel_sub_group_media_block_read_ui((int2)(0, 0), bwidth / 4, bheight, src);\n"
      "  o[1] = intel_sub_group_media_block_read_ui((int2)(0, 0), n, 2, src);\n"
      "  o[2] = intel_sub_group_media_block_read_ui((int2)(0, 0), 2, n, src);\n"
      "  o[3] = intel_sub_group_media_block_read_uc((int2)(0, 0), changed, 2, src);\n"
      "}\n",
      "", {}, imageTraits());
  EXPECT_REWRITTEN(ok);
  auto bad = rewrite(
      "kernel void k(read_only image2d_t src, global uint* o) {\n"
      "  int bwidth = 36;\n"
      "  o[0] = intel_sub_group_media_block_read_uc((int2)(0, 0), bwidth, 2, src);\n"
      "}\n",
      "", {}, imageTraits());
  EXPECT_REWRITE_ERROR(bad, "<source>:3:60: error: intel_sub_group_media_block_read_uc: a width "
                            "of 36 bytes is not allowed");
}

TEST(Media, RegionsOutsideTheSpecFailAtTheUsersCall) {
  auto r = rewrite(
      "kernel void k(read_only image2d_t src, int n, global uint* o) {\n"
      "  o[0] = n;\n"
      "  o[1] = n;\n"
      "  o[2] = intel_sub_group_media_block_read_us((int2)(0, 0), 3, 2, src);\n"
      "  o[3] = intel_sub_group_media_block_read_uc((int2)(0, 0), 36, 2, src);\n"
      "  o[4] = intel_sub_group_media_block_read_uc((int2)(0, 0), 8, 33, src);\n"
      "  o[5] = intel_sub_group_media_block_read_ui((int2)(0, 0), 8, 0, src);\n"
      "  o[6] = intel_sub_group_media_block_read_ui((int2)(0, 0), 0, 1, src);\n"
      "}\n",
      "", {}, imageTraits());
  ASSERT_EQ(r.status, Status::Error);
  EXPECT_EQ(r.log,
            "<source>:4:60: error: intel_sub_group_media_block_read_us: a width of 3 words (6 bytes) "
            "is not allowed: the width must be 4 to 32 bytes and a multiple of 4 "
            "(cl_intel_media_block_io)\n"
            "<source>:5:60: error: intel_sub_group_media_block_read_uc: a width of 36 bytes is not "
            "allowed: the width must be 4 to 32 bytes and a multiple of 4 "
            "(cl_intel_media_block_io)\n"
            "<source>:6:63: error: intel_sub_group_media_block_read_uc: a height of 33 rows is not "
            "allowed for a width of 8 bytes: the height must be 1 to 32 (cl_intel_media_block_io, "
            "Table 6.X)\n"
            "<source>:7:63: error: intel_sub_group_media_block_read_ui: a height of 0 rows is not "
            "allowed for a width of 32 bytes: the height must be 1 to 8 (cl_intel_media_block_io, "
            "Table 6.X)\n"
            "<source>:8:60: error: intel_sub_group_media_block_read_ui: a width of 0 dwords (0 "
            "bytes) is not allowed: the width must be 4 to 32 bytes and a multiple of 4 "
            "(cl_intel_media_block_io)\n");
  EXPECT_EQ(r.source, "");
}

TEST(Media, EveryWidthOfTheTableAtItsTallestRegion) {
  std::string src = "kernel void k(read_only image2d_t s, write_only image2d_t d) {\n";
  for (unsigned wb = 4; wb <= 32; wb += 4) {
    const std::string h = std::to_string(isg::table::mediaMaxHeight(wb));
    src += "  intel_sub_group_media_block_write_uc16((int2)(0, 0), " + std::to_string(wb) + ", " +
           h + ", intel_sub_group_media_block_read_uc16((int2)(0, 0), " + std::to_string(wb) +
           ", " + h + ", s), d);\n";
    src += "  intel_sub_group_media_block_read_uc((int2)(0, 0), " + std::to_string(wb) + ", " +
           std::to_string(isg::table::mediaMaxHeight(wb) + 1) + ", s);\n";
  }
  auto r = rewrite(src + "}\n", "", {}, imageTraits());
  ASSERT_EQ(r.status, Status::Error);
  // One error per width, each for the read one row taller than the table allows.
  size_t errors = 0;
  for (size_t at = r.log.find("error:"); at != std::string::npos; at = r.log.find("error:", at + 1))
    ++errors;
  EXPECT_EQ(errors, 8u) << r.log;
  EXPECT_EQ(r.log.find("read_uc16"), std::string::npos) << r.log;
}

TEST(Errors, ErrorInHeaderNamesTheHeader) {
  auto r = rewrite("#include \"a.h\"\nkernel void k(global uint* o) { o[0] = lane(); }\n", "",
                   {{"a.h", "uint lane(void) { return get_sub_group_local_id() }\n"}});
  EXPECT_REWRITE_ERROR(r, "a.h:1:50: error: expected ';'");
  EXPECT_NE(r.log.find("In file included from <source>:1:"), std::string::npos) << r.log;
}

// ---- build logs ----------------------------------------------------------------------------

class BuildLog : public ::testing::Test {
 protected:
  void SetUp() override {
    r = rewrite("kernel void k(global uint* o) {\n  o[0] = intel_sub_group_shuffle(o[0], 1u);\n}\n");
    ASSERT_EQ(r.status, Status::Rewritten) << r.log;
    first = r.lineMap[0].rewrittenFirst;
  }
  std::string at(unsigned userLine) { return std::to_string(first + userLine - 1); }
  RewriteResult r;
  unsigned first = 0;
};

TEST_F(BuildLog, PoclStyle) {
  std::string log =
      "<stdin>:5:10: warning: unused variable 'x' [-Wunused-variable]\n"
      "  uint x;\n"
      "       ^\n"
      "<stdin>:6:3: note: expanded from here\n"
      "<stdin>:" + at(2) + ":8: warning: implicit conversion [-Wconversion]\n"
      "  o[0] = intel_sub_group_shuffle(o[0], 1u);\n"
      "       ^\n"
      "<stdin>:3:1: note: expanded from macro 'intel_sub_group_shuffle'\n"
      "<stdin>:7:2: error: something broke in the library\n"
      "2 warnings and 1 error generated.\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            "<stdin>:2:8: warning: implicit conversion [-Wconversion]\n"
            "  o[0] = intel_sub_group_shuffle(o[0], 1u);\n"
            "       ^\n"
            "<isg-builtins>:3:1: note: expanded from macro 'intel_sub_group_shuffle'\n"
            "<isg-builtins>:7:2: error: something broke in the library\n"
            "2 warnings and 1 error generated.\n");
}

// A token pasted in the application's own macro: clang names its scratch space, whose line
// numbers count the pasted text. It stays clang's, not the layer's library (issue 66.3: OpenVINO's
// macros were reported as <isg-builtins>), and the expansion notes still lead to the user's lines.
TEST_F(BuildLog, CompilerPseudoFilesKeepTheirNames) {
  std::string log =
      "<stdin>:" + at(2) + ":8: error: use of undeclared identifier 'CAT_x'\n"
      "<scratch space>:3:1: note: expanded from here\n"
      "<built-in>:2:9: note: previous definition is here\n"
      "<command line>:1:9: warning: macro redefined\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            "<stdin>:2:8: error: use of undeclared identifier 'CAT_x'\n"
            "<scratch space>:3:1: note: expanded from here\n"
            "<built-in>:2:9: note: previous definition is here\n"
            "<command line>:1:9: warning: macro redefined\n");
}

TEST_F(BuildLog, PoclSeverityFirst) {
  // What PoCL 3.1 writes for the kernel-cache copy of the program.
  std::string log =
      "warning: /root/.cache/pocl/kcache/tempfile_Wio0ng.cl:" + at(3) + ":6: expression result unused\n"
      "warning: /root/.cache/pocl/kcache/tempfile_Wio0ng.cl:40:6: unused in the library\n"
      "error: /root/.cache/pocl/kcache/tempfile_Wio0ng.cl:41:2: broken library\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            "warning: /root/.cache/pocl/kcache/tempfile_Wio0ng.cl:3:6: expression result unused\n"
            "error: <isg-builtins>:41:2: broken library\n");
}

// A warning inside a builtin's macro expansion (an int* passed to a block read): PoCL writes the
// expansion's location and clang's spelling beside it; both name the user's line (issue 32.7).
TEST_F(BuildLog, SpellingInsideAMacroExpansionIsMappedToo) {
  std::string log = "warning: /k/tempfile_x.cl:" + at(2) + ":12 <Spelling=/k/tempfile_x.cl:" +
                    at(2) + ":39>: passing '__global int *' converts between pointers\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            "warning: /k/tempfile_x.cl:2:12 <Spelling=/k/tempfile_x.cl:2:39>: passing '__global "
            "int *' converts between pointers\n");
}

TEST_F(BuildLog, NvidiaStyle) {
  std::string log =
      "<kernel>:" + at(2) + ":39: error: use of undeclared identifier 'y'\n"
      "<kernel>:" + at(3) + ": warning: something\n"
      "<kernel>:12:1: warning: in the prelude\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            "<kernel>:2:39: error: use of undeclared identifier 'y'\n"
            "<kernel>:3: warning: something\n");
}

TEST_F(BuildLog, HeadersAndIncludeChainsKeepTheirLines) {
  std::string log =
      "In file included from <kernel>:" + at(1) + ":\n"
      "inc/a.h:4:2: error: bad\n";
  EXPECT_EQ(isg::mapBuildLog(log, r),
            "In file included from <kernel>:1:\n"
            "inc/a.h:4:2: error: bad\n");
  EXPECT_EQ(isg::mapBuildLog(log, RewriteResult{}), log);  // pass-through: nothing moved
}

// ---- misc ----------------------------------------------------------------------------------

TEST(Misc, Strategies) {
  for (auto s : {isg::Strategy::Native, isg::Strategy::NvidiaPtx, isg::Strategy::Khr,
                 isg::Strategy::Local}) {
    isg::Strategy parsed{};
    ASSERT_TRUE(isg::parseStrategy(isg::strategyName(s), &parsed));
    EXPECT_EQ(parsed, s);
  }
  isg::Strategy unused{};
  EXPECT_FALSE(isg::parseStrategy("cuda", &unused));
  EXPECT_EQ(isg::extensionMacroOptions(localTraits()),
            "-D cl_intel_subgroups=1 -D cl_intel_required_subgroup_size=1 "
            "-D cl_intel_subgroups_short=1 -D cl_intel_subgroups_char=1 "
            "-D cl_intel_subgroups_long=1");
}

TEST(Misc, CachedResultIsIdentical) {
  std::string src = "kernel void k(global int* o) { o[0] = sub_group_reduce_max(o[1]); }\n";
  auto a = rewrite(src);
  auto b = rewrite(src);
  EXPECT_REWRITTEN(a);
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(isg::manifestToJson(a), isg::manifestToJson(b));
}

TEST(Misc, HostileInputsDoNotCrash) {
  std::string deep(5000, '(');
  for (const std::string& src :
       {std::string("kernel void k() { int x = ") + deep + "get_sub_group_id(); }",
        std::string("#include \"/nonexistent/x.h\"\nkernel void k() { get_sub_group_id(); }"),
        std::string("#include \"self.cl\"\nsub_group_reduce_add"),
        std::string("\0intel_sub_group_shuffle\xff\xfe", 26)}) {
    auto r = rewrite(src);
    EXPECT_EQ(r.status, Status::Error);
    EXPECT_FALSE(r.log.empty());
  }
}

}  // namespace

// ---- regressions found by the fuzzer (tests/fuzz/corpus 15-17) -------------------------------

namespace {

TEST(FuzzRegression, HugeLineNumberInDriverLogIsNotALocation) {
  RewriteResult r = rewrite("kernel void k(global uint* o) { o[0] = get_sub_group_local_id(); }\n");
  EXPECT_REWRITTEN(r);
  // Before the fix std::stoul threw here and terminated the application.
  const std::string mapped = isg::mapBuildLog("<source>:99999999999999999999:1: error: x\n", r);
  EXPECT_NE(mapped.find("error: x"), std::string::npos) << mapped;
  EXPECT_EQ(mapped.find("<source>:1:"), std::string::npos) << "not a user line: " << mapped;
}

TEST(FuzzRegression, HelperNamedByAMacroInsideAnotherMacrosArgument) {
  // clDNN style: FUNC_CALL(name) builds the helper's name inside another macro's argument.
  RewriteResult r = rewrite(
      "#define FUNC(n) n##_impl\n#define FUNC_CALL(n) n##_impl\n#define SUM(x) (1 + (x))\n"
      "uint FUNC(row_sum)(uint v) { return intel_sub_group_shuffle(v, 0u); }\n"
      "kernel void k(global uint* o) { o[0] = SUM(FUNC_CALL(row_sum)(o[0])); }\n");
  EXPECT_REWRITTEN(r);
  EXPECT_NE(userPart(r).find("row_sum)(__isg_ctx, o[0])"), std::string::npos) << userPart(r);
}

TEST(FuzzRegression, TypoCorrectionIntoABuiltinIsAnErrorNotACrash) {
  // Clang 15 crashed here when spell checking turned the undeclared name into the overloaded
  // builtin; the rewriter parses without spell checking.
  RewriteResult r = rewrite(
      "void inner(uint x) {}\n"
      "kernel void k(global uint* o) { inner(pintel_sub_group_shuffle_up); }\n");
  EXPECT_EQ(r.status, Status::Error);
  EXPECT_NE(r.log.find("<source>:2:"), std::string::npos) << r.log;
}

TEST(FuzzRegression, RedeclaredArraySizedByABadBuiltinCallIsAnErrorNotACrash) {
  // Clang 15 crashed merging the two declarations when it kept a recovery expression for the
  // builtin called with the wrong arguments (first at file scope, then in a kernel); the
  // rewriter parses without recovery expressions.
  for (const char* scope : {"", "kernel void k(global uint* o) { o[0] = intel_sub_group_shuffle(o[0], 0u);\n"}) {
    const bool inKernel = *scope != '\0';
    RewriteResult r = rewrite(std::string(scope) +
                              "int a[get_global_id()];\nint a[get_local_id(0, 1)];\n" +
                              (inKernel ? "}\n" : "kernel void k(global uint* o) { o[0] = intel_sub_group_shuffle(o[0], 0u); }\n"));
    EXPECT_EQ(r.status, Status::Error) << scope;
    EXPECT_NE(r.log.find(inKernel ? "<source>:2:" : "<source>:1:"), std::string::npos) << r.log;
  }
}

TEST(FuzzRegression, AsTypeOfAnOverloadedNameIsAnErrorNotACrash) {
  // Clang 15 crashes in BuildAsTypeExpr on an overload set (`as_float(max)`; the fuzzer found
  // it through a macro spelling a builtin without its call); the parse's as_type macros make
  // the operand an rvalue first. Valid as_type operands keep their meaning.
  RewriteResult r = rewrite(
      "#define BLOCK_READ(p) as_float(intel_sub_group_block_read)\n"
      "kernel void k(global float* o) { float v = BLOCK_READ(o); o[0] = v + as_float(max); }\n");
  EXPECT_EQ(r.status, Status::Error);
  EXPECT_NE(r.log.find("<source>:2:"), std::string::npos) << r.log;
  RewriteResult fine = rewrite(
      "kernel void k(global uint* o, global const char* c) {\n"
      "  float4 f = as_float4(vload4(0, o));\n"
      "  o[0] = as_uint(intel_sub_group_shuffle(f.x, 1u)) + as_uint(as_char4(o[1])) + as_uint((uchar4)(c[0], 1, 2, 3));\n"
      "}\n", "-cl-std=CL2.0 -Werror");
  EXPECT_REWRITTEN(fine);
}

}  // namespace

namespace {

// Issue 49.3: the rows rule on every strategy. reqd_work_group_size(8, 4, 1) without
// intel_reqd_sub_group_size makes S = 8 on local, nvidia-ptx and khr (Intel's CPU runtime gives
// such a kernel sub-groups of 8, one per row); without reqd_work_group_size, S follows the
// launch where the strategy's library takes a run-time S (local, nvidia-ptx) and is the default
// on khr, whose clustered reductions need a constant.
TEST(Rewrite, SubGroupSizeFromTheRowsOnEveryStrategy) {
  const std::string source =
      "__attribute__((reqd_work_group_size(8, 4, 1)))\n"
      "kernel void gemm(global float* o) { o[get_global_id(0)] = intel_sub_group_shuffle(o[0], 1); }\n"
      "kernel void free_shape(global float* o) { o[get_global_id(0)] = intel_sub_group_shuffle(o[0], 1); }\n";
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx, isg::Strategy::Khr}) {
    isg::DeviceTraits t = strategyTraits(s, 32);
    t.subGroupSizeFromLaunch = true;
    const RewriteResult r = rewrite(source, "", {}, t);
    EXPECT_REWRITTEN(r);
    const isg::KernelManifest* gemm = kernel(r, "gemm");
    const isg::KernelManifest* free = kernel(r, "free_shape");
    ASSERT_TRUE(gemm && free) << isg::strategyName(s);
    EXPECT_EQ(gemm->subGroupSize, 8u) << isg::strategyName(s);
    EXPECT_FALSE(gemm->launchSubGroupSize) << isg::strategyName(s);
    EXPECT_EQ(free->subGroupSize, t.defaultSubGroupSize) << isg::strategyName(s);
    EXPECT_EQ(free->launchSubGroupSize, s != isg::Strategy::Khr) << isg::strategyName(s);
  }
}

}  // namespace

namespace {

// Issue 49 (predication.h): in kernels, exchanges under control flow that only some work-items
// take are run by every work-item, the statements around them under a flag; every user line
// stays where it was. What the rewrite cannot express keeps its flow and warns at the line.
TEST(Rewrite, ExchangesInDivergentFlowAreTakenOutOfTheirStatements) {
  const std::string source =
      "kernel void k(global int* out, global const int* in, int n) {\n"
      "  const uint l = get_sub_group_local_id();\n"
      "  const int v = in[get_global_id(0)];\n"
      "  if ((int)get_global_id(0) >= n) return;\n"
      "  int r = 0;\n"
      "  if (l < 5u) {\n"
      "    r = intel_sub_group_shuffle(v, 7u) +\n"
      "        sub_group_reduce_min(in[l]);\n"
      "  } else r = 3;\n"
      "  for (int i = (int)l; i < n; i += 4) r += sub_group_reduce_add(v);\n"
      "  out[get_global_id(0)] = r;\n"
      "}\n";
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx}) {
    isg::DeviceTraits t = strategyTraits(s, 32);
    t.nvidiaComputeCapability = 90;
    const RewriteResult r = rewrite(source, "", {}, t);
    EXPECT_REWRITTEN(r);
    const std::string user = userPart(r);
    EXPECT_EQ(lines(user), lines(source)) << user;
    // The early return: a flag the rest runs under.
    EXPECT_NE(user.find("bool __isg_live0 = true; if ((int)get_global_id(0) >= n) __isg_live0 = false;"),
              std::string::npos) << user;
    // The branch: its flag, the shuffle of a value every work-item holds, the reduction of a
    // value in memory with the identity from the work-items outside.
    EXPECT_NE(user.find("const bool __isg_p1 = (__isg_live0) && (l < 5u)"), std::string::npos) << user;
    EXPECT_NE(user.find("= intel_sub_group_shuffle(v, 7u);"), std::string::npos) << user;
    EXPECT_NE(user.find("sub_group_reduce_min((__isg_p1) ? (in[l]) : (INT_MAX))"), std::string::npos) << user;
    EXPECT_NE(user.find("const bool __isg_q2 = (__isg_live0) && !__isg_p1"), std::string::npos) << user;
    // The loop whose trip count differs: on while any work-item still runs it.
    EXPECT_NE(user.find("while (__isg_flow_any(__isg_ctx, __isg_c"), std::string::npos) << user;
    EXPECT_EQ(r.log.find("differ from Intel's"), std::string::npos) << r.log;
  }
  // A helper function that exchanges, called in such a branch (issue 64): it takes the caller's
  // predicate as its execution mask, after its context, and runs its body under it; a call where
  // every work-item runs passes 1. On every strategy, with nothing in the log.
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx, isg::Strategy::Khr}) {
    isg::DeviceTraits t = strategyTraits(s, 32);
    const RewriteResult helper = rewrite(
        "int h(int v);\n"
        "int h(int v) { return sub_group_reduce_add(v); }\n"
        "kernel void k(global int* out) {\n"
        "  int r = h(2);\n"
        "  if (get_local_id(0) < 3) r = h(1);\n"
        "  out[get_global_id(0)] = r;\n"
        "}\n", "", {}, t);
    EXPECT_REWRITTEN(helper);
    const std::string user = userPart(helper);
    EXPECT_EQ(helper.log, "");
    EXPECT_NE(user.find("int h(__private __isg_ctx_t* __isg_ctx, bool __isg_m, int v);"), std::string::npos) << user;
    EXPECT_NE(user.find("int h(__private __isg_ctx_t* __isg_ctx, bool __isg_m, int v) { int __isg_h0 = "
                        "sub_group_reduce_add((__isg_m) ? (v) : ((int)0)); if (__isg_m) { return __isg_h0; }  "
                        "return (int)0; }"),
              std::string::npos) << user;
    EXPECT_NE(user.find("int r = h(__isg_ctx, 1, 2);"), std::string::npos) << user;
    EXPECT_NE(user.find("= h(__isg_ctx, (__isg_p0), 1); if (__isg_p0) { r = __isg_h"), std::string::npos) << user;
  }
}

}  // namespace

namespace {

// Issue 64: an exchange that a macro spells with the statement around it (oneDNN's convolutions,
// from their headers) is lowered in the program after its preprocessor: the same lines, each
// holding what the preprocessor made of it, directives and includes where they were. A shape
// the walk cannot lower there either keeps the error at the user's line.
TEST(Rewrite, MacroSpelledExchangesAreLoweredAfterThePreprocessor) {
  const std::vector<isg::SourceFile> headers = {{"conv.h", "#define REDUCE_INTO(acc, x) acc += sub_group_reduce_add(x)\n"}};
  const std::string source =
      "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n"
      "#include \"conv.h\"\n"
      "kernel void k(global const int* in, global int* out, int n) {\n"
      "  const size_t g = get_global_id(0); /* a comment */\n"
      "  const int v = in[g];\n"
      "  int r0 = -1, r1 = -1;\n"
      "#define SHUFFLE_INTO(dst, x, i) dst = intel_sub_group_shuffle((x), \\\n"
      "                                                           (i))\n"
      "  if ((int)g < n) {\n"
      "    SHUFFLE_INTO(r0, v, 5u);\n"
      "    int acc = 0, k = 0;\n"
      "    do { REDUCE_INTO(acc,\n"
      "                     v % 100 + k); } while (++k < 3);\n"
      "    r1 = acc;\n"
      "  }\n"
      "  out[g] = r0 + r1;\n"
      "}\n";
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx}) {
    isg::DeviceTraits t = strategyTraits(s, 16);
    const RewriteResult r = rewrite(source, "-cl-std=CL2.0", headers, t);
    EXPECT_REWRITTEN(r);
    EXPECT_EQ(r.log, "");
    const std::string user = userPart(r);
    EXPECT_EQ(std::count(user.begin(), user.end(), '\n'), std::count(source.begin(), source.end(), '\n')) << user;
    EXPECT_NE(user.find("#include \"conv.h\""), std::string::npos) << user;
    EXPECT_NE(user.find("int __isg_h2 = intel_sub_group_shuffle((v), (5u)); if (__isg_p0) { r0 = __isg_h2; }"),
              std::string::npos) << user;
    EXPECT_NE(user.find("sub_group_reduce_add((__isg_p0) ? (v % 100 + k) : ((int)0))"), std::string::npos) << user;
    EXPECT_EQ(user.find("REDUCE_INTO(acc"), std::string::npos) << user;
    // The same exchanges in a switch whose value holds an exchange: refused, at the user's line,
    // after both walks.
    std::string inSwitch = source;
    inSwitch.replace(inSwitch.find("  if ((int)g < n) {"), 19, "  switch ((g + sub_group_reduce_add(1)) % 3) { case 0:");
    const RewriteResult refused = rewrite(inSwitch, "-cl-std=CL2.0", headers, t);
    EXPECT_EQ(refused.status, RewriteResult::Status::Error);
    EXPECT_NE(refused.log.find("<source>:9:3: error: an exchange here may be reached by only some work-items"),
              std::string::npos) << refused.log;
  }
  // A program the walk lowers as written keeps its macros (its text byte for byte elsewhere).
  const RewriteResult plain = rewrite(
      "#define V(x) (x)\n"
      "kernel void k(global int* out) {\n"
      "  int r = 0;\n"
      "  if (get_local_id(0) < 3) r = intel_sub_group_shuffle(V(r), 1u);\n"
      "  out[get_global_id(0)] = r;\n"
      "}\n");
  EXPECT_REWRITTEN(plain);
  EXPECT_NE(userPart(plain).find("#define V(x) (x)\n"), std::string::npos) << userPart(plain);
  EXPECT_NE(userPart(plain).find("intel_sub_group_shuffle(V(r), 1u)"), std::string::npos) << userPart(plain);
}

// Issue 64: shapes real Intel-targeted code has around its exchanges.
TEST(Rewrite, ExecutionModelOfRealKernelShapes) {
  // ggml's flash attention: a vector literal through a macro, declared under divergent flow,
  // keeps its parentheses (Clang's range of the literal ends at its operand).
  const RewriteResult decl = rewrite(
      "#define ACC_TYPE4 float4\n"
      "kernel void k(global float4* o, int n) {\n"
      "  if ((int)get_local_id(0) < n) {\n"
      "    ACC_TYPE4 dot4 = (ACC_TYPE4)(0.0f), other = (ACC_TYPE4)(1.0f, 2.0f, 3.0f, 4.0f);\n"
      "    o[0] = dot4 + other + sub_group_reduce_add(dot4.x);\n"
      "  }\n"
      "}\n");
  EXPECT_REWRITTEN(decl);
  EXPECT_NE(userPart(decl).find("dot4 = (__isg_p0) ? ((ACC_TYPE4)(0.0f)) : (float4)0, other = (__isg_p0) ? "
                                "((ACC_TYPE4)(1.0f, 2.0f, 3.0f, 4.0f)) : (float4)0;"),
            std::string::npos) << userPart(decl);
  EXPECT_EQ(decl.log.find("differ from Intel's"), std::string::npos) << decl.log;

  // A break and a continue that only some work-items take, in a for loop and a do loop: the
  // loops run while any work-item is in them, the jumps clear its flags and leave the statement.
  const std::string jumps =
      "kernel void k(global int* o, int n) {\n"
      "  const int l = get_sub_group_local_id();\n"
      "  int acc = o[l], j = 0;\n"
      "  for (int i = 0; i < n; ++i) {\n"
      "    if (l + i > 5) break;\n"
      "    if (l == 2) { acc += 1; continue; }\n"
      "    acc += intel_sub_group_shuffle(acc, (uint)i);\n"
      "  }\n"
      "  do {\n"
      "    acc += sub_group_reduce_add(acc);\n"
      "    if (++j > l) break;\n"
      "  } while (j < 4);\n"
      "  o[get_global_id(0)] = acc;\n"
      "}\n";
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx}) {
    isg::DeviceTraits t = strategyTraits(s, 32);
    t.nvidiaComputeCapability = 90;
    const RewriteResult r = rewrite(jumps, "", {}, t);
    EXPECT_REWRITTEN(r);
    const std::string user = userPart(r);
    EXPECT_EQ(lines(user), lines(jumps)) << user;
    EXPECT_NE(user.find("bool __isg_c0 = (i < n); while (__isg_flow_any(__isg_ctx, __isg_c0)) { bool __isg_l1 = __isg_c0;"),
              std::string::npos) << user;
    EXPECT_NE(user.find("if (__isg_l1) { if (l + i > 5) do { __isg_c0 = false; __isg_l1 = false; goto __isg_skip2; } "
                        "while (0); __isg_skip2: ; }"),
              std::string::npos) << user;
    EXPECT_NE(user.find("do { __isg_l1 = false; goto __isg_skip3; } while (0);"), std::string::npos) << user;
    EXPECT_NE(user.find("int __isg_h4 = intel_sub_group_shuffle(acc, (uint)i); if (__isg_l1) { acc += __isg_h4; }"),
              std::string::npos) << user;
    EXPECT_NE(user.find("bool __isg_c5 = true; while (__isg_flow_any(__isg_ctx, __isg_c5))"), std::string::npos) << user;
    EXPECT_NE(user.find("sub_group_reduce_add((__isg_c5) ? (acc) : ((int)0))"), std::string::npos) << user;
    EXPECT_NE(user.find("if (__isg_c5) __isg_c5 = (j < 4); } }"), std::string::npos) << user;
    EXPECT_EQ(user.find("while (j < 4);"), std::string::npos) << user;
    EXPECT_EQ(r.log.find("differ from Intel's"), std::string::npos) << r.log;
  }
  // A return inside a loop: the work-item stops running and leaves the loop; a return all
  // work-items take together stays one.
  const RewriteResult ret = rewrite(
      "kernel void k(global int* o, int n) {\n"
      "  for (int i = 0; i < n; ++i) {\n"
      "    if (get_local_id(0) > i) return;\n"
      "    if (n == 7) return;\n"
      "    o[i] = sub_group_reduce_add(o[i]);\n"
      "  }\n"
      "  o[n] = sub_group_reduce_max(n);\n"
      "}\n");
  EXPECT_REWRITTEN(ret);
  EXPECT_NE(userPart(ret).find("bool __isg_run = true; { int i = 0;"), std::string::npos) << userPart(ret);
  EXPECT_NE(userPart(ret).find("if (get_local_id(0) > i) do { __isg_run = false; __isg_c0 = false; goto __isg_skip1; }"),
            std::string::npos) << userPart(ret);
  EXPECT_NE(userPart(ret).find("sub_group_reduce_max((__isg_run) ? (n) : (INT_MIN))"), std::string::npos) << userPart(ret);
  EXPECT_TRUE(ret.log.empty()) << ret.log;
  // A switch the work-items take apart: every one walks every case, a flag saying it is inside.
  const RewriteResult sw = rewrite(
      "kernel void k(global int* o) {\n"
      "  switch (get_local_id(0) % 3) {\n"
      "    case 0: o[0] = sub_group_reduce_add(o[1]); break;\n"
      "    default: break;\n"
      "  }\n"
      "}\n");
  EXPECT_REWRITTEN(sw);
  EXPECT_NE(userPart(sw).find("bool __isg_f1 = false;"), std::string::npos) << userPart(sw);
  EXPECT_NE(userPart(sw).find("sub_group_reduce_add((__isg_f1) ? (o[1]) : ((int)0))"), std::string::npos) << userPart(sw);
  EXPECT_NE(userPart(sw).find("if (__isg_f1) { do { __isg_f1 = false; goto"), std::string::npos) << userPart(sw);
  // What the rewrite cannot express fails the build at the line: a case label inside a
  // statement of its switch.
  const RewriteResult duff = rewrite(
      "kernel void k(global int* o) {\n"
      "  switch (get_local_id(0) % 3) {\n"
      "    case 0: if (o[2]) { case 1: o[0] = sub_group_reduce_add(o[1]); } break;\n"
      "    default: break;\n"
      "  }\n"
      "}\n");
  EXPECT_EQ(duff.status, RewriteResult::Status::Error);
  EXPECT_NE(duff.log.find("<source>:2:3: error: an exchange here may be reached by only some work-items"),
            std::string::npos) << duff.log;
  EXPECT_NE(duff.log.find("a case label inside a statement of the switch"), std::string::npos) << duff.log;
  // A goto that only some work-items take (legal C, not structured): refused at the goto.
  const RewriteResult jump = rewrite(
      "kernel void k(global int* o) {\n"
      "  int x = o[get_global_id(0)];\n"
      "  if (get_sub_group_local_id() < 3) goto out;\n"
      "  x = sub_group_reduce_add(x);\n"
      "out:\n"
      "  o[get_global_id(0)] = x;\n"
      "}\n");
  EXPECT_EQ(jump.status, RewriteResult::Status::Error);
  EXPECT_NE(jump.log.find("<source>:3:37: error: an exchange here may be reached by only some work-items, and the "
                          "layer cannot give the others a part in it (a goto that only some work-items take)"),
            std::string::npos) << jump.log;

  // oneDNN's conversion.h: prototypes of Intel-internal builtins stay prototypes, and get a
  // definition beside them (drivers link every function a program defines).
  const RewriteResult ib = rewrite(
      "short __builtin_IB_ftobf_1(float a) __attribute__((const));\n"
      "ushort2 __builtin_IB_ftobf_2(float2 a) __attribute__((const));\n"
      "void __builtin_IB_eu_thread_pause(uint value);\n"
      "ushort cvt(float f) { return as_ushort(__builtin_IB_ftobf_1(f)); }\n"
      "kernel void k(global int* o) { o[0] = intel_sub_group_shuffle(o[1], 0u); }\n");
  EXPECT_REWRITTEN(ib);
  const std::string user = userPart(ib);
  EXPECT_NE(user.find("short __builtin_IB_ftobf_1(float a) __attribute__((const)); short __builtin_IB_ftobf_1("),
            std::string::npos) << user;
  EXPECT_NE(user.find("{ return (ushort2)0; }"), std::string::npos) << user;
  EXPECT_NE(user.find("void __builtin_IB_eu_thread_pause(uint value); void __builtin_IB_eu_thread_pause("),
            std::string::npos) << user;
  EXPECT_EQ(ib.source.find("#define __builtin_IB_"), std::string::npos);
  EXPECT_TRUE(ib.log.empty()) << ib.log;
}

}  // namespace

// Kernels written for Intel's SIMD lock-step share local memory with no barrier (OpenVINO's
// permute_f_y_axes, warp-synchronous halving): a barrier after each statement that touches local
// memory where the whole work-group runs it (source/lockstep.h); kernels that synchronise
// themselves, and ISG_LOCK_STEP=0, keep their text.
TEST(Rewrite, LocalMemoryWithoutBarriersKeepsLockStep) {
  const std::string src =
      "#define WRITE_VEC(v, o, p) vstore4(v, o, p)\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void other(global uint* o) { o[0] = intel_sub_group_shuffle(o[0], 3u); }\n"
      "kernel void transpose(global const float* in, global float* out) {\n"
      "  __local float buf[16][17];\n"
      "  const int l = get_local_id(2);\n"
      "  __attribute__((opencl_unroll_hint(4)))\n"
      "  for (int j = 0; j < 16; ++j)\n"
      "    buf[j][l] = in[l * 16 + j];\n"
      "  for (int j = 0; j < 4; ++j) {\n"
      "    WRITE_VEC(vload4(0, &buf[l][j * 4]), 0, &out[l * 16 + j * 4]);\n"
      "  }\n"
      "}\n"
      "kernel void halve(global float* out, local float* s) {\n"
      "  const uint l = get_local_id(0);\n"
      "  s[l] = out[get_global_id(0)];\n"
      "  for (uint h = get_local_size(0) / 2; h > 0; h >>= 1)\n"
      "    if (l < h) s[l] += s[l + h];\n"
      "  if (l == 0) out[get_group_id(0)] = s[0];\n"
      "}\n"
      "kernel void apart(global float* out, local float* s) {\n"
      "  for (uint i = 0; i < get_local_id(0); ++i) s[i] = out[i];\n"
      "  out[get_global_id(0)] = s[0];\n"
      "}\n"
      "kernel void fenced(global float* out, local float* s) {\n"
      "  s[get_local_id(0)] = 1.0f;\n"
      "  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = s[get_local_id(0) ^ 1];\n"
      "}\n";
  const std::string b = "barrier(CLK_LOCAL_MEM_FENCE);";
  for (isg::Strategy s : {isg::Strategy::Local, isg::Strategy::NvidiaPtx, isg::Strategy::Khr}) {
    SCOPED_TRACE(isg::strategyName(s));
    RewriteResult r = rewrite(src, "", {}, strategyTraits(s, 32));
    EXPECT_REWRITTEN(r);
    const std::string user = userPart(r);
    EXPECT_NE(user.find("    { buf[j][l] = in[l * 16 + j]; " + b + " }\n"), std::string::npos) << user;
    EXPECT_NE(user.find("&out[l * 16 + j * 4]); " + b + "\n"), std::string::npos) << user;
    EXPECT_NE(user.find("  s[l] = out[get_global_id(0)]; " + b + "\n"), std::string::npos) << user;
    EXPECT_NE(user.find("    { if (l < h) s[l] += s[l + h]; " + b + " }\n"), std::string::npos) << user;
    // Nothing reads local memory after the kernel's last statement.
    EXPECT_NE(user.find("  if (l == 0) out[get_group_id(0)] = s[0];\n"), std::string::npos) << user;
    // A loop the work-items leave apart: ordered after it, with a warning at the loop.
    EXPECT_NE(user.find("s[i] = out[i]; " + b + "\n"), std::string::npos) << user;
    EXPECT_NE(r.log.find("<source>:22:"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("lock-step"), std::string::npos) << r.log;
    const std::size_t fenced = user.find("kernel void fenced");
    ASSERT_NE(fenced, std::string::npos);
    EXPECT_EQ(user.find(b, fenced), user.find("  barrier(CLK_LOCAL_MEM_FENCE);\n", fenced) + 2) << user;
    isg::DeviceTraits off = strategyTraits(s, 32);
    off.lockStep = false;
    RewriteResult plain = rewrite(src, "", {}, off);
    EXPECT_REWRITTEN(plain);
    EXPECT_EQ(userPart(plain).find(b), userPart(plain).find("  barrier(CLK_LOCAL_MEM_FENCE);\n") + 2);
  }
}
