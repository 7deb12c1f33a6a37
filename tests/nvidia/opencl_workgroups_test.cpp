// SPDX-License-Identifier: MIT
// Non-uniform work-groups (OpenCL C 2.0; 3.0 makes them optional): a global size that is no
// multiple of the local size gives each dimension a last, smaller work-group. Intel's drivers
// have them and Intel-targeted code launches so (ggml's element-wise kernels); NVIDIA's driver
// and PoCL refuse such a launch. The layer runs it (docs/design.md, "Non-uniform work-groups"):
// in full on its PTX path on NVIDIA, and elsewhere in parts, for programs whose work-item
// functions a launch in parts leaves right (the others keep the driver's refusal). Each
// work-item function and the sub-groups and barriers of a last work-group are checked against
// a host model of the spec, with a global offset, and a uniform launch of the kernel after.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>  // mkdir
#include <unistd.h>    // getpid, usleep

#include "cl_harness.h"

namespace {

using isgtest::env;

constexpr unsigned kGroupFields = 6;
constexpr unsigned kSubGroupSize = 16;

// What every device runs through the layer: nothing a launch in parts would change.
const char* kItems = R"(
  kernel void items(global ulong* out, global uint* count, uint width, uint ox, uint oy) {
    const size_t x = get_global_id(0) - ox, y = get_global_id(1) - oy;
    global ulong* o = out + (y * width + x) * 4;
    o[0] = get_local_size(0);
    o[1] = get_local_size(1);
    o[2] = get_local_id(0) + 100 * get_local_id(1);
    o[3] = get_local_linear_id();
    atomic_inc(count);
  })";

const char* kGroups = R"(
  kernel __attribute__((intel_reqd_sub_group_size(16)))
  void groups(global uint* out, global uint* count, uint ox) {
    local uint sum;
    const uint l = (uint)get_local_linear_id();
    if (l == 0) sum = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    atomic_add(&sum, l + 1);
    barrier(CLK_LOCAL_MEM_FENCE);
    global uint* o = out + (get_global_id(0) - ox) * 6;
    o[0] = sum;
    o[1] = get_sub_group_size();
    o[2] = get_num_sub_groups();
    o[3] = get_sub_group_id();
    o[4] = intel_sub_group_shuffle(l, 0);
    o[5] = sub_group_reduce_add(1u);
    atomic_inc(count);
  })";

// The work-item functions of the whole launch; with -DINTEL, through a program the layer
// rewrites (without, one it passes through unless ISG_NVIDIA_FRONTEND=every).
const char* kWhole = R"(
  #ifdef INTEL
  #define COUNTER(c) (c + intel_sub_group_shuffle(0u, 0u))
  #else
  #define COUNTER(c) (c)
  #endif
  kernel void geometry(global ulong* out, global uint* count, uint width) {
    const size_t x = get_global_id(0) - get_global_offset(0), y = get_global_id(1) - get_global_offset(1);
    global ulong* o = out + (y * width + x) * 8;
    o[0] = get_global_size(0);
    o[1] = get_global_size(1);
    o[2] = get_group_id(0);
    o[3] = get_group_id(1);
    o[4] = get_num_groups(0);
    o[5] = get_num_groups(1);
    o[6] = get_enqueued_local_size(0) + 100 * get_enqueued_local_size(1);
    o[7] = get_global_linear_id();
    atomic_inc(COUNTER(count));
  })";

// One dimension of a launch as the spec defines it: work-group g of global size `global` and
// enqueued local size `local` holds min(local, global - g * local) work-items.
struct Dim {
  size_t global, local;
  size_t groups() const { return (global + local - 1) / local; }
  size_t localSize(size_t item) const { return std::min(local, global - item / local * local); }
};

