// SPDX-License-Identifier: MIT
// The prelude (kernel_facts.h, buildPrelude): the text both front ends put before a program
// that uses builtins, the strategy's library and the macros that route calls into it.
#include <algorithm>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/embedded.h"
#include "common/kernel_facts.h"
#include "common/prescan.h"
#include "common/table.h"

namespace isg::detail {

// The strategy's library: builtins-cl/common/ and builtins-cl/<strategy>/ merged in file-name
// order, a strategy file replacing the common file of the same name. Shared families (identity,
// block) are written once; exchanges differ per strategy.
// The khr test double adds builtins-cl/khr-test/ (its own file names, so it replaces nothing).
std::vector<const EmbeddedFile*> libraryFiles(const DeviceTraits& traits) {
  std::map<std::string_view, const EmbeddedFile*> byName;
  auto add = [&byName](std::string_view folder) {
    for (const EmbeddedFile* f : embeddedUnder(folder))
      byName[std::string_view(f->name).substr(folder.size() + 1)] = f;
  };
  add("common");
  for (const std::string& folder : libraryFacts(traits.strategy, traits.khrTestDouble).folders)
    add(folder);
  std::vector<const EmbeddedFile*> files;
  for (const auto& entry : byName) files.push_back(entry.second);
  return files;
}

std::string buildPrelude(const DeviceTraits& traits, const Analysis& a) {
  std::string p;
  for (const std::string& f : a.families) p += "#define ISG_NEED_" + f + " 1\n";
  for (const auto& [name, arity] : a.intelInternal) p += "#define " + intelInternalStandIn(name, arity) + " 0\n";
  if (traits.strategy == Strategy::Khr) {
    // One S for every kernel that calls a builtin: the khr library uses it as a constant.
    std::vector<unsigned> sizes;
    for (const KernelManifest& k : a.kernels)
      if (!k.families.empty() && std::find(sizes.begin(), sizes.end(), k.subGroupSize) == sizes.end())
        sizes.push_back(k.subGroupSize);
    // A compiled object's helpers may serve kernels of other objects, with other sizes.
    const bool sharedHelpers = a.compiledObject && !a.contextFunctions.empty();
    if (sizes.size() == 1 && !sharedHelpers)
      p += "#define __ISG_KHR_ONLY_S " + std::to_string(sizes[0]) + "u\n";
  }
  if (khrTakesFirstActive(traits) && !a.firstMemberArity.empty()) p += "#define __ISG_KHR_FIRST_ACTIVE 1\n";
  p += offeredFeatureMacros(traits);
  if (emulatesReadWriteImages(traits))
    // The library's stand-in for read_write image2d_t (75-image.cl); the parse took the
    // user's #if branches with the feature macro defined, so the driver does too.
    p += "#define __ISG_EMULATED_RW_IMAGES 1\n"
         "#if __OPENCL_C_VERSION__ >= 300 && !defined(__opencl_c_read_write_images)\n"
         "#define __opencl_c_read_write_images 1\n#endif\n";
  if (traits.strategy == Strategy::NvidiaPtx && traits.nvidiaComputeCapability != 0)
    p += "#define __ISG_NV_SM " + std::to_string(traits.nvidiaComputeCapability) + "\n";
  if (std::any_of(a.kernels.begin(), a.kernels.end(), [](const KernelManifest& k) { return k.launchSubGroupSize; }))
    p += launchSubGroupSizeMacro(traits.defaultSubGroupSize);
  if (traits.strategy == Strategy::Khr && traits.khrTestDouble) {
    p += "#define __ISG_KHR_REFERENCE_SIZE " + std::to_string(traits.nativeSubGroupSize) + "u\n";
    if (!traits.khrTestMinimal) p += "#define __ISG_KHR_REFERENCE_OPTIONAL 1\n";
  }
  auto append = [&p](std::string_view text) {
    p.append(text.data(), text.size());
    if (!text.empty() && text.back() != '\n') p += '\n';
  };
  if (const EmbeddedFile* def = findEmbedded("builtins.def")) append(def->text());
  p += collectiveRows(a.families);
  for (const EmbeddedFile* f : libraryFiles(traits)) append(f->text());
  p += builtinMacros(traits, a.userDefined, a.macroArity, a.extraArity, a.convergedArity,
                     a.factsArity, a.firstMemberArity);
  return p;
}

}  // namespace isg::detail
