// SPDX-License-Identifier: MIT
// Benchmark 4: the local strategy. The shuffle chain of benchmark 1 (common/chain.h) through the
// layer with whatever strategy this process's layer uses, against a hand-written local-memory
// kernel doing the same exchange (two halves, one work-group barrier per step, as the strategy
// does). The layer reads ISG_STRATEGY once at start-up, so run-gpu.sh runs this twice:
//   bench_local --json local_auto.json                        (layer-auto: nvidia-ptx on NVIDIA)
//   ISG_STRATEGY=local bench_local --baseline layer-auto=local_auto.json --json local.json
// and the second run reports layer-local against the hand-written kernel (goal >= 0.90x) and
// against the PTX strategy (no goal: the price of forcing local on a GPU that has shuffles).
#include "common/chain_cl.h"

using namespace isgb;

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("local", "local strategy vs hand-written local-memory exchange", "G calls/s", opt);
    Cl& cl = openCl(&r);
    const std::string layer = "layer-" + cl.strategy;
    r.variantOrder({"layer-local", "local-hand", "layer-auto"});

    std::vector<ChainOp> ops(std::begin(kChainOps), std::end(kChainOps));
    std::vector<ChainType> types = {kChainTypes[0], kChainTypes[3]};  // one word, four words
    std::vector<unsigned> sizes = {8, 16, 32};
    if (opt.smoke) {
      types = {kChainTypes[0]};
      sizes = {16};
    }
    // Shorter than benchmark 1: every local step is a work-group barrier.
    const ChainShape shape = chainShape(cl, opt, 1024, &r);
    if (cl.strategy != "local")
      r.note("this run measures the layer's " + cl.strategy +
             " strategy (variant " + layer + "); the local strategy needs ISG_STRATEGY=local in the environment");

    Programs programs(cl);
    programs.build(layer, chainSource(ChainFlavor::Intel, ops, types, sizes), "the Intel program did not build: ");
    programs.build("local-hand", chainSource(ChainFlavor::Local, ops, types, sizes), "build failed: ");

    timeChainCases(cl, &r, programs, layer, ChainFlavor::Local, ops, types, sizes, shape,
                   [&](const std::string& name, unsigned) {
                     r.ratio(name, "local/hand", "layer-local", "local-hand", RatioKind::Speed, 0.90);
                     r.ratio(name, "local/auto", "layer-local", "layer-auto", RatioKind::Speed);
                     r.ratio(name, "auto/hand", "layer-auto", "local-hand", RatioKind::Speed);
                   });
    return r.finish();
  });
}
