// SPDX-License-Identifier: MIT
// Writes a described and read case (case_description.h) under ISG_CAPTURE_DIR as one
// isg-kernel-case directory (case_format.h), whole or not at all.
#pragma once

#include "capture/case_description.h"

namespace isg::capture {

// Throws CaptureError where the case cannot be written (nothing of it is left behind).
void writeCase(Pending& p);

}  // namespace isg::capture
