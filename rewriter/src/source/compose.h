// SPDX-License-Identifier: MIT
// The rewritten text: the analysis' byte edits (analysis.h) applied to the program's files,
// edited disk headers folded into their includers, and the line map from every output line
// back to the user's file and line.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "source/analysis.h"
#include "isg/rewriter.h"

namespace isg::detail {

unsigned countLines(std::string_view text);

// `#pragma OPENCL EXTENSION cl_intel_subgroups... : state` lines: drivers without the extension
// warn about them. The line's text goes, its line break stays.
void blankExtensionPragmas(const std::string& file, const std::string& text,
                           std::vector<FileEdit>& edits);

// The text the driver gets for the program's own files. A header read from disk that needs
// edits cannot be edited where it lies, so its edited text replaces the #include line that
// brought it in (and so do the disk headers that include it, their own includes re-pointed at
// absolute paths since they no longer sit beside them). Every output line keeps its origin in
// the line map, which is how build logs name the user's file and line: NVIDIA ignores #line.
class Composer {
 public:
  Composer(const RewriteInput& in, const Analysis& a, std::vector<FileEdit> edits);
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // `name`'s text with folded headers in place; its lines start at line `first` of `written`.
  std::string compose(const std::string& name, const std::string& written, unsigned first,
                      std::vector<LineMapEntry>* map);

 private:
  struct Line {
    std::string text;
    const std::string* file;
    unsigned line;
  };
  static std::string marker(std::size_t i);

  void expand(const std::string& name, int depth, std::vector<Line>* out);

  const std::vector<IncludeDirective>& includes_;
  std::set<std::string> fold_;
  std::vector<std::string> targets_;
  std::map<std::string, std::string> texts_;
  std::string error_;
};

}  // namespace isg::detail
