// SPDX-License-Identifier: MIT
// The build plan (build_plan.h): every choice of how a program is built, from the program, the
// application's options and the profiles of the devices built for.
#include "programs/build_plan.h"

#include <cstring>

#include "core/driver_queries.h"
#include "core/layer_api.h"
#include "devices/device_strategy.h"
#include "isg/build_options.h"
#include "programs/program_records.h"

namespace isg {

std::string nvidiaPtxOptions(const std::string& options) {
  std::string out;
  for (const std::string& w : splitBuildOptions(options))
    if (w.rfind("-cl-nv-", 0) == 0) out += (out.empty() ? "" : " ") + w;
  return out;
}

bool everyProgramOnLayerFrontEnd(const std::vector<cl_device_id>& devices) {
  return config().NVIDIA_FRONTEND == FrontEndChoice::Every &&
         DeviceStrategy::allHave(devices, &DeviceProfile::layerFrontEnd);
}

namespace {

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

// Which front end compiles a source program the layer rewrites on `devices`.
BuildPlan::FrontEnd frontEndFor(const std::vector<cl_device_id>& devices, bool needed) {
  const FrontEndChoice choice = config().NVIDIA_FRONTEND;
  if (choice == FrontEndChoice::Driver || !DeviceStrategy::allHave(devices, &DeviceProfile::layerFrontEnd))
    return BuildPlan::FrontEnd::Driver;
  if (choice == FrontEndChoice::Layer || choice == FrontEndChoice::Every || needed)
    return BuildPlan::FrontEnd::Layer;
  return BuildPlan::FrontEnd::DriverThenLayer;
}

// A program from SPIR-V: the form and options the driver gets, or Route::NoModuleForm.
void planModule(BuildPlan* plan) {
  ModuleInput& m = plan->module;
  m.spirv = *plan->il;
  m.options = plan->input.options;
  m.traits = plan->input.traits;
  if (!moduleOutputFor(plan->devices, &m)) {
    plan->route = BuildPlan::Route::NoModuleForm;
    plan->noModuleFormLog = "error: the driver of this device takes neither SPIR-V nor SPIR bitcode "
                            "(cl_khr_spir) nor PTX, or the program's devices differ in which, so the "
                            "layer cannot build programs from SPIR-V for them (docs/spirv.md)\n";
    return;
  }
  plan->route = BuildPlan::Route::Module;
  plan->output = m.output;
  if (m.output == RewriteResult::Form::Ptx) offerLayerExtensions(plan->devices, &m.traits);
  // PoCL keeps a binary's kernel argument information (which capture and clGetKernelArgInfo
  // need; the module carries it) only when asked. NVIDIA's build of PTX takes its own options
  // only: the rest were the layer's compile.
  plan->moduleOptions = m.output == RewriteResult::Form::Ptx       ? nvidiaPtxOptions(plan->input.options)
                        : m.output == RewriteResult::Form::Bitcode ? "-x spir -cl-kernel-arg-info " + plan->input.options
                                                                   : plan->input.options;
}

}  // namespace

BuildPlan planBuild(cl_program program, cl_uint num_devices, const cl_device_id* device_list,
                    const char* options, std::vector<SourceFile> headers, bool compiledObject) {
  BuildPlan plan;
  plan.appOptions = options ? options : "";
  // The application's options stay what CL_PROGRAM_BUILD_OPTIONS answers; the driver and the
  // rewriter get them without those only Intel's compiler takes.
  plan.driverOptions = optionsForDriver(program, num_devices, device_list, options);
  if (device_list) {
    plan.devices.assign(device_list, device_list + num_devices);
  } else if (programDevices(program, &plan.devices) != CL_SUCCESS) {
    return plan;  // Route::DriverAnswers
  }
  std::shared_ptr<ProgramRecord> existing = programRegistry().find(program);
  std::shared_ptr<const std::string> il = existing ? existing->il : nullptr;
  std::string source;
  if (!il) {
    if (programString(program, CL_PROGRAM_SOURCE, &source) != CL_SUCCESS) return plan;
    // Drivers compile a source as the C string it is (NVIDIA's CL_PROGRAM_SOURCE also returns
    // what an explicit length put after a NUL byte, PoCL's does not).
    source.resize(std::strlen(source.c_str()));
  }
  plan.route = BuildPlan::Route::PassThrough;
  plan.il = il;
  plan.ilPlaceholder = existing && existing->ilPlaceholder;
  if (source.empty() && !il) return plan;  // built from binaries: nothing to rewrite
  bool allNative = true;
  DeviceTraits traits = DeviceStrategy::traitsForBuild(plan.devices, &allNative);
  if (allNative && !plan.ilPlaceholder) return plan;
  plan.input.source = std::move(source);
  plan.input.headers = std::move(headers);
  plan.input.options = plan.driverOptions;
  plan.input.traits = traits;
  plan.input.compiledObject = compiledObject;
  plan.input.packWorkGroups = config().PACK_WORK_GROUPS != PackChoice::Off;
  if (il) {
    planModule(&plan);
    return plan;
  }
  plan.needsLayerFrontEnd = needsLayerFrontEnd(plan.input, plan.devices);
  const bool every = everyProgramOnLayerFrontEnd(plan.devices);
  if (!plan.needsLayerFrontEnd && !mayNeedRewrite(plan.input) && !every) return plan;
  plan.route = BuildPlan::Route::Source;
  plan.frontEnd = frontEndFor(plan.devices, plan.needsLayerFrontEnd);
  plan.layerFrontEndKeepsUntouched = plan.needsLayerFrontEnd || every;
  plan.ptxOptions = nvidiaPtxOptions(plan.input.options);
  plan.output = plan.frontEnd != BuildPlan::FrontEnd::Layer ? RewriteResult::Form::Source
                : compiledObject                             ? RewriteResult::Form::Object
                                                             : RewriteResult::Form::Ptx;
  return plan;
}

}  // namespace isg
