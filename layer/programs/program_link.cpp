// SPDX-License-Identifier: MIT
// clLinkProgram (docs/design.md, "Separate compilation"): the link planned by
// separate_compilation.h carried out by the driver, or, for objects the layer's front end
// compiled, by the layer itself; the linked program's record exists before the application's
// callback runs.
#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "isg/build_options.h"
#include "programs/build_plan.h"
#include "programs/program_records.h"
#include "programs/separate_compilation.h"

namespace isg {

namespace {

// A linked program is the driver's own object: the callback already gets the handle the
// application will hold, but the record must exist before the application's callback runs.
// The callback and clLinkProgram's return both install it, whichever comes first; a record
// found there before is a freed program's (newAppProgram).
struct LinkedRecord {
  explicit LinkedRecord(std::shared_ptr<ProgramRecord> p) : prototype(std::move(p)) {}
  void install(cl_program linked) {
    if (!linked) return;
    std::call_once(once, [&] {
      auto record = std::make_shared<ProgramRecord>(*prototype);
      record->app = newAppProgram(linked);
      programRegistry().put(linked, record);
    });
  }
  std::shared_ptr<ProgramRecord> prototype;
  std::once_flag once;
};

struct LinkNotification {
  ProgramCallback pfn;
  void* userData;
  std::shared_ptr<LinkedRecord> record;
};

void CL_CALLBACK notifyLinked(cl_program linked, void* data) {
  std::unique_ptr<LinkNotification> n(static_cast<LinkNotification*>(data));
  n->record->install(linked);
  n->pfn(linked, n->userData);
}

// What the driver makes of a link the layer's front end compiled: a library (-create-library)
// is the driver's library of the objects' stand-in, whose objects the layer keeps; a program is
// the driver's build of the linked PTX. nullptr with *err and *why.
cl_program driverProgramOfFrontEndLink(cl_context context, const std::vector<cl_device_id>& devices,
                                       const std::string& options, const FrontEndLink& plan,
                                       ProgramRecord* record, cl_int* err, std::string* why) {
  const cl_uint n = cl_uint(devices.size());
  const std::vector<std::string> words = splitBuildOptions(options);
  if (std::find(words.begin(), words.end(), "-create-library") != words.end()) {
    const char* text = kFrontEndObjectStandIn;
    cl_program object = next().clCreateProgramWithSource(context, 1, &text, nullptr, err);
    if (!object) return nullptr;
    *err = next().clCompileProgram(object, n, devices.data(), "", 0, nullptr, nullptr, nullptr, nullptr);
    cl_program library = *err == CL_SUCCESS ? next().clLinkProgram(context, n, devices.data(), "-create-library", 1,
                                                                    &object, nullptr, nullptr, err)
                                            : nullptr;
    next().clReleaseProgram(object);
    if (!library) *why = "the driver did not make a library of the objects' stand-in (" + std::to_string(*err) + ")";
    record->rewrite.status = RewriteResult::Status::Rewritten;
    record->rewrite.form = RewriteResult::Form::Object;
    return library;
  }
  record->rewrite = linkForNvidia(plan.objects, options);
  if (record->rewrite.status != RewriteResult::Status::Rewritten) {
    *err = CL_LINK_PROGRAM_FAILURE;
    *why = record->rewrite.log;
    return nullptr;
  }
  const std::string& ptx = record->rewrite.binary;
  std::vector<size_t> lengths(n, ptx.size());
  std::vector<const unsigned char*> binaries(n, reinterpret_cast<const unsigned char*>(ptx.data()));
  cl_program linked = next().clCreateProgramWithBinary(context, n, devices.data(), lengths.data(), binaries.data(),
                                                       nullptr, err);
  if (!linked) return nullptr;
  *err = next().clBuildProgram(linked, n, devices.data(), nvidiaPtxOptions(options).c_str(), nullptr, nullptr);
  if (*err == CL_SUCCESS) return linked;
  std::string log;
  programBuildString(linked, devices.front(), CL_PROGRAM_BUILD_LOG, &log);
  *why = "NVIDIA's driver did not build the PTX of the linked objects:\n" + log;
  *err = CL_LINK_PROGRAM_FAILURE;
  next().clReleaseProgram(linked);
  return nullptr;
}

// clLinkProgram of objects the layer's front end compiled (separate_compilation.h): the layer
// links them itself, so the driver's link, which has none of their code, never sees them.
cl_program linkOnFrontEnd(cl_context context, cl_uint num_devices, const cl_device_id* device_list,
                          const char* options, cl_uint num_inputs, const cl_program* inputs,
                          ProgramCallback pfn_notify, void* user_data, cl_int* errcode_ret) {
  std::vector<cl_device_id> devices;
  cl_int err = device_list ? (devices.assign(device_list, device_list + num_devices), CL_SUCCESS)
                           : contextDevices(context, &devices);
  FrontEndLink plan;
  std::string why;
  if (err == CL_SUCCESS && devices.empty()) err = CL_INVALID_DEVICE;
  if (std::string invalid = invalidLinkOptions(options ? options : ""); err == CL_SUCCESS && !invalid.empty()) {
    why = "options the spec does not list for a link: " + invalid;
    err = CL_INVALID_LINKER_OPTIONS;
  }
  if (err == CL_SUCCESS) err = planFrontEndLink(devices, num_inputs, inputs, &plan, &why);
  auto record = std::make_shared<ProgramRecord>();
  record->kind = ProgramRecord::Kind::Linked;
  record->appOptions = options ? options : "";
  record->defaultSubGroupSize = plan.defaultSubGroupSize;
  cl_program linked = err == CL_SUCCESS
                          ? driverProgramOfFrontEndLink(context, devices, record->appOptions, plan, record.get(), &err, &why)
                          : nullptr;
  if (errcode_ret) *errcode_ret = err;
  if (!linked) {
    if (!why.empty()) ISG_LOG_ERROR("clLinkProgram: " << why);
    return nullptr;
  }
  record->app = newAppProgram(linked);
  if (record->rewrite.form == RewriteResult::Form::Object) {
    auto library = std::make_shared<CompiledObject>();
    library->members = std::move(plan.members);
    compiledObjects().put(linked, std::move(library));
  }
  programRegistry().put(linked, record);
  if (pfn_notify) pfn_notify(linked, user_data);
  return linked;
}

}  // namespace

cl_program CL_API_CALL clLinkProgram_layer(cl_context context, cl_uint num_devices,
                                           const cl_device_id* device_list, const char* options,
                                           cl_uint num_input_programs,
                                           const cl_program* input_programs,
                                           ProgramCallback pfn_notify, void* user_data,
                                           cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clLinkProgram", errcode_ret, [&]() -> cl_program {
    ISG_REQUIRE_NEXT_CREATE(clLinkProgram, errcode_ret);
    cl_int wrong = wrongContextOrDevices(context, num_devices, device_list);
    if (input_programs)
      for (cl_uint i = 0; i < num_input_programs && !wrong; ++i)
        wrong = wrongKind(input_programs[i], HandleKind::Program, CL_INVALID_PROGRAM);
    if (wrong) {
      if (errcode_ret) *errcode_ret = wrong;
      return nullptr;
    }
    // Every program the application gets is a newAppProgram.
    auto forward = [&] {
      return newAppProgram(next().clLinkProgram(context, num_devices, device_list, options,
                                                num_input_programs, input_programs, pfn_notify,
                                                user_data, errcode_ret));
    };
    // The spec's answer where NVIDIA's driver (580) alone ends the process.
    if (num_input_programs != 0 && !input_programs) {
      if (errcode_ret) *errcode_ret = CL_INVALID_VALUE;
      return nullptr;
    }
    if (num_input_programs == 0 || (!pfn_notify && user_data)) return forward();
    if (listHasNullDevice(num_devices, device_list)) {
      if (errcode_ret) *errcode_ret = CL_INVALID_DEVICE;
      return nullptr;
    }

    if (linksOnFrontEnd(num_input_programs, input_programs))
      return linkOnFrontEnd(context, num_devices, device_list, options, num_input_programs,
                            input_programs, pfn_notify, user_data, errcode_ret);
    LinkPlan plan;
    std::string why;
    cl_int planned = planLink(num_devices, device_list, num_input_programs, input_programs, &plan, &why);
    // The objects compiled again for this link: the driver keeps what it links.
    auto releaseRecompiled = [&] {
      for (cl_program p : plan.recompiled) next().clReleaseProgram(p);
    };
    if (planned != CL_SUCCESS) {
      releaseRecompiled();
      if (planned != CL_LINK_PROGRAM_FAILURE) return forward();  // the driver reports it
      ISG_LOG_ERROR("clLinkProgram: " << why);
      if (errcode_ret) *errcode_ret = CL_LINK_PROGRAM_FAILURE;
      return nullptr;
    }
    if (!plan.anyRewritten) return forward();
    auto prototype = std::make_shared<ProgramRecord>();
    prototype->kind = ProgramRecord::Kind::Linked;
    prototype->appOptions = options ? options : "";
    prototype->defaultSubGroupSize = plan.defaultSubGroupSize;
    prototype->rewrite.strategy = plan.strategy;
    prototype->rewrite.kernels = std::move(plan.kernels);
    prototype->rewrite.contextFunctions = std::move(plan.contextFunctions);
    prototype->rewrite.externalFunctions = std::move(plan.externalFunctions);
    const std::vector<cl_program>& driverInputs = plan.driverInputs;

    auto record = std::make_shared<LinkedRecord>(std::move(prototype));
    std::unique_ptr<LinkNotification> notification;
    if (pfn_notify) notification.reset(new LinkNotification{pfn_notify, user_data, record});
    cl_program linked = next().clLinkProgram(
        context, num_devices, device_list, options, num_input_programs, driverInputs.data(),
        notification ? notifyLinked : nullptr, notification.get(), errcode_ret);
    if (notification) notification.release();
    releaseRecompiled();
    record->install(linked);
    return linked;
  });
}

}  // namespace isg
