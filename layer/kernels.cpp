// SPDX-License-Identifier: MIT
// Kernel objects of rewritten programs: the application's view of their arguments, their
// program and their lifetime, and the hidden arguments set at every enqueue.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "enqueue_capture.h"
#include "device_strategy.h"
#include "driver_queries.h"
#include "image_views.h"
#include "kernel_records.h"
#include "layer_api.h"
#include "object_registry.h"
#include "param_util.h"
#include "register_cap.h"

namespace isg {

namespace {

// Created when the library loads, before the loader can call an entry, so the per-call entries
// reach it without a function-local static's guard; never destroyed (object_registry.h).
auto* const g_kernelRegistry = new ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>;

}  // namespace

ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>& kernelRegistry() { return *g_kernelRegistry; }

namespace {

// KernelRecord::rowMultiple for a kernel of `program`.
unsigned rowMultipleFor(const ProgramRecord& program, const KernelManifest& manifest) {
  if (program.rewrite.strategy != Strategy::Khr) return 0;
  const bool exchanges = std::any_of(manifest.families.begin(), manifest.families.end(),
                                     [](const std::string& f) {
                                       return f != "identity" && f != "barrier";
                                     });
  if (!exchanges) return 0;
  std::vector<cl_device_id> devices;
  if (programDevices(program.driverProgram(), &devices) != CL_SUCCESS) return 0;
  for (cl_device_id device : devices)
    if (const DeviceProfile* profile = DeviceStrategy::of(device);
        profile && profile->khrRowSubGroups)
      return profile->traits.nativeSubGroupSize;
  return 0;
}

}  // namespace

void registerKernel(cl_kernel kernel, const ProgramRecord& program, const std::string& name) {
  auto record = std::make_shared<KernelRecord>();
  record->appProgram = program.app;
  if (const KernelManifest* manifest = program.findKernel(name)) {
    record->manifest = *manifest;
  } else {
    // A kernel the rewriter did not describe uses no builtin: the device default, no hidden
    // arguments, every argument the application's.
    record->manifest.name = name;
    record->manifest.subGroupSize = program.defaultSubGroupSize;
    cl_uint args = 0;
    kernelValue(kernel, CL_KERNEL_NUM_ARGS, &args);
    record->manifest.numUserArgs = args;
  }
  record->rowMultiple = rowMultipleFor(program, record->manifest);
  // Every kernel of a rewritten program keeps copies where the driver may refuse a work-group
  // for registers (NVIDIA): the driver answers 256 for CL_KERNEL_WORK_GROUP_SIZE whatever the
  // kernel, and a kernel with a private array refuses 1024 unless capped (docs/strategies.md).
  if (mayCapRegisters(program)) {
    record->argStore = std::make_unique<KernelRecord::ArgStore>();
    record->argStore->values.resize(record->manifest.numUserArgs);
  }
  // The driver kernel keeps the shadow alive; the application's program must stay alive as
  // long as a kernel can name it (CL_KERNEL_PROGRAM).
  if (program.kind == ProgramRecord::Kind::Shadowed && next().clRetainProgram) {
    next().clRetainProgram(program.app);
    record->holdsAppProgram = true;
  }
  kernelRegistry().put(kernel, record);
}

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

// Per call (clSetKernelArg*, clGetKernelArgInfo): one lookup in the lock-free index, never the
// registry's mutex. False with *known when the layer has no record of `kernel`.
bool hidesArgument(cl_kernel kernel, cl_uint arg_index, KernelSummary* summary,
                   bool* known) noexcept {
  *known = g_kernelRegistry->index().find(kernel, summary);
  return *known && arg_index >= summary->numUserArgs;
}

// Whether an enqueue of `kernel` has hidden arguments to set; pass-through kernels and kernels
// without hidden arguments are told apart without a lock.
bool needsHiddenArguments(cl_kernel kernel) noexcept {
  KernelSummary summary;
  return g_kernelRegistry->index().find(kernel, &summary) && summary.hasHiddenArgs;
}

// Keeps the value of an argument of a kernel that may have to switch to its register-capped
// build (register_cap.h); `svm` non-null for clSetKernelArgSVMPointer.
void rememberArg(KernelRecord::ArgStore& store, cl_uint index, size_t size, const void* value,
                 const void* svm) {
  if (index >= store.values.size()) return;
  KernelRecord::ArgValue& a = store.values[index];
  a.size = size;
  a.svm = svm;
  if (svm) {
    a.kind = KernelRecord::ArgValue::Kind::Svm;
  } else if (!value) {
    a.kind = KernelRecord::ArgValue::Kind::Local;
  } else {
    a.kind = KernelRecord::ArgValue::Kind::Value;
    const auto* bytes = static_cast<const unsigned char*>(value);
    // Constant sizes for the common cases: a copy in registers instead of a call to memcpy.
    if (size == 8) std::memcpy(a.small, bytes, 8);
    else if (size == 4) std::memcpy(a.small, bytes, 4);
    else if (size <= sizeof a.small) std::memcpy(a.small, bytes, size);
    else a.large.assign(bytes, bytes + size);
  }
}

// After clSetKernelArg: whether argument `index`, if block or media IO reads or writes it, now
// names an image whose format they cannot move exactly.
[[gnu::noinline]] void checkBlockImageArg(KernelRecord& record, cl_uint index, size_t size, const void* value) {
  const auto& args = record.manifest.blockImageArgs;
  if (std::find(args.begin(), args.end(), index) == args.end()) return;
  std::string inexact;
  cl_mem mem = nullptr;
  if (value && size == sizeof mem) std::memcpy(&mem, value, sizeof mem);
  cl_mem_object_type type = 0;
  cl_image_format format = {};
  if (mem && memValue(mem, CL_MEM_TYPE, &type) == CL_SUCCESS && type == CL_MEM_OBJECT_IMAGE2D &&
      imageValue(mem, CL_IMAGE_FORMAT, &format) == CL_SUCCESS)
    exactForBlockIO(format, &inexact);
  std::lock_guard<std::mutex> lock(record.enqueueMutex);
  record.boundImages[index] = type == CL_MEM_OBJECT_IMAGE2D ? mem : nullptr;
  if (inexact.empty()) record.inexactImages.erase(index);
  else record.inexactImages[index] = {mem, inexact};
}

// What noteArg cannot do without allocating or locking: a value larger than ArgValue::small,
// the format of a block IO image (through the record).
[[gnu::noinline]] cl_int noteArgGuarded(const char* api, cl_kernel kernel,
                                        const KernelSummary& summary, cl_uint index, size_t size,
                                        const void* value, const void* svm,
                                        bool copyValue) noexcept {
  return guardedEntry(api, [&]() -> cl_int {
    if (copyValue) rememberArg(*summary.argStore, index, size, value, svm);
    if (!summary.checksImages || svm) return CL_SUCCESS;
    if (std::shared_ptr<KernelRecord> record = g_kernelRegistry->find(kernel))
      checkBlockImageArg(*record, index, size, value);
    return CL_SUCCESS;
  });
}

// What the layer keeps of a set argument: its value for the register-capped build (lock-free,
// in place up to 16 bytes), the format of a block IO image.
cl_int noteArg(const char* api, cl_kernel kernel, const KernelSummary& summary, cl_uint index,
               size_t size, const void* value, const void* svm) noexcept {
  const bool inPlace = svm || !value || size <= sizeof(KernelRecord::ArgValue::small);
  const bool copyValue = summary.argStore && !inPlace;
  if (summary.argStore && inPlace) rememberArg(*summary.argStore, index, size, value, svm);
  if (copyValue || (summary.checksImages && !svm))
    return noteArgGuarded(api, kernel, summary, index, size, value, svm, copyValue);
  return CL_SUCCESS;
}

// Sets the application's arguments on `target` (the register-capped build of the kernel).
cl_int replayArgs(const KernelRecord::ArgStore& store, cl_kernel target) {
  for (cl_uint i = 0; i < store.values.size(); ++i) {
    const KernelRecord::ArgValue& a = store.values[i];
    cl_int err = CL_SUCCESS;
    switch (a.kind) {
      case KernelRecord::ArgValue::Kind::Unset:
        continue;  // the driver reports it, as for the application's own kernel
      case KernelRecord::ArgValue::Kind::Value:
        err = next().clSetKernelArg(target, i, a.size, a.data());
        break;
      case KernelRecord::ArgValue::Kind::Local:
        err = next().clSetKernelArg(target, i, a.size, nullptr);
        break;
      case KernelRecord::ArgValue::Kind::Svm:
        err = next().clSetKernelArgSVMPointer ? next().clSetKernelArgSVMPointer(target, i, a.svm)
                                              : CL_INVALID_OPERATION;
        break;
    }
    if (err != CL_SUCCESS) return err;
  }
  return CL_SUCCESS;
}

cl_int queueDevice(cl_command_queue queue, cl_device_id* device) {
  if (!next().clGetCommandQueueInfo) return CL_INVALID_OPERATION;
  return next().clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof *device, device, nullptr);
}

}  // namespace

