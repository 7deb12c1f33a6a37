// SPDX-License-Identifier: MIT
// Intel's execution model (issue 49, docs/design.md "Intel's execution model"): what real
// Intel-targeted kernels rely on beyond the spec's letter, as kernels whose results Intel's own
// driver gives. The reference is Intel's OpenCL CPU runtime, never the layer: CTest runs
//   execution_model.intel    this binary on Intel's driver alone, recording every case's output
//                            into ISG_EXECUTION_MODEL_REFERENCE (ExecutionModel.RecordIntelsDriver)
//   execution_model.<name>   through the layer on the default device, comparing each case with
//                            that record (ExecutionModel/Rules.*), and the rules whose programs
//                            Intel's CPU runtime cannot build against a host model (Layer*)
// The rules held here: the sub-group size of kernels that do not ask for one, over a table of
// work-group shapes (rows of 8 or 16 work-items are sub-groups, with reqd_work_group_size or
// without, in 1-3 dimensions); options only Intel's compiler takes; Intel-internal builtins in
// code no kernel reaches. Each kernel writes what every work-item sees of its sub-group and the
// results of shuffles, reductions and scans over it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cl_harness.h"
#include "shape_kernels.h"

namespace {

using isgtest::env;
using isgtest::onIntelsDriver;

struct Case {
  std::string name;
  std::string source;
  std::string options;
  std::vector<size_t> global, local;
  // The sub-group size comes from each launch (no reqd_work_group_size): khr keeps its default
  // (its clustered reductions need a constant; docs/controls.md), so it cannot take these.
  bool fromLaunch = false;
  unsigned values = 4;  // what each work-item writes
  // A loop whose trip count differs between sub-groups: the khr test double exchanges through
  // work-group barriers under native sub-groups that decide alone (docs/strategies.md).
  bool sharedLoop = false;
  // A header the program includes as "em_helpers.h", found through -I (a folder of its own,
  // removed after the build).
  std::string header = "";
};

// The kernels of rules 1 and 2: every work-item first holds its values (v, a float, a vector, a
// long); then control flow that part of the sub-group or work-group skips, with the builtins
// inside. Each writes `values` ints per work-item, -1 where it took no part.
const char* kHead =
    "  const size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);\n"
    "  const uint l = get_sub_group_local_id();\n"
    "  const int v = in[g];\n"
    "  const float f = (float)v * 0.5f;\n"
    "  const int4 q = (int4)(v, v + 1, v + 2, v + 3);\n"
    "  const long w = (long)v * 100000L;\n"
    "  const short h = (short)(v - 500);\n"
    "  const int bias = v * 3 - 7;\n";

std::string divergentKernel(unsigned S, const std::string& body, unsigned values) {
  return "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n"
         "kernel void k(global const int* in, global int* out, int n) {\n" + std::string(kHead) +
         "  int r[" + std::to_string(values) + "];\n"
         "  for (int i = 0; i < " + std::to_string(values) + "; ++i) r[i] = -1;\n"
         // Every value is used before the branch: each work-item holds it there. (Used only
         // inside, a compiler may compute it only there: Intel's CPU runtime then reads 0 from
         // the work-items outside, which the spec leaves undefined.)
         "  out[" + std::to_string(values) + " * get_global_size(0) * get_global_size(1) + g] =\n"
         "      v ^ (int)f ^ q.w ^ (int)w ^ (int)h ^ bias;\n" + body +
         "  for (int i = 0; i < " + std::to_string(values) + "; ++i) out[" + std::to_string(values) + " * g + i] = r[i];\n"
         "}\n";
}

// Rule 1: shuffles of every kind and type read work-items that skipped the branch, the value
// they held; reductions, scans and votes there combine the work-items that took it.
const char* kTailBranch =
    "  if (l < 5u) {\n"
    "    r[0] = intel_sub_group_shuffle(v, 7);\n"
    "    r[1] = intel_sub_group_shuffle_down(v, v + 1000, 3);\n"
    "    r[2] = intel_sub_group_shuffle_xor(v, 6);\n"
    "    r[3] = (int)intel_sub_group_shuffle(f, 6u);\n"
    "    int4 t = intel_sub_group_shuffle(q, 7u);\n"
    "    r[4] = t.x + t.w;\n"
    "    r[5] = (int)(intel_sub_group_shuffle(w, 5u) / 1000L);\n"
    "    r[6] = intel_sub_group_shuffle(h, 6u);\n"
    "    r[7] = sub_group_broadcast(v, 6);\n"
    "    r[8] = sub_group_reduce_add(v);\n"
    "    r[9] = sub_group_scan_inclusive_max(v);\n"
    "    r[10] = sub_group_any(v > 900);\n"
    "    r[11] = intel_sub_group_shuffle_up(v, v + 7, 1u);\n"
    "  }\n";

// The bias loop of the issue: a bounds check the tail of the last sub-group fails, a loop with
// a uniform count inside, the shuffle's index naming work-items outside.
const char* kBoundsLoop =
    "  if ((int)g < n) {\n"
    "    for (int k = 0; k < 8; ++k)\n"
    "      r[k] = v + intel_sub_group_shuffle(bias, (uint)k);\n"
    "  }\n";

// The else branch: members that took the other side are read from both sides.
// (An index of S or more is undefined: Intel's CPU runtime reads another lane with AVX2 than
// with AVX-512.)
const char* kElse =
    "  if (l % 3u == 0u) {\n"
    "    r[0] = intel_sub_group_shuffle(v, (l + 1u) % get_sub_group_size());\n"
    "    r[1] = sub_group_reduce_min(v);\n"
    "  } else {\n"
    "    r[2] = intel_sub_group_shuffle(v, 0u);\n"
    "    r[3] = sub_group_scan_exclusive_add(v);\n"
    "  }\n";

// An early return of the tail, before the exchanges (as kernels bound their work).
const char* kEarlyReturn =
    "  if ((int)g >= n) return;\n"
    "  r[0] = sub_group_reduce_add(v);\n"
    "  r[1] = intel_sub_group_shuffle(v, (l + 2u) % get_sub_group_size());\n"
    "  r[2] = sub_group_scan_inclusive_add(1);\n"
    "  r[3] = sub_group_all(v >= 0);\n"
    "  for (int i = 0; i < 4; ++i) out[4 * g + i] = r[i];\n"
    "  return;\n";

// Rule 2: a loop whose trip count differs between sub-groups (a softmax striding each
// sub-group over its own row), and branches on the sub-group id.
const char* kSubGroupLoop =
    "  int m = -1, s = 0;\n"
    "  for (int i = (int)get_sub_group_id(); i < n; i += 3) {\n"
    "    const int x = in[(i * 7 + (int)l) % 256];\n"
    "    m = max(m, sub_group_reduce_max(x));\n"
    "    s += sub_group_reduce_add(x);\n"
    "  }\n"
    "  r[0] = m;\n"
    "  r[1] = s;\n";

const char* kSubGroupBranch =
    "  if (get_sub_group_id() == 1u) {\n"
    "    r[0] = sub_group_reduce_max(v);\n"
    "    r[1] = intel_sub_group_shuffle(v, 0u);\n"
    "  } else if (get_sub_group_id() > 1u) {\n"
    "    r[2] = sub_group_scan_inclusive_min(v);\n"
    "  }\n";

// A per-work-item break and continue before the exchanges of a loop, and a do loop that work-items
// leave at different times (issue 64): the work-items that left hold their values for the
// shuffles and are outside the reductions and scans. Every sub-group runs both loops equally
// often (lane 0 never breaks the first, the last lanes the second), as the khr test double needs.
const char* kBreakContinue =
    "  int acc = v, cnt = 0;\n"
    "  for (int i = 0; i < 6; ++i) {\n"
    "    if ((int)l + i > 9) break;\n"
    "    if (((int)l + i) % 3 == 0) continue;\n"
    "    acc += intel_sub_group_shuffle(acc, (uint)i) % 1000;\n"
    "    cnt += sub_group_reduce_add(1);\n"
    "  }\n"
    "  r[0] = acc;\n"
    "  r[1] = cnt;\n"
    "  int j = 0, s = 0;\n"
    "  do {\n"
    "    s += sub_group_scan_inclusive_add(v % 100);\n"
    "    ++j;\n"
    "    if (j > (int)l) break;\n"
    "  } while (j < 4);\n"
    "  r[2] = s;\n"
    "  r[3] = j;\n";

// Exchanges on one side of ?:, && and ||: the work-items that evaluate the side take part.
const char* kSides =
    "  r[0] = (l < 5u) ? intel_sub_group_shuffle(v, 7u) : -1;\n"
    "  r[1] = (l > 2u && sub_group_any(v > 900)) ? 1 : 0;\n"
    "  r[2] = (l % 2u == 0u) ? sub_group_reduce_add(v) : sub_group_scan_inclusive_max(v);\n"
    "  r[3] = ((int)g < n) ? (l >= 3u ? sub_group_broadcast(v, 2u) : intel_sub_group_shuffle_xor(v, 1u)) : -2;\n"
    "  r[4] = (l == 1u || sub_group_all(v < 1000)) ? 7 : 8;\n";

// A return inside a loop and inside nested branches, before exchanges: the work-items that
// returned hold their values for the shuffles after it and are outside its reductions and scans.
// Lane 0 never returns in the loop, so every sub-group runs it equally often (khr test double).
const char* kReturnInLoop =
    "  int acc = v % 1000;\n"
    "  for (int i = 0; i < 4; ++i) {\n"
    "    if ((int)l + i > 9) {\n"
    "      out[4 * g + 0] = acc; out[4 * g + 1] = -5; out[4 * g + 2] = i; out[4 * g + 3] = -6;\n"
    "      return;\n"
    "    }\n"
    "    acc += intel_sub_group_shuffle(acc, (uint)i) % 1000;\n"
    "  }\n"
    "  if (l == 3u) {\n"
    "    if (acc % 2 == 0) { out[4 * g + 0] = acc; out[4 * g + 1] = -7; out[4 * g + 2] = -8; out[4 * g + 3] = -9; return; }\n"
    "  }\n"
    "  r[0] = acc;\n"
    "  r[1] = sub_group_reduce_add(acc);\n"
    "  r[2] = sub_group_scan_inclusive_add(1);\n"
    "  r[3] = intel_sub_group_shuffle(acc, 3u);\n";

// A vector declared where only some work-items run, initialized by a vector literal through a
// macro (ggml's flash attention: `ACC_TYPE4 dot4 = (ACC_TYPE4)(0.0f);`).
const char* kVectorDeclaration =
    "  if ((int)g < n) {\n"
    "#define ACC_TYPE4 float4\n"
    "    ACC_TYPE4 dot4 = (ACC_TYPE4)(0.0f);\n"
    "    dot4 += (ACC_TYPE4)(f, f + 1.0f, f + 2.0f, (float)bias);\n"
    "    r[0] = (int)sub_group_reduce_add(dot4.y);\n"
    "    r[1] = (int)intel_sub_group_shuffle(dot4.w, (l + 1u) % 4u);\n"
    "  }\n";

// Exchanges spelled by macros, with the statement around them (oneDNN's convolutions write their
// block reads and shuffles so), under a tail check and in a do loop: the layer lowers the
// program after its preprocessor.
const char* kMacros =
    "#define SHUFFLE_INTO(dst, x, i) dst = intel_sub_group_shuffle((x), (i))\n"
    "#define REDUCE_INTO(acc, x) acc += sub_group_reduce_add(x)\n"
    "  if ((int)g < n) {\n"
    "    SHUFFLE_INTO(r[0], v, 5u);\n"
    "    int acc = 0, k = 0;\n"
    "    do { REDUCE_INTO(acc, v % 100 + k); } while (++k < 3);\n"
    "    r[1] = acc;\n"
    "  }\n";

// Helper functions (issue 64): a butterfly whose trip count is its sub-group's size (the
// work-group's last sub-group is partial: fewer rounds, every sub-group exchanging at once), a
// branch on a parameter that holds the sub-group local id, and a helper called where only some
// work-items run, with a loop of reductions, calling that branching helper in turn.
const char* kHelpers =
    "int butterfly(int v) {\n"
    "  for (uint m = get_sub_group_size() / 2; m > 0; m >>= 1) v += intel_sub_group_shuffle_xor(v, m);\n"
    "  return v;\n"
    "}\n"
    "int pick(int v, uint lane) {\n"
    "  int r = v;\n"
    "  if (lane < 4u) r = intel_sub_group_shuffle(v, (lane + 1u) % get_sub_group_size());\n"
    "  return r + 10000 * sub_group_reduce_add(1);\n"
    "}\n"
    // Under a mask, a shuffle reads what the work-items outside held before (a variable it
    // updates there reads back as Intel's compiler chose to compute it: undefined).
    "int twice(int v, uint lane, global const int* p) {\n"
    "  int acc = 0;\n"
    "  for (int i = 0; i < 3; ++i) acc += sub_group_reduce_add(v % 100 + i);\n"
    "  const int pk = pick(v, lane);\n"
    "  return acc + 100000 * (pk % 100 + pk / 10000) + 10000000 * intel_sub_group_shuffle(*p % 7, 0u);\n"
    "}\n";
const char* kHelperCalls =
    "  r[0] = butterfly(v % 100);\n"
    "  r[1] = pick(v, l);\n"
    "  if ((int)g < n) r[2] = twice(v, l, in + g);\n"
    "  r[3] = (int)get_sub_group_size();\n";

// A switch the work-items take apart (fall-through, default, a continue of the loop around it), a
// switch on a uniform value that some work-items leave by a break, a loop without a condition
// that they leave by a break, and helpers that return a value early, also an exchange's, before
// other exchanges (issue 64).
const char* kReturningHelpers =
    "int hot_return(int x, uint lane) {\n"
    "  if (lane < 2u) return intel_sub_group_shuffle(x, 3u);\n"
    "  return sub_group_reduce_add(x % 100);\n"
    "}\n"
    "int early(int x, uint lane) {\n"
    "  if (lane >= 6u) return x;\n"
    "  int s = sub_group_reduce_add(x % 100);\n"
    "  if (s > 300) return s;\n"
    "  return s + intel_sub_group_shuffle(x, 1u);\n"
    "}\n";
const char* kSwitch =
    "  int acc = 0;\n"
    "  for (int i = 0; i < 3; ++i) {\n"
    "    switch ((int)(l + i) % 4) {\n"
    "      case 0:\n"
    "        acc += intel_sub_group_shuffle(v, (l + 1u) % get_sub_group_size()) % 100;\n"
    "        /* fall through */\n"
    "      case 1:\n"
    "        acc += sub_group_reduce_add(1);\n"
    "        break;\n"
    "      case 2:\n"
    "        if (v % 2 == 0) continue;\n"
    "        acc += sub_group_scan_inclusive_add(v % 10);\n"
    "        break;\n"
    "      default:\n"
    "        acc -= intel_sub_group_shuffle_xor(bias, 1u);\n"
    "    }\n"
    "    acc += 1;\n"
    "  }\n"
    "  r[0] = acc;\n"
    "  switch (n % 3) {\n"
    "    case 1: if (l < 3u) break; r[1] = sub_group_reduce_max(v); break;\n"
    "    default: r[1] = sub_group_reduce_min(v);\n"
    "  }\n"
    "  int t = 0;\n"
    "  for (;;) { t += sub_group_reduce_add(1); if (t > (int)l * 3) break; }\n"
    "  r[2] = t;\n"
    "  r[3] = hot_return(v, l);\n"
    "  r[4] = early(v, l);\n";

// Helpers in a header found through -I (as oneDNN and OpenCV keep theirs), one that branches
// around its exchange and one a macro of the header calls under a tail check; an array declared
// with constants where only some work-items run.
const char* kHeaderHelpers =
    "int lane_pair(int x, uint lane) {\n"
    "  int s = -3;\n"
    "  if (lane % 2u == 0u) s = intel_sub_group_shuffle(x, lane + 1u);\n"
    "  return s + sub_group_reduce_add(x % 10);\n"
    "}\n"
    "#define LANE_PAIR_INTO(dst, x, lane) dst = lane_pair((x), (lane))\n";
const char* kHeaderCalls =
    "  if ((int)g < n) {\n"
    "    const int w[4] = {3, 5, 7, 11};\n"
    "    LANE_PAIR_INTO(r[0], v, l);\n"
    "    r[1] = w[l % 4u] + sub_group_reduce_max(v % 100);\n"
    "  }\n";

// A depthwise 3x3 convolution's shape (OpenVINO's, issue 66): rows across sub-groups, columns
// across a sub-group's lanes, its shuffle under the column's padding check inside loops under the
// row's, the whole under a tail check; lanes at the padding hold their values for the others.
const char* kDepthwise =
    "  int acc = 0;\n"
    "  if ((int)g < n) {\n"
    "    for (int ky = 0; ky < 3; ++ky) {\n"
    "      const int y = (int)(g / get_sub_group_size()) % 4 + ky - 1;\n"
    "      const bool zero_y = y < 0 || y >= 3;\n"
    "      if (!zero_y) {\n"
    "        for (int kx = 0; kx < 3; ++kx) {\n"
    "          const int x = (int)l + kx - 1;\n"
    "          const bool zero_x = x < 0 || x >= (int)get_sub_group_size();\n"
    "          if (!zero_x) acc += intel_sub_group_shuffle(bias, (uint)x) * (ky * 3 + kx + 1);\n"
    "        }\n"
    "      }\n"
    "    }\n"
    "  }\n"
    "  r[0] = acc;\n";

// Every work-item writes four values: its sub-group's size, its place (local id + 100 x
// sub-group id), a shuffle within its sub-group and a reduction and a scan over it.
std::string rowsKernel(const std::string& attribute) {
  return attribute +
         "\nkernel void k(global const int* in, global int* out) {\n"
         "  const size_t g = get_global_id(0) + get_global_size(0) * (get_global_id(1) +\n"
         "                   get_global_size(1) * get_global_id(2));\n"
         "  const int v = in[g];\n"
         "  out[4 * g + 0] = (int)get_sub_group_size();\n"
         "  out[4 * g + 1] = (int)get_sub_group_local_id() + 100 * (int)get_sub_group_id();\n"
         "  out[4 * g + 2] = intel_sub_group_shuffle(v, (get_sub_group_local_id() + 3) % get_sub_group_size());\n"
         "  out[4 * g + 3] = sub_group_reduce_add(v) + 1000 * sub_group_scan_inclusive_max(v % 97);\n"
         "}\n";
}

std::string shapeName(const std::vector<size_t>& local) {
  std::string s;
  for (size_t d : local) s += (s.empty() ? "" : "x") + std::to_string(d);
  return s;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  // Rows of 8 and 16 without any attribute: Intel's runtime makes each row a sub-group.
  for (const std::vector<size_t>& local : std::vector<std::vector<size_t>>{
           {8}, {16}, {8, 4}, {8, 8}, {16, 2}, {16, 4}, {8, 2, 2}, {16, 1, 2}}) {
    Case c{"implicit_" + shapeName(local), rowsKernel(""), "", {}, local, true};
    for (size_t i = 0; i < local.size(); ++i) c.global.push_back(local[i] * (i == 0 ? 4 : 2));
    out.push_back(c);
  }
  // The GEMM of issue 49: reqd_work_group_size(8, 4, 1) and no intel_reqd_sub_group_size.
  out.push_back({"reqd_8x4", rowsKernel("__attribute__((reqd_work_group_size(8, 4, 1)))"), "", {32, 8}, {8, 4}});
  out.push_back({"reqd_16x2", rowsKernel("__attribute__((reqd_work_group_size(16, 2, 1)))"), "", {64, 4}, {16, 2}});
  out.push_back({"reqd_8x2x2", rowsKernel("__attribute__((reqd_work_group_size(8, 2, 2)))"), "", {16, 4, 4}, {8, 2, 2}});
  // What every -cl-std of real projects passes, with OpenCL 3.0's option for sub-groups without
  // independent forward progress (oneDNN passes it to every build).
  out.push_back({"option_no_subgroup_ifp", rowsKernel("__attribute__((reqd_work_group_size(16, 2, 1)))"),
                 "-cl-std=CL3.0 -cl-no-subgroup-ifp -cl-mad-enable", {32, 4}, {16, 2}});
  out.push_back({"implicit_8x4_cl20", rowsKernel(""), "-cl-std=CL2.0", {32, 8}, {8, 4}, true});
  // Rules 1 and 2 at sizes 8, 16 and 32, under each -cl-std real projects use.
  for (unsigned S : {8u, 16u, 32u}) {
    const std::string s = std::to_string(S);
    // Work-groups of 2.5 sub-groups: the last holds half a sub-group (a power of two, so that
    // the butterfly's partners exist).
    const size_t partial = S * 5 / 2;
    out.push_back({"helpers_S" + s, kHelpers + divergentKernel(S, kHelperCalls, 4), "-cl-std=CL2.0",
                   {2 * partial}, {partial}, false, 4, true});
    for (const char* std : {"", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
      if (S == 32 && *std) continue;
      const std::string tag = *std ? std::string("_cl") + std[10] + std[12] : "";
      out.push_back({"tail_branch_S" + s + tag, divergentKernel(S, kTailBranch, 12), std, {64}, {32}, false, 12});
    }
    // n = 61 leaves 3 of the last sub-group outside (rows of 32: one work-group).
    out.push_back({"bounds_loop_S" + s, divergentKernel(S, kBoundsLoop, 8), "-cl-mad-enable", {64}, {32}, false, 8});
    out.push_back({"else_S" + s, divergentKernel(S, kElse, 4), "", {64}, {32}, false, 4});
    out.push_back({"early_return_S" + s, divergentKernel(S, kEarlyReturn, 4), "-cl-std=CL2.0", {64}, {32}, false, 4});
    out.push_back({"sub_group_loop_S" + s, divergentKernel(S, kSubGroupLoop, 2), "", {96}, {48}, false, 2, true});
    out.push_back({"sub_group_branch_S" + s, divergentKernel(S, kSubGroupBranch, 3), "", {64}, {64}, false, 3});
    out.push_back({"return_in_loop_S" + s, divergentKernel(S, kReturnInLoop, 4), "", {64}, {32}, false, 4});
    out.push_back({"sides_S" + s, divergentKernel(S, kSides, 5), "-cl-std=CL3.0", {64}, {32}, false, 5});
    out.push_back({"break_continue_S" + s, divergentKernel(S, kBreakContinue, 4), "", {64}, {32}, false, 4});
    out.push_back({"macros_S" + s, divergentKernel(S, kMacros, 2), "-cl-std=CL1.2", {64}, {32}, false, 2});
    out.push_back({"switch_returns_S" + s, kReturningHelpers + divergentKernel(S, kSwitch, 5), "-cl-std=CL2.0", {64}, {32},
                   false, 5});
    out.push_back({"header_helpers_S" + s, "#include \"em_helpers.h\"\n" + divergentKernel(S, kHeaderCalls, 2), "-cl-std=CL1.2", {64}, {32}, false, 2,
                   false, kHeaderHelpers});
    out.push_back({"depthwise_S" + s, divergentKernel(S, kDepthwise, 1), "-cl-std=CL2.0", {64}, {32}, false, 1});
    out.push_back({"vector_declaration_S" + s, divergentKernel(S, kVectorDeclaration, 2), "-cl-std=CL2.0", {64}, {32}, false, 2});
    out.push_back({"row_blocks_S" + s, isgtest::rowBlocksKernel("k", S), "-cl-std=CL2.0", {32, 4}, {32, 1}, false, 1});
  }
  return out;
}

size_t items(const std::vector<size_t>& global) {
  size_t n = 1;
  for (size_t d : global) n *= d;
  return n;
}

// The case's output: "build <code>" when it does not build, else its values.
std::string run(const Case& c) {
  std::string log;
  cl_int status = CL_SUCCESS;
  std::string options = c.options;
  const std::string dir = ::testing::TempDir() + "isg_em_headers_" + std::to_string(::getpid());
  if (!c.header.empty()) {
    std::system(("mkdir -p '" + dir + "'").c_str());
    std::ofstream(dir + "/em_helpers.h") << c.header;
    options += " -I " + dir;
  }
  cl_program p = isgtest::buildProgram(c.source, options, &log, &status);
  if (!c.header.empty()) std::system(("rm -rf '" + dir + "'").c_str());
  if (!p) return "build " + std::to_string(status) + " " + log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "k", &err);
  const size_t n = items(c.global);
  std::vector<cl_int> in(std::max<size_t>(n, 256)), out((c.values + 1) * n, -1);
  for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<cl_int>((i * 7919 + 13) % 1009);
  cl_mem a = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size() * sizeof(cl_int),
                            in.data(), &err);
  cl_mem b = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, out.size() * sizeof(cl_int),
                            out.data(), &err);
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof b, &b);
  const cl_int bound = static_cast<cl_int>(n) - 3;  // the divergent kernels' n
  cl_uint args = 0;
  clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof args, &args, nullptr);
  if (args > 2) clSetKernelArg(k, 2, sizeof bound, &bound);
  err = clEnqueueNDRangeKernel(env().queue, k, static_cast<cl_uint>(c.global.size()), nullptr, c.global.data(),
                               c.local.data(), 0, nullptr, nullptr);
  std::string result;
  if (err != CL_SUCCESS) {
    result = "launch " + std::to_string(err);
  } else {
    clEnqueueReadBuffer(env().queue, b, CL_TRUE, 0, out.size() * sizeof(cl_int), out.data(), 0, nullptr, nullptr);
    std::ostringstream s;
    for (cl_int v : out) s << v << ' ';
    result = s.str();
  }
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(p);
  return result;
}

