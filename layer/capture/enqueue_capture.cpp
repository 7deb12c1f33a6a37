// SPDX-License-Identifier: MIT
// Capture of kernel enqueues into isg-kernel-case directories (case_format.h,
// docs/compare.md): the enqueue hook, which picks the enqueues to capture, reads their memory
// before and after the kernel, and has the case described (case_description.h) and written
// (case_writer.h). Everything reaches the driver through next(): the layer's own entries must
// not see (or capture) the reads capture makes.
#include "capture/enqueue_capture.h"

#include <atomic>
#include <memory>
#include <string>

#include "capture/capture_error.h"
#include "capture/capture_policy.h"
#include "capture/case_description.h"
#include "capture/case_writer.h"
#include "capture/layer_facts.h"
#include "core/driver_queries.h"
#include "core/layer_api.h"

namespace isg::capture {
namespace {

std::atomic<std::uint64_t> g_matchingEnqueues{0};

void readMemory(const Pending& p, const Pending::Memory& m, std::string* out) {
  const cl_icd_dispatch& d = next();
  const size_t size = p.c.memory[&m - p.memory.data()].size;
  out->assign(size, '\0');
  if (m.image) {
    if (!d.clEnqueueReadImage) failCapture("the driver has no clEnqueueReadImage");
    const size_t origin[3] = {0, 0, 0};
    check(d.clEnqueueReadImage(p.queue, m.handle, CL_TRUE, origin, m.region, 0, 0, out->data(), 0,
                               nullptr, nullptr),
          "reading an image argument");
  } else {
    if (!d.clEnqueueReadBuffer) failCapture("the driver has no clEnqueueReadBuffer");
    check(d.clEnqueueReadBuffer(p.queue, m.handle, CL_TRUE, 0, size, out->data(), 0, nullptr,
                                nullptr),
          "reading a buffer argument");
  }
}

void finishQueue(cl_command_queue queue) {
  if (!next().clFinish) failCapture("the driver has no clFinish");
  check(next().clFinish(queue), "clFinish");
}

// The inputs are read once everything the kernel waits for is done. A wait on a user event the
// application has not signalled yet would never return (the application signals it after this
// enqueue), so such an enqueue is not captured.
void waitForInputs(const EnqueueCapture::Launch& l) {
  for (cl_uint i = 0; l.events && i < l.numEvents; ++i) {
    cl_command_type type = 0;
    cl_int status = CL_COMPLETE;
    if (!next().clGetEventInfo) break;
    next().clGetEventInfo(l.events[i], CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr);
    next().clGetEventInfo(l.events[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status,
                          nullptr);
    if (type == CL_COMMAND_USER && status != CL_COMPLETE)
      failCapture("the enqueue waits on a user event that is not complete yet");
  }
  if (l.numEvents && l.events) {
    if (!next().clWaitForEvents) failCapture("the driver has no clWaitForEvents");
    // An event that failed fails the kernel too; the enqueue is then not recorded (after()).
    next().clWaitForEvents(l.numEvents, l.events);
  }
  finishQueue(l.queue);
}

}  // namespace

EnqueueCapture::EnqueueCapture(const Launch& launch) noexcept {
  if (!enabled()) return;
  std::string kernelName;
  try {
    if (kernelString(launch.kernel, CL_KERNEL_FUNCTION_NAME, &kernelName) != CL_SUCCESS)
      return;  // an invalid kernel: the driver reports it
    if (!nameSelected(kernelName)) return;
    cl_device_id device = nullptr;
    if (!next().clGetCommandQueueInfo) failCapture("the driver has no clGetCommandQueueInfo");
    check(next().clGetCommandQueueInfo(launch.queue, CL_QUEUE_DEVICE, sizeof device, &device,
                                       nullptr),
          "CL_QUEUE_DEVICE");
    if (config().CAPTURE_REWRITTEN_ONLY &&
        (config().DISABLE || !layerFacts(launch.kernel, device).rewritten))
      return;
    const std::uint64_t ordinal = ++g_matchingEnqueues;
    if (config().CAPTURE_ENQUEUE != 0 && ordinal != config().CAPTURE_ENQUEUE) return;
    if (!withinPerKernel(kernelName)) return;
    if (!reserveCase(kernelName)) return;
    auto p = std::make_unique<Pending>();
    p->reserved = true;
    p->queue = launch.queue;
    p->c.kernelName = kernelName;
    p->c.enqueueIndex = ordinal;
    pending_ = std::move(p);
    describeLaunch(*pending_, launch, device);
    std::uint64_t bytes = pending_->source.size() + 4096;
    for (size_t i = 0; i < pending_->memory.size(); ++i)
      bytes += pending_->c.memory[i].size * (pending_->memory[i].writable ? 2 : 1);
    if (!reserveBytes(bytes, kernelName)) {
      pending_->release();
      pending_.reset();
      return;
    }
    pending_->bytes = bytes;
    waitForInputs(launch);
    for (Pending::Memory& m : pending_->memory) readMemory(*pending_, m, &m.before);
    return;
  } catch (const CaptureError& e) {
    ISG_LOG_WARNING("capture: kernel " << kernelName << " not captured: " << e.what);
  } catch (const std::bad_alloc&) {
    ISG_LOG_WARNING("capture: kernel " << kernelName << " not captured: out of host memory");
  } catch (...) {
    ISG_LOG_WARNING("capture: kernel " << kernelName << " not captured: internal error");
  }
  if (pending_) pending_->release();
  pending_.reset();
}

EnqueueCapture::~EnqueueCapture() = default;

void EnqueueCapture::after(cl_int result) noexcept {
  if (!pending_) return;
  std::unique_ptr<Pending> p = std::move(pending_);
  try {
    if (result != CL_SUCCESS) {
      ISG_LOG_DEBUG("capture: the enqueue of " << p->c.kernelName << " failed (" << result
                                               << "); nothing recorded");
      p->release();
      return;
    }
    finishQueue(p->queue);
    for (Pending::Memory& m : p->memory)
      if (m.writable) readMemory(*p, m, &m.after);
    writeCase(*p);
    return;
  } catch (const CaptureError& e) {
    ISG_LOG_WARNING("capture: kernel " << p->c.kernelName << " not captured: " << e.what);
  } catch (const std::bad_alloc&) {
    ISG_LOG_WARNING("capture: kernel " << p->c.kernelName << " not captured: out of host memory");
  } catch (...) {
    ISG_LOG_WARNING("capture: kernel " << p->c.kernelName << " not captured: internal error");
  }
  p->release();
}

}  // namespace isg::capture
