// SPDX-License-Identifier: MIT
// clBuildProgram and clCompileProgram (docs/design.md §3): the arguments checked, the build plan
// (build_plan.h) and its rewrite (program_rewrite.h) carried out: the application's program as
// it is, or a shadow of the rewritten program, given to the driver, with the fallbacks of
// ISG_NVIDIA_FRONTEND=auto and the application's callback.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/driver_queries.h"
#include "core/handle_kinds.h"
#include "core/layer_api.h"
#include "programs/build_plan.h"
#include "programs/program_records.h"
#include "programs/program_rewrite.h"
#include "programs/separate_compilation.h"

namespace isg {
namespace {

// One build of an application program at a time. A build the layer rewrites replaces the
// program's record and releases the previous build's shadow, so a second build of the same
// program at once would release the shadow the first one is still building; it gets
// CL_INVALID_OPERATION instead, the code the spec names for a build begun while another has not
// completed. Builds the driver does alone wait for each other instead, as PoCL 3.1 makes them:
// NVIDIA's driver 580 corrupts its heap when two threads build one program at once
// (Misuse.ConcurrentBuildsOfOneProgram, docs/reliability.md).

// The application programs being built (or compiled) through the layer right now.
class BuildsInProgress {
 public:
  bool begin(cl_program program) {
    std::lock_guard<std::mutex> lock(mutex_);
    return programs_.insert(program).second;
  }
  void beginAfterOthers(cl_program program) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return programs_.count(program) == 0; });
    programs_.insert(program);
  }
  void end(cl_program program) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      programs_.erase(program);
    }
    done_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  std::unordered_set<cl_program> programs_;
};

BuildsInProgress& buildsInProgress() {
  static auto* builds = new BuildsInProgress;  // never destroyed, like the registries
  return *builds;
}

// The calling thread's claim on building `program`: Refuse, claimed() is false while another
// build of it is in progress; Wait, the claim waits for the others.
class BuildClaim {
 public:
  enum class Mode { Refuse, Wait };
  BuildClaim(cl_program program, Mode mode);
  ~BuildClaim();
  BuildClaim(const BuildClaim&) = delete;
  BuildClaim& operator=(const BuildClaim&) = delete;
  bool claimed() const { return claimed_; }

 private:
  cl_program program_;
  bool claimed_ = false;
};

BuildClaim::BuildClaim(cl_program program, Mode mode) : program_(program) {
  if (mode == Mode::Wait) buildsInProgress().beginAfterOthers(program);
  claimed_ = mode == Mode::Wait || buildsInProgress().begin(program);
}

BuildClaim::~BuildClaim() {
  if (claimed_) buildsInProgress().end(program_);
}

// The shadow of a program from SPIR-V: the rewritten module, as SPIR-V, or as SPIR bitcode or
// PTX for every device of the application's program.
cl_program createDriverModule(cl_program like, const RewriteResult& result, cl_int* err) {
  cl_context context = nullptr;
  *err = programValue(like, CL_PROGRAM_CONTEXT, &context);
  if (*err != CL_SUCCESS) return nullptr;
  if (result.form == RewriteResult::Form::Spirv) {
    if (!next().clCreateProgramWithIL) {
      *err = CL_INVALID_OPERATION;
      return nullptr;
    }
    return next().clCreateProgramWithIL(context, result.binary.data(), result.binary.size(), err);
  }
  std::vector<cl_device_id> devices;
  if ((*err = programDevices(like, &devices)) != CL_SUCCESS) return nullptr;
  if (!next().clCreateProgramWithBinary) {
    *err = CL_INVALID_OPERATION;
    return nullptr;
  }
  std::vector<size_t> lengths(devices.size(), result.binary.size());
  std::vector<const unsigned char*> binaries(
      devices.size(), reinterpret_cast<const unsigned char*>(result.binary.data()));
  return next().clCreateProgramWithBinary(context, cl_uint(devices.size()), devices.data(),
                                          lengths.data(), binaries.data(), nullptr, err);
}

