// SPDX-License-Identifier: MIT
#include "formats/program_dump.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "case_format.h"
#include "core/layer_api.h"

namespace isg {
namespace {

// FNV-1a: stable across runs and processes, so dumps of the same program overwrite each other
// instead of piling up.
void hashBytes(std::uint64_t* hash, const std::string& bytes) {
  for (unsigned char c : bytes) {
    *hash ^= c;
    *hash *= 1099511628211ull;
  }
  *hash ^= 0xff;  // separates consecutive fields
  *hash *= 1099511628211ull;
}

std::string programKey(const RewriteInput& input) {
  std::uint64_t hash = 14695981039346656037ull;
  hashBytes(&hash, input.source);
  for (const SourceFile& h : input.headers) {
    hashBytes(&hash, h.name);
    hashBytes(&hash, h.text);
  }
  hashBytes(&hash, input.options);
  hashBytes(&hash, strategyName(input.traits.strategy));
  hashBytes(&hash, std::to_string(input.traits.defaultSubGroupSize));
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

// Written under a temporary name and renamed into place, so that a full disk (or any failed
// write) leaves no partial file behind for a later reader to take as the program.
bool writeFile(const std::filesystem::path& path, const std::string& text) {
  static std::atomic<unsigned> serial{0};
  std::filesystem::path temp = path;
  temp += ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(serial.fetch_add(1));
  bool ok;
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    ok = static_cast<bool>(out);
  }
  std::error_code ec;
  if (ok) std::filesystem::rename(temp, path, ec);
  if (!ok || ec) {
    std::filesystem::remove(temp, ec);
    return false;
  }
  return true;
}

}  // namespace

void dumpRewrittenProgram(const RewriteInput& input, const RewriteResult& result) {
  const std::string& dir = config().DUMP_DIR;
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string key = programKey(input);
  const std::filesystem::path base(dir);
  // A program the rewriter refused: what it was given and why (its build log).
  const bool refused = result.status == RewriteResult::Status::Error;
  bool ok = writeFile(base / (key + ".original.cl"), input.source) &&
            (refused ? writeFile(base / (key + ".refused.log"), result.log)
                     : writeFile(base / (key + ".rewritten.cl"), result.source) &&
                           writeFile(base / (key + ".manifest.json"), manifestToJson(result)));
  // The layer's front end on NVIDIA: the PTX the driver builds (`ptxas -v` tells its registers).
  if (!refused && result.form == RewriteResult::Form::Ptx)
    ok = ok && writeFile(base / (key + ".ptx"), result.binary.c_str());
  for (const SourceFile& h : input.headers)
    ok = ok && writeFile(base / (key + ".original-header." + capture::fileSafe(h.name)), h.text);
  for (const SourceFile& h : result.headers)
    ok = ok && writeFile(base / (key + ".rewritten-header." + capture::fileSafe(h.name)), h.text);
  if (ok)
    ISG_LOG_DEBUG("dumped program " << key << " to " << dir);
  else
    ISG_LOG_WARNING("ISG_DUMP_DIR: cannot write program " << key << " to " << dir);
}

}  // namespace isg
