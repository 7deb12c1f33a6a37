// SPDX-License-Identifier: MIT
// isg-replay over many cases (docs/compare.md, "A whole application"): the cases under the
// directories given, one line per case as it finishes, then a table by kernel name; the exit
// status is the worst case's.
#pragma once

#include <string>
#include <vector>

#include "replay.h"

namespace isg::replay {

// `dir` itself when it holds case.json, else every case below it (recursively, sorted by path;
// hidden `.…partial` directories of unfinished captures skipped). Throws Fatal when `dir` is
// not a directory.
std::vector<std::string> findCases(const std::string& dir);

struct KernelRow {
  std::string kernel;
  size_t cases = 0, identical = 0, withinTolerance = 0, mismatched = 0, notRun = 0,
         notCompared = 0;
  std::string notRunWhy;  // the first case's reason
};

// The table: one row per kernel name, in order of first appearance.
std::vector<KernelRow> tabulate(const std::vector<CaseResult>& results);
int worstExitStatus(const std::vector<CaseResult>& results);

// One case's line: result, kernel, launch, largest error or why, directory.
std::string caseLine(const CaseResult& r);
// The table as text (aligned columns), with a total row.
std::string tableText(const std::vector<KernelRow>& rows);

// Replays every case, printing a line for each and the table; returns the exit status.
int runBatch(const Options& o, const std::vector<std::string>& cases);

}  // namespace isg::replay
