// SPDX-License-Identifier: MIT
// The buffer that bench_block copies (block_copy.cpp) and that its CUDA baseline copies with
// cudaMemcpy (cuda/memcpy.cu): one size for both, so the bandwidths compare. Plain C++ (nvcc).
#pragma once

#include <cstddef>

namespace isgb {

inline std::size_t blockCopyBytes(bool smoke) {
  return smoke ? std::size_t(1) << 16 : std::size_t(512) << 20;  // 64 KiB : 512 MiB
}

}  // namespace isgb
