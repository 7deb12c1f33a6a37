// SPDX-License-Identifier: MIT
#include "handle_kinds.h"

namespace isg {

namespace detail {
// Created when the library loads, before the loader can call an entry; never destroyed, as the
// registries (object_registry.h): an application thread may still be inside an entry at exit.
HandleKinds* const g_handleKinds = new HandleKinds;
}  // namespace detail

HandleKinds& handleKinds() { return *detail::g_handleKinds; }

void HandleKinds::created(const void* handle, HandleKind kind) {
  if (!handle) return;
  std::lock_guard<std::mutex> lock(mutex_);
  references_[handle] = 1;
  index_.set(handle, static_cast<uint64_t>(kind));
}

void HandleKinds::retained(const void* handle, HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = references_.find(handle);
  if (it != references_.end() && kindOf(handle) == kind) ++it->second;
}

void HandleKinds::released(const void* handle, HandleKind kind) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = references_.find(handle);
  if (it == references_.end() || kindOf(handle) != kind) return;
  if (--it->second == 0) {
    references_.erase(it);
    index_.erase(handle);
  }
}

}  // namespace isg
