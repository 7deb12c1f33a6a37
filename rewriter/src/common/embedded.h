// SPDX-License-Identifier: MIT
// Files baked into the library at build time (rewriter/cmake/embed.cmake), so that the layer
// needs neither the source tree nor a clang installation on the machine it runs on.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace isg::detail {

struct EmbeddedFile {
  const char* name;  // "clang/opencl-c-base.h", "builtins.def", "<strategy>/<file>.cl"
  const char* begin;
  const char* end;
  std::string_view text() const { return std::string_view(begin, std::size_t(end - begin)); }
};

extern const EmbeddedFile kEmbeddedFiles[];
extern const std::size_t kNumEmbeddedFiles;

const EmbeddedFile* findEmbedded(std::string_view name);

// The files under "<folder>/", in name order (the table is generated sorted).
std::vector<const EmbeddedFile*> embeddedUnder(std::string_view folder);

}  // namespace isg::detail
