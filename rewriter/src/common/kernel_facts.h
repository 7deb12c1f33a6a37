// SPDX-License-Identifier: MIT
// What both front ends (the Clang source rewriter, analysis.cpp, and the SPIR-V module rewriter,
// module_rewriter.cpp) decide the same way about a kernel and a program: the hidden arguments,
// the scratch slot, the sizes a device honours, the khr fallback and the library text. Each
// front end finds the facts (which builtins a kernel reaches, how wide) its own way; what they
// mean is decided here once.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "common/program_facts.h"
#include "isg/rewriter.h"
#include "common/table.h"

namespace isg::detail {

struct HiddenParam {
  HiddenArg::Kind kind;
  const char* declaration;  // as OpenCL C, e.g. "__local ulong16* __isg_scratch"
};

// The arguments a strategy appends to kernels (isg/strategies.def says which get the scratch;
// the declaration is builtins-cl/local/05-context.cl's). A kernel that reaches a work-group
// collective (`workGroup`) gets the scratch on every strategy: those exchange through it.
std::vector<HiddenParam> hiddenParams(const DeviceTraits& t, bool workGroup);

// Whether kernel `km` has the scratch although its strategy's library has none of its own (a
// work-group collective's): its prologue then hands the scratch over (__ISG_KERNEL_PROLOGUE_WG).
bool borrowsScratch(const KernelManifest& km, const DeviceTraits& t);

// Gives kernel `km` the scratch and a work-group collective's slot in it, as if it reached one:
// for a kernel whose prologue text another kernel shares (one macro spells both bodies) that
// does reach one. Before any image argument is added.
void lendScratch(KernelManifest* km);

// The declarations of the hidden parameters of kernel `km`, comma-separated.
std::string hiddenDeclarations(const KernelManifest& km);

unsigned roundUpPow2(unsigned v);
std::string joinSizes(const std::vector<unsigned>& sizes);

// Why the device cannot run kernel `km` at its S (a build error naming the kernel), or "".
std::string unsupportedSize(const KernelManifest& km, const DeviceTraits& t);

// Fills a kernel's families (table order), scratch slot and hidden arguments from the builtins
// it reaches (`used`) and the widest exchangeBytes of those calls. km->numUserArgs must be set.
void finishKernelManifest(const std::set<const Builtin*>& used, unsigned widest,
                          const DeviceTraits& t, KernelManifest* km);

// A read_write image2d_t the layer stands in for (emulatesReadWriteImages): argument
// `imageArg`'s texel buffer appended after km->hiddenArgs (HiddenArg::Kind::RawImage), and
// the image among the block IO images, whose formats the layer then knows.
void addTexelBuffer(unsigned imageArg, KernelManifest* km);

// Block and media IO calls in the kernel name image argument `imageArg` itself: its facts
// (HiddenArg::Kind::ImageFacts) appended after km->hiddenArgs.
void addImageFacts(unsigned imageArg, KernelManifest* km);

// A result that fails the build with `log` (a newline is added if missing) (rewriter.cpp).
RewriteResult errorResult(std::string log);

// Why the khr strategy cannot serve the program (a note), or "" (rewriter.cpp).
std::string khrMisfit(const DeviceTraits& traits, const std::vector<KernelManifest>& kernels);

// The build log's warning on buffer block IO `name` whose members may pass different pointers
// and that keeps each member's (`eachOwn`: local, khr without cl_khr_subgroup_ballot) or takes
// the first member's that runs it under flow that splits a sub-group (nvidia-ptx, khr with the
// ballot); `flow` says which flow (docs/design.md, "Block IO with each member's pointer"). Both
// front ends say it in these words (kernel_facts.cpp).
std::string eachMemberPointerWarning(const std::string& name, const DeviceTraits& traits, bool eachOwn,
                                     const std::string& flow);

// The strategy's library for a program that uses `families` (prelude.cpp): builtins.def, the
// collective rows and the library files, then the builtin macros (`a`'s arities).
std::string buildPrelude(const DeviceTraits& traits, const Analysis& a);

}  // namespace isg::detail
