// SPDX-License-Identifier: MIT
// What the layer remembers about the application's programs and kernels, and the mutex-guarded
// maps that hold it. Records are shared_ptr so a caller can keep using one after another
// thread has replaced or erased it. Kernels also have a lock-free index of what the per-call
// entries need (KernelIndex), kept in step with the map under the same mutex.
#pragma once

#include <CL/cl.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "arg_values.h"
#include "enqueue_capture.h"
#include "handle_index.h"
#include "handle_kinds.h"
#include "image_views.h"
#include "isg/rewriter.h"
#include "launch_variants.h"

namespace isg {

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
  return hiddenArgOf(m, HiddenArg::Kind::LocalScratch) || hiddenArgOf(m, HiddenArg::Kind::RawImage);
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

// For records no per-call entry looks up.
struct NoIndex {
  template <class Handle, class Record>
  void set(Handle, const Record&) {}
  template <class Handle>
  void erase(Handle) {}
};

template <class Handle, class Record, class Index = NoIndex>
class ObjectRegistry {
 public:
  std::shared_ptr<Record> find(Handle h) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = records_.find(h);
    return it == records_.end() ? nullptr : it->second;
  }
  // Returns the record it replaces, if any.
  std::shared_ptr<Record> put(Handle h, std::shared_ptr<Record> r) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Record>& slot = records_[h];
    std::swap(slot, r);
    if (slot)
      index_.set(h, *slot);
    else
      index_.erase(h);
    return r;
  }
  std::shared_ptr<Record> take(Handle h) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = records_.find(h);
    if (it == records_.end()) return nullptr;
    index_.erase(h);
    std::shared_ptr<Record> r = std::move(it->second);
    records_.erase(it);
    return r;
  }
  template <class Predicate>
  bool any(Predicate&& p) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [h, r] : records_)
      if (p(*r)) return true;
    return false;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size();
  }
  // Lock-free view of the records (KernelIndex).
  const Index& index() const { return index_; }

 private:
  mutable std::mutex mutex_;
  std::map<Handle, std::shared_ptr<Record>> records_;
  Index index_;
};

// Never destroyed: a record's driver objects must not be released from static destructors,
// when the driver may already be gone.
ObjectRegistry<cl_program, ProgramRecord>& programRegistry();
ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>& kernelRegistry();

// Held from reading an object's reference count to its release, by every release of an object
// the layer keeps a record of: two threads releasing the same object at once would otherwise
// both read 2 and neither drop the record (issue 13.4), which then attaches to a new object
// at the same address. Kernel releases take it before program releases (a kernel's release may
// release its program), so it is recursive.
std::recursive_mutex& releaseMutex();

// The release of an object the layer keeps records of, under releaseMutex: while other
// references remain, only the driver's release (`release()`). For the last one the records go
// first (`take()`), so that the handle is never found after the driver may have reused it;
// then the driver's release; if the driver refuses it the records come back
// (`restore(records)`), else `cleanup(records)` lets go of what they held.
template <class References, class Take, class Release, class Restore, class Cleanup>
cl_int releaseRecorded(References references, Take take, Release release, Restore restore,
                       Cleanup cleanup) {
  std::lock_guard<std::recursive_mutex> serial(releaseMutex());
  if (references() != 1) return release();
  auto records = take();
  const cl_int err = release();
  if (err != CL_SUCCESS) {
    restore(records);
    return err;
  }
  cleanup(records);
  return CL_SUCCESS;
}

// Releases the layer's reference to a record's shadow program.
void releaseShadow(const std::shared_ptr<ProgramRecord>& record);

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

}  // namespace isg
