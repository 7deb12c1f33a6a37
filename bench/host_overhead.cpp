// SPDX-License-Identifier: MIT
// Benchmark 6: host cost per call of clSetKernelArg and clEnqueueNDRangeKernel through the layer
// against the driver alone. Goal: <= 1.05x per call.
//
// The loader reads OPENCL_LAYERS once per process, so each variant is a process of its own:
//   layer       : through the layer;
//   passthrough : through a layer that only forwards the two calls (libisg_bench_passthrough):
//                 what the loader's layer mechanism costs any layer, before the layer's work;
//   direct      : the driver alone.
// With --rounds N (bench/run-gpu.sh) this process starts itself once per variant per round, the
// order rotated each round, so that the host's drift hits every variant alike; each case's
// figure is the median over rounds of each process's median, and its spread is across rounds.
// ISG_BENCH_LAYER and ISG_BENCH_PASSTHROUGH name the two layers. Cases:
//   */plain : a kernel with no Intel builtin (the layer passes it through);
//   */intel : the same kernel with an intel_sub_group_shuffle (the layer's rewritten kernel, with
//             its manifest lookups and hidden arguments). The driver alone cannot build it, so
//             without the layer the program the layer made of it (ISG_DUMP_DIR of a first run
//             through the layer) is built and called: the same driver kernel, so the ratio is
//             the layer's own cost per call.
// Each process also times the driver's own entry points on the same kernel object (variant
// `<variant>.driver`: the function the object's ICD dispatch table names, which the loader and
// every layer end in), batch for batch with the loader's entry: `layer / layer.driver` is what
// the loader and the layer add to one call, free of the drift between processes and of what
// the driver's call costs for one kernel object against another. The goal of issue 52 (the
// layer within 5 % of a forwarding-only layer for a kernel it passes through, 15 % for one it
// rewrote) is read with each process's figure over its own driver entry first: the host's drift
// between processes (spreads of 20-50 % on the GPU hosts, more than the goal's margin between
// passes of one binary) cancels, and the layers' own cost stays (both driver entries are the
// same function on the same kind of kernel object); layer/passthrough across processes is
// reported beside it.
// Timing is host wall time around a batch of calls; the queue is drained outside the timing.

#include <CL/cl_icd.h>

#include "common/cl_bench.h"
#include "common/rounds.h"

using namespace isgb;

