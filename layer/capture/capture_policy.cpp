// SPDX-License-Identifier: MIT
#include "capture/capture_policy.h"

#include <atomic>
#include <map>
#include <mutex>

#include "core/layer_api.h"

namespace isg::capture {

namespace {

std::atomic<std::uint64_t> g_reservedCases{0};
std::atomic<std::uint64_t> g_reservedBytes{0};
std::atomic<bool> g_maxLogged{false}, g_bytesLogged{false};

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

std::vector<std::string> kernelNames(const std::string& filter) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= filter.size()) {
    size_t end = filter.find(',', start);
    if (end == std::string::npos) end = filter.size();
    size_t b = start, e = end;
    while (b < e && isBlank(filter[b])) ++b;
    while (e > b && isBlank(filter[e - 1])) --e;
    if (e > b) out.push_back(filter.substr(b, e - b));
    start = end + 1;
  }
  return out;
}

bool nameSelected(const std::string& name) {
  const std::string& filter = config().CAPTURE_KERNEL;
  if (filter.empty()) return true;
  for (const std::string& want : kernelNames(filter))
    if (want == name) return true;
  return false;
}

bool withinPerKernel(const std::string& name) {
  const unsigned limit = config().CAPTURE_PER_KERNEL;
  if (limit == 0) return true;
  // Never destroyed, like the layer's other registries: a driver thread may call in at exit.
  static auto* mutex = new std::mutex;
  static auto* seen = new std::map<std::string, std::uint64_t>;
  std::lock_guard<std::mutex> lock(*mutex);
  std::uint64_t& n = (*seen)[name];
  if (n >= limit) return false;
  ++n;
  return true;
}

unsigned effectiveMaxCases() {
  const Config& c = config();
  if (!c.isNamed("ISG_CAPTURE_MAX") && (c.CAPTURE_PER_KERNEL != 0 || c.CAPTURE_MAX_MB != 0)) return 0;
  return c.CAPTURE_MAX;
}

bool reserveCase(const std::string& kernelName) {
  const unsigned max = effectiveMaxCases();
  std::uint64_t taken = g_reservedCases.load();
  do {
    if (max != 0 && taken >= max) {
      if (!g_maxLogged.exchange(true))
        ISG_LOG_WARNING("capture: ISG_CAPTURE_MAX (" << max << " cases) reached at kernel "
                        << kernelName << "; no more cases in this process (0: no limit; "
                        << "ISG_CAPTURE_PER_KERNEL and ISG_CAPTURE_MAX_MB bound a whole run)");
      else
        ISG_LOG_DEBUG("capture: ISG_CAPTURE_MAX reached; not capturing " << kernelName);
      return false;
    }
  } while (!g_reservedCases.compare_exchange_weak(taken, taken + 1));
  return true;
}

void releaseCase() { --g_reservedCases; }

bool reserveBytes(std::uint64_t bytes, const std::string& kernelName) {
  const std::uint64_t cap = std::uint64_t{config().CAPTURE_MAX_MB} << 20;
  if (cap == 0) return true;
  std::uint64_t taken = g_reservedBytes.load();
  do {
    if (taken + bytes > cap) {
      if (!g_bytesLogged.exchange(true))
        ISG_LOG_WARNING("capture: ISG_CAPTURE_MAX_MB (" << config().CAPTURE_MAX_MB
                        << " MiB) reached: kernel " << kernelName << " (" << bytes
                        << " bytes) not captured, " << taken
                        << " bytes captured so far; cases that do not fit are skipped");
      else
        ISG_LOG_DEBUG("capture: ISG_CAPTURE_MAX_MB reached; not capturing " << kernelName);
      return false;
    }
  } while (!g_reservedBytes.compare_exchange_weak(taken, taken + bytes));
  return true;
}

void releaseBytes(std::uint64_t bytes) { g_reservedBytes -= bytes; }

}  // namespace isg::capture
