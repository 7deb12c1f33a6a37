// SPDX-License-Identifier: MIT
// A captured case (docs/compare.md) read from its directory and checked for what the replay
// relies on, before any OpenCL call: a malformed case is reported as such rather than as an
// OpenCL error later.
#pragma once

#include <string>
#include <vector>

#include "case_format.h"

namespace isg::replay {

// Any failure that stops the replay of a case, from loading it to running it: `what` in full
// (a build failure with its whole log), `brief` in one line for the per-case line and the
// report (empty: the first line of `what`). The case is then NOT RUN (exit status 2).
struct Fatal {
  std::string what;
  std::string brief;
};

[[noreturn]] void fatal(const std::string& what, const std::string& brief = "");

struct LoadedCase {
  isg::capture::Case c;
  std::string source;
  std::vector<std::string> before, after;  // per memory object
};

LoadedCase loadCase(const std::string& dir);

}  // namespace isg::replay
