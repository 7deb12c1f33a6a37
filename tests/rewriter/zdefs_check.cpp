// SPDX-License-Identifier: MIT
// One exported function that reaches the whole rewriter, so the link pulls in everything the
// layer will.
#include "isg/rewriter.h"

extern "C" __attribute__((visibility("default"))) int isg_zdefs_check(const char* source) {
  isg::RewriteInput in;
  in.source = source;
  return int(isg::rewriteProgram(in).status) + int(isg::mapBuildLog("", {}).size()) +
         int(isg::manifestToJson({}).size());
}
