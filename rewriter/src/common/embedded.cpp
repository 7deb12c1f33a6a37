// SPDX-License-Identifier: MIT
#include "common/embedded.h"

namespace isg::detail {

const EmbeddedFile* findEmbedded(std::string_view name) {
  for (std::size_t i = 0; i < kNumEmbeddedFiles; ++i)
    if (name == kEmbeddedFiles[i].name) return &kEmbeddedFiles[i];
  return nullptr;
}

std::vector<const EmbeddedFile*> embeddedUnder(std::string_view folder) {
  std::vector<const EmbeddedFile*> out;
  for (std::size_t i = 0; i < kNumEmbeddedFiles; ++i) {
    std::string_view n = kEmbeddedFiles[i].name;
    if (n.size() > folder.size() && n.substr(0, folder.size()) == folder && n[folder.size()] == '/')
      out.push_back(&kEmbeddedFiles[i]);
  }
  return out;
}

}  // namespace isg::detail
