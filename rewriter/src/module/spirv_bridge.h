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

}  // namespace isg::detail
