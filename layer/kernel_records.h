// SPDX-License-Identifier: MIT
// Kernels of programs the layer took over: their manifests decide the sub-group size, the
// hidden arguments and what the application may see of the argument list.
#pragma once

#include <CL/cl.h>

#include <string>

#include "object_registry.h"

namespace isg {

namespace detail {
extern ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>* const g_kernelRegistry;
}  // namespace detail

// What the per-call entries (clSetKernelArg, the enqueues) read first, without a lock or a
// function-local static's guard.
inline const KernelIndex& kernelIndex() { return detail::g_kernelRegistry->index(); }

// Remembers a kernel the driver created from record's driver program.
void registerKernel(cl_kernel kernel, const ProgramRecord& record, const std::string& name);

}  // namespace isg