std::string referencePath() {
  const char* p = std::getenv("ISG_EXECUTION_MODEL_REFERENCE");
  return p ? p : "execution-model-reference.txt";
}

// The sub-group size Intel's driver picks for a kernel that names none, at a wide work-group:
// its CPU runtime's SIMD width follows the host's vector ISA (16 with AVX-512, 8 with AVX2, 4
// before), where Intel's GPUs take rows of 8 and 16 whole.
const char* const kWidthName = "(width)";
std::string intelsWidth() {
  Case c{kWidthName,
         "kernel void k(global const int* in, global int* out) { out[get_global_id(0)] = get_sub_group_size(); }\n",
         "", {64}, {64}};
  c.values = 1;
  std::istringstream values(run(c));
  long width = 0;
  values >> width;
  return std::to_string(width);
}

TEST(ExecutionModel, RecordIntelsDriver) {
  ISG_REQUIRE_ENV();
  ASSERT_EQ(std::getenv("OPENCL_LAYERS"), nullptr) << "the reference is Intel's driver without the layer";
  ASSERT_TRUE(onIntelsDriver()) << "the reference must come from Intel's OpenCL runtime";
  std::ofstream out(referencePath());
  out << kWidthName << '\t' << intelsWidth() << '\n';
  for (const Case& c : cases()) {
    const std::string r = run(c);
    EXPECT_EQ(r.rfind("build", 0), std::string::npos) << c.name << ": " << r;
    out << c.name << '\t' << r << '\n';
  }
  ASSERT_TRUE(out.good());
}

