// SPDX-License-Identifier: MIT
// Benchmark 11 (issue 35.4): a real application as the anchor. CLBlast (Debian's libclblast 1.5.3)
// SGEMM and SGEMV on one device, as CLBlast itself chooses its kernels for what the device says it
// is, in one run:
//   driver               CLBlast without the layer: its own path for the device (NVIDIA: its
//                        tuning for NVIDIA GPUs and its inline-PTX warp shuffles)
//   layer                through the layer, default controls: the device still says NVIDIA but
//                        now also cl_intel_subgroups, which CLBlast checks by extension, so its
//                        programs define both its Intel and its NVIDIA shuffle macros
//   layer-intel          through the layer with ISG_PRESENT_AS_INTEL=1: CLBlast takes the device
//                        for an Intel GPU (Intel tuning, cl_intel_subgroups code), with
//                        ISG_SUB_GROUP_SIZE_FROM_LAUNCH=1 (CLBlast assumes Intel's sub-groups are
//                        8 wide and says so nowhere in its kernels)
//   layer-intel-shuffle  as layer-intel, Xgemm overridden with CLBlast's own tuned parameters for
//                        an Intel HD Graphics 6000 (GEMMK=1: the kernel that exchanges A through
//                        intel_sub_group_shuffle), SGEMM only
//   driver-intel-tuning  CLBlast without the layer, its kernels' parameters overridden with those
//                        CLBlast gives an Intel GPU it does not know (what layer-intel runs):
//                        the tuning's share of layer-intel/driver, apart from the layer's
//   cublas               cuBLAS (bench/cuda/cublas.cu, imported with --baseline cublas=FILE)
// The first four are processes of this executable (the loader reads OPENCL_LAYERS once), run in
// --rounds interleaved rounds (common/rounds.h). Each call's result is checked against a host
// reference before it is timed. Time per call: wall time of a batch of calls and one clFinish,
// divided by the batch (CLBlast may enqueue several kernels per call; cuBLAS is timed alike); and,
// as case <name>/kernel, the device time of the last kernel of a call (its event's profile).
#include <clblast_c.h>

#include <sstream>

#include "common/blas_cases.h"
#include "common/cl_bench.h"
#include "common/rounds.h"

using namespace isgb;
using blas::Shape;

