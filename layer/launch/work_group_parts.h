// SPDX-License-Identifier: MIT
// Non-uniform work-groups (OpenCL C 2.0) where the driver refuses them and built the program
// itself (NVIDIA's compiler, PoCL): Intel's drivers run such launches and Intel-targeted code
// makes them (a global size that is no multiple of the local size). The layer's PTX path on
// NVIDIA has them in full (rewriter/src/ptx/launch_shape.h); here a refused launch runs as the
// ND-ranges of its whole work-groups and of its last, smaller ones, each at the global offset
// where it starts (up to 2, 4 or 8 launches). Every work-group then has the size the spec gives
// it, and get_global_id, get_local_id, get_local_size, barriers and the sub-group functions
// read what the spec says; get_group_id, get_num_groups, get_global_size, get_global_offset,
// get_enqueued_local_size, get_global_linear_id and the sub-group functions of the enqueued
// size would not, so a program that names one of them keeps the driver's refusal, with a log
// line that says why (docs/design.md, "Non-uniform work-groups").
#pragma once

#include <CL/cl.h>

#include "core/launch_description.h"

namespace isg {

// `refused` is the driver's answer to launch `l` of `kernel` (the application's kernel or the
// layer's build of it) with `local`: the launch in parts where the spec allows it and the
// program's text shows it safe, else `refused`. The parts wait for `waits`; `done`, when
// given, is a marker that completes with all of them.
cl_int launchInParts(const LaunchDescription& l, cl_kernel kernel, const size_t* local,
                     cl_uint waits, const cl_event* wait, cl_event* done, cl_int refused);

// Whether some dimension of a launch is no multiple of its local size.
inline bool unevenLaunch(cl_uint dims, const size_t* global, const size_t* local) {
  if (!global || !local || dims > 3) return false;
  for (cl_uint d = 0; d < dims; ++d)
    if (local[d] != 0 && global[d] % local[d] != 0) return true;
  return false;
}

}  // namespace isg
