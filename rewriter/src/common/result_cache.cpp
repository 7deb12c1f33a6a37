// SPDX-License-Identifier: MIT
// The result cache (result_cache.h): a SHA-1 of the input, a small LRU list.
#include "common/result_cache.h"

#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <llvm/ADT/ArrayRef.h>
#include <llvm/ADT/StringRef.h>
#include <llvm/Support/SHA1.h>

#include "common/prescan.h"

namespace isg::detail {
namespace {

struct KeyHash {
  std::size_t operator()(const CacheKey& k) const {
    std::size_t h = 0;
    for (std::size_t i = 0; i < sizeof(std::size_t); ++i) h = (h << 8) | k[i];
    return h;
  }
};

// Whether the files a result was computed from still read as they did.
bool diskFilesUnchanged(const std::vector<SourceFile>& files) {
  for (const SourceFile& f : files) {
    std::string now;
    if (!readSmallFile(f.name, &now) || now != f.text) return false;
  }
  return true;
}

class Cache {
 public:
  bool get(const CacheKey& k, RewriteResult* out) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = index_.find(k);
      if (it == index_.end()) return false;
      entries_.splice(entries_.begin(), entries_, it->second);
      *out = it->second->second;
    }
    // An autotuner rewrites a header and builds the same source again: the key (source,
    // options, traits) is unchanged, the headers it reads are not.
    return diskFilesUnchanged(out->diskFiles);
  }
  void put(const CacheKey& k, const RewriteResult& r) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = index_.find(k); it != index_.end()) {
      it->second->second = r;  // recomputed after a header changed
      return;
    }
    entries_.emplace_front(k, r);
    index_[k] = entries_.begin();
    if (entries_.size() > kCapacity) {
      index_.erase(entries_.back().first);
      entries_.pop_back();
    }
  }

 private:
  static constexpr std::size_t kCapacity = 64;  // programs rebuilt for several devices, not more
  std::mutex mutex_;
  std::list<std::pair<CacheKey, RewriteResult>> entries_;
  std::unordered_map<CacheKey, std::list<std::pair<CacheKey, RewriteResult>>::iterator, KeyHash>
      index_;
};

Cache& cache() {
  static Cache* c = new Cache;  // never destroyed: builds may run while the process exits
  return *c;
}

}  // namespace

CacheKey cacheKey(const RewriteInput& in, std::string_view product) {
  llvm::SHA1 sha;
  auto field = [&sha](std::string_view s) {
    uint64_t n = s.size();
    sha.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t*>(&n), sizeof n));
    sha.update(llvm::StringRef(s.data(), s.size()));
  };
  field(in.source);
  for (const SourceFile& h : in.headers) {
    field(h.name);
    field(h.text);
  }
  field("\x01options");
  field(in.options);
  field(in.compiledObject ? "\x01object" : "\x01program");
  for (std::size_t d : in.assumedWorkGroupSize) field(std::to_string(d));
  field(in.packWorkGroups ? "\x01packed" : "\x01as-given");
  for (const ContextFunction& f : in.externalContext) {
    field(f.name);
    for (const std::string& family : f.families) field(family);
    field(std::to_string(f.widestBytes));
  }
  const DeviceTraits& t = in.traits;
  std::string traits = std::string(strategyName(t.strategy)) + "|" +
                       std::to_string(t.defaultSubGroupSize) + "|" + std::to_string(t.fp16) +
                       std::to_string(t.fp64) + std::to_string(t.images) +
                       std::to_string(t.readWriteImages) + std::to_string(t.alignLocalArgs) + "|" +
                       std::to_string(t.openclCVersion) + "|" +
                       std::to_string(t.nativeSubGroupSize) + "|" +
                       std::to_string(t.nvidiaComputeCapability) + "|" +
                       std::to_string(t.khrTestDouble) + std::to_string(t.khrTestMinimal) +
                       std::to_string(t.subGroupSizeFromLaunch) + std::to_string(t.refuseDivergent) + std::to_string(t.lockStep) +
                       std::to_string(t.workGroupCollectives) + "|";
  for (unsigned s : t.supportedSubGroupSizes) traits += std::to_string(s) + ",";
  traits += "|" + std::to_string(t.deviceOpenclVersion) + "|";
  for (const std::string& e : t.deviceExtensions) traits += e + " ";
  traits += "|";
  for (const std::string& f : t.openclCFeatures) traits += f + " ";
  field(traits);
  if (!product.empty()) field(product);
  return sha.result();
}

bool cachedResult(const CacheKey& k, RewriteResult* out) { return cache().get(k, out); }

void cacheResult(const CacheKey& k, const RewriteResult& r) { cache().put(k, r); }

}  // namespace isg::detail