namespace {

const char* kTitle = "CLBlast 1.5.3 SGEMM/SGEMV: its own path, its Intel path through the layer, cuBLAS";
const char* kOverride = "ISG_BENCH_CLBLAST_OVERRIDE";  // KERNEL:NAME=VALUE,...;KERNEL:...
// CLBlast 1.5.3's database entry for "Intel(R) HD Graphics 6000 BroadWell U-Processor GT3", in
// the database's order: GEMMK=1 with NWI = NWG/NDIMC = 8 = the sub-group size CLBlast assumes and
// MDIMC >= 8, so that its Xgemm exchanges A through intel_sub_group_shuffle.
const char* kIntelGemmk1 =
    "Xgemm:GEMMK=1,KREG=4,KWG=1,KWI=1,MDIMA=8,MDIMC=8,MWG=64,NDIMB=8,NDIMC=8,NWG=64,SA=0,SB=0,STRM=0,"
    "STRN=0,VWM=4,VWN=4";
// CLBlast 1.5.3's defaults for an Intel GPU it does not know (kDeviceNameDefault under "Intel"
// GPUs) for every kernel these cases run: what layer-intel runs, for the driver alone.
const char* kIntelDefaults =
    "Xgemm:GEMMK=0,KREG=1,KWG=32,KWI=2,MDIMA=16,MDIMC=16,MWG=64,NDIMB=8,NDIMC=8,NWG=64,SA=1,SB=1,STRM=0,"
    "STRN=0,VWM=4,VWN=4;GemmRoutine:XGEMM_MIN_INDIRECT_SIZE=128;Xgemv:WGS1=128,WPT1=1;"
    "XgemvFast:VW2=2,WGS2=128,WPT2=2;XgemvFastRot:VW3=4,WGS3=64,WPT3=16";

// CLBlastOverrideParameters for each KERNEL:NAME=VALUE,... of ISG_BENCH_CLBLAST_OVERRIDE.
void overrideParameters(const Cl& cl, Report* r) {
  const char* spec = std::getenv(kOverride);
  if (!spec || !*spec) return;
  std::stringstream all(spec);
  for (std::string entry; std::getline(all, entry, ';');) {
    const auto colon = entry.find(':');
    if (colon == std::string::npos) throw std::runtime_error(std::string(kOverride) + ": KERNEL:NAME=VALUE,... expected");
    const std::string kernel = entry.substr(0, colon);
    std::vector<std::string> names;
    std::vector<size_t> vals;
    std::stringstream in(entry.substr(colon + 1));
    for (std::string item; std::getline(in, item, ',');) {
      const auto eq = item.find('=');
      if (eq == std::string::npos) throw std::runtime_error(std::string(kOverride) + ": NAME=VALUE expected in " + item);
      names.push_back(item.substr(0, eq));
      vals.push_back(static_cast<size_t>(std::stoul(item.substr(eq + 1))));
    }
    std::vector<const char*> ptrs;
    for (const auto& n : names) ptrs.push_back(n.c_str());
    const CLBlastStatusCode st = CLBlastOverrideParameters(cl.device, kernel.c_str(), CLBlastPrecisionSingle,
                                                           names.size(), ptrs.data(), vals.data());
    if (st != CLBlastSuccess)
      throw std::runtime_error("CLBlastOverrideParameters(" + kernel + ") returned " + std::to_string(st));
  }
  r->note(std::string("parameters overridden: ") + spec);
}

// One process: every shape on this process's variant.
int child(const Options& opt) {
  Report r("clblast", kTitle, "GFLOP/s", opt);
  Cl& cl = openCl(&r);
  const std::string variant = toldVariant(cl.layer.empty() ? "driver" : "layer");
  overrideParameters(cl, &r);
  r.note("device as CLBlast sees it: " + cl.deviceName + " (" + cl.vendor + ")");
  const int nrep = reps(opt, 9), warm = warmups(opt, 2), batch = blas::batch(opt.smoke);
  for (const Shape& s : blas::shapes(opt.smoke)) {
    if (!r.wanted(s.name)) continue;
    const size_t n = s.n;
    const blas::Inputs in(s);
    Buffer a(cl, s.aCount() * 4, in.a.data()), b(cl, s.bCount() * 4, in.b.data()), c(cl, s.cCount() * 4, in.c.data());
    cl_mem am = a.mem(), bm = b.mem(), cm = c.mem();
    cl_command_queue q = cl.queue;
    auto call = [&](cl_event* event = nullptr) {
      return s.gemm ? CLBlastSgemm(CLBlastLayoutColMajor, CLBlastTransposeNo, CLBlastTransposeNo, n, n, n,
                                   blas::kAlpha, am, 0, n, bm, 0, n, blas::kBeta, cm, 0, n, &q, event)
                    : CLBlastSgemv(CLBlastLayoutColMajor, CLBlastTransposeNo, n, n, blas::kAlpha, am, 0, n, bm, 0,
                                   1, blas::kBeta, cm, 0, 1, &q, event);
    };
    // The first call builds CLBlast's programs (through the layer: rewritten) and is the one checked.
    CLBlastStatusCode st = call();
    if (st != CLBlastSuccess) {
      r.note(s.name + ": CLBlast FAILED with status " + std::to_string(st));
      r.skip(s.name, variant, "CLBlast returned " + std::to_string(st));
      continue;
    }
    std::vector<float> got(s.cCount());
    check(clEnqueueReadBuffer(q, cm, CL_TRUE, 0, got.size() * 4, got.data(), 0, nullptr, nullptr), "read C");
    const std::string wrong = blas::check(s, in, got);
    if (!wrong.empty()) r.note(s.name + " " + variant + ": WRONG RESULT: " + wrong);
    // Timed calls accumulate into C (beta != 0): the values stay finite and the check is done.
    for (int w = 0; w < warm; ++w) call();
    check(clFinish(q), "clFinish");
    // Per call, and the device time of the last call's last kernel (its event): the host's share
    // of a call is the difference where CLBlast runs one kernel per call.
    std::vector<double> ms, kernelMs;
    for (int rep = 0; rep < nrep; ++rep) {
      cl_event last = nullptr;
      const double t0 = nowMs();
      for (int k = 0; k < batch; ++k) call(k == batch - 1 ? &last : nullptr);
      check(clFinish(q), "clFinish");
      ms.push_back((nowMs() - t0) / batch);
      if (!last) continue;
      cl_ulong start = 0, end = 0;
      check(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr), "profiling");
      check(clGetEventProfilingInfo(last, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr), "profiling");
      kernelMs.push_back(static_cast<double>(end - start) * 1e-6);
      clReleaseEvent(last);
    }
    r.add(s.name, variant, ms, s.flops(), 1e9, wrong.empty() ? 1 : 0);
    if (!kernelMs.empty()) r.add(s.name + "/kernel", variant, kernelMs, s.flops(), 1e9, wrong.empty() ? 1 : 0);
  }
  const int rc = r.finish();
  // A child's wrong result reaches the parent through "verified"; its status is for a lone run.
  return std::getenv("ISG_BENCH_VARIANT") ? 0 : rc;
}

