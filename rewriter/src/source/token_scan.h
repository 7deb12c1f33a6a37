// SPDX-License-Identifier: MIT
// The second, exact look behind a textual scan (prescan.h) that said yes: the program run through
// Clang's preprocessor as the layer's front end would compile it, and its identifiers in the code
// the preprocessor keeps (sections an #if skips are gone, macros are expanded) offered to `match`.
#pragma once

#include <functional>
#include <string_view>

#include "isg/rewriter.h"

namespace isg::detail {

// True when `match` accepts an identifier of the program's own files (not the layer's or
// Clang's headers) or the extension an `#pragma OPENCL EXTENSION` names there; also true when the
// preprocessor fails (an #error, an include it cannot find): then only the driver could tell.
bool activeIdentifierMatches(const RewriteInput& input, const std::function<bool(std::string_view)>& match);

// The program's main text after the preprocessor, line for line: each line holds what the
// preprocessor made of it (macros expanded, comments and skipped sections gone), its directives
// (`#define`, `#undef`, `#include`, `#pragma`) kept where they were, so that the headers still
// read as before and every line keeps its number (the line map, the user's diagnostics). False
// when the preprocessor fails or its output does not keep to the lines (a `_Pragma` in a line).
bool expandMainText(const RewriteInput& input, std::string* expanded);

}  // namespace isg::detail
