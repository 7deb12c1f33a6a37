// SPDX-License-Identifier: MIT
// One kernel argument as the application set it, in the one form both users keep: the layer,
// which sets the values again on a register-capped build of the kernel (register_cap.h), and
// capture, which records them into a case (capture/enqueue_capture.h).
#pragma once

#include <cstddef>
#include <cstring>
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
  // keeping one is a copy, never an allocation.
  alignas(16) unsigned char small[16] = {};
  std::vector<unsigned char> large;
  const void* svm = nullptr;

  static bool fitsInPlace(size_t size) { return size <= sizeof small; }

  // clSetKernelArg's arguments. Allocates only for values larger than 16 bytes.
  void set(size_t bytes, const void* value) {
    size = bytes;
    svm = nullptr;
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
    svm = pointer;
  }

  // The value's bytes: `size` of them for Kind::Value, none otherwise.
  const unsigned char* bytes() const { return fitsInPlace(size) ? small : large.data(); }
  size_t byteCount() const { return kind == Kind::Value ? size : 0; }
};

}  // namespace isg
