// SPDX-License-Identifier: MIT
// Capture (layer, ISG_CAPTURE_DIR) and replay (tools/isg-replay) on the CI device, through the
// real loader. The layer reads its controls once, at the first OpenCL call, so main() sets the
// capture directory before any test runs; runs that need other controls (ISG_DISABLE, the
// filters, a broken directory) are this executable again, started as a helper process.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "case_format.h"
#include "cl_harness.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using isg::capture::Case;
using isgtest::env;

std::string g_self;     // this executable, for helper processes
std::string g_replay;   // isg-replay: beside this executable when copied there, else the build's
std::string g_caseDir;  // ISG_CAPTURE_DIR of this process

// ---- processes ---------------------------------------------------------------------------------

struct ProcessResult {
  int status = -1;     // exit status; -1 if it did not exit normally
  std::string output;  // stdout and stderr together
};

// Runs argv with this process's environment changed by `changes` (nullopt unsets).
ProcessResult runProcess(const std::vector<std::string>& argv,
                         const std::map<std::string, std::optional<std::string>>& changes) {
  std::vector<std::string> envText;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    if (!changes.count(entry.substr(0, entry.find('=')))) envText.push_back(entry);
  }
  for (const auto& [name, value] : changes)
    if (value) envText.push_back(name + "=" + *value);
  std::vector<char*> envp, args;
  for (std::string& e : envText) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argText = argv;
  for (std::string& a : argText) args.push_back(a.data());
  args.push_back(nullptr);

  ProcessResult r;
  int pipeFds[2];
  if (pipe(pipeFds) != 0) return r;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipeFds[1], 2);
  posix_spawn_file_actions_addclose(&actions, pipeFds[0]);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  close(pipeFds[1]);
  if (spawned == 0) {
    char buf[4096];
    ssize_t n;
    while ((n = read(pipeFds[0], buf, sizeof buf)) > 0) r.output.append(buf, n);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) r.status = WEXITSTATUS(status);
  } else {
    r.output = std::string("posix_spawn failed: ") + std::strerror(spawned);
  }
  close(pipeFds[0]);
  return r;
}

// isg-replay on the test's device; through the layer unless `withLayer` is false. The replay
// must not capture itself, so the capture controls are removed from its environment.
ProcessResult replay(const std::string& caseDir, std::vector<std::string> options = {},
                     bool withLayer = true) {
  std::vector<std::string> argv = {g_replay, caseDir};
  if (const char* platform = std::getenv("ISG_TEST_PLATFORM")) {
    argv.push_back("--platform");
    argv.push_back(platform);
  }
  argv.insert(argv.end(), options.begin(), options.end());
  std::map<std::string, std::optional<std::string>> changes = {
      {"ISG_CAPTURE_DIR", std::nullopt},
      {"ISG_CAPTURE_KERNEL", std::nullopt},
      {"ISG_CAPTURE_ENQUEUE", std::nullopt},
      {"ISG_CAPTURE_PER_KERNEL", std::nullopt},
      {"ISG_CAPTURE_REWRITTEN_ONLY", std::nullopt},
      {"ISG_CAPTURE_MAX_MB", std::nullopt},
      {"ISG_DISABLE", std::nullopt}};
  if (!withLayer) changes["OPENCL_LAYERS"] = std::nullopt;
  return runProcess(argv, changes);
}

// This executable as a helper (see runHelper) with extra controls.
ProcessResult helper(const std::string& mode,
                     std::map<std::string, std::optional<std::string>> changes) {
  changes["ISG_COMPARE_HELPER"] = mode;
  return runProcess({g_self}, changes);
}

// ---- cases -------------------------------------------------------------------------------------

struct Found {
  std::string dir;
  Case c;
};

// Every complete case in `dir` captured from kernel `name`.
std::vector<Found> casesOf(const std::string& dir, const std::string& name) {
  std::vector<Found> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().filename().string().front() == '.') continue;  // partial
    std::string text, error;
    Found f;
    f.dir = entry.path().string();
    if (!isg::capture::readFile(f.dir + "/case.json", &text)) continue;
    if (!isg::capture::fromJson(text, &f.c, &error)) {
      ADD_FAILURE() << f.dir << ": " << error;
      continue;
    }
    if (f.c.kernelName == name) out.push_back(std::move(f));
  }
  return out;
}

Found onlyCaseOf(const std::string& dir, const std::string& name) {
  std::vector<Found> found = casesOf(dir, name);
  EXPECT_EQ(found.size(), 1u) << "cases of " << name << " in " << dir;
  return found.empty() ? Found{} : found.front();
}

