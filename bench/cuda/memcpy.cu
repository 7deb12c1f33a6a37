// SPDX-License-Identifier: MIT
// CUDA baseline of benchmark 2: cudaMemcpy device-to-device of the buffer size that bench_block
// copies, timed with cudaEvents. Bandwidth counts bytes read + bytes written (2 x size), as the
// block-copy kernels do. Built on the GPU machine by run-gpu.sh:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cuda_memcpy bench/cuda/memcpy.cu
#include "../common/copy_size.h"
#include "../common/cuda_bench.h"

using namespace isgb;

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("cuda_memcpy", "cudaMemcpy device-to-device (baseline of bench_block)", "GB/s", opt);
    cudaDeviceProp p{};
    if (!openCuda(&r, &p)) return r.finish();
    const size_t bytes = blockCopyBytes(opt.smoke);
    const int nrep = reps(opt, 20);
    const int warmup = opt.warmup >= 0 ? opt.warmup : 3;  // 3 in smoke runs too
    r.config("bytes", static_cast<double>(bytes));
    r.config("reps", nrep);
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
    std::vector<double> ms = timeCuda(
        [&] { cudaCheck(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice), "cudaMemcpyAsync"); }, warmup,
        nrep);
    cudaFree(src);
    cudaFree(dst);
    r.add("memcpy_d2d", "cuda", ms, 2.0 * static_cast<double>(bytes), 1e9, ok);
    return r.finish();
  });
}
