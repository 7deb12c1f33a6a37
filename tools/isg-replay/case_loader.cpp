// SPDX-License-Identifier: MIT
#include "case_loader.h"

#include <utility>

namespace isg::replay {

using isg::capture::Argument;
using isg::capture::MemoryObject;

[[noreturn]] void fatal(const std::string& what, const std::string& brief) {
  throw Fatal{what, brief};
}

LoadedCase loadCase(const std::string& dir) {
  LoadedCase l;
  std::string text, error;
  const std::string path = dir + "/" + isg::capture::kCaseFile;
  if (!isg::capture::readFile(path, &text)) fatal("cannot read " + path);
  if (!isg::capture::fromJson(text, &l.c, &error)) fatal(path + ": " + error);
  if (!isg::capture::readFile(dir + "/" + l.c.sourceFile, &l.source))
    fatal("cannot read " + dir + "/" + l.c.sourceFile);
  for (size_t i = 0; i < l.c.memory.size(); ++i) {
    const MemoryObject& m = l.c.memory[i];
    if (m.id != i) fatal(path + ": memory ids must be 0, 1, ... in order");
    std::string before, after;
    if (!isg::capture::readFile(dir + "/" + m.before, &before) || before.size() != m.size)
      fatal("memory " + std::to_string(i) + ": " + m.before + " is missing or not " +
            std::to_string(m.size) + " bytes");
    if (!m.after.empty() &&
        (!isg::capture::readFile(dir + "/" + m.after, &after) || after.size() != m.size))
      fatal("memory " + std::to_string(i) + ": " + m.after + " is missing or not " +
            std::to_string(m.size) + " bytes");
    l.before.push_back(std::move(before));
    l.after.push_back(std::move(after));
  }
  for (const Argument& a : l.c.args) {
    if ((a.kind == "buffer" || a.kind == "image") && a.memory >= l.c.memory.size())
      fatal("argument " + std::to_string(a.index) + " names a memory object that is not there");
    if (a.kind == "buffer" && a.origin + a.size > l.c.memory[a.memory].size)
      fatal("argument " + std::to_string(a.index) + " lies outside its buffer");
  }
  if (l.c.ndrange.workDim < 1 || l.c.ndrange.workDim > 3 ||
      l.c.ndrange.globalSize.size() != l.c.ndrange.workDim)
    fatal("the case's ND-range is malformed");
  return l;
}

}  // namespace isg::replay
