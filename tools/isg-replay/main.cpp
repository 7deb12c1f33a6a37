// SPDX-License-Identifier: MIT
// isg-replay: runs kernel cases captured by the layer (ISG_CAPTURE_DIR, docs/compare.md) on a
// chosen OpenCL device and compares every output with the captured one. It is an ordinary
// OpenCL application: with OPENCL_LAYERS naming the layer it replays through it, without it
// straight on the driver.
//
// One case directory: its detailed report (the form tests/native/compare_flow.sh and
// tests/compare read). Anything else: every case found, one line each and a table by kernel.
// Exit status: 0 every output identical or within tolerance, 1 some output differs, 2 a case
// could not be run or the command line is wrong.
//
// The command line only: parsing, loading, comparing, replaying and reporting are the
// isg_replay_core library, so tests call them without a process in between.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "batch.h"
#include "case_loader.h"
#include "cli.h"
#include "replay.h"
#include "report.h"

using namespace isg::replay;

int main(int argc, char** argv) {
  Options o;
  try {
    switch (parseCommandLine(std::vector<std::string>(argv + 1, argv + argc), &o)) {
      case Action::Help:
        std::fputs(kUsage, stdout);
        return 0;
      case Action::Version:
        std::puts("isg-replay " ISG_VERSION);
        return 0;
      case Action::Run:
        break;
    }
  } catch (const UsageError& e) {
    std::fprintf(stderr, "isg-replay: %s\n", e.what.c_str());
    return 2;
  }
  try {
    std::vector<std::string> cases;
    for (const std::string& dir : o.dirs) {
      const std::vector<std::string> found = findCases(dir);
      if (found.empty()) fatal(dir + ": no case (a directory with case.json) in it");
      cases.insert(cases.end(), found.begin(), found.end());
    }
    if (cases.size() > 1 || cases.front() != o.dirs.front()) return runBatch(o, cases);
    // One case named as such: its detailed report, as before the batch form existed.
    std::string report;
    const CaseResult r = replayCase(o, cases.front(), &report);
    std::fputs(report.c_str(), stdout);
    std::fflush(stdout);
    if (r.verdict == Verdict::NotRun) std::fprintf(stderr, "isg-replay: %s\n", r.full.c_str());
    writeReport(o, {r});
    return exitStatus(r.verdict);
  } catch (const Fatal& f) {
    std::fflush(stdout);
    std::fprintf(stderr, "isg-replay: %s\n", f.what.c_str());
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "isg-replay: %s\n", e.what());
  }
  return 2;
}
