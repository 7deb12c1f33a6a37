// SPDX-License-Identifier: MIT
// Which live handles the application holds are programs and which are kernels, so that an entry
// given a handle of the other kind answers the spec's invalid-object error instead of passing it
// on. Drivers do not tell the kinds apart: PoCL 3.1 reads a cl_kernel passed to clCreateKernel as
// a program and answers whatever its bytes say (CL_INVALID_KERNEL_NAME, CL_INVALID_PROGRAM_
// EXECUTABLE, or a crash), and the layer's own queries about the program then read the same
// bytes (issue 54). Every entry that creates, retains or releases a program or a kernel is the
// layer's, so the table knows every one the application holds; a handle it does not know
// (another kind of object, a stale handle) still goes to the driver, which answers as it alone
// would. Reads are lock-free (the per-call entries check their kernel); the counts that decide
// when a handle leaves the table are the application's references, under a mutex.
#pragma once

#include <CL/cl.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "core/handle_index.h"
#include "core/immortal.h"

namespace isg {

enum class HandleKind : uint64_t { Unknown = 0, Program = 1, Kernel = 2 };

class HandleKinds {
 public:
  HandleKind kindOf(const void* handle) const noexcept {
    uint64_t kind = 0;
    return index_.find(handle, &kind) ? static_cast<HandleKind>(kind) : HandleKind::Unknown;
  }
  // A handle the driver has just given the application, with one reference.
  void created(const void* handle, HandleKind kind);
  // clRetain* / clRelease* that the driver accepted, for a handle of this kind.
  void retained(const void* handle, HandleKind kind);
  void released(const void* handle, HandleKind kind);

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, cl_uint> references_;  // guarded by mutex_
  HandleIndex index_;                                    // written under mutex_
};

namespace detail {
extern Immortal<HandleKinds> g_handleKinds;
extern HandleFilter g_perCallHandles;
}  // namespace detail
// Inline, without a guard: the per-call entries read it with no call to set up a frame for.
inline HandleKinds& handleKinds() { return detail::g_handleKinds.get(); }
// The handles clSetKernelArg* must look up (HandleFilter): programs (the wrong kind there) and
// kernels the layer keeps a record of (KernelIndex). Every other handle, a kernel the layer
// passes through above all, goes straight to the driver.
inline const HandleFilter& perCallHandles() { return detail::g_perCallHandles; }

// The error an entry answers for `handle` where it wants `want` and the handle is a live object
// of the other kind the table knows; CL_SUCCESS otherwise (including a NULL or unknown handle,
// which the driver judges). `error` is the spec's code for an invalid object of that parameter.
inline cl_int wrongKind(const void* handle, HandleKind want, cl_int error) noexcept {
  const HandleKind kind = handleKinds().kindOf(handle);
  return kind != HandleKind::Unknown && kind != want ? error : CL_SUCCESS;
}
// For parameters that take neither kind (a context, a queue, a device): any known handle is wrong.
inline cl_int notAProgramOrKernel(const void* handle, cl_int error) noexcept {
  return handleKinds().kindOf(handle) != HandleKind::Unknown ? error : CL_SUCCESS;
}

template <class Handle>
cl_int notAProgramOrKernelIn(cl_uint count, const Handle* list, cl_int error) noexcept {
  if (list)
    for (cl_uint i = 0; i < count; ++i)
      if (const cl_int wrong = notAProgramOrKernel(list[i], error)) return wrong;
  return CL_SUCCESS;
}

// A creation's context and device list.
inline cl_int wrongContextOrDevices(cl_context context, cl_uint count,
                                    const cl_device_id* devices) noexcept {
  if (const cl_int wrong = notAProgramOrKernel(context, CL_INVALID_CONTEXT)) return wrong;
  return notAProgramOrKernelIn(count, devices, CL_INVALID_DEVICE);
}

// A NULL entry in a device list is CL_INVALID_DEVICE by the spec; drivers dereference it (PoCL
// 3.1 crashes), so the layer answers before forwarding.
inline bool listHasNullDevice(cl_uint count, const cl_device_id* devices) noexcept {
  return devices && std::find(devices, devices + count, nullptr) != devices + count;
}

}  // namespace isg

// An entry's first lines: return the spec's error for a handle of the wrong kind.
#define ISG_REJECT_WRONG_KIND(handle, want, error)                                            \
  if (const cl_int isg_wrong_kind = ::isg::wrongKind(handle, ::isg::HandleKind::want, error)) \
  return isg_wrong_kind
#define ISG_REJECT_WRONG_KIND_CREATE(handle, want, error, errcode_ret)                          \
  if (const cl_int isg_wrong_kind = ::isg::wrongKind(handle, ::isg::HandleKind::want, error)) { \
    if (errcode_ret) *(errcode_ret) = isg_wrong_kind;                                           \
    return nullptr;                                                                             \
  }
