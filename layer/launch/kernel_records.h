// SPDX-License-Identifier: MIT
// Kernels of programs the layer took over (KernelRecord): their manifests decide the sub-group
// size, the hidden arguments and what the application may see of the argument list; each launch
// feature keeps its state in a part of the record. The kernel registry, and its lock-free index
// of what the per-call entries (clSetKernelArg, the enqueues) need, kept in step with the map
// under the same mutex.
#pragma once

#include <CL/cl.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "capture/enqueue_capture.h"
#include "core/arg_values.h"
#include "core/handle_index.h"
#include "core/handle_kinds.h"
#include "core/immortal.h"
#include "core/layer_api.h"
#include "core/object_registry.h"
#include "launch/launch_variants.h"
#include "memory/image_views.h"
#include "programs/program_records.h"

namespace isg {

// A kernel created from a program the layer took over. Each launch feature keeps its state in
// a part of its own; the lock-free parts (KernelSummary) are set before the record is shared.
struct KernelRecord {
  cl_program appProgram = nullptr;
  // The application's references (clRetainKernel, clReleaseKernel), under releaseMutex: the
  // driver's CL_KERNEL_REFERENCE_COUNT also counts its own (PoCL's commands hold a kernel a
  // while after they complete), which would keep the record, and the program's "has kernels",
  // after the application's last release.
  cl_uint appReferences = 1;
  bool holdsAppProgram =
      false;  // the layer retained appProgram (the driver kernel holds the shadow)
  KernelManifest manifest;
  // Setting the hidden arguments and enqueueing must not interleave with another enqueue of
  // the same kernel.
  std::mutex enqueueMutex;

  // NVIDIA (register_cap.h): the argument values the application set, so that an enqueue the
  // driver refuses for resources can run the same kernel built with a register cap instead.
  // The values are written by clSetKernelArg without a lock: the spec leaves concurrent
  // clSetKernelArg, clCloneKernel and launches of one kernel object to the application to
  // serialise, and NVIDIA's own clSetKernelArg costs about as much as one uncontended mutex.
  using ArgStore = isg::ArgStore;
  struct RegisterCap {
    ArgStore::Ptr args;  // set before the record is shared; null: no copies kept
    // The rest is guarded by enqueueMutex.
    cl_program program = nullptr;  // owned
    cl_kernel kernel = nullptr;    // owned
    size_t builtFor = 0;           // the work-group size `kernel` was built for
    size_t refusedFrom = 0;        // the smallest work-group the driver refused; 0: none yet
  } cap;

  // The packed copy of its program's driver program (HiddenArg::Kind::PackedLaunch), made at
  // its first packed launch and guarded by enqueueMutex; `unavailable` once it cannot run.
  struct PackedCopy {
    cl_kernel kernel = nullptr;  // owned
    bool unavailable = false;
  } packed;

  // khr on a driver with per-row sub-groups (DeviceProfile::khrRowSubGroups), for kernels that
  // exchange data: the native sub-group size every multi-dimensional work-group's rows must be
  // a multiple of; 0: no such check.
  unsigned rowMultiple = 0;

  // Launch variants (launch_variants.h), guarded by enqueueMutex; `program` is set before the
  // record is shared. clSetKernelExecInfo's settings are the application kernel's alone: a
  // kernel given any keeps the general kernel.
  KernelVariants variants;
  std::atomic<bool> execInfoSet{false};