cl_mem buffer(cl_mem_flags flags, size_t bytes, const void* data = nullptr) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(env().context, flags | (data ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                            const_cast<void*>(data), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return m;
}

cl_kernel kernelFrom(const char* source, const char* name) {
  std::string log;
  cl_program program = isgtest::buildProgram(source, "", &log);
  EXPECT_NE(program, nullptr) << log;
  if (!program) return nullptr;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program, name, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  clReleaseProgram(program);  // the kernel keeps it
  return k;
}

const char* kShuffleSource = R"CLC(
#pragma OPENCL EXTENSION cl_intel_subgroups : enable
__attribute__((intel_reqd_sub_group_size(16)))
__kernel void shuffle_rotate(__global const float* in, __global float* out,
                             __global uint* lanes, uint shift) {
  const uint gid = get_global_id(0);
  const uint lane = get_sub_group_local_id();
  out[gid] = intel_sub_group_shuffle(in[gid], (lane + shift) % 16) * 2.0f + 0.5f;
  lanes[gid] = (get_sub_group_id() << 8) | lane;
}
)CLC";

// shuffle_rotate's buffers and arguments: in (read only), out, lanes, shift.
struct ShuffleArgs {
  cl_mem in = nullptr, out = nullptr, lanes = nullptr;
  ~ShuffleArgs() {
    for (cl_mem m : {in, out, lanes})
      if (m) clReleaseMemObject(m);
  }
};
void setShuffleArgs(cl_kernel k, const std::vector<float>& in, cl_uint shift, ShuffleArgs* a) {
  const size_t n = in.size();
  a->in = buffer(CL_MEM_READ_ONLY, n * sizeof(float), in.data());
  a->out = buffer(CL_MEM_WRITE_ONLY, n * sizeof(float));
  a->lanes = buffer(CL_MEM_READ_WRITE, n * sizeof(cl_uint));
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof a->in, &a->in));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof a->out, &a->out));
  ISG_CL_CHECK(clSetKernelArg(k, 2, sizeof a->lanes, &a->lanes));
  ISG_CL_CHECK(clSetKernelArg(k, 3, sizeof shift, &shift));
}

// shuffle_rotate's result (into *out) against the host model: each sub-group of 16 rotated by
// `shift`.
void expectRotated(const ShuffleArgs& a, const std::vector<float>& in, cl_uint shift, std::vector<float>* out) {
  const size_t n = in.size();
  out->resize(n);
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, a.out, CL_TRUE, 0, n * sizeof(float), out->data(),
                                   0, nullptr, nullptr));
  for (size_t i = 0; i < n; ++i)
    ASSERT_EQ((*out)[i], in[i / 16 * 16 + (i % 16 + shift) % 16] * 2.0f + 0.5f) << i;
}

const char* kPlainSource = R"CLC(
typedef struct { float scale; int bias; } params_t;
__kernel void plain_mix(__global const int* in, __global int* out, __local int* tmp,
                        params_t p, __global float* fout) {
  const size_t i = get_global_id(0) - get_global_offset(0);
  const size_t l = get_local_id(0);
  tmp[l] = in[i];
  barrier(CLK_LOCAL_MEM_FENCE);
  out[i] = tmp[(l + 1) % get_local_size(0)] * 3 + p.bias;
  fout[i] = (float)in[i] * p.scale;
}
)CLC";

const char* kScaleSource = R"CLC(
__kernel void plain_scale(__global const float* in, __global float* out, float k) {
  const size_t i = get_global_id(0);
  out[i] = sqrt(in[i]) * k + 1.0f;
}
__kernel void count_a(__global uint* out, uint v) { out[get_global_id(0)] = v; }
__kernel void count_b(__global uint* out, uint v) { out[get_global_id(0)] = v + 1; }
)CLC";

// Runs plain_scale over n items; returns whether the results are right.
bool runPlainScale(const char* name = "plain_scale", size_t n = 128) {
  std::vector<float> in(n), out(n, -1.0f);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.75f + 0.1f;
  cl_kernel k = kernelFrom(kScaleSource, name);
  if (!k) return false;
  cl_mem inBuf = buffer(CL_MEM_READ_ONLY, n * sizeof(float), in.data());
  cl_mem outBuf = buffer(CL_MEM_WRITE_ONLY, n * sizeof(float));
  const float factor = 1.5f;
  bool ok = clSetKernelArg(k, 0, sizeof inBuf, &inBuf) == CL_SUCCESS &&
            clSetKernelArg(k, 1, sizeof outBuf, &outBuf) == CL_SUCCESS &&
            clSetKernelArg(k, 2, sizeof factor, &factor) == CL_SUCCESS &&
            clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr) ==
                CL_SUCCESS &&
            clEnqueueReadBuffer(env().queue, outBuf, CL_TRUE, 0, n * sizeof(float), out.data(), 0,
                                nullptr, nullptr) == CL_SUCCESS;
  for (size_t i = 0; ok && i < n; ++i)
    ok = std::fabs(out[i] - (std::sqrt(in[i]) * factor + 1.0f)) < 1e-4f;
  clReleaseMemObject(inBuf);
  clReleaseMemObject(outBuf);
  clReleaseKernel(k);
  return ok;
}

// ---- helper processes
// ----------------------------------------------------------------------------

