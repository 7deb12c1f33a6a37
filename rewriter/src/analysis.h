// SPDX-License-Identifier: MIT
// The Clang half of the rewriter: parses a program the way the driver will build it and says
// which functions need the sub-group context, what each kernel needs, and which bytes to edit.
// It never produces the rewritten text itself (rewriter.cpp does), which keeps Clang types out
// of everything else.
#pragma once

#include <string>
#include <vector>

#include "isg/rewriter.h"

namespace isg::detail {

// Build options split into the arguments the Clang driver understands and may see (-D, -U, -I,
// the -cl-* options it knows); vendor options are dropped here but stay in the driver's options.
std::vector<std::string> clangArgsFromOptions(const std::string& options);

// One replacement in a user file: `length` bytes at `offset` become `text`.
struct FileEdit {
  std::string file;  // "<source>" or a header's include name
  unsigned offset = 0;
  unsigned length = 0;
  std::string text;
};

struct Analysis {
  bool ok = false;  // false: `log` holds the diagnostics that make the build fail
  std::string log;
  bool usesSubGroups = false;              // a builtin call or intel_reqd_sub_group_size
  std::vector<std::string> families;       // used anywhere in the program, in table order
  std::vector<std::string> userDefined;    // table names the program defines itself
  // Builtin name -> argument count its prelude macro takes: the count every call of it uses,
  // or the shape's usual one. OpenCL C before 3.0 has no variadic macros (NVIDIA rejects them),
  // so each macro has one arity; calls with another count are renamed to the macro of `extra`.
  std::vector<std::pair<std::string, unsigned>> macroArity;
  std::vector<std::pair<std::string, unsigned>> extraArity;  // (name, count): __ISG_A<count>_<name>
  std::vector<KernelManifest> kernels;     // in source order
  std::vector<FileEdit> edits;
};

Analysis analyzeProgram(const RewriteInput& input);

}  // namespace isg::detail
