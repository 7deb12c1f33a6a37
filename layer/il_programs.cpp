// SPDX-License-Identifier: MIT
// Programs created from SPIR-V (clCreateProgramWithIL, and clCreateProgramWithILKHR where the
// driver has it). This first step of the SPIR-V front end (docs/design.md) checks every module's
// physical layout (spirv_module.h) before a driver sees it and answers CL_INVALID_VALUE for one
// that is not well-formed, as the OpenCL API specification asks; well-formed modules reach the
// driver unchanged.
#include <cstring>
#include <string>
#include <vector>

#include "driver_queries.h"
#include "layer_api.h"
#include "spirv_module.h"

namespace isg {
namespace {

// Checks `il`; false (with *errcode_ret set and the reason logged) when it must not reach the
// driver.
bool admit(const char* api, const void* il, size_t length, cl_int* errcode_ret) {
  std::string why;
  if (spirv::wellFormed(il, length, nullptr, &why)) return true;
  ISG_LOG_ERROR(api << ": the module is not well-formed SPIR-V: " << why);
  if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
  return false;
}

using CreateWithIL = cl_program(CL_API_CALL*)(cl_context, const void*, size_t, cl_int*);

// The driver's clCreateProgramWithILKHR for the platform of `context`'s first device.
CreateWithIL driverKhrEntry(cl_context context) {
  std::vector<cl_device_id> devices;
  if (!next().clGetContextInfo || !next().clGetExtensionFunctionAddressForPlatform ||
      queryArray(ISG_QUERY_LAMBDA(clGetContextInfo, context, CL_CONTEXT_DEVICES), &devices) !=
          CL_SUCCESS ||
      devices.empty())
    return nullptr;
  cl_platform_id platform = nullptr;
  if (deviceValue(devices[0], CL_DEVICE_PLATFORM, &platform) != CL_SUCCESS) return nullptr;
  return reinterpret_cast<CreateWithIL>(
      next().clGetExtensionFunctionAddressForPlatform(platform, "clCreateProgramWithILKHR"));
}

cl_program CL_API_CALL clCreateProgramWithILKHR_layer(cl_context context, const void* il,
                                                      size_t length, cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithILKHR", errcode_ret, [&]() -> cl_program {
    if (!admit("clCreateProgramWithILKHR", il, length, errcode_ret)) return nullptr;
    CreateWithIL driver = driverKhrEntry(context);
    if (!driver) {
      if (errcode_ret) *errcode_ret = CL_INVALID_CONTEXT;
      return nullptr;
    }
    return driver(context, il, length, errcode_ret);
  });
}

}  // namespace

cl_program CL_API_CALL clCreateProgramWithIL_layer(cl_context context, const void* il,
                                                   size_t length, cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithIL", errcode_ret, [&]() -> cl_program {
    ISG_REQUIRE_NEXT_CREATE(clCreateProgramWithIL, errcode_ret);
    if (!admit("clCreateProgramWithIL", il, length, errcode_ret)) return nullptr;
    return next().clCreateProgramWithIL(context, il, length, errcode_ret);
  });
}

// The layer's clCreateProgramWithILKHR, for clGetExtensionFunctionAddress(ForPlatform): only
// where the driver has its own (`driverHas`), which the wrapper then calls.
void* ilExtensionFunction(const char* name, bool driverHas) {
  if (driverHas && name && std::strcmp(name, "clCreateProgramWithILKHR") == 0)
    return reinterpret_cast<void*>(&clCreateProgramWithILKHR_layer);
  return nullptr;
}

}  // namespace isg
