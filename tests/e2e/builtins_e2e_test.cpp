// SPDX-License-Identifier: MIT
// End-to-end: Intel-style OpenCL C, written the way an application writes it, built through
// clCreateProgramWithSource/clBuildProgram (the layer rewrites it) and checked against the host
// reference model (tests/reference/subgroup_model.h).
//
// Kernels are generated from builtins.def: per (family, S) a few kernels holding every builtin
// and type of the family, run on several work-group shapes; PoCL compiles each (kernel, local
// size) once, so batching keeps the run short. A case is builtin x type x S; it passes when every
// shape and every defined work-item result agrees with the model.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "case_table.h"
#include "cl_harness.h"
#include "subgroup_model.h"

// Seam for running the same cases without the layer (a local harness composes the prelude and
// sets the scratch argument itself); empty in the real suite.
#ifdef ISG_E2E_SELF_HOSTED
#include ISG_E2E_SELF_HOSTED
#else
namespace isge2e_host {
inline std::string prepareSource(const std::string& src) { return src; }
inline void prepareLaunch(cl_kernel, unsigned /*userArgs*/, unsigned /*S*/, unsigned /*slot*/,
                          size_t /*localItems*/) {}
}  // namespace isge2e_host
#endif

namespace {

using namespace isge2e;
using isgref::WorkGroup;

// Sub-group sizes the suite runs: 8, 16 and 32 (every strategy has them), or the list in
// ISG_E2E_SIZES (the native run: "4 8 16 32 64", every size Intel's CPU runtime has).
std::vector<unsigned> suiteSizes() {
  std::vector<unsigned> sizes;
  if (const char* list = std::getenv("ISG_E2E_SIZES")) {
    std::istringstream in(list);
    for (unsigned s; in >> s;) sizes.push_back(s);
  }
  if (sizes.empty()) sizes = {8, 16, 32};
  return sizes;
}
const std::vector<unsigned> kSizes = suiteSizes();

// ---- case bookkeeping: builtin x type x S ----------------------------------------------------

struct Tally {
  std::map<std::string, bool> cases;  // key -> all checks passed
  std::set<std::string> skipped;      // rows the device cannot compile (fp16 ...)
  // Rows deliberately not built, with why: the spec makes them conditional on the OpenCL C
  // version, or the native reference driver lacks them (nativeGap).
  std::map<std::string, std::string> notBuilt;
  void record(const std::string& key, bool ok) {
    auto it = cases.find(key);
    if (it == cases.end())
      cases[key] = ok;
    else
      it->second = it->second && ok;
  }
};
Tally& tally() {
  static Tally t;
  return t;
}
std::string caseKey(const std::string& builtin, const std::string& type, unsigned S) {
  return builtin + "(" + type + ")@" + std::to_string(S);
}

// Element-wise vector loads and stores for the generated kernels: vloadN/vstoreN on global
// pointers do not build on PoCL 3.1 under -cl-std=CL2.0 (no matching overload, with or without
// the layer), and the suites run under CL2.0 too.
std::string loadElements(const std::string& V, unsigned width, const std::string& ptr) {
  if (width == 1) return "(" + ptr + ")[0]";
  std::string out = "((" + V + ")(";
  for (unsigned k = 0; k < width; ++k) out += (k ? ", " : "") + ("(" + ptr + ")[" + std::to_string(k) + "]");
  return out + "))";
}
std::string storeElements(const std::string& value, unsigned width, const std::string& ptr) {
  if (width == 1) return "(" + ptr + ")[0] = " + value + ";\n";
  static const char* const names = "0123456789abcdef";
  std::string out = "{ ";
  for (unsigned k = 0; k < width; ++k)
    out += "(" + ptr + ")[" + std::to_string(k) + "] = " + value + ".s" + names[k] + "; ";
  return out + "}\n";
}

std::map<unsigned, cl_program>& programs();
std::map<unsigned, cl_program>& mediaPrograms();
void writeDump();

class SummaryPrinter : public ::testing::Environment {
 public:
  void TearDown() override {
    size_t pass = 0;
    for (auto& [k, ok] : tally().cases) pass += ok;
    std::printf("[isg-e2e] %zu/%zu builtin x type x size cases passed (%zu rows skipped: "
                "device lacks the type)\n",
                pass, tally().cases.size(), tally().skipped.size());
    std::map<std::string, std::vector<std::string>> byReason;
    for (auto& [row, why] : tally().notBuilt) byReason[why].push_back(row);
    for (auto& [why, rows] : byReason) {
      std::printf("[isg-e2e] %zu rows not built: %s:", rows.size(), why.c_str());
      for (const std::string& r : rows) std::printf(" %s", r.c_str());
      std::printf("\n");
    }
    for (auto& [k, ok] : tally().cases)
      if (!ok) std::printf("[isg-e2e]   FAILED %s\n", k.c_str());
    writeDump();
    for (auto* set : {&programs(), &mediaPrograms()}) {
      for (auto& [S, p] : *set)
        if (p) clReleaseProgram(p);
      set->clear();
    }
  }
};
const auto* const kSummary = ::testing::AddGlobalTestEnvironment(new SummaryPrinter);

// ---- device traits --------------------------------------------------------------------------

bool deviceHas(const std::string& ext) {
  std::string all = " " + isgtest::deviceString(isgtest::env().device, CL_DEVICE_EXTENSIONS) + " ";
  return all.find(" " + ext + " ") != std::string::npos;
}

// Why this run's programs take no images ("" when they do).
std::string imagesGap() {
  if (!isgtest::programsTakeImages()) return "this run's programs take no images (the device has no image support)";
  return "";
}
// The OpenCL C version the suite's programs are built as: -cl-std in ISG_TEST_BUILD_OPTIONS,
// else 1.2 (without -cl-std a program is OpenCL C 1.2 on every 1.2+ device).
unsigned openclCVersion() {
  const std::string o = isgtest::extraBuildOptions();
  const size_t at = o.rfind("-cl-std=CL");
  if (at == std::string::npos || at + 13 > o.size()) return 120;
  return unsigned(o[at + 10] - '0') * 100 + unsigned(o[at + 12] - '0') * 10;
}

// cl_intel_subgroups: "If OpenCL 2.0 is supported: uint get_enqueued_num_sub_groups( void )".
// Intel's driver does not declare it in OpenCL C 1.2 programs (the layer's library does, an
// extension of the spec that the suite does not rely on).
std::string languageGap(const std::string& builtin) {
  if (builtin == "get_enqueued_num_sub_groups" && openclCVersion() < 200)
    return "the spec defines it for OpenCL C 2.0 and newer only";
  return "";
}

// ISG_E2E_NATIVE=intel-cpu runs the suite on Intel's own CPU driver without the layer (tests/
// native): overloads the spec or Intel's GPU compiler has and that driver lacks are not built
// there, and NativeGaps checks that the driver still lacks each (so the list cannot go stale).
struct NativeGap {
  const char* builtin;
  const char* form;   // "buffer" | "image"
  const char* probe;  // a kernel that uses the overload
};
const NativeGap kIntelCpuGaps[] = {
    {"intel_sub_group_block_read_us16", "buffer",
     "kernel void k(global const ushort* p, global ushort16* o) {\n"
     "  *o = intel_sub_group_block_read_us16(p); }\n"},
    {"intel_sub_group_block_write_us16", "buffer",
     "kernel void k(global ushort* p, ushort16 v) { intel_sub_group_block_write_us16(p, v); }\n"},
    {"intel_sub_group_block_read_us16", "image",
     "kernel void k(read_only image2d_t i, global ushort16* o) {\n"
     "  *o = intel_sub_group_block_read_us16(i, (int2)(0, 0)); }\n"},
    {"intel_sub_group_block_write_us16", "image",
     "kernel void k(write_only image2d_t i, ushort16 v) {\n"
     "  intel_sub_group_block_write_us16(i, (int2)(0, 0), v); }\n"},
};
const char* kIntelCpuGapWhy =
    "Intel's CPU runtime 2026.2 has no ushort16 block functions (cl_intel_subgroups_short "
    "1.1.0): it declares the pointer forms but its library does not define them (the build "
    "fails with 'Symbols not found'), and it does not declare the image2d_t forms";
bool nativeRun() {
  const char* n = std::getenv("ISG_E2E_NATIVE");
  return n && std::string(n) == "intel-cpu";
}
// The cases Intel's CPU runtime can run (ISG_E2E_CASES=intel-cpu, implied by the native run):
// its sub-groups are per row (also under the layer's khr strategy, which builds on them), it
// lacks the gaps below and does not bounds-check image block IO. The differential test runs
// this set through the layer on PoCL too, so both runs see the same inputs.
bool intelCpuCases() {
  const char* c = std::getenv("ISG_E2E_CASES");
  return nativeRun() || (c && std::string(c) == "intel-cpu");
}
// Only its work-group shapes (ISG_E2E_CASES=rows): the layer's khr strategy on Intel's driver
// has per-row sub-groups, but every overload and the image edges are the layer's.
bool rowShapes() {
  const char* c = std::getenv("ISG_E2E_CASES");
  return intelCpuCases() || (c && std::string(c) == "rows");
}

// ISG_E2E_DUMP=file: every result the model defines, one line per value ("key<TAB>hex" or, for
// float reductions and scans, "key<TAB>value<TAB>tolerance"), for tests/native/compare_dumps.py.
struct Dump {
  std::map<std::string, std::string> lines;
  static bool on() {
    static const bool set = std::getenv("ISG_E2E_DUMP") != nullptr;
    return set;
  }
};
Dump& dump() {
  static Dump d;
  return d;
}
void dumpBytes(const std::string& key, const uint8_t* p, size_t n) {
  if (!Dump::on()) return;
  static const char* hex = "0123456789abcdef";
  std::string v;
  for (size_t i = 0; i < n; ++i) {
    v += hex[p[i] >> 4];
    v += hex[p[i] & 15];
  }
  dump().lines[key] = v;
}
void dumpFloat(const std::string& key, long double value, long double tolerance) {
  if (!Dump::on()) return;
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.17Lg\t%.17Lg", value, tolerance);
  dump().lines[key] = buf;
}

void writeDump() {
  const char* path = std::getenv("ISG_E2E_DUMP");
  if (!path) return;
  FILE* f = std::fopen(path, "w");
  if (!f) return;
  for (auto& [key, value] : dump().lines) std::fprintf(f, "%s\t%s\n", key.c_str(), value.c_str());
  std::fclose(f);
}

// Inputs depend only on what they are for (a case, a shape, an image format), never on which
// cases ran before: runs with different case sets then still share their common inputs.
std::mt19937_64& rng();
void seedFor(const std::string& what) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (unsigned char c : what) h = (h ^ c) * 1099511628211ull;
  rng().seed(h);
}
// Why a block row's `form` ("buffer" | "image") is not built on this run ("" when it is).
std::string blockRowGap(const std::string& builtin, const char* form) {
  // SPIRV-LLVM-Translator 15 predates cl_intel_subgroups_short 1.1.0: llvm-spirv-15 asserts on a
  // 16-element 16-bit block read or write, so no SPIR-V of that generation holds one.
  if (isgtest::spirvMode() && builtin.size() > 5 && builtin.compare(builtin.size() - 5, 5, "_us16") == 0)
    return "llvm-spirv-15 cannot write 16-element 16-bit block IO to SPIR-V";
  if (!intelCpuCases()) return "";
  for (const NativeGap& g : kIntelCpuGaps)
    if (builtin == g.builtin && std::string(form) == g.form) return kIntelCpuGapWhy;
  return "";
}

// cl_intel_subgroups: image block reads and writes of 4-byte elements clamp to the edge and drop
// out-of-bounds writes; smaller elements are bounds-checked "too late" (undefined). Intel's CPU
// runtime 2026.2 checks no bounds at all: a read past the right edge continues into the next
// row, past the bottom it returns other memory, before the left or top edge it faults
// (NativeImageEdges shows the first). The layer follows the spec. The native run therefore
// keeps every image access inside the image; the edges are checked through the layer only.
bool nativeSkipsImageEdges() {
  if (!intelCpuCases()) return false;
  tally().notBuilt["image block IO across the image edges"] =
      "Intel's CPU runtime does not bounds-check image block IO (docs/compare.md)";
  return true;
}

bool typeAvailable(const TypeRow& t) {
  if (t.req == "fp16") return deviceHas("cl_khr_fp16");
  if (t.req == "fp64") return deviceHas("cl_khr_fp64");
  return true;
}

// ---- work-group shapes ------------------------------------------------------------------------

struct Shape {
  const char* name;
  size_t local[3];
};
// 1-D/2-D/3-D, full and with a partial last sub-group, for a given S. Two work-groups along x
// check that sub-groups restart in every work-group.
std::vector<Shape> shapesFor(unsigned S, bool partialToo) {
  const std::vector<Shape> all =
      partialToo ? std::vector<Shape>{{"1d", {2 * S, 1, 1}},
                                      {"1d-partial", {2 * S + 3, 1, 1}},
                                      {"2d-partial", {5, 7, 1}},
                                      {"3d-partial", {3, 4, 5}}}
                 : std::vector<Shape>{{"1d", {2 * S, 1, 1}}, {"2d", {4, S / 2, 1}},
                                      {"3d", {2, 2, S / 2}}};
  if (!rowShapes()) return all;
  // How a work-group is split into sub-groups is implementation-defined (cl_intel_subgroups:
  // "The mapping of work items to sub-groups is implementation-defined"). The model is the
  // layer's (runs of S linear ids); Intel's CPU runtime splits every row of dimension 0 on its
  // own (NativeMapping checks that), which is the same thing only for 1-D work-groups and rows
  // of a multiple of S (and, for the khr strategy there, of the native size, which the layer
  // enforces). The other shapes give way to ones with rows of 64.
  std::vector<Shape> same;
  same.reserve(all.size() + 2);
  for (const Shape& s : all) {
    if (s.local[1] * s.local[2] == 1 || s.local[0] % S == 0) {
      same.push_back(s);
      continue;
    }
    tally().notBuilt[std::string("shape ") + s.name] =
        "Intel's CPU runtime maps each row of a multi-dimensional work-group to its own "
        "sub-groups (implementation-defined; docs/compare.md)";
  }
  if (!partialToo) {  // rows of 64: a multiple of every S and of the driver's native size
    same.push_back({"2d-rows", {64, 2, 1}});
    same.push_back({"3d-rows", {64, 1, 2}});
  }
  return same;
}

// The global linear index a kernel computes (wi) for every (work-group, local linear id).
struct Launch {
  WorkGroup g;
  size_t global[3];
  unsigned groups = 2;
  size_t items() const { return size_t(g.size()) * groups; }
  size_t wi(unsigned group, uint32_t lid) const {
    uint32_t x = lid % g.local[0], y = (lid / g.local[0]) % g.local[1],
             z = lid / (g.local[0] * g.local[1]);
    size_t gx = group * g.local[0] + x;
    return gx + global[0] * (y + global[1] * z);
  }
};
Launch makeLaunch(unsigned S, const Shape& s) {
  Launch l;
  l.g.S = S;
  for (int d = 0; d < 3; ++d) l.g.local[d] = uint32_t(s.local[d]);
  l.global[0] = s.local[0] * l.groups;
  l.global[1] = s.local[1];
  l.global[2] = s.local[2];
  return l;
}

