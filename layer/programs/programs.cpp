// SPDX-License-Identifier: MIT
// Program objects (docs/design.md §3): the application keeps its driver program; a program that
// was rewritten is built as a shadow (program_build.cpp), and every later question about the
// application's program is routed to where the answer lives. Creation, retain and release, and
// clGetProgramInfo/clGetProgramBuildInfo answered from the record.
#include <algorithm>
#include <memory>
#include <string>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "core/param_util.h"
#include "programs/program_binaries.h"
#include "programs/program_records.h"
#include "programs/separate_compilation.h"

namespace isg {

cl_int releaseProgram(cl_program program) {
  return guardedEntry("clReleaseProgram", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clReleaseProgram);
    if (!programRegistry().find(program) && !compiledObjects().find(program))
      return next().clReleaseProgram(program);
    return releaseRecorded(
        [&] {
          cl_uint references = 0;
          programValue(program, CL_PROGRAM_REFERENCE_COUNT, &references);
          return references;
        },
        [&] {
          return std::make_pair(programRegistry().take(program), compiledObjects().take(program));
        },
        [&] { return next().clReleaseProgram(program); },
        [&](const auto& records) {
          if (records.first) programRegistry().put(program, records.first);
          if (records.second) compiledObjects().put(program, records.second);
        },
        [&](const auto& records) { releaseShadow(records.first); });
  });
}

cl_int CL_API_CALL clReleaseProgram_layer(cl_program program) {
  ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
  const cl_int err = releaseProgram(program);
  if (err == CL_SUCCESS) handleKinds().released(program, HandleKind::Program);
  return err;
}

cl_int CL_API_CALL clRetainProgram_layer(cl_program program) {
  return guardedEntry("clRetainProgram", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clRetainProgram);
    ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
    const cl_int err = next().clRetainProgram(program);
    if (err == CL_SUCCESS) handleKinds().retained(program, HandleKind::Program);
    return err;
  });
}

cl_program CL_API_CALL clCreateProgramWithSource_layer(cl_context context, cl_uint count,
                                                       const char** strings, const size_t* lengths,
                                                       cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithSource", errcode_ret, [&]() -> cl_program {
    ISG_REQUIRE_NEXT_CREATE(clCreateProgramWithSource, errcode_ret);
    if (const cl_int wrong = notAProgramOrKernel(context, CL_INVALID_CONTEXT)) {
      if (errcode_ret) *errcode_ret = wrong;
      return nullptr;
    }
    return newAppProgram(
        next().clCreateProgramWithSource(context, count, strings, lengths, errcode_ret));
  });
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels_layer(cl_context context,
                                                               cl_uint num_devices,
                                                               const cl_device_id* device_list,
                                                               const char* kernel_names,
                                                               cl_int* errcode_ret) {
  return guardedCreate<cl_program>(
      "clCreateProgramWithBuiltInKernels", errcode_ret, [&]() -> cl_program {
        ISG_REQUIRE_NEXT_CREATE(clCreateProgramWithBuiltInKernels, errcode_ret);
        if (const cl_int wrong = wrongContextOrDevices(context, num_devices, device_list)) {
          if (errcode_ret) *errcode_ret = wrong;
          return nullptr;
        }
        return newAppProgram(next().clCreateProgramWithBuiltInKernels(
            context, num_devices, device_list, kernel_names, errcode_ret));
      });
}