cl_kernel CL_API_CALL clCloneKernel_layer(cl_kernel source_kernel, cl_int* errcode_ret) {
  return guardedCreate<cl_kernel>("clCloneKernel", errcode_ret, [&]() -> cl_kernel {
    ISG_REQUIRE_NEXT_CREATE(clCloneKernel, errcode_ret);
    cl_kernel clone = next().clCloneKernel(source_kernel, errcode_ret);
    if (clone && capture::enabled()) capture::copyArgs(source_kernel, clone);
    std::shared_ptr<KernelRecord> source = kernelRegistry().find(source_kernel);
    if (!clone || !source) return clone;
    auto record = std::make_shared<KernelRecord>();
    record->appProgram = source->appProgram;
    record->manifest = source->manifest;
    if (source->argStore) {  // a clone starts with the source's argument values
      record->argStore = std::make_unique<KernelRecord::ArgStore>();
      record->argStore->values = source->argStore->values;
    }
    if (source->holdsAppProgram && next().clRetainProgram) {
      next().clRetainProgram(record->appProgram);
      record->holdsAppProgram = true;
    }
    kernelRegistry().put(clone, record);
    return clone;
  });
}

cl_int CL_API_CALL clReleaseKernel_layer(cl_kernel kernel) {
  return guardedEntry("clReleaseKernel", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clReleaseKernel);
    if (capture::enabled()) capture::beforeReleaseKernel(kernel);
    if (!kernelRegistry().index().contains(kernel)) return next().clReleaseKernel(kernel);
    std::lock_guard<std::recursive_mutex> serial(releaseMutex());
    cl_uint references = 0;
    kernelValue(kernel, CL_KERNEL_REFERENCE_COUNT, &references);
    if (references != 1) return next().clReleaseKernel(kernel);
    std::shared_ptr<KernelRecord> record = kernelRegistry().take(kernel);
    cl_int err = next().clReleaseKernel(kernel);
    if (err != CL_SUCCESS) {
      if (record) kernelRegistry().put(kernel, record);
      return err;
    }
    if (record)
      for (auto& [index, view] : record->rawViews) view.release();
    if (record && record->cappedKernel) next().clReleaseKernel(record->cappedKernel);
    if (record && record->cappedProgram && next().clReleaseProgram)
      next().clReleaseProgram(record->cappedProgram);
    // Through the layer's own entry: this may be the application program's last reference,
    // and then its shadow goes too.
    if (record && record->holdsAppProgram) clReleaseProgram_layer(record->appProgram);
    return CL_SUCCESS;
  });
}

