// SPDX-License-Identifier: MIT
#include "cli.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>

#include "report.h"

namespace isg::replay {

const char* const kUsage =
    "usage: isg-replay DIR... [--platform INDEX|SUBSTR] [--device INDEX|SUBSTR]\n"
    "                  [--exact | --ulp N --rtol X --atol X] [--repeat N] [--no-compare]\n"
    "                  [--options \"OPTS\"] [--drop-option OPT]... [--report FILE.md|FILE.json]\n"
    "                  [--report-format md|json] [--details]\n"
    "       isg-replay --help | --version\n"
    "Replays cases captured with ISG_CAPTURE_DIR and compares their outputs (docs/compare.md).\n"
    "DIR is a case, or a directory searched for cases: one line per case, then a table by\n"
    "kernel. Floats match within a default bound for sums computed in another order (printed),\n"
    "bit for bit with --exact, or within the --ulp/--rtol/--atol given; integers bit-exact.\n"
    "Exit status: 0 identical or within tolerance, 1 a mismatch, 2 a case not run or an error.\n";

namespace {

[[noreturn]] void usage(const std::string& what) { throw UsageError{what}; }

// A whole number of at least `least`; the same message for every value that is not one.
std::uint64_t wholeNumber(const std::string& option, const std::string& v, std::uint64_t least) {
  const std::string want = option + ": '" + v + "' is not a whole number of " +
                           (least ? "at least " + std::to_string(least) : std::string("0 or more"));
  if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos) usage(want);
  errno = 0;
  const unsigned long long n = std::strtoull(v.c_str(), nullptr, 10);
  if (errno == ERANGE || n < least) usage(want);
  return n;
}

double finiteNumber(const std::string& option, const std::string& v) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(x) || x < 0)
    usage(option + ": '" + v + "' is not a finite number of 0 or more");
  return x;
}

}  // namespace

Action parseCommandLine(const std::vector<std::string>& args, Options* o) {
  bool exact = false;
  std::string givenBy;  // the first of --ulp/--rtol/--atol
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= args.size()) usage(a + " needs a value");
      return args[++i];
    };
    if (a == "--help" || a == "-h") return Action::Help;
    if (a == "--version") return Action::Version;
    if (a == "--platform") {
      o->platform = value();
    } else if (a == "--device") {
      o->device = value();
    } else if (a == "--repeat") {
      const std::uint64_t n = wholeNumber(a, value(), 1);
      if (n > 1000000) usage(a + ": '" + args[i] + "' is more than 1000000 runs");
      o->repeat = static_cast<unsigned>(n);
    } else if (a == "--ulp") {
      o->tolerance.given.ulp = wholeNumber(a, value(), 0);
      givenBy = givenBy.empty() ? a : givenBy;
    } else if (a == "--rtol") {
      o->tolerance.given.rtol = finiteNumber(a, value());
      givenBy = givenBy.empty() ? a : givenBy;
    } else if (a == "--atol") {
      o->tolerance.given.atol = finiteNumber(a, value());
      givenBy = givenBy.empty() ? a : givenBy;
    } else if (a == "--exact") {
      exact = true;
    } else if (a == "--no-compare") {
      o->compare = false;
    } else if (a == "--options") {
      o->replaceOptions = true;
      o->newOptions = value();
    } else if (a == "--drop-option") {
      const std::string v = value();
      if (v.find_first_not_of(" \t") == std::string::npos) usage(a + ": the option is empty");
      o->dropOptions.push_back(v);
    } else if (a == "--report") {
      o->reportPath = value();
      if (o->reportPath.empty()) usage(a + ": the file name is empty");
    } else if (a == "--report-format") {
      o->reportFormat = value();
      if (o->reportFormat != "md" && o->reportFormat != "json")
        usage(a + ": '" + o->reportFormat + "' is neither md nor json");
    } else if (a == "--details") {
      o->details = true;
    } else if (!a.empty() && a[0] == '-') {
      usage("unknown option '" + a + "' (isg-replay --help lists them)");
    } else if (a.empty()) {
      usage("an empty case directory argument");
    } else {
      o->dirs.push_back(a);
    }
  }
  if (exact && !givenBy.empty()) usage("--exact and " + givenBy + " contradict each other");
  if (exact)
    o->tolerance.mode = ToleranceSetting::Mode::Exact;
  else if (!givenBy.empty())
    o->tolerance.mode = ToleranceSetting::Mode::Given;
  if (!o->reportFormat.empty() && o->reportPath.empty())
    usage("--report-format needs --report FILE");
  if (!o->reportPath.empty() && reportFormat(o->reportPath, o->reportFormat).empty())
    usage("--report: '" + o->reportPath +
          "' ends in neither .md nor .json (or say --report-format md|json)");
  if (o->dirs.empty()) usage("no case directory given (isg-replay --help)");
  return Action::Run;
}

}  // namespace isg::replay