cl_int CL_API_CALL clGetProgramInfo_layer(cl_program program, cl_program_info param_name,
                                          size_t param_value_size, void* param_value,
                                          size_t* param_value_size_ret) {
  return guardedEntry("clGetProgramInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetProgramInfo);
    ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
    cl_program target = program;
    switch (param_name) {
      // A program from SPIR-V: the application's module, also where the driver has no IL.
      case CL_PROGRAM_SOURCE:
      case CL_PROGRAM_IL:
        if (auto record = programRegistry().find(program); record && record->il) {
          if (param_name == CL_PROGRAM_IL)
            return writeParam(param_value_size, param_value, param_value_size_ret,
                              record->il->data(), record->il->size());
          return writeString(param_value_size, param_value, param_value_size_ret, "");
        }
        break;
      // What the application created: its own handle answers.
      case CL_PROGRAM_REFERENCE_COUNT:
      case CL_PROGRAM_CONTEXT:
      case CL_PROGRAM_NUM_DEVICES:
      case CL_PROGRAM_DEVICES:
        break;
      // What the build produced, with what the layer must know to serve it again.
      case CL_PROGRAM_BINARY_SIZES:
      case CL_PROGRAM_BINARIES:
        if (auto record = programRegistry().find(program);
            record && record->kind != ProgramRecord::Kind::RewriteFailed)
          return envelopedBinaryInfo(*record, param_name, param_value_size, param_value,
                                     param_value_size_ret);
        break;
      // The kernels the application sees: the shadow's, without the layer's packed copies.
      case CL_PROGRAM_NUM_KERNELS:
      case CL_PROGRAM_KERNEL_NAMES:
        if (auto record = programRegistry().find(program)) {
          target = record->driverProgram();
          if (!hasPackedCopies(*record)) break;
          std::string names;
          size_t count = 0;
          if (cl_int err = visibleKernelNames(*record, &names, &count)) return err;
          if (param_name == CL_PROGRAM_KERNEL_NAMES)
            return writeString(param_value_size, param_value, param_value_size_ret, names);
          return writeValue(param_value_size, param_value, param_value_size_ret, count);
        }
        break;
      // What the build produced: the shadow answers.
      default:
        if (auto record = programRegistry().find(program)) target = record->driverProgram();
        break;
    }
    return next().clGetProgramInfo(target, param_name, param_value_size, param_value,
                                   param_value_size_ret);
  });
}

cl_int CL_API_CALL clGetProgramBuildInfo_layer(cl_program program, cl_device_id device,
                                               cl_program_build_info param_name,
                                               size_t param_value_size, void* param_value,
                                               size_t* param_value_size_ret) {
  return guardedEntry("clGetProgramBuildInfo", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clGetProgramBuildInfo);
    ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
    if (const cl_int wrong = notAProgramOrKernel(device, CL_INVALID_DEVICE)) return wrong;
    auto forwardTo = [&](cl_program target) {
      return next().clGetProgramBuildInfo(target, device, param_name, param_value_size, param_value,
                                          param_value_size_ret);
    };
    std::shared_ptr<ProgramRecord> record = programRegistry().find(program);
    if (!record || record->kind == ProgramRecord::Kind::Linked ||
        record->kind == ProgramRecord::Kind::FromBinary ||
        record->kind == ProgramRecord::Kind::FromIL)
      return forwardTo(program);

    // The driver validates the device against the application's program.
    cl_build_status driverStatus = CL_BUILD_NONE;
    cl_int err = next().clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_STATUS,
                                              sizeof driverStatus, &driverStatus, nullptr);
    if (err != CL_SUCCESS) return err;

    if (param_name == CL_PROGRAM_BUILD_OPTIONS)
      return writeString(param_value_size, param_value, param_value_size_ret, record->appOptions);

    if (record->kind == ProgramRecord::Kind::RewriteFailed) {
      switch (param_name) {
        case CL_PROGRAM_BUILD_STATUS:
          return writeValue(param_value_size, param_value, param_value_size_ret,
                            cl_build_status{CL_BUILD_ERROR});
        case CL_PROGRAM_BUILD_LOG:
          return writeString(param_value_size, param_value, param_value_size_ret,
                             record->rewrite.log);
        case CL_PROGRAM_BINARY_TYPE:
          return writeValue(param_value_size, param_value, param_value_size_ret,
                            cl_program_binary_type{CL_PROGRAM_BINARY_TYPE_NONE});
        default:
          return forwardTo(program);
      }
    }

    if (param_name == CL_PROGRAM_BUILD_LOG) {
      std::string driverLog;
      err = programBuildString(record->shadow, device, CL_PROGRAM_BUILD_LOG, &driverLog);
      if (err != CL_SUCCESS) return err;
      // A module has no source lines to map back.
      std::string log = record->rewrite.form == RewriteResult::Form::Source
                            ? mapBuildLog(driverLog, record->rewrite)
                            : driverLog;
      if (!record->rewrite.log.empty()) log = record->rewrite.log + "\n" + log;
      return writeString(param_value_size, param_value, param_value_size_ret, log);
    }
    return forwardTo(record->shadow);
  });
}

}  // namespace isg
