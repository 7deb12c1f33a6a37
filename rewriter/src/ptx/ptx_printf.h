// SPDX-License-Identifier: MIT
// printf on the layer's PTX path, for the OpenCL C front end and programs from SPIR-V.
#pragma once

#include <string>

namespace llvm {
class Module;
}

namespace isg::detail {

// Each OpenCL C printf call of a module in NVPTX's address spaces becomes what NVIDIA's own
// compiler writes for it (read off its PTX, driver 580): a call of the driver's
// `vprintf(format, arguments)`, the format string in global memory, the arguments as the call
// passes them (promoted by the front end) in a private buffer, each at its natural alignment,
// strings by generic address. OpenCL C's vector conversions (`%v4hlf`), which the driver's
// vprintf misprints, are written out element by element (`%f,%f,%f,%f`), each element an
// argument of its own.
// printf returns 0, or -1 where vprintf fails, as OpenCL C says. False with *log where a
// format is no constant string.
bool lowerPrintf(llvm::Module& m, std::string* log);

// The driver's printf, which its JIT provides (a declaration the module keeps).
constexpr const char* kVprintf = "vprintf";

}  // namespace isg::detail
