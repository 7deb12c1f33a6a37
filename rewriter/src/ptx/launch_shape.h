// SPDX-License-Identifier: MIT
// Non-uniform work-groups (OpenCL C 2.0) on the layer's PTX path, which NVIDIA's driver does not
// have: the launch is rounded up to whole work-groups and each kernel learns the application's
// global size from a hidden parameter (HiddenArg::Kind::LaunchShape; docs/design.md, "Build
// paths on NVIDIA").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "isg/rewriter.h"

namespace llvm {
class Module;
}

namespace isg::detail {

// A kernel given a hidden launch parameter (the launch shape, the packed launch), and the
// parameter: kind and index.
using ShapedKernels = std::vector<std::pair<std::string, HiddenArg>>;

// For a module in NVPTX's form whose builtins are bound (ptx-runtime/workitems.cl linked):
// defines __isg_launch_global and, unless `uniform`, appends to every kernel the hidden
// parameter `ulong[3]` (by value) with the application's global size of a rounded-up launch, 0
// in each dimension where the launch is uniform. At its entry the kernel copies it where the
// work-item functions read it (shared memory) and lets the work-items past it leave: exited
// threads take no part in a PTX barrier. Returns each kernel given the parameter, with its index.
ShapedKernels appendLaunchShape(llvm::Module& m, bool uniform);

// Packed work-groups (docs/design.md, "Packed work-groups"). A warp runs 32 threads whatever the
// work-group: one of W < 32 work-items leaves 32 - W lanes idle, and an SM holds at most 32 CTAs,
// so Intel's SIMD16 kernels (OpenVINO's blocked convolutions: reqd_work_group_size(1, 16, 1)) run
// on half-empty warps at a quarter of the SM's threads. For a module in NVPTX's form after
// appendLaunchShape: defines __isg_pack and gives each kernel that can pack a packed copy, named as
// it plus kPackedKernelSuffix, which runs CTAs of 32 threads (.reqntid 32), each 32 / W of the
// application's work-groups. The copy calls copies of what it calls that reads the work-item
// functions, and those call the functions' packed forms (ptx-runtime/workitems.cl) with the
// work-group's shape as constants; its last parameter, `ulong[kPackedLaunchWords]` by value,
// describes the rest of the application's launch (the work-groups per dimension, the global offset,
// the work dimension), which it copies where the packed forms read it, and the threads past the
// last work-group leave at its entry. The kernel itself stays as it was. A kernel can pack where
// its reqd_work_group_size is W < 32 work-items with W dividing 32 and a multiple of its sub-group
// size (`rewritten`: the rewriter's manifests, null where there are none, as from SPIR-V: then no
// kernel packs; a kernel they do not name calls none of the layer's builtins), and it reaches no
// local memory (which its CTA's work-groups would share); a CTA barrier then waits for the CTA's
// work-groups together, a stronger barrier that exited threads take no part in. Packed copies carry
// the function attribute kPackedKernel (writePtx).
void appendPackedLaunch(llvm::Module& m, const std::vector<KernelManifest>* rewritten,
                        ShapedKernels* shaped);
inline constexpr const char* kPackedKernel = "isg-packed-launch";

// The manifests of `shaped` kernels list their parameters.
void recordLaunchShape(const ShapedKernels& shaped, std::vector<KernelManifest>* kernels);

}  // namespace isg::detail
