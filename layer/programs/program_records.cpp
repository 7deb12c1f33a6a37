// SPDX-License-Identifier: MIT
// The program registry and its records (program_records.h), and the driver
// programs the layer makes of them.
#include "programs/program_records.h"

#include <algorithm>
#include <mutex>
#include <string>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "core/logger.h"
#include "devices/device_strategy.h"
#include "isg/build_options.h"
#include "programs/separate_compilation.h"

namespace isg {

ObjectRegistry<cl_program, ProgramRecord>& programRegistry() {
  static auto* registry = new ObjectRegistry<cl_program, ProgramRecord>;
  return *registry;
}

bool mayCapRegisters(const ProgramRecord& program) {
  // Capping builds the rewritten source again, which linked programs do not have. PTX the
  // layer wrote (its front end, programs from SPIR-V) declares .maxntid 1024: ptxas already
  // kept its registers to what 1024 work-items share.
  if (program.rewrite.source.empty() || program.rewrite.form != RewriteResult::Form::Source ||
      program.kind == ProgramRecord::Kind::RewriteFailed)
    return false;
  // The application's own register limit stands.
  for (const std::string& w : splitBuildOptions(program.appOptions))
    if (w.rfind(kCapOption, 0) == 0) return false;
  std::vector<cl_device_id> devices;
  if (programDevices(program.driverProgram(), &devices) != CL_SUCCESS) return false;
  return std::any_of(devices.begin(), devices.end(), takesNvidiaOptions);
}

void releaseShadow(const std::shared_ptr<ProgramRecord>& record) {
  if (record && record->shadow && next().clReleaseProgram) next().clReleaseProgram(record->shadow);
}

cl_program newAppProgram(cl_program program) {
  if (!program) return nullptr;
  handleKinds().created(program, HandleKind::Program);
  std::shared_ptr<ProgramRecord> stale = programRegistry().take(program);
  std::shared_ptr<CompiledObject> staleObject = compiledObjects().take(program);
  if (stale || staleObject) {
    ISG_LOG_INFO(
        "a new program at the address of one the driver has freed: the old one's records go");
    releaseShadow(stale);
  }
  return program;
}

bool hasPackedCopies(const ProgramRecord& record) {
  for (const KernelManifest& k : record.rewrite.kernels)
    for (const HiddenArg& h : k.hiddenArgs)
      if (h.kind == HiddenArg::Kind::PackedLaunch) return true;
  return false;
}

bool isPackedCopy(const ProgramRecord& record, const std::string& name) {
  const std::string suffix = kPackedKernelSuffix;
  if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string kernel = name.substr(0, name.size() - suffix.size());
  for (const KernelManifest& k : record.rewrite.kernels)
    if (k.name == kernel)
      for (const HiddenArg& h : k.hiddenArgs)
        if (h.kind == HiddenArg::Kind::PackedLaunch) return true;
  return false;
}

cl_int visibleKernelNames(const ProgramRecord& record, std::string* names, size_t* count) {
  std::string all;
  if (cl_int err = programString(record.driverProgram(), CL_PROGRAM_KERNEL_NAMES, &all)) return err;
  names->clear();
  *count = 0;
  std::size_t from = 0;
  while (from <= all.size()) {
    std::size_t end = all.find(';', from);
    if (end == std::string::npos) end = all.size();
    const std::string name = all.substr(from, end - from);
    if (!name.empty() && !isPackedCopy(record, name)) {
      *names += (names->empty() ? "" : ";") + name;
      ++*count;
    }
    from = end + 1;
  }
  return CL_SUCCESS;
}

cl_program createDriverProgram(cl_program like, const std::string& text, cl_int* err) {
  cl_context context = nullptr;
  *err = programValue(like, CL_PROGRAM_CONTEXT, &context);
  if (*err != CL_SUCCESS) return nullptr;
  return createDriverProgramIn(context, text, err);
}

cl_program createDriverProgramIn(cl_context context, const std::string& text, cl_int* err) {
  if (!next().clCreateProgramWithSource) {
    *err = CL_INVALID_OPERATION;
    return nullptr;
  }
  const char* strings[] = {text.c_str()};
  const size_t lengths[] = {text.size()};
  return next().clCreateProgramWithSource(context, 1, strings, lengths, err);
}

CallDriverPrograms::~CallDriverPrograms() {
  for (cl_program p : programs_)
    if (next().clReleaseProgram) next().clReleaseProgram(p);
}

cl_program CallDriverPrograms::create(cl_program like, const std::string& text, cl_int* err) {
  cl_program p = createDriverProgram(like, text, err);
  if (p) programs_.push_back(p);
  return p;
}

std::shared_ptr<ProgramRecord> recordFor(cl_program app, const BuildPlan& plan,
                                         const RewriteResult& rewrite,
                                         const std::string& appOptions) {
  auto record = std::make_shared<ProgramRecord>();
  record->app = app;
  record->rewrite = rewrite;
  record->appOptions = appOptions;
  record->defaultSubGroupSize = plan.input.traits.defaultSubGroupSize;
  record->il = plan.il;
  record->ilPlaceholder = plan.ilPlaceholder;
  return record;
}

void installRecord(cl_program app, std::shared_ptr<ProgramRecord> record) {
  std::shared_ptr<ProgramRecord> previous =
      record ? programRegistry().put(app, std::move(record)) : programRegistry().take(app);
  releaseShadow(previous);
}

void CL_CALLBACK notifyWithAppProgram(cl_program, void* data) {
  // Owned by the callback: drivers call it exactly once per started build.
  std::unique_ptr<BuildNotification> n(static_cast<BuildNotification*>(data));
  n->pfn(n->app, n->userData);
}

}  // namespace isg
