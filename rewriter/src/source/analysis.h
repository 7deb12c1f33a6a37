// SPDX-License-Identifier: MIT
// The Clang half of the rewriter: parses a program the way the driver will build it and says
// which functions need the sub-group context, what each kernel needs, and which bytes to edit.
// It never produces the rewritten text itself (compose.cpp does), which keeps Clang types out
// of everything else. The parse goes through the Clang session (clang_session.h).
#pragma once

#include "common/program_facts.h"
#include "isg/rewriter.h"

namespace isg::detail {

Analysis analyzeProgram(const RewriteInput& input);

}  // namespace isg::detail