class Rules : public ::testing::TestWithParam<Case> {};

TEST_P(Rules, MatchIntelsDriver) {
  ISG_REQUIRE_ENV();
  const Case& c = GetParam();
  const char* strategy = std::getenv("ISG_STRATEGY");
  if (c.fromLaunch && strategy && std::string(strategy) == "khr")
    GTEST_SKIP() << "khr takes the sub-group size of a kernel without reqd_work_group_size from no launch "
                    "(its clustered reductions need a constant; docs/controls.md)";
  if (c.sharedLoop && std::getenv("ISG_KHR_TEST_NATIVE_SIZE"))
    GTEST_SKIP() << "the khr test double exchanges through work-group barriers, and its native sub-groups "
                    "decide a loop alone (docs/strategies.md)";
  std::ifstream in(referencePath());
  ASSERT_TRUE(in.good()) << "no reference at " << referencePath() << " (execution_model.intel)";
  std::map<std::string, std::string> reference;
  std::string line;
  while (std::getline(in, line))
    if (size_t tab = line.find('\t'); tab != std::string::npos) reference[line.substr(0, tab)] = line.substr(tab + 1);
  auto it = reference.find(c.name);
  ASSERT_NE(it, reference.end()) << c.name << " is not in the reference";
  const bool rows = c.source.find("intel_reqd_sub_group_size") == std::string::npos;
  const unsigned long width = std::strtoul(reference[kWidthName].c_str(), nullptr, 10);
  if (rows && width != 0 && c.local[0] > width)
    GTEST_SKIP() << "Intel's CPU runtime picks SIMD " << width << " on this host's CPU (16 needs AVX-512), so its "
                 << "rows of " << c.local[0] << " are not one sub-group as on Intel's GPUs and the layer";
  const std::string mine = run(c);
  if (mine == it->second) return;
  // The first work-item that differs, in the kernel's four values.
  std::istringstream a(it->second), b(mine);
  std::vector<long> intel, layer;
  for (long v; a >> v;) intel.push_back(v);
  for (long v; b >> v;) layer.push_back(v);
  for (size_t i = 0; i < intel.size() && i < layer.size(); ++i)
    if (intel[i] != layer[i])
      FAIL() << c.name << ": work-item " << i / c.values << " value " << i % c.values << ": Intel's driver "
             << intel[i] << ", the layer " << layer[i];
  FAIL() << c.name << ": Intel's driver '" << it->second.substr(0, 200) << "', the layer '" << mine.substr(0, 200)
         << "'";
}

