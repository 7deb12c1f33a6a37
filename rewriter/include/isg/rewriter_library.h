// SPDX-License-Identifier: MIT
// The entry points of isg/rewriter.h that need Clang or LLVM, as the table that
// libIntelSubgroupsRewriter.so hands the layer. The layer links only what needs neither
// (isg_rewriter_light: the strategies, the table, the text scans) and loads the library at the
// first build that needs it (rewriter/src/common/library_loader.cpp): loaded with the layer, Clang and
// LLVM cost every OpenCL application start-up time and memory (docs/performance.md).
#pragma once

#include <string>
#include <vector>

#include "isg/rewriter.h"

// X(return type, name, parameters, arguments, what the layer answers when the library cannot
// be loaded; `why` is the reason)
#define ISG_REWRITER_ENTRIES(X)                                                                   \
  X(bool, preprocessedCodeUsesHalf, (const RewriteInput& input), (input), false)                 \
  X(RewriteResult, rewriteProgram, (const RewriteInput& input), (input), unavailable(why))       \
  X(RewriteResult, rewriteModule, (const ModuleInput& input), (input), unavailable(why))         \
  X(RewriteResult, compileForNvidia, (const RewriteInput& input), (input), unavailable(why))     \
  X(RewriteResult, compileObjectForNvidia, (const RewriteInput& input), (input),                 \
    unavailable(why))                                                                            \
  X(RewriteResult, linkForNvidia,                                                                \
    (const std::vector<RewriteInput>& objects, const std::string& options), (objects, options), \
    unavailable(why))                                                                            \
  X(bool, validateModule, (const std::string& spirv, std::string* reason), (spirv, reason),      \
    (reason ? (*reason = why, false) : false))

namespace isg {

// mayUseHalf's second step, for a program whose text names half: whether the code the
// preprocessor keeps (cl_khr_fp16 defined) does.
bool preprocessedCodeUsesHalf(const RewriteInput& input);

struct RewriterEntryPoints {
  unsigned abi;
#define ISG_REWRITER_FIELD(R, name, params, args, fallback) R(*name) params;
  ISG_REWRITER_ENTRIES(ISG_REWRITER_FIELD)
#undef ISG_REWRITER_FIELD
};

constexpr const char* kRewriterLibrary = "libIntelSubgroupsRewriter.so";

// Whether the library is where the layer looks for it (beside the layer, or in its private
// folder); *why says where it looked otherwise. Loads nothing.
bool rewriterInstalled(std::string* why);

// The library and the layer come from one build; this catches one that does not.
constexpr unsigned kRewriterAbi = 1000u * unsigned(sizeof(RewriterEntryPoints)) + 1u;

}  // namespace isg

// libIntelSubgroupsRewriter.so's one exported symbol.
extern "C" const isg::RewriterEntryPoints* isg_rewriter_entry_points();
