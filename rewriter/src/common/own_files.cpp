// SPDX-License-Identifier: MIT
// Where the layer's own files are (the rewriter's library, the SPIR-V bridge, libclc), found
// from the folder of the library that holds this code. Part of isg_rewriter_light: the layer
// answers whether it can build SPIR-V and PTX before it loads anything.
#include "common/own_files.h"

#include <dlfcn.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "isg/rewriter.h"
#include "isg/rewriter_library.h"

namespace isg::detail {

// The folder of the library or program that holds the rewriter.
static std::string ownDirectory() {
  Dl_info info{};
  if (!dladdr(reinterpret_cast<void*>(&ownDirectory), &info) || !info.dli_fname) return ".";
  std::string path = info.dli_fname;
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

std::string layerFile(const std::string& name, std::string* searched) {
  // ISG_PRIVATE_LIBDIR (CMake: <libdir>/intel-subgroups-layer, relative to the prefix) is where
  // `cmake --install` and the package put these files.
  const std::string privateDir = ISG_PRIVATE_LIBDIR;
  const std::string own = ownDirectory();
  const std::string folders[] = {own, own + privateDir.substr(privateDir.rfind('/')),
                                 own + "/../" + privateDir};
  std::string list;
  for (const std::string& folder : folders) {
    const std::string path = folder + "/" + name;
    if (access(path.c_str(), R_OK) == 0) return path;
    list += (list.empty() ? "" : ", ") + folder;
  }
  if (searched) *searched = list;
  return {};
}

std::string libclcPath(std::string* why) {
  std::vector<std::string> candidates{layerFile("nvptx64--nvidiacl.bc")};
#ifdef ISG_LIBCLC_NVPTX
  candidates.push_back(ISG_LIBCLC_NVPTX);
#endif
  candidates.push_back("/usr/lib/clc/nvptx64--nvidiacl.bc");
  for (const std::string& c : candidates)
    if (!c.empty() && access(c.c_str(), R_OK) == 0) return c;
  if (why)
    *why =
        "libclc's nvptx64--nvidiacl.bc is neither with the layer's files nor in /usr/lib/clc "
        "(libclc-15)";
  return {};
}

}  // namespace isg::detail

namespace isg {

bool spirvInstalled(const std::string& bridgePath, std::string* why) {
#if !ISG_SPIRV_BRIDGE
  (void)bridgePath;
  *why = "this layer was built without the SPIR-V bridge (its LLVM has no SPIRV-LLVM-Translator with "
         "typed pointers here: docs/install.md, \"LLVM versions\")";
  return false;
#else
  std::string searched;
  const std::string path =
      bridgePath.empty() ? detail::layerFile("libIntelSubgroupsSpirv.so", &searched) : bridgePath;
  if (!path.empty() && access(path.c_str(), R_OK) == 0) return true;
  *why = "the SPIR-V bridge libIntelSubgroupsSpirv.so is not installed (searched " +
         (bridgePath.empty() ? searched : bridgePath) +
         "); the package intel-subgroups-layer-spirv holds it";
  return false;
#endif
}

bool rewriterInstalled(std::string* why) {
  std::string searched;
  if (!detail::layerFile(kRewriterLibrary, &searched).empty()) return true;
  *why = std::string("the layer's rewriter library ") + kRewriterLibrary +
         " is not installed (searched " + searched + ")";
  return false;
}

bool ptxAvailable(std::string* why) { return !detail::libclcPath(why).empty(); }

}  // namespace isg
