// SPDX-License-Identifier: MIT
// The layer's side of isg/rewriter_library.h: each entry point that needs Clang or LLVM loads
// libIntelSubgroupsRewriter.so (beside the layer, or in its private folder) on its first call
// and calls the library's. A layer whose library cannot be loaded builds what needs no rewrite
// and fails the builds that do, with a log that says why.
#include <dlfcn.h>

#include <string>

#include "common/own_files.h"
#include "common/prescan.h"
#include "isg/rewriter_library.h"

namespace isg {
namespace {

struct Library {
  const RewriterEntryPoints* entries = nullptr;
  std::string why;  // when entries is null
};

const Library& library() {
  static const Library loaded = [] {
    Library l;
    const std::string path = detail::layerFile(kRewriterLibrary);
    if (path.empty()) {
      rewriterInstalled(&l.why);
      return l;
    }
    // Never unloaded: its LLVM keeps state (options, the result cache) as long as the process.
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!handle) {
      const char* error = dlerror();
      l.why = "the layer's rewriter library " + path + " cannot be loaded (" +
              (error ? error : "") + ")";
      return l;
    }
    auto get = reinterpret_cast<const RewriterEntryPoints* (*)()>(
        dlsym(handle, "isg_rewriter_entry_points"));
    const RewriterEntryPoints* entries = get ? get() : nullptr;
    if (!entries || entries->abi != kRewriterAbi) {
      l.why = "the layer's rewriter library " + path + " is from another build of the layer";
      return l;
    }
    l.entries = entries;
    return l;
  }();
  return loaded;
}

RewriteResult unavailable(const std::string& why) {
  RewriteResult r;
  r.status = RewriteResult::Status::Error;
  r.log = "error: " + why + "\n";
  return r;
}

}  // namespace

#define ISG_REWRITER_STUB(R, name, params, args, fallback) \
  R name params {                                          \
    const Library& l = library();                          \
    if (l.entries) return l.entries->name args;            \
    const std::string& why = l.why;                        \
    (void)why;                                             \
    return fallback;                                       \
  }
ISG_REWRITER_ENTRIES(ISG_REWRITER_STUB)
#undef ISG_REWRITER_STUB

// As rewriter.cpp's: most programs never name half, and only those that do need the
// preprocessor, and with it the library (NVIDIA offers cl_khr_fp16 through the layer, so every
// build there asks; clinfo builds one kernel).
bool mayUseHalf(const RewriteInput& input) {
  return detail::programTextMatches(input, detail::textMayUseHalf) &&
         preprocessedCodeUsesHalf(input);
}

}  // namespace isg
