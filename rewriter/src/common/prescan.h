// SPDX-License-Identifier: MIT
// The pre-scan behind mayNeedRewrite: a look at the text alone, cheap enough for every build,
// so that programs that use no builtin never reach Clang.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "isg/rewriter.h"

namespace isg::detail {

// Whether `text` names a builtin. Token pasting (`intel_sub_group_##op`) hides the full name
// from a textual scan, so any identifier that carries the common "sub_group" stem counts as well.
bool textMayNeedRewrite(std::string_view text);

// Whether `identifier` is half, halfN or cl_khr_fp16 (vload_half and friends take float data: no).
bool namesHalf(std::string_view identifier);
// Whether `text` has an identifier namesHalf accepts.
bool textMayUseHalf(std::string_view text);

// Whether `text` may hold a printf vector conversion (`%v4hlf`, `%#8.3v2hld`): anywhere, not only
// in string literals, so a format spelled through macros is found too.
bool textMayPrintVectors(std::string_view text);

// Whether `text` names a cl_khr_integer_dot_product function with a name of its own
// (dot_4x8packed_*, dot_acc_sat*), the extension or its feature macros. Its `dot` overloads on
// char4/uchar4 share their name with the float ones: a build of them fails on a compiler
// without the extension, which the fallback to the layer's front end catches.
bool textMayUseIntegerDot(std::string_view text);

// Whether the program's source, options, headers or the files it includes from disk satisfy
// `textMatches`. Headers read through -I can hold the only mention of a builtin (typically a
// macro such as `#define SHUFFLE intel_sub_group_shuffle`), so the scan follows includes (at
// most 64 files); *unreadable (when given) is set where an included file was not read.
using TextMatch = std::function<bool(std::string_view)>;
bool programTextMatches(const RewriteInput& input, const TextMatch& textMatches, bool* unreadable = nullptr);

// Builtins internal to Intel's GPU compiler (IGC: `__builtin_IB_*`), which oneDNN's kernels call
// in functions their kernels reach only on Intel's GPUs: every one the program's text (its
// files, disk includes too) names, with the argument count of its first call (0 where none is
// spelled), but for those the program declares itself (a prototype: its calls parse against it).
// No other compiler has them; the analysis gives each a stand-in macro and refuses the program
// where a kernel reaches one, declared or not (analysis_consumer.cpp).
constexpr std::string_view kIntelInternalPrefix = "__builtin_IB_";
using IntelInternalBuiltins = std::vector<std::pair<std::string, unsigned>>;
IntelInternalBuiltins intelInternalBuiltins(const RewriteInput& input);
// The left-hand side of its stand-in macro: `name(a0,a1)`; the macro's body is `0`.
std::string intelInternalStandIn(const std::string& name, unsigned arity);

// The first of `names` that `text` has as a whole identifier, or nullptr.
const char* namedIdentifier(std::string_view text, const std::vector<const char*>& names);

// The whole of a file of at most 16 MiB (also the result cache's check of disk files).
bool readSmallFile(const std::string& path, std::string* out);

}  // namespace isg::detail
