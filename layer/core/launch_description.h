// SPDX-License-Identifier: MIT
// One kernel enqueue as the application made it, before the layer changes anything: what the
// launch plan starts from (launch/launch_plan.h) and what capture records (capture/).
#pragma once

#include <CL/cl.h>

#include <cstddef>

namespace isg {

struct LaunchDescription {
  const char* api;  // the entry the application called
  cl_command_queue queue;
  cl_kernel kernel;
  cl_uint workDim;
  const size_t* globalOffset;
  const size_t* globalSize;
  const size_t* localSize;
  cl_uint numEvents;
  const cl_event* events;
};

}  // namespace isg
