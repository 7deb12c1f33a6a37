// SPDX-License-Identifier: MIT
// The kernel arguments as the application set them (clSetKernelArg, clSetKernelArgSVMPointer,
// clCloneKernel; enqueue_capture.h's argument tracking), and what the driver says of each
// (clGetKernelArgInfo), for the case of an enqueue.
#pragma once

#include <CL/cl.h>

#include <string>
#include <vector>

#include "core/arg_values.h"

namespace isg::capture {

// clGetKernelArgInfo's answers for one argument.
struct ArgInfo {
  bool known = false;
  cl_kernel_arg_address_qualifier address = CL_KERNEL_ARG_ADDRESS_PRIVATE;
  cl_kernel_arg_access_qualifier access = CL_KERNEL_ARG_ACCESS_NONE;
  cl_kernel_arg_type_qualifier typeQualifier = 0;
  std::string typeName, name;
};

// A kernel's arguments.
struct KernelArgs {
  std::vector<ArgValue> values;
  // clGetKernelArgInfo answers, fetched at the first capture of the kernel.
  bool infoLoaded = false;
  std::vector<ArgInfo> info;
  std::vector<std::string> infoNotes;
};

// The first `numArgs` arguments of `kernel` as last set, each with its information (fetched at
// the kernel's first capture, from the driver or from a build of its program on the side);
// throws CaptureError where the driver gives no information.
KernelArgs argumentsOf(cl_kernel kernel, cl_device_id device, const std::string& kernelName, cl_uint numArgs);

}  // namespace isg::capture
