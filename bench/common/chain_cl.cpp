// SPDX-License-Identifier: MIT
#include "chain_cl.h"

#include <map>
#include <memory>

namespace isgb {
namespace {

const char* flavorPrefix(ChainFlavor f) {
  switch (f) {
    case ChainFlavor::Intel: return "intel";
    case ChainFlavor::Ptx: return "ptx";
    case ChainFlavor::Local: return "local";
  }
  return "?";
}

std::string u(unsigned v) { return std::to_string(v) + "u"; }

// as_uintN of an element of `words` words, and back.
std::string wordVec(const ChainType& t) { return t.words == 1 ? "uint" : "uint" + std::to_string(t.words); }

// Hand-written PTX helpers: one shfl.sync per 32-bit word, full member mask (every lane of the
// warp runs the chain), the segment operand c = ((32 - S) << 8) | 0x1f keeps it in S lanes.
std::string ptxHelpers(const std::vector<ChainType>& types) {
  std::string s =
      "static inline uint hw_idx(uint v, uint src, uint c) {\n"
      "  uint r; __asm__ volatile(\"shfl.sync.idx.b32 %0, %1, %2, %3, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(src), \"r\"(c));\n"
      "  return r;\n}\n"
      "static inline uint hw_bfly(uint v, uint m, uint c) {\n"
      "  uint r; __asm__ volatile(\"shfl.sync.bfly.b32 %0, %1, %2, %3, 0xffffffff;\" : \"=r\"(r) : \"r\"(v), \"r\"(m), \"r\"(c));\n"
      "  return r;\n}\n";
  static const char* comp[] = {"x", "y", "z", "w"};
  for (const ChainType& t : types) {
    for (const char* kind : {"idx", "bfly"}) {
      std::string T = t.name, U = wordVec(t);
      s += "static inline " + T + " hw_" + kind + "_" + T + "(" + T + " v, uint a, uint c) {\n";
      if (t.words == 1) {
        s += "  return as_" + T + "(hw_" + kind + "(as_uint(v), a, c));\n}\n";
        continue;
      }
      s += "  " + U + " w = as_" + U + "(v);\n";
      for (unsigned i = 0; i < t.words; ++i)
        s += std::string("  w.") + comp[i] + " = hw_" + kind + "(w." + comp[i] + ", a, c);\n";
      s += "  return as_" + T + "(w);\n}\n";
    }
  }
  return s;
}

std::string step(ChainFlavor f, ChainOp op, const ChainType& t, unsigned S, unsigned j) {
  const std::string T = t.name;
  const std::string mask = u(chainXorMask(j, S));
  const std::string lg = std::to_string(log2u(S));
  switch (f) {
    case ChainFlavor::Intel:
      switch (op) {
        case ChainOp::Idx: return "x = intel_sub_group_shuffle(x, src);";
        case ChainOp::Xor: return "x = intel_sub_group_shuffle_xor(x, " + mask + ");";
        case ChainOp::Down: return "{ " + T + " t = intel_sub_group_shuffle_down(x, y, 1u); y = x; x = t; }";
        case ChainOp::Up: return "{ " + T + " t = intel_sub_group_shuffle_up(y, x, 1u); y = x; x = t; }";
      }
      break;
    case ChainFlavor::Ptx: {
      // up/down keep Intel's semantics (per-lane delta allowed): both sources, then select.
      switch (op) {
        case ChainOp::Idx: return "x = hw_idx_" + T + "(x, src, C);";
        case ChainOp::Xor: return "x = hw_bfly_" + T + "(x, " + mask + ", C);";
        case ChainOp::Down:
          return "{ uint i = lane + 1u; " + T + " a = hw_idx_" + T + "(x, i, C); " + T + " b = hw_idx_" + T +
                 "(y, i, C); " + T + " t = i < " + u(S) + " ? a : b; y = x; x = t; }";
        case ChainOp::Up:
          return "{ uint i = lane - 1u; " + T + " a = hw_idx_" + T + "(x, i, C); " + T + " b = hw_idx_" + T +
                 "(y, i, C); " + T + " t = lane >= 1u ? a : b; y = x; x = t; }";
      }
      break;
    }
    case ChainFlavor::Local: {
      std::string open = "{ __local " + T + "* p = buf + h * " + u(2 * kChainWorkGroup) + "; ";
      std::string close = " h ^= 1u; }";
      switch (op) {
        case ChainOp::Idx:
          return open + "p[lid] = x; barrier(CLK_LOCAL_MEM_FENCE); x = p[base + ((lane + 1u) & " + u(S - 1) +
                 ")];" + close;
        case ChainOp::Xor:
          return open + "p[lid] = x; barrier(CLK_LOCAL_MEM_FENCE); x = p[base + (lane ^ " + mask + ")];" + close;
        case ChainOp::Down:
          return open + "p[2u * lid] = x; p[2u * lid + 1u] = y; barrier(CLK_LOCAL_MEM_FENCE); uint i = lane + 1u; " +
                 T + " t = p[2u * (base + (i & " + u(S - 1) + ")) + (i >> " + lg + ")]; y = x; x = t;" + close;
        case ChainOp::Up:
          return open + "p[2u * lid] = y; p[2u * lid + 1u] = x; barrier(CLK_LOCAL_MEM_FENCE); uint i = lane + " +
                 u(S - 1) + "; " + T + " t = p[2u * (base + (i & " + u(S - 1) + ")) + (i >> " + lg +
                 ")]; y = x; x = t;" + close;
      }
      break;
    }
  }
  return "";
}

}  // namespace

std::string chainKernelName(ChainFlavor f, ChainOp op, const ChainType& t, unsigned S) {
  return std::string(flavorPrefix(f)) + "_" + chainOpName(op) + "_" + t.name + "_S" + std::to_string(S);
}

std::string chainSource(ChainFlavor f, const std::vector<ChainOp>& ops,
                        const std::vector<ChainType>& types, const std::vector<unsigned>& sizes, bool reqd) {
  std::string s;
  if (f == ChainFlavor::Ptx) s += ptxHelpers(types);
  for (unsigned S : sizes)
    for (ChainOp op : ops)
      for (const ChainType& t : types) {
        const std::string T = t.name;
        bool pair = op == ChainOp::Down || op == ChainOp::Up;
        if (f == ChainFlavor::Intel) s += "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n";
        if (f == ChainFlavor::Intel && reqd)
          s += "__attribute__((reqd_work_group_size(" + std::to_string(kChainWorkGroup) + ", 1, 1)))\n";
        s += "__kernel void " + chainKernelName(f, op, t, S) + "(__global const " + T + "* in, __global " + T +
             "* out, uint iters) {\n";
        s += "  size_t g = get_global_id(0);\n  " + T + " x = in[g];\n";
        if (pair) s += "  " + T + " y = in[g + get_global_size(0)];\n";
        if (f == ChainFlavor::Intel) {
          if (op == ChainOp::Idx) s += "  uint src = (get_sub_group_local_id() + 1u) & " + u(S - 1) + ";\n";
        } else {
          s += "  uint lid = (uint)get_local_id(0), lane = lid & " + u(S - 1) + ", base = lid - lane;\n";
          s += "  (void)base;\n";
          if (op == ChainOp::Idx) s += "  uint src = (lane + 1u) & " + u(S - 1) + ";\n";
          if (f == ChainFlavor::Ptx) s += "  const uint C = " + u(((32 - S) << 8) | 0x1f) + ";\n";
          if (f == ChainFlavor::Local)
            s += "  __local " + T + " buf[" + std::to_string(4 * kChainWorkGroup) + "];\n  uint h = 0u;\n";
        }
        s += "  for (uint i = 0; i < iters; i += 8u) {\n";
        for (unsigned j = 0; j < 8; ++j) s += "    " + step(f, op, t, S, j) + "\n";
        s += "  }\n  out[g] = x;\n}\n";
      }
  return s;
}

ChainShape chainShape(const Cl& cl, const Options& opt, unsigned iters, Report* r) {
  ChainShape shape;
  shape.global = chainGlobalSize(opt.smoke, cl.computeUnits);
  shape.iters = opt.smoke ? 16 : iters;
  shape.warmup = warmups(opt, 2);
  shape.reps = reps(opt, 10);
  r->config("global_size", static_cast<double>(shape.global));
  r->config("work_group", kChainWorkGroup);
  r->config("iters", shape.iters);
  r->config("reps", shape.reps);
  return shape;
}

void timeChain(const Cl& cl, Report* r, const std::string& caseName, const std::string& variant,
               cl_kernel k, ChainOp op, const ChainType& t, unsigned S, const ChainShape& shape) {
  // Inputs are per (global size, words): built once and kept, since every variant of every
  // case of the same width reads the same data.
  static std::map<std::pair<std::size_t, unsigned>, std::unique_ptr<Buffer>> inputs;
  auto key = std::make_pair(shape.global, t.words);
  if (!inputs[key]) {
    std::vector<uint32_t> host = chainInput(shape.global, t.words);
    inputs[key] = std::make_unique<Buffer>(cl, host.size() * 4, host.data());
  }
  Buffer out(cl, shape.global * t.words * 4);
  out.fill(0xdeadbeefu);
  setArg(k, 0, *inputs[key]);
  setArg(k, 1, out);
  setArg(k, 2, static_cast<cl_uint>(shape.iters));
  size_t g = shape.global, l = kChainWorkGroup;
  checkAndTime(cl, r, caseName, variant, k, 1, &g, &l, shape.warmup, shape.reps,
               static_cast<double>(shape.global) * shape.iters, 1e9, [&] {
                 std::vector<uint32_t> got(shape.global * t.words);
                 out.read(got.data());
                 return chainVerify(op, S, t.words, shape.iters, shape.global, got);
               });
}

void timeChainCases(const Cl& cl, Report* r, const Programs& programs,
                    const std::string& intelVariant, ChainFlavor other,
                    const std::vector<ChainOp>& ops, const std::vector<ChainType>& types,
                    const std::vector<unsigned>& sizes, const ChainShape& shape,
                    const std::function<void(const std::string&, unsigned)>& ratios) {
  for (unsigned S : sizes)
    for (ChainOp op : ops)
      for (const ChainType& t : types) {
        const std::string name = chainCaseName(op, t.name, S);
        if (!r->wanted(name)) continue;
        programs.each(r, name, [&](const std::string& variant, cl_program p) {
          const ChainFlavor f =
              variant == intelVariant || variant == kLayerSpirv || variant == kLayerReqd ? ChainFlavor::Intel : other;
          cl_kernel k = kernel(p, chainKernelName(f, op, t, S));
          timeChain(cl, r, name, variant, k, op, t, S, shape);
          clReleaseKernel(k);
        });
        ratios(name, S);
      }
}

}  // namespace isgb
