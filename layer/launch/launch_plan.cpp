// SPDX-License-Identifier: MIT
#include "launch/launch_plan.h"

#include <algorithm>
#include <mutex>

#include "core/controls.h"
#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "core/logger.h"
#include "launch/kernel_records.h"
#include "launch/launch_variants.h"
#include "launch/packing_line.h"
#include "launch/register_cap.h"
#include "launch/work_group_parts.h"

namespace isg {

namespace {

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

}  // namespace

cl_int LaunchPlan::enqueue(const Launch& l, cl_kernel kernel, const size_t* local, cl_uint waits,
                           const cl_event* wait, cl_event* done) {
  if (l.task) return next().clEnqueueTask(l.queue, kernel, waits, wait, done);
  const cl_int err = next().clEnqueueNDRangeKernel(l.queue, kernel, l.workDim, l.globalOffset,
                                                   l.globalSize, local, waits, wait, done);
  return err == CL_INVALID_WORK_GROUP_SIZE ? launchInParts(l, kernel, local, waits, wait, done, err)
                                           : err;
}

cl_int LaunchPlan::make(const Launch& application, const KernelSummary& summary,
                        const KernelRecord& record, cl_device_id device,
                        const DeviceProfile& profile, LaunchPlan* plan) {
  LaunchPlan& p = *plan;
  p.launch_ = application;
  p.kernel_ = application.kernel;
  p.device_ = device;
  p.profile_ = &profile;
  p.setsScratch_ = hiddenArgOf(record.manifest, HiddenArg::Kind::LocalScratch) != nullptr;
  // Texel buffers are set per launch, which the task's own entry cannot: it goes as its
  // ND-range (one work-item in one work-group).
  if (p.launch_.task && hiddenArgOf(record.manifest, HiddenArg::Kind::RawImage))
    p.launch_.task = false;

  // Rounding up (the layer's PTX path, rewriter/src/ptx/launch_shape.h): NVIDIA's driver has no
  // non-uniform work-groups, so the launch covers whole work-groups and the kernel's launch
  // shape holds the application's global size, which its work-items past it leave at.
  const Launch& l = application;
  if (summary.shapesLaunch() && unevenLaunch(l.workDim, l.globalSize, l.localSize)) {
    for (cl_uint d = 0; d < l.workDim; ++d) {
      p.roundedGlobal_[d] = l.globalSize[d];
      if (l.localSize[d] != 0 && l.globalSize[d] % l.localSize[d] != 0) {
        p.roundedGlobal_[d] += l.localSize[d] - l.globalSize[d] % l.localSize[d];
        p.shape_[d] = l.globalSize[d];
        p.uneven_ = true;
      }
    }
    if (p.uneven_) p.launch_.globalSize = p.roundedGlobal_;
  }
  if (hiddenArgOf(record.manifest, HiddenArg::Kind::PackedLaunch)) p.planPacking(record.manifest);
  if (!l.globalSize) {
    // OpenCL 2.1 and newer: an empty launch succeeds trivially, once the driver has checked the
    // arguments, the hidden ones included (any work-group size will do for those).
    p.items_ = 1;
    return CL_SUCCESS;
  }
  return p.planWorkGroup(record);
}

// Packed work-groups (rewriter/src/ptx/launch_shape.h): a launch of whole work-groups of the
// kernel's required size runs its packed copy as 1-D CTAs of one warp, each 32 / W of them, the
// copy told the application's launch. Anything else (no local size or another one, which the
// driver answers for the kernel itself; non-uniform work-groups; a task; image stand-ins)
// runs the kernel as given.
void LaunchPlan::planPacking(const KernelManifest& manifest) {
  const Launch& l = launch_;
  const PackChoice choice = config().PACK_WORK_GROUPS;
  if (choice == PackChoice::Off || l.task || uneven_ || !l.globalSize || !l.localSize) return;
  if (hiddenArgOf(manifest, HiddenArg::Kind::RawImage) || hiddenArgOf(manifest, HiddenArg::Kind::ImageFacts))
    return;
  const std::size_t* reqd = manifest.reqdWorkGroupSize;
  const size_t items = reqd[0] * reqd[1] * reqd[2];
  if (items == 0 || items >= kWarpSize || kWarpSize % items != 0) return;
  size_t groups[3] = {1, 1, 1};
  size_t total = 1;
  for (cl_uint d = 0; d < 3; ++d) {
    if (d >= l.workDim) {
      if (reqd[d] != 1) return;
      continue;
    }
    if (l.localSize[d] != reqd[d] || l.globalSize[d] == 0 || l.globalSize[d] % reqd[d] != 0) return;
    groups[d] = l.globalSize[d] / reqd[d];
    // The copy numbers the work-groups in 32 bits.
    if (groups[d] > 0x7fffffff / total) return;
    total *= groups[d];
  }
  if (choice == PackChoice::Auto && !packsUnderAuto(total, items, *profile_)) return;
  auto offset = [&](cl_uint d) -> cl_ulong { return l.globalOffset && d < l.workDim ? l.globalOffset[d] : 0; };
  packedWords_ = {total, groups[0], groups[1], groups[2], offset(0), offset(1), offset(2), l.workDim};
  packedGlobal_[0] = packedWarps(total, items) * kWarpSize;
  packedLocal_[0] = kWarpSize;
  mayPack_ = true;
}

bool LaunchPlan::usePackedCopy(KernelRecord& record) {
  KernelRecord::PackedCopy& copy = record.packed;
  // clSetKernelExecInfo's settings are the application kernel's alone (as for variants).
  if (!mayPack_ || copy.unavailable || !record.cap.args || !standIns_.empty() ||
      record.execInfoSet.load(std::memory_order_acquire))
    return false;
  if (!copy.kernel) {
    std::shared_ptr<ProgramRecord> program = programRegistry().find(record.appProgram);
    const std::string name = record.manifest.name + kPackedKernelSuffix;
    cl_int err = CL_INVALID_PROGRAM;
    if (program) copy.kernel = next().clCreateKernel(program->driverProgram(), name.c_str(), &err);
    if (copy.kernel) err = setLaunchShape(copy.kernel, record.manifest, kUniformLaunch);
    if (err != CL_SUCCESS) {
      ISG_LOG_INFO("kernel " << record.manifest.name << ": its packed copy cannot run (" << err
                             << "); its launches run as given");
      copy.unavailable = true;
      return false;
    }
  }
  // The application's values as it set them last; one the driver refuses leaves the launch to
  // the kernel, whose answer it is.
  if (replayArgs(*record.cap.args, copy.kernel) != CL_SUCCESS) return false;
  asGiven_ = launch_;
  launch_.workDim = 1;
  launch_.globalOffset = nullptr;
  launch_.globalSize = packedGlobal_;
  launch_.localSize = packedLocal_;
  kernel_ = copy.kernel;
  packing_ = true;
  return true;
}

void LaunchPlan::dropPackedCopy(KernelRecord& record, cl_int err) {
  ISG_LOG_INFO("kernel " << record.manifest.name << ": its packed copy failed to launch (" << err
                         << "); its launches run as given");
  record.packed.unavailable = true;
  launch_ = asGiven_;
  kernel_ = launch_.kernel;
  packing_ = false;
}

// The work-group as the layer must know it: the scratch is sized per work-group, and the khr
// row check needs its shape.
cl_int LaunchPlan::planWorkGroup(const KernelRecord& record) {
  const Launch& l = launch_;
  const bool checkRows = record.rowMultiple != 0 && l.workDim >= 2;
  if (!l.localSize && (setsHiddenArgs(record.manifest) || checkRows)) {
    const cl_int err = chooseLocalSize(kernel_, device_, *profile_, record.manifest, l.workDim,
                                       l.globalSize, chosenLocal_);
    if (err != CL_SUCCESS) return err;
    usesChosenLocal_ = true;
  }
  const size_t* wg = local();
  if (!wg) return CL_SUCCESS;
  items_ = 1;
  for (cl_uint d = 0; d < l.workDim; ++d) items_ *= wg[d];
  // The device's limits, named as the driver names them, before the scratch of a work-group
  // that cannot exist is sized (which would say CL_OUT_OF_RESOURCES).
  if (items_ > profile_->maxWorkGroupSize) return CL_INVALID_WORK_GROUP_SIZE;
  for (cl_uint d = 0; d < l.workDim && d < profile_->maxWorkItemSizes.size(); ++d)
    if (wg[d] > profile_->maxWorkItemSizes[d]) return CL_INVALID_WORK_ITEM_SIZE;
  if (checkRows && items_ != wg[0] && wg[0] % record.rowMultiple != 0) {
    ISG_LOG_ERROR("kernel " << record.manifest.name << ": a work-group of " << wg[0] << " x "
                            << items_ / wg[0]
                            << " work-items cannot run on the khr strategy on this device: its "
                               "driver makes sub-groups per row, so rows must be a multiple of "
                            << record.rowMultiple
                            << " work-items (or use a 1-D work-group, or ISG_STRATEGY=local)");
    return CL_INVALID_WORK_GROUP_SIZE;
  }
  return CL_SUCCESS;
}

// Images whose format the library cannot move exactly get a raw-bits view, read_write images on
// a device without them a texel buffer (image_views.h).
cl_int LaunchPlan::addStandIns(const KernelRecord& record) {
  if (!launch_.globalSize) return CL_SUCCESS;  // nothing runs
  std::vector<cl_uint> emulated;
  for (const HiddenArg& h : record.manifest.hiddenArgs) {
    if (h.kind != HiddenArg::Kind::RawImage) continue;
    auto bound = record.images.bound.find(h.imageArg);
    standIns_.push_back(
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
    standIns_.push_back({index, inexact.image, false});
  }
  return CL_SUCCESS;
}

cl_int LaunchPlan::useCappedBuildIfRefusedBefore(KernelRecord& record) {
  if (!runsCapped(record, items_)) return CL_SUCCESS;
  cl_int err = CL_SUCCESS;
  cl_kernel capped = cappedKernelFor(record, device_, items_, CL_SUCCESS, &err);
  if (!capped) return err;
  kernel_ = capped;
  return CL_SUCCESS;
}

bool LaunchPlan::reviseForRefusal(KernelRecord& record, cl_int refused, cl_int* err) {
  cl_kernel capped = cappedKernelFor(record, device_, items_, refused, err);
  if (!capped) return false;
  kernel_ = capped;
  return true;
}

bool LaunchPlan::useLaunchVariant(KernelRecord& record) {
  const Launch& l = launch_;
  const size_t* wg = local();
  if (!record.variants.program || !l.globalSize || l.task || uneven_ || !wg) return false;
  WorkGroupShape shape{1, 1, 1};
  for (cl_uint d = 0; d < l.workDim; ++d) {
    if (l.globalSize[d] % wg[d] != 0) return false;  // a smaller last work-group
    shape[d] = wg[d];
  }
  variant_ = variantFor(record, shape, device_);
  if (!variant_) return false;
  kernel_ = variant_->kernel;
  return true;
}

void LaunchPlan::dropLaunchVariant(KernelRecord& record, cl_int err) {
  refuseVariant(record, variant_->shape, device_, err);
  variant_ = nullptr;
  kernel_ = launch_.kernel;
}

// Sizes the hidden local scratch for one work-group, and refuses a launch whose local memory
// then exceeds the device's.
cl_int LaunchPlan::setScratch(const KernelManifest& manifest) const {
  size_t scratchBytes = 0;
  for (const HiddenArg& hidden : manifest.hiddenArgs) {
    if (hidden.kind != HiddenArg::Kind::LocalScratch) continue;
    scratchBytes = isg::scratchBytes(items_, manifest.subGroupSize, manifest.scratchBytesPerItem);
    cl_int err = next().clSetKernelArg(kernel_, hidden.index, scratchBytes, nullptr);
    if (err != CL_SUCCESS) {
      ISG_LOG_ERROR("kernel " << manifest.name << ": setting the sub-group scratch ("
                              << scratchBytes << " bytes) failed with " << err);
      return err;
    }
  }
  if (scratchBytes == 0) return CL_SUCCESS;
  cl_ulong used = 0;
  if (kernelWorkGroupValue(kernel_, device_, CL_KERNEL_LOCAL_MEM_SIZE, &used) != CL_SUCCESS)
    return CL_SUCCESS;  // cannot tell; the driver decides at launch
  // Some drivers leave local arguments out of CL_KERNEL_LOCAL_MEM_SIZE.
  if (used < scratchBytes) used += scratchBytes;
  if (profile_->localMemSize != 0 && used > profile_->localMemSize) {
    ISG_LOG_ERROR("kernel " << manifest.name << ": " << used << " bytes of local memory ("
                            << scratchBytes << " of them the sub-group scratch for " << items_
                            << " work-items) exceed the device's " << profile_->localMemSize);
    return CL_OUT_OF_RESOURCES;
  }
  return CL_SUCCESS;
}

cl_int LaunchPlan::run(KernelRecord& record) const {
  const KernelManifest& manifest = variant_ ? *variant_->manifest : record.manifest;
  cl_int err = CL_SUCCESS;
  if (setsScratch_ && (err = setScratch(manifest)) != CL_SUCCESS) return err;
  if (uneven_ && (err = setLaunchShape(kernel_, manifest, shape_)) != CL_SUCCESS) return err;
  if (packing_ && (err = setPackedLaunch(kernel_, manifest, packedWords_)) != CL_SUCCESS) return err;
  err = runWithStandIns(record);
  // A uniform shape again, for the application's next launch.
  if (uneven_) setLaunchShape(kernel_, manifest, kUniformLaunch);
  return err;
}

// The launch with its stand-ins filled before and copied back after.
cl_int LaunchPlan::runWithStandIns(KernelRecord& record) const {
  if (standIns_.empty())
    return enqueue(launch_, kernel_, local(), launch_.numEvents, launch_.events, launch_.event);
  RawViewLaunch views(launch_.queue, kernel_, standIns_, &record.images.views);
  cl_int err = views.prepare(launch_.numEvents, launch_.events);
  if (err != CL_SUCCESS) return err;
  // A view's facts while it stands in for the application's image (the same size, another
  // format), the image's again after.
  auto facts = [&](bool ofViews) {
    cl_int result = CL_SUCCESS;
    for (const ImageStandIn& in : standIns_)
      if (!in.texelBuffer)
        if (cl_int e = setImageFacts(kernel_, record.manifest, in.arg,
                                     ofViews ? record.images.views[in.arg].view : in.image))
          result = e;
    return result;
  };
  err = facts(true);
  cl_event launched = nullptr;
  if (err == CL_SUCCESS)
    err = enqueue(launch_, kernel_, local(), views.numWaits(), views.waitList(), &launched);
  const cl_int after = views.finish(err == CL_SUCCESS ? launched : nullptr, launch_.event);
  const cl_int restored = facts(false);
  return err != CL_SUCCESS ? err : after != CL_SUCCESS ? after : restored;
}

cl_int LaunchPlan::carryOut(KernelRecord& record, bool refusedAsIs) {
  std::lock_guard<std::mutex> lock(record.enqueueMutex);
  cl_int err = addStandIns(record);
  if (err == CL_SUCCESS) err = useCappedBuildIfRefusedBefore(record);
  if (err != CL_SUCCESS) return err;
  if (!onCappedBuild() && !refusedAsIs && usePackedCopy(record)) {
    // The copy changes speed, never the answer: whatever it cannot launch, the kernel does.
    if ((err = run(record)) == CL_SUCCESS) return err;
    dropPackedCopy(record, err);
  }
  if (!onCappedBuild() && useLaunchVariant(record)) {
    // A variant changes speed, never the answer: whatever it cannot launch, the general
    // kernel does (launch_variants.h).
    if ((err = run(record)) == CL_SUCCESS) return err;
    dropLaunchVariant(record, err);
  }
  if (!onCappedBuild()) {
    err = refusedAsIs ? CL_OUT_OF_RESOURCES : run(record);
    if (err != CL_OUT_OF_RESOURCES || !reviseForRefusal(record, err, &err)) return err;
  }
  return run(record);
}

}  // namespace isg
