// SPDX-License-Identifier: MIT
#include "report.h"

#include <cinttypes>
#include <cstdio>

#include "case_format.h"
#include "case_loader.h"

namespace isg::replay {

namespace {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char text[8];
      std::snprintf(text, sizeof text, "\\u%04x", c);
      out += text;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

// A Markdown table cell: pipes escaped, one line.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string largest(const CaseResult& r) {
  if (!r.anyError || r.verdict == Verdict::NotRun) return "";
  char text[64];
  if (r.floatError)
    std::snprintf(text, sizeof text, "%g (%" PRIu64 " ulp)", r.largestError, r.largestUlp);
  else
    std::snprintf(text, sizeof text, "%.0f", r.largestError);
  return text;
}

const char* statusMeaning(int status) {
  return status == 0 ? "every case identical or within tolerance"
         : status == 1 ? "some case mismatched"
                       : "some case was not run";
}

}  // namespace

std::string reportFormat(const std::string& path, const std::string& format) {
  if (!format.empty()) return format;
  auto endsWith = [&](const char* suffix) {
    const std::string s = suffix;
    return path.size() >= s.size() && path.compare(path.size() - s.size(), s.size(), s) == 0;
  };
  if (endsWith(".md") || endsWith(".markdown")) return "md";
  if (endsWith(".json")) return "json";
  return "";
}

std::string markdownReport(const Options& o, const std::vector<CaseResult>& results) {
  const int status = worstExitStatus(results);
  std::string out = "# isg-replay report\n\n";
  out += "Tolerance: " + describe(o.tolerance) + ".\n\n";
  out += "Exit status " + std::to_string(status) + ": " + statusMeaning(status) + ".\n\n";
  out += "## By kernel\n\n| kernel | cases | identical | within tolerance | mismatched | not run | "
         "why not run |\n|---|---:|---:|---:|---:|---:|---|\n";
  for (const KernelRow& k : tabulate(results))
    out += "| " + cell(k.kernel) + " | " + std::to_string(k.cases) + " | " +
           std::to_string(k.identical) + " | " + std::to_string(k.withinTolerance) + " | " +
           std::to_string(k.mismatched) + " | " + std::to_string(k.notRun) + " | " +
           cell(k.notRunWhy) + " |\n";
  out += "\n## Cases\n\n| result | kernel | launch | largest error | detail | case |\n"
         "|---|---|---|---|---|---|\n";
  for (const CaseResult& r : results)
    out += "| " + std::string(verdictName(r.verdict)) + " | " + cell(r.kernel) + " | " +
           cell(r.launch) + " | " + cell(largest(r)) + " | " + cell(r.detail) + " | " +
           cell(r.dir) + " |\n";
  return out;
}

std::string jsonReport(const Options& o, const std::vector<CaseResult>& results) {
  const int status = worstExitStatus(results);
  std::string out = "{\n  \"tool\": \"isg-replay\",\n  \"version\": " + jsonString(ISG_VERSION) +
                    ",\n  \"tolerance\": " + jsonString(describe(o.tolerance)) +
                    ",\n  \"exit_status\": " + std::to_string(status) + ",\n  \"kernels\": [";
  bool first = true;
  for (const KernelRow& k : tabulate(results)) {
    out += std::string(first ? "" : ",") + "\n    {\"kernel\": " + jsonString(k.kernel) +
           ", \"cases\": " + std::to_string(k.cases) +
           ", \"identical\": " + std::to_string(k.identical) +
           ", \"within_tolerance\": " + std::to_string(k.withinTolerance) +
           ", \"mismatched\": " + std::to_string(k.mismatched) +
           ", \"not_run\": " + std::to_string(k.notRun) +
           ", \"not_run_why\": " + jsonString(k.notRunWhy) + "}";
    first = false;
  }
  out += "\n  ],\n  \"cases\": [";
  first = true;
  for (const CaseResult& r : results) {
    char error[64] = "null";
    if (r.anyError && r.verdict != Verdict::NotRun)
      std::snprintf(error, sizeof error, "%.9g", r.largestError);
    out += std::string(first ? "" : ",") + "\n    {\"case\": " + jsonString(r.dir) +
           ", \"kernel\": " + jsonString(r.kernel) + ", \"launch\": " + jsonString(r.launch) +
           ", \"result\": " + jsonString(verdictName(r.verdict)) + ", \"largest_error\": " +
           error + ", \"largest_ulp\": " +
           (r.anyError && r.floatError && r.verdict != Verdict::NotRun
                ? std::to_string(r.largestUlp)
                : std::string("null")) +
           ", \"detail\": " + jsonString(r.detail) + ", \"build_options\": " +
           (r.options.empty() ? std::string("null") : jsonString(r.options)) + "}";
    first = false;
  }
  return out + "\n  ]\n}\n";
}

void writeReport(const Options& o, const std::vector<CaseResult>& results) {
  if (o.reportPath.empty()) return;
  const std::string format = reportFormat(o.reportPath, o.reportFormat);
  const std::string text =
      format == "json" ? jsonReport(o, results) : markdownReport(o, results);
  if (!isg::capture::writeFile(o.reportPath, text)) fatal("cannot write the report " + o.reportPath);
}

}  // namespace isg::replay
