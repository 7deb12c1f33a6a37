// SPDX-License-Identifier: MIT
#include "cl_bench.h"

#include <chrono>

#include "spirv_cache.h"

#include "builtin_table.h"  // the extensions: what layerAddedOptions() defines
#include "build_log.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace isgb {

void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) throw std::runtime_error(std::string(what) + " returned " + std::to_string(err));
}

namespace {

// A string query of clGetPlatformInfo / clGetDeviceInfo ("" when it fails).
template <class Object, class Info>
std::string infoString(cl_int (*get)(Object, Info, size_t, void*, size_t*), Object o, Info what) {
  size_t n = 0;
  if (get(o, what, 0, nullptr, &n) != CL_SUCCESS || n == 0) return {};
  std::string s(n, '\0');
  get(o, what, n, s.data(), nullptr);
  while (!s.empty() && s.back() == '\0') s.pop_back();
  return s;
}
std::string platformString(cl_platform_id p, cl_platform_info what) { return infoString(clGetPlatformInfo, p, what); }
std::string deviceString(cl_device_id d, cl_device_info what) { return infoString(clGetDeviceInfo, d, what); }

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

Cl::~Cl() {
  if (queue) clReleaseCommandQueue(queue);
  if (context) clReleaseContext(context);
}

Cl& openCl(Report* report) {
  static Cl cl;
  if (cl.queue) return cl;
  cl_uint n = 0;
  check(clGetPlatformIDs(0, nullptr, &n), "clGetPlatformIDs");
  std::vector<cl_platform_id> ps(n);
  check(clGetPlatformIDs(n, ps.data(), nullptr), "clGetPlatformIDs");
  std::string want = env("ISG_BENCH_PLATFORM");
  if (want.empty()) want = env("ISG_TEST_PLATFORM");
  for (cl_platform_id p : ps)
    if (want.empty() || platformString(p, CL_PLATFORM_NAME).find(want) != std::string::npos) {
      cl.platform = p;
      break;
    }
  if (!cl.platform) throw std::runtime_error("no OpenCL platform matches '" + want + "'");
  check(clGetDeviceIDs(cl.platform, CL_DEVICE_TYPE_DEFAULT, 1, &cl.device, nullptr), "clGetDeviceIDs");
  cl_int err = CL_SUCCESS;
  cl.context = clCreateContext(nullptr, 1, &cl.device, nullptr, nullptr, &err);
  check(err, "clCreateContext");
  cl.queue = clCreateCommandQueue(cl.context, cl.device, CL_QUEUE_PROFILING_ENABLE, &err);
  check(err, "clCreateCommandQueue");
  cl.platformName = platformString(cl.platform, CL_PLATFORM_NAME);
  cl.deviceName = deviceString(cl.device, CL_DEVICE_NAME);
  cl.vendor = deviceString(cl.device, CL_DEVICE_VENDOR);
  cl.driver = deviceString(cl.device, CL_DRIVER_VERSION);
  cl.version = deviceString(cl.device, CL_DEVICE_VERSION);
  clGetDeviceInfo(cl.device, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cl.computeUnits, &cl.computeUnits,
                  nullptr);
  cl.nvidia = cl.vendor.find("NVIDIA") != std::string::npos;
  cl.layer = env("OPENCL_LAYERS");
  cl.strategy = env("ISG_STRATEGY").empty() ? "auto" : env("ISG_STRATEGY");
  if (report) {
    report->info("device", cl.deviceName + " (" + cl.vendor + ")");
    report->info("platform", cl.platformName + ", " + cl.version);
    report->info("driver", cl.driver);
    report->info("layer", cl.layer.empty() ? "none (direct to the driver)" : cl.layer);
    report->info("ISG_STRATEGY", cl.strategy);
    report->config("compute_units", cl.computeUnits);
    std::printf("device: %s | %s | driver %s | layer: %s | ISG_STRATEGY=%s\n", cl.deviceName.c_str(),
                cl.platformName.c_str(), cl.driver.c_str(), cl.layer.empty() ? "none" : cl.layer.c_str(),
                cl.strategy.c_str());
  }
  return cl;
}

std::string firstLines(const std::string& text, int lines) {
  std::string out;
  std::size_t pos = 0;
  for (int i = 0; i < lines && pos < text.size(); ++i) {
    std::size_t e = text.find('\n', pos);
    if (e == std::string::npos) e = text.size();
    if (e > pos) out += (out.empty() ? "" : " | ") + text.substr(pos, e - pos);
    pos = e + 1;
  }
  return out;
}

namespace {

// Builds `p` (the caller's: source or IL); on failure releases it and returns nullptr with
// "clBuildProgram returned N: <log>" in *log.
cl_program built(const Cl& cl, cl_program p, const std::string& options, std::string* log) {
  const cl_int err = clBuildProgram(p, 1, &cl.device, options.c_str(), nullptr, nullptr);
  if (err == CL_SUCCESS) return p;
  if (log)
    *log = "clBuildProgram returned " + std::to_string(err) + ": " +
           isg::programBuildLog(p, cl.device);
  clReleaseProgram(p);
  return nullptr;
}

}  // namespace

cl_program buildProgram(const Cl& cl, const std::string& source, const std::string& options,
                        std::string* log) {
  // ISG_BENCH_SOURCES=DIR keeps every generated program, to read or to profile (ncu) by hand.
  static int counter = 0;
  std::string dir = env("ISG_BENCH_SOURCES");
  if (!dir.empty()) {
    std::ofstream f(dir + "/program-" + std::to_string(counter++) + ".cl", std::ios::binary);
    f << source;
  }
  const char* text = source.c_str();
  size_t len = source.size();
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithSource(cl.context, 1, &text, &len, &err);
  check(err, "clCreateProgramWithSource");
  return built(cl, p, options, log);
}

cl_kernel kernel(cl_program p, const std::string& name) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, name.c_str(), &err);
  check(err, ("clCreateKernel " + name).c_str());
  return k;
}