// Kernel-side spelling of the same index.
const char* kWiExpr =
    "(uint)(get_global_id(0) + get_global_size(0) * (get_global_id(1) + get_global_size(1) * "
    "get_global_id(2)))";

// ---- OpenCL plumbing ---------------------------------------------------------------------------

struct Kernel {
  cl_kernel k = nullptr;
  ~Kernel() {
    if (k) clReleaseKernel(k);
  }
};
struct Mem {
  cl_mem m = nullptr;
  ~Mem() {
    if (m) clReleaseMemObject(m);
  }
};

cl_mem makeBuffer(size_t bytes, const void* init) {
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateBuffer(isgtest::env().context,
                            CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0),
                            std::max<size_t>(bytes, 16), const_cast<void*>(init), &err);
  EXPECT_EQ(err, CL_SUCCESS);
  return m;
}

// -cl-opt-disable: PoCL compiles every (kernel, local size) at first enqueue, and with the
// optimiser on, the hundreds of exchange sites here cost ~10x more compile time than they run.
// ISG_E2E_OPTIMIZE=1 runs the same cases optimised.
std::string buildOptions() {
  const char* o = std::getenv("ISG_E2E_OPTIMIZE");
  return std::string(o && *o == '1' ? "" : "-cl-opt-disable ") + isgtest::extraBuildOptions();
}

// `optimised`: the kernels that must be built with the optimiser (optimisedChunk), in a program
// of their own.
std::string allKernelsSource(unsigned S, bool optimised);

// One program per S holds every kernel (key 2S; the optimised ones 2S + 1): PoCL's build step
// has a fixed cost of about a second.
std::map<unsigned, cl_program>& programs() {
  static std::map<unsigned, cl_program> p;
  return p;
}
void programFor(unsigned S, bool optimised, cl_program* out) {
  const unsigned key = 2 * S + optimised;
  auto it = programs().find(key);
  if (it == programs().end()) {
    std::string log, src = allKernelsSource(S, optimised);
    cl_int status = CL_SUCCESS;
    cl_program p = isgtest::buildProgram(isge2e_host::prepareSource(src),
                                         optimised ? isgtest::extraBuildOptions() : buildOptions(),
                                         &log, &status);
    it = programs().emplace(key, p).first;
    ASSERT_NE(p, nullptr) << "build failed (" << status << "):\n" << log << "\n" << src;
  }
  ASSERT_NE(it->second, nullptr) << "the program for S=" << S << " did not build";
  *out = it->second;
}
void kernelFor(unsigned S, const std::string& name, Kernel& k, bool optimised = false) {
  cl_program p = nullptr;
  ASSERT_NO_FATAL_FAILURE(programFor(S, optimised, &p));
  cl_int err = CL_SUCCESS;
  k.k = clCreateKernel(p, name.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << name;
}

void run(cl_kernel k, const Launch& l, unsigned userArgs, unsigned S, unsigned slot) {
  isge2e_host::prepareLaunch(k, userArgs, S, slot, l.g.size());
  size_t local[3] = {l.g.local[0], l.g.local[1], l.g.local[2]};
  ISG_CL_CHECK(clEnqueueNDRangeKernel(isgtest::env().queue, k, 3, nullptr, l.global, local, 0,
                                      nullptr, nullptr));
  ISG_CL_CHECK(clFinish(isgtest::env().queue));
}

void readBuffer(cl_mem m, void* dst, size_t bytes) {
  ISG_CL_CHECK(clEnqueueReadBuffer(isgtest::env().queue, m, CL_TRUE, 0, bytes, dst, 0, nullptr,
                                   nullptr));
}

// ---- deterministic data ----------------------------------------------------------------------

std::mt19937_64& rng() {
  static std::mt19937_64 r(20240611);
  return r;
}
uint64_t rnd() { return rng()(); }

// One scalar of `scalar` type into dst. `narrow` keeps integers small enough that sums of up to
// 32 values cannot overflow (the spec gives no overflow rule we could test against).
// cl_khr_subgroup_clustered_reduce's functions (their cluster size is a constant per call).
bool clustered(const std::string& f) { return f.rfind("sub_group_clustered_reduce_", 0) == 0; }
// The cluster size a case's kernel passes (a constant): 1 to S, by the case's name, so that the
// cases of one S cover every size without a call per size (each call is an exchange, and the
// khr test double's and PoCL's build times grow with them).
unsigned clusterSizeOf(const std::string& key, unsigned S) {
  unsigned log2S = 0;
  while ((1u << log2S) < S) ++log2S;
  return 1u << (std::hash<std::string>{}(key) % (log2S + 1));
}

void randomScalar(const std::string& scalar, bool narrow, uint8_t* dst) {
  unsigned n = scalarBytes(scalar);
  if (scalar == "float") {
    float f = float(int64_t(rnd() % 200001) - 100000) / 64.0f;
    std::memcpy(dst, &f, 4);
  } else if (scalar == "double") {
    double d = double(int64_t(rnd() % 20000001) - 10000000) / 1024.0;
    std::memcpy(dst, &d, 8);
  } else if (scalar == "half") {
    uint16_t h = uint16_t(0x3c00 + rnd() % 0x0800);  // [1, 4): finite
    if (rnd() & 1) h |= 0x8000;
    std::memcpy(dst, &h, 2);
  } else {
    uint64_t v = rnd();
    if (narrow) {
      unsigned bits = std::max(3u, n * 8 - 7);
      v &= (uint64_t(1) << bits) - 1;
      if (scalarIsSigned(scalar)) v -= uint64_t(1) << (bits - 1);
    }
    std::memcpy(dst, &v, n);
  }
}

// A factor in [1, 1 + 1/16) of either sign: products of up to 64 stay finite in half.
void randomFactor(const std::string& scalar, uint8_t* dst) {
  const double f = (1.0 + double(rnd() % 4096) / 65536.0) * ((rnd() & 1) ? -1.0 : 1.0);
  if (scalar == "float") {
    const float v = float(f);
    std::memcpy(dst, &v, 4);
  } else if (scalar == "double") {
    std::memcpy(dst, &f, 8);
  } else {  // half: 1 + k/1024 for k < 64 is exact
    uint16_t h = uint16_t(0x3c00 + rnd() % 64);
    if (f < 0) h |= 0x8000;
    std::memcpy(dst, &h, 2);
  }
}

template <class T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// ---- the family kernels --------------------------------------------------------------------------

// One builtin x type of a family inside the family kernel.
struct Case {
  const FuncRow* func;
  TypeRow type;  // for shapes without gentype: the return type
  std::string key;
};

// The result of a shape without gentype.
TypeRow resultRow(const std::string& shape) {
  if (shape == "U4_I" || shape == "U4_V") return {"uint4", "uint", 4, "none"};
  if (shape == "U_V" || shape == "U_U4") return {"uint", "uint", 1, "none"};
  return {"int", "int", 1, "none"};
}

// Bytes one work-item exchanges at once for a call (design.md §2): what the rewriter computes.
unsigned exchangeBytes(const Case& c) {
  if (c.func->family == "identity" || c.func->family == "barrier" || c.func->activeMembers)
    return 0;
  if (c.func->family == "vote") return 4;
  unsigned b = storageBytes(c.type);
  return c.func->shape == "T_TTU" ? 2 * b : b;
}
unsigned slotFor(const std::vector<Case>& cases) {
  unsigned m = 0;
  for (auto& c : cases) m = std::max(m, exchangeBytes(c));
  unsigned p = 1;
  while (p < m) p *= 2;
  return m ? p : 0;
}

// Results of Intel's CPU runtime 2026.2 that contradict the spec, which its native runs leave
// out (docs/conformance.md): its non-uniform logical xor scans answer true for an even count
// of true predicates (a whole sub-group of 0/1 predicates: -1, 0, -1, -1 for 1, 1, 0, 0), and
// its exclusive max scan of shorts in sub-groups of 4 and 8 folds members that skipped the call.
std::string nativeActiveMemberGap(const std::string& f, const std::string& type, unsigned S) {
  if (!nativeRun()) return "";
  if (f == "sub_group_non_uniform_scan_inclusive_logical_xor" ||
      f == "sub_group_non_uniform_scan_exclusive_logical_xor")
    return "Intel's CPU runtime 2026.2 answers its non-uniform logical xor scans wrongly";
  if (f == "sub_group_non_uniform_scan_exclusive_max" && type == "short" && S <= 8)
    return "Intel's CPU runtime 2026.2 folds members that skipped the call into its exclusive "
           "max scan of shorts in sub-groups of 4 and 8";
  return "";
}

std::vector<Case> casesOf(const std::string& family, unsigned S) {
  std::vector<Case> v;
  for (const FuncRow& f : funcRows()) {
    if (f.family != family) continue;
    if (std::string why = languageGap(f.name); !why.empty()) {
      tally().notBuilt[f.name] = why;
      continue;
    }
    if (nativeRun() && S == 64 && f.shape == "U4_V") {
      tally().notBuilt[f.name + "@64"] =
          "Intel's CPU runtime 2026.2 answers every get_sub_group_<which>_mask() with the eq "
          "mask in sub-groups of 64 (docs/conformance.md)";
      continue;
    }
    if (f.activeMembers && !deviceHas(f.extension)) {
      tally().notBuilt[f.name] = "the device does not offer " + f.extension +
                                 " (through the layer: where its strategy knows the active "
                                 "work-items, docs/builtins.md)";
      continue;
    }
    if (f.types.empty()) {
      v.push_back({&f, resultRow(f.shape), caseKey(f.name, "-", S)});
      continue;
    }
    for (const TypeRow& t : f.types) {
      if (std::string why = nativeActiveMemberGap(f.name, t.type, S); !why.empty()) {
        tally().notBuilt[f.name + "(" + t.type + ")@" + std::to_string(S)] = why;
        continue;
      }
      if (!typeAvailable(t)) {
        tally().skipped.insert(f.name + "(" + t.type + ")");
        continue;
      }
      v.push_back({&f, t, caseKey(f.name, t.type, S)});
    }
  }
  return v;
}

// PoCL's work-group compiler takes time superlinear in the barriers of one kernel (one per
// exchange here): a family's cases are split into kernels of at most this many.
constexpr size_t kCasesPerKernel = 20;

// Intel's CPU runtime 2026.2 ends the process ("UNREACHABLE executed: Scalar sub_group_rotate
// execution breaks subgroup semantics") where it runs sub_group_rotate or
// sub_group_clustered_rotate one work-item at a time: in a work-group with a partial sub-group,
// and in every kernel built with -cl-opt-disable; and with -cl-opt-disable its clustered
// logical reductions of clusters of 1 answer 0 for every predicate; its compiler crashes on
// the functions of the active work-items (cl_khr_subgroup_non_uniform_vote ...) under
// -cl-opt-disable, and answers 0 for every non-uniform logical xor there. The native runs give
// these functions kernels of their own, built with the optimiser, and launch the rotations with
// whole sub-groups only.
bool rotates(const Case& c) { return c.func->name.find("rotate") != std::string::npos; }
bool needsOptimiser(const Case& c) {
  return rotates(c) || clustered(c.func->name) || c.func->activeMembers;
}
bool optimisedChunk(const std::vector<Case>& cases) {
  return nativeRun() && std::any_of(cases.begin(), cases.end(), needsOptimiser);
}

std::vector<std::vector<Case>> kernelChunksOf(const std::string& family, unsigned S) {
  std::vector<Case> all = casesOf(family, S);
  std::stable_partition(all.begin(), all.end(), [](const Case& c) { return !needsOptimiser(c); });
  const size_t firstRotation =
      size_t(std::find_if(all.begin(), all.end(), needsOptimiser) - all.begin());
  std::vector<std::vector<Case>> chunks;
  auto chunk = [&](size_t from, size_t to) {
    const size_t count = to - from, n = (count + kCasesPerKernel - 1) / kCasesPerKernel;
    for (size_t c = 0; c < n; ++c) {  // even chunks: n kernels of about equal size
      size_t b = from + count * c / n, e = from + count * (c + 1) / n;
      chunks.emplace_back(all.begin() + long(b), all.begin() + long(e));
    }
  };
  chunk(0, firstRotation);
  chunk(firstRotation, all.size());
  return chunks;
}
std::string familyKernelName(const std::string& family, unsigned S, size_t chunk) {
  return "isg_" + family + "_" + std::to_string(S) + "_" + std::to_string(chunk);
}

// Region sizes: every case owns `stride` bytes of output and two such regions of input.
constexpr size_t kMaxValueBytes = 128;

// A function of the active members, called by the work-items whose index has bit 0 set: the
// rest skip it. Bits 8 and up: the member a non-uniform broadcast names, the bit a ballot bit
// extract reads. The uint4 masks come from the case's first input region.
std::string activeMemberCall(const Case& c, size_t i) {
  const std::string& f = c.func->name;
  const std::string& sh = c.func->shape;
  const std::string masks =
      "((__global const uint4*)(in + " + std::to_string(2 * i) + "u * stride))";
  const std::string ints = "((__global const int*)(in + " + std::to_string(2 * i) + "u * stride))";
  std::string call;
  if (sh == "I_V" || sh == "U4_V")
    call = f + "()";
  else if (sh == "I_I" || sh == "U4_I")
    call = f + "(" + ints + "[wi])";
  else if (sh == "T_T" || sh == "I_T")
    call = f + "(a[wi])";
  else if (sh == "T_TU")
    call = f + "(a[wi], ix[wi] >> 8)";
  else if (sh == "I_U4" || sh == "U_U4")
    call = f + "(" + masks + "[wi])";
  else if (sh == "I_U4U")
    call = f + "(" + masks + "[wi], ix[wi] >> 8)";
  const std::string target =
      sh == "I_T" ? "((__global int*)(out + " + std::to_string(i) + "u * stride))[wi]" : "o[wi]";
  return "    if (ix[wi] & 1u) " + target + " = " + call + ";\n";
}

std::string familyKernelSource(const std::string& name, const std::string& family, unsigned S,
                               const std::vector<Case>& cases) {
  std::ostringstream o;
  o << "#pragma OPENCL EXTENSION cl_intel_subgroups : enable\n";
  bool fp64 = false, fp16 = false;
  for (auto& c : cases) {
    fp64 |= c.type.req == "fp64";
    fp16 |= c.type.req == "fp16";
  }
  if (fp64) o << "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n";
  if (fp16) o << "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n";
  o << "__attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
    << "__kernel void " << name
    << "(__global const uchar* in, __global uchar* out, __global const uint* idx, uint stride,"
       " uint n)\n{\n"
    << "  const uint wi = " << kWiExpr << ";\n";
  if (family == "barrier") o << "  __local uint lm[512];\n";
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string& T = c.type.type;
    const std::string& f = c.func->name;
    o << "  { /* " << f << " " << T << " */\n"
      << "    __global const " << T << "* a = (__global const " << T << "*)(in + " << 2 * i
      << "u * stride);\n"
      << "    __global const " << T << "* b = (__global const " << T << "*)(in + " << 2 * i + 1
      << "u * stride);\n"
      << "    __global const uint* ix = idx + " << i << "u * n;\n"
      << "    __global " << T << "* o = (__global " << T << "*)(out + " << i << "u * stride);\n";
    const std::string& sh = c.func->shape;
    if (c.func->activeMembers) {
      o << activeMemberCall(c, i);
    } else if (sh == "U_V") {
      o << "    o[wi] = " << f << "();\n";
    } else if (sh == "V_FLAGS") {
      // Each member publishes a value, passes the sub-group barrier and reads its neighbour's:
      // once through local memory, once through global memory.
      o << "    uint l = get_sub_group_id() * get_max_sub_group_size() + get_sub_group_local_id();\n"
        << "    uint nb = get_sub_group_id() * get_max_sub_group_size() + (get_sub_group_local_id() + 1) % get_sub_group_size();\n"
        << "    lm[l] = a[wi];\n"
        << "    " << f << "(CLK_LOCAL_MEM_FENCE);\n"
        << "    uint r = lm[nb];\n"
        << "    " << f << "(CLK_LOCAL_MEM_FENCE);\n"
        << "    __global uint* gm = (__global uint*)(out + " << cases.size() << "u * stride) + (get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * get_group_id(2))) * get_local_size(0) * get_local_size(1) * get_local_size(2);\n"
        << "    gm[l] = b[wi];\n"
        << "    " << f << "(CLK_GLOBAL_MEM_FENCE);\n"
        << "    o[wi] = r ^ gm[nb];\n";
    } else if (sh == "I_I") {
      o << "    o[wi] = " << f << "(a[wi]);\n";
    } else if (sh == "T_T") {
      o << "    o[wi] = " << f << "(a[wi]);\n";
    } else if (sh == "T_TU" && clustered(f)) {
      o << "    o[wi] = " << f << "(a[wi], " << clusterSizeOf(c.key, S) << "u);\n";
    } else if (sh == "T_TU") {
      o << "    o[wi] = " << f << "(a[wi], ix[wi]);\n";
    } else if (sh == "T_TTU") {
      o << "    o[wi] = " << f << "(a[wi], b[wi], ix[wi]);\n";
    } else if (sh == "T_TI") {
      o << "    o[wi] = " << f << "(a[wi], (int)(short)ix[wi]);\n";
    } else if (sh == "T_TIU") {
      o << "    o[wi] = " << f << "(a[wi], (int)(short)ix[wi], " << clusterSizeOf(c.key, S)
        << "u);\n";
    }
    o << "  }\n";
  }
  o << "}\n";
  return o.str();
}

