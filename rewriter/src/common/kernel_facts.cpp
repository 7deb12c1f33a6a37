// SPDX-License-Identifier: MIT
#include "common/kernel_facts.h"

#include <algorithm>

#include "isg/strategies.h"

namespace isg::detail {

namespace {
constexpr const char* kScratchDeclaration = "__local ulong16* __isg_scratch";
// builtins-cl/common/90-work-group.cl exchanges one value of at most 8 bytes (long, double)
// per work-item.
constexpr unsigned kWorkGroupSlot = 8;

bool hasScratch(const KernelManifest& km) {
  return std::any_of(km.hiddenArgs.begin(), km.hiddenArgs.end(),
                     [](const HiddenArg& h) { return h.kind == HiddenArg::Kind::LocalScratch; });
}

bool reachesWorkGroup(const KernelManifest& km) {
  return std::find(km.families.begin(), km.families.end(), kWorkGroupFamily) != km.families.end();
}
}  // namespace

std::vector<HiddenParam> hiddenParams(const DeviceTraits& t, bool workGroup) {
  if (workGroup || libraryFacts(t.strategy, t.khrTestDouble).scratch)
    return {{HiddenArg::Kind::LocalScratch, kScratchDeclaration}};
  return {};
}

bool borrowsScratch(const KernelManifest& km, const DeviceTraits& t) {
  return !libraryFacts(t.strategy, t.khrTestDouble).scratch && hasScratch(km);
}

void lendScratch(KernelManifest* km) {
  if (!hasScratch(*km)) {
    // The image arguments come later (their edits follow the declarations'): the scratch stays
    // the first hidden argument, as hiddenParams puts it.
    for (HiddenArg& h : km->hiddenArgs) ++h.index;
    km->hiddenArgs.insert(km->hiddenArgs.begin(),
                          HiddenArg{HiddenArg::Kind::LocalScratch, km->numUserArgs});
  }
  km->scratchBytesPerItem = std::max(km->scratchBytesPerItem, kWorkGroupSlot);
}

std::string hiddenDeclarations(const KernelManifest& km) {
  std::string out;
  for (const HiddenArg& h : km.hiddenArgs)
    if (h.kind == HiddenArg::Kind::LocalScratch) out += (out.empty() ? "" : ", ") + std::string(kScratchDeclaration);
  return out;
}

unsigned roundUpPow2(unsigned v) {
  unsigned p = 1;
  while (p < v) p <<= 1;
  return p;
}

std::string joinSizes(const std::vector<unsigned>& sizes) {
  std::string out;
  for (unsigned s : sizes) out += (out.empty() ? "" : ", ") + std::to_string(s);
  return out;
}

std::string unsupportedSize(const KernelManifest& km, const DeviceTraits& t) {
  const auto& supported = t.supportedSubGroupSizes;
  if (supported.empty() ||
      std::find(supported.begin(), supported.end(), km.subGroupSize) != supported.end())
    return {};
  return "kernel '" + km.name + "' needs sub-group size " + std::to_string(km.subGroupSize) +
         (km.requiredSubGroupSize ? "" : " (the default)") +
         ", which this device does not support (supported sizes: " + joinSizes(supported) + ")";
}

void finishKernelManifest(const std::set<const Builtin*>& used, unsigned widest,
                          const DeviceTraits& t, KernelManifest* km) {
  for (const Builtin& b : builtins())
    if (used.count(&b) &&
        std::find(km->families.begin(), km->families.end(), b.family) == km->families.end())
      km->families.push_back(b.family);
  // Smallest slot of a kernel that exchanges anything: isg/strategies.def. A strategy without a
  // scratch of its own lends one only to the work-group collectives.
  km->scratchBytesPerItem =
      widest > 0 ? std::max(libraryFacts(t.strategy, t.khrTestDouble).minSlot, roundUpPow2(widest))
                 : 0;
  const std::vector<HiddenParam> hidden = hiddenParams(t, reachesWorkGroup(*km));
  for (std::size_t i = 0; i < hidden.size(); ++i)
    km->hiddenArgs.push_back(HiddenArg{hidden[i].kind, km->numUserArgs + unsigned(i)});
  if (borrowsScratch(*km, t)) km->scratchBytesPerItem = kWorkGroupSlot;
}

namespace {
// A hidden argument of `kind` for image argument `imageArg`, after km->hiddenArgs.
void appendImageArg(HiddenArg::Kind kind, unsigned imageArg, KernelManifest* km) {
  km->hiddenArgs.push_back(
      HiddenArg{kind, km->numUserArgs + unsigned(km->hiddenArgs.size()), imageArg});
}
}  // namespace

void addTexelBuffer(unsigned imageArg, KernelManifest* km) {
  appendImageArg(HiddenArg::Kind::RawImage, imageArg, km);
  std::vector<unsigned>& block = km->blockImageArgs;
  if (std::find(block.begin(), block.end(), imageArg) == block.end())
    block.insert(std::upper_bound(block.begin(), block.end(), imageArg), imageArg);
}

void addImageFacts(unsigned imageArg, KernelManifest* km) {
  appendImageArg(HiddenArg::Kind::ImageFacts, imageArg, km);
}

std::string eachMemberPointerWarning(const std::string& name, const DeviceTraits& traits, bool eachOwn,
                                     const std::string& flow) {
  const std::string strategy = strategyName(traits.strategy);
  return "'" + name + "' may be given a different pointer by each member of a sub-group, " + flow +
         ": cl_intel_subgroups asks every member for the same pointer; where they differ, " +
         (eachOwn ? "Intel's driver takes the first member's and the " + strategy +
                        " strategy each member's own, so the results may differ from Intel's (nvidia-ptx, and khr "
                        "on a driver with cl_khr_subgroup_ballot, take the first member's that reaches the call)"
                  : "the " + strategy +
                        " strategy takes the first member's that takes that flow and Intel's CPU runtime member "
                        "0's, even where member 0 skipped it, so the results may differ from Intel's");
}

}  // namespace isg::detail

namespace isg {
bool exchangesWithinSubGroups(const KernelManifest& km) {
  return km.scratchBytesPerItem != 0 &&
         std::any_of(km.families.begin(), km.families.end(),
                     [](const std::string& f) { return f != detail::kWorkGroupFamily; });
}
}  // namespace isg
