// SPDX-License-Identifier: MIT
#include "batch.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <map>

#include "case_format.h"
#include "case_loader.h"
#include "report.h"

namespace isg::replay {

namespace fs = std::filesystem;

std::vector<std::string> findCases(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) fatal(dir + ": not a directory");
  if (fs::exists(fs::path(dir) / isg::capture::kCaseFile, ec)) return {dir};
  std::vector<std::string> out;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) fatal(dir + ": " + ec.message());
  for (; it != end; it.increment(ec)) {
    if (ec) fatal(dir + ": " + ec.message());
    const fs::path& p = it->path();
    const std::string name = p.filename().string();
    if (!it->is_directory(ec)) continue;
    if (!name.empty() && name[0] == '.') {  // an unfinished capture (`.name.partial`), or hidden
      it.disable_recursion_pending();
      continue;
    }
    if (fs::exists(p / isg::capture::kCaseFile, ec)) {
      out.push_back(p.string());
      it.disable_recursion_pending();  // a case holds no cases
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<KernelRow> tabulate(const std::vector<CaseResult>& results) {
  std::vector<KernelRow> rows;
  std::map<std::string, size_t> at;
  for (const CaseResult& r : results) {
    auto [it, fresh] = at.emplace(r.kernel, rows.size());
    if (fresh) rows.push_back(KernelRow{r.kernel, 0, 0, 0, 0, 0, 0, {}});
    KernelRow& row = rows[it->second];
    ++row.cases;
    switch (r.verdict) {
      case Verdict::Identical:
        ++row.identical;
        break;
      case Verdict::WithinTolerance:
        ++row.withinTolerance;
        break;
      case Verdict::Mismatch:
        ++row.mismatched;
        break;
      case Verdict::NotCompared:
        ++row.notCompared;
        break;
      case Verdict::NotRun:
        ++row.notRun;
        if (row.notRunWhy.empty()) row.notRunWhy = r.detail;
        break;
    }
  }
  return rows;
}

int worstExitStatus(const std::vector<CaseResult>& results) {
  int worst = 0;
  for (const CaseResult& r : results) worst = std::max(worst, exitStatus(r.verdict));
  return worst;
}

std::string caseLine(const CaseResult& r) {
  std::string what;
  char text[96];
  if (r.anyError && r.verdict != Verdict::NotRun) {
    if (r.floatError)
      std::snprintf(text, sizeof text, "largest error %g (%" PRIu64 " ulp)", r.largestError,
                    r.largestUlp);
    else
      std::snprintf(text, sizeof text, "largest difference %.0f", r.largestError);
    what = text;
  }
  if (r.verdict == Verdict::Mismatch || r.verdict == Verdict::NotRun) what = r.detail;
  std::snprintf(text, sizeof text, "%-16s  %-20s %-30s", verdictName(r.verdict), r.kernel.c_str(),
                r.launch.c_str());
  return std::string(text) + "  " + r.dir + (what.empty() ? "" : "\n" + std::string(18, ' ') + what);
}

std::string tableText(const std::vector<KernelRow>& rows) {
  size_t width = 6;
  for (const KernelRow& k : rows) width = std::max(width, k.kernel.size());
  KernelRow total{"total", 0, 0, 0, 0, 0, 0, {}};
  std::string out;
  char text[256];
  std::snprintf(text, sizeof text, "%-*s  %5s  %9s  %16s  %10s  %7s  %s\n",
                static_cast<int>(width), "kernel", "cases", "identical", "within tolerance",
                "mismatched", "not run", "why not run");
  out += text;
  auto row = [&](const KernelRow& k) {
    std::snprintf(text, sizeof text, "%-*s  %5zu  %9zu  %16zu  %10zu  %7zu  ",
                  static_cast<int>(width), k.kernel.c_str(), k.cases, k.identical,
                  k.withinTolerance, k.mismatched, k.notRun);
    out += text + k.notRunWhy + "\n";
  };
  for (const KernelRow& k : rows) {
    row(k);
    total.cases += k.cases;
    total.identical += k.identical;
    total.withinTolerance += k.withinTolerance;
    total.mismatched += k.mismatched;
    total.notRun += k.notRun;
  }
  row(total);
  return out;
}

int runBatch(const Options& o, const std::vector<std::string>& cases) {
  std::printf("isg-replay: %zu case%s; tolerance %s\n", cases.size(), cases.size() == 1 ? "" : "s",
              describe(o.tolerance).c_str());
  std::vector<CaseResult> results;
  for (const std::string& dir : cases) {
    std::string report;
    results.push_back(replayCase(o, dir, &report));
    if (o.details) std::printf("\n%s%s", report.c_str(), results.back().verdict == Verdict::NotRun
                                                              ? (results.back().full + "\n").c_str()
                                                              : "");
    std::printf("%s\n", caseLine(results.back()).c_str());
    std::fflush(stdout);
  }
  std::printf("\n%s", tableText(tabulate(results)).c_str());
  const int status = worstExitStatus(results);
  std::printf("exit status %d (%s)\n", status,
              status == 0 ? "every case identical or within tolerance"
              : status == 1 ? "some case mismatched"
                            : "some case was not run");
  writeReport(o, results);
  return status;
}

}  // namespace isg::replay
