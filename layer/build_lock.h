// SPDX-License-Identifier: MIT
// One build of an application program at a time. A build the layer rewrites replaces the
// program's record and releases the previous build's shadow, so a second build of the same
// program at once would release the shadow the first one is still building; it gets
// CL_INVALID_OPERATION instead, the code the spec names for a build begun while another has not
// completed. Builds the driver does alone wait for each other instead, as PoCL 3.1 makes them:
// NVIDIA's driver 580 corrupts its heap when two threads build one program at once
// (Misuse.ConcurrentBuildsOfOneProgram, docs/reliability.md).
#pragma once

#include <CL/cl.h>

namespace isg {

// The calling thread's claim on building `program`: Refuse, claimed() is false while another
// build of it is in progress; Wait, the claim waits for the others.
class BuildClaim {
 public:
  enum class Mode { Refuse, Wait };
  BuildClaim(cl_program program, Mode mode);
  ~BuildClaim();
  BuildClaim(const BuildClaim&) = delete;
  BuildClaim& operator=(const BuildClaim&) = delete;
  bool claimed() const { return claimed_; }

 private:
  cl_program program_;
  bool claimed_ = false;
};

}  // namespace isg
