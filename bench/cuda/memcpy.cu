// SPDX-License-Identifier: MIT
// CUDA baseline of benchmark 2: cudaMemcpy device-to-device of the buffer size that bench_block
// copies, timed with cudaEvents. Bandwidth counts bytes read + bytes written (2 x size), as the
// block-copy kernels do. Built on the GPU machine by run-gpu.sh:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cuda_memcpy bench/cuda/memcpy.cu
#include <cuda_runtime.h>

#include "../common/report.h"

using namespace isgb;

namespace {
void cudaCheck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("cuda_memcpy", "cudaMemcpy device-to-device (baseline of bench_block)", "GB/s", opt);
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess || count == 0) {
      r.note(std::string("CUDA baseline skipped: no CUDA device (") +
             (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
      return r.finish();
    }
    cudaDeviceProp p{};
    cudaCheck(cudaGetDeviceProperties(&p, 0), "cudaGetDeviceProperties");
    r.info("device", p.name);
    // Must match bench_block's buffer size (block_copy.cpp: kFullBytes / kSmokeBytes).
    const size_t bytes = opt.smoke ? (size_t(1) << 16) : (size_t(512) << 20);
    const int reps = opt.reps > 0 ? opt.reps : opt.smoke ? 2 : 20;
    const int warmup = opt.warmup >= 0 ? opt.warmup : 3;
    r.config("bytes", static_cast<double>(bytes));
    r.config("reps", reps);
    std::vector<uint32_t> host(bytes / 4);
    for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint32_t>(i * 2654435761u);
    void *src = nullptr, *dst = nullptr;
    cudaCheck(cudaMalloc(&src, bytes), "cudaMalloc");
    cudaCheck(cudaMalloc(&dst, bytes), "cudaMalloc");
    cudaCheck(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    cudaCheck(cudaMemset(dst, 0, bytes), "cudaMemset");
    cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpy D2D");
    std::vector<uint32_t> got(host.size());
    cudaCheck(cudaMemcpy(got.data(), dst, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy");
    int ok = got == host ? 1 : 0;
    if (!ok) r.note("memcpy_d2d cuda: WRONG RESULT");
    for (int i = 0; i < warmup; ++i) cudaCheck(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice), "D2D");
    cudaEvent_t e0, e1;
    cudaCheck(cudaEventCreate(&e0), "cudaEventCreate");
    cudaCheck(cudaEventCreate(&e1), "cudaEventCreate");
    std::vector<double> ms;
    for (int i = 0; i < reps; ++i) {
      cudaCheck(cudaEventRecord(e0), "cudaEventRecord");
      cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync");
      cudaCheck(cudaEventRecord(e1), "cudaEventRecord");
      cudaCheck(cudaEventSynchronize(e1), "cudaEventSynchronize");
      float t = 0;
      cudaCheck(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
      ms.push_back(t);
    }
    cudaFree(src);
    cudaFree(dst);
    r.add("memcpy_d2d", "cuda", ms, 2.0 * static_cast<double>(bytes), 1e9, ok);
    return r.finish();
  });
}