template <class T>
cl_mem buffer(std::vector<T>& host) {
  cl_int err = CL_SUCCESS;
  cl_mem b = clCreateBuffer(env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, host.size() * sizeof(T),
                            host.data(), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return b;
}

template <class T>
void read(cl_mem b, std::vector<T>& host) {
  ISG_CL_CHECK(clEnqueueReadBuffer(env().queue, b, CL_TRUE, 0, host.size() * sizeof(T), host.data(), 0, nullptr,
                                   nullptr));
}

// A 2-D launch of `k` (items or geometry) over `x` by `y` at `offset`, each work-item's fields
// compared with `want(i, j, field)`. `mayRefuse`: CL_INVALID_WORK_GROUP_SIZE is an answer too.
template <class Want>
void check2d(cl_kernel k, unsigned fields, Dim x, Dim y, const size_t offset[2], bool passOffset,
             bool mayRefuse, Want want) {
  SCOPED_TRACE("global " + std::to_string(x.global) + " x " + std::to_string(y.global) + ", local " +
               std::to_string(x.local) + " x " + std::to_string(y.local));
  std::vector<cl_ulong> out(x.global * y.global * fields, ~0ull);
  std::vector<cl_uint> count(1, 0);
  cl_mem bo = buffer(out), bc = buffer(count);
  const cl_uint width = cl_uint(x.global), ox = cl_uint(offset[0]), oy = cl_uint(offset[1]);
  if (passOffset) {
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bo, bc, width, ox, oy));
  } else {
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bo, bc, width));
  }
  const size_t global[2] = {x.global, y.global}, local[2] = {x.local, y.local};
  const cl_int err = clEnqueueNDRangeKernel(env().queue, k, 2, offset, global, local, 0, nullptr, nullptr);
  if (!(mayRefuse && err == CL_INVALID_WORK_GROUP_SIZE && (x.global % x.local || y.global % y.local))) {
    ASSERT_EQ(err, CL_SUCCESS);
    read(bo, out);
    read(bc, count);
    EXPECT_EQ(count[0], x.global * y.global) << "work-items that ran";
    unsigned wrong = 0;
    for (size_t j = 0; j < y.global; ++j)
      for (size_t i = 0; i < x.global; ++i)
        for (unsigned f = 0; f < fields; ++f) {
          const cl_ulong got = out[(j * x.global + i) * fields + f], w = want(i, j, f);
          if (got != w && ++wrong <= 8)
            ADD_FAILURE() << "work-item (" << i << ", " << j << ") field " << f << ": " << got << ", want " << w;
        }
    EXPECT_EQ(wrong, 0u);
  }
  clReleaseMemObject(bo);
  clReleaseMemObject(bc);
}

void checkItems(cl_kernel k, Dim x, Dim y, const size_t offset[2]) {
  check2d(k, 4, x, y, offset, true, false, [&](size_t i, size_t j, unsigned f) -> cl_ulong {
    const size_t lx = x.localSize(i);
    const cl_ulong want[4] = {lx, y.localSize(j), i % x.local + 100 * (j % y.local), (j % y.local) * lx + i % x.local};
    return want[f];
  });
}

void checkGeometry(cl_kernel k, Dim x, Dim y, const size_t offset[2], bool mayRefuse) {
  check2d(k, 8, x, y, offset, false, mayRefuse, [&](size_t i, size_t j, unsigned f) -> cl_ulong {
    const cl_ulong want[8] = {x.global,   y.global,   i / x.local,
                              j / y.local, x.groups(), y.groups(),
                              x.local + 100 * y.local, j * x.global + i};
    return want[f];
  });
}

// groups over a 1-D launch: sub-groups of 16 cut from each work-group's linear ids.
void checkGroups(cl_kernel k, Dim x, size_t offset) {
  SCOPED_TRACE("global " + std::to_string(x.global) + ", local " + std::to_string(x.local));
  std::vector<cl_uint> out(x.global * kGroupFields, ~0u), count(1, 0);
  cl_mem bo = buffer(out), bc = buffer(count);
  const cl_uint ox = cl_uint(offset);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bo, bc, ox));
  ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, &offset, &x.global, &x.local, 0, nullptr, nullptr),
            CL_SUCCESS);
  read(bo, out);
  read(bc, count);
  EXPECT_EQ(count[0], x.global) << "work-items that ran";
  unsigned wrong = 0;
  for (size_t i = 0; i < x.global; ++i) {
    const cl_uint* o = &out[i * kGroupFields];
    const cl_uint n = cl_uint(x.localSize(i)), l = cl_uint(i % x.local), s = l / kSubGroupSize;
    const cl_uint size = std::min(kSubGroupSize, n - s * kSubGroupSize);
    const cl_uint want[kGroupFields] = {n * (n + 1) / 2, size, (n + kSubGroupSize - 1) / kSubGroupSize, s,
                                        s * kSubGroupSize, size};
    for (unsigned f = 0; f < kGroupFields; ++f)
      if (o[f] != want[f] && ++wrong <= 8)
        ADD_FAILURE() << "work-item " << i << " field " << f << ": " << o[f] << ", want " << want[f];
  }
  EXPECT_EQ(wrong, 0u);
  clReleaseMemObject(bo);
  clReleaseMemObject(bc);
}

