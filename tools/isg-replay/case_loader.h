// SPDX-License-Identifier: MIT
// A captured case (docs/compare.md) read from its directory and checked for what the replay
// relies on, before any OpenCL call: a malformed case is reported as such rather than as an
// OpenCL error later.
#pragma once

#include <string>
#include <vector>

#include "case_format.h"

namespace isg::replay {

// Any failure that stops the replay, from loading the case to running it; main prints it and
// exits with 2.
struct Fatal {
  std::string what;
};

[[noreturn]] void fatal(const std::string& what);

struct LoadedCase {
  isg::capture::Case c;
  std::string source;
  std::vector<std::string> before, after;  // per memory object
};

LoadedCase loadCase(const std::string& dir);

}  // namespace isg::replay
