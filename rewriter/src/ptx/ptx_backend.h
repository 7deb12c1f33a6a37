// SPDX-License-Identifier: MIT
// Programs from SPIR-V on NVIDIA (docs/spirv.md, "NVIDIA"): NVIDIA's OpenCL driver takes no
// SPIR-V but builds PTX text given as a program binary. The module rewriter's result (SPIR IR
// with the strategy's library linked in) is moved to NVPTX's address spaces and calling
// conventions, its OpenCL C builtin calls are bound to libclc's nvptx64--nvidiacl library (and
// to this project's work-item functions, which read the driver's launch registers), and LLVM's
// NVPTX back end writes the PTX.
#pragma once

#include <string>
#include <vector>

#include "ptx/launch_shape.h"

namespace llvm {
class Module;
}

namespace isg {
struct DeviceTraits;
struct KernelManifest;
struct RewriteInput;
}  // namespace isg

namespace isg::detail {

// What of OpenCL C the PTX path cannot build yet, found in the module as the SPIR-V reader
// wrote it: the images of imageLimit (ptx_images.h), pipes, device-side enqueue. "" when nothing;
// else a build-log error that names the feature (and the function that uses it).
std::string ptxUnsupported(const llvm::Module& spir);

// SPIR bitcode (what the module rewriter writes) -> PTX text for a device of `traits`
// (traits.nvidiaComputeCapability picks .target) built with the application's `options` (the
// math options). *shaped: the kernels given the launch shape parameter (launch_shape.h). False
// with a build-log error in *log.
bool spirToPtx(const std::string& bitcode, const DeviceTraits& traits, const std::string& options,
               std::string* ptx, ShapedKernels* shaped, std::string* log);

// The layer's OpenCL C front end for NVIDIA (docs/design.md, "Build paths on NVIDIA"): compiles
// `program` (OpenCL C with its headers and the application's options) with the in-process Clang
// for nvptx64-nvidia-nvcl, binds its builtins as spirToPtx does and writes PTX. False with a
// build log in *log: Clang's diagnostics (in `program`'s lines), or what the path cannot build.
// *kernels: each kernel with its arguments as Clang describes them (name, default S, no hidden
// arguments), for kernels the rewriter left alone; *shaped as spirToPtx's, and the kernels that
// have packed copies (launch_shape.h; `rewritten`: the rewriter's manifests of the program, null
// for none: RewriteInput::packWorkGroups).
bool sourceToPtx(const RewriteInput& program, const std::vector<KernelManifest>* rewritten, std::string* ptx,
                 std::vector<KernelManifest>* kernels, ShapedKernels* shaped, std::string* log);

// The front end's compile of `program` alone (Clang, then what the path cannot build): false with
// the build log in *log, as sourceToPtx's.
bool compilesForPtx(const RewriteInput& program, std::string* log);

// clLinkProgram on the front end: each of `objects` (compiled objects: RewriteInput::
// compiledObject) compiled as sourceToPtx compiles a program, the modules linked into one as a
// driver links objects, and written as PTX for the link's `options` (the math options; the
// device of objects.front().traits). *kernels: every object's, as sourceToPtx's (`rewritten`:
// the rewriter's manifests of every object, null for no packed copies). False with a build log in *log; *failed is the
// index of the object that did not compile, objects.size() when the link itself failed.
bool objectsToPtx(const std::vector<RewriteInput>& objects, const std::string& options,
                  const std::vector<KernelManifest>* rewritten, std::string* ptx,
                  std::vector<KernelManifest>* kernels, ShapedKernels* shaped, std::size_t* failed,
                  std::string* log);

// What of OpenCL C the front end cannot build yet, found in the module Clang wrote for NVPTX:
// the images of imageLimit (ptx_images.h), pipes, device-side enqueue. "" when nothing.
std::string sourceUnsupported(const llvm::Module& m);

}  // namespace isg::detail
