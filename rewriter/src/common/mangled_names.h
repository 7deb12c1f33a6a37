// SPDX-License-Identifier: MIT
// The Itanium-mangled names of OpenCL C builtins, as SPIRV-LLVM-Translator writes them when it
// turns SPIR-V instructions back into builtin calls (`_Z23intel_sub_group_shuffleij`): the
// function's name and each parameter as OpenCL C spells it, which is what the module rewriter
// needs to call the same overload from OpenCL C. Only the part of the grammar those names use:
// builtin types, vectors, pointers with address-space and cv qualifiers, named types (images,
// samplers) and substitutions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Type;
}

namespace isg::detail {

struct MangledFunction {
  std::string name;                 // "intel_sub_group_shuffle"
  std::vector<std::string> params;  // OpenCL C types: "float", "uint", "const __global uint*",
                                    // "read_only image2d_t", "int2"
};

// False when `mangled` is not a plain `_Z<length><name><parameters>` name of that grammar.
bool demangleBuiltin(std::string_view mangled, MangledFunction* out);

// The OpenCL C spelling of an LLVM value type (a builtin's return type), signed where the
// signedness is unknown ("int4", "long", "half"): the callers convert through as_<type>().
bool spellValueType(llvm::Type* t, std::string* out);

}  // namespace isg::detail
