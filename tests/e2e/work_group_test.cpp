// SPDX-License-Identifier: MIT
// OpenCL C 2.0's work-group collective functions (builtins.def, the work_group family) against a
// host model of the spec: every function and type of the table, over 1-, 2- and 3-dimensional
// work-groups whose sizes are and are not multiples of a sub-group, several work-groups per
// launch. Through the layer on a driver without them (PoCL, NVIDIA) the layer's library runs;
// natively on Intel's CPU runtime, which has them, the same kernels check the model itself.
// Also: the functions in helpers, in uniform loops and beside sub-group builtins, and the
// feature the device then reports.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "builtin_table.h"
#include "cl_harness.h"
#include "subgroup_model.h"

namespace {

// ---- the types and their arithmetic, as the spec defines it ---------------------------------

struct Type {
  std::string name;  // OpenCL C spelling
  unsigned bytes = 4;
  bool isFloat = false, isSigned = false;
  isg::table::Requirement requirement = isg::table::Requirement::none;
};

// A value of any type: integers as their bits (two's complement), floats exactly (the inputs
// are small integers, so every partial sum in any order is exact in the type itself).
struct Value {
  uint64_t bits = 0;
  long double f = 0;
};

uint64_t mask(const Type& t) { return t.bytes == 8 ? ~0ull : (1ull << (8 * t.bytes)) - 1; }
int64_t signedOf(const Type& t, uint64_t bits) {
  const unsigned shift = 64 - 8 * t.bytes;
  return int64_t(bits << shift) >> shift;
}

enum class Op { add, min, max };

Value apply(const Type& t, Op op, const Value& a, const Value& b) {
  Value r;
  if (t.isFloat) {
    r.f = op == Op::add ? a.f + b.f : op == Op::min ? std::min(a.f, b.f) : std::max(a.f, b.f);
    return r;
  }
  if (op == Op::add) {
    r.bits = (a.bits + b.bits) & mask(t);
    return r;
  }
  const bool less = t.isSigned ? signedOf(t, a.bits) < signedOf(t, b.bits) : a.bits < b.bits;
  r.bits = (op == Op::min) == less ? a.bits : b.bits;
  return r;
}

// The identities of the exclusive scans (OpenCL C 2.0, as cl_khr_subgroups repeats them):
// 0, the type's largest value (+INF) for min and its smallest (-INF) for max.
Value identity(const Type& t, Op op) {
  Value v;
  if (op == Op::add) return v;
  if (t.isFloat) {
    v.f = op == Op::min ? std::numeric_limits<long double>::infinity()
                        : -std::numeric_limits<long double>::infinity();
  } else if (t.isSigned) {
    v.bits = (op == Op::min ? mask(t) >> 1 : ~(mask(t) >> 1)) & mask(t);
  } else {
    v.bits = op == Op::min ? mask(t) : 0;
  }
  return v;
}

// Half of a small integer (|v| <= 2048), exactly.
uint16_t halfOfInteger(int v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000u : 0u;
  unsigned m = unsigned(std::abs(v)), e = 0;
  while ((m >> e) > 1) ++e;
  return uint16_t(sign | ((e + 15u) << 10) | ((m << (10 - e)) & 0x3ffu));
}

void encode(const Type& t, const Value& v, uint8_t* out) {
  if (!t.isFloat) {
    std::memcpy(out, &v.bits, t.bytes);  // little-endian hosts, as every device here
  } else if (t.bytes == 2) {
    const uint16_t h = halfOfInteger(int(v.f));
    std::memcpy(out, &h, 2);
  } else if (t.bytes == 4) {
    const float f = float(v.f);
    std::memcpy(out, &f, 4);
  } else {
    const double d = double(v.f);
    std::memcpy(out, &d, 8);
  }
}

Value decode(const Type& t, const uint8_t* in) {
  Value v;
  if (!t.isFloat) {
    std::memcpy(&v.bits, in, t.bytes);
  } else if (t.bytes == 2) {
    uint16_t h;
    std::memcpy(&h, in, 2);
    v.f = isgref::halfToFloat(h);
  } else if (t.bytes == 4) {
    float f;
    std::memcpy(&f, in, 4);
    v.f = f;
  } else {
    double d;
    std::memcpy(&d, in, 8);
    v.f = d;
  }
  return v;
}

bool same(const Type& t, const Value& a, const Value& b) { return t.isFloat ? a.f == b.f : a.bits == b.bits; }
std::string show(const Type& t, const Value& v) {
  if (t.isFloat) return std::to_string(double(v.f));
  return t.isSigned ? std::to_string(signedOf(t, v.bits)) : std::to_string(v.bits);
}

// Random inputs whose every partial sum is exact: integers over the type's range (sums wrap as
// the type does), floats as small integers (half: -2..2, so 1,024 of them stay within 2,048).
Value randomValue(const Type& t, std::mt19937_64& rng) {
  Value v;
  if (t.isFloat) {
    const int range = t.bytes == 2 ? 2 : t.bytes == 4 ? 100 : 1000000;
    v.f = int(rng() % (2 * range + 1)) - range;
  } else {
    v.bits = rng() & mask(t);
  }
  return v;
}

// ---- the functions, from the table ------------------------------------------------------------

struct Collective {
  std::string name;
  enum Kind { Reduce, Inclusive, Exclusive } kind = Reduce;
  Op op = Op::add;
};

// The reductions and scans of the work_group family, in table order, and the types they take.
std::vector<Collective> collectives() {
  std::vector<Collective> out;
  for (const isg::table::Function& f : isg::table::functions()) {
    if (f.family != "work_group" || f.shape != isg::table::Shape::T_T) continue;
    Collective c{f.name};
    c.kind = f.name.find("scan_inclusive") != std::string::npos   ? Collective::Inclusive
             : f.name.find("scan_exclusive") != std::string::npos ? Collective::Exclusive
                                                                  : Collective::Reduce;
    const std::string op = f.name.substr(f.name.rfind('_') + 1);
    c.op = op == "min" ? Op::min : op == "max" ? Op::max : Op::add;
    out.push_back(c);
  }
  return out;
}

std::vector<Type> typesOfFamily() {
  std::vector<Type> out;
  for (const isg::table::Function& f : isg::table::functions()) {
    if (f.family != "work_group" || f.shape != isg::table::Shape::T_T) continue;
    for (const isg::table::TypeEntry& e : f.types) {
      if (std::any_of(out.begin(), out.end(), [&](const Type& t) { return t.name == e.type; })) continue;
      const unsigned bytes = e.scalar == "half" ? 2 : e.scalar == "long" || e.scalar == "ulong" || e.scalar == "double" ? 8 : 4;
      Type t{e.type, bytes, e.scalar == "float" || e.scalar == "double" || e.scalar == "half",
             e.scalar == "int" || e.scalar == "long" || e.scalar == "short" || e.scalar == "char",
             e.requirement};
      out.push_back(t);
    }
  }
  return out;
}

// ISG_E2E_NATIVE=intel-cpu: Intel's CPU runtime runs the suite without the layer.
bool nativeRun() {
  const char* n = std::getenv("ISG_E2E_NATIVE");
  return n && std::string(n) == "intel-cpu";
}

// Why a type's kernel is left out of the program, or "" (the test of the type then says so).
std::string typeGap(const Type& t) {
  using isg::table::Requirement;
  if (t.requirement == Requirement::fp16 && !isgtest::deviceHasExtension("cl_khr_fp16"))
    return "the device lacks cl_khr_fp16";
  if (t.requirement == Requirement::fp64 && !isgtest::deviceHasExtension("cl_khr_fp64"))
    return "the device lacks cl_khr_fp64";
  if (t.requirement == Requirement::fp16 && nativeRun())
    return "Intel's CPU runtime 2026.2 ends the process compiling work-group collectives of half "
           "(its vectoriser, vplan-vec, crashes: docs/conformance.md)";
  return "";
}


// ---- the program ------------------------------------------------------------------------------

const char* kLinearIds =
    "  const size_t g = get_global_id(0) + get_global_size(0) * (get_global_id(1) +\n"
    "                   get_global_size(1) * get_global_id(2));\n";

std::string typeKernel(const Type& t, const std::vector<Collective>& fns) {
  std::string s = "kernel void wg_" + t.name + "(global const " + t.name + "* in, global " + t.name +
                  "* out, uint dims, uint bx, uint by, uint bz) {\n" + kLinearIds + "  const " + t.name +
                  " x = in[g];\n  global " + t.name + "* o = out + g * " + std::to_string(fns.size() + 1) +
                  "u;\n";
  for (size_t i = 0; i < fns.size(); ++i) s += "  o[" + std::to_string(i) + "] = " + fns[i].name + "(x);\n";
  // The form of the launch's dimensions (the spec gives each its own).
  s += "  o[" + std::to_string(fns.size()) +
       "] = dims == 1u ? work_group_broadcast(x, bx) : dims == 2u ? work_group_broadcast(x, bx, by)"
       " : work_group_broadcast(x, bx, by, bz);\n}\n";
  return s;
}

// The votes, and the functions where real kernels put them: a helper, a uniform loop (softmax's
// maximum, then its sum), beside sub-group builtins.
// OpenVINO's dynamic softmax: the branch reads get_global_id(1), one value in each work-group of
// one row, which the rewriter cannot know: row 0 reduces, row 1 does not. Programs from SPIR-V
// do not get Intel's execution model in such flow (docs/spirv.md): there the layer refuses it,
// so it is a program of its own.
const char* kGuardedKernel = R"CLC(
kernel void wg_guarded(global const int* in, global int* out) {
  const size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);
  int r = -1;
  if (get_global_id(1) == 0) r = work_group_reduce_add(in[g]) + work_group_scan_inclusive_max(in[g]);
  out[g] = r;
}
)CLC";

