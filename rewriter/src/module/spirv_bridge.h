// SPDX-License-Identifier: MIT
// The rewriter's side of SPIR-V: the validator (SPIRV-Tools, linked in) that stands between an
// application's module and SPIRV-LLVM-Translator (which asserts, i.e. aborts the process, on
// malformed input), and the translator itself behind the bridge library (spirv/bridge.h),
// loaded once per process into a link namespace of its own.
#pragma once

#include <functional>
#include <string>

namespace isg::detail {

// Full validation of a SPIR-V module (SPIRV-Tools, the environment of the module's version).
// False with the validator's message in *why.
bool validateSpirv(const std::string& module, std::string* why);

// SPIR-V -> LLVM bitcode, and LLVM bitcode -> SPIR-V of at most `maxVersion` with core and KHR
// capabilities only. False with the reason in *why (including "the bridge cannot be loaded").
// `bridgePath` "" means libIntelSubgroupsSpirv.so where layerFile finds it.
bool bridgeLoads(const std::string& bridgePath, std::string* why);
bool spirvToBitcode(const std::string& bridgePath, const std::string& module, std::string* bitcode,
                    std::string* why);
bool bitcodeToSpirv(const std::string& bridgePath, const std::string& bitcode, unsigned maxVersion,
                    std::string* module, std::string* why);

// Runs `work` in a child forked for it and hands back what it wrote to *out (true) or its error
// (false, *why): for code that may end its process on bad input (the translator's assertions,
// LLVM's fatal errors), which inside the application would end the application. A child that
// dies, or takes over 120 s, is a failure whose *why names `what` and quotes its stderr.
bool runInChild(const std::string& what, const std::function<bool(std::string*)>& work, std::string* out,
                std::string* why);

// One of the layer's own files (the translator bridge, libclc's bitcode): beside the library or
// program that holds the rewriter (a build tree), in the installed layer's private folder beside
// it (<libdir>/intel-subgroups-layer), or in that folder seen from an installed program in
// <prefix>/bin. "" when none holds it, with the folders searched in *searched.
std::string layerFile(const std::string& name, std::string* searched = nullptr);

}  // namespace isg::detail
