// SPDX-License-Identifier: MIT
// OpenCL side of the benchmarks: the device, program builds, buffers and kernel timing through
// clGetEventProfilingInfo. Benchmarks reach OpenCL only through the ICD loader, so the layer is
// in the path exactly when OPENCL_LAYERS names it, as for any application.
#pragma once

#include <CL/cl.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "report.h"

namespace isgb {

void check(cl_int err, const char* what);

struct Cl {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  cl_context context = nullptr;
  cl_command_queue queue = nullptr;  // in order, CL_QUEUE_PROFILING_ENABLE
  std::string platformName, deviceName, vendor, driver, version;
  cl_uint computeUnits = 1;
  bool nvidia = false;  // hand-written inline-PTX variants only build there
  std::string layer;    // OPENCL_LAYERS as this process saw it ("" = no layer)
  std::string strategy; // ISG_STRATEGY as this process saw it ("auto" when unset)
  ~Cl();
};

// The first platform whose name contains ISG_BENCH_PLATFORM (or ISG_TEST_PLATFORM), else the
// first platform; its default device. Records device, driver and layer facts in the report.
Cl& openCl(Report* report);

// A program built from `source`; nullptr and `*log` on failure (a kernel the driver or the layer
// cannot build is reported as skipped, not as an error, when the caller says so).
cl_program buildProgram(const Cl& cl, const std::string& source, const std::string& options,
                        std::string* log);
cl_kernel kernel(cl_program p, const std::string& name);
std::string firstLines(const std::string& text, int lines);

// For the direct baselines of programs with Intel builtins, which the driver alone cannot build:
// the rewritten program the layer handed the driver for `source`, found in an ISG_DUMP_DIR of a
// run through the layer ("" when absent), and the options the layer adds to the application's
// (one -D per extension of builtins-cl/builtins.def).
std::string findRewritten(const std::string& dumpDir, const std::string& source);
// Each program an ISG_DUMP_DIR holds: `visit(stem, original source)`, where stem + ".rewritten.cl"
// is the layer's text of it; stops where `visit` returns false.
void eachDumpedProgram(const std::string& dumpDir,
                       const std::function<bool(const std::string&, const std::string&)>& visit);
std::string layerAddedOptions();

class Buffer {
 public:
  Buffer(const Cl& cl, std::size_t bytes, const void* init = nullptr);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  cl_mem mem() const { return mem_; }
  std::size_t bytes() const { return bytes_; }
  void write(const void* data);
  void read(void* data) const;
  void fill(uint32_t pattern);

 private:
  const Cl& cl_;
  cl_mem mem_ = nullptr;
  std::size_t bytes_;
};

template <class T>
void setArg(cl_kernel k, cl_uint i, const T& v) {
  check(clSetKernelArg(k, i, sizeof(T), &v), "clSetKernelArg");
}
inline void setArg(cl_kernel k, cl_uint i, const Buffer& b) {
  cl_mem m = b.mem();
  check(clSetKernelArg(k, i, sizeof m, &m), "clSetKernelArg");
}

// Runs the kernel `warmup` times untimed, then `reps` times; returns each run's device time in
// milliseconds (CL_PROFILING_COMMAND_END - START).
std::vector<double> timeKernel(const Cl& cl, cl_kernel k, cl_uint dims, const size_t* global,
                               const size_t* local, int warmup, int reps);
void runOnce(const Cl& cl, cl_kernel k, cl_uint dims, const size_t* global, const size_t* local);

// Every kernel's result is checked once before it is timed (bench/README.md, Method): runs `k`
// once, asks `verify` what is wrong with the result ("" when it is right; noted as
// "<case> <variant>: WRONG RESULT, <what>"), then times it and adds it to the report as
// (caseName, variant) with `work` units per run, counted in `unit`s per second (Report::add).
// The caller fills the output before and reads it in `verify`.
// Timing::Wall: host time from the enqueue to the end of what its event covers, for launches
// whose event is not the kernel's alone (the layer's image stand-ins copy around the kernel).
enum class Timing { Event, Wall };
void checkAndTime(const Cl& cl, Report* r, const std::string& caseName, const std::string& variant,
                  cl_kernel k, cl_uint dims, const size_t* global, const size_t* local, int warmup,
                  int reps, double work, double unit, const std::function<std::string()>& verify,
                  Timing timing = Timing::Event);

// The programs of a benchmark's variants, in the order they are run. A variant whose program is
// missing (did not build, or cannot build on this device) is reported as skipped, with its
// reason, in every case. Releases the programs.
class Programs {
 public:
  explicit Programs(const Cl& cl) : cl_(cl) {}
  ~Programs();
  Programs(const Programs&) = delete;
  Programs& operator=(const Programs&) = delete;
  // Builds `source` with `options` as `variant`; on failure the reason is `failure` and the
  // build log's first `logLines` lines.
  void build(const std::string& variant, const std::string& source, const std::string& failure,
             int logLines = 3, const std::string& options = "");
  // `source` compiled to SPIR-V (a module of ISG_TEST_SPIRV_CACHE, tests/common/spirv_cache.h)
  // and created with clCreateProgramWithIL, as `variant`.
  void buildFromSpirv(const std::string& variant, const std::string& source);
  // `variant` is not built at all here, for `why`.
  void unavailable(const std::string& variant, const std::string& why);
  // run(variant, program) for every variant that has a program; the others are skipped in
  // `caseName`.
  void each(Report* r, const std::string& caseName,
            const std::function<void(const std::string&, cl_program)>& run) const;

 private:
  struct Entry {
    std::string variant;
    cl_program program = nullptr;
    std::string why;
  };
  const Cl& cl_;
  std::vector<Entry> entries_;
};

// The usual pair: `intelSource` through the layer as variant kLayer and, on NVIDIA, the same
// algorithm written by hand in inline PTX (`ptxSource`) as variant "ptx"; with
// ISG_TEST_SPIRV_CACHE set, `intelSource` from SPIR-V as variant kLayerSpirv too.
void buildLayerAndPtx(Programs* p, const Cl& cl, const std::string& intelSource,
                      const std::function<std::string()>& ptxSource);

// The variant name of "through the layer" for benchmarks that also run without it.
constexpr const char* kLayer = "layer";
constexpr const char* kLayerSpirv = "layer-spirv";
// The Intel program with reqd_work_group_size: the layer knows the work-group's shape.
constexpr const char* kLayerReqd = "layer-reqd";
// ISG_TEST_SPIRV_CACHE is set: the benchmarks add the kLayerSpirv variant (docs/spirv.md).
bool spirvVariant();

}  // namespace isgb
