// SPDX-License-Identifier: MIT
// An object built when the library loads and never destroyed, at an address fixed at link
// time: the per-call entries reach it with no pointer to load first and no function-local
// static's guard, and an application thread still inside an entry at exit never meets a
// destroyed one (launch/kernel_records.h).
#pragma once

#include <new>
#include <utility>

namespace isg {

template <class T>
class Immortal {
 public:
  template <class... Args>
  explicit Immortal(Args&&... args) {
    new (storage_) T(std::forward<Args>(args)...);
  }
  Immortal(const Immortal&) = delete;
  Immortal& operator=(const Immortal&) = delete;
  T& get() noexcept { return *std::launder(reinterpret_cast<T*>(storage_)); }
  const T& get() const noexcept { return *std::launder(reinterpret_cast<const T*>(storage_)); }

 private:
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace isg