namespace {

const char* kPlain =
    "__kernel void scale(__global float* a, __global const float* b, float c, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  if (i < n) a[i] = b[i] * c;\n"
    "}\n";
// The exchange happens in uniform control flow, as the local strategy requires.
const char* kIntel =
    "__attribute__((intel_reqd_sub_group_size(16)))\n"
    "__kernel void scale(__global float* a, __global const float* b, float c, uint n) {\n"
    "  size_t i = get_global_id(0);\n"
    "  float v = intel_sub_group_shuffle(b[min(i, (size_t)n - 1)], 0u);\n"
    "  if (i < n) a[i] = v * c;\n"
    "}\n";

const char* kTitle = "host cost per call: through the layer, through a pass-through layer, the driver alone";

// The driver's entry points for `kernel`: ICD objects begin with their vendor's dispatch table.
const cl_icd_dispatch& driverEntries(cl_kernel kernel) {
  return **reinterpret_cast<const cl_icd_dispatch* const*>(kernel);
}
std::string driverVariant(const std::string& variant) { return variant + ".driver"; }
int setArgCalls(const Options& opt) { return opt.smoke ? 200 : 20000; }
int enqueueCalls(const Options& opt) { return opt.smoke ? 20 : 500; }
double callsPerRep(const Options& opt, const std::string& caseName) {
  return caseName.rfind("set_arg/", 0) == 0 ? setArgCalls(opt) : enqueueCalls(opt);
}

// --rounds: the variants as child processes of this executable (rounds.h).
int interleaved(const Options& opt) {
  Report r("host", kTitle, "M calls/s", opt);
  r.variantOrder({kLayer, "passthrough", "direct", driverVariant(kLayer), driverVariant("passthrough"),
                  driverVariant("direct")});
  RoundsFolder folder("host");
  const std::string dump = folder.path() + "/dump";
  const std::vector<std::string> rewritten = {"--rewritten", dump};
  const std::vector<RoundVariant> variants = {
      {kLayer, requiredEnv("ISG_BENCH_LAYER", "the layer"), {}},
      {"passthrough", requiredEnv("ISG_BENCH_PASSTHROUGH", "the pass-through layer (libisg_bench_passthrough.so)"),
       rewritten},
      {"direct", "", rewritten}};
  // The rewritten program for the variants without the layer, from a run that is not timed.
  runChild(opt, folder.path(), variants[0], folder.path() + "/dump.json", {{"ISG_DUMP_DIR", dump}});
  const RoundResults rounds = runRounds(r, opt, folder.path(), variants);
  for (const auto& [caseName, perVariant] : rounds.medians) {
    for (const auto& [variant, ms] : perVariant)
      r.add(caseName, variant, ms, callsPerRep(opt, caseName), 1e6, rounds.verified.at(caseName).at(variant));
    r.ratio(caseName, "layer/direct", kLayer, "direct", RatioKind::Cost, 1.05);
    r.ratio(caseName, "passthrough/direct", "passthrough", "direct", RatioKind::Cost);
    r.ratio(caseName, "layer/passthrough", kLayer, "passthrough", RatioKind::Cost);
    // The same, each process's figure over its own driver entry first (the file's head says
    // why), with issue 52's goal for clSetKernelArg (the enqueue's is layer/direct's).
    const bool setArg = caseName.rfind("set_arg/", 0) == 0;
    const double goal = caseName.find("/intel") != std::string::npos ? 1.15 : 1.05;
    auto ownShare = [&](const std::string& variant) {
      const std::vector<double>& through = perVariant.at(variant);
      const std::vector<double>& driver = perVariant.at(driverVariant(variant));
      std::vector<double> share;
      for (size_t i = 0; i < through.size() && i < driver.size(); ++i)
        if (driver[i] > 0) share.push_back(through[i] / driver[i]);
      return summarize(share).median;
    };
    if (setArg && perVariant.count(kLayer) && perVariant.count(driverVariant(kLayer)) &&
        perVariant.count("passthrough") && perVariant.count(driverVariant("passthrough")))
      r.givenRatio(caseName, "layer/passthrough, each over its driver entry",
                   ownShare(kLayer) / ownShare("passthrough"), RatioKind::Cost, goal);
    r.ratio(caseName, "layer/layer.driver (one process)", kLayer, driverVariant(kLayer), RatioKind::Cost);
    r.ratio(caseName, "passthrough/passthrough.driver", "passthrough", driverVariant("passthrough"),
            RatioKind::Cost);
    r.ratio(caseName, "direct/direct.driver", "direct", driverVariant("direct"), RatioKind::Cost);
  }
  return r.finish();
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    if (opt.rounds > 0) return interleaved(opt);
    Report r("host", kTitle, "M calls/s", opt);
    Cl& cl = openCl(&r);
    // A child of --rounds is told its variant; run alone, the variant follows OPENCL_LAYERS.
    const std::string variant = toldVariant(!cl.layer.empty() ? kLayer : "direct");
    const bool viaLayer = variant == kLayer;
    r.variantOrder({kLayer, "passthrough", "direct", driverVariant(kLayer), driverVariant("passthrough"),
                    driverVariant("direct")});
    const int nrep = reps(opt, 21), warm = warmups(opt, 3);
    r.config("reps", nrep);
    r.config("set_arg_calls_per_rep", setArgCalls(opt));
    r.config("enqueue_calls_per_rep", enqueueCalls(opt));

    const cl_uint n = 256;
    Buffer a(cl, n * 4), b(cl, n * 4);
    std::string log;
    cl_program plain = buildProgram(cl, kPlain, "", &log);
    if (!plain) throw std::runtime_error("the plain kernel did not build: " + firstLines(log, 3));
    cl_program intel = nullptr;
    if (viaLayer) {
      intel = buildProgram(cl, kIntel, "", &log);
      if (!intel) r.note("intel cases skipped: the Intel kernel did not build: " + firstLines(log, 3));
    } else {
      const std::string rewritten = findRewritten(opt.rewritten, kIntel);
      if (!rewritten.empty()) intel = buildProgram(cl, rewritten, layerAddedOptions(), &log);
      if (!intel)
        r.note("without the layer the */intel cases measure the plain kernel (no rewritten program: " +
               (rewritten.empty() ? std::string("pass --rewritten DIR") : firstLines(log, 3)) + ")");
      else
        r.note("without the layer the */intel cases call the layer's rewritten program directly");
    }

    for (const char* which : {"plain", "intel"}) {
      const bool isIntel = std::string(which) == "intel";
      cl_program p = isIntel && intel ? intel : plain;
      std::string setCase = std::string("set_arg/") + which, enqCase = std::string("enqueue/") + which;
      if (!p) {
        r.skip(setCase, variant, "kernel did not build");
        r.skip(enqCase, variant, "kernel did not build");
        continue;
      }
      cl_kernel k = kernel(p, "scale");
      // Called directly, a rewritten kernel's hidden arguments (the local strategy's scratch)
      // are the caller's to set; once is enough. 64 KiB is ample for 64 work-items.
      cl_uint nargs = 0;
      check(clGetKernelInfo(k, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, nullptr), "CL_KERNEL_NUM_ARGS");
      for (cl_uint extra = 4; !viaLayer && extra < nargs; ++extra)
        check(clSetKernelArg(k, extra, 16384, nullptr), "clSetKernelArg (hidden scratch)");
      cl_mem am = a.mem(), bm = b.mem();
      float c = 2.0f;
      const cl_icd_dispatch& driver = driverEntries(k);
      // Through the loader's entry (and so every layer), or straight into the driver's.
      auto setAllVia = [&](auto setArg, int i) {
        switch (i & 3) {
          case 0: return setArg(k, 0, sizeof am, &am);
          case 1: return setArg(k, 1, sizeof bm, &bm);
          case 2: return setArg(k, 2, sizeof c, &c);
          default: return setArg(k, 3, sizeof n, &n);
        }
      };
      auto setAll = [&](int i) { return setAllVia(clSetKernelArg, i); };
      auto setAllDriver = [&](int i) { return setAllVia(driver.clSetKernelArg, i); };
      if (r.wanted(setCase)) {
        std::vector<double> ms, msDriver;
        auto batch = [&](const auto& set) {
          double t0 = nowMs();
          for (int i = 0; i < setArgCalls(opt); ++i)
            if (set(i) != CL_SUCCESS) throw std::runtime_error("clSetKernelArg failed");
          return nowMs() - t0;
        };
        for (int rep = 0; rep < warm + nrep; ++rep) {
          const double t = batch(setAll), td = batch(setAllDriver);
          if (rep >= warm) ms.push_back(t), msDriver.push_back(td);
        }
        r.add(setCase, variant, ms, setArgCalls(opt), 1e6, -1);
        r.add(setCase, driverVariant(variant), msDriver, setArgCalls(opt), 1e6, -1);
        r.ratio(setCase, "layer/direct", kLayer, "direct", RatioKind::Cost, 1.05);
        r.ratio(setCase, variant + "/" + driverVariant(variant) + " (one process)", variant,
                driverVariant(variant), RatioKind::Cost);
      }
      for (int i = 0; i < 4; ++i) check(setAll(i), "clSetKernelArg");
      if (r.wanted(enqCase)) {
        size_t g = n, l = 64;
        // Checked once: the kernel scales b into a.
        std::vector<float> in(n), out(n);
        for (cl_uint i = 0; i < n; ++i) in[i] = static_cast<float>(i);
        b.write(in.data());
        runOnce(cl, k, 1, &g, &l);
        a.read(out.data());
        int ok = 1;
        for (cl_uint i = 0; i < n; ++i)
          if (out[i] != 2.0f * static_cast<float>(p == intel ? (i / 16) * 16 : i)) ok = 0;
        if (!ok) r.note(enqCase + " " + variant + ": WRONG RESULT");
        std::vector<double> ms, msDriver;
        auto batch = [&](auto enqueue) {
          double t0 = nowMs();
          for (int i = 0; i < enqueueCalls(opt); ++i)
            check(enqueue(cl.queue, k, 1, nullptr, &g, &l, 0, nullptr, nullptr), "clEnqueueNDRangeKernel");
          double t1 = nowMs();
          check(clFinish(cl.queue), "clFinish");
          return t1 - t0;
        };
        // The driver's own entry skips what the layer does at a launch (hidden arguments, a
        // capped build): correct for this kernel, whose rewritten form needs none on NVIDIA;
        // elsewhere its figure is the driver's cost of launching what the layer would.
        for (int rep = 0; rep < warm + nrep; ++rep) {
          const double t = batch(clEnqueueNDRangeKernel), td = batch(driver.clEnqueueNDRangeKernel);
          if (rep >= warm) ms.push_back(t), msDriver.push_back(td);
        }
        r.add(enqCase, variant, ms, enqueueCalls(opt), 1e6, ok);
        r.add(enqCase, driverVariant(variant), msDriver, enqueueCalls(opt), 1e6, ok);
        r.ratio(enqCase, "layer/direct", kLayer, "direct", RatioKind::Cost, 1.05);
        r.ratio(enqCase, variant + "/" + driverVariant(variant) + " (one process)", variant,
                driverVariant(variant), RatioKind::Cost);
      }
      clReleaseKernel(k);
    }
    clReleaseProgram(plain);
    if (intel) clReleaseProgram(intel);
    return r.finish();
  });
}
