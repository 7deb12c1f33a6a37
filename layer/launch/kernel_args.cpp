// SPDX-License-Identifier: MIT
// clSetKernelArg and clSetKernelArgSVMPointer: the per-call path (docs/performance.md,
// benchmark 6). What the layer keeps of a value: a copy for the register-capped build
// (register_cap.h), the format of a block IO image (image_views.h), and capture's copy.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>

#include "capture/enqueue_capture.h"
#include "core/arg_values.h"
#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "launch/kernel_records.h"
#include "launch/kernel_records.h"
#include "memory/image_views.h"

namespace isg {

namespace {

// Keeps the value of an argument of a kernel that may have to switch to its register-capped
// build (register_cap.h) or a launch variant (launch_variants.h); `isSvm` for
// clSetKernelArgSVMPointer, whose pointer `svm` may be NULL.
[[gnu::always_inline]] inline void remember(KernelRecord::ArgStore& store, cl_uint index,
                                            size_t size, const void* value, const void* svm,
                                            bool isSvm) {
  if (index >= store.size()) return;
  if (isSvm)
    store[index].setSvm(svm);
  else
    store[index].set(size, value);
}

// After clSetKernelArg: whether argument `index`, if block or media IO reads or writes it, now
// names an image whose format they cannot move exactly; and its facts for the kernel.
cl_int checkBlockImageArg(cl_kernel kernel, KernelRecord& record, cl_uint index, size_t size,
                          const void* value) {
  const auto& args = record.manifest.blockImageArgs;
  if (std::find(args.begin(), args.end(), index) == args.end()) return CL_SUCCESS;
  std::string inexact;
  cl_mem mem = nullptr;
  if (value && size == sizeof mem) std::memcpy(&mem, value, sizeof mem);
  cl_mem_object_type type = 0;
  cl_image_format format = {};
  const bool image2d =
      mem && memValue(mem, CL_MEM_TYPE, &type) == CL_SUCCESS && type == CL_MEM_OBJECT_IMAGE2D;
  const bool formatKnown = image2d && imageValue(mem, CL_IMAGE_FORMAT, &format) == CL_SUCCESS;
  if (formatKnown) exactForBlockIO(format, &inexact);
  std::lock_guard<std::mutex> lock(record.enqueueMutex);
  record.images.bound[index] = image2d ? mem : nullptr;
  if (inexact.empty())
    record.images.inexact.erase(index);
  else
    record.images.inexact[index] = {mem, inexact};
  return setImageFacts(kernel, record.manifest, index, image2d ? mem : nullptr,
                       formatKnown ? &format : nullptr);
}

// What noteArg cannot do without allocating or locking: a value larger than ArgValue::small,
// the format of a block IO image (through the record).
[[gnu::noinline]] cl_int noteArgGuarded(const char* api, cl_kernel kernel,
                                        const KernelSummary summary, cl_uint index, size_t size,
                                        const void* value, const void* svm, bool isSvm,
                                        bool copyValue) noexcept {
  return guardedEntry(api, [&]() -> cl_int {
    if (copyValue) remember(*summary.argStore, index, size, value, svm, isSvm);
    if (!summary.checksImages() || isSvm) return CL_SUCCESS;
    if (std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel))
      return checkBlockImageArg(kernel, *record, index, size, value);
    return CL_SUCCESS;
  });
}

// What the layer keeps of a set argument: its value for the register-capped build (lock-free,
// in place up to 16 bytes), the format of a block IO image.
inline cl_int noteArg(const char* api, cl_kernel kernel, const KernelSummary summary, cl_uint index,
                      size_t size, const void* value, const void* svm, bool isSvm) noexcept {
  const bool inPlace = isSvm || !value || ArgValue::fitsInPlace(size);
  const bool copyValue = summary.argStore && !inPlace;
  if (summary.argStore && inPlace) remember(*summary.argStore, index, size, value, svm, isSvm);
  if (copyValue || (summary.checksImages() && !isSvm)) [[unlikely]]
    return noteArgGuarded(api, kernel, summary, index, size, value, svm, isSvm, copyValue);
  return CL_SUCCESS;
}

// clSetKernelArg and clSetKernelArgSVMPointer of a kernel the layer rewrote (summary.known())
// whose value it keeps, or of any kernel while capture is on. `forward()` calls the next entry,
// `remember()` tells capture.
template <class Forward, class Remember>
inline cl_int setArgument(const char* api, const KernelSummary summary, cl_kernel kernel,
                          cl_uint arg_index, size_t arg_size, const void* arg_value,
                          const void* svm, bool isSvm, const Forward& forward,
                          const Remember& remember) noexcept {
  const cl_int err = forward();
  if (err != CL_SUCCESS) return err;
  if (capture::enabled()) [[unlikely]]
    remember();
  if (!summary.known()) return err;
  return noteArg(api, kernel, summary, arg_index, arg_size, arg_value, svm, isSvm);
}

[[gnu::noinline]] cl_int setKernelArgNoted(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                           const void* arg_value, const KernelSummary summary) {
  return setArgument(
      "clSetKernelArg", summary, kernel, arg_index, arg_size, arg_value, nullptr, false,
      [&] { return next().clSetKernelArg(kernel, arg_index, arg_size, arg_value); },
      [&] { capture::rememberArg(kernel, arg_index, arg_size, arg_value); });
}

[[gnu::noinline]] cl_int setKernelArgSvmNoted(cl_kernel kernel, cl_uint arg_index,
                                              const void* arg_value, const KernelSummary summary) {
  return setArgument(
      "clSetKernelArgSVMPointer", summary, kernel, arg_index, 0, nullptr, arg_value, true,
      [&] { return next().clSetKernelArgSVMPointer(kernel, arg_index, arg_value); },
      [&] { capture::rememberSvmArg(kernel, arg_index, arg_value); });
}

// The two entries' parts, for the paths below: keptForward(), the register cap's copy kept in
// place and the call into the driver (a handle, a 4- or 8-byte scalar, local memory, an SVM
// pointer: copied in registers, each with its own tail call), or the noting path for other
// sizes (their copy calls memcpy, which would give the path a frame); forward(), the call into
// the driver; noted(), the noting path. clSetKernelArgSVMPointer's calls pass 0 for the size.
struct SetArg {
  [[gnu::always_inline]] static cl_int keptForward(ArgValue& v, cl_kernel kernel, cl_uint index,
                                                   size_t size, const void* value,
                                                   KernelSummary summary) {
    if (size == 8) [[likely]] {
      v.set(8, value);
      return forward(kernel, index, size, value);
    }
    if (!value) {
      v.set(size, nullptr);
      return forward(kernel, index, size, value);
    }
    if (size == 4) {
      v.set(4, value);
      return forward(kernel, index, size, value);
    }
    return noted(kernel, index, size, value, summary);
  }
  static cl_int forward(cl_kernel kernel, cl_uint index, size_t size, const void* value) {
    return next().clSetKernelArg(kernel, index, size, value);
  }
  static cl_int noted(cl_kernel kernel, cl_uint index, size_t size, const void* value,
                      KernelSummary summary) {
    return setKernelArgNoted(kernel, index, size, value, summary);
  }
};
struct SetSvmArg {
  [[gnu::always_inline]] static cl_int keptForward(ArgValue& v, cl_kernel kernel, cl_uint index,
                                                   size_t size, const void* value, KernelSummary) {
    v.setSvm(value);
    return forward(kernel, index, size, value);
  }
  static cl_int forward(cl_kernel kernel, cl_uint index, size_t, const void* value) {
    return next().clSetKernelArgSVMPointer(kernel, index, value);
  }
  static cl_int noted(cl_kernel kernel, cl_uint index, size_t, const void* value,
                      KernelSummary summary) {
    return setKernelArgSvmNoted(kernel, index, value, summary);
  }
};

// What a rewritten kernel's handle needs: the index checked against the application's own
// arguments (the driver's kernel has hidden ones after them) and the value kept where the
// layer keeps it. The calls into the driver here are tail calls where nothing follows them.
template <class Call>
[[gnu::always_inline]] inline cl_int known(const KernelSummary summary, cl_kernel kernel,
                                           cl_uint arg_index, size_t arg_size,
                                           const void* arg_value) {
  // One comparison for the common call: an index the kernel keeps plainly (plainArgs).
  if (arg_index >= summary.plainArgs()) [[unlikely]] {
    if (arg_index >= summary.numUserArgs()) return CL_INVALID_ARG_INDEX;
    if (summary.checksImages() || capture::enabled())
      return Call::noted(kernel, arg_index, arg_size, arg_value, summary);
    if (!summary.argStore) return Call::forward(kernel, arg_index, arg_size, arg_value);
  }
  // The register cap's copy is kept before the driver answers, so the call stays a tail
  // call: it holds the value the application set last, which a capped launch sets again
  // (a value the driver refused fails there too, and the launch keeps the driver's refusal:
  // register_cap.h). The index is below numUserArgs, the store's size (kernels.cpp makes both
  // of one manifest).
  return Call::keptForward((*summary.argStore)[arg_index], kernel, arg_index, arg_size, arg_value,
                           summary);
}

// A handle the filter names but its slot does not cache, or any handle while capture is on:
// a rewritten kernel the index holds, as above; CL_INVALID_KERNEL for a program.
template <class Call>
[[gnu::noinline]] cl_int probed(cl_kernel kernel, cl_uint arg_index, size_t arg_size,
                                const void* arg_value) {
  KernelSummary summary;
  if (kernelIndex().probe(kernel, &summary))
    return known<Call>(summary, kernel, arg_index, arg_size, arg_value);
  if (handleKinds().kindOf(kernel) == HandleKind::Program) [[unlikely]]
    return CL_INVALID_KERNEL;
  if (capture::enabled()) return Call::noted(kernel, arg_index, arg_size, arg_value, {});
  return Call::forward(kernel, arg_index, arg_size, arg_value);
}

// The per-call path. Without capture, a rewritten kernel its filter slot caches (nearly every
// one) is served in registers, inline in the entry, which then needs no frame; a handle the
// slot does not cache and the filter does not name (perCallHandles), with one more load, is a
// tail call into the next entry (docs/performance.md, benchmark 6); the rest, which need a
// frame, go out of line. With capture (`kCapture`, fixed for the process: loader_entry.cpp
// installs that entry), every handle is looked up. The cached kernel's [[unlikely]] is for
// layout, not frequency: its path goes after the pass-through one, which then fits the entry's
// first cache line. Not noexcept: that would make the calls into the driver ordinary calls (to
// end the process should one throw) instead of tail calls.
template <class Call, bool kCapture>
[[gnu::always_inline]] inline cl_int perCallPath(cl_kernel kernel, cl_uint arg_index,
                                                 size_t arg_size, const void* arg_value) {
  KernelSummary summary;
  if (KernelIndex::cached(kernel, &summary)) [[unlikely]]
    return known<Call>(summary, kernel, arg_index, arg_size, arg_value);
  if (kCapture || perCallHandles().mayHold(kernel)) [[unlikely]]
    return probed<Call>(kernel, arg_index, arg_size, arg_value);
  return Call::forward(kernel, arg_index, arg_size, arg_value);
}

// A NULL value: local memory, or a NULL buffer (a cl_mem's size). Of another size, local
// memory, which a global or constant pointer argument cannot take: the spec's
// CL_INVALID_ARG_SIZE. NVIDIA's driver (580) accepts it and corrupts its heap (the process ends
// at the kernel's release), so the layer answers first, for every kernel whose argument's
// address space it can learn (the layer's manifest, or the driver's argument information). Out
// of line: the per-call path then knows its value is not NULL.
template <bool kCapture>
[[gnu::noinline]] cl_int setNullArg(cl_kernel kernel, cl_uint arg_index, size_t arg_size) noexcept {
  if (arg_size != sizeof(cl_mem) && arg_size != 0) {
    cl_kernel_arg_address_qualifier address = 0;
    if (kernel &&
        clGetKernelArgInfo_layer(kernel, arg_index, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof address,
                                 &address, nullptr) == CL_SUCCESS &&
        (address == CL_KERNEL_ARG_ADDRESS_GLOBAL || address == CL_KERNEL_ARG_ADDRESS_CONSTANT))
      return CL_INVALID_ARG_SIZE;
  }
  return perCallPath<SetArg, kCapture>(kernel, arg_index, arg_size, nullptr);
}

template <bool kCapture>
[[gnu::always_inline]] inline cl_int CL_API_CALL
setKernelArgEntry(cl_kernel kernel, cl_uint arg_index, size_t arg_size, const void* arg_value) {
  if (!arg_value) [[unlikely]]
    return setNullArg<kCapture>(kernel, arg_index, arg_size);
  return perCallPath<SetArg, kCapture>(kernel, arg_index, arg_size, arg_value);
}

template <bool kCapture>
[[gnu::always_inline]] inline cl_int CL_API_CALL setKernelArgSvmEntry(cl_kernel kernel,
                                                                      cl_uint arg_index,
                                                                      const void* arg_value) {
  if (!next().clSetKernelArgSVMPointer) return CL_INVALID_OPERATION;
  return perCallPath<SetSvmArg, kCapture>(kernel, arg_index, 0, arg_value);
}

}  // namespace

