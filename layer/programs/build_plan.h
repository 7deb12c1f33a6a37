// SPDX-License-Identifier: MIT
// How a clBuildProgram or clCompileProgram of an application's program goes (docs/design.md §3),
// decided in one place before anything is carried out: whether the layer rewrites it at all,
// which front end compiles it (NVIDIA's compiler or the layer's own, ISG_NVIDIA_FRONTEND), what
// form the driver is given (source, SPIR-V, SPIR bitcode, PTX) and with which options. Only
// cheap text scans and the device profiles are read: the rewriter runs later
// (program_rewrite.h), the driver calls after it (program_build.cpp).
#pragma once

#include <CL/cl.h>

#include <memory>
#include <string>
#include <vector>

#include "isg/rewriter.h"

namespace isg {

// One route for all the devices of a build: one driver program (the application's, or one
// shadow) serves them, rewritten with traits every one of them takes
// (DeviceStrategy::traitsForBuild: devices of different strategies get the local strategy).
struct BuildPlan {
  enum class Route {
    DriverAnswers,  // the layer cannot tell (an invalid program, no source): the driver builds
                    // the program as asked, one build of it at a time
    PassThrough,    // untouched: built from binaries, every device native, or a source that
                    // names nothing the layer rewrites
    Source,         // the source rewritten, on `frontEnd`
    Module,         // a program from SPIR-V rewritten into `output` (`module`)
    NoModuleForm,   // a program from SPIR-V for devices that do not all take one form the
                    // layer writes: the build fails (`noModuleFormLog`)
  };
  enum class FrontEnd {
    Driver,           // the rewritten source, for the driver's compiler
    Layer,            // the layer's OpenCL C front end and PTX (ISG_NVIDIA_FRONTEND=layer or
                      // every, or an extension only it offers); the driver's compiler where it
                      // cannot build the program
    DriverThenLayer,  // ISG_NVIDIA_FRONTEND=auto: NVIDIA's compiler; the layer's front end
                      // where the rewriter or that compiler rejects the program
  };

  Route route = Route::DriverAnswers;
  std::vector<cl_device_id> devices;  // the build's device list, else the program's devices
  std::string appOptions;             // as the application passed them (CL_PROGRAM_BUILD_OPTIONS)
  std::string driverOptions;          // what the driver and the rewriter get (optionsForDriver)
  // A program from SPIR-V: its module; `ilPlaceholder`: the application's handle is the layer's
  // empty source program (il_programs.cpp).
  std::shared_ptr<const std::string> il;
  bool ilPlaceholder = false;
  // Source and Module: what the rewriter reads (source, headers, driverOptions, the traits of
  // every device, whether it is a compiled object).
  RewriteInput input;
  // What the driver is given first: Source (the driver's compiler), Ptx or Object (the layer's
  // front end: PTX, or an object's stand-in), Spirv, Bitcode or Ptx (a module).
  RewriteResult::Form output = RewriteResult::Form::Source;

  // Route::Source.
  FrontEnd frontEnd = FrontEnd::Driver;
  bool needsLayerFrontEnd = false;  // needsLayerFrontEnd below
  // The layer's front end's build stands even where the rewriter would leave the program alone
  // (needsLayerFrontEnd, or ISG_NVIDIA_FRONTEND=every).
  bool layerFrontEndKeepsUntouched = false;
  std::string ptxOptions;  // the driver's options for the layer's PTX (nvidiaPtxOptions)

  // Route::Module: the rewriter's input, and the driver's options for the module's form.
  ModuleInput module;
  std::string moduleOptions;
  std::string noModuleFormLog;  // Route::NoModuleForm: the build log
};

// The plan for building (compiledObject: compiling) `program` for `device_list` (the program's
// devices where it is empty) with the application's `options` and a compile's `headers`.
// Logs, at ISG_LOG=info, the options left out for the driver.
BuildPlan planBuild(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                    const char* options, std::vector<SourceFile> headers, bool compiledObject);

// The words of `options` that NVIDIA's driver applies to PTX (-cl-nv-maxrregcount=N,
// -cl-nv-opt-level=N, -cl-nv-verbose).
std::string nvidiaPtxOptions(const std::string& options);

// ISG_NVIDIA_FRONTEND=every: programs without Intel builtins, which otherwise pass through, take
// the layer's front end too.
bool everyProgramOnLayerFrontEnd(const std::vector<cl_device_id>& devices);

}  // namespace isg