const char* kOtherKernels = R"CLC(
kernel void wg_votes(global const int* in, global int* out) {
  const size_t g = get_global_id(0) + get_global_size(0) * (get_global_id(1) +
                   get_global_size(1) * get_global_id(2));
  out[2 * g] = work_group_all(in[g]);
  out[2 * g + 1] = work_group_any(in[g]);
}

int total_of(int v) { return work_group_reduce_add(v); }

__attribute__((intel_reqd_sub_group_size(16)))
kernel void wg_mixed(global const int* in, global int* out, uint rounds) {
  const size_t g = get_global_id(0) + get_global_size(0) * get_global_id(1);
  const int x = in[g];
  const int s = sub_group_reduce_add(x);
  const int w = total_of(s);
  int acc = 0;
  for (uint r = 0; r < rounds; ++r) acc += work_group_reduce_max(x + (int)r);
  out[4 * g] = s;
  out[4 * g + 1] = w;
  out[4 * g + 2] = acc;
  out[4 * g + 3] = intel_sub_group_shuffle(w + x, 0u);
}
)CLC";

// -cl-std=CL2.0 unless the run's options name a version (the functions are OpenCL C 2.0's;
// CL3.0 runs see them through the feature the layer reports).
std::string buildOptions() {
  const std::string extra = isgtest::extraBuildOptions();
  return extra.find("-cl-std=") == std::string::npos ? "-cl-std=CL2.0 " + extra : extra;
}

