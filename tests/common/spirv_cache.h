// SPDX-License-Identifier: MIT
// Programs compiled to SPIR-V for the SPIR-V runs of the tests and benchmarks (ISG_TEST_SPIRV,
// cl_harness.h; bench/common/cl_bench.h): clang-15 + llvm-spirv-15 with the Intel SPIR-V
// extensions and the table's declarations for the builtins clang lacks. No OpenCL, no gtest.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <stdlib.h>  // mkdtemp
#include <unistd.h>  // access

namespace isgtest {

// The SPIR-V compile of one program, as a shell command from `base`.cl to `base`.spv (log in
// `base`.log). The front-end options the program is built with (-cl-std, -D, -I, math flags)
// go to clang; the rest are the driver's.
inline std::string spirvCompileCommand(const std::string& base, const std::string& options) {
#if defined(ISG_TEST_CLANG) && defined(ISG_TEST_LLVM_SPIRV) && defined(ISG_TEST_DECLARATIONS)
  std::string front = " -cl-std=CL2.0";
  std::istringstream words(options);
  for (std::string w; words >> w;) {
    if ((w == "-D" || w == "-I") && words >> std::ws && !words.eof()) {
      std::string value;
      words >> value;
      w += value;  // "-D NAME=VALUE" as one argument
    }
    if (w.rfind("-cl-std=", 0) == 0 || w.rfind("-D", 0) == 0 || w.rfind("-I", 0) == 0 ||
        w == "-cl-mad-enable" || w == "-cl-fast-relaxed-math" || w == "-cl-finite-math-only" ||
        w == "-cl-unsafe-math-optimizations" || w == "-cl-denorms-are-zero")
      front += " '" + w + "'";
  }
  // -fgnu89-inline: plain `inline` helpers (CLBlast's INLINE_FUNC, clDNN's) get a definition,
  // as every driver that compiles them from source gives them one.
  return std::string("'" ISG_TEST_CLANG "'") +
         " -target spir64 -O0 -emit-llvm -c -w -fgnu89-inline -Xclang -no-opaque-pointers"
         " -Xclang -finclude-default-header -Xclang -cl-ext=-cl_khr_subgroups,-__opencl_c_subgroups"
         " -Dcl_intel_subgroups=1 -Dcl_intel_subgroups_short=1 -Dcl_intel_subgroups_char=1"
         " -Dcl_intel_subgroups_long=1 -Dcl_intel_required_subgroup_size=1"
         " -Dcl_intel_media_block_io=1 -include '" ISG_TEST_DECLARATIONS "'" +
         front + " '" + base + ".cl' -o '" + base + ".bc' > '" + base +
         ".log' 2>&1 && '" ISG_TEST_LLVM_SPIRV
         "'"
         " --spirv-ext=+SPV_INTEL_subgroups,+SPV_INTEL_media_block_io,+SPV_KHR_integer_dot_product,"
         "+SPV_KHR_subgroup_rotate '" +
         base + ".bc' -o '" + base + ".spv' >> '" + base + ".log' 2>&1";
#else
  (void)base;
  (void)options;
  return {};
#endif
}

inline bool readWholeFile(const std::string& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  out->assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return true;
}

// ISG_TEST_SPIRV_CACHE=DIR: modules by a hash of (source, options), for machines without
// clang-15 (the GPU machine). A miss there leaves KEY.cl and KEY.options in DIR and fails the
// build; tools/device/fill-spirv-cache.sh compiles them here (isg_fill_spirv_cache) for the next run.
inline std::string spirvCacheKey(const std::string& src, const std::string& options) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : src + '\0' + options) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

// Whether this test binary can compile OpenCL C to SPIR-V at all (a build without the SPIR-V
// bridge has neither clang nor llvm-spirv for it: cmake/llvm.cmake).
inline bool compilesSpirv() {
#if defined(ISG_TEST_CLANG) && defined(ISG_TEST_LLVM_SPIRV)
  return true;
#else
  return std::getenv("ISG_TEST_SPIRV_CACHE") != nullptr;
#endif
}

inline bool compileToSpirv(const std::string& src, const std::string& options, std::string* module,
                           std::string* log) {
  const char* cache = std::getenv("ISG_TEST_SPIRV_CACHE");
  const std::string key = cache ? std::string(cache) + "/" + spirvCacheKey(src, options) : "";
  if (cache && readWholeFile(key + ".spv", module)) return true;
  const std::string command = spirvCompileCommand("X", options);
  // The command's first word, the compiler, in its quotes (paths may hold spaces).
  const bool haveCompiler = command.size() > 2 && command[0] == '\'' &&
                            access(command.substr(1, command.find('\'', 1) - 1).c_str(), X_OK) == 0;
  if (!haveCompiler) {
    if (cache) {
      std::ofstream(key + ".cl", std::ios::binary) << src;
      std::ofstream(key + ".options", std::ios::binary) << options;
      *log = "no SPIR-V for this program in ISG_TEST_SPIRV_CACHE; recorded as " + key + ".cl";
    } else {
      *log = "this test binary was built without clang and llvm-spirv (ISG_TEST_SPIRV)";
    }
    return false;
  }
  static std::atomic<unsigned> counter{0};
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/isg-spirv-XXXXXX";
  char* dir = pattern.data();
  if (!mkdtemp(dir)) {
    *log = "mkdtemp failed in " + pattern;
    return false;
  }
  const std::string base = std::string(dir) + "/p" + std::to_string(counter++);
  std::ofstream(base + ".cl", std::ios::binary) << src;
  const bool ok = std::system(spirvCompileCommand(base, options).c_str()) == 0;
  std::string text;
  readWholeFile(ok ? base + ".spv" : base + ".log", &text);
  if (ok && cache) std::ofstream(key + ".spv", std::ios::binary) << text;
  // ISG_TEST_SPIRV_KEEP=1 keeps the .cl/.bc/.spv for a look with spirv-dis.
  if (!std::getenv("ISG_TEST_SPIRV_KEEP")) std::system(("rm -rf '" + std::string(dir) + "'").c_str());
  if (ok) *module = std::move(text);
  else *log = "compiling the program to SPIR-V failed:\n" + text;
  return ok;
}

}  // namespace isgtest
