// SPDX-License-Identifier: MIT
// An experiment behind docs/performance.md (block copy), not part of run-gpu.sh: the copy
// bandwidth of the access shapes a block read/write can compile to, against cudaMemcpy, at the
// size bench_block uses. Shapes: the block read4/write4 of S = 32 as strided scalar loads
// (scalar4, s4first: loads first, may alias; s4asm: the same through inline ld.global; s4alias:
// load/store interleaved, what a plain OpenCL copy compiles to), as a vector load with a shuffle
// transpose (vec4: 4 shuffles per element; vec4rot: 1 shuffle per element with rotated sends),
// and one uint per thread (scalar1, the shape of read1). Then every shape bench_block times, as
// CUDA: T = uint or ushort, W = 1, 2, 4, 8 elements per thread at p[lane + k*S] of a sub-group
// of S = 8, 16, 32 lanes (loads first), 256 threads per block, against cudaMemcpy of the same
// bytes: what the hardware gives each shape, whoever writes it. Each result is checked.
//   nvcc -O3 -arch=sm_90 -o block_shapes bench/cuda/block_shapes.cu && ./block_shapes
#include <cstdio>
#include <cuda_runtime.h>
__global__ void scalar4(const unsigned* __restrict__ src, unsigned* __restrict__ dst) {
  unsigned lane = threadIdx.x & 31, sg = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned* p = src + sg * 128; unsigned* q = dst + sg * 128;
  unsigned v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) v[k] = p[lane + 32 * k];
#pragma unroll
  for (int k = 0; k < 4; ++k) q[lane + 32 * k] = v[k];
}
__global__ void vec4(const unsigned* __restrict__ src, unsigned* __restrict__ dst) {
  unsigned lane = threadIdx.x & 31, sg = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned* p = src + sg * 128; unsigned* q = dst + sg * 128;
  uint4 a = reinterpret_cast<const uint4*>(p)[lane];  // elements 4*lane .. 4*lane+3
  unsigned m = __activemask();
  unsigned v[4];
  // v[k] = elem(lane + 32k): lane (lane/4 + 8k), component lane%4. Rotate-free: 4 shuffles each.
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    unsigned s = (lane >> 2) + 8 * k;
    unsigned x = __shfl_sync(m, a.x, s), y = __shfl_sync(m, a.y, s), z = __shfl_sync(m, a.z, s), w = __shfl_sync(m, a.w, s);
    unsigned c = lane & 3;
    v[k] = c == 0 ? x : c == 1 ? y : c == 2 ? z : w;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) q[lane + 32 * k] = v[k];
}
__global__ void vec4rot(const unsigned* __restrict__ src, unsigned* __restrict__ dst) {
  // Round j: each reader wants component lane%4 of some source; each source sends the one
  // component that its readers of round j want, so one shuffle serves a whole round.
  unsigned lane = threadIdx.x & 31, sg = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const unsigned* p = src + sg * 128; unsigned* q = dst + sg * 128;
  uint4 a = reinterpret_cast<const uint4*>(p)[lane];
  unsigned m = __activemask();
  unsigned e[4] = {a.x, a.y, a.z, a.w};
  unsigned v[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    unsigned c = lane & 3;                 // component this reader wants
    unsigned k = (j - c) & 3;              // which k this reader serves in round j
    unsigned s = (lane >> 2) + 8 * k;      // source lane
    unsigned send_c = (j - (lane >> 3)) & 3;  // as a source (lane = r/4 + 8k -> k = lane/8): send comp c=(j-k)&3
    unsigned sendv = send_c == 0 ? e[0] : send_c == 1 ? e[1] : send_c == 2 ? e[2] : e[3];
    unsigned got = __shfl_sync(m, sendv, s);
    // got is elem(lane + 32k); place into v[k]
    if (k == 0) v[0] = got; else if (k == 1) v[1] = got; else if (k == 2) v[2] = got; else v[3] = got;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) q[lane + 32 * k] = v[k];
}
__global__ void scalar1(const unsigned* src, unsigned* dst) {
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  dst[i] = src[i];
}
__global__ void scalar4alias(const unsigned* src, unsigned* dst) {
  unsigned lane = threadIdx.x & 31; size_t sg = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  size_t base = sg * 128 + lane;
#pragma unroll
  for (int k = 0; k < 4; ++k) dst[base + 32 * k] = src[base + 32 * k];
}
__global__ void s4first(const unsigned* src, unsigned* dst) {  // loads first, may alias
  unsigned lane = threadIdx.x & 31; size_t sg = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  size_t base = sg * 128 + lane;
  unsigned v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) v[k] = src[base + 32 * k];
#pragma unroll
  for (int k = 0; k < 4; ++k) dst[base + 32 * k] = v[k];
}
__global__ void s4volatile(const unsigned* src, unsigned* dst) {  // loads first, through asm ld.global
  unsigned lane = threadIdx.x & 31; size_t sg = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  size_t base = sg * 128 + lane;
  unsigned v[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) asm volatile("ld.global.u32 %0, [%1];" : "=r"(v[k]) : "l"(src + base + 32 * k));
#pragma unroll
  for (int k = 0; k < 4; ++k) dst[base + 32 * k] = v[k];
}
// bench_block's shape: a sub-group of S lanes moves S x W elements of T, lane i element k at
// p[i + k*S], all loads before the stores (as the layer's block read then write).
template <class T, int W, int S>
__global__ void subgroupShape(const T* __restrict__ src, T* __restrict__ dst) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const size_t base = (t / S) * S * W + t % S;
  T v[W];