// How many programs the layer rewrote in `dump` (ISG_DUMP_DIR), and how many of those are
// CLBlast's Xgemm on its Intel shuffle path (its source defines SUBGROUP_SHUFFLING_INTEL and GEMMK 1).
std::string rewrittenPrograms(const std::string& dump) {
  int rewritten = 0, shuffle = 0;
  eachDumpedProgram(dump, [&](const std::string&, const std::string& text) {
    ++rewritten;
    if (text.find("#define SUBGROUP_SHUFFLING_INTEL 1") != std::string::npos &&
        text.find("#define GEMMK 1") != std::string::npos)
      ++shuffle;
    return true;
  });
  return std::to_string(rewritten) + " programs rewritten, " + std::to_string(shuffle) +
         " of them Xgemm with GEMMK=1 on CLBlast's Intel shuffle path";
}

int parent(const Options& opt) {
  Report r("clblast", kTitle, "GFLOP/s", opt);
  r.variantOrder({"driver", "layer", "layer-intel", "driver-intel-tuning", "layer-intel-shuffle", "cublas"});
  RoundsFolder folder("clblast");
  const std::string layer = requiredEnv("ISG_BENCH_LAYER", "the layer");
  auto dump = [&](const std::string& v) { return folder.path() + "/dump-" + v; };
  // A variant's environment: CLBlast's Intel path or not, its parameter overrides, and through the
  // layer a dump of what the layer rewrote.
  auto env = [&](const std::string& name, bool viaLayer, bool intel, const char* overrides) {
    std::vector<std::pair<std::string, std::string>> e = {
        {"ISG_PRESENT_AS_INTEL", intel ? "1" : ""},
        {"ISG_SUB_GROUP_SIZE_FROM_LAUNCH", intel ? "1" : ""},
        {kOverride, overrides}};
    if (viaLayer) e.emplace_back("ISG_DUMP_DIR", dump(name));
    return e;
  };
  // The shuffle variant overrides Xgemm alone: SGEMM only (a later --filter wins).
  const std::vector<std::string> gemmOnly = {"--filter", "sgemm"};
  const std::vector<RoundVariant> variants = {
      {"driver", "", {}, env("driver", false, false, "")},
      {"layer", layer, {}, env("layer", true, false, "")},
      {"layer-intel", layer, {}, env("layer-intel", true, true, "")},
      {"driver-intel-tuning", "", {}, env("driver-intel-tuning", false, false, kIntelDefaults)},
      {"layer-intel-shuffle", layer, opt.filter.empty() ? gemmOnly : std::vector<std::string>{},
       env("layer-intel-shuffle", true, true, kIntelGemmk1)}};
  const RoundResults rounds = runRounds(r, opt, folder.path(), variants);
  int missing = 0;
  for (const Shape& s : blas::shapes(opt.smoke)) {
    if (!r.wanted(s.name)) continue;
    for (const RoundVariant& v : variants) {
      if (v.name == "layer-intel-shuffle" && !s.gemm) continue;
      for (const std::string& name : {s.name, s.name + "/kernel"}) {
        auto c = rounds.medians.find(name);
        if (c != rounds.medians.end() && c->second.count(v.name)) {
          r.add(name, v.name, c->second.at(v.name), s.flops(), 1e9, rounds.verified.at(name).at(v.name));
        } else if (name == s.name) {
          ++missing;
          r.note(s.name + " " + v.name + ": not measured (CLBlast failed: the child's notes say why)");
        }
      }
    }
    // The device time of CLBlast's last kernel per call: the layer's share on the GPU alone.
    r.ratio(s.name + "/kernel", "layer-intel/driver-intel-tuning", "layer-intel", "driver-intel-tuning", RatioKind::Speed);
    r.ratio(s.name + "/kernel", "layer/driver", "layer", "driver", RatioKind::Speed);
    // The goal: CLBlast's Intel path through the layer at least matches its own NVIDIA path.
    r.ratio(s.name, "layer-intel/driver", "layer-intel", "driver", RatioKind::Speed, 1.0);
    r.ratio(s.name, "layer/driver", "layer", "driver", RatioKind::Speed, 0.95);
    // The layer's share: the same Xgemm parameters built and run without it.
    r.ratio(s.name, "layer-intel/driver-intel-tuning", "layer-intel", "driver-intel-tuning", RatioKind::Speed, 0.95);
    r.ratio(s.name, "intel-shuffle/driver", "layer-intel-shuffle", "driver", RatioKind::Speed);
    r.ratio(s.name, "driver/cublas", "driver", "cublas", RatioKind::Speed);
    r.ratio(s.name, "layer-intel/cublas", "layer-intel", "cublas", RatioKind::Speed);
  }
  for (const char* v : {"layer", "layer-intel", "layer-intel-shuffle"}) r.note(std::string(v) + ": " + rewrittenPrograms(dump(v)));
  const int rc = r.finish();
  return missing ? 1 : rc;
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) { return opt.rounds > 0 ? parent(opt) : child(opt); });
}