  // Block and media IO images (image_views.h), guarded by enqueueMutex.
  struct Images {
    // Arguments (manifest.blockImageArgs) whose image has a format the library cannot move
    // bit-exactly: the enqueue gives them raw-bits views, kept in `views` between launches.
    struct Inexact {
      cl_mem image = nullptr;
      std::string format;
    };
    std::map<cl_uint, Inexact> inexact;
    std::map<cl_uint, cl_mem> bound;  // every block IO image argument, as last set
    std::map<cl_uint, RawImageView> views;
  } images;
};

// The kernel's first hidden argument of `kind`; nullptr where it has none.
inline const HiddenArg* hiddenArgOf(const KernelManifest& m, HiddenArg::Kind kind) {
  for (const HiddenArg& h : m.hiddenArgs)
    if (h.kind == kind) return &h;
  return nullptr;
}
// Whether an enqueue sets hidden arguments of the kernel (the scratch, texel buffers); the
// launch shape is set when the kernel is created and around non-uniform launches only, image
// facts with the image (clSetKernelArg) and around its stand-in.
inline bool setsHiddenArgs(const KernelManifest& m) {
  return hiddenArgOf(m, HiddenArg::Kind::LocalScratch) || hiddenArgOf(m, HiddenArg::Kind::RawImage) ||
         hiddenArgOf(m, HiddenArg::Kind::PackedLaunch);
}
inline const HiddenArg* launchShapeArg(const KernelManifest& m) {
  return hiddenArgOf(m, HiddenArg::Kind::LaunchShape);
}

// What clSetKernelArg and the enqueues need of a kernel record, readable without the registry's
// mutex or a reference count: a record pointer could be freed by a concurrent release. Two
// words, as the index keeps them, decoded where read: the per-call path passes them on in two
// registers.
struct KernelSummary {
  uint64_t bits = 0;
  // KernelRecord::cap.args, where clSetKernelArg keeps copies; null when it keeps none. Valid
  // while the kernel is, as the application's use of the kernel object is.
  KernelRecord::ArgStore* argStore = nullptr;

  // plainArgs() takes the low 32 bits, so that clSetKernelArg's path compares the index with
  // the summary's first half as it was loaded, without a shift.
  enum : unsigned {
    kHasHiddenArgs = 32,  // the enqueue must set them (setsHiddenArgs)
    kChecksImages,        // clSetKernelArg checks image formats (KernelRecord::images)
    kChecksRows,          // the enqueue checks the work-group shape (KernelRecord::rowMultiple)
    kShapesLaunch,        // a non-uniform launch is rounded up (HiddenArg::Kind::LaunchShape)
    kVariants,            // the enqueue may run a launch variant (launch_variants.h)
    kKnown,               // set in every summary of a record; a kernel without one reads as 0
    kNumUserArgs = 40,    // 24 bits from here: numUserArgs()
  };
  // A kernel's arguments take at least a byte each of CL_DEVICE_MAX_PARAMETER_SIZE (kilobytes on
  // every driver), so their count fits 24 bits; a larger one saturates, which only makes
  // clSetKernelArg's index check refuse more.
  static constexpr cl_uint kMaxUserArgs = 0xffffff;
  // The indices for which clSetKernelArg's path keeps the value and forwards the call with no
  // other check: the kernel's own arguments where it keeps copies (argStore), checks no image
  // and capture is off; none otherwise.
  cl_uint plainArgs() const { return static_cast<cl_uint>(bits); }
  bool known() const { return (bits >> kKnown) & 1; }
  cl_uint numUserArgs() const { return static_cast<cl_uint>(bits >> kNumUserArgs); }
  bool hasHiddenArgs() const { return (bits >> kHasHiddenArgs) & 1; }
  bool checksImages() const { return (bits >> kChecksImages) & 1; }
  bool checksRows() const { return (bits >> kChecksRows) & 1; }
  bool shapesLaunch() const { return (bits >> kShapesLaunch) & 1; }
  bool variants() const { return (bits >> kVariants) & 1; }