// The shadow of `like` for `result`: a driver program of the rewritten source (or of an
// object's stand-in), or of the module.
cl_program createShadow(cl_program like, const RewriteResult& result, cl_int* err) {
  return result.form == RewriteResult::Form::Source || result.form == RewriteResult::Form::Object
             ? createDriverProgram(like, result.source, err)
             : createDriverModule(like, result, err);
}

// The build of a program the rewriter rejected fails before the driver; the application still
// gets its callback, as it would from a failed driver build.
cl_int failBuild(cl_program program, const BuildPlan& plan, const PlannedRewrite& rewrite,
                 ProgramCallback pfn_notify, void* user_data) {
  auto record = recordFor(program, plan, rewrite.result, plan.appOptions);
  record->kind = ProgramRecord::Kind::RewriteFailed;
  installRecord(program, record);
  if (pfn_notify) pfn_notify(program, user_data);
  return plan.input.compiledObject ? CL_COMPILE_PROGRAM_FAILURE : CL_BUILD_PROGRAM_FAILURE;
}

// ISG_NVIDIA_FRONTEND=auto: NVIDIA's compiler rejected the rewritten program (`failed` is its
// record): the layer's front end builds it instead, or the failure stands with the front end's
// reason added to the log.
template <class DriverCall>
cl_int retryOnLayerFrontEnd(cl_program program, const BuildPlan& plan,
                            const std::shared_ptr<ProgramRecord>& failed, DriverCall& driverCall,
                            cl_int failure) {
  std::vector<cl_device_id> devices;
  std::string driverLog;
  if (programDevices(failed->shadow, &devices) == CL_SUCCESS && !devices.empty())
    programBuildString(failed->shadow, devices.front(), CL_PROGRAM_BUILD_LOG, &driverLog);
  driverLog = mapBuildLog(driverLog, failed->rewrite);
  // Programs that need the front end went there first.
  RewriteResult layer = viaLayerFrontEnd(plan, devices, everyProgramOnLayerFrontEnd(devices));
  if (layer.status != RewriteResult::Status::Rewritten) {
    // The failed build's shadow stays the record's: only the log grows.
    auto noted = std::make_shared<ProgramRecord>(*failed);
    noted->rewrite.log += kFrontEndFailedToo + layer.log;
    programRegistry().put(program, noted);
    return failure;
  }
  layer.log = "note: NVIDIA's OpenCL C compiler rejected the program; the layer's own front end built "
              "it (ISG_NVIDIA_FRONTEND=auto). NVIDIA's log:\n" + driverLog + layer.log;
  ISG_LOG_INFO("NVIDIA's compiler rejected a rewritten program; the layer's front end built it");
  cl_int err = CL_SUCCESS;
  auto record = recordFor(program, plan, layer, plan.appOptions);
  record->shadow = createShadow(program, layer, &err);
  if (!record->shadow) return failure;
  if (plan.route == BuildPlan::Route::Source) record->variants = programVariantsFor(program, plan.input, layer);
  installRecord(program, record);  // releases the rejected shadow
  return driverCall(record->shadow, layer.options.c_str(), nullptr, nullptr);
}