INSTANTIATE_TEST_SUITE_P(ExecutionModel, Rules, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& i) { return i.param.name; });

// Intel-internal builtins (issue 49.4): oneDNN's gemm_copy kernels keep functions that call
// IGC's own builtins and that no kernel reaches on other devices. Intel's GPU compiler builds
// them; its CPU runtime does not (no IGC), so this is against a host model, through the layer:
// the program builds and computes, and a kernel that does reach such a call fails its build
// with a log at that line.
// Runs kernel `k(in, out)` of `p` (out = shuffle(in, member 0) + 2 in, rows of 16) against its host
// model, and releases the program.
void runsTheShuffleKernel(cl_program p, const std::string& what) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 64, local = 16;
  std::vector<cl_int> in(n), out(n, -1);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<cl_int>(i * 3 + 1);
  cl_mem a = clCreateBuffer(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, n * sizeof(cl_int), in.data(), &err);
  cl_mem b = clCreateBuffer(env().context, CL_MEM_WRITE_ONLY, n * sizeof(cl_int), nullptr, &err);
  clSetKernelArg(k, 0, sizeof a, &a);
  clSetKernelArg(k, 1, sizeof b, &b);
  ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &n, &local, 0, nullptr, nullptr), CL_SUCCESS);
  ASSERT_EQ(clEnqueueReadBuffer(env().queue, b, CL_TRUE, 0, n * sizeof(cl_int), out.data(), 0, nullptr, nullptr),
            CL_SUCCESS);
  // Host model: the shuffle reads member 0 of the work-item's sub-group (rows of 16 here).
  for (size_t i = 0; i < n; ++i) ASSERT_EQ(out[i], in[i / 16 * 16] + 2 * in[i]) << what << " item " << i;
  clReleaseMemObject(a);
  clReleaseMemObject(b);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

