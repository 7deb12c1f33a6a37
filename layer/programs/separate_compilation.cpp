// SPDX-License-Identifier: MIT
#include "programs/separate_compilation.h"

#include <algorithm>
#include <string>
#include <vector>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "core/logger.h"
#include "devices/device_strategy.h"
#include "programs/program_records.h"

namespace isg {

ObjectRegistry<cl_program, CompiledObject>& compiledObjects() {
  static auto* registry = new ObjectRegistry<cl_program, CompiledObject>;
  return *registry;
}

namespace {

// One input of the link and the rewrite it is linked with.
struct LinkInput {
  cl_program app = nullptr;
  std::shared_ptr<ProgramRecord> record;     // null: a driver object the layer passed through
  std::shared_ptr<CompiledObject> compiled;  // null: cannot be compiled again
  const RewriteResult* rewrite = nullptr;    // null: what it calls is unknown
  RewriteResult again;                       // a rewrite made for this link
  bool compiledAgain = false;                // `again` calls another input's context function
  std::vector<std::string> calledWith;       // the external context `again` was made with
  std::vector<ContextFunction> context;      // the same functions, as the rewrite takes them

  bool mayCall(const std::string& name) const {
    if (!rewrite) return true;
    const auto& ext = rewrite->externalFunctions;
    return std::find(ext.begin(), ext.end(), name) != ext.end();
  }
};

std::string objectName(cl_uint i) { return "input program " + std::to_string(i); }

// How `object` compiles again for `traits`; its source as given (the caller fills in an empty one).
RewriteInput objectInput(const CompiledObject& object, const DeviceTraits& traits) {
  RewriteInput input;
  input.source = object.source;
  input.headers = object.headers;
  input.options = object.options;
  input.traits = traits;
  input.compiledObject = true;
  return input;
}

// Rewrites input `i` again with the context functions of the others it calls; false with *why
// when that cannot be done. *grew: it now calls (or provides) more than before.
bool rewriteCaller(std::vector<LinkInput>& in, cl_uint i, const DeviceTraits& traits, bool* grew,
                   std::string* why) {
  LinkInput& caller = in[i];
  std::vector<ContextFunction> wanted;
  std::vector<std::string> keys;  // names and facts, sorted
  std::vector<cl_uint> owners;
  for (cl_uint j = 0; j < in.size(); ++j) {
    if (j == i || !in[j].rewrite) continue;
    for (const ContextFunction& f : in[j].rewrite->contextFunctions)
      if (caller.mayCall(f.name)) {
        wanted.push_back(f);
        owners.push_back(j);
        // The facts too: a callee's may grow when a round rewrites it again.
        std::string key = f.name + "|" + std::to_string(f.widestBytes);
        for (const std::string& family : f.families) key += "|" + family;
        keys.push_back(std::move(key));
      }
  }
  std::sort(keys.begin(), keys.end());
  if (wanted.empty() || keys == caller.calledWith) return true;
  if (!caller.compiled) {
    // A driver binary the layer never saw compiled: whether it calls them is unknown.
    if (!caller.rewrite) {
      ISG_LOG_WARNING("clLinkProgram: " << objectName(i) << " was created from a driver binary; "
                      "if it calls '" << wanted.front().name << "' (which takes the sub-group context "
                      "in another input), compile it from source instead");
      caller.calledWith = keys;
      return true;
    }
    *why = objectName(i) + " calls '" + wanted.front().name + "', which uses sub-group builtins in "
           "another input, but was created from a binary the layer cannot compile again; "
           "create it from source (clCreateProgramWithSource and clCompileProgram)";
    return false;
  }
  RewriteInput input = objectInput(*caller.compiled, traits);
  if (input.source.empty())
    if (cl_int err = programString(caller.app, CL_PROGRAM_SOURCE, &input.source); err != CL_SUCCESS) {
      *why = objectName(i) + ": its source cannot be read (" + std::to_string(err) + ")";
      return false;
    }
  input.externalContext = wanted;
  RewriteResult r = rewriteProgram(input);
  caller.calledWith = keys;
  if (r.status == RewriteResult::Status::Error) {
    *why = objectName(i) + " cannot pass the sub-group context to another input's function:\n" + r.log;
    return false;
  }
  // Calls none of them (a PassThrough result names no externals: asked again when more come).
  if (r.status == RewriteResult::Status::PassThrough) return true;
  for (std::size_t k = 0; k < wanted.size(); ++k) {
    const auto& ext = r.externalFunctions;
    if (std::find(ext.begin(), ext.end(), wanted[k].name) == ext.end()) continue;
    const Strategy theirs = in[owners[k]].rewrite->strategy;
    if (theirs != r.strategy) {
      *why = objectName(i) + " calls '" + wanted[k].name + "' of " + objectName(owners[k]) +
             ", but they were rewritten for different sub-group strategies (" +
             strategyName(r.strategy) + ", " + strategyName(theirs) + "): see the build logs; "
             "compile them as one program";
      return false;
    }
  }
  *grew = true;
  caller.context = std::move(wanted);
  caller.again = std::move(r);
  caller.rewrite = &caller.again;
  caller.compiledAgain = true;
  return true;
}

// Compiles a rewrite made for the link into a driver object; nullptr with *why on failure.
cl_program compileAgain(const LinkInput& input, cl_uint index, cl_uint num_devices,
                        const cl_device_id* device_list, std::string* why) {
  const RewriteResult& r = input.again;
  cl_int err = CL_SUCCESS;
  cl_program object = createDriverProgram(input.app, r.source, &err);
  CallDriverPrograms headerPrograms;
  std::vector<cl_program> headers;
  std::vector<const char*> names;
  for (const SourceFile& h : r.headers) {
    if (!object) break;
    cl_program header = headerPrograms.create(input.app, h.text, &err);
    if (!header) break;
    headers.push_back(header);
    names.push_back(h.name.c_str());
  }
  if (object && err == CL_SUCCESS)
    err = next().clCompileProgram(object, num_devices, device_list, r.options.c_str(),
                                  cl_uint(headers.size()), headers.empty() ? nullptr : headers.data(),
                                  names.empty() ? nullptr : names.data(), nullptr, nullptr);
  if (err == CL_SUCCESS) return object;
  *why = objectName(index) + ", compiled again to pass the sub-group context (" +
         std::to_string(err) + ")";
  if (object) {
    std::vector<cl_device_id> devices;
    std::string log;
    if (programDevices(object, &devices) == CL_SUCCESS && !devices.empty() &&
        programBuildString(object, devices.front(), CL_PROGRAM_BUILD_LOG, &log) == CL_SUCCESS)
      *why += ":\n" + mapBuildLog(log, r);
    next().clReleaseProgram(object);
  }
  return nullptr;
}

// Rewrites the inputs that call other inputs' context-taking functions until none is left
// without its context. Each round may give a caller new context functions its own callers
// need: at most one round per input, plus one that finds nothing new.
bool passContexts(std::vector<LinkInput>& in, const DeviceTraits& traits, std::string* why) {
  const cl_uint n = cl_uint(in.size());
  for (cl_uint round = 0; round <= n; ++round) {
    bool grew = false;
    for (cl_uint i = 0; i < n; ++i)
      if (!rewriteCaller(in, i, traits, &grew, why)) return false;
    if (!grew) return true;
  }
  return true;
}

}  // namespace

bool linksOnFrontEnd(cl_uint num_inputs, const cl_program* inputs) {
  for (cl_uint i = 0; i < num_inputs; ++i)
    if (auto record = programRegistry().find(inputs[i]); record && record->rewrite.form == RewriteResult::Form::Object)
      return true;
  return false;
}

cl_int planFrontEndLink(const std::vector<cl_device_id>& devices, cl_uint num_inputs, const cl_program* inputs,
                        FrontEndLink* plan, std::string* why) {
  if (!DeviceStrategy::allHave(devices, &DeviceProfile::layerFrontEnd)) {
    *why = "the inputs were compiled by the layer's OpenCL C front end for NVIDIA devices, which not every "
           "device of the link is; compile them for the link's devices";
    return CL_LINK_PROGRAM_FAILURE;
  }
  bool allNative = true;
  DeviceTraits traits = DeviceStrategy::traitsForBuild(devices, &allNative);
  plan->defaultSubGroupSize = traits.defaultSubGroupSize;
  offerLayerExtensions(devices, &traits);
  traits = frontEndTraits(traits);
  // Each object of the link, libraries' members one by one, with the rewrite the front end
  // compiles it with.
  std::vector<LinkInput> in;
  for (cl_uint i = 0; i < num_inputs; ++i) {
    std::shared_ptr<CompiledObject> compiled = compiledObjects().find(inputs[i]);
    if (!compiled) {
      *why = objectName(i) + " was not compiled from source through the layer (a driver binary): the layer's "
             "front end, which compiled other inputs, links only objects it can compile again; create it "
             "from source (clCreateProgramWithSource and clCompileProgram)";
      return CL_LINK_PROGRAM_FAILURE;
    }
    const std::vector<CompiledObject> objects =
        compiled->members.empty() ? std::vector<CompiledObject>{*compiled} : compiled->members;
    for (const CompiledObject& o : objects) {
      LinkInput unit;
      unit.app = inputs[i];
      unit.compiled = std::make_shared<CompiledObject>(o);
      if (unit.compiled->source.empty())
        if (cl_int err = programString(inputs[i], CL_PROGRAM_SOURCE, &unit.compiled->source); err != CL_SUCCESS) {
          *why = objectName(i) + ": its source cannot be read (" + std::to_string(err) + ")";
          return CL_LINK_PROGRAM_FAILURE;
        }
      unit.again = rewriteProgram(objectInput(*unit.compiled, traits));
      if (unit.again.status == RewriteResult::Status::Error) {
        *why = objectName(i) + " does not rewrite:\n" + unit.again.log;
        return CL_LINK_PROGRAM_FAILURE;
      }
      in.push_back(std::move(unit));
    }
  }
  for (LinkInput& unit : in)
    if (unit.again.status == RewriteResult::Status::Rewritten) unit.rewrite = &unit.again;
  if (!passContexts(in, traits, why)) return CL_LINK_PROGRAM_FAILURE;
  for (const LinkInput& unit : in) {
    RewriteInput object = objectInput(*unit.compiled, traits);
    if (unit.compiledAgain) object.externalContext = unit.context;
    plan->objects.push_back(std::move(object));
    plan->members.push_back(*unit.compiled);
  }
  return CL_SUCCESS;
}

cl_int planLink(cl_uint num_devices, const cl_device_id* device_list, cl_uint num_inputs,
                const cl_program* inputs, LinkPlan* plan, std::string* why) {
  std::vector<LinkInput> in(num_inputs);
  bool anyProvides = false;
  for (cl_uint i = 0; i < num_inputs; ++i) {
    LinkInput& input = in[i];
    input.app = inputs[i];
    input.record = programRegistry().find(inputs[i]);
    input.compiled = compiledObjects().find(inputs[i]);
    if (input.record && input.record->kind != ProgramRecord::Kind::RewriteFailed) {
      input.rewrite = &input.record->rewrite;
      anyProvides |= !input.rewrite->contextFunctions.empty();
    }
  }

  DeviceTraits traits;
  if (anyProvides) {
    std::vector<cl_device_id> devices;
    if (device_list) {
      devices.assign(device_list, device_list + num_devices);
    } else if (cl_int err = programDevices(inputs[0], &devices); err != CL_SUCCESS) {
      return err;
    }
    bool allNative = true;
    traits = DeviceStrategy::traitsForBuild(devices, &allNative);
    if (!passContexts(in, traits, why)) return CL_LINK_PROGRAM_FAILURE;
  }

  for (cl_uint i = 0; i < num_inputs; ++i) {
    const LinkInput& input = in[i];
    cl_program driverInput = input.record ? input.record->driverProgram() : input.app;
    const RewriteResult* kernelsFrom = nullptr;
    const unsigned defaultSize =
        input.record ? input.record->defaultSubGroupSize : traits.defaultSubGroupSize;
    if (input.compiledAgain) {
      driverInput = compileAgain(input, i, num_devices, device_list, why);
      if (!driverInput) return CL_LINK_PROGRAM_FAILURE;
      plan->recompiled.push_back(driverInput);
      kernelsFrom = &input.again;
    } else if (input.record && input.record->kind != ProgramRecord::Kind::RewriteFailed) {
      kernelsFrom = &input.record->rewrite;
    }
    plan->driverInputs.push_back(driverInput);
    if (!kernelsFrom) continue;
    if (!plan->anyRewritten) {
      plan->strategy = kernelsFrom->strategy;
      plan->defaultSubGroupSize = defaultSize;
    }
    plan->anyRewritten = true;
    plan->kernels.insert(plan->kernels.end(), kernelsFrom->kernels.begin(), kernelsFrom->kernels.end());
    plan->contextFunctions.insert(plan->contextFunctions.end(), kernelsFrom->contextFunctions.begin(),
                                  kernelsFrom->contextFunctions.end());
    for (const std::string& f : kernelsFrom->externalFunctions)
      if (std::find(plan->externalFunctions.begin(), plan->externalFunctions.end(), f) == plan->externalFunctions.end())
        plan->externalFunctions.push_back(f);
  }
  return CL_SUCCESS;
}

}  // namespace isg
