// SPDX-License-Identifier: MIT
// ISG_DUMP_DIR: what the driver was given for each rewritten program, and each program the
// rewriter refused with its log, for bug reports.
#pragma once

#include "isg/rewriter.h"

namespace isg {

void dumpRewrittenProgram(const RewriteInput& input, const RewriteResult& result);

}  // namespace isg
