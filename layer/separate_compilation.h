// SPDX-License-Identifier: MIT
// Separate compilation (clCompileProgram, then clLinkProgram). A function that reaches a builtin
// takes the sub-group context first; a call of it from another compiled object must pass one,
// which that object's rewrite could not know. So the layer remembers how every object was
// compiled and, at link time, rewrites and compiles again the objects that call another
// object's context-taking functions, with those functions' facts (RewriteInput::externalContext),
// until no call is left without its context (docs/design.md, "Separate compilation").
#pragma once

#include <CL/cl.h>

#include <memory>
#include <string>
#include <vector>

#include "isg/rewriter.h"
#include "object_registry.h"

namespace isg {

// How an object was compiled, so that a link can compile it again.
struct CompiledObject {
  std::string source;  // "" = ask the application's program (CL_PROGRAM_SOURCE)
  std::string options;
  std::vector<SourceFile> headers;
};

// Every object compiled through the layer (its own or passed through), and objects created from
// a rewritten object's binary that carried its source. Never destroyed, like the registries.
ObjectRegistry<cl_program, CompiledObject>& compiledObjects();

// What the driver links instead of the application's inputs.
struct LinkPlan {
  std::vector<cl_program> driverInputs;
  std::vector<cl_program> recompiled;  // the layer's among driverInputs: released after the link
  // The linked program's facts, from every input the layer rewrote.
  bool anyRewritten = false;
  Strategy strategy = Strategy::Local;
  unsigned defaultSubGroupSize = 16;
  std::vector<KernelManifest> kernels;
};

// Plans the link of `inputs` for `devices`; on failure CL_LINK_PROGRAM_FAILURE and *why (the
// link cannot be made: a caller that cannot be compiled again, objects rewritten for different
// strategies, a rewrite or a compile that fails) or the driver's error for a query.
cl_int planLink(cl_uint num_devices, const cl_device_id* device_list, cl_uint num_inputs,
                const cl_program* inputs, LinkPlan* plan, std::string* why);

}  // namespace isg