namespace {

// clSetKernelArg and clSetKernelArgSVMPointer past the first check below: the kernel is one the
// layer rewrote, or capture is on. `forward()` calls the next entry, `remember()` tells capture.
template <class Forward, class Remember>
cl_int setArgument(const char* api, bool known, KernelSummary summary, cl_kernel kernel,
                   cl_uint arg_index, size_t arg_size, const void* arg_value, const void* svm,
                   const Forward& forward, const Remember& remember) noexcept {
  if (known && arg_index >= summary.numUserArgs) return CL_INVALID_ARG_INDEX;
  const cl_int err = forward();
  if (err != CL_SUCCESS) return err;
  if (capture::enabled()) remember();
  if (!known) return err;
  return noteArg(api, kernel, summary, arg_index, arg_size, arg_value, svm);
}

// The per-call path's first check (docs/performance.md, benchmark 6): true when the layer has
// nothing to do with this call, which then is a tail call into the next entry; else *known
// and *summary say what the layer knows of the kernel.
inline bool passesThrough(cl_kernel kernel, bool* known, KernelSummary* summary) noexcept {
  *known = g_kernelRegistry->index().find(kernel, summary);
  return !*known && !capture::enabled();
}

// Out of line, so that the pass-through path in the entries below has no frame to set up.
[[gnu::noinline]] cl_int setKernelArgNoted(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                           const void* arg_value, KernelSummary summary,
                                           bool known) {
  return setArgument(
      "clSetKernelArg", known, summary, kernel, arg_index, arg_size, arg_value, nullptr,
      [&] { return next().clSetKernelArg(kernel, arg_index, arg_size, arg_value); },
      [&] { capture::rememberArg(kernel, arg_index, arg_size, arg_value); });
}

[[gnu::noinline]] cl_int setKernelArgSvmNoted(cl_kernel kernel, cl_uint arg_index,
                                              const void* arg_value, KernelSummary summary,
                                              bool known) {
  return setArgument(
      "clSetKernelArgSVMPointer", known, summary, kernel, arg_index, 0, nullptr, arg_value,
      [&] { return next().clSetKernelArgSVMPointer(kernel, arg_index, arg_value); },
      [&] { capture::rememberSvmArg(kernel, arg_index, arg_value); });
}

}  // namespace

