// SPDX-License-Identifier: MIT
// The case writer (case_writer.h).
#include "capture/case_writer.h"

#include <atomic>
#include <cstdio>
#include <filesystem>

#include "capture/capture_error.h"
#include "core/layer_api.h"

namespace isg::capture {
namespace {

std::atomic<std::uint64_t> g_sequence{0};

}  // namespace

void writeCase(Pending& p) {
  namespace fs = std::filesystem;
  const fs::path base(config().CAPTURE_DIR);
  std::error_code ec;
  fs::create_directories(base, ec);
  char seq[16];
  std::snprintf(seq, sizeof seq, "%04llu",
                static_cast<unsigned long long>(g_sequence.fetch_add(1) + 1));
  const std::string name = fileSafe(p.c.kernelName) + "-" + std::to_string(p.c.pid) + "-" + seq;
  // Written under a hidden name and renamed when complete: a directory named like a case is
  // always a whole case.
  const fs::path partial = base / ("." + name + ".partial");
  const fs::path final = base / name;
  fs::remove_all(partial, ec);
  if (!fs::create_directories(partial, ec))
    failCapture("cannot create " + partial.string() + ": " + ec.message());
  bool ok = writeFile((partial / p.c.sourceFile).string(), p.source);
  for (size_t i = 0; i < p.memory.size(); ++i) {
    MemoryObject& m = p.c.memory[i];
    m.before = "mem" + std::to_string(i) + ".before.bin";
    ok = ok && writeFile((partial / m.before).string(), p.memory[i].before);
    if (p.memory[i].writable) {
      m.after = "mem" + std::to_string(i) + ".after.bin";
      ok = ok && writeFile((partial / m.after).string(), p.memory[i].after);
    }
  }
  ok = ok && writeFile((partial / kCaseFile).string(), toJson(p.c));
  if (ok) fs::rename(partial, final, ec);
  if (!ok || ec) {
    fs::remove_all(partial, ec);
    failCapture("cannot write the case to " + base.string());
  }
  ISG_LOG_INFO("captured kernel " << p.c.kernelName << " (enqueue " << p.c.enqueueIndex << ") to "
                                  << final.string());
}

}  // namespace isg::capture
