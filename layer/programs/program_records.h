// SPDX-License-Identifier: MIT
// What the layer remembers of the application's programs it took over (ProgramRecord), their
// registry, and how builds and compiles make records: from a build plan and its rewrite,
// installed in place of the previous build's, with the callback that gives the application its
// own handle.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <string>
#include <vector>

#include "core/object_registry.h"
#include "isg/rewriter.h"
#include "programs/build_plan.h"

namespace isg {

// What a program's launch variants are built from (launch/launch_variants.h, above the
// programs, defines it): made by the build of a program from source, because only the build
// sees the headers its rewrite read; null where its kernels cannot have variants
// (ISG_LAUNCH_VARIANTS, the strategy, a compiled object, a result not of source).
class ProgramVariants;
std::shared_ptr<ProgramVariants> programVariantsFor(cl_program app, const RewriteInput& input,
                                                    const RewriteResult& rewritten);

// The manifest of kernel `name` among `kernels`; nullptr where there is none.
inline const KernelManifest* findManifest(const std::vector<KernelManifest>& kernels,
                                          const std::string& name) {
  for (const KernelManifest& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

// An application program the layer has taken over at build, compile or link time.
struct ProgramRecord {
  enum class Kind {
    Shadowed,       // `shadow` was built from the rewritten source; the app's program never was
    RewriteFailed,  // the rewriter said Error: the build failed before reaching the driver
    Linked,         // the app's handle is the driver's linked program of rewritten objects
    FromBinary,     // the app's program was created from a rewritten program's binaries
                    // (binary_envelope.h): the driver's program already holds rewritten code
    FromIL          // created from SPIR-V and not rewritten (yet): `il` holds the module
  };
  Kind kind = Kind::Shadowed;
  cl_program app = nullptr;
  cl_program shadow = nullptr;  // Shadowed only; the layer holds one reference
  RewriteResult rewrite;        // Linked: only `kernels` (merged from the inputs); FromBinary:
                                // what the binary carried (no line map, log or headers)
  std::string appOptions;       // as the application passed them
  // Programs from SPIR-V: the application's module (CL_PROGRAM_IL), kept across rebuilds.
  // `ilPlaceholder`: the driver has no IL, so the application's handle is an empty source
  // program of the layer's and every answer about the module comes from here.
  std::shared_ptr<const std::string> il;
  bool ilPlaceholder = false;
  unsigned defaultSubGroupSize = 16;
  // Whether a launch of its kernels with non-uniform work-groups may run in parts
  // (work_group_parts.cpp): worked out at the first such launch the driver refuses, from the
  // program's options and text, which a record never changes; read and set atomically.
  struct PartsVerdict {
    bool allowed = true;  // the spec allows non-uniform work-groups for the program
    std::string why;      // why the launch cannot run in parts, "" when it can
  };
  mutable std::shared_ptr<const PartsVerdict> partsVerdict;
  // What its kernels' launch variants are built from (launch_variants.h); null: none.
  std::shared_ptr<ProgramVariants> variants;

  // Where kernels, binaries and build state really live.
  cl_program driverProgram() const { return shadow ? shadow : app; }
  const KernelManifest* findKernel(const std::string& name) const {
    return findManifest(rewrite.kernels, name);
  }
};

// Never destroyed: a record's driver objects must not be released from static destructors,
// when the driver may already be gone.
ObjectRegistry<cl_program, ProgramRecord>& programRegistry();

// NVIDIA's compiler option that caps a kernel's registers (launch/register_cap.h).
constexpr const char* kCapOption = "-cl-nv-maxrregcount";
// Whether kernels of `program` may need the register cap (launch/register_cap.h): built for an
// NVIDIA device whose driver takes NVIDIA's compiler options, without the application's own
// register limit. A program binary keeps its source for that (program_binaries.cpp).
bool mayCapRegisters(const ProgramRecord& program);

// clReleaseProgram for the layer's own reference to an application program (a kernel's
// holdsAppProgram): the shadow goes with the last reference, as at the application's release.
cl_int releaseProgram(cl_program program);

// Whether kernels the application made from `program` remain: a build or compile of it is then
// CL_INVALID_OPERATION. Answered by the kernels' registry (launch/kernels.cpp), which sits above
// the programs and reads their records.
bool programHasKernels(cl_program program);

// Releases the layer's reference to a record's shadow program.
void releaseShadow(const std::shared_ptr<ProgramRecord>& record);

// Packed copies (HiddenArg::Kind::PackedLaunch): kernels of the driver's program, named as
// their kernel plus kPackedKernelSuffix, that the application never sees.
bool hasPackedCopies(const ProgramRecord& record);
// Whether `name` is a packed copy's in `record`'s driver program.
bool isPackedCopy(const ProgramRecord& record, const std::string& name);
// The kernels of the driver's program without them: CL_PROGRAM_KERNEL_NAMES (separated by ';')
// in *names and how many in *count.
cl_int visibleKernelNames(const ProgramRecord& record, std::string* names, size_t* count);

// A source program of the driver's in the context of `like` (shadows, rewritten headers).
cl_program createDriverProgram(cl_program like, const std::string& text, cl_int* err);
// The same in `context` (the register cap's and the launch variants' builds).
cl_program createDriverProgramIn(cl_context context, const std::string& text, cl_int* err);

// Driver programs the layer makes for one call (the header programs of a compile), released
// when the call is done: the driver keeps what it needs of them.
class CallDriverPrograms {
 public:
  CallDriverPrograms() = default;
  CallDriverPrograms(const CallDriverPrograms&) = delete;
  CallDriverPrograms& operator=(const CallDriverPrograms&) = delete;
  ~CallDriverPrograms();
  // createDriverProgram's program, kept until this object goes; nullptr with *err.
  cl_program create(cl_program like, const std::string& text, cl_int* err);

 private:
  std::vector<cl_program> programs_;
};

using ProgramCallback = void(CL_CALLBACK*)(cl_program, void*);

// A record of `app` built as `plan` says, with `rewrite`'s result; `appOptions` answers
// CL_PROGRAM_BUILD_OPTIONS.
std::shared_ptr<ProgramRecord> recordFor(cl_program app, const BuildPlan& plan,
                                         const RewriteResult& rewrite,
                                         const std::string& appOptions);

// A program the driver has just created for the application (nullptr: none), before the layer
// records anything of it: the handle table learns it, and records of a program the driver freed
// at that address go. The layer drops a record at the application's last clReleaseProgram only
// when the driver's count says it is the last, and a program whose kernels are made from it (one
// from binaries) is also held by those kernels and, in PoCL, by launches that finished: the
// driver frees it later, unseen. A new program there must not take the freed one's kernels'
// manifests.
cl_program newAppProgram(cl_program program);

// Installs the record for the new build (nullptr: none); the previous build's shadow goes
// (rebuilds replace it).
void installRecord(cl_program app, std::shared_ptr<ProgramRecord> record);

// The driver calls back with the shadow; the application must see its own handle. Pass
// notifyWithAppProgram with a `new BuildNotification`, which the callback owns once the driver
// has accepted it: drivers call it exactly once per started build.
struct BuildNotification {
  ProgramCallback pfn;
  void* userData;
  cl_program app;
};
void CL_CALLBACK notifyWithAppProgram(cl_program, void* data);

}  // namespace isg
