// SPDX-License-Identifier: MIT
// Intel's GPUs run the work-items of a sub-group as the lanes of one SIMD thread: each statement
// completes for every lane before the next begins. Kernels written for them share local memory
// between lanes with no barrier at all (OpenVINO's permute_f_y_axes writes a local tile and reads
// it transposed; warp-synchronous reductions halve under `if (lid < s)`). Other drivers run
// work-items apart: PoCL one after another between barriers, NVIDIA's warps under independent
// scheduling, so such a kernel reads what another work-item has not written yet, silently.
//
// In a kernel that touches local memory and reaches no barrier, fence or work-group function (its
// own or its helpers'), the rewriter puts `barrier(CLK_LOCAL_MEM_FENCE)` after each statement that
// touches local memory where the whole work-group runs together (UniformFlow): every work-item
// then completes the statement before any begins the next, as on Intel's GPU. A statement that
// only some work-items run is ordered after the nearest statement around it that all run (the
// `if` around a halving step), with a warning where that is a loop the work-items may run apart.
// Within one statement the work-items' reads and writes are not ordered with each other.
// ISG_LOCK_STEP=0 leaves such kernels as written.
#pragma once

#include "source/divergence.h"

namespace clang {
class ASTContext;
class FunctionDecl;
}  // namespace clang

namespace isg::detail {

class Editor;

struct LockStepResult {
  unsigned barriers = 0;  // placed
  bool warned = false;    // a loop its work-items may run apart left local memory unordered
};

// Adds the barriers that keep kernel `kernel` (a definition) in lock-step over local memory.
// `assumed`: the launch variant's work-group size (UniformFlow).
LockStepResult keepLockStep(clang::ASTContext& ctx, const clang::FunctionDecl* kernel, Editor& ed,
                            AssumedWorkGroupSize assumed);

}  // namespace isg::detail