Buffer::Buffer(const Cl& cl, std::size_t bytes, const void* init) : cl_(cl), bytes_(bytes) {
  cl_int err = CL_SUCCESS;
  mem_ = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
  check(err, "clCreateBuffer");
  if (init) write(init);
}
Buffer::~Buffer() {
  if (mem_) clReleaseMemObject(mem_);
}
void Buffer::write(const void* data) {
  check(clEnqueueWriteBuffer(cl_.queue, mem_, CL_TRUE, 0, bytes_, data, 0, nullptr, nullptr),
        "clEnqueueWriteBuffer");
}
void Buffer::read(void* data) const {
  check(clEnqueueReadBuffer(cl_.queue, mem_, CL_TRUE, 0, bytes_, data, 0, nullptr, nullptr),
        "clEnqueueReadBuffer");
}
void Buffer::fill(uint32_t pattern) {
  check(clEnqueueFillBuffer(cl_.queue, mem_, &pattern, sizeof pattern, 0, bytes_, 0, nullptr, nullptr),
        "clEnqueueFillBuffer");
  check(clFinish(cl_.queue), "clFinish");
}

void runOnce(const Cl& cl, cl_kernel k, cl_uint dims, const size_t* global, const size_t* local) {
  check(clEnqueueNDRangeKernel(cl.queue, k, dims, nullptr, global, local, 0, nullptr, nullptr),
        "clEnqueueNDRangeKernel");
  check(clFinish(cl.queue), "clFinish");
}

void checkAndTime(const Cl& cl, Report* r, const std::string& caseName, const std::string& variant,
                  cl_kernel k, cl_uint dims, const size_t* global, const size_t* local, int warmup,
                  int reps, double work, double unit, const std::function<std::string()>& verify,
                  Timing timing) {
  runOnce(cl, k, dims, global, local);
  std::string bad = verify();
  if (!bad.empty()) r->note(caseName + " " + variant + ": WRONG RESULT, " + bad);
  std::vector<double> ms;
  if (timing == Timing::Event) {
    ms = timeKernel(cl, k, dims, global, local, warmup, reps);
  } else {
    for (int i = 0; i < warmup + reps; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      check(clEnqueueNDRangeKernel(cl.queue, k, dims, nullptr, global, local, 0, nullptr, nullptr),
            "clEnqueueNDRangeKernel");
      check(clFinish(cl.queue), "clFinish");
      const std::chrono::duration<double, std::milli> d = std::chrono::steady_clock::now() - t0;
      if (i >= warmup) ms.push_back(d.count());
    }
  }
  r->add(caseName, variant, ms, work, unit, bad.empty() ? 1 : 0);
}

Programs::~Programs() {
  for (const Entry& e : entries_)
    if (e.program) clReleaseProgram(e.program);
}

