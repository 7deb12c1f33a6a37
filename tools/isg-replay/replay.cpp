// SPDX-License-Identifier: MIT
#include "replay.h"

#include <CL/cl.h>

#include <algorithm>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "build_options.h"
#include "case_loader.h"
#include "session.h"

namespace isg::replay {

const char* verdictName(Verdict v) {
  switch (v) {
    case Verdict::Identical:
      return "IDENTICAL";
    case Verdict::WithinTolerance:
      return "WITHIN TOLERANCE";
    case Verdict::Mismatch:
      return "MISMATCH";
    case Verdict::NotCompared:
      return "NOT COMPARED";
    default:
      return "NOT RUN";
  }
}

int exitStatus(Verdict v) {
  return v == Verdict::Mismatch ? 1 : v == Verdict::NotRun ? 2 : 0;
}

namespace {

using isg::capture::Argument;
using isg::capture::Case;
using isg::capture::MemoryObject;

// printf onto the report.
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void say(std::string* out, const char* format, ...) {
  char text[4096];
  va_list args;
  va_start(args, format);
  std::vsnprintf(text, sizeof text, format, args);
  va_end(args);
  *out += text;
}

std::string formatTime(double ns) {
  char text[32];
  if (ns < 1e4)
    std::snprintf(text, sizeof text, "%.0f ns", ns);
  else if (ns < 1e7)
    std::snprintf(text, sizeof text, "%.1f us", ns / 1e3);
  else
    std::snprintf(text, sizeof text, "%.2f ms", ns / 1e6);
  return text;
}

std::string deviceLine(const std::map<std::string, std::string>& d) {
  auto get = [&](const char* key) {
    auto it = d.find(key);
    return it == d.end() ? std::string("?") : it->second;
  };
  return get("name") + " | " + get("platform_name") + " | driver " + get("driver_version") + " | " +
         get("version");
}

std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// The options the replay builds with: the case's, replaced and trimmed as the options say.
std::string buildOptionsFor(const Options& o, const Case& c, std::string* report) {
  std::string options = o.replaceOptions ? o.newOptions : c.buildOptions;
  std::vector<std::string> dropped;
  for (const std::string& d : o.dropOptions) options = dropOption(options, d, &dropped);
  if (o.replaceOptions || !o.dropOptions.empty()) {
    std::string gone;
    for (const std::string& d : dropped) gone += (gone.empty() ? "" : ", ") + d;
    say(report, "options    '%s' (captured: '%s'%s%s)\n", options.c_str(),
        c.buildOptions.c_str(), dropped.empty() ? "" : "; dropped: ", gone.c_str());
  }
  return options;
}

// Compares every written output; the report's "outputs" lines. Fills the verdict.
void compareOutputs(const Options& o, const LoadedCase& l, const Replay& r,
                    const std::vector<std::string>& outputs, std::string* report,
                    CaseResult* result) {
  const Case& c = l.c;
  int differing = 0, compared = 0;
  bool anyTolerated = false;
  say(report, "outputs (%s):\n", describe(o.tolerance).c_str());
  for (size_t i = 0; i < c.args.size(); ++i) {
    const Argument& a = c.args[i];
    if (!a.writable || l.after[a.memory].empty()) continue;
    const MemoryObject& m = c.memory[a.memory];
    Elem e = Elem::Bytes;
    std::string typeText = r.typeNames[i];
    if (a.kind == "image") {
      e = elemFromChannelType(m.channelDataType);
      typeText = a.typeName.empty() ? "image" : a.typeName;
    } else {
      e = elemFromTypeName(typeText);
    }
    const size_t origin = a.kind == "buffer" ? a.origin : 0;
    const size_t bytes = a.kind == "buffer" ? a.size : m.size;
    const auto* captured = reinterpret_cast<const unsigned char*>(l.after[a.memory].data());
    const auto* replayed = reinterpret_cast<const unsigned char*>(outputs[a.memory].data());
    const Tolerance t = toleranceFor(o.tolerance, e, captured + origin, bytes);
    Comparison cmp = compare(captured + origin, replayed + origin, bytes, e, t);
    ++compared;
    std::string label = "arg " + std::to_string(a.index) + (a.name.empty() ? "" : " " + a.name) +
                        " (" + (typeText.empty() ? "type unknown" : typeText) + ", " +
                        std::to_string(cmp.elements) + " x " + elemName(e) + ")";
    if (e == Elem::Bytes && a.kind != "image")
      label += typeText.empty() ? " [no argument type information: compared bytewise]"
                                : " [not a plain scalar type: compared bytewise]";
    if (cmp.mismatches || cmp.tolerated) {
      const bool larger = !result->anyError || cmp.largestError > result->largestError ||
                          (cmp.largestError == result->largestError &&
                           cmp.largestUlp > result->largestUlp);
      if (larger) {
        result->anyError = true;
        result->floatError = isFloat(e);
        result->largestError = cmp.largestError;
        result->largestUlp = cmp.largestUlp;
      }
    }
    if (cmp.mismatches == 0) {
      if (cmp.tolerated)
        say(report,
            "  %s: %zu elements within tolerance, largest error %g (%" PRIu64
            " ulp) at [%zu]; bound %s\n",
            label.c_str(), cmp.tolerated, cmp.largestError, cmp.largestUlp, cmp.largestAt,
            describe(t).c_str());
      else
        say(report, "  %s: identical\n", label.c_str());
      anyTolerated |= cmp.tolerated != 0;
      continue;
    }
    ++differing;
    char largest[160];
    if (isFloat(e))
      std::snprintf(largest, sizeof largest, "largest error %g (%" PRIu64 " ulp) at [%zu]",
                    cmp.largestError, cmp.largestUlp, cmp.largestAt);
    else
      std::snprintf(largest, sizeof largest, "largest difference %.0f at [%zu]", cmp.largestError,
                    cmp.largestAt);
    say(report, "  %s: MISMATCH in %zu of %zu elements; %s\n", label.c_str(), cmp.mismatches,
        cmp.elements, largest);
    for (const std::string& line : cmp.first) say(report, "      %s\n", line.c_str());
    if (cmp.mismatches > cmp.first.size())
      say(report, "      ... %zu more\n", cmp.mismatches - cmp.first.size());
    if (result->detail.empty())
      result->detail = "arg " + std::to_string(a.index) + (a.name.empty() ? "" : " " + a.name) +
                       ": " + std::to_string(cmp.mismatches) + " of " +
                       std::to_string(cmp.elements) + " elements differ, " + largest;
  }
  if (compared == 0) say(report, "  (the kernel writes no memory argument)\n");
  if (differing) {
    result->verdict = Verdict::Mismatch;
    const std::string count =
        std::to_string(differing) + " of " + std::to_string(compared) + " outputs differ";
    result->detail = count + "; " + result->detail;
    say(report, "result     MISMATCH: %s\n", count.c_str());
  } else if (anyTolerated) {
    result->verdict = Verdict::WithinTolerance;
    say(report, "result     WITHIN TOLERANCE: largest error %g (%" PRIu64 " ulp)\n",
        result->largestError, result->largestUlp);
  } else {
    result->verdict = Verdict::Identical;
    say(report, "result     IDENTICAL\n");
  }
}

void replayLoaded(const Options& o, const LoadedCase& l, const std::string& dir,
                  std::string* report, CaseResult* result) {
  const Case& c = l.c;
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  selectDevice(o, &platform, &device);
  const std::map<std::string, std::string> here = {
      {"name", deviceText(device, CL_DEVICE_NAME)},
      {"platform_name", platformText(platform, CL_PLATFORM_NAME)},
      {"driver_version", deviceText(device, CL_DRIVER_VERSION)},
      {"version", deviceText(device, CL_DEVICE_VERSION)}};
  const char* layers = std::getenv("OPENCL_LAYERS");
  say(report, "case       %s (%s v%d)\n", dir.c_str(), isg::capture::kFormatName,
      c.formatVersion);
  say(report, "kernel     %s  %s work_dim %u offset %s global %s local %s\n", c.kernelName.c_str(),
      c.api.c_str(), c.ndrange.workDim, dims(c.ndrange.globalOffset).c_str(),
      dims(c.ndrange.globalSize).c_str(), dims(c.ndrange.localSize).c_str());
  say(report, "captured   %s\n           layer: %s%s%s\n", deviceLine(c.device).c_str(),
      c.layerMode.c_str(), c.strategy.empty() ? "" : (", strategy " + c.strategy).c_str(),
      c.subGroupSize ? (", sub-group size " + std::to_string(c.subGroupSize)).c_str() : "");
  say(report, "replaying  %s\n           OPENCL_LAYERS: %s\n", deviceLine(here).c_str(),
      layers && *layers ? layers : "(not set: straight on the driver)");
  for (const std::string& n : c.notes) say(report, "note       %s\n", n.c_str());
  const std::string options = buildOptionsFor(o, c, report);
  if (o.replaceOptions || !o.dropOptions.empty()) result->options = options;

  Replay r(l, options);
  r.build(device);
  r.createMemory(device);
  r.setArguments();
  std::vector<double> times;
  std::vector<std::string> outputs;
  bool profiled = true;
  for (unsigned i = 0; i < o.repeat; ++i) {
    r.restoreInputs();
    bool p = false;
    times.push_back(r.run(&p));
    profiled = profiled && p;
    if (i == 0) outputs = r.readOutputs();
  }
  if (o.compare) compareOutputs(o, l, r, outputs, report, result);
  if (o.repeat > 1 || !o.compare) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    const size_t n = sorted.size();
    const double median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    // Before the result line, where the single-case report has always had it.
    std::string timing;
    say(&timing, "timing     %zu run%s, %s: median %s, min %s, max %s\n", n, n == 1 ? "" : "s",
        profiled ? "kernel time (profiling events)" : "host wall time (no profiling)",
        formatTime(median).c_str(), formatTime(sorted.front()).c_str(),
        formatTime(sorted.back()).c_str());
    const size_t at = report->rfind("result     ");
    report->insert(at == std::string::npos ? report->size() : at, timing);
  }
  if (!o.compare) {
    result->verdict = Verdict::NotCompared;
    say(report, "result     NOT COMPARED (--no-compare)\n");
  }
}

}  // namespace

CaseResult replayCase(const Options& o, const std::string& dir, std::string* report) {
  CaseResult result;
  result.dir = dir;
  try {
    LoadedCase l;
    try {
      l = loadCase(dir);
    } catch (const Fatal& f) {
      throw Fatal{f.what, "case unreadable: " + firstLine(f.brief.empty() ? f.what : f.brief)};
    }
    result.kernel = l.c.kernelName;
    result.launch = "global " + dims(l.c.ndrange.globalSize) + " local " + dims(l.c.ndrange.localSize);
    replayLoaded(o, l, dir, report, &result);
  } catch (const Fatal& f) {
    result.verdict = Verdict::NotRun;
    result.full = f.what;
    result.detail = firstLine(f.brief.empty() ? f.what : f.brief);
  } catch (const std::exception& e) {
    result.verdict = Verdict::NotRun;
    result.full = result.detail = std::string("internal error: ") + e.what();
  }
  return result;
}

}  // namespace isg::replay
