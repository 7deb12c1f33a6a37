// SPDX-License-Identifier: MIT
// Benchmark 3: sub_group_reduce_<op>, sub_group_scan_inclusive_<op> and _exclusive_<op> for
// op = add, min, max on int and float at S = 16 and 32, through the layer, against the same
// loop with a hand-written warp-shuffle implementation in inline PTX (butterfly shfl.bfly for the
// reduction, Hillis-Steele shfl.up for the scans: the CUDA idioms). Goal: layer >= 0.95x.
//
// Per work-item: acc += OP_sg(x + (i & 15)) for i < iters, out = acc. Inputs are small integers
// (|x| < 32), so float sums are exact in any order and the host model needs no tolerance; acc is
// uint for int (no signed overflow) and float for float.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "common/chain.h"  // sampleSubGroups
#include "common/cl_bench.h"

using namespace isgb;

namespace {

constexpr std::size_t kWorkGroup = 256;
const char* kKinds[] = {"reduce", "scan_inclusive", "scan_exclusive"};
const char* kOps[] = {"add", "min", "max"};
const char* kTypes[] = {"int", "float"};

std::string u(unsigned v) { return std::to_string(v) + "u"; }

std::string kernelName(const char* flavor, const char* kind, const char* op, const char* type, unsigned S) {
  return std::string(flavor) + "_" + kind + "_" + op + "_" + type + "_S" + std::to_string(S);
}
std::string caseName(const char* kind, const char* op, const char* type, unsigned S) {
  return std::string(kind) + "_" + op + "/" + type + "/S" + std::to_string(S);
}
std::string combine(const std::string& op, const std::string& a, const std::string& b) {
  return op == "add" ? "(" + a + " + " + b + ")" : op + "(" + a + ", " + b + ")";
}
std::string identity(const std::string& op, const std::string& type) {
  if (op == "add") return "0";
  bool f = type == "float";
  if (op == "min") return f ? "INFINITY" : "INT_MAX";
  return f ? "(-INFINITY)" : "INT_MIN";
}

// The hand-written flavor: one function per (kind, op, type, S), the way a CUDA programmer
// writes a warp reduction, with constant masks and the full warp as member mask.
std::string ptxFunction(const char* kind, const char* op, const char* type, unsigned S) {
  std::string T = type, k = kind, name = kernelName("hw", kind, op, type, S);
  std::string C = u(((32 - S) << 8) | 0x1f), CU = u((32 - S) << 8);
  std::string s = "static inline " + T + " " + name + "(" + T + " x, uint lane) {\n";
  if (k == "reduce") {
    s += "  for (uint o = " + u(S / 2) + "; o > 0u; o >>= 1) x = " +
         combine(op, "x", "as_" + T + "(hw_bfly(as_uint(x), o, " + C + "))") + ";\n";
  } else {
    s += "  for (uint o = 1u; o < " + u(S) + "; o <<= 1) { " + T + " y = as_" + T + "(hw_up(as_uint(x), o, " +
         CU + ")); if (lane >= o) x = " + combine(op, "x", "y") + "; }\n";
    if (k == "scan_exclusive")
      s += "  " + T + " y = as_" + T + "(hw_up(as_uint(x), 1u, " + CU + "));\n  x = lane == 0u ? (" + T + ")" +
           identity(op, type) + " : y;\n";
  }
  return s + "  return x;\n}\n";
}

// reqd: the Intel kernels also declare their work-group size, as clDNN's do; with a size that is
// a multiple of S the layer knows every sub-group is whole (variant "layer-reqd", no goal: it
// shows what that knowledge is worth next to the plain spelling the goal is judged on).
std::string source(bool intel, const std::vector<unsigned>& sizes, bool reqd = false) {
  std::string s;
  if (!intel)
    s += "static inline uint hw_bfly(uint v, uint m, uint c) {\n"
         "  uint r; __asm__ volatile(\"shfl.sync.bfly.b32 %0, %1, %2, %3, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(m), \"r\"(c));\n"
         "  return r;\n}\n"
         "static inline uint hw_up(uint v, uint d, uint c) {\n"
         "  uint r; __asm__ volatile(\"shfl.sync.up.b32 %0, %1, %2, %3, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(d), \"r\"(c));\n"
         "  return r;\n}\n";
  for (unsigned S : sizes)
    for (const char* kind : kKinds)
      for (const char* op : kOps)
        for (const char* type : kTypes) {
          std::string T = type, acc = T == "int" ? "uint" : "float";
          std::string call;
          if (intel) {
            call = std::string("sub_group_") + kind + "_" + op;
          } else {
            s += ptxFunction(kind, op, type, S);
            call = kernelName("hw", kind, op, type, S);
          }
          if (intel) s += "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n";
          if (reqd) s += "__attribute__((reqd_work_group_size(" + std::to_string(kWorkGroup) + ", 1, 1)))\n";
          s += "__kernel void " + kernelName(intel ? "intel" : "ptx", kind, op, type, S) + "(__global const " + T +
               "* in, __global " + acc + "* out, uint iters) {\n";
          s += "  size_t g = get_global_id(0);\n  " + T + " x = in[g];\n  " + acc + " acc = 0;\n";
          if (!intel) s += "  uint lane = (uint)get_local_id(0) & " + u(S - 1) + ";\n";
          s += "  for (uint i = 0; i < iters; i += 4u) {\n";
          for (unsigned j = 0; j < 4; ++j)
            s += "    acc += (" + acc + ")" + call + "(x + (" + T + ")((i + " + u(j) + ") & 15u)" +
                 (intel ? "" : ", lane") + ");\n";
          s += "  }\n  out[g] = acc;\n}\n";
        }
  return s;
}

// Host model of one case for the sub-group starting at element `base`; words of out[].
template <class T, class Acc>
std::vector<uint32_t> expected(const std::string& kind, const std::string& op, unsigned S, unsigned iters,
                               const std::vector<T>& in, std::size_t base) {
  auto f = [&](T a, T b) -> T { return op == "add" ? T(a + b) : op == "min" ? std::min(a, b) : std::max(a, b); };
  T id = op == "add" ? T(0)
         : op == "min" ? (std::is_same<T, float>::value ? T(INFINITY) : T(INT_MAX))
                       : (std::is_same<T, float>::value ? T(-INFINITY) : T(INT_MIN));
  std::vector<Acc> acc(S, Acc(0));
  std::vector<T> v(S);
  for (unsigned i = 0; i < iters; ++i) {
    for (unsigned l = 0; l < S; ++l) v[l] = T(in[base + l] + T(i & 15u));
    if (kind == "reduce") {
      T r = v[0];
      for (unsigned l = 1; l < S; ++l) r = f(r, v[l]);
      for (unsigned l = 0; l < S; ++l) acc[l] += Acc(r);
    } else {
      T run = id;
      for (unsigned l = 0; l < S; ++l) {
        T inc = l == 0 ? v[0] : f(run, v[l]);
        acc[l] += Acc(kind == "scan_inclusive" ? inc : run);
        run = inc;
      }
    }
  }
  std::vector<uint32_t> w(S);
  std::memcpy(w.data(), acc.data(), S * 4);
  return w;
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("reduce", "sub-group reduce and scan", "G calls/s", opt);
    Cl& cl = openCl(&r);
    r.variantOrder({kLayer, kLayerSpirv, kLayerReqd, "ptx"});
    std::vector<unsigned> sizes = opt.smoke ? std::vector<unsigned>{16} : std::vector<unsigned>{16, 32};
    const std::size_t global = opt.smoke ? 2 * kWorkGroup : static_cast<std::size_t>(cl.computeUnits) * 2048 * 4;
    const unsigned iters = opt.smoke ? 8 : 1024;
    const int warm = warmups(opt, 2), nrep = reps(opt, 10);
    r.config("global_size", static_cast<double>(global));
    r.config("iters", iters);
    r.config("reps", nrep);

    std::vector<int> inInt(global);
    std::vector<float> inFloat(global);
    for (std::size_t i = 0; i < global; ++i) {
      inInt[i] = static_cast<int>((i * 2654435761u) >> 7) % 64 - 32;
      inFloat[i] = static_cast<float>(inInt[i]);
    }
    Buffer bufInt(cl, global * 4, inInt.data()), bufFloat(cl, global * 4, inFloat.data()), out(cl, global * 4);

    Programs programs(cl);
    buildLayerAndPtx(&programs, cl, source(true, sizes), [&] { return source(false, sizes); });
    programs.build(kLayerReqd, source(true, sizes, true), "the Intel program with reqd_work_group_size did not build: ");

    std::vector<uint32_t> got(global);
    for (unsigned S : sizes)
      for (const char* kind : kKinds)
        for (const char* op : kOps)
          for (const char* type : kTypes) {
            std::string name = caseName(kind, op, type, S);
            if (!r.wanted(name)) continue;
            bool isInt = std::string(type) == "int";
            programs.each(&r, name, [&](const std::string& variant, cl_program p) {
              cl_kernel k = kernel(p, kernelName(variant == "ptx" ? "ptx" : "intel", kind, op, type, S));
              setArg(k, 0, isInt ? bufInt : bufFloat);
              setArg(k, 1, out);
              setArg(k, 2, static_cast<cl_uint>(iters));
              size_t g = global, l = kWorkGroup;
              out.fill(0xdeadbeefu);
              checkAndTime(cl, &r, name, variant, k, 1, &g, &l, warm, nrep, static_cast<double>(global) * iters, 1e9,
                           [&] {
                             out.read(got.data());
                             for (std::size_t sg : sampleSubGroups(global / S)) {
                               std::vector<uint32_t> want =
                                   isInt ? expected<int, uint32_t>(kind, op, S, iters, inInt, sg * S)
                                         : expected<float, float>(kind, op, S, iters, inFloat, sg * S);
                               for (unsigned l2 = 0; l2 < S; ++l2)
                                 if (got[sg * S + l2] != want[l2])
                                   return "element " + std::to_string(sg * S + l2) + ": got bits " +
                                          std::to_string(got[sg * S + l2]) + ", want " + std::to_string(want[l2]);
                             }
                             return std::string();
                           });
              clReleaseKernel(k);
            });
            r.ratio(name, "layer/ptx", kLayer, "ptx", RatioKind::Speed, 0.95);
            r.ratio(name, "spirv/source", kLayerSpirv, kLayer, RatioKind::Speed, 0.95);
            r.ratio(name, "layer-reqd/ptx", kLayerReqd, "ptx", RatioKind::Speed);
          }
    return r.finish();
  });
}