struct Program {
  cl_program program = nullptr;
  std::vector<Type> types;  // those with a kernel
  std::string log;
  Program() {
    std::string src;
    for (const Type& t : typesOfFamily()) {
      if (!typeGap(t).empty()) continue;
      types.push_back(t);
      src += typeKernel(t, collectives());
    }
    if (std::any_of(types.begin(), types.end(), [](const Type& t) { return t.bytes == 2; }))
      src = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n" + src;
    program = isgtest::buildProgram(src + kOtherKernels, buildOptions(), &log);
  }
  ~Program() {
    if (program) clReleaseProgram(program);
  }
};

const Program& program() {
  static Program p;
  return p;
}

struct Shape {
  size_t local[3];
};
// Sizes that are and are not multiples of 8, 16 and 32, and one work-item alone. PoCL compiles
// a kernel again for each work-group size (0.5 to 3 s here): the quick suite takes six of them,
// ISG_E2E_WG_SHAPES=all every one.
const Shape kAllShapes[] = {{{1, 1, 1}},  {{7, 1, 1}}, {{32, 1, 1}}, {{64, 1, 1}}, {{100, 1, 1}},
                            {{256, 1, 1}}, {{1024, 1, 1}}, {{8, 4, 1}}, {{5, 3, 1}},  {{4, 2, 3}},
                            {{3, 5, 2}}};
const Shape kQuickShapes[] = {{{1, 1, 1}}, {{7, 1, 1}}, {{100, 1, 1}}, {{256, 1, 1}}, {{8, 4, 1}}, {{3, 5, 2}}};
std::vector<Shape> shapes() {
  const char* which = std::getenv("ISG_E2E_WG_SHAPES");
  if (which && std::string(which) == "all") return {std::begin(kAllShapes), std::end(kAllShapes)};
  return {std::begin(kQuickShapes), std::end(kQuickShapes)};
}
// Work-groups per launch along each dimension.
const size_t kGroups[3] = {3, 2, 1};

