// SPDX-License-Identifier: MIT
// Intel-targeted programs launch at the device's largest work-group. On NVIDIA a rewritten
// kernel that needs more registers than a work-group of that size leaves each work-item is
// refused at enqueue (CL_OUT_OF_RESOURCES; measured with the local strategy's exchanges at
// 1024 work-items on an H100). Then the layer builds the kernel's program again with a register
// cap for that work-group (-cl-nv-maxrregcount) and runs the capped kernel instead, with the
// application's arguments set again; smaller enqueues keep the uncapped kernel. Kernels with
// rewritten kernels on NVIDIA keep copies of their arguments for this (kernel_args.cpp).
// (NVIDIA's CL_KERNEL_WORK_GROUP_SIZE is no guide: driver 580 answers 256 for every kernel.)
#pragma once

#include <CL/cl.h>

#include <string>

#include "launch/kernel_records.h"

namespace isg {

// The kernel `name` of `program` built for `device` with the register cap that fits
// `workGroupItems` work-items; nullptr (logged) when it cannot be built. `*built` receives the
// program, which the caller owns with the kernel.
cl_kernel buildCappedKernel(const ProgramRecord& program, const std::string& name,
                            cl_device_id device, size_t workGroupItems, cl_program* built);

// Sets the application's arguments, as `store` keeps them, on `target` (a register-capped build
// of the kernel, or a launch variant: launch_variants.h); the first refusal's error.
cl_int replayArgs(const KernelRecord::ArgStore& store, cl_kernel target);

// The launch plan's (launch_plan.h), under record.enqueueMutex, for a launch of `items`
// work-items: whether it runs on the capped build, because an earlier launch of that size
// was refused.
bool runsCapped(const KernelRecord& record, size_t items);
// After the driver refused `items` work-items of the kernel for resources (`refused` is its
// answer): the capped build for that size, built now or kept from before, with the
// application's arguments set on it; nullptr with *err where there is none (then *err is the
// driver's refusal or the failure that followed it). The copies are the values the
// application set last (kept before the driver answered them): where the capped build refuses
// one, the launch is CL_OUT_OF_RESOURCES, the driver's own answer for that size.
cl_kernel cappedKernelFor(KernelRecord& record, cl_device_id device, size_t items, cl_int refused,
                          cl_int* err);

}  // namespace isg
