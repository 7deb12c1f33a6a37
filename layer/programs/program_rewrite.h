// SPDX-License-Identifier: MIT
// The rewrite a build plan asks for (build_plan.h): the rewriter or the layer's own OpenCL C
// front end, the fallbacks between them, and what the layer's log says of the result.
#pragma once

#include <CL/cl.h>

#include <vector>

#include "isg/rewriter.h"
#include "programs/build_plan.h"

namespace isg {

// What a plan's rewrite gave, and what the build does with it.
struct PlannedRewrite {
  enum class Action {
    Forward,  // the driver builds the application's program as it is
    Shadow,   // the driver builds a shadow of `result`
    Fail      // the build fails before the driver (`result.log` says why)
  };
  Action action = Action::Forward;
  RewriteResult result;
  // ISG_NVIDIA_FRONTEND=auto: a build of rewritten source NVIDIA's compiler rejects goes on to
  // the layer's front end (every device takes it).
  bool frontEndFallback = false;
};

// Runs the rewrite `plan` asks for (Route::Source, Module and NoModuleForm; the others forward).
PlannedRewrite rewriteAsPlanned(const BuildPlan& plan);

// `plan`'s source program through the layer's OpenCL C front end on `devices`, its result ready
// for the driver's build of PTX (a compiled object: for the driver's compile of its stand-in),
// with the extensions the layer offers there. A program the rewriter leaves alone stays the
// driver's (PassThrough) unless `untouchedToo`.
RewriteResult viaLayerFrontEnd(const BuildPlan& plan, const std::vector<cl_device_id>& devices,
                               bool untouchedToo);

// The build log's words where NVIDIA's compiler and the layer's front end both fail; the
// front end's log follows.
constexpr const char* kFrontEndFailedToo =
    "note: the layer's own OpenCL C front end (ISG_NVIDIA_FRONTEND) cannot build it either:\n";

}  // namespace isg