// Installed only where the target has clSetKernelArg (loader_entry.cpp). Aligned to a cache
// line, so that the pass-through path lies in one and the rewritten kernel's in the next,
// whichever way the code before them moves (docs/performance.md, benchmark 6).
[[gnu::aligned(64)]] cl_int CL_API_CALL clSetKernelArg_layer(cl_kernel kernel, cl_uint arg_index,
                                                             size_t arg_size,
                                                             const void* arg_value) {
  return setKernelArgEntry<false>(kernel, arg_index, arg_size, arg_value);
}
[[gnu::aligned(64)]] cl_int CL_API_CALL clSetKernelArgSVMPointer_layer(cl_kernel kernel,
                                                                       cl_uint arg_index,
                                                                       const void* arg_value) {
  return setKernelArgSvmEntry<false>(kernel, arg_index, arg_value);
}

void useCapturingArgEntries(cl_icd_dispatch& table) {
  if (table.clSetKernelArg == &clSetKernelArg_layer)
    table.clSetKernelArg = &setKernelArgEntry<true>;
  if (table.clSetKernelArgSVMPointer == &clSetKernelArgSVMPointer_layer)
    table.clSetKernelArgSVMPointer = &setKernelArgSvmEntry<true>;
}

// Settings only the application's kernel object gets: its launches keep to it
// (launch_variants.h).
cl_int CL_API_CALL clSetKernelExecInfo_layer(cl_kernel kernel, cl_kernel_exec_info param_name,
                                             size_t param_value_size, const void* param_value) {
  return guardedEntry("clSetKernelExecInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clSetKernelExecInfo);
    ISG_REJECT_WRONG_KIND(kernel, Kernel, CL_INVALID_KERNEL);
    const cl_int err =
        next().clSetKernelExecInfo(kernel, param_name, param_value_size, param_value);
    if (err == CL_SUCCESS && kernelIndex().contains(kernel))
      if (std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel))
        record->execInfoSet.store(true, std::memory_order_release);
    return err;
  });
}

}  // namespace isg