  static uint64_t encode(cl_uint numUserArgs, bool hasHiddenArgs, bool checksImages,
                         bool checksRows, bool shapesLaunch, bool variants, bool keepsArgs,
                         bool captureOn) {
    const cl_uint count = std::min(numUserArgs, kMaxUserArgs);
    const bool plain = keepsArgs && !checksImages && !captureOn;
    return uint64_t{plain ? count : 0} | uint64_t{count} << kNumUserArgs |
           uint64_t{hasHiddenArgs} << kHasHiddenArgs | uint64_t{checksImages} << kChecksImages |
           uint64_t{checksRows} << kChecksRows | uint64_t{shapesLaunch} << kShapesLaunch |
           uint64_t{variants} << kVariants | uint64_t{1} << kKnown;
  }
};

class KernelIndex {
 public:
  // Lock-free: the filter slot's cache, else one probe; false for kernels the layer passes
  // through (no record).
  bool find(cl_kernel kernel, KernelSummary* out) const noexcept {
    return cached(kernel, out) || probe(kernel, out);
  }
  // The filter slot's cache alone: what the per-call path tries before anything that needs a
  // frame.
  static bool cached(cl_kernel kernel, KernelSummary* out) noexcept {
    uint64_t store = 0;
    if (!detail::g_perCallHandles.cached(kernel, &out->bits, &store)) return false;
    out->argStore = reinterpret_cast<KernelRecord::ArgStore*>(store);
    return true;
  }
  // The index alone.
  bool probe(cl_kernel kernel, KernelSummary* out) const noexcept {
    uint64_t store = 0;
    if (!index_.find(kernel, &out->bits, &store)) return false;
    out->argStore = reinterpret_cast<KernelRecord::ArgStore*>(store);
    return true;
  }
  bool contains(cl_kernel kernel) const noexcept {
    uint64_t v = 0;
    return index_.find(kernel, &v);
  }
  // Writers: the registry, under its mutex. A kernel is set again only with its own record
  // (a release the driver refused), so a racing reader sees the same words.
  void set(cl_kernel kernel, const KernelRecord& r) {
    const uint64_t bits = KernelSummary::encode(
        r.manifest.numUserArgs, setsHiddenArgs(r.manifest), !r.manifest.blockImageArgs.empty(),
        r.rowMultiple != 0, launchShapeArg(r.manifest) != nullptr, r.variants.program != nullptr,
        r.cap.args != nullptr, capture::enabled());
    const uint64_t store = reinterpret_cast<uint64_t>(r.cap.args.get());
    if (!index_.set(kernel, bits, store)) detail::g_perCallHandles.add(kernel);
    detail::g_perCallHandles.cache(kernel, bits, store);
  }
  void erase(cl_kernel kernel) {
    detail::g_perCallHandles.uncache(kernel);
    if (index_.erase(kernel)) detail::g_perCallHandles.remove(kernel);
  }

 private:
  HandleIndex index_;
};

// Never destroyed, as programRegistry().
ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>& kernelRegistry();

namespace detail {
extern Immortal<ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>> g_kernelRegistry;
}  // namespace detail

// What the per-call entries (clSetKernelArg, the enqueues) read first, without a lock or a
// function-local static's guard.
inline const KernelIndex& kernelIndex() { return detail::g_kernelRegistry.get().index(); }

// Sets `kernel`'s launch shape (the application's global size of a rounded-up launch, zeros for a
// uniform one); CL_SUCCESS where the kernel has none.
inline cl_int setLaunchShape(cl_kernel kernel, const KernelManifest& m,
                             const cl_ulong (&shape)[3]) {
  const HiddenArg* h = launchShapeArg(m);
  return h ? next().clSetKernelArg(kernel, h->index, sizeof shape, shape) : CL_SUCCESS;
}
constexpr cl_ulong kUniformLaunch[3] = {0, 0, 0};

// A packed launch's description (HiddenArg::Kind::PackedLaunch; its words as
// builtins-cl/ptx-runtime/workitems.cl names them), zeros for a launch as the application gave it.
using PackedLaunchWords = std::array<cl_ulong, kPackedLaunchWords>;
// Sets it on `kernel`; CL_SUCCESS where the kernel has none.
inline cl_int setPackedLaunch(cl_kernel kernel, const KernelManifest& m, const PackedLaunchWords& words) {
  const HiddenArg* h = hiddenArgOf(m, HiddenArg::Kind::PackedLaunch);
  return h ? next().clSetKernelArg(kernel, h->index, sizeof words, words.data()) : CL_SUCCESS;
}

// Remembers a kernel the driver created from record's driver program.
void registerKernel(cl_kernel kernel, const ProgramRecord& record, const std::string& name);

}  // namespace isg
