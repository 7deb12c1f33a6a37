// SPDX-License-Identifier: MIT
// Where the layer's own files are (the rewriter's library, the SPIR-V bridge, libclc), found
// from the folder of the library that holds this code.
#pragma once

#include <string>

namespace isg::detail {

// One of the layer's own files (the translator bridge, libclc's bitcode): beside the library or
// program that holds the rewriter (a build tree), in the installed layer's private folder beside
// it (<libdir>/intel-subgroups-layer), or in that folder seen from an installed program in
// <prefix>/bin. "" when none holds it, with the folders searched in *searched.
std::string layerFile(const std::string& name, std::string* searched = nullptr);

// libclc's nvptx64--nvidiacl.bc as the layer finds it: beside the library that holds the
// rewriter, else where Debian's libclc-15 installs it. "" when neither exists, with the reason in
// *why when given.
std::string libclcPath(std::string* why = nullptr);

}  // namespace isg::detail
