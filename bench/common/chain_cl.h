// SPDX-License-Identifier: MIT
// OpenCL C for the shuffle chain of chain.h, in three spellings, and the runner that times one
// kernel and checks it against the model. Benchmarks 1 and 4 share it.
//   Intel : the Intel builtins; only builds through the layer (or on an Intel driver).
//   Ptx   : hand-written inline PTX shfl.sync with constant masks, no Intel builtin, so the layer
//           passes it through untouched: what a programmer writes for NVIDIA by hand.
//   Local : hand-written local-memory exchange (two halves, one work-group barrier per step),
//           what a programmer writes for a device without sub-group shuffles.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "chain.h"
#include "cl_bench.h"

namespace isgb {

enum class ChainFlavor { Intel, Ptx, Local };

std::string chainKernelName(ChainFlavor f, ChainOp op, const ChainType& t, unsigned S);
// `reqd`: the Intel kernels also declare their work-group size (kChainWorkGroup), so that the
// layer knows their warps are whole (variant kLayerReqd).
std::string chainSource(ChainFlavor f, const std::vector<ChainOp>& ops,
                        const std::vector<ChainType>& types, const std::vector<unsigned>& sizes,
                        bool reqd = false);

struct ChainShape {
  std::size_t global = 0;  // work-items, a multiple of kChainWorkGroup
  unsigned iters = 0;      // steps per work-item, a multiple of 8
  int warmup = 0, reps = 0;
};

// The shape of a chain run of `iters` steps per work-item (16 in a smoke run) over
// chainGlobalSize work-items, 2 warm-ups and 10 repetitions unless the options say otherwise;
// recorded in the report's config (global_size, work_group, iters, reps).
ChainShape chainShape(const Cl& cl, const Options& opt, unsigned iters, Report* r);

// Times `k` (a chain kernel of any flavor) and adds it to the report as (caseName, variant);
// rate = builtin calls per second in G.
void timeChain(const Cl& cl, Report* r, const std::string& caseName, const std::string& variant,
               cl_kernel k, ChainOp op, const ChainType& t, unsigned S, const ChainShape& shape);

// Every case (S x op x type) the report wants, timed in every variant `programs` built: variant
// `intelVariant` runs the Intel spelling, the others the `other` spelling; then
// ratios(caseName, S) adds the case's ratios. Benchmarks 1 and 4 differ only in those.
void timeChainCases(const Cl& cl, Report* r, const Programs& programs,
                    const std::string& intelVariant, ChainFlavor other,
                    const std::vector<ChainOp>& ops, const std::vector<ChainType>& types,
                    const std::vector<unsigned>& sizes, const ChainShape& shape,
                    const std::function<void(const std::string&, unsigned)>& ratios);

}  // namespace isgb