// Per-work-item index argument (shuffle lane, delta, xor value, broadcast id), chosen so that
// the result is defined except where the case wants to cover the spec's edges.
uint32_t indexFor(const Case& c, const Launch& l, uint32_t lid, unsigned group, unsigned salt) {
  const WorkGroup& g = l.g;
  const std::string& f = c.func->name;
  uint32_t sgsize = g.subGroupSize(lid);
  if (f.find("shuffle_down") != std::string::npos || f.find("shuffle_up") != std::string::npos)
    return (lid * 5 + salt) % (g.S + 1);  // every delta in [0, S] occurs in each work-group
  if (f.find("shuffle_xor") != std::string::npos)
    return g.subGroupLocalId(lid) ^ uint32_t(rnd() % sgsize);
  if (f.find("broadcast") != std::string::npos)  // uniform per sub-group
    return uint32_t((g.subGroupId(lid) * 7 + group * 3 + salt) % sgsize);
  if (f.find("rotate") != std::string::npos)  // a delta in [-S, S], uniform per sub-group
    return uint16_t(int32_t((g.subGroupId(lid) * 7 + group * 3 + salt) % (2 * g.S + 1)) -
                    int32_t(g.S));
  return uint32_t(rnd() % sgsize);
}

// Calls checkInt(T{}) for OpenCL C integer scalar `s` and checkFloat(T{}, its unit roundoff)
// for float and double, as the C++ type T of `s`; false for any other scalar (half is each
// caller's own: computed in half precision).
template <class Int, class Float>
bool forScalar(const std::string& s, Int&& checkInt, Float&& checkFloat) {
  if (s == "int")
    checkInt(int32_t{});
  else if (s == "uint")
    checkInt(uint32_t{});
  else if (s == "long")
    checkInt(int64_t{});
  else if (s == "ulong")
    checkInt(uint64_t{});
  else if (s == "short")
    checkInt(int16_t{});
  else if (s == "ushort")
    checkInt(uint16_t{});
  else if (s == "char")
    checkInt(int8_t{});
  else if (s == "uchar")
    checkInt(uint8_t{});
  else if (s == "float")
    checkFloat(float{}, std::ldexp(1.0L, -24));
  else if (s == "double")
    checkFloat(double{}, std::ldexp(1.0L, -53));
  else
    return false;
  return true;
}

// forScalar for checks that read floating-point values as long double: checkRead(read, unit
// roundoff) for half, float and double, where read(p) loads one such value from p.
template <class Int, class Read>
bool forScalarRead(const std::string& s, Int&& checkInt, Read&& checkRead) {
  if (s == "half") {
    checkRead([](const uint8_t* p) { return (long double)isgref::halfToFloat(load<uint16_t>(p)); },
              std::ldexp(1.0L, -11));
    return true;
  }
  return forScalar(s, checkInt, [&](auto tag, long double u) {
    using T = decltype(tag);
    checkRead([](const uint8_t* p) { return (long double)load<T>(p); }, u);
  });
}

// Checks the result `got` of an active member `lid` of work-group `grp` for a function of the
// active members (fillActiveMemberInputs says what the inputs are) against the model.
template <class Fail>
void checkActiveMember(const Case& c, const Launch& l, unsigned grp, uint32_t lid, const uint8_t* A,
                       const uint32_t* IX, const uint8_t* got, const std::string& dk, Fail&& fail) {
  const WorkGroup& g = l.g;
  const size_t wi = l.wi(grp, lid);
  const std::string& f = c.func->name;
  const std::string& sh = c.func->shape;
  const unsigned sb = storageBytes(c.type), bytes = scalarBytes(c.type.scalar) * c.type.width;
  std::vector<bool> active(g.size());
  for (uint32_t m = 0; m < g.size(); ++m) active[m] = IX[l.wi(grp, m)] & 1u;
  const std::vector<uint32_t> ids = isgref::activeMembers(g, lid, active);
  const uint32_t base = g.subGroupBase(lid), sglid = g.subGroupLocalId(lid);
  auto value = [&](uint32_t m) { return A + l.wi(grp, m) * sb; };
  auto predicate = [&](uint32_t m) { return load<int32_t>(A + l.wi(grp, m) * 4) != 0; };
  auto mask = [&]() { return load<isgref::Mask128>(A + wi * 16); };
  auto wantInt = [&](int64_t want) {  // an int or uint result (resultRow)
    const int64_t v = c.type.type == "int" ? load<int32_t>(got) : load<uint32_t>(got);
    dumpBytes(dk, got, 4);
    if (v != want) fail(wi, "got " + std::to_string(v) + " want " + std::to_string(want));
  };
  auto wantBytes = [&](const uint8_t* want, size_t n, const std::string& what) {
    dumpBytes(dk, got, n);
    if (std::memcmp(got, want, n) != 0) fail(wi, "wrong data (expected " + what + ")");
  };
  auto wantMask = [&](const isgref::Mask128& want) {
    const isgref::Mask128 v = load<isgref::Mask128>(got);
    dumpBytes(dk, got, 16);
    if (v != want) {
      char text[96];
      std::snprintf(text, sizeof text, "got %08x %08x %08x %08x want %08x %08x %08x %08x", v[3],
                    v[2], v[1], v[0], want[3], want[2], want[1], want[0]);
      fail(wi, text);
    }
  };
  if (f == "sub_group_elect") {
    wantInt(ids.front() == lid);
  } else if (sh == "I_I") {
    const bool any = std::any_of(ids.begin(), ids.end(), predicate);
    const bool all = std::all_of(ids.begin(), ids.end(), predicate);
    const bool want = f == "sub_group_non_uniform_all" ? all : any;
    if ((load<int32_t>(got) != 0) != want)
      fail(wi, std::string("want ") + (want ? "true" : "false"));
  } else if (sh == "I_T") {
    const bool want = std::all_of(ids.begin(), ids.end(), [&](uint32_t m) {
      return std::memcmp(value(m), value(ids.front()), bytes) == 0;
    });
    if ((load<int32_t>(got) != 0) != want)
      fail(wi, std::string("want ") + (want ? "true" : "false"));
  } else if (f == "sub_group_broadcast_first") {
    wantBytes(value(ids.front()), bytes, "lid " + std::to_string(ids.front()));
  } else if (sh == "T_TU") {
    const uint32_t from = base + (IX[wi] >> 8);
    wantBytes(value(from), bytes, "lid " + std::to_string(from));
  } else if (sh == "U4_I") {
    isgref::Mask128 want{};
    for (uint32_t m : ids)
      if (predicate(m)) isgref::setBit(want, g.subGroupLocalId(m));
    wantMask(want);
  } else if (sh == "U4_V") {
    const std::string which = f.substr(std::string("get_sub_group_").size(), 2);
    wantMask(isgref::relativeMask(which, sglid, g.maxSubGroupSize()));
  } else if (f == "sub_group_inverse_ballot") {
    wantInt(isgref::bitOf(mask(), sglid));
  } else if (sh == "I_U4U") {
    wantInt(isgref::bitOf(mask(), IX[wi] >> 8));
  } else if (sh == "U_U4") {
    // The bits of ids below the maximum sub-group size count, also in a partial sub-group
    // (Khronos' conformance test reads the spec so, and Intel's driver answers so).
    const std::vector<uint32_t> set = isgref::bitsBelow(mask(), g.maxSubGroupSize());
    const auto upTo = [&](uint32_t last) {
      return uint32_t(std::count_if(set.begin(), set.end(), [&](uint32_t b) { return b <= last; }));
    };
    if (f == "sub_group_ballot_bit_count")
      wantInt(uint32_t(set.size()));
    else if (f == "sub_group_ballot_inclusive_scan")
      wantInt(upTo(sglid));
    else if (f == "sub_group_ballot_exclusive_scan")
      wantInt(sglid ? upTo(sglid - 1) : 0u);
    else if (f == "sub_group_ballot_find_lsb")
      wantInt(set.front());
    else
      wantInt(set.back());
  } else if (c.func->family == "nonuniform_arith") {
    const isgref::ClusterOp op = isgref::operatorOf(f);
    std::vector<uint32_t> folded;
    for (uint32_t m : ids)
      if (f.find("_reduce_") != std::string::npos || m < lid ||
          (m == lid && f.find("_inclusive_") != std::string::npos))
        folded.push_back(m);
    const std::string& s = c.type.scalar;
    auto checkInt = [&](auto tag) {
      using T = decltype(tag);
      std::vector<T> x;
      for (uint32_t m : folded) x.push_back(load<T>(value(m)));
      const T want =
          x.empty() ? isgref::integerIdentity<T>(op) : isgref::clusteredInteger<T>(op, x);
      T v = load<T>(got);
      // Intel's CPU runtime answers -1 for true from its non-uniform logical scans (the spec's
      // logical operators give 1, as the layer does): its native runs compare the truth.
      if (nativeRun() && f.find("_logical_") != std::string::npos) v = T(v != 0);
      dumpBytes(dk, got, sizeof(T));
      if (v != want) fail(wi, "got " + std::to_string(v) + " want " + std::to_string(want));
    };
    auto checkRead = [&](auto read, long double u) {
      std::vector<long double> x;
      for (uint32_t m : folded) x.push_back(read(value(m)));
      isgref::FloatExpect e;
      if (x.empty())
        e.value = isgref::floatIdentity(op);
      else
        e = isgref::clusteredFloat(op, x, u);
      const long double v = read(got);
      dumpFloat(dk, v, e.tolerance);
      if (!e.ok(v))
        fail(wi, "got " + std::to_string(double(v)) + " want " + std::to_string(double(e.value)) +
                     " +- " + std::to_string(double(e.tolerance)));
    };
    if (!forScalarRead(s, checkInt, checkRead)) fail(wi, "no model for scalar " + s);
  } else {
    fail(wi, "no model for " + f);
  }
}

