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

#include "formats/binary_envelope.h"
#include "isg/rewriter.h"
#include "programs/program_records.h"

namespace isg {

// What the driver compiles in place of an object the layer's front end compiled
// (RewriteResult::Form::Object), and what it links into a library of such objects: nothing, so
// that every question about them has the driver's answer for a compiled object or a library,
// while the link that makes a program compiles the objects themselves again.
constexpr const char* kFrontEndObjectStandIn =
    "/* compiled by the intel-subgroups layer's OpenCL C front end: clLinkProgram builds it */\n";

// Every object compiled through the layer (its own or passed through), and objects created from
// a rewritten object's binary that carried its source. Never destroyed, like the registries.
ObjectRegistry<cl_program, CompiledObject>& compiledObjects();

// clLinkProgram on the layer's front end (NVIDIA, docs/design.md "Build paths on NVIDIA"): the
// objects it compiled are compiled again, each with the context functions of the others it
// calls, and linked into one module whose PTX the driver builds (isg::linkForNvidia).
struct FrontEndLink {
  std::vector<RewriteInput> objects;     // as linkForNvidia takes them
  std::vector<CompiledObject> members;   // the same objects as a library keeps them
  unsigned defaultSubGroupSize = 16;
};

// Whether the link of `inputs` is the front end's: some input is an object or a library the
// front end compiled.
bool linksOnFrontEnd(cl_uint num_inputs, const cl_program* inputs);

// Plans the front end's link of `inputs` for `devices`; CL_LINK_PROGRAM_FAILURE with *why when an
// input cannot be compiled again (no source: a driver binary) or does not rewrite.
cl_int planFrontEndLink(const std::vector<cl_device_id>& devices, cl_uint num_inputs, const cl_program* inputs,
                        FrontEndLink* plan, std::string* why);

// What the driver links instead of the application's inputs.
struct LinkPlan {
  std::vector<cl_program> driverInputs;
  std::vector<cl_program> recompiled;  // the layer's among driverInputs: released after the link
  // The linked program's facts, from every input the layer rewrote.
  bool anyRewritten = false;
  Strategy strategy = Strategy::Local;
  unsigned defaultSubGroupSize = 16;
  std::vector<KernelManifest> kernels;
  // What a library (-create-library) must tell the link that uses it: its inputs' functions
  // that take the sub-group context, and the functions they call but do not define.
  std::vector<ContextFunction> contextFunctions;
  std::vector<std::string> externalFunctions;
};

// Plans the link of `inputs` for `devices`; on failure CL_LINK_PROGRAM_FAILURE and *why (the
// link cannot be made: a caller that cannot be compiled again, objects rewritten for different
// strategies, a rewrite or a compile that fails) or the driver's error for a query.
cl_int planLink(cl_uint num_devices, const cl_device_id* device_list, cl_uint num_inputs,
                const cl_program* inputs, LinkPlan* plan, std::string* why);

}  // namespace isg
