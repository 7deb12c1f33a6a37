// SPDX-License-Identifier: MIT
// Images and samplers on the layer's PTX path (issue 34.2; docs/design.md, "Build paths on
// NVIDIA"), for programs from SPIR-V and the OpenCL C front end alike.
#pragma once

#include <string>

namespace llvm {
class Module;
class StringRef;
}

namespace isg {
struct DeviceTraits;
}

namespace isg::detail {

// What of images the path cannot build, for an image type as OpenCL C spells it ("image2d_t",
// "image1d_buffer_t") and its access qualifier ("read_only", "write_only", "read_write"): ""
// when it can, else what it is ("read_write images"). NVIDIA's forms for these exist (suld and
// software conversion) but LLVM 15 writes none of them.
std::string imageLimit(llvm::StringRef type, llvm::StringRef access);

// Binds a module's image and sampler use to NVIDIA's forms, before its other builtins are
// bound: links ptx-runtime/images.cl for the image builtins it calls, gives each kernel image
// parameter the 64-bit type and nvvm.annotations entry (rdoimage, wroimage, sampler) that LLVM's
// NVPTX back end writes as a .texref, .surfref or .samplerref parameter, turns each sampler
// initialiser into a program-scope .samplerref, and has everything that handles an image
// inlined into its kernel (a PTX texture reference is no value a function can take). The
// module is in NVPTX's address spaces with its kernels marked `ptx_kernel`. False with *log.
bool lowerImages(llvm::Module& m, const DeviceTraits& traits, std::string* log);

// After the optimiser: GVN merges the identical llvm.nvvm.texsurf.handle.internal calls of one
// sampler from different blocks into a phi, which LLVM 15's NVPTXReplaceImageHandles cannot trace
// to its global (it reads an operand the phi does not have: a crash in the back end, whether it
// crashes depending on memory). So each function gets one handle call per sampler, at its top,
// whose value every use takes (across blocks the back end traces it), and uses of a phi or
// select that merges one handle or one kernel parameter take that value itself.
void rematerialiseHandles(llvm::Module& m);

// A write_only image1d_buffer_t parameter is a surface NVIDIA's driver passes in a register,
// `.param .u64 .ptr .surfref`, which LLVM 15 cannot declare: lowerImages makes it a plain i64
// (used by inline PTX) and this gives its declaration in `ptx`, the module's PTX, that form.
void declareBufferSurfaces(const llvm::Module& m, std::string* ptx);

}  // namespace isg::detail
