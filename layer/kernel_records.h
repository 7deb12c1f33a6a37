// SPDX-License-Identifier: MIT
// Kernels of programs the layer took over: their manifests decide the sub-group size, the
// hidden arguments and what the application may see of the argument list.
#pragma once

#include <CL/cl.h>

#include <string>

#include "immortal.h"
#include "layer_api.h"
#include "object_registry.h"

namespace isg {

namespace detail {
extern Immortal<ObjectRegistry<cl_kernel, KernelRecord, KernelIndex>> g_kernelRegistry;
}  // namespace detail

// What the per-call entries (clSetKernelArg, the enqueues) read first, without a lock or a
// function-local static's guard.
inline const KernelIndex& kernelIndex() { return detail::g_kernelRegistry.get().index(); }

// Sets `kernel`'s launch shape (the application's global size of a rounded-up launch, zeros for a
// uniform one); CL_SUCCESS where the kernel has none.
inline cl_int setLaunchShape(cl_kernel kernel, const KernelManifest& m,
                             const cl_ulong (&shape)[3]) {
  const HiddenArg* h = launchShapeArg(m);
  return h ? next().clSetKernelArg(kernel, h->index, sizeof shape, shape) : CL_SUCCESS;
}
constexpr cl_ulong kUniformLaunch[3] = {0, 0, 0};

// clReleaseProgram for the layer's own reference to an application program (a kernel's
// holdsAppProgram): the shadow goes with the last reference, as at the application's release.
cl_int releaseProgram(cl_program program);

// Remembers a kernel the driver created from record's driver program.
void registerKernel(cl_kernel kernel, const ProgramRecord& record, const std::string& name);

}  // namespace isg
