// SPDX-License-Identifier: MIT
// A rewritten kernel that keeps shuffled vectors in private arrays, and its host model: the
// register-heavy case of the largest-work-group test (tests/realworld) and of bench_regcap.
// Item i (sub-group size 16, member m = i % 16) gets, per vector width N in {2, 4, 8, 16},
// N * sum over r < 32 of (in[sub-group base + (m + r) % 16] + r) * (r + 1), modulo 2^32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace isgref {

inline const char* registerHeavyKernel() {
  return R"CLC(
#define BODY(T, N)                                                                        \
  {                                                                                       \
    T results[32];                                                                        \
    const T v = (T)(seed);                                                                \
    for (uint r = 0; r < 32; ++r)                                                         \
      results[r] = intel_sub_group_shuffle(v + (T)(r), (get_sub_group_local_id() + r) % 16u); \
    T s = (T)(0);                                                                         \
    for (uint r = 0; r < 32; ++r) s += results[r] * (T)(r + 1);                           \
    for (int c = 0; c < N; ++c) acc += ((uint*)&s)[c];                                   \
  }
__attribute__((intel_reqd_sub_group_size(16)))
kernel void heavy(global uint* out, global const uint* in) {
  const uint seed = in[get_global_id(0)];
  uint acc = 0;
  BODY(uint2, 2) BODY(uint4, 4) BODY(uint8, 8) BODY(uint16, 16)
  out[get_global_id(0)] = acc;
}
)CLC";
}

inline uint32_t registerHeavyExpected(const std::vector<uint32_t>& in, std::size_t i) {
  const std::size_t m = i % 16, base = i - m;
  uint32_t s = 0;
  for (uint32_t r = 0; r < 32; ++r) s += (in[base + (m + r) % 16] + r) * (r + 1);
  return s * (2 + 4 + 8 + 16);
}

}  // namespace isgref
