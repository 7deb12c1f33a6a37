// SPDX-License-Identifier: MIT
// The mutex-guarded maps in which the layer keeps what it remembers of the application's
// objects (programs/program_records.h, launch/kernel_records.h), and the release every recorded
// object goes through. Records are shared_ptr so a caller can keep using one after another
// thread has replaced or erased it.
#pragma once

#include <CL/cl.h>

#include <map>
#include <memory>
#include <mutex>
#include <utility>

namespace isg {

// For records no per-call entry looks up.
struct NoIndex {
  template <class Handle, class Record>
  void set(Handle, const Record&) {}
  template <class Handle>
  void erase(Handle) {}
};

template <class Handle, class Record, class Index = NoIndex>
class ObjectRegistry {
 public:
  std::shared_ptr<Record> find(Handle h) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = records_.find(h);
    return it == records_.end() ? nullptr : it->second;
  }
  // Returns the record it replaces, if any.
  std::shared_ptr<Record> put(Handle h, std::shared_ptr<Record> r) {
    std::lock_guard<std::mutex> lock(mutex_);
    std::shared_ptr<Record>& slot = records_[h];
    std::swap(slot, r);
    if (slot)
      index_.set(h, *slot);
    else
      index_.erase(h);
    return r;
  }
  std::shared_ptr<Record> take(Handle h) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = records_.find(h);
    if (it == records_.end()) return nullptr;
    index_.erase(h);
    std::shared_ptr<Record> r = std::move(it->second);
    records_.erase(it);
    return r;
  }
  template <class Predicate>
  bool any(Predicate&& p) const {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const auto& [h, r] : records_)
      if (p(*r)) return true;
    return false;
  }
  size_t size() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return records_.size();
  }
  // Lock-free view of the records (KernelIndex).
  const Index& index() const { return index_; }

 private:
  mutable std::mutex mutex_;
  std::map<Handle, std::shared_ptr<Record>> records_;
  Index index_;
};

// Held from reading an object's reference count to its release, by every release of an object
// the layer keeps a record of: two threads releasing the same object at once would otherwise
// both read 2 and neither drop the record (issue 13.4), which then attaches to a new object
// at the same address. Kernel releases take it before program releases (a kernel's release may
// release its program), so it is recursive.
inline std::recursive_mutex& releaseMutex() {
  static auto* mutex = new std::recursive_mutex;  // never destroyed, like the registries
  return *mutex;
}

// The release of an object the layer keeps records of, under releaseMutex: while other
// references remain, only the driver's release (`release()`). For the last one the records go
// first (`take()`), so that the handle is never found after the driver may have reused it;
// then the driver's release; if the driver refuses it the records come back
// (`restore(records)`), else `cleanup(records)` lets go of what they held.
template <class References, class Take, class Release, class Restore, class Cleanup>
cl_int releaseRecorded(References references, Take take, Release release, Restore restore,
                       Cleanup cleanup) {
  std::lock_guard<std::recursive_mutex> serial(releaseMutex());
  if (references() != 1) return release();
  auto records = take();
  const cl_int err = release();
  if (err != CL_SUCCESS) {
    restore(records);
    return err;
  }
  cleanup(records);
  return CL_SUCCESS;
}

}  // namespace isg
