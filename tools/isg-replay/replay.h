// SPDX-License-Identifier: MIT
// The replay itself: loads a captured case, picks the device, builds and runs the kernel from the
// captured inputs and compares every output it writes, printing the report isg-replay shows.
#pragma once

#include <string>

#include "compare.h"

namespace isg::replay {

struct Options {
  std::string caseDir;
  std::string platform, device;  // index or name substring; empty: the first
  Tolerance tolerance;
  unsigned repeat = 1;
  bool compare = true;
};

// 0 every output matches, 1 some output differs; throws Fatal when the case cannot be run.
int replay(const Options& o);

}  // namespace isg::replay