unsigned dimsOf(const Shape& s) { return s.local[2] > 1 ? 3 : s.local[1] > 1 ? 2 : 1; }

cl_kernel kernelNamed(const std::string& name) {
  cl_int err = CL_SUCCESS;
  cl_kernel k = clCreateKernel(program().program, name.c_str(), &err);
  EXPECT_EQ(err, CL_SUCCESS) << name;
  return k;
}

// Whether `k` can run work-groups of `s` (a device or kernel limit below 1,024 skips the shape).
bool fits(cl_kernel k, const Shape& s) {
  size_t most = 0;
  clGetKernelWorkGroupInfo(k, isgtest::env().device, CL_KERNEL_WORK_GROUP_SIZE, sizeof most, &most, nullptr);
  size_t dims[3] = {0, 0, 0};
  clGetDeviceInfo(isgtest::env().device, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dims, dims, nullptr);
  return s.local[0] * s.local[1] * s.local[2] <= most && s.local[0] <= dims[0] && s.local[1] <= dims[1] &&
         s.local[2] <= dims[2];
}

// Runs `k` over kGroups work-groups of `s` with `in` (bytes per work-item: `inBytes`) and
// returns `outBytes` per work-item, indexed by global linear id.
std::vector<uint8_t> launch(cl_kernel k, const Shape& s, const std::vector<uint8_t>& in, size_t outBytes) {
  const auto& e = isgtest::env();
  size_t global[3];
  size_t items = 1;
  for (int d = 0; d < 3; ++d) items *= global[d] = s.local[d] * kGroups[d];
  cl_int err = CL_SUCCESS;
  cl_mem bin = clCreateBuffer(e.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.size(),
                              const_cast<uint8_t*>(in.data()), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  cl_mem bout = clCreateBuffer(e.context, CL_MEM_WRITE_ONLY, items * outBytes, nullptr, &err);
  EXPECT_EQ(err, CL_SUCCESS);
  std::vector<uint8_t> out(items * outBytes, 0xcd);
  if (clSetKernelArg(k, 0, sizeof bin, &bin) == CL_SUCCESS && clSetKernelArg(k, 1, sizeof bout, &bout) == CL_SUCCESS) {
    err = clEnqueueNDRangeKernel(e.queue, k, 3, nullptr, global, s.local, 0, nullptr, nullptr);
    EXPECT_EQ(err, CL_SUCCESS) << "clEnqueueNDRangeKernel";
    if (err == CL_SUCCESS) {
      EXPECT_EQ(clEnqueueReadBuffer(e.queue, bout, CL_TRUE, 0, out.size(), out.data(), 0, nullptr, nullptr),
                CL_SUCCESS);
    }
  } else {
    ADD_FAILURE() << "clSetKernelArg";
  }
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  return out;
}

// The work-items of each work-group of a launch of `s`, as global linear ids in local linear
// id order.
std::vector<std::vector<size_t>> groupsOf(const Shape& s) {
  std::vector<std::vector<size_t>> groups;
  const size_t gx = s.local[0] * kGroups[0], gy = s.local[1] * kGroups[1];
  for (size_t wz = 0; wz < kGroups[2]; ++wz)
    for (size_t wy = 0; wy < kGroups[1]; ++wy)
      for (size_t wx = 0; wx < kGroups[0]; ++wx) {
        std::vector<size_t> ids;
        for (size_t z = 0; z < s.local[2]; ++z)
          for (size_t y = 0; y < s.local[1]; ++y)
            for (size_t x = 0; x < s.local[0]; ++x)
              ids.push_back((wx * s.local[0] + x) + gx * ((wy * s.local[1] + y) + gy * (wz * s.local[2] + z)));
        groups.push_back(std::move(ids));
      }
  return groups;
}

std::string shapeName(const Shape& s) {
  return std::to_string(s.local[0]) + "x" + std::to_string(s.local[1]) + "x" + std::to_string(s.local[2]);
}

class WorkGroupCollectives : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkGroupCollectives, MatchTheSpecModel) {
  ISG_REQUIRE_ENV();
  const Program& p = program();
  ASSERT_NE(p.program, nullptr) << p.log;
  const auto found = std::find_if(p.types.begin(), p.types.end(), [](const Type& t) { return t.name == GetParam(); });
  if (found == p.types.end()) {
    for (const Type& t : typesOfFamily())
      if (t.name == GetParam()) GTEST_SKIP() << typeGap(t);
  }
  const Type& t = *found;
  const std::vector<Collective> fns = collectives();
  const size_t fields = fns.size() + 1;
  cl_kernel k = kernelNamed("wg_" + t.name);
  ASSERT_NE(k, nullptr);
  std::mt19937_64 rng(t.bytes * 7919u + t.name.size());
  unsigned ran = 0;
  for (const Shape& s : shapes()) {
    SCOPED_TRACE(t.name + " in work-groups of " + shapeName(s));
    if (!fits(k, s)) continue;
    ++ran;
    const auto groups = groupsOf(s);
    const size_t items = groups.size() * groups[0].size();
    std::vector<Value> x(items);
    std::vector<uint8_t> in(items * t.bytes);
    for (size_t i = 0; i < items; ++i) {
      x[i] = randomValue(t, rng);
      encode(t, x[i], &in[i * t.bytes]);
    }
    const unsigned dims = dimsOf(s);
    // A different source in each dimension than work-item 0.
    const cl_uint b[3] = {cl_uint(s.local[0] - 1), cl_uint(s.local[1] / 2), cl_uint(s.local[2] - 1)};
    const cl_uint d = dims;
    ASSERT_EQ(clSetKernelArg(k, 2, sizeof d, &d), CL_SUCCESS);
    for (cl_uint i = 0; i < 3; ++i) ASSERT_EQ(clSetKernelArg(k, 3 + i, sizeof b[i], &b[i]), CL_SUCCESS);
    const std::vector<uint8_t> out = launch(k, s, in, fields * t.bytes);
    unsigned failures = 0;
    for (const auto& ids : groups) {
      const size_t source = ids[b[0] + s.local[0] * (b[1] + s.local[1] * b[2])];
      for (size_t l = 0; l < ids.size() && failures < 10; ++l) {
        const uint8_t* got = &out[ids[l] * fields * t.bytes];
        for (size_t f = 0; f < fns.size(); ++f) {
          const Collective& c = fns[f];
          Value want = c.kind == Collective::Reduce ? x[ids[0]] : identity(t, c.op);
          const size_t end = c.kind == Collective::Reduce ? ids.size() : c.kind == Collective::Inclusive ? l + 1 : l;
          for (size_t i = c.kind == Collective::Reduce ? 1 : 0; i < end; ++i) want = apply(t, c.op, want, x[ids[i]]);
          const Value have = decode(t, got + f * t.bytes);
          if (!same(t, want, have) && ++failures <= 10)
            ADD_FAILURE() << c.name << " at local linear id " << l << ": " << show(t, have) << ", expected "
                          << show(t, want);
        }
        const Value have = decode(t, got + fns.size() * t.bytes);
        if (!same(t, x[source], have) && ++failures <= 10)
          ADD_FAILURE() << "work_group_broadcast (" << dims << " ids) at local linear id " << l << ": "
                        << show(t, have) << ", expected " << show(t, x[source]);
      }
    }
  }
  clReleaseKernel(k);
  EXPECT_GT(ran, 0u) << "no shape fits the device";
}