// Checks one case's outputs for one launch against the model; returns the number of mismatches
// and reports the first few.
size_t checkCase(const Case& c, const Launch& l, const std::vector<uint8_t>& in,
                 const std::vector<uint32_t>& idx, const std::vector<uint8_t>& out, size_t ci,
                 size_t stride, const std::string& where) {
  const WorkGroup& g = l.g;
  const size_t n = l.items();
  const uint8_t* A = in.data() + 2 * ci * stride;
  const uint8_t* B = in.data() + (2 * ci + 1) * stride;
  const uint32_t* IX = idx.data() + ci * n;
  const uint8_t* O = out.data() + ci * stride;
  const unsigned sb = storageBytes(c.type), eb = scalarBytes(c.type.scalar);
  const std::string& f = c.func->name;
  const std::string& fam = c.func->family;
  size_t bad = 0;
  auto fail = [&](size_t wi, const std::string& msg) {
    if (++bad <= 3) ADD_FAILURE() << c.key << " " << where << " wi " << wi << ": " << msg;
  };
  for (unsigned grp = 0; grp < l.groups; ++grp) {
    for (uint32_t lid = 0; lid < g.size(); ++lid) {
      size_t wi = l.wi(grp, lid);
      // A function of T that answers an int (sub_group_non_uniform_all_equal) writes an int.
      const uint8_t* got = O + wi * (c.func->shape == "I_T" ? 4 : sb);
      // The dump's key, built only when there is a dump (this loop runs for every work-item).
      const std::string dk = Dump::on() ? c.key + "|" + where + "|" + std::to_string(grp) + "|" +
                                              std::to_string(lid)
                                        : std::string();
      if (fam == "identity") {
        uint32_t want = 0;
        if (f == "get_sub_group_size") want = g.subGroupSize(lid);
        else if (f == "get_max_sub_group_size") want = g.maxSubGroupSize();
        else if (f == "get_num_sub_groups") want = g.numSubGroups();
        else if (f == "get_enqueued_num_sub_groups") want = g.enqueuedNumSubGroups();
        else if (f == "get_sub_group_id") want = g.subGroupId(lid);
        else if (f == "get_sub_group_local_id") want = g.subGroupLocalId(lid);
        else { fail(wi, "no model for " + f); continue; }
        uint32_t v = load<uint32_t>(got);
        dumpBytes(dk, got, 4);
        if (v != want) fail(wi, "got " + std::to_string(v) + " want " + std::to_string(want));
      } else if (fam == "barrier") {
        uint32_t nb = g.subGroupBase(lid) + (g.subGroupLocalId(lid) + 1) % g.subGroupSize(lid);
        size_t nwi = l.wi(grp, nb);
        uint32_t want = load<uint32_t>(A + nwi * 4) ^ load<uint32_t>(B + nwi * 4);
        uint32_t v = load<uint32_t>(got);
        dumpBytes(dk, got, 4);
        if (v != want) fail(wi, "got " + std::to_string(v) + " want " + std::to_string(want));
      } else if (fam == "vote") {
        std::vector<int32_t> pred(g.size());
        for (uint32_t m = 0; m < g.size(); ++m) pred[m] = load<int32_t>(A + l.wi(grp, m) * 4);
        bool want = f == "sub_group_all" ? isgref::voteAll(g, lid, pred) : isgref::voteAny(g, lid, pred);
        bool v = load<int32_t>(got) != 0;
        const uint8_t truth = v;
        dumpBytes(dk, &truth, 1);
        if (v != want) fail(wi, std::string("got ") + (v ? "true" : "false"));
      } else if (c.func->activeMembers) {
        if (IX[wi] & 1u) checkActiveMember(c, l, grp, lid, A, IX, got, dk, fail);
      } else if (clustered(f)) {
        const std::vector<uint32_t> ids = isgref::clusterMembers(g, lid, clusterSizeOf(c.key, g.S));
        const isgref::ClusterOp op = isgref::clusterOp(f);
        const std::string& s = c.type.scalar;
        auto checkInt = [&](auto tag) {
          using T = decltype(tag);
          std::vector<T> x;
          for (uint32_t m : ids) x.push_back(load<T>(A + l.wi(grp, m) * sb));
          const T want = isgref::clusteredInteger<T>(op, x), v = load<T>(got);
          dumpBytes(dk, got, sizeof(T));
          if (v != want) fail(wi, "got " + std::to_string(v) + " want " + std::to_string(want));
        };
        auto checkRead = [&](auto read, long double u) {
          std::vector<long double> x;
          for (uint32_t m : ids) x.push_back(read(A + l.wi(grp, m) * sb));
          const isgref::FloatExpect e = isgref::clusteredFloat(op, x, u);
          const long double v = read(got);
          dumpFloat(dk, v, e.tolerance);
          if (!e.ok(v))
            fail(wi, "got " + std::to_string(double(v)) + " want " +
                         std::to_string(double(e.value)) + " +- " +
                         std::to_string(double(e.tolerance)));
        };
        if (!forScalarRead(s, checkInt, checkRead)) fail(wi, "no model for scalar " + s);
      } else if (fam == "shuffle" || fam == "broadcast") {
        std::optional<isgref::Source> src;
        uint32_t x = IX[wi];
        const bool khr = f.rfind("sub_group_shuffle", 0) == 0;  // one source, no Intel pair
        const int32_t delta = int16_t(x & 0xffffu);
        if (fam == "broadcast") src = isgref::broadcast(g, lid, x);
        else if (f == "sub_group_rotate")
          src = isgref::rotate(g, lid, delta, g.maxSubGroupSize());
        else if (f == "sub_group_clustered_rotate")
          src = isgref::rotate(g, lid, delta, clusterSizeOf(c.key, g.S));
        else if (f.find("shuffle_down") != std::string::npos)
          src = khr ? isgref::khrShuffleDown(g, lid, x) : isgref::shuffleDown(g, lid, x);
        else if (f.find("shuffle_up") != std::string::npos)
          src = khr ? isgref::khrShuffleUp(g, lid, x) : isgref::shuffleUp(g, lid, x);
        else if (f.find("shuffle_xor") != std::string::npos) src = isgref::shuffleXor(g, lid, x);
        else src = isgref::shuffle(g, lid, x);
        if (!src) continue;  // undefined by the spec
        dumpBytes(dk, got, eb * c.type.width);
        const uint8_t* want = (src->which ? B : A) + l.wi(grp, src->lid) * sb;
        if (std::memcmp(got, want, eb * c.type.width) != 0)
          fail(wi, "index " + std::to_string(x) + ": wrong data (expected lid " +
                       std::to_string(src->lid) + " source " + std::to_string(src->which) + ")");
      } else if (fam == "reduce" || fam == "scan") {
        isgref::Kind kind = fam == "reduce" ? isgref::Kind::Reduce
                            : f.find("inclusive") != std::string::npos ? isgref::Kind::ScanInclusive
                                                                        : isgref::Kind::ScanExclusive;
        isgref::Op op = f.find("_add") != std::string::npos   ? isgref::Op::Add
                        : f.find("_min") != std::string::npos ? isgref::Op::Min
                                                              : isgref::Op::Max;
        const std::string& s = c.type.scalar;
        auto gather = [&](auto tag) {
          using T = decltype(tag);
          std::vector<T> x(g.size());
          for (uint32_t m = 0; m < g.size(); ++m) x[m] = load<T>(A + l.wi(grp, m) * sb);
          return x;
        };
        auto checkInt = [&](auto tag) {
          using T = decltype(tag);
          T want = isgref::integerCollective<T>(g, lid, kind, op, gather(tag));
          T v = load<T>(got);
          dumpBytes(dk, got, sizeof(T));
          if (v != want)
            fail(wi, "got " + std::to_string(v) + " want " + std::to_string(want));
        };
        auto checkFloat = [&](auto tag, long double u) {
          using T = decltype(tag);
          isgref::FloatExpect e = isgref::floatCollective<T>(g, lid, kind, op, gather(tag), u);
          T v = load<T>(got);
          dumpFloat(dk, v, e.tolerance);
          if (!e.ok(v))
            fail(wi, "got " + std::to_string(double(v)) + " want " + std::to_string(double(e.value)) +
                         " +- " + std::to_string(double(e.tolerance)));
        };
        if (s == "half") {  // computed in half precision: unit roundoff 2^-11
          std::vector<float> x(g.size());
          for (uint32_t m = 0; m < g.size(); ++m)
            x[m] = isgref::halfToFloat(load<uint16_t>(A + l.wi(grp, m) * sb));
          isgref::FloatExpect e =
              isgref::floatCollective<float>(g, lid, kind, op, x, std::ldexp(1.0L, -11));
          const float v = isgref::halfToFloat(load<uint16_t>(got));
          dumpFloat(dk, v, e.tolerance);
          if (!e.ok(v))
            fail(wi, "got " + std::to_string(v) + " want " + std::to_string(double(e.value)) +
                         " +- " + std::to_string(double(e.tolerance)));
        } else if (!forScalar(s, checkInt, checkFloat)) {
          fail(wi, "no model for scalar " + s);
        }
      }
    }
  }
  return bad;
}

// The inputs of a function of the active members (activeMemberCall), per sub-group: which
// members reach the call (all, one, about half, or a first few), and what the function reads:
// predicates that are all set, none or mixed; values that are equal across the sub-group or
// not; one 128-bit mask per sub-group (with a member's bit set, for find_lsb and find_msb).
void fillActiveMemberInputs(const Case& c, const Launch& l, size_t ci, size_t stride, unsigned salt,
                            std::vector<uint8_t>& in, std::vector<uint32_t>& idx) {
  const WorkGroup& g = l.g;
  const std::string& sh = c.func->shape;
  const size_t n = l.items();
  const unsigned sb = storageBytes(c.type);
  uint8_t* A = in.data() + 2 * ci * stride;
  for (unsigned grp = 0; grp < l.groups; ++grp) {
    for (uint32_t base = 0; base < g.size(); base += g.S) {
      const uint32_t size = g.subGroupSize(base), sg = base / g.S;
      const uint32_t mode = (sg + grp + salt) % 4, one = uint32_t(rnd() % size),
                     few = 1 + uint32_t(rnd() % size);
      std::vector<uint32_t> active;
      for (uint32_t m = 0; m < size; ++m) {
        const bool on = mode == 0 || (mode == 1 && m == one) || (mode == 2 && (rnd() & 1)) ||
                        (mode == 3 && m < few);
        if (on) active.push_back(m);
        idx[ci * n + l.wi(grp, base + m)] = on ? 1u : 0u;
      }
      const uint32_t named = sh == "I_U4U"
                                 ? (rnd() % 4 ? uint32_t(rnd() % g.S) : uint32_t(rnd() % 128))
                             : active.empty() ? 0u
                                              : active[rnd() % active.size()];
      const uint32_t values = (sg + grp + salt + 1) % 3;
      uint32_t mask[4] = {uint32_t(rnd()), uint32_t(rnd()), uint32_t(rnd()), uint32_t(rnd())};
      mask[0] |= 1u << (rnd() % g.S);
      for (uint32_t m = 0; m < size; ++m) {
        const size_t wi = l.wi(grp, base + m);
        idx[ci * n + wi] |= named << 8;
        uint8_t* v = A + wi * sb;
        if (sh == "I_I" || sh == "U4_I" ||
            (c.func->family == "nonuniform_arith" && c.type.type == "int" &&
             c.func->name.find("logical") != std::string::npos)) {
          // Intel's CPU runtime reads only the low bit of a non-uniform logical operation's
          // predicate (2 is false there; the spec: any nonzero value is true), so its native
          // runs take 0 and 1.
          const bool lowBit = nativeRun() && c.func->family == "nonuniform_arith";
          const int32_t p = values == 0   ? int32_t(lowBit ? 1 : rnd() | 1)
                            : values == 1 ? 0
                                          : int32_t(rnd() % (lowBit ? 2 : 3));
          std::memcpy(A + wi * 4, &p, 4);
        } else if (sh == "I_T" && values != 2 && m > 0) {
          std::memcpy(v, A + l.wi(grp, base) * sb, sb);  // equal to the first member's
        } else if (sh == "I_U4" || sh == "U_U4" || sh == "I_U4U") {
          std::memcpy(A + wi * 16, mask, 16);
        }
      }
    }
  }
}

void runFamilyChunk(const std::string& name, unsigned S, const std::vector<Case>& cases) {
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernelFor(S, name, k, optimisedChunk(cases)));
  const unsigned slot = slotFor(cases);

  unsigned salt = 0;
  for (const Shape& shape : shapesFor(S, true)) {
    Launch l = makeLaunch(S, shape);
    if (nativeRun() && std::any_of(cases.begin(), cases.end(), rotates) &&
        l.g.subGroupSize(l.g.size() - 1) != l.g.maxSubGroupSize())
      continue;
    const size_t n = l.items(), stride = n * kMaxValueBytes;
    std::vector<uint8_t> in(2 * cases.size() * stride, 0);
    std::vector<uint32_t> idx(cases.size() * n, 0);
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      const Case& c = cases[ci];
      const unsigned sb = storageBytes(c.type), eb = scalarBytes(c.type.scalar);
      const bool folds = clustered(c.func->name) || c.func->family == "nonuniform_arith";
      const bool narrow = c.func->family == "reduce" || c.func->family == "scan" || folds;
      const bool product = folds && c.func->name.find("_mul") != std::string::npos;
      seedFor(c.key + "|" + shape.name);
      salt = unsigned(rnd() % 1000);
      for (unsigned grp = 0; grp < l.groups; ++grp) {
        for (uint32_t lid = 0; lid < l.g.size(); ++lid) {
          size_t wi = l.wi(grp, lid);
          for (unsigned src = 0; src < 2; ++src) {
            uint8_t* v = in.data() + (2 * ci + src) * stride + wi * sb;
            for (unsigned lane = 0; lane < c.type.width; ++lane)
              if (product && scalarIsFloat(c.type.scalar))
                randomFactor(c.type.scalar, v + lane * eb);
              else
                randomScalar(c.type.scalar, narrow, v + lane * eb);
          }
          if (c.func->family == "vote") {
            // Per sub-group: all set, none set, or mixed, so both answers occur.
            uint32_t mode = (l.g.subGroupId(lid) + grp + salt) % 3;
            int32_t pv = mode == 0 ? int32_t(rnd() | 1) : mode == 1 ? 0 : int32_t(rnd() % 3 == 0);
            std::memcpy(in.data() + 2 * ci * stride + wi * 4, &pv, 4);
          }
          idx[ci * n + wi] = indexFor(c, l, lid, grp, salt);
        }
      }
      if (c.func->activeMembers) fillActiveMemberInputs(c, l, ci, stride, salt, in, idx);
    }
    std::vector<uint8_t> out((cases.size() + 1) * stride, 0xcd);
    Mem bin, bout, bidx;
    bin.m = makeBuffer(in.size(), in.data());
    bout.m = makeBuffer(out.size(), out.data());
    bidx.m = makeBuffer(idx.size() * 4, idx.data());
    cl_uint st = cl_uint(stride), nn = cl_uint(n);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, bin.m, bout.m, bidx.m, st, nn));
    ASSERT_NO_FATAL_FAILURE(run(k.k, l, 5, S, slot));
    ASSERT_NO_FATAL_FAILURE(readBuffer(bout.m, out.data(), out.size()));
    for (size_t ci = 0; ci < cases.size(); ++ci) {
      size_t bad = checkCase(cases[ci], l, in, idx, out, ci, stride, shape.name);
      tally().record(cases[ci].key, bad == 0);
    }
  }
}

void runFamily(const std::string& family, unsigned S) {
  ISG_REQUIRE_ENV();
  const auto chunks = kernelChunksOf(family, S);
  if (chunks.empty()) {
    std::set<std::string> notOffered;
    bool rows = false;
    for (const FuncRow& f : funcRows()) {
      if (f.family != family) continue;
      rows = true;
      if (f.activeMembers && !deviceHas(f.extension)) notOffered.insert(f.extension);
    }
    ASSERT_TRUE(rows) << "the table has no " << family << " builtins";
    std::string names;
    for (const std::string& e : notOffered) names += " " + e;
    if (!notOffered.empty()) GTEST_SKIP() << "the device does not offer" << names;
    FAIL() << "no case of " << family << " could be built";
  }
  for (size_t c = 0; c < chunks.size(); ++c)
    ASSERT_NO_FATAL_FAILURE(runFamilyChunk(familyKernelName(family, S, c), S, chunks[c]));
}

class Family : public ::testing::TestWithParam<std::tuple<std::string, unsigned>> {};

TEST_P(Family, MatchesReferenceModel) { runFamily(std::get<0>(GetParam()), std::get<1>(GetParam())); }

// The sub-group families: the work-group collectives are work_group_test.cpp's, whose model
// is the work-group's.
std::vector<std::string> familiesInTable() {
  std::vector<std::string> v;
  for (const FuncRow& f : funcRows())
    if (f.family != "work_group" && std::find(v.begin(), v.end(), f.family) == v.end())
      v.push_back(f.family);
  return v;
}

INSTANTIATE_TEST_SUITE_P(Builtins, Family,
                         ::testing::Combine(::testing::ValuesIn(familiesInTable()),
                                            ::testing::ValuesIn(kSizes)),
                         [](const auto& info) {
                           return std::get<0>(info.param) + "_S" +
                                  std::to_string(std::get<1>(info.param));
                         });

// ---- block reads and writes on buffers -----------------------------------------------------------

std::string vecType(const std::string& e, unsigned w) { return w == 1 ? e : e + std::to_string(w); }