// "plain": plain_scale once; "filters": count_a once and count_b with v = 10, 20, 30.
// Prints whether the device advertises cl_intel_subgroups (false when the layer does not
// rewrite). Exit status 0 when the results were right.
int runHelper(const std::string& mode) {
  if (!env().queue) {
    std::printf("no usable OpenCL device\n");
    return 3;
  }
  const bool intel =
      isgtest::deviceString(env().device, CL_DEVICE_EXTENSIONS).find("cl_intel_subgroups") !=
      std::string::npos;
  std::printf("cl_intel_subgroups advertised: %s\n", intel ? "yes" : "no");
  if (mode == "plain") return runPlainScale() ? 0 : 1;
  if (mode == "wide") {  // S = 32 under the khr double of native size 16: the program is local's
    const char* src =
        "__attribute__((intel_reqd_sub_group_size(32)))\n"
        "kernel void wide_rotate(global uint* o) {\n"
        "  o[get_global_id(0)] = intel_sub_group_shuffle((uint)get_global_id(0), 1u); }\n";
    const size_t n = 64;
    cl_mem out = buffer(CL_MEM_READ_WRITE, n * sizeof(cl_uint));
    cl_kernel k = kernelFrom(src, "wide_rotate");
    if (!k) return 1;
    clSetKernelArg(k, 0, sizeof out, &out);
    cl_int err = clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &n, &n, 0, nullptr, nullptr);
    clFinish(env().queue);
    clReleaseKernel(k);
    clReleaseMemObject(out);
    return err == CL_SUCCESS ? 0 : 1;
  }
  if (mode == "many" || mode == "big") {
    // many: count_a and count_b 5 times each over 16 items. big: count_a once over 2^18 items
    // (a case of 2 MiB), then count_b 3 times over 16.
    const size_t bigN = size_t{1} << 18, n = 16;
    cl_mem big = buffer(CL_MEM_READ_WRITE, bigN * sizeof(cl_uint));
    cl_mem out = buffer(CL_MEM_READ_WRITE, n * sizeof(cl_uint));
    cl_kernel a = kernelFrom(kScaleSource, "count_a"), b = kernelFrom(kScaleSource, "count_b");
    if (!a || !b) return 1;
    clSetKernelArg(a, 0, sizeof out, mode == "big" ? &big : &out);
    clSetKernelArg(b, 0, sizeof out, &out);
    bool ok = true;
    for (cl_uint v = 1; v <= (mode == "big" ? 1u : 5u); ++v) {
      clSetKernelArg(a, 1, sizeof v, &v);
      ok = ok && clEnqueueNDRangeKernel(env().queue, a, 1, nullptr, mode == "big" ? &bigN : &n,
                                        nullptr, 0, nullptr, nullptr) == CL_SUCCESS;
    }
    for (cl_uint v = 1; v <= (mode == "big" ? 3u : 5u); ++v) {
      clSetKernelArg(b, 1, sizeof v, &v);
      ok = ok && clEnqueueNDRangeKernel(env().queue, b, 1, nullptr, &n, nullptr, 0, nullptr,
                                        nullptr) == CL_SUCCESS;
    }
    clFinish(env().queue);
    clReleaseKernel(a);
    clReleaseKernel(b);
    clReleaseMemObject(big);
    clReleaseMemObject(out);
    return ok ? 0 : 1;
  }
  if (mode == "filters") {
    const size_t n = 16;
    cl_mem out = buffer(CL_MEM_READ_WRITE, n * sizeof(cl_uint));
    cl_kernel a = kernelFrom(kScaleSource, "count_a"), b = kernelFrom(kScaleSource, "count_b");
    cl_uint v = 5;
    clSetKernelArg(a, 0, sizeof out, &out);
    clSetKernelArg(a, 1, sizeof v, &v);
    clEnqueueNDRangeKernel(env().queue, a, 1, nullptr, &n, nullptr, 0, nullptr, nullptr);
    clSetKernelArg(b, 0, sizeof out, &out);
    for (cl_uint value : {10u, 20u, 30u}) {
      clSetKernelArg(b, 1, sizeof value, &value);
      clEnqueueNDRangeKernel(env().queue, b, 1, nullptr, &n, nullptr, 0, nullptr, nullptr);
    }
    std::vector<cl_uint> result(n);
    clEnqueueReadBuffer(env().queue, out, CL_TRUE, 0, n * sizeof(cl_uint), result.data(), 0,
                        nullptr, nullptr);
    return result[0] == 31 ? 0 : 1;
  }
  return 4;
}

// ---- tests -------------------------------------------------------------------------------------