TEST(ExecutionModel, LayerBuildsIntelInternalBuiltinsNoKernelReaches) {
  ISG_REQUIRE_ENV();
  if (onIntelsDriver()) GTEST_SKIP() << "Intel's CPU runtime has no IGC builtins; the rule is the layer's on other drivers";
  const std::string helpers =
      "#define DPAS(acc, a, b) __builtin_IB_sub_group_idpas_s8_s8_8_1(acc, a, b)\n"
      "int8 gemm_copy_tile(int8 acc, int a, int8 b) { return DPAS(acc, a, b); }\n"
      "static void store_block(global uint* p, uint v) { __builtin_IB_simd_block_write_1_global(p, v); }\n"
      // oneDNN's conversion.h declares the ones it calls (issue 64): a prototype is no call.
      "short __builtin_IB_ftobf_1(float a) __attribute__((const));\n"
      "ushort2 __builtin_IB_ftobf_2(float2 a) __attribute__((const));\n"
      "ushort cvt_f32_to_bf16(float f) { return as_ushort(__builtin_IB_ftobf_1(f)); }\n";
  const std::string unreached = helpers +
      "kernel void k(global const int* in, global int* out) {\n"
      "  const size_t g = get_global_id(0);\n"
      "  out[g] = intel_sub_group_shuffle(in[g], 0) + 2 * in[g];\n"
      "}\n";
  for (const char* options : {"", "-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    std::string log;
    cl_program p = isgtest::buildProgram(unreached, options, &log);
    ASSERT_NE(p, nullptr) << options << "\n" << log;
    runsTheShuffleKernel(p, options);
  }
  // oneDNN's way: the prototypes in a header read through -I (src/gpu/intel/include/conversion.h),
  // with OpenCL 3.0's options, a helper calling them that no kernel reaches.
  {
    char dir[] = "/tmp/isg-onednn-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string header = std::string(dir) + "/conversion.h";
    std::ofstream(header) << "#ifndef CONVERSION_H\n#define CONVERSION_H\n"
                             "short __builtin_IB_ftobf_1(float a) __attribute__((const));\n"
                             "ushort2 __builtin_IB_ftobf_2(float2 a) __attribute__((const));\n"
                             "float __builtin_IB_bftof_1(short a) __attribute__((const));\n"
                             "ushort cvt_f32_to_bf16(float f) { return as_ushort(__builtin_IB_ftobf_1(f)); }\n"
                             "#endif\n";
    const std::string source =
        "#include \"conversion.h\"\n"
        "__attribute__((intel_reqd_sub_group_size(16)))\n"
        "kernel void k(global const int* in, global int* out) {\n"
        "  const size_t g = get_global_id(0);\n"
        "  out[g] = intel_sub_group_shuffle(in[g], 0) + 2 * in[g];\n"
        "}\n";
    std::string hlog;
    cl_program p = isgtest::buildProgram(source, "-cl-std=CL3.0 -cl-no-subgroup-ifp -I " + std::string(dir), &hlog);
    std::remove(header.c_str());
    rmdir(dir);
    ASSERT_NE(p, nullptr) << hlog;
    runsTheShuffleKernel(p, "through -I");
  }
  // A kernel that reaches one: the build fails, and the log names the user's line.
  const std::string reached = helpers +
      "kernel void k(global int8* out) { out[0] = gemm_copy_tile(out[1], 2, out[2]); }\n";
  std::string log;
  cl_int status = CL_SUCCESS;
  cl_program p = isgtest::buildProgram(reached, "", &log, &status);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(log.find(":2:"), std::string::npos) << log;
  EXPECT_NE(log.find("__builtin_IB_sub_group_idpas_s8_s8_8_1"), std::string::npos) << log;
  EXPECT_NE(log.find("kernel 'k' reaches it through 'gemm_copy_tile'"), std::string::npos) << log;
  // A kernel that reaches a declared one: the same refusal, at the call.
  const std::string declared = helpers +
      "kernel void k(global ushort* out, float x) { out[0] = cvt_f32_to_bf16(x); }\n";
  log.clear();
  p = isgtest::buildProgram(declared, "-cl-std=CL2.0", &log, &status);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(status, CL_BUILD_PROGRAM_FAILURE);
  EXPECT_NE(log.find(":6:"), std::string::npos) << log;
  EXPECT_NE(log.find("kernel 'k' reaches it through 'cvt_f32_to_bf16'"), std::string::npos) << log;
}

}  // namespace
