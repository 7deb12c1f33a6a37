// SPDX-License-Identifier: MIT
// The cases of bench_clblast (bench/clblast.cpp) and of its cuBLAS baseline (bench/cuda/cublas.cu):
// column-major square SGEMM C = alpha A B + beta C and SGEMV y = alpha A x + beta y, their inputs
// and the host reference each result is checked against. Plain C++: nvcc compiles it too.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "report.h"

namespace isgb::blas {

struct Shape {
  std::string name;
  bool gemm;
  size_t n;  // M = N (= K for SGEMM)
  size_t aCount() const { return n * n; }
  size_t bCount() const { return gemm ? n * n : n; }  // B, or x
  size_t cCount() const { return gemm ? n * n : n; }  // C, or y
  double flops() const { return gemm ? 2.0 * n * n * n : 2.0 * n * n; }
};

inline std::vector<Shape> shapes(bool smoke) {
  if (smoke) return {{"sgemm_128", true, 128}, {"sgemv_256", false, 256}};
  return {{"sgemm_1024", true, 1024}, {"sgemm_2048", true, 2048}, {"sgemm_4096", true, 4096},
          {"sgemv_4096", false, 4096}, {"sgemv_16384", false, 16384}};
}

constexpr float kAlpha = 1.0f, kBeta = 0.5f;
// Calls per timed repetition: the time per call is the batch's wall time over its size.
inline int batch(bool smoke) { return smoke ? 2 : 10; }

// Values in [-1, 1) from a hash of the index and the matrix: reproducible, no two alike.
inline std::vector<float> values(size_t count, uint32_t salt) {
  std::vector<float> v(count);
  for (size_t i = 0; i < count; ++i) {
    uint32_t h = static_cast<uint32_t>(i) * 2654435761u ^ salt * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    v[i] = static_cast<float>(h & 0xffff) / 32768.0f - 1.0f;
  }
  return v;
}

struct Inputs {
  std::vector<float> a, b, c;
  explicit Inputs(const Shape& s) : a(values(s.aCount(), 1)), b(values(s.bCount(), 2)), c(values(s.cCount(), 3)) {}
};

// Checks `got` (the result of one call on `in`): every row of SGEMV, 509 entries of SGEMM spread
// over the matrix, each against a double sum within float rounding of the sum of |terms|.
// Returns "" or what was wrong.
inline std::string check(const Shape& s, const Inputs& in, const std::vector<float>& got) {
  const size_t n = s.n, count = s.cCount(), checks = s.gemm ? 509 : n;
  for (size_t t = 0; t < checks; ++t) {
    const size_t idx = s.gemm ? (t * 2654435761u) % count : t;
    const size_t i = idx % n, j = s.gemm ? idx / n : 0;
    double ref = 0, mag = 0;
    for (size_t k = 0; k < n; ++k) {
      const double term = static_cast<double>(in.a[i + k * n]) * in.b[k + j * n];
      ref += term;
      mag += std::fabs(term);
    }
    ref = kAlpha * ref + kBeta * static_cast<double>(in.c[idx]);
    if (!(std::fabs(got[idx] - ref) <= 1e-5 * mag + 1e-5))
      return "(" + std::to_string(i) + ", " + std::to_string(j) + ") is " + fmt("%.6g", got[idx]) +
             ", expected " + fmt("%.6g", ref);
  }
  return {};
}

}  // namespace isgb::blas
