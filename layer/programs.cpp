// SPDX-License-Identifier: MIT
// Program ownership (docs/design.md §3): the application keeps its driver program; a program
// that needs rewriting is built as a shadow from the rewritten source, and every later question
// about the application's program is routed to where the answer lives.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

#include "device_strategy.h"
#include "handle_kinds.h"
#include "driver_queries.h"
#include "kernel_records.h"
#include "isg/build_options.h"
#include "layer_api.h"
#include "object_registry.h"
#include "param_util.h"
#include "program_binaries.h"
#include "program_dump.h"
#include "separate_compilation.h"

namespace isg {

std::recursive_mutex& releaseMutex() {
  static auto* mutex = new std::recursive_mutex;  // never destroyed, like the registries
  return *mutex;
}

ObjectRegistry<cl_program, ProgramRecord>& programRegistry() {
  static auto* registry = new ObjectRegistry<cl_program, ProgramRecord>;
  return *registry;
}

void releaseShadow(const std::shared_ptr<ProgramRecord>& record) {
  if (record && record->shadow && next().clReleaseProgram) next().clReleaseProgram(record->shadow);
}

cl_program createDriverProgram(cl_program like, const std::string& text, cl_int* err) {
  cl_context context = nullptr;
  *err = programValue(like, CL_PROGRAM_CONTEXT, &context);
  if (*err != CL_SUCCESS) return nullptr;
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

namespace {

using ProgramCallback = void(CL_CALLBACK*)(cl_program, void*);

// The application programs being built (or compiled) through the layer right now. A build the
// layer rewrites replaces the program's record and releases the previous build's shadow, so a
// second build of the same program at once would release the shadow the first one is still
// building; it gets CL_INVALID_OPERATION instead, the code the spec names for a build begun
// while another has not completed. Builds the driver does alone wait for each other instead, as
// PoCL 3.1 makes them: NVIDIA's driver 580 corrupts its heap when two threads build one program
// at once (Misuse.ConcurrentBuildsOfOneProgram, docs/reliability.md).
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
  BuildClaim(cl_program program, Mode mode) : program_(program) {
    if (mode == Mode::Wait) buildsInProgress().beginAfterOthers(program);
    claimed_ = mode == Mode::Wait || buildsInProgress().begin(program);
  }
  ~BuildClaim() {
    if (claimed_) buildsInProgress().end(program_);
  }
  BuildClaim(const BuildClaim&) = delete;
  BuildClaim& operator=(const BuildClaim&) = delete;
  bool claimed() const { return claimed_; }

 private:
  cl_program program_;
  bool claimed_ = false;
};

struct RewritePlan {
  enum class Action { Forward, Shadow, Fail };
  Action action = Action::Forward;
  RewriteInput input;
  RewriteResult result;
  std::shared_ptr<const std::string> il;  // a program from SPIR-V: the module
  bool ilPlaceholder = false;
  // ISG_NVIDIA_FRONTEND=auto: a build of rewritten source NVIDIA's compiler rejects goes on to
  // the layer's front end (every device takes it).
  bool frontEndFallback = false;
};

// Decides what a build or compile of `program` does. An error means the layer cannot tell
// (invalid program, no source): the caller forwards and the driver answers.
// What to give the driver for a program from SPIR-V on `devices`: SPIR-V where every driver
// takes it (at the highest version all take), else SPIR bitcode where every driver takes that
// (cl_khr_spir, PoCL); false when some driver takes neither.
bool moduleOutputFor(const std::vector<cl_device_id>& devices, ModuleInput* m) {
  SpirvSupport support;
  if (!DeviceStrategy::spirvSupport(devices, &support)) return false;
  if (!support.allIl && !support.allSpir && !support.allPtx) return false;
  m->output = support.allIl    ? RewriteResult::Form::Spirv
              : support.allSpir ? RewriteResult::Form::Bitcode
                                : RewriteResult::Form::Ptx;
  m->spirvVersion = support.version;
  return true;
}

// The words of `options` that NVIDIA's driver applies to PTX (-cl-nv-maxrregcount=N,
// -cl-nv-opt-level=N, -cl-nv-verbose).
std::string nvidiaPtxOptions(const std::string& options) {
  std::string out;
  for (const std::string& w : splitBuildOptions(options))
    if (w.rfind("-cl-nv-", 0) == 0) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The build log's words where NVIDIA's compiler and the layer's front end both fail; the
// front end's log follows.
constexpr const char* kFrontEndFailedToo =
    "note: the layer's own OpenCL C front end (ISG_NVIDIA_FRONTEND) cannot build it either:\n";

// Whether a source program needs the layer's front end on `devices` whatever
// ISG_NVIDIA_FRONTEND=auto would pick: it may use an extension that NVIDIA's compiler lacks and
// the layer offers (half, integer dot product: layerExtensions), or print vectors (`%v4hlf`),
// which a kernel NVIDIA's compiler built fails to launch with and its vprintf misprints.
bool needsLayerFrontEnd(const RewriteInput& input, const std::vector<cl_device_id>& devices) {
  for (const LayerExtension& e : layerExtensions())
    if (DeviceStrategy::allHave(devices, e.offered) && e.mayUse(input)) return true;
  return config().NVIDIA_FRONTEND != FrontEndChoice::Driver &&
         DeviceStrategy::allHave(devices, &DeviceProfile::layerFrontEnd) && mayPrintVectors(input);
}

// ISG_NVIDIA_FRONTEND=every: programs without Intel builtins, which otherwise pass through, take
// the layer's front end too.
bool everyProgramOnLayerFrontEnd(const std::vector<cl_device_id>& devices) {
  return config().NVIDIA_FRONTEND == FrontEndChoice::Every &&
         DeviceStrategy::allHave(devices, &DeviceProfile::layerFrontEnd);
}

// A source program through the layer's OpenCL C front end on `devices`, its result ready for
// the driver's build of PTX (a compiled object: for the driver's compile of its stand-in), with
// the extensions the layer offers there. A program the rewriter leaves alone stays the driver's
// (PassThrough) unless it needs the front end (`needed`: needsLayerFrontEnd) or
// ISG_NVIDIA_FRONTEND=every says so.
RewriteResult viaLayerFrontEnd(RewriteInput input, const std::vector<cl_device_id>& devices, bool needed) {
  const bool untouchedToo = needed || everyProgramOnLayerFrontEnd(devices);
  offerLayerExtensions(devices, &input.traits);
  RewriteResult r = input.compiledObject ? compileObjectForNvidia(input) : compileForNvidia(input);
  if (r.status != RewriteResult::Status::Rewritten) return r;
  if (r.source.empty() && !untouchedToo) return RewriteResult{};
  if (r.form == RewriteResult::Form::Object) {
    r.source = kFrontEndObjectStandIn;  // separate_compilation.h
    r.headers.clear();
    r.lineMap.clear();
    r.options.clear();
  } else {
    r.options = nvidiaPtxOptions(input.options);
  }
  return r;
}

// The rewrite of a source program for `devices`: for NVIDIA's compiler or the layer's front end
// (ISG_NVIDIA_FRONTEND); clCompileProgram's objects alike (the front end's are linked by it
// again: separate_compilation.h). `needed`: needsLayerFrontEnd.
RewriteResult rewriteSource(const RewriteInput& input, const std::vector<cl_device_id>& devices, bool needed,
                            bool* fallbackLater) {
  *fallbackLater = false;
  const FrontEndChoice choice = config().NVIDIA_FRONTEND;
  if (choice == FrontEndChoice::Driver || !DeviceStrategy::allHave(devices, &DeviceProfile::layerFrontEnd))
    return rewriteProgram(input);
  if (choice == FrontEndChoice::Layer || choice == FrontEndChoice::Every || needed) {
    // What the front end cannot build yet (images) is NVIDIA's compiler's to try: a program
    // that tests cl_khr_fp16 takes its other branch there.
    RewriteResult layer = viaLayerFrontEnd(input, devices, needed);
    if (layer.status != RewriteResult::Status::Error) return layer;
    RewriteResult r = rewriteProgram(input);
    r.log = "note: the layer's own OpenCL C front end (ISG_NVIDIA_FRONTEND=layer, or an extension it offers) cannot build "
            "the program; NVIDIA's compiler builds it:\n" + layer.log + r.log;
    return r;
  }
  RewriteResult r = rewriteProgram(input);
  *fallbackLater = r.status == RewriteResult::Status::Rewritten;
  if (r.status != RewriteResult::Status::Error) return r;
  // What does not parse as NVIDIA's compiler takes OpenCL C (3.0 without the generic address
  // space, ...) may build as Intel's compiler takes it.
  RewriteResult layer = viaLayerFrontEnd(input, devices, needed);
  if (layer.status != RewriteResult::Status::Rewritten) {
    r.log += kFrontEndFailedToo + layer.log;
    return r;
  }
  layer.log = "note: the program does not compile as NVIDIA's OpenCL C compiler takes it; the layer's own "
              "front end built it (ISG_NVIDIA_FRONTEND=auto):\n" + r.log + layer.log;
  return layer;
}

// One line per rewritten program for ISG_LOG=info: its strategy and each kernel's S and hidden
// arguments.
std::string rewriteSummary(const RewriteResult& r) {
  std::ostringstream line;
  line << "rewrote a program for " << strategyName(r.strategy) << ":";
  if (r.kernels.empty()) line << " no kernels";
  for (std::size_t i = 0; i < r.kernels.size(); ++i) {
    const KernelManifest& k = r.kernels[i];
    line << (i ? ", " : " ") << "kernel '" << k.name << "' (S "
         << (k.launchSubGroupSize ? std::string("from each launch") : std::to_string(k.subGroupSize))
         << (k.requiredSubGroupSize ? " required" : "");
    for (const HiddenArg& h : k.hiddenArgs) {
      switch (h.kind) {
        case HiddenArg::Kind::LocalScratch: line << ", local scratch"; break;
        case HiddenArg::Kind::RawImage: line << ", texels of image " << h.imageArg; break;
        case HiddenArg::Kind::LaunchShape: line << ", launch shape"; break;
        case HiddenArg::Kind::ImageFacts: line << ", format of image " << h.imageArg; break;
      }
      line << " as argument " << h.index;
    }
    line << ")";
  }
  return line.str();
}

cl_int planRewrite(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                   const char* options, std::vector<SourceFile> headers, bool compiledObject,
                   RewritePlan* plan) {
  std::vector<cl_device_id> devices;
  if (device_list) {
    devices.assign(device_list, device_list + num_devices);
  } else if (cl_int err = programDevices(program, &devices); err != CL_SUCCESS) {
    return err;
  }
  std::shared_ptr<ProgramRecord> existing = programRegistry().find(program);
  std::shared_ptr<const std::string> il = existing ? existing->il : nullptr;
  std::string source;
  if (!il) {
    if (cl_int err = programString(program, CL_PROGRAM_SOURCE, &source); err != CL_SUCCESS)
      return err;
    // Drivers compile a source as the C string it is (NVIDIA's CL_PROGRAM_SOURCE also returns
    // what an explicit length put after a NUL byte, PoCL's does not).
    source.resize(std::strlen(source.c_str()));
  }
  plan->action = RewritePlan::Action::Forward;
  plan->il = il;
  plan->ilPlaceholder = existing && existing->ilPlaceholder;
  if (source.empty() && !il) return CL_SUCCESS;  // built from binaries: nothing to rewrite
  bool allNative = true;
  DeviceTraits traits = DeviceStrategy::traitsForBuild(devices, &allNative);
  if (allNative && !plan->ilPlaceholder) return CL_SUCCESS;
  plan->input.source = std::move(source);
  plan->input.headers = std::move(headers);
  plan->input.options = options ? options : "";
  plan->input.traits = traits;
  plan->input.compiledObject = compiledObject;
  if (il) {
    ModuleInput m;
    m.spirv = *il;
    m.options = plan->input.options;
    m.traits = traits;
    if (!moduleOutputFor(devices, &m)) {
      plan->result.status = RewriteResult::Status::Error;
      plan->result.log = "error: the driver of this device takes neither SPIR-V nor SPIR bitcode "
                         "(cl_khr_spir) nor PTX, or the program's devices differ in which, so the "
                         "layer cannot build programs from SPIR-V for them (docs/spirv.md)\n";
    } else {
      if (m.output == RewriteResult::Form::Ptx) offerLayerExtensions(devices, &m.traits);
      plan->result = rewriteModule(m);
      // PoCL keeps a binary's kernel argument information (which capture and
      // clGetKernelArgInfo need; the module carries it) only when asked. NVIDIA's build of
      // PTX takes its own options only: the rest were the layer's compile.
      if (plan->result.status == RewriteResult::Status::Rewritten)
        plan->result.options =
            m.output == RewriteResult::Form::Ptx     ? nvidiaPtxOptions(plan->input.options)
            : m.output == RewriteResult::Form::Bitcode ? "-x spir -cl-kernel-arg-info " + plan->input.options
                                                       : plan->input.options;
    }
  } else {
    const bool needed = needsLayerFrontEnd(plan->input, devices);
    if (!needed && !mayNeedRewrite(plan->input) && !everyProgramOnLayerFrontEnd(devices))
      return CL_SUCCESS;
    plan->result = rewriteSource(plan->input, devices, needed, &plan->frontEndFallback);
  }
  switch (plan->result.status) {
    case RewriteResult::Status::PassThrough:
      break;
    case RewriteResult::Status::Rewritten:
      plan->action = RewritePlan::Action::Shadow;
      dumpRewrittenProgram(plan->input, plan->result);
      if (plan->result.strategy != traits.strategy)
        ISG_LOG_WARNING("a program uses the " << strategyName(plan->result.strategy)
                                              << " strategy instead of "
                                              << strategyName(traits.strategy) << ":\n"
                                              << plan->result.log);
      ISG_LOG_INFO(rewriteSummary(plan->result));
      // Applications print a build log only when the build fails: what may give other results
      // than Intel's driver reaches the layer's log at its default level.
      for (std::size_t at = 0; at < plan->result.log.size();) {
        std::size_t end = plan->result.log.find('\n', at);
        if (end == std::string::npos) end = plan->result.log.size();
        const std::string line = plan->result.log.substr(at, end - at);
        if (line.find("differ from Intel's") != std::string::npos) ISG_LOG_WARNING(line);
        at = end + 1;
      }
      break;
    case RewriteResult::Status::Error:
      plan->action = RewritePlan::Action::Fail;
      ISG_LOG_INFO("the rewriter rejected a program:\n" << plan->result.log);
      break;
  }
  return CL_SUCCESS;
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

std::shared_ptr<ProgramRecord> recordFor(cl_program app, const RewritePlan& plan,
                                         const char* options) {
  auto record = std::make_shared<ProgramRecord>();
  record->app = app;
  record->rewrite = plan.result;
  record->appOptions = options ? options : "";
  record->defaultSubGroupSize = plan.input.traits.defaultSubGroupSize;
  record->il = plan.il;
  record->ilPlaceholder = plan.ilPlaceholder;
  return record;
}

// Installs the record for the new build; the previous build's shadow goes (rebuilds replace it).
void installRecord(cl_program app, std::shared_ptr<ProgramRecord> record) {
  std::shared_ptr<ProgramRecord> previous =
      record ? programRegistry().put(app, std::move(record)) : programRegistry().take(app);
  releaseShadow(previous);
}

// The driver calls back with the shadow; the application must see its own handle.
struct BuildNotification {
  ProgramCallback pfn;
  void* userData;
  cl_program app;
};

void CL_CALLBACK notifyWithAppProgram(cl_program, void* data) {
  // Owned by the callback: drivers call it exactly once per started build.
  std::unique_ptr<BuildNotification> n(static_cast<BuildNotification*>(data));
  n->pfn(n->app, n->userData);
}

// A NULL entry in a device list is CL_INVALID_DEVICE by the spec; drivers dereference it (PoCL
// 3.1 crashes), so the layer answers before forwarding.
bool listHasNullDevice(cl_uint num_devices, const cl_device_id* device_list) {
  return device_list && std::find(device_list, device_list + num_devices, nullptr) != device_list + num_devices;
}

bool programHasKernels(cl_program program) {
  return kernelRegistry().any([&](const KernelRecord& k) { return k.appProgram == program; });
}

// The build of a program the rewriter rejected fails before the driver; the application still
// gets its callback, as it would from a failed driver build.
cl_int failBuild(cl_program program, const RewritePlan& plan, const char* options,
                 ProgramCallback pfn_notify, void* user_data) {
  auto record = recordFor(program, plan, options);
  record->kind = ProgramRecord::Kind::RewriteFailed;
  installRecord(program, record);
  if (pfn_notify) pfn_notify(program, user_data);
  return plan.input.compiledObject ? CL_COMPILE_PROGRAM_FAILURE : CL_BUILD_PROGRAM_FAILURE;
}

// ISG_NVIDIA_FRONTEND=auto: NVIDIA's compiler rejected the rewritten program (`failed` is its
// record): the layer's front end builds it instead, or the failure stands with the front end's
// reason added to the log.
template <class DriverCall>
cl_int retryOnLayerFrontEnd(cl_program program, const RewritePlan& plan, const char* options,
                            const std::shared_ptr<ProgramRecord>& failed, DriverCall& driverCall,
                            cl_int failure) {
  std::vector<cl_device_id> devices;
  std::string driverLog;
  if (programDevices(failed->shadow, &devices) == CL_SUCCESS && !devices.empty())
    programBuildString(failed->shadow, devices.front(), CL_PROGRAM_BUILD_LOG, &driverLog);
  driverLog = mapBuildLog(driverLog, failed->rewrite);
  RewritePlan layer = plan;
  layer.result = viaLayerFrontEnd(plan.input, devices, /*needed=*/false);  // those went there first
  if (layer.result.status != RewriteResult::Status::Rewritten) {
    // The failed build's shadow stays the record's: only the log grows.
    auto noted = std::make_shared<ProgramRecord>(*failed);
    noted->rewrite.log += kFrontEndFailedToo +
                          layer.result.log;
    programRegistry().put(program, noted);
    return failure;
  }
  layer.result.log = "note: NVIDIA's OpenCL C compiler rejected the program; the layer's own front end built "
                     "it (ISG_NVIDIA_FRONTEND=auto). NVIDIA's log:\n" + driverLog + layer.result.log;
  ISG_LOG_INFO("NVIDIA's compiler rejected a rewritten program; the layer's front end built it");
  cl_int err = CL_SUCCESS;
  auto record = recordFor(program, layer, options);
  record->shadow = createShadow(program, layer.result, &err);
  if (!record->shadow) return failure;
  installRecord(program, record);  // releases the rejected shadow
  return driverCall(record->shadow, layer.result.options.c_str(), nullptr, nullptr);
}

// What clBuildProgram and clCompileProgram share once their arguments are checked: plan the
// rewrite, then make the driver call, `driverCall(target, options, pfn_notify, user_data)`,
// either on the application's program as it is or on a shadow of the rewritten source.
// `prepare(plan)` runs before the shadow exists and may refuse with an error (the compile's
// rewritten headers must exist before its driver call).
// `options` for the driver of a build on `devices` (the program's where the list is empty):
// without the options only Intel's compiler takes (isg::onlyForIntelsCompiler), unless every
// device is Intel's own driver, which takes them. What was dropped is said at ISG_LOG=info.
std::string optionsForDriver(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                             const char* options) {
  if (!options) return std::string();
  std::vector<std::string> dropped;
  std::string kept = withoutIntelCompilerOptions(options, &dropped);
  if (dropped.empty()) return options;
  std::vector<cl_device_id> devices(device_list, device_list + (device_list ? num_devices : 0));
  if (devices.empty()) programDevices(program, &devices);
  bool allNative = !devices.empty();
  for (cl_device_id d : devices) {
    const DeviceProfile* profile = DeviceStrategy::of(d);
    allNative = allNative && profile && profile->strategy == Strategy::Native;
  }
  if (allNative) return options;
  std::string list;
  for (const std::string& w : dropped) list += (list.empty() ? "" : " ") + w;
  ISG_LOG_INFO("build options only Intel's compiler takes, left out for the driver: " << list);
  return kept;
}

template <class Prepare, class DriverCall>
cl_int rewriteAndCall(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                      const char* options, std::vector<SourceFile> headers,
                      bool compiledObject, ProgramCallback pfn_notify, void* user_data,
                      Prepare&& prepare, DriverCall&& driverCall) {
  // The application's options stay what CL_PROGRAM_BUILD_OPTIONS answers; the driver and the
  // rewriter get them without those only Intel's compiler takes.
  const char* appOptions = options;
  const std::string driverOptions = optionsForDriver(program, num_devices, device_list, options);
  options = driverOptions.c_str();
  auto forward = [&] { return driverCall(program, options, pfn_notify, user_data); };
  // The driver's build alone, one at a time per program (BuildsInProgress).
  auto forwardAfterOthers = [&] {
    BuildClaim serial(program, BuildClaim::Mode::Wait);
    return forward();
  };
  RewritePlan plan;
  if (planRewrite(program, num_devices, device_list, options, std::move(headers), compiledObject,
                  &plan) !=
      CL_SUCCESS)
    return forwardAfterOthers();
  // A program the layer has never rewritten and does not rewrite now is the driver's alone.
  if (plan.action == RewritePlan::Action::Forward && !plan.il && !programRegistry().find(program))
    return forwardAfterOthers();
  BuildClaim claim(program, BuildClaim::Mode::Refuse);
  if (!claim.claimed()) return CL_INVALID_OPERATION;
  switch (plan.action) {
    case RewritePlan::Action::Forward:
      // A program created from a rewritten program's binaries has no source, and stays the
      // layer's: its kernels still have hidden arguments.
      if (auto r = programRegistry().find(program); !r || r->kind != ProgramRecord::Kind::FromBinary) {
        // A program from SPIR-V keeps its module for the next build and CL_PROGRAM_IL.
        std::shared_ptr<ProgramRecord> keep;
        if (plan.il) {
          keep = recordFor(program, plan, appOptions);
          keep->kind = ProgramRecord::Kind::FromIL;
        }
        installRecord(program, keep);
      }
      return forward();
    case RewritePlan::Action::Fail:
      return failBuild(program, plan, options, pfn_notify, user_data);
    case RewritePlan::Action::Shadow:
      break;
  }
  if (cl_int err = prepare(plan); err != CL_SUCCESS) return err;
  cl_int err = CL_SUCCESS;
  auto record = recordFor(program, plan, appOptions);
  record->shadow = createShadow(program, plan.result, &err);
  if (!record->shadow) return err;
  // Installed before the driver call: a callback may query the program from inside it.
  installRecord(program, record);
  if (plan.frontEndFallback) {
    // NVIDIA's build is synchronous (its callback is the layer's to call): its failure must
    // be known before the application hears of the build.
    err = driverCall(record->shadow, plan.result.options.c_str(), nullptr, nullptr);
    if (err == CL_BUILD_PROGRAM_FAILURE || err == CL_COMPILE_PROGRAM_FAILURE)
      err = retryOnLayerFrontEnd(program, plan, options, record, driverCall, err);
    if (pfn_notify) pfn_notify(program, user_data);
    return err;
  }
  std::unique_ptr<BuildNotification> notification;
  if (pfn_notify) notification.reset(new BuildNotification{pfn_notify, user_data, program});
  err = driverCall(record->shadow, plan.result.options.c_str(),
                   notification ? notifyWithAppProgram : nullptr, notification.get());
  if (notification) notification.release();  // the callback owns it now
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
    return rewriteAndCall(
        program, num_devices, device_list, options, {}, /*compiledObject=*/false, pfn_notify,
        user_data,
        [](const RewritePlan&) { return CL_SUCCESS; }, build);
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
    auto prepareHeaders = [&](const RewritePlan& plan) -> cl_int {
      cl_int err = CL_SUCCESS;
      for (const SourceFile& rewritten : plan.result.headers) {
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
    cl_int err = rewriteAndCall(program, num_devices, device_list, options, headers,
                                /*compiledObject=*/true, pfn_notify, user_data, prepareHeaders,
                                compile);
    if (err == CL_SUCCESS) compiledObjects().put(program, std::move(compiled));
    return err;
  });
}

namespace {

// A linked program is the driver's own object: the callback already gets the handle the
// application will hold, but the record must exist before the application's callback runs.
struct LinkNotification {
  ProgramCallback pfn;
  void* userData;
  std::shared_ptr<ProgramRecord> prototype;
};

void installLinkedRecord(cl_program linked, const ProgramRecord& prototype) {
  if (programRegistry().find(linked)) return;
  auto record = std::make_shared<ProgramRecord>(prototype);
  record->app = linked;
  programRegistry().put(linked, record);
}

void CL_CALLBACK notifyLinked(cl_program linked, void* data) {
  std::unique_ptr<LinkNotification> n(static_cast<LinkNotification*>(data));
  if (linked) installLinkedRecord(linked, *n->prototype);
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
  record->app = linked;
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
    // Every program the application gets is in the table of handle kinds.
    auto known = [](cl_program p) {
      handleKinds().created(p, HandleKind::Program);
      return p;
    };
    auto forward = [&] {
      return known(next().clLinkProgram(context, num_devices, device_list, options, num_input_programs,
                                        input_programs, pfn_notify, user_data, errcode_ret));
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
      return known(linkOnFrontEnd(context, num_devices, device_list, options, num_input_programs,
                                  input_programs, pfn_notify, user_data, errcode_ret));
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

    std::unique_ptr<LinkNotification> notification;
    if (pfn_notify) notification.reset(new LinkNotification{pfn_notify, user_data, prototype});
    cl_program linked = next().clLinkProgram(
        context, num_devices, device_list, options, num_input_programs, driverInputs.data(),
        notification ? notifyLinked : nullptr, notification.get(), errcode_ret);
    if (notification) notification.release();
    releaseRecompiled();
    if (linked) installLinkedRecord(linked, *prototype);
    return known(linked);
  });
}

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
        [&] { return std::make_pair(programRegistry().take(program), compiledObjects().take(program)); },
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
    cl_program p = next().clCreateProgramWithSource(context, count, strings, lengths, errcode_ret);
    handleKinds().created(p, HandleKind::Program);
    return p;
  });
}

cl_program CL_API_CALL clCreateProgramWithBuiltInKernels_layer(cl_context context, cl_uint num_devices,
                                                               const cl_device_id* device_list,
                                                               const char* kernel_names,
                                                               cl_int* errcode_ret) {
  return guardedCreate<cl_program>("clCreateProgramWithBuiltInKernels", errcode_ret, [&]() -> cl_program {
    ISG_REQUIRE_NEXT_CREATE(clCreateProgramWithBuiltInKernels, errcode_ret);
    if (const cl_int wrong = wrongContextOrDevices(context, num_devices, device_list)) {
      if (errcode_ret) *errcode_ret = wrong;
      return nullptr;
    }
    cl_program p =
        next().clCreateProgramWithBuiltInKernels(context, num_devices, device_list, kernel_names, errcode_ret);
    handleKinds().created(p, HandleKind::Program);
    return p;
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
        record->kind == ProgramRecord::Kind::FromBinary || record->kind == ProgramRecord::Kind::FromIL)
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
