// SPDX-License-Identifier: MIT
// Carries out a build plan's rewrite (program_rewrite.h).
#include "programs/program_rewrite.h"

#include <sstream>
#include <string>

#include "core/layer_api.h"
#include "devices/device_strategy.h"
#include "formats/program_dump.h"
#include "programs/separate_compilation.h"

namespace isg {

RewriteResult viaLayerFrontEnd(const BuildPlan& plan, const std::vector<cl_device_id>& devices,
                               bool untouchedToo) {
  RewriteInput input = plan.input;
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
    r.options = plan.ptxOptions;
  }
  return r;
}

namespace {

// The rewrite of a source program on the plan's front end; clCompileProgram's objects alike
// (the front end's are linked by it again: separate_compilation.h).
RewriteResult rewriteSource(const BuildPlan& plan, bool* fallbackLater) {
  *fallbackLater = false;
  const bool untouchedToo = plan.layerFrontEndKeepsUntouched;
  switch (plan.frontEnd) {
    case BuildPlan::FrontEnd::Driver:
      return rewriteProgram(plan.input);
    case BuildPlan::FrontEnd::Layer: {
      // What the front end cannot build yet (images) is NVIDIA's compiler's to try: a program
      // that tests cl_khr_fp16 takes its other branch there.
      RewriteResult layer = viaLayerFrontEnd(plan, plan.devices, untouchedToo);
      if (layer.status != RewriteResult::Status::Error) return layer;
      RewriteResult r = rewriteProgram(plan.input);
      r.log = "note: the layer's own OpenCL C front end (ISG_NVIDIA_FRONTEND=layer, or an extension it offers) cannot build "
              "the program; NVIDIA's compiler builds it:\n" + layer.log + r.log;
      return r;
    }
    case BuildPlan::FrontEnd::DriverThenLayer:
      break;
  }
  RewriteResult r = rewriteProgram(plan.input);
  *fallbackLater = r.status == RewriteResult::Status::Rewritten;
  if (r.status != RewriteResult::Status::Error) return r;
  // What does not parse as NVIDIA's compiler takes OpenCL C (3.0 without the generic address
  // space, ...) may build as Intel's compiler takes it.
  RewriteResult layer = viaLayerFrontEnd(plan, plan.devices, untouchedToo);
  if (layer.status != RewriteResult::Status::Rewritten) {
    r.log += kFrontEndFailedToo + layer.log;
    return r;
  }
  layer.log = "note: the program does not compile as NVIDIA's OpenCL C compiler takes it; the layer's own "
              "front end built it (ISG_NVIDIA_FRONTEND=auto):\n" + r.log + layer.log;
  return layer;
}

// A program from SPIR-V in the plan's form, with the driver's options for that form.
RewriteResult rewriteModuleAsPlanned(const BuildPlan& plan) {
  RewriteResult result;
  if (plan.route == BuildPlan::Route::NoModuleForm) {
    result.status = RewriteResult::Status::Error;
    result.log = plan.noModuleFormLog;
    return result;
  }
  result = rewriteModule(plan.module);
  if (result.status == RewriteResult::Status::Rewritten) result.options = plan.moduleOptions;
  return result;
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
        case HiddenArg::Kind::PackedLaunch: line << ", packed launch"; break;
      }
      line << " as argument " << h.index;
    }
    line << ")";
  }
  return line.str();
}

}  // namespace

PlannedRewrite rewriteAsPlanned(const BuildPlan& plan) {
  PlannedRewrite done;
  switch (plan.route) {
    case BuildPlan::Route::DriverAnswers:
    case BuildPlan::Route::PassThrough:
      return done;
    case BuildPlan::Route::Source:
      done.result = rewriteSource(plan, &done.frontEndFallback);
      break;
    case BuildPlan::Route::Module:
    case BuildPlan::Route::NoModuleForm:
      done.result = rewriteModuleAsPlanned(plan);
      break;
  }
  switch (done.result.status) {
    case RewriteResult::Status::PassThrough:
      break;
    case RewriteResult::Status::Rewritten:
      done.action = PlannedRewrite::Action::Shadow;
      dumpRewrittenProgram(plan.input, done.result);
      if (done.result.strategy != plan.input.traits.strategy)
        ISG_LOG_WARNING("a program uses the " << strategyName(done.result.strategy)
                                              << " strategy instead of "
                                              << strategyName(plan.input.traits.strategy) << ":\n"
                                              << done.result.log);
      ISG_LOG_INFO(rewriteSummary(done.result));
      // Applications print a build log only when the build fails: what may give other results
      // than Intel's driver reaches the layer's log at its default level.
      for (std::size_t at = 0; at < done.result.log.size();) {
        std::size_t end = done.result.log.find('\n', at);
        if (end == std::string::npos) end = done.result.log.size();
        const std::string line = done.result.log.substr(at, end - at);
        if (line.find("differ from Intel's") != std::string::npos) ISG_LOG_WARNING(line);
        at = end + 1;
      }
      break;
    case RewriteResult::Status::Error:
      done.action = PlannedRewrite::Action::Fail;
      ISG_LOG_INFO("the rewriter rejected a program:\n" << done.result.log);
      dumpRewrittenProgram(plan.input, done.result);
      break;
  }
  return done;
}

}  // namespace isg