cl_int CL_API_CALL clSetKernelArg_layer(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                        const void* arg_value) {
  const auto next_ = next().clSetKernelArg;
  if (!next_) return CL_INVALID_OPERATION;
  bool known = false;
  KernelSummary summary;
  if (passesThrough(kernel, &known, &summary)) return next_(kernel, arg_index, arg_size, arg_value);
  return setKernelArgNoted(kernel, arg_index, arg_size, arg_value, summary, known);
}

cl_int CL_API_CALL clSetKernelArgSVMPointer_layer(cl_kernel kernel, cl_uint arg_index,
                                                  const void* arg_value) {
  const auto next_ = next().clSetKernelArgSVMPointer;
  if (!next_) return CL_INVALID_OPERATION;
  bool known = false;
  KernelSummary summary;
  if (passesThrough(kernel, &known, &summary)) return next_(kernel, arg_index, arg_value);
  return setKernelArgSvmNoted(kernel, arg_index, arg_value, summary, known);
}

cl_int CL_API_CALL clGetKernelInfo_layer(cl_kernel kernel, cl_kernel_info param_name,
                                         size_t param_value_size, void* param_value,
                                         size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetKernelInfo);
    std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
    if (record) {
      switch (param_name) {
        case CL_KERNEL_PROGRAM:
          return writeValue(param_value_size, param_value, param_value_size_ret,
                            record->appProgram);
        case CL_KERNEL_NUM_ARGS:
          return writeValue(param_value_size, param_value, param_value_size_ret,
                            cl_uint{record->manifest.numUserArgs});
        default:
          break;
      }
    }
    return next().clGetKernelInfo(kernel, param_name, param_value_size, param_value,
                                  param_value_size_ret);
  });
}

cl_int CL_API_CALL clGetKernelArgInfo_layer(cl_kernel kernel, cl_uint arg_index,
                                            cl_kernel_arg_info param_name, size_t param_value_size,
                                            void* param_value, size_t* param_value_size_ret) {
  return guardedEntry("clGetKernelArgInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetKernelArgInfo);
    KernelSummary summary;
    bool known = false;
    if (hidesArgument(kernel, arg_index, &summary, &known)) return CL_INVALID_ARG_INDEX;
    return next().clGetKernelArgInfo(kernel, arg_index, param_name, param_value_size, param_value,
                                     param_value_size_ret);
  });
}

