// SPDX-License-Identifier: MIT
// libIntelSubgroupsRewriter.so: the rewriter with Clang and LLVM, for the layer to load
// (isg/rewriter_library.h).
#include "isg/rewriter_library.h"

extern "C" __attribute__((visibility("default"))) const isg::RewriterEntryPoints*
isg_rewriter_entry_points() {
  static const isg::RewriterEntryPoints entries{
      isg::kRewriterAbi,
#define ISG_REWRITER_ADDRESS(R, name, params, args, fallback) &isg::name,
      ISG_REWRITER_ENTRIES(ISG_REWRITER_ADDRESS)
#undef ISG_REWRITER_ADDRESS
  };
  return &entries;
}
