// SPDX-License-Identifier: MIT
// Non-uniform work-groups (OpenCL C 2.0) on the layer's PTX path, which NVIDIA's driver does not
// have: the launch is rounded up to whole work-groups and each kernel learns the application's
// global size from a hidden parameter (HiddenArg::Kind::LaunchShape; docs/design.md, "Build
// paths on NVIDIA").
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace llvm {
class Module;
}

namespace isg {
struct KernelManifest;
}

namespace isg::detail {

// A kernel given the launch shape parameter, and its index.
using ShapedKernels = std::vector<std::pair<std::string, unsigned>>;

// For a module in NVPTX's form whose builtins are bound (ptx-runtime/workitems.cl linked):
// defines __isg_launch_global and, unless `uniform`, appends to every kernel the hidden
// parameter `ulong[3]` (by value) with the application's global size of a rounded-up launch, 0
// in each dimension where the launch is uniform. At its entry the kernel copies it where the
// work-item functions read it (shared memory) and lets the work-items past it leave: exited
// threads take no part in a PTX barrier. Returns each kernel given the parameter, with its index.
ShapedKernels appendLaunchShape(llvm::Module& m, bool uniform);

// The manifests of `shaped` kernels list the parameter (HiddenArg::Kind::LaunchShape).
void recordLaunchShape(const ShapedKernels& shaped, std::vector<KernelManifest>* kernels);

}  // namespace isg::detail