std::string blockBufferSource(unsigned S) {
  std::ostringstream o;
  o << "__attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
    << "__kernel void isg_block_buffer_" << S
    << "(__global const uchar* in, __global uchar* out, __global uchar* out2, uint stride)\n{\n"
    << "  const uint wi = " << kWiExpr << ";\n"
    << "  const uint sg = (get_group_id(0) + get_num_groups(0) * (get_group_id(1) + "
       "get_num_groups(1) * get_group_id(2))) * get_num_sub_groups() + get_sub_group_id();\n";
  const auto& rows = blockRows();
  for (size_t i = 0; i < rows.size(); ++i) {
    const BlockRow& r = rows[i];
    if (!blockRowGap(r.read, "buffer").empty()) continue;  // a row's read and write go together
    const std::string E = r.element, V = vecType(E, r.width), w = std::to_string(r.width);
    o << "  { /* " << r.read << " / " << r.write << " */\n"
      << "    __global const " << E << "* src = (__global const " << E << "*)(in + " << i
      << "u * stride) + sg * " << S * r.width << "u;\n"
      << "    " << V << " v = " << r.read << "(src);\n";
    o << "    " << storeElements("v", r.width, "((__global " + E + "*)(out + " + std::to_string(i) +
                                   "u * stride) + wi * " + w + "u)");
    o << "    __global " << E << "* dst = (__global " << E << "*)(out2 + " << i
      << "u * stride) + sg * " << S * r.width << "u;\n";
    o << "    " << r.write << "(dst, "
      << loadElements(V, r.width, "((__global const " + E + "*)(in + " + std::to_string(i) +
                                      "u * stride) + wi * " + w + "u)")
      << " ^ (" << V << ")0x5a);\n";
    o << "  }\n";
  }
  o << "}\n";
  return o.str();
}

class BlockBuffer : public ::testing::TestWithParam<unsigned> {};

TEST_P(BlockBuffer, MatchesReferenceModel) {
  ISG_REQUIRE_ENV();
  const unsigned S = GetParam();
  Kernel k;
  ASSERT_NO_FATAL_FAILURE(kernelFor(S, "isg_block_buffer_" + std::to_string(S), k));
  const auto& rows = blockRows();
  for (const Shape& shape : shapesFor(S, true)) {
    Launch l = makeLaunch(S, shape);
    const size_t n = l.items();
    const size_t sgs = size_t(l.g.numSubGroups()) * l.groups;
    const size_t stride = sgs * S * 8 * 8 + 64;  // room for every sub-group's block of ulong8
    std::vector<uint8_t> in(rows.size() * stride), out(rows.size() * stride, 0),
        out2(rows.size() * stride, 0);
    seedFor("buffer|" + std::to_string(S) + "|" + shape.name);
    for (auto& b : in) b = uint8_t(rnd());
    Mem bin, bout, bout2;
    bin.m = makeBuffer(in.size(), in.data());
    bout.m = makeBuffer(out.size(), out.data());
    bout2.m = makeBuffer(out2.size(), out2.data());
    cl_uint st = cl_uint(stride);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, bin.m, bout.m, bout2.m, st));
    ASSERT_NO_FATAL_FAILURE(run(k.k, l, 4, S, 0));
    ASSERT_NO_FATAL_FAILURE(readBuffer(bout.m, out.data(), out.size()));
    ASSERT_NO_FATAL_FAILURE(readBuffer(bout2.m, out2.data(), out2.size()));
    (void)n;
    for (size_t i = 0; i < rows.size(); ++i) {
      const BlockRow& r = rows[i];
      if (std::string why = blockRowGap(r.read, "buffer"); !why.empty()) {
        tally().notBuilt[r.read + "(buffer)"] = why;
        tally().notBuilt[r.write + "(buffer)"] = why;
        continue;
      }
      const unsigned eb = scalarBytes(r.element);
      size_t badRead = 0, badWrite = 0;
      for (unsigned grp = 0; grp < l.groups; ++grp) {
        for (uint32_t lid = 0; lid < l.g.size(); ++lid) {
          size_t wi = l.wi(grp, lid);
          size_t sg = size_t(grp) * l.g.numSubGroups() + l.g.subGroupId(lid);
          for (unsigned kk = 0; kk < r.width; ++kk) {
            auto at = isgref::blockBufferIndex(l.g, lid, kk);
            if (!at) continue;  // partial sub-group: undefined
            size_t elem = sg * S * r.width + *at;
            // read: out[wi*width + k] == in[block + index]
            const uint8_t* got = out.data() + i * stride + (wi * r.width + kk) * eb;
            const uint8_t* want = in.data() + i * stride + elem * eb;
            if (Dump::on()) {
              const std::string dk = "|" + std::to_string(S) + "|" + shape.name + "|" +
                                     std::to_string(wi) + "|" + std::to_string(kk);
              dumpBytes(r.read + "(buffer)" + dk, got, eb);
              dumpBytes(r.write + "(buffer)" + dk, out2.data() + i * stride + elem * eb, eb);
            }
            if (std::memcmp(got, want, eb) != 0 && ++badRead <= 3)
              ADD_FAILURE() << r.read << "@" << S << " " << shape.name << " wi " << wi << " k " << kk;
            // write: out2[block + index] == in[wi*width + k] ^ 0x5a
            std::vector<uint8_t> w(in.begin() + i * stride + (wi * r.width + kk) * eb,
                                   in.begin() + i * stride + (wi * r.width + kk + 1) * eb);
            w[0] ^= 0x5a;
            if (std::memcmp(out2.data() + i * stride + elem * eb, w.data(), eb) != 0 &&
                ++badWrite <= 3)
              ADD_FAILURE() << r.write << "@" << S << " " << shape.name << " wi " << wi << " k " << kk;
          }
        }
      }
      tally().record(caseKey(r.read, "buffer", S), badRead == 0);
      tally().record(caseKey(r.write, "buffer", S), badWrite == 0);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Builtins, BlockBuffer, ::testing::ValuesIn(kSizes),
                         [](const auto& info) { return "S" + std::to_string(info.param); });

// ---- block reads and writes on images --------------------------------------------------------------

struct ImageFormat {
  const char* name;
  cl_channel_order order;
  cl_channel_type type;
  unsigned channels, channelBytes;
  bool isFloat;
};
const ImageFormat kFormats[] = {
    {"R_UINT8", CL_R, CL_UNSIGNED_INT8, 1, 1, false},
    {"RG_UINT8", CL_RG, CL_UNSIGNED_INT8, 2, 1, false},
    {"RGBA_UINT8", CL_RGBA, CL_UNSIGNED_INT8, 4, 1, false},
    {"R_UNORM8", CL_R, CL_UNORM_INT8, 1, 1, false},
    {"RG_UNORM8", CL_RG, CL_UNORM_INT8, 2, 1, false},
    {"RGBA_UNORM8", CL_RGBA, CL_UNORM_INT8, 4, 1, false},
    {"R_UINT16", CL_R, CL_UNSIGNED_INT16, 1, 2, false},
    {"RG_UINT16", CL_RG, CL_UNSIGNED_INT16, 2, 2, false},
    {"RGBA_UINT16", CL_RGBA, CL_UNSIGNED_INT16, 4, 2, false},
    {"R_UINT32", CL_R, CL_UNSIGNED_INT32, 1, 4, false},
    {"RG_UINT32", CL_RG, CL_UNSIGNED_INT32, 2, 4, false},
    {"RGBA_UINT32", CL_RGBA, CL_UNSIGNED_INT32, 4, 4, false},
    {"R_FLOAT", CL_R, CL_FLOAT, 1, 4, true},
    {"RG_FLOAT", CL_RG, CL_FLOAT, 2, 4, true},
    {"RGBA_FLOAT", CL_RGBA, CL_FLOAT, 4, 4, true},
};

bool formatSupported(const ImageFormat& f) {
  cl_uint n = 0;
  clGetSupportedImageFormats(isgtest::env().context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, 0,
                             nullptr, &n);
  std::vector<cl_image_format> v(n);
  clGetSupportedImageFormats(isgtest::env().context, CL_MEM_READ_WRITE, CL_MEM_OBJECT_IMAGE2D, n,
                             v.data(), nullptr);
  for (auto& x : v)
    if (x.image_channel_order == f.order && x.image_channel_data_type == f.type) return true;
  return false;
}

isgref::RawImage randomImage(const ImageFormat& f, uint32_t widthBytes, uint32_t height) {
  isgref::RawImage img;
  img.elementBytes = f.channels * f.channelBytes;
  img.width = widthBytes / img.elementBytes;
  img.height = height;
  img.bytes.resize(size_t(img.width) * height * img.elementBytes);
  if (f.isFloat) {  // finite floats only: the layer's raw-bit recovery goes through read_imagef
    for (size_t i = 0; i < img.bytes.size(); i += 4) {
      float x = float(int64_t(rnd() % 2000001) - 1000000) / 128.0f;
      std::memcpy(&img.bytes[i], &x, 4);
    }
  } else {
    for (auto& b : img.bytes) b = uint8_t(rnd());
  }
  return img;
}

cl_mem makeImage(const ImageFormat& f, const isgref::RawImage& img) {
  cl_image_format fmt{f.order, f.type};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = img.width;
  desc.image_height = img.height;
  cl_int err = CL_SUCCESS;
  cl_mem m = clCreateImage(isgtest::env().context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, &fmt,
                           &desc, const_cast<uint8_t*>(img.bytes.data()), &err);
  EXPECT_EQ(err, CL_SUCCESS) << f.name;
  return m;
}

// Every block row has image forms (cl_intel_subgroups: uint; _short: _ui/_us; _char: _uc;
// _long: _ul). One read kernel reads every row at once; a write kernel writes the row `which`
// names, so each write lands in a fresh image.

// Where row i's values of one work-item start in the read kernel's output, aligned to its
// element size, and the bytes every work-item owns there.
struct ReadLayout {
  std::vector<unsigned> offset;
  unsigned bytesPerItem = 0;
};
const ReadLayout& readLayout() {
  static const ReadLayout l = [] {
    ReadLayout r;
    unsigned off = 0;
    for (const BlockRow& b : blockRows()) {
      const unsigned eb = scalarBytes(b.element);
      off = (off + eb - 1) / eb * eb;
      r.offset.push_back(off);
      off += eb * b.width;
    }
    r.bytesPerItem = (off + 15) / 16 * 16;
    return r;
  }();
  return l;
}
// Bytes of write data each work-item owns: the widest row (ulong8) is 64.
constexpr unsigned kWriteBytesPerItem = 64;

std::string blockImageSource(unsigned S) {
  std::ostringstream o;
  const std::string sgExpr =
      "(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * "
      "get_group_id(2))) * get_num_sub_groups() + get_sub_group_id()";
  const auto& rows = blockRows();
  const ReadLayout& layout = readLayout();
  o << "__attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
    << "__kernel void isg_image_read_" << S
    << "(__read_only image2d_t img, __global const int* coords, __global uchar* out)\n{\n"
    << "  const uint wi = " << kWiExpr << ";\n"
    << "  const uint sg = " << sgExpr << ";\n"
    << "  const int2 c = (int2)(coords[2 * sg], coords[2 * sg + 1]);\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const BlockRow& r = rows[i];
    if (!blockRowGap(r.read, "image").empty()) continue;
    const std::string E = r.element;
    o << "  { __global " << E << "* d = (__global " << E << "*)(out + wi * "
      << layout.bytesPerItem << "u + " << layout.offset[i] << "u);\n";
    o << "    " << vecType(E, r.width) << " v = " << r.read << "(img, c);\n"
      << "    " << storeElements("v", r.width, "d") << "  }\n";
  }
  o << "}\n"
    << "__attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
    << "__kernel void isg_image_write_" << S
    << "(__write_only image2d_t img, __global const int* coords, __global const uchar* in, "
       "uint which)\n{\n"
    << "  const uint wi = " << kWiExpr << ";\n"
    << "  const uint sg = " << sgExpr << ";\n"
    << "  const int2 c = (int2)(coords[2 * sg], coords[2 * sg + 1]);\n";
  for (size_t i = 0; i < rows.size(); ++i) {
    const BlockRow& r = rows[i];
    const std::string src = "(__global const " + r.element + "*)(in + wi * " +
                            std::to_string(kWriteBytesPerItem) + "u)";
    const std::string value = loadElements(vecType(r.element, r.width), r.width, src);
    if (!blockRowGap(r.write, "image").empty()) continue;
    // `which` is a kernel argument: uniform across the work-group, as the local strategy needs.
    o << "  if (which == " << i << "u) " << r.write << "(img, c, " << value << ");\n";
  }
  o << "}\n";
  return o.str();
}

class BlockImage : public ::testing::TestWithParam<unsigned> {};

// Raw image data with elements of `f`; float formats get finite floats only, since the layer
// recovers their raw bits through read_imagef/write_imagef.
void fillRaw(const ImageFormat& f, uint8_t* p, size_t bytes) {
  if (!f.isFloat) {
    for (size_t i = 0; i < bytes; ++i) p[i] = uint8_t(rnd());
    return;
  }
  for (size_t i = 0; i + 4 <= bytes; i += 4) {
    float x = float(int64_t(rnd() % 2000001) - 1000000) / 64.0f;
    std::memcpy(p + i, &x, 4);
  }
}

