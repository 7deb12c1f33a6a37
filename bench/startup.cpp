// SPDX-License-Identifier: MIT
// Start-up cost of loading the layer (issue 32.9): a host that only enumerates platforms and
// devices and reads their properties (clinfo, or ISG_BENCH_STARTUP_HOST) started with and
// without OPENCL_LAYERS, interleaved (ABAB...), each run a fresh process. Wall time and peak
// resident memory (wait4's ru_maxrss) per run; goals: <= 1.05x the wall time, <= +10 MiB.
#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/report.h"

extern char** environ;

namespace {

using namespace isgb;

struct Run {
  double ms = 0;
  double peakMiB = 0;
};

// Runs `host` with its output discarded, OPENCL_LAYERS set to `layer` or unset.
Run runHost(const std::string& host, const std::string& layer) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("OPENCL_LAYERS=", 0) != 0) env.emplace_back(*e);
  if (!layer.empty()) env.push_back("OPENCL_LAYERS=" + layer);
  std::vector<char*> envp;
  for (std::string& s : env) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::string program = host;
  char* argv[] = {program.data(), nullptr};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  const auto start = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw std::runtime_error("cannot start " + host);
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(host + " failed" + (layer.empty() ? "" : " through the layer"));
  Run r;
  r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  r.peakMiB = double(usage.ru_maxrss) / 1024.0;
  return r;
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
    const char* layer = std::getenv("ISG_BENCH_LAYER");
    if (!layer || !*layer) throw std::runtime_error("ISG_BENCH_LAYER names the layer to load");
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
      const Run d = runHost(host, ""), l = runHost(host, layer);
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
