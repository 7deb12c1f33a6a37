// SPDX-License-Identifier: MIT
// --report FILE: the per-case results and the table by kernel as Markdown or JSON.
#pragma once

#include <string>
#include <vector>

#include "batch.h"
#include "replay.h"

namespace isg::replay {

// "md" or "json": --report-format if given, else the file name's extension; "" when neither says.
std::string reportFormat(const std::string& path, const std::string& format);

std::string markdownReport(const Options& o, const std::vector<CaseResult>& results);
std::string jsonReport(const Options& o, const std::vector<CaseResult>& results);

// Writes o.reportPath (nothing when empty); throws Fatal when it cannot.
void writeReport(const Options& o, const std::vector<CaseResult>& results);

}  // namespace isg::replay
