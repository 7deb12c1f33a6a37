// SPDX-License-Identifier: MIT
// clEnqueueNDRangeKernel and clEnqueueTask: the spec's checks the drivers miss, capture around
// the launch, and the launch itself. Kernels the layer passes through, and rewritten kernels
// with nothing to set or check, launch without a lock; the others run their launch plan
// (launch_plan.h).
#include <memory>

#include "capture/enqueue_capture.h"
#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "devices/device_strategy.h"
#include "launch/kernel_records.h"
#include "launch/launch_plan.h"
#include "launch/work_group_parts.h"

namespace isg {

namespace {

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

// A zero local size is CL_INVALID_WORK_GROUP_SIZE, as the spec names it (NVIDIA's driver 580
// takes the process down with SIGFPE instead).
cl_int checkLocalSize(const Launch& l) {
  if (l.localSize && l.workDim >= 1 && l.workDim <= 3)
    for (cl_uint d = 0; d < l.workDim; ++d)
      if (l.localSize[d] == 0) return CL_INVALID_WORK_GROUP_SIZE;
  return CL_SUCCESS;
}

cl_int asGiven(const Launch& l) {
  return LaunchPlan::enqueue(l, l.kernel, l.localSize, l.numEvents, l.events, l.event);
}

// A launch of a kernel whose summary says there is nothing to set or check: without a lock.
// True when it is done (*err its result); false when the launch goes on through the record,
// with *refused when the driver refused this one for resources (register_cap.h).
bool launchedWithoutRecord(const Launch& l, const KernelSummary& summary, bool* refused,
                           cl_int* err) {
  if (summary.hasHiddenArgs() || summary.checksImages() || summary.checksRows() ||
      summary.variants())
    return false;
  if (summary.shapesLaunch() && unevenLaunch(l.workDim, l.globalSize, l.localSize)) return false;
  if (!summary.argStore) {
    *err = asGiven(l);
    return true;
  }
  if (summary.argStore->capped.load(std::memory_order_acquire)) return false;
  *err = asGiven(l);
  if (*err != CL_OUT_OF_RESOURCES || !l.localSize) return true;
  *refused = true;
  return false;
}

// clEnqueueNDRangeKernel and clEnqueueTask alike: kernels the layer passes through, and those
// with nothing to set or check, as given; the others as their launch plan (launch_plan.h).
cl_int enqueueKernel(const Launch& application) {
  const cl_kernel kernel = application.kernel;
  // Every kernel's, the driver's own too: NVIDIA's driver dies on a zero local size.
  if (cl_int err = checkLocalSize(application)) return err;
  KernelSummary summary;
  if (!kernelIndex().find(kernel, &summary)) return asGiven(application);
  if (application.workDim < 1 || application.workDim > 3) return asGiven(application);
  bool refused = false;
  cl_int err = CL_SUCCESS;
  if (launchedWithoutRecord(application, summary, &refused, &err)) return err;

  std::shared_ptr<KernelRecord> record = kernelRegistry().find(kernel);
  if (!record) return asGiven(application);
  cl_device_id device = nullptr;
  if (queueDevice(application.queue, &device) != CL_SUCCESS)
    return asGiven(application);  // the driver names the error
  const DeviceProfile* profile = DeviceStrategy::of(device);
  if (!profile) return asGiven(application);

  LaunchPlan plan;
  if ((err = LaunchPlan::make(application, summary, *record, device, *profile, &plan))) return err;
  return plan.carryOut(*record, refused);
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
    const Launch launch{
        {"clEnqueueNDRangeKernel", queue, kernel, work_dim, global_work_offset, global_work_size,
         local_work_size, num_events_in_wait_list, event_wait_list},
        event};
    capture::EnqueueCapture capture(launch);
    const cl_int err = enqueueKernel(launch);
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
                        event,
                        true};
    capture::EnqueueCapture capture(launch);
    const cl_int err = enqueueKernel(launch);
    capture.after(err);
    return err;
  });
}

}  // namespace isg
