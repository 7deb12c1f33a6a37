// SPDX-License-Identifier: MIT
// The shuffle chain that benchmarks 1 (throughput) and 4 (local strategy) time, and its host
// reference. Plain C++ so that the CUDA baseline (bench/cuda/shuffle.cu) runs the same chain and
// checks its result with the same model.
//
// Per work-item: x = in[g], y = in[g + N]; then `iters` dependent steps (iters % 8 == 0, the
// kernels unroll by 8), then out[g] = x. One step, within a sub-group of S lanes, l = lane:
//   idx : x = shuffle(x, (l + 1) % S)
//   xor : x = shuffle_xor(x, 1 << ((step % 8) % log2 S))   (varies per unrolled step, so no two
//                                                           neighbouring steps cancel)
//   down: t = shuffle_down(x, y, 1); y = x; x = t         (Intel semantics: lane S-1 reads y[0])
//   up  : t = shuffle_up(y, x, 1);   y = x; x = t         (lane 0 reads y[S-1])
// Values move as 32-bit words (W words per element: uint/float 1, ulong 2, float4 4); the model
// works on words, so it is the same for every type of the same width.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace isgb {

enum class ChainOp { Idx, Xor, Down, Up };
constexpr ChainOp kChainOps[] = {ChainOp::Idx, ChainOp::Xor, ChainOp::Down, ChainOp::Up};

inline const char* chainOpName(ChainOp op) {
  switch (op) {
    case ChainOp::Idx: return "shuffle";
    case ChainOp::Xor: return "shuffle_xor";
    case ChainOp::Down: return "shuffle_down";
    case ChainOp::Up: return "shuffle_up";
  }
  return "?";
}

struct ChainType {
  const char* name;   // OpenCL C spelling
  unsigned words;     // 32-bit words per element
};
constexpr ChainType kChainTypes[] = {{"uint", 1}, {"float", 1}, {"ulong", 2}, {"float4", 4}};

constexpr unsigned kChainWorkGroup = 256;  // work-items per work-group (CUDA: per block), every flavor

// Work-items of a chain run: enough work-groups to fill every compute unit (SM) several times
// over, so that launch cost is noise; two work-groups in a smoke run.
inline std::size_t chainGlobalSize(bool smoke, unsigned computeUnits) {
  return smoke ? 2 * kChainWorkGroup : static_cast<std::size_t>(computeUnits) * 2048 * 4;
}

inline unsigned log2u(unsigned v) {
  unsigned r = 0;
  while ((1u << r) < v) ++r;
  return r;
}
inline unsigned chainXorMask(unsigned unrolledStep, unsigned S) {
  return 1u << (unrolledStep % log2u(S));
}

// Word w of element e of the input buffer: a finite float bit pattern in [1, 2), so float types
// never hold NaNs whose payload a driver might canonicalise; the chain only moves bits.
inline uint32_t chainInputWord(uint64_t element, unsigned w, unsigned words) {
  uint64_t z = element * words + w + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return 0x3f800000u | static_cast<uint32_t>(z & 0x007fffffu);
}

inline std::vector<uint32_t> chainInput(uint64_t n, unsigned words) {
  std::vector<uint32_t> v(2 * n * words);
  for (uint64_t e = 0; e < 2 * n; ++e)
    for (unsigned w = 0; w < words; ++w) v[e * words + w] = chainInputWord(e, w, words);
  return v;
}

inline std::string chainCaseName(ChainOp op, const char* type, unsigned S) {
  return std::string(chainOpName(op)) + "/" + type + "/S" + std::to_string(S);
}

// Expected out[] words of the sub-group whose member 0 is element `base` (n: global size).
inline std::vector<uint32_t> chainExpected(ChainOp op, unsigned S, unsigned words, unsigned iters,
                                           uint64_t base, uint64_t n) {
  std::vector<uint32_t> x(S * words), y(S * words), t(S * words);
  for (unsigned l = 0; l < S; ++l)
    for (unsigned w = 0; w < words; ++w) {
      x[l * words + w] = chainInputWord(base + l, w, words);
      y[l * words + w] = chainInputWord(n + base + l, w, words);
    }
  for (unsigned step = 0; step < iters; ++step) {
    for (unsigned l = 0; l < S; ++l) {
      const uint32_t* src = nullptr;
      switch (op) {
        case ChainOp::Idx: src = &x[((l + 1) % S) * words]; break;
        case ChainOp::Xor: src = &x[(l ^ chainXorMask(step % 8, S)) * words]; break;
        case ChainOp::Down: src = l + 1 < S ? &x[(l + 1) * words] : &y[(l + 1 - S) * words]; break;
        case ChainOp::Up: src = l >= 1 ? &x[(l - 1) * words] : &y[(S - 1) * words]; break;
      }
      for (unsigned w = 0; w < words; ++w) t[l * words + w] = src[w];
    }
    if (op == ChainOp::Down || op == ChainOp::Up) y = x;
    x.swap(t);
  }
  return x;
}

// Sub-groups whose results are checked: spread over the whole grid, first and last included.
inline std::vector<uint64_t> sampleSubGroups(uint64_t count, uint64_t want = 48) {
  std::vector<uint64_t> v;
  if (count <= want) {
    for (uint64_t i = 0; i < count; ++i) v.push_back(i);
    return v;
  }
  for (uint64_t i = 0; i < want - 1; ++i) v.push_back(i * (count / want) + (i * 7919) % (count / want));
  v.push_back(count - 1);
  return v;
}

// Compares the sampled sub-groups of `out` with the model. Returns an empty string or the first
// mismatch, in words.
inline std::string chainVerify(ChainOp op, unsigned S, unsigned words, unsigned iters, uint64_t n,
                               const std::vector<uint32_t>& out) {
  for (uint64_t sg : sampleSubGroups(n / S)) {
    uint64_t base = sg * S;
    std::vector<uint32_t> want = chainExpected(op, S, words, iters, base, n);
    for (unsigned i = 0; i < S * words; ++i)
      if (out[base * words + i] != want[i])
        return "element " + std::to_string(base + i / words) + " word " + std::to_string(i % words) +
               ": got " + std::to_string(out[base * words + i]) + ", want " + std::to_string(want[i]);
  }
  return {};
}

}  // namespace isgb