// What clBuildProgram and clCompileProgram share once their arguments are checked: carry out
// `plan` (planBuild) with the driver call `driverCall(target, options, pfn_notify, user_data)`,
// either on the application's program as it is or on a shadow of the rewritten program.
// `prepare(rewritten)` runs before the shadow exists and may refuse with an error (the
// compile's rewritten headers must exist before its driver call).
template <class Prepare, class DriverCall>
cl_int buildAsPlanned(cl_program program, const BuildPlan& plan, ProgramCallback pfn_notify, void* user_data,
                      Prepare&& prepare, DriverCall&& driverCall) {
  const char* options = plan.driverOptions.c_str();
  auto forward = [&] { return driverCall(program, options, pfn_notify, user_data); };
  // The driver's build alone, one at a time per program (BuildClaim, above).
  auto forwardAfterOthers = [&] {
    BuildClaim serial(program, BuildClaim::Mode::Wait);
    return forward();
  };
  if (plan.route == BuildPlan::Route::DriverAnswers) return forwardAfterOthers();
  const PlannedRewrite rewrite = rewriteAsPlanned(plan);
  // A program the layer has never rewritten and does not rewrite now is the driver's alone.
  if (rewrite.action == PlannedRewrite::Action::Forward && !plan.il && !programRegistry().find(program))
    return forwardAfterOthers();
  BuildClaim claim(program, BuildClaim::Mode::Refuse);
  if (!claim.claimed()) return CL_INVALID_OPERATION;
  switch (rewrite.action) {
    case PlannedRewrite::Action::Forward:
      // A program created from a rewritten program's binaries has no source, and stays the
      // layer's: its kernels still have hidden arguments.
      if (auto r = programRegistry().find(program); !r || r->kind != ProgramRecord::Kind::FromBinary) {
        // A program from SPIR-V keeps its module for the next build and CL_PROGRAM_IL.
        std::shared_ptr<ProgramRecord> keep;
        if (plan.il) {
          keep = recordFor(program, plan, rewrite.result, plan.appOptions);
          keep->kind = ProgramRecord::Kind::FromIL;
        }
        installRecord(program, keep);
      }
      return forward();
    case PlannedRewrite::Action::Fail:
      return failBuild(program, plan, rewrite, pfn_notify, user_data);
    case PlannedRewrite::Action::Shadow:
      break;
  }
  if (cl_int err = prepare(rewrite.result); err != CL_SUCCESS) return err;
  cl_int err = CL_SUCCESS;
  auto record = recordFor(program, plan, rewrite.result, plan.appOptions);
  record->shadow = createShadow(program, rewrite.result, &err);
  if (!record->shadow) return err;
  if (plan.route == BuildPlan::Route::Source)
    record->variants = programVariantsFor(program, plan.input, rewrite.result);
  // Installed before the driver call: a callback may query the program from inside it.
  installRecord(program, record);
  if (rewrite.frontEndFallback) {
    // NVIDIA's build is synchronous (its callback is the layer's to call): its failure must
    // be known before the application hears of the build.
    err = driverCall(record->shadow, rewrite.result.options.c_str(), nullptr, nullptr);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE)
      err = retryOnLayerFrontEnd(program, plan, record, driverCall, err);
    if (pfn_notify) pfn_notify(program, user_data);
    return err;
  }
  std::unique_ptr<BuildNotification> notification;
  if (pfn_notify) notification.reset(new BuildNotification{pfn_notify, user_data, program});
  err = driverCall(record->shadow, rewrite.result.options.c_str(),
                   notification ? notifyWithAppProgram : nullptr, notification.get());
  if (notification) notification.release();  // the callback owns it now
  // Applications seldom print a failed build's log (OpenVINO does not): ISG_LOG=info does.
  if ((err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE) && !pfn_notify &&
      logEnabled(LogLevel::Info)) {
    std::vector<cl_device_id> devices;
    std::string driverLog;
    if (programDevices(record->shadow, &devices) == CL_SUCCESS && !devices.empty())
      programBuildString(record->shadow, devices.front(), CL_PROGRAM_BUILD_LOG, &driverLog);
    ISG_LOG_INFO("the driver rejected a rewritten program; its log:\n" << mapBuildLog(driverLog, rewrite.result));
  }
  return err;
}

}  // namespace

cl_int CL_API_CALL clBuildProgram_layer(cl_program program, cl_uint num_devices,
                                        const cl_device_id* device_list, const char* options,
                                        ProgramCallback pfn_notify, void* user_data) {
  return guardedEntry("clBuildProgram", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clBuildProgram);
    ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
    if (const cl_int wrong = notAProgramOrKernelIn(num_devices, device_list, CL_INVALID_DEVICE)) return wrong;
    auto build = [&](cl_program target, const char* opts, ProgramCallback notify, void* data) {
      return next().clBuildProgram(target, num_devices, device_list, opts, notify, data);
    };
    // Malformed arguments are the driver's to report.
    if ((num_devices == 0) != (device_list == nullptr) || (!pfn_notify && user_data))
      return build(program, options, pfn_notify, user_data);
    if (listHasNullDevice(num_devices, device_list)) return CL_INVALID_DEVICE;
    // The driver cannot see kernels made from the shadow, so the layer enforces this rule.
    if (programHasKernels(program)) return CL_INVALID_OPERATION;
    const BuildPlan plan = planBuild(program, num_devices, device_list, options, {}, /*compiledObject=*/false);
    return buildAsPlanned(
        program, plan, pfn_notify, user_data, [](const RewriteResult&) { return CL_SUCCESS; }, build);
  });
}