#pragma unroll
  for (int k = 0; k < W; ++k) v[k] = src[base + k * S];
#pragma unroll
  for (int k = 0; k < W; ++k) dst[base + k * S] = v[k];
}
template <class T, int W, int S>
void timeShape(const char* type, const void* a, void* b, size_t bytes, float memcpyMs, cudaEvent_t e0,
               cudaEvent_t e1, const unsigned char* want) {
  const size_t threads = bytes / sizeof(T) / W;
  float best = 1e9;
  for (int r = 0; r < 10; ++r) {
    cudaMemset(b, 0, bytes);
    cudaEventRecord(e0);
    subgroupShape<T, W, S><<<threads / 256, 256>>>(static_cast<const T*>(a), static_cast<T*>(b));
    cudaEventRecord(e1);
    cudaEventSynchronize(e1);
    float ms;
    cudaEventElapsedTime(&ms, e0, e1);
    if (ms < best) best = ms;
  }
  unsigned char* g = (unsigned char*)malloc(bytes);
  cudaMemcpy(g, b, bytes, cudaMemcpyDeviceToHost);
  size_t bad = 0;
  for (size_t i = 0; i < bytes; ++i) bad += g[i] != want[i];
  free(g);
  printf("| %s | %d | %d | %.3f | %.0f | %.3fx |%s\n", type, W, S, best, 2.0 * bytes / best / 1e6,
         memcpyMs / best, bad ? " WRONG" : "");
}
template <class T, int S>
void timeWidths(const char* type, const void* a, void* b, size_t bytes, float memcpyMs, cudaEvent_t e0,
                cudaEvent_t e1, const unsigned char* want) {
  timeShape<T, 1, S>(type, a, b, bytes, memcpyMs, e0, e1, want);
  timeShape<T, 2, S>(type, a, b, bytes, memcpyMs, e0, e1, want);
  timeShape<T, 4, S>(type, a, b, bytes, memcpyMs, e0, e1, want);
  timeShape<T, 8, S>(type, a, b, bytes, memcpyMs, e0, e1, want);
}

int main() {
  const size_t n = size_t(1) << 27;  // 512 MiB of uint, as bench_block
  unsigned *a, *b; cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
  unsigned* h = (unsigned*)malloc(n * 4); for (size_t i = 0; i < n; ++i) h[i] = unsigned(i * 2654435761u);
  cudaMemcpy(a, h, n * 4, cudaMemcpyHostToDevice);
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  auto time = [&](const char* name, void (*k)(const unsigned*, unsigned*), unsigned per = 4) {
    unsigned threads = n / per;
    float best = 1e9;
    for (int r = 0; r < 10; ++r) {
      cudaMemset(b, 0, n * 4);
      cudaEventRecord(e0); k<<<threads / 256, 256>>>(a, b); cudaEventRecord(e1); cudaEventSynchronize(e1);
      float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms;
    }
    unsigned* g = (unsigned*)malloc(n * 4); cudaMemcpy(g, b, n * 4, cudaMemcpyDeviceToHost);
    size_t bad = 0; for (size_t i = 0; i < n; ++i) bad += g[i] != h[i]; free(g);
    printf("%-8s %.3f ms  %.0f GB/s  bad=%zu\n", name, best, 2.0 * n * 4 / best / 1e6, bad);
  };
  float best = 1e9;
  for (int r = 0; r < 10; ++r) { cudaEventRecord(e0); cudaMemcpy(b, a, n * 4, cudaMemcpyDeviceToDevice); cudaEventRecord(e1); cudaEventSynchronize(e1); float ms; cudaEventElapsedTime(&ms, e0, e1); if (ms < best) best = ms; }
  printf("memcpy   %.3f ms  %.0f GB/s\n", best, 2.0 * n * 4 / best / 1e6);
  time("scalar4", scalar4); time("vec4", vec4); time("vec4rot", vec4rot);
  time("scalar1", scalar1, 1); time("s4alias", scalar4alias); time("s4first", s4first); time("s4asm", s4volatile);
  printf("\n| T | W | S | ms | GB/s | / cudaMemcpy |\n|---|---:|---:|---:|---:|---:|\n");
  const unsigned char* want = reinterpret_cast<const unsigned char*>(h);
  for (auto* f : {timeWidths<unsigned, 8>, timeWidths<unsigned, 16>, timeWidths<unsigned, 32>})
    f("uint", a, b, n * 4, best, e0, e1, want);
  for (auto* f : {timeWidths<unsigned short, 8>, timeWidths<unsigned short, 16>, timeWidths<unsigned short, 32>})
    f("ushort", a, b, n * 4, best, e0, e1, want);
}
