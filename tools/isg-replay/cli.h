// SPDX-License-Identifier: MIT
// isg-replay's command line: every argument checked before anything runs. A wrong one is a
// one-line error naming it (UsageError), and main exits with 2.
#pragma once

#include <string>
#include <vector>

#include "replay.h"

namespace isg::replay {

extern const char* const kUsage;

struct UsageError {
  std::string what;
};

enum class Action { Run, Help, Version };

// argv without the program name. Throws UsageError.
Action parseCommandLine(const std::vector<std::string>& args, Options* o);

}  // namespace isg::replay