cl_int CL_API_CALL clCompileProgram_layer(cl_program program, cl_uint num_devices,
                                          const cl_device_id* device_list, const char* options,
                                          cl_uint num_input_headers,
                                          const cl_program* input_headers,
                                          const char** header_include_names,
                                          ProgramCallback pfn_notify, void* user_data) {
  return guardedEntry("clCompileProgram", [&]() -> cl_int {
    ISG_REQUIRE_NEXT(clCompileProgram);
    ISG_REJECT_WRONG_KIND(program, Program, CL_INVALID_PROGRAM);
    if (const cl_int wrong = notAProgramOrKernelIn(num_devices, device_list, CL_INVALID_DEVICE)) return wrong;
    if (input_headers)
      for (cl_uint i = 0; i < num_input_headers; ++i)
        ISG_REJECT_WRONG_KIND(input_headers[i], Program, CL_INVALID_PROGRAM);
    // The application's header programs until prepareHeaders swaps in rewritten ones.
    const cl_program* driverHeaderList = input_headers;
    auto compile = [&](cl_program target, const char* opts, ProgramCallback notify, void* data) {
      return next().clCompileProgram(target, num_devices, device_list, opts, num_input_headers,
                                     driverHeaderList, header_include_names, notify, data);
    };
    // Headers announced but not given: the spec's CL_INVALID_VALUE (PoCL 3.1 crashes on it).
    if (num_input_headers != 0 && (!input_headers || !header_include_names)) return CL_INVALID_VALUE;
    if ((num_devices == 0) != (device_list == nullptr) || (!pfn_notify && user_data))
      return compile(program, options, pfn_notify, user_data);
    if (listHasNullDevice(num_devices, device_list)) return CL_INVALID_DEVICE;
    if (programHasKernels(program)) return CL_INVALID_OPERATION;

    std::vector<SourceFile> headers;
    for (cl_uint i = 0; i < num_input_headers; ++i) {
      SourceFile header;
      header.name = header_include_names[i] ? header_include_names[i] : "";
      if (programString(input_headers[i], CL_PROGRAM_SOURCE, &header.text) != CL_SUCCESS)
        return compile(program, options, pfn_notify, user_data);
      headers.push_back(std::move(header));
    }

    // Headers the rewriter changed become driver programs of their own; unchanged ones are the
    // application's header programs as they are.
    std::vector<cl_program> driverHeaders(input_headers, input_headers + num_input_headers);
    CallDriverPrograms createdHeaders;
    auto prepareHeaders = [&](const RewriteResult& result) -> cl_int {
      cl_int err = CL_SUCCESS;
      for (const SourceFile& rewritten : result.headers) {
        for (cl_uint i = 0; i < num_input_headers; ++i) {
          if (headers[i].name != rewritten.name || headers[i].text == rewritten.text) continue;
          cl_program created = createdHeaders.create(program, rewritten.text, &err);
          if (!created) return err;
          driverHeaders[i] = created;
        }
      }
      driverHeaderList = num_input_headers ? driverHeaders.data() : nullptr;
      return CL_SUCCESS;
    };
    // How to compile the object again, should a link find it calling another object's
    // context-taking function.
    auto compiled = std::make_shared<CompiledObject>();
    compiled->options = options ? options : "";
    compiled->headers = headers;
    const BuildPlan plan = planBuild(program, num_devices, device_list, options, headers, /*compiledObject=*/true);
    cl_int err = buildAsPlanned(program, plan, pfn_notify, user_data, prepareHeaders, compile);
    if (err == CL_SUCCESS) compiledObjects().put(program, std::move(compiled));
    return err;
  });
}

}  // namespace isg