TEST_P(BlockImage, MatchesReferenceModel) {
  ISG_REQUIRE_ENV();
  if (const std::string gap = imagesGap(); !gap.empty()) GTEST_SKIP() << gap;
  const unsigned S = GetParam();
  const auto& rows = blockRows();
  const ReadLayout& layout = readLayout();
  Kernel kr, kw;
  ASSERT_NO_FATAL_FAILURE(kernelFor(S, "isg_image_read_" + std::to_string(S), kr));
  ASSERT_NO_FATAL_FAILURE(kernelFor(S, "isg_image_write_" + std::to_string(S), kw));

  for (const Shape& shape : shapesFor(S, false)) {
    Launch l = makeLaunch(S, shape);
    const size_t n = l.items();
    const uint32_t sgs = l.g.numSubGroups() * l.groups;
    for (const ImageFormat& f : kFormats) {
      if (!formatSupported(f)) {
        tally().skipped.insert(std::string("image format ") + f.name);
        continue;
      }
      const std::string fkey = std::string("image ") + f.name;
      seedFor(fkey + "|" + std::to_string(S) + "|" + shape.name);
      const unsigned es = f.channels * f.channelBytes;
      // ---- reads: every row in one launch; arbitrary byte x (also negative and past the
      // edges), rows past the bottom
      const uint32_t widthBytes = 3 * S * 4 - 8, height = 3 * 8 + 5;
      isgref::RawImage img = randomImage(f, widthBytes, height);
      std::vector<int32_t> rc(2 * sgs);
      for (uint32_t s = 0; s < sgs; ++s) {
        rc[2 * s] = int32_t(rnd() % (widthBytes + 16)) - 8;
        rc[2 * s + 1] = int32_t(rnd() % (height + 4)) - 2;
      }
      rc[0] = int32_t(widthBytes) - 2 * int32_t(S) - 1;  // crosses the right edge, unaligned
      rc[1] = int32_t(height) - 3;                       // 4..16 rows cross the bottom edge
      if (sgs > 1) {                                     // before the left and top edges
        rc[2] = -5;
        rc[3] = -1;
      }
      if (nativeSkipsImageEdges()) {
        // Whole reads inside the image: the widest row reads S ulongs of 16 rows.
        const uint32_t rowBytes = img.width * img.elementBytes;  // widthBytes, whole elements
        for (uint32_t s = 0; s < sgs; ++s) {
          rc[2 * s] = int32_t(rnd() % (rowBytes - 8 * S + 1));
          rc[2 * s + 1] = int32_t(rnd() % (height - 16 + 1));
        }
      }
      {
        Mem im, bc, bo;
        im.m = makeImage(f, img);
        bc.m = makeBuffer(rc.size() * 4, rc.data());
        std::vector<uint8_t> out(n * layout.bytesPerItem, 0);
        bo.m = makeBuffer(out.size(), out.data());
        ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(kr.k, im.m, bc.m, bo.m));
        ASSERT_NO_FATAL_FAILURE(run(kr.k, l, 3, S, 0));
        ASSERT_NO_FATAL_FAILURE(readBuffer(bo.m, out.data(), out.size()));
        for (size_t i = 0; i < rows.size(); ++i) {
          const BlockRow& r = rows[i];
          if (std::string why = blockRowGap(r.read, "image"); !why.empty()) {
            tally().notBuilt[r.read + "(image)"] = why;
            continue;
          }
          const unsigned eb = scalarBytes(r.element);
          size_t bad = 0;
          for (unsigned grp = 0; grp < l.groups; ++grp)
            for (uint32_t lid = 0; lid < l.g.size(); ++lid) {
              uint32_t sg = grp * l.g.numSubGroups() + l.g.subGroupId(lid);
              for (unsigned kk = 0; kk < r.width; ++kk) {
                auto want =
                    isgref::imageBlockRead(l.g, lid, img, rc[2 * sg], rc[2 * sg + 1], kk, eb);
                if (!want) continue;
                uint64_t got = 0;
                std::memcpy(&got, out.data() + l.wi(grp, lid) * layout.bytesPerItem +
                                      layout.offset[i] + kk * eb, eb);
                if (Dump::on())
                  dumpBytes(caseKey(r.read, fkey, S) + "|" + shape.name + "|" +
                                std::to_string(grp) + "|" + std::to_string(lid) + "|" +
                                std::to_string(kk),
                            reinterpret_cast<const uint8_t*>(&got), eb);
                if (got != *want && ++bad <= 3)
                  ADD_FAILURE() << r.read << "@" << S << " " << f.name << " " << shape.name
                                << " lid " << lid << " k " << kk << " coord (" << rc[2 * sg] << ","
                                << rc[2 * sg + 1] << ") got " << std::hex << got << " want "
                                << *want << std::dec;
              }
            }
          tally().record(caseKey(r.read, fkey, S), bad == 0);
        }
      }
      // ---- writes: one launch per row. A work-item writes whole elements only, so the rows
      // whose type is at least as wide as the element (the spec defines the bounds behaviour
      // for element == type size; smaller elements are written several per work-item).
      std::vector<uint8_t> data(n * kWriteBytesPerItem);
      fillRaw(f, data.data(), data.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        const BlockRow& r = rows[i];
        const unsigned eb = scalarBytes(r.element);
        if (es > eb) continue;
        if (std::string why = blockRowGap(r.write, "image"); !why.empty()) {
          tally().notBuilt[r.write + "(image)"] = why;
          continue;
        }
        // Each sub-group owns a disjoint S*eb-byte x width-row tile; the image ends half a tile
        // before the last column of tiles and inside the last row of tiles, so writes cross the
        // right and bottom edges.
        const uint32_t cols = 3, tileRows = (sgs + cols - 1) / cols;
        const uint32_t tileBytes = S * eb;
        const bool edges = !nativeSkipsImageEdges();  // else every tile lies inside
        const uint32_t wBytes = cols * tileBytes - (edges ? tileBytes / 2 : 0);
        const uint32_t h = tileRows * r.width - (edges ? r.width / 2 : 0);
        std::vector<int32_t> wc(2 * sgs);
        for (uint32_t s = 0; s < sgs; ++s) {
          wc[2 * s] = int32_t((s % cols) * tileBytes);
          wc[2 * s + 1] = int32_t((s / cols) * r.width);
        }
        isgref::RawImage wimg = randomImage(f, wBytes, h);
        Mem im, bc, bd;
        im.m = makeImage(f, wimg);
        bc.m = makeBuffer(wc.size() * 4, wc.data());
        bd.m = makeBuffer(data.size(), data.data());
        cl_uint which = cl_uint(i);
        ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(kw.k, im.m, bc.m, bd.m, which));
        ASSERT_NO_FATAL_FAILURE(run(kw.k, l, 4, S, 0));
        isgref::RawImage got = wimg, want = wimg;
        size_t origin[3] = {0, 0, 0}, region[3] = {wimg.width, wimg.height, 1};
        ISG_CL_CHECK(clEnqueueReadImage(isgtest::env().queue, im.m, CL_TRUE, origin, region, 0, 0,
                                        got.bytes.data(), 0, nullptr, nullptr));
        for (unsigned grp = 0; grp < l.groups; ++grp)
          for (uint32_t lid = 0; lid < l.g.size(); ++lid) {
            if (l.g.partial(lid)) continue;
            uint32_t sg = grp * l.g.numSubGroups() + l.g.subGroupId(lid);
            for (unsigned kk = 0; kk < r.width; ++kk) {
              uint64_t v = 0;
              std::memcpy(&v, data.data() + l.wi(grp, lid) * kWriteBytesPerItem + kk * eb, eb);
              isgref::imageWriteBytes(want, wc[2 * sg] + int64_t(eb) * l.g.subGroupLocalId(lid),
                                      wc[2 * sg + 1] + int64_t(kk), eb, v);
            }
          }
        dumpBytes(caseKey(r.write, fkey, S) + "|" + shape.name, got.bytes.data(), got.bytes.size());
        size_t bad = 0;
        for (size_t b = 0; b < want.bytes.size(); ++b)
          if (got.bytes[b] != want.bytes[b] && ++bad <= 3)
            ADD_FAILURE() << r.write << "@" << S << " " << f.name << " " << shape.name
                          << " byte " << b << " (row " << b / (wimg.width * wimg.elementBytes)
                          << ") got " << int(got.bytes[b]) << " want " << int(want.bytes[b]);
        tally().record(caseKey(r.write, fkey, S), bad == 0);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Builtins, BlockImage, ::testing::ValuesIn(kSizes),
                         [](const auto& info) { return "S" + std::to_string(info.param); });

// ---- media block reads and writes on images (cl_intel_media_block_io) --------------------------

// Intel's CPU runtime has no cl_intel_media_block_io, so the host model (tests/reference) is the
// only oracle here; each expectation there quotes the sentence of the spec it follows.
bool mediaBuilt() {
  cl_bool images = CL_FALSE;
  clGetDeviceInfo(isgtest::env().device, CL_DEVICE_IMAGE_SUPPORT, sizeof images, &images, nullptr);
  if (!images) return false;
  if (const std::string gap = imagesGap(); !gap.empty()) {
    tally().notBuilt["cl_intel_media_block_io"] = gap;
    return false;
  }
  if (deviceHas("cl_intel_media_block_io")) return true;
  tally().notBuilt["cl_intel_media_block_io"] = "the device does not report the extension";
  return false;
}

// One media case: a row of mediaRows() and a constant region, `width` in elements.
struct MediaCase {
  size_t row;
  unsigned width, height;
  bool sweep;  // one of the width x height sweep (else a per-row case)
};
// The cases of one element size (1: _uc, 2: _us, 4: _ui). Every width of the spec's Table 6.X
// (4 to 32 bytes) at heights 1, 3 and the two tallest it allows, through the widest row of the
// size, so regions both smaller and larger than S x the vector width occur; then every row of
// the size at a tall narrow, a small and a wide region. (Each case is a call site with its own
// constants: more heights cost NVIDIA's compiler minutes, and the library's code does not
// depend on the height but through the constants these already vary.)
const std::vector<MediaCase>& mediaCases(unsigned eb) {
  static std::map<unsigned, std::vector<MediaCase>> all;
  auto it = all.find(eb);
  if (it != all.end()) return it->second;
  std::vector<MediaCase> v;
  const auto& rows = mediaRows();
  size_t widest = 0;
  bool found = false;
  for (size_t i = 0; i < rows.size(); ++i)
    if (scalarBytes(rows[i].element) == eb && (!found || rows[i].width > rows[widest].width)) {
      widest = i;
      found = true;
    }
  for (unsigned wb = 4; wb <= 32; wb += 4) {
    const unsigned most = isg::table::mediaMaxHeight(wb);
    std::set<unsigned> heights{1, 3, most - 1, most};
    for (unsigned h : heights)
      if (h >= 1 && h <= most) v.push_back({widest, wb / eb, h, true});
  }
  for (size_t i = 0; i < rows.size(); ++i) {
    if (scalarBytes(rows[i].element) != eb) continue;
    v.push_back({i, 4 / eb, 64, false});
    v.push_back({i, 16 / eb, 2, false});
    v.push_back({i, 32 / eb, 8, false});
  }
  return all.emplace(eb, std::move(v)).first->second;
}
constexpr unsigned kMediaBytesPerItem = 32;  // the widest rows, ushort16 and uint8
const unsigned kMediaElementSizes[] = {1, 2, 4};

std::string mediaName(const char* what, unsigned eb, unsigned S) {
  return std::string("isg_media_") + what + "_" + std::to_string(eb) + "_" + std::to_string(S);
}

std::string mediaSource(unsigned S) {
  std::ostringstream o;
  const std::string sgExpr =
      "(get_group_id(0) + get_num_groups(0) * (get_group_id(1) + get_num_groups(1) * "
      "get_group_id(2))) * get_num_sub_groups() + get_sub_group_id()";
  for (unsigned eb : kMediaElementSizes) {
    const auto& cases = mediaCases(eb);
    o << "__attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
      << "__kernel void " << mediaName("read", eb, S)
      << "(__read_only image2d_t img, __global const int* coords, __global uchar* out)\n{\n"
      << "  const uint wi = " << kWiExpr << ";\n"
      << "  const uint sg = " << sgExpr << ";\n"
      << "  const uint items = get_global_size(0) * get_global_size(1) * get_global_size(2);\n"
      << "  const int2 c = (int2)(coords[2 * sg], coords[2 * sg + 1]);\n";
    for (size_t j = 0; j < cases.size(); ++j) {
      const MediaRow& r = mediaRows()[cases[j].row];
      o << "  { __global " << r.element << "* d = (__global " << r.element << "*)(out + (" << j
        << "u * items + wi) * " << kMediaBytesPerItem << "u);\n"
        << "    " << vecType(r.element, r.width) << " v = " << r.read << "(c, " << cases[j].width
        << ", " << cases[j].height << ", img);\n"
        << "    " << storeElements("v", r.width, "d") << "  }\n";
    }
    o << "}\n"
      << "__attribute__((intel_reqd_sub_group_size(" << S << ")))\n"
      << "__kernel void " << mediaName("write", eb, S)
      << "(__write_only image2d_t img, __global const int* coords, __global const uchar* in, "
         "uint which)\n{\n"
      << "  const uint wi = " << kWiExpr << ";\n"
      << "  const uint sg = " << sgExpr << ";\n"
      << "  const int2 c = (int2)(coords[2 * sg], coords[2 * sg + 1]);\n";
    for (size_t j = 0; j < cases.size(); ++j) {
      const MediaRow& r = mediaRows()[cases[j].row];
      const std::string src = "(__global const " + r.element + "*)(in + wi * " +
                              std::to_string(kMediaBytesPerItem) + "u)";
      // `which` is a kernel argument: uniform across the work-group, as the local strategy needs.
      o << "  if (which == " << j << "u) " << r.write << "(c, " << cases[j].width << ", "
        << cases[j].height << ", " << loadElements(vecType(r.element, r.width), r.width, src)
        << ", img);\n";
    }
    o << "}\n";
  }
  return o.str();
}

// R8, R16, R32 and RGBA8 (the issue's formats), with UNORM variants of the byte texels media
// kernels read in practice (luma planes).
const ImageFormat kMediaFormats[] = {
    {"R_UINT8", CL_R, CL_UNSIGNED_INT8, 1, 1, false},
    {"R_UNORM8", CL_R, CL_UNORM_INT8, 1, 1, false},
    {"R_UINT16", CL_R, CL_UNSIGNED_INT16, 1, 2, false},
    {"R_UINT32", CL_R, CL_UNSIGNED_INT32, 1, 4, false},
    {"RGBA_UINT8", CL_RGBA, CL_UNSIGNED_INT8, 4, 1, false},
    {"RGBA_UNORM8", CL_RGBA, CL_UNORM_INT8, 4, 1, false},
};

std::string mediaCaseKey(const MediaRow& r, const char* dir, const ImageFormat& f,
                         const MediaCase& c, unsigned S) {
  const std::string& name = dir[0] == 'r' ? r.read : r.write;
  return caseKey(name, std::string(f.name) + " " + std::to_string(c.width) + "x" +
                           std::to_string(c.height), S);
}

// Work-groups per media launch: 10 sub-groups or more in every shape, one per place below.
constexpr unsigned kMediaGroups = 5;
Launch mediaLaunch(unsigned S, const Shape& shape) {
  Launch l = makeLaunch(S, shape);
  l.groups = kMediaGroups;
  l.global[0] = shape.local[0] * kMediaGroups;
  return l;
}

// Reads: a 64-byte x 72-row image; each sub-group reads from one of ten places, inside, across
// every edge and corner, and wholly left of the image (4-byte aligned x, as the spec requires).
constexpr int32_t kMediaReadPlaces[][2] = {{0, 0},  {-8, 10}, {56, 20}, {16, -3}, {20, 70},
                                           {-4, -2}, {60, 69}, {12, 30}, {40, 60}, {-32, 40}};

// Compares one read launch's output with the model for every case; returns how many defined
// elements lay outside the image (the edge replication the spec defines).
size_t checkMediaReads(unsigned S, unsigned eb, const Launch& l, const std::vector<int32_t>& rc,
                       const isgref::RawImage& img, const ImageFormat& f,
                       const std::vector<uint8_t>& out, unsigned maxHeight, const char* label) {
  const auto& cases = mediaCases(eb);
  const size_t n = l.items();
  size_t outside = 0;
  const int64_t rowBytes = int64_t(img.width) * img.elementBytes;
  for (size_t j = 0; j < cases.size(); ++j) {
    const MediaCase& mc = cases[j];
    if (mc.height > maxHeight) continue;
    const MediaRow& r = mediaRows()[mc.row];
    size_t bad = 0;
    for (unsigned grp = 0; grp < l.groups; ++grp)
      for (uint32_t lid = 0; lid < l.g.size(); ++lid) {
        const uint32_t sg = grp * l.g.numSubGroups() + l.g.subGroupId(lid);
        for (unsigned kk = 0; kk < r.width; ++kk) {
          const auto want = isgref::mediaBlockRead(l.g, lid, img, rc[2 * sg], rc[2 * sg + 1],
                                                   mc.width, mc.height, kk, eb);
          if (!want) continue;
          const auto at = isgref::mediaElement(l.g, lid, rc[2 * sg], rc[2 * sg + 1], mc.width,
                                               mc.height, kk, eb);
          outside += at->y < 0 || at->y >= int64_t(img.height) || at->bx < 0 ||
                     at->bx + int64_t(eb) > rowBytes;
          uint64_t got = 0;
          std::memcpy(&got, out.data() + (j * n + l.wi(grp, lid)) * kMediaBytesPerItem + kk * eb,
                      eb);
          if (got != *want && ++bad <= 3)
            ADD_FAILURE() << r.read << "(" << mc.width << ", " << mc.height << ")@" << S << " "
                          << f.name << " " << label << " lid " << lid << " k " << kk
                          << " offset (" << rc[2 * sg] << "," << rc[2 * sg + 1] << ") got "
                          << std::hex << got << " want " << *want << std::dec;
        }
      }
    tally().record(mediaCaseKey(r, "read", f, mc, S), bad == 0);
  }
  return outside;
}

// The media kernels are a program of their own per S, so runs that filter them out do not pay
// for their build.
std::map<unsigned, cl_program>& mediaPrograms() {
  static std::map<unsigned, cl_program> p;
  return p;
}
void mediaKernelFor(unsigned S, const std::string& name, Kernel& k) {
  auto& media = mediaPrograms();
  auto it = media.find(S);
  if (it == media.end()) {
    std::string log, src = mediaSource(S);
    cl_int status = CL_SUCCESS;
    cl_program p =
        isgtest::buildProgram(isge2e_host::prepareSource(src), buildOptions(), &log, &status);
    it = media.emplace(S, p).first;
    ASSERT_NE(p, nullptr) << "build failed (" << status << "):\n" << log << "\n" << src;
  }
  ASSERT_NE(it->second, nullptr) << "the media program for S=" << S << " did not build";
  cl_int err = CL_SUCCESS;
  k.k = clCreateKernel(it->second, name.c_str(), &err);
  ASSERT_EQ(err, CL_SUCCESS) << name;
}

// Every element size's read or write kernel (`what`) on every work-group shape: fn(element
// size, kernel, shape, its index, the launch, sub-groups in the launch).
template <class Fn>
void forEachMediaLaunch(unsigned S, const char* what, Fn&& fn) {
  for (unsigned eb : kMediaElementSizes) {
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(mediaKernelFor(S, mediaName(what, eb, S), k));
    const auto shapes = shapesFor(S, false);
    for (size_t si = 0; si < shapes.size(); ++si) {
      const Launch l = mediaLaunch(S, shapes[si]);
      fn(eb, k.k, shapes[si], si, l, l.g.numSubGroups() * l.groups);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

class MediaBlock : public ::testing::TestWithParam<unsigned> {};

TEST_P(MediaBlock, ReadsMatchTheSpecModelAcrossEveryEdge) {
  ISG_REQUIRE_ENV();
  if (!mediaBuilt()) GTEST_SKIP() << "no media block io on this device (counted as not built)";
  const unsigned S = GetParam();
  size_t outside = 0;
  forEachMediaLaunch(
      S, "read",
      [&](unsigned eb, cl_kernel k, const Shape& shape, size_t si, const Launch& l, uint32_t sgs) {
        const auto& cases = mediaCases(eb);
        const size_t n = l.items();
        std::vector<int32_t> rc(2 * sgs);
        for (uint32_t sg = 0; sg < sgs; ++sg) {
          const auto& place = kMediaReadPlaces[(sg + 3 * si) % std::size(kMediaReadPlaces)];
          rc[2 * sg] = place[0];
          rc[2 * sg + 1] = place[1];
        }
        for (const ImageFormat& f : kMediaFormats) {
          if (!formatSupported(f)) {
            tally().skipped.insert(std::string("image format ") + f.name);
            continue;
          }
          seedFor(std::string("media read ") + f.name + "|" + std::to_string(eb) + "|" +
                  std::to_string(S) + "|" + shape.name);
          const isgref::RawImage img = randomImage(f, 64, 72);
          Mem im, bc, bo;
          im.m = makeImage(f, img);
          bc.m = makeBuffer(rc.size() * 4, rc.data());
          std::vector<uint8_t> out(cases.size() * n * kMediaBytesPerItem, 0);
          bo.m = makeBuffer(out.size(), out.data());
          ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, im.m, bc.m, bo.m));
          ASSERT_NO_FATAL_FAILURE(run(k, l, 3, S, 0));
          ASSERT_NO_FATAL_FAILURE(readBuffer(bo.m, out.data(), out.size()));
          outside += checkMediaReads(S, eb, l, rc, img, f, out, 64, shape.name);
        }
      });
  // The places must reach the edges where the spec defines what a read returns there.
  EXPECT_GT(outside, 0u);
}

// Writes: each sub-group writes its own tile (32 bytes x 64 rows apart, so no two overlap),
// starting 8 bytes left of and 4 rows above the image; the image ends inside the third column
// and in the first row of the third row of tiles, and the tenth tile lies wholly below it.
TEST_P(MediaBlock, WritesMatchTheSpecModelAndDropWhatFallsOutside) {
  ISG_REQUIRE_ENV();
  if (!mediaBuilt()) GTEST_SKIP() << "no media block io on this device (counted as not built)";
  const unsigned S = GetParam();
  constexpr uint32_t kRowBytes = 72, kHeight = 125;
  forEachMediaLaunch(
      S, "write",
      [&](unsigned eb, cl_kernel k, const Shape& shape, size_t si, const Launch& l, uint32_t sgs) {
        const auto& cases = mediaCases(eb);
        const size_t n = l.items();
        std::vector<int32_t> wc(2 * sgs);
        for (uint32_t sg = 0; sg < sgs; ++sg) {
          wc[2 * sg] = -8 + int32_t(sg % 3) * 32;
          wc[2 * sg + 1] = -4 + int32_t(sg / 3) * 64;
        }
        for (const ImageFormat& f : kMediaFormats) {
          // The spec writes images whose elements are no wider than the function's.
          if (f.channels * f.channelBytes > eb) continue;
          if (!formatSupported(f)) {
            tally().skipped.insert(std::string("image format ") + f.name);
            continue;
          }
          seedFor(std::string("media write ") + f.name + "|" + std::to_string(eb) + "|" +
                  std::to_string(S) + "|" + shape.name);
          std::vector<uint8_t> data(n * kMediaBytesPerItem);
          fillRaw(f, data.data(), data.size());
          const isgref::RawImage before = randomImage(f, kRowBytes, kHeight);
          Mem bc, bd;
          bc.m = makeBuffer(wc.size() * 4, wc.data());
          bd.m = makeBuffer(data.size(), data.data());
          for (size_t j = 0; j < cases.size(); ++j) {
            // Every case on the first shape; the row cases (past the width sweep) on all of them.
            if (si > 0 && cases[j].sweep) continue;
            const MediaCase& mc = cases[j];
            const MediaRow& r = mediaRows()[mc.row];
            Mem im;
            im.m = makeImage(f, before);
            cl_uint which = cl_uint(j);
            ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k, im.m, bc.m, bd.m, which));
            ASSERT_NO_FATAL_FAILURE(run(k, l, 4, S, 0));
            isgref::RawImage got = before, want = before;
            size_t origin[3] = {0, 0, 0}, region[3] = {before.width, before.height, 1};
            ISG_CL_CHECK(clEnqueueReadImage(isgtest::env().queue, im.m, CL_TRUE, origin, region, 0,
                                            0, got.bytes.data(), 0, nullptr, nullptr));
            for (unsigned grp = 0; grp < l.groups; ++grp)
              for (uint32_t lid = 0; lid < l.g.size(); ++lid) {
                const uint32_t sg = grp * l.g.numSubGroups() + l.g.subGroupId(lid);
                for (unsigned kk = 0; kk < r.width; ++kk) {
                  uint64_t v = 0;
                  std::memcpy(&v, data.data() + l.wi(grp, lid) * kMediaBytesPerItem + kk * eb, eb);
                  isgref::mediaBlockWrite(want, l.g, lid, wc[2 * sg], wc[2 * sg + 1], mc.width,
                                          mc.height, kk, eb, v);
                }
              }
            size_t bad = 0;
            for (size_t b = 0; b < got.bytes.size(); ++b)
              if (got.bytes[b] != want.bytes[b] && ++bad <= 3)
                ADD_FAILURE() << r.write << "(" << mc.width << ", " << mc.height << ")@" << S << " "
                              << f.name << " " << shape.name << " byte " << b % kRowBytes << " row "
                              << b / kRowBytes << " got " << int(got.bytes[b]) << " want "
                              << int(want.bytes[b]);
            tally().record(mediaCaseKey(r, "write", f, mc, S), bad == 0);
          }
        }
      });
}

