// SPDX-License-Identifier: MIT
// Programs created from SPIR-V (clCreateProgramWithIL, and clCreateProgramWithILKHR where the
// driver has it; docs/spirv.md). Every module's physical layout is checked (spirv_module.h)
// before a driver sees it, and on contexts with a device the layer serves (not native) the whole
// module is validated too: a module that is not well-formed gets CL_INVALID_VALUE, as the OpenCL
// API specification asks. The layer keeps the module (CL_PROGRAM_IL, and the rewrite at build,
// build_plan.cpp). Where a device's driver has no IL (PoCL, NVIDIA) the application's handle is
// an empty source program of the driver's, a placeholder the build replaces with a shadow.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "devices/device_strategy.h"
#include "formats/spirv_module.h"
#include "programs/program_records.h"
#include "programs/program_records.h"

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

// What the context's devices do with SPIR-V; false when the driver cannot say which they are.
bool contextSupport(cl_context context, SpirvSupport* out) {
  std::vector<cl_device_id> devices;
  if (!next().clGetContextInfo ||
      queryArray(ISG_QUERY_LAMBDA(clGetContextInfo, context, CL_CONTEXT_DEVICES), &devices) !=
          CL_SUCCESS || devices.empty())
    return false;
  return DeviceStrategy::spirvSupport(devices, out);
}

using CreateWithIL = cl_program(CL_API_CALL*)(cl_context, const void*, size_t, cl_int*);

template <class DriverCreate>
cl_program createFromModule(const char* api, cl_context context, const void* il, size_t length,
                            cl_int* errcode_ret, DriverCreate& driverCreate);

// Creates the application's program for `il` with `driverCreate` (the driver's IL entry), or a
// placeholder where a driver has none, and records the module.
template <class DriverCreate>
cl_program createFromIL(const char* api, cl_context context, const void* il, size_t length,
                        cl_int* errcode_ret, DriverCreate&& driverCreate) {
  if (const cl_int wrong = notAProgramOrKernel(context, CL_INVALID_CONTEXT)) {
    if (errcode_ret) *errcode_ret = wrong;
    return nullptr;
  }
  auto create = [&] { return newAppProgram(driverCreate()); };
  return createFromModule(api, context, il, length, errcode_ret, create);
}

template <class DriverCreate>
cl_program createFromModule(const char* api, cl_context context, const void* il, size_t length,
                            cl_int* errcode_ret, DriverCreate& driverCreate) {
  if (!admit(api, il, length, errcode_ret)) return nullptr;
  SpirvSupport facts;
  if (!contextSupport(context, &facts)) return driverCreate();  // the driver reports the context
  // A context with a device neither its driver nor the layer builds SPIR-V for (NVIDIA, for
  // now): the driver answers, as without the layer (CL_INVALID_OPERATION).
  if (!facts.served || !facts.allBuild) {
    if (facts.served && !facts.why.empty())
      ISG_LOG_WARNING(api << ": programs from SPIR-V are left to the driver here: " << facts.why);
    return driverCreate();
  }
  auto module = std::make_shared<const std::string>(static_cast<const char*>(il), length);
  std::string why;
  if (!validateModule(*module, &why)) {
    ISG_LOG_ERROR(api << ": the module is not valid SPIR-V: " << why);
    if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
    return nullptr;
  }
  cl_program program = nullptr;
  if (facts.allIl) {
    program = driverCreate();
  } else if (next().clCreateProgramWithSource) {
    const char* text = "/* a program from SPIR-V, built by the sub-group layer */\n";
    program =
        newAppProgram(next().clCreateProgramWithSource(context, 1, &text, nullptr, errcode_ret));
  } else if (errcode_ret) {
    *errcode_ret = CL_INVALID_OPERATION;
  }
  if (!program) return nullptr;
  auto record = std::make_shared<ProgramRecord>();
  record->kind = ProgramRecord::Kind::FromIL;
  record->app = program;
  record->il = std::move(module);
  record->ilPlaceholder = !facts.allIl;
  programRegistry().put(program, record);
  return program;
}

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

// The driver's IL entry where it has one (the KHR extension's, else the core one); a driver
// without either gets the layer's placeholder from createFromIL, or CL_INVALID_OPERATION.
cl_program CL_API_CALL clCreateProgramWithILKHR_layer(cl_context context, const void* il,
                                                      size_t length, cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithILKHR", errcode_ret, [&]() -> cl_program {
    CreateWithIL driver = driverKhrEntry(context);
    if (!driver) driver = next().clCreateProgramWithIL;
    return createFromIL("clCreateProgramWithILKHR", context, il, length, errcode_ret,
                        [&]() -> cl_program {
                          if (!driver) {
                            if (errcode_ret) *errcode_ret = CL_INVALID_OPERATION;
                            return nullptr;
                          }
                          return driver(context, il, length, errcode_ret);
                        });
  });
}

// Whether the layer advertises cl_khr_il_program on a device of `platform`.
bool layerBuildsSpirvOn(cl_platform_id platform) {
  if (!platform || !next().clGetDeviceIDs) return false;
  cl_uint count = 0;
  if (next().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) != CL_SUCCESS)
    return false;
  std::vector<cl_device_id> devices(count);
  if (next().clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(), &count) !=
      CL_SUCCESS)
    return false;
  devices.resize(std::min<size_t>(count, devices.size()));
  for (cl_device_id d : devices)
    if (const DeviceProfile* p = DeviceStrategy::of(d); p && p->buildsSpirv) return true;
  return false;
}

}  // namespace

cl_program CL_API_CALL clCreateProgramWithIL_layer(cl_context context, const void* il,
                                                   size_t length, cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithIL", errcode_ret, [&]() -> cl_program {
    // A driver without IL may lack the entry: the placeholder needs none.
    return createFromIL("clCreateProgramWithIL", context, il, length, errcode_ret, [&]() -> cl_program {
      if (!next().clCreateProgramWithIL) {
        if (errcode_ret) *errcode_ret = CL_INVALID_OPERATION;
        return nullptr;
      }
      return next().clCreateProgramWithIL(context, il, length, errcode_ret);
    });
  });
}

// The layer's clCreateProgramWithILKHR, for clGetExtensionFunctionAddress(ForPlatform): where
// the driver has its own (`driverHas`), which the wrapper then calls, and on every platform
// where the layer advertises cl_khr_il_program itself. `platform` null (the deprecated
// clGetExtensionFunctionAddress names none): any platform; the entry answers
// CL_INVALID_OPERATION for contexts whose devices take no SPIR-V.
void* ilExtensionFunction(const char* name, bool driverHas, cl_platform_id platform) {
  if (!name || std::strcmp(name, "clCreateProgramWithILKHR") != 0) return nullptr;
  if (driverHas || !platform || layerBuildsSpirvOn(platform))
    return reinterpret_cast<void*>(&clCreateProgramWithILKHR_layer);
  return nullptr;
}

}  // namespace isg
