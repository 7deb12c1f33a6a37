// SPDX-License-Identifier: MIT
#include "core/handle_kinds.h"

namespace isg {

namespace detail {
// Created when the library loads, before the loader can call an entry; never destroyed, as the
// registries (object_registry.h): an application thread may still be inside an entry at exit.
Immortal<HandleKinds> g_handleKinds;
HandleFilter g_perCallHandles;
}  // namespace detail

void HandleKinds::created(const void* handle, HandleKind kind) {
  if (!handle) return;
  std::lock_guard<std::mutex> lock(mutex_);
  references_[handle] = 1;
  // A handle the driver gave out again without a release the layer saw: its old kind goes.
  uint64_t previous = 0;
  const bool wasProgram = index_.set(handle, static_cast<uint64_t>(kind), 0, &previous) &&
                          previous == static_cast<uint64_t>(HandleKind::Program);
  if (kind == HandleKind::Program && !wasProgram) detail::g_perCallHandles.add(handle);
  if (kind != HandleKind::Program && wasProgram) detail::g_perCallHandles.remove(handle);
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
    if (index_.erase(handle) && kind == HandleKind::Program)
      detail::g_perCallHandles.remove(handle);
  }
}

}  // namespace isg
