// SPDX-License-Identifier: MIT
// Start-up cost of loading the layer (issue 32.9): a host that only enumerates platforms and
// devices and reads their properties (clinfo, or ISG_BENCH_STARTUP_HOST) started with and
// without OPENCL_LAYERS, interleaved (ABAB...), each run a fresh process. Wall time and peak
// resident memory (wait4's ru_maxrss) per run; goals: <= 1.05x the wall time, <= +10 MiB.
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/report.h"
#include "common/spawn.h"

namespace {

using namespace isgb;

// Runs `host` with its output discarded, OPENCL_LAYERS set to `layer` or unset.
ProcessRun runHost(const std::string& host, const std::string& layer) {
  try {
    return runProcess({host}, {{"OPENCL_LAYERS", layer}});
  } catch (const std::runtime_error&) {
    throw std::runtime_error(host + " failed" + (layer.empty() ? "" : " through the layer"));
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("startup", "start-up: a host that lists platforms and devices, with and without the layer",
             "-", opt);
    const std::string layer = requiredEnv("ISG_BENCH_LAYER", "the layer to load");
    const char* hostEnv = std::getenv("ISG_BENCH_STARTUP_HOST");
    const std::string host = hostEnv && *hostEnv ? hostEnv : "clinfo";
    const int nrep = reps(opt, 20), warm = warmups(opt, 2);
    r.config("reps", nrep);
    r.info("host", host);
    r.variantOrder({"layer", "direct"});
    for (int i = 0; i < warm; ++i) {
      runHost(host, "");
      runHost(host, layer);
    }
    std::vector<double> msDirect, msLayer, memDirect, memLayer;
    for (int i = 0; i < nrep; ++i) {  // interleaved, so that drift hits both alike
      const ProcessRun d = runHost(host, ""), l = runHost(host, layer);
      msDirect.push_back(d.ms);
      memDirect.push_back(d.peakMiB);
      msLayer.push_back(l.ms);
      memLayer.push_back(l.peakMiB);
    }
    const char* name = "startup/wall";
    r.add(name, "direct", msDirect, 0, 1, -1);
    r.add(name, "layer", msLayer, 0, 1, -1);
    r.ratio(name, "layer/direct", "layer", "direct", RatioKind::Cost, 1.05);
    const double added = median(memLayer) - median(memDirect);
    r.note("peak resident memory (median): driver alone " + fmt("%.1f", median(memDirect)) +
           " MiB, through the layer " + fmt("%.1f", median(memLayer)) + " MiB: +" +
           fmt("%.1f", added) + " MiB (goal <= +10 MiB: " + (added <= 10 ? "met" : "MISS") + ")");
    return r.finish();
  });
}
