// SPDX-License-Identifier: MIT
// cuBLAS baseline of bench_clblast: cublasSgemm and cublasSgemv on the cases of
// common/blas_cases.h, checked against the same host reference, timed as bench_clblast times
// CLBlast (a batch of calls between two cudaEvents, divided by the batch). Built on the GPU
// machine by run-gpu.sh:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cuda_cublas bench/cuda/cublas.cu -lcublas
// Its JSON feeds bench_clblast --baseline cublas=FILE (same case names, variant "cublas").
#include <cublas_v2.h>

#include "../common/blas_cases.h"
#include "../common/cuda_bench.h"

using namespace isgb;

namespace {

void cublasCheck(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) throw std::runtime_error(std::string(what) + ": cuBLAS status " + std::to_string(s));
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("cuda_cublas", "cuBLAS SGEMM/SGEMV (baseline of bench_clblast)", "GFLOP/s", opt);
    cudaDeviceProp p{};
    if (!openCuda(&r, &p)) return r.finish();
    cublasHandle_t h;
    cublasCheck(cublasCreate(&h), "cublasCreate");
    // CUDA cores, as CLBlast computes: no TF32 tensor-core shortcut for SGEMM.
    cublasCheck(cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    const int nrep = reps(opt, 9), warm = warmups(opt, 2), batch = blas::batch(opt.smoke);
    for (const blas::Shape& s : blas::shapes(opt.smoke)) {
      if (!r.wanted(s.name)) continue;
      const blas::Inputs in(s);
      const int n = static_cast<int>(s.n);
      float *a = nullptr, *b = nullptr, *c = nullptr;
      cudaCheck(cudaMalloc(&a, s.aCount() * 4), "cudaMalloc");
      cudaCheck(cudaMalloc(&b, s.bCount() * 4), "cudaMalloc");
      cudaCheck(cudaMalloc(&c, s.cCount() * 4), "cudaMalloc");
      cudaCheck(cudaMemcpy(a, in.a.data(), s.aCount() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      cudaCheck(cudaMemcpy(b, in.b.data(), s.bCount() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      cudaCheck(cudaMemcpy(c, in.c.data(), s.cCount() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
      const float alpha = blas::kAlpha, beta = blas::kBeta;
      auto call = [&] {
        if (s.gemm)
          cublasCheck(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n), "cublasSgemm");
        else
          cublasCheck(cublasSgemv(h, CUBLAS_OP_N, n, n, &alpha, a, n, b, 1, &beta, c, 1), "cublasSgemv");
      };
      call();
      std::vector<float> got(s.cCount());
      cudaCheck(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
      const std::string wrong = blas::check(s, in, got);
      if (!wrong.empty()) r.note(s.name + " cublas: WRONG RESULT: " + wrong);
      std::vector<double> ms = timeCuda([&] { for (int k = 0; k < batch; ++k) call(); }, warm, nrep);
      for (double& t : ms) t /= batch;
      r.add(s.name, "cublas", ms, s.flops(), 1e9, wrong.empty() ? 1 : 0);
      cudaFree(a);
      cudaFree(b);
      cudaFree(c);
    }
    cublasDestroy(h);
    return r.finish();
  });
}
