// SPDX-License-Identifier: MIT
// Benchmark 8: what the register cap costs (layer/register_cap.h). A rewritten kernel that keeps
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

using namespace isgb;

namespace {

const char* kHeavy = R"CLC(
#define BODY(T, N)                                                                        \
  {                                                                                       \
    T results[32];                                                                        \
    const T v = (T)(seed);                                                                \
    for (uint r = 0; r < 32; ++r)                                                         \
      results[r] = intel_sub_group_shuffle(v + (T)(r), (get_sub_group_local_id() + r) % 16u); \
    T s = (T)(0);                                                                         \
    for (uint r = 0; r < 32; ++r) s += results[r] * (T)(r + 1);                           \
    for (int c = 0; c < N; ++c) acc += ((uint*)&s)[c];                                   \
  }
__attribute__((intel_reqd_sub_group_size(16)))
kernel void heavy(global uint* out, global const uint* in) {
  const uint seed = in[get_global_id(0)];
  uint acc = 0;
  BODY(uint2, 2) BODY(uint4, 4) BODY(uint8, 8) BODY(uint16, 16)
  out[get_global_id(0)] = acc;
}
)CLC";

uint32_t expected(const std::vector<uint32_t>& in, size_t i) {
  const size_t m = i % 16, base = i - m;
  uint32_t s = 0;
  for (uint32_t r = 0; r < 32; ++r) s += (in[base + (m + r) % 16] + r) * (r + 1);
  return s * (2 + 4 + 8 + 16);
}

}  // namespace

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
      const std::string source = std::string(kHeavy) + "\n// " + variant + " " +
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
                         if (out[i] != expected(in, i)) return "item " + std::to_string(i);
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
