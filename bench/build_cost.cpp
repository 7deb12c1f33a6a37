// SPDX-License-Identifier: MIT
// Benchmark 5: clBuildProgram cost through the layer against the driver alone, for a large
// generated Intel-style program (>= 2,000 lines, macro-heavy: builtins behind the program's own
// macros, helpers that need the sub-group context threaded through, token-pasted kernel names)
// and for a program of the same shape with no Intel builtin (which the layer must pass through).
// Goals: <= 1.10x and <= 1.01x.
//
// The layer is in the path only when OPENCL_LAYERS names it, so each variant is a process:
//   layer  : through the layer (the application's source, as an application builds);
//   direct : without the layer, --rewritten D: the rewritten program (from a first, untimed run
//            through the layer with ISG_DUMP_DIR=D) built straight on the driver (the Intel
//            program cannot build there otherwise) and the plain program as is.
// With --rounds N (bench/run-gpu.sh) this process starts itself for both, interleaved round by
// round (common/rounds.h); the ratios are layer / direct. The text scan that is all the layer
// adds to a plain program's build is measured alone by bench_scan (scan_cost.cpp).
// Every build gets a fresh -D ISG_BENCH_NONCE: the source text the driver sees stays the same,
// but the generated code differs, so neither the layer's rewrite cache, PoCL's kernel cache nor
// NVIDIA's compute cache can answer a repetition from an earlier one.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "common/cl_bench.h"
#include "common/generated_program.h"
#include "common/rounds.h"

using namespace isgb;

namespace {

const char* kTitle = "clBuildProgram cost, through the layer vs the driver alone";
const double kIntelGoal = 1.10, kPlainGoal = 1.01;

int interleaved(const Options& opt) {
  Report r("build", kTitle, "-", opt);
  r.variantOrder({kLayer, "direct"});
  RoundsFolder folder("build");
  const std::string dump = folder.path() + "/dump";
  const std::vector<RoundVariant> variants = {{kLayer, requiredEnv("ISG_BENCH_LAYER", "the layer"), {}},
                                              {"direct", "", {"--rewritten", dump}}};
  runChild(opt, folder.path(), {kLayer, variants[0].layer, {"--filter", "build/intel", "--reps", "1", "--warmup", "0"}},
           folder.path() + "/dump.json", {{"ISG_DUMP_DIR", dump}});
  const RoundResults rounds = runRounds(r, opt, folder.path(), variants);
  for (const auto& [caseName, perVariant] : rounds.medians) {
    for (const auto& [variant, ms] : perVariant) r.add(caseName, variant, ms, 0, 1, -1);
    r.ratio(caseName, "layer/direct", kLayer, "direct", RatioKind::Cost,
            caseName == "build/intel" ? kIntelGoal : kPlainGoal);
  }
  return r.finish();
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    if (opt.rounds > 0) return interleaved(opt);
    Report r("build", kTitle, "-", opt);
    Cl& cl = openCl(&r);
    const std::string variant = toldVariant(!cl.layer.empty() ? kLayer : "direct");
    const bool viaLayer = variant == kLayer;
    r.variantOrder({kLayer, "direct"});
    const int warm = warmups(opt, 1), nrep = reps(opt, 5);
    r.config("reps", nrep);
    // The nonce differs per process and per build (see the top of this file).
    std::mt19937_64 rng(static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
    uint64_t nonce = (rng() >> 24) + 1000000;

    const int blocks = opt.smoke ? kSmokeBlocks : kBlocks;
    const std::string intelSrc = generatedProgram(true, blocks), plainSrc = generatedProgram(false, blocks);
    r.info("programs", std::to_string(countLines(intelSrc)) + " lines (Intel-style), " +
                           std::to_string(countLines(plainSrc)) + " lines (no Intel builtin), " +
                           std::to_string(3 * blocks) + " kernels each");
    if (!opt.smoke && countLines(intelSrc) < 2000) throw std::runtime_error("generated program is shorter than 2,000 lines");

    struct Prog {
      const char* name;
      const std::string* appSource;
      double goal;
    };
    for (const Prog& p : {Prog{"build/intel", &intelSrc, kIntelGoal}, Prog{"build/plain", &plainSrc, kPlainGoal}}) {
      if (!r.wanted(p.name)) continue;
      std::string src = *p.appSource, extra;
      bool isIntel = p.appSource == &intelSrc;
      if (isIntel && !viaLayer) {
        src = findRewritten(opt.rewritten, intelSrc);
        if (src.empty()) {
          r.skip(p.name, variant,
                 "without the layer the Intel program needs --rewritten DIR (an ISG_DUMP_DIR of a run through the layer)");
          r.ratio(p.name, "layer/direct", kLayer, "direct", RatioKind::Cost, p.goal);
          continue;
        }
        extra = " " + layerAddedOptions();
      }
      std::vector<double> ms;
      std::string log;
      for (int i = 0; i < warm + nrep; ++i) {
        std::string options = "-D ISG_BENCH_NONCE=" + std::to_string(nonce++) + extra;
        double t0 = nowMs();
        cl_program prog = buildProgram(cl, src, options, &log);
        double t1 = nowMs();
        if (!prog) {
          r.note(std::string(p.name) + " " + variant + ": build failed: " + firstLines(log, 3));
          break;
        }
        clReleaseProgram(prog);
        if (i >= warm) ms.push_back(t1 - t0);
      }
      if (ms.size() == static_cast<std::size_t>(nrep))
        r.add(p.name, variant, ms, 0, 1, -1);
      else
        r.skip(p.name, variant, "build failed");
      r.ratio(p.name, "layer/direct", kLayer, "direct", RatioKind::Cost, p.goal);
    }
    if (viaLayer && !std::getenv("ISG_BENCH_VARIANT"))
      r.note("this run is through the layer; the direct run imports it with --baseline layer=FILE");
    return r.finish();
  });
}
