// SPDX-License-Identifier: MIT
// One kernel argument as the application set it, in the one form both users keep: the layer,
// which sets the values again on a register-capped build of the kernel (register_cap.h), and
// capture, which records them into a case (capture/enqueue_capture.h).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace isg {

struct ArgValue {
  enum class Kind : unsigned char {
    Unset,  // never set
    Value,  // clSetKernelArg with a value (a handle, a scalar, a struct)
    Local,  // clSetKernelArg with NULL: local memory of `size` bytes, or a NULL buffer
    Svm     // clSetKernelArgSVMPointer
  };
  Kind kind = Kind::Unset;
  size_t size = 0;
  // Values up to 16 bytes (handles, scalars, small vectors: nearly all) stay inline, so that
  // keeping one is a copy, never an allocation; so does an SVM pointer (svm()), so that no
  // kind of value has a field of its own to clear.
  alignas(16) unsigned char small[16] = {};
  std::vector<unsigned char> large;

  static bool fitsInPlace(size_t size) { return size <= sizeof small; }

  // clSetKernelArg's arguments. Allocates only for values larger than 16 bytes.
  void set(size_t bytes, const void* value) {
    size = bytes;
    if (!value) {
      kind = Kind::Local;
      return;
    }
    kind = Kind::Value;
    const auto* from = static_cast<const unsigned char*>(value);
    // Constant sizes for the common cases: a copy in registers instead of a call to memcpy.
    if (bytes == 8) std::memcpy(small, from, 8);
    else if (bytes == 4) std::memcpy(small, from, 4);
    else if (fitsInPlace(bytes)) std::memcpy(small, from, bytes);
    else large.assign(from, from + bytes);
  }
  void setSvm(const void* pointer) {
    kind = Kind::Svm;
    size = 0;
    std::memcpy(small, &pointer, sizeof pointer);
  }
  // Kind::Svm's pointer (maybe NULL).
  const void* svm() const {
    const void* pointer;
    std::memcpy(&pointer, small, sizeof pointer);
    return pointer;
  }

  // The value's bytes: `size` of them for Kind::Value, none otherwise.
  const unsigned char* bytes() const { return fitsInPlace(size) ? small : large.data(); }
  size_t byteCount() const { return kind == Kind::Value ? size : 0; }
};

// The layer's copies of one kernel object's argument values (KernelRecord::cap.args), one per
// user argument. The values follow the header in the same allocation, so that clSetKernelArg's
// path finds argument i at a fixed offset from the store it looked up, with no load between;
// its index check against the kernel's argument count (the index's summary) is the bound.
class alignas(ArgValue) ArgStore {
 public:
  struct Free {
    void operator()(ArgStore* s) const {
      for (size_t i = 0; i < s->count_; ++i) s->values()[i].~ArgValue();
      s->~ArgStore();
      ::operator delete(s, std::align_val_t{alignof(ArgStore)});
    }
  };
  using Ptr = std::unique_ptr<ArgStore, Free>;

  // `count` unset values, or a copy of `from`'s (a clone's).
  static Ptr make(size_t count) {
    void* memory = ::operator new(sizeof(ArgStore) + count * sizeof(ArgValue),
                                  std::align_val_t{alignof(ArgStore)});
    Ptr s(new (memory) ArgStore(count));
    for (size_t i = 0; i < count; ++i) new (s->values() + i) ArgValue;
    return s;
  }
  static Ptr copy(const ArgStore& from) {
    Ptr s = make(from.count_);
    for (size_t i = 0; i < from.count_; ++i) s->values()[i] = from.values()[i];
    return s;
  }
  ArgStore(const ArgStore&) = delete;
  ArgStore& operator=(const ArgStore&) = delete;

  size_t size() const { return count_; }
  ArgValue& operator[](size_t i) { return values()[i]; }
  const ArgValue& operator[](size_t i) const { return values()[i]; }

  // Whether a launch has run on the capped build (register_cap.h): later launches must look
  // for it.
  std::atomic<bool> capped{false};

 private:
  explicit ArgStore(size_t count) : count_(count) {}
  ~ArgStore() = default;
  ArgValue* values() { return std::launder(reinterpret_cast<ArgValue*>(this + 1)); }
  const ArgValue* values() const {
    return std::launder(reinterpret_cast<const ArgValue*>(this + 1));
  }
  const size_t count_;
};

}  // namespace isg
