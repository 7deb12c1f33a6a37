// SPDX-License-Identifier: MIT
// isg-replay: runs a kernel case captured by the layer (ISG_CAPTURE_DIR, docs/compare.md) on a
// chosen OpenCL device and compares every output with the captured one. It is an ordinary
// OpenCL application: with OPENCL_LAYERS naming the layer it replays through it, without it
// straight on the driver.
//
// Exit status: 0 every output matches, 1 some output differs, 2 the case could not be run.
//
// The command line only: loading, comparing and replaying are the isg_replay_core library, so
// tests call them without a device or a process in between.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "case_loader.h"
#include "replay.h"

namespace {

using isg::replay::fatal;
using isg::replay::Options;

const char* kUsage =
    "usage: isg-replay CASE_DIR [--platform INDEX|SUBSTR] [--device INDEX|SUBSTR]\n"
    "                  [--ulp N] [--rtol X] [--atol X] [--repeat N] [--no-compare]\n"
    "       isg-replay --version\n"
    "Runs a case captured with ISG_CAPTURE_DIR and compares its outputs (docs/compare.md).\n"
    "Floats match when bit-identical, within N ulp, or within atol + rtol*|captured|;\n"
    "integers must be bit-exact. Exit status: 0 match, 1 mismatch, 2 error.\n";

bool parseOptions(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fatal(a + " needs a value");
      return argv[++i];
    };
    auto number = [&](double* out) {
      std::string v = value();
      char* end = nullptr;
      *out = std::strtod(v.c_str(), &end);
      if (v.empty() || *end || *out < 0) fatal(a + ": '" + v + "' is not a non-negative number");
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--version") {
      std::puts("isg-replay " ISG_VERSION);
      std::exit(0);
    } else if (a == "--platform") {
      o->platform = value();
    } else if (a == "--device") {
      o->device = value();
    } else if (a == "--ulp" || a == "--repeat") {
      double v = 0;
      number(&v);
      if (v != std::floor(v) || (a == "--repeat" && v < 1)) fatal(a + " needs a whole number");
      if (a == "--ulp")
        o->tolerance.ulp = static_cast<std::uint64_t>(v);
      else
        o->repeat = static_cast<unsigned>(v);
    } else if (a == "--rtol") {
      number(&o->tolerance.rtol);
    } else if (a == "--atol") {
      number(&o->tolerance.atol);
    } else if (a == "--no-compare") {
      o->compare = false;
    } else if (!a.empty() && a[0] == '-') {
      fatal("unknown option " + a + "\n" + kUsage);
    } else if (o->caseDir.empty()) {
      o->caseDir = a;
    } else {
      fatal("more than one case directory");
    }
  }
  return !o->caseDir.empty();
}

}  // namespace

int main(int argc, char** argv) {
  try {
    Options o;
    if (!parseOptions(argc, argv, &o)) {
      std::fputs(kUsage, stderr);
      return 2;
    }
    return isg::replay::replay(o);
  } catch (const isg::replay::Fatal& f) {
    std::fflush(stdout);
    std::fprintf(stderr, "isg-replay: %s\n", f.what.c_str());
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::fprintf(stderr, "isg-replay: %s\n", e.what());
  }
  return 2;
}
