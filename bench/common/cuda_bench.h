// SPDX-License-Identifier: MIT
// What the CUDA baselines (bench/cuda/*.cu) share: error checks, opening the device (or saying
// in the report why there is none) and cudaEvent timing. Compiled by nvcc only, on the GPU
// machine, by run-gpu.sh.
#pragma once

#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "report.h"

namespace isgb {

inline void cudaCheck(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// Device 0 into `*p`, its name recorded as info "device"; false, with a note saying why, when
// there is no CUDA device (the baseline then writes an empty report).
inline bool openCuda(Report* r, cudaDeviceProp* p) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    r->note(std::string("CUDA baseline skipped: no CUDA device (") +
            (e != cudaSuccess ? cudaGetErrorString(e) : "0 devices") + ")");
    return false;
  }
  *p = cudaDeviceProp{};
  cudaCheck(cudaGetDeviceProperties(p, 0), "cudaGetDeviceProperties");
  r->info("device", p->name);
  return true;
}

// Runs `launch` `warmup` times untimed, then `reps` times, each between two cudaEvents on the
// default stream; returns each run's time in milliseconds (cudaEventElapsedTime).
template <class Launch>
std::vector<double> timeCuda(Launch&& launch, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) launch();
  cudaEvent_t e0, e1;
  cudaCheck(cudaEventCreate(&e0), "cudaEventCreate");
  cudaCheck(cudaEventCreate(&e1), "cudaEventCreate");
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    cudaCheck(cudaEventRecord(e0), "cudaEventRecord");
    launch();
    cudaCheck(cudaEventRecord(e1), "cudaEventRecord");
    cudaCheck(cudaEventSynchronize(e1), "cudaEventSynchronize");
    float t = 0;
    cudaCheck(cudaEventElapsedTime(&t, e0, e1), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return ms;
}

}  // namespace isgb