void Programs::build(const std::string& variant, const std::string& source,
                     const std::string& failure, int logLines, const std::string& options) {
  std::string log;
  cl_program p = buildProgram(cl_, source, options, &log);
  entries_.push_back({variant, p, p ? std::string() : failure + firstLines(log, logLines)});
}

void Programs::unavailable(const std::string& variant, const std::string& why) {
  entries_.push_back({variant, nullptr, why});
}

void Programs::each(Report* r, const std::string& caseName,
                    const std::function<void(const std::string&, cl_program)>& run) const {
  for (const Entry& e : entries_) {
    if (e.program)
      run(e.variant, e.program);
    else
      r->skip(caseName, e.variant, e.why);
  }
}

bool spirvVariant() { return !env("ISG_TEST_SPIRV_CACHE").empty(); }

void Programs::buildFromSpirv(const std::string& variant, const std::string& source) {
  std::string module, why;
  if (!isgtest::compileToSpirv(source, "", &module, &why)) {
    unavailable(variant, why);
    return;
  }
  cl_int err = CL_SUCCESS;
  cl_program p = clCreateProgramWithIL(cl_.context, module.data(), module.size(), &err);
  std::string log;
  if (p) p = built(cl_, p, "", &log);
  why = p ? "" : log.empty() ? "clCreateProgramWithIL returned " + std::to_string(err)
                             : "the program from SPIR-V did not build: " + firstLines(log, 3);
  entries_.push_back({variant, p, why});
}

void buildLayerAndPtx(Programs* p, const Cl& cl, const std::string& intelSource,
                      const std::function<std::string()>& ptxSource) {
  p->build(kLayer, intelSource, "the Intel program did not build (is OPENCL_LAYERS set?): ");
  // ISG_TEST_SPIRV_CACHE (tests/common/spirv_cache.h): the same program from SPIR-V too.
  if (spirvVariant()) p->buildFromSpirv(kLayerSpirv, intelSource);
  if (cl.nvidia)
    p->build("ptx", ptxSource(), "build failed: ");
  else
    p->unavailable("ptx", "hand-written inline PTX builds only on NVIDIA");
}

std::vector<double> timeKernel(const Cl& cl, cl_kernel k, cl_uint dims, const size_t* global,
                               const size_t* local, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i)
    check(clEnqueueNDRangeKernel(cl.queue, k, dims, nullptr, global, local, 0, nullptr, nullptr),
          "clEnqueueNDRangeKernel");
  check(clFinish(cl.queue), "clFinish");
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    cl_event e = nullptr;
    check(clEnqueueNDRangeKernel(cl.queue, k, dims, nullptr, global, local, 0, nullptr, &e),
          "clEnqueueNDRangeKernel");
    check(clWaitForEvents(1, &e), "clWaitForEvents");
    cl_ulong t0 = 0, t1 = 0;
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_START, sizeof t0, &t0, nullptr),
          "clGetEventProfilingInfo");
    check(clGetEventProfilingInfo(e, CL_PROFILING_COMMAND_END, sizeof t1, &t1, nullptr),
          "clGetEventProfilingInfo");
    clReleaseEvent(e);
    ms.push_back(static_cast<double>(t1 - t0) * 1e-6);
  }
  return ms;
}

void eachDumpedProgram(const std::string& dumpDir,
                       const std::function<bool(const std::string&, const std::string&)>& visit) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (dumpDir.empty() || !fs::is_directory(dumpDir, ec)) return;
  const std::string tail = ".original.cl";
  for (const auto& e : fs::directory_iterator(dumpDir, ec)) {
    const std::string path = e.path().string();
    std::string original;
    if (path.size() <= tail.size() || path.compare(path.size() - tail.size(), tail.size(), tail) != 0 ||
        !readText(path, &original))
      continue;
    if (!visit(path.substr(0, path.size() - tail.size()), original)) return;
  }
}

std::string findRewritten(const std::string& dumpDir, const std::string& source) {
  std::string rewritten;
  eachDumpedProgram(dumpDir, [&](const std::string& stem, const std::string& original) {
    return original != source || !readText(stem + ".rewritten.cl", &rewritten);
  });
  return rewritten;
}

std::string layerAddedOptions() {
  std::string out;
  for (const isg::table::Extension& e : isg::table::extensions())
    out += std::string(out.empty() ? "" : " ") + "-D " + e.name + "=1";
  return out;
}

}  // namespace isgb
