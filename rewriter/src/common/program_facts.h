// SPDX-License-Identifier: MIT
// What the rewriter knows about a program, whichever pipeline found it: the source pipeline's
// Clang analysis (source/analysis.h) or the module pipeline's reading of a module
// (module/module_rewriter.cpp). The edits, the kernels' manifests and the arities the prelude
// (common/kernel_facts.h) and the composition (source/compose.h) need; no Clang types.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "isg/rewriter.h"

namespace isg::detail {

// One replacement in a user file: `length` bytes at `offset` become `text`.
struct FileEdit {
  std::string file;  // "<source>" or a header's include name
  unsigned offset = 0;
  unsigned length = 0;
  std::string text;
};

// An `#include` the preprocessor acted on, in a file of the program (main text, named header or
// a file read from disk). Disk files with edits are folded into their includer's text.
struct IncludeDirective {
  std::string file;        // the includer, named as FileEdit names files
  unsigned begin = 0;      // '#' of the directive
  unsigned end = 0;        // end of its line (the newline excluded)
  std::string target;      // the included file, named likewise; empty: not a program file
  std::string targetPath;  // absolute path of a disk target (re-pointing moved includes)
  bool entered = false;    // false: skipped (include guard, #pragma once)
};

struct Analysis {
  bool ok = false;  // false: `log` holds the diagnostics that make the build fail
  std::string log;
  std::string warnings;  // for the build log of a program that builds
  // The walk of Intel's execution model (predication.h) left a function as it was, refused or
  // warned about: the program after its preprocessor may let it through (rewriteProgram).
  bool predicationRefused = false;
  // Block IO a macro spells, which the walk could give member 0's pointer in the program after
  // its preprocessor (AnalysisConsumer::firstMemberPointers), and keeps each member's here.
  bool firstMemberInMacro = false;
  bool usesSubGroups = false;              // a builtin call or intel_reqd_sub_group_size
  std::vector<std::string> families;       // used anywhere in the program, in table order
  std::vector<std::string> userDefined;    // table names the program defines itself
  // Builtin name -> argument count its prelude macro takes: the count every call of it uses,
  // or the shape's usual one. OpenCL C before 3.0 has no variadic macros (NVIDIA rejects them),
  // so each macro has one arity; calls with another count are renamed to the macro of `extra`.
  std::vector<std::pair<std::string, unsigned>> macroArity;
  std::vector<std::pair<std::string, unsigned>> extraArity;  // (name, count): __ISG_A<count>_<name>
  // (name, count): __ISG_CV<count>_<name>, the calls a whole warp reaches (nvidia-ptx; UniformFlow).
  std::vector<std::pair<std::string, unsigned>> convergedArity;
  // (name, count): __ISG_L0_<name>, buffer block IO whose members may pass different pointers
  // (take the first member's, as Intel's runtime does: AnalysisConsumer::firstMemberPointers).
  std::vector<std::pair<std::string, unsigned>> firstMemberArity;
  // (name, count): __ISG_IF<count>_<name>, block and media IO calls that name their kernel's
  // own image parameter and pass its facts (HiddenArg::Kind::ImageFacts).
  std::vector<std::pair<std::string, unsigned>> factsArity;
  std::vector<KernelManifest> kernels;     // in source order
  // Intel-internal builtins (prescan.h) the program names only where no kernel reaches: (name,
  // argument count) of the stand-in macro the driver's text defines for each.
  std::vector<std::pair<std::string, unsigned>> intelInternal;
  bool compiledObject = false;                    // RewriteInput::compiledObject
  std::vector<ContextFunction> contextFunctions;  // RewriteResult::contextFunctions
  std::vector<std::string> externalFunctions;  // RewriteResult::externalFunctions
  std::vector<FileEdit> edits;
  std::vector<IncludeDirective> includes;
  // Where the preprocessor acted on an `#pragma OPENCL EXTENSION` (file as FileEdit names it,
  // offset of the extension's name): a pragma line in a section it skipped is not one of them.
  std::vector<std::pair<std::string, unsigned>> activeExtensionPragmas;
  // Every file the parse read from disk (-I, relative includes): name as the user's build sees
  // it, and the text it had. The result is only valid while they still have that text.
  std::vector<SourceFile> diskFiles;
};

}  // namespace isg::detail
