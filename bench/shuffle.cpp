// SPDX-License-Identifier: MIT
// Benchmark 1: shuffle throughput. intel_sub_group_shuffle / _xor / _down / _up on uint, float,
// ulong and float4 at S = 8, 16, 32 through the layer, against the same dependent chain in
// hand-written inline PTX (OpenCL, passes through the layer untouched) and, imported with
// --baseline cuda=FILE, in CUDA with __shfl_sync (bench/cuda/shuffle.cu, same process-free
// chain, same model). Goal: layer >= 0.98x CUDA at S = 32, >= 0.95x at S = 8 and 16.
#include <cmath>
#include <map>

#include "common/chain_cl.h"

using namespace isgb;

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("shuffle", "shuffle throughput, dependent chain per work-item", "G calls/s", opt);
    Cl& cl = openCl(&r);
    r.variantOrder({kLayer, "ptx", "cuda"});

    std::vector<ChainOp> ops(std::begin(kChainOps), std::end(kChainOps));
    std::vector<ChainType> types(std::begin(kChainTypes), std::end(kChainTypes));
    std::vector<unsigned> sizes = {8, 16, 32};
    if (opt.smoke) {
      // A CPU driver compiles each kernel at its first launch (about a second apiece on PoCL):
      // the smoke run keeps one scalar and one vector type at one size.
      types = {kChainTypes[0], kChainTypes[3]};
      sizes = {16};
    }
    ChainShape shape;
    // Enough work-groups to fill every compute unit several times over; the chain is long
    // enough that launch cost is noise (a few ms per case on an H200).
    shape.global = opt.smoke ? 2 * kChainWorkGroup
                             : static_cast<std::size_t>(cl.computeUnits) * 2048 * 4;
    shape.iters = opt.smoke ? 16 : 4096;
    shape.warmup = warmups(opt, 2);
    shape.reps = reps(opt, 10);
    r.config("global_size", static_cast<double>(shape.global));
    r.config("work_group", kChainWorkGroup);
    r.config("iters", shape.iters);
    r.config("reps", shape.reps);

    std::string log;
    std::map<std::string, std::string> why;  // per variant: why it is skipped
    cl_program intel = buildProgram(cl, chainSource(ChainFlavor::Intel, ops, types, sizes), "", &log);
    if (!intel) why[kLayer] = "the Intel program did not build (is OPENCL_LAYERS set?): " + firstLines(log, 3);
    cl_program ptx = nullptr;
    if (cl.nvidia) {
      ptx = buildProgram(cl, chainSource(ChainFlavor::Ptx, ops, types, sizes), "", &log);
      if (!ptx) why["ptx"] = "build failed: " + firstLines(log, 3);
    } else {
      why["ptx"] = "hand-written inline PTX builds only on NVIDIA";
    }
    if (opt.baselines.empty())
      r.note("cuda variant not compared: no --baseline cuda=FILE (run-gpu.sh passes it when a CUDA device exists)");

    for (unsigned S : sizes)
      for (ChainOp op : ops)
        for (const ChainType& t : types) {
          std::string name = chainCaseName(op, t.name, S);
          if (!r.wanted(name)) continue;
          struct V {
            const char* variant;
            cl_program p;
            ChainFlavor f;
          };
          for (V v : {V{kLayer, intel, ChainFlavor::Intel}, V{"ptx", ptx, ChainFlavor::Ptx}}) {
            if (!v.p) {
              r.skip(name, v.variant, why[v.variant]);
              continue;
            }
            cl_kernel k = kernel(v.p, chainKernelName(v.f, op, t, S));
            timeChain(cl, &r, name, v.variant, k, op, t, S, shape);
            clReleaseKernel(k);
          }
          r.ratio(name, "layer/cuda", kLayer, "cuda", RatioKind::Speed, S == 32 ? 0.98 : 0.95);
          r.ratio(name, "layer/ptx", kLayer, "ptx", RatioKind::Speed);
          r.ratio(name, "ptx/cuda", "ptx", "cuda", RatioKind::Speed);
        }
    if (intel) clReleaseProgram(intel);
    if (ptx) clReleaseProgram(ptx);
    return r.finish();
  });
}
