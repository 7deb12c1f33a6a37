// SPDX-License-Identifier: MIT
// The entry points of isg/rewriter.h that need no Clang: the strategies' defaults and the text
// scans the layer runs on every build. They form isg_rewriter_light with the table and the
// pre-scan, which the layer links; the rest of the rewriter (Clang, LLVM) is loaded at the first
// build that needs it (common/library_loader.cpp).
#include "isg/rewriter.h"

#include <algorithm>
#include <string>
#include <vector>

#include "isg/build_options.h"
#include "isg/strategies.h"
#include "common/kernel_facts.h"
#include "common/prescan.h"
#include "common/table.h"

namespace isg {

void applyStrategyDefaults(Strategy strategy, unsigned nativeSize, DeviceTraits* traits) {
  DeviceTraits& t = *traits;
  const StrategyFacts& f = factsOf(strategy);
  t.strategy = strategy;
  // nvidia-ptx's native size is the warp; khr's was probed; the others have none.
  t.nativeSubGroupSize = strategy == Strategy::Khr ? nativeSize
                         : strategy == Strategy::NvidiaPtx ? f.defaultSubGroupSize
                                                            : 0;
  if (strategy == Strategy::Native || strategy == Strategy::Local) {
    t.nvidiaComputeCapability = 0;
    t.khrTestDouble = false;
    t.khrTestMinimal = false;
  }
  t.defaultSubGroupSize = f.defaultSubGroupSize ? f.defaultSubGroupSize
                          : t.nativeSubGroupSize ? t.nativeSubGroupSize
                                                 : 16;
  const unsigned maxS = f.maxSubGroupSize ? f.maxSubGroupSize
                                          : std::max(64u, t.nativeSubGroupSize);
  t.supportedSubGroupSizes.clear();
  for (unsigned s = f.minSubGroupSize; s <= maxS; s *= 2) t.supportedSubGroupSizes.push_back(s);
}

const char* strategyName(Strategy s) { return factsOf(s).name; }

namespace {
constexpr unsigned kRowSizes[] = {8, 16};  // Intel's GPU widths below the widest
}  // namespace

unsigned launchSubGroupSize(std::size_t localX, unsigned defaultS) {
  for (unsigned s : kRowSizes)
    if (localX == s && s < defaultS) return s;
  return defaultS;
}

std::string launchSubGroupSizeMacro(unsigned defaultS) {
  std::string m = "#define __ISG_LAUNCH_S(x) (";
  for (unsigned s : kRowSizes)
    if (s < defaultS) m += "(x) == " + std::to_string(s) + "u ? " + std::to_string(s) + "u : ";
  return m + std::to_string(defaultS) + "u)\n";
}

bool parseStrategy(std::string_view text, Strategy* out) {
  for (const StrategyFacts& f : strategies()) {
    const Strategy s = f.strategy;
    if (text == strategyName(s)) {
      if (out) *out = s;
      return true;
    }
  }
  return false;
}

bool mayNeedRewrite(const RewriteInput& input) {
  // A link's call of another object's context-taking function needs the rewrite too.
  for (const ContextFunction& f : input.externalContext) {
    if (input.source.find(f.name) != std::string::npos) return true;
    for (const SourceFile& h : input.headers)
      if (h.text.find(f.name) != std::string::npos) return true;
  }
  return detail::programTextMatches(input, detail::textMayNeedRewrite);
}

bool mayUseIntegerDot(const RewriteInput& input) {
  return detail::programTextMatches(input, detail::textMayUseIntegerDot);
}

bool mayPrintVectors(const RewriteInput& input) {
  return detail::programTextMatches(input, detail::textMayPrintVectors);
}

const char* namedIdentifier(const RewriteInput& input, const std::vector<const char*>& names, bool* unreadable) {
  const char* found = nullptr;
  detail::programTextMatches(
      input, [&](std::string_view text) { return (found = detail::namedIdentifier(text, names)) != nullptr; },
      unreadable);
  return found;
}

DeviceTraits frontEndTraits(DeviceTraits traits) {
  std::vector<std::string>& features = traits.openclCFeatures;
  for (const char* f : {"__opencl_c_generic_address_space", "__opencl_c_program_scope_global_variables",
                        "__opencl_c_atomic_order_acq_rel", "__opencl_c_atomic_order_seq_cst",
                        "__opencl_c_atomic_scope_device", "__opencl_c_atomic_scope_all_devices",
                        "__opencl_c_int64"})
    if (std::find(features.begin(), features.end(), f) == features.end()) features.push_back(f);
  traits.openclCVersion = std::max(traits.openclCVersion, 300u);
  return traits;
}

std::string driverFeatureOptions(const DeviceTraits& traits, const std::string& options) {
  const auto& f = traits.openclCFeatures;
  if (f.empty() || std::find(f.begin(), f.end(), "__opencl_c_generic_address_space") != f.end()) return {};
  bool twoX = false;
  for (const std::string& w : splitBuildOptions(options))
    if (w.rfind("-cl-std=", 0) == 0) twoX = w.size() > 11 && (w.compare(8, 3, "CL2") == 0 || w.compare(8, 3, "cl2") == 0);
  return twoX ? "-D__opencl_c_named_address_space_builtins=1" : "";
}

std::string extensionMacroOptions(const DeviceTraits& traits) {
  std::string out;
  for (const std::string& e : detail::extensionsFor(traits))
    out += (out.empty() ? "-D " : " -D ") + e + "=1";
  return out;
}

}  // namespace isg
