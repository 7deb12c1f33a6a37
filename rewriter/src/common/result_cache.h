// SPDX-License-Identifier: MIT
// Results of rewriteProgram by input, for the programs an application builds again (for several
// devices, or after changing a header on disk). Process-wide and thread-safe.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "isg/rewriter.h"

namespace isg::detail {

// Everything a result depends on but the files read from disk (the result lists those), and
// which result of that input it is ("" rewriteProgram's; "ptx" compileForNvidia's).
using CacheKey = std::array<uint8_t, 20>;
CacheKey cacheKey(const RewriteInput& in, std::string_view product = "");

// The result stored for `k`, if any and if the disk files it was computed from still read as
// they did then.
bool cachedResult(const CacheKey& k, RewriteResult* out);
void cacheResult(const CacheKey& k, const RewriteResult& r);

}  // namespace isg::detail
