// SPDX-License-Identifier: MIT
// Launch variants (issue 52; docs/design.md, "Launch variants"). A kernel that declares no
// reqd_work_group_size must keep the code for partial sub-groups (a work-group of any size may
// end in one), though nearly every launch has whole ones. At a launch whose work-groups are all
// one size, the layer runs the kernel of a variant of its program instead: the application's
// source rewritten as if every such kernel declared that size (RewriteInput::
// assumedWorkGroupSize), so every sub-group is whole and the driver knows the size. One build
// per program, device and size, in the background (ISG_LAUNCH_VARIANTS): launches run the
// general kernel until it is ready, and whenever a variant cannot run (its build or its launch
// failed, an argument the driver refuses): a variant changes speed, never a result. Except for
// kernels whose build log says their results may differ from Intel's where flow depends on
// work-item ids (KernelManifest::shapeDependentResult): knowing the size may settle that, so
// such kernels have variants on every strategy but native (unless ISG_LAUNCH_VARIANTS=off), and
// a launch waits for its size's build.
//
// What a variant needs of the application's kernel object it copies at each launch: the
// argument values (KernelRecord::ArgStore). Kernels whose launches need more (block-IO image
// stand-ins, image facts, a packed launch, clSetKernelExecInfo) keep the general kernel; the
// PTX path's launch shape is uniform at every launch a variant serves, and set so when its kernel
// is made.
#pragma once

#include <CL/cl.h>

#include <array>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "isg/rewriter.h"

namespace isg {

struct ProgramRecord;
struct KernelRecord;

using WorkGroupShape = std::array<size_t, 3>;

// One variant's driver program, built for one device; released with the last kernel using it.
struct VariantProgram {
  cl_program program = nullptr;
  std::vector<KernelManifest> kernels;
  ~VariantProgram();
};

// One variant: its work-group size on one device.
using VariantKey = std::pair<WorkGroupShape, cl_device_id>;

// The variants of one application program: what to rewrite, and each size's build.
class ProgramVariants : public std::enable_shared_from_this<ProgramVariants> {
 public:
  // Made by programVariantsFor (programs/program_records.h).
  // `diskFiles`: the headers the program's rewrite read from disk, with the text it saw.
  // `forSpeed`: every kernel that can runs variants, else only those of shapeDependentResult.
  // `ptxOptions`: the program was built by the layer's front end for NVIDIA, and so is each
  // variant (compileForNvidia), its PTX built with these options; else the driver compiles the
  // variant's source.
  ProgramVariants(const RewriteInput& input, std::vector<SourceFile> diskFiles, cl_context context,
                  bool forSpeed, std::optional<std::string> ptxOptions = std::nullopt);
  ~ProgramVariants();
  ProgramVariants(const ProgramVariants&) = delete;
  ProgramVariants& operator=(const ProgramVariants&) = delete;

  // The variant for `shape` on `device` where it is built; else null, and its build started (in
  // the background, or now when `wait`) unless it failed before.
  std::shared_ptr<const VariantProgram> get(const WorkGroupShape& shape, cl_device_id device,
                                            bool wait);

  bool forSpeed() const { return forSpeed_; }

  // The builder's (launch_variants.cpp): builds and records one variant.
  void build(const WorkGroupShape& shape, cl_device_id device);

 private:
  struct Entry {
    enum class State { Building, Ready, Failed } state = State::Building;
    std::shared_ptr<const VariantProgram> built;
  };
  std::shared_ptr<const VariantProgram> compile(const WorkGroupShape& shape, cl_device_id device);

  const RewriteInput input_;
  // A variant must be the same program: one whose headers on disk changed since is not built.
  const std::vector<SourceFile> diskFiles_;
  cl_context context_;  // retained
  const bool forSpeed_;
  const std::optional<std::string> ptxOptions_;
  std::mutex mutex_;
  std::condition_variable done_;
  std::map<VariantKey, Entry> entries_;
};

// Whether kernels described by `manifest` run variants (what their launches set, and why their
// program has variants: `forSpeed`, as ProgramVariants::forSpeed).
bool variantsCanServe(const KernelManifest& manifest, bool forSpeed);

// A kernel record's variants, under its enqueueMutex.
struct KernelVariants {
  std::shared_ptr<ProgramVariants> program;  // null: the kernel runs no variant
  struct One {
    WorkGroupShape shape{};
    cl_device_id device = nullptr;
    cl_kernel kernel = nullptr;  // owned
    const KernelManifest* manifest = nullptr;
    std::shared_ptr<const VariantProgram> built;
  };
  std::vector<One> kernels;
  std::vector<VariantKey> refused;  // variants that cannot run
  void release();
};

// Under record.enqueueMutex: the variant of `record`'s kernel for work-groups of `shape` on
// `device`, with the application's arguments set on it; null where none can run now.
const KernelVariants::One* variantFor(KernelRecord& record, const WorkGroupShape& shape,
                                      cl_device_id device);
// Under record.enqueueMutex: the variant for `shape` failed its launch with `err`; the general
// kernel serves that size from now on.
void refuseVariant(KernelRecord& record, const WorkGroupShape& shape, cl_device_id device,
                   cl_int err);

}  // namespace isg