TEST(Capture, IntelShuffleKernelReplaysIdentically) {
  ISG_REQUIRE_ENV();
  const size_t n = 256, local = 64;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) * 0.25f - 3.0f;
  cl_kernel k = kernelFrom(kShuffleSource, "shuffle_rotate");
  ASSERT_NE(k, nullptr);
  const cl_uint shift = 3;
  ShuffleArgs a;
  ASSERT_NO_FATAL_FAILURE(setShuffleArgs(k, in, shift, &a));
  cl_event done = nullptr;
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &n, &local, 0, nullptr, &done));
  // Capture keeps the application's event: it is the kernel's, and it completes.
  ISG_CL_CHECK(clWaitForEvents(1, &done));
  cl_command_type type = 0;
  ISG_CL_CHECK(clGetEventInfo(done, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr));
  EXPECT_EQ(type, static_cast<cl_command_type>(CL_COMMAND_NDRANGE_KERNEL));
  clReleaseEvent(done);
  std::vector<float> out;
  ASSERT_NO_FATAL_FAILURE(expectRotated(a, in, shift, &out));

  Found f = onlyCaseOf(g_caseDir, "shuffle_rotate");
  const Case& c = f.c;
  EXPECT_EQ(c.formatVersion, isg::capture::kFormatVersion);
  EXPECT_EQ(c.layerMode, "rewritten");
  EXPECT_EQ(c.subGroupSize, 16u);
  EXPECT_EQ(c.device.at("name"), isgtest::deviceString(env().device, CL_DEVICE_NAME));
  ASSERT_EQ(c.args.size(), 4u);  // the layer's hidden argument is not the application's
  EXPECT_FALSE(c.args[0].writable);
  EXPECT_TRUE(c.args[1].writable);
  EXPECT_EQ(c.args[1].typeName, "float*");
  EXPECT_EQ(c.args[3].kind, "scalar");
  EXPECT_EQ(c.args[3].valueHex, "03000000");
  ASSERT_TRUE(c.ndrange.localSize.has_value());
  EXPECT_EQ((*c.ndrange.localSize)[0], local);
  EXPECT_FALSE(c.ndrange.globalOffset.has_value());
  // The application's source, not the rewritten one.
  std::string source;
  ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + c.sourceFile, &source));
  EXPECT_EQ(source, kShuffleSource);
  // The captured output is what the application read.
  std::string after;
  ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + c.memory[c.args[1].memory].after, &after));
  ASSERT_EQ(after.size(), n * sizeof(float));
  EXPECT_EQ(std::memcmp(after.data(), out.data(), after.size()), 0);

  ProcessResult r = replay(f.dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     IDENTICAL"), std::string::npos) << r.output;
  // Without the layer a driver without Intel's builtins cannot build it: the error says how
  // to replay (issue 32.3: the hint used to sit after the build log's terminating NUL).
  r = replay(f.dir, {}, /*withLayer=*/false);
  if (r.status != 0) {
    EXPECT_NE(r.output.find("replay it through the layer: OPENCL_LAYERS="), std::string::npos)
        << r.output;
  } else {
    EXPECT_NE(r.output.find("result     IDENTICAL"), std::string::npos) << r.output;
  }
  clReleaseKernel(k);
}

