// SPDX-License-Identifier: MIT
// Build options split into words, the one way everything here splits them (the rewriter's
// parse, the PTX back end, the layer's NVIDIA options and register cap): as drivers and Clang's
// driver do, words are separated by whitespace, single and double quotes group, and a backslash
// takes the next character as it is (inside double quotes too, not inside single ones). And
// what the spec derives from the options alone.
#pragma once

#include <string>
#include <vector>

namespace isg {

inline std::vector<std::string> splitBuildOptions(const std::string& options) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;  // a word has begun, possibly empty ("")
  char quote = 0;
  for (std::size_t i = 0; i < options.size(); ++i) {
    char c = options[i];
    if (quote) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"' && i + 1 < options.size()) cur += options[++i];
      else cur += c;
    } else if (c == '"' || c == '\'') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      if (c == '\\' && i + 1 < options.size()) c = options[++i];
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

// Whether the spec lets the kernels of a program built with `options` run in non-uniform
// work-groups (a last, smaller work-group per dimension): from OpenCL C source, OpenCL C 2.0 or
// newer (-cl-std; 1.2 without it), C++ for OpenCL included; from SPIR-V, always; never with
// -cl-uniform-work-group-size. The layer's launches and both front ends' manifests decide it so.
inline bool allowsNonUniformWorkGroups(const std::string& options, bool fromSpirv) {
  bool allowed = fromSpirv;
  for (const std::string& w : splitBuildOptions(options)) {
    if (w == "-cl-uniform-work-group-size") return false;
    if (fromSpirv || w.rfind("-cl-std=", 0) != 0) continue;
    std::string v = w.substr(8);
    for (char& c : v) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    allowed = v != "cl1.0" && v != "cl1.1" && v != "cl1.2";
  }
  return allowed;
}

// The words of clLinkProgram's `options` no OpenCL implementation takes, which make a link
// CL_INVALID_LINKER_OPTIONS; "" when there are none. The spec's link options, NVIDIA's -cl-nv-*
// and Intel's -cl-intel-* pass, and so do the compile options (-cl-*, -D, -U, -I, -w, -Werror)
// that applications pass to both calls alike, which drivers ignore at a link.
inline std::string invalidLinkOptions(const std::string& options) {
  static const char* const kKnown[] = {"-create-library", "-enable-link-options", "-w", "-Werror"};
  static const char* const kPrefixes[] = {"-cl-", "-D", "-U", "-I"};
  std::string invalid;
  for (const std::string& w : splitBuildOptions(options)) {
    bool known = false;
    for (const char* o : kKnown) known = known || w == o;
    for (const char* p : kPrefixes) known = known || w.rfind(p, 0) == 0;
    if (!known) invalid += (invalid.empty() ? "'" : ", '") + w + "'";
  }
  return invalid;
}

// Options that only tune Intel's compiler or name what the layer provides itself, which other
// drivers refuse ("Invalid build option"), so a build Intel's driver accepts would fail through
// the layer (issue 49.4). Intel-targeted projects pass them to every build: oneDNN
// -cl-no-subgroup-ifp (OpenCL 3.0: sub-groups without independent forward progress, which is
// what the layer's are), and Intel's compute-runtime reads -cl-intel-* (register-file size
// -cl-intel-256-GRF-per-thread, -cl-intel-enable-auto-large-GRF-mode, large buffers
// -cl-intel-greater-than-4GB-buffer-required, scheduling -cl-intel-no-prera-scheduling, ...).
inline bool onlyForIntelsCompiler(const std::string& word) {
  return word == "-cl-no-subgroup-ifp" || word.rfind("-cl-intel-", 0) == 0;
}

// `options` without the words onlyForIntelsCompiler takes, each appended to *dropped; the
// options as they are when there is none (quoting kept).
inline std::string withoutIntelCompilerOptions(const std::string& options, std::vector<std::string>* dropped) {
  std::vector<std::string> words = splitBuildOptions(options);
  std::string kept;
  bool any = false;
  for (const std::string& w : words) {
    if (onlyForIntelsCompiler(w)) {
      any = true;
      if (dropped) dropped->push_back(w);
      continue;
    }
    // A word that needs no quotes keeps none: drivers differ in the quoting they take.
    const bool plain = !w.empty() && w.find_first_of(" \t\n\r\"'\\") == std::string::npos;
    std::string word = plain ? w : "\"";
    if (!plain) {
      for (char c : w) word += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
      word += '"';
    }
    kept += (kept.empty() ? "" : " ") + word;
  }
  return any ? kept : options;
}

}  // namespace isg
