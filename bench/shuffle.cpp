// SPDX-License-Identifier: MIT
// Benchmark 1: shuffle throughput. intel_sub_group_shuffle / _xor / _down / _up on uint, float,
// ulong and float4 at S = 8, 16, 32 through the layer, against the same dependent chain in
// hand-written inline PTX (OpenCL, passes through the layer untouched) and, imported with
// --baseline cuda=FILE, in CUDA with __shfl_sync (bench/cuda/shuffle.cu, same process-free
// chain, same model). Goal: layer >= 0.98x CUDA at S = 32, >= 0.95x at S = 8 and 16. Variant
// layer-reqd: the same Intel kernels declaring their work-group size, whose shuffles the layer
// then knows a whole warp reaches (the constant full member mask, design.md §5).
#include <cmath>

#include "common/chain_cl.h"

using namespace isgb;

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("shuffle", "shuffle throughput, dependent chain per work-item", "G calls/s", opt);
    Cl& cl = openCl(&r);
    r.variantOrder({kLayer, kLayerSpirv, kLayerReqd, "ptx", "cuda"});

    std::vector<ChainOp> ops(std::begin(kChainOps), std::end(kChainOps));
    std::vector<ChainType> types(std::begin(kChainTypes), std::end(kChainTypes));
    std::vector<unsigned> sizes = {8, 16, 32};
    if (opt.smoke) {
      // A CPU driver compiles each kernel at its first launch (about a second apiece on PoCL):
      // the smoke run keeps one scalar and one vector type at one size.
      types = {kChainTypes[0], kChainTypes[3]};
      sizes = {16};
    }
    // The chain is long enough that launch cost is noise (a few ms per case on an H200).
    const ChainShape shape = chainShape(cl, opt, 4096, &r);

    Programs programs(cl);
    buildLayerAndPtx(&programs, cl, chainSource(ChainFlavor::Intel, ops, types, sizes),
                     [&] { return chainSource(ChainFlavor::Ptx, ops, types, sizes); });
    programs.build(kLayerReqd, chainSource(ChainFlavor::Intel, ops, types, sizes, /*reqd=*/true),
                   "the Intel program with reqd_work_group_size did not build: ");
    if (opt.baselines.empty())
      r.note("cuda variant not compared: no --baseline cuda=FILE (run-gpu.sh passes it when a CUDA device exists)");

    timeChainCases(cl, &r, programs, kLayer, ChainFlavor::Ptx, ops, types, sizes, shape,
                   [&](const std::string& name, unsigned S) {
                     r.ratio(name, "layer/cuda", kLayer, "cuda", RatioKind::Speed, S == 32 ? 0.98 : 0.95);
                     r.ratio(name, "layer/ptx", kLayer, "ptx", RatioKind::Speed);
                     r.ratio(name, "layer-reqd/cuda", kLayerReqd, "cuda", RatioKind::Speed);
                     r.ratio(name, "spirv/source", kLayerSpirv, kLayer, RatioKind::Speed, 0.95);
                     r.ratio(name, "ptx/cuda", "ptx", "cuda", RatioKind::Speed);
                   });
    return r.finish();
  });
}