// A program from SPIR-V (docs/spirv.md): the case stores the application's module byte for byte
// and isg-replay creates the program from it again.
TEST(Capture, SpirvProgramCaseStoresTheModuleAndReplays) {
  ISG_REQUIRE_ENV();
  const std::string ils = isgtest::deviceString(env().device, CL_DEVICE_IL_VERSION);
  if (ils.find("SPIR-V") == std::string::npos)
    GTEST_SKIP() << "neither the device nor the layer takes SPIR-V here";
  std::string source = kShuffleSource, module, log;
  source.replace(source.find("shuffle_rotate"), 14, "shuffle_rotate_spv");
  ASSERT_TRUE(isgtest::compileToSpirv(source, "", &module, &log)) << log;
  cl_int err = CL_SUCCESS;
  cl_program program = clCreateProgramWithIL(env().context, module.data(), module.size(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  ASSERT_EQ(clBuildProgram(program, 1, &env().device, "", nullptr, nullptr), CL_SUCCESS)
      << isgtest::buildLog(program, env().device);
  cl_kernel k = clCreateKernel(program, "shuffle_rotate_spv", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t n = 64, local = 32;
  std::vector<float> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<float>(i) + 0.5f;
  const cl_uint shift = 5;
  ShuffleArgs a;
  ASSERT_NO_FATAL_FAILURE(setShuffleArgs(k, in, shift, &a));
  ISG_CL_CHECK(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &n, &local, 0, nullptr, nullptr));
  std::vector<float> out;
  ASSERT_NO_FATAL_FAILURE(expectRotated(a, in, shift, &out));

  Found f = onlyCaseOf(g_caseDir, "shuffle_rotate_spv");
  EXPECT_EQ(f.c.programForm, "spirv");
  EXPECT_EQ(f.c.sourceFile, "program.spv");
  std::string stored;
  ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + f.c.sourceFile, &stored));
  EXPECT_EQ(stored, module);
  ProcessResult r = replay(f.dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     IDENTICAL"), std::string::npos) << r.output;
  clReleaseKernel(k);
  clReleaseProgram(program);
}

TEST(Capture, PlainKernelWithSubBufferLocalAndStructReplaysIdentically) {
  ISG_REQUIRE_ENV();
  const size_t n = 64, offset = 16;
  cl_uint alignBits = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof alignBits,
                               &alignBits, nullptr));
  const size_t origin = alignBits / 8;
  std::vector<cl_int> in(n);
  for (size_t i = 0; i < n; ++i) in[i] = static_cast<cl_int>(i * 7 % 23) - 5;
  std::vector<unsigned char> parentBytes(origin + n * sizeof(cl_int) + 64, 0x5a);
  cl_kernel k = kernelFrom(kPlainSource, "plain_mix");
  ASSERT_NE(k, nullptr);
  cl_mem inBuf = buffer(CL_MEM_READ_WRITE, n * sizeof(cl_int), in.data());  // const in the kernel
  cl_mem parent = buffer(CL_MEM_READ_WRITE, parentBytes.size(), parentBytes.data());
  cl_buffer_region region{origin, n * sizeof(cl_int)};
  cl_int err = CL_SUCCESS;
  cl_mem out = clCreateSubBuffer(parent, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem fout = buffer(CL_MEM_READ_WRITE, n * sizeof(float));
  struct {
    cl_float scale;
    cl_int bias;
  } params{0.5f, 7};
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof inBuf, &inBuf));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof out, &out));
  ISG_CL_CHECK(clSetKernelArg(k, 2, n * sizeof(cl_int), nullptr));
  ISG_CL_CHECK(clSetKernelArg(k, 3, sizeof params, &params));
  ISG_CL_CHECK(clSetKernelArg(k, 4, sizeof fout, &fout));
  ISG_CL_CHECK(
      clEnqueueNDRangeKernel(env().queue, k, 1, &offset, &n, nullptr, 0, nullptr, nullptr));
  ISG_CL_CHECK(clFinish(env().queue));

  Found f = onlyCaseOf(g_caseDir, "plain_mix");
  const Case& c = f.c;
  EXPECT_EQ(c.layerMode, "pass-through");  // no builtin: the driver got the program unchanged
  EXPECT_FALSE(c.ndrange.localSize.has_value());  // NULL, as the application passed it
  ASSERT_TRUE(c.ndrange.globalOffset.has_value());
  EXPECT_EQ((*c.ndrange.globalOffset)[0], offset);
  ASSERT_EQ(c.args.size(), 5u);
  EXPECT_FALSE(c.args[0].writable);  // const-qualified
  EXPECT_TRUE(c.args[1].subBuffer);
  EXPECT_EQ(c.args[1].origin, origin);
  EXPECT_EQ(c.memory[c.args[1].memory].size, parentBytes.size());
  EXPECT_EQ(c.args[2].kind, "local");
  EXPECT_EQ(c.args[2].size, n * sizeof(cl_int));
  EXPECT_EQ(c.args[3].kind, "scalar");
  EXPECT_EQ(c.args[3].size, sizeof params);

  ProcessResult r = replay(f.dir, {"--repeat", "3"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     IDENTICAL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("timing     3 runs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("median"), std::string::npos) << r.output;
  for (cl_mem m : {inBuf, out, parent, fout}) clReleaseMemObject(m);
  clReleaseKernel(k);
}

TEST(Capture, PlantedDifferenceIsReportedWithItsIndex) {
  ISG_REQUIRE_ENV();
  ASSERT_TRUE(runPlainScale());
  Found f = onlyCaseOf(g_caseDir, "plain_scale");
  ASSERT_FALSE(f.dir.empty());
  const Case& c = f.c;
  ASSERT_EQ(c.args.size(), 3u);
  const std::string afterPath = f.dir + "/" + c.memory[c.args[1].memory].after;
  std::string after;
  ASSERT_TRUE(isg::capture::readFile(afterPath, &after));

  // One ulp off at [37]: within the default tolerance, a mismatch with --exact, tolerated with
  // --ulp 1.
  std::uint32_t bits = 0;
  std::memcpy(&bits, after.data() + 37 * 4, 4);
  ++bits;
  std::memcpy(after.data() + 37 * 4, &bits, 4);
  ASSERT_TRUE(isg::capture::writeFile(afterPath, after));
  ProcessResult r = replay(f.dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     WITHIN TOLERANCE: largest error"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("1 elements within tolerance"), std::string::npos) << r.output;
  r = replay(f.dir, {"--exact"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("MISMATCH in 1 of 128 elements"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[37] captured"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(1 ulp)"), std::string::npos) << r.output;
  r = replay(f.dir, {"--ulp", "1"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     WITHIN TOLERANCE"), std::string::npos) << r.output;

  // A large error at [99] is still found with the tolerance, and is the largest.
  const float wrong = 1000.0f;
  std::memcpy(after.data() + 99 * 4, &wrong, 4);
  ASSERT_TRUE(isg::capture::writeFile(afterPath, after));
  r = replay(f.dir, {"--ulp", "1", "--rtol", "1e-3"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("[99] captured 1000"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("at [99]"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("[37] captured"), std::string::npos) << r.output;
}

TEST(Capture, ImageAndSamplerArgumentsRoundTrip) {
  ISG_REQUIRE_ENV();
  cl_bool images = CL_FALSE;
  ISG_CL_CHECK(
      clGetDeviceInfo(env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr));
  ASSERT_TRUE(images) << "the CI device (PoCL) supports images";
  const char* source = R"CLC(
__kernel void image_invert(__read_only image2d_t src, __write_only image2d_t dst,
                           sampler_t smp, __global float4* probe) {
  const int2 p = (int2)(get_global_id(0), get_global_id(1));
  const float4 v = read_imagef(src, smp, p + (int2)(1, 0));  /* the last column clamps */
  write_imagef(dst, p, (float4)(1.0f) - v);
  probe[p.y * get_global_size(0) + p.x] = v;
}
)CLC";
  const size_t w = 16, h = 8;
  std::vector<unsigned char> pixels(w * h * 4);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<unsigned char>(i * 37 % 251);
  cl_image_format format{CL_RGBA, CL_UNORM_INT8};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  cl_int err = CL_SUCCESS;
  cl_mem src = clCreateImage(env().context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, &format, &desc,
                             pixels.data(), &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem dst = clCreateImage(env().context, CL_MEM_WRITE_ONLY, &format, &desc, nullptr, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_sampler smp =
      clCreateSampler(env().context, CL_FALSE, CL_ADDRESS_CLAMP_TO_EDGE, CL_FILTER_NEAREST, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_mem probe = buffer(CL_MEM_WRITE_ONLY, w * h * 4 * sizeof(float));
  cl_kernel k = kernelFrom(source, "image_invert");
  ASSERT_NE(k, nullptr);
  ISG_CL_CHECK(clSetKernelArg(k, 0, sizeof src, &src));
  ISG_CL_CHECK(clSetKernelArg(k, 1, sizeof dst, &dst));
  ISG_CL_CHECK(clSetKernelArg(k, 2, sizeof smp, &smp));
  ISG_CL_CHECK(clSetKernelArg(k, 3, sizeof probe, &probe));
  const size_t global[2] = {w, h};
  ISG_CL_CHECK(
      clEnqueueNDRangeKernel(env().queue, k, 2, nullptr, global, nullptr, 0, nullptr, nullptr));
  std::vector<unsigned char> inverted(w * h * 4);
  const size_t origin[3] = {0, 0, 0}, region[3] = {w, h, 1};
  ISG_CL_CHECK(clEnqueueReadImage(env().queue, dst, CL_TRUE, origin, region, 0, 0, inverted.data(),
                                  0, nullptr, nullptr));

  Found f = onlyCaseOf(g_caseDir, "image_invert");
  const Case& c = f.c;
  ASSERT_EQ(c.args.size(), 4u);
  EXPECT_EQ(c.args[0].kind, "image");
  EXPECT_FALSE(c.args[0].writable);
  EXPECT_TRUE(c.args[1].writable);
  EXPECT_EQ(c.args[2].kind, "sampler");
  EXPECT_FALSE(c.args[2].normalizedCoords);
  EXPECT_EQ(c.args[2].addressingMode, static_cast<std::uint32_t>(CL_ADDRESS_CLAMP_TO_EDGE));
  EXPECT_EQ(c.args[2].filterMode, static_cast<std::uint32_t>(CL_FILTER_NEAREST));
  const isg::capture::MemoryObject& image = c.memory[c.args[1].memory];
  EXPECT_EQ(image.kind, "image");
  EXPECT_EQ(image.channelOrder, static_cast<std::uint32_t>(CL_RGBA));
  EXPECT_EQ(image.channelDataType, static_cast<std::uint32_t>(CL_UNORM_INT8));
  EXPECT_EQ(image.width, w);
  EXPECT_EQ(image.height, h);
  std::string before, after;
  ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + c.memory[c.args[0].memory].before, &before));
  EXPECT_EQ(before, std::string(pixels.begin(), pixels.end()));
  ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + image.after, &after));
  EXPECT_EQ(after, std::string(inverted.begin(), inverted.end()));

  ProcessResult r = replay(f.dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     IDENTICAL"), std::string::npos) << r.output;
  for (cl_mem m : {src, dst, probe}) clReleaseMemObject(m);
  clReleaseSampler(smp);
  clReleaseKernel(k);
}

// ISG_DISABLE=1 with ISG_CAPTURE_DIR: the layer captures but does not rewrite (the device
// does not advertise cl_intel_subgroups); the case replays identically through the full layer
// and straight on the driver.
TEST(Capture, CaseCapturedWithoutRewritingReplaysThroughTheLayer) {
  ISG_REQUIRE_ENV();
  const std::string dir = g_caseDir + "/disabled";
  ProcessResult h = helper("plain", {{"ISG_DISABLE", "1"}, {"ISG_CAPTURE_DIR", dir}});
  ASSERT_EQ(h.status, 0) << h.output;
  EXPECT_NE(h.output.find("cl_intel_subgroups advertised: no"), std::string::npos) << h.output;
  Found f = onlyCaseOf(dir, "plain_scale");
  ASSERT_FALSE(f.dir.empty());
  EXPECT_EQ(f.c.layerMode, "capture-only");

  ProcessResult r = replay(f.dir);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("result     IDENTICAL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("OPENCL_LAYERS: /"), std::string::npos) << r.output;
  r = replay(f.dir, {}, /*withLayer=*/false);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("OPENCL_LAYERS: (not set"), std::string::npos) << r.output;
}

TEST(Capture, KernelAndEnqueueFiltersPickOneEnqueue) {
  ISG_REQUIRE_ENV();
  const std::string dir = g_caseDir + "/filters";
  ProcessResult h = helper("filters", {{"ISG_CAPTURE_DIR", dir},
                                       {"ISG_CAPTURE_KERNEL", "nope, count_b "},
                                       {"ISG_CAPTURE_ENQUEUE", "2"}});
  ASSERT_EQ(h.status, 0) << h.output;
  EXPECT_TRUE(casesOf(dir, "count_a").empty());
  Found f = onlyCaseOf(dir, "count_b");
  EXPECT_EQ(f.c.enqueueIndex, 2u);
  ASSERT_EQ(f.c.args.size(), 2u);
  EXPECT_EQ(f.c.args[1].valueHex, "14000000");  // 20, the second enqueue's value
  // The inputs are what the buffer held before: count_b's first run wrote 11.
  std::string before;
  ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + f.c.memory[0].before, &before));
  cl_uint first = 0;
  std::memcpy(&first, before.data(), sizeof first);
  EXPECT_EQ(first, 11u);
}

// A whole run kept small (issue 50.3): each kernel's first N enqueues, with no count cap unless
// ISG_CAPTURE_MAX is set, which then stops capture with one warning.
TEST(Capture, PerKernelLimitKeepsEachKernelsFirstEnqueues) {
  ISG_REQUIRE_ENV();
  const std::string dir = g_caseDir + "/per-kernel";
  ProcessResult h = helper("many", {{"ISG_CAPTURE_DIR", dir},
                                    {"ISG_CAPTURE_PER_KERNEL", "2"},
                                    {"ISG_CAPTURE_MAX", std::nullopt}});
  ASSERT_EQ(h.status, 0) << h.output;
  for (const char* name : {"count_a", "count_b"}) {
    std::vector<Found> found = casesOf(dir, name);
    ASSERT_EQ(found.size(), 2u) << name;
    std::vector<std::string> values;
    for (const Found& f : found) values.push_back(f.c.args[1].valueHex);
    std::sort(values.begin(), values.end());
    EXPECT_EQ(values, (std::vector<std::string>{"01000000", "02000000"})) << name;
  }
  EXPECT_EQ(h.output.find("ISG_CAPTURE_MAX"), std::string::npos) << h.output;
  // With ISG_CAPTURE_MAX set as well, it applies, and reaching it is one warning.
  const std::string capped = g_caseDir + "/capped";
  h = helper("many", {{"ISG_CAPTURE_DIR", capped},
                      {"ISG_CAPTURE_PER_KERNEL", "2"},
                      {"ISG_CAPTURE_MAX", "3"}});
  ASSERT_EQ(h.status, 0) << h.output;
  EXPECT_EQ(casesOf(capped, "count_a").size() + casesOf(capped, "count_b").size(), 3u);
  ASSERT_NE(h.output.find("capture: ISG_CAPTURE_MAX (3 cases) reached"), std::string::npos)
      << h.output;
  EXPECT_EQ(h.output.find("ISG_CAPTURE_MAX (3", h.output.find("ISG_CAPTURE_MAX (3") + 1),
            std::string::npos)
      << "logged more than once: " << h.output;
}

// ISG_CAPTURE_MAX_MB: a case that does not fit is skipped with one warning naming the control;
// smaller ones after it are still captured.
TEST(Capture, SizeCapSkipsCasesThatDoNotFitAndSaysSo) {
  ISG_REQUIRE_ENV();
  const std::string dir = g_caseDir + "/size-cap";
  ProcessResult h = helper("big", {{"ISG_CAPTURE_DIR", dir},
                                   {"ISG_CAPTURE_MAX_MB", "1"},
                                   {"ISG_CAPTURE_MAX", std::nullopt}});
  ASSERT_EQ(h.status, 0) << h.output;
  EXPECT_TRUE(casesOf(dir, "count_a").empty());
  EXPECT_EQ(casesOf(dir, "count_b").size(), 3u);
  EXPECT_NE(h.output.find("capture: ISG_CAPTURE_MAX_MB (1 MiB) reached: kernel count_a"),
            std::string::npos)
      << h.output;
}

// ISG_CAPTURE_REWRITTEN_ONLY: pass-through programs are not captured, rewritten ones are.
TEST(Capture, RewrittenOnlySkipsPassThroughPrograms) {
  ISG_REQUIRE_ENV();
  const std::string dir = g_caseDir + "/rewritten-only";
  ProcessResult h = helper("filters", {{"ISG_CAPTURE_DIR", dir},
                                       {"ISG_CAPTURE_REWRITTEN_ONLY", "1"}});
  ASSERT_EQ(h.status, 0) << h.output;
  EXPECT_TRUE(casesOf(dir, "count_a").empty());
  EXPECT_TRUE(casesOf(dir, "count_b").empty());
  h = helper("wide", {{"ISG_CAPTURE_DIR", dir}, {"ISG_CAPTURE_REWRITTEN_ONLY", "1"}});
  ASSERT_EQ(h.status, 0) << h.output;
  EXPECT_EQ(onlyCaseOf(dir, "wide_rotate").c.layerMode, "rewritten");
}

// Two threads, each with its own queue and kernel, capture at the same time: every enqueue
// becomes a whole case of its own, with its own values.
TEST(Capture, ConcurrentCapturesAreEachComplete) {
  ISG_REQUIRE_ENV();
  constexpr int kEnqueues = 3;
  auto work = [](const char* name, cl_uint base, bool* ok) {
    cl_int err = CL_SUCCESS;
    cl_command_queue queue = clCreateCommandQueue(env().context, env().device, 0, &err);
    cl_kernel k = kernelFrom(kScaleSource, name);
    const size_t n = 32;
    cl_mem out = buffer(CL_MEM_READ_WRITE, n * sizeof(cl_uint));
    *ok = queue && k && clSetKernelArg(k, 0, sizeof out, &out) == CL_SUCCESS;
    for (cl_uint i = 0; *ok && i < kEnqueues; ++i) {
      const cl_uint v = base + i;
      *ok = clSetKernelArg(k, 1, sizeof v, &v) == CL_SUCCESS &&
            clEnqueueNDRangeKernel(queue, k, 1, nullptr, &n, nullptr, 0, nullptr, nullptr) ==
                CL_SUCCESS;
    }
    if (queue) clFinish(queue);
    clReleaseMemObject(out);
    if (k) clReleaseKernel(k);
    if (queue) clReleaseCommandQueue(queue);
  };
  bool okA = false, okB = false;
  std::thread a(work, "count_a", 100, &okA), b(work, "count_b", 200, &okB);
  a.join();
  b.join();
  ASSERT_TRUE(okA && okB);
  for (const auto& [name, base, plus] :
       {std::tuple<const char*, cl_uint, cl_uint>{"count_a", 100, 0}, {"count_b", 200, 1}}) {
    std::vector<Found> found = casesOf(g_caseDir, name);
    ASSERT_EQ(found.size(), static_cast<size_t>(kEnqueues)) << name;
    std::vector<cl_uint> seen;
    for (const Found& f : found) {
      std::string after;
      ASSERT_TRUE(isg::capture::readFile(f.dir + "/" + f.c.memory[0].after, &after));
      cl_uint value = 0;
      std::memcpy(&value, after.data(), sizeof value);
      seen.push_back(value - plus);
    }
    std::sort(seen.begin(), seen.end());
    EXPECT_EQ(seen, (std::vector<cl_uint>{base, base + 1, base + 2})) << name;
  }
}

// The case names the library the program was rewritten for, not the device's strategy: under
// the khr double of native size 16, a kernel that requires S = 32 makes its program local's.
TEST(Capture, CaseRecordsTheStrategyTheProgramWasRewrittenFor) {
  ISG_REQUIRE_ENV();
  ProcessResult h = helper("wide", {{"ISG_STRATEGY", "khr"}, {"ISG_KHR_TEST_NATIVE_SIZE", "16"}});
  ASSERT_EQ(h.status, 0) << h.output;
  Found f = onlyCaseOf(g_caseDir, "wide_rotate");
  EXPECT_EQ(f.c.layerMode, "rewritten");
  EXPECT_EQ(f.c.strategy, "local");
  EXPECT_EQ(f.c.subGroupSize, 32u);
}

TEST(Capture, FailureToCaptureIsLoggedNotRaised) {
  ISG_REQUIRE_ENV();
  // A directory that cannot be created: its parent is a file.
  fs::create_directories(g_caseDir);
  const std::string file = g_caseDir + "/not-a-directory";
  ASSERT_TRUE(isg::capture::writeFile(file, "x"));
  ProcessResult h = helper("plain", {{"ISG_CAPTURE_DIR", file + "/cases"}});
  EXPECT_EQ(h.status, 0) << h.output;  // the application's results are right
  EXPECT_NE(h.output.find("plain_scale not captured"), std::string::npos) << h.output;
}

}  // namespace

int main(int argc, char** argv) {
  g_self = fs::canonical("/proc/self/exe").string();
  // Found relative to this executable first, so a copy of the two runs anywhere (no build tree).
  const fs::path beside = fs::path(g_self).parent_path() / "isg-replay";
  g_replay = fs::exists(beside) ? beside.string() : std::string(ISG_REPLAY_PATH);
  if (const char* mode = std::getenv("ISG_COMPARE_HELPER")) return runHelper(mode);
  // One directory per process (CTest runs each test in its own), beside this executable (in the
  // build, its build folder), removed when all passed.
  g_caseDir = (fs::path(g_self).parent_path() / ("cases-" + std::to_string(getpid()))).string();
  fs::remove_all(g_caseDir);
  setenv("ISG_CAPTURE_DIR", g_caseDir.c_str(), 1);
  setenv("ISG_CAPTURE_MAX", "0", 1);
  for (const char* name : {"ISG_CAPTURE_KERNEL", "ISG_CAPTURE_ENQUEUE", "ISG_CAPTURE_PER_KERNEL",
                           "ISG_CAPTURE_REWRITTEN_ONLY", "ISG_CAPTURE_MAX_MB", "ISG_DISABLE"})
    unsetenv(name);
  ::testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  if (status == 0) fs::remove_all(g_caseDir);
  return status;
}
