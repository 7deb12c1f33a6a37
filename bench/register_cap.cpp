// SPDX-License-Identifier: MIT
// Benchmark 8: what the register cap costs (layer/register_cap.h). A rewritten kernel that keeps
// many shuffled vectors in private arrays allows fewer work-items per work-group than the device
// on NVIDIA; the layer builds it again with -cl-nv-maxrregcount so that it launches at the
// device's largest work-group. Variants, both through the layer:
//   capped   : built as an application builds it; the layer caps it where it must;
//   uncapped : built with the application's own -cl-nv-maxrregcount=255, which the layer leaves
//              alone (no cap, the driver's own register allocation).
// Cases:
//   kernel/wg256 : device time at a work-group both variants launch at (ratio capped/uncapped:
//                  the price of the cap where it was not needed);
//   kernel/wgmax : the device's largest work-group, which only the capped variant launches;
//   build        : host time of clBuildProgram + clCreateKernel (the cap's second compile).
// No goal: the cap buys launches that otherwise fail; the ratios say what it costs.
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

uint32_t expected(const std::vector<uint32_t>& in, unsigned i) {
  const unsigned m = i % 16, base = i - m;
  uint32_t s = 0;
  for (uint32_t r = 0; r < 32; ++r) s += (in[base + (m + r) % 16] + r) * (r + 1);
  return s * (2 + 4 + 8 + 16);
}

}  // namespace

int main(int argc, char** argv) {
  return runMain(argc, argv, [](const Options& opt) {
    Report r("regcap", "register cap for the largest work-group: capped vs the driver's allocation",
             "G items/s", opt);
    Cl& cl = openCl(&r);
    if (cl.layer.empty()) throw std::runtime_error("run through the layer (OPENCL_LAYERS)");
    r.variantOrder({"capped", "uncapped"});
    const int nrep = reps(opt, 21), warm = warmups(opt, 3);
    r.config("reps", nrep);
    size_t deviceMax = 0;
    check(clGetDeviceInfo(cl.device, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof deviceMax, &deviceMax,
                          nullptr),
          "CL_DEVICE_MAX_WORK_GROUP_SIZE");
    // PoCL keeps every work-item's private arrays on one stack (tests/realworld): stay small there.
    const size_t wgMax = cl.nvidia ? deviceMax : std::min<size_t>(deviceMax, 256);
    const size_t n = opt.smoke ? 4 * wgMax : 1024 * wgMax;
    r.config("items", static_cast<double>(n));
    r.config("wg_max", static_cast<double>(wgMax));

    std::vector<uint32_t> in(n);
    for (size_t i = 0; i < n; ++i) in[i] = static_cast<uint32_t>(i * 2654435761u);
    Buffer inBuf(cl, n * 4, in.data()), outBuf(cl, n * 4);

    for (const char* variant : {"capped", "uncapped"}) {
      const bool capped = std::string(variant) == "capped";
      const std::string options = capped || !cl.nvidia ? "" : "-cl-nv-maxrregcount=255";
      std::string log;
      std::vector<double> buildMs;
      cl_program p = nullptr;
      cl_kernel k = nullptr;
      // Each build gets a salt so that no driver cache answers it.
      for (int rep = 0; rep < (opt.smoke ? 1 : 3); ++rep) {
        if (k) clReleaseKernel(k);
        if (p) clReleaseProgram(p);
        const std::string source = std::string(kHeavy) + "\n// salt " + std::to_string(nowMs()) + "\n";
        const double t0 = nowMs();
        p = buildProgram(cl, source, options, &log);
        if (!p) throw std::runtime_error(std::string(variant) + " did not build: " + firstLines(log, 5));
        k = kernel(p, "heavy");
        buildMs.push_back(nowMs() - t0);
      }
      r.add("build", variant, buildMs, 1, 1e-3, -1);
      size_t reported = 0;
      check(clGetKernelWorkGroupInfo(k, cl.device, CL_KERNEL_WORK_GROUP_SIZE, sizeof reported,
                                     &reported, nullptr),
            "CL_KERNEL_WORK_GROUP_SIZE");
      r.note(std::string(variant) + ": CL_KERNEL_WORK_GROUP_SIZE " + std::to_string(reported));
      setArg(k, 0, outBuf);
      setArg(k, 1, inBuf);
      const std::pair<const char*, size_t> sizes[] = {{"kernel/wg256", 256}, {"kernel/wgmax", wgMax}};
      for (const auto& [caseName, wgSize] : sizes) {
        size_t wg = wgSize;
        if (wg > reported) {
          r.skip(caseName, variant, "the kernel allows " + std::to_string(reported) + " work-items");
          continue;
        }
        const size_t global = n;
        checkAndTime(cl, &r, caseName, variant, k, 1, &global, &wg, warm, nrep,
                     static_cast<double>(n), 1e9, [&]() -> std::string {
                       std::vector<uint32_t> out(n);
                       outBuf.read(out.data());
                       for (size_t i = 0; i < n; ++i)
                         if (out[i] != expected(in, static_cast<unsigned>(i)))
                           return "item " + std::to_string(i);
                       return "";
                     });
      }
      clReleaseKernel(k);
      clReleaseProgram(p);
    }
    r.ratio("kernel/wg256", "capped/uncapped", "capped", "uncapped", RatioKind::Speed);
    r.ratio("build", "capped/uncapped", "capped", "uncapped", RatioKind::Cost);
    return r.finish();
  });
}