// Where the whole launch's work-item functions must be right: the driver has non-uniform
// work-groups, or the layer builds the program on its PTX path (NVIDIA: from SPIR-V; a program
// it rewrites under ISG_NVIDIA_FRONTEND=layer; any under every). Elsewhere such a launch may
// keep the driver's refusal.
bool wholeLaunchRuns(bool driverHasThem, bool rewritten) {
  if (driverHasThem) return true;
  if (!isgtest::nvidiaDevice()) return false;
  const char* set = std::getenv("ISG_NVIDIA_FRONTEND");
  const std::string frontend = set ? set : "auto";
  return isgtest::spirvMode() || frontend == "every" || (rewritten && frontend == "layer");
}

TEST(OpenClLibrary, NonUniformWorkGroupsMatchTheSpec) {
  ISG_REQUIRE_ENV();
  const std::vector<size_t> sizes = isgtest::deviceSubGroupSizes();
  ASSERT_NE(std::find(sizes.begin(), sizes.end(), kSubGroupSize), sizes.end()) << "no sub-groups of 16";
  cl_bool driverHasThem = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof driverHasThem, &driverHasThem,
                  nullptr);
  for (const char* std : {"-cl-std=CL2.0", "-cl-std=CL3.0"}) {
    SCOPED_TRACE(std::string("options '") + std + "'");
    std::string log;
    cl_program parts = isgtest::buildProgram(std::string(kItems) + kGroups, std, &log);
    ASSERT_NE(parts, nullptr) << log;
    cl_int err = CL_SUCCESS;
    cl_kernel items = clCreateKernel(parts, "items", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_kernel groups = clCreateKernel(parts, "groups", &err);
    ASSERT_EQ(err, CL_SUCCESS);
    const size_t offset[2] = {3, 2};
    checkItems(items, {37, 8}, {7, 4}, offset);  // both dimensions end in a smaller group
    checkItems(items, {5, 8}, {3, 4}, offset);   // one group, smaller than enqueued
    checkItems(items, {32, 8}, {8, 4}, offset);  // uniform, after the others
    checkGroups(groups, {70, 32}, 5);            // 32, 32, then one sub-group of 6
    checkGroups(groups, {90, 64}, 0);            // 64, then 16 and 10
    checkGroups(groups, {64, 32}, 0);
    clReleaseKernel(items);
    clReleaseKernel(groups);
    clReleaseProgram(parts);
    for (bool intel : {true, false}) {
      SCOPED_TRACE(intel ? "whole launch, rewritten" : "whole launch, no Intel builtin");
      cl_program whole = isgtest::buildProgram(kWhole, std + std::string(intel ? " -DINTEL" : ""), &log);
      ASSERT_NE(whole, nullptr) << log;
      cl_kernel geometry = clCreateKernel(whole, "geometry", &err);
      ASSERT_EQ(err, CL_SUCCESS);
      const bool mayRefuse = !wholeLaunchRuns(driverHasThem, intel);
      checkGeometry(geometry, {37, 8}, {7, 4}, offset, mayRefuse);
      checkGeometry(geometry, {5, 8}, {3, 4}, offset, mayRefuse);
      checkGeometry(geometry, {32, 8}, {8, 4}, offset, false);
      clReleaseKernel(geometry);
      clReleaseProgram(whole);
    }
  }
}

