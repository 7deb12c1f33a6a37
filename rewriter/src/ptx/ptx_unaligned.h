// SPDX-License-Identifier: MIT
// Vector loads and stores at addresses their type does not align, on the layer's PTX path.
#pragma once

namespace llvm {
class Module;
}

namespace isg::detail {

// OpenCL C leaves a vector access at an address not aligned to the vector's size undefined;
// Intel's GPUs and CPU runtime perform it as long as the elements are aligned, and
// Intel-targeted code relies on that (ggml reads rows of 1025 floats through float4 pointers).
// PTX's vector loads and stores fault there (CL_OUT_OF_RESOURCES on NVIDIA's driver, which its
// own compiler's code does too). Each vector load or store of the optimised module whose
// alignment LLVM cannot prove gets a check of the address: aligned, the vector access as it
// was; otherwise one access per element at the element's alignment. Private memory (what
// stays in it after optimisation) is left alone.
void tolerateUnalignedVectors(llvm::Module& m);

}  // namespace isg::detail
