// SPDX-License-Identifier: MIT
// Capture (docs/compare.md): with ISG_CAPTURE_DIR set, the layer records each matching kernel
// enqueue as a self-contained case that tools/isg-replay runs on another device and diffs.
// Capture only observes: it never changes what the driver receives or returns, and a failure to
// capture is logged and forgotten. Every function here is noexcept for that reason.
#pragma once

#include <CL/cl.h>

#include <memory>

#include "core/launch_description.h"
#include "core/layer_api.h"

namespace isg::capture {

// The entries capture needs. With ISG_DISABLE=1 and ISG_CAPTURE_DIR set, the layer intercepts
// only these (the rewriting entries stay the driver's), so a run without the layer's rewriting
// can still be captured.
#define ISG_CAPTURE_ENTRIES(X) \
  X(clSetKernelArg)            \
  X(clSetKernelArgSVMPointer)  \
  X(clCloneKernel)             \
  X(clReleaseKernel)           \
  X(clEnqueueNDRangeKernel)    \
  X(clEnqueueTask)

// ISG_CAPTURE_DIR is set. Inline: clSetKernelArg asks on every call.
inline bool enabled() noexcept { return !config().CAPTURE_DIR.empty(); }

// Argument tracking, called after the driver accepted the call (the driver keeps only opaque
// state; the case needs the values as the application gave them).
void rememberArg(cl_kernel kernel, cl_uint index, size_t size, const void* value) noexcept;
void rememberSvmArg(cl_kernel kernel, cl_uint index, const void* pointer) noexcept;
void copyArgs(cl_kernel from, cl_kernel to) noexcept;  // clCloneKernel copies argument values
// Called before the driver release; forgets the kernel when this is its last reference.
void beforeReleaseKernel(cl_kernel kernel) noexcept;

struct Pending;

// One enqueue seen by capture. When the enqueue matches the filters it snapshots the inputs
// before the kernel is enqueued, then (after) waits for the kernel, reads the outputs and
// writes the case. Inert otherwise.
class EnqueueCapture {
 public:
  using Launch = LaunchDescription;
  explicit EnqueueCapture(const Launch& launch) noexcept;
  ~EnqueueCapture();
  EnqueueCapture(const EnqueueCapture&) = delete;
  EnqueueCapture& operator=(const EnqueueCapture&) = delete;

  // `result` is what the driver returned for the enqueue; only a successful one is recorded.
  void after(cl_int result) noexcept;

 private:
  std::unique_ptr<Pending> pending_;
};

}  // namespace isg::capture