// OpenVINO's GPU plugin enqueues on out-of-order queues and orders its kernels by events alone
// (or by barriers). Where the layer makes one launch several commands (a non-uniform launch in
// parts), they wait for the application's wait list, its event completes only after all of
// them, and a barrier after them orders them too: a kernel that reads what the launch wrote,
// ordered only so, sees every part's results. Several rounds, so that a part run late shows.
TEST(OpenClLibrary, LaunchesOnAnOutOfOrderQueueKeepTheApplicationsOrder) {
  ISG_REQUIRE_ENV();
  cl_command_queue_properties props = 0;
  ISG_CL_CHECK(clGetDeviceInfo(env().device, CL_DEVICE_QUEUE_PROPERTIES, sizeof props, &props, nullptr));
  if (!(props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE))
    GTEST_SKIP() << "the device has no out-of-order queues (CL_DEVICE_QUEUE_PROPERTIES)";
  cl_int err = CL_SUCCESS;
  cl_command_queue q =
      clCreateCommandQueue(env().context, env().device, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const std::string follow = R"(
    kernel void follow(global const uint* in, global uint* out) {
      const size_t i = get_global_id(0);
      out[i] = in[i * 6] * 1000u + in[i * 6 + 4];
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(std::string(kGroups) + follow, "-cl-std=CL2.0", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_kernel groups = clCreateKernel(p, "groups", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  cl_kernel consumer = clCreateKernel(p, "follow", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const Dim x{70, 32};  // 32, 32, then 6: in parts where the driver refuses it
  std::vector<cl_uint> fields(x.global * kGroupFields), count(1), result(x.global);
  cl_mem bf = buffer(fields), bc = buffer(count), br = buffer(result);
  const cl_uint zero = 0, ox = 0;
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(groups, bf, bc, ox));
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(consumer, bf, br));
  for (int round = 0; round < 8; ++round) {
    const bool byEvent = round % 2 == 0;
    SCOPED_TRACE(std::string(byEvent ? "ordered by events" : "ordered by barriers") + ", round " +
                 std::to_string(round));
    // Everything waits for the gate, held closed while the queue could run what ignores it.
    cl_event gate = clCreateUserEvent(env().context, &err);
    ASSERT_EQ(err, CL_SUCCESS);
    cl_event cleared = nullptr, wrote = nullptr, read = nullptr;
    ISG_CL_CHECK(clEnqueueFillBuffer(q, bf, &zero, sizeof zero, 0, fields.size() * 4, 1, &gate, &cleared));
    if (byEvent) {
      ISG_CL_CHECK(clEnqueueNDRangeKernel(q, groups, 1, nullptr, &x.global, &x.local, 1, &cleared, &wrote));
      ISG_CL_CHECK(clEnqueueNDRangeKernel(q, consumer, 1, nullptr, &x.global, nullptr, 1, &wrote, &read));
      ISG_CL_CHECK(clFlush(q));
      usleep(20000);
      cl_int status = CL_COMPLETE;
      ISG_CL_CHECK(clGetEventInfo(wrote, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, nullptr));
      EXPECT_NE(status, CL_COMPLETE) << "the launch completed before the command it waits for ran";
    } else {
      ISG_CL_CHECK(clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr));
      ISG_CL_CHECK(clEnqueueNDRangeKernel(q, groups, 1, nullptr, &x.global, &x.local, 0, nullptr, nullptr));
      ISG_CL_CHECK(clEnqueueBarrierWithWaitList(q, 0, nullptr, nullptr));
      ISG_CL_CHECK(clEnqueueNDRangeKernel(q, consumer, 1, nullptr, &x.global, nullptr, 0, nullptr, &read));
    }
    ISG_CL_CHECK(clSetUserEventStatus(gate, CL_COMPLETE));
    ISG_CL_CHECK(clEnqueueReadBuffer(q, br, CL_TRUE, 0, result.size() * 4, result.data(), 1, &read, nullptr));
    for (cl_event e : {gate, cleared, wrote, read})
      if (e) clReleaseEvent(e);
    unsigned wrong = 0;
    for (size_t i = 0; i < x.global; ++i) {
      // The work-group's sum of linear ids + 1, and the sub-group's first id (checkGroups).
      const cl_uint n = cl_uint(x.localSize(i)), l = cl_uint(i % x.local);
      const cl_uint want = n * (n + 1) / 2 * 1000u + l / kSubGroupSize * kSubGroupSize;
      if (result[i] != want && ++wrong <= 8)
        ADD_FAILURE() << "work-item " << i << ": " << result[i] << ", want " << want;
    }
    ASSERT_EQ(wrong, 0u);
  }
  ISG_CL_CHECK(clFinish(q));
  clReleaseMemObject(bf);
  clReleaseMemObject(bc);
  clReleaseMemObject(br);
  clReleaseKernel(groups);
  clReleaseKernel(consumer);
  clReleaseProgram(p);
  clReleaseCommandQueue(q);
}

// A kernel's local variable is one per work-group, also where the layer rewrote the kernel
// from SPIR-V (whose body it first moves into a function of its own: in a callee, PoCL kept
// the variable one for all work-groups, and concurrent work-groups summed into each other's).
// Many work-groups at once, each sums its own work-items behind barriers.
TEST(OpenClLibrary, LocalVariablesArePerWorkGroup) {
  ISG_REQUIRE_ENV();
  const char* src = R"(
    kernel __attribute__((intel_reqd_sub_group_size(16)))
    void sums(global uint* out) {
      local uint sum;
      const uint l = (uint)get_local_id(0);
      if (l == 0) sum = 0;
      barrier(CLK_LOCAL_MEM_FENCE);
      atomic_add(&sum, intel_sub_group_shuffle(l + 1, get_sub_group_local_id()));
      barrier(CLK_LOCAL_MEM_FENCE);
      if (l == 0) out[get_group_id(0)] = sum;
    })";
  std::string log;
  cl_program p = isgtest::buildProgram(src, "-cl-std=CL2.0", &log);
  ASSERT_NE(p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "sums", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  constexpr size_t kGroups = 512, kLocal = 64;
  std::vector<cl_uint> out(kGroups, 0);
  cl_mem bo = buffer(out);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, bo));
  for (int launch = 0; launch < 4; ++launch) {
    const size_t global = kGroups * kLocal, local = kLocal;
    ASSERT_EQ(clEnqueueNDRangeKernel(env().queue, k, 1, nullptr, &global, &local, 0, nullptr, nullptr), CL_SUCCESS);
    read(bo, out);
    const size_t wrong = size_t(std::count_if(out.begin(), out.end(), [](cl_uint v) { return v != kLocal * (kLocal + 1) / 2; }));
    EXPECT_EQ(wrong, 0u) << "launch " << launch << ": work-groups whose sum is not " << kLocal * (kLocal + 1) / 2
                         << " (the first: " << *std::find_if(out.begin(), out.end(), [](cl_uint v) {
                              return v != kLocal * (kLocal + 1) / 2;
                            }) << ")";
    if (wrong) break;
  }
  clReleaseMemObject(bo);
  clReleaseKernel(k);
  clReleaseProgram(p);
}

