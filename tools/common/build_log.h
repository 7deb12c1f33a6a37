// SPDX-License-Identifier: MIT
// A program's build log, as the tools and benchmarks show it when a build fails: one definition,
// because each copy had to get the terminating NUL right on its own.
#pragma once

#include <CL/cl.h>

#include <cstring>
#include <string>

namespace isg {

// The log of `program`'s last build for `device`; "" when there is none or the query fails. The
// size the driver reports counts the terminating NUL, and the log ends at the first NUL: text
// appended after it would never be printed (isg-replay's hint once was, issue 32.3).
inline std::string programBuildLog(cl_program program, cl_device_id device) {
  size_t size = 0;
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size) !=
          CL_SUCCESS ||
      size == 0)
    return {};
  std::string log(size, '\0');
  if (clGetProgramBuildInfo(program, device, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr) !=
      CL_SUCCESS)
    return {};
  log.resize(std::strlen(log.c_str()));
  return log;
}

}  // namespace isg
