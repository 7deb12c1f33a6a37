// SPDX-License-Identifier: MIT
// clEnqueueNDRangeKernel and clEnqueueTask of kernels the layer took over, as named steps: the
// launch shape, the local size and the hidden scratch, the image stand-ins, the launch, and the
// register-capped retry (register_cap.h). Kernels the layer passes through, and rewritten
// kernels with nothing to set or check, launch without a lock.
#include <algorithm>
#include <memory>
#include <mutex>
#include <vector>

#include "handle_kinds.h"
#include "device_strategy.h"
#include "driver_queries.h"
#include "enqueue_capture.h"
#include "image_views.h"
#include "kernel_records.h"
#include "layer_api.h"
#include "object_registry.h"
#include "register_cap.h"
#include "work_group_parts.h"

namespace isg {

namespace {

// The application's arguments of one enqueue, as capture sees them too, and its event.
struct Launch : capture::EnqueueCapture::Launch {
  cl_event* event;

  // A launch with non-uniform work-groups the driver refuses runs in parts where it can
  // (work_group_parts.h).
  cl_int enqueue(cl_kernel k, const size_t* local, cl_uint waits, const cl_event* wait,
                 cl_event* done) const {
    const cl_int err = next().clEnqueueNDRangeKernel(queue, k, workDim, globalOffset, globalSize,
                                                     local, waits, wait, done);
    return err == CL_INVALID_WORK_GROUP_SIZE ? launchInParts(*this, k, local, waits, wait, done, err)
                                             : err;
  }
  // `k` with the application's wait list and event.
  cl_int enqueue(cl_kernel k, const size_t* local) const {
    return enqueue(k, local, numEvents, events, event);
  }
};

// The spec's answers to a launch where PoCL 3.1 alone dereferences NULL (a NULL kernel, a wait
// list counted but not given); CL_SUCCESS when neither applies. A NULL queue is the driver's.
cl_int nullLaunchArgument(cl_command_queue queue, cl_kernel kernel, cl_uint num_events,
                          const cl_event* wait_list) {
  if (queue && !kernel) return CL_INVALID_KERNEL;
  if (const cl_int wrong = notAProgramOrKernel(queue, CL_INVALID_COMMAND_QUEUE)) return wrong;
  if (const cl_int wrong = wrongKind(kernel, HandleKind::Kernel, CL_INVALID_KERNEL)) return wrong;
  if (queue && num_events && !wait_list) return CL_INVALID_EVENT_WAIT_LIST;
  return CL_SUCCESS;
}


// ---- step 1: the launch shape ----------------------------------------------------------------

// A zero local size is CL_INVALID_WORK_GROUP_SIZE, as the spec names it (NVIDIA's driver 580
// takes the process down with SIGFPE instead).
cl_int checkLocalSize(const Launch& l) {
  if (l.localSize && l.workDim >= 1 && l.workDim <= 3)
    for (cl_uint d = 0; d < l.workDim; ++d)
      if (l.localSize[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
  return CL_SUCCESS;
}

// Non-uniform work-groups on the layer's PTX path (launch_shape.h): NVIDIA's driver has none,
// so the launch covers whole work-groups and the kernel's launch shape holds the application's
// global size, which its work-items past it leave at. The shape is set for this launch only.
class RoundedUp {
 public:
  // `l` with its global size rounded up where the kernel takes a launch shape and a dimension
  // is no multiple of the local size; otherwise `l` as it is.
  RoundedUp(const Launch& l, const KernelSummary& summary) : launch_(l) {
    if (!summary.shapesLaunch() || !unevenLaunch(l.workDim, l.globalSize, l.localSize)) return;
    for (cl_uint d = 0; d < l.workDim; ++d) {
      rounded_[d] = l.globalSize[d];
      if (l.localSize[d] != 0 && l.globalSize[d] % l.localSize[d] != 0) {
        rounded_[d] += l.localSize[d] - l.globalSize[d] % l.localSize[d];
        shape_[d] = l.globalSize[d];
        uneven_ = true;
      }
    }
    if (uneven_) launch_.globalSize = rounded_;
  }
  bool uneven() const { return uneven_; }
  const Launch& launch() const { return launch_; }
  // Sets the shape on `kernel` before its launch (under the record's enqueueMutex).
  cl_int set(cl_kernel kernel, const KernelManifest& manifest) const {
    return setLaunchShape(kernel, manifest, shape_);
  }
  // A uniform shape again, for the application's next launch.
  static void reset(cl_kernel kernel, const KernelManifest& manifest) {
    setLaunchShape(kernel, manifest, kUniformLaunch);
  }

 private:
  Launch launch_;
  size_t rounded_[3] = {1, 1, 1};
  cl_ulong shape_[3] = {0, 0, 0};
  bool uneven_ = false;
};

// ---- step 2: the local size and the hidden scratch -------------------------------------------

// The local size the layer picks when the application passes none: the kernel's required one,
// else per dimension (x first) the largest divisor of the global size that still fits the
// kernel's work-group limit, so every work-group is full.
cl_int chooseLocalSize(cl_kernel kernel, cl_device_id device, const DeviceProfile& profile,
                       const KernelManifest& manifest, cl_uint dims, const size_t* global,
                       size_t* local) {
  if (manifest.reqdWorkGroupSize[0] != 0) {
    for (cl_uint d = 0; d < dims; ++d) local[d] = manifest.reqdWorkGroupSize[d];
    return CL_SUCCESS;
  }
  size_t budget = 0;
  cl_int err = kernelWorkGroupValue(kernel, device, CL_KERNEL_WORK_GROUP_SIZE, &budget);
  if (err != CL_SUCCESS) return err;
  budget = std::max<size_t>(budget, 1);
  for (cl_uint d = 0; d < dims; ++d) {
    size_t limit = budget;
    if (d < profile.maxWorkItemSizes.size()) limit = std::min(limit, profile.maxWorkItemSizes[d]);
    size_t best = 1;
    for (size_t candidate = std::min(limit, global[d]); candidate >= 1; --candidate) {
      if (global[d] % candidate == 0) {
        best = candidate;
        break;
      }
    }
    local[d] = best;
    budget /= best;
  }
  return CL_SUCCESS;
}

// The work-group of one launch as the layer must know it: the scratch is sized per work-group,
// and the khr row check needs its shape.
struct WorkGroup {
  size_t chosen[3] = {1, 1, 1};
  const size_t* local = nullptr;  // the application's, or `chosen`
  size_t items = 0;               // 0: the driver picks (no local size needed)
};

cl_int planWorkGroup(const Launch& l, cl_kernel kernel, cl_device_id device,
                     const DeviceProfile& profile, const KernelRecord& record, WorkGroup* wg) {
  const bool hidden = setsHiddenArgs(record.manifest);
  const bool checkRows = record.rowMultiple != 0 && l.workDim >= 2;
  wg->local = l.localSize;
  if (!wg->local && (hidden || checkRows)) {
    const cl_int err = chooseLocalSize(kernel, device, profile, record.manifest, l.workDim,
                                       l.globalSize, wg->chosen);
    if (err != CL_SUCCESS) return err;
    wg->local = wg->chosen;
  }
  if (wg->local) {
    wg->items = 1;
    for (cl_uint d = 0; d < l.workDim; ++d) wg->items *= wg->local[d];
    // The device's limits, named as the driver names them, before the scratch of a work-group
    // that cannot exist is sized (which would say CL_OUT_OF_RESOURCES).
    if (wg->items > profile.maxWorkGroupSize) return CL_INVALID_WORK_GROUP_SIZE;
    for (cl_uint d = 0; d < l.workDim && d < profile.maxWorkItemSizes.size(); ++d)
      if (wg->local[d] > profile.maxWorkItemSizes[d]) return CL_INVALID_WORK_ITEM_SIZE;
  }
  if (checkRows && wg->items != wg->local[0] && wg->local[0] % record.rowMultiple != 0) {
    ISG_LOG_ERROR("kernel " << record.manifest.name << ": a work-group of " << wg->local[0]
                            << " x " << wg->items / wg->local[0]
                            << " work-items cannot run on the khr strategy on this device: its "
                               "driver makes sub-groups per row, so rows must be a multiple of "
                            << record.rowMultiple
                            << " work-items (or use a 1-D work-group, or ISG_STRATEGY=local)");
    return CL_INVALID_WORK_GROUP_SIZE;
  }
  return CL_SUCCESS;
}

// Sizes the hidden local scratch for one work-group of `items` work-items, and refuses a launch
// whose local memory then exceeds the device's.
cl_int setHiddenArguments(cl_kernel kernel, cl_device_id device, const DeviceProfile& profile,
                          const KernelManifest& manifest, size_t items) {
  size_t scratchBytes = 0;
  for (const HiddenArg& hidden : manifest.hiddenArgs) {
    if (hidden.kind != HiddenArg::Kind::LocalScratch) continue;
    scratchBytes = isg::scratchBytes(items, manifest.subGroupSize, manifest.scratchBytesPerItem);
    cl_int err = next().clSetKernelArg(kernel, hidden.index, scratchBytes, nullptr);
    if (err != CL_SUCCESS) {
      ISG_LOG_ERROR("kernel " << manifest.name << ": setting the sub-group scratch ("
                              << scratchBytes << " bytes) failed with " << err);
      return err;
    }
  }
  if (scratchBytes == 0) return CL_SUCCESS;
  cl_ulong used = 0;
  if (kernelWorkGroupValue(kernel, device, CL_KERNEL_LOCAL_MEM_SIZE, &used) != CL_SUCCESS)
    return CL_SUCCESS;  // cannot tell; the driver decides at launch
  // Some drivers leave local arguments out of CL_KERNEL_LOCAL_MEM_SIZE.
  if (used < scratchBytes) used += scratchBytes;
  if (profile.localMemSize != 0 && used > profile.localMemSize) {
    ISG_LOG_ERROR("kernel " << manifest.name << ": " << used << " bytes of local memory ("
                            << scratchBytes << " of them the sub-group scratch for " << items
                            << " work-items) exceed the device's " << profile.localMemSize);
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

// ---- step 3: the image stand-ins --------------------------------------------------------------

// Images whose format the library cannot move exactly get a raw-bits view, read_write images on
// a device without them a texel buffer (image_views.h). Under record.enqueueMutex.
cl_int imageStandIns(const KernelRecord& record, std::vector<ImageStandIn>* standIns) {
  std::vector<cl_uint> emulated;
  for (const HiddenArg& h : record.manifest.hiddenArgs) {
    if (h.kind != HiddenArg::Kind::RawImage) continue;
    auto bound = record.images.bound.find(h.imageArg);
    standIns->push_back(
        {h.index, bound == record.images.bound.end() ? nullptr : bound->second, true});
    emulated.push_back(h.imageArg);
  }
  for (const auto& [index, inexact] : record.images.inexact) {
    if (std::find(emulated.begin(), emulated.end(), index) != emulated.end()) continue;
    const auto& mixed = record.manifest.mixedImageArgs;
    if (std::find(mixed.begin(), mixed.end(), index) != mixed.end()) {
      ISG_LOG_ERROR("kernel " << record.manifest.name << ": argument " << index
                              << " is an image of format " << inexact.format
                              << ", whose bits block and media IO (intel_sub_group_block_* and "
                                 "intel_sub_group_media_block_*) move through a raw-bits view on "
                                 "this device, and the kernel also passes it to other image "
                                 "functions; pass the image as a second argument for those "
                                 "(docs/builtins.md)");
      return CL_IMAGE_FORMAT_NOT_SUPPORTED;
    }
    standIns->push_back({index, inexact.image, false});
  }
  return CL_SUCCESS;
}

// ---- step 4: the launch -----------------------------------------------------------------------

// `k` with its stand-ins filled before and copied back after. Under record.enqueueMutex.
cl_int launchWithStandIns(const Launch& l, cl_kernel k, const size_t* local,
                          const std::vector<ImageStandIn>& standIns, KernelRecord& record) {
  if (standIns.empty()) return l.enqueue(k, local);
  RawViewLaunch views(l.queue, k, standIns, &record.images.views);
  cl_int err = views.prepare(l.numEvents, l.events);
  if (err != CL_SUCCESS) return err;
  // A view's facts while it stands in for the application's image (the same size, another
  // format), the image's again after.
  auto facts = [&](bool ofViews) {
    cl_int result = CL_SUCCESS;
    for (const ImageStandIn& in : standIns)
      if (!in.texelBuffer)
        if (cl_int e = setImageFacts(k, record.manifest, in.arg,
                                     ofViews ? record.images.views[in.arg].view : in.image))
          result = e;
    return result;
  };
  err = facts(true);
  cl_event launched = nullptr;
  if (err == CL_SUCCESS) err = l.enqueue(k, local, views.numWaits(), views.waitList(), &launched);
  const cl_int after = views.finish(err == CL_SUCCESS ? launched : nullptr, l.event);
  const cl_int restored = facts(false);
  return err != CL_SUCCESS ? err : after != CL_SUCCESS ? after : restored;
}

// A launch of a kernel whose summary says there is nothing to set or check: without a lock.
// True when it is done (*err its result); false when the launch goes on through the record,
// with *refused when the driver refused this one for resources (register_cap.h).
bool launchedWithoutRecord(const Launch& l, cl_kernel kernel, const KernelSummary& summary,
                           bool* refused, cl_int* err) {
  if (summary.hasHiddenArgs() || summary.checksImages() || summary.checksRows()) return false;
  if (summary.shapesLaunch() && unevenLaunch(l.workDim, l.globalSize, l.localSize)) return false;
  if (!summary.argStore) {
    *err = l.enqueue(kernel, l.localSize);
    return true;
  }
  if (summary.argStore->capped.load(std::memory_order_acquire)) return false;
  *err = l.enqueue(kernel, l.localSize);
  if (*err != CL_OUT_OF_RESOURCES || !l.localSize) return true;
  *refused = true;
  return false;
}

cl_int enqueueNDRange(const Launch& application) {
  const cl_kernel kernel = application.kernel;
  // Every kernel's, the driver's own too: NVIDIA's driver dies on a zero local size.
  if (cl_int err = checkLocalSize(application)) return err;
  KernelSummary summary;
  if (!kernelIndex().find(kernel, &summary)) return application.enqueue(kernel, application.localSize);
  if (application.workDim < 1 || application.workDim > 3)
    return application.enqueue(kernel, application.localSize);
  bool refused = false;
  cl_int err = CL_SUCCESS;
  if (launchedWithoutRecord(application, kernel, summary, &refused, &err)) return err;

  std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
  if (!record) return application.enqueue(kernel, application.localSize);
  const RoundedUp shaped(application, summary);
  const Launch& l = shaped.launch();
  const bool hidden = setsHiddenArgs(record->manifest);
  cl_device_id device = nullptr;
  if (queueDevice(l.queue, &device) != CL_SUCCESS)
    return l.enqueue(kernel, l.localSize);  // the driver names the error
  const DeviceProfile* profile = DeviceStrategy::of(device);
  if (!profile) return l.enqueue(kernel, l.localSize);
  if (!l.globalSize) {
    // OpenCL 2.1 and newer: an empty launch succeeds trivially, once the driver has checked the
    // arguments, the hidden ones included (any work-group size will do for those).
    if (!hidden) return l.enqueue(kernel, l.localSize);
    std::lock_guard<std::mutex> lock(record->enqueueMutex);
    err = setHiddenArguments(kernel, device, *profile, record->manifest, 1);
    return err == CL_SUCCESS ? l.enqueue(kernel, l.localSize) : err;
  }

  WorkGroup wg;
  if ((err = planWorkGroup(l, kernel, device, *profile, *record, &wg)) != CL_SUCCESS) return err;
  std::lock_guard<std::mutex> lock(record->enqueueMutex);
  std::vector<ImageStandIn> standIns;
  if ((err = imageStandIns(*record, &standIns)) != CL_SUCCESS) return err;
  if (!runsCapped(*record, wg.items)) {
    if (refused) {  // the launch without the record, as it is
      err = CL_OUT_OF_RESOURCES;
    } else {
      if (hidden &&
          (err = setHiddenArguments(kernel, device, *profile, record->manifest, wg.items)))
        return err;
      if (shaped.uneven() && (err = shaped.set(kernel, record->manifest))) return err;
      err = launchWithStandIns(l, kernel, wg.local, standIns, *record);
      if (shaped.uneven()) RoundedUp::reset(kernel, record->manifest);
    }
    if (err != CL_OUT_OF_RESOURCES) return err;
  }
  // ---- step 5: the register-capped build, for work-groups the driver refused -----------------
  cl_kernel capped = cappedKernelFor(*record, device, wg.items, err, &err);
  if (!capped) return err;
  if (hidden && (err = setHiddenArguments(capped, device, *profile, record->manifest, wg.items)))
    return err;
  return launchWithStandIns(l, capped, wg.local, standIns, *record);
}

// Whether an enqueue of `kernel` has hidden arguments to set; pass-through kernels and kernels
// without hidden arguments are told apart without a lock.
bool needsHiddenArguments(cl_kernel kernel) noexcept {
  KernelSummary summary;
  return kernelIndex().find(kernel, &summary) && summary.hasHiddenArgs();
}

// A task is an ND-range of one work-item in one work-group (`task` says so).
cl_int enqueueTask(const Launch& task) {
  auto forward = [&] {
    return next().clEnqueueTask(task.queue, task.kernel, task.numEvents, task.events, task.event);
  };
  if (!needsHiddenArguments(task.kernel)) return forward();
  std::shared_ptr<KernelRecord> record = kernelRegistry().find(task.kernel);
  if (!record || !setsHiddenArgs(record->manifest)) return forward();
  // Texel buffers are set per launch: the task goes as its ND-range.
  for (const HiddenArg& h : record->manifest.hiddenArgs)
    if (h.kind == HiddenArg::Kind::RawImage) return enqueueNDRange(task);
  cl_device_id device = nullptr;
  if (queueDevice(task.queue, &device) != CL_SUCCESS) return forward();
  const DeviceProfile* profile = DeviceStrategy::of(device);
  if (!profile) return forward();
  std::lock_guard<std::mutex> lock(record->enqueueMutex);
  cl_int err = setHiddenArguments(task.kernel, device, *profile, record->manifest, 1);
  if (err != CL_SUCCESS) return err;
  return forward();
}

}  // namespace

// Capture (capture/enqueue_capture.h) brackets the enqueue: it reads the inputs before and the
// outputs after; it is inert unless ISG_CAPTURE_DIR is set and the enqueue matches its filters.
cl_int CL_API_CALL clEnqueueNDRangeKernel_layer(cl_command_queue queue, cl_kernel kernel,
                                                cl_uint work_dim, const size_t* global_work_offset,
                                                const size_t* global_work_size,
                                                const size_t* local_work_size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event* event_wait_list, cl_event* event) {
  return guardedEntry("clEnqueueNDRangeKernel", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clEnqueueNDRangeKernel);
    if (cl_int err = nullLaunchArgument(queue, kernel, num_events_in_wait_list, event_wait_list))
      return err;
    const Launch launch{{"clEnqueueNDRangeKernel", queue, kernel, work_dim, global_work_offset,
                         global_work_size, local_work_size, num_events_in_wait_list,
                         event_wait_list},
                        event};
    capture::EnqueueCapture capture(launch);
    const cl_int err = enqueueNDRange(launch);
    capture.after(err);
    return err;
  });
}

cl_int CL_API_CALL clEnqueueTask_layer(cl_command_queue queue, cl_kernel kernel,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event) {
  return guardedEntry("clEnqueueTask", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clEnqueueTask);
    if (cl_int err = nullLaunchArgument(queue, kernel, num_events_in_wait_list, event_wait_list))
      return err;
    // A task is an ND-range of one work-item in one work-group, and is recorded as one.
    static const size_t kOne[1] = {1};
    const Launch launch{{"clEnqueueTask", queue, kernel, 1, nullptr, kOne, kOne,
                         num_events_in_wait_list, event_wait_list},
                        event};
    capture::EnqueueCapture capture(launch);
    const cl_int err = enqueueTask(launch);
    capture.after(err);
    return err;
  });
}

}  // namespace isg