// A folder of headers at a fixed path (the SPIR-V runs' module cache is keyed by the options);
// each file is replaced whole (renamed into place), as test processes run side by side.
std::string headerFolder(const std::vector<std::pair<std::string, std::string>>& files) {
  // One per user: another's folder of that name is not writable.
  const std::string dir = ::testing::TempDir() + "isg-test-nonuniform-include-" + std::to_string(getuid());
  mkdir(dir.c_str(), 0755);
  for (const auto& [name, text] : files) {
    const std::string path = dir + "/" + name, temporary = path + "." + std::to_string(getpid());
    std::ofstream(temporary, std::ios::binary) << text;
    std::rename(temporary.c_str(), path.c_str());
  }
  return dir;
}

// A program that passes through the layer and includes its kernels from disk (-I): the layer
// reads the included files as the driver does, so a launch in parts goes on where they name no
// whole-launch function (it used to be refused for any include), and keeps the driver's refusal
// where one does (the whole-launch kernel, in a file the layer must follow through a second
// include, and named only there).
TEST(OpenClLibrary, NonUniformWorkGroupsOfProgramsThatIncludeTheirKernels) {
  ISG_REQUIRE_ENV();
  cl_bool driverHasThem = CL_FALSE;
  clGetDeviceInfo(env().device, CL_DEVICE_NON_UNIFORM_WORK_GROUP_SUPPORT, sizeof driverHasThem, &driverHasThem,
                  nullptr);
  const std::string dir = headerFolder({{"nonuniform_items.h", kItems},
                                        {"nonuniform_whole.h", "#include \"nonuniform_geometry.h\"\n"},
                                        {"nonuniform_geometry.h", kWhole}});
  const std::string options = "-cl-std=CL2.0 -I " + dir;
  std::string log;
  cl_program items = isgtest::buildProgram("#include \"nonuniform_items.h\"\n", options, &log);
  ASSERT_NE(items, nullptr) << log;
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(items, "items", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const size_t offset[2] = {3, 2};
  checkItems(k, {37, 8}, {7, 4}, offset);
  checkItems(k, {5, 8}, {3, 4}, offset);
  clReleaseKernel(k);
  clReleaseProgram(items);
  cl_program whole = isgtest::buildProgram("#include <nonuniform_whole.h>\n", options, &log);
  ASSERT_NE(whole, nullptr) << log;
  k = clCreateKernel(whole, "geometry", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  const bool mayRefuse = !wholeLaunchRuns(driverHasThem, false);
  checkGeometry(k, {37, 8}, {7, 4}, offset, mayRefuse);
  checkGeometry(k, {32, 8}, {8, 4}, offset, false);
  clReleaseKernel(k);
  clReleaseProgram(whole);
}

}  // namespace
