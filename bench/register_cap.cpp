// SPDX-License-Identifier: MIT
// Benchmark 8: what the register cap costs (layer/launch/register_cap.h). A rewritten kernel that keeps
// shuffled vectors in private arrays, on the local strategy (its exchanges need the registers:
// an H100 refuses it at 1024 work-items), run through the layer:
//   variant wg256 : work-groups of 256, which the driver launches as built;
//   variant wgmax : the device's largest work-group, which the driver refuses; the layer builds
//                   the kernel again with -cl-nv-maxrregcount and runs that.
// Cases:
//   kernel        : device time for the same items (speed ratio wgmax/wg256);
//   first_enqueue : host time of the first enqueue at that size, which for wgmax includes the
//                   capped build (cost ratio wgmax/wg256).
// Run with ISG_STRATEGY=local (run-gpu.sh does); no goal: the ratios say what the launch costs.
#include <stdexcept>

#include "common/cl_bench.h"
#include "register_heavy.h"

using namespace isgb;


int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("regcap", "largest work-group through the register cap vs 256 work-items", "G items/s",
             opt);
    Cl& cl = openCl(&r);
    if (cl.layer.empty()) throw std::runtime_error("run through the layer (OPENCL_LAYERS)");
    r.variantOrder({"wg256", "wgmax"});
    const int nrep = reps(opt, 21), warm = warmups(opt, 3);
    size_t deviceMax = 0;
    check(clGetDeviceInfo(cl.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof deviceMax, &deviceMax,
                          nullptr),
          "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    // PoCL keeps every work-item's private arrays on one stack (tests/realworld): stay small.
    const size_t wgMax = cl.nvidia ? deviceMax : std::min<size_t>(deviceMax, 512);
    const size_t n = opt.smoke ? 4 * wgMax : 256 * wgMax;
    r.config("reps", nrep);
    r.config("items", static_cast<double>(n));
    r.config("wg_max", static_cast<double>(wgMax));

    std::vector<uint32_t> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>(i * 2654435761u);
    Buffer inBuf(cl, n * 4, in.data()), outBuf(cl, n * 4);
    std::string log;
    for (const size_t wg : {size_t(256), wgMax}) {
      const std::string variant = wg == 256 ? "wg256" : "wgmax";
      // A program of its own per variant, salted so that no driver cache answers the build.
      const std::string source = std::string(isgref::registerHeavyKernel()) + "\n// " + variant + " " +
                                 std::to_string(nowMs()) + "\n";
      cl_program p = buildProgram(cl, source, "", &log);
      if (!p) throw std::runtime_error("the kernel did not build: " + firstLines(log, 5));
      cl_kernel k = kernel(p, "heavy");
      setArg(k, 0, outBuf);
      setArg(k, 1, inBuf);
      const size_t global = n;
      const double t0 = nowMs();
      const cl_int first =
          clEnqueueNDRangeKernel(cl.queue, k, 1, nullptr, &global, &wg, 0, nullptr, nullptr);
      const double t1 = nowMs();
      check(clFinish(cl.queue), "clFinish");
      if (first != CL_SUCCESS) {
        r.skip("first_enqueue", variant, "enqueue failed with " + std::to_string(first));
        r.skip("kernel", variant, "enqueue failed with " + std::to_string(first));
      } else {
        r.add("first_enqueue", variant, {t1 - t0}, 1, 1e-3, -1);
        checkAndTime(cl, &r, "kernel", variant, k, 1, &global, &wg, warm, nrep,
                     static_cast<double>(n), 1e9, [&]() -> std::string {
                       std::vector<uint32_t> out(n);
                       outBuf.read(out.data());
                       for (size_t i = 0; i < n; ++i)
                         if (out[i] != isgref::registerHeavyExpected(in, i)) return "item " + std::to_string(i);
                       return "";
                     });
      }
      clReleaseKernel(k);
      clReleaseProgram(p);
    }
    r.ratio("kernel", "wgmax/wg256", "wgmax", "wg256", RatioKind::Speed);
    r.ratio("first_enqueue", "wgmax/wg256", "wgmax", "wg256", RatioKind::Cost);
    return r.finish();
  });
}
