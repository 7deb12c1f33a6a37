// SPDX-License-Identifier: MIT
// The records of the application's programs that builds and compiles make (object_registry.h's
// ProgramRecord): made from a build plan and its rewrite, installed in place of the previous
// build's, and the callback that gives the application its own handle.
#pragma once

#include <CL/cl.h>

#include <memory>
#include <string>

#include "build_plan.h"
#include "object_registry.h"

namespace isg {

using ProgramCallback = void(CL_CALLBACK*)(cl_program, void*);

// A record of `app` built as `plan` says, with `rewrite`'s result; `appOptions` answers
// CL_PROGRAM_BUILD_OPTIONS.
std::shared_ptr<ProgramRecord> recordFor(cl_program app, const BuildPlan& plan, const RewriteResult& rewrite,
                                         const std::string& appOptions);

// A program the driver has just created for the application (nullptr: none), before the layer
// records anything of it: the handle table learns it, and records of a program the driver freed
// at that address go. The layer drops a record at the application's last clReleaseProgram only
// when the driver's count says it is the last, and a program whose kernels are made from it (one
// from binaries) is also held by those kernels and, in PoCL, by launches that finished: the
// driver frees it later, unseen. A new program there must not take the freed one's kernels'
// manifests.
cl_program newAppProgram(cl_program program);

// Installs the record for the new build (nullptr: none); the previous build's shadow goes
// (rebuilds replace it).
void installRecord(cl_program app, std::shared_ptr<ProgramRecord> record);

// The driver calls back with the shadow; the application must see its own handle. Pass
// notifyWithAppProgram with a `new BuildNotification`, which the callback owns once the driver
// has accepted it: drivers call it exactly once per started build.
struct BuildNotification {
  ProgramCallback pfn;
  void* userData;
  cl_program app;
};
void CL_CALLBACK notifyWithAppProgram(cl_program, void* data);

}  // namespace isg
