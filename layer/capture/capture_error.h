// SPDX-License-Identifier: MIT
// How one capture gives up (enqueue_capture.h): a CaptureError, thrown anywhere while a case is
// described, read or written, is caught by the enqueue hook, which logs why and records nothing.
#pragma once

#include <CL/cl.h>

#include <string>

namespace isg::capture {

// Aborts one capture; the message says why in the log.
struct CaptureError {
  std::string what;
};

[[noreturn]] inline void failCapture(const std::string& what) { throw CaptureError{what}; }

inline void check(cl_int err, const char* what) {
  if (err != CL_SUCCESS) failCapture(std::string(what) + " failed with " + std::to_string(err));
}

}  // namespace isg::capture