namespace {

// The spec's answers to a launch where PoCL 3.1 alone dereferences NULL (a NULL kernel, a wait
// list counted but not given); CL_SUCCESS when neither applies. A NULL queue is the driver's.
cl_int nullLaunchArgument(cl_command_queue queue, cl_kernel kernel, cl_uint num_events,
                          const cl_event* wait_list) {
  if (queue && !kernel) return CL_INVALID_KERNEL;
  if (queue && num_events && !wait_list) return CL_INVALID_EVENT_WAIT_LIST;
  return CL_SUCCESS;
}

cl_int enqueueNDRange(cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                      const size_t* global_work_offset, const size_t* global_work_size,
                      const size_t* local_work_size, cl_uint num_events_in_wait_list,
                      const cl_event* event_wait_list, cl_event* event) {
  auto enqueueWith = [&](cl_kernel k, const size_t* local, cl_uint waits, const cl_event* wait,
                         cl_event* done) {
    return next().clEnqueueNDRangeKernel(queue, k, work_dim, global_work_offset, global_work_size,
                                         local, waits, wait, done);
  };
  auto enqueue = [&](cl_kernel k, const size_t* local) {
    return enqueueWith(k, local, num_events_in_wait_list, event_wait_list, event);
  };
  KernelSummary summary;
  if (!g_kernelRegistry->index().find(kernel, &summary)) return enqueue(kernel, local_work_size);
  // A zero local size is CL_INVALID_WORK_GROUP_SIZE, as the spec names it (NVIDIA's driver
  // 580 takes the process down with SIGFPE instead).
  if (local_work_size && work_dim >= 1 && work_dim <= 3)
    for (cl_uint d = 0; d < work_dim; ++d)
      if (local_work_size[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
  if (work_dim < 1 || work_dim > 3) return enqueue(kernel, local_work_size);
  // A kernel with nothing to set or check launches as it is, without a lock; one that keeps
  // argument copies goes on below only once the driver refuses a work-group for resources.
  bool refused = false;
  if (!(summary.hasHiddenArgs || summary.checksImages || summary.checksRows)) {
    KernelRecord::ArgStore* store = summary.argStore;
    if (!store) return enqueue(kernel, local_work_size);
    if (!store->capped.load(std::memory_order_acquire)) {
      const cl_int err = enqueue(kernel, local_work_size);
      if (err != CL_OUT_OF_RESOURCES || !local_work_size) return err;
      refused = true;
    }
  }
  std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
  if (!record) return enqueue(kernel, local_work_size);
  const bool hidden = !record->manifest.hiddenArgs.empty();
  cl_device_id device = nullptr;
  cl_int err = queueDevice(queue, &device);
  if (err != CL_SUCCESS) return enqueue(kernel, local_work_size);  // the driver names the error
  const DeviceProfile* profile = DeviceStrategy::of(device);
  if (!profile) return enqueue(kernel, local_work_size);
  if (!global_work_size) {
    // OpenCL 2.1 and newer: an empty launch succeeds trivially, once the driver has checked the
    // arguments, the hidden ones included (any work-group size will do for those).
    if (hidden) {
      std::lock_guard<std::mutex> lock(record->enqueueMutex);
      err = setHiddenArguments(kernel, device, *profile, record->manifest, 1);
      if (err == CL_SUCCESS) err = enqueue(kernel, local_work_size);
      return err;
    }
    return enqueue(kernel, local_work_size);
  }

  // The scratch is sized per work-group, so the layer must know the work-group size.
  size_t chosen[3] = {1, 1, 1};
  const size_t* local = local_work_size;
  // The shape check needs the work-group's shape as well.
  const bool checkRows = record->rowMultiple != 0 && work_dim >= 2;
  if (!local && (hidden || checkRows)) {
    err = chooseLocalSize(kernel, device, *profile, record->manifest, work_dim, global_work_size,
                          chosen);
    if (err != CL_SUCCESS) return err;
    local = chosen;
  }
  size_t items = 0;
  if (local) {
    items = 1;
    for (cl_uint d = 0; d < work_dim; ++d) items *= local[d];
    // The device's limits, named as the driver names them, before the scratch of a work-group
    // that cannot exist is sized (which would say CL_OUT_OF_RESOURCES).
    if (items > profile->maxWorkGroupSize) return CL_INVALID_WORK_GROUP_SIZE;
    for (cl_uint d = 0; d < work_dim && d < profile->maxWorkItemSizes.size(); ++d)
      if (local[d] > profile->maxWorkItemSizes[d]) return CL_INVALID_WORK_ITEM_SIZE;
  }
  if (checkRows && items != local[0] && local[0] % record->rowMultiple != 0) {
    ISG_LOG_ERROR("kernel " << record->manifest.name << ": a work-group of "
                            << local[0] << " x " << items / local[0]
                            << " work-items cannot run on the khr strategy on this device: its "
                               "driver makes sub-groups per row, so rows must be a multiple of "
                            << record->rowMultiple
                            << " work-items (or use a 1-D work-group, or ISG_STRATEGY=local)");
    return CL_INVALID_WORK_GROUP_SIZE;
  }

  std::lock_guard<std::mutex> lock(record->enqueueMutex);
  // Images whose format the library cannot move exactly get a raw-bits view, read_write images
  // on a device without them a texel buffer (image_views.h).
  std::vector<ImageStandIn> standIns;
  std::vector<cl_uint> emulated;
  for (const HiddenArg& h : record->manifest.hiddenArgs) {
    if (h.kind != HiddenArg::Kind::RawImage) continue;
    auto bound = record->boundImages.find(h.imageArg);
    standIns.push_back({h.index, bound == record->boundImages.end() ? nullptr : bound->second, true});
    emulated.push_back(h.imageArg);
  }
  for (const auto& [index, inexact] : record->inexactImages) {
    if (std::find(emulated.begin(), emulated.end(), index) != emulated.end()) continue;
    const auto& mixed = record->manifest.mixedImageArgs;
    if (std::find(mixed.begin(), mixed.end(), index) != mixed.end()) {
      ISG_LOG_ERROR("kernel " << record->manifest.name << ": argument " << index
                              << " is an image of format " << inexact.format
                              << ", whose bits block and media IO (intel_sub_group_block_* and "
                                 "intel_sub_group_media_block_*) move through a raw-bits view on "
                                 "this device, and the kernel also passes it to other image "
                                 "functions; pass the image as a second argument for those "
                                 "(docs/builtins.md)");
      return CL_IMAGE_FORMAT_NOT_SUPPORTED;
    }
    standIns.push_back({index, inexact.image, false});
  }
  auto launch = [&](cl_kernel k, const size_t* local) -> cl_int {
    if (standIns.empty()) return enqueue(k, local);
    RawViewLaunch views(queue, k, standIns, &record->rawViews);
    cl_int e = views.prepare(num_events_in_wait_list, event_wait_list);
    if (e != CL_SUCCESS) return e;
    cl_event launched = nullptr;
    e = enqueueWith(k, local, views.numWaits(), views.waitList(), &launched);
    const cl_int after = views.finish(e == CL_SUCCESS ? launched : nullptr, event);
    return e != CL_SUCCESS ? e : after;
  };
  // Work-groups the driver refused for resources run on the register-capped build.
  const bool capped = record->cappedKernel && items >= record->refusedFrom &&
                      items <= record->cappedFor;
  if (!capped) {
    if (refused) {  // the launch above, as it is
      err = CL_OUT_OF_RESOURCES;
    } else {
      if (hidden) {
        err = setHiddenArguments(kernel, device, *profile, record->manifest, items);
        if (err != CL_SUCCESS) return err;
      }
      err = launch(kernel, local);
    }
    if (err != CL_OUT_OF_RESOURCES || !record->argStore || items == 0) return err;
    record->refusedFrom = record->refusedFrom ? std::min(record->refusedFrom, items) : items;
    if (!record->cappedKernel || items > record->cappedFor) {
      std::shared_ptr<ProgramRecord> program = programRegistry().find(record->appProgram);
      cl_program built = nullptr;
      cl_kernel k = program ? buildCappedKernel(*program, record->manifest.name, device, items,
                                                &built)
                            : nullptr;
      if (!k) return err;
      if (record->cappedKernel) next().clReleaseKernel(record->cappedKernel);
      if (record->cappedProgram) next().clReleaseProgram(record->cappedProgram);
      record->cappedKernel = k;
      record->cappedProgram = built;
      record->cappedFor = items;
      record->argStore->capped.store(true, std::memory_order_release);
    }
  }
  err = replayArgs(*record->argStore, record->cappedKernel);
  if (err == CL_SUCCESS && hidden)
    err = setHiddenArguments(record->cappedKernel, device, *profile, record->manifest, items);
  if (err != CL_SUCCESS) return err;
  return launch(record->cappedKernel, local);
}

cl_int enqueueTask(cl_command_queue queue, cl_kernel kernel, cl_uint num_events_in_wait_list,
                   const cl_event* event_wait_list, cl_event* event) {
  auto forward = [&] {
    return next().clEnqueueTask(queue, kernel, num_events_in_wait_list, event_wait_list, event);
  };
  if (!needsHiddenArguments(kernel)) return forward();
  std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
  if (!record || record->manifest.hiddenArgs.empty()) return forward();
  // Texel buffers are set per launch: a task is an ND-range of one work-item.
  for (const HiddenArg& h : record->manifest.hiddenArgs)
    if (h.kind == HiddenArg::Kind::RawImage) {
      static const size_t kOne[1] = {1};
      return enqueueNDRange(queue, kernel, 1, nullptr, kOne, kOne, num_events_in_wait_list,
                            event_wait_list, event);
    }
  cl_device_id device = nullptr;
  if (queueDevice(queue, &device) != CL_SUCCESS) return forward();
  const DeviceProfile* profile = DeviceStrategy::of(device);
  if (!profile) return forward();
  // A task is one work-group of one work-item.
  std::lock_guard<std::mutex> lock(record->enqueueMutex);
  cl_int err = setHiddenArguments(kernel, device, *profile, record->manifest, 1);
  if (err != CL_SUCCESS) return err;
  return forward();
}

}  // namespace

// Capture (capture/enqueue_capture.h) brackets the enqueue: it reads the inputs before and the outputs after;
// it is inert unless ISG_CAPTURE_DIR is set and the enqueue matches its filters.
cl_int CL_API_CALL clEnqueueNDRangeKernel_layer(cl_command_queue queue, cl_kernel kernel,
                                                cl_uint work_dim, const size_t* global_work_offset,
                                                const size_t* global_work_size,
                                                const size_t* local_work_size,
                                                cl_uint num_events_in_wait_list,
                                                const cl_event* event_wait_list, cl_event* event) {
  return guardedEntry("clEnqueueNDRangeKernel", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clEnqueueNDRangeKernel);
    if (cl_int err = nullLaunchArgument(queue, kernel, num_events_in_wait_list, event_wait_list)) return err;
    capture::EnqueueCapture capture({"clEnqueueNDRangeKernel", queue, kernel, work_dim,
                                     global_work_offset, global_work_size, local_work_size,
                                     num_events_in_wait_list, event_wait_list});
    cl_int err = enqueueNDRange(queue, kernel, work_dim, global_work_offset, global_work_size,
                                local_work_size, num_events_in_wait_list, event_wait_list, event);
    capture.after(err);
    return err;
  });
}

cl_int CL_API_CALL clEnqueueTask_layer(cl_command_queue queue, cl_kernel kernel,
                                       cl_uint num_events_in_wait_list,
                                       const cl_event* event_wait_list, cl_event* event) {
  return guardedEntry("clEnqueueTask", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clEnqueueTask);
    if (cl_int err = nullLaunchArgument(queue, kernel, num_events_in_wait_list, event_wait_list)) return err;
    // A task is an ND-range of one work-item in one work-group, and is recorded as one.
    static const size_t kOne[1] = {1};
    capture::EnqueueCapture capture({"clEnqueueTask", queue, kernel, 1, nullptr, kOne, kOne,
                                     num_events_in_wait_list, event_wait_list});
    cl_int err = enqueueTask(queue, kernel, num_events_in_wait_list, event_wait_list, event);
    capture.after(err);
    return err;
  });
}

}  // namespace isg
