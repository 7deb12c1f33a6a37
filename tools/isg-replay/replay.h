// SPDX-License-Identifier: MIT
// The replay of one case: loads it, picks the device, builds and runs the kernel from the
// captured inputs and compares every output it writes. The detailed report (the single-case
// form of isg-replay) is written to a string; the verdict comes back as a CaseResult, which the
// batch form turns into one line and a row of its table (batch.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compare.h"

namespace isg::replay {

struct Options {
  std::vector<std::string> dirs;  // cases, or directories searched for cases
  std::string platform, device;   // index or name substring; empty: the first
  ToleranceSetting tolerance;
  unsigned repeat = 1;
  bool compare = true;
  // Build options: `replaceOptions` replaces each case's when set; then each `dropOptions`
  // entry is removed (build_options.h).
  bool replaceOptions = false;
  std::string newOptions;
  std::vector<std::string> dropOptions;
  std::string reportPath, reportFormat;  // --report FILE; "md" or "json" (from the name if empty)
  bool details = false;                  // the batch form prints each case's full report too
};

enum class Verdict { Identical, WithinTolerance, Mismatch, NotRun, NotCompared };
const char* verdictName(Verdict v);  // IDENTICAL, WITHIN TOLERANCE, MISMATCH, NOT RUN, ...
int exitStatus(Verdict v);           // 0, 0, 1, 2, 0

struct CaseResult {
  std::string dir;
  std::string kernel = "?";  // "?" when the case could not be read
  std::string launch;        // "global [256] local [64]"
  Verdict verdict = Verdict::NotRun;
  std::string detail;  // mismatch: what differs; not run: why, in one line
  std::string full;    // not run: the whole message (a build failure with its log)
  // The largest difference among the elements that were not bit-identical, in the argument that
  // had it; the ulp distance for floats.
  bool anyError = false, floatError = false;
  double largestError = 0;
  std::uint64_t largestUlp = 0;
  std::string options;  // the build options used, when --options/--drop-option changed them
};

// Replays the case in `dir`; never throws (a failure is a NOT RUN result). `report` receives
// the single-case report.
CaseResult replayCase(const Options& o, const std::string& dir, std::string* report);

}  // namespace isg::replay