std::vector<std::string> typeNames() {
  std::vector<std::string> v;
  for (const Type& t : typesOfFamily()) v.push_back(t.name);
  return v;
}
INSTANTIATE_TEST_SUITE_P(Types, WorkGroupCollectives, ::testing::ValuesIn(typeNames()),
                         [](const auto& info) { return info.param; });

// work_group_all and _any over predicates that are all true, all false, one true, one false and
// mixed (any non-zero value is true), in every shape.
TEST(WorkGroupVotes, MatchTheSpecModel) {
  ISG_REQUIRE_ENV();
  ASSERT_NE(program().program, nullptr) << program().log;
  cl_kernel k = kernelNamed("wg_votes");
  ASSERT_NE(k, nullptr);
  std::mt19937 rng(17);
  unsigned ran = 0;
  for (const Shape& s : shapes()) {
    SCOPED_TRACE("work-groups of " + shapeName(s));
    if (!fits(k, s)) continue;
    ++ran;
    const auto groups = groupsOf(s);
    std::vector<int32_t> p(groups.size() * groups[0].size());
    for (size_t w = 0; w < groups.size(); ++w) {
      const size_t one = rng() % groups[w].size();
      for (size_t l = 0; l < groups[w].size(); ++l) {
        const int32_t pattern[] = {-3, 0, l == one ? 5 : 0, l == one ? 0 : 1, int32_t(rng() % 2)};
        p[groups[w][l]] = pattern[w % 5];
      }
    }
    std::vector<uint8_t> in(p.size() * 4);
    std::memcpy(in.data(), p.data(), in.size());
    const std::vector<uint8_t> raw = launch(k, s, in, 8);
    std::vector<int32_t> out(raw.size() / 4);
    std::memcpy(out.data(), raw.data(), raw.size());
    for (const auto& ids : groups) {
      bool all = true, any = false;
      for (size_t id : ids) {
        all = all && p[id] != 0;
        any = any || p[id] != 0;
      }
      for (size_t l = 0; l < ids.size(); ++l) {
        ASSERT_EQ(out[2 * ids[l]] != 0, all) << "work_group_all at local linear id " << l;
        ASSERT_EQ(out[2 * ids[l] + 1] != 0, any) << "work_group_any at local linear id " << l;
      }
    }
  }
  clReleaseKernel(k);
  EXPECT_GT(ran, 0u) << "no shape fits the device";
}