// "The following additional restrictions are imposed for reading 2D images created from buffers
// ... The image row pitch is required to be a multiple of 64-bytes ... The maximum height is
// further restricted to 16 or less." The same reads, from such an image, at heights up to 16.
TEST_P(MediaBlock, ReadsFromAnImageCreatedFromABuffer) {
  ISG_REQUIRE_ENV();
  if (!mediaBuilt()) GTEST_SKIP() << "no media block io on this device (counted as not built)";
  const unsigned S = GetParam();
  const ImageFormat f = kMediaFormats[3];  // R_UINT32: dword texels, every element size defined
  if (!formatSupported(f)) {
    tally().skipped.insert(std::string("image format ") + f.name);
    GTEST_SKIP() << "no R_UINT32 images";
  }
  constexpr uint32_t kPitch = 128, kRows = 40;  // 64 bytes of image in a 128-byte pitch
  seedFor("media from buffer|" + std::to_string(S));
  isgref::RawImage img = randomImage(f, 64, kRows);
  std::vector<uint8_t> backing(size_t(kPitch) * kRows, 0xEE);
  for (uint32_t y = 0; y < kRows; ++y)
    std::memcpy(&backing[size_t(y) * kPitch], &img.bytes[size_t(y) * 64], 64);
  Mem buf, im;
  buf.m = makeBuffer(backing.size(), backing.data());
  cl_image_format fmt{f.order, f.type};
  cl_image_desc desc{};
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = img.width;
  desc.image_height = img.height;
  desc.image_row_pitch = kPitch;
  desc.buffer = buf.m;
  cl_int err = CL_SUCCESS;
  im.m = clCreateImage(isgtest::env().context, CL_MEM_READ_ONLY, &fmt, &desc, nullptr, &err);
  if (!im.m) {
    tally().notBuilt["media block reads of images created from buffers"] =
        "the device cannot create a 2D image from a buffer (clCreateImage: " +
        std::to_string(err) + ")";
    GTEST_SKIP() << "clCreateImage from a buffer failed with " << err << " (counted as not built)";
  }
  size_t outside = 0;
  const Launch l = mediaLaunch(S, shapesFor(S, false)[0]);
  const uint32_t sgs = l.g.numSubGroups() * l.groups;
  std::vector<int32_t> rc(2 * sgs);
  for (uint32_t sg = 0; sg < sgs; ++sg) {
    rc[2 * sg] = kMediaReadPlaces[sg % std::size(kMediaReadPlaces)][0];
    rc[2 * sg + 1] = kMediaReadPlaces[sg % std::size(kMediaReadPlaces)][1] % int32_t(kRows);
  }
  Mem bc;
  bc.m = makeBuffer(rc.size() * 4, rc.data());
  for (unsigned eb : kMediaElementSizes) {
    Kernel k;
    ASSERT_NO_FATAL_FAILURE(mediaKernelFor(S, mediaName("read", eb, S), k));
    std::vector<uint8_t> out(mediaCases(eb).size() * l.items() * kMediaBytesPerItem, 0);
    Mem bo;
    bo.m = makeBuffer(out.size(), out.data());
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, im.m, bc.m, bo.m));
    ASSERT_NO_FATAL_FAILURE(run(k.k, l, 3, S, 0));
    ASSERT_NO_FATAL_FAILURE(readBuffer(bo.m, out.data(), out.size()));
    outside += checkMediaReads(S, eb, l, rc, img, ImageFormat{"R_UINT32 from a buffer", f.order,
                                                              f.type, 1, 4, false},
                               out, isg::table::kMediaMaxHeightImageFromBuffer, "from-buffer");
  }
  EXPECT_GT(outside, 0u);
}

