// SPDX-License-Identifier: MIT
// CUDA baseline of benchmark 1: the shuffle chain of common/chain.h with __shfl_sync,
// __shfl_xor_sync, __shfl_down_sync and __shfl_up_sync at width S, timed with cudaEvents and
// checked against the same host model. Built on the GPU machine by run-gpu.sh:
//   nvcc -O3 -arch=sm_90 -std=c++17 -o cuda_shuffle bench/cuda/shuffle.cu
// Its JSON feeds bench_shuffle --baseline cuda=FILE (same case names, variant "cuda").
#include "../common/chain.h"
#include "../common/cuda_bench.h"

using namespace isgb;

namespace {

constexpr unsigned kFull = 0xffffffffu;  // every lane of the warp runs the chain

// One shuffle of any element type: scalars as CUDA overloads them, float4 per component.
template <class T>
struct Shfl {
  __device__ static T idx(T v, int src, int S) { return __shfl_sync(kFull, v, src, S); }
  __device__ static T bfly(T v, int m, int S) { return __shfl_xor_sync(kFull, v, m, S); }
  __device__ static T down(T v, unsigned d, int S) { return __shfl_down_sync(kFull, v, d, S); }
  __device__ static T up(T v, unsigned d, int S) { return __shfl_up_sync(kFull, v, d, S); }
};
template <>
struct Shfl<float4> {
  using S1 = Shfl<float>;
  __device__ static float4 idx(float4 v, int s, int S) {
    return make_float4(S1::idx(v.x, s, S), S1::idx(v.y, s, S), S1::idx(v.z, s, S), S1::idx(v.w, s, S));
  }
  __device__ static float4 bfly(float4 v, int m, int S) {
    return make_float4(S1::bfly(v.x, m, S), S1::bfly(v.y, m, S), S1::bfly(v.z, m, S), S1::bfly(v.w, m, S));
  }
  __device__ static float4 down(float4 v, unsigned d, int S) {
    return make_float4(S1::down(v.x, d, S), S1::down(v.y, d, S), S1::down(v.z, d, S), S1::down(v.w, d, S));
  }
  __device__ static float4 up(float4 v, unsigned d, int S) {
    return make_float4(S1::up(v.x, d, S), S1::up(v.y, d, S), S1::up(v.z, d, S), S1::up(v.w, d, S));
  }
};

__host__ __device__ constexpr unsigned log2c(unsigned v) { return v <= 1 ? 0 : 1 + log2c(v / 2); }

// The chain of chain.h. up/down have Intel's two-source semantics (lane S-1 of a down reads
// y[0]), so they take two shuffles and a select here as in the layer and the PTX kernel.
template <class T, unsigned S, int OP>
__global__ void chain(const T* in, T* out, unsigned iters) {
  size_t g = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  size_t n = static_cast<size_t>(gridDim.x) * blockDim.x;
  T x = in[g];
  T y = in[g + n];
  unsigned lane = threadIdx.x & (S - 1);
  int src = static_cast<int>((lane + 1) & (S - 1));
  for (unsigned i = 0; i < iters; i += 8) {
#pragma unroll
    for (unsigned j = 0; j < 8; ++j) {
      if (OP == 0) {
        x = Shfl<T>::idx(x, src, S);
      } else if (OP == 1) {
        x = Shfl<T>::bfly(x, 1 << (j % log2c(S)), S);
      } else if (OP == 2) {
        T a = Shfl<T>::down(x, 1, S);
        T b = Shfl<T>::idx(y, static_cast<int>((lane + 1) & (S - 1)), S);
        T t = lane + 1 < S ? a : b;
        y = x;
        x = t;
      } else {
        T a = Shfl<T>::up(x, 1, S);
        T b = Shfl<T>::idx(y, static_cast<int>((lane + S - 1) & (S - 1)), S);
        T t = lane >= 1 ? a : b;
        y = x;
        x = t;
      }
    }
  }
  out[g] = x;
}

struct Run {
  Report* r;
  size_t global;
  unsigned iters;
  int warmup, reps;
};

template <class T, unsigned S, int OP>
void runCase(const Run& run, const char* typeName) {
  ChainOp op = kChainOps[OP];
  std::string name = chainCaseName(op, typeName, S);
  if (!run.r->wanted(name)) return;
  const unsigned words = sizeof(T) / 4;
  std::vector<uint32_t> host = chainInput(run.global, words);
  void *in = nullptr, *out = nullptr;
  cudaCheck(cudaMalloc(&in, host.size() * 4), "cudaMalloc");
  cudaCheck(cudaMalloc(&out, run.global * words * 4), "cudaMalloc");
  cudaCheck(cudaMemcpy(in, host.data(), host.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy");
  cudaCheck(cudaMemset(out, 0xef, run.global * words * 4), "cudaMemset");
  dim3 grid(static_cast<unsigned>(run.global / kChainWorkGroup)), block(kChainWorkGroup);
  auto launch = [&] {
    chain<T, S, OP><<<grid, block>>>(static_cast<const T*>(in), static_cast<T*>(out), run.iters);
  };
  launch();
  cudaCheck(cudaDeviceSynchronize(), "chain kernel");
  std::vector<uint32_t> got(run.global * words);
  cudaCheck(cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::string bad = chainVerify(op, S, words, run.iters, run.global, got);
  if (!bad.empty()) run.r->note(name + " cuda: WRONG RESULT, " + bad);
  std::vector<double> ms = timeCuda(launch, run.warmup, run.reps);
  cudaFree(in);
  cudaFree(out);
  run.r->add(name, "cuda", ms, static_cast<double>(run.global) * run.iters, 1e9, bad.empty() ? 1 : 0);
}

template <class T, unsigned S>
void runOps(const Run& run, const char* typeName) {
  runCase<T, S, 0>(run, typeName);
  runCase<T, S, 1>(run, typeName);
  runCase<T, S, 2>(run, typeName);
  runCase<T, S, 3>(run, typeName);
}

template <unsigned S>
void runSize(const Run& run) {
  runOps<unsigned, S>(run, "uint");
  runOps<float, S>(run, "float");
  runOps<unsigned long long, S>(run, "ulong");
  runOps<float4, S>(run, "float4");
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("cuda_shuffle", "CUDA __shfl_*_sync chain (baseline of bench_shuffle)", "G calls/s", opt);
    cudaDeviceProp p{};
    if (!openCuda(&r, &p)) return r.finish();
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    r.info("cuda", "driver " + std::to_string(driver) + ", runtime " + std::to_string(runtime));
    Run run{&r, chainGlobalSize(opt.smoke, static_cast<unsigned>(p.multiProcessorCount)),
            opt.smoke ? 16u : 4096u, warmups(opt, 2), reps(opt, 10)};
    r.config("global_size", static_cast<double>(run.global));
    r.config("iters", run.iters);
    r.config("reps", run.reps);
    std::printf("device: %s (CUDA), %d SMs\n", p.name, p.multiProcessorCount);
    runSize<8>(run);
    runSize<16>(run);
    runSize<32>(run);
    return r.finish();
  });
}
