// SPDX-License-Identifier: MIT
// The case of one enqueue as capture builds it (case_format.h's Case, with the memory objects
// it reads before and after the kernel): described from the driver's answers before the
// enqueue (describeLaunch), filled with memory by the enqueue hook, written by case_writer.h.
#pragma once

#include <CL/cl.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "capture/capture_policy.h"
#include "capture/enqueue_capture.h"
#include "case_format.h"

namespace isg::capture {

// What one capture carries from before the enqueue to after it.
struct Pending {
  Case c;
  cl_command_queue queue = nullptr;
  struct Memory {
    cl_mem handle = nullptr;
    bool image = false;
    size_t region[3] = {1, 1, 1};
    bool writable = false;
    std::string before, after;
  };
  std::vector<Memory> memory;  // parallel to c.memory
  std::map<cl_mem, unsigned> ids;
  std::string source;
  bool reserved = false;    // holds an ISG_CAPTURE_MAX slot (capture_policy.h)
  std::uint64_t bytes = 0;  // holds this much of ISG_CAPTURE_MAX_MB: blobs, program, JSON
  void release() {          // what a capture that will not be written gives back
    if (reserved) releaseCase();
    if (bytes) releaseBytes(bytes);
    reserved = false, bytes = 0;
  }
};

// Describes the launch `l` on `device` in `p`: the device, the program and its options, the
// ND-range, every argument and the memory objects they name. Throws CaptureError where the
// enqueue cannot become a case.
void describeLaunch(Pending& p, const EnqueueCapture::Launch& l, cl_device_id device);

}  // namespace isg::capture