// The spec's own examples and notes, literally. Example 2: "Reading a 16x2 word region from an
// image" in a sub-group of 8 with intel_sub_group_media_block_read_us4: "Each work-item processes
// a data item strided by 8 words", so member i holds words i, 8+i, 16+i, 24+i of the region.
// Example 1: a 1x16 dword region (one dword column) in a sub-group of 16: member i holds row i.
// Note 1: "for a boundary word B0B1B2B3, to replicate the left boundary byte texel, the out of
// bound dwords have the format of B0B0B0B0, and that for right boundary is B3B3B3B3".
// Note 2 (word texels): B0B1B0B1 and B2B3B2B3.
TEST(MediaSpecExamples, ExamplesAndEdgeNotesAsWritten) {
  ISG_REQUIRE_ENV();
  if (!mediaBuilt()) GTEST_SKIP() << "no media block io on this device (counted as not built)";
  const char* src =
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void ex2(read_only image2d_t img, global ushort4* o) {\n"
      "  o[get_global_id(0)] = intel_sub_group_media_block_read_us4((int2)(0, 0), 16, 2, img); }\n"
      "__attribute__((intel_reqd_sub_group_size(16)))\n"
      "kernel void ex1(read_only image2d_t img, global uint* o) {\n"
      "  o[get_global_id(0)] = intel_sub_group_media_block_read_ui((int2)(4, 0), 1, 16, img); }\n"
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void edges(read_only image2d_t img, global uint* o) {\n"
      "  uint2 v = intel_sub_group_media_block_read_ui2((int2)(-4, 0), 2, 8, img);\n"
      "  o[2 * get_global_id(0)] = v.s0; o[2 * get_global_id(0) + 1] = v.s1; }\n";
  std::string log;
  cl_int status = CL_SUCCESS;
  cl_program p = isgtest::buildProgram(src, isgtest::extraBuildOptions(), &log, &status);
  ASSERT_NE(p, nullptr) << log;
  auto runOne = [&](const char* name, const ImageFormat& f, const isgref::RawImage& img,
                    size_t items, size_t bytes) {
    cl_int err = CL_SUCCESS;
    Kernel k;
    k.k = clCreateKernel(p, name, &err);
    EXPECT_EQ(err, CL_SUCCESS) << name;
    Mem im, out;
    im.m = makeImage(f, img);
    out.m = makeBuffer(bytes, nullptr);
    isgtest::setKernelArgs(k.k, im.m, out.m);
    EXPECT_EQ(clEnqueueNDRangeKernel(isgtest::env().queue, k.k, 1, nullptr, &items, &items, 0,
                                     nullptr, nullptr),
              CL_SUCCESS);
    std::vector<uint8_t> got(bytes);
    readBuffer(out.m, got.data(), bytes);
    return got;
  };
  const ImageFormat r16{"R_UINT16", CL_R, CL_UNSIGNED_INT16, 1, 2, false};
  const ImageFormat r32{"R_UINT32", CL_R, CL_UNSIGNED_INT32, 1, 4, false};
  const ImageFormat r8{"R_UINT8", CL_R, CL_UNSIGNED_INT8, 1, 1, false};
  {  // Example 2: words numbered 0x0..0x1F in row-major order
    isgref::RawImage img;
    img.elementBytes = 2;
    img.width = 16;
    img.height = 2;
    img.bytes.resize(64);
    for (uint16_t w = 0; w < 32; ++w) std::memcpy(&img.bytes[2 * w], &w, 2);
    const auto got = runOne("ex2", r16, img, 8, 8 * 8);
    for (unsigned i = 0; i < 8; ++i)
      for (unsigned k = 0; k < 4; ++k) {
        uint16_t w = 0;
        std::memcpy(&w, &got[(i * 4 + k) * 2], 2);
        EXPECT_EQ(w, 8 * k + i) << "member " << i << " component " << k;
      }
  }
  {  // Example 1: a column of 16 dwords at x = 4 bytes (dword column 1)
    isgref::RawImage img;
    img.elementBytes = 4;
    img.width = 2;
    img.height = 16;
    img.bytes.resize(2 * 16 * 4);
    for (uint32_t e = 0; e < 32; ++e) {
      const uint32_t v = 1000 + e;
      std::memcpy(&img.bytes[4 * e], &v, 4);
    }
    const auto got = runOne("ex1", r32, img, 16, 16 * 4);
    for (uint32_t i = 0; i < 16; ++i) {
      uint32_t v = 0;
      std::memcpy(&v, &got[4 * i], 4);
      EXPECT_EQ(v, 1000 + 2 * i + 1) << "member " << i;
    }
  }
  // Notes 1 and 2: a 2-dword x 8-row region one dword left of an image whose boundary dword is
  // B0B1B2B3 = 0x10 0x11 0x12 0x13 (and right edge at 4 bytes wide, so dword 1 is past it).
  for (const ImageFormat* f : {&r8, &r16}) {
    isgref::RawImage img;
    img.elementBytes = f->channelBytes;
    img.width = 4 / f->channelBytes;
    img.height = 8;
    img.bytes.resize(4 * 8);
    for (size_t b = 0; b < img.bytes.size(); ++b) img.bytes[b] = uint8_t(0x10 + b % 4);
    const auto got = runOne("edges", *f, img, 8, 8 * 8);
    // Region element e = k*8 + i: row e / 2, column e % 2 (-4 or 0 bytes): member i's component
    // 0 is at column i % 2, component 1 too (8 is even).
    const uint32_t left = f->channelBytes == 1 ? 0x10101010u : 0x11101110u;  // B0B0B0B0 / B0B1B0B1
    const uint32_t inside = 0x13121110u;                                    // B0B1B2B3
    for (unsigned i = 0; i < 8; ++i)
      for (unsigned k = 0; k < 2; ++k) {
        uint32_t v = 0;
        std::memcpy(&v, &got[(2 * i + k) * 4], 4);
        EXPECT_EQ(v, i % 2 == 0 ? left : inside) << f->name << " member " << i << " k " << k;
      }
  }
  clReleaseProgram(p);
}

INSTANTIATE_TEST_SUITE_P(Builtins, MediaBlock, ::testing::ValuesIn(kSizes),
                         [](const auto& info) { return "S" + std::to_string(info.param); });

// The native driver still lacks every overload kIntelCpuGaps lists (once it has one, the gap
// goes from the list and the suite checks the overload there too); through the layer, every one
// of them builds.
TEST(NativeGaps, TheReferenceDriverLacksThemAndTheLayerHasThem) {
  ISG_REQUIRE_ENV();
  const bool images = imagesGap().empty();
  for (const NativeGap& g : kIntelCpuGaps) {
    SCOPED_TRACE(std::string(g.builtin) + " " + g.form);
    const std::string name = g.builtin;
    if (isgtest::spirvMode() && name.size() > 5 && name.compare(name.size() - 5, 5, "_us16") == 0)
      continue;  // llvm-spirv-15 cannot write them (the suite's rows say so)
    std::string log;
    cl_int status = CL_SUCCESS;
    cl_program p = isgtest::buildProgram(
        std::string("#pragma OPENCL EXTENSION cl_intel_subgroups_short : enable\n") + g.probe,
        isgtest::extraBuildOptions(), &log, &status);
    if (nativeRun()) {
      EXPECT_EQ(p, nullptr) << g.builtin << " now builds on the native driver: remove it from "
                            << "kIntelCpuGaps";
      EXPECT_NE(log.find(g.builtin), std::string::npos) << log;
    } else if (images || std::string(g.form) != "image") {
      EXPECT_NE(p, nullptr) << g.builtin << ": " << log;
    }
    if (p) clReleaseProgram(p);
  }
}

// A program of one kernel `k`, built with the suite's options.
struct OneKernel : Kernel {
  cl_program p = nullptr;
  ~OneKernel() {
    if (k) clReleaseKernel(k);
    k = nullptr;
    if (p) clReleaseProgram(p);
  }
};
void buildOneKernel(const char* src, OneKernel* out) {
  std::string log;
  out->p = isgtest::buildProgram(src, isgtest::extraBuildOptions(), &log);
  ASSERT_NE(out->p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  out->k = clCreateKernel(out->p, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
}

// How work-groups are split into sub-groups, said explicitly for both sides of the native
// comparison (shapesFor): through the layer, runs of S consecutive linear local ids; natively
// on Intel's CPU runtime, each row of dimension 0 on its own (ceil(rows' width / S) sub-groups
// per row). The spec leaves the mapping to the implementation; both agree for 1-D work-groups
// and rows whose width is a multiple of S.
TEST(NativeMapping, SubGroupsOfMultiDimensionalWorkGroups) {
  ISG_REQUIRE_ENV();
  const char* src =
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void k(global uint4* o) {\n"
      "  uint l = get_local_id(0) + get_local_size(0) * (get_local_id(1) + get_local_size(1) * "
      "get_local_id(2));\n"
      "  o[l] = (uint4)(get_sub_group_size(), get_num_sub_groups(), get_sub_group_id(), "
      "get_sub_group_local_id()); }\n";
  OneKernel k;
  ASSERT_NO_FATAL_FAILURE(buildOneKernel(src, &k));
  const uint32_t S = 8;
  const uint32_t shapes[][3] = {{5, 7, 1}, {4, 4, 1}, {3, 4, 5}, {16, 2, 1}, {8, 2, 2}, {21, 1, 1},
                                {10, 3, 1}};
  for (const auto& shape : shapes) {
    const uint32_t lx = shape[0], ly = shape[1], lz = shape[2], n = lx * ly * lz;
    SCOPED_TRACE(std::to_string(lx) + "x" + std::to_string(ly) + "x" + std::to_string(lz));
    Mem out;
    out.m = makeBuffer(n * 16, nullptr);
    ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.m));
    size_t local[3] = {lx, ly, lz};
    ISG_CL_CHECK(clEnqueueNDRangeKernel(isgtest::env().queue, k.k, 3, nullptr, local, local, 0,
                                        nullptr, nullptr));
    std::vector<uint32_t> got(4 * n);
    ASSERT_NO_FATAL_FAILURE(readBuffer(out.m, got.data(), got.size() * 4));
    WorkGroup g;
    g.S = S;
    g.local[0] = lx;
    g.local[1] = ly;
    g.local[2] = lz;
    const uint32_t perRow = (lx + S - 1) / S;
    for (uint32_t l = 0; l < n; ++l) {
      uint32_t want[4];
      if (nativeRun()) {
        const uint32_t x = l % lx, row = l / lx;
        want[0] = std::min(S, lx - x / S * S);
        want[1] = ly * lz * perRow;
        want[2] = row * perRow + x / S;
        want[3] = x % S;
      } else {
        want[0] = g.subGroupSize(l);
        want[1] = g.numSubGroups();
        want[2] = g.subGroupId(l);
        want[3] = g.subGroupLocalId(l);
      }
      for (int c = 0; c < 4; ++c)
        ASSERT_EQ(got[4 * l + c], want[c]) << "work-item " << l << " value " << c
                                           << " (size, num, id, local id)";
    }
  }
}

// The khr strategy on a driver with per-row sub-groups cannot give a 5 x 7 work-group the
// layer's sub-groups (runs of 8 linear ids cross rows, the driver's shuffles do not): the layer
// refuses such launches of exchanging kernels with CL_INVALID_WORK_GROUP_SIZE and a log line
// rather than compute wrong results. Everywhere else the launch runs.
TEST(KhrRows, LaunchesThatSplitTheDriversSubGroupsAreRefused) {
  ISG_REQUIRE_ENV();
  const char* strategy = std::getenv("ISG_STRATEGY");
  const bool refused = rowShapes() && !nativeRun() && strategy && std::string(strategy) == "khr";
  const char* src =
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void k(global uint* o) {\n"
      "  uint l = get_local_id(0) + get_local_size(0) * get_local_id(1);\n"
      "  o[l] = intel_sub_group_shuffle(l, 0u); }\n";
  OneKernel k;
  ASSERT_NO_FATAL_FAILURE(buildOneKernel(src, &k));
  Mem out;
  out.m = makeBuffer(35 * 4, nullptr);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.m));
  size_t shape[2] = {5, 7};
  cl_int err = clEnqueueNDRangeKernel(isgtest::env().queue, k.k, 2, nullptr, shape, shape, 0, nullptr,
                               nullptr);
  EXPECT_EQ(err, refused ? CL_INVALID_WORK_GROUP_SIZE : CL_SUCCESS);
  clFinish(isgtest::env().queue);
  size_t rows[2] = {32, 2};  // rows of a multiple of the native size run everywhere
  Mem wide;
  wide.m = makeBuffer(64 * 4, nullptr);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, wide.m));
  ISG_CL_CHECK(clEnqueueNDRangeKernel(isgtest::env().queue, k.k, 2, nullptr, rows, rows, 0,
                                      nullptr, nullptr));
  std::vector<uint32_t> got(64);
  ASSERT_NO_FATAL_FAILURE(readBuffer(wide.m, got.data(), got.size() * 4));
  for (uint32_t l = 0; l < 64; ++l) EXPECT_EQ(got[l], l / 8 * 8) << l;
}

// A kernel whose only collectives are work-group functions moves values by local id alone:
// however the driver cuts rows into sub-groups, its 5 x 7 launch runs. (The layer refused it on
// the khr strategy over a driver with per-row sub-groups and without the functions, counting
// their scratch as an exchange; Intel's runtime has them, so there the layer passes them on and
// the rule is checked by the rewriter's tests, isg::exchangesWithinSubGroups.)
TEST(KhrRows, WorkGroupCollectivesRunInEveryShape) {
  ISG_REQUIRE_ENV();
  const std::string extra = isgtest::extraBuildOptions();
  if (extra.find("-cl-std=CL1.") != std::string::npos)
    GTEST_SKIP() << "work-group functions are OpenCL C 2.0's; this run builds with '" << extra << "'";
  const char* src =
      "kernel void k(global uint* o) {\n"
      "  uint l = get_local_id(0) + get_local_size(0) * get_local_id(1);\n"
      "  o[l] = work_group_reduce_add(l) + work_group_broadcast(l, 3, 2); }\n";
  std::string log;
  OneKernel k;
  k.p = isgtest::buildProgram(src, extra.find("-cl-std=") == std::string::npos ? "-cl-std=CL2.0 " + extra : extra, &log);
  ASSERT_NE(k.p, nullptr) << log;
  cl_int err = CL_SUCCESS;
  k.k = clCreateKernel(k.p, "k", &err);
  ASSERT_EQ(err, CL_SUCCESS);
  Mem out;
  out.m = makeBuffer(35 * 4, nullptr);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, out.m));
  size_t shape[2] = {5, 7};
  ISG_CL_CHECK(clEnqueueNDRangeKernel(isgtest::env().queue, k.k, 2, nullptr, shape, shape, 0,
                                      nullptr, nullptr));
  std::vector<uint32_t> got(35);
  ASSERT_NO_FATAL_FAILURE(readBuffer(out.m, got.data(), got.size() * 4));
  // The sum of local ids 0..34, and the id of work-item (3, 2): 3 + 5 * 2.
  for (uint32_t l = 0; l < 35; ++l) EXPECT_EQ(got[l], 595u + 13u) << l;
}

// What Intel's CPU runtime does at a right edge (nativeSkipsImageEdges): a block read of a 4-byte
// element image that crosses it continues into the next row instead of repeating the edge
// element. Once the driver clamps, this fails: check the edges natively too, and update
// docs/compare.md.
TEST(NativeImageEdges, ReadsPastTheRightEdgeContinueIntoTheNextRow) {
  ISG_REQUIRE_ENV();
  if (!nativeRun()) {
    SUCCEED() << "through the layer the edges are checked by BlockImage";
    return;
  }
  const char* src =
      "__attribute__((intel_reqd_sub_group_size(8)))\n"
      "kernel void k(read_only image2d_t i, global uint* o) {\n"
      "  o[get_global_id(0)] = intel_sub_group_block_read(i, (int2)(60, 0)); }\n";
  OneKernel k;
  ASSERT_NO_FATAL_FAILURE(buildOneKernel(src, &k));
  const ImageFormat rgba8{"RGBA_UINT8", CL_RGBA, CL_UNSIGNED_INT8, 4, 1, false};
  isgref::RawImage img;
  img.elementBytes = 4;
  img.width = 22;
  img.height = 4;
  img.bytes.resize(size_t(img.width) * img.height * 4);
  for (uint32_t e = 0; e < img.width * img.height; ++e) std::memcpy(&img.bytes[e * 4], &e, 4);
  Mem im, out;
  im.m = makeImage(rgba8, img);
  out.m = makeBuffer(8 * 4, nullptr);
  ASSERT_NO_FATAL_FAILURE(isgtest::setKernelArgs(k.k, im.m, out.m));
  size_t global = 8;
  ISG_CL_CHECK(clEnqueueNDRangeKernel(isgtest::env().queue, k.k, 1, nullptr, &global, &global, 0,
                                      nullptr, nullptr));
  std::vector<uint32_t> got(8);
  ASSERT_NO_FATAL_FAILURE(readBuffer(out.m, got.data(), 32));
  // Byte 60 is element 15; elements 15..21 are row 0, then 22 is row 1's first element, where
  // the spec wants 21 (the edge) repeated.
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(got[i], 15 + i) << i;
}

// Whether this run's test filter keeps the family's test at S: a program holds the kernels of
// the families that run (Intel's compiler takes a minute over the functions of the active
// work-items, which most of the runs on it leave out).
bool familyRuns(const std::string& family, unsigned S) {
  const std::string name = "MatchesReferenceModel/" + family + "_S" + std::to_string(S);
  const ::testing::UnitTest& unit = *::testing::UnitTest::GetInstance();
  for (int i = 0; i < unit.total_test_suite_count(); ++i) {
    const ::testing::TestSuite& suite = *unit.GetTestSuite(i);
    if (std::string(suite.name()) != "Builtins/Family") continue;
    for (int j = 0; j < suite.total_test_count(); ++j)
      if (suite.GetTestInfo(j)->name() == name) return suite.GetTestInfo(j)->should_run();
  }
  return true;
}

std::string allKernelsSource(unsigned S, bool optimised) {
  std::string src;
  for (const std::string& f : familiesInTable()) {
    if (!familyRuns(f, S)) continue;
    const auto chunks = kernelChunksOf(f, S);
    for (size_t c = 0; c < chunks.size(); ++c)
      if (optimisedChunk(chunks[c]) == optimised)
        src += familyKernelSource(familyKernelName(f, S, c), f, S, chunks[c]);
  }
  if (optimised) return src;
  src += blockBufferSource(S);
  if (imagesGap().empty()) src += blockImageSource(S);
  return src;
}

}  // namespace
