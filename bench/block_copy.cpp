// SPDX-License-Identifier: MIT
// Benchmark 2: block read/write bandwidth. A buffer copy in which every sub-group moves S x W
// elements with intel_sub_group_block_read{,2,4,8} + _write (and the _us forms of
// cl_intel_subgroups_short, when the layer builds them), through the layer, against cudaMemcpy
// device-to-device (--baseline cuda=FILE from bench/cuda/memcpy.cu) and against a plain OpenCL
// kernel with the same access pattern (p[lane + k*S], no Intel builtin). Bandwidth counts bytes
// read + written. Goal: layer >= 0.95x cudaMemcpy.
#include <cstring>

#include "common/cl_bench.h"
#include "common/copy_size.h"

using namespace isgb;

namespace {

constexpr std::size_t kWorkGroup = 256;

struct Elem {
  const char* type;     // OpenCL element type
  const char* suffix;   // builtin suffix: "" (uint) or "_us"
  unsigned bytes;
};
constexpr Elem kUint{"uint", "", 4};
constexpr Elem kUshort{"ushort", "_us", 2};

std::string vec(const Elem& e, unsigned w) { return w == 1 ? e.type : e.type + std::to_string(w); }
std::string nameOf(const char* flavor, const Elem& e, unsigned w, unsigned S) {
  return std::string(flavor) + "_copy" + std::to_string(w) + "_" + e.type + "_S" + std::to_string(S);
}
std::string caseOf(const Elem& e, unsigned w, unsigned S) {
  return "block_rw" + std::to_string(w) + "/" + e.type + "/S" + std::to_string(S);
}

std::string intelSource(const Elem& e, const std::vector<unsigned>& widths, const std::vector<unsigned>& sizes) {
  std::string s;
  for (unsigned S : sizes)
    for (unsigned w : widths) {
      std::string n = w == 1 ? "" : std::to_string(w);
      s += "__attribute__((intel_reqd_sub_group_size(" + std::to_string(S) + ")))\n";
      s += "__kernel void " + nameOf("intel", e, w, S) + "(__global const " + e.type + "* src, __global " +
           e.type + "* dst) {\n";
      s += "  size_t base = (get_global_id(0) - get_sub_group_local_id()) * " + std::to_string(w) + ";\n";
      s += "  " + vec(e, w) + " v = intel_sub_group_block_read" + e.suffix + n + "(src + base);\n";
      s += "  intel_sub_group_block_write" + std::string(e.suffix) + n + "(dst + base, v);\n}\n";
    }
  return s;
}

std::string plainSource(const Elem& e, const std::vector<unsigned>& widths, const std::vector<unsigned>& sizes) {
  std::string s;
  for (unsigned S : sizes)
    for (unsigned w : widths) {
      s += "__kernel void " + nameOf("plain", e, w, S) + "(__global const " + e.type + "* src, __global " +
           e.type + "* dst) {\n";
      s += "  uint lane = (uint)get_local_id(0) & " + std::to_string(S - 1) + "u;\n";
      s += "  size_t base = (get_global_id(0) - lane) * " + std::to_string(w) + " + lane;\n";
      for (unsigned k = 0; k < w; ++k) {
        std::string off = " + " + std::to_string(k * S);
        s += "  dst[base" + off + "] = src[base" + off + "];\n";
      }
      s += "}\n";
    }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("block", "block read/write copy bandwidth", "GB/s", opt);
    Cl& cl = openCl(&r);
    r.variantOrder({kLayer, kLayerSpirv, "plain", "cuda"});
    const std::size_t bytes = blockCopyBytes(opt.smoke);
    const int warm = warmups(opt, 3), nrep = reps(opt, 20);
    std::vector<unsigned> widths = {1, 2, 4, 8};
    std::vector<unsigned> sizes = opt.smoke ? std::vector<unsigned>{16} : std::vector<unsigned>{8, 16, 32};
    r.config("bytes", static_cast<double>(bytes));
    r.config("reps", nrep);
    if (opt.baselines.empty())
      r.note("cuda variant not compared: no --baseline cuda=FILE (run-gpu.sh passes it when a CUDA device exists)");

    std::vector<uint8_t> host(bytes);
    for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<uint8_t>((i * 2654435761u) >> 13);
    Buffer src(cl, bytes, host.data()), dst(cl, bytes);
    std::vector<uint8_t> got(bytes);

    for (const Elem& e : {kUint, kUshort}) {
      // Whether the layer has the _us forms is decided here, by whether they build.
      Programs programs(cl);
      programs.build(kLayer, intelSource(e, widths, sizes),
                     std::string("the ") + e.type + " program did not build " +
                         (e.bytes == 2 ? "(_us builtins of cl_intel_subgroups_short, not in docs/builtins.md yet?): "
                                       : "(is OPENCL_LAYERS set?): "),
                     1);
      if (spirvVariant())
        programs.buildFromSpirv(kLayerSpirv, intelSource(e, widths, sizes));
      programs.build("plain", plainSource(e, widths, sizes), "build failed: ", 2);
      for (unsigned S : sizes)
        for (unsigned w : widths) {
          std::string name = caseOf(e, w, S);
          if (!r.wanted(name)) continue;
          r.at(name).baselineCase["cuda"] = "memcpy_d2d";  // one cudaMemcpy for every case
          programs.each(&r, name, [&](const std::string& variant, cl_program p) {
            cl_kernel k = kernel(p, nameOf(variant == "plain" ? "plain" : "intel", e, w, S));
            setArg(k, 0, src);
            setArg(k, 1, dst);
            size_t g = bytes / e.bytes / w, l = kWorkGroup;
            dst.fill(0);
            runOnce(cl, k, 1, &g, &l);
            dst.read(got.data());
            int ok = std::memcmp(got.data(), host.data(), bytes) == 0 ? 1 : 0;
            if (!ok) r.note(name + " " + variant + ": WRONG RESULT (copy differs from the source)");
            r.add(name, variant, timeKernel(cl, k, 1, &g, &l, warm, nrep), 2.0 * static_cast<double>(bytes), 1e9, ok);
            clReleaseKernel(k);
          });
          r.ratio(name, "layer/cuda", kLayer, "cuda", RatioKind::Speed, 0.95);
          r.ratio(name, "layer/plain", kLayer, "plain", RatioKind::Speed);
          r.ratio(name, "spirv/source", kLayerSpirv, kLayer, RatioKind::Speed, 0.95);
          r.ratio(name, "plain/cuda", "plain", "cuda", RatioKind::Speed);
        }
    }
    return r.finish();
  });
}