// A helper's reduction, a loop of them and sub-group builtins in one kernel: 1-D work-groups
// of whole and partial sub-groups of 16.
TEST(WorkGroupCollectivesInRealCode, HelpersLoopsAndSubGroupsTogether) {
  ISG_REQUIRE_ENV();
  ASSERT_NE(program().program, nullptr) << program().log;
  cl_kernel k = kernelNamed("wg_mixed");
  ASSERT_NE(k, nullptr);
  const cl_uint rounds = 3;
  std::mt19937 rng(23);
  unsigned ran = 0;
  for (size_t size : {64u, 48u, 40u}) {
    SCOPED_TRACE("work-groups of " + std::to_string(size));
    const Shape s{{size, 1, 1}};
    if (!fits(k, s)) continue;
    ++ran;
    ASSERT_EQ(clSetKernelArg(k, 2, sizeof rounds, &rounds), CL_SUCCESS);
    const auto groups = groupsOf(s);
    std::vector<int32_t> x(groups.size() * size);
    for (int32_t& v : x) v = int32_t(rng() % 2001) - 1000;
    std::vector<uint8_t> in(x.size() * 4);
    std::memcpy(in.data(), x.data(), in.size());
    const std::vector<uint8_t> raw = launch(k, s, in, 16);
    std::vector<int32_t> out(raw.size() / 4);
    std::memcpy(out.data(), raw.data(), raw.size());
    for (const auto& ids : groups) {
      std::vector<int32_t> sg(ids.size());
      int32_t total = 0, most = std::numeric_limits<int32_t>::min();
      for (size_t l = 0; l < ids.size(); ++l) {
        int32_t sum = 0;
        for (size_t m = l / 16 * 16; m < std::min(ids.size(), l / 16 * 16 + 16); ++m) sum += x[ids[m]];
        sg[l] = sum;
        total += sum;
        most = std::max(most, x[ids[l]]);
      }
      const int32_t acc = int32_t(rounds) * most + int32_t(rounds * (rounds - 1) / 2);
      for (size_t l = 0; l < ids.size(); ++l) {
        const int32_t* o = &out[4 * ids[l]];
        ASSERT_EQ(o[0], sg[l]) << "sub_group_reduce_add at " << l;
        ASSERT_EQ(o[1], total) << "work_group_reduce_add in a helper at " << l;
        ASSERT_EQ(o[2], acc) << "work_group_reduce_max in a loop at " << l;
        ASSERT_EQ(o[3], total + x[ids[l / 16 * 16]]) << "intel_sub_group_shuffle after them at " << l;
      }
    }
  }
  clReleaseKernel(k);
  EXPECT_EQ(ran, 3u) << "work-groups of 64, 48 and 40 fit every device";
}

