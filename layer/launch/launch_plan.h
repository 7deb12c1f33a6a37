// SPDX-License-Identifier: MIT
// One launch of a kernel the layer took over, described before anything is set on the kernel.
// Each feature that changes a launch adds its part to the description and calls nothing back:
// rounding a non-uniform launch up (rewriter/src/ptx/launch_shape.h), the local size the layer
// picks and the hidden scratch sized for it, the khr row check, the image stand-ins
// (image_views.h) and the register-capped build (register_cap.h). run() then carries the
// description out once: it sets what the plan names on the kernel that runs, launches it (in
// parts where the driver refuses non-uniform work-groups, work_group_parts.h), and puts back
// what the application's next launch must not see. carryOut() holds the order in which a launch
// falls back: the kernel's launch variant where one is ready, else (or where the variant cannot
// launch) the general kernel, and where the driver refuses that for resources, the capped build.
// A kernel that can run packed (rewriter/src/ptx/launch_shape.h) runs its whole work-groups 32 /
// W to a warp.
#pragma once

#include <CL/cl.h>

#include <vector>

#include "core/launch_description.h"
#include "devices/device_strategy.h"
#include "launch/kernel_records.h"
#include "memory/image_views.h"

namespace isg {

// The application's arguments of one enqueue, as capture sees them too, and its event.
struct Launch : LaunchDescription {
  cl_event* event;
  bool task = false;  // clEnqueueTask: one work-item, forwarded as the application made it
};

class LaunchPlan {
 public:
  LaunchPlan() = default;
  // It points into itself (the rounded global size, the chosen local size).
  LaunchPlan(const LaunchPlan&) = delete;
  LaunchPlan& operator=(const LaunchPlan&) = delete;

  // The plan of `application` on `device` (whose profile is `profile`), for `record`'s kernel;
  // a launch error where a part refuses it (CL_INVALID_WORK_GROUP_SIZE, ...), logged where the
  // driver would not say why. Takes no lock: make() reads only what the record fixed at
  // creation; the stand-ins, read under record.enqueueMutex, come with addStandIns().
  static cl_int make(const Launch& application, const KernelSummary& summary,
                     const KernelRecord& record, cl_device_id device, const DeviceProfile& profile,
                     LaunchPlan* plan);
  // The launch, taking record.enqueueMutex: the stand-ins added, then the variant, the general
  // kernel and the capped build in that order, each where the one before cannot run it.
  // `refusedAsIs`: the driver already refused this launch as given for resources (enqueue.cpp's
  // launch without the record), so the general kernel is not tried again.
  cl_int carryOut(KernelRecord& record, bool refusedAsIs);

  // `l` as given on `kernel` with `local`: an ND-range whose non-uniform work-groups the driver
  // refuses runs in parts where it can (work_group_parts.h); a task stays a task.
  static cl_int enqueue(const Launch& l, cl_kernel kernel, const size_t* local, cl_uint waits,
                        const cl_event* wait, cl_event* done);

 private:
  // The steps of carryOut(), under record.enqueueMutex.
  // The images that need a stand-in at this launch.
  cl_int addStandIns(const KernelRecord& record);
  // The plan on the capped build where an earlier launch of this size was refused for resources
  // (the application's arguments set on it again).
  cl_int useCappedBuildIfRefusedBefore(KernelRecord& record);
  // After the driver refused the plan's kernel with `refused`: the plan on the capped build
  // (true), or false with *err the refusal or what followed it.
  bool reviseForRefusal(KernelRecord& record, cl_int refused, cl_int* err);

  // The plan on the kernel's launch variant for this work-group size (launch_variants.h) where
  // one is ready, with the application's arguments set on it.
  bool useLaunchVariant(KernelRecord& record);
  // After the variant's launch failed with `err`: the plan back on the application's kernel,
  // the variant not used again.
  void dropLaunchVariant(KernelRecord& record, cl_int err);

  // The launch, once, with everything the plan names set before and put back after.
  cl_int run(KernelRecord& record) const;

  // Packed work-groups (rewriter/src/ptx/launch_shape.h): whether this launch may run the
  // kernel's packed copy, and the plan on it (with the application's arguments set on it).
  void planPacking(const KernelManifest& manifest);
  bool usePackedCopy(KernelRecord& record);
  void dropPackedCopy(KernelRecord& record, cl_int err);

  bool onCappedBuild() const { return kernel_ != launch_.kernel && !variant_ && !packing_; }
  const size_t* local() const { return usesChosenLocal_ ? chosenLocal_ : launch_.localSize; }
  cl_int planWorkGroup(const KernelRecord& record);
  cl_int setScratch(const KernelManifest& manifest) const;
  cl_int runWithStandIns(KernelRecord& record) const;

  Launch launch_{};             // the application's, its global size rounded up where planned
  cl_kernel kernel_ = nullptr;  // the kernel that runs: the application's, its capped build or
                                // its launch variant
  const KernelVariants::One* variant_ = nullptr;
  cl_device_id device_ = nullptr;
  const DeviceProfile* profile_ = nullptr;
  // Rounding up: the global size launched, and the application's as the kernel's launch shape.
  size_t roundedGlobal_[3] = {1, 1, 1};
  cl_ulong shape_[3] = {0, 0, 0};
  bool uneven_ = false;
  // The work-group: the application's local size or the one chosen; items 0 where the driver
  // picks (nothing needs the size).
  size_t chosenLocal_[3] = {1, 1, 1};
  bool usesChosenLocal_ = false;
  size_t items_ = 0;
  // Packing: the launch's description and shape on the packed copy, and the application's
  // launch while the copy runs.
  bool mayPack_ = false;
  bool packing_ = false;
  PackedLaunchWords packedWords_{};
  size_t packedGlobal_[1] = {0};
  size_t packedLocal_[1] = {0};
  Launch asGiven_{};
  bool setsScratch_ = false;
  std::vector<ImageStandIn> standIns_;
};

}  // namespace isg
