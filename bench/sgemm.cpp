// SPDX-License-Identifier: MIT
// Benchmark 7: an SGEMM written the Intel way, C = A * B (row-major, M x K times K x N), through
// the layer, against the same algorithm written for NVIDIA with inline PTX. Goal: >= 0.95x.
//
// Algorithm (both spellings): a sub-group of S lanes owns a TM x (TN * S) tile of C; lane l holds
// rows m0..m0+TM-1 of columns n0 + l + j*S (j < TN) in registers. Per K-chunk of S: each lane
// reads A[m0 + r][k0 + l] (a block read of row r), then for every kk < S it broadcasts
// A[m0 + r][k0 + kk] to the sub-group with a shuffle and multiplies it into a block read of
// B row k0 + kk (TN elements per lane). Intel: intel_sub_group_block_read/_read4/_write4 and
// intel_sub_group_shuffle with intel_reqd_sub_group_size(8 / 16). NVIDIA: plain loads at the
// same addresses and shfl.sync.idx with constant masks.
#include <cmath>
#include <random>

#include "common/cl_bench.h"

using namespace isgb;

namespace {

constexpr unsigned TM = 8, TN = 4;

// reqd: the Intel kernels also declare their work-group size (as clDNN's do): variant
// "layer-reqd", no goal; it shows what the layer makes of that knowledge (design.md §2).
std::string source(bool intel, const std::vector<unsigned>& sizes, const size_t* reqd = nullptr) {
  std::string s = "#define TM " + std::to_string(TM) + "\n";
  if (!intel)
    s += "static inline float hw_bcast(float v, uint src, uint c) {\n"
         "  uint r; __asm__ volatile(\"shfl.sync.idx.b32 %0, %1, %2, %3, 0xffffffff;\" : \"=r\"(r) : \"r\"(as_uint(v)), \"r\"(src), \"r\"(c));\n"
         "  return as_float(r);\n}\n";
  for (unsigned S : sizes) {
    std::string SS = std::to_string(S);
    if (intel) s += "__attribute__((intel_reqd_sub_group_size(" + SS + ")))\n";
    if (reqd)
      s += "__attribute__((reqd_work_group_size(" + std::to_string(reqd[0]) + ", " + std::to_string(reqd[1]) + ", 1)))\n";
    s += std::string("__kernel void ") + (intel ? "intel" : "ptx") + "_sgemm_S" + SS +
         "(__global const float* A, __global const float* B, __global float* C, uint M, uint N, uint K) {\n";
    s += intel ? "  const uint lane = get_sub_group_local_id();\n"
               : "  const uint lane = (uint)get_local_id(0) & " + std::to_string(S - 1) + "u;\n";
    s += "  const uint n0 = ((uint)get_global_id(0) - lane) * 4u;\n"
         "  const uint m0 = (uint)get_global_id(1) * TM;\n"
         "  float4 acc[TM];\n"
         "#pragma unroll\n"
         "  for (uint r = 0; r < TM; ++r) acc[r] = (float4)(0.0f);\n"
         "  for (uint k0 = 0; k0 < K; k0 += " + SS + "u) {\n"
         "    float a[TM];\n"
         "#pragma unroll\n"
         "    for (uint r = 0; r < TM; ++r)\n";
    s += intel ? "      a[r] = as_float(intel_sub_group_block_read((const __global uint*)(A + (m0 + r) * K + k0)));\n"
               : "      a[r] = A[(m0 + r) * K + k0 + lane];\n";
    s += "#pragma unroll\n"
         "    for (uint kk = 0; kk < " + SS + "u; ++kk) {\n"
         "      const __global float* brow = B + (k0 + kk) * N + n0;\n";
    s += intel ? "      float4 b = as_float4(intel_sub_group_block_read4((const __global uint*)brow));\n"
               : "      float4 b = (float4)(brow[lane], brow[lane + " + SS + "u], brow[lane + " + std::to_string(2 * S) +
                     "u], brow[lane + " + std::to_string(3 * S) + "u]);\n";
    s += "#pragma unroll\n"
         "      for (uint r = 0; r < TM; ++r)\n";
    s += intel ? "        acc[r] = mad((float4)(intel_sub_group_shuffle(a[r], kk)), b, acc[r]);\n"
               : "        acc[r] = mad((float4)(hw_bcast(a[r], kk, " + std::to_string(((32 - S) << 8) | 0x1f) +
                     "u)), b, acc[r]);\n";
    s += "    }\n  }\n"
         "#pragma unroll\n"
         "  for (uint r = 0; r < TM; ++r) {\n"
         "    __global float* crow = C + (m0 + r) * N + n0;\n";
    s += intel ? "    intel_sub_group_block_write4((__global uint*)crow, as_uint4(acc[r]));\n"
               : "    crow[lane] = acc[r].x; crow[lane + " + SS + "u] = acc[r].y; crow[lane + " + std::to_string(2 * S) +
                     "u] = acc[r].z; crow[lane + " + std::to_string(3 * S) + "u] = acc[r].w;\n";
    s += "  }\n}\n";
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("sgemm", "SGEMM, Intel-style (block reads + shuffles) vs the same algorithm in inline PTX", "TFLOP/s",
             opt);
    Cl& cl = openCl(&r);
    r.variantOrder({kLayer, kLayerSpirv, kLayerReqd, "ptx"});
    const cl_uint dim = opt.smoke ? 64 : 4096;
    const cl_uint M = dim, N = dim, K = dim;
    const int warm = warmups(opt, 2), nrep = reps(opt, 10);
    // A CPU driver compiles the unrolled kernel for a minute per size: the smoke run keeps one.
    std::vector<unsigned> sizes = opt.smoke ? std::vector<unsigned>{8} : std::vector<unsigned>{8, 16};
    r.config("M", M);
    r.config("N", N);
    r.config("K", K);
    r.config("reps", nrep);

    std::vector<float> A(std::size_t(M) * K), B(std::size_t(K) * N), C(std::size_t(M) * N);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& v : A) v = dist(rng);
    for (float& v : B) v = dist(rng);
    Buffer bufA(cl, A.size() * 4, A.data()), bufB(cl, B.size() * 4, B.data()), bufC(cl, C.size() * 4);

    const size_t global[2] = {N / TN, M / TM}, local[2] = {std::min<size_t>(64, global[0]), 2};
    Programs programs(cl);
    buildLayerAndPtx(&programs, cl, source(true, sizes), [&] { return source(false, sizes); });
    programs.build(kLayerReqd, source(true, sizes, local), "the Intel program with reqd_work_group_size did not build: ");

    // Checked entries: a fixed sample across C, against a double-precision host dot product.
    std::vector<std::pair<cl_uint, cl_uint>> sample;
    for (cl_uint i = 0; i < 512; ++i) sample.emplace_back((i * 7919u) % M, (i * 104729u + i / 3) % N);
    sample.emplace_back(M - 1, N - 1);

    for (unsigned S : sizes) {
      std::string name = "sgemm" + std::to_string(dim) + "/S" + std::to_string(S);
      if (!r.wanted(name)) continue;
      programs.each(&r, name, [&](const std::string& variant, cl_program p) {
        cl_kernel k = kernel(p, std::string(variant == "ptx" ? "ptx" : "intel") + "_sgemm_S" + std::to_string(S));
        setArg(k, 0, bufA);
        setArg(k, 1, bufB);
        setArg(k, 2, bufC);
        setArg(k, 3, M);
        setArg(k, 4, N);
        setArg(k, 5, K);
        bufC.fill(0);
        checkAndTime(cl, &r, name, variant, k, 2, global, local, warm, nrep, 2.0 * M * N * K, 1e12, [&] {
          bufC.read(C.data());
          for (auto [m, n] : sample) {
            double want = 0, mag = 0;
            for (cl_uint kk = 0; kk < K; ++kk) {
              want += double(A[std::size_t(m) * K + kk]) * B[std::size_t(kk) * N + n];
              mag += std::fabs(double(A[std::size_t(m) * K + kk]) * B[std::size_t(kk) * N + n]);
            }
            double got = C[std::size_t(m) * N + n];
            if (!(std::fabs(got - want) <= 1e-4 * mag + 1e-6))
              return "C[" + std::to_string(m) + "][" + std::to_string(n) + "] = " + std::to_string(got) + ", want " +
                     std::to_string(want);
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