// wg_guarded: the rows a branch takes compute; the others keep their value.
TEST(WorkGroupCollectivesInRealCode, UnderABranchEachWorkGroupTakesAlike) {
  ISG_REQUIRE_ENV();
  std::string log;
  cl_program p = isgtest::buildProgram(kGuardedKernel, buildOptions(), &log);
  if (isgtest::spirvMode() && !nativeRun()) {
    EXPECT_EQ(p, nullptr) << "a SPIR-V module with a work-group function under a branch per work-item";
    EXPECT_NE(log.find("'work_group_reduce_add' in function 'wg_guarded' may be reached by only some"),
              std::string::npos) << log;
    if (p) clReleaseProgram(p);
    return;
  }
  ASSERT_NE(p, nullptr) << log;
  cl_int made = CL_SUCCESS;
  cl_kernel k = clCreateKernel(p, "wg_guarded", &made);
  ASSERT_EQ(made, CL_SUCCESS);
  const size_t n = 48;
  const size_t global[2] = {3 * n, 2}, local[2] = {n, 1};
  std::vector<int32_t> x(global[0] * 2);
  std::mt19937 rng(29);
  for (int32_t& v : x) v = int32_t(rng() % 201) - 100;
  const auto& e = isgtest::env();
  cl_int err = CL_SUCCESS;
  cl_mem bin = clCreateBuffer(e.context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, x.size() * 4, x.data(), &err);
  cl_mem bout = clCreateBuffer(e.context, CL_MEM_WRITE_ONLY, x.size() * 4, nullptr, &err);
  std::vector<int32_t> out(x.size(), 7);
  EXPECT_EQ(clSetKernelArg(k, 0, sizeof bin, &bin), CL_SUCCESS);
  EXPECT_EQ(clSetKernelArg(k, 1, sizeof bout, &bout), CL_SUCCESS);
  EXPECT_EQ(clEnqueueNDRangeKernel(e.queue, k, 2, nullptr, global, local, 0, nullptr, nullptr), CL_SUCCESS);
  EXPECT_EQ(clEnqueueReadBuffer(e.queue, bout, CL_TRUE, 0, out.size() * 4, out.data(), 0, nullptr, nullptr), CL_SUCCESS);
  clReleaseMemObject(bin);
  clReleaseMemObject(bout);
  clReleaseKernel(k);
  clReleaseProgram(p);
  for (size_t w = 0; w < 3; ++w) {
    int32_t sum = 0, most = std::numeric_limits<int32_t>::min();
    for (size_t l = 0; l < n; ++l) sum += x[w * n + l];
    for (size_t l = 0; l < n; ++l) {
      most = std::max(most, x[w * n + l]);
      ASSERT_EQ(out[w * n + l], sum + most) << "row 0, work-group " << w << ", work-item " << l;
      ASSERT_EQ(out[global[0] + w * n + l], -1) << "row 1, work-group " << w << ", work-item " << l;
    }
  }
}

// A device that compiles OpenCL C 3.0 lists the feature: its driver's, or the layer's where the
// layer provides the functions.
TEST(WorkGroupCollectivesFeature, ReportedWhereTheDeviceCompilesOpenClC30) {
  ISG_REQUIRE_ENV();
  size_t size = 0;
  if (clGetDeviceInfo(isgtest::env().device, CL_DEVICE_OPENCL_C_FEATURES, 0, nullptr, &size) != CL_SUCCESS)
    GTEST_SKIP() << "an OpenCL 1.x or 2.x device: no feature query (the functions are OpenCL C 2.0's)";
  std::vector<cl_name_version> features(size / sizeof(cl_name_version));
  ASSERT_EQ(clGetDeviceInfo(isgtest::env().device, CL_DEVICE_OPENCL_C_FEATURES, size, features.data(), nullptr),
            CL_SUCCESS);
  EXPECT_TRUE(std::any_of(features.begin(), features.end(), [](const cl_name_version& f) {
    return std::string(f.name) == "__opencl_c_work_group_collective_functions";
  }));
  if (isgtest::spirvMode()) return;  // the macro is the compiler's there, not the device's
  std::string log;
  cl_program p = isgtest::buildProgram(
      "#ifndef __opencl_c_work_group_collective_functions\n#error the feature macro is missing\n#endif\n"
      "kernel void k(global int* o) { o[get_global_id(0)] = work_group_reduce_add(1); }\n",
      "-cl-std=CL3.0", &log);
  EXPECT_NE(p, nullptr) << log;
  if (p) clReleaseProgram(p);
}

}  // namespace
